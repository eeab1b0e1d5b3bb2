//! Every CUDA kernel the planner can produce for n = 2^0 .. 2^27 (f32, f64, f16, bf16) compiles with NVRTC for
//! Hopper (sm_90), so a code-generation error fails CI although no GPU runs there.
//! Needs libnvrtc (CI: `pip install nvidia-cuda-nvrtc`, see scripts/test); without it the test
//! says why it skipped, and fails when `TIERFFT_REQUIRE_NVRTC=1`.
//!
//! A binary of its own: planning every length to 2^27, checksummed ones included, makes and
//! frees tables of gigabytes, and the page faults and unmappings of that slowed the lavapipe
//! tests sharing its process several times over.
#![cfg(feature = "cuda")]

use std::collections::BTreeSet;

use tierfft::debug::nvrtc;
use tierfft::debug::source::{Dialect, resample_source};
use tierfft::plan::{DeviceLimits, Plan};
use tierfft::{FftSpec, Precision};

#[test]
fn every_cuda_kernel_compiles_with_nvrtc() {
    if !nvrtc::available() {
        let msg = "libnvrtc not found (pip install nvidia-cuda-nvrtc; add nvidia/cu13/lib to LD_LIBRARY_PATH)";
        assert!(std::env::var_os("TIERFFT_REQUIRE_NVRTC").is_none(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    }
    let limits = DeviceLimits::profile("h100-cuda").expect("profile");
    let mut sources = BTreeSet::new();
    for k in 0..=tierfft::FftSpec::MAX_LOG2_N {
        // This length's plans, kept until the next: the checksummed ones then share one
        // table of weights (gigabytes at the longest lengths) instead of computing four.
        let mut plans = Vec::new();
        for batch in [1, 1000] {
            let f64 = FftSpec::new(1 << k)
                .batch(batch)
                .precision(tierfft::Precision::F64);
            // f16 and bf16: 16-bit storage converted around f32 arithmetic.
            let f16 = FftSpec::new(1 << k).batch(batch).precision(Precision::F16);
            let bf16 = FftSpec::new(1 << k)
                .batch(batch)
                .inverse()
                .precision(Precision::Bf16);
            for spec in [
                FftSpec::new(1 << k).batch(batch),
                FftSpec::new(1 << k).batch(batch).inverse().normalized(),
                // f64: double arithmetic, literals, cluster stores and async copies.
                f64.clone(),
                f64.inverse().normalized(),
                f16,
                bf16,
                // Checksummed: sums, lane sums or a reduction, the records.
                FftSpec::new(1 << k)
                    .batch(batch)
                    .checksum(tierfft::Checksum::Detect),
                FftSpec::new(1 << k)
                    .batch(batch)
                    .precision(Precision::F64)
                    .checksum(tierfft::Checksum::Detect),
            ] {
                let plan = Plan::new(&spec, &limits).expect("plan");
                for (pass, in_place) in plan.kernels() {
                    sources.insert(
                        plan.source(pass, in_place, Dialect::Cuda)
                            .expect("kernel source"),
                    );
                }
                plans.push(plan);
            }
        }
    }
    // The prime codelets 17..31 (one generator): the smallest and the largest alone, mixed
    // with others in one pass and in several, in every precision.
    for n in [17, 31, 29 * 31 * 2, 31 * 31 * 4096] {
        for precision in [Precision::F32, Precision::F64, Precision::F16] {
            let spec = FftSpec::new(n).batch(3).precision(precision);
            for spec in [spec.clone(), spec.inverse().normalized()] {
                let plan = Plan::new(&spec, &limits).expect("plan");
                assert!(plan.bluestein.is_none(), "n = {n}");
                for (pass, in_place) in plan.kernels() {
                    sources.insert(
                        plan.source(pass, in_place, Dialect::Cuda)
                            .expect("kernel source"),
                    );
                }
            }
        }
    }
    // Fused kernels: every pointwise operation and a chained transform.
    for k in [1, 4, 10, 12, 14] {
        let n = 1usize << k;
        let v: std::sync::Arc<[tierfft::Complex32]> =
            vec![tierfft::Complex32::new(1.0, 0.0); n].into();
        let spec = FftSpec::new(n)
            .batch(7)
            .on_load(tierfft::PointOp::Multiply(v.clone()))
            .on_load(tierfft::PointOp::ZeroFrom(n / 2))
            .then_multiply_and_invert(v)
            .on_store(tierfft::PointOp::Conjugate)
            .on_store(tierfft::PointOp::MagnitudeDb);
        let plan = Plan::new(&spec, &limits).expect("plan");
        for (pass, in_place) in plan.kernels() {
            sources.insert(
                plan.source(pass, in_place, Dialect::Cuda)
                    .expect("kernel source"),
            );
        }
    }
    // Column transforms (one and two passes, batches that fill workgroups and one that
    // does not) with per-element multiplies, as the SAR azimuth steps use them.
    for (k, batch) in [(3, 5), (12, 4096), (13, 100), (14, 16384)] {
        let n = 1usize << k;
        let each: std::sync::Arc<[tierfft::Complex32]> =
            vec![tierfft::Complex32::new(1.0, 0.0); n * batch].into();
        for spec in [
            FftSpec::new(n).batch(batch).columns(),
            FftSpec::new(n)
                .batch(batch)
                .columns()
                .inverse()
                .normalized()
                .on_load(tierfft::PointOp::MultiplyEach(each)),
        ] {
            let plan = Plan::new(&spec, &limits).expect("plan");
            for (pass, in_place) in plan.kernels() {
                sources.insert(
                    plan.source(pass, in_place, Dialect::Cuda)
                        .expect("kernel source"),
                );
            }
        }
    }
    // Persistent kernels with cp.async prefetching, plain and chained (one filter, or one per
    // transform).
    let prefetch = tierfft::plan::PlanOptions::default().with_prefetch(Some(true));
    for k in [8, 12] {
        let n = 1usize << k;
        let h: std::sync::Arc<[tierfft::Complex32]> =
            vec![tierfft::Complex32::new(1.0, 0.0); n].into();
        let each: std::sync::Arc<[tierfft::Complex32]> =
            vec![tierfft::Complex32::new(1.0, 0.0); n * 1000].into();
        for spec in [
            FftSpec::new(n).batch(1000),
            FftSpec::new(n).batch(1000).then_multiply_and_invert(h),
            // A filter for each transform: read from the array as it goes.
            FftSpec::new(n).batch(1000).then_multiply_and_invert(each),
        ] {
            let plan = Plan::with_options(&spec, &limits, &prefetch).expect("plan");
            assert!(plan.passes[0].prefetch(), "n = {n}");
            for (pass, in_place) in plan.kernels() {
                sources.insert(
                    plan.source(pass, in_place, Dialect::Cuda)
                        .expect("kernel source"),
                );
            }
        }
    }
    // N-D and real transforms: the splits and merges fused into their half-length passes,
    // and every step between arrays (splits, merges, widening, cuts, Hermitian extensions,
    // gathers from and scatters to strided layouts), in f32 and f64.
    for (n, precision) in [2, 7, 130, 1000, 4096, 8192, 16384, 32768, 1 << 20]
        .into_iter()
        .flat_map(|n| [(n, Precision::F32), (n, Precision::F64)])
    {
        for spec in [
            tierfft::NdSpec::new(&[3, n]).real(),
            tierfft::NdSpec::new(&[3, n]).real().inverse(),
            tierfft::NdSpec::new(&[n, 3]).real().input_strides(&[1, n]),
            tierfft::NdSpec::new(&[3, n])
                .real()
                .inverse()
                .output_strides(&[n + 5, 1]),
            tierfft::NdSpec::new(&[3, n]).input_strides(&[1, 3]),
            // Windowed R2C and weighted C2R (weights per part on packed rows, per element
            // on widened ones).
            tierfft::NdSpec::new(&[3, n]).real().on_load(weights(3 * n)),
            tierfft::NdSpec::new(&[3, n])
                .real()
                .inverse()
                .on_store(weights(3 * n)),
        ] {
            let spec = spec.precision(precision);
            let nd = tierfft::nd::NdPlan::for_device(&spec, Some(&limits)).expect("plan");
            for step in &nd.steps {
                match &step.op {
                    tierfft::nd::StepOp::Fft { spec, .. } => {
                        let plan = Plan::new(spec, &limits).expect("plan");
                        for (pass, in_place) in plan.kernels() {
                            sources.insert(
                                plan.source(pass, in_place, Dialect::Cuda)
                                    .expect("kernel source"),
                            );
                        }
                    }
                    tierfft::nd::StepOp::Reshape(r) => {
                        sources.insert(r.source(precision, Dialect::Cuda));
                    }
                    other => panic!("no kernel known for {other:?}"),
                }
            }
        }
    }
    // The DCT and DST: both halves of every type, lines alone and paired along either side
    // of the axis, orthogonalised, in f32 and f64 (the FFTs between them are the ones above).
    for n in [2, 7, 130, 1000] {
        for t in tierfft::Trig::ALL {
            let r2r = tierfft::RealToReal::new(t).orthogonalized();
            for spec in [
                tierfft::NdSpec::new(&[3, n]).axes(&[1]),
                tierfft::NdSpec::new(&[4, n]).axes(&[1]),
                tierfft::NdSpec::new(&[n, 4]).axes(&[0]),
            ] {
                let spec = spec.trig(r2r);
                let nd = tierfft::nd::NdPlan::new(&spec).expect("plan");
                for step in &nd.steps {
                    if let tierfft::nd::StepOp::Reshape(r) = &step.op {
                        for precision in [Precision::F32, Precision::F64] {
                            sources.insert(r.source(precision, Dialect::Cuda));
                        }
                    }
                }
            }
        }
    }
    // The resampling kernel, rows shorter than a workgroup and longer.
    for n in [1, 100, 4096, 16384] {
        sources.insert(resample_source(n, Dialect::Cuda));
    }
    let (major, minor) = nvrtc::version().expect("version");
    let sources: Vec<String> = sources.into_iter().collect();
    // A thread per core, each taking the next kernel to compile: the kernels take from a
    // tenth of a second to over one, so fixed halves finish apart.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(src) =
                    sources.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    if let Err(e) = nvrtc::compile(src, "sm_90") {
                        panic!("{e}\n{src}");
                    }
                }
            });
        }
    });
    eprintln!(
        "{} distinct CUDA kernels compiled for sm_90 with NVRTC {major}.{minor}",
        sources.len()
    );
}

/// The 16-bit storage conversions before sm_80 (no `cvt.rn.{f16,bf16}x2.f32`): one- and
/// several-pass f16 and bf16 kernels compiled for Turing (sm_75, CUDA 13's oldest).
#[test]
fn sixteen_bit_kernels_compile_before_sm_80() {
    if !nvrtc::available() {
        assert!(
            std::env::var_os("TIERFFT_REQUIRE_NVRTC").is_none(),
            "libnvrtc not found"
        );
        eprintln!("SKIPPED: libnvrtc not found");
        return;
    }
    let limits = DeviceLimits::profile("h100-cuda").expect("profile");
    for precision in [Precision::F16, Precision::Bf16] {
        for k in [6, 12, 18] {
            let spec = FftSpec::new(1 << k).batch(8).precision(precision);
            let plan = Plan::new(&spec, &limits).expect("plan");
            for (pass, in_place) in plan.kernels() {
                let src = plan
                    .source(pass, in_place, Dialect::Cuda)
                    .expect("kernel source");
                if let Err(e) = nvrtc::compile(&src, "sm_75") {
                    panic!("{e}\n{src}");
                }
            }
        }
    }
}

/// Real weights of 1, one per element of `len`.
fn weights(len: usize) -> tierfft::PointOp {
    tierfft::PointOp::Weight(tierfft::RealWeights::new(&vec![1.0; len]))
}
