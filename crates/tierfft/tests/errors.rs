//! Bad input gets a clear error, never a panic.

mod common;

use common::*;
use num_complex::Complex32;
use tierfft::{Device, Error, FftSpec, Precision};

#[test]
fn unsupported_lengths_and_zero_batch() {
    for dev in [Device::cpu(), gpu().clone()] {
        for n in [0, 1 << (tierfft::MAX_LOG2_N + 1)] {
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
