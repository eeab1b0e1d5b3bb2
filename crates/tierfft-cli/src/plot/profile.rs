//! A cut's power profile for plotting: the image's samples upsampled, or the ideal
//! response of the window, in dB of the peak against bins from it.

use tierfft::Complex32;
use tierfft_sar::quality::metrics::upsample;
use tierfft_sar::quality::neighbours::AxisResponse;

/// Upsampling of a cut before plotting: 16 points per bin draw the mainlobe and the sidelobe
/// nulls smoothly.
pub const CUT_UPSAMPLE: usize = 16;

/// Lowest level on a cut plot's axis, dB below the cut's peak.
pub const CUT_FLOOR_DB: f64 = -60.0;

/// A cut's power in dB relative to its own peak, against bins from that peak, upsampled
/// `factor` times (FFT interpolation). Only the part between the first and last input sample
/// is kept: past it the interpolation wraps around. Levels are floored at
/// [`CUT_FLOOR_DB`] (nulls would be −∞).
pub fn cut_profile(cut: &[Complex32], factor: usize) -> Vec<(f64, f64)> {
    if cut.is_empty() {
        return Vec::new();
    }
    let factor = factor.max(1);
    let up = upsample(cut, factor);
    let up = &up[..((cut.len() - 1) * factor + 1).min(up.len())];
    let power: Vec<f64> = up.iter().map(|z| f64::from(z.norm_sqr())).collect();
    let (at, max) =
        power.iter().copied().enumerate().fold(
            (0, 0.0f64),
            |best, (i, p)| if p > best.1 { (i, p) } else { best },
        );
    let max = max.max(f64::MIN_POSITIVE);
    power
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let x = (i as f64 - at as f64) / factor as f64;
            let db = 10.0 * (p / max).max(f64::MIN_POSITIVE).log10();
            (x, db.max(CUT_FLOOR_DB))
        })
        .collect()
}

/// The ideal power along a cut: `response` (its window over the processed band, stretched
/// by its samples per 1/B) in dB of its peak, every 1/`factor` bin from `span.0` to `span.1`
/// bins from the peak, floored at [`CUT_FLOOR_DB`]. Empty where the response has no positive
/// finite scale.
pub fn ideal_profile(response: &AxisResponse, span: (f64, f64), factor: usize) -> Vec<(f64, f64)> {
    let q = response.samples_per_unit;
    if !(q.is_finite() && q > 0.0) {
        return Vec::new();
    }
    let factor = factor.max(1) as f64;
    let (first, last) = ((span.0 * factor).ceil(), (span.1 * factor).floor());
    if !(first.is_finite() && last.is_finite()) {
        return Vec::new();
    }
    (first as i64..=last as i64)
        .map(|i| {
            let x = i as f64 / factor;
            let h = response.window.response(x / q).abs();
            (
                x,
                (20.0 * h.max(f64::MIN_POSITIVE).log10()).max(CUT_FLOOR_DB),
            )
        })
        .collect()
}

/// Samples of sinc(t − t0) at t = 0..n: the response of an unweighted band-limited system,
/// whose 3 dB width is 0.886 bins (for the plot tests).
#[cfg(test)]
pub(super) fn sinc_cut(n: usize, t0: f64) -> Vec<Complex32> {
    (0..n)
        .map(|t| {
            let x = std::f64::consts::PI * (t as f64 - t0);
            let v = if x == 0.0 { 1.0 } else { x.sin() / x };
            Complex32::new(v as f32, 0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_profile_peaks_at_zero_db_and_zero_bins() {
        let profile = cut_profile(&sinc_cut(33, 16.25), CUT_UPSAMPLE);
        assert_eq!(profile.len(), 32 * CUT_UPSAMPLE + 1);
        let peak =
            profile.iter().copied().fold(
                (0.0, f64::NEG_INFINITY),
                |b, p| if p.1 > b.1 { p } else { b },
            );
        assert_eq!(peak, (0.0, 0.0));
        // The peak lies on the 1/16-bin grid nearest 16.25: x runs −16.25 .. 15.75.
        assert!((profile[0].0 + 16.25).abs() < 1e-12, "{:?}", profile[0]);
        // Half power within a grid step of ±0.443 bins.
        let above: Vec<f64> = profile
            .iter()
            .filter(|p| p.1 >= -3.01)
            .map(|p| p.0)
            .collect();
        let width = above.last().expect("peak") - above[0];
        assert!((width - 0.886).abs() <= 2.0 / 16.0, "{width}");
        assert!(profile.iter().all(|p| p.1 >= CUT_FLOOR_DB && p.1 <= 0.0));
        assert!(cut_profile(&[], 16).is_empty());
        assert_eq!(cut_profile(&[Complex32::new(1.0, 0.0)], 16), [(0.0, 0.0)]);
    }

    #[test]
    fn the_ideal_profile_is_the_windows_response() {
        let response = |window| AxisResponse {
            window,
            samples_per_unit: 1.2,
            carrier: 0.3,
        };
        let width = |p: &[(f64, f64)]| {
            let above: Vec<f64> = p.iter().filter(|q| q.1 >= -3.0103).map(|q| q.0).collect();
            above.last().expect("peak") - above[0]
        };
        let none = ideal_profile(
            &response(tierfft_sar::filters::window::Window::None),
            (-20.0, 20.0),
            CUT_UPSAMPLE,
        );
        assert_eq!(none.len(), 2 * 20 * CUT_UPSAMPLE + 1);
        assert_eq!(none[20 * CUT_UPSAMPLE], (0.0, 0.0));
        assert!(
            (width(&none) - 0.886 * 1.2).abs() <= 2.0 / 16.0,
            "{}",
            width(&none)
        );
        // The first sidelobe of a sinc: −13.26 dB, 1.43 × 1.2 bins out.
        let side = none
            .iter()
            .filter(|p| p.0 > 1.3 && p.0 < 2.2)
            .map(|p| p.1)
            .fold(f64::MIN, f64::max);
        assert!((side + 13.26).abs() < 0.05, "{side}");
        let hamming = ideal_profile(
            &response(tierfft_sar::filters::window::Window::Hamming),
            (-20.0, 20.0),
            CUT_UPSAMPLE,
        );
        assert!((width(&hamming) - 1.303 * 1.2).abs() <= 2.0 / 16.0);
        assert!(
            none.iter()
                .chain(&hamming)
                .all(|p| p.1 >= CUT_FLOOR_DB && p.1 <= 1e-12)
        );
        let flat = AxisResponse {
            samples_per_unit: 0.0,
            ..response(tierfft_sar::filters::window::Window::None)
        };
        assert!(ideal_profile(&flat, (-20.0, 20.0), CUT_UPSAMPLE).is_empty());
    }
}
