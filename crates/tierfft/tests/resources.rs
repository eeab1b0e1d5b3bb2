//! Resource behaviour: plans created and dropped in their hundreds, and transforms run in a
//! loop, leave the process's resident memory and the device's free memory where they were
//! after the first round (no leak per plan or per call). Short in CI; longer with
//! `TIERFFT_SOAK_PLANS` (plans in all) and `TIERFFT_SOAK_SECONDS` (seconds of transforms),
//! as `scripts/device-run.sh soak` runs them on the H100.

#[path = "library/common.rs"]
mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::*;
use num_complex::Complex32;
use tierfft::{Device, FftSpec, NdSpec};

/// The tests measure the whole process's memory: they run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Resident memory of this process, bytes (Linux; 0 elsewhere).
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Memory now: resident bytes, and the device's free bytes where it says (CUDA).
fn memory(dev: &Device) -> (u64, Option<u64>) {
    (rss(), dev.free_memory().expect("free memory"))
}

/// Asserts memory after the last round is within `slack` bytes of after the first round.
fn assert_flat(what: &str, first: (u64, Option<u64>), last: (u64, Option<u64>), slack: u64) {
    eprintln!(
        "{what}: resident {:.1} -> {:.1} MiB; device free {} -> {} MiB",
        mib(first.0),
        mib(last.0),
        first.1.map_or("-".into(), |f| format!("{:.1}", mib(f))),
        last.1.map_or("-".into(), |f| format!("{:.1}", mib(f))),
    );
    assert!(
        last.0 <= first.0 + slack,
        "{what}: resident memory grew {:.1} MiB",
        mib(last.0.saturating_sub(first.0))
    );
    if let (Some(a), Some(b)) = (first.1, last.1) {
        assert!(
            b + slack >= a,
            "{what}: device free memory fell {:.1} MiB",
            mib(a.saturating_sub(b))
        );
    }
}

/// Plans of every kind (one- and multi-pass, columns, chains, Bluestein, N-D real), each
/// used once and dropped, round after round.
#[test]
fn plans_created_and_dropped_leave_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let plans = env("TIERFFT_SOAK_PLANS", 120);
    for dev in [Device::cpu(), gpu().clone()] {
        let mut rng = rng();
        let h: std::sync::Arc<[Complex32]> = random(&mut rng, 512).into();
        let specs = [
            FftSpec::new(1024).batch(4),
            FftSpec::new(1 << 16),
            FftSpec::new(128).batch(64).columns(),
            FftSpec::new(512).batch(2).then_multiply_and_invert(h),
            FftSpec::new(1009),
        ];
        let round = specs.len() as u64 + 1;
        let rounds = (plans / round).max(4);
        let mut first = None;
        for r in 0..rounds {
            for spec in &specs {
                let fft = dev.plan(spec).expect("plan");
                let mut data = random(&mut rng, spec.len());
                fft.process(&mut data).expect("run");
            }
            let nd = dev.plan_nd(&NdSpec::new(&[16, 256]).real()).expect("plan");
            let mut out = poisoned(16 * 129);
            nd.process_real_to_complex(&vec![1.0f32; 16 * 256], &mut out)
                .expect("run");
            // After two rounds the caches (compiled kernels, pools, the allocator's arenas)
            // are warm.
            if r == 1 {
                first = Some(memory(&dev));
            }
        }
        let what = format!("{}: {} plans", dev.name(), rounds * round);
        assert_flat(&what, first.expect("a round"), memory(&dev), 24 << 20);
    }
}

/// One plan run over and over on host slices and on device buffers (uploads, downloads and
/// the plan's kept scratch).
#[test]
fn transforms_in_a_loop_leave_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let seconds = env("TIERFFT_SOAK_SECONDS", 2);
    for dev in [Device::cpu(), gpu().clone()] {
        let spec = FftSpec::new(4096).batch(64);
        let fft = dev.plan(&spec).expect("plan");
        let mut rng = rng();
        let input = random(&mut rng, spec.len());
        let mut out = poisoned(spec.len());
        let mut calls = 0u64;
        let run = |calls: &mut u64, out: &mut Vec<Complex32>| {
            fft.process_out_of_place(&input, out).expect("run");
            let mut buf = dev.upload(&input).expect("upload");
            fft.process_buffer(&mut buf).expect("run on device");
            *out = buf.download().expect("download");
            *calls += 2;
        };
        for _ in 0..10 {
            run(&mut calls, &mut out);
        }
        let first = memory(&dev);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(seconds) {
            run(&mut calls, &mut out);
        }
        assert_accurate("the last call", &spec, &input, &out);
        let what = format!("{}: {calls} calls over {seconds} s", dev.name());
        // (A leak of one 2 MiB buffer a call would exceed this many times over.)
        assert_flat(&what, first, memory(&dev), 24 << 20);
    }
}
