//! Resampling rows at fractional positions with a windowed-sinc interpolator: fractional
//! delays, per-row time stretches, range cell migration correction in SAR.
//!
//! Output sample `k` of row `r` is the input row interpolated at
//! `x = k + offset_r + slope_r·k` (input samples), with a [`TAPS`]-tap Hann-windowed sinc
//! whose weights are taken at the nearest of [`PHASES`] fractional positions per sample; taps
//! outside the row read zero. Positions are fixed point ([`FRACTION_BITS`] fractional bits,
//! exact integer arithmetic), so every backend picks the same taps and the same phase for
//! every sample: GPU and CPU outputs differ only by f32 rounding (the CPU tabulates the
//! weights in f64, the kernels compute them in f32).

use std::f64::consts::PI;

use num_complex::Complex32;

use crate::error::{Error, Result};

/// Taps of the interpolator. 16, not 8: with a signal filling 83 % of the band (a radar chirp
/// sampled at 1.2× its bandwidth), an 8-tap interpolator's error raised −35 dB Taylor
/// sidelobes to −33.6 dB; 16 taps keep them within 0.5 dB.
pub const TAPS: usize = 16;

/// Fractional positions the weight table tells apart per sample. Rounding a position by at
/// most 1/8192 sample errs by under 2π·0.42/8192 ≈ 3e-4 in relative amplitude at 0.42 cycles
/// per sample (−70 dB).
pub const PHASES: usize = 4096;

/// Fractional bits of the fixed-point positions: offsets and slopes are rounded to 2^-20
/// samples (1e-6), so a row of 16384 samples drifts by at most 0.008 samples from the slope
/// asked for. The kernels' 32-bit arithmetic leaves 11 bits for whole samples: a slope may
/// move the last sample of a row by up to ±2047 samples relative to the first.
pub const FRACTION_BITS: u32 = 20;

/// Where a row's output samples read: `x = k + offset + slope·k`, in input samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowPositions {
    /// Position of output sample 0, input samples.
    pub offset: f64,
    /// Extra input samples per output sample (0 for a pure delay; > 0 stretches).
    pub slope: f64,
}

impl RowPositions {
    /// The same positions for a window of the row that starts at sample `start` (output
    /// and input both counted from there): output `k` of the window reads where output
    /// `start + k` of the row does. The slope is first rounded to the kernels' fixed point,
    /// so that the window's fixed-point positions are the row's own, not merely close.
    pub fn from_sample(self, start: usize) -> RowPositions {
        let one = f64::from(1u32 << FRACTION_BITS);
        let slope = (self.slope * one).round() / one;
        RowPositions {
            offset: self.offset + slope * start as f64,
            slope,
        }
    }
}

/// A batch of rows to resample: `n` samples each, one [`RowPositions`] per row.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ResampleSpec {
    /// Samples per row, in and out.
    pub n: usize,
    /// One entry per row.
    pub rows: Vec<RowPositions>,
}

/// A row's positions in fixed point: `x_k = k + whole + (frac + slope·k) / 2^FRACTION_BITS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FixedRow {
    /// Whole samples of the offset (floor).
    pub whole: i32,
    /// Fraction of the offset, in [0, 2^FRACTION_BITS).
    pub frac: u32,
    /// Slope, 2^-FRACTION_BITS samples per output sample.
    pub slope: i32,
}

/// Largest |whole offset| a row may have, samples: far past any row the kernels take, and
/// well inside the 2^31 bias of their wrapping position arithmetic.
pub(crate) const MAX_WHOLE: i64 = 1 << 20;
/// Largest |slope| in fixed point (2^-FRACTION_BITS samples per output sample).
pub(crate) const MAX_SLOPE: i64 = 1 << 23;

impl ResampleSpec {
    /// `n`-sample rows, each resampled at its own positions.
    pub fn new(n: usize, rows: Vec<RowPositions>) -> ResampleSpec {
        ResampleSpec { n, rows }
    }

    /// Elements in the input (and output): `n × rows`.
    pub fn len(&self) -> usize {
        self.n * self.rows.len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows in fixed point, or why they cannot be represented.
    pub(crate) fn fixed_rows(&self) -> Result<Vec<FixedRow>> {
        let invalid = |detail: String| Error::InvalidSpec(format!("resampling: {detail}"));
        if self.n == 0 || self.rows.is_empty() {
            return Err(invalid(
                "rows must hold at least one sample and one row".into(),
            ));
        }
        if u32::try_from(self.len()).is_err() {
            return Err(invalid(format!(
                "{} × {} samples exceed the 2^32 a kernel indexes",
                self.rows.len(),
                self.n
            )));
        }
        let one = f64::from(1u32 << FRACTION_BITS);
        // The fraction plus the slope's run along the row must stay within ±2^31 in fixed
        // point (the kernels' 32-bit arithmetic).
        let span = (1i64 << 31) - (2 << FRACTION_BITS);
        self.rows
            .iter()
            .enumerate()
            .map(|(r, p)| {
                if !p.offset.is_finite() || !p.slope.is_finite() {
                    return Err(invalid(format!("row {r}: offset and slope must be finite")));
                }
                let mut whole = p.offset.floor();
                let mut frac = ((p.offset - whole) * one).round();
                if frac >= one {
                    whole += 1.0;
                    frac = 0.0;
                }
                let slope = (p.slope * one).round();
                let run = slope.abs() * (self.n - 1) as f64;
                if whole.abs() >= MAX_WHOLE as f64
                    || slope.abs() >= MAX_SLOPE as f64
                    || run >= span as f64
                {
                    return Err(invalid(format!(
                        "row {r}: offset {} and slope {} reach too far (|offset| < {MAX_WHOLE} \
                         samples, |slope| < {}, |slope · (n − 1)| < {} samples)",
                        p.offset,
                        p.slope,
                        MAX_SLOPE >> FRACTION_BITS,
                        span >> FRACTION_BITS
                    )));
                }
                Ok(FixedRow {
                    whole: whole as i32,
                    frac: frac as u32,
                    slope: slope as i32,
                })
            })
            .collect()
    }
}

impl FixedRow {
    /// For output sample `k`: the first tap's input index (may lie outside the row) and the
    /// weight-table row. The kernels compute the same in wrapping u32 arithmetic.
    pub(crate) fn taps(&self, k: usize) -> (i64, usize) {
        let shift = FRACTION_BITS - PHASES.trailing_zeros();
        let fine = i64::from(self.frac) + i64::from(self.slope) * k as i64;
        let phase = (fine + (1 << (shift - 1))) >> shift;
        let base = i64::from(self.whole) + (phase >> PHASES.trailing_zeros());
        let first = k as i64 + base + 1 - (TAPS / 2) as i64;
        (first, (phase & (PHASES as i64 - 1)) as usize)
    }
}

/// The Hann-windowed sinc weight of a tap `t` samples from the interpolated position.
fn weight(t: f64) -> f64 {
    let half = (TAPS / 2) as f64;
    let sinc = if t.abs() < 1e-12 {
        1.0
    } else {
        (PI * t).sin() / (PI * t)
    };
    sinc * 0.5 * (1.0 + (PI * t / half).cos())
}

/// Row `p` holds the weights of the taps at `1 − TAPS/2 ..= TAPS/2` samples from the sample
/// below the position, for a position `p / PHASES` past it (computed in f64).
pub(crate) fn weight_table() -> Vec<[f32; TAPS]> {
    let first = 1 - (TAPS / 2) as i64;
    (0..PHASES)
        .map(|p| {
            let frac = p as f64 / PHASES as f64;
            std::array::from_fn(|j| weight(frac - (first + j as i64) as f64) as f32)
        })
        .collect()
}

/// u32 words per row in the resampling kernel's positions (the resamplers' docs give the
/// number: change them with it).
pub(crate) const ROW_WORDS: usize = 3;

/// The resampling kernel's row positions: per row, [`ROW_WORDS`] words `whole`, `frac`,
/// `slope`, the signed ones as their two's-complement bits (the kernel's arithmetic wraps).
pub(crate) fn row_values(rows: &[FixedRow]) -> Vec<u32> {
    rows.iter()
        .flat_map(|r| [r.whole as u32, r.frac, r.slope as u32])
        .collect()
}

/// Resamples one row on the CPU: the reference every backend's kernel matches.
pub(crate) fn resample_row(
    table: &[[f32; TAPS]],
    row: &FixedRow,
    input: &[Complex32],
    output: &mut [Complex32],
) {
    let n = input.len() as i64;
    for (k, out) in output.iter_mut().enumerate() {
        let (first, p) = row.taps(k);
        let w = &table[p];
        let mut acc = Complex32::new(0.0, 0.0);
        if first >= 0 && first + TAPS as i64 <= n {
            let taps = &input[first as usize..first as usize + TAPS];
            for (z, &w) in taps.iter().zip(w) {
                acc += z * w;
            }
        } else {
            for (j, &w) in w.iter().enumerate() {
                let i = first + j as i64;
                if (0..n).contains(&i) {
                    acc += input[i as usize] * w;
                }
            }
        }
        *out = acc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_interpolate_a_band_limited_tone() {
        // A tone at 0.4 cycles per sample, interpolated at fractional positions, against its
        // exact value.
        let table = weight_table();
        let tone = |x: f64| Complex32::from_polar(1.0, (2.0 * PI * 0.4 * x) as f32);
        let input: Vec<Complex32> = (0..64).map(|k| tone(k as f64)).collect();
        for offset in [0.0, 1.0 / 4096.0, 0.25, 0.5, 0.999, 3.7, -2.3] {
            let spec = ResampleSpec::new(
                64,
                vec![RowPositions {
                    offset,
                    slope: 0.01,
                }],
            );
            let row = spec.fixed_rows().unwrap()[0];
            let mut out = vec![Complex32::new(f32::NAN, 0.0); 64];
            resample_row(&table, &row, &input, &mut out);
            for (k, z) in out.iter().enumerate().take(40).skip(20) {
                let err = (z - tone(k as f64 + offset + 0.01 * k as f64)).norm();
                assert!(err < 2e-2, "offset {offset}, sample {k}: error {err}");
            }
        }
        // At whole samples the weights are the identity.
        assert_eq!(table[0][TAPS / 2 - 1], 1.0);
        assert!(
            table[0]
                .iter()
                .enumerate()
                .all(|(j, &w)| j == TAPS / 2 - 1 || w.abs() < 1e-7)
        );
    }

    #[test]
    fn fixed_point_positions_round_to_the_nearest_phase() {
        let spec = ResampleSpec::new(
            1000,
            vec![RowPositions {
                offset: -1.5 + 0.3 / 4096.0,
                slope: 1e-3,
            }],
        );
        let row = spec.fixed_rows().unwrap()[0];
        // Offset and slope within half a fixed-point step of what was asked.
        let one = f64::from(1u32 << FRACTION_BITS);
        let offset = f64::from(row.whole) + f64::from(row.frac) / one;
        let slope = f64::from(row.slope) / one;
        assert!((offset - spec.rows[0].offset).abs() <= 0.5 / one);
        assert!((slope - 1e-3).abs() <= 0.5 / one);
        for k in [0usize, 1, 17, 999] {
            let x = k as f64 + offset + slope * k as f64;
            let (first, p) = row.taps(k);
            let rounded = (x * PHASES as f64).round();
            assert_eq!(p as f64, rounded.rem_euclid(PHASES as f64), "k = {k}");
            let below = (rounded / PHASES as f64).floor() as i64;
            assert_eq!(first, below + 1 - (TAPS / 2) as i64, "k = {k}");
        }
    }

    #[test]
    fn positions_out_of_reach_are_errors() {
        let far = |offset, slope| ResampleSpec::new(4096, vec![RowPositions { offset, slope }]);
        assert!(far(3e6, 0.0).fixed_rows().is_err());
        assert!(far(0.0, 0.6).fixed_rows().is_err());
        assert!(far(0.0, 0.4).fixed_rows().is_ok());
        assert!(far(f64::NAN, 0.0).fixed_rows().is_err());
        assert!(far(-100.0, 0.02).fixed_rows().is_ok());
        assert!(ResampleSpec::new(0, vec![]).fixed_rows().is_err());
    }
}
