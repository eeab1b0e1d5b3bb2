//! The precision a transform's data are stored and computed in.
//!
//! Part of the spec ([`crate::FftSpec::precision`]), it flows into the plan: device memory
//! per element ([`Precision::storage_bytes`]) and on-chip capacity (workgroup memory per
//! point, [`Precision::compute_bytes`]), then into the kernels (types and literals printed
//! in it) and the backends (tables and data in its words). f32 runs everywhere; f64 on the
//! CPU and on GPUs with f64 arithmetic (`DeviceLimits::shader_f64`): complex, real and N-D
//! transforms of any length. Other cases are refused at plan time naming the device and
//! what it lacks.

use std::fmt;

use num_complex::Complex64;

use crate::error::Error;
use crate::plan::DeviceLimits;

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

/// Why `device` (with `limits`, `None` for the CPU) cannot run transforms in `precision`,
/// or `None` when it can: f32 everywhere; f64 on the CPU and on GPUs with f64 arithmetic;
/// f16 and bf16 nowhere yet.
pub(crate) fn refusal(
    precision: Precision,
    device: String,
    limits: Option<&DeviceLimits>,
) -> Option<Error> {
    let unsupported = |detail: String| {
        Some(Error::Unsupported {
            what: format!("an FFT in {precision}"),
            device: device.clone(),
            detail,
        })
    };
    match (precision, limits) {
        (Precision::F32, _) | (Precision::F64, None) => None,
        (Precision::F64, Some(l)) if !l.shader_f64 => unsupported(
            "the device has no f64 arithmetic (no SHADER_F64); Device::cpu() transforms in f64"
                .into(),
        ),
        (Precision::F64, Some(_)) => None,
        (_, None) => unsupported("the CPU backend computes in f32 or f64".into()),
        (_, Some(l)) => unsupported(format!(
            "{}, and tierfft's kernels store f32 or f64 only so far",
            match l.shader_f16 {
                true => "the device has f16 arithmetic (SHADER_F16)",
                false => "the device has no f16 arithmetic (no SHADER_F16)",
            }
        )),
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
}
