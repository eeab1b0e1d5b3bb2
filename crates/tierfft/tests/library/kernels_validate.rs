//! Every WGSL kernel the planner can produce passes naga's validator and translates to MSL
//! (Metal), HLSL (DX12) and SPIR-V (Vulkan): our evidence for the backends CI cannot run.

use naga::back::{hlsl, msl, spv};
use naga::valid::{Capabilities, ValidationFlags, Validator};
use tierfft::FftSpec;
use tierfft::debug::source::Dialect;
use tierfft::plan::{DeviceLimits, Plan};

fn translate(source: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    msl::write_string(
        &module,
        &info,
        &msl::Options::default(),
        &msl::PipelineOptions::default(),
    )
    .map_err(|e| format!("MSL: {e}"))?;
    let mut hlsl_out = String::new();
    hlsl::Writer::new(
        &mut hlsl_out,
        &hlsl::Options::default(),
        &hlsl::PipelineOptions::default(),
    )
    .write(&module, &info, None)
    .map_err(|e| format!("HLSL: {e}"))?;
    spv::write_vec(&module, &info, &spv::Options::default(), None)
        .map_err(|e| format!("SPIR-V: {e}"))?;
    Ok(())
}

#[test]
fn every_kernel_validates_and_translates() {
    let mut count = 0;
    for profile in DeviceLimits::PROFILES {
        let limits = DeviceLimits::profile(profile).expect("profile");
        for k in 0..=tierfft::FftSpec::MAX_LOG2_N {
            for batch in [1, 5, 1000] {
                for spec in [
                    FftSpec::new(1 << k).batch(batch),
                    FftSpec::new(1 << k).batch(batch).inverse().normalized(),
                ] {
                    let Ok(plan) = Plan::new(&spec, &limits) else {
                        assert!(8u64 << k > limits.max_binding, "{profile}: 2^{k} must plan");
                        continue;
                    };
                    for pass in 0..plan.passes.len() {
                        let places: &[bool] = if plan.passes.len() == 1 {
                            &[false, true]
                        } else {
                            &[false]
                        };
                        for &in_place in places {
                            let source = plan
                                .source(pass, in_place, Dialect::Wgsl)
                                .expect("kernel source");
                            if let Err(e) = translate(&source) {
                                panic!(
                                    "{profile} 2^{k} batch {batch} pass {pass} in_place {in_place}:\n{e}\n{source}"
                                );
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{count} kernels validated and translated to MSL, HLSL and SPIR-V");
}

#[test]
fn fused_kernels_validate_and_translate() {
    use std::sync::Arc;
    use tierfft::{Complex32, PointOp};
    for profile in ["lavapipe", "h100-vulkan"] {
        let limits = DeviceLimits::profile(profile).expect("profile");
        for k in [1, 3, 6, 12, 13, 16] {
            let n = 1usize << k;
            let v: Arc<[Complex32]> = vec![Complex32::new(1.0, 0.0); n].into();
            let all = FftSpec::new(n)
                .batch(5)
                .on_load(PointOp::Multiply(v.clone()))
                .on_load(PointOp::ZeroFrom(n / 2))
                .on_load(PointOp::Conjugate)
                .on_store(PointOp::Scale(2.0))
                .on_store(PointOp::Magnitude)
                .on_store(PointOp::MagnitudeDb);
            let mut specs = vec![all.clone()];
            if Plan::new(&all, &limits).expect("plan").passes.len() == 1 {
                specs.push(all.then_multiply_and_invert(v).normalized());
            }
            for spec in specs {
                let plan = Plan::new(&spec, &limits).expect("plan");
                for (pass, in_place) in plan.kernels() {
                    let source = plan
                        .source(pass, in_place, Dialect::Wgsl)
                        .expect("kernel source");
                    if let Err(e) = translate(&source) {
                        panic!("{profile} 2^{k} fused pass {pass}:\n{e}\n{source}");
                    }
                }
            }
        }
    }
}

/// Real transforms' splits and merges fused into their half-length passes, as NdPlan plans
/// them for each profile (one pass and several, both exchanges, powers of two and not).
#[test]
fn fused_real_kernels_validate_and_translate() {
    use tierfft::nd::{NdPlan, StepOp};
    use tierfft::{NdSpec, PointOp, RealWeights};
    for profile in DeviceLimits::PROFILES {
        let limits = DeviceLimits::profile(profile).expect("profile");
        for n in [2, 6, 16, 130, 1000, 2048, 8192, 16384, 1 << 15, 1 << 17] {
            let weights = || PointOp::Weight(RealWeights::new(&vec![1.0; 3 * n]));
            for spec in [
                NdSpec::new(&[3, n]).real(),
                NdSpec::new(&[3, n]).real().inverse().normalized(),
                NdSpec::new(&[3, n]).real().on_load(weights()),
                NdSpec::new(&[3, n]).real().inverse().on_store(weights()),
            ] {
                let nd = NdPlan::for_device(&spec, Some(&limits)).expect("plan");
                for step in &nd.steps {
                    let StepOp::Fft { spec, .. } = &step.op else {
                        continue;
                    };
                    let plan = Plan::new(spec, &limits).expect("plan");
                    for (pass, in_place) in plan.kernels() {
                        let source = plan
                            .source(pass, in_place, Dialect::Wgsl)
                            .expect("kernel source");
                        if let Err(e) = translate(&source) {
                            panic!("{profile} real {n} pass {pass}:\n{e}\n{source}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn generated_source_is_readable() {
    let plan = Plan::new(
        &FftSpec::new(1 << 22),
        &DeviceLimits::profile("apple-m1").unwrap(),
    )
    .unwrap();
    let source = plan.source(1, false, Dialect::Wgsl).expect("kernel source");
    assert!(source.starts_with("// tierfft pass 2/2 of a 4194304-point forward FFT"));
    for step in [
        "// load",
        "// pass twiddles",
        "// stage 1: radix",
        "// store",
        "do not edit",
    ] {
        assert!(source.contains(step), "missing '{step}' in\n{source}");
    }
    // Indented, one statement per line.
    assert!(source.lines().filter(|l| l.starts_with("    ")).count() > 50);
}

/// One-pass lines exchanged in rounds (`PlanOptions::exchange_rounds`): the H100's Vulkan
/// shape for 16384 points (split, padded, two rounds) and complex exchanges in two to eight.
#[test]
fn exchange_round_kernels_validate_and_translate() {
    use tierfft::plan::{Exchange, PlanOptions};
    let vulkan = DeviceLimits::profile("h100-vulkan").expect("profile");
    let lavapipe = DeviceLimits::profile("lavapipe").expect("profile");
    let complex = |r: usize| {
        PlanOptions::default()
            .with_exchange_rounds(Some(r))
            .with_exchange(Some(Exchange::Complex))
    };
    let cases = [
        (
            &vulkan,
            1 << 14,
            PlanOptions::default().with_exchange_rounds(Some(2)),
        ),
        (&vulkan, 1 << 14, complex(4)),
        (&lavapipe, 1 << 13, complex(2)),
    ];
    for (limits, n, opts) in cases {
        for spec in [
            FftSpec::new(n).batch(3),
            FftSpec::new(n).inverse().normalized(),
        ] {
            let plan = Plan::with_options(&spec, limits, &opts).expect("plan");
            assert!(
                plan.passes.len() == 1 && plan.passes[0].rounds > 1,
                "{plan}"
            );
            for (pass, in_place) in plan.kernels() {
                let source = plan
                    .source(pass, in_place, Dialect::Wgsl)
                    .expect("kernel source");
                if let Err(e) = translate(&source) {
                    panic!("{} {n} in rounds, pass {pass}:\n{e}\n{source}", limits.name);
                }
            }
        }
    }
}
