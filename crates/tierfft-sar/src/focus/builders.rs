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
