//! N-D and real transforms against cuFFT on the same GPU, the same input and in the same run
//! (cuFFT's `cufftPlanMany` over the trailing axes: C2C, R2C or C2R, batched over the
//! leading ones), plus the device-to-device copy bandwidth that bounds both.

use std::sync::Arc;

use cudarc::cufft::{CudaFft as CuFftPlan, FftDirection, sys as cufft_sys};
use cudarc::driver::{CudaSlice, CudaViewMut};
use num_complex::Complex32;

use super::exec::time_events;
use super::{CudaDevice, CudaMemory, gpu_err};
use crate::backend::{Device, DeviceBuffer, median};
use crate::error::{Error, Result};
use crate::nd::{Kind, NdFft};
use crate::spec::Direction;

/// Times of both libraries and the copy bandwidth, from one run.
#[derive(Clone, Debug)]
pub struct NdComparison {
    /// tierfft's output (first run; C2R's reals as complex values with zero imaginary
    /// parts) and per-repetition times, seconds.
    pub ours: (Vec<Complex32>, Vec<f64>),
    /// cuFFT's output and times on the same input.
    pub cufft: (Vec<Complex32>, Vec<f64>),
    /// Device-to-device copy of the complex side's buffer, GB/s counting bytes read plus
    /// written (median of the repetitions).
    pub copy_gbps: f64,
}

/// The input of [`compare_nd`]: reals for R2C, complex values otherwise.
#[non_exhaustive]
pub enum NdData<'a> {
    /// R2C input.
    Real(&'a [f32]),
    /// C2C and C2R input.
    Complex(&'a [Complex32]),
}

/// `s` as `len` complex values, the type cuFFT takes (`None` from cudarc, an error here,
/// when the buffer is shorter).
fn cplx(s: &mut CudaSlice<f32>, len: usize) -> Result<CudaViewMut<'_, cufft_sys::float2>> {
    // SAFETY: interleaved f32 pairs are valid, 8-byte-aligned `float2` values (cudarc's
    // allocations are at least 256-byte aligned); cudarc checks the length.
    unsafe { s.transmute_mut::<cufft_sys::float2>(len) }.ok_or_else(|| Error::gpu("buffer view"))
}

fn slice<T: crate::backend::Element>(b: &mut DeviceBuffer<T>) -> Result<&mut CudaSlice<f32>> {
    b.held
        .get_mut::<CudaMemory>()
        .map(|m| &mut m.slice)
        .ok_or_else(|| Error::InvalidSpec("the comparison runs on CUDA buffers".into()))
}

/// Runs `fft` and cuFFT on `input` (the first, checked run of each on its own copy of it:
/// both may overwrite their input; the timed repetitions reuse the overwritten copies, whose
/// values do not change the time) `reps` times each, interleaved, timing each call with CUDA
/// events. The spec must
/// transform the trailing axes in order (what one cuFFT plan does), unnormalised.
pub fn compare_nd(
    dev: &Arc<CudaDevice>,
    fft: &NdFft,
    input: NdData,
    reps: usize,
) -> Result<NdComparison> {
    let spec = fft.spec();
    let rank = spec.shape.len();
    let k = spec.axes.len();
    if k > 3 || spec.axes != (rank - k..rank).collect::<Vec<_>>() || spec.normalize {
        return Err(Error::InvalidSpec(
            "the cuFFT comparison takes up to three trailing axes in order, unnormalised".into(),
        ));
    }
    let device = Device::from(dev.clone());
    let stream = dev.stream();
    let dims: Vec<i32> = spec.shape[rank - k..].iter().map(|&d| d as i32).collect();
    let batch: usize = spec.shape[..rank - k].iter().product();
    let ty = match spec.kind() {
        Kind::ComplexToComplex => cufft_sys::cufftType::CUFFT_C2C,
        Kind::RealToComplex => cufft_sys::cufftType::CUFFT_R2C,
        Kind::ComplexToReal => cufft_sys::cufftType::CUFFT_C2R,
    };
    let plan = CuFftPlan::plan_many(
        &dims,
        None,
        1,
        0,
        None,
        1,
        0,
        ty,
        batch as i32,
        stream.clone(),
    )
    .map_err(|e| Error::gpu(format!("cuFFT plan for {:?}: {e:?}", spec.shape)))?;
    let (in_len, out_len) = (spec.input_len(), spec.output_len());
    let given = match input {
        NdData::Real(x) => x.len(),
        NdData::Complex(x) => x.len(),
    };
    if given != in_len {
        return Err(Error::InvalidSpec(format!(
            "the comparison's input holds {given} values, the transform needs {in_len}"
        )));
    }
    let complex_len = in_len.max(out_len);
    let cufft_err = |e| Error::gpu(format!("cuFFT exec: {e:?}"));
    let direction = match spec.direction {
        Direction::Forward => FftDirection::Forward,
        Direction::Inverse => FftDirection::Inverse,
    };

    // Pristine input, a working copy for each library, an output for each.
    let (ours_out, cufft_out, ours, theirs) = match (spec.kind(), input) {
        (Kind::RealToComplex, NdData::Real(x)) => {
            let mut pristine = device.upload(x)?;
            let mut work = device.upload(x)?;
            let mut out = device.zeros(out_len)?;
            let mut cu_out = device.zeros(out_len)?;
            let ours_run = |work: &mut DeviceBuffer<f32>, out: &mut DeviceBuffer| {
                fft.process_buffer_real_to_complex(work, out)
            };
            ours_run(&mut work, &mut out)?;
            let src = &*slice(&mut pristine)?;
            let cu_run = |cu_out: &mut DeviceBuffer| -> Result<()> {
                plan.exec_r2c(src, &mut cplx(slice(cu_out)?, out_len)?)
                    .map_err(cufft_err)
            };
            cu_run(&mut cu_out)?;
            let (a, b) = (out.download()?, cu_out.download()?);
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || ours_run(&mut work, &mut out))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        (Kind::ComplexToReal, NdData::Complex(x)) => {
            let mut work = device.upload(x)?;
            let mut cu_work = device.upload(x)?;
            let mut out = device.zeros_of::<f32>(out_len)?;
            let mut cu_out = device.zeros_of::<f32>(out_len)?;
            let ours_run = |work: &mut DeviceBuffer, out: &mut DeviceBuffer<f32>| {
                fft.process_buffer_complex_to_real(work, out)
            };
            let cu_run = |w: &mut DeviceBuffer, o: &mut DeviceBuffer<f32>| -> Result<()> {
                let o = slice(o)?;
                plan.exec_c2r(&mut cplx(slice(w)?, in_len)?, o)
                    .map_err(cufft_err)
            };
            ours_run(&mut work, &mut out)?;
            cu_run(&mut cu_work, &mut cu_out)?;
            let widen = |v: Vec<f32>| v.into_iter().map(|r| Complex32::new(r, 0.0)).collect();
            let (a, b) = (widen(out.download()?), widen(cu_out.download()?));
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || ours_run(&mut work, &mut out))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut cu_work, &mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        (Kind::ComplexToComplex, NdData::Complex(x)) => {
            let mut work = device.upload(x)?;
            let mut src = device.upload(x)?;
            let mut cu_out = device.zeros(out_len)?;
            fft.process_buffer(&mut work)?;
            let cu_run = |src: &mut DeviceBuffer, o: &mut DeviceBuffer| -> Result<()> {
                let o = &mut cplx(slice(o)?, out_len)?;
                plan.exec_c2c(&mut cplx(slice(src)?, in_len)?, o, direction)
                    .map_err(cufft_err)
            };
            cu_run(&mut src, &mut cu_out)?;
            let (a, b) = (work.download()?, cu_out.download()?);
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                ours.extend(time_events(dev, 1, || fft.process_buffer(&mut work))?);
                theirs.extend(time_events(dev, 1, || cu_run(&mut src, &mut cu_out))?);
            }
            (a, b, ours, theirs)
        }
        _ => {
            return Err(Error::InvalidSpec(
                "the comparison's input does not match the transform's kind".into(),
            ));
        }
    };
    let mut a = device.zeros(complex_len)?;
    let mut b = device.zeros(complex_len)?;
    let (a, b) = (&*slice(&mut a)?, slice(&mut b)?);
    let copies = time_events(dev, reps.max(1), || {
        stream.memcpy_dtod(a, b).map_err(gpu_err("copying"))
    })?;
    let copy_gbps = 2.0 * 8.0 * complex_len as f64 / median(&copies) / 1e9;
    Ok(NdComparison {
        ours: (ours_out, ours),
        cufft: (cufft_out, theirs),
        copy_gbps,
    })
}
