//! The host executor: a plan's steps run separately, each through the host, the resident
//! executor's reference ([`crate::focus::resident`]). Range transforms: FFT, the filter
//! multiplied on the CPU, inverse FFT; the azimuth FFTs run over rows between two
//! transposes; a multiply is applied on the CPU; RCMC is tierfft's resampler on the
//! focusing device.

use std::sync::Arc;

use num_complex::Complex32;
use tierfft::backend::Resampler;
use tierfft::{Device, Fft, FftSpec};

use crate::error::SarError;
use crate::focus::options::{StepTimings, lap_timer};
use crate::focus::plan::SarPlan;
use crate::focus::step::Step;

/// A plan's steps planned on one device, to run through the host.
pub(crate) struct Host {
    /// One stage per plan step, in order.
    stages: Vec<Stage>,
}

/// One step's plans.
// One per step, made once and never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Stage {
    /// A range FFT, its inverse and the filter between them: `samples` values for every
    /// line (range compression: `per_line`), or one per element (a range-Doppler filter).
    Range {
        forward: Fft,
        inverse: Fft,
        filter: Arc<[Complex32]>,
        per_line: bool,
    },
    /// The azimuth FFT over rows of the transposed scene.
    Azimuth(Fft),
    /// A multiply of every element.
    Multiply(Arc<[Complex32]>),
    /// RCMC.
    Resample(Resampler),
    /// The azimuth filter, then the inverse azimuth FFT over rows of the transposed scene.
    AzimuthInverse(Fft, Arc<[Complex32]>),
}

impl Host {
    /// Plans `plan`'s steps on `device`.
    pub(crate) fn new(device: &Device, plan: &SarPlan) -> Result<Host, SarError> {
        let (lines, samples) = plan.shape();
        let range_rows = FftSpec::new(samples).batch(lines);
        let inverse = range_rows.clone().inverse().normalized();
        let rows = FftSpec::new(lines).batch(samples);
        let stages =
            plan.steps
                .iter()
                .map(|step| {
                    Ok(match step {
                        Step::RangeCompression { filter }
                        | Step::RangeDopplerFilter { filter, .. } => Stage::Range {
                            forward: device.plan(&range_rows)?,
                            inverse: device.plan(&inverse)?,
                            filter: filter.clone(),
                            per_line: matches!(step, Step::RangeCompression { .. }),
                        },
                        Step::AzimuthFft => Stage::Azimuth(device.plan(&rows)?),
                        Step::Multiply { values, .. } => Stage::Multiply(values.clone()),
                        Step::Rcmc { spec } => Stage::Resample(device.plan_resample(spec)?),
                        Step::AzimuthCompression { filter } => Stage::AzimuthInverse(
                            device.plan(&rows.clone().inverse().normalized())?,
                            filter.clone(),
                        ),
                    })
                })
                .collect::<Result<_, SarError>>()?;
        Ok(Host { stages })
    }

    /// Focuses `data`, a scene of the processed extent, in place; `on_step` hears each
    /// announced step's name ([`Step::announced`]).
    pub(crate) fn focus(
        &self,
        plan: &SarPlan,
        data: &mut [Complex32],
        mut on_step: impl FnMut(&str),
    ) -> Result<StepTimings, SarError> {
        let (lines, samples) = plan.shape();
        let mut t = StepTimings::default();
        let mut lap = lap_timer();
        // The timing field of the last step that has one, for a multiply after it.
        let mut timed: Option<&Step> = None;
        for (step, stage) in plan.steps.iter().zip(&self.stages) {
            if step.announced() {
                on_step(step.name());
            }
            match stage {
                Stage::Range {
                    forward,
                    inverse,
                    filter,
                    per_line,
                } => {
                    forward.process(data)?;
                    match *per_line {
                        true => multiply_rows(data, filter),
                        false => multiply(data, filter),
                    }
                    inverse.process(data)?;
                }
                Stage::Azimuth(fft) => over_columns(fft, data, lines, samples)?,
                Stage::Multiply(h) => multiply(data, h),
                Stage::Resample(rcmc) => {
                    let input = data.to_vec();
                    rcmc.process(&input, data)?;
                }
                Stage::AzimuthInverse(fft, filter) => {
                    multiply(data, filter);
                    over_columns(fft, data, lines, samples)?;
                }
            }
            let s = lap();
            if step.time_in(&mut t).is_some() {
                timed = Some(step);
            }
            if let Some(slot) = timed.and_then(|step| step.time_in(&mut t)) {
                *slot += s;
            }
        }
        Ok(t)
    }
}

/// Multiplies `data` by `h` element by element.
fn multiply(data: &mut [Complex32], h: &[Complex32]) {
    data.iter_mut().zip(h).for_each(|(z, h)| *z *= h);
}

/// Multiplies every row of `data` by `filter` (one row's worth).
fn multiply_rows(data: &mut [Complex32], filter: &[Complex32]) {
    for row in data.chunks_mut(filter.len()) {
        row.iter_mut().zip(filter).for_each(|(z, h)| *z *= h);
    }
}

/// Runs a rows plan of `lines`-point transforms over the columns of `data`
/// (`[lines][samples]`), through two transposes.
fn over_columns(
    fft: &Fft,
    data: &mut [Complex32],
    lines: usize,
    samples: usize,
) -> Result<(), SarError> {
    let mut by_range = transpose(data, lines, samples);
    fft.process(&mut by_range)?;
    data.copy_from_slice(&transpose(&by_range, samples, lines));
    Ok(())
}

/// `src` (`rows` × `cols`, row-major) transposed, in cache-sized tiles.
pub fn transpose(src: &[Complex32], rows: usize, cols: usize) -> Vec<Complex32> {
    const TILE: usize = 32;
    let mut dst = vec![Complex32::new(0.0, 0.0); src.len()];
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(cols) {
                    dst[c * rows + r] = src[r * cols + c];
                }
            }
        }
    }
    dst
}
