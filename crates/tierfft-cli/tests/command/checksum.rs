//! `tierfft fft --checksum`: checked transforms give the unchecked result and say so; what
//! the checksums do not cover fails before any work, writing nothing.

use tierfft::NdSpec;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};

use crate::common::{TempDir, assert_ok, fails_with, num_c64, random, read_c64, stderr, write_npy};

/// A 3-D complex array transformed over its last two axes with `--checksum MODE`, against
/// the f64 reference, on `device`.
fn checked_matches_reference(device: &str, mode: &[&str]) {
    let dir = TempDir::new("checksum");
    let shape = [2u64, 48, 64];
    let x = random(2 * 48 * 64, 7);
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    write_npy(&inp, &shape, &x);
    let mut args = vec![
        "fft",
        "-i",
        inp.to_str().unwrap(),
        "-o",
        outp.to_str().unwrap(),
    ];
    args.extend(["--device", device, "--axes", "1,2"]);
    args.extend(mode);
    let out = dir.run(&args);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("checksums passed"),
        "{}",
        stderr(&out)
    );
    let (got_shape, y) = read_c64(&outp);
    assert_eq!(got_shape, shape);
    let spec = NdSpec::new(&[2, 48, 64]).axes(&[1, 2]);
    let err = relative_l2_error(&y, &nd_f64(&spec, &NdInput::Complex(&x)));
    assert!(err <= 5e-7, "{device} {mode:?}: relative L2 error {err:e}");
}

#[test]
fn checked_fft_on_the_cpu() {
    checked_matches_reference("cpu", &["--checksum"]);
    checked_matches_reference("cpu", &["--checksum", "recompute"]);
}

#[test]
fn checked_fft_on_lavapipe() {
    checked_matches_reference("lavapipe", &["--checksum", "detect"]);
}

/// complex128 on the CPU is checked in f64 (through the checked N-D path, not the unchecked
/// f64 one).
#[test]
fn checked_fft_in_f64() {
    let dir = TempDir::new("checksum-f64");
    let x = random(4 * 360, 8);
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let wide: Vec<_> = x.iter().map(|&z| num_c64(z)).collect();
    write_npy(&inp, &[4, 360], &wide);
    let (i, o) = (inp.to_str().unwrap(), outp.to_str().unwrap());
    let out = dir.run(&["fft", "-i", i, "-o", o, "--device", "cpu", "--checksum"]);
    assert_ok(&out);
    let msg = stderr(&out);
    assert!(
        msg.contains("in f64") && msg.contains("checksums passed"),
        "{msg}"
    );
}

/// Real transforms and Bluestein lengths are refused before any work: no output file.
#[test]
fn unchecked_kinds_are_refused() {
    let dir = TempDir::new("checksum-refused");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let (i, o) = (inp.to_str().unwrap(), outp.to_str().unwrap());
    write_npy(&inp, &[8, 64], &vec![0.5f32; 8 * 64]);
    let real = dir.run(&[
        "fft",
        "-i",
        i,
        "-o",
        o,
        "--device",
        "cpu",
        "--real",
        "--checksum",
    ]);
    fails_with(&real, &["C2C", "R2C"]);
    write_npy(&inp, &[4, 1009], &random(4 * 1009, 9));
    let prime = dir.run(&["fft", "-i", i, "-o", o, "--device", "cpu", "--checksum"]);
    fails_with(&prime, &["axis 1", "prime factor"]);
    assert_eq!(dir.files(), ["x.npy"], "an output was written");
}
