//! Point targets measured apart from their neighbours.
//!
//! Two targets a few resolutions apart on one cut each sit in the other's sidelobes, which
//! moves both peaks and changes both widths: the reference scene's two targets 50 lines apart in
//! one range bin (4.4/B_D) come out 0.15–0.19 lines off with an unweighted azimuth filter, from
//! the geometry alone. To measure what the processor did to each target, the image is
//! modelled as a sum of ideal responses, one per placed target,
//!
//! `z(a, r) ≈ Σ_k c_k · h_az((a − a_k)/q_az) · h_rg((r − r_k)/q_rg)`,
//!
//! with `h` the windows' continuous responses ([`Window::response`]) turning at the band's
//! centre (a squinted target's azimuth response at fdc/PRF cycles per line), `q` the samples
//! per 1/B (PRF/B_D lines in azimuth, fs/B samples in range) and `(a_k, r_k)` where target `k` was
//! placed (line, sample). The complex amplitudes `c_k` are fitted by least squares to the
//! 3 × 3 samples around each placed position, all targets together: each `c_k` is fitted to
//! the image minus the other targets' current models, in turn, until no amplitude changes
//! (Gauss–Seidel). A target is then analysed with [`analyze_point`] on the image minus the
//! other targets' models; its own response stays as the processor made it.
//!
//! The models sit where the targets were placed, so a neighbour that the processor moved by
//! δ leaves a residual of order δ·h'(d)·|c| in the target's cuts, second order in the errors
//! measured; a neighbour whose response differs from the ideal leaves that difference.
//!
//! [`analyze_point`]: crate::quality::metrics::analyze_point

use std::ops::Range;

use num_complex::{Complex32, Complex64};

use crate::filters::window::{Shape, Window};
use crate::quality::metrics::{CutOptions, MetricsError, PointMetrics, analyze_point_less};

/// Gauss–Seidel sweeps before the fit gives up improving (the coupling between targets is a
/// sidelobe level, so a handful of sweeps usually reach f64 rounding).
const MAX_SWEEPS: usize = 200;

/// A point target's ideal response along one image axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisResponse {
    /// Weighting of the processed band.
    pub window: Window,
    /// Image samples per 1/B: fs/B in range (samples), PRF/B_D in azimuth (lines).
    pub samples_per_unit: f64,
    /// Where the band is centred, in cycles per image sample: 0 in range, the Doppler
    /// centroid over the PRF in azimuth (a squinted target's response turns at that rate).
    pub carrier: f64,
}

/// The ideal, separable response of a focused point target: azimuth times range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdealResponse {
    /// Along lines.
    pub azimuth: AxisResponse,
    /// Along samples.
    pub range: AxisResponse,
}

/// One target of a [`SceneModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModelledTarget {
    /// Where it was placed, (line, sample), fractional.
    pub position: (f64, f64),
    /// Fitted complex amplitude of its ideal response (image units).
    pub amplitude: Complex64,
}

/// Every placed target's ideal response with a fitted amplitude (see the module docs).
pub struct SceneModel {
    shapes: (Shape, Shape),
    per_unit: (f64, f64),
    carriers: (f64, f64),
    targets: Vec<ModelledTarget>,
}

impl SceneModel {
    /// Fits the amplitude of a target at each of `positions` ((line, sample), fractional) in
    /// the row-major `image` of `lines` × `samples`.
    pub fn fit(
        image: &[Complex32],
        lines: usize,
        samples: usize,
        response: &IdealResponse,
        positions: &[(f64, f64)],
    ) -> Result<Self, MetricsError> {
        if lines == 0 || samples == 0 {
            return Err(MetricsError::EmptyImage);
        }
        if lines.checked_mul(samples) != Some(image.len()) {
            return Err(MetricsError::ImageSize(image.len(), lines, samples));
        }
        let mut model = SceneModel {
            shapes: (
                response.azimuth.window.shape(),
                response.range.window.shape(),
            ),
            per_unit: (
                response.azimuth.samples_per_unit,
                response.range.samples_per_unit,
            ),
            carriers: (response.azimuth.carrier, response.range.carrier),
            targets: Vec::with_capacity(positions.len()),
        };
        // The 3 × 3 samples nearest each placed position: the mainlobe's top.
        let mut patches = Vec::with_capacity(positions.len());
        for &(a, r) in positions {
            let inside = |x: f64, len: usize| x.is_finite() && x >= 0.0 && x <= (len - 1) as f64;
            if !inside(a, lines) || !inside(r, samples) {
                return Err(MetricsError::GuessOutside(a as usize, r as usize));
            }
            let near = |x: f64, len: usize| {
                let c = x.round() as usize;
                c.saturating_sub(1)..(c + 2).min(len)
            };
            let patch: Vec<(usize, usize, Complex64)> = near(a, lines)
                .flat_map(|pa| near(r, samples).map(move |pr| (pa, pr)))
                .map(|(pa, pr)| {
                    let z = image[pa * samples + pr];
                    (pa, pr, Complex64::new(z.re.into(), z.im.into()))
                })
                .collect();
            if patch.iter().any(|(_, _, z)| !z.is_finite()) {
                return Err(MetricsError::NonFinite);
            }
            patches.push(patch);
            model.targets.push(ModelledTarget {
                position: (a, r),
                amplitude: Complex64::new(0.0, 0.0),
            });
        }
        for _ in 0..MAX_SWEEPS {
            let mut change = 0.0_f64;
            for (k, patch) in patches.iter().enumerate() {
                let (mut num, mut den) = (Complex64::new(0.0, 0.0), 0.0);
                for &(a, r, z) in patch {
                    let h = model.shape_at(k, a, r);
                    num += (z - model.others(k, a, r)) * h.conj();
                    den += h.norm_sqr();
                }
                let c = num / den;
                change = change.max((c - model.targets[k].amplitude).norm());
                model.targets[k].amplitude = c;
            }
            let largest = model
                .targets
                .iter()
                .map(|t| t.amplitude.norm())
                .fold(0.0, f64::max);
            if change <= 1e-12 * largest {
                break;
            }
        }
        Ok(model)
    }

    /// The fitted targets, in the order of the positions given to [`SceneModel::fit`].
    pub fn targets(&self) -> &[ModelledTarget] {
        &self.targets
    }

    /// [`analyze_point`](crate::quality::metrics::analyze_point) of target `k` on the image minus every
    /// other target's model; `image`, `lines`, `samples` as given to [`SceneModel::fit`].
    #[allow(clippy::too_many_arguments)]
    pub fn analyze_alone(
        &self,
        image: &[Complex32],
        lines: usize,
        samples: usize,
        k: usize,
        guess: (usize, usize),
        opts: &CutOptions,
        noise: Option<(Range<usize>, Range<usize>)>,
    ) -> Result<PointMetrics, MetricsError> {
        analyze_point_less(image, lines, samples, guess, opts, noise, &|a, r| {
            self.others(k, a, r)
        })
    }

    /// Target `k`'s ideal response at (line `a`, sample `r`), 1 at its placed position.
    fn shape_at(&self, k: usize, a: usize, r: usize) -> Complex64 {
        let (pa, pr) = self.targets[k].position;
        let (da, dr) = (a as f64 - pa, r as f64 - pr);
        let turn = 2.0 * std::f64::consts::PI * (self.carriers.0 * da + self.carriers.1 * dr);
        Complex64::from_polar(
            self.shapes.0.response(da / self.per_unit.0)
                * self.shapes.1.response(dr / self.per_unit.1),
            turn,
        )
    }

    /// Sum of every target's model but `k`'s at (line `a`, sample `r`).
    fn others(&self, k: usize, a: usize, r: usize) -> Complex64 {
        (0..self.targets.len())
            .filter(|&j| j != k)
            .map(|j| self.targets[j].amplitude * self.shape_at(j, a, r))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quality::metrics::analyze_point;

    /// 11.3 lines and 1.2 samples per 1/B, as in the default scene.
    fn ideal(azimuth: Window) -> IdealResponse {
        IdealResponse {
            azimuth: AxisResponse {
                window: azimuth,
                samples_per_unit: 11.3,
                carrier: 0.0,
            },
            range: AxisResponse {
                window: Window::None,
                samples_per_unit: 1.2,
                carrier: 0.0,
            },
        }
    }

    /// An image of `targets` ((line, sample, complex amplitude, azimuth window)).
    fn image(
        lines: usize,
        samples: usize,
        targets: &[(f64, f64, Complex64, Window)],
    ) -> Vec<Complex32> {
        let mut img = vec![Complex32::new(0.0, 0.0); lines * samples];
        for &(ta, tr, c, w) in targets {
            let resp = ideal(w);
            for a in 0..lines {
                let ha = w.response((a as f64 - ta) / resp.azimuth.samples_per_unit);
                for r in 0..samples {
                    let hr = Window::None.response((r as f64 - tr) / resp.range.samples_per_unit);
                    let z = c * ha * hr;
                    img[a * samples + r] += Complex32::new(z.re as f32, z.im as f32);
                }
            }
        }
        img
    }

    fn cuts() -> CutOptions {
        CutOptions {
            half_azimuth: 31,
            half: 24,
            ..CutOptions::default()
        }
    }

    /// The reference scene's pair: in phase, 50 lines apart in one range bin. Alone, each is where
    /// it was placed with the theoretical width; as imaged, each is 6 % narrower.
    #[test]
    fn a_pair_in_each_others_sidelobes_is_measured_apart() {
        let one = Complex64::new(0.6, -0.8);
        let targets = [
            (100.0, 40.3, one, Window::None),
            (150.0, 40.3, one, Window::None),
            (120.0, 100.0, Complex64::new(0.0, 2.0), Window::None),
        ];
        let img = image(256, 128, &targets);
        let placed: Vec<(f64, f64)> = targets.iter().map(|t| (t.0, t.1)).collect();
        let model = SceneModel::fit(&img, 256, 128, &ideal(Window::None), &placed).expect("fit");
        for (t, m) in targets.iter().zip(model.targets()) {
            assert!((m.amplitude - t.2).norm() < 1e-5, "{m:?}");
        }
        let irw = 0.885_894 * 11.3;
        for (k, &(a, r, ..)) in targets[..2].iter().enumerate() {
            let guess = (a as usize, r as usize);
            let raw = analyze_point(&img, 256, 128, guess, &cuts(), None).expect("raw");
            let alone = model
                .analyze_alone(&img, 256, 128, k, guess, &cuts(), None)
                .expect("alone");
            eprintln!(
                "target {k}: as imaged {:?}\n  alone {:?}",
                raw.azimuth, alone.azimuth
            );
            assert!((raw.azimuth.irw_bins / irw - 1.0).abs() > 0.05, "{raw:?}");
            assert!((alone.azimuth.peak_position - a).abs() < 0.01, "{alone:?}");
            assert!((alone.range.peak_position - r).abs() < 0.01, "{alone:?}");
            assert!(
                (alone.azimuth.irw_bins / irw - 1.0).abs() < 0.005,
                "{alone:?}"
            );
            assert!((alone.azimuth.pslr_db + 13.26).abs() < 0.1, "{alone:?}");
        }
    }

    /// Taking the neighbour out does not make a target look ideal: one focused with a
    /// Hamming-wide response keeps its width, measured against an unweighted model.
    #[test]
    fn a_targets_own_response_is_left_as_it_is() {
        let targets = [
            (100.0, 40.0, Complex64::new(1.0, 0.0), Window::Hamming),
            (150.0, 40.0, Complex64::new(1.0, 0.0), Window::None),
        ];
        let img = image(256, 96, &targets);
        let model = SceneModel::fit(
            &img,
            256,
            96,
            &ideal(Window::None),
            &[(100.0, 40.0), (150.0, 40.0)],
        )
        .expect("fit");
        let alone = model
            .analyze_alone(&img, 256, 96, 0, (100, 40), &cuts(), None)
            .expect("alone");
        let hamming = 1.303 * 11.3;
        assert!(
            (alone.azimuth.irw_bins / hamming - 1.0).abs() < 0.03,
            "{alone:?}"
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        let img = vec![Complex32::new(0.0, 0.0); 64];
        let fit = |img: &[Complex32], at: (f64, f64)| {
            SceneModel::fit(img, 8, 8, &ideal(Window::None), &[at]).map(|_| ())
        };
        assert!(matches!(
            fit(&img, (8.0, 2.0)),
            Err(MetricsError::GuessOutside(..))
        ));
        assert!(matches!(
            fit(&img, (f64::NAN, 2.0)),
            Err(MetricsError::GuessOutside(..))
        ));
        assert!(matches!(
            fit(&img[..60], (2.0, 2.0)),
            Err(MetricsError::ImageSize(..))
        ));
        let mut bad = img.clone();
        bad[3 * 8 + 3] = Complex32::new(f32::NAN, 0.0);
        assert!(matches!(
            fit(&bad, (3.0, 3.0)),
            Err(MetricsError::NonFinite)
        ));
    }
}
