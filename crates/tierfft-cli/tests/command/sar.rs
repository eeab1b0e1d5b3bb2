//! `tierfft sar` end to end: files written (the figures decoded), targets focused to theory,
//! and everything a user can get wrong refused before any work, with the key and the value
//! named, the `--out` folder left as it was.

use std::path::Path;
use std::process::Output;

use crate::common::{
    TempDir, assert_ok, fails_with, files_in as files, metrics, random, stderr, write_npy,
};

/// A small scene that focuses in about a second on two cores: 1024 × 1024 with a 8 m antenna
/// (a 664-line aperture at mid-swath) and a 2 µs pulse (240 samples).
const SMALL: &str = "[radar]\nantenna_m = 8.0\npulse_s = 2e-6\n[scene]\nlines = 1024\nsamples = 1024\nsnr_db = 20.0\n";

/// [`SMALL`] with the near range set, as `--raw` needs it.
fn small_for_echoes() -> String {
    SMALL.replace("[radar]\n", "[radar]\nnear_range_m = 19400.0\n")
}

/// A `[[scene.targets]]` entry.
fn target(range_m: f64, azimuth_m: f64) -> String {
    format!("[[scene.targets]]\nrange_m = {range_m}\nazimuth_m = {azimuth_m}\n")
}

/// Writes `toml` as `name` in `dir` and returns its path as a string.
fn config(dir: &TempDir, name: &str, toml: &str) -> String {
    let path = dir.path(name);
    std::fs::write(&path, toml).expect("config");
    path.to_str().expect("utf-8 path").to_string()
}

/// Runs `tierfft sar --device cpu` with `args`.
fn sar(dir: &TempDir, args: &[&str]) -> Output {
    let mut all = vec!["sar", "--device", "cpu"];
    all.extend_from_slice(args);
    dir.run(&all)
}

/// Runs `tierfft sar --device cpu --config CONFIG --out OUT --raw RAW`.
fn sar_raw(dir: &TempDir, config: &str, out: &Path, raw: &Path) -> Output {
    let path = |p: &Path| p.to_str().expect("utf-8 path").to_string();
    sar(
        dir,
        &["--config", config, "--out", &path(out), "--raw", &path(raw)],
    )
}

/// A decoded 8-bit PNG: (width, height, channels, pixels).
fn decode(path: &Path) -> (u32, u32, usize, Vec<u8>) {
    let file = std::fs::File::open(path).expect("png file");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Grayscale => 1,
        other => panic!("{}: {other:?}", path.display()),
    };
    buf.truncate(info.buffer_size());
    (info.width, info.height, channels, buf)
}

#[test]
fn focuses_targets_and_writes_every_output() {
    let dir = TempDir::new("sar-one");
    let toml = format!("{SMALL}{}{}", target(20010.0, 2.0), target(20200.0, -8.0));
    let cfg = config(&dir, "scene.toml", &toml);
    let out = dir.path("out");
    let o = dir.run(&[
        "sar",
        "--device",
        "lavapipe",
        "--config",
        &cfg,
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_ok(&o);
    // Quiet on success: the Vulkan loader's display probing says nothing.
    let msg = stderr(&o);
    assert!(
        !msg.contains("XDG_RUNTIME_DIR") && !msg.contains("error"),
        "{msg}"
    );
    assert_eq!(
        files(&out),
        [
            "focused.npy",
            "image.png",
            "metrics.json",
            "overview.png",
            "raw.png",
            "target-1-crop.png",
            "target-1-cuts.png",
            "target-2-crop.png",
            "target-2-cuts.png",
        ]
    );
    // image.png: one pixel per sample (1024²) with axes and a colour bar around it; raw.png
    // averaged down to 1024 a side at most, framed alike.
    let (w, h, c, _) = decode(&out.join("image.png"));
    assert_eq!((w, h, c), (1334, 1224, 3));
    let (w, h, c, _) = decode(&out.join("raw.png"));
    assert_eq!((w, h, c), (1334, 1224, 3));
    for (name, size) in [
        ("overview.png", (1200, 1000)),
        ("target-1-crop.png", (900, 780)),
        ("target-1-cuts.png", (1400, 620)),
    ] {
        let (w, h, c, pixels) = decode(&out.join(name));
        assert_eq!(((w, h), c), (size, 3), "{name}");
        let colours: std::collections::HashSet<&[u8]> = pixels.chunks(3).collect();
        assert!(colours.len() > 50, "{name}: {} colours", colours.len());
    }
    let m = metrics(&out);
    let irw = |axis: &str| {
        m["theory"][format!("{axis}_irw_bins")]
            .as_f64()
            .expect("theory")
    };
    for t in m["targets"].as_array().expect("targets") {
        assert!(t.get("error").is_none(), "{t}");
        let got = |axis: &str, key: &str| t["alone"][axis][key].as_f64().expect("metric");
        for axis in ["range", "azimuth"] {
            assert!(
                (got(axis, "irw_bins") / irw(axis) - 1.0).abs() < 0.03,
                "{t}"
            );
            assert!((got(axis, "pslr_db") + 13.26).abs() < 0.5, "{t}");
        }
        let expected = |i: usize| t["expected"][i].as_f64().expect("expected");
        assert!(
            (got("range", "peak_position") - expected(1)).abs() < 0.1,
            "{t}"
        );
        assert!(
            (got("azimuth", "peak_position") - expected(0)).abs() < 0.1,
            "{t}"
        );
    }
}

#[test]
fn bad_configurations_are_refused_before_any_work() {
    let dir = TempDir::new("sar-bad");
    let out = dir.path("out");
    let out = out.to_str().expect("utf-8");
    for (toml, says) in [
        (
            "[radar]\nsample_rate_hz = 50e6".to_string(),
            vec!["radar.sample_rate_hz = 50 MHz is below radar.bandwidth_hz = 100 MHz"],
        ),
        (
            "[radar]\nprf_hz = 10.0".into(),
            vec![
                "bad.toml",
                "radar.prf_hz = 10 Hz is below the Doppler bandwidth",
            ],
        ),
        (
            format!("{SMALL}{}", target(20000.0, 5000.0)),
            vec![
                "scene.targets[0] (target 1)",
                "azimuth_m = 5000 m",
                "outside the scene's lines 0 .. 1023",
            ],
        ),
        (
            format!("{SMALL}{}{}", target(20000.0, 0.0), target(1e6, 0.0)),
            vec!["scene.targets[1] (target 2)", "range_m = 1000000 m"],
        ),
        (
            "[scene]\nsamples = 1099511627776".into(),
            vec!["scene.samples = 1099511627776", "longest transform"],
        ),
    ] {
        let cfg = config(&dir, "bad.toml", &toml);
        let o = sar(&dir, &["--config", &cfg, "--out", out]);
        fails_with(&o, &says);
        assert!(
            !dir.path("out").exists(),
            "{toml}: nothing is written on error"
        );
    }
    // Sizes on the command line: 2^k is a count, any size from 16, and a smaller one is
    // clap's usage error (exit 2) naming the flag.
    let o = sar(&dir, &["--lines", "8", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--lines") && stderr(&o).contains("fewer than 16"));
}

#[test]
fn scenes_too_large_for_memory_are_refused_with_the_numbers() {
    let dir = TempDir::new("sar-memory");
    let out = dir.path("out");
    let out = out.to_str().expect("utf-8");
    // 2^22 × 2^22: 128 TiB a buffer, more than any machine here has.
    let o = sar(
        &dir,
        &["--lines", "2^22", "--samples", "2^22", "--out", out],
    );
    fails_with(
        &o,
        &["4194304 × 4194304 scene", "needs about", "is available"],
    );
    assert!(!dir.path("out").exists());
    // 8192² (512 MiB a buffer) under a 2 GiB address-space limit.
    if cfg!(target_os = "linux") {
        let o = std::process::Command::new("bash")
            .args([
                "-c",
                "ulimit -v 2097152 && exec \"$0\" sar --device cpu --lines 8192 --samples 8192 --out \"$1\"",
                env!("CARGO_BIN_EXE_tierfft"),
                out,
            ])
            .output()
            .expect("bash");
        fails_with(&o, &["8192 × 8192 scene", "needs about"]);
        // The address-space limit is the tightest unless the machine has less than 4 GiB
        // free anyway.
        let meminfo = std::fs::read_to_string("/proc/meminfo").expect("meminfo");
        let free_kib: u64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .expect("MemAvailable");
        if free_kib > 4 << 20 {
            assert!(stderr(&o).contains("ulimit -v"), "{}", stderr(&o));
        }
        assert!(!dir.path("out").exists());
    }
}

#[test]
fn a_failed_run_leaves_an_earlier_runs_outputs_as_they_were() {
    let dir = TempDir::new("sar-reuse");
    let two_targets = format!(
        "{}{}{}",
        small_for_echoes(),
        target(20010.0, 2.0),
        target(20200.0, -8.0)
    );
    let cfg = config(&dir, "two.toml", &two_targets);
    let out = dir.path("out");
    let out_s = out.to_str().expect("utf-8");
    assert_ok(&sar(
        &dir,
        &["--config", &cfg, "--out", out_s, "--write-raw"],
    ));
    std::fs::write(out.join("notes.txt"), "mine").expect("user file");
    let before = files(&out);
    let metrics_before = std::fs::read(out.join("metrics.json")).expect("metrics");
    let unchanged = |why: &str| {
        assert_eq!(files(&out), before, "{why}: nothing added, nothing removed");
        let metrics = std::fs::read(out.join("metrics.json")).expect("metrics");
        assert!(metrics == metrics_before, "{why}: metrics.json replaced");
    };
    // A full disk, as a 4 MiB file-size limit (SIGXFSZ ignored, so writing fails with
    // EFBIG): the pictures are written, then the 8 MiB focused.npy fails mid-run.
    if cfg!(target_os = "linux") {
        let o = std::process::Command::new("bash")
            .args([
                "-c",
                "trap '' XFSZ; ulimit -f 4096 && exec \"$0\" sar --device cpu --config \"$1\" --out \"$2\"",
                env!("CARGO_BIN_EXE_tierfft"),
                &cfg,
                out_s,
            ])
            .output()
            .expect("bash");
        fails_with(&o, &["focused.npy", "File too large"]);
        unchanged("a write that failed mid-run");
    }
    // Echoes whose data stop short: refused before any work.
    let raw = std::fs::read(out.join("raw.npy")).expect("raw");
    let truncated = dir.path("truncated.npy");
    std::fs::write(&truncated, &raw[..raw.len() / 2]).expect("write");
    let o = sar_raw(&dir, &cfg, &out, &truncated);
    fails_with(&o, &["truncated.npy", "is truncated"]);
    unchanged("truncated echoes");
    // A successful run with one target replaces the earlier run's files, the second
    // target's figures included, and leaves the user's own file and the echoes and config
    // it wrote (raw.npy and scene.toml may be what a run focuses with --raw).
    let one = format!("{}{}", small_for_echoes(), target(20010.0, 2.0));
    let cfg = config(&dir, "one.toml", &one);
    assert_ok(&sar(&dir, &["--config", &cfg, "--out", out_s]));
    assert_eq!(
        files(&out),
        [
            "focused.npy",
            "image.png",
            "metrics.json",
            "notes.txt",
            "overview.png",
            "raw.npy",
            "raw.png",
            "scene.toml",
            "target-1-crop.png",
            "target-1-cuts.png",
        ]
    );
    assert_eq!(
        metrics(&out)["targets"].as_array().expect("targets").len(),
        1
    );
    // Focusing the echoes in that folder from that folder keeps them.
    let raw = out.join("raw.npy");
    assert_ok(&sar_raw(&dir, &cfg, &out, &raw));
    assert!(raw.exists());
}

#[test]
fn users_echoes_measure_only_the_targets_they_name() {
    let dir = TempDir::new("sar-raw");
    let radar = small_for_echoes();
    let with_target = format!("{radar}{}", target(20000.0, -3.0));
    let cfg = config(&dir, "scene.toml", &with_target);
    let (sim, user) = (dir.path("sim"), dir.path("user"));
    assert_ok(&sar(
        &dir,
        &[
            "--config",
            &cfg,
            "--out",
            sim.to_str().expect("utf-8"),
            "--write-raw",
        ],
    ));
    let raw = sim.join("raw.npy");
    // With the scene.toml written beside the echoes (the simulation's centroid in it), the
    // same image and measurements.
    let scene = sim.join("scene.toml");
    assert_ok(&sar_raw(&dir, scene.to_str().expect("utf-8"), &user, &raw));
    let (a, b) = (metrics(&sim), metrics(&user));
    assert_eq!(a["targets"][0]["metrics"], b["targets"][0]["metrics"]);
    // No targets listed: nothing measured (the default scene's five are not the user's).
    let bare = config(&dir, "bare.toml", &radar);
    let none = dir.path("none");
    let o = sar_raw(&dir, &bare, &none, &raw);
    assert_ok(&o);
    assert_eq!(metrics(&none)["targets"], serde_json::json!([]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no targets to measure"));
    // --raw without radar.near_range_m is refused (the range axis would be unknown).
    let o = sar(&dir, &["--raw", "/nonexistent.npy"]);
    fails_with(&o, &["near_range_m"]);
}

#[test]
fn a_target_that_cannot_be_measured_is_reported_not_fatal() {
    // Nothing recorded (all zeros), with a target named: it is not there to measure.
    let dir = TempDir::new("sar-noise");
    let noise = dir.path("noise.npy");
    write_npy(
        &noise,
        &[1024, 1024],
        &vec![tierfft::Complex32::new(0.0, 0.0); 1024 * 1024],
    );
    let radar = small_for_echoes();
    let cfg = config(
        &dir,
        "scene.toml",
        &format!("{radar}{}", target(20000.0, 0.0)),
    );
    let out = dir.path("out");
    let o = sar_raw(&dir, &cfg, &out, &noise);
    assert_ok(&o);
    assert!(
        stderr(&o).contains("warning: target 1 was not measured"),
        "{}",
        stderr(&o)
    );
    let m = metrics(&out);
    let t = &m["targets"][0];
    assert!(t["error"].as_str().is_some_and(|e| !e.is_empty()), "{t}");
    assert!(t["metrics"].is_null() || t["alone"].is_null(), "{t}");
    assert!(out.join("target-1-cuts.png").exists() && out.join("overview.png").exists());
}

#[test]
fn users_echoes_of_the_wrong_shape_are_named() {
    let dir = TempDir::new("sar-shape");
    let cfg = config(&dir, "scene.toml", "[radar]\nnear_range_m = 19400.0\n");
    let out = dir.path("out");
    let out = out.to_str().expect("utf-8");
    let x = random(1024 * 1000, 3);
    write_npy(&dir.path("cube.npy"), &[4, 16, 16], &x[..1024]);
    write_npy(&dir.path("narrow.npy"), &[1024, 1000], &x);
    let o = sar_raw(&dir, &cfg, Path::new(out), &dir.path("cube.npy"));
    fails_with(
        &o,
        &["[4, 16, 16]", "2-d array [azimuth lines, range samples]"],
    );
    assert!(!stderr(&o).contains("reshape"), "{}", stderr(&o));
    assert!(!dir.path("out").exists());
    // Any size is focused as recorded (noise here: no centroid to estimate, nothing to
    // measure).
    // (The echoes' shape is the scene's size: a config stating another is refused.)
    let small = config(
        &dir,
        "small.toml",
        &small_for_echoes().replace("samples = 1024\n", ""),
    );
    let narrow = dir.path("narrow.npy");
    let narrow = narrow.to_str().expect("utf-8");
    let o = sar(
        &dir,
        &[
            "--config", &small, "--out", out, "--raw", narrow, "--looks", "4,3",
        ],
    );
    assert_ok(&o);
    let m = metrics(Path::new(out));
    assert_eq!(
        (m["lines"].as_u64(), m["samples"].as_u64()),
        (Some(1024), Some(1000))
    );
    // The multi-looked product: 4 × 3 looks of 1024 × 1000.
    let looks = std::fs::read(Path::new(out).join("looks.npy")).expect("looks.npy");
    let header = String::from_utf8_lossy(&looks[..128]);
    assert!(
        header.contains("'<f4'") && header.contains("(256, 334, )"),
        "{header}"
    );
    let (w, h, c, _) = decode(&Path::new(out).join("looks.png"));
    // 256 × 334 looks, each side stretched to at least 512 pixels, with axes and a bar.
    assert_eq!((w, h, c), (822, 712, 3));
    std::fs::remove_dir_all(out).expect("clean");
    // An unknown device lists every name a user can give.
    let o = dir.run(&["sar", "--device", "no-such-gpu", "--out", out]);
    fails_with(
        &o,
        &[
            "no-such-gpu",
            "auto, cpu, cuda, cuda:N, gpu, gpu:N, lavapipe",
        ],
    );
}

#[test]
fn a_measured_pulse_is_transmitted_and_matched() {
    // SMALL's 2 µs chirp (240 samples at 120 MHz) with 30 % amplitude ripple and 0.8 rad of
    // phase error, as a transmitter might make it.
    let dir = TempDir::new("sar-replica");
    let pulse: Vec<tierfft::Complex32> = (0..240)
        .map(|k| {
            let t = (k as f64 - 119.5) / 120e6;
            let u = t / 2e-6;
            let gain = 1.0 + 0.3 * (2.0 * std::f64::consts::PI * 2.5 * u).cos();
            let phase = std::f64::consts::PI * 100e6 / 2e-6 * t * t
                + 0.8 * (2.0 * std::f64::consts::PI * 1.5 * u).sin();
            tierfft::Complex32::new((gain * phase.cos()) as f32, (gain * phase.sin()) as f32)
        })
        .collect();
    write_npy(&dir.path("pulse.npy"), &[240], &pulse);
    // Named in the config, relative to it.
    let toml = format!(
        "{}{}",
        SMALL.replace("[radar]\n", "[radar]\nreplica = \"pulse.npy\"\n"),
        target(20010.0, 2.0)
    );
    let cfg = config(&dir, "scene.toml", &toml);
    let out = dir.path("out");
    let o = sar(
        &dir,
        &["--config", &cfg, "--out", out.to_str().expect("utf-8")],
    );
    assert_ok(&o);
    let m = metrics(&out);
    let pslr = m["targets"][0]["alone"]["range"]["pslr_db"]
        .as_f64()
        .expect("pslr");
    assert!((pslr + 13.26).abs() < 0.3, "range PSLR {pslr}");
    // A 2-D array is no pulse.
    write_npy(&dir.path("plane.npy"), &[2, 120], &pulse);
    let plane = dir.path("plane.npy");
    let o = sar(
        &dir,
        &[
            "--config",
            &cfg,
            "--out",
            out.to_str().expect("utf-8"),
            "--replica",
            plane.to_str().expect("utf-8"),
        ],
    );
    fails_with(&o, &["plane.npy", "[2, 120]", "1-D"]);
}

#[test]
fn a_scene_is_focused_in_blocks_when_asked() {
    let dir = TempDir::new("sar-blocks");
    let toml = format!("{SMALL}{}{}", target(20010.0, 2.0), target(20200.0, -8.0));
    let cfg = config(&dir, "scene.toml", &toml);
    let out = dir.path("out");
    let o = sar(
        &dir,
        &[
            "--config",
            &cfg,
            "--out",
            out.to_str().expect("utf-8"),
            "--block-lines",
            "300",
        ],
    );
    assert_ok(&o);
    assert!(stderr(&o).contains("blocks of"), "{}", stderr(&o));
    let m = metrics(&out);
    assert!(
        m["blocks"]["count"].as_u64().is_some_and(|n| n >= 2),
        "{}",
        m["blocks"]
    );
    for t in m["targets"].as_array().expect("targets") {
        let alone = &t["alone"];
        for axis in ["range", "azimuth"] {
            let pslr = alone[axis]["pslr_db"].as_f64().expect("pslr");
            assert!((pslr + 13.26).abs() < 0.5, "{axis}: {t}");
        }
    }
}

#[test]
fn chirp_scaling_focuses_and_is_reported() {
    let dir = TempDir::new("sar-csa");
    let toml = format!("{SMALL}{}{}", target(20010.0, 2.0), target(20200.0, -8.0));
    let cfg = config(&dir, "scene.toml", &toml);
    let out = dir.path("out");
    let out_arg = out.to_str().expect("utf-8");
    let o = sar(
        &dir,
        &[
            "--config",
            &cfg,
            "--out",
            out_arg,
            "--algorithm",
            "csa",
            "--radiometry",
            "spreading",
        ],
    );
    assert_ok(&o);
    assert!(stderr(&o).contains("chirp scaling"), "{}", stderr(&o));
    let m = metrics(&out);
    assert_eq!(m["algorithm"], "csa");
    assert_eq!(m["radiometry"], "spreading");
    for t in m["targets"].as_array().expect("targets") {
        for axis in ["range", "azimuth"] {
            let pslr = t["alone"][axis]["pslr_db"].as_f64().expect("pslr");
            assert!((pslr + 13.26).abs() < 0.5, "{axis}: {t}");
        }
    }
    // What chirp scaling does not have, or cannot mean, is refused before any work.
    for (args, words) in [
        (&["--src", "off"][..], &["chirp scaling", "SRC off"][..]),
        (&["--no-rcmc"][..], &["chirp scaling", "RCMC off"][..]),
    ] {
        let mut all = vec!["--config", &cfg, "--out", out_arg, "--algorithm", "csa"];
        all.extend_from_slice(args);
        fails_with(&sar(&dir, &all), words);
    }
    for (flag, value, words) in [
        ("--algorithm", "omega-k", &["rda or csa"][..]),
        (
            "--radiometry",
            "calibrated",
            &["raw, normalised or spreading"][..],
        ),
    ] {
        let o = sar(&dir, &["--config", &cfg, "--out", out_arg, flag, value]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            words.iter().all(|w| stderr(&o).contains(w)),
            "{}",
            stderr(&o)
        );
    }
}

/// `--plan` prints each algorithm's steps in order, with what each needs whole, and exits
/// before any work: no output folder, nothing focused.
#[test]
fn sar_plan_prints_the_steps_and_focuses_nothing() {
    let dir = TempDir::new("sar-plan");
    let cfg = config(&dir, "scene.toml", SMALL);
    let out = dir.path("out");
    let out_arg = out.to_str().expect("utf-8 path");
    let rda: &[&str] = &[
        "range compression",
        "azimuth FFT",
        "RCMC",
        "azimuth compression",
    ];
    let csa: &[&str] = &[
        "azimuth FFT",
        "chirp scaling",
        "range compression and SRC (2-D)",
        "azimuth compression",
    ];
    for (algorithm, extra, steps) in [
        ("rda", &[][..], rda),
        ("csa", &[][..], csa),
        // Over several ranks the plan is the same: printed, not focused.
        ("csa", &["--gpus", "2"][..], csa),
    ] {
        let mut args = vec![
            "--config",
            &cfg,
            "--out",
            out_arg,
            "--algorithm",
            algorithm,
            "--plan",
        ];
        args.extend_from_slice(extra);
        let o = sar(&dir, &args);
        assert_ok(&o);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.starts_with("SAR plan: ") && text.contains(&format!("({algorithm})")),
            "{text}"
        );
        for (i, step) in steps.iter().enumerate() {
            assert!(
                text.contains(&format!("  {}. {step}: ", i + 1)),
                "{algorithm}: step {} is not {step}:\n{text}",
                i + 1
            );
        }
        assert_eq!(text.lines().count(), steps.len() + 1, "{text}");
        for needs in ["needs whole range lines", "needs whole azimuth columns"] {
            assert!(text.contains(needs), "{text}");
        }
        assert!(!out.exists(), "--plan wrote {}", out.display());
        assert!(!stderr(&o).contains("focusing"), "{}", stderr(&o));
    }
}
