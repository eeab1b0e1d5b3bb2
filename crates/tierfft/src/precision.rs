//! The precision a transform's data are stored and computed in.
//!
//! Part of the spec ([`crate::FftSpec::precision`]), it flows into the plan: device memory
//! per element ([`Precision::storage_bytes`]) and on-chip capacity (workgroup memory per
//! point, [`Precision::compute_bytes`]). The kernel generator and the GPU backends are f32
//! only so far: they refuse other precisions at plan time, naming the device and whether it
//! has the capability (`DeviceLimits::shader_f64`, `shader_f16`). In f64, the CPU backend
//! transforms N-D and real data ([`crate::NdFft64`]).

use std::fmt;

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

/// Why `device` (with `limits`, `None` for the CPU) cannot run an [`crate::Fft`] in
/// `precision` (anything but f32, so far): whether the device itself has the arithmetic,
/// and what runs instead.
pub(crate) fn refused(
    precision: Precision,
    device: String,
    limits: Option<&DeviceLimits>,
) -> Error {
    let has = |yes: bool, feature: &str| match yes {
        true => format!("the device computes in {precision} ({feature})"),
        false => format!("the device has no {precision} arithmetic (no {feature})"),
    };
    let device_side = match (precision, limits) {
        (_, None) => "the CPU backend's `Fft` runs rustfft in f32".to_string(),
        (Precision::F64, Some(l)) => has(l.shader_f64, "SHADER_F64"),
        (_, Some(l)) => has(l.shader_f16, "SHADER_F16"),
    };
    let instead = match precision {
        Precision::F64 => {
            "; in f64, Device::cpu().plan_nd_f64 transforms (N-D and real too, 1-D as a \
             one-axis NdSpec)"
        }
        _ => "",
    };
    Error::Unsupported {
        what: format!("an FFT in {precision}"),
        device,
        detail: format!(
            "{device_side}, and tierfft's kernels and `Fft` are f32 only so far{instead}"
        ),
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
