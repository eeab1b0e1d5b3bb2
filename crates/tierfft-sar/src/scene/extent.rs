//! The extent a scene is processed at: the recorded lines and samples, plus margins of zeros
//! wide enough that the focusing's circular convolutions (range compression, RCMC, azimuth
//! compression) never wrap one edge's signal into the other, rounded up to FFT lengths that
//! factor into 2, 3, 5 and 7 (fast on every backend). The image is cropped back to the
//! recorded scene.
//!
//! Range: the matched filter spans the pulse around each output sample (centred on it, or
//! after it when delays point at the pulse's start), RCMC reads up to the largest migration
//! further out, and its interpolator half its taps around; so the pulse's longer side, the
//! migration at the far edge and the taps. Azimuth: the azimuth filter
//! spans a target's synthetic aperture, centred on its line when broadside and ahead of it
//! when squinted; so the aperture's farther end from the line, at the near or far edge.
//! Zeros past the recorded end are then read in place of the other edge.

use num_complex::Complex32;

use crate::scene::doppler::migration;
use crate::scene::params::Config;

/// Taps of RCMC's interpolator ([`crate::filters::rcmc::RCMC_TAPS`], which says why 16),
/// here for the range margin it reads into.
const RCMC_TAPS: usize = tierfft::resample::TAPS;

/// Lines and samples a scene is processed at, and the recorded ones inside them (from line
/// 0 and sample 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Extent {
    /// Azimuth lines recorded.
    pub lines: usize,
    /// Range samples recorded per line.
    pub samples: usize,
    /// Azimuth lines processed (`lines` and the margin).
    pub padded_lines: usize,
    /// Range samples processed per line (`samples` and the margin).
    pub padded_samples: usize,
    /// Lines of the image whose whole synthetic aperture (at the far range) was recorded,
    /// `[first, end)`; the lines outside were focused from part of it (lower gain and
    /// resolution, noise included).
    pub full_lines: (usize, usize),
    /// Samples of the image whose whole pulse was recorded, `[first, end)`.
    pub full_samples: (usize, usize),
}

impl Extent {
    /// `config`'s scene with margins (`margins`), or as recorded (without: the convolutions
    /// wrap around the scene's edges, as the processor did before margins; for scenes whose
    /// edges hold no signal, and for timing at a given FFT length).
    pub fn of(config: &Config, margins: bool) -> Extent {
        let (lines, samples) = (config.scene.lines, config.scene.samples);
        let r = &config.radar;
        let far_m = config.near_range_m() + samples as f64 * r.range_bin_m();
        // Samples the pulse spans before and after an echo's delay.
        let pulse = |s: f64| ((r.pulse_s / 2.0 + s * r.pulse_centre_s()) * r.sample_rate_hz).ceil();
        let (before, after) = (pulse(-1.0) as usize, pulse(1.0) as usize);
        let near_m = config.near_range_m();
        let (ahead, behind) = Extent::aperture(config);
        let inside =
            |n: usize, (a, b): (usize, usize)| (a.min(n / 2), n.saturating_sub(b).max(n / 2));
        let full_lines = inside(lines, (ahead, behind));
        let full_samples = inside(samples, (before, after));
        if !margins {
            return Extent {
                lines,
                samples,
                padded_lines: lines,
                padded_samples: samples,
                full_lines,
                full_samples,
            };
        }
        // The largest migration, half a PRF from the centroid (the Doppler rows RCMC moves)
        // and at the far range; at most at 90 % of the platform's Doppler 2v/λ.
        let centroid = config
            .centroid_hz(near_m)
            .abs()
            .max(config.centroid_hz(far_m).abs());
        let limit = 0.9 * 2.0 * r.speed_mps / r.wavelength_m();
        let doppler = (centroid + r.prf_hz / 2.0).min(limit);
        let stretch = 1.0 / migration(r, doppler) - 1.0;
        // Reads before the first sample wrap to the end: the margin covers both sides.
        let range_margin =
            before.max(after) + (far_m * stretch / r.range_bin_m()).ceil() as usize + RCMC_TAPS;
        Extent {
            lines,
            samples,
            // Zeros past the last line serve the reads past both ends.
            padded_lines: {
                let (ahead, behind) = Extent::reach(config);
                fft_length(lines + ahead.max(behind) + 1)
            },
            padded_samples: fft_length(samples + range_margin),
            full_lines,
            full_samples,
        }
    }

    /// The lines of echoes an image line is focused from, `(ahead, behind)`: from `ahead`
    /// lines before it to `behind` after, over the swath: the azimuth filter's kernel, the
    /// [`Extent::aperture`] and the kernel's margin either side
    /// ([`crate::filters::azimuth::azimuth_filter`]).
    pub fn reach(config: &Config) -> (usize, usize) {
        let (ahead, behind) = Extent::aperture(config);
        let margin = kernel_margin(ahead + behind);
        (ahead + margin, behind + margin)
    }

    /// The along-track aperture over the swath in lines, `(ahead, behind)`: where the
    /// squinted beam lights a target, from `ahead` lines before its image line to `behind`
    /// after, at the near or the far range, in lines of the slowest effective velocity across
    /// the swath (the most lines).
    pub fn aperture(config: &Config) -> (usize, usize) {
        let r = &config.radar;
        let near_m = config.near_range_m();
        let far_m = near_m + config.scene.samples as f64 * r.range_bin_m();
        let step = r.slowest_mps(near_m, far_m) / r.prf_hz;
        let ((a0, b0), (a1, b1)) = (config.aperture_m(near_m), config.aperture_m(far_m));
        (
            (-a0.min(a1) / step).ceil().max(0.0) as usize,
            (b0.max(b1) / step).ceil().max(0.0) as usize,
        )
    }

    /// This extent without the azimuth margin: for blocks of a strip, whose lines hold the
    /// echoes their image lines need ([`crate::focus::strip`]).
    pub fn without_azimuth_margin(self) -> Extent {
        Extent {
            padded_lines: self.lines,
            ..self
        }
    }

    /// The recorded `data` (`lines × samples`) in a processed-size scene of zeros.
    pub fn pad(&self, data: &[Complex32]) -> Vec<Complex32> {
        let mut padded = vec![Complex32::new(0.0, 0.0); self.padded_lines * self.padded_samples];
        for (from, into) in data
            .chunks(self.samples)
            .zip(padded.chunks_mut(self.padded_samples))
        {
            into[..self.samples].copy_from_slice(from);
        }
        padded
    }

    /// The recorded part of a processed-size `padded` scene, into `data`.
    pub fn crop(&self, padded: &[Complex32], data: &mut [Complex32]) {
        for (into, from) in data
            .chunks_mut(self.samples)
            .zip(padded.chunks(self.padded_samples))
        {
            into.copy_from_slice(&from[..self.samples]);
        }
    }

    /// The middle of the recorded swath of `config`'s scene, m: the reference range of SRC,
    /// chirp scaling and [`crate::filters::radiometry::Radiometry::Spreading`].
    pub fn mid_swath_m(&self, config: &Config) -> f64 {
        config.near_range_m() + self.samples as f64 / 2.0 * config.radar.range_bin_m()
    }

    /// Whether the scene is processed at its recorded size.
    pub fn is_recorded_size(&self) -> bool {
        (self.padded_lines, self.padded_samples) == (self.lines, self.samples)
    }

    /// `config` as the focusing steps see it: the processed lines and samples, the first
    /// sample still at the recorded near range.
    pub fn processing_config(&self, config: &Config) -> Config {
        let mut c = config.clone();
        c.radar.near_range_m = Some(config.near_range_m());
        c.scene.lines = self.padded_lines;
        c.scene.samples = self.padded_samples;
        c
    }
}

/// The smallest length of at least `n` whose prime factors are 2, 3, 5 and 7 only.
pub fn fft_length(n: usize) -> usize {
    (n.max(1)..)
        .find(|&m| {
            let mut m = m;
            for p in [2, 3, 5, 7] {
                while m % p == 0 {
                    m /= p;
                }
            }
            m == 1
        })
        .unwrap_or(n)
}

/// Lines of the azimuth filter's kernel ([`crate::filters::azimuth::azimuth_filter`]) kept beyond an aperture of `aperture` lines on each
/// side: an eighth of it. The band's edges then soften over about 1/(1.25·TBP) of the band
/// (the azimuth chirp's time-bandwidth product: 236 in the default scene, 0.3 %).
pub(crate) fn kernel_margin(aperture: usize) -> usize {
    aperture.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fft_lengths_are_7_smooth_and_the_smallest() {
        assert_eq!(fft_length(4096), 4096);
        assert_eq!(fft_length(4097), 4116); // 2^2 · 3 · 7^3
        assert_eq!(fft_length(2501), 2520);
        assert_eq!(fft_length(11), 12);
        for n in [1000, 1001, 3001, 65537] {
            let m = fft_length(n);
            assert!(m >= n);
            assert!((n..m).all(|k| fft_length(k) == m));
        }
    }

    #[test]
    fn margins_cover_half_a_pulse_and_half_an_aperture() {
        let config = Config::default();
        let e = Extent::of(&config, true);
        let r = &config.radar;
        let half_pulse = r.pulse_s * r.sample_rate_hz / 2.0;
        assert!(e.padded_samples as f64 >= e.samples as f64 + half_pulse + RCMC_TAPS as f64);
        // About 1350 lines: half the aperture at 20 km.
        assert!(e.padded_lines >= e.lines + 1300, "{e:?}");
        assert!(Extent::of(&config, false).is_recorded_size());
        let p = e.processing_config(&config);
        assert_eq!(p.near_range_m(), config.near_range_m());
        assert_eq!(
            (p.scene.lines, p.scene.samples),
            (e.padded_lines, e.padded_samples)
        );
    }
}
