//! End-to-end tests of the `tierfft` binary: `.npy` files in, `.npy` files out, checked
//! against the f64 reference; bad inputs; `plan`, `devices` and `bench`.
//!
//! GPU paths run on Mesa's lavapipe (`--device lavapipe`), so they need no GPU.

use std::path::Path;
use std::process::Output;

use tierfft::debug::reference::{fft_f64, relative_l2_error};
use tierfft::{Complex32, Direction};

use crate::common::{TempDir, assert_ok, num_c64, random, read_c64, stderr, write_npy};

/// Runs `tierfft fft` from `input` to `output` on `device`, with `extra` arguments (the long
/// option names; a test of `--normalize` below uses the short ones).
fn run_fft(dir: &TempDir, input: &Path, output: &Path, device: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "fft",
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ];
    args.extend(["--device", device]);
    args.extend(extra);
    dir.run(&args)
}

/// Writes random data of `shape`, runs `fft` on `device`, and returns the input and output.
fn transform(
    dir: &TempDir,
    shape: &[u64],
    device: &str,
    extra: &[&str],
) -> (Vec<Complex32>, Vec<Complex32>) {
    let len = shape.iter().product::<u64>() as usize;
    let x = random(len, 42 + len as u64);
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    write_npy(&inp, shape, &x);
    let out = run_fft(dir, &inp, &outp, device, extra);
    assert_ok(&out);
    assert!(
        stderr(&out).contains("over axes"),
        "no summary line: {}",
        stderr(&out)
    );
    let (got_shape, y) = read_c64(&outp);
    assert_eq!(got_shape, shape);
    (x, y)
}

fn forward_matches_reference(device: &str, shape: &[u64]) {
    let dir = TempDir::new("forward");
    let (x, y) = transform(&dir, shape, device, &[]);
    let n = *shape.last().unwrap() as usize;
    let err = relative_l2_error(&y, &fft_f64(&x, n, Direction::Forward));
    assert!(err <= 5e-7, "{device} {shape:?}: relative L2 error {err:e}");
    assert_eq!(dir.files(), ["x.npy", "y.npy"], "stray files left");
}

#[test]
fn fft_2d_cpu() {
    forward_matches_reference("cpu", &[3, 1024]);
}

#[test]
fn fft_2d_lavapipe() {
    forward_matches_reference("lavapipe", &[3, 1024]);
}

#[test]
fn fft_1d_cpu() {
    forward_matches_reference("cpu", &[4096]);
}

#[test]
fn fft_1d_lavapipe() {
    forward_matches_reference("lavapipe", &[4096]);
}

fn round_trip(device: &str) {
    let dir = TempDir::new("roundtrip");
    let (x, _) = transform(&dir, &[2, 4096], device, &[]);
    let (yp, zp) = (dir.path("y.npy"), dir.path("z.npy"));
    let out = run_fft(&dir, &yp, &zp, device, &["--inverse"]);
    assert_ok(&out);
    let (shape, z) = read_c64(&zp);
    assert_eq!(shape, [2, 4096]);
    let back: Vec<_> = x.iter().map(|v| num_c64(*v)).collect();
    let err = relative_l2_error(&z, &back);
    assert!(err <= 1e-6, "{device}: round trip error {err:e}");
}

#[test]
fn inverse_normalized_round_trip_cpu() {
    round_trip("cpu");
}

#[test]
fn inverse_normalized_round_trip_lavapipe() {
    round_trip("lavapipe");
}

/// `tierfft fft --jobs`: many transforms in one process, each job's result on a line of its
/// own; a failing job is reported by number and fails the run, and the others still run.
#[test]
fn jobs_run_many_transforms_in_one_process() {
    let dir = TempDir::new("jobs");
    let x = random(2 * 1024, 5);
    let xp = dir.path("x.npy");
    write_npy(&xp, &[2, 1024], &x);
    let (y_cpu, y_lvp) = (dir.path("y-cpu.npy"), dir.path("y-lvp.npy"));
    let jobs = dir.path("jobs.txt");
    let bad = dir.path("missing.npy");
    std::fs::write(
        &jobs,
        format!(
            "# forward on two devices, then one that fails\n\n\
             -i {x} -o {a} -d cpu\n-i {x} -o {b} -d lavapipe --inverse\n-i {m} -o {a2}\n",
            x = xp.display(),
            a = y_cpu.display(),
            b = y_lvp.display(),
            m = bad.display(),
            a2 = dir.path("never.npy").display(),
        ),
    )
    .expect("write the jobs");
    let out = dir.run(&["fft", "--jobs", jobs.to_str().expect("UTF-8 path")]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "a failed job fails the run: {said}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines[..2], ["job 3: ok", "job 4: ok"], "{said}");
    assert!(
        lines[2].starts_with("job 5: error:") && lines[2].contains("missing.npy"),
        "{said}"
    );
    assert!(stderr(&out).contains("1 of 3 jobs"), "{}", stderr(&out));
    assert!(!dir.path("never.npy").exists());
    // NumPy's scaling: the inverse divides by n.
    for (path, direction, scale) in [
        (&y_cpu, Direction::Forward, 1.0),
        (&y_lvp, Direction::Inverse, 1.0 / 1024.0),
    ] {
        let (shape, y) = read_c64(path);
        assert_eq!(shape, [2, 1024]);
        let want: Vec<_> = fft_f64(&x, 1024, direction)
            .iter()
            .map(|z| z * scale)
            .collect();
        let err = relative_l2_error(&y, &want);
        assert!(err <= 1e-6, "{}: {err:e}", path.display());
    }
}

/// `--norm` scales as NumPy's `norm` does: backward (the default) 1/n on the inverse only,
/// forward 1/n on the forward only, ortho 1/√n on both.
#[test]
fn norm_scales_like_numpy() {
    let n = 2048;
    for device in ["cpu", "lavapipe"] {
        let dir = TempDir::new("norm");
        for (args, direction, scale) in [
            (vec![], Direction::Forward, 1.0),
            (vec!["--inverse"], Direction::Inverse, 1.0 / n as f64),
            (vec!["--norm", "backward"], Direction::Forward, 1.0),
            (
                vec!["--norm", "forward"],
                Direction::Forward,
                1.0 / n as f64,
            ),
            (
                vec!["--norm", "forward", "--inverse"],
                Direction::Inverse,
                1.0,
            ),
            (
                vec!["--norm", "ortho"],
                Direction::Forward,
                1.0 / (n as f64).sqrt(),
            ),
            (
                vec!["--norm", "ortho", "--inverse"],
                Direction::Inverse,
                1.0 / (n as f64).sqrt(),
            ),
        ] {
            let (x, y) = transform(&dir, &[3, n as u64], device, &args);
            let want: Vec<_> = fft_f64(&x, n, direction)
                .into_iter()
                .map(|z| z * scale)
                .collect();
            let err = relative_l2_error(&y, &want);
            assert!(err <= 5e-7, "{device} {args:?}: relative L2 error {err:e}");
        }
    }
    // The old flag is gone rather than ambiguous.
    let dir = TempDir::new("norm-old");
    let out = dir.run(&["fft", "-i", "x.npy", "-o", "y.npy", "--normalize"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--normalize"), "{}", stderr(&out));
}

/// Runs `fft` on `input` (already written, or missing) and checks it fails with a message
/// containing every one of `words`, and leaves no output or temporary file behind.
fn rejects(dir: &TempDir, input: &str, device: &str, words: &[&str]) {
    let before = dir.files();
    let outp = dir.path("out.npy");
    let out = run_fft(dir, &dir.path(input), &outp, device, &[]);
    let msg = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{input}: expected exit 1, stderr: {msg}"
    );
    assert!(msg.starts_with("error: "), "{input}: {msg}");
    for w in words {
        assert!(msg.contains(w), "{input}: message lacks '{w}': {msg}");
    }
    assert!(!msg.contains("panicked"), "{input}: {msg}");
    assert!(!outp.exists(), "{input}: output written despite the error");
    assert_eq!(dir.files(), before, "{input}: files changed");
}

#[test]
fn bad_inputs_are_rejected_without_output() {
    let dir = TempDir::new("bad");
    let x = random(3 * 1024, 1);
    // float128 (long double), which NumPy can write and tierfft does not read: the header by
    // hand.
    let header = "{'descr': '<f16', 'fortran_order': False, 'shape': (3, 4), }";
    let mut f128 = b"\x93NUMPY\x01\x00".to_vec();
    let padded = format!("{header:<117}\n");
    f128.extend((padded.len() as u16).to_le_bytes());
    f128.extend(padded.as_bytes());
    f128.extend([0u8; 192]);
    std::fs::write(dir.path("f128.npy"), f128).unwrap();
    write_npy(&dir.path("empty.npy"), &[0, 1024], &x[..0]);
    write_npy(&dir.path("scalar.npy"), &[], &x[..1]);
    std::fs::write(dir.path("text.npy"), "this is not an npy file\n").unwrap();
    for device in ["cpu", "lavapipe"] {
        rejects(
            &dir,
            "f128.npy",
            device,
            &["<f16", "complex64", "astype(np.complex64)"],
        );
        rejects(&dir, "empty.npy", device, &["empty"]);
        rejects(&dir, "scalar.npy", device, &["0-d"]);
        rejects(&dir, "text.npy", device, &["text.npy", "not a valid .npy"]);
        rejects(&dir, "missing.npy", device, &["missing.npy", "cannot open"]);
    }
}

/// An output name that does not say .npy is refused before any work (a `.txt` name would
/// hold binary .npy bytes), naming the name to use.
#[test]
fn output_names_say_npy() {
    let dir = TempDir::new("outname");
    let inp = dir.path("x.npy");
    write_npy(&inp, &[8], &random(8, 2));
    let before = dir.files();
    let txt = dir.path("y.txt");
    let out = run_fft(&dir, &inp, &txt, "cpu", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("y.npy"), "{}", stderr(&out));
    assert_eq!(dir.files(), before);
}

/// What `np.save` writes by default (float64, complex128, int64 from `np.arange`), float32,
/// smaller integers and bool are read as complex64 with `--precision f32`, and arrays of any number of axes are
/// transformed along the last one, as `np.fft.fft`; Fortran-order files (`np.save` of a
/// transposed array) are put in C order first.
#[test]
fn numpy_dtypes_and_axes() {
    let dir = TempDir::new("dtypes");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let shape = [2u64, 3, 100];
    let x = random(600, 5);
    let c128: Vec<_> = x.iter().map(|&z| num_c64(z)).collect();
    let f64s: Vec<f64> = x.iter().map(|z| z.re.into()).collect();
    let f32s: Vec<f32> = x.iter().map(|z| z.re).collect();
    let real: Vec<Complex32> = x.iter().map(|z| Complex32::new(z.re, 0.0)).collect();
    // Integers and booleans: the reals scaled to -100..100 and their signs.
    let i64s: Vec<i64> = x.iter().map(|z| (z.re * 100.0).round() as i64).collect();
    let ints: Vec<Complex32> = i64s
        .iter()
        .map(|&v| Complex32::new(v as f32, 0.0))
        .collect();
    let u8s: Vec<u8> = i64s.iter().map(|&v| (v + 100) as u8).collect();
    let bytes: Vec<Complex32> = u8s.iter().map(|&v| Complex32::new(v.into(), 0.0)).collect();
    let bools: Vec<bool> = x.iter().map(|z| z.re > 0.0).collect();
    let ones: Vec<Complex32> = bools
        .iter()
        .map(|&b| Complex32::new(f32::from(u8::from(b)), 0.0))
        .collect();
    for device in ["cpu", "lavapipe"] {
        for (dtype, want_in) in [
            ("complex128", &x),
            ("float64", &real),
            ("float32", &real),
            ("int64", &ints),
            ("int16", &ints),
            ("uint8", &bytes),
            ("bool", &ones),
        ] {
            match dtype {
                "complex128" => write_npy(&inp, &shape, &c128),
                "float64" => write_npy(&inp, &shape, &f64s),
                "int64" => write_npy(&inp, &shape, &i64s),
                "int16" => {
                    let v: Vec<i16> = i64s.iter().map(|&v| v as i16).collect();
                    write_npy(&inp, &shape, &v)
                }
                "uint8" => write_npy(&inp, &shape, &u8s),
                "bool" => write_npy(&inp, &shape, &bools),
                _ => write_npy(&inp, &shape, &f32s),
            }
            let out = run_fft(&dir, &inp, &outp, device, &["--precision", "f32"]);
            assert_ok(&out);
            assert!(
                stderr(&out).contains(&format!("{dtype} input read as complex64")),
                "{}",
                stderr(&out)
            );
            let (got_shape, y) = read_c64(&outp);
            assert_eq!(got_shape, shape);
            let err = relative_l2_error(&y, &fft_f64(want_in, 100, Direction::Forward));
            assert!(err <= 5e-7, "{device}, {dtype}: relative L2 error {err:e}");
        }
        // Fortran order: element [i][j] of the [6, 100] array at j·6 + i in the file.
        use npyz::WriterBuilder;
        let file = std::io::BufWriter::new(std::fs::File::create(&inp).unwrap());
        let mut w = npyz::WriteOptions::<npyz::num_complex::Complex64>::new()
            .default_dtype()
            .order(npyz::Order::Fortran)
            .shape(&[6, 100])
            .writer(file)
            .begin_nd()
            .unwrap();
        w.extend(c128.iter().copied()).unwrap();
        w.finish().unwrap();
        let rows: Vec<Complex32> = (0..600).map(|e| x[(e % 100) * 6 + e / 100]).collect();
        assert_ok(&run_fft(&dir, &inp, &outp, device, &["--precision", "f32"]));
        let (got_shape, y) = read_c64(&outp);
        assert_eq!(got_shape, [6, 100]);
        let err = relative_l2_error(&y, &fft_f64(&rows, 100, Direction::Forward));
        assert!(
            err <= 5e-7,
            "{device}, Fortran order: relative L2 error {err:e}"
        );
    }
}

/// float64 and complex128 files are transformed in f64 on the CPU (C2C, R2C, C2R; complex128
/// and float64 out, within 1e-14 of an f64 DFT); on a device without f64 in f32 with a note,
/// and `--precision f64` there is refused before anything is written.
#[test]
fn double_precision_files_transform_in_f64_on_the_cpu_and_lavapipe() {
    use npyz::num_complex::Complex64;
    let dir = TempDir::new("f64");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let n = 96;
    let x: Vec<Complex64> = random(2 * n, 9).into_iter().map(num_c64).collect();
    // Each row's DFT in f64, sign -1 forward.
    let dft = |rows: &[Complex64], n: usize| -> Vec<Complex64> {
        rows.chunks(n)
            .flat_map(|row| {
                (0..n).map(move |k| {
                    row.iter()
                        .enumerate()
                        .fold(Complex64::new(0.0, 0.0), |acc, (j, v)| {
                            let angle =
                                -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                            acc + v * Complex64::from_polar(1.0, angle)
                        })
                })
            })
            .collect()
    };
    let error = |got: &[Complex64], want: &[Complex64]| {
        let diff: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
        let norm: f64 = want.iter().map(|b| b.norm_sqr()).sum();
        (diff / norm).sqrt()
    };
    let read = |path: &Path, descr: &str| -> Vec<Complex64> {
        let npy = npyz::NpyFile::new(std::fs::File::open(path).unwrap()).unwrap();
        assert_eq!(npy.dtype().descr(), format!("'{descr}'"));
        match descr {
            "<f8" => npy
                .into_vec::<f64>()
                .unwrap()
                .into_iter()
                .map(|v| Complex64::new(v, 0.0))
                .collect(),
            _ => npy.into_vec::<Complex64>().unwrap(),
        }
    };
    // C2C from complex128.
    write_npy(&inp, &[2, n as u64], &x);
    let out = run_fft(&dir, &inp, &outp, "cpu", &[]);
    assert_ok(&out);
    assert!(stderr(&out).contains("C2C FFT in f64"), "{}", stderr(&out));
    let err = error(&read(&outp, "<c16"), &dft(&x, n));
    assert!(err <= 1e-14, "C2C f64: relative L2 error {err:e}");
    // R2C from float64, then C2R back.
    let reals: Vec<f64> = x.iter().map(|z| z.re).collect();
    write_npy(&inp, &[2, n as u64], &reals);
    assert_ok(&run_fft(&dir, &inp, &outp, "cpu", &["--real"]));
    let widened: Vec<Complex64> = reals.iter().map(|&v| Complex64::new(v, 0.0)).collect();
    let half: Vec<Complex64> = dft(&widened, n)
        .chunks(n)
        .flat_map(|row| row[..n / 2 + 1].to_vec())
        .collect();
    let bins = read(&outp, "<c16");
    let err = error(&bins, &half);
    assert!(err <= 1e-14, "R2C f64: relative L2 error {err:e}");
    let back = dir.path("back.npy");
    assert_ok(&run_fft(
        &dir,
        &outp,
        &back,
        "cpu",
        &["--real", "--inverse", "--n", &n.to_string()],
    ));
    let err = error(&read(&back, "<f8"), &widened);
    assert!(err <= 1e-14, "C2R f64: relative L2 error {err:e}");
    // Asked for f32: complex64 out.
    write_npy(&inp, &[2, n as u64], &x);
    assert_ok(&run_fft(&dir, &inp, &outp, "cpu", &["--precision", "f32"]));
    assert_eq!(read_c64(&outp).0, [2, n as u64]);
    // lavapipe computes in f64 (SHADER_F64): complex128 in, f64 transforms, complex128 out;
    // f32 when asked for.
    let out = run_fft(&dir, &inp, &outp, "lavapipe", &[]);
    assert_ok(&out);
    assert!(stderr(&out).contains("FFT in f64"), "{}", stderr(&out));
    let err = error(&read(&outp, "<c16"), &dft(&x, n));
    assert!(
        err <= 1e-14,
        "C2C f64 on lavapipe: relative L2 error {err:e}"
    );
    let bins = dir.path("bins-gpu.npy");
    write_npy(&inp, &[2, n as u64], &reals);
    assert_ok(&run_fft(&dir, &inp, &bins, "lavapipe", &["--real"]));
    let err = error(&read(&bins, "<c16"), &half);
    assert!(
        err <= 1e-14,
        "R2C f64 on lavapipe: relative L2 error {err:e}"
    );
    write_npy(&inp, &[2, n as u64], &x);
    assert_ok(&run_fft(
        &dir,
        &inp,
        &outp,
        "lavapipe",
        &["--precision", "f32"],
    ));
    let (_, y) = read_c64(&outp);
    let err = relative_l2_error(&y, &dft(&x, n));
    assert!(
        err <= 5e-7,
        "C2C f32 on lavapipe: relative L2 error {err:e}"
    );
}

/// Any length on the CPU and on lavapipe: smooth, mixed and prime, against NumPy's
/// semantics (the f64 reference, scaled as `np.fft.fft` / `np.fft.ifft`).
#[test]
fn dct_and_dst_like_scipy_on_the_cpu_and_lavapipe() {
    use tierfft::debug::reference::trig_f64;
    use tierfft::{NdSpec, RealToReal, Trig};
    let dir = TempDir::new("trig");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let shape = [6usize, 10];
    let x: Vec<f64> = (0..60)
        .map(|i| ((i * 37) % 23) as f64 / 11.0 - 1.0)
        .collect();
    write_npy(&inp, &[6, 10], &x);
    let read = |path: &Path| -> Vec<f64> {
        let npy = npyz::NpyFile::new(std::fs::File::open(path).unwrap()).unwrap();
        assert_eq!(npy.dtype().descr(), "'<f8'");
        npy.into_vec::<f64>().unwrap()
    };
    let error = |got: &[f64], want: &[f64]| {
        let d: f64 = got.iter().zip(want).map(|(a, b)| (a - b).powi(2)).sum();
        (d / want.iter().map(|b| b * b).sum::<f64>()).sqrt()
    };
    // dctn(x, 2, axes=(0, 1), norm="ortho"): orthogonalised, 1/√(12 · 20).
    let ortho = RealToReal::new(Trig::DctII)
        .orthogonalized()
        .scaled(1.0 / 240f64.sqrt());
    let want = trig_f64(&NdSpec::new(&shape).trig(ortho), &x);
    for device in ["cpu", "lavapipe"] {
        let out = run_fft(
            &dir,
            &inp,
            &outp,
            device,
            &["--dct", "2", "--axes", "0,1", "--norm", "ortho"],
        );
        assert_ok(&out);
        assert!(
            stderr(&out).contains("forward DCT-II in f64"),
            "{}",
            stderr(&out)
        );
        let err = error(&read(&outp), &want);
        assert!(err <= 1e-14, "{device}: DCT-II: relative L2 error {err:e}");
    }
    // idst(x, 1) along the last axis: DST-I divided by 2(n + 1).
    let want = trig_f64(
        &NdSpec::new(&shape)
            .axes(&[1])
            .trig(Trig::DstI)
            .inverse()
            .normalized(),
        &x,
    );
    assert_ok(&run_fft(
        &dir,
        &inp,
        &outp,
        "cpu",
        &["--dst", "1", "--inverse"],
    ));
    assert!(error(&read(&outp), &want) <= 1e-14);
    // Refused before any output: a type that does not exist, complex data, --real.
    for (extra, words) in [
        (&["--dct", "5"][..], "no DCT of type 5"),
        (&["--dct", "2", "--real"][..], "cannot be used with"),
    ] {
        let out = run_fft(&dir, &inp, &dir.path("no.npy"), "cpu", extra);
        assert!(
            !out.status.success() && stderr(&out).contains(words),
            "{}",
            stderr(&out)
        );
    }
    write_npy(&inp, &[4], &random(4, 7));
    let out = run_fft(&dir, &inp, &dir.path("no.npy"), "cpu", &["--dst", "4"]);
    assert!(
        !out.status.success() && stderr(&out).contains("transforms reals"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path("no.npy").exists());
}

#[test]
fn any_length_on_the_cpu_and_lavapipe() {
    let dir = TempDir::new("any-length");
    for (device, n) in [
        ("cpu", 1u64),
        ("cpu", 1000),
        ("cpu", 4099),
        ("lavapipe", 1),
        ("lavapipe", 3),
        ("lavapipe", 17),
        ("lavapipe", 1000),
        ("lavapipe", 1920),
        ("lavapipe", 4099),
        ("lavapipe", 5616),
    ] {
        for inverse in [false, true] {
            let extra: &[&str] = if inverse { &["--inverse"] } else { &[] };
            let (x, y) = transform(&dir, &[3, n], device, extra);
            let (direction, scale) = match inverse {
                false => (Direction::Forward, 1.0),
                true => (Direction::Inverse, 1.0 / n as f64),
            };
            let want: Vec<_> = fft_f64(&x, n as usize, direction)
                .into_iter()
                .map(|z| z * scale)
                .collect();
            let err = relative_l2_error(&y, &want);
            assert!(
                err <= 1e-6,
                "{device}, n = {n}, inverse {inverse}: relative L2 error {err:e}"
            );
        }
    }
}

#[test]
fn failed_run_leaves_existing_output_untouched() {
    let dir = TempDir::new("keep");
    let (inp, outp) = (dir.path("bad.npy"), dir.path("out.npy"));
    let x = random(1000, 3);
    write_npy(&inp, &[1000], &x);
    std::fs::write(&outp, b"previous contents").unwrap();
    let out = run_fft(&dir, &inp, &outp, "cpu", &["--axes", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&outp).unwrap(), b"previous contents");
    assert_eq!(dir.files(), ["bad.npy", "out.npy"]);
}

#[test]
fn plan_for_a_profile() {
    let dir = TempDir::new("plan");
    let out = dir.run(&["plan", "2^22", "--device", "apple-m1"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("passes over device memory: 2"), "{text}");
    assert!(text.contains("fused W_4194304"), "{text}");
}

#[test]
fn plan_on_the_cpu_shows_the_lavapipe_profile() {
    let dir = TempDir::new("plan-cpu");
    let out = dir.run(&[
        "plan",
        "4096",
        "--batch",
        "2^3",
        "--device",
        "cpu",
        "--inverse",
        "--normalize",
    ]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lavapipe profile"), "{text}");
    assert!(
        text.contains("4096-point inverse (scaled by 1/n) FFT (2^12), batch 8"),
        "{text}"
    );
}

#[test]
fn plan_rejects_bad_lengths() {
    let dir = TempDir::new("plan-bad");
    // Any length plans: 4099 by Bluestein's algorithm.
    let out = dir.run(&["plan", "4099", "--device", "apple-m1"]);
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Bluestein"));
    let out = dir.run(&["plan", "2^28", "--device", "apple-m1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unsupported FFT length 268435456"),
        "{}",
        stderr(&out)
    );
    let out = dir.run(&["plan", "two", "--device", "apple-m1"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("2^22"), "{}", stderr(&out));
}

#[test]
fn devices_lists_the_cpu() {
    let dir = TempDir::new("devices");
    let out = dir.run(&["devices"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cpu (rustfft)"), "{text}");
    assert!(text.contains("auto picks"), "{text}");
}

/// On a headless machine without XDG_RUNTIME_DIR (the test runs the command without it),
/// listing and using lavapipe prints nothing but the command's own lines: Mesa's
/// device-selection layer used to print "error: XDG_RUNTIME_DIR is invalid" per probe.
#[test]
fn quiet_without_a_display() {
    let dir = TempDir::new("quiet");
    let out = dir.run(&["devices"]);
    assert_ok(&out);
    assert_eq!(stderr(&out), "");
    let input = dir.path("x.npy");
    write_npy(&input, &[4, 256], &random(1024, 5));
    let out = run_fft(&dir, &input, &dir.path("y.npy"), "lavapipe", &[]);
    assert_ok(&out);
    let msg = stderr(&out);
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(msg.starts_with("tierfft: forward C2C FFT"), "{msg}");
}

#[test]
fn device_env_auto_in_any_case() {
    let dir = TempDir::new("env-auto");
    for v in ["auto", "AUTO", "Auto"] {
        let out = dir.run_with_device_env(&["plan", "1024"], Some(v));
        assert_ok(&out);
        let out = dir.run_with_device_env(&["devices"], Some(v));
        assert_ok(&out);
    }
    let out = dir.run_with_device_env(&["plan", "1024"], Some("lavapipe"));
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("llvmpipe"));
}

fn bench_json(device: &str) -> serde_json::Value {
    let dir = TempDir::new("bench");
    let out = dir.run(&[
        "bench",
        "--device",
        device,
        "--min-log2",
        "2",
        "--max-log2",
        "6",
        "--points",
        "2^10",
        "--reps",
        "3",
        "--json",
    ]);
    assert_ok(&out);
    serde_json::from_slice(&out.stdout).expect("bench --json prints JSON")
}

#[test]
fn bench_json_cpu_and_lavapipe() {
    for device in ["cpu", "lavapipe"] {
        let v = bench_json(device);
        let rows = v["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 5);
        for (k, row) in (2..=6).zip(rows) {
            assert_eq!(row["n"], 1 << k);
            assert_eq!(row["batch"], (1 << 10) >> k);
            assert!(row["median_s"].as_f64().is_some_and(|t| t > 0.0), "{row}");
            assert!(row["gflops"].as_f64().is_some(), "{row}");
            assert!(row["gbps"].as_f64().is_some(), "{row}");
            assert!(row["rel_error"].as_f64().is_some_and(|e| e < 1e-6), "{row}");
        }
        assert!(v["device"].is_string() && v["timer"].is_string(), "{v}");
    }
}

/// `--sizes` takes any list: every length on the CPU; on lavapipe the powers of two, and a
/// row saying why for the others.
#[test]
fn bench_any_sizes() {
    let dir = TempDir::new("bench-sizes");
    for device in ["cpu", "lavapipe"] {
        let out = dir.run(&[
            "bench",
            "--device",
            device,
            "--sizes",
            "7,1000,2^6",
            "--points",
            "2^12",
            "--reps",
            "2",
            "--json",
        ]);
        assert_ok(&out);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let rows = v["rows"].as_array().expect("rows");
        let ns: Vec<u64> = rows.iter().filter_map(|r| r["n"].as_u64()).collect();
        assert_eq!(ns, [7, 1000, 64]);
        for row in rows {
            let measured = row["rel_error"].as_f64().is_some_and(|e| e < 1e-6);
            assert!(measured, "{device}: {row}");
        }
    }
    let out = dir.run(&["bench", "--device", "cpu", "--sizes", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("outside 1 .. 2^27"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_table_has_header_and_rows() {
    let dir = TempDir::new("bench-table");
    let out = dir.run(&[
        "bench",
        "--device",
        "cpu",
        "--min-log2",
        "3",
        "--max-log2",
        "5",
        "--points",
        "64",
    ]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("device:  cpu (rustfft)"), "{text}");
    assert!(
        text.contains("command: ") && text.contains("--max-log2 5"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("wall clock")).count(),
        3,
        "{text}"
    );
}

/// `bench --energy` on a machine without NVML (CI) fails with a message naming it, before
/// any device is opened; `--energy-seconds` below one second is refused.
#[test]
fn bench_energy_without_nvml_says_why() {
    if tierfft_bench::energy::probe().is_ok() {
        eprintln!("NVML is present here; the missing-NVML message is not checked");
        return;
    }
    let dir = TempDir::new("bench-energy");
    let base = [
        "bench",
        "--backend",
        "cuda",
        "--compare",
        "cufft",
        "--energy",
    ];
    let out = dir.run(&base);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("energy needs NVML"),
        "{}",
        stderr(&out)
    );
    let out = dir.run(&[&base[..], &["--energy-seconds", "0.2"]].concat());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("from 1 to 600 seconds"),
        "{}",
        stderr(&out)
    );
}

/// `--real` and `--axes`: NumPy's `rfftn` and `irfftn` over a subset of the axes of a 3-d
/// array (the last listed halved), and `fftn` with negative axes, against the f64 reference.
#[test]
fn real_and_n_dimensional_transforms_like_numpy() {
    use tierfft::NdSpec;
    use tierfft::debug::reference::{NdInput, nd_f64};
    let dir = TempDir::new("nd");
    let (inp, outp, back) = (dir.path("x.npy"), dir.path("y.npy"), dir.path("z.npy"));
    let x: Vec<f32> = random(4 * 6 * 5, 9).iter().map(|z| z.re).collect();
    write_npy(&inp, &[4, 6, 5], &x);
    for device in ["cpu", "lavapipe"] {
        assert_ok(&run_fft(
            &dir,
            &inp,
            &outp,
            device,
            &["--real", "--axes", "2,0"],
        ));
        let (shape, y) = read_c64(&outp);
        assert_eq!(shape, [3, 6, 5], "{device}: axis 0 holds 4/2 + 1 bins");
        let spec = NdSpec::new(&[4, 6, 5]).axes(&[2, 0]).real();
        let err = relative_l2_error(&y, &nd_f64(&spec, &NdInput::Real(&x)));
        assert!(err <= 5e-7, "{device} rfftn: {err:e}");
        let c2r = ["--real", "--inverse", "--n", "4", "--axes", "2,0"];
        assert_ok(&run_fft(&dir, &outp, &back, device, &c2r));
        let npy = npyz::NpyFile::new(std::fs::File::open(&back).unwrap()).unwrap();
        assert_eq!(npy.dtype().descr(), "'<f4'");
        assert_eq!(npy.shape(), [4, 6, 5]);
        let z: Vec<f32> = npy.into_vec().unwrap();
        let worst = x
            .iter()
            .zip(&z)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(worst < 1e-5, "{device} irfftn round trip: {worst:e}");
        assert_ok(&run_fft(&dir, &inp, &outp, device, &["--axes", "-1,-3"]));
        let (_, y) = read_c64(&outp);
        let spec = NdSpec::new(&[4, 6, 5]).axes(&[2, 0]);
        let xc: Vec<Complex32> = x.iter().map(|&v| Complex32::new(v, 0.0)).collect();
        let err = relative_l2_error(&y, &nd_f64(&spec, &NdInput::Complex(&xc)));
        assert!(err <= 5e-7, "{device} fftn: {err:e}");
    }
    write_npy(&dir.path("c.npy"), &[4, 5], &random(20, 3));
    write_npy(&dir.path("one.npy"), &[4, 1], &random(4, 3));
    for (input, extra, words) in [
        (
            "c.npy",
            &["--real"][..],
            &["complex64", "--real", "np.real"][..],
        ),
        ("c.npy", &["--n", "0"], &["at least 1"]),
        (
            "c.npy",
            &["--axes", "1", "--s", "4,4"],
            &["2 lengths for the 1 axes"],
        ),
        ("c.npy", &["--s", "4", "--n", "4"], &["give one"]),
        (
            "c.npy",
            &["--axes", "1,1", "--s", "5,8"],
            &["different lengths"],
        ),
        ("c.npy", &["--s", "4,4,4"], &["3 lengths for a 2-d array"]),
        ("one.npy", &["--real", "--inverse"], &["give --n"]),
        ("c.npy", &["--axes", "2"], &["axis 2 is out of range"]),
        ("c.npy", &["--real", "--axes", "1,1"], &["listed twice"]),
    ] {
        let out = run_fft(&dir, &dir.path(input), &outp, "cpu", extra);
        assert!(!out.status.success(), "{extra:?} succeeded");
        for w in words {
            assert!(stderr(&out).contains(w), "{extra:?}: {}", stderr(&out));
        }
    }
}

/// NumPy's `n` and `s`: the last (each) transformed axis cropped or zero-padded to n points
/// before the transform (to n/2 + 1 bins for C2R, whose n defaults to 2(m - 1)), checked
/// against the f64 reference of the cropped or padded array.
#[test]
fn numpy_n_crops_and_pads_the_last_axis() {
    use tierfft::NdSpec;
    use tierfft::debug::reference::{NdInput, nd_f64};
    let dir = TempDir::new("numpy-n");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let x = random(3 * 6, 11);
    write_npy(&inp, &[3, 6], &x);
    // Row r of the [3, 6] input cut or padded to `len` points.
    let fitted = |len: usize| -> Vec<Complex32> {
        x.chunks(6)
            .flat_map(|row| (0..len).map(|i| row.get(i).copied().unwrap_or_default()))
            .collect()
    };
    for device in ["cpu", "lavapipe"] {
        // C2C: --n 4 crops, --n 9 pads.
        for n in [4, 9] {
            assert_ok(&run_fft(
                &dir,
                &inp,
                &outp,
                device,
                &["--n", &n.to_string()],
            ));
            let (shape, y) = read_c64(&outp);
            assert_eq!(shape, [3, n as u64]);
            let want = nd_f64(
                &NdSpec::new(&[3, n]).axes(&[1]),
                &NdInput::Complex(&fitted(n)),
            );
            let err = relative_l2_error(&y, &want);
            assert!(err <= 5e-7, "{device} fft n = {n}: {err:e}");
        }
        // NumPy's `s` over both axes: axis 1 padded to 9, axis 0 cut to 2 rows.
        assert_ok(&run_fft(
            &dir,
            &inp,
            &outp,
            device,
            &["--axes", "1,0", "--s", "9,2"],
        ));
        let (shape, y) = read_c64(&outp);
        assert_eq!(shape, [2, 9]);
        let want = nd_f64(
            &NdSpec::new(&[2, 9]).axes(&[1, 0]),
            &NdInput::Complex(&fitted(9)[..18]),
        );
        let err = relative_l2_error(&y, &want);
        assert!(err <= 5e-7, "{device} fftn s = (9, 2): {err:e}");
        // C2R of 6 bins: n = 10 by default (6 bins), 7 (4 bins: crops), 15 (8 bins: pads).
        for n in [None, Some(7), Some(15)] {
            let real = n.unwrap_or(10);
            let text = real.to_string();
            let mut args = vec!["--real", "--inverse"];
            if n.is_some() {
                args.extend(["--n", &text]);
            }
            assert_ok(&run_fft(&dir, &inp, &outp, device, &args));
            let npy = npyz::NpyFile::new(std::fs::File::open(&outp).unwrap()).unwrap();
            assert_eq!(npy.shape(), [3, real as u64], "{device} {args:?}");
            let y: Vec<f32> = npy.into_vec().unwrap();
            let y: Vec<Complex32> = y.iter().map(|&v| Complex32::new(v, 0.0)).collect();
            let spec = NdSpec::new(&[3, real])
                .axes(&[1])
                .real()
                .inverse()
                .normalized();
            let want = nd_f64(&spec, &NdInput::Complex(&fitted(real / 2 + 1)));
            let err = relative_l2_error(&y, &want);
            assert!(err <= 5e-7, "{device} {args:?}: {err:e}");
        }
    }
}

/// Writes an 8-bit grey PNG.
fn write_grey_png(path: &Path, width: u32, height: u32, pixels: &[u8]) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(pixels).unwrap();
    writer.finish().unwrap();
}

/// Reads an 8-bit PNG: (width, height, channels, bytes).
fn read_png(path: &Path) -> (u32, u32, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, info.color_type.samples(), buf)
}

/// `tierfft fft2d`: the spectrum figure is written; a low-pass wider than every frequency
/// gives the image back (R2C then C2R), a narrow one smooths it, and a high-pass of odd
/// dimensions keeps only the detail around mid-grey.
#[test]
fn fft2d_writes_the_spectrum_and_filters_the_image() {
    let dir = TempDir::new("fft2d");
    let (w, h) = (37u32, 24u32);
    let pixels: Vec<u8> = (0..w * h)
        .map(|i| {
            if (i % w / 6 + i / w / 6) % 2 == 0 {
                200
            } else {
                40
            }
        })
        .collect();
    let input = dir.path("checks.png");
    write_grey_png(&input, w, h, &pixels);
    let out = dir.path("out");
    for device in ["cpu", "lavapipe"] {
        let run = |filter: &[&str]| {
            let mut args = vec!["fft2d", input.to_str().unwrap(), "--device", device];
            args.extend(["--out", out.to_str().unwrap()]);
            args.extend(filter);
            assert_ok(&dir.run(&args));
        };
        run(&["--lowpass", "1000"]);
        let (fw, fh, channels, _) = read_png(&out.join("spectrum.png"));
        assert!(
            fw > 500 && fh > 500 && channels == 3,
            "{fw} × {fh} × {channels}"
        );
        let (lw, lh, _, back) = read_png(&out.join("lowpass.png"));
        assert_eq!((lw, lh), (w, h));
        let worst = pixels.iter().zip(&back).map(|(a, b)| a.abs_diff(*b)).max();
        assert!(worst <= Some(1), "{device}: round trip off by {worst:?}");
        run(&["--lowpass", "3"]);
        let (_, _, _, smooth) = read_png(&out.join("lowpass.png"));
        let spread = |v: &[u8]| v.iter().max().unwrap() - v.iter().min().unwrap();
        assert!(spread(&smooth) < spread(&pixels), "{device}: not smoothed");
        run(&["--highpass", "3"]);
        let (_, _, _, detail) = read_png(&out.join("highpass.png"));
        let mean = detail.iter().map(|&v| f64::from(v)).sum::<f64>() / detail.len() as f64;
        assert!(
            (mean - 127.5).abs() < 8.0,
            "{device}: high-pass mean {mean}"
        );
    }
    let out = dir.run(&[
        "fft2d",
        dir.path("missing.png").to_str().unwrap(),
        "--device",
        "cpu",
    ]);
    assert!(!out.status.success() && stderr(&out).contains("cannot open"));
}

/// `tierfft plan --shape` prints an N-D plan's steps and each axis' plan.
#[test]
fn plan_for_a_shape() {
    let dir = TempDir::new("plan-shape");
    let out = dir.run(&[
        "plan",
        "--shape",
        "7x1080x1920",
        "--axes",
        "-2,-1",
        "--real",
        "--device",
        "h100-cuda",
    ]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "R2C forward over axes [1, 2] of a [7, 1080, 1920] f32 array: 2 steps",
        "960-point FFT along axis 2 (rows, batch 7560), split into 961 bins on store (R2C), \
         Packed → Spectrum",
        "columns of 7 stacked [1080][961] matrices",
        "step 2: 1080-point forward FFT",
        "fuses R2C split on store",
    ] {
        assert!(text.contains(want), "missing '{want}' in:\n{text}");
    }
    let out = dir.run(&["plan", "--shape", "4x0", "--device", "lavapipe"]);
    assert!(!out.status.success() && stderr(&out).contains("extent of 0"));
}

/// `tierfft plan N --launches` prints the launch schedule the GPU backends follow: a
/// checksummed two-pass plan on the H100 profile launches each pass once over the batch,
/// binding check records, and names where tests flip a bit; the passes name their
/// checksums' weights.
#[test]
fn plan_prints_its_launches() {
    let dir = TempDir::new("plan-launches");
    let out = dir.run(&[
        "plan",
        "2^20",
        "--batch",
        "3",
        "--checksum",
        "--launches",
        "--device",
        "h100-cuda",
    ]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "launch schedule of 3 transforms (the input may be overwritten): 2 launches",
        "slot 0: 3 transforms of 1048576 elements (input and result)",
        "slot 1: 3 transforms of 1048576 elements\n",
        "slot 0 [0, 3145728)",
        "fault points, pass by pass: after launch 0 (slot 1), launch 1 (slot 0)",
        "fuses checksum of the input (1048576 weights)",
        "fuses checksum of the output (1048576 weights)",
    ] {
        assert!(text.contains(want), "missing '{want}' in:\n{text}");
    }
    let out = dir.run(&["plan", "--shape", "4x4", "--launches"]);
    assert!(!out.status.success() && stderr(&out).contains("--launches"));
}

/// Complex values given as float16 pairs (`--pairs`, the form NumPy holds complex half data
/// in) are transformed in f16 storage where `FftSpec` covers it and written as float16
/// pairs; a length it does not cover goes through f32 with a note; complex input with
/// `--pairs` is refused.
#[test]
fn float16_pairs_transform_in_f16_storage() {
    use tierfft::f16;
    let dir = TempDir::new("pairs");
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    let read = |path: &Path, descr: &str| -> Vec<f64> {
        let npy = npyz::NpyFile::new(std::fs::File::open(path).unwrap()).unwrap();
        assert_eq!(npy.dtype().descr(), format!("'{descr}'"));
        match descr {
            "<f2" => npy
                .into_vec::<f16>()
                .unwrap()
                .into_iter()
                .map(f64::from)
                .collect(),
            _ => npy
                .into_vec::<f32>()
                .unwrap()
                .into_iter()
                .map(f64::from)
                .collect(),
        }
    };
    for (n, device, descr, note) in [
        (96, "cpu", "<f2", false),
        (96, "lavapipe", "<f2", false),
        (97, "cpu", "<f4", true),
    ] {
        let x = random(2 * n, 5 + n as u64);
        let pairs: Vec<f16> = x
            .iter()
            .flat_map(|z| [f16::from_f32(z.re), f16::from_f32(z.im)])
            .collect();
        write_npy(&inp, &[2, n as u64, 2], &pairs);
        let out = run_fft(&dir, &inp, &outp, device, &["--pairs"]);
        assert_ok(&out);
        assert_eq!(stderr(&out).contains("note:"), note, "{}", stderr(&out));
        let got: Vec<Complex32> = read(&outp, descr)
            .chunks(2)
            .map(|p| Complex32::new(p[0] as f32, p[1] as f32))
            .collect();
        // The reference transforms the stored (rounded) input.
        let stored: Vec<Complex32> = pairs
            .chunks(2)
            .map(|p| Complex32::new(p[0].to_f32(), p[1].to_f32()))
            .collect();
        let want = fft_f64(&stored, n, Direction::Forward);
        let err = relative_l2_error(&got, &want);
        let bound = if note { 5e-7 } else { 1e-3 };
        assert!(
            err <= bound,
            "n = {n} on {device}: relative L2 error {err:e}"
        );
    }
    write_npy(&inp, &[2, 8], &random(16, 1));
    let out = run_fft(&dir, &inp, &outp, "cpu", &["--pairs"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("already"), "{}", stderr(&out));
    // Plain float16 is real data, transformed in f32 as NumPy 2 does (complex64 out).
    let x = random(64, 3);
    let halves: Vec<f16> = x.iter().map(|z| f16::from_f32(z.re)).collect();
    write_npy(&inp, &[64], &halves);
    assert_ok(&run_fft(&dir, &inp, &outp, "cpu", &[]));
    let stored: Vec<Complex32> = halves
        .iter()
        .map(|h| Complex32::new(h.to_f32(), 0.0))
        .collect();
    let (shape, got) = read_c64(&outp);
    assert_eq!(shape, [64]);
    let err = relative_l2_error(&got, &fft_f64(&stored, 64, Direction::Forward));
    assert!(err <= 5e-7, "float16 reals: relative L2 error {err:e}");
}

#[test]
fn tune_writes_wisdom_that_plans_take() {
    let dir = TempDir::new("tune");
    let file = dir.path("wisdom.json");
    let env = [("TIERFFT_WISDOM", file.as_path())];
    let args = [
        "tune",
        "--device",
        "lavapipe",
        "--sizes",
        "1024,2^14",
        "--mib",
        "1",
        "--reps",
        "2",
    ];
    let out = dir.run_with_env(&args, &env);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1024") && stdout.contains("16384"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let wisdom = tierfft::plan::wisdom::Wisdom::parse(&text, "wisdom.json").unwrap();
    assert_eq!(wisdom.entries.len(), 2, "{text}");
    // The plan on the device names the wisdom it takes; --no-wisdom plans without it.
    let plan = |extra: &[&str]| {
        let mut a = vec!["plan", "1024", "--batch", "128", "--device", "llvmpipe"];
        a.extend_from_slice(extra);
        let out = dir.run_with_env(&a, &env);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(
        plan(&[]).starts_with("wisdom for llvmpipe"),
        "{}",
        plan(&[])
    );
    assert!(!plan(&["--no-wisdom"]).contains("wisdom for"));
    // An entry whose choice does not plan (a last pass of 8192 points, 64 lines to a
    // workgroup, past lavapipe's 32 KiB) gives way to the planner's model: the transform
    // runs and is right, and `tierfft plan` says so.
    let mut edited = wisdom.clone();
    for e in &mut edited.entries {
        e.choice = tierfft::plan::wisdom::Choice::of(
            &tierfft::plan::PlanOptions::default()
                .with_last_pass_points(Some(8192))
                .with_min_lines(Some(64)),
        );
    }
    std::fs::write(&file, edited.to_json().unwrap()).unwrap();
    let x = random(2 * 16384, 7);
    let (inp, outp) = (dir.path("x.npy"), dir.path("y.npy"));
    write_npy(&inp, &[2, 16384], &x);
    let (i, o) = (inp.to_str().unwrap(), outp.to_str().unwrap());
    let out = dir.run_with_env(&["fft", "-i", i, "-o", o, "--device", "lavapipe"], &env);
    assert_ok(&out);
    let (_, y) = read_c64(&outp);
    let err = relative_l2_error(&y, &fft_f64(&x, 16384, Direction::Forward));
    assert!(err <= 5e-7, "relative L2 error {err:e}");
    let out = dir.run_with_env(&["plan", "2^14", "--device", "llvmpipe"], &env);
    assert_ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("does not plan this spec"), "{stdout}");
    // A damaged file is an error naming it, and nothing is planned.
    std::fs::write(&file, "{ not json").unwrap();
    let out = dir.run_with_env(&["plan", "1024", "--device", "llvmpipe"], &env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("wisdom.json") && stderr.contains("tierfft tune"),
        "{stderr}"
    );
}
