//! The builder of each algorithm's plan: an algorithm is one builder file and one
//! [`Algorithm`] variant, with its arm here.

use crate::error::SarError;
use crate::focus::options::{Algorithm, FocusOptions};
use crate::focus::plan::SarPlan;
use crate::focus::{csa, rda};
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// The plan of the validated `recorded` scene processed at `extent` with `opts` (checked
/// here), its filters computed at the processed size.
pub fn plan(recorded: &Config, opts: &FocusOptions, extent: Extent) -> Result<SarPlan, SarError> {
    opts.validate()?;
    let config = &extent.processing_config(recorded);
    Ok(match opts.algorithm {
        Algorithm::Rda => rda::plan(config, opts, extent),
        Algorithm::Csa => csa::plan(config, opts, extent),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::focus::step::{Needs, Step};

    /// A scene small enough to plan in a moment: a 664-line aperture, a 240-sample pulse.
    fn small() -> Config {
        let mut c = Config::default();
        (c.radar.antenna_m, c.radar.pulse_s) = (8.0, 2e-6);
        (c.scene.lines, c.scene.samples) = (1024, 512);
        c
    }

    fn names(plan: &SarPlan) -> Vec<&'static str> {
        plan.steps.iter().map(Step::name).collect()
    }

    /// Each algorithm's steps in order, with the names progress and timings use, and what
    /// each needs whole.
    #[test]
    fn each_algorithm_builds_its_steps() {
        let c = small();
        let extent = Extent::of(&c, true);
        let (lines, samples) = (extent.padded_lines, extent.padded_samples);
        let rda = plan(&c, &FocusOptions::default(), extent).expect("plan");
        assert_eq!(
            names(&rda),
            [
                "range compression",
                "azimuth FFT",
                "RCMC",
                "azimuth compression"
            ]
        );
        assert!(!rda.src() && rda.halo() > 8, "{rda}");
        assert_eq!(rda.shape(), (lines, samples));
        let with_src = FocusOptions {
            src: Some(true),
            ..FocusOptions::default()
        };
        let src = plan(&c, &with_src, extent).expect("plan");
        assert_eq!(names(&src)[2], "SRC");
        let csa = FocusOptions {
            algorithm: Algorithm::Csa,
            ..FocusOptions::default()
        };
        let csa = plan(&c, &csa, extent).expect("plan");
        assert_eq!(
            names(&csa),
            [
                "azimuth FFT",
                "chirp scaling",
                "range compression and SRC (2-D)",
                "azimuth compression"
            ]
        );
        let needs: Vec<Needs> = csa.steps.iter().map(Step::needs).collect();
        assert_eq!(
            needs,
            [
                Needs::Columns,
                Needs::Pointwise,
                Needs::Lines,
                Needs::Columns
            ]
        );
        assert!(csa.src() && csa.halo() == 0 && csa.scene_arrays() == 3);
        for step in &csa.steps {
            if let Some(values) = step.scene_values() {
                assert_eq!(values.len(), lines * samples, "{}", step.name());
            }
        }
        let printed = csa.to_string();
        assert!(
            printed.starts_with("SAR plan: chirp scaling (csa)"),
            "{printed}"
        );
        assert_eq!(printed.lines().count(), 5, "{printed}");
    }

    /// Options that do not go together are refused before any filter is computed.
    #[test]
    fn chirp_scaling_refuses_what_it_cannot_switch_off() {
        let c = small();
        let opts = FocusOptions {
            algorithm: Algorithm::Csa,
            src: Some(false),
            ..FocusOptions::default()
        };
        let err = plan(&c, &opts, Extent::of(&c, true)).map(|_| ());
        assert!(matches!(err, Err(SarError::Config(m)) if m.contains("SRC off")));
    }
}
