//! The Doppler geometry of a squinted beam: the Doppler centroid (`radar.doppler_centroid_hz`,
//! given or estimated by [`crate::scene::centroid`]), the band and the along-track aperture over
//! which the beam lights a target, and the unwrapping of FFT bins into Doppler frequencies
//! around the centroid.
//!
//! A target at closest range R0 is seen at the angle θ from the zero-Doppler plane with
//! tan θ = −dx/R0, dx the platform's along-track position minus the target's (θ > 0 ahead),
//! and at the Doppler frequency 2v·sin θ/λ. The beam points at the squint θsq, with
//! sin θsq = λ·fdc/2v for the centroid fdc, and lights the target while |θ − θsq| is within
//! half the two-way 3 dB beamwidth. Images are placed at zero Doppler (closest approach),
//! whatever the squint.

use crate::scene::freq::bin_hz;
use crate::scene::params::{Config, Radar};
pub use crate::scene::values::Centroid;

impl Config {
    /// The Doppler centroid at slant range `range_m`, Hz: `radar.doppler_centroid_hz`, or 0
    /// (broadside) when absent.
    pub fn centroid_hz(&self, range_m: f64) -> f64 {
        self.radar
            .doppler_centroid_hz
            .as_ref()
            .map_or(0.0, |c| c.at(range_m))
    }

    /// The centroid at the middle of the scene's swath, Hz: where RCMC unwraps its Doppler
    /// bins (see [`crate::filters::rcmc`]).
    pub fn mid_centroid_hz(&self) -> f64 {
        let mid = self.near_range_m() + self.scene.samples as f64 / 2.0 * self.radar.range_bin_m();
        self.centroid_hz(mid)
    }

    /// The Doppler band in which the beam lights a target at `range_m`, `(low, high)` Hz.
    pub fn doppler_band_hz(&self, range_m: f64) -> (f64, f64) {
        let r = &self.radar;
        let scale = 2.0 * r.speed_mps / r.wavelength_m();
        let (squint, half) = (self.squint_rad(range_m), r.beamwidth_rad() / 2.0);
        (scale * (squint - half).sin(), scale * (squint + half).sin())
    }

    /// The platform's along-track offsets from a target at closest range `range_m` over which
    /// the beam lights it, `(first, last)` m (negative: before closest approach).
    pub fn aperture_m(&self, range_m: f64) -> (f64, f64) {
        let (squint, half) = (self.squint_rad(range_m), self.radar.beamwidth_rad() / 2.0);
        (
            -range_m * (squint + half).tan(),
            -range_m * (squint - half).tan(),
        )
    }

    /// The beam's squint at `range_m`, rad (positive ahead): asin(λ·fdc / 2v).
    pub fn squint_rad(&self, range_m: f64) -> f64 {
        let r = &self.radar;
        let sin = self.centroid_hz(range_m) * r.wavelength_m() / (2.0 * r.speed_mps);
        sin.clamp(-1.0, 1.0).asin()
    }
}

impl Config {
    /// The Doppler frequency RCMC, SRC and chirp scaling move Doppler bin `b` (of `lines`)
    /// by: within the band the beam sees anywhere in the swath, the bin's alias there; in
    /// the gap outside it (up to a PRF), a smooth path from the band's top edge back to its
    /// bottom edge (the frequency rising at slope 1 with a smootherstep of −PRF added: it
    /// overshoots the band by up to a tenth of the gap before turning back), so that the moves have two continuous derivatives all round the PRF (where the azimuth filter
    /// is zero). Their action in azimuth time is then compact, and a scene focused whole or
    /// in blocks of other lengths agrees (a hard hold at the band ± 10 % left a kink that
    /// put chirp scaling's blocks 3.3e-5 from the whole image; this, 6e-6). A band wider than
    /// the PRF has no gap: the alias around the mid-swath centroid.
    pub(crate) fn moved_doppler_hz(&self, b: usize, lines: usize) -> f64 {
        let r = &self.radar;
        let prf = r.prf_hz;
        let near = self.near_range_m();
        let far = near + self.scene.samples as f64 * r.range_bin_m();
        let ((lo0, hi0), (lo1, hi1)) = (self.doppler_band_hz(near), self.doppler_band_hz(far));
        let (lo, hi) = (lo0.min(lo1), hi0.max(hi1));
        let gap = prf - (hi - lo);
        if gap <= 0.0 {
            return doppler_hz(b, lines, prf, self.mid_centroid_hz());
        }
        let f = lo + (bin_hz(b, lines, prf) - lo).rem_euclid(prf);
        if f <= hi {
            return f;
        }
        let t = (f - hi) / gap;
        f - prf * t * t * t * (10.0 - 15.0 * t + 6.0 * t * t)
    }
}

/// Doppler bin `b` of a `lines`-point azimuth FFT at `prf_hz` as the Doppler frequency within
/// a PRF of `centre` Hz, `[centre − PRF/2, centre + PRF/2)`: which alias of the bin the beam
/// saw, when it looks near `centre`.
pub(crate) fn doppler_hz(b: usize, lines: usize, prf_hz: f64, centre: f64) -> f64 {
    let f = bin_hz(b, lines, prf_hz);
    centre + (f - centre + prf_hz / 2.0).rem_euclid(prf_hz) - prf_hz / 2.0
}

/// The migration factor D(f) = sqrt(1 − (λf / 2v)²) at Doppler `f_hz`: a target at closest
/// range R0 is seen at Doppler f from range R0/D(f).
pub(crate) fn migration(radar: &Radar, f_hz: f64) -> f64 {
    (1.0 - (radar.wavelength_m() * f_hz / (2.0 * radar.speed_mps)).powi(2))
        .max(1e-6)
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_interpolate_and_hold_their_ends() {
        let c = Centroid::Table(vec![[100.0, 10.0], [200.0, 30.0]]);
        assert_eq!([c.at(50.0), c.at(150.0), c.at(250.0)], [10.0, 20.0, 30.0]);
        assert!(
            Centroid::Table(vec![[2.0, 0.0], [1.0, 0.0]])
                .validate()
                .is_err()
        );
        assert!(Centroid::Table(vec![]).validate().is_err());
        assert!(Centroid::Constant(f64::NAN).validate().is_err());
    }

    #[test]
    fn a_squinted_beam_sees_its_centroid() {
        let mut config = Config::default();
        config.radar.doppler_centroid_hz = Some(Centroid::Constant(150.0));
        let (lo, hi) = config.doppler_band_hz(20e3);
        assert!(((lo + hi) / 2.0 - 150.0).abs() < 0.01, "{lo} {hi}");
        assert!((hi - lo - config.radar.doppler_bandwidth_hz()).abs() < 0.1);
        // Ahead of the target: 150 Hz at 3 cm and 100 m/s is 22.5 mrad, 450 m at 20 km.
        let (first, last) = config.aperture_m(20e3);
        assert!(
            last < 0.0 && ((first + last) / 2.0 + 450.0).abs() < 1.0,
            "{first} {last}"
        );
        // Bins alias into the PRF around the centroid.
        assert_eq!(doppler_hz(0, 1000, 1000.0, 800.0), 1000.0);
        assert_eq!(doppler_hz(400, 1000, 1000.0, 0.0), 400.0);
        assert_eq!(doppler_hz(600, 1000, 1000.0, 0.0), -400.0);
    }
}
