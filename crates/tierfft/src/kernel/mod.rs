//! Plan pass -> kernel source. One generator builds each pass as IR ([`ir`]); one printer
//! ([`print`]) writes it in each dialect ([`wgsl`], [`cuda`]). Nothing here knows how to
//! launch a kernel.

mod butterfly;
pub mod cuda;
mod emit;
#[cfg(test)]
mod eval;
pub mod ir;
mod pass;
pub mod print;
pub mod wgsl;

pub use pass::pass_kernel;

use crate::plan::Plan;

/// The WGSL source of every pass of `plan`, in order.
pub fn wgsl_sources(plan: &Plan, in_place: bool) -> Vec<String> {
    (0..plan.passes.len())
        .map(|i| wgsl::print(&pass_kernel(plan, i, in_place)))
        .collect()
}
