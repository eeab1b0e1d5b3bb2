//! The SAR crate's integration tests, in one binary: one link instead of one per file, and one
//! pool of test threads for all of them. Each module is one subject.

mod common;

mod any_size;
mod chirps;
mod dist_focus;
mod fit;
mod focus;
mod l0b;
mod lband;
mod noise;
mod pattern;
mod range_compression;
mod replica;
mod squint;
mod strip;
