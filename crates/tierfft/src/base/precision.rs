//! The precision a transform's data are stored and computed in.
//!
//! Part of the spec ([`crate::FftSpec::precision`]), it flows into the plan: device memory
//! per element ([`Precision::storage_bytes`]) and on-chip capacity (workgroup memory per
//! point, [`Precision::compute_bytes`]), then into the kernels (types and literals printed
//! in it) and the backends (tables and data in its words). f32 runs everywhere; f64 on the
//! CPU and on GPUs with f64 arithmetic (`plan::DeviceLimits::shader_f64`): complex, real and N-D
//! transforms of any length. f16 and bf16 store complex values in 16 bits a part and compute
//! in f32, on every device, for 1-D complex transforms of smooth lengths (prime factors up to
//! 13). Other cases are refused at plan time naming the device and what it lacks.

use std::fmt;

use num_complex::Complex64;

/// How a transform's values are stored in device memory and computed with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Precision {
    /// f32 storage and arithmetic (complex64).
    #[default]
    F32,
    /// f64 storage and arithmetic (complex128).
    F64,
    /// IEEE half storage, f32 arithmetic: half the bytes in device memory.
    F16,
    /// bfloat16 storage, f32 arithmetic.
    Bf16,
}

impl Precision {
    /// Bytes of one real value in device memory.
    pub fn storage_bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
            Precision::F16 | Precision::Bf16 => 2,
        }
    }

    /// Bytes of one complex value in device memory.
    pub fn complex_bytes(self) -> usize {
        2 * self.storage_bytes()
    }

    /// Bytes of one real value as the kernels compute with it (registers, workgroup memory):
    /// f64 for f64, f32 for the others.
    pub fn compute_bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            _ => 4,
        }
    }

    /// Whether values are stored in 16 bits (f16, bf16) and computed in f32.
    pub fn is_half(self) -> bool {
        matches!(self, Precision::F16 | Precision::Bf16)
    }

    /// Its name: `f32`, `f64`, `f16` or `bf16`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Precision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f32" => Ok(Precision::F32),
            "f64" => Ok(Precision::F64),
            "f16" => Ok(Precision::F16),
            "bf16" => Ok(Precision::Bf16),
            _ => Err(format!(
                "precision must be f32, f64, f16 or bf16 (got {s:?})"
            )),
        }
    }
}

/// Complex `values` as the kernels of a transform in `precision` read them (in its
/// arithmetic precision: tables and vectors), as the 4-byte words device memory holds.
pub(crate) fn device_words(
    values: impl IntoIterator<Item = Complex64>,
    precision: Precision,
) -> Vec<f32> {
    match precision {
        Precision::F64 => values
            .into_iter()
            .flat_map(|z| {
                let words: [f32; 4] = bytemuck::cast([z.re, z.im]);
                words
            })
            .collect(),
        _ => values
            .into_iter()
            .flat_map(|z| [z.re as f32, z.im as f32])
            .collect(),
    }
}

/// `points` pseudo-random complex values in [-1, 1) as the device words of `precision`
/// (the same on every call): input for timing plans.
pub(crate) fn random_words(points: usize, precision: Precision) -> Vec<f32> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        // xorshift64*: plenty for input data, and the same on every run.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let parts: Vec<f64> = (0..2 * points).map(|_| next()).collect();
    match precision {
        Precision::F64 => bytemuck::cast_slice(&parts).to_vec(),
        Precision::F32 => parts.iter().map(|&x| x as f32).collect(),
        Precision::F16 | Precision::Bf16 => {
            let values: Vec<f32> = parts.iter().map(|&x| x as f32).collect();
            let mut words = vec![0.0; points];
            pack_half(&values, precision, &mut words);
            words
        }
    }
}

/// `x` as the 16 bits `precision` (f16 or bf16) stores it, rounded to nearest even.
fn half_bits(x: f32, precision: Precision) -> u16 {
    match precision {
        Precision::Bf16 => half::bf16::from_f32(x).to_bits(),
        _ => half::f16::from_f32(x).to_bits(),
    }
}

/// The value of 16 `bits` stored in `precision` (f16 or bf16).
fn half_value(bits: u16, precision: Precision) -> f32 {
    match precision {
        Precision::Bf16 => half::bf16::from_bits(bits).to_f32(),
        _ => half::f16::from_bits(bits).to_f32(),
    }
}

/// `x` as a store in `precision` (f16 or bf16) leaves it: rounded to nearest even (the IR
/// interpreter's packed stores).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn round_half(x: f32, precision: Precision) -> f32 {
    half_value(half_bits(x, precision), precision)
}

/// The parts of complex values stored in 16 bits (`words`: one 4-byte word per value, the
/// real part in the low half) as f32, two per value.
pub(crate) fn unpack_half(words: &[f32], precision: Precision) -> Vec<f32> {
    let part = |bits: u32| half_value(bits as u16, precision);
    words
        .iter()
        .flat_map(|w| [part(w.to_bits()), part(w.to_bits() >> 16)])
        .collect()
}

/// Complex `values` (f32 pairs) stored in 16 bits into `words` (one 4-byte word per value),
/// each part rounded to nearest even: the inverse of [`unpack_half`].
pub(crate) fn pack_half(values: &[f32], precision: Precision, words: &mut [f32]) {
    let part = |x: f32| u32::from(half_bits(x, precision));
    for (w, z) in words.iter_mut().zip(values.chunks_exact(2)) {
        *w = f32::from_bits(part(z[0]) | part(z[1]) << 16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names() {
        for (p, storage, compute) in [
            (Precision::F32, 4, 4),
            (Precision::F64, 8, 8),
            (Precision::F16, 2, 4),
            (Precision::Bf16, 2, 4),
        ] {
            assert_eq!((p.storage_bytes(), p.compute_bytes()), (storage, compute));
            assert_eq!(p.complex_bytes(), 2 * storage);
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
        }
        assert!("f8".parse::<Precision>().is_err());
    }

    #[test]
    fn half_words_round_trip_and_round_to_nearest_even() {
        for p in [Precision::F16, Precision::Bf16] {
            let values = [1.0f32, -2.5, 0.0, 65504.0, 1.0e-3, f32::INFINITY];
            let mut words = vec![f32::NAN; 3];
            pack_half(&values, p, &mut words);
            let back = unpack_half(&words, p);
            for (x, y) in values.iter().zip(&back) {
                let ulp = match p {
                    Precision::F16 => 2f32.powi(-11),
                    _ => 2f32.powi(-8),
                };
                assert!(x == y || (x - y).abs() <= ulp * x.abs(), "{p}: {x} -> {y}");
            }
        }
        // 1 + 2^-11 lies halfway between f16's 1 and 1 + 2^-10: to the even one, 1.
        let mut w = [0f32];
        pack_half(
            &[1.0 + 2f32.powi(-11), 1.0 + 3.0 * 2f32.powi(-11)],
            Precision::F16,
            &mut w,
        );
        assert_eq!(
            unpack_half(&w, Precision::F16),
            [1.0, 1.0 + 2.0 * 2f32.powi(-10)]
        );
    }
}
