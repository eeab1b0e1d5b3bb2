//! Focusing planned to fit one device: the whole scene with its margins where the device binds
//! it, else in blocks of lines, else at the recorded size (circularly), each fallback said in
//! a note for the run's report. `tierfft sar` and Python's `tierfft.sar.focus` both plan
//! through [`fit`], so a scene too large for lavapipe's 128 MiB bindings focuses the same way
//! from either.

use num_complex::Complex32;
use tierfft::Device;

use crate::error::SarError;
use crate::focus::focuser::{Focuser, Planned};
use crate::focus::options::{FocusOptions, StepTimings};
use crate::focus::strip::StripFocuser;
use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// Focusing planned on one device.
// One per run, never moved in a hot loop: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Fitted {
    /// The whole scene at once.
    Whole(Focuser),
    /// In blocks of lines.
    Strip(StripFocuser),
}

impl Fitted {
    /// Whether the steps include secondary range compression.
    pub fn src(&self) -> bool {
        match self {
            Fitted::Whole(f) => f.src(),
            Fitted::Strip(f) => f.src(),
        }
    }

    /// Focuses `data` (`[lines][samples]`) in place; `progress` hears a step's name (whole)
    /// or `"block k of n"` (in blocks).
    pub fn focus(
        &self,
        data: &mut [Complex32],
        mut progress: impl FnMut(&str),
    ) -> Result<StepTimings, SarError> {
        match self {
            Fitted::Whole(f) => f.focus(data, progress),
            Fitted::Strip(f) => {
                f.focus(data, |done, of| progress(&format!("block {done} of {of}")))
            }
        }
    }
}

/// A plan that fits, and why it is not the one asked for, when it is not.
pub struct Fit {
    /// The focusing planned.
    pub focusing: Fitted,
    /// What the planner fell back to and why (`None`: focused as asked).
    pub fallback: Option<String>,
}

/// Plans `config`'s scene on `device`: whole, or in blocks of `blocks` lines when given. A
/// device whose bindings hold the scene but not its margins focuses it in blocks (half the
/// lines, a quarter, ... while longer than the aperture) or, none small enough, at the
/// recorded size: `opts.margins` is then cleared, as `--circular` would. `planned`: the whole
/// scene's plan made ahead ([`Planned`]), used when the scene is focused whole as planned.
pub fn fit(
    device: &Device,
    config: &Config,
    opts: &mut FocusOptions,
    blocks: Option<usize>,
    planned: Option<Planned>,
) -> Result<Fit, SarError> {
    if let Some(block) = blocks {
        let strip = StripFocuser::new(device, config, *opts, block)?;
        return Ok(Fit {
            focusing: Fitted::Strip(strip),
            fallback: None,
        });
    }
    let whole = match planned {
        Some(planned) => Focuser::with_planned(device, config, *opts, planned),
        None => Focuser::new(device, config, *opts),
    };
    let detail = match whole {
        Err(SarError::Fft(tierfft::Error::TooLarge { detail, .. })) if opts.margins => detail,
        focuser => {
            return Ok(Fit {
                focusing: Fitted::Whole(focuser?),
                fallback: None,
            });
        }
    };
    let e = Extent::of(config, true);
    let too_large = format!(
        "with margins the scene is {} × {}, more than '{}' binds at once ({detail})",
        e.padded_lines,
        e.padded_samples,
        device.name()
    );
    let (ahead, behind) = Extent::reach(config);
    let mut block = config.scene.lines / 2;
    while block >= (ahead + behind).max(64) {
        match StripFocuser::new(device, config, *opts, block) {
            Ok(strip) => {
                let why = format!(
                    "{too_large}: focused in blocks of {} lines",
                    strip.block_lines()
                );
                return Ok(Fit {
                    focusing: Fitted::Strip(strip),
                    fallback: Some(why),
                });
            }
            Err(SarError::Fft(tierfft::Error::TooLarge { .. })) => block /= 2,
            Err(e) => return Err(e),
        }
    }
    opts.margins = false;
    Ok(Fit {
        focusing: Fitted::Whole(Focuser::new(device, config, *opts)?),
        fallback: Some(format!(
            "{too_large}: processed at the recorded size instead, as --circular does (targets \
             near an edge wrap into the opposite one)"
        )),
    })
}
