//! Wisdom: the planner choices measured fastest on a device, as data (FFTW's wisdom).
//!
//! `tierfft tune` times the candidate shapes of a length on the device at hand
//! ([`super::tune`]) and keeps the winner as an [`Entry`]: which device (its name and
//! driver), which library version, which transforms it speaks for ([`Key`]) and the planner
//! options that won ([`Choice`]). Plans read the entries through the backend's store
//! (`backend/wisdom.rs`); an entry for another device, driver or version is stale and
//! ignored, and a transform without an entry is planned from the planner's model.
//!
//! The file is JSON, one object with a `format` tag and a list of entries; the reader
//! checks every value a plan would use, so a hand-edited or damaged file is an error naming
//! the entry and the field, never a wrong plan.

use serde::{Deserialize, Serialize};

use super::{DeviceLimits, Exchange, PlanOptions};
use crate::base::precision::Precision;
use crate::error::{Error, Result};
use crate::spec::{FftSpec, Layout};

/// The `format` tag of wisdom files this version reads and writes.
pub const FORMAT: &str = "tierfft wisdom 1";

/// This library's version, which entries record: the planner's choices mean something else
/// in another version, so entries from one are stale in the others.
pub const LIBRARY_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Entries measured on devices, one per device, driver, version and [`Key`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Wisdom {
    /// [`FORMAT`].
    pub format: String,
    /// The measured winners.
    pub entries: Vec<Entry>,
}

/// One measured winner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Entry {
    /// The device's name as [`crate::Device::name`] gives it, backend included
    /// (`NVIDIA H100 80GB HBM3 (CUDA sm_90)`).
    pub device: String,
    /// The driver it was measured with, as the backend reports it (`CUDA 13.0, NVRTC 13.0`).
    pub driver: String,
    /// The library version that measured it ([`LIBRARY_VERSION`]).
    pub tierfft: String,
    /// The transforms it speaks for.
    #[serde(flatten)]
    pub key: Key,
    /// The planner options that won.
    pub choice: Choice,
    /// What the measurement found.
    pub measured: Measured,
}

/// The transforms an [`Entry`] speaks for: one length, precision and layout, plain complex
/// transforms (pointwise operations allowed; no chain, real half or checksum), with a batch
/// that fills the device or not ([`fills_device`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Key {
    /// Transform length, points.
    pub n: usize,
    /// Storage precision (`f32`, `f64`, `f16`, `bf16`).
    #[serde(with = "precision_name")]
    pub precision: Precision,
    /// Column transforms (`Layout::Columns`) rather than rows.
    pub columns: bool,
    /// Whether the batch holds at least one on-chip block of points per compute unit.
    pub fills_device: bool,
}

impl Key {
    /// The key `spec` is looked up by on a device with `limits`; `None` for transforms no
    /// entry speaks for.
    pub fn of(spec: &FftSpec, limits: &DeviceLimits) -> Option<Key> {
        let plain = spec.chain.is_none()
            && spec.real.is_none()
            && spec.checksum == crate::Checksum::Off
            && super::is_smooth(spec.n);
        plain.then(|| Key {
            n: spec.n,
            precision: spec.precision,
            columns: spec.layout != Layout::Rows,
            fills_device: fills_device(spec, limits),
        })
    }
}

/// Whether `spec`'s batch gives every compute unit at least one on-chip block of points (the
/// largest power of two whose complex values fit a workgroup's memory): the regime where
/// the shapes for long batches hold (the cluster tier's threshold).
pub fn fills_device(spec: &FftSpec, limits: &DeviceLimits) -> bool {
    let bytes = Exchange::Complex.bytes(spec.precision);
    let block = super::shape::prev_power_of_two((limits.workgroup_memory / bytes).max(1));
    limits.filled_by(spec.batch.saturating_mul(spec.n), block)
}

/// The planner options an entry sets: the shape choices of [`PlanOptions`] (`None`: the
/// planner's own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct Choice {
    /// [`PlanOptions::target_threads`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_threads: Option<usize>,
    /// [`PlanOptions::max_radix`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_radix: Option<usize>,
    /// [`PlanOptions::points_per_thread`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_per_thread: Option<usize>,
    /// [`PlanOptions::groups_per_unit`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups_per_unit: Option<usize>,
    /// [`PlanOptions::min_lines`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_lines: Option<usize>,
    /// [`PlanOptions::cluster_blocks`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_blocks: Option<usize>,
    /// [`PlanOptions::last_pass_points`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_pass_points: Option<usize>,
    /// [`PlanOptions::exchange`]: `complex` or `split`.
    #[serde(skip_serializing_if = "Option::is_none", with = "exchange_name")]
    pub exchange: Option<Exchange>,
    /// [`PlanOptions::resident_bytes`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resident_bytes: Option<usize>,
    /// [`PlanOptions::merge`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<bool>,
    /// [`PlanOptions::exchange_rounds`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange_rounds: Option<usize>,
}

impl Choice {
    /// The shape options `opts` sets away from their defaults.
    pub fn of(opts: &PlanOptions) -> Choice {
        let d = PlanOptions::default();
        let set = |v: Option<usize>, default: Option<usize>| v.filter(|_| v != default);
        Choice {
            target_threads: set(opts.target_threads, d.target_threads),
            max_radix: set(Some(opts.max_radix), Some(d.max_radix)),
            points_per_thread: set(opts.points_per_thread, d.points_per_thread),
            groups_per_unit: set(opts.groups_per_unit, d.groups_per_unit),
            min_lines: set(opts.min_lines, d.min_lines),
            cluster_blocks: set(opts.cluster_blocks, d.cluster_blocks),
            last_pass_points: set(opts.last_pass_points, d.last_pass_points),
            exchange: opts.exchange.filter(|_| opts.exchange != d.exchange),
            resident_bytes: set(opts.resident_bytes, d.resident_bytes),
            merge: opts.merge.filter(|_| opts.merge != d.merge),
            exchange_rounds: set(opts.exchange_rounds, d.exchange_rounds),
        }
    }

    /// `opts` with this choice's options set (those it leaves `None` as they were).
    pub fn apply(&self, opts: &PlanOptions) -> PlanOptions {
        let mut o = opts.clone();
        o.target_threads = self.target_threads.or(o.target_threads);
        o.max_radix = self.max_radix.unwrap_or(o.max_radix);
        o.points_per_thread = self.points_per_thread.or(o.points_per_thread);
        o.groups_per_unit = self.groups_per_unit.or(o.groups_per_unit);
        o.min_lines = self.min_lines.or(o.min_lines);
        o.cluster_blocks = self.cluster_blocks.or(o.cluster_blocks);
        o.last_pass_points = self.last_pass_points.or(o.last_pass_points);
        o.exchange = self.exchange.or(o.exchange);
        o.resident_bytes = self.resident_bytes.or(o.resident_bytes);
        o.merge = self.merge.or(o.merge);
        o.exchange_rounds = self.exchange_rounds.or(o.exchange_rounds);
        o
    }

    /// The options as `--flag value` pairs of `tierfft bench` and `tierfft plan`, for printing
    /// (`default` where it sets none).
    pub fn flags(&self) -> String {
        let mut f = Vec::new();
        let mut push = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                f.push(format!("--{name} {v}"));
            }
        };
        push("threads", self.target_threads.map(|v| v.to_string()));
        push("radix", self.max_radix.map(|v| v.to_string()));
        push(
            "points-per-thread",
            self.points_per_thread.map(|v| v.to_string()),
        );
        push(
            "groups-per-unit",
            self.groups_per_unit.map(|v| v.to_string()),
        );
        push("min-lines", self.min_lines.map(|v| v.to_string()));
        push("cluster-blocks", self.cluster_blocks.map(|v| v.to_string()));
        push("last-pass", self.last_pass_points.map(|v| v.to_string()));
        push(
            "exchange",
            self.exchange.map(|e| exchange_name::name(e).into()),
        );
        push(
            "resident-mib",
            self.resident_bytes.map(|v| format!("{}", v >> 20)),
        );
        push(
            "merge",
            self.merge.map(|m| if m { "on" } else { "off" }.into()),
        );
        push(
            "exchange-rounds",
            self.exchange_rounds.map(|v| v.to_string()),
        );
        if f.is_empty() {
            "default".into()
        } else {
            f.join(" ")
        }
    }
}

/// What tuning measured for an [`Entry`]: seconds per run (median) on the batch it timed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Measured {
    /// Transforms per run.
    pub batch: usize,
    /// The winner's median time per run, seconds.
    pub seconds: f64,
    /// The planner's own choice's median time per run, timed beside the winner, seconds.
    pub default_seconds: f64,
    /// Candidate plans timed.
    pub candidates: usize,
}

impl Default for Wisdom {
    /// No entries, in this version's format.
    fn default() -> Self {
        Wisdom::new()
    }
}

impl Wisdom {
    /// No entries.
    pub fn new() -> Wisdom {
        Wisdom {
            format: FORMAT.into(),
            entries: Vec::new(),
        }
    }

    /// Reads a wisdom file's text (`origin` names it in errors). Every entry is checked:
    /// its length and options as planning would check them, its times finite and positive.
    pub fn parse(text: &str, origin: &str) -> Result<Wisdom> {
        let bad = |m: String| {
            Err(Error::InvalidWisdom(format!(
                "{origin}: {m}; delete the file (or set TIERFFT_WISDOM=off) and run `tierfft \
                 tune` again"
            )))
        };
        let w: Wisdom = match serde_json::from_str(text) {
            Ok(w) => w,
            Err(e) => return bad(format!("not a wisdom file ({e})")),
        };
        if w.format != FORMAT {
            return bad(format!(
                "format {:?}, but this version reads {FORMAT:?}",
                w.format
            ));
        }
        for (i, e) in w.entries.iter().enumerate() {
            if let Err(m) = e.check() {
                return bad(format!(
                    "entry {i} ({} points on {}): {m}",
                    e.key.n, e.device
                ));
            }
        }
        Ok(w)
    }

    /// The file's text: pretty JSON, one field a line.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map(|text| text + "\n")
            .map_err(|e| Error::InvalidWisdom(format!("cannot be printed: {e}")))
    }

    /// Adds `entry`, replacing the entry of the same device, driver, version and key.
    /// `Err` (and nothing added) for an entry [`Wisdom::parse`] would refuse, such as a
    /// time that is not a positive number.
    pub fn insert(&mut self, entry: Entry) -> Result<()> {
        if let Err(m) = entry.check() {
            return Err(Error::InvalidWisdom(format!(
                "entry for {} points on {}: {m}",
                entry.key.n, entry.device
            )));
        }
        self.entries.retain(|e| !e.same_place(&entry));
        self.entries.push(entry);
        Ok(())
    }

    /// The entry for `key` measured on `device` with `driver` by this version of the
    /// library; with `any_driver`, one for `device` and `key` whatever its driver and
    /// version (the defaults shipped with the library, measured on a named driver).
    pub fn lookup(
        &self,
        device: &str,
        driver: &str,
        key: &Key,
        any_driver: bool,
    ) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| {
            e.device == device
                && &e.key == key
                && (any_driver || (e.driver == driver && e.tierfft == LIBRARY_VERSION))
        })
    }
}

impl Entry {
    /// Whether `other` is for the same device, driver, version and key.
    fn same_place(&self, other: &Entry) -> bool {
        self.device == other.device
            && self.driver == other.driver
            && self.tierfft == other.tierfft
            && self.key == other.key
    }

    /// The entry's values as planning and printing need them, or what is wrong.
    fn check(&self) -> std::result::Result<(), String> {
        let n = self.key.n;
        if n == 0 || n > 1 << FftSpec::MAX_LOG2_N || !super::is_smooth(n) {
            return Err(format!(
                "n must be a length of at most 2^{} with no prime factor above 31 (got {n})",
                FftSpec::MAX_LOG2_N
            ));
        }
        if let Err(e) = self.choice.apply(&PlanOptions::default()).validate() {
            return Err(e.to_string());
        }
        // Options the planner takes as they come but which no device can use.
        let sane = |v: Option<usize>, most: usize| v.is_none_or(|v| (1..=most).contains(&v));
        if !sane(self.choice.target_threads, 1 << 16) {
            return Err("target_threads must be 1 to 65536".into());
        }
        if !sane(self.choice.resident_bytes, 1 << 40) {
            return Err("resident_bytes must be 1 byte to 1 TiB".into());
        }
        let m = &self.measured;
        let time = |t: f64| t.is_finite() && t > 0.0;
        if m.batch == 0 || !time(m.seconds) || !time(m.default_seconds) || m.candidates == 0 {
            return Err(
                "measured needs a batch, candidates and times that are positive numbers".into(),
            );
        }
        Ok(())
    }
}

/// Precisions by name in the file.
mod precision_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::base::precision::Precision;

    pub fn serialize<S: Serializer>(p: &Precision, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Precision, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Exchanges by name in the file.
mod exchange_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::plan::Exchange;

    pub fn name(e: Exchange) -> &'static str {
        match e {
            Exchange::Complex => "complex",
            Exchange::Split => "split",
        }
    }

    pub fn serialize<S: Serializer>(e: &Option<Exchange>, s: S) -> Result<S::Ok, S::Error> {
        match e {
            Some(e) => s.serialize_str(name(*e)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Exchange>, D::Error> {
        match Option::<String>::deserialize(d)?.as_deref() {
            None => Ok(None),
            Some("complex") => Ok(Some(Exchange::Complex)),
            Some("split") => Ok(Some(Exchange::Split)),
            Some(other) => Err(serde::de::Error::custom(format!(
                "exchange must be \"complex\" or \"split\" (got {other:?})"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: usize, driver: &str, points: usize) -> Entry {
        Entry {
            device: "NVIDIA H100 80GB HBM3 (CUDA sm_90)".into(),
            driver: driver.into(),
            tierfft: LIBRARY_VERSION.into(),
            key: Key {
                n,
                precision: Precision::F32,
                columns: false,
                fills_device: true,
            },
            choice: Choice {
                points_per_thread: Some(points),
                exchange: Some(Exchange::Split),
                ..Choice::default()
            },
            measured: Measured {
                batch: 1 << 14,
                seconds: 1e-4,
                default_seconds: 1.2e-4,
                candidates: 12,
            },
        }
    }

    #[test]
    fn round_trips_and_replaces_entries_of_the_same_place() {
        let mut w = Wisdom::new();
        w.insert(entry(4096, "CUDA 13.0", 16)).unwrap();
        w.insert(entry(8192, "CUDA 13.0", 16)).unwrap();
        w.insert(entry(4096, "CUDA 13.0", 32)).unwrap();
        assert_eq!(w.entries.len(), 2);
        let mut bad = entry(2048, "CUDA 13.0", 16);
        bad.measured.seconds = f64::NAN;
        let e = w.insert(bad).unwrap_err().to_string();
        assert!(e.contains("2048 points") && e.contains("positive"), "{e}");
        assert_eq!(w.entries.len(), 2);
        let back = Wisdom::parse(&w.to_json().unwrap(), "test").unwrap();
        assert_eq!(back, w);
        let key = &w.entries[1].key;
        let found = back.lookup(&w.entries[1].device, "CUDA 13.0", key, false);
        assert_eq!(found.unwrap().choice.points_per_thread, Some(32));
    }

    #[test]
    fn stale_entries_are_not_found_unless_any_driver() {
        let mut w = Wisdom::new();
        let mut old = entry(4096, "CUDA 12.8", 16);
        w.insert(old.clone()).unwrap();
        let (device, key) = (old.device.clone(), old.key.clone());
        assert!(w.lookup(&device, "CUDA 13.0", &key, false).is_none());
        assert!(w.lookup(&device, "CUDA 13.0", &key, true).is_some());
        assert!(
            w.lookup("NVIDIA H200 (CUDA sm_90)", "CUDA 12.8", &key, true)
                .is_none()
        );
        old.tierfft = "0.0.1".into();
        let mut v = Wisdom::new();
        v.insert(old).unwrap();
        assert!(v.lookup(&device, "CUDA 12.8", &key, false).is_none());
    }

    #[test]
    fn bad_files_are_errors_naming_the_entry() {
        let mut w = Wisdom::new();
        w.insert(entry(4096, "CUDA 13.0", 16)).unwrap();
        let good = w.to_json().unwrap();
        let cases = [
            (good.replace("4096", "4099"), "no prime factor above 31"),
            (
                good.replace("\"points_per_thread\": 16", "\"points_per_thread\": 3"),
                "points_per_thread",
            ),
            (
                good.replace("\"split\"", "\"diagonal\""),
                "exchange must be",
            ),
            (
                good.replace(FORMAT, "tierfft wisdom 9"),
                "this version reads",
            ),
            (good.replace("\"f32\"", "\"f31\""), "precision must be"),
            (good.replace("0.0001", "-1.0"), "positive numbers"),
            ("[1, 2".into(), "not a wisdom file"),
        ];
        for (text, says) in cases {
            let e = Wisdom::parse(&text, "wisdom.json").unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("wisdom.json"), "{says}: {e}");
        }
    }

    #[test]
    fn a_choice_sets_only_its_options() {
        let c = Choice {
            max_radix: Some(16),
            last_pass_points: Some(512),
            ..Choice::default()
        };
        let base = PlanOptions::default().with_points_per_thread(Some(8));
        let o = c.apply(&base);
        assert_eq!((o.max_radix, o.last_pass_points), (16, Some(512)));
        assert_eq!(o.points_per_thread, Some(8));
        assert_eq!(c.flags(), "--radix 16 --last-pass 512");
        assert_eq!(Choice::default().flags(), "default");
        assert_eq!(Choice::of(&c.apply(&PlanOptions::default())), c);
        assert_eq!(Choice::of(&PlanOptions::default()), Choice::default());
    }
}
