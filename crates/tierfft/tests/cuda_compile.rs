//! Every CUDA kernel the planner can produce for n = 2^0 .. 2^24 compiles with NVRTC for
//! Hopper (sm_90), so a code-generation error fails CI although no GPU runs there.
//! Needs libnvrtc (CI: `pip install nvidia-cuda-nvrtc`, see scripts/test); without it the test
//! says why it skipped, and fails when `TIERFFT_REQUIRE_NVRTC=1`.

use std::collections::BTreeSet;

use tierfft::FftSpec;
use tierfft::backend::cuda::nvrtc;
use tierfft::kernel::{cuda, pass_kernel};
use tierfft::plan::{DeviceLimits, Plan};

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
    for k in 0..=tierfft::MAX_LOG2_N {
        for batch in [1, 1000] {
            for spec in [
                FftSpec::new(1 << k).batch(batch),
                FftSpec::new(1 << k).batch(batch).inverse().normalized(),
            ] {
                let plan = Plan::new(&spec, &limits).expect("plan");
                for pass in 0..plan.passes.len() {
                    sources.insert(cuda::print(&pass_kernel(&plan, pass, false)));
                    if plan.passes.len() == 1 {
                        sources.insert(cuda::print(&pass_kernel(&plan, pass, true)));
                    }
                }
            }
        }
    }
    let (major, minor) = nvrtc::version().expect("version");
    let sources: Vec<String> = sources.into_iter().collect();
    // Two threads: CI has two cores.
    std::thread::scope(|s| {
        for half in sources.chunks(sources.len().div_ceil(2)) {
            s.spawn(move || {
                for src in half {
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
