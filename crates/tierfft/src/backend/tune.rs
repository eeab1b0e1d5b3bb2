//! [`Device::tune`]: the candidate shapes of one transform timed on the device at hand
//! ([`crate::plan::tune`]), every candidate's result checked against the planner's own plan,
//! the winner kept as a wisdom entry ([`crate::plan::wisdom`]).

use rayon::prelude::*;

use super::{Device, Executor, host_chunk, median};
use crate::base::precision::{Precision, random_words, unpack_half};
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
    /// What came of it.
    pub outcome: Outcome,
}

/// What came of one candidate [`Device::tune`] ran.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// Its median time per run, seconds.
    Seconds(f64),
    /// It did not compile or run on this device (the error's text).
    Failed(String),
    /// Its result differed from the planner's own plan's by this relative L2 difference: a
    /// planner or generator bug, worth a report with the choice.
    Differs(f64),
}

impl Outcome {
    /// The time, where the candidate was timed and agreed.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Outcome::Seconds(s) => Some(*s),
            _ => None,
        }
    }
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
    /// for: lengths with a prime factor above 31 (use [`PlanOptions::measure`]), chains,
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
            let has: Vec<&str> = [
                (spec.chain.is_some(), ", a chain"),
                (spec.real.is_some(), ", a real half"),
                (spec.checksum != crate::Checksum::Off, ", a checksum"),
            ]
            .into_iter()
            .filter_map(|(has, what)| has.then_some(what))
            .collect();
            Error::InvalidSpec(format!(
                "tune takes complex transforms of lengths with no prime factor above 31, \
                 without a chain, real half or checksum (got {} points{})",
                spec.n,
                has.concat()
            ))
        })?;
        let opts = PlanOptions::default().with_wisdom(false);
        let base = Plan::with_options(spec, &limits, &opts)?;
        let transforms = host_chunk(&base, limits.max_buffer).min(spec.batch);
        let input = random_words(transforms * spec.n, spec.precision);
        let backend = self.backend();
        let build = |plan: &Plan| backend.clone().executor(plan);
        let time = |exec: &dyn Executor| -> Result<(f64, Vec<f32>)> {
            let mut output = vec![0.0; input.len()];
            let (seconds, _) = exec.measure(&input, &mut output, reps.max(1))?;
            match median(&seconds) {
                t if t.is_finite() && t > 0.0 => Ok((t, output)),
                t => Err(Error::gpu(format!(
                    "{}'s timer gave {t} s for a run of {} transforms",
                    self.name(),
                    transforms
                ))),
            }
        };
        let base_exec = build(&base)?;
        let (default_seconds, expected) = time(&*base_exec)?;
        let mut timed = vec![Timed {
            choice: Choice::default(),
            passes: base.passes.len(),
            outcome: Outcome::Seconds(default_seconds),
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
                let outcome = match exec.and_then(|e| time(&*e)) {
                    Ok((t, out)) => match relative_difference(&out, &expected, spec.precision) {
                        d if d <= tolerance(spec.precision) => Outcome::Seconds(t),
                        d => Outcome::Differs(d),
                    },
                    Err(e) => Outcome::Failed(e.to_string()),
                };
                timed.push(Timed {
                    choice,
                    passes: plan.passes.len(),
                    outcome,
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
            .filter_map(|t| t.outcome.seconds().map(|s| (s, t.choice.clone())))
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
            .filter_map(|t| t.outcome.seconds().map(|s| (s, &t.choice)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        let (mut choice, mut seconds, mut default_again) =
            (Choice::default(), default_seconds, default_seconds);
        if best != Choice::default() {
            let exec = build(&Plan::with_options(spec, &limits, &best.apply(&opts))?)?;
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..CONFIRM_ROUNDS {
                theirs.push(time(&*base_exec)?.0);
                ours.push(time(&*exec)?.0);
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

/// Whether two plans' results, device words of `precision`, agree as two correct plans'
/// results do.
pub(super) fn agrees(a: &[f32], b: &[f32], precision: Precision) -> bool {
    relative_difference(a, b, precision) <= tolerance(precision)
}

/// Relative L2 difference of `got` from `want`, device words of `precision` (infinite for
/// different lengths or a NaN), read a megaword at a time rather than copied whole to f64.
fn relative_difference(got: &[f32], want: &[f32], precision: Precision) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    // Chunks of an even number of words hold whole values in every precision.
    const CHUNK: usize = 1 << 20;
    let (mut diff, mut norm) = (0.0, 0.0);
    for (g, w) in got.chunks(CHUNK).zip(want.chunks(CHUNK)) {
        let (g, w) = (complex_parts(g, precision), complex_parts(w, precision));
        for (x, y) in g.iter().zip(&w) {
            diff += (x - y) * (x - y);
            norm += y * y;
        }
    }
    match (diff / norm.max(f64::MIN_POSITIVE)).sqrt() {
        e if e.is_nan() => f64::INFINITY,
        e => e,
    }
}

/// Largest relative L2 difference between two correct plans' results in `precision`, each
/// within its own rounding of the true transform (on lavapipe candidates differ by about
/// 2e-7 in f32, 4e-16 in f64, 5e-4 in f16 and 4e-3 in bf16).
fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-12,
        Precision::F32 => 1e-5,
        Precision::F16 => 1e-2,
        Precision::Bf16 => 2e-2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_read_in_each_precision_across_chunks() {
        for precision in [
            Precision::F32,
            Precision::F64,
            Precision::F16,
            Precision::Bf16,
        ] {
            // More than one chunk of words.
            let want = random_words(600_000, precision);
            assert_eq!(relative_difference(&want, &want, precision), 0.0);
            assert!(agrees(&want, &want, precision));
            let scaled: Vec<f64> = complex_parts(&want, precision)
                .into_iter()
                .map(|x| x * 1.5)
                .collect();
            let values = scaled
                .chunks_exact(2)
                .map(|p| num_complex::Complex64::new(p[0], p[1]));
            let got = match precision {
                Precision::F16 | Precision::Bf16 => {
                    let parts: Vec<f32> = scaled.iter().map(|&x| x as f32).collect();
                    let mut words = vec![0.0; want.len()];
                    crate::base::precision::pack_half(&parts, precision, &mut words);
                    words
                }
                _ => crate::base::precision::device_words(values, precision),
            };
            // Every value half as large again: a relative difference of 0.5.
            let d = relative_difference(&got, &want, precision);
            assert!((d - 0.5).abs() < 1e-2, "{precision}: {d}");
            assert!(!agrees(&got, &want, precision));
            let mut nan = want.clone();
            nan[7] = f32::NAN;
            assert_eq!(relative_difference(&nan, &want, precision), f64::INFINITY);
            assert_eq!(
                relative_difference(&want[2..], &want, precision),
                f64::INFINITY
            );
        }
    }
}
