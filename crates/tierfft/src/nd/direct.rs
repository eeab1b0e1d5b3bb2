//! Direct f64 transforms of the short lengths rustfft rounds too coarsely: lengths up to
//! [`DIRECT_MAX`] with a factor 13, 19 or 23. rustfft's butterflies of those primes take
//! their twiddles from a rounded −2π/n times the index, and a round trip through them
//! reaches 7–8 ulp (13, 19, 23 and 26 points; NumPy allows 5, pocketfft stays under 3).
//! Here each output is a direct sum over pairs of inputs (`x[k] ± x[n−k]`) with twiddles
//! whose argument is reduced exactly ([`twiddle`]): 1.6–3.3 ulp. At these lengths the
//! O(n²) sum costs little more than an FFT.

use num_complex::Complex64;
use realfft::{ComplexToReal, FftError, RealToComplex};
use rustfft::{Direction, Fft, FftDirection, Length};

/// The longest length transformed directly.
pub(crate) const DIRECT_MAX: usize = 64;

/// Whether `n` points are transformed here rather than by rustfft's plan.
pub(crate) fn direct(n: usize) -> bool {
    n <= DIRECT_MAX && [13, 19, 23].iter().any(|&p| n.is_multiple_of(p))
}

/// (cos, sin) of 2π·k/n, the argument reduced exactly: 8k/n is split in integers into an
/// octant and a remainder, so that only the remainder's angle (at most π/4) is rounded.
pub(crate) fn twiddle(k: usize, n: usize) -> (f64, f64) {
    let eighths = 8 * (k % n) as u64;
    let n = n as u64;
    let (octant, rest) = (eighths / n, eighths % n);
    let angle = |r: u64| std::f64::consts::FRAC_PI_4 * (r as f64 / n as f64);
    // Within the quarter turn: odd octants count back from its end.
    let (c, s) = match octant % 2 {
        0 => (angle(rest).cos(), angle(rest).sin()),
        _ => (angle(n - rest).sin(), angle(n - rest).cos()),
    };
    match octant / 2 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// The complex DFT of `n` points in one direction.
pub(crate) struct DirectDft {
    n: usize,
    direction: FftDirection,
    /// (cos, sin) of 2π·m/n for m in 0..n.
    table: Vec<(f64, f64)>,
}

impl DirectDft {
    pub(crate) fn new(n: usize, direction: FftDirection) -> DirectDft {
        DirectDft {
            n,
            direction,
            table: (0..n).map(|m| twiddle(m, n)).collect(),
        }
    }

    /// `y = DFT(x)`, both `n` long: y[j] = x[0] + Σ cos·(x[k] + x[n−k]) ∓ i·sin·(x[k] −
    /// x[n−k]) over k < n/2, and x[n/2]·(−1)^j for even n (− forward, + inverse).
    fn transform(&self, x: &[Complex64], y: &mut [Complex64]) {
        let n = self.n;
        let sign = match self.direction {
            FftDirection::Forward => -1.0,
            FftDirection::Inverse => 1.0,
        };
        for (j, out) in y.iter_mut().enumerate() {
            let (mut even, mut odd) = (Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0));
            for k in 1..n.div_ceil(2) {
                let (c, s) = self.table[(j * k) % n];
                even += (x[k] + x[n - k]) * c;
                odd += (x[k] - x[n - k]) * s;
            }
            let mut sum = x[0] + even + Complex64::new(-odd.im, odd.re) * sign;
            if n.is_multiple_of(2) {
                sum += x[n / 2] * if j.is_multiple_of(2) { 1.0 } else { -1.0 };
            }
            *out = sum;
        }
    }
}

impl Length for DirectDft {
    fn len(&self) -> usize {
        self.n
    }
}

impl Direction for DirectDft {
    fn fft_direction(&self) -> FftDirection {
        self.direction
    }
}

impl Fft<f64> for DirectDft {
    fn process_with_scratch(&self, buffer: &mut [Complex64], scratch: &mut [Complex64]) {
        let scratch = &mut scratch[..self.n];
        for chunk in buffer.chunks_exact_mut(self.n) {
            self.transform(chunk, scratch);
            chunk.copy_from_slice(scratch);
        }
    }

    fn process_outofplace_with_scratch(
        &self,
        input: &mut [Complex64],
        output: &mut [Complex64],
        _: &mut [Complex64],
    ) {
        self.process_immutable_with_scratch(input, output, &mut []);
    }

    fn process_immutable_with_scratch(
        &self,
        input: &[Complex64],
        output: &mut [Complex64],
        _: &mut [Complex64],
    ) {
        for (x, y) in input
            .chunks_exact(self.n)
            .zip(output.chunks_exact_mut(self.n))
        {
            self.transform(x, y);
        }
    }

    fn get_inplace_scratch_len(&self) -> usize {
        self.n
    }

    fn get_outofplace_scratch_len(&self) -> usize {
        0
    }

    fn get_immutable_scratch_len(&self) -> usize {
        0
    }
}

/// The real-data transforms of such a length through [`DirectDft`]: the reals widened to
/// complex values (forward), or the half spectrum completed by its conjugate symmetry, the
/// imaginary parts of 0 Hz and (even n) Nyquist ignored as NumPy does (inverse).
pub(crate) struct DirectReal(DirectDft);

impl DirectReal {
    pub(crate) fn new(n: usize, direction: FftDirection) -> DirectReal {
        DirectReal(DirectDft::new(n, direction))
    }

    fn n(&self) -> usize {
        self.0.n
    }

    /// The widened signal and its spectrum.
    fn scratch(&self) -> Vec<Complex64> {
        vec![Complex64::new(0.0, 0.0); 2 * self.n()]
    }
}

impl RealToComplex<f64> for DirectReal {
    fn process(&self, input: &mut [f64], output: &mut [Complex64]) -> Result<(), FftError> {
        RealToComplex::process_with_scratch(self, input, output, &mut self.scratch())
    }

    fn process_with_scratch(
        &self,
        input: &mut [f64],
        output: &mut [Complex64],
        scratch: &mut [Complex64],
    ) -> Result<(), FftError> {
        let n = self.n();
        let (wide, spectrum) = scratch[..2 * n].split_at_mut(n);
        for (w, &x) in wide.iter_mut().zip(input.iter()) {
            *w = Complex64::new(x, 0.0);
        }
        self.0.transform(wide, spectrum);
        output.copy_from_slice(&spectrum[..n / 2 + 1]);
        Ok(())
    }

    fn get_scratch_len(&self) -> usize {
        2 * self.n()
    }

    fn len(&self) -> usize {
        self.n()
    }

    fn make_input_vec(&self) -> Vec<f64> {
        vec![0.0; self.n()]
    }

    fn make_output_vec(&self) -> Vec<Complex64> {
        vec![Complex64::new(0.0, 0.0); self.n() / 2 + 1]
    }

    fn make_scratch_vec(&self) -> Vec<Complex64> {
        self.scratch()
    }
}

impl ComplexToReal<f64> for DirectReal {
    fn process(&self, input: &mut [Complex64], output: &mut [f64]) -> Result<(), FftError> {
        ComplexToReal::process_with_scratch(self, input, output, &mut self.scratch())
    }

    fn process_with_scratch(
        &self,
        input: &mut [Complex64],
        output: &mut [f64],
        scratch: &mut [Complex64],
    ) -> Result<(), FftError> {
        let n = self.n();
        let (full, signal) = scratch[..2 * n].split_at_mut(n);
        for (k, f) in full.iter_mut().enumerate() {
            *f = match k <= n / 2 {
                true => input[k],
                false => input[n - k].conj(),
            };
        }
        full[0].im = 0.0;
        if n.is_multiple_of(2) {
            full[n / 2].im = 0.0;
        }
        self.0.transform(full, signal);
        for (o, s) in output.iter_mut().zip(signal.iter()) {
            *o = s.re;
        }
        Ok(())
    }

    fn get_scratch_len(&self) -> usize {
        2 * self.n()
    }

    fn len(&self) -> usize {
        self.n()
    }

    fn make_input_vec(&self) -> Vec<Complex64> {
        vec![Complex64::new(0.0, 0.0); self.n() / 2 + 1]
    }

    fn make_output_vec(&self) -> Vec<f64> {
        vec![0.0; self.n()]
    }

    fn make_scratch_vec(&self) -> Vec<Complex64> {
        self.scratch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustfft::FftPlanner;

    fn signal(n: usize, seed: u64) -> Vec<Complex64> {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n).map(|_| Complex64::new(next(), next())).collect()
    }

    #[test]
    fn twiddles_are_the_unit_circle_exactly_reduced() {
        for n in [1, 2, 3, 8, 13, 26, 64] {
            for k in 0..2 * n {
                let (c, s) = twiddle(k, n);
                let angle = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                // The naive angle is itself rounded, by up to 2e-15 at 4π.
                assert!((c - angle.cos()).abs() < 4e-15 && (s - angle.sin()).abs() < 4e-15);
            }
        }
        assert_eq!(twiddle(2, 8), (0.0, 1.0));
        assert_eq!(twiddle(4, 8), (-1.0, 0.0));
    }

    /// The same transform as rustfft's, and a round trip within 4 ulp (measured 1.6–3.3)
    /// and closer than through rustfft's plan (6.4–8.2): fresh random data each length, the
    /// output poisoned first.
    #[test]
    fn direct_lengths_agree_with_rustfft_and_round_trip_closer() {
        let mut planner = FftPlanner::<f64>::new();
        for n in (1..=DIRECT_MAX).filter(|&n| direct(n)) {
            let (f, i) = (planner.plan_fft_forward(n), planner.plan_fft_inverse(n));
            let mut theirs_worst: f64 = 0.0;
            for seed in 0..200 {
                let x = signal(n, seed);
                let mut y = x.clone();
                f.process(&mut y);
                i.process(&mut y);
                for (a, b) in y.iter().zip(&x) {
                    theirs_worst = theirs_worst.max((a / n as f64 - b).norm() / f64::EPSILON);
                }
            }

            let (forward, inverse) = (
                DirectDft::new(n, FftDirection::Forward),
                DirectDft::new(n, FftDirection::Inverse),
            );
            let mut worst: f64 = 0.0;
            for seed in 0..200 {
                let x = signal(n, seed * 1000 + n as u64);
                let mut y = vec![Complex64::new(f64::NAN, f64::NAN); n];
                forward.process_immutable_with_scratch(&x, &mut y, &mut []);
                let mut theirs = x.clone();
                planner.plan_fft_forward(n).process(&mut theirs);
                for (a, b) in y.iter().zip(&theirs) {
                    assert!((a - b).norm() < 1e-13 * n as f64, "{n}: {a} vs {b}");
                }
                inverse.process(&mut y);
                for (a, b) in y.iter().zip(&x) {
                    worst = worst.max((a / n as f64 - b).norm() / f64::EPSILON);
                }
            }
            assert!(
                worst <= 4.0 && worst < theirs_worst,
                "{n} points: {worst:.2} ulp, rustfft's plan {theirs_worst:.2}"
            );
        }
    }

    /// Real transforms of such lengths as the complex ones of the widened reals, and back.
    #[test]
    fn real_transforms_are_the_complex_ones_halved() {
        for n in [13, 19, 26, 39, 46] {
            let x: Vec<f64> = signal(n, 7).iter().map(|z| z.re - 0.5).collect();
            let forward = DirectReal::new(n, FftDirection::Forward);
            let mut bins = vec![Complex64::new(f64::NAN, f64::NAN); n / 2 + 1];
            RealToComplex::process(&forward, &mut x.clone(), &mut bins).expect("forward");
            let mut full: Vec<Complex64> = x.iter().map(|&r| Complex64::new(r, 0.0)).collect();
            FftPlanner::new().plan_fft_forward(n).process(&mut full);
            for (a, b) in bins.iter().zip(&full) {
                assert!((a - b).norm() < 1e-13, "{n}: {a} vs {b}");
            }
            let inverse = DirectReal::new(n, FftDirection::Inverse);
            let mut back = vec![f64::NAN; n];
            ComplexToReal::process(&inverse, &mut bins, &mut back).expect("inverse");
            for (a, b) in back.iter().zip(&x) {
                assert!(
                    (a / n as f64 - b).abs() < 4.0 * f64::EPSILON,
                    "{n}: {a} vs {b}"
                );
            }
        }
    }
}
