//! What tierfft's fuzz targets check, one function per target, each taking the fuzzer's bytes
//! and returning `Err` with a description when the code under test broke a promise (a panic
//! is a failure too). `fuzz/` runs them under libFuzzer (`cargo +nightly fuzz run TARGET`);
//! this crate's tests replay the corpus in `fuzz/corpus/` on stable, so every input the
//! fuzzer once found stays checked.
//!
//! - [`npy`]: the `.npy` reader of `tierfft fft` and `tierfft sar --raw`.
//! - [`sar_config`]: the SAR configuration (TOML), validated and planned.
//! - [`plan`]: a transform spec and planner options, planned for a device profile.
//! - [`wisdom`]: the wisdom file `tierfft tune` writes and plans read.

mod npy;
mod plan;
mod sar;
mod wisdom;

pub use npy::npy;
pub use plan::{PROFILES, PlanCase, plan, plan_case};
pub use sar::sar_config;
pub use wisdom::wisdom;

/// A target's check: `Err` describes the promise broken.
pub type Check = fn(&[u8]) -> Result<(), String>;

/// The fuzz targets by name (the folders of `fuzz/corpus/`), with their check.
pub const TARGETS: &[(&str, Check)] = &[
    ("npy", npy),
    ("sar_config", sar_config),
    ("plan", plan),
    ("wisdom", wisdom),
];
