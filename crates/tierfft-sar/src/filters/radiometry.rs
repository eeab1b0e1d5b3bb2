//! Radiometry: how the image's gain varies with range.
//!
//! Azimuth compression sums a target's echoes over its synthetic aperture, whose length in
//! pulses grows in proportion to its range. Left alone (`Raw`), a target's image peak
//! therefore grows in proportion to range too (by 30 % across the default scene's swath, 17.4
//! to 22.6 km). `Normalised` (the default) divides each range bin's azimuth filter
//! by the gain it gives a point target there, so that equal targets image equally at every
//! range: the peak is the echo amplitude times the range compression's gain (the pulse's
//! samples, T·fs, for an unweighted chirp), times the azimuth window's coherent gain.
//! `Spreading` also undoes the two-way spreading loss of the radar equation, whose echo
//! amplitude falls as 1/R²: the image is multiplied by (R/Rref)², Rref the middle of the
//! recorded swath, for echoes that carry the loss (field data; the built-in simulator's do
//! not).

use std::fmt;
use std::str::FromStr;

use crate::scene::params::Config;
use crate::scene::pattern::AzimuthPattern;

/// How the image's gain varies with range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Radiometry {
    /// The azimuth processing gain as it comes: in proportion to the aperture's pulses, so
    /// to range.
    Raw,
    /// The same gain at every range (see the module docs).
    #[default]
    Normalised,
    /// Normalised, and the echoes' two-way spreading loss undone: × (R/Rref)².
    Spreading,
}

impl Radiometry {
    /// The factor on range `r0_m`'s azimuth filter: 1 (`Raw`), the inverse of the filter's
    /// gain on a point target (`equalised`: the aperture's pulses, weighted by the pattern's
    /// power; phase-only: their square
    /// root times the Doppler band's share of the PRF), and (`Spreading`) (r0/reference)².
    pub(crate) fn azimuth_gain(
        self,
        config: &Config,
        equalised: bool,
        r0_m: f64,
        reference_m: f64,
    ) -> f64 {
        if self == Radiometry::Raw {
            return 1.0;
        }
        let r = &config.radar;
        let (first, last) = config.aperture_m(r0_m);
        let step = r.azimuth_bin_m();
        // The 3 dB aperture's pulses, weighted by the pattern's mean power over them (1 for a
        // uniform beam): the equalised filter's peak on a point target.
        let weight = match config.azimuth_pattern() {
            AzimuthPattern::Uniform => 1.0,
            _ => {
                let lines = (first / step).ceil() as i64..=(last / step).floor() as i64;
                let count = lines.clone().count().max(1) as f64;
                let power: f64 = lines
                    .map(|line| config.pattern_gain(r0_m, line as f64 * step).powi(2))
                    .sum();
                (power / count).max(1e-6)
            }
        };
        let pulses = ((last - first) / step).max(1.0) * weight;
        let gain = match equalised {
            true => pulses,
            false => (pulses * r.doppler_bandwidth_hz() / r.prf_hz).sqrt(),
        };
        let spreading = match self {
            Radiometry::Spreading => (r0_m / reference_m).powi(2),
            _ => 1.0,
        };
        spreading / gain
    }
}

impl fmt::Display for Radiometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Radiometry::Raw => "raw",
            Radiometry::Normalised => "normalised",
            Radiometry::Spreading => "spreading",
        })
    }
}

impl FromStr for Radiometry {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "raw" => Ok(Radiometry::Raw),
            "normalised" | "normalized" => Ok(Radiometry::Normalised),
            "spreading" => Ok(Radiometry::Spreading),
            _ => Err(format!(
                "radiometry must be raw, normalised or spreading (got {s:?})"
            )),
        }
    }
}
