//! `tierfft sar` end to end on the CPU: files written (the per-target figures decoded), one
//! target focused to theory, bad configurations refused before any work.

use std::process::Command;

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tierfft-sar-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A decoded 8-bit RGB PNG.
struct Rgb {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

impl Rgb {
    /// Distinct colours.
    fn colours(&self) -> usize {
        self.pixels
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
    }

    fn has(&self, colour: [u8; 3]) -> bool {
        self.pixels.contains(&colour)
    }
}

/// Reads `path` as a PNG, which must be 8-bit RGB.
fn decode(path: &std::path::Path) -> Rgb {
    let file = std::fs::File::open(path).expect("png file");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgb, png::BitDepth::Eight),
        "{}",
        path.display()
    );
    Rgb {
        width: info.width,
        height: info.height,
        pixels: buf[..info.buffer_size()]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect(),
    }
}

#[test]
fn focuses_a_target_and_writes_every_output() {
    let d = dir("one");
    let config = d.join("scene.toml");
    std::fs::write(&config, "[scene]\nlines = 4096\nsamples = 2048\nsnr_db = 20.0\n[[scene.targets]]\nrange_m = 20010.0\nazimuth_m = 2.0\n").expect("config");
    let out = d.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_tierfft"))
        .args(["sar", "--device", "cpu", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("run");
    assert!(status.success());
    for f in [
        "image.png",
        "raw.png",
        "metrics.json",
        "focused.npy",
        "target-1-crop.png",
        "target-1-cuts.png",
    ] {
        assert!(
            out.join(f).metadata().is_ok_and(|m| m.len() > 0),
            "{f} missing"
        );
    }
    // One target: its figures and no others. The crop is ±32 lines and samples zoomed 8
    // times (the target is far from the edges); the cut plot is 1200 × 450.
    assert!(!out.join("target-2-crop.png").exists());
    let crop = decode(&out.join("target-1-crop.png"));
    assert_eq!((crop.width, crop.height), (65 * 8, 65 * 8));
    let cuts = decode(&out.join("target-1-cuts.png"));
    assert_eq!((cuts.width, cuts.height), (1200, 450));
    for (name, img) in [("crop", &crop), ("cuts", &cuts)] {
        assert!(img.colours() > 20, "{name}: {} colours", img.colours());
    }
    // The crop: the target's peak is the image's, white; the background black; the red mark.
    assert!(crop.has([255, 255, 255]) && crop.has([0, 0, 0]) && crop.has([255, 40, 40]));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).expect("json"))
            .expect("parse");
    let t = &m["targets"][0];
    let (irw_r, irw_a) = (
        m["theory"]["range_irw_bins"].as_f64().unwrap(),
        m["theory"]["azimuth_irw_bins"].as_f64().unwrap(),
    );
    let got = |cut: &str, key: &str| t["metrics"][cut][key].as_f64().unwrap();
    assert!((got("range", "irw_bins") / irw_r - 1.0).abs() < 0.03, "{t}");
    assert!(
        (got("azimuth", "irw_bins") / irw_a - 1.0).abs() < 0.03,
        "{t}"
    );
    assert!(
        (got("range", "pslr_db") + 13.26).abs() < 0.5
            && (got("azimuth", "pslr_db") + 13.26).abs() < 0.5,
        "{t}"
    );
    assert!(
        (got("range", "peak_position") - t["expected"][1].as_f64().unwrap()).abs() < 0.1,
        "{t}"
    );
    assert!(
        (got("azimuth", "peak_position") - t["expected"][0].as_f64().unwrap()).abs() < 0.1,
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_configurations_are_refused_before_any_work() {
    let d = dir("bad");
    for (toml, says) in [
        (
            "[radar]\nsample_rate_hz = 50e6",
            "below the chirp bandwidth",
        ),
        ("[radar]\nprf_hz = 10.0", "Doppler bandwidth"),
    ] {
        let config = d.join("bad.toml");
        std::fs::write(&config, toml).expect("config");
        let out = d.join("out");
        let o = Command::new(env!("CARGO_BIN_EXE_tierfft"))
            .args(["sar", "--device", "cpu", "--config"])
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run");
        assert!(!o.status.success());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!out.exists(), "nothing is written on error");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn users_raw_echoes_focus_like_the_simulation() {
    // Simulate and keep the echoes, then focus the file as a user's data: same metrics.
    let d = dir("raw");
    let config = d.join("scene.toml");
    std::fs::write(
        &config,
        "[radar]\nnear_range_m = 18722.0\n[scene]\nlines = 4096\nsamples = 2048\nsnr_db = 30.0\n[[scene.targets]]\nrange_m = 20000.0\nazimuth_m = -3.0\n",
    )
    .expect("config");
    let run = |extra: &[&str], out: &std::path::Path| {
        let st = Command::new(env!("CARGO_BIN_EXE_tierfft"))
            .args(["sar", "--device", "cpu", "--config"])
            .arg(&config)
            .arg("--out")
            .arg(out)
            .args(extra)
            .status()
            .expect("run");
        assert!(st.success());
        serde_json::from_str::<serde_json::Value>(
            &std::fs::read_to_string(out.join("metrics.json")).expect("json"),
        )
        .expect("parse")
    };
    let (sim, user) = (d.join("sim"), d.join("user"));
    let a = run(&["--write-raw"], &sim);
    let raw = sim.join("raw.npy");
    let b = run(&["--raw", raw.to_str().expect("utf-8 path")], &user);
    assert_eq!(a["targets"][0]["metrics"], b["targets"][0]["metrics"]);
    // --raw without radar.near_range_m is refused (the range axis would be unknown).
    let o = Command::new(env!("CARGO_BIN_EXE_tierfft"))
        .args(["sar", "--device", "cpu", "--raw", "/nonexistent.npy"])
        .output()
        .expect("run");
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("near_range_m"));
    let _ = std::fs::remove_dir_all(&d);
}
