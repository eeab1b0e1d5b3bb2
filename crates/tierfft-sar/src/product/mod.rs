//! Raw products of SAR missions, one reader per format behind one trait: [`RawProduct`]
//! yields the echoes by block of pulses, decoded to complex samples, and the radar's
//! description ([`Description`]: carrier, chirp, sampling, PRF, slant-range axis, per-pulse
//! times and valid windows, look side, orbit and attitude). The lowest floor beside the
//! errors: what a product says, before any scene is made of it ([`crate::scene::product`]
//! turns a description into a focusing configuration).
//!
//! Formats: NISAR Level-0B "RRSD" ([`nisar::L0b`]). docs/SAR.md says what Sentinel-1
//! Level-0 and ALOS CEOS Level 1.0 readers would need.

pub mod geometry;
mod hdf;
pub mod nisar;
pub mod orbit;

use std::ops::Range;

use num_complex::Complex32;

use crate::error::SarError;
pub use orbit::{Attitude, Orbit, State};

/// Which side of the track the radar looks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookSide {
    /// Left of the velocity vector.
    Left,
    /// Right of the velocity vector.
    Right,
}

/// What a raw product says about how its echoes were recorded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Description {
    /// The mission, as the product names it (e.g. "ALOS").
    pub mission: String,
    /// The channel read: frequency band and polarisation (e.g. "frequencyA HH").
    pub channel: String,
    /// Carrier (centre) frequency, Hz.
    pub carrier_hz: f64,
    /// Chirp rate, Hz/s: negative for a falling sweep.
    pub chirp_slope_hz_per_s: f64,
    /// Pulse length, s.
    pub pulse_s: f64,
    /// Chirp bandwidth, Hz.
    pub bandwidth_hz: f64,
    /// Range sampling rate, Hz (from the slant-range spacing).
    pub sample_rate_hz: f64,
    /// Pulse repetition frequency, Hz.
    pub prf_hz: f64,
    /// Slant range of each range sample, m (the first is the near range).
    pub slant_range_m: Vec<f64>,
    /// The instant times count from, as the product writes it (UTC).
    pub epoch: String,
    /// Each pulse's transmit time, s since [`Description::epoch`].
    pub pulse_times_s: Vec<f64>,
    /// Each pulse's valid samples (clipped to the samples recorded); samples outside are
    /// read as zero.
    pub valid: Vec<Range<usize>>,
    /// The side the radar looks to.
    pub look: LookSide,
    /// The platform's orbit.
    pub orbit: Orbit,
    /// The platform's attitude, where the product has it.
    pub attitude: Option<Attitude>,
}

impl Description {
    /// Pulses recorded.
    pub fn pulses(&self) -> usize {
        self.pulse_times_s.len()
    }

    /// Range samples per pulse.
    pub fn samples(&self) -> usize {
        self.slant_range_m.len()
    }

    /// Near range (the first sample's slant range), m.
    pub fn near_range_m(&self) -> f64 {
        self.slant_range_m[0]
    }
}

/// A raw product opened for reading: its description at once, its echoes block by block.
pub trait RawProduct {
    /// What the product says about the recording.
    fn description(&self) -> &Description;

    /// Decodes pulses `first ..` into `out` (`[pulses][samples]`, `out.len()` a multiple of
    /// [`Description::samples`]): complex samples, the invalid ones zero.
    fn read_pulses(&self, first: usize, out: &mut [Complex32]) -> Result<(), SarError>;

    /// Every pulse, decoded: `[pulses][samples]`.
    fn read_all(&self) -> Result<Vec<Complex32>, SarError> {
        let d = self.description();
        let mut out = vec![Complex32::default(); d.pulses() * d.samples()];
        self.read_pulses(0, &mut out)?;
        Ok(out)
    }
}
