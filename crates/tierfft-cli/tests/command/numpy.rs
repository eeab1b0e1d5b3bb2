//! `tierfft fft` against NumPy itself: `scripts/numpy-check.py` runs the binary on the CPU and
//! on lavapipe (one process each, `tierfft fft --jobs`) over some 360 cases each (fft, fftn, rfft, rfftn, irfft, irfftn over every
//! ordered subset of axes to rank 4, norms, `n` and `s`, repeated axes, NumPy's input
//! dtypes and Fortran order) and compares with NumPy's output. `scripts/test` installs NumPy
//! and sets `TIERFFT_REQUIRE_NUMPY`, so that a machine without it fails instead of skipping.

#[test]
fn the_fft_command_matches_numpy_on_the_cpu_and_lavapipe() {
    crate::common::run_numpy_script("numpy-check.py", &["--device", "cpu,lavapipe"]);
}
