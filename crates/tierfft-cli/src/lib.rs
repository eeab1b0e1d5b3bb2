//! The parts of the `tierfft` command that other crates reach: the `.npy` reader and writer
//! ([`npy`], fuzzed by `crates/tierfft-fuzz`) and the host-memory headroom it checks
//! ([`memory`]). The command itself is `main.rs`.

pub mod memory;
pub mod npy;

/// The error type of every command: anything printable, shown as `error: <message>`.
pub type CliError = Box<dyn std::error::Error>;

/// Shorthand for a command's result.
pub type CliResult<T> = Result<T, CliError>;
