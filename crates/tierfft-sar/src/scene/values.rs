//! The values of the config's keys that are more than a number: the Doppler centroid, the
//! azimuth pattern and a measured pulse. They sit below [`crate::scene::params`], which holds
//! them, so that params and the modules computing with them ([`crate::scene::doppler`],
//! [`crate::scene::pattern`], [`crate::scene::replica`], which add their methods) do not
//! import each other.

use std::sync::Arc;

use num_complex::Complex32;
use serde::{Deserialize, Serialize};

use crate::error::SarError;

/// The Doppler centroid, Hz: one value for the whole swath (`doppler_centroid_hz = 50.0`),
/// or a table of `[slant range m, Hz]` pairs in increasing range, interpolated linearly
/// between them and held constant beyond the ends
/// (`doppler_centroid_hz = [[19000.0, 40.0], [21000.0, 60.0]]`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Centroid {
    /// The same centroid at every range, Hz.
    Constant(f64),
    /// `[slant range m, centroid Hz]` pairs, ranges increasing.
    Table(Vec<[f64; 2]>),
}

impl Centroid {
    /// The centroid at slant range `range_m`, Hz.
    pub fn at(&self, range_m: f64) -> f64 {
        let table = match self {
            Centroid::Constant(f) => return *f,
            Centroid::Table(table) => table,
        };
        let Some(after) = table.iter().position(|p| p[0] > range_m) else {
            return table.last().map_or(0.0, |p| p[1]);
        };
        if after == 0 {
            return table[0][1];
        }
        let ([r0, f0], [r1, f1]) = (table[after - 1], table[after]);
        f0 + (f1 - f0) * (range_m - r0) / (r1 - r0)
    }

    /// Checks the values: finite, a non-empty table with increasing ranges.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let key = "radar.doppler_centroid_hz";
        match self {
            Centroid::Constant(f) if !f.is_finite() => {
                Err(format!("{key} must be a finite number of Hz (got {f})"))
            }
            Centroid::Constant(_) => Ok(()),
            Centroid::Table(t) if t.is_empty() => Err(format!(
                "{key} is an empty table: give [[range_m, hz], ...] or one number"
            )),
            Centroid::Table(t) => {
                if let Some(p) = t.iter().find(|p| !(p[0].is_finite() && p[1].is_finite())) {
                    return Err(format!("{key}: [{}, {}] is not a finite pair", p[0], p[1]));
                }
                match t.windows(2).find(|w| w[1][0] <= w[0][0]) {
                    Some(w) => Err(format!(
                        "{key}: the ranges must increase ({} m then {} m)",
                        w[0][0], w[1][0]
                    )),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The antenna's two-way azimuth amplitude pattern (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AzimuthPattern {
    /// Amplitude 1 within the two-way 3 dB beam, 0 outside.
    #[default]
    Uniform,
    /// sinc²(L·sin(θ − θsq)/λ) out to the first nulls.
    Sinc2,
}

impl AzimuthPattern {
    /// The name the config and metrics use.
    pub fn name(self) -> &'static str {
        match self {
            AzimuthPattern::Uniform => "uniform",
            AzimuthPattern::Sinc2 => "sinc2",
        }
    }
}

/// The samples of a measured pulse.
#[derive(Clone, PartialEq)]
pub struct Replica(Arc<[Complex32]>);

impl std::fmt::Debug for Replica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Replica({} samples)", self.0.len())
    }
}

impl Replica {
    /// A replica from its samples: at least 2, finite, not all zero.
    pub fn new(samples: Vec<Complex32>) -> Result<Replica, SarError> {
        let bad = |m: String| Err(SarError::Config(format!("radar.replica: {m}")));
        if samples.len() < 2 {
            return bad(format!(
                "{} samples: a pulse needs at least 2",
                samples.len()
            ));
        }
        if let Some(i) = samples
            .iter()
            .position(|z| !(z.re.is_finite() && z.im.is_finite()))
        {
            return bad(format!("sample {i} is not finite ({})", samples[i]));
        }
        if samples.iter().all(|z| z.norm_sqr() == 0.0) {
            return bad("every sample is zero".into());
        }
        Ok(Replica(samples.into()))
    }

    /// The samples.
    pub fn samples(&self) -> &[Complex32] {
        &self.0
    }
}
