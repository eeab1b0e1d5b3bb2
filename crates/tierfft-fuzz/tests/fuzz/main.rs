//! The fuzz targets' checks on stable Rust: the corpus replayed, and the planner under
//! property tests, in one binary.

mod corpus;
mod planner;
