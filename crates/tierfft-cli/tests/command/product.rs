//! `tierfft sar --l0b`: the real ALOS-1 PALSAR chip in `../shared/data` focused end to end
//! (skipped with a message where the folder is absent), and the product options' mistakes
//! refused by name before anything is written.

use std::path::PathBuf;

use crate::common::{TempDir, assert_ok, fails_with, metrics, python_imports, text};

/// The chip, or `None` (said on stderr) where it is absent.
fn chip() -> Option<PathBuf> {
    let dir = match std::env::var_os("TIERFFT_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let path = dir.join("alos1_palsar_l0b_chip.h5");
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: {} is absent (set TIERFFT_DATA)", path.display());
        None
    }
}

/// `tierfft sar --device cpu --l0b PRODUCT --out OUT` and `extra`.
fn sar_l0b(
    dir: &TempDir,
    product: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "sar",
        "--device",
        "cpu",
        "--l0b",
        text(product),
        "--out",
        text(out),
    ];
    args.extend_from_slice(extra);
    dir.run(&args)
}

#[test]
fn the_alos_chip_focuses_from_its_product() {
    let Some(chip) = chip() else { return };
    let dir = TempDir::new("l0b");
    let out = dir.path("out");
    let o = sar_l0b(&dir, &chip, &out, &[]);
    assert_ok(&o);
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("ALOS frequencyA HH, 1000 pulses × 2200 samples"),
        "{said}"
    );
    assert!(
        said.contains("Doppler centroid from orbit and attitude"),
        "{said}"
    );
    let m = metrics(&out);
    let p = &m["product"];
    assert_eq!(p["mission"], "ALOS");
    let factor = p["azimuth_resolution_factor"].as_f64().unwrap();
    // 1000 pulses of an aperture of about 6200: a sixth of it.
    assert!((5.5..7.0).contains(&factor), "{factor}");
    let v = p["geometry"]["effective_velocity_mps"][1].as_f64().unwrap();
    assert!((6900.0..7100.0).contains(&v), "{v}");
    assert_eq!(m["lines"], 1000);
    assert_eq!(m["samples"], 2200);
    assert_eq!(m["doppler_centroid"]["source"], "estimated");
    for file in [
        "image.png",
        "raw.png",
        "focused.npy",
        "metrics.json",
        "range_compressed.npy",
        "range_compressed.png",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    independent_range_compression(&chip, &out);
}

/// `scripts/independent-l0b.py`: the chip decoded and compressed in range by NumPy and
/// h5py alone, against `range_compressed.npy`, to 1e-5 in relative L2. Skipped without
/// them, unless `TIERFFT_REQUIRE_NUMPY` is set (as `scripts/test` does, installing both).
fn independent_range_compression(chip: &std::path::Path, out: &std::path::Path) {
    if !python_imports("numpy, h5py") {
        eprintln!("python3 cannot import numpy and h5py: the independent check did not run");
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/independent-l0b.py");
    let o = std::process::Command::new("python3")
        .args([text(&script), text(chip), text(out)])
        .output()
        .expect("run scripts/independent-l0b.py");
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let result: serde_json::Value = serde_json::from_str(said.trim()).expect("JSON");
    let rel = result["relative_l2"].as_f64().unwrap();
    eprintln!("range compression against NumPy: relative L2 {rel:.2e}");
    assert!(rel < 1e-5, "{result}");
}

#[test]
fn product_mistakes_are_refused_by_name() {
    let dir = TempDir::new("l0b-bad");
    let out = dir.path("out");
    let not_hdf5 = dir.path("echoes.h5");
    std::fs::write(&not_hdf5, b"not an HDF5 file at all").unwrap();
    let o = sar_l0b(&dir, &not_hdf5, &out, &[]);
    fails_with(&o, &["echoes.h5", "cannot be read as HDF5"]);
    assert!(!out.exists(), "nothing written");
    let o = dir.run(&["sar", "--l0b", text(&not_hdf5), "--lines", "64"]);
    assert_eq!(o.status.code(), Some(2), "--lines conflicts with --l0b");
    let Some(chip) = chip() else { return };
    let o = sar_l0b(&dir, &chip, &out, &["--channel", "B/HV"]);
    fails_with(&o, &["no channel B/HV", "A/HH"]);
    let o = sar_l0b(&dir, &chip, &out, &["--antenna-m=-3"]);
    fails_with(&o, &["antenna length", "-3"]);
    assert!(!out.exists(), "nothing written");
}
