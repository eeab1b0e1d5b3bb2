//! The fuzz corpus through the command itself: every `.npy` in `fuzz/corpus/npy/` (the
//! fuzzer's finds, corrupted and adversarial headers among them) given to `tierfft fft`, and
//! the hand-written SAR configs in `fuzz/corpus/sar_config/` to `tierfft sar` on a small
//! scene. Each run either succeeds or fails with `error: ...` and exit 1, never a panic, and a
//! failed run leaves no output behind.

use std::path::PathBuf;
use std::process::Output;

use crate::common::{TempDir, stderr};

fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
}

/// Exit 0, or exit 1 with one `error:` line and no panic; `output` exists only on success.
fn clean(what: &str, out: &Output, output: &std::path::Path) -> Result<(), String> {
    let msg = stderr(out);
    match out.status.code() {
        Some(0) if output.exists() => Ok(()),
        Some(1) if msg.starts_with("error: ") && !msg.contains("panicked") => match output.exists()
        {
            true => Err(format!("{what}: failed but left {}", output.display())),
            false => Ok(()),
        },
        code => Err(format!("{what}: exit {code:?}, stderr: {msg}")),
    }
}

#[test]
fn npy_corpus_through_tierfft_fft() {
    let dir = TempDir::new("adversarial-npy");
    let mut failures = Vec::new();
    let files = corpus("npy");
    for input in &files {
        let output = dir.path("out.npy");
        let _ = std::fs::remove_file(&output);
        let out = dir.run(&[
            "fft",
            "--device",
            "cpu",
            "--input",
            &input.to_string_lossy(),
            "--output",
            &output.to_string_lossy(),
        ]);
        if let Err(e) = clean(&input.display().to_string(), &out, &output) {
            failures.push(e);
        }
    }
    println!("{} npy inputs", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sar_configs_through_tierfft_sar() {
    let dir = TempDir::new("adversarial-sar");
    let mut failures = Vec::new();
    // The hand-written inputs (the fuzzer's own finds are replayed by crates/tierfft-fuzz).
    let configs: Vec<PathBuf> = corpus("sar_config")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    for config in &configs {
        let out_dir = dir.path("sar-out");
        let _ = std::fs::remove_dir_all(&out_dir);
        let out = dir.run(&[
            "sar",
            "--device",
            "cpu",
            "--config",
            &config.to_string_lossy(),
            "--lines",
            "64",
            "--samples",
            "64",
            "--out",
            &out_dir.to_string_lossy(),
        ]);
        if let Err(e) = clean(
            &config.display().to_string(),
            &out,
            &out_dir.join("metrics.json"),
        ) {
            failures.push(e);
        }
    }
    assert!(configs.len() >= 5);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
