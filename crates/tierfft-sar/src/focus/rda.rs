//! The Range-Doppler algorithm's plan: range compression, the azimuth FFT, SRC with the bulk
//! migration when the scene needs it, RCMC, azimuth compression.
//!
//! For a target at closest range R0, after the azimuth FFT its energy at Doppler f sits at
//! range R0/D(f) with D(f) = sqrt(1 − (λf / 2v)²) (zero squint), with phase −4πR0·D(f)/λ.
//! RCMC moves it back to R0 with a 16-tap Hann-windowed sinc interpolator along range;
//! azimuth compression multiplies by exp(+i4πR0·(D(f) − 1)/λ) (times the azimuth window) and
//! transforms back (the carrier phase −4πR0/λ stays in the image).

use crate::filters::azimuth::azimuth_filter;
use crate::filters::coupling;
use crate::filters::range::range_filter;
use crate::filters::rcmc::rcmc_spec;
use crate::focus::options::FocusOptions;
use crate::focus::plan::SarPlan;
use crate::focus::step::Step;
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// The plan of `config`'s scene (validated, at the processed size of `extent`) with `opts`.
pub fn plan(config: &Config, opts: &FocusOptions, extent: Extent) -> SarPlan {
    let samples = config.scene.samples;
    // SRC and radiometry refer to the recorded swath's middle; RCMC then moves what is
    // left of the migration.
    let reference_m = extent.mid_swath_m(config);
    let mut steps = vec![
        Step::RangeCompression {
            filter: range_filter(&config.radar, samples, opts.range_window).into(),
        },
        Step::AzimuthFft,
    ];
    let src = opts.src_for(config);
    if src {
        steps.push(Step::RangeDopplerFilter {
            name: "SRC",
            filter: coupling::filter(config, reference_m, opts.rcmc),
        });
    }
    if opts.rcmc {
        let bulk_m = if src { reference_m } else { 0.0 };
        steps.push(Step::Rcmc {
            spec: rcmc_spec(config, bulk_m),
        });
    }
    steps.push(Step::AzimuthCompression {
        filter: azimuth_filter(config, &opts.azimuth_design(reference_m)),
    });
    SarPlan {
        algorithm: opts.algorithm,
        extent,
        steps,
    }
}
