//! Where plans find wisdom ([`crate::plan::wisdom`]): the defaults shipped with the library
//! (measured with `tierfft tune` on the GPUs they name) and the user's wisdom file, which
//! `tierfft tune` writes.
//!
//! The file is [`WISDOM_ENV`] when set and not empty (`off`: none), else `wisdom.json` in
//! the user's cache folder (`$XDG_CACHE_HOME/tierfft`, or `~/.cache/tierfft`). It is read once per process,
//! when the first plan asks, and again after [`record`] writes it. An entry there must match
//! the device's name, its driver and this library's version; a shipped default only the
//! device's name. A damaged file is an error when plans would read it, naming the file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::plan::wisdom::{Entry, Key, Wisdom};
use crate::plan::{DeviceLimits, PlanOptions};
use crate::spec::FftSpec;

/// Environment variable naming the wisdom file (`off`: read and write none).
pub const WISDOM_ENV: &str = "TIERFFT_WISDOM";

/// The defaults shipped with the library (`crates/tierfft/wisdom/shipped.json`).
const SHIPPED: &str = include_str!("../../wisdom/shipped.json");

/// The shipped defaults, parsed once.
pub fn shipped() -> Result<&'static Wisdom> {
    static PARSED: OnceLock<std::result::Result<Wisdom, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| Wisdom::parse(SHIPPED, "the shipped wisdom").map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Error::InvalidWisdom(e.clone()))
}

/// The user's wisdom file: [`WISDOM_ENV`], else `wisdom.json` in the cache folder; `None`
/// when switched off or when there is no home folder.
pub fn path() -> Option<PathBuf> {
    match std::env::var_os(WISDOM_ENV).filter(|p| !p.is_empty()) {
        Some(p) if p == "off" => None,
        Some(p) => Some(PathBuf::from(p)),
        None => super::user_cache().map(|d| d.join("wisdom.json")),
    }
}

/// Reads the wisdom file at `path`: none when it does not exist.
pub fn read(path: &Path) -> Result<Wisdom> {
    match std::fs::read_to_string(path) {
        Ok(text) => Wisdom::parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Wisdom::new()),
        Err(e) => Err(Error::InvalidWisdom(format!(
            "{}: cannot be read ({e}); fix its permissions or set {WISDOM_ENV}=off",
            path.display()
        ))),
    }
}

/// Adds `entries` to the wisdom file at `path` (made with its folder where missing;
/// entries for the same device, driver, version and transforms replaced), written whole
/// through a temporary file so that a reader never sees half of it, under a lock on
/// `PATH.lock` so that tuners in other processes add theirs rather than overwrite them.
/// Plans in this process read the new file from then on. `Err`, the file unchanged, for an
/// entry the reader would refuse and for a file that cannot be read or written.
pub fn record(path: &Path, entries: impl IntoIterator<Item = Entry>) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::InvalidWisdom(format!(
            "{}: cannot be written ({e}); fix its folder's permissions or name another file \
             (TIERFFT_WISDOM, --out)",
            path.display()
        ))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path.with_extension("json.lock"))
        .map_err(fail)?;
    lock.lock().map_err(fail)?;
    let mut w = read(path)?;
    for e in entries {
        w.insert(e)?;
    }
    // A name of this process and call, so that threads recording at once do not share it.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let tmp = path.with_extension(format!(
        "json.{}.{}.tmp",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let text = w.to_json()?;
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_all()
        })
        .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    drop(lock);
    if let Ok(mut loaded) = loaded().lock() {
        *loaded = None;
    }
    Ok(())
}

/// The file [`user`] read last (`None`: none, switched off) and what it held.
type Loaded = Option<(Option<PathBuf>, Arc<Wisdom>)>;

/// The user's file as this process read it (`None`: not read yet).
fn loaded() -> &'static Mutex<Loaded> {
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    LOADED.get_or_init(Default::default)
}

/// The user's wisdom, read on first use (and again when [`WISDOM_ENV`] names another file).
fn user() -> Result<Arc<Wisdom>> {
    let path = path();
    let mut guard = loaded()
        .lock()
        .map_err(|_| Error::InvalidWisdom("the wisdom store was poisoned by a panic".into()))?;
    if let Some((p, w)) = guard.as_ref()
        && *p == path
    {
        return Ok(w.clone());
    }
    let w = Arc::new(match &path {
        Some(p) => read(p)?,
        None => Wisdom::new(),
    });
    *guard = Some((path, w.clone()));
    Ok(w)
}

/// The entry plans of `spec` take on the device `device` (its [`crate::Device::name`]) with
/// `driver` and `limits`: the user's, else the shipped default; `None` where `opts` does not
/// take wisdom ([`PlanOptions::wisdom`], [`PlanOptions::leaves_shape_to_planner`]) or no
/// entry speaks for the transform.
pub fn lookup(
    device: &str,
    driver: &str,
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
) -> Result<Option<Entry>> {
    if !opts.wisdom || !opts.leaves_shape_to_planner() {
        return Ok(None);
    }
    let Some(key) = Key::of(spec, limits) else {
        return Ok(None);
    };
    let user = user()?;
    if let Some(e) = user.lookup(device, driver, &key, false) {
        return Ok(Some(e.clone()));
    }
    Ok(shipped()?.lookup(device, driver, &key, true).cloned())
}

/// `opts` with the choice of the entry [`lookup`] finds, if any.
pub(crate) fn advise(
    device: &str,
    driver: &str,
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
) -> Result<PlanOptions> {
    Ok(match lookup(device, driver, spec, limits, opts)? {
        Some(e) => e.choice.apply(opts),
        None => opts.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_wisdom_plans_on_the_devices_it_names() {
        use crate::plan::{Plan, PlanOptions};
        for e in &shipped().unwrap().entries {
            let profile = match e.device.contains("(Vulkan)") {
                true => "h100-vulkan",
                false => "h100-cuda",
            };
            let limits = DeviceLimits::profile(profile).unwrap();
            let mut spec = FftSpec::new(e.key.n)
                .batch(e.measured.batch)
                .precision(e.key.precision);
            if e.key.columns {
                spec = spec.columns();
            }
            let plan = Plan::with_options(&spec, &limits, &e.choice.apply(&PlanOptions::default()));
            plan.and_then(|p| p.check()).unwrap_or_else(|err| {
                panic!("{} points on {}: {err}", e.key.n, e.device);
            });
        }
    }

    #[test]
    fn record_merges_into_a_new_file_and_read_finds_it() {
        let dir = std::env::temp_dir().join(format!("tierfft-wisdom-{}", std::process::id()));
        let path = dir.join("nested").join("wisdom.json");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(read(&path).unwrap().entries.is_empty());
        let text = r#"{"format": "tierfft wisdom 1", "entries": [{
            "device": "dev", "driver": "drv", "tierfft": "0.1.0",
            "n": 4096, "precision": "f32", "columns": false, "fills_device": true,
            "choice": {"points_per_thread": 16},
            "measured": {"batch": 8, "seconds": 1e-5, "default_seconds": 2e-5, "candidates": 3}
        }]}"#;
        let entry = Wisdom::parse(text, "t").unwrap().entries.remove(0);
        record(&path, [entry.clone()]).unwrap();
        record(&path, [entry]).unwrap();
        assert_eq!(read(&path).unwrap().entries.len(), 1);
        std::fs::write(&path, "{").unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(
            e.contains("wisdom.json") && e.contains("delete the file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
