//! A plan's rewrites for a device ([`NdPlan::for_device`]): an even real axis' split and
//! merge fused into its half-length transform, the cut and Hermitian extension of other
//! real axes into theirs, and a complex transform's axes run between two arrays. The CPU
//! takes [`NdPlan::new`]'s steps as they are.

use super::plan::{Buf, NdPlan, Step, StepOp};
use super::{Kind, NdSpec, Reshape};
use crate::base::precision::Precision;
use crate::error::Result;
use crate::plan::{DeviceLimits, LineOrder, Plan, PlanOptions};
use crate::spec::RealHalf;

/// Where [`NdPlan::with_fusion`] fuses an even real axis' split (R2C) and merge (C2R) into
/// its half-length transform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FuseReal {
    /// Where it measured faster (the default): in f32 as [`FuseReal::AnyPasses`]
    /// (docs/BENCHMARKS.md, "2026-12-06, commits 61c9446 to 86360fa", H100: 2^19..2^24
    /// reals, merges 1.10-1.24 times and splits 0.98-1.29 times as fast as with steps of
    /// their own); in f64 (docs/BENCHMARKS.md, "2026-11-27, commit c1f7b23", H200) one-pass
    /// half-lengths to 2^13, and from 2^15 merges into several passes at any length, splits
    /// to 2^21.
    #[default]
    Auto,
    /// Where the half-length transform is one pass (a cluster pass included).
    OnePass,
    /// Wherever the device's plan can: the merge on the first of several passes, the split
    /// on the last (when its workgroups pair lines with their mirrors).
    AnyPasses,
    /// Never: split and merge as steps of their own.
    Never,
}

impl NdPlan {
    /// Plans `spec` for a device with `limits`: [`NdPlan::new`]'s steps, with an even real
    /// axis' split fused into the store of its half-length transform and the merge into its
    /// load where that measured faster ([`FuseReal::Auto`]), and a complex transform's axes
    /// run between two arrays. `None` (the CPU): the steps as they are.
    pub fn for_device(spec: &NdSpec, limits: Option<&DeviceLimits>) -> Result<NdPlan> {
        NdPlan::with_fusion(spec, limits, FuseReal::default(), &PlanOptions::default())
    }

    /// [`NdPlan::for_device`] with the split and merge fused where `fuse` says, deciding with
    /// the transforms planned under `opts` (as [`crate::Device::plan_nd_with`] plans them).
    pub fn with_fusion(
        spec: &NdSpec,
        limits: Option<&DeviceLimits>,
        fuse: FuseReal,
        opts: &PlanOptions,
    ) -> Result<NdPlan> {
        let mut plan = NdPlan::new(spec)?;
        if let Some(limits) = limits
            && fuse != FuseReal::Never
        {
            plan.fuse_real(limits, opts, fuse);
        }
        if let Some(limits) = limits {
            plan.alternate_arrays(limits, opts);
        }
        Ok(plan)
    }

    /// Runs a complex transform's axes out of place, from the spectrum into the work array
    /// (`Buf::Full`, of the same shape for C2C) and back, so that it ends where it started (an
    /// odd count keeps its first in place). On the H100 (docs/BENCHMARKS.md,
    /// "2026-11-24, commits 50cb77a and 584b866") 4096- and 8192-point rows took 15–20 % longer
    /// in place, and 2-D and 3-D transforms gained up to 13 % out of place, except where a
    /// column pass writes less than a memory transaction a row (8192-point columns, 2 a
    /// workgroup, `PlanOptions::min_lines`): its partial writes, merged in L2 with what it read
    /// in place, cost 24 % more into a fresh array. Those stay in place.
    fn alternate_arrays(&mut self, limits: &DeviceLimits, opts: &PlanOptions) {
        if self.spec.kind() != Kind::ComplexToComplex {
            return;
        }
        let ffts: Vec<usize> = (0..self.steps.len())
            .filter(|&i| {
                let s = &self.steps[i];
                matches!(s.op, StepOp::Fft { .. })
                    && s.src == Buf::Spectrum
                    && s.dst == Buf::Spectrum
            })
            .collect();
        let partial_rows = |i: &usize| match &self.steps[*i].op {
            StepOp::Fft { spec, .. } => Plan::with_options(spec, limits, opts).is_ok_and(|p| {
                p.passes.iter().any(|pass| {
                    pass.order == LineOrder::Interleaved
                        && spec.precision.complex_bytes() * pass.lines_per_group
                            < limits.transaction_bytes
                })
            }),
            StepOp::Reshape(_) => false,
        };
        if ffts.len() < 2 || ffts.iter().any(partial_rows) {
            return;
        }
        let mut on = Buf::Spectrum;
        for &i in &ffts[ffts.len() % 2..] {
            let to = if on == Buf::Spectrum {
                Buf::Full
            } else {
                Buf::Spectrum
            };
            (self.steps[i].src, self.steps[i].dst) = (on, to);
            on = to;
        }
    }

    /// Replaces a half-length transform and its split or merge by the transform with the
    /// step fused, where the device plans it.
    fn fuse_real(&mut self, limits: &DeviceLimits, opts: &PlanOptions, fuse: FuseReal) {
        let fuse = |a: &Step, b: &Step| -> Option<Step> {
            let (axis, spec, half, src, dst) = match (&a.op, &b.op) {
                (StepOp::Fft { axis, spec }, StepOp::Reshape(Reshape::Split { scale, .. })) => {
                    (axis, spec, RealHalf::Split { scale: *scale }, a.src, b.dst)
                }
                (StepOp::Reshape(Reshape::Merge { scale, .. }), StepOp::Fft { axis, spec }) => {
                    (axis, spec, RealHalf::Merge { scale: *scale }, a.src, b.dst)
                }
                // Odd (or not last) real axes: only where the axis is the rows'.
                (
                    StepOp::Fft { axis, spec },
                    StepOp::Reshape(Reshape::Truncate { inner: 1, .. }),
                ) => (axis, spec, RealHalf::Truncate, a.src, b.dst),
                (StepOp::Reshape(Reshape::Extend { inner: 1, .. }), StepOp::Fft { axis, spec }) => {
                    (axis, spec, RealHalf::Extend, a.src, b.dst)
                }
                _ => return None,
            };
            let spec = spec.clone().real_half(half);
            let passes = Plan::with_options(&spec, limits, opts).ok()?.passes.len();
            if !worth_fusing(&spec, passes, fuse) {
                return None;
            }
            Some(Step {
                op: StepOp::Fft { axis: *axis, spec },
                src,
                dst,
            })
        };
        let mut i = 0;
        while i + 1 < self.steps.len() {
            if let Some(step) = fuse(&self.steps[i], &self.steps[i + 1]) {
                self.steps.splice(i..i + 2, [step]);
            }
            i += 1;
        }
    }
}

/// The largest f64 half-length whose split or merge fuses into its one-pass line under
/// [`FuseReal::Auto`]: on the H200 the 2^14-point line (512 threads of 32 points) took 1.8
/// times as long with the split as the transform and a split step together.
const F64_FUSED_ONE_PASS: usize = 1 << 13;
/// The largest f64 half-length whose split fuses into the last of several passes under
/// [`FuseReal::Auto`]: fused, 2^15..2^21 ran up to 1.25 times faster on the H200, 2^22 and
/// 2^23 1.2 times slower. (Merges into the first pass were faster at every length.)
const F64_FUSED_SPLIT_PASSES: usize = 1 << 21;

/// Whether `fuse` fuses the real half of `spec` into its plan of `passes` passes.
fn worth_fusing(spec: &crate::FftSpec, passes: usize, fuse: FuseReal) -> bool {
    let one_pass = passes == 1;
    let f64_auto = fuse == FuseReal::Auto && spec.precision == Precision::F64;
    match (fuse, spec.real) {
        (_, Some(RealHalf::Split { .. } | RealHalf::Merge { .. })) if f64_auto && one_pass => {
            spec.n <= F64_FUSED_ONE_PASS
        }
        (_, Some(RealHalf::Split { .. })) if f64_auto => spec.n <= F64_FUSED_SPLIT_PASSES,
        (_, Some(RealHalf::Merge { .. })) if f64_auto => true,
        // (f32: N-D and real transforms run in f32 or f64.)
        (FuseReal::Auto, Some(RealHalf::Split { .. } | RealHalf::Merge { .. })) => true,
        (FuseReal::Auto | FuseReal::OnePass, _) => one_pass,
        (FuseReal::AnyPasses, _) => true,
        (FuseReal::Never, _) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_splits_and_merges_fuse_where_they_measured_faster() {
        let limits = DeviceLimits::profile("h100-cuda").expect("profile");
        let fused = |n: usize, inverse: bool| {
            let mut spec = NdSpec::new(&[4, n])
                .axes(&[1])
                .real()
                .precision(Precision::F64);
            if inverse {
                spec = spec.inverse();
            }
            let plan = NdPlan::for_device(&spec, Some(&limits)).expect("plans");
            plan.steps.len() == 1
        };
        // One-pass lines to 2^13 points (2^14 reals), several passes from 2^15 to 2^21
        // (splits) or at any length (merges); not the one-pass 2^14-point line.
        for (reals, split, merge) in [
            (1 << 14, true, true),
            (1 << 15, false, false),
            (1 << 18, true, true),
            (1 << 22, true, true),
            (1 << 24, false, true),
        ] {
            assert_eq!(
                (fused(reals, false), fused(reals, true)),
                (split, merge),
                "{reals}"
            );
        }
    }

    #[test]
    fn splits_and_merges_fuse_into_one_pass_lines() {
        let limits = DeviceLimits::profile("lavapipe").expect("profile");
        let fused = |spec: &NdSpec| {
            let plan = NdPlan::for_device(spec, Some(&limits)).expect("plans");
            plan.steps
                .iter()
                .map(|s| match &s.op {
                    StepOp::Fft { spec, .. } => format!("fft {:?}", spec.real.is_some()),
                    StepOp::Reshape(r) => r.name().split(' ').next().unwrap_or("").to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fused(&NdSpec::new(&[8, 6]).real()),
            ["fft true", "fft false"]
        );
        assert_eq!(
            fused(&NdSpec::new(&[8, 6]).real().inverse()),
            ["fft false", "fft true"]
        );
        // Half of 2^16 takes two passes on lavapipe: the split rides on the last, the merge
        // on the first.
        assert_eq!(fused(&NdSpec::new(&[1 << 16]).real()), ["fft true"]);
        assert_eq!(
            fused(&NdSpec::new(&[1 << 16]).real().inverse()),
            ["fft true"]
        );
        // Odd lengths: the cut and the Hermitian extension fuse into the full transform
        // (the widening and the real parts stay steps); Bluestein half lengths keep theirs.
        assert_eq!(fused(&NdSpec::new(&[7]).real()), ["widen", "fft true"]);
        assert_eq!(
            fused(&NdSpec::new(&[7]).real().inverse()),
            ["fft true", "real"]
        );
        assert_eq!(fused(&NdSpec::new(&[74]).real()), ["fft false", "split"]);
        // A real axis that is not the last is cut and extended along columns: steps.
        assert_eq!(
            fused(&NdSpec::new(&[5, 4]).axes(&[1, 0]).real()),
            ["widen", "fft false", "keep", "fft false"]
        );
        // Weights on the real side ride on the side a split or merge leaves alone: still
        // fused, per part on the reals read in pairs.
        let weights = || crate::PointOp::Weight(crate::RealWeights::new(&[0.5; 48]));
        let windowed = NdSpec::new(&[8, 6]).real().on_load(weights());
        assert_eq!(fused(&windowed), ["fft true", "fft false"]);
        let weighted = NdSpec::new(&[8, 6]).real().inverse().on_store(weights());
        assert_eq!(fused(&weighted), ["fft false", "fft true"]);
        let plan = NdPlan::for_device(&windowed, Some(&limits)).expect("plans");
        let StepOp::Fft { spec, .. } = &plan.steps[0].op else {
            panic!("{plan}")
        };
        assert!(matches!(&spec.load[..], [crate::PointOp::Weight(w)] if w.is_per_part()));
        // Without a device (the CPU) nothing is fused.
        assert_eq!(
            NdPlan::for_device(&NdSpec::new(&[6]).real(), None)
                .expect("plans")
                .steps
                .len(),
            2
        );
    }

    #[test]
    fn complex_axes_alternate_between_arrays_on_devices() {
        let arrays = |shape: &[usize], profile: Option<&str>| -> Vec<(Buf, Buf)> {
            let limits = profile.map(|p| DeviceLimits::profile(p).expect("profile"));
            let plan = NdPlan::for_device(&NdSpec::new(shape), limits.as_ref()).expect("plans");
            plan.steps.iter().map(|s| (s.src, s.dst)).collect()
        };
        let (s, f) = (Buf::Spectrum, Buf::Full);
        assert_eq!(arrays(&[4096, 4096], Some("h100-cuda")), [(s, f), (f, s)]);
        // An odd count keeps its first axis in place.
        assert_eq!(
            arrays(&[64, 1024, 1024], Some("h100-cuda")),
            [(s, s), (s, f), (f, s)]
        );
        assert_eq!(arrays(&[8192, 8192], Some("h100-cuda")), [(s, f), (f, s)]);
        assert_eq!(arrays(&[4096, 4096], Some("lavapipe")), [(s, f), (f, s)]);
        // Columns of 2 a workgroup (partial sectors, asked for) stay in place; so does the CPU.
        let limits = DeviceLimits::profile("h100-cuda").expect("profile");
        let two = PlanOptions {
            min_lines: Some(2),
            ..Default::default()
        };
        let spec = NdSpec::new(&[8192, 8192]);
        let plan = NdPlan::with_fusion(&spec, Some(&limits), FuseReal::OnePass, &two);
        let routes: Vec<_> = plan
            .expect("plans")
            .steps
            .iter()
            .map(|s| (s.src, s.dst))
            .collect();
        assert_eq!(routes, [(s, s), (s, s)]);
        assert_eq!(arrays(&[64, 64], None), [(s, s), (s, s)]);
    }
}
