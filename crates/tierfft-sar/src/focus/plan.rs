//! A SAR plan as data: the scene's shape and the ordered steps that focus it, with their
//! filters. An algorithm's builder makes it ([`crate::focus::rda`], [`crate::focus::csa`],
//! chosen by [`crate::focus::builders::plan`]); the executors walk its steps without knowing
//! the algorithm ([`crate::focus::resident`], [`crate::focus::host`],
//! [`crate::focus::distributed`]). Printed, it is what `tierfft sar --plan` shows.

use std::fmt;

use crate::filters::rcmc::RCMC_TAPS;
use crate::focus::options::Algorithm;
use crate::focus::step::{Needs, Step};
use crate::scene::extent::Extent;

/// The steps focusing one scene size, in order.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SarPlan {
    /// The algorithm whose builder made the steps.
    pub algorithm: Algorithm,
    /// The scene as recorded and the lines and samples it is processed at: every step works
    /// on `padded_lines × padded_samples`.
    pub extent: Extent,
    /// The steps, first to last.
    pub steps: Vec<Step>,
}

impl SarPlan {
    /// Lines and samples every step works on (the processed extent).
    pub fn shape(&self) -> (usize, usize) {
        (self.extent.padded_lines, self.extent.padded_samples)
    }

    /// Whether the steps include secondary range compression (a range-Doppler range
    /// filter: SRC, or chirp scaling's 2-D range filter, which holds it).
    pub fn src(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, Step::RangeDopplerFilter { .. }))
    }

    /// The widest halo any step needs around a block of range bins (0: none).
    pub fn halo(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s.needs() {
                Needs::BinsWithHalo(halo) => halo,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Scene-sized filters and multiplies the steps carry, each one array of
    /// `lines × samples` values.
    pub fn scene_arrays(&self) -> u64 {
        self.steps
            .iter()
            .filter(|s| s.scene_values().is_some())
            .count() as u64
    }
}

impl fmt::Display for SarPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lines, samples) = self.shape();
        let e = &self.extent;
        let name = match self.algorithm {
            Algorithm::Rda => "Range-Doppler",
            Algorithm::Csa => "chirp scaling",
        };
        writeln!(
            f,
            "SAR plan: {name} ({}), {} lines × {} samples recorded, processed at {lines} × \
             {samples}",
            self.algorithm, e.lines, e.samples
        )?;
        // A filter's length: one value per element of the scene, or its count.
        let values = |n: usize| match n == lines * samples {
            true => format!("one value per element ({lines} × {samples})"),
            false => format!("{n} values"),
        };
        for (i, step) in self.steps.iter().enumerate() {
            let what = match step {
                Step::RangeCompression { filter } => format!(
                    "{lines} range FFTs of {samples} points, a matched filter of {} for every \
                     line, inverse FFTs",
                    values(filter.len())
                ),
                Step::AzimuthFft => format!("{samples} azimuth FFTs of {lines} points (columns)"),
                Step::Multiply { values: v, .. } => format!(
                    "multiply by {}, on a device on the next range FFT's load",
                    values(v.len())
                ),
                Step::RangeDopplerFilter { filter, .. } => format!(
                    "{lines} range FFTs of {samples} points, a filter of {}, inverse FFTs",
                    values(filter.len())
                ),
                Step::Rcmc { spec } => format!(
                    "{RCMC_TAPS}-tap sinc resampler over {} Doppler rows of {} range bins",
                    spec.rows.len(),
                    spec.n
                ),
                Step::AzimuthCompression { filter } => format!(
                    "an azimuth filter of {}, {samples} inverse azimuth FFTs of {lines} points \
                     (columns)",
                    values(filter.len())
                ),
            };
            writeln!(
                f,
                "  {}. {}: {what}; needs {}",
                i + 1,
                step.name(),
                step.needs()
            )?;
        }
        Ok(())
    }
}
