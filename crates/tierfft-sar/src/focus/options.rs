//! What a focusing run is asked for: the options, the algorithm, and the time each step took.

use std::fmt;
use std::str::FromStr;

use crate::error::SarError;
use crate::filters::azimuth::AzimuthDesign;
use crate::filters::coupling;
use crate::filters::radiometry::Radiometry;
use crate::filters::range::Window;
use crate::scene::params::Config;

/// The focusing algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Range-Doppler: range compression, azimuth FFT, optional SRC, RCMC by interpolation,
    /// azimuth compression ([`crate::focus::rda`]).
    #[default]
    Rda,
    /// Chirp scaling ([`crate::focus::csa`], [`crate::filters::chirp_scaling`]).
    Csa,
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Rda => "rda",
            Algorithm::Csa => "csa",
        })
    }
}

impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rda" => Ok(Algorithm::Rda),
            "csa" => Ok(Algorithm::Csa),
            _ => Err(format!("the algorithm must be rda or csa (got {s:?})")),
        }
    }
}

/// How to focus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FocusOptions {
    /// Weighting of the range matched filter.
    pub range_window: Window,
    /// Weighting of the azimuth filter over the Doppler bandwidth.
    pub azimuth_window: Window,
    /// Range cell migration correction; off only to show what it corrects.
    pub rcmc: bool,
    /// Divide the azimuth filter by the spectrum of a reference target lit by the config's
    /// azimuth pattern (see [`crate::filters::azimuth`], [`crate::scene::pattern`]); off: phase only.
    pub azimuth_equalisation: bool,
    /// Fused GPU steps on device-resident data ([`crate::focus::resident`]); `false` runs
    /// every step separately through the host ([`crate::focus::host`]).
    pub fused: bool,
    /// Process with margins of zeros at efficient FFT lengths, the image cropped to the
    /// recorded scene ([`crate::scene::extent`]); `false` processes at the recorded size, the
    /// convolutions wrapping around its edges.
    pub margins: bool,
    /// Secondary range compression with the bulk migration at mid-swath, in the 2-D
    /// frequency domain ([`crate::filters::coupling`]): `None` when the scene needs it
    /// ([`crate::filters::coupling::needed`]: a squinted beam's range walk, or a long aperture at a low
    /// carrier), `Some` to force it on or off. The chirp
    /// scaling algorithm always has it (`Some(false)` is refused).
    pub src: Option<bool>,
    /// Range-Doppler or chirp scaling ([`crate::filters::chirp_scaling`]).
    pub algorithm: Algorithm,
    /// How the image's gain varies with range ([`Radiometry`]).
    pub radiometry: Radiometry,
}

impl FocusOptions {
    /// Whether focusing `config`'s scene with these options runs SRC.
    pub fn src_for(&self, config: &Config) -> bool {
        match self.algorithm {
            Algorithm::Csa => true,
            Algorithm::Rda => self.src.unwrap_or_else(|| coupling::needed(config)),
        }
    }

    /// The azimuth filter these options ask for, its radiometry referred to `reference_m`,
    /// with no residual phase.
    pub(crate) fn azimuth_design(&self, reference_m: f64) -> AzimuthDesign<'static> {
        AzimuthDesign {
            window: self.azimuth_window,
            equalise: self.azimuth_equalisation,
            radiometry: self.radiometry,
            reference_m,
            residual: None,
        }
    }

    /// Checks that the options go together.
    pub fn validate(&self) -> Result<(), SarError> {
        let refuse = |what: &str| {
            Err(SarError::Config(format!(
                "the chirp scaling algorithm corrects migration and coupling in its phase \
                 multiplies: {what} applies to the Range-Doppler algorithm only"
            )))
        };
        match self.algorithm {
            Algorithm::Csa if !self.rcmc => refuse("switching RCMC off"),
            Algorithm::Csa if self.src == Some(false) => refuse("switching SRC off"),
            _ => Ok(()),
        }
    }
}

impl Default for FocusOptions {
    fn default() -> Self {
        FocusOptions {
            range_window: Window::None,
            azimuth_window: Window::None,
            rcmc: true,
            azimuth_equalisation: true,
            fused: true,
            margins: true,
            src: None,
            algorithm: Algorithm::Rda,
            radiometry: Radiometry::Normalised,
        }
    }
}

/// A stopwatch for the executors' steps: each call returns the seconds since the previous
/// call (or since it was made) and starts the next lap.
pub(crate) fn lap_timer() -> impl FnMut() -> f64 {
    let mut clock = std::time::Instant::now();
    move || {
        let s = clock.elapsed().as_secs_f64();
        clock = std::time::Instant::now();
        s
    }
}

/// Wall-clock time of each focusing step, seconds. Fused, the steps run on device-resident
/// data (each timed to its completion) and the copies are [`StepTimings::transfer_s`];
/// unfused, each step includes its own copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepTimings {
    /// Copying the scene to the device and the image back (fused only).
    pub transfer_s: f64,
    /// Range FFT, matched filter, inverse FFT.
    pub range_compression_s: f64,
    /// Azimuth FFT (with the transposes when unfused; unfused chirp scaling, with its
    /// scaling multiply: a pointwise step counts with the step before it).
    pub azimuth_fft_s: f64,
    /// Secondary range compression and the bulk migration (range FFT, filter, inverse FFT);
    /// 0 when off. With the chirp scaling algorithm: its scaling, range compression, SRC and
    /// bulk RCMC (multiply, range FFT, filter, inverse FFT; the scaling multiply is in
    /// `azimuth_fft_s` when unfused), and `range_compression_s` and `rcmc_s` are 0.
    pub src_s: f64,
    /// Range cell migration correction.
    pub rcmc_s: f64,
    /// Azimuth filter and inverse azimuth FFT (with the transposes when unfused).
    pub azimuth_compression_s: f64,
}

impl StepTimings {
    /// Adds `other`'s times to these (a strip's blocks).
    pub fn add(&mut self, other: &StepTimings) {
        self.transfer_s += other.transfer_s;
        self.range_compression_s += other.range_compression_s;
        self.azimuth_fft_s += other.azimuth_fft_s;
        self.src_s += other.src_s;
        self.rcmc_s += other.rcmc_s;
        self.azimuth_compression_s += other.azimuth_compression_s;
    }

    /// The four steps and the copies together, seconds.
    pub fn total_s(&self) -> f64 {
        self.transfer_s
            + self.range_compression_s
            + self.azimuth_fft_s
            + self.src_s
            + self.rcmc_s
            + self.azimuth_compression_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithms_parse_and_print() {
        for a in [Algorithm::Rda, Algorithm::Csa] {
            assert_eq!(a.to_string().parse::<Algorithm>(), Ok(a));
        }
        assert!("omega-k".parse::<Algorithm>().is_err());
    }
}
