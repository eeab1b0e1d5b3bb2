//! What the user asks for: length, batch, direction, normalisation.

use crate::error::{Error, Result};

/// log2 of the largest transform length tierfft plans (2^24 points, 128 MiB of complex f32).
pub const MAX_LOG2_N: u32 = 24;

/// Sign of the exponent: forward is `exp(-2πi nk/N)`, inverse `exp(+2πi nk/N)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `X[k] = Σ x[n] exp(-2πi nk/N)`.
    Forward,
    /// `x[n] = Σ X[k] exp(+2πi nk/N)`, unnormalised unless the spec asks for 1/N.
    Inverse,
}

impl Direction {
    /// The sign of the exponent: -1 forward, +1 inverse.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Forward => -1.0,
            Direction::Inverse => 1.0,
        }
    }
}

/// A batched complex-to-complex transform of complex f32 (`num_complex::Complex32`, interleaved),
/// contiguous batches: transform `b` occupies elements `b·n .. (b+1)·n`.
///
/// ```
/// use tierfft::{Direction, FftSpec};
/// let spec = FftSpec::new(4096).batch(16).inverse().normalized();
/// assert_eq!(spec.direction, Direction::Inverse);
/// assert_eq!(spec.len(), 4096 * 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FftSpec {
    /// Points per transform (a power of two).
    pub n: usize,
    /// Number of transforms.
    pub batch: usize,
    /// Forward or inverse.
    pub direction: Direction,
    /// Scale the result by 1/n (usually wanted on the inverse). Off by default, like cuFFT and FFTW.
    pub normalize: bool,
}

impl FftSpec {
    /// A forward, unnormalised transform of `n` points, batch 1.
    pub fn new(n: usize) -> Self {
        FftSpec {
            n,
            batch: 1,
            direction: Direction::Forward,
            normalize: false,
        }
    }

    /// Sets the number of transforms.
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// Sets the direction.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// Makes this an inverse transform.
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Scales the output by 1/n.
    pub fn normalized(mut self) -> Self {
        self.normalize = true;
        self
    }

    /// Elements in one buffer: `n × batch`.
    pub fn len(&self) -> usize {
        self.n * self.batch
    }

    /// True when the spec describes no data (never for a validated spec).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// log2 of n (valid after [`FftSpec::validate`]).
    pub fn log2_n(&self) -> u32 {
        self.n.trailing_zeros()
    }

    /// Checks the spec on its own, before any device is involved.
    pub fn validate(&self) -> Result<()> {
        if !self.n.is_power_of_two() || self.n > 1 << MAX_LOG2_N {
            return Err(Error::UnsupportedLength {
                n: self.n,
                max_log2: MAX_LOG2_N,
            });
        }
        if self.batch == 0 {
            return Err(Error::ZeroBatch);
        }
        if self
            .n
            .checked_mul(self.batch)
            .is_none_or(|len| len.checked_mul(8).is_none())
        {
            return Err(Error::TooLarge {
                what: format!("{} × {} elements", self.n, self.batch),
                device: "any".into(),
                detail: "the byte count overflows usize".into(),
            });
        }
        Ok(())
    }

    /// Checks that a buffer holds exactly `n × batch` elements.
    pub(crate) fn check_len(&self, got: usize) -> Result<()> {
        if got == self.len() {
            Ok(())
        } else {
            Err(self.length_error(got))
        }
    }

    #[cold]
    fn length_error(&self, got: usize) -> Error {
        Error::BufferLength {
            got,
            expected: self.len(),
            n: self.n,
            batch: self.batch,
        }
    }
}
