//! tierfft against cuFFT on the same GPU, the same buffers and in the same run, plus the
//! device-to-device copy bandwidth that bounds both. A chained spec (FFT → multiply →
//! inverse FFT, fused into one kernel) is compared with the cuFFT pipeline of the same step:
//! cuFFT forward, a multiply kernel, cuFFT inverse.

use std::sync::Arc;

use cudarc::cufft::{CudaFft as CuFftPlan, FftDirection, sys as cufft_sys};
use cudarc::driver::{CudaSlice, CudaViewMut, LaunchConfig, PushKernelArg};
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

/// The multiply step of the unfused cuFFT pipeline: `data[i] *= h[i mod n] · scale`.
const MULTIPLY: &str = r#"// tierfft: the multiply step of the cuFFT pipeline tierfft's fused kernels are compared with.
extern "C" __global__ void multiply_rows(float2* data, const float2* __restrict__ h, unsigned n, unsigned total, float scale) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const float2 a = data[i];
        const float2 b = __ldg(&h[i & (n - 1u)]);
        data[i] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
    }
}
"#;

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
    if !spec.load.is_empty() || !spec.store.is_empty() || (spec.normalize && spec.chain.is_none()) {
        return Err(Error::Gpu(
            "the cuFFT comparison takes plain transforms (unnormalised) or chained ones".into(),
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
    let (direction, back) = match spec.direction {
        Direction::Forward => (FftDirection::Forward, FftDirection::Inverse),
        Direction::Inverse => (FftDirection::Inverse, FftDirection::Forward),
    };
    // For chains: the filter on the device and the multiply kernel between the two cuFFTs.
    let chain = match &spec.chain {
        Some(h) => {
            let h = stream
                .clone_htod(bytemuck::cast_slice::<Complex32, f32>(h))
                .map_err(gpu_err("uploading the filter"))?;
            let cubin = super::nvrtc::compile(MULTIPLY, dev.arch())?;
            let module = dev
                .ctx
                .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()))
                .map_err(gpu_err("loading a module"))?;
            let func = module
                .load_function("multiply_rows")
                .map_err(gpu_err("finding a kernel"))?;
            Some((h, func))
        }
        None => None,
    };
    let scale: f32 = if spec.normalize { 1.0 / n as f32 } else { 1.0 };
    // Chains run cuFFT forward into a scratch buffer, multiply there, and go back into the
    // output: every step out of place, as a user would write the pipeline.
    let mut scratch: Option<CudaSlice<f32>> = match chain {
        // SAFETY: written by cuFFT before it is read.
        Some(_) => Some(unsafe { stream.alloc::<f32>(2 * len) }.map_err(gpu_err("allocating"))?),
        None => None,
    };
    let exec = |src: &mut CudaSlice<f32>, dst: &mut CudaSlice<f32>, dir| {
        plan.exec_c2c(
            &mut complex_view(src, len)?,
            &mut complex_view(dst, len)?,
            dir,
        )
        .map_err(|e| Error::Gpu(format!("cuFFT exec: {e:?}")))
    };
    let mut run_cufft = |slots: &mut [CudaSlice<f32>], out: &mut CudaSlice<f32>| -> Result<()> {
        let (Some((h, func)), Some(tmp)) = (&chain, scratch.as_mut()) else {
            return exec(&mut slots[0], out, direction);
        };
        exec(&mut slots[0], tmp, direction)?;
        let (n32, total) = (n as u32, len as u32);
        let cfg = LaunchConfig {
            grid_dim: (dev.sm_count as u32 * 8, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(func);
        b.arg(&mut *tmp).arg(h).arg(&n32).arg(&total).arg(&scale);
        // SAFETY: (float2*, const float2*, unsigned, unsigned, float); indices < total.
        unsafe { b.launch(cfg) }.map_err(gpu_err("launching the multiply"))?;
        exec(tmp, out, back)
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

/// `s` as `len` complex values, the type cuFFT takes.
fn complex_view(s: &mut CudaSlice<f32>, len: usize) -> Result<CudaViewMut<'_, cufft_sys::float2>> {
    // SAFETY: every buffer here holds `len` complex values as interleaved f32 pairs.
    unsafe { s.transmute_mut::<cufft_sys::float2>(len) }
        .ok_or_else(|| Error::Gpu("buffer view".into()))
}

/// Median of a non-empty list.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
