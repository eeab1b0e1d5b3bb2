//! The example configs under docs/examples/, each run as its header says and its targets
//! measured against theory (the field-data-like one also refocused from its echoes with
//! `--raw`, its centroid then estimated and its pattern recognised).

use std::path::{Path, PathBuf};

use crate::common::{TempDir, assert_ok, metrics, text};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/examples")
        .join(name)
}

/// Every target of `out`'s metrics measured alone within 2 % of theory's IRW and 0.5 dB of
/// its PSLR in both directions; returns how many there were.
fn meets_theory(out: &Path) -> usize {
    let m = metrics(out);
    let theory = &m["theory"];
    let targets = m["targets"].as_array().expect("targets");
    for t in targets {
        let alone = &t["alone"];
        assert!(alone.is_object(), "{t}");
        for axis in ["range", "azimuth"] {
            let irw = alone[axis]["irw_bins"].as_f64().expect("irw");
            let pslr = alone[axis]["pslr_db"].as_f64().expect("pslr");
            let want_irw = theory[format!("{axis}_irw_bins")].as_f64().expect("theory");
            let want_pslr = theory[format!("{axis}_pslr_db")].as_f64().expect("theory");
            assert!((irw / want_irw - 1.0).abs() < 0.02, "{axis} IRW {irw}: {t}");
            assert!((pslr - want_pslr).abs() < 0.5, "{axis} PSLR {pslr}: {t}");
        }
    }
    targets.len()
}

/// Runs `tierfft sar --device cpu` with `args`, which must succeed.
fn sar(dir: &TempDir, args: &[&str]) {
    let mut all = vec!["sar", "--device", "cpu"];
    all.extend_from_slice(args);
    assert_ok(&dir.run(&all));
}

#[test]
fn the_broadside_example_focuses_to_theory() {
    let dir = TempDir::new("example-broadside");
    let out = dir.path("out");
    sar(
        &dir,
        &[
            "--config",
            text(&example("broadside.toml")),
            "--out",
            text(&out),
        ],
    );
    assert_eq!(meets_theory(&out), 3);
    assert_eq!(metrics(&out)["src"], false);
}

#[test]
fn the_squinted_example_focuses_to_theory_with_src() {
    let dir = TempDir::new("example-squinted");
    let out = dir.path("out");
    sar(
        &dir,
        &[
            "--config",
            text(&example("squinted.toml")),
            "--out",
            text(&out),
        ],
    );
    assert_eq!(meets_theory(&out), 2);
    let m = metrics(&out);
    assert_eq!(m["src"], true);
    assert_eq!(m["doppler_centroid"]["mid_swath_hz"], 100.0);
}

#[test]
fn the_field_data_like_example_focuses_its_own_echoes() {
    let dir = TempDir::new("example-field");
    let config = example("field-data-like.toml");
    let (sim, raw) = (dir.path("sim"), dir.path("raw"));
    sar(
        &dir,
        &[
            "--config",
            text(&config),
            "--out",
            text(&sim),
            "--write-raw",
        ],
    );
    assert_eq!(meets_theory(&sim), 3);
    // The echoes with the example as their config, as its header says: the centroid and the
    // pattern are not given, so they are estimated and recognised.
    let echoes = sim.join("raw.npy");
    sar(
        &dir,
        &[
            "--raw",
            text(&echoes),
            "--config",
            text(&config),
            "--out",
            text(&raw),
        ],
    );
    assert_eq!(meets_theory(&raw), 3);
    let m = metrics(&raw);
    assert_eq!(m["doppler_centroid"]["source"], "estimated");
    assert_eq!(m["azimuth_pattern"]["source"], "recognised");
    assert!(
        m["doppler_centroid"]["mid_swath_hz"]
            .as_f64()
            .is_some_and(|hz| hz.abs() < 3.0)
    );
}
