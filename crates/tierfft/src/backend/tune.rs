//! [`Device::tune`]: the candidate shapes of one transform timed on the device at hand
//! ([`crate::plan::tune`]), every candidate's result checked against the planner's own plan,
//! the winner kept as a wisdom entry ([`crate::plan::wisdom`]).

use rayon::prelude::*;

use super::{Device, Executor, host_chunk, median};
use crate::base::precision::{Precision, pack_half, unpack_half};
use crate::error::{Error, Result};
use crate::plan::tune::{combinations, distinct_plans, variations};
use crate::plan::wisdom::{Choice, Entry, Key, LIBRARY_VERSION, Measured};
use crate::plan::{Plan, PlanOptions};
use crate::spec::FftSpec;

/// One candidate [`Device::tune`] ran.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Timed {
    /// The options that made it (the default: the planner's own plan).
    pub choice: Choice,
    /// Its passes over device memory.
    pub passes: usize,
    /// Its median time per run, seconds; or why it was not kept: it did not compile or run
    /// here, or its result differed from the planner's own plan's (a planner bug, reported).
    pub seconds: std::result::Result<f64, String>,
}

/// What [`Device::tune`] found.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Tuning {
    /// The winner, as a wisdom entry for this device and driver: the default choice
    /// where no candidate beat the planner's own plan by [`MARGIN`] when timed again.
    pub entry: Entry,
    /// Every plan timed, the planner's own first.
    pub timed: Vec<Timed>,
}

/// How much faster than the planner's own plan a candidate must be when both are timed
/// again, side by side, to win: run-to-run noise on the H100 is about 1 %.
pub const MARGIN: f64 = 0.98;

/// Rounds of the side-by-side timing of the winner and the planner's own plan.
const CONFIRM_ROUNDS: usize = 3;

impl Device {
    /// Times the candidate shapes of `spec` on this device (`reps` runs each, the median;
    /// the spec's batch, as much of it as one host chunk of 1 GiB holds) and returns the
    /// fastest as a wisdom entry, which [`crate::backend::wisdom::record`] stores for later
    /// plans. Each candidate's result is compared with the planner's own plan's on the same
    /// pseudo-random input; a candidate that differs is reported, not kept.
    ///
    /// `Err` for the CPU (rustfft plans itself) and for transforms no wisdom entry speaks
    /// for: lengths with a prime factor above 13 (use [`PlanOptions::measure`]), chains,
    /// real halves and checksums.
    pub fn tune(&self, spec: &FftSpec, reps: usize) -> Result<Tuning> {
        spec.validate()?;
        let Some(limits) = self.limits().cloned() else {
            return Err(Error::InvalidSpec(format!(
                "{} runs rustfft's own plans: there is nothing to tune",
                self.name()
            )));
        };
        if let Some(e) =
            crate::plan::limits::precision_refusal(spec.precision, self.name(), Some(&limits))
        {
            return Err(e);
        }
        let key = Key::of(spec, &limits).ok_or_else(|| {
            Error::InvalidSpec(format!(
                "tune takes complex transforms of lengths with no prime factor above 13, \
                 without a chain, real half or checksum (got {} points{}{}{})",
                spec.n,
                if spec.chain.is_some() {
                    ", a chain"
                } else {
                    ""
                },
                if spec.real.is_some() {
                    ", a real half"
                } else {
                    ""
                },
                if spec.checksum != crate::Checksum::Off {
                    ", a checksum"
                } else {
                    ""
                },
            ))
        })?;
        let opts = PlanOptions::default().with_wisdom(false);
        let base = Plan::with_options(spec, &limits, &opts)?;
        let transforms = host_chunk(&base, limits.max_buffer).min(spec.batch);
        let input = input_words(transforms * spec.n, spec.precision);
        let backend = self.backend();
        let build = |plan: &Plan| backend.clone().executor(plan);
        let time = |exec: Result<Box<dyn Executor>>| -> Result<(f64, Vec<f32>)> {
            let mut output = vec![0.0; input.len()];
            let (seconds, _) = exec?.measure(&input, &mut output, reps.max(1))?;
            Ok((median(&seconds), output))
        };
        let run = |plan: &Plan| time(build(plan));
        let (default_seconds, expected) = run(&base)?;
        let expected = complex_parts(&expected, spec.precision);
        let tolerance = tolerance(spec.precision);
        let mut timed = vec![Timed {
            choice: Choice::default(),
            passes: base.passes.len(),
            seconds: Ok(default_seconds),
        }];
        let mut tried = vec![base.clone()];
        let mut time_all = |candidates: Vec<(Choice, Plan)>, timed: &mut Vec<Timed>| {
            let fresh: Vec<(Choice, Plan)> = candidates
                .into_iter()
                .filter(|(_, p)| !tried.contains(p))
                .collect();
            // Compiled side by side (NVRTC and the drivers' compilers take most of a
            // candidate's time), timed one after another.
            let execs: Vec<_> = fresh.par_iter().map(|(_, p)| build(p)).collect();
            for ((choice, plan), exec) in fresh.into_iter().zip(execs) {
                let seconds = match time(exec) {
                    Ok((t, out)) => {
                        let error =
                            relative_difference(&complex_parts(&out, spec.precision), &expected);
                        if error <= tolerance {
                            Ok(t)
                        } else {
                            Err(format!(
                                "its result differs from the planner's own plan's by \
                                 {error:.1e} (relative L2; at most {tolerance:.0e} expected)"
                            ))
                        }
                    }
                    Err(e) => Err(e.to_string()),
                };
                timed.push(Timed {
                    choice,
                    passes: plan.passes.len(),
                    seconds,
                });
                tried.push(plan);
            }
        };
        // One knob at a time, then the knobs that gained, together.
        time_all(
            distinct_plans(spec, &limits, &opts, &base, variations(spec, &limits)),
            &mut timed,
        );
        let mut better: Vec<(f64, Choice)> = timed
            .iter()
            .filter_map(|t| t.seconds.as_ref().ok().map(|&s| (s, t.choice.clone())))
            .filter(|&(s, _)| s < default_seconds)
            .collect();
        better.sort_by(|a, b| a.0.total_cmp(&b.0));
        let better: Vec<Choice> = better.into_iter().map(|(_, c)| c).collect();
        time_all(
            distinct_plans(spec, &limits, &opts, &base, combinations(&better)),
            &mut timed,
        );
        // The fastest, timed again beside the planner's own plan.
        let best = timed
            .iter()
            .filter_map(|t| t.seconds.as_ref().ok().map(|&s| (s, &t.choice)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        let (mut choice, mut seconds, mut default_again) =
            (Choice::default(), default_seconds, default_seconds);
        if best != Choice::default() {
            let plan = Plan::with_options(spec, &limits, &best.apply(&opts))?;
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..CONFIRM_ROUNDS {
                theirs.push(run(&base)?.0);
                ours.push(run(&plan)?.0);
            }
            let (ours, theirs) = (median(&ours), median(&theirs));
            default_again = theirs;
            (choice, seconds) = match ours < MARGIN * theirs {
                true => (best, ours),
                false => (Choice::default(), theirs),
            };
        }
        let entry = Entry {
            device: self.name(),
            driver: self.driver(),
            tierfft: LIBRARY_VERSION.into(),
            key,
            choice,
            measured: Measured {
                batch: transforms,
                seconds,
                default_seconds: default_again,
                candidates: timed.len(),
            },
        };
        Ok(Tuning { entry, timed })
    }
}

/// Pseudo-random complex values in [-1, 1) as the device words of `precision`.
fn input_words(points: usize, precision: Precision) -> Vec<f32> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        // xorshift64*: plenty for input data, and the same on every run.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let parts: Vec<f64> = (0..2 * points).map(|_| next()).collect();
    match precision {
        Precision::F64 => bytemuck::cast_slice(&parts).to_vec(),
        Precision::F32 => parts.iter().map(|&x| x as f32).collect(),
        Precision::F16 | Precision::Bf16 => {
            let values: Vec<f32> = parts.iter().map(|&x| x as f32).collect();
            let mut words = vec![0.0; points];
            pack_half(&values, precision, &mut words);
            words
        }
    }
}

/// Device words of `precision` as real and imaginary parts in f64.
fn complex_parts(words: &[f32], precision: Precision) -> Vec<f64> {
    match precision {
        Precision::F64 => words
            .chunks_exact(2)
            .map(|w| bytemuck::cast::<[f32; 2], f64>([w[0], w[1]]))
            .collect(),
        Precision::F32 => words.iter().map(|&x| f64::from(x)).collect(),
        Precision::F16 | Precision::Bf16 => unpack_half(words, precision)
            .into_iter()
            .map(f64::from)
            .collect(),
    }
}

/// Relative L2 difference of `a` from `b` (NaN anywhere counts as different).
fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        diff += (x - y) * (x - y);
        norm += y * y;
    }
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    match (diff / norm.max(f64::MIN_POSITIVE)).sqrt() {
        e if e.is_nan() => f64::INFINITY,
        e => e,
    }
}

/// Largest relative L2 difference between two correct plans' results in `precision` (each
/// within its own rounding of the true transform).
fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-12,
        Precision::F32 => 1e-5,
        Precision::F16 => 1e-2,
        Precision::Bf16 => 5e-2,
    }
}
