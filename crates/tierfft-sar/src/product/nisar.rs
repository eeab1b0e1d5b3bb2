//! NISAR Level-0B "RRSD" products (HDF5): the layout NISAR distributes its raw echoes in and
//! ISCE3 repackages older L-band missions into. Under `science/<band>/` (`LSAR` or `SSAR`):
//! `identification/` (mission, look direction), `RRSD/lowRateTelemetry/` (orbit state
//! vectors, attitude quaternions) and `RRSD/swaths/frequency<F>/tx<P>/` (the radar's
//! parameters, per-pulse times, valid windows and transmit phases) with `rx<Q>/<PQ>`, the
//! echoes: `{r: u16, i: u16}` codes, each an index into `rx<Q>/BFPQLUT` (block-floating-point
//! quantisation: the code's value as a float).
//!
//! What it refuses, by name: several sub-swaths, echoes stored other than as BFPQ codes,
//! transmit phases or receive attenuations that vary from pulse to pulse without a units
//! attribute saying how to undo them. `calType` is not read: in the repackaged ALOS data it
//! marks ordinary echoes.

use std::ops::Range;
use std::path::Path;

use hdf5_pure::{AttrValue, DType, File};
use num_complex::Complex32;
use rayon::prelude::*;

use super::hdf::Fields;
use super::{Attitude, Description, LookSide, Orbit, RawProduct};
use crate::error::SarError;

/// Speed of light, m/s (for the sampling rate from the slant-range spacing).
const C: f64 = 299_792_458.0;

/// An opened NISAR L0B product, one channel of it.
pub struct L0b {
    file: File,
    /// The echo dataset's path.
    echoes: String,
    /// What a code means: `lut[code]`.
    lut: Vec<f32>,
    /// The code that marks a missing sample, if the dataset names one (`_FillValue`).
    fill: Option<u16>,
    /// Per pulse, the factor that undoes its transmit phase and receive attenuation; `None`
    /// where every pulse's is the same.
    per_pulse: Option<Vec<Complex32>>,
    description: Description,
    /// For messages: the file's name.
    name: String,
}

/// A product's channel: frequency band letter and polarisation (transmit, receive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    /// The frequency band's letter (`A`, `B`).
    pub frequency: String,
    /// Transmit and receive polarisation letters, e.g. `HH`.
    pub polarisation: String,
}

impl Channel {
    /// Parses `A/HH` (frequency A, transmit H, receive H).
    pub fn parse(s: &str) -> Result<Channel, SarError> {
        let bad = || {
            SarError::Product(format!(
                "channel '{s}' is not FREQUENCY/POLARISATION, e.g. A/HH or B/HV"
            ))
        };
        let (f, p) = s.split_once('/').ok_or_else(bad)?;
        if f.is_empty() || p.chars().count() != 2 {
            return Err(bad());
        }
        Ok(Channel {
            frequency: f.to_string(),
            polarisation: p.to_string(),
        })
    }
}

impl L0b {
    /// Opens the product at `path` and reads its description; `channel` picks one of its
    /// channels, `None` the first listed (first frequency, first transmit polarisation
    /// received co-polarised where recorded).
    pub fn open(path: &Path, channel: Option<&Channel>) -> Result<L0b, SarError> {
        let name = path.display().to_string();
        let file = File::open(path)
            .map_err(|e| SarError::Product(format!("'{name}' cannot be read as HDF5: {e}")))?;
        L0b::read(file, name, channel)
    }

    /// Reads a product held in memory (`name` for messages).
    pub fn from_bytes(
        bytes: Vec<u8>,
        name: &str,
        channel: Option<&Channel>,
    ) -> Result<L0b, SarError> {
        let file = File::from_bytes(bytes)
            .map_err(|e| SarError::Product(format!("'{name}' cannot be read as HDF5: {e}")))?;
        L0b::read(file, name.to_string(), channel)
    }

    fn read(file: File, name: String, channel: Option<&Channel>) -> Result<L0b, SarError> {
        let f = Fields {
            file: &file,
            name: &name,
        };
        let band = f.band()?;
        let science = format!("science/{band}");
        let swaths = format!("{science}/RRSD/swaths");
        let (freq, tx, rx) = f.channel(&swaths, channel)?;
        let txp = format!("{swaths}/frequency{freq}/tx{tx}");
        let rxp = format!("{txp}/rx{rx}");
        let echoes = format!("{rxp}/{tx}{rx}");

        let sub_swaths = f.scalar(&format!("{txp}/numberOfSubSwaths"))?;
        if sub_swaths != 1.0 {
            return Err(f.error(format!(
                "{txp}/numberOfSubSwaths is {sub_swaths}: products of several sub-swaths are \
                 not read yet (one sub-swath only)"
            )));
        }
        let ds = f.dataset(&echoes)?;
        let shape = f.shape(&ds, &echoes)?;
        let [pulses, samples] = shape[..] else {
            return Err(f.error(format!(
                "{echoes} has shape {shape:?}: [pulses, samples] expected"
            )));
        };
        let dtype = ds.dtype().map_err(|e| f.error(format!("{echoes}: {e}")))?;
        let codes = matches!(&dtype, DType::Compound(fields)
            if fields.len() == 2
            && fields.iter().all(|(_, t)| *t == DType::U16)
            && fields[0].0 == "r" && fields[1].0 == "i");
        if !codes {
            return Err(f.error(format!(
                "{echoes} holds {dtype}: only BFPQ codes ({{r: u16, i: u16}}) are read yet"
            )));
        }
        let fill = match ds
            .attrs()
            .map_err(|e| f.error(format!("{echoes}: {e}")))?
            .get("_FillValue")
        {
            Some(v) => v.as_i64().and_then(|v| u16::try_from(v).ok()),
            None => None,
        };
        let lut_path = format!("{rxp}/BFPQLUT");
        let lut = f.values::<f32>(&lut_path, Some(65536))?;
        if let Some(i) = lut.iter().position(|v| !v.is_finite())
            && Some(i) != fill.map(usize::from)
        {
            return Err(f.error(format!("{lut_path}[{i}] is {}: not a number", lut[i])));
        }

        let slant_range_m = f.values::<f64>(&format!("{txp}/slantRange"), Some(samples))?;
        let spacing =
            check_spacing(&slant_range_m).map_err(|m| f.error(format!("{txp}/slantRange: {m}")))?;
        let (epoch, pulse_times_s) = f.times(&format!("{txp}/UTCtime"), Some(pulses))?;
        let windows = f.values::<i64>(&format!("{txp}/validSamplesSubSwath1"), Some(2 * pulses))?;
        let valid = windows
            .chunks_exact(2)
            .map(|w| clip(w[0], w[1], samples))
            .collect();
        let positive = |path: &str| -> Result<f64, SarError> {
            let v = f.scalar(path)?;
            match v.is_finite() && v > 0.0 {
                true => Ok(v),
                false => Err(f.error(format!("{path} is {v}: a positive value expected"))),
            }
        };
        let carrier_hz = positive(&format!("{txp}/centerFrequency"))?;
        let chirp_slope_hz_per_s = f.scalar(&format!("{txp}/chirpSlope"))?;
        if !(chirp_slope_hz_per_s.is_finite() && chirp_slope_hz_per_s != 0.0) {
            return Err(f.error(format!("{txp}/chirpSlope is {chirp_slope_hz_per_s}")));
        }
        let pulse_s = positive(&format!("{txp}/chirpDuration"))?;
        let bandwidth_hz = positive(&format!("{txp}/rangeBandwidth"))?;
        let prf_hz = positive(&format!("{txp}/nominalAcquisitionPRF"))?;

        let ident = format!("{science}/identification");
        let mission = f.string(&format!("{ident}/missionId"))?;
        let look = match f
            .string(&format!("{ident}/lookDirection"))?
            .to_ascii_lowercase()
            .as_str()
        {
            "right" => LookSide::Right,
            "left" => LookSide::Left,
            other => {
                return Err(f.error(format!(
                    "{ident}/lookDirection is '{other}': Left or Right expected"
                )));
            }
        };
        let telemetry = format!("{science}/RRSD/lowRateTelemetry");
        let orbit = f.orbit(&format!("{telemetry}/orbit"), &epoch)?;
        let (first, last) = (pulse_times_s[0], pulse_times_s[pulses - 1]);
        if orbit.at(first).is_err() || orbit.at(last).is_err() {
            return Err(f.error(format!(
                "the orbit's state vectors ({} s to {} s) do not cover the pulses ({first} s to \
                 {last} s since {epoch})",
                orbit.times_s[0],
                orbit.times_s[orbit.times_s.len() - 1]
            )));
        }
        let attitude = match f.file.group(&format!("{telemetry}/attitude")) {
            Ok(_) => Some(f.attitude(&format!("{telemetry}/attitude"), &epoch)?),
            Err(_) => None,
        };
        let per_pulse = f.per_pulse(
            &format!("{txp}/txPhase"),
            &format!("{rxp}/attenuation"),
            pulses,
        )?;

        let description = Description {
            mission,
            channel: format!("frequency{freq} {tx}{rx}"),
            carrier_hz,
            chirp_slope_hz_per_s,
            pulse_s,
            bandwidth_hz,
            sample_rate_hz: C / (2.0 * spacing),
            prf_hz,
            slant_range_m,
            epoch,
            pulse_times_s,
            valid,
            look,
            orbit,
            attitude,
        };
        Ok(L0b {
            file,
            echoes,
            lut,
            fill,
            per_pulse,
            description,
            name,
        })
    }
}

impl RawProduct for L0b {
    fn description(&self) -> &Description {
        &self.description
    }

    fn read_pulses(&self, first: usize, out: &mut [Complex32]) -> Result<(), SarError> {
        let d = &self.description;
        let samples = d.samples();
        let count = out.len() / samples;
        if !out.len().is_multiple_of(samples) || first + count > d.pulses() {
            return Err(SarError::Product(format!(
                "'{}': pulses {first}..{} of {} asked into {} samples (whole pulses of {samples} \
                 within the product)",
                self.name,
                first + count,
                d.pulses(),
                out.len()
            )));
        }
        let ds = self
            .file
            .dataset(&self.echoes)
            .map_err(|e| SarError::Product(format!("'{}': {}: {e}", self.name, self.echoes)))?;
        let bytes = ds.read_raw_rows(first as u64, count as u64).map_err(|e| {
            SarError::Product(format!(
                "'{}': {} pulses {first}..{}: {e}",
                self.name,
                self.echoes,
                first + count
            ))
        })?;
        if bytes.len() != 4 * out.len() {
            return Err(SarError::Product(format!(
                "'{}': {} gave {} bytes for {count} pulses of {samples} samples",
                self.name,
                self.echoes,
                bytes.len()
            )));
        }
        let (lut, fill) = (&self.lut, self.fill);
        let value = |code: u16| match Some(code) == fill {
            true => 0.0,
            false => lut[usize::from(code)],
        };
        out.par_chunks_mut(samples)
            .zip(bytes.par_chunks(4 * samples))
            .enumerate()
            .for_each(|(i, (line, raw))| {
                let pulse = first + i;
                let valid = &d.valid[pulse];
                let factor = self
                    .per_pulse
                    .as_ref()
                    .map_or(Complex32::new(1.0, 0.0), |f| f[pulse]);
                for (k, (z, b)) in line.iter_mut().zip(raw.chunks_exact(4)).enumerate() {
                    *z = match valid.contains(&k) {
                        true => {
                            let r = value(u16::from_le_bytes([b[0], b[1]]));
                            let i = value(u16::from_le_bytes([b[2], b[3]]));
                            Complex32::new(r, i) * factor
                        }
                        false => Complex32::default(),
                    };
                }
            });
        Ok(())
    }
}

/// The uniform spacing of a slant-range axis, m, or why it has none.
fn check_spacing(axis: &[f64]) -> Result<f64, String> {
    if axis.len() < 2 {
        return Err(format!("{} values: at least two needed", axis.len()));
    }
    let spacing = axis[1] - axis[0];
    if !(spacing.is_finite() && spacing > 0.0 && axis[0].is_finite() && axis[0] > 0.0) {
        return Err(format!(
            "starts {} m, {} m apart: positive and increasing expected",
            axis[0], spacing
        ));
    }
    let n = axis.len() - 1;
    let span = axis[n] - axis[0];
    if (span / n as f64 - spacing).abs() > 1e-6 * spacing || span.is_nan() {
        return Err(format!(
            "spacing {spacing} m at the start but {} m on average: a uniform axis expected",
            span / n as f64
        ));
    }
    Ok(span / n as f64)
}

/// A valid window `[start, end)` clipped to `samples` (empty when reversed or negative).
fn clip(start: i64, end: i64, samples: usize) -> Range<usize> {
    let to = |v: i64| usize::try_from(v.max(0)).unwrap_or(0).min(samples);
    let (s, e) = (to(start), to(end));
    s..e.max(s)
}

impl Fields<'_> {
    /// The science band present (`LSAR` or `SSAR`).
    fn band(&self) -> Result<String, SarError> {
        let groups = self
            .file
            .group("science")
            .and_then(|g| g.groups())
            .map_err(|e| self.error(format!("science/: {e}: not a NISAR L0B product")))?;
        groups
            .into_iter()
            .find(|g| g == "LSAR" || g == "SSAR")
            .ok_or_else(|| {
                self.error("science/ holds neither LSAR nor SSAR: not a NISAR L0B product".into())
            })
    }

    /// The channel's frequency letter and polarisation letters.
    fn channel(
        &self,
        swaths: &str,
        want: Option<&Channel>,
    ) -> Result<(String, String, String), SarError> {
        let list = |path: &str, prefix: &str| -> Result<Vec<String>, SarError> {
            let mut names: Vec<String> = self
                .file
                .group(path)
                .and_then(|g| g.groups())
                .map_err(|e| self.error(format!("{path}: {e}")))?
                .into_iter()
                .filter_map(|g| g.strip_prefix(prefix).map(str::to_string))
                .collect();
            names.sort();
            Ok(names)
        };
        let frequencies = list(swaths, "frequency")?;
        let mut available = Vec::new();
        for f in &frequencies {
            for tx in list(&format!("{swaths}/frequency{f}"), "tx")? {
                for rx in list(&format!("{swaths}/frequency{f}/tx{tx}"), "rx")? {
                    available.push((f.clone(), tx.clone(), rx));
                }
            }
        }
        let pick = match want {
            Some(c) => available
                .iter()
                .find(|(f, tx, rx)| *f == c.frequency && format!("{tx}{rx}") == c.polarisation),
            None => available
                .iter()
                .find(|(_, tx, rx)| tx == rx)
                .or(available.first()),
        };
        pick.cloned().ok_or_else(|| {
            let listed: Vec<String> = available
                .iter()
                .map(|(f, t, r)| format!("{f}/{t}{r}"))
                .collect();
            match want {
                Some(c) => self.error(format!(
                    "no channel {}/{} (the product holds {})",
                    c.frequency,
                    c.polarisation,
                    listed.join(", ")
                )),
                None => self.error(format!(
                    "{swaths} holds no echoes (no frequency*/tx*/rx* groups)"
                )),
            }
        })
    }

    fn orbit(&self, group: &str, epoch: &str) -> Result<Orbit, SarError> {
        let (own, times) = self.times(&format!("{group}/time"), None)?;
        let n = times.len();
        let shift = self.shift(group, &own, epoch)?;
        let vectors = |name: &str| -> Result<Vec<[f64; 3]>, SarError> {
            let v = self.values::<f64>(&format!("{group}/{name}"), Some(3 * n))?;
            Ok(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
        };
        let orbit = Orbit::new(
            times.iter().map(|t| t + shift).collect(),
            vectors("position")?,
            vectors("velocity")?,
        );
        let orbit = match self.file.dataset(&format!("{group}/acceleration")) {
            Ok(_) => orbit.and_then(|o| o.with_accelerations(vectors("acceleration")?)),
            Err(_) => orbit,
        };
        orbit.map_err(|e| self.error(format!("{group}: {e}")))
    }

    fn attitude(&self, group: &str, epoch: &str) -> Result<Attitude, SarError> {
        let (own, times) = self.times(&format!("{group}/time"), None)?;
        let shift = self.shift(group, &own, epoch)?;
        let q = self.values::<f64>(&format!("{group}/quaternions"), Some(4 * times.len()))?;
        Attitude::new(
            times.iter().map(|t| t + shift).collect(),
            q.chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect(),
        )
        .map_err(|e| self.error(format!("{group}: {e}")))
    }

    /// Per pulse, the factor undoing its transmit phase (`tx_phase`, radians or degrees) and
    /// receive attenuation (`attenuation`, dB); `None` where neither varies (a constant is
    /// a common gain or phase, which focusing does not see). Either may be absent.
    fn per_pulse(
        &self,
        tx_phase: &str,
        attenuation: &str,
        pulses: usize,
    ) -> Result<Option<Vec<Complex32>>, SarError> {
        let mut factors = vec![Complex32::new(1.0, 0.0); pulses];
        let mut varies = false;
        for (path, kind) in [(tx_phase, "phase"), (attenuation, "attenuation")] {
            let Ok(ds) = self.file.dataset(path) else {
                continue;
            };
            let v = ds
                .read_f64()
                .map_err(|e| self.error(format!("{path}: {e}")))?;
            let v = self.check_len(path, v, Some(pulses))?;
            if !v.iter().all(|x| x.is_finite()) {
                return Err(self.error(format!("{path} holds NaN or infinite values")));
            }
            if v.iter().all(|&x| x == v[0]) {
                continue;
            }
            let units = ds.attrs().ok().and_then(|a| {
                a.get("units")
                    .and_then(AttrValue::as_str)
                    .map(str::to_ascii_lowercase)
            });
            let (lo, hi) = v
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
            let factor: Box<dyn Fn(f64) -> Complex32> =
                match (kind, units.as_deref().map(str::trim)) {
                    ("phase", Some("radians" | "radian" | "rad")) => {
                        Box::new(|p| Complex32::from_polar(1.0, -p as f32))
                    }
                    ("phase", Some("degrees" | "degree" | "deg")) => {
                        Box::new(|p| Complex32::from_polar(1.0, -(p.to_radians()) as f32))
                    }
                    ("attenuation", Some("db" | "decibel" | "decibels")) => {
                        Box::new(|a| Complex32::new(10f64.powf(a / 20.0) as f32, 0.0))
                    }
                    (_, units) => {
                        return Err(self.error(format!(
                            "{path} varies from pulse to pulse ({lo} to {hi}) in {}: the reader \
                         undoes a transmit phase in radians or degrees and an attenuation in \
                         dB only",
                            units.map_or("no stated units".to_string(), |u| format!("'{u}'"))
                        )));
                    }
                };
            varies = true;
            for (f, &x) in factors.iter_mut().zip(&v) {
                *f *= factor(x);
            }
        }
        Ok(varies.then_some(factors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_axes_are_checked() {
        assert_eq!(clip(0, 5194, 2200), 0..2200);
        assert_eq!(clip(-3, 10, 20), 0..10);
        assert_eq!(clip(12, 4, 20), 12..12);
        assert!(check_spacing(&[1000.0, 1010.0, 1020.0]).is_ok());
        assert!(check_spacing(&[1000.0, 1010.0, 1030.0]).is_err());
        assert!(check_spacing(&[1000.0]).is_err());
        assert!(Channel::parse("A/HH").is_ok() && Channel::parse("AHH").is_err());
    }
}
