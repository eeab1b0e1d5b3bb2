//! Device-resident data: transforms on uploaded buffers, and the resampling kernel against an
//! f64 windowed-sinc reference and the CPU backend, on the GPU (lavapipe unless
//! TIERFFT_TEST_DEVICE says otherwise) and the CPU.

use std::f64::consts::PI;

use num_complex::{Complex32, Complex64};
use rand::RngExt;
use tierfft::debug::reference::{relative_l2_error, widen};
use tierfft::resample::{FRACTION_BITS, PHASES, ResampleSpec, RowPositions, TAPS};
use tierfft::{Device, Error, FftSpec, NdSpec};

use crate::common::*;

#[test]
fn transforms_run_on_uploaded_buffers() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        // One pass, several passes (the result returns to the buffer), columns, a chain.
        let h = random(&mut rng, 1024);
        for spec in [
            FftSpec::new(1024).batch(5),
            FftSpec::new(1 << 16).batch(2),
            FftSpec::new(256).batch(48).columns(),
            FftSpec::new(1024)
                .batch(3)
                .then_multiply_and_invert(h)
                .normalized(),
        ] {
            let input = random(&mut rng, spec.len());
            let fft = dev.plan(&spec).expect("plan");
            let mut buffer = dev.upload(&input).expect("upload");
            fft.process_buffer(&mut buffer).expect("run");
            let mut out = poisoned(spec.len());
            buffer.read_into(&mut out).expect("download");
            assert_accurate(&dev.name(), &spec, &input, &out);
        }
        // Steps queued back to back on one buffer: forward, then normalised inverse.
        let spec = FftSpec::new(4096).batch(4);
        let input = random(&mut rng, spec.len());
        let mut buffer = dev.upload(&input).expect("upload");
        dev.plan(&spec)
            .unwrap()
            .process_buffer(&mut buffer)
            .unwrap();
        let back = dev.plan(&spec.clone().inverse().normalized()).unwrap();
        back.process_buffer(&mut buffer).unwrap();
        let out = buffer.download().unwrap();
        let err = relative_l2_error(&out, &widen(&input));
        assert!(err < 1e-6, "{}: round trip error {err:e}", dev.name());
    }
}

#[test]
fn buffers_of_the_wrong_size_or_device_are_errors() {
    let spec = FftSpec::new(256).batch(2);
    let fft = gpu().plan(&spec).unwrap();
    let mut short = gpu().upload(&poisoned(256)).unwrap();
    assert!(matches!(
        fft.process_buffer(&mut short),
        Err(Error::BufferLength { .. })
    ));
    let mut on_cpu = Device::cpu().upload(&poisoned(512)).unwrap();
    let err = fft.process_buffer(&mut on_cpu).unwrap_err();
    assert!(err.to_string().contains("planned for"), "{err}");
    let mut out = poisoned(10);
    assert!(
        gpu()
            .upload(&poisoned(512))
            .unwrap()
            .read_into(&mut out)
            .is_err()
    );
}

/// Rows at random positions: offsets of up to ±20 samples (so some taps fall outside every
/// row) and slopes of up to ±0.01 samples per sample.
fn positions(rng: &mut rand::rngs::StdRng, rows: usize) -> Vec<RowPositions> {
    (0..rows)
        .map(|_| RowPositions {
            offset: rng.random_range(-20.0..20.0),
            slope: rng.random_range(-0.01..0.01),
        })
        .collect()
}

/// The interpolator in f64 at the exact fixed-point position (no weight table).
fn resample_f64(spec: &ResampleSpec, input: &[Complex32]) -> Vec<Complex64> {
    let one = f64::from(1u32 << FRACTION_BITS);
    let n = spec.n;
    let mut out = vec![Complex64::new(0.0, 0.0); spec.len()];
    for (r, p) in spec.rows.iter().enumerate() {
        // The positions as the library rounds them to fixed point.
        let whole = p.offset.floor();
        let frac = ((p.offset - whole) * one).round() / one;
        let slope = (p.slope * one).round() / one;
        for k in 0..n {
            let x = k as f64 + whole + frac + slope * k as f64;
            let below = x.floor();
            for j in 1 - (TAPS as i64 / 2)..=(TAPS as i64 / 2) {
                let i = below as i64 + j;
                if !(0..n as i64).contains(&i) {
                    continue;
                }
                let t = x - i as f64;
                let sinc = if t.abs() < 1e-12 {
                    1.0
                } else {
                    (PI * t).sin() / (PI * t)
                };
                let w = sinc * 0.5 * (1.0 + (PI * t / (TAPS / 2) as f64).cos());
                let z = input[r * n + i as usize];
                out[r * n + k] += Complex64::new(z.re.into(), z.im.into()) * w;
            }
        }
    }
    out
}

#[test]
fn resampling_matches_the_f64_interpolator_and_the_cpu() {
    let mut rng = rng();
    for n in [1, 100, 128, 1000, 4096] {
        let spec = ResampleSpec::new(n, positions(&mut rng, 37));
        let input = random(&mut rng, spec.len());
        let exact = resample_f64(&spec, &input);
        let cpu = Device::cpu()
            .plan_resample(&spec)
            .unwrap()
            .measure(&input, 1)
            .unwrap()
            .output;
        // Weights at the nearest 1/4096 sample: white noise (the whole band) errs by ~1e-4, a
        // one-sample row (one tap inside) by up to ~7e-4; wrong taps would err by ~1.
        let err = relative_l2_error(&cpu, &exact);
        assert!(err < 1.5e-3, "cpu, n = {n}: error {err:e} against f64");
        let gpu_resampler = gpu().plan_resample(&spec).expect("plan");
        // measure() writes into a device buffer poisoned with NaNs.
        let out = gpu_resampler.measure(&input, 1).expect("run").output;
        let mut again = poisoned(spec.len());
        gpu_resampler.process(&input, &mut again).expect("run");
        assert_eq!(out, again, "process and measure agree");
        let err = relative_l2_error(&out, &widen(&cpu));
        // Same taps and phases (fixed point): only f32 rounding differs, in the weights (the
        // kernel computes them, the CPU rounds an f64 table) and in the sums: ~8e-8.
        assert!(
            err < 1e-6,
            "{}, n = {n}: error {err:e} against the CPU",
            gpu().name()
        );
    }
    // The table resolution the bound above assumes.
    assert_eq!(PHASES, 4096);
}

#[test]
fn resampling_checks_its_buffers() {
    let spec = ResampleSpec::new(
        64,
        vec![
            RowPositions {
                offset: 0.5,
                slope: 0.0
            };
            2
        ],
    );
    let r = gpu().plan_resample(&spec).unwrap();
    let mut out = poisoned(64);
    assert!(r.process(&poisoned(128), &mut out).is_err());
    // A buffer from another device is an error naming that buffer's device, input or output.
    let (on_cpu, mut on_gpu) = (
        Device::cpu().upload(&poisoned(128)).unwrap(),
        gpu().upload(&poisoned(128)).unwrap(),
    );
    let err = r
        .process_buffer(&on_cpu, &mut on_gpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&Device::cpu().name()), "{err}");
    let (mut on_cpu, on_gpu) = (on_cpu, gpu().upload(&poisoned(128)).unwrap());
    let err = r
        .process_buffer(&on_gpu, &mut on_cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&Device::cpu().name()), "{err}");
    let far = ResampleSpec::new(
        4096,
        vec![RowPositions {
            offset: 0.0,
            slope: 0.6,
        }],
    );
    assert!(matches!(
        gpu().plan_resample(&far),
        Err(Error::InvalidSpec(_))
    ));
}

/// Lengths with a prime factor above 31 between device buffers, as `tierfft.fft` runs them
/// on a CuPy array: Bluestein's convolution rows (about twice the user's) must stay in the
/// plan's scratch, out of a caller's output buffer that holds only the user's rows. Out of
/// place (and in place where marked), outputs poisoned beforehand; every value must be
/// written, and rows spread over the batch match the f64 reference. Everywhere 100003 points
/// (a 200704-point convolution, four passes), forward in a batch past 128 MiB of convolution
/// rows (lavapipe binds that in two dispatch chunks) and normalised inverse in a short one;
/// on CUDA also 64 rows of 1049934 = 2·3·174989 points (a 2100000-point convolution, four
/// passes).
#[test]
fn bluestein_lengths_between_device_buffers() {
    let dev = gpu();
    let mut rng = rng();
    let mut cases = vec![
        (100_003, 84, FftSpec::new(100_003), false),
        (
            100_003,
            3,
            FftSpec::new(100_003).inverse().normalized(),
            true,
        ),
    ];
    if dev.kind() == tierfft::DeviceKind::Cuda {
        cases.push((1_049_934, 64, FftSpec::new(1_049_934), true));
    }
    for (n, batch, row, in_place) in cases {
        let what = format!(
            "{}: n = {n}, batch {batch}, {:?}",
            dev.name(),
            row.direction
        );
        let mut spec = NdSpec::new(&[batch, n]).axes(&[1]);
        if row.direction == tierfft::Direction::Inverse {
            spec = spec.inverse().normalized();
        }
        let fft = dev.plan_nd(&spec).unwrap_or_else(|e| panic!("{what}: {e}"));
        // The same transform in one dimension shows the plan the N-D one runs.
        let one = dev.plan(&row.clone().batch(batch)).expect("plan");
        let plan = one.plan().expect("a GPU plan");
        assert!(
            plan.bluestein.is_some() && plan.passes.len() > 2,
            "{what}: a convolution of several passes each way\n{plan}"
        );
        eprintln!(
            "{what}: {} passes, dispatch chunks of {} transforms",
            plan.passes.len(),
            plan.transforms_per_dispatch
        );
        drop(one);
        let x = random(&mut rng, batch * n);
        let mut input = dev.upload(&x).expect("upload");
        let mut output = dev.upload(&poisoned(x.len())).expect("upload");
        fft.process_buffer_out_of_place(&mut input, &mut output)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = output.download().expect("download");
        drop(output);
        check_rows(&what, &row, &x, &got);
        if in_place {
            fft.process_buffer(&mut input)
                .unwrap_or_else(|e| panic!("{what} in place: {e}"));
            let got = input.download().expect("download");
            check_rows(&format!("{what} in place"), &row, &x, &got);
        }
    }
}

/// Every value of `got` (rows of `row.n` points) written, and its first, second, middle and
/// last rows within 1e-6 (relative L2, Bluestein's bound) of `row` applied to those of `x`.
fn check_rows(what: &str, row: &FftSpec, x: &[Complex32], got: &[Complex32]) {
    let n = row.n;
    let batch = x.len() / n;
    assert_eq!(got.len(), x.len(), "{what}");
    if let Some(i) = got
        .iter()
        .position(|z| !(z.re.is_finite() && z.im.is_finite()))
    {
        panic!("{what}: element {i} (row {}) is {}", i / n, got[i]);
    }
    let mut rows = vec![0, 1, batch / 2, batch - 1];
    rows.dedup();
    for r in rows.into_iter().filter(|&r| r < batch) {
        let span = r * n..(r + 1) * n;
        let want = tierfft::debug::reference::spec_f64(row, &x[span.clone()]);
        let err = relative_l2_error(&got[span], &want);
        assert!(err <= 1e-6, "{what}: row {r}: relative L2 error {err:e}");
    }
}

/// A caller's cudarc stream and array (TIERFFT_TEST_DEVICE=cuda; other devices skip): the
/// plan runs on the array in place, queued on the caller's stream, and gives back the same
/// device memory; an array of another context is refused.
#[cfg(feature = "cuda")]
#[test]
fn cudarc_arrays_on_the_callers_stream() {
    use cudarc::driver::{CudaContext, DevicePtr};
    if gpu().kind() != tierfft::DeviceKind::Cuda {
        eprintln!("SKIPPED: cudarc interop needs TIERFFT_TEST_DEVICE=cuda");
        return;
    }
    let mut rng = rng();
    let ctx = CudaContext::new(0).expect("context");
    let stream = ctx.new_stream().expect("stream");
    let device = Device::cuda_on_stream(stream.clone()).expect("device");
    for spec in [FftSpec::new(4096).batch(8), FftSpec::new(1 << 20).batch(2)] {
        let fft = device.plan(&spec).expect("plan");
        let input = random(&mut rng, spec.len());
        let slice = stream
            .clone_htod(bytemuck::cast_slice::<Complex32, f32>(&input))
            .expect("upload");
        let before = slice.device_ptr(&stream).0;
        let mut buffer =
            tierfft::DeviceBuffer::<Complex32>::from_cuda_slice(&device, slice).expect("wrap");
        fft.process_buffer(&mut buffer).expect("run");
        let slice = buffer.into_cuda_slice().expect("unwrap");
        assert_eq!(
            slice.device_ptr(&stream).0,
            before,
            "the same device memory"
        );
        let out: Vec<f32> = stream.clone_dtoh(&slice).expect("download");
        let want = tierfft::debug::reference::spec_f64(&spec, &input);
        let err = relative_l2_error(bytemuck::cast_slice(&out), &want);
        assert!(err < BOUND, "n = {}: {err:e}", spec.n);
    }
    // Arrays of another device's context, or for a device that is not CUDA, are refused.
    let other = Device::cuda(0).expect("device");
    let slice = stream.alloc_zeros::<f32>(8).expect("alloc");
    let e = tierfft::DeviceBuffer::<Complex32>::from_cuda_slice(&other, slice)
        .expect_err("another context");
    assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
    let slice = stream.alloc_zeros::<f32>(8).expect("alloc");
    let e = tierfft::DeviceBuffer::<Complex32>::from_cuda_slice(&Device::cpu(), slice)
        .expect_err("not CUDA");
    assert!(e.to_string().contains("not a CUDA device"), "{e}");
}

/// A caller's wgpu device, buffer and command encoder (the test device when it is a wgpu
/// adapter: lavapipe in CI): the transform is recorded among the caller's own commands, runs
/// when the caller submits, and leaves the result in the caller's buffer.
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_buffers_and_encoders_of_the_caller() {
    use wgpu::BufferUsages as U;
    if gpu().kind() != tierfft::DeviceKind::Wgpu {
        eprintln!("SKIPPED: wgpu interop needs a wgpu test device");
        return;
    }
    let mut rng = rng();
    // The caller's own instance, adapter (the test device's), device and queue.
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
        .into_iter()
        .find(|a| gpu().name().starts_with(&a.get_info().name))
        .expect("the test device's adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("device");
    let dev = Device::from_wgpu(&adapter, device.clone(), queue.clone());
    // Two passes on lavapipe: the result comes back to the caller's buffer from scratch.
    let spec = FftSpec::new(1 << 16).batch(2);
    let fft = dev.plan(&spec).expect("plan");
    let input = random(&mut rng, spec.len());
    let bytes = 8 * input.len() as u64;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("caller's data"),
        size: bytes,
        usage: U::STORAGE | U::COPY_SRC | U::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&input));
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("caller's readback"),
        size: bytes,
        usage: U::MAP_READ | U::COPY_DST,
        mapped_at_creation: false,
    });
    let mut data: tierfft::DeviceBuffer =
        tierfft::DeviceBuffer::from_wgpu_buffer(&dev, buffer.clone()).expect("wrap");
    let mut encoder = device.create_command_encoder(&Default::default());
    fft.record(&mut encoder, &mut data).expect("record");
    encoder.copy_buffer_to_buffer(&buffer, 0, &readback, 0, bytes);
    queue.submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("wait");
    let got: Vec<Complex32> =
        bytemuck::cast_slice(&readback.get_mapped_range(..).expect("mapped")).to_vec();
    let err = relative_l2_error(&got, &tierfft::debug::reference::spec_f64(&spec, &input));
    assert!(err < BOUND, "{err:e}");
    // A buffer transforms cannot use is refused, naming the usage it lacks.
    let read_only = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: U::STORAGE | U::COPY_DST,
        mapped_at_creation: false,
    });
    let e = tierfft::DeviceBuffer::<Complex32>::from_wgpu_buffer(&dev, read_only)
        .expect_err("must fail");
    assert!(e.to_string().contains("COPY_SRC"), "{e}");
    // A plan of another backend cannot record.
    let cpu = Device::cpu().plan(&spec).expect("plan");
    let mut encoder = device.create_command_encoder(&Default::default());
    let e = cpu.record(&mut encoder, &mut data).expect_err("must fail");
    assert!(e.to_string().contains("wgpu device"), "{e}");
}
