//! Helpers shared by the CLI tests: a private temp dir that runs `tierfft`, `.npy` files.

// Each test file uses a part of these helpers.
#![allow(dead_code)]

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use npyz::{WriteOptions, WriterBuilder};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use tierfft::Complex32;

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "tierfft-cli-{name}-{}-{nanos}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// Runs `tierfft` with `args`, without XDG_RUNTIME_DIR or NODEVICE_SELECT (as on a fresh
    /// headless machine: the command must stay quiet on its own).
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with_device_env(args, None)
    }

    /// Runs `tierfft` with `args` and `TIERFFT_DEVICE` set to `device_env` (or unset).
    pub fn run_with_device_env(&self, args: &[&str], device_env: Option<&str>) -> Output {
        let mut cmd = self.command(args);
        match device_env {
            Some(v) => cmd.env("TIERFFT_DEVICE", v),
            None => cmd.env_remove("TIERFFT_DEVICE"),
        };
        cmd.output().expect("run tierfft")
    }

    /// Runs `tierfft` with `args` and the environment variables `env` set.
    pub fn run_with_env(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut cmd = self.command(args);
        cmd.env_remove("TIERFFT_DEVICE").envs(env.iter().copied());
        cmd.output().expect("run tierfft")
    }

    /// Starts `tierfft` with `args` and the environment variables `env` set, its output
    /// captured; the caller waits for it.
    pub fn spawn_with_vars(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        let mut cmd = self.command(args);
        cmd.env_remove("TIERFFT_DEVICE")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().expect("start tierfft")
    }

    /// `tierfft` with `args`, without XDG_RUNTIME_DIR or NODEVICE_SELECT.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tierfft"));
        cmd.args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("NODEVICE_SELECT");
        cmd
    }

    /// Names of the files in the directory.
    pub fn files(&self) -> Vec<String> {
        files_in(&self.0)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Names of everything in `dir` (hidden entries too), sorted.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list dir")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

pub fn random(len: usize, seed: u64) -> Vec<Complex32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len)
        .map(|_| Complex32::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
        .collect()
}

pub fn write_npy<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], data: &[T]) {
    let file = BufWriter::new(File::create(path).expect("create .npy"));
    let mut w = WriteOptions::<T>::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .expect("npy header");
    w.extend(data.iter().copied()).expect("npy data");
    w.finish().expect("finish .npy");
}

pub fn read_c64(path: &Path) -> (Vec<u64>, Vec<Complex32>) {
    let npy = npyz::NpyFile::new(File::open(path).expect("open output")).expect("parse output");
    assert_eq!(npy.dtype().descr(), "'<c8'");
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec().expect("read output"))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "tierfft failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    );
}

/// `z` in f64.
pub fn num_c64(z: Complex32) -> npyz::num_complex::Complex64 {
    npyz::num_complex::Complex64::new(z.re.into(), z.im.into())
}

/// Whether python3 can import `modules` (e.g. `"numpy, h5py"`); where it cannot while
/// `TIERFFT_REQUIRE_NUMPY` is set (as `scripts/test` sets it, installing them), the test
/// fails instead of skipping.
pub fn python_imports(modules: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok || std::env::var_os("TIERFFT_REQUIRE_NUMPY").is_none(),
        "TIERFFT_REQUIRE_NUMPY is set, but python3 cannot import {modules}"
    );
    ok
}

/// Runs `scripts/<script>` with python3 against this build's `tierfft` (`--tierfft`) and
/// `args`, printing its output and failing the test when it fails. Without NumPy it is
/// skipped, unless `TIERFFT_REQUIRE_NUMPY` is set (as `scripts/test` does), which fails.
pub fn run_numpy_script(script: &str, args: &[&str]) {
    if !python_imports("numpy") {
        eprintln!("python3 cannot import numpy: scripts/{script} did not run");
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(script);
    let out = Command::new("python3")
        .arg(&path)
        .args(["--tierfft", env!("CARGO_BIN_EXE_tierfft")])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run scripts/{script}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "{text}");
}

/// Checks that `out` failed with exit 1, without a panic, and with a message holding every
/// one of `words`.
pub fn fails_with(out: &Output, words: &[&str]) {
    let msg = stderr(out);
    assert_eq!(out.status.code(), Some(1), "expected exit 1: {msg}");
    assert!(!msg.contains("panicked"), "{msg}");
    for w in words {
        assert!(msg.contains(w), "message lacks '{w}': {msg}");
    }
}

/// The metrics.json `tierfft sar` wrote into `out`.
pub fn metrics(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).expect("json"))
        .expect("parse")
}

/// `p` as a command-line argument.
pub fn text(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
