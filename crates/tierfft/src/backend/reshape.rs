//! [`Reshape`] steps compiled for a device: the moves between real and complex data of
//! N-D and real plans ([`crate::nd`]).

use super::Device;
use super::api::CPU_NAME;
use super::buffer::Held;
use super::cpu::HostMemory;
use crate::base::precision::{Precision, device_words};
use crate::error::{Error, Result};
use crate::kernel::{reshape_grid, reshape_kernel};
use crate::plan::{DeviceLimits, Reshape, reshape_on_host, rounded_twiddles};
use num_complex::Complex;

/// What each backend's compiled reshape does: `src` → `dst`, both on its device (queued,
/// not waited for).
pub(crate) trait ReshapeExec: Send + Sync {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()>;
}

/// Compiles `step` in `precision` for `device`, with what its kernel reads besides its
/// arrays (split and merge twiddles) uploaded.
pub(crate) fn compile(
    device: &Device,
    step: &Reshape,
    precision: Precision,
) -> Result<Box<dyn ReshapeExec>> {
    let Some(limits) = device.limits() else {
        let twiddles = match precision {
            Precision::F64 => HostTwiddles::F64(rounded_twiddles(step)),
            _ => HostTwiddles::F32(rounded_twiddles(step)),
        };
        return Ok(Box::new(CpuReshape(step.clone(), precision, twiddles)));
    };
    let words = step.words(precision);
    check_binding(step, words, limits)?;
    let kernel = reshape_kernel(step, precision);
    let table = step.twiddles().map(|w| device_words(w, precision));
    let lines = outputs(step, &device.name())?;
    let grid = reshape_grid(step.outputs(), limits.max_groups_per_dim);
    let table = table.as_deref().map(bytemuck::cast_slice);
    device.one_kernel(&kernel, table, lines, grid, words)
}

/// The step's output count as the kernels' `lines` parameter.
fn outputs(step: &Reshape, device: &str) -> Result<u32> {
    u32::try_from(step.outputs()).map_err(|_| Error::TooLarge {
        what: format!("{} outputs", step.outputs()),
        device: device.into(),
        detail: "kernels index fewer than 2^32 elements".into(),
    })
}

/// `Ok` when `src` and `dst` hold at least `floats` 4-byte words (read, written).
pub(crate) fn check_floats(src: &Held, dst: &Held, floats: (usize, usize)) -> Result<()> {
    if src.floats() >= floats.0 && dst.floats() >= floats.1 {
        return Ok(());
    }
    Err(Error::InvalidSpec(format!(
        "the kernel reads {} and writes {} 4-byte words; the buffers hold {} and {}",
        floats.0,
        floats.1,
        src.floats(),
        dst.floats()
    )))
}

/// Refuses a step whose arrays exceed what one binding of the device may hold (the
/// reshape kernels bind whole arrays).
fn check_binding(step: &Reshape, words: (usize, usize), limits: &DeviceLimits) -> Result<()> {
    let (src, dst) = words;
    let bytes = 4 * src.max(dst) as u64;
    if bytes <= limits.max_binding {
        return Ok(());
    }
    Err(Error::TooLarge {
        what: format!("{} ({} MiB bound at once)", step.name(), bytes >> 20),
        device: limits.name.clone(),
        detail: format!("the device binds at most {} MiB", limits.max_binding >> 20),
    })
}

/// The error for a buffer on another device than the step's.
pub(crate) fn elsewhere(device: &str) -> Error {
    Error::InvalidSpec(format!(
        "a buffer of this transform does not live on '{device}': upload it with the same Device"
    ))
}

/// A step on the CPU, in its precision, with its twiddles made once.
struct CpuReshape(Reshape, Precision, HostTwiddles);

/// A CPU step's twiddles, rounded to the precision it runs in.
enum HostTwiddles {
    F32(Vec<Complex<f32>>),
    F64(Vec<Complex<f64>>),
}

impl ReshapeExec for CpuReshape {
    fn run(&self, src: &Held, dst: &mut Held) -> Result<()> {
        check_floats(src, dst, self.0.words(self.1))?;
        let (Some(src), Some(dst)) = (HostMemory::of(src), HostMemory::of_mut(dst)) else {
            return Err(elsewhere(CPU_NAME));
        };
        match &self.2 {
            HostTwiddles::F64(w) => reshape_on_host::<f64>(&self.0, w, src, dst),
            HostTwiddles::F32(w) => reshape_on_host::<f32>(&self.0, w, src, dst),
        }
        Ok(())
    }
}
