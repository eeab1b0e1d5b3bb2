//! tierfft against cuFFT on the same GPU, the same buffers and in the same run, plus the
//! device-to-device copy bandwidth that bounds both. Fused specs are compared with the cuFFT
//! pipeline of the same step: a chain (FFT → multiply → inverse FFT in one kernel) with cuFFT
//! forward, a multiply kernel, cuFFT inverse; a multiply fused into the load with a multiply
//! kernel, then cuFFT (a chain with a multiply on load: both). Column layouts use cuFFT's
//! strided plans (stride = batch, distance 1).

use cudarc::cufft::{CudaFft as CuFftPlan, FftDirection, sys as cufft_sys};
use cudarc::driver::{
    CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use num_complex::{Complex32, Complex64};
use tierfft::backend::median;
use tierfft::debug::{KernelReport, kernel_reports};
use tierfft::{
    Checksum, Device, DeviceBuffer, Direction, Element, Error, Fft, Layout, PointOp, Result, Values,
};

use crate::cuda::{cuda_of, gpu, gpu_err, time_events};
use crate::cufft_xt::XtPlan;
use crate::energy::{EnergyMeter, EnergyReading};
use crate::peer::CallbackPeer;

/// Times of both libraries and the copy bandwidth, from one run; `T` the values' type.
#[derive(Clone, Debug)]
pub struct Comparison<T = Complex32> {
    /// tierfft's output (first run) and per-repetition times, seconds.
    pub ours: (Vec<T>, Vec<f64>),
    /// cuFFT's output and times on the same input buffer.
    pub cufft: (Vec<T>, Vec<f64>),
    /// Device-to-device copy of the same buffer, GB/s counting bytes read plus written
    /// (median of the repetitions).
    pub copy_gbps: f64,
    /// Registers and spills of tierfft's kernels.
    pub kernels: Vec<KernelReport>,
    /// cuFFT with the multiply in an LTO store callback (chains, when asked): output and
    /// times on the same input buffer.
    pub callback: Option<(Vec<T>, Vec<f64>)>,
    /// Energy per call of each pipeline, when asked.
    pub energy: Option<Energies>,
}

/// Energy per call of each pipeline of one comparison.
#[derive(Clone, Debug)]
pub struct Energies {
    /// tierfft.
    pub ours: EnergyReading,
    /// cuFFT (with its multiply kernel for fused specs).
    pub cufft: EnergyReading,
    /// cuFFT with the callback, when it ran.
    pub callback: Option<EnergyReading>,
}

/// What a comparison measures besides tierfft's and cuFFT's times.
#[derive(Clone, Copy, Default)]
pub struct Extras<'a> {
    /// Energy per call of each pipeline over loops of at least this many seconds.
    pub energy: Option<(&'a EnergyMeter, f64)>,
    /// cuFFT with the chain's multiply in a store callback (chained specs only).
    pub callback: Option<&'a CallbackPeer>,
}

/// The multiply step of the unfused cuFFT pipeline: `dst[i] = src[i] · h[i mod period] · scale`
/// (`period` = n for one vector per row, the buffer's length for a per-element array; a mask
/// where it is a power of two).
const MULTIPLY: &str = r#"// tierfft: the multiply step of the cuFFT pipeline tierfft's fused kernels are compared with.
extern "C" __global__ void multiply(const float2* __restrict__ src, float2* __restrict__ dst, const float2* __restrict__ h, unsigned period, unsigned total, float scale) {
    const bool pow2 = (period & (period - 1)) == 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const float2 a = src[i];
        const float2 b = __ldg(&h[pow2 ? (i & (period - 1)) : (i % period)]);
        dst[i] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
    }
}
"#;

/// True when libcufft can be loaded.
pub fn cufft_available() -> bool {
    // SAFETY: only tries to dlopen the library under cudarc's candidate names.
    unsafe { cufft_sys::is_culib_present() }
}

/// Runs `fft` (planned on `device`, a CUDA device) and cuFFT out of place from the same
/// input buffer, `reps` times each, interleaved, timing each call with CUDA events (and the
/// callback peer beside them, if given); then times a copy of the buffer, and measures
/// energy if asked.
pub fn compare(
    device: &Device,
    fft: &Fft,
    input: &[Complex32],
    reps: usize,
    extras: Extras<'_>,
) -> Result<Comparison> {
    if !cufft_available() {
        return Err(Error::NoDevice(
            "libcufft was not found; cuFFT comparison needs the CUDA toolkit's cuFFT".into(),
        ));
    }
    let dev = cuda_of(device, "the cuFFT comparison")?;
    let spec = fft.spec();
    // What the multiply kernels do: before cuFFT (a load multiply) and between the two (a
    // chain), each with its vector and index period (a vector per point or per element).
    let n = spec.n as u32;
    let whole = spec.len() as u32;
    let rows = spec.layout == Layout::Rows;
    let chain = match &spec.chain {
        Some(Values::F32(h)) if rows => Some((h, if h.len() == spec.n { n } else { whole })),
        None => None,
        Some(_) => {
            return Err(gpu("the cuFFT comparison chains rows with f32 filters"));
        }
    };
    let on_load = match spec.load.as_slice() {
        [] if chain.is_none() && spec.normalize => {
            return Err(gpu(
                "the cuFFT comparison takes plain transforms unnormalised (no multiply to carry \
                 the scale)",
            ));
        }
        [] => None,
        [PointOp::MultiplyEach(v)] => Some((v, whole)),
        [PointOp::Multiply(v)] if rows => Some((v, n)),
        _ => {
            return Err(gpu(
                "the cuFFT comparison takes at most one multiply on load (and a chain)",
            ));
        }
    };
    if !spec.store.is_empty() || u32::try_from(input.len()).is_err() {
        return Err(gpu(
            "the cuFFT comparison takes no store operations and at most 2^32 elements",
        ));
    }
    let batch = input.len() / spec.n;
    let len = input.len();
    let stream = dev.stream();
    // The input, which every pipeline keeps; each library writes a buffer of its own so
    // that both outputs can be checked.
    let mut src = device.upload(input)?;
    let mut ours_out = device.zeros_of::<Complex32>(len)?;
    let mut cu_out = device.zeros_of::<Complex32>(len)?;
    let c2c = cufft_sys::cufftType::CUFFT_C2C;
    let plan = match spec.layout {
        Layout::Rows => CuFftPlan::plan_1d(n as i32, c2c, batch as i32, stream.clone()),
        Layout::Columns { matrices } if matrices > 1 => {
            return Err(Error::InvalidSpec(
                "the cuFFT comparison takes one matrix of columns".into(),
            ));
        }
        Layout::Columns { .. } => {
            let (dims, b) = ([n as i32], batch as i32);
            CuFftPlan::plan_many(
                &dims,
                Some(&dims),
                b,
                1,
                Some(&dims),
                b,
                1,
                c2c,
                b,
                stream.clone(),
            )
        }
        _ => {
            return Err(Error::InvalidSpec(
                "the cuFFT comparison takes rows or one matrix of columns".into(),
            ));
        }
    }
    .map_err(|e| gpu(format!("cuFFT plan for n = {n}, batch {batch}: {e:?}")))?;
    let (direction, back) = cufft_directions(spec.direction)?;
    // The filters on the device and the multiply kernel.
    let func = match (on_load, chain) {
        (None, None) => None,
        _ => {
            let cubin = tierfft::debug::nvrtc::compile(MULTIPLY, dev.arch())?;
            let module = stream
                .context()
                .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()))
                .map_err(gpu_err("loading a module"))?;
            Some(
                module
                    .load_function("multiply")
                    .map_err(gpu_err("finding a kernel"))?,
            )
        }
    };
    let upload = |v: Option<(&std::sync::Arc<[Complex32]>, u32)>| -> Result<_> {
        v.map(|(h, period)| {
            stream
                .clone_htod(&complex_words(h))
                .map(|h| (h, period))
                .map_err(gpu_err("uploading a filter"))
        })
        .transpose()
    };
    let (load_filter, chain_filter) = (upload(on_load)?, upload(chain)?);
    // The scale rides on the last multiply.
    let scale: f32 = if spec.normalize { 1.0 / n as f32 } else { 1.0 };
    // The callback peer runs the chain on the same input and filter into its own output.
    let mut peer = match (extras.callback, &chain_filter) {
        (None, _) => None,
        (Some(peer), Some((h, period))) if load_filter.is_none() && *period == n => {
            let chain = peer.chain(
                &dev,
                spec.n,
                batch,
                h,
                scale,
                spec.direction == Direction::Inverse,
            )?;
            let out: CudaSlice<f32> = stream
                .alloc_zeros::<f32>(2 * len)
                .map_err(gpu_err("allocating"))?;
            Some((chain, out))
        }
        (Some(_), _) => {
            return Err(Error::InvalidSpec(
                "the cuFFT callback peer runs chains (FFT → multiply → inverse FFT) with one filter \
                 for every transform, and nothing on load"
                    .into(),
            ));
        }
    };
    // Every step out of place, as a user would write the pipeline: a chain runs cuFFT into the
    // output, multiplies into a scratch buffer and goes back into the output; a load multiply
    // writes the scratch buffer, which cuFFT transforms into the output.
    let mut scratch: Option<CudaSlice<f32>> = match func {
        Some(_) => Some(
            stream
                .alloc_zeros::<f32>(2 * len)
                .map_err(gpu_err("allocating"))?,
        ),
        None => None,
    };
    let exec = |src: &mut CudaViewMut<'_, f32>, dst: &mut CudaViewMut<'_, f32>, dir| {
        plan.exec_c2c(
            &mut complex_view(src, len)?,
            &mut complex_view(dst, len)?,
            dir,
        )
        .map_err(|e| gpu(format!("cuFFT exec: {e:?}")))
    };
    let mut run_cufft =
        |src: &mut DeviceBuffer<Complex32>, out: &mut DeviceBuffer<Complex32>| -> Result<()> {
            let (mut src, mut out) = (cuda_view_mut(src)?, cuda_view_mut(out)?);
            let (Some(func), Some(tmp)) = (&func, scratch.as_mut()) else {
                return exec(&mut src, &mut out, direction);
            };
            let mut tmp = tmp.as_view_mut();
            let total = len as u32;
            let cfg = LaunchConfig {
                grid_dim: (dev.limits().compute_units as u32 * 8, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let launch = |src: &CudaView<'_, f32>,
                          dst: &mut CudaViewMut<'_, f32>,
                          (h, period): &(CudaSlice<f32>, u32),
                          scale: f32| {
                let mut b = stream.launch_builder(func);
                b.arg(src)
                    .arg(dst)
                    .arg(h)
                    .arg(period)
                    .arg(&total)
                    .arg(&scale);
                // SAFETY: (const float2*, float2*, const float2*, unsigned, unsigned, float); every
                // buffer holds `total` values and `h` every index `i mod period` reaches.
                unsafe { b.launch(cfg) }.map_err(gpu_err("launching the multiply"))
            };
            match (&load_filter, &chain_filter) {
                (Some(load), None) => {
                    launch(&src.as_view(), &mut tmp, load, scale)?;
                    exec(&mut tmp, &mut out, direction)
                }
                (load, Some(chain)) => {
                    match load {
                        Some(load) => {
                            launch(&src.as_view(), &mut tmp, load, 1.0)?;
                            exec(&mut tmp, &mut out, direction)?;
                        }
                        None => exec(&mut src, &mut out, direction)?,
                    }
                    launch(&out.as_view(), &mut tmp, chain, scale)?;
                    exec(&mut tmp, &mut out, back)
                }
                (None, None) => exec(&mut src, &mut out, direction),
            }
        };
    let checksummed = spec.checksum != Checksum::Off;
    // Warm-up runs whose outputs are checked by the caller.
    run_ours(fft, checksummed, &mut src, &mut ours_out)?;
    run_cufft(&mut src, &mut cu_out)?;
    if let Some((chain, out)) = peer.as_mut() {
        chain.run(&cuda_view(&src)?, &mut out.as_view_mut())?;
    }
    let ours_first = ours_out.download()?;
    let cufft_first = cu_out.download()?;
    let peer_out = peer
        .as_ref()
        .map(|(_, out)| download(&dev, out, len))
        .transpose()?;

    let (mut ours, mut theirs, mut called) = (
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
    );
    for _ in 0..reps {
        ours.extend(time_events(&dev, 1, || {
            run_ours(fft, checksummed, &mut src, &mut ours_out)
        })?);
        theirs.extend(time_events(&dev, 1, || run_cufft(&mut src, &mut cu_out))?);
        if let Some((chain, out)) = peer.as_mut() {
            called.extend(time_events(&dev, 1, || {
                chain.run(&cuda_view(&src)?, &mut out.as_view_mut())
            })?);
        }
    }
    let copies = time_events(&dev, reps, || {
        stream
            .memcpy_dtod(&cuda_view(&src)?, &mut cuda_view_mut(&mut cu_out)?)
            .map_err(gpu_err("copying"))
    })?;
    let copy_gbps = 2.0 * 8.0 * len as f64 / median(&copies) / 1e9;
    // Energy in the order ours, cuFFT, callback and back again, each pipeline's two
    // readings averaged, so that warming of the board does not favour whichever runs first.
    let energy = match extras.energy {
        Some((meter, seconds)) => {
            let mut ours_e = Vec::new();
            let mut cufft_e = Vec::new();
            let mut callback_e = Vec::new();
            for pipeline in [0, 1, 2, 2, 1, 0] {
                match pipeline {
                    0 => ours_e.push(meter.measure(&dev, seconds, median(&ours), || {
                        run_ours(fft, checksummed, &mut src, &mut ours_out)
                    })?),
                    1 => cufft_e.push(meter.measure(&dev, seconds, median(&theirs), || {
                        run_cufft(&mut src, &mut cu_out)
                    })?),
                    _ => {
                        if let Some((chain, out)) = peer.as_mut() {
                            callback_e.push(meter.measure(
                                &dev,
                                seconds,
                                median(&called),
                                || chain.run(&cuda_view(&src)?, &mut out.as_view_mut()),
                            )?);
                        }
                    }
                }
            }
            Some(Energies {
                ours: EnergyReading::mean(&ours_e),
                cufft: EnergyReading::mean(&cufft_e),
                callback: (!callback_e.is_empty()).then(|| EnergyReading::mean(&callback_e)),
            })
        }
        None => None,
    };
    Ok(Comparison {
        ours: (ours_first, ours),
        cufft: (cufft_first, theirs),
        copy_gbps,
        kernels: kernel_reports(fft)?,
        callback: peer_out.map(|out| (out, called)),
        energy,
    })
}

/// One run of tierfft from `src` into `out`, queued on the stream without waiting: a
/// checksummed plan's records are written and left unread, so that its time is the
/// checksums' cost in the kernels (what the comparison reports), with no wait for the host.
fn run_ours<T: Element>(
    fft: &Fft,
    checksummed: bool,
    src: &mut DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    match checksummed {
        true => tierfft::debug::process_buffer_into_unverified(fft, src, out),
        false => fft.process_buffer_into(src, out),
    }
}

/// cuFFT's directions for `direction`: the transform's, and the way back (a chain's inverse).
fn cufft_directions(direction: Direction) -> Result<(FftDirection, FftDirection)> {
    match direction {
        Direction::Forward => Ok((FftDirection::Forward, FftDirection::Inverse)),
        Direction::Inverse => Ok((FftDirection::Inverse, FftDirection::Forward)),
        other => Err(Error::InvalidSpec(format!(
            "the cuFFT comparison runs forward or inverse transforms, not {other:?}"
        ))),
    }
}

/// `values` as the interleaved f32 words cuFFT and the multiply kernel read.
fn complex_words(values: &[Complex32]) -> Vec<f32> {
    values.iter().flat_map(|z| [z.re, z.im]).collect()
}

/// The first `len` complex values of a device array of f32 pairs, on the host.
fn download(
    dev: &tierfft::backend::cuda::CudaDevice,
    s: &CudaSlice<f32>,
    len: usize,
) -> Result<Vec<Complex32>> {
    let part = s
        .try_slice(0..2 * len)
        .ok_or_else(|| gpu("the callback peer's output is shorter than the input"))?;
    let words = dev
        .stream()
        .clone_dtoh(&part)
        .map_err(gpu_err("downloading"))?;
    Ok(words
        .chunks_exact(2)
        .map(|w| Complex32::new(w[0], w[1]))
        .collect())
}

/// `b`'s memory as a cudarc view, or an error for a buffer of another device.
fn cuda_view<T: Element>(b: &DeviceBuffer<T>) -> Result<CudaView<'_, f32>> {
    b.cuda_view()
        .ok_or_else(|| Error::InvalidSpec("the comparison runs on CUDA buffers".into()))
}

/// [`cuda_view`], mutable.
fn cuda_view_mut<T: Element>(b: &mut DeviceBuffer<T>) -> Result<CudaViewMut<'_, f32>> {
    b.cuda_view_mut()
        .ok_or_else(|| Error::InvalidSpec("the comparison runs on CUDA buffers".into()))
}

/// `s` as `len` complex f64 values, the type cuFFT's Z2Z takes.
fn double_view<'a>(
    s: &'a mut CudaViewMut<'_, f32>,
    len: usize,
) -> Result<CudaViewMut<'a, cufft_sys::double2>> {
    // SAFETY: the buffers of an f64 plan hold `len` complex values as four f32 words each
    // (cudarc's allocations are at least 256-byte aligned; it checks the length).
    unsafe { s.transmute_mut::<cufft_sys::double2>(len) }.ok_or_else(|| gpu("buffer view"))
}

/// `s` as `len` complex values, the type cuFFT takes.
fn complex_view<'a>(
    s: &'a mut CudaViewMut<'_, f32>,
    len: usize,
) -> Result<CudaViewMut<'a, cufft_sys::float2>> {
    // SAFETY: every buffer here holds `len` complex values as interleaved f32 pairs.
    unsafe { s.transmute_mut::<cufft_sys::float2>(len) }.ok_or_else(|| gpu("buffer view"))
}

/// `fft` (an f64 plan of plain complex transforms in rows, on `device`) against cuFFT's Z2Z
/// from the same input buffer, `reps` calls of each interleaved, with CUDA events; and the
/// copy bandwidth of the buffer.
pub fn compare_z2z(
    device: &Device,
    fft: &Fft,
    input: &[Complex64],
    reps: usize,
) -> Result<Comparison<Complex64>> {
    let dev = cuda_of(device, "the cuFFT comparison")?;
    let (n, batch) = plain_rows(fft, input.len())?;
    let plan = CuFftPlan::plan_1d(
        n as i32,
        cufft_sys::cufftType::CUFFT_Z2Z,
        batch as i32,
        dev.stream().clone(),
    )
    .map_err(|e| gpu(format!("cuFFT Z2Z plan for n = {n}, batch {batch}: {e:?}")))?;
    let (direction, _) = cufft_directions(fft.spec().direction)?;
    let len = input.len();
    compare_plain(device, fft, input, reps, |src, dst| {
        plan.exec_z2z(
            &mut double_view(src, len)?,
            &mut double_view(dst, len)?,
            direction,
        )
        .map_err(|e| gpu(format!("cuFFT exec: {e:?}")))
    })
}

/// `fft` (a plan of plain complex transforms in rows stored in f16 or bf16, on `device`)
/// against cuFFT's transforms of the same storage (`cufftXtExec`: f16 or bf16 data,
/// computed as cuFFT does for it) from the same input buffer, `reps` calls of each
/// interleaved, with CUDA events; and the copy bandwidth of the buffer. cuFFT takes powers
/// of two only here.
pub fn compare_half<T: Element>(
    device: &Device,
    fft: &Fft,
    input: &[T],
    reps: usize,
) -> Result<Comparison<T>> {
    let dev = cuda_of(device, "the cuFFT comparison")?;
    let (n, batch) = plain_rows(fft, input.len())?;
    let spec = fft.spec();
    if T::PRECISION != spec.precision || !T::COMPLEX {
        return Err(Error::InvalidSpec(format!(
            "a {} plan compared on {} values",
            spec.precision,
            T::NAME
        )));
    }
    let stream = dev.stream();
    let plan = XtPlan::new(n, batch, spec.precision, stream)?;
    let inverse = spec.direction == Direction::Inverse;
    compare_plain(device, fft, input, reps, |src, dst| {
        let (src, _s) = src.device_ptr(stream);
        let (dst, _d) = dst.device_ptr_mut(stream);
        // SAFETY: both buffers hold the n · batch packed values the plan transforms, and
        // outlive the stream's work (they are dropped after the last synchronisation).
        unsafe { plan.exec(src, dst, inverse) }
    })
}

/// `(n, batch)` of `fft` on `len` values, when it is a plain transform of rows (what the
/// library-to-library comparisons take).
fn plain_rows(fft: &Fft, len: usize) -> Result<(usize, usize)> {
    if !cufft_available() {
        return Err(Error::NoDevice(
            "libcufft was not found; cuFFT comparison needs the CUDA toolkit's cuFFT".into(),
        ));
    }
    let spec = fft.spec();
    if spec.layout != Layout::Rows
        || !spec.load.is_empty()
        || !spec.store.is_empty()
        || spec.chain.is_some()
        || spec.normalize
    {
        return Err(gpu(
            "this comparison takes plain unnormalised transforms in rows",
        ));
    }
    Ok((spec.n, len / spec.n))
}

/// Runs `fft` and `run_cufft` (each out of place from the input buffer into a buffer of its
/// own) on `input`, `reps` times each interleaved, timing each call with CUDA events; then
/// times a copy of the buffer.
fn compare_plain<T: Element>(
    device: &Device,
    fft: &Fft,
    input: &[T],
    reps: usize,
    run_cufft: impl Fn(&mut CudaViewMut<'_, f32>, &mut CudaViewMut<'_, f32>) -> Result<()>,
) -> Result<Comparison<T>> {
    let dev = cuda_of(device, "the cuFFT comparison")?;
    let len = input.len();
    let checksummed = fft.spec().checksum != Checksum::Off;
    let mut src = device.upload(input)?;
    let mut ours_out = device.zeros_of::<T>(len)?;
    let mut cu_out = device.zeros_of::<T>(len)?;
    let cufft = |src: &mut DeviceBuffer<T>, out: &mut DeviceBuffer<T>| {
        run_cufft(&mut cuda_view_mut(src)?, &mut cuda_view_mut(out)?)
    };
    run_ours(fft, checksummed, &mut src, &mut ours_out)?;
    cufft(&mut src, &mut cu_out)?;
    let (ours_first, cufft_first) = (ours_out.download()?, cu_out.download()?);
    let (mut ours, mut theirs) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        ours.extend(time_events(&dev, 1, || {
            run_ours(fft, checksummed, &mut src, &mut ours_out)
        })?);
        theirs.extend(time_events(&dev, 1, || cufft(&mut src, &mut cu_out))?);
    }
    let copies = time_events(&dev, reps, || {
        dev.stream()
            .memcpy_dtod(&cuda_view(&src)?, &mut cuda_view_mut(&mut cu_out)?)
            .map_err(gpu_err("copying"))
    })?;
    let words = len * T::FLOATS;
    Ok(Comparison {
        ours: (ours_first, ours),
        cufft: (cufft_first, theirs),
        copy_gbps: 2.0 * (4 * words) as f64 / median(&copies) / 1e9,
        kernels: kernel_reports(fft)?,
        callback: None,
        energy: None,
    })
}
