//! `tierfft sar --raw` on echoes from a simulator written apart from tierfft-sar's:
//! `scripts/independent-sar.py` simulates five scenes with NumPy (C band at 3001 × 2503 with
//! a start-referenced chirp and an unknown centroid; X band with a down-chirp squinted
//! 230 Hz, not given; L band with a centroid table; a sinc² antenna pattern; a squinted
//! sinc² beam whose skirts alias, nothing given), focuses each
//! with the Range-Doppler and chirp scaling algorithms on the CPU, and measures every target
//! itself: placed within 0.1 bin, IRW within 3 % and PSLR within 0.5 dB of theory.
//! `scripts/test` installs NumPy and sets `TIERFFT_REQUIRE_NUMPY`.

use std::process::Command;

#[test]
fn independently_simulated_scenes_focus_to_theory() {
    let numpy = Command::new("python3")
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !numpy {
        assert!(
            std::env::var_os("TIERFFT_REQUIRE_NUMPY").is_none(),
            "TIERFFT_REQUIRE_NUMPY is set, but python3 cannot import numpy"
        );
        eprintln!("python3 cannot import numpy: the independent SAR scenes did not run");
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/independent-sar.py"
    );
    let out = Command::new("python3")
        .arg(script)
        .args(["--tierfft", env!("CARGO_BIN_EXE_tierfft")])
        .args(["--device", "cpu"])
        .output()
        .expect("run scripts/independent-sar.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{text}");
}
