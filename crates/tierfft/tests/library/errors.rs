//! Bad input gets a clear error, never a panic.

use num_complex::Complex32;
use tierfft::{Device, Error, FftSpec, Precision};

use crate::common::*;

#[test]
fn unsupported_lengths_and_zero_batch() {
    for dev in [Device::cpu(), gpu().clone()] {
        for n in [0, 1 << (tierfft::FftSpec::MAX_LOG2_N + 1)] {
            let e = dev.plan(&FftSpec::new(n)).expect_err("must fail");
            assert!(matches!(e, Error::UnsupportedLength { .. }), "{e}");
            assert!(e.to_string().contains("from 1 to 2^27"), "{e}");
        }
        // Every other length plans on every device.
        for n in [3, 1000, 4099] {
            assert!(
                dev.plan(&FftSpec::new(n)).is_ok(),
                "{}, n = {n}",
                dev.name()
            );
        }
        let e = dev.plan(&FftSpec::new(64).batch(0)).expect_err("must fail");
        assert!(matches!(e, Error::ZeroBatch), "{e}");
    }
}

/// f64 is refused where the device lacks its arithmetic, naming the device; f16 and bf16
/// storage (converted to f32 around the arithmetic) plan everywhere.
#[test]
fn precisions_a_device_cannot_run_are_refused_naming_it() {
    for dev in [Device::cpu(), gpu().clone()] {
        for precision in [Precision::F16, Precision::Bf16] {
            let planned = dev.plan(&FftSpec::new(64).precision(precision));
            assert!(planned.is_ok(), "{}: {planned:?}", dev.name());
        }
        // f64 runs where the device has it (the CPU always).
        let f64_ok = dev.limits().is_none_or(|l| l.shader_f64);
        for n in [64, 17] {
            let planned = dev.plan(&FftSpec::new(n).precision(Precision::F64));
            assert_eq!(planned.is_ok(), f64_ok, "{}: {planned:?}", dev.name());
        }
    }
    // Read from the device: lavapipe and NVIDIA GPUs (Vulkan and CUDA) have both
    // (PLATFORM.md).
    let dev = gpu();
    let name = dev.name();
    if let Some(limits) = dev.limits()
        && (name.contains("llvmpipe") || name.contains("NVIDIA"))
    {
        assert!(limits.shader_f64 && limits.shader_f16, "{name}: {limits:?}");
    }
}

#[test]
fn wrong_buffer_lengths() {
    for dev in [Device::cpu(), gpu().clone()] {
        let fft = dev.plan(&FftSpec::new(64).batch(2)).expect("plan");
        let mut short = vec![Complex32::new(0.0, 0.0); 100];
        let e = fft.process(&mut short).expect_err("must fail");
        assert!(e.to_string().contains("n × batch = 64 × 2 = 128"), "{e}");
        let input = vec![Complex32::new(0.0, 0.0); 128];
        let mut out = poisoned(129);
        assert!(matches!(
            fft.process_out_of_place(&input, &mut out),
            Err(Error::BufferLength { .. })
        ));
        // Nothing was written.
        assert!(out.iter().all(|z| z.re.is_nan()));
    }
}

#[test]
fn unknown_adapter_lists_what_exists() {
    let e = Device::by_name("no-such-gpu-anywhere").expect_err("must fail");
    assert!(matches!(e, Error::NoDevice(_)));
    assert!(
        e.to_string()
            .contains("device names: auto, cpu, cuda, cuda:N, gpu, gpu:N, lavapipe"),
        "{e}"
    );
}

/// Device ordinals: a bad number or one past the devices present is `NoDevice` saying so.
#[test]
fn device_ordinals_out_of_range_are_errors() {
    for (name, says) in [
        ("gpu:x", "must be a number"),
        ("cuda:-1", "must be a number"),
        ("gpu:1000", "adapter 1000 asked for"),
    ] {
        let e = Device::by_name(name).expect_err("must fail");
        assert!(matches!(e, Error::NoDevice(_)), "{name}: {e}");
        assert!(e.to_string().contains(says), "{name}: {e}");
    }
    // Without a CUDA driver the error says so; with one, that ordinal 1000 is not there.
    let e = Device::by_name("cuda:1000").expect_err("must fail");
    assert!(matches!(e, Error::NoDevice(_)), "{e}");
}

#[test]
fn measure_checks_the_buffer_length() {
    let fft = gpu().plan(&FftSpec::new(1 << 10).batch(4)).expect("plan");
    let input = vec![Complex32::new(0.0, 0.0); 1];
    assert!(matches!(
        fft.measure(&input, 1),
        Err(Error::BufferLength { .. })
    ));
}

/// Buffers larger than a device holds are errors carrying the bytes asked (and, on CUDA,
/// free), never an abort or a wrapped size; the device works on afterwards.
#[test]
fn buffers_too_large_for_the_device_are_refused_with_the_bytes() {
    for dev in [Device::cpu(), gpu().clone()] {
        let e = dev.zeros(usize::MAX / 2).expect_err("overflowing size");
        assert!(matches!(e, Error::TooLarge { .. }), "{}: {e}", dev.name());
        // 2^52 bytes: more than any machine here holds.
        let e = dev.zeros(1 << 49).expect_err("too large");
        match &e {
            Error::OutOfMemory {
                requested, free, ..
            } => {
                assert_eq!(*requested, Some(1 << 52), "{}: {e}", dev.name());
                assert!(e.to_string().contains("MiB asked"), "{e}");
                if dev.kind() == tierfft::DeviceKind::Cuda {
                    assert!(free.is_some_and(|f| f < 1 << 52), "{e}");
                }
            }
            // wgpu refuses a buffer past its largest before allocating.
            Error::TooLarge { .. } => assert!(
                dev.kind() == tierfft::DeviceKind::Wgpu,
                "{}: {e}",
                dev.name()
            ),
            other => panic!("{}: {other}", dev.name()),
        }
        let fft = dev.plan(&FftSpec::new(64)).expect("plan after a refusal");
        let mut data = vec![Complex32::new(1.0, 0.0); 64];
        fft.process(&mut data).expect("a transform after a refusal");
        assert!((data[0].re - 64.0).abs() < 1e-3);
    }
}

/// Kernel source is asked for by pass: a pass the plan lacks, or in place for a plan of
/// several passes, is an error.
#[test]
fn kernel_source_of_a_missing_kernel_is_an_error() {
    use tierfft::debug::source::Dialect;
    use tierfft::plan::{DeviceLimits, Plan};
    let limits = DeviceLimits::profile("small-16k").expect("profile");
    let plan = Plan::new(&FftSpec::new(1 << 20), &limits).expect("plan");
    assert!(plan.passes.len() > 1);
    assert!(plan.source(0, false, Dialect::Wgsl).is_ok());
    for (pass, in_place) in [(0, true), (plan.passes.len(), false)] {
        let e = plan
            .source(pass, in_place, Dialect::Cuda)
            .expect_err("no such kernel");
        assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
    }
    // A plan edited past the device's limits is refused before any kernel is printed.
    let mut edited = plan.clone();
    edited.passes[0].lines_per_group = 4096;
    let e = edited
        .source(0, false, Dialect::Wgsl)
        .expect_err("edited plan");
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
}

/// Device limits filled in by hand are checked before planning: a zero the planner would
/// divide by, or an alignment that is not a power of two, is an error naming the field.
#[test]
fn hand_made_device_limits_are_checked() {
    use tierfft::plan::{DeviceLimits, Plan};
    let good = DeviceLimits::profile("lavapipe").expect("profile");
    let mut zero_threads = good.clone();
    zero_threads.max_threads = 0;
    let mut odd_alignment = good.clone();
    odd_alignment.binding_alignment = 0;
    for (limits, field) in [
        (zero_threads, "max_threads"),
        (odd_alignment, "binding_alignment"),
    ] {
        let e = Plan::new(&FftSpec::new(1024), &limits).expect_err("bad limits");
        assert!(
            matches!(e, Error::InvalidSpec(_)) && e.to_string().contains(field),
            "{e}"
        );
    }
}
