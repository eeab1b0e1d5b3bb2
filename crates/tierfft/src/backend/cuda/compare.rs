//! tierfft against cuFFT on the same GPU, the same buffers and in the same run, plus the
//! device-to-device copy bandwidth that bounds both.

use std::sync::Arc;

use cudarc::cufft::{CudaFft as CuFftPlan, FftDirection, sys as cufft_sys};
use cudarc::driver::CudaSlice;
use num_complex::Complex32;

use super::exec::{CudaFft, KernelReport, time_events};
use super::{CudaDevice, gpu_err};
use crate::error::{Error, Result};
use crate::spec::Direction;

/// Times of both libraries and the copy bandwidth, from one run.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// tierfft's output (first run) and per-repetition times, seconds.
    pub ours: (Vec<Complex32>, Vec<f64>),
    /// cuFFT's output and times on the same input buffer.
    pub cufft: (Vec<Complex32>, Vec<f64>),
    /// Device-to-device copy of the same buffer, GB/s counting bytes read plus written
    /// (median of the repetitions).
    pub copy_gbps: f64,
    /// Registers and spills of tierfft's kernels.
    pub kernels: Vec<KernelReport>,
}

/// True when libcufft can be loaded.
pub fn cufft_available() -> bool {
    // SAFETY: only tries to dlopen the library under cudarc's candidate names.
    unsafe { cufft_sys::is_culib_present() }
}

/// Runs `fft` and cuFFT (out of place, same input buffer) `reps` times each, interleaved,
/// timing each call with CUDA events; then times a copy of the buffer.
pub fn compare(
    dev: &Arc<CudaDevice>,
    fft: &CudaFft,
    input: &[Complex32],
    reps: usize,
) -> Result<Comparison> {
    if !cufft_available() {
        return Err(Error::NoDevice(
            "libcufft was not found; cuFFT comparison needs the CUDA toolkit's cuFFT".into(),
        ));
    }
    let spec = &fft.plan().spec;
    if spec.normalize {
        return Err(Error::Gpu(
            "cuFFT does not normalise: compare unnormalised transforms".into(),
        ));
    }
    let n = spec.n;
    let batch = input.len() / n;
    let len = input.len();
    let stream = dev.stream();
    let (mut slots, routing) = fft.prepare(input)?;
    // cuFFT writes to a buffer of its own so both outputs can be checked.
    // SAFETY: written by cuFFT before it is read.
    let mut cu_out: CudaSlice<f32> =
        unsafe { stream.alloc::<f32>(2 * len) }.map_err(gpu_err("allocating"))?;
    let plan = CuFftPlan::plan_1d(
        n as i32,
        cufft_sys::cufftType::CUFFT_C2C,
        batch as i32,
        stream.clone(),
    )
    .map_err(|e| Error::Gpu(format!("cuFFT plan for n = {n}, batch {batch}: {e:?}")))?;
    let direction = match spec.direction {
        Direction::Forward => FftDirection::Forward,
        Direction::Inverse => FftDirection::Inverse,
    };
    let run_cufft = |slots: &mut [CudaSlice<f32>], out: &mut CudaSlice<f32>| -> Result<()> {
        // SAFETY: both buffers hold `len` complex values as interleaved f32 pairs.
        let mut src = unsafe { slots[0].transmute_mut::<cufft_sys::float2>(len) }
            .ok_or_else(|| Error::Gpu("input view".into()))?;
        let mut dst = unsafe { out.transmute_mut::<cufft_sys::float2>(len) }
            .ok_or_else(|| Error::Gpu("output view".into()))?;
        plan.exec_c2c(&mut src, &mut dst, direction)
            .map_err(|e| Error::Gpu(format!("cuFFT exec: {e:?}")))
    };

    // Warm-up runs whose outputs are checked by the caller.
    let result = fft.enqueue(&mut slots, batch, &routing)?;
    run_cufft(&mut slots, &mut cu_out)?;
    let download = |s: &CudaSlice<f32>| -> Result<Vec<Complex32>> {
        let mut out = vec![Complex32::new(f32::NAN, f32::NAN); len];
        stream
            .memcpy_dtoh(s, bytemuck::cast_slice_mut::<Complex32, f32>(&mut out))
            .map_err(gpu_err("downloading"))?;
        Ok(out)
    };
    let (ours_out, cufft_out) = (download(&slots[result])?, download(&cu_out)?);

    let (mut ours, mut theirs) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        ours.extend(time_events(dev, 1, || {
            fft.enqueue(&mut slots, batch, &routing).map(|_| ())
        })?);
        theirs.extend(time_events(dev, 1, || run_cufft(&mut slots, &mut cu_out))?);
    }
    let copies = time_events(dev, reps, || {
        stream
            .memcpy_dtod(&slots[0], &mut cu_out)
            .map_err(gpu_err("copying"))
    })?;
    let copy_gbps = 2.0 * 8.0 * len as f64 / median(&copies) / 1e9;
    Ok(Comparison {
        ours: (ours_out, ours),
        cufft: (cufft_out, theirs),
        copy_gbps,
        kernels: fft.report()?,
    })
}

/// Median of a non-empty list.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
