//! The chirp scaling algorithm's plan ([`crate::filters::chirp_scaling`] derives its
//! multiplies): the azimuth FFT of the raw echoes, the scaling multiply, the 2-D range filter
//! (range compression, SRC and the bulk RCMC between a range FFT and its inverse), azimuth
//! compression with the residual phase. No interpolation: migration is corrected by the
//! multiplies alone.

use crate::filters::azimuth::{AzimuthDesign, azimuth_filter};
use crate::filters::chirp_scaling;
use crate::focus::options::FocusOptions;
use crate::focus::plan::SarPlan;
use crate::focus::step::Step;
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// The plan of `config`'s scene (validated, at the processed size of `extent`) with `opts`.
pub fn plan(config: &Config, opts: &FocusOptions, extent: Extent) -> SarPlan {
    // Chirp scaling and radiometry refer to the recorded swath's middle.
    let reference_m = extent.mid_swath_m(config);
    let residual = |r0: f64, fd: f64| chirp_scaling::residual_phase(config, reference_m, r0, fd);
    let az_filter = azimuth_filter(
        config,
        &AzimuthDesign {
            residual: Some(&residual),
            ..opts.azimuth_design(reference_m)
        },
    );
    let steps = vec![
        Step::AzimuthFft,
        Step::Multiply {
            name: "chirp scaling",
            values: chirp_scaling::scaling(config, reference_m),
        },
        Step::RangeDopplerFilter {
            name: "range compression and SRC (2-D)",
            filter: chirp_scaling::range_filter_2d(config, reference_m, opts.range_window),
        },
        Step::AzimuthCompression { filter: az_filter },
    ];
    SarPlan {
        algorithm: opts.algorithm,
        extent,
        steps,
    }
}
