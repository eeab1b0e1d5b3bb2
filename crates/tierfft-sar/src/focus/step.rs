//! The steps of a SAR plan ([`crate::focus::plan::SarPlan`]): what each does to the scene
//! (`[lines][samples]`, azimuth × range), the values it carries, and what part of the scene
//! it needs whole on one device, which tells the distributed executor how to lay the scene
//! out before it ([`crate::focus::distributed`]).

use std::fmt;
use std::sync::Arc;

use num_complex::Complex32;
use tierfft::resample::ResampleSpec;

use crate::filters::rcmc;
use crate::focus::options::StepTimings;

/// What part of the scene a step needs whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Needs {
    /// Whole range lines (rows): range transforms.
    Lines,
    /// Whole azimuth columns: azimuth transforms.
    Columns,
    /// Each element alone: any layout.
    Pointwise,
    /// Whole azimuth columns of range bins and `halo` bins beyond them on either side
    /// (RCMC reads along range).
    BinsWithHalo(usize),
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Needs::Lines => f.write_str("whole range lines"),
            Needs::Columns => f.write_str("whole azimuth columns"),
            Needs::Pointwise => f.write_str("each element alone (pointwise)"),
            Needs::BinsWithHalo(halo) => {
                write!(
                    f,
                    "whole azimuth columns of range bins, with a halo of {halo}"
                )
            }
        }
    }
}

/// One step of focusing, with the values it applies. Filters are shared (`Arc`) with the
/// device plans made from them, so a plan holds no copy of its own.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Step {
    /// Range compression: per line, the range FFT, the matched filter (`samples` values,
    /// the same for every line: [`crate::filters::range::range_filter`]) and the inverse.
    RangeCompression {
        /// The range-frequency filter.
        filter: Arc<[Complex32]>,
    },
    /// The azimuth FFT of every column.
    AzimuthFft,
    /// A multiply of every element by its own value (`lines × samples`): chirp scaling's
    /// scaling function ([`crate::filters::chirp_scaling::scaling`]). Device executors apply
    /// it on the load of the range-Doppler filter that follows.
    Multiply {
        /// What it is, for the plan's printout.
        name: &'static str,
        /// One value per element of the scene.
        values: Arc<[Complex32]>,
    },
    /// A range-Doppler range filter: per line of the range-Doppler scene, the range FFT, a
    /// filter of one value per element (`lines × samples`, each Doppler row its own) and the
    /// inverse: SRC with the bulk migration for the Range-Doppler algorithm
    /// ([`crate::filters::coupling::filter`]), or chirp scaling's range compression, SRC and
    /// bulk RCMC ([`crate::filters::chirp_scaling::range_filter_2d`]).
    RangeDopplerFilter {
        /// The step's progress and timing name: "SRC", or "range compression and SRC (2-D)".
        name: &'static str,
        /// The filter between the range FFT and its inverse.
        filter: Arc<[Complex32]>,
    },
    /// Range cell migration correction: tierfft's windowed-sinc row resampler
    /// ([`crate::filters::rcmc::rcmc_spec`]), into a second array.
    Rcmc {
        /// The positions each Doppler row reads.
        spec: ResampleSpec,
    },
    /// Azimuth compression: the azimuth filter (`lines × samples`:
    /// [`crate::filters::azimuth::azimuth_filter`]) then the inverse azimuth FFT of every
    /// column.
    AzimuthCompression {
        /// The range-Doppler filter.
        filter: Arc<[Complex32]>,
    },
}

impl Step {
    /// The step's name, as progress reports and timings call it.
    pub fn name(&self) -> &'static str {
        match self {
            Step::RangeCompression { .. } => "range compression",
            Step::AzimuthFft => "azimuth FFT",
            Step::Multiply { name, .. } | Step::RangeDopplerFilter { name, .. } => name,
            Step::Rcmc { .. } => "RCMC",
            Step::AzimuthCompression { .. } => "azimuth compression",
        }
    }

    /// What part of the scene the step needs whole.
    pub fn needs(&self) -> Needs {
        match self {
            Step::RangeCompression { .. } | Step::RangeDopplerFilter { .. } => Needs::Lines,
            Step::AzimuthFft | Step::AzimuthCompression { .. } => Needs::Columns,
            Step::Multiply { .. } => Needs::Pointwise,
            Step::Rcmc { spec } => Needs::BinsWithHalo(rcmc::halo(spec)),
        }
    }

    /// Whether progress reports hear the step by its name: not a multiply, which runs with
    /// a transform (on a device, on the next one's load; through the host, timed with the
    /// step before it).
    pub fn announced(&self) -> bool {
        !matches!(self, Step::Multiply { .. })
    }

    /// The field of `t` the step's time adds to; `None` for a multiply, whose time counts
    /// with the step before it.
    pub fn time_in<'a>(&self, t: &'a mut StepTimings) -> Option<&'a mut f64> {
        match self {
            Step::RangeCompression { .. } => Some(&mut t.range_compression_s),
            Step::AzimuthFft => Some(&mut t.azimuth_fft_s),
            Step::Multiply { .. } => None,
            Step::RangeDopplerFilter { .. } => Some(&mut t.src_s),
            Step::Rcmc { .. } => Some(&mut t.rcmc_s),
            Step::AzimuthCompression { .. } => Some(&mut t.azimuth_compression_s),
        }
    }

    /// The scene-sized values the step carries (a filter or multiply of one value per
    /// element), for memory estimates.
    pub fn scene_values(&self) -> Option<&[Complex32]> {
        match self {
            Step::Multiply { values: v, .. }
            | Step::RangeDopplerFilter { filter: v, .. }
            | Step::AzimuthCompression { filter: v } => Some(v),
            _ => None,
        }
    }
}
