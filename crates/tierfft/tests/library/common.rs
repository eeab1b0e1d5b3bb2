//! Shared helpers for the integration tests: the lavapipe device, fresh random inputs,
//! poisoned outputs, and the accuracy bound.
#![allow(dead_code)] // each test binary uses its own subset

use std::sync::OnceLock;

use num_complex::{Complex32, Complex64};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use tierfft::debug::reference;
use tierfft::{Device, Direction, FftSpec};

/// Buffer offsets of every element of `shape` laid out by `strides` (elements between
/// neighbours along each axis), in row-major order.
pub fn strided_offsets(shape: &[usize], strides: &[usize]) -> Vec<usize> {
    let len: usize = shape.iter().product();
    (0..len)
        .map(|i| {
            let (mut rest, mut at) = (i, 0);
            for (&n, &s) in shape.iter().zip(strides).rev() {
                at += (rest % n) * s;
                rest /= n;
            }
            at
        })
        .collect()
}

/// Relative L2 error every transform up to 2^22 must meet (cuFFT on the H100: 1.2e-7 at
/// N = 64 rising to 3.1e-7 at 2^20, docs/BENCHMARKS.md).
pub const BOUND: f64 = 5e-7;

/// The GPU the tests run on: lavapipe unless `TIERFFT_TEST_DEVICE` names another adapter
/// (e.g. `gpu` on a machine with one). Fails loudly when there is none: these tests exist
/// to run the kernels for real.
pub fn gpu() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            // Mesa warns without it; a private directory keeps the test output clean.
            let dir = std::env::temp_dir().join(format!("tierfft-xdg-{}", std::process::id()));
            let _ = std::fs::create_dir_all(&dir);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
            }
            // SAFETY: set once, before any thread of this process reads the environment
            // through Vulkan (the OnceLock runs this before the first device exists).
            unsafe { std::env::set_var("XDG_RUNTIME_DIR", dir) };
        }
        let device = open_gpu();
        eprintln!("GPU tests run on {}", device.name());
        device
    })
}

/// The GPU of [`gpu`] opened again: a device of its own (its own N-D work arrays), for
/// tests that watch what a device holds while others run on [`gpu`].
pub fn gpu_again() -> Device {
    gpu();
    open_gpu()
}

fn open_gpu() -> Device {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"))
}

/// A fresh seeded generator; the seed is printed so a failure can be replayed with
/// `TIERFFT_SEED`.
pub fn rng() -> StdRng {
    let seed = std::env::var("TIERFFT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

/// `len` complex values uniform in [-1, 1)².
pub fn random(rng: &mut StdRng, len: usize) -> Vec<Complex32> {
    (0..len)
        .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect()
}

/// A buffer of NaNs: any element a kernel fails to write makes the error NaN.
pub fn poisoned(len: usize) -> Vec<Complex32> {
    vec![Complex32::new(f32::NAN, f32::NAN); len]
}

/// The f64 reference of `spec` applied to `input`.
pub fn expected(spec: &FftSpec, input: &[Complex32]) -> Vec<Complex64> {
    reference::spec_f64(spec, input)
}

/// Asserts `got` matches the reference of `spec` on `input` within [`BOUND`].
pub fn assert_accurate(what: &str, spec: &FftSpec, input: &[Complex32], got: &[Complex32]) -> f64 {
    let err = reference::relative_l2_error(got, &expected(spec, input));
    assert!(
        err <= BOUND,
        "{what}: n = {} batch = {} {:?}: relative L2 error {err:e} > {BOUND:e}",
        spec.n,
        spec.batch,
        spec.direction
    );
    err
}

/// Both directions, unnormalised and normalised inverse.
pub fn directions() -> [(Direction, bool); 3] {
    [
        (Direction::Forward, false),
        (Direction::Inverse, false),
        (Direction::Inverse, true),
    ]
}
