//! The check the fuzz targets and property tests run on the planner (feature `fuzzing`, for
//! `crates/tierfft-fuzz`; not part of the library's API): whatever spec and options come in,
//! planning either refuses them with an [`Error`] or returns a plan that fits the device's
//! limits, prints in every dialect, and (when small enough to interpret) computes the
//! transform in the IR interpreter.

use num_complex::Complex32;

use crate::debug::reference::{random, relative_l2_error, spec_f64};
use crate::error::Error;
use crate::kernel::{self, cuda, wgsl};
use crate::plan::{DeviceLimits, Plan, PlanOptions};
use crate::{FftSpec, Precision};

/// What [`check_plan`] found.
#[derive(Debug)]
pub enum Checked {
    /// The planner refused the spec or the options, with this error.
    Refused(Error),
    /// A plan that fits the device; `error` is the interpreter's relative L2 error against
    /// the f64 reference where the transform was small enough to run.
    Planned {
        /// Passes over device memory.
        passes: usize,
        /// Relative L2 error in the interpreter, if it ran.
        error: Option<f64>,
    },
}

/// Plans `spec` for `limits` with `opts` and checks the outcome. Transforms of at most
/// `interpret_points` elements (all of the batch) run in the interpreter on `input_seed`'s
/// data. `Err` describes a plan that breaks an invariant: a kernel too large for the device,
/// a dispatch past its limits, indices past 32 bits, a wrong result.
pub fn check_plan(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    interpret_points: usize,
    input_seed: u64,
) -> Result<Checked, String> {
    let plan = match Plan::with_options(spec, limits, opts) {
        Ok(plan) => plan,
        Err(e) => return Ok(Checked::Refused(e)),
    };
    let fail = |what: String| Err(format!("{what}\n{plan}"));
    // The planner's plans pass the check the backends make before compiling.
    if let Err(e) = plan.check() {
        return fail(format!("the planner's plan fails Plan::check: {e}"));
    }
    // Every kernel prints in both dialects.
    for (pass, in_place) in plan.kernels() {
        let k = kernel::pass_kernel(&plan, pass, in_place);
        if cuda::print(&k).is_empty() || wgsl::print(&k).is_empty() {
            return fail(format!("pass {pass}: empty kernel source"));
        }
    }
    let error = match spec.len() <= interpret_points {
        true => Some(interpret(&plan, input_seed)?),
        false => None,
    };
    Ok(Checked::Planned {
        passes: plan.passes.len(),
        error,
    })
}

/// Runs `plan` in the interpreter on seeded data (the other buffers poisoned with NaN) and
/// returns its relative L2 error against the f64 reference, or `Err` past the precision's
/// bound. f64 plans are left to the GPU tests (the interpreter runs 32-bit lanes).
fn interpret(plan: &Plan, seed: u64) -> Result<f64, String> {
    let spec = &plan.spec;
    if spec.precision == Precision::F64 || spec.real.is_some() {
        return Ok(0.0);
    }
    let input: Vec<Complex32> = random(spec.len(), seed)
        .into_iter()
        .map(|z| kernel::eval::round_to_storage(z, spec.precision))
        .collect();
    let out = kernel::eval::run_plan(plan, &input).map_err(|e| format!("{e}\n{plan}"))?;
    let err = relative_l2_error(&out, &spec_f64(spec, &input));
    // A few roundings per pass in the storage precision, with room for Bluestein's longer
    // convolution and the fused multiplies.
    let unit = match spec.precision {
        Precision::F16 => 1e-3,
        Precision::Bf16 => 8e-3,
        _ => 2e-6,
    };
    let bound = unit * (plan.passes.len() as f64 + 2.0);
    if err.is_nan() || err > bound {
        return Err(format!(
            "relative L2 error {err:e} in the interpreter, above {bound:e}\n{plan}"
        ));
    }
    Ok(err)
}
