//! Twiddle factors, computed in f64 and rounded once to f32.
//!
//! Single-precision recurrences or `sin`/`cos` on the GPU lose orders of magnitude of accuracy
//! (GPU_FFT's experience, seed 002; Vulkan allows 2^-11 absolute error for `sin`), so every
//! twiddle a kernel uses comes from a table built here.

use num_complex::Complex32;

/// `exp(sign · 2πi · k / n)` in f64, rounded to f32.
pub fn twiddle(k: usize, n: usize, sign: f64) -> Complex32 {
    // Reduce k/n to the first octant's accuracy: sin_cos of 2πk/n for k < n is accurate in f64.
    let angle = sign * 2.0 * std::f64::consts::PI * (k % n) as f64 / n as f64;
    let (s, c) = angle.sin_cos();
    Complex32::new(c as f32, s as f32)
}

/// The table `exp(sign · 2πi · k · step / n)` for `k` in `0..len`.
pub fn table(len: usize, step: usize, n: usize, sign: f64) -> Vec<Complex32> {
    (0..len).map(|k| twiddle(k * step, n, sign)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eighth_turns_are_exact_to_rounding() {
        let w = twiddle(1, 8, -1.0);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(w, Complex32::new(h, -h));
        assert_eq!(twiddle(2, 8, -1.0).re.abs(), 6.123234e-17_f64 as f32);
        assert_eq!(twiddle(2, 8, 1.0).im, 1.0);
    }
}

/// Where each twiddle table sits in a plan's one twiddle buffer.
///
/// - the stage table `exp(±2πi·k/stage_n)` for `k < stage_n`, used by the on-chip radix stages
///   of every pass (a pass of `size` points reads it with stride `stage_n / size`);
/// - for multi-pass plans, the pass-boundary twiddles `exp(±2πi·e/n)` for any `e < n`, as the
///   product of two tables: `lo[e mod 2^lo_bits]` and `hi[e >> lo_bits]`. Two lookups and one
///   complex multiply keep the tables small (2 × 2^12 entries at n = 2^24) at about one ulp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwiddleLayout {
    /// Transform length `n` (the pass-boundary tables' denominator).
    pub n: usize,
    /// Length of the stage table (the largest pass size).
    pub stage_n: usize,
    /// Bits of the exponent looked up in the `lo` table; 0 when the plan has one pass.
    pub lo_bits: u32,
}

impl TwiddleLayout {
    /// Offset of the `lo` table in the buffer, elements.
    pub fn lo_offset(&self) -> usize {
        self.stage_n
    }

    /// Offset of the `hi` table in the buffer, elements.
    pub fn hi_offset(&self) -> usize {
        self.stage_n + (1 << self.lo_bits)
    }

    /// Elements in the whole buffer.
    pub fn len(&self) -> usize {
        if self.lo_bits == 0 {
            self.stage_n
        } else {
            self.hi_offset() + (self.n >> self.lo_bits)
        }
    }

    /// Never true: the stage table has at least one entry.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The buffer's contents for a transform with exponent sign `sign` (-1 forward).
    pub fn build(&self, sign: f64) -> Vec<Complex32> {
        let mut t = table(self.stage_n, 1, self.stage_n, sign);
        if self.lo_bits > 0 {
            t.extend(table(1 << self.lo_bits, 1, self.n, sign));
            t.extend(table(
                self.n >> self.lo_bits,
                1 << self.lo_bits,
                self.n,
                sign,
            ));
        }
        t
    }
}
