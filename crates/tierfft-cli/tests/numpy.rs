//! `tierfft fft` against NumPy itself: `scripts/numpy-check.py` runs the binary on the CPU and
//! on lavapipe over some 360 cases each (fft, fftn, rfft, rfftn, irfft, irfftn over every
//! ordered subset of axes to rank 4, norms, `n` and `s`, repeated axes, NumPy's input
//! dtypes and Fortran order) and compares with NumPy's output. `scripts/test` installs NumPy
//! and sets `TIERFFT_REQUIRE_NUMPY`, so that a machine without it fails instead of skipping.

use std::process::Command;

#[test]
fn the_fft_command_matches_numpy_on_the_cpu_and_lavapipe() {
    let numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !numpy {
        assert!(
            std::env::var_os("TIERFFT_REQUIRE_NUMPY").is_none(),
            "TIERFFT_REQUIRE_NUMPY is set, but python3 cannot import numpy"
        );
        eprintln!("python3 cannot import numpy: the NumPy comparison did not run");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/numpy-check.py");
    let out = Command::new("python3")
        .arg(script)
        .args(["--tierfft", env!("CARGO_BIN_EXE_tierfft")])
        .args(["--device", "cpu,lavapipe"])
        .output()
        .expect("run scripts/numpy-check.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{text}");
}
