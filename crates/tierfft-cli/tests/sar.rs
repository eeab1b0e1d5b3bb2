//! `tierfft sar` end to end on the CPU: files written, one target focused to theory, bad
//! configurations refused before any work.

use std::process::Command;

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tierfft-sar-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
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
    for f in ["image.png", "raw.png", "metrics.json", "focused.npy"] {
        assert!(
            out.join(f).metadata().is_ok_and(|m| m.len() > 0),
            "{f} missing"
        );
    }
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
