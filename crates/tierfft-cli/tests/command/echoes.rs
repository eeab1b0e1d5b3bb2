//! `tierfft sar --raw`: a user's echoes checked before any work (NaN or infinite samples,
//! a transposed array, real samples, a config of another size), the accepted dtypes, the
//! scene.toml that `--write-raw` writes, and options named in their errors. Nothing is
//! written to `--out` when the echoes are refused.

use std::process::Output;

use tierfft::Complex32;

use crate::common::{TempDir, assert_ok, fails_with, metrics, read_c64, stderr, text, write_npy};

/// A small scene, 1024 × 1024 with an 8 m antenna (a 664-line aperture) and a 2 µs pulse,
/// one target.
const SMALL: &str = "[radar]\nantenna_m = 8.0\npulse_s = 2e-6\n[scene]\nlines = 1024\nsamples = \
                     1024\nsnr_db = 20.0\n[[scene.targets]]\nrange_m = 20000.0\nazimuth_m = 3.0\n";

/// The keys of metrics.json, sorted.
const METRIC_KEYS: [&str; 27] = [
    "algorithm",
    "azimuth_equalisation",
    "azimuth_pattern",
    "azimuth_window",
    "blocks",
    "device",
    "doppler_centroid",
    "fallback",
    "fully_focused",
    "fused",
    "lines",
    "margins",
    "noise_region",
    "nonfinite_zeroed",
    "processed",
    "product",
    "radiometry",
    "range_window",
    "ranks",
    "rcmc",
    "samples",
    "speckle",
    "src",
    "targets",
    "theory",
    "timings_s",
    "warnings",
];

/// Runs `tierfft sar --device cpu` with `args`.
fn sar(dir: &TempDir, args: &[&str]) -> Output {
    let mut all = vec!["sar", "--device", "cpu"];
    all.extend_from_slice(args);
    dir.run(&all)
}

/// Simulates SMALL with `--write-raw` into `dir/sim`: (raw.npy, scene.toml).
fn simulated(dir: &TempDir) -> (std::path::PathBuf, std::path::PathBuf) {
    let cfg = dir.path("small.toml");
    std::fs::write(&cfg, SMALL).expect("config");
    let sim = dir.path("sim");
    let o = sar(
        dir,
        &["--config", text(&cfg), "--out", text(&sim), "--write-raw"],
    );
    assert_ok(&o);
    // The terminal tables: a row of units under the headings, theory's row under the
    // targets; simulated echoes focused with their own centroid, nothing to fix.
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("lines  samples  samples    lines       dB"),
        "{table}"
    );
    assert!(table.contains("    theory "), "{table}");
    assert!(!stderr(&o).contains("fix it"), "{}", stderr(&o));
    (sim.join("raw.npy"), sim.join("scene.toml"))
}

#[test]
fn write_raw_writes_the_config_that_focuses_the_echoes_again() {
    let dir = TempDir::new("echoes-scene");
    let (raw, scene) = simulated(&dir);
    let toml = std::fs::read_to_string(&scene).expect("scene.toml");
    for key in ["near_range_m", "doppler_centroid_hz", "[[scene.targets]]"] {
        assert!(toml.contains(key), "scene.toml lacks {key}:\n{toml}");
    }
    let again = dir.path("again");
    assert_ok(&sar(
        &dir,
        &[
            "--raw",
            text(&raw),
            "--config",
            text(&scene),
            "--out",
            text(&again),
        ],
    ));
    let (a, b) = (metrics(&dir.path("sim")), metrics(&again));
    // The keys of Python's tierfft.sar.focus metrics too (crates/tierfft-py/tests/test_sar.py).
    let mut keys: Vec<&str> = b
        .as_object()
        .expect("object")
        .keys()
        .map(|k| k.as_str())
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, METRIC_KEYS);
    assert_eq!(b["targets"].as_array().map(Vec::len), Some(1));
    assert_eq!(a["targets"][0]["alone"], b["targets"][0]["alone"]);
    assert_eq!(b["doppler_centroid"]["source"], "config");
    assert_eq!(a["doppler_centroid"]["source"], "simulation");
}

#[test]
fn non_finite_echoes_are_refused_or_zeroed_and_recorded() {
    let dir = TempDir::new("echoes-nan");
    let (raw, scene) = simulated(&dir);
    let (shape, mut data) = read_c64(&raw);
    data[5 * 1024 + 7].re = f32::NAN;
    data[700 * 1024 + 3].im = f32::INFINITY;
    let bad = dir.path("bad.npy");
    write_npy(&bad, &shape, &data);
    let out = dir.path("out");
    let o = sar(
        &dir,
        &[
            "--raw",
            text(&bad),
            "--config",
            text(&scene),
            "--out",
            text(&out),
        ],
    );
    fails_with(
        &o,
        &["2 of the 1048576", "line 5, sample 7", "--zero-nonfinite"],
    );
    assert!(!out.exists(), "a refused run wrote {}", out.display());
    let o = sar(
        &dir,
        &[
            "--raw",
            text(&bad),
            "--config",
            text(&scene),
            "--out",
            text(&out),
            "--zero-nonfinite",
        ],
    );
    assert_ok(&o);
    assert!(
        stderr(&o).contains("set 2 NaN or infinite"),
        "{}",
        stderr(&o)
    );
    let m = metrics(&out);
    assert_eq!(
        m["nonfinite_zeroed"],
        serde_json::json!({"count": 2, "first": [5, 7]})
    );
    let (_, image) = read_c64(&out.join("focused.npy"));
    assert!(image.iter().all(|z| z.re.is_finite() && z.im.is_finite()));
    assert!(m["targets"][0]["alone"].is_object(), "{}", m["targets"][0]);
}

#[test]
fn transposed_echoes_are_refused_unless_trusted() {
    let dir = TempDir::new("echoes-transposed");
    let (raw, scene) = simulated(&dir);
    let (_, data) = read_c64(&raw);
    let mut flipped = vec![Complex32::new(0.0, 0.0); data.len()];
    for j in 0..1024 {
        for k in 0..1024 {
            flipped[k * 1024 + j] = data[j * 1024 + k];
        }
    }
    let t = dir.path("t.npy");
    write_npy(&t, &[1024, 1024], &flipped);
    let out = dir.path("out");
    let args = [
        "--raw",
        text(&t),
        "--config",
        text(&scene),
        "--out",
        text(&out),
    ];
    fails_with(
        &sar(&dir, &args),
        &["look transposed", "raw.T.copy()", "--trust-layout"],
    );
    assert!(!out.exists());
    // Told the layout is intended, it is focused (badly: it is transposed).
    let mut trusted = args.to_vec();
    trusted.push("--trust-layout");
    assert_ok(&sar(&dir, &trusted));
    // Non-square and described by the config the other way round: named as transposed
    // rather than as a size the config contradicts.
    let wide = dir.path("wide.npy");
    write_npy(
        &wide,
        &[1024, 1100],
        &vec![Complex32::new(1.0, 0.0); 1024 * 1100],
    );
    let cfg = dir.path("tall.toml");
    std::fs::write(
        &cfg,
        "[radar]\nnear_range_m = 19400.0\nantenna_m = 8.0\npulse_s = 2e-6\n[scene]\nlines = \
         1100\nsamples = 1024\n",
    )
    .expect("config");
    fails_with(
        &sar(
            &dir,
            &[
                "--raw",
                text(&wide),
                "--config",
                text(&cfg),
                "--out",
                text(&out),
            ],
        ),
        &["transposed", "raw.T.copy()"],
    );
}

#[test]
fn echo_dtypes_and_sizes_follow_one_policy() {
    let dir = TempDir::new("echoes-dtypes");
    let (raw, scene) = simulated(&dir);
    let (shape, data) = read_c64(&raw);
    // complex128: accepted, focused as complex64 (the same image as the complex64 file).
    let wide: Vec<npyz::num_complex::Complex64> =
        data.iter().map(|&z| crate::common::num_c64(z)).collect();
    let c16 = dir.path("c16.npy");
    write_npy(&c16, &shape, &wide);
    let (a, b) = (dir.path("a"), dir.path("b"));
    for (file, out) in [(&raw, &a), (&c16, &b)] {
        assert_ok(&sar(
            &dir,
            &[
                "--raw",
                text(file),
                "--config",
                text(&scene),
                "--out",
                text(out),
            ],
        ));
    }
    assert_eq!(
        read_c64(&a.join("focused.npy")),
        read_c64(&b.join("focused.npy"))
    );
    // Real samples: refused with the reason.
    let real: Vec<f32> = data.iter().map(|z| z.re).collect();
    let f4 = dir.path("real.npy");
    write_npy(&f4, &shape, &real);
    let out = dir.path("out");
    fails_with(
        &sar(
            &dir,
            &[
                "--raw",
                text(&f4),
                "--config",
                text(&scene),
                "--out",
                text(&out),
            ],
        ),
        &["--raw", "float32", "complex baseband"],
    );
    // A config stating another size than the echoes' is refused, naming both.
    let other = std::fs::read_to_string(&scene)
        .expect("scene")
        .replace("samples = 1024", "samples = 2048");
    let cfg = dir.path("other.toml");
    std::fs::write(&cfg, other).expect("config");
    fails_with(
        &sar(
            &dir,
            &[
                "--raw",
                text(&raw),
                "--config",
                text(&cfg),
                "--out",
                text(&out),
            ],
        ),
        &["scene.samples = 2048", "1024 samples"],
    );
    assert!(!out.exists());
}

#[test]
fn options_are_named_in_their_errors() {
    let dir = TempDir::new("echoes-options");
    let out = dir.path("out");
    fails_with(
        &sar(&dir, &["--replica", "nope.npy", "--out", text(&out)]),
        &["--replica", "nope.npy"],
    );
    fails_with(
        &sar(&dir, &["--config", "nope.toml", "--out", text(&out)]),
        &["--config", "nope.toml"],
    );
    let cfg = dir.path("c.toml");
    std::fs::write(&cfg, "[radar]\nnear_range_m = 19400.0\n").expect("config");
    fails_with(
        &sar(
            &dir,
            &[
                "--raw",
                "nope.npy",
                "--config",
                text(&cfg),
                "--out",
                text(&out),
            ],
        ),
        &["--raw", "nope.npy"],
    );
    // The help names the fewest lines the default radar allows, computed.
    let help = dir.run(&["sar", "--help"]);
    assert_ok(&help);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("at least 2657 lines"), "{help}");
    assert!(help.contains("docs/SAR.md"), "{help}");
}
