//! The command's integration tests (`tierfft` run as a user runs it, and the scripts that
//! compare it with NumPy and with an independent focuser), in one binary: one link instead of
//! one per file, and one pool of test threads for all of them.

mod common;

mod adversarial;
mod checksum;
mod cli;
mod echoes;
mod examples;
mod independent_sar;
mod launcher;
mod numpy;
mod product;
mod sar;
