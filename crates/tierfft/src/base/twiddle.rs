//! Twiddle factors, computed in f64 and rounded once to the precision of the data.
//!
//! Single-precision recurrences or `sin`/`cos` on the GPU lose orders of magnitude of accuracy
//! (GPU_FFT's experience; Vulkan allows 2^-11 absolute error for `sin`), so every
//! twiddle a kernel uses comes from a table built here.

use num_complex::{Complex32, Complex64};

/// `exp(sign · 2πi · k / n)` in f64, to within about an ulp of f64: its octant is reduced
/// exactly, so that `sin` and `cos` see an angle of at most π/4.
pub fn twiddle64(k: usize, n: usize, sign: f64) -> Complex64 {
    use std::f64::consts::PI;
    // 8k/n in [0, 8): octant o and the remainder r (exact integer arithmetic).
    let k = (k % n) as u128;
    let (n8, eight_k) = (n as u128, 8 * k);
    let (o, r) = (eight_k / n8, eight_k % n8);
    // The angle is (o + r/n)·π/4: even octants are o·π/4 + a, odd ones (o + 1)·π/4 − a,
    // with a in [0, π/4].
    let rem = if o % 2 == 0 { r } else { n8 - r };
    let a = PI / 4.0 * rem as f64 / n as f64;
    let (s, c) = a.sin_cos();
    let (x, y) = match o {
        0 => (c, s),
        1 => (s, c),
        2 => (-s, c),
        3 => (-c, s),
        4 => (-c, -s),
        5 => (-s, -c),
        6 => (s, -c),
        _ => (c, -s),
    };
    Complex64::new(x, sign.signum() * y)
}

/// [`twiddle64`] rounded to f32.
pub fn twiddle(k: usize, n: usize, sign: f64) -> Complex32 {
    let w = twiddle64(k, n, sign);
    Complex32::new(w.re as f32, w.im as f32)
}

/// [`table`] rounded to f32 (real transforms' split and merge, f32 only so far).
pub fn table32(len: usize, step: usize, n: usize, sign: f64) -> Vec<Complex32> {
    (0..len).map(|k| twiddle(k * step, n, sign)).collect()
}

/// The table `exp(sign · 2πi · k · step / n)` for `k` in `0..len`, in f64.
pub fn table(len: usize, step: usize, n: usize, sign: f64) -> Vec<Complex64> {
    (0..len).map(|k| twiddle64(k * step, n, sign)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eighth_turns_are_exact_to_rounding() {
        let w = twiddle(1, 8, -1.0);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(w, Complex32::new(h, -h));
        // Quarter turns are exact.
        assert_eq!(twiddle(2, 8, -1.0).re, 0.0);
        assert_eq!(twiddle(2, 8, 1.0).im, 1.0);
        assert_eq!(twiddle64(3, 4, 1.0), Complex64::new(0.0, -1.0));
    }

    /// Every twiddle of several lengths against `sin_cos` of the whole angle in f64 (itself
    /// off by up to a few ulp of 2π), and values known exactly to within about an ulp each.
    #[test]
    fn twiddles_in_f64_match_sin_cos() {
        for n in [1usize, 2, 3, 5, 7, 8, 12, 96, 1000, 4096, 1 << 20] {
            for k in (0..n).step_by((n / 97).max(1)) {
                let w = twiddle64(k, n, -1.0);
                let angle = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
                let (s, c) = angle.sin_cos();
                assert!(
                    (w.re - c).abs() < 1e-15 && (w.im - s).abs() < 1e-15,
                    "{k}/{n}: {w}"
                );
                assert!((w.norm() - 1.0).abs() < 3e-16);
            }
        }
        let half_sqrt3 = 3f64.sqrt() / 2.0;
        for (k, n, want) in [
            (1, 12, Complex64::new(half_sqrt3, -0.5)),
            (2, 3, Complex64::new(-0.5, half_sqrt3)),
            (5, 6, Complex64::new(0.5, half_sqrt3)),
            (1, 6, Complex64::new(0.5, -half_sqrt3)),
        ] {
            let w = twiddle64(k, n, -1.0);
            assert!((w - want).norm() < 2.5e-16, "{k}/{n}: {w} against {want}");
        }
    }
}

/// One on-chip stage's twiddles: radix `radix` after `ns`-point sub-transforms needs
/// `W_{ns·radix}^{k·rr}` for `k < ns`, `1 ≤ rr < radix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageTable {
    /// Points of the sub-transforms the earlier stages finished.
    pub ns: usize,
    /// The stage's radix.
    pub radix: usize,
    /// Where the table starts in the twiddle buffer, elements.
    pub offset: usize,
}

impl StageTable {
    /// Element of `W_{ns·radix}^{k·rr}`. Stored `rr`-major, so the threads of a warp (which
    /// hold neighbouring `k`) read neighbouring elements: a strided or scattered gather would
    /// cost one cache-line lookup per thread.
    pub fn index(&self, rr: usize) -> usize {
        self.offset + (rr - 1) * self.ns
    }

    fn len(&self) -> usize {
        (self.radix - 1) * self.ns
    }
}

/// Where each twiddle table sits in a plan's one twiddle buffer.
///
/// - one [`StageTable`] per distinct on-chip stage (sub-transform size and radix) of the
///   plan's passes;
/// - for multi-pass plans, the pass-boundary twiddles `exp(±2πi·e/n)` for any `e < n`, as the
///   product of two tables: `lo[e mod 2^lo_bits]` and `hi[e >> lo_bits]`. Two lookups and one
///   complex multiply keep the tables small (2 × 2^12 entries at n = 2^24) at about one ulp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwiddleLayout {
    /// Transform length `n` (the pass-boundary tables' denominator).
    pub n: usize,
    /// The stage tables, in buffer order.
    pub stages: Vec<StageTable>,
    /// Bits of the exponent looked up in the `lo` table; 0 when the plan has one pass.
    pub lo_bits: u32,
}

impl TwiddleLayout {
    /// The layout for a transform of `n` points whose passes run on-chip stages with these
    /// radices (in order), and `lo_bits` as in [`TwiddleLayout::lo_bits`].
    pub fn new<'a>(n: usize, passes: impl IntoIterator<Item = &'a [usize]>, lo_bits: u32) -> Self {
        let mut stages: Vec<StageTable> = Vec::new();
        let mut offset = 0;
        for radices in passes {
            let mut ns = 1;
            for &radix in radices {
                let known = stages.iter().any(|t| t.ns == ns && t.radix == radix);
                if ns > 1 && !known {
                    let t = StageTable { ns, radix, offset };
                    offset += t.len();
                    stages.push(t);
                }
                ns *= radix;
            }
        }
        TwiddleLayout { n, stages, lo_bits }
    }

    /// The table of the stage of radix `radix` after `ns`-point sub-transforms.
    ///
    /// # Panics
    /// If the plan has no such stage (a generator bug).
    #[expect(
        clippy::expect_used,
        reason = "the layout is built from the plan's own stages"
    )]
    pub fn stage(&self, ns: usize, radix: usize) -> StageTable {
        *self
            .stages
            .iter()
            .find(|t| t.ns == ns && t.radix == radix)
            .expect("every stage after the first has a twiddle table")
    }

    /// Offset of the `lo` table in the buffer, elements.
    pub fn lo_offset(&self) -> usize {
        self.stages.last().map_or(0, |t| t.offset + t.len())
    }

    /// Offset of the `hi` table in the buffer, elements.
    pub fn hi_offset(&self) -> usize {
        self.lo_offset() + (1 << self.lo_bits)
    }

    /// Elements in the whole buffer (at least one, so that it can be bound).
    pub fn len(&self) -> usize {
        if self.lo_bits == 0 {
            self.lo_offset().max(1)
        } else {
            self.hi_offset() + (self.n >> self.lo_bits)
        }
    }

    /// Never true: the buffer has at least one entry.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The buffer's contents for a transform with exponent sign `sign` (-1 forward), in f64
    /// (the backends round them to the data's precision).
    pub fn build(&self, sign: f64) -> Vec<Complex64> {
        let mut t = Vec::with_capacity(self.len());
        for s in &self.stages {
            for rr in 1..s.radix {
                t.extend(table(s.ns, rr, s.ns * s.radix, sign));
            }
        }
        if self.lo_bits > 0 {
            t.extend(table(1 << self.lo_bits, 1, self.n, sign));
            t.extend(table(
                self.n >> self.lo_bits,
                1 << self.lo_bits,
                self.n,
                sign,
            ));
        }
        t.resize(self.len(), Complex64::new(1.0, 0.0));
        t
    }
}
