//! Range cell migration correction in the range-Doppler domain: for a target at closest
//! range R0, energy at Doppler f sits at R0/D(f) (`migration`); each output sample at R0 is
//! interpolated from there along range, with tierfft's windowed-sinc resampler
//! ([`tierfft::resample`], 16 taps) on the focusing device.
//!
//! Each Doppler bin stands for the alias the beam saw within the band it sees anywhere in
//! the swath, and outside it for a smooth path back round the PRF (where the azimuth filter
//! is zero, so that the moves are smooth over the PRF: `Config::moved_doppler_hz`); the
//! resampler moves a whole row by one affine map, so a centroid that varies with range is
//! followed by the azimuth filter but not here. That is exact while the bands of the whole
//! swath together span less than a PRF, so that no bin is seen at two aliases.

use tierfft::resample::{ResampleSpec, RowPositions};

use crate::scene::doppler::migration;
use crate::scene::params::Config;

/// Taps of the interpolator (Hann-windowed sinc). 16, not 8: with the chirp filling 83 % of
/// the range band, an 8-tap interpolator's error raised Taylor −35 dB range sidelobes to
/// −33.6 dB; 16 taps keep them within 0.5 dB of theory.
pub const RCMC_TAPS: usize = tierfft::resample::TAPS;

/// The resampling that is RCMC of a `[Doppler bin][range bin]` scene: output bin k (range
/// r0 = near + k·bin) reads r0 / D in Doppler row b, i.e. position
/// `k + (near + k·bin)·(1/D − 1)/bin`: offset `near·s/bin`, slope `s` with s = 1/D − 1. When
/// SRC has already moved every row by the migration `bulk_m·(1/D − 1)` of a reference range
/// ([`crate::filters::coupling`]), what is left: offset `(near − bulk_m)·s/bin` (`bulk_m` 0: all of it).
pub fn rcmc_spec(config: &Config, bulk_m: f64) -> ResampleSpec {
    let r = &config.radar;
    let (near, bin) = (config.near_range_m(), r.range_bin_m());
    let lines = config.scene.lines;
    let rows = (0..lines)
        .map(|b| {
            let stretch = 1.0 / migration(r, config.moved_doppler_hz(b, lines)) - 1.0;
            RowPositions {
                offset: (near - bulk_m) * stretch / bin,
                slope: stretch,
            }
        })
        .collect();
    ResampleSpec::new(config.scene.samples, rows)
}

/// Range bins RCMC reads beyond an output bin, on either side: the largest migration of
/// any row at either end of the scene (positions are linear in the bin), plus half the
/// interpolator and one for rounding. A scene cut into blocks of range bins widened by as
/// many on each side resamples each block's own bins as the whole scene does.
pub fn halo(spec: &ResampleSpec) -> usize {
    let last = spec.n.saturating_sub(1) as f64;
    let reach = spec
        .rows
        .iter()
        .map(|p| p.offset.abs().max((p.offset + p.slope * last).abs()))
        .fold(0.0, f64::max);
    reach.ceil() as usize + RCMC_TAPS / 2 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_the_migration() {
        let config = Config::default();
        let spec = rcmc_spec(&config, 0.0);
        let (near, bin, lines) = (
            config.near_range_m(),
            config.radar.range_bin_m(),
            config.scene.lines,
        );
        let r = &config.radar;
        // Zero Doppler does not move; a bin inside the band moves by R0·(1/D − 1).
        assert_eq!(spec.rows[0].offset, 0.0);
        let b = 150; // 36.6 Hz of the 44.3 Hz half band
        let f = b as f64 * r.prf_hz / lines as f64;
        let (k, p) = (1000.0, spec.rows[b]);
        let r0 = near + k * bin;
        let moved = r0 / crate::scene::doppler::migration(r, f) - r0;
        assert!((p.offset + p.slope * k - moved / bin).abs() < 1e-9);
        assert!(moved / bin > 0.2, "migration {} bins", moved / bin);
        // All round the PRF, through the gap outside the band (where the azimuth filter is
        // zero), the move changes smoothly from bin to bin.
        let at = |p: &RowPositions| p.offset + p.slope * k;
        for b in 0..lines {
            let (here, next) = (at(&spec.rows[b]), at(&spec.rows[(b + 1) % lines]));
            assert!(
                (next - here).abs() < 0.01,
                "bins {b}, {}: {here} {next}",
                b + 1
            );
        }
    }
}
