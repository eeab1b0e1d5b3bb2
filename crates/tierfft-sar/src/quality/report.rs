//! What a focusing run reports: `tierfft sar`'s metrics.json and the metrics dict of
//! Python's `tierfft.sar.focus`, one struct so that both carry the same keys
//! (docs/SAR.md, "Metrics", says what each holds).

use serde::Serialize;

use crate::focus::options::{FocusOptions, StepTimings};
use crate::focus::strip::StripFocuser;
use crate::quality::measure::{TargetReport, Theories};
use crate::quality::noise::NoiseRegion;
use crate::scene::centroid;
use crate::scene::echoes::Zeroed;
use crate::scene::extent::Extent;
use crate::scene::pattern;

/// One focusing run's report.
#[derive(Serialize)]
pub struct Report<'a> {
    /// The device (for several, `"N × name"`).
    pub device: String,
    /// Devices the scene was spread over.
    pub ranks: usize,
    /// The image's azimuth lines.
    pub lines: usize,
    /// The image's range samples.
    pub samples: usize,
    /// The range window (`none`, `hamming`, `taylor:4:-35`, ...).
    pub range_window: String,
    /// The azimuth window.
    pub azimuth_window: String,
    /// Theoretical IRW (bins), PSLR and ISLR (dB) for these windows.
    pub theory: serde_json::Value,
    /// Whether the fused kernels ran (false: `--unfused`).
    pub fused: bool,
    /// The size the scene was processed at, margins included.
    pub processed: Size,
    /// Whether the scene had margins of zeros (false: circular convolutions, as
    /// `--circular`, or the fallback for a device that cannot bind them).
    pub margins: bool,
    /// What the planner fell back to and why, when the device could not focus the scene as
    /// asked (`null`: as asked).
    pub fallback: Option<String>,
    /// The blocks of lines the scene was focused in (`null`: whole).
    pub blocks: Option<Blocks>,
    /// Image lines and samples focused from a whole aperture and pulse, `[first, end)`.
    pub fully_focused: FullyFocused,
    /// Whether range cell migration was corrected.
    pub rcmc: bool,
    /// Whether secondary range compression ran.
    pub src: bool,
    /// `rda` or `csa`.
    pub algorithm: String,
    /// `normalised`, `raw` or `spreading`.
    pub radiometry: String,
    /// The Doppler centroid used and where it came from.
    pub doppler_centroid: centroid::Used,
    /// The azimuth pattern used and where it came from.
    pub azimuth_pattern: pattern::Used,
    /// Whether the azimuth filter divided out the reference target's spectrum.
    pub azimuth_equalisation: bool,
    /// Non-finite echo samples set to zero (`null`: none were).
    pub nonfinite_zeroed: Option<Zeroed>,
    /// The raw product the echoes came from (`null`: simulated or a `.npy`).
    pub product: Option<ProductReport>,
    /// The image's speckle against theory, measured where there are no targets (`null`
    /// otherwise, or where the image is too small to measure it).
    pub speckle: Option<crate::quality::speckle::Speckle>,
    /// Where the SNR's noise was measured (`null`: nowhere, no SNR).
    pub noise_region: Option<NoiseRegion>,
    /// Warnings the run gave, in the order given.
    pub warnings: Vec<String>,
    /// Wall-clock times, s.
    pub timings_s: Timings,
    /// Every target's measurements, in the config's order.
    pub targets: &'a [TargetReport],
}

/// What a raw product said, and the geometry its configuration came from.
#[derive(Clone, Debug, Serialize)]
pub struct ProductReport {
    /// The file read.
    pub file: String,
    /// Its mission and channel (e.g. "ALOS", "frequencyA HH").
    pub mission: String,
    /// The channel read.
    pub channel: String,
    /// Transmit time of the first pulse: seconds since `epoch`.
    pub first_pulse_s: f64,
    /// The instant the product's times count from (UTC).
    pub epoch: String,
    /// Effective velocity, predicted Doppler centroid, antenna and aperture
    /// ([`crate::scene::product::Geometry`]).
    pub geometry: crate::scene::product::Geometry,
    /// How much coarser the azimuth resolution is than a full aperture's (1: a whole
    /// aperture was focused).
    pub azimuth_resolution_factor: f64,
}

impl ProductReport {
    /// What `file`'s description `d` says, with the `geometry` its configuration came from
    /// ([`crate::scene::product::config`]).
    pub fn new(
        file: String,
        d: &crate::product::Description,
        geometry: crate::scene::product::Geometry,
    ) -> ProductReport {
        ProductReport {
            file,
            mission: d.mission.clone(),
            channel: d.channel.clone(),
            first_pulse_s: d.pulse_times_s[0],
            epoch: d.epoch.clone(),
            azimuth_resolution_factor: geometry.resolution_factor(),
            geometry,
        }
    }
}

/// A size in lines and samples.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Size {
    /// Azimuth lines.
    pub lines: usize,
    /// Range samples.
    pub samples: usize,
}

/// Lines and samples focused from a whole aperture and pulse, each `[first, end)`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FullyFocused {
    /// Azimuth lines.
    pub lines: (usize, usize),
    /// Range samples.
    pub samples: (usize, usize),
}

/// How a strip was cut into blocks.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Blocks {
    /// Blocks focused.
    pub count: usize,
    /// Image lines per block.
    pub lines: usize,
    /// Lines of echoes each block is focused from.
    pub chunk_lines: usize,
}

impl From<&StripFocuser> for Blocks {
    fn from(strip: &StripFocuser) -> Blocks {
        Blocks {
            count: strip.blocks(),
            lines: strip.block_lines(),
            chunk_lines: strip.chunk_lines(),
        }
    }
}

/// Wall-clock times of a run's steps, s.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Timings {
    /// Planning, device arrays included.
    pub plan: f64,
    /// Simulating the echoes (`null`: the echoes were given).
    pub simulate: Option<f64>,
    /// Resolving the Doppler centroid and the azimuth pattern.
    pub centroid: f64,
    /// Focusing: the steps, and the exchange between devices where spread.
    pub focus: f64,
    /// Each focusing step.
    pub steps: StepTimings,
    /// The all-to-all between devices (`null`: one device).
    pub exchange: Option<f64>,
    /// Reading the echoes from a file (`null`: simulated, or given as an array).
    pub read: Option<f64>,
    /// Measuring the image: targets, or its speckle.
    pub measure: f64,
    /// Writing the outputs, as far as it did not run beside other work (`null`: nothing
    /// written).
    pub write: Option<f64>,
    /// The whole run, from the command line (or the call) to the report.
    pub total: f64,
}

impl Report<'_> {
    /// The parts of a report that follow from the options and the extent the scene was
    /// processed at; the caller fills in the rest.
    #[allow(clippy::too_many_arguments)]
    pub fn new<'a>(
        device: String,
        (lines, samples): (usize, usize),
        opts: &FocusOptions,
        extent: &Extent,
        theory: &Theories,
        doppler_centroid: centroid::Used,
        azimuth_pattern: pattern::Used,
        targets: &'a [TargetReport],
    ) -> Report<'a> {
        Report {
            device,
            ranks: 1,
            lines,
            samples,
            range_window: opts.range_window.to_string(),
            azimuth_window: opts.azimuth_window.to_string(),
            theory: theory.json(),
            fused: opts.fused,
            processed: Size {
                lines: extent.padded_lines,
                samples: extent.padded_samples,
            },
            margins: opts.margins,
            fallback: None,
            blocks: None,
            fully_focused: FullyFocused {
                lines: extent.full_lines,
                samples: extent.full_samples,
            },
            rcmc: opts.rcmc,
            src: false,
            algorithm: opts.algorithm.to_string(),
            radiometry: opts.radiometry.to_string(),
            doppler_centroid,
            azimuth_pattern,
            azimuth_equalisation: opts.azimuth_equalisation,
            nonfinite_zeroed: None,
            product: None,
            speckle: None,
            noise_region: None,
            warnings: Vec::new(),
            timings_s: Timings::default(),
            targets,
        }
    }
}
