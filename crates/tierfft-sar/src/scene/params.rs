//! Radar and scene parameters, with the reference scene as defaults (docs/SAR.md lists them),
//! loadable from TOML, validated before any work.
//!
//! TOML keys (all optional; units in the names' docs): `[radar]` `carrier_hz`,
//! `bandwidth_hz`, `pulse_s`, `sample_rate_hz`, `prf_hz`, `speed_mps`, `speed_by_range_mps`,
//! `antenna_m`,
//! `near_range_m`, `chirp` (`"up"`, `"down"`), `pulse_reference` (`"centre"`, `"start"`),
//! `doppler_centroid_hz` (a number, or `[[range_m, hz], ...]`: [`Centroid`]),
//! `azimuth_pattern` (`"uniform"`, `"sinc2"`: [`AzimuthPattern`]), `replica` (a
//! measured pulse's `.npy`: [`crate::scene::replica`]);
//! `[scene]` `lines`, `samples`, `snr_db`, `seed`, `partial_aperture`, and `[[scene.targets]]`
//! with `range_m`, `azimuth_m`, `amplitude`.

use serde::{Deserialize, Serialize};

use crate::error::SarError;
pub use crate::scene::values::{AzimuthPattern, Centroid, Replica};

/// Speed of light, m/s.
pub const C: f64 = 299_792_458.0;

/// The radar and its platform.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Radar {
    /// Carrier frequency, Hz.
    pub carrier_hz: f64,
    /// Chirp bandwidth, Hz.
    pub bandwidth_hz: f64,
    /// Pulse length, s.
    pub pulse_s: f64,
    /// Range sampling rate, Hz.
    pub sample_rate_hz: f64,
    /// Pulse repetition frequency, Hz.
    pub prf_hz: f64,
    /// Platform speed, m/s: for a satellite the effective velocity of the hyperbolic range
    /// history at mid-swath.
    pub speed_mps: f64,
    /// The effective velocity against range, `[[range_m, mps], ...]` (at least two rows,
    /// ranges increasing; linear between them, the end values beyond): the azimuth filter
    /// and simulated targets take it at each range, the rest of the processor `speed_mps`.
    /// `None`: `speed_mps` everywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_by_range_mps: Option<Vec<[f64; 2]>>,
    /// Real antenna length along track, m: sets the beam and so each target's synthetic
    /// aperture (two-way 3 dB beamwidth 0.886·λ/antenna).
    pub antenna_m: f64,
    /// Slant range of the first range sample's delay, m; `None`: centre the scene's range
    /// window on 20 km.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_range_m: Option<f64>,
    /// Whether the transmitted frequency rises (`"up"`) or falls (`"down"`) over the pulse.
    pub chirp: Chirp,
    /// Where in its pulse an echo's delay points: `"centre"` (the pulse centred on the
    /// target's two-way delay) or `"start"` (the pulse starting there, the usual instrument
    /// convention).
    pub pulse_reference: PulseReference,
    /// The Doppler centroid, Hz, constant or varying with range ([`Centroid`]): where the
    /// beam looks (squint), for simulation and focusing. `None`: 0 Hz (broadside) when
    /// simulating; `tierfft sar` and the Python `focus` estimate it from the echoes
    /// ([`crate::scene::centroid`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doppler_centroid_hz: Option<Centroid>,
    /// The antenna's two-way azimuth pattern (`"uniform"` or `"sinc2"`: [`AzimuthPattern`]),
    /// for simulation and focusing. `None`: uniform when simulating; `tierfft sar` and the
    /// Python `focus` recognise it in the echoes ([`crate::scene::pattern::resolve`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub azimuth_pattern: Option<AzimuthPattern>,
    /// A measured transmit pulse's `.npy` file (complex, 1-D, at `sample_rate_hz`), relative
    /// to the config file: `tierfft sar` loads it into [`Radar::replica`].
    #[serde(rename = "replica", skip_serializing_if = "Option::is_none")]
    pub replica_file: Option<String>,
    /// The measured pulse used instead of the ideal chirp ([`crate::scene::replica`]); set with
    /// [`Radar::set_replica`].
    #[serde(skip)]
    pub replica: Option<Replica>,
}

/// The direction of the chirp's frequency sweep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Chirp {
    /// Rising frequency.
    #[default]
    Up,
    /// Falling frequency.
    Down,
}

/// Which instant of the pulse a delay refers to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PulseReference {
    /// The pulse's centre.
    #[default]
    Centre,
    /// The pulse's start.
    Start,
}

impl Default for Radar {
    fn default() -> Self {
        Radar {
            carrier_hz: 10e9,
            bandwidth_hz: 100e6,
            pulse_s: 10e-6,
            sample_rate_hz: 120e6,
            prf_hz: 1000.0,
            speed_mps: 100.0,
            speed_by_range_mps: None,
            antenna_m: 2.0,
            near_range_m: None,
            chirp: Chirp::Up,
            pulse_reference: PulseReference::Centre,
            doppler_centroid_hz: None,
            azimuth_pattern: None,
            replica_file: None,
            replica: None,
        }
    }
}

impl Radar {
    /// Transmits (and matches) `replica` instead of the ideal chirp; the pulse length becomes
    /// the replica's, its samples over `sample_rate_hz`.
    pub fn set_replica(&mut self, replica: Replica) {
        self.pulse_s = replica.samples().len() as f64 / self.sample_rate_hz;
        self.replica = Some(replica);
    }

    /// Wavelength, m.
    pub fn wavelength_m(&self) -> f64 {
        C / self.carrier_hz
    }

    /// The effective velocity at slant range `range_m`, m/s ([`Radar::speed_by_range_mps`],
    /// else [`Radar::speed_mps`]).
    pub fn speed_at(&self, range_m: f64) -> f64 {
        let Some(table) = &self.speed_by_range_mps else {
            return self.speed_mps;
        };
        let i = table.partition_point(|row| row[0] <= range_m);
        match i {
            0 => table[0][1],
            i if i == table.len() => table[i - 1][1],
            i => {
                let ([r0, v0], [r1, v1]) = (table[i - 1], table[i]);
                v0 + (v1 - v0) * (range_m - r0) / (r1 - r0)
            }
        }
    }

    /// The slowest effective velocity between `near_m` and `far_m`, m/s.
    pub fn slowest_mps(&self, near_m: f64, far_m: f64) -> f64 {
        let rows = self.speed_by_range_mps.iter().flatten();
        rows.filter(|[range, _]| (near_m..=far_m).contains(range))
            .map(|[_, v]| *v)
            .fold(self.speed_at(near_m).min(self.speed_at(far_m)), f64::min)
    }

    /// The same radar moving at its effective velocity at `range_m` everywhere.
    pub fn at_range(&self, range_m: f64) -> Radar {
        let mut radar = self.clone();
        radar.speed_mps = self.speed_at(range_m);
        radar.speed_by_range_mps = None;
        radar
    }

    /// Chirp rate, Hz/s (its magnitude; see [`Radar::signed_chirp_rate`]).
    pub fn chirp_rate(&self) -> f64 {
        self.bandwidth_hz / self.pulse_s
    }

    /// Chirp rate with the sweep's sign, Hz/s: negative for a down-chirp.
    pub fn signed_chirp_rate(&self) -> f64 {
        match self.chirp {
            Chirp::Up => self.chirp_rate(),
            Chirp::Down => -self.chirp_rate(),
        }
    }

    /// Time from an echo's delay to its pulse's centre, s: 0, or half the pulse when delays
    /// point at the pulse's start.
    pub fn pulse_centre_s(&self) -> f64 {
        match self.pulse_reference {
            PulseReference::Centre => 0.0,
            PulseReference::Start => self.pulse_s / 2.0,
        }
    }

    /// Slant-range spacing of range samples, m.
    pub fn range_bin_m(&self) -> f64 {
        C / (2.0 * self.sample_rate_hz)
    }

    /// Azimuth spacing of pulses, m.
    pub fn azimuth_bin_m(&self) -> f64 {
        self.speed_mps / self.prf_hz
    }

    /// Two-way 3 dB beamwidth, rad.
    pub fn beamwidth_rad(&self) -> f64 {
        0.886 * self.wavelength_m() / self.antenna_m
    }

    /// Doppler bandwidth of a target seen through the whole beam, Hz.
    pub fn doppler_bandwidth_hz(&self) -> f64 {
        2.0 * self.speed_mps * self.beamwidth_rad() / self.wavelength_m()
    }
}

/// A point target.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Closest-approach slant range, m.
    pub range_m: f64,
    /// Along-track position of closest approach, m (0 = the scene's centre line).
    pub azimuth_m: f64,
    /// Echo amplitude (1 = the reference for `snr_db`).
    #[serde(default = "one")]
    pub amplitude: f64,
}

fn one() -> f64 {
    1.0
}

/// The simulated (or processed) scene.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scene {
    /// Azimuth lines (pulses), any number from 16 (processed with margins at an efficient
    /// FFT length: [`crate::scene::extent`]).
    pub lines: usize,
    /// Range samples per line, any number from 16.
    pub samples: usize,
    /// Signal-to-noise ratio of one echo sample of a unit target, dB (`None`: no noise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snr_db: Option<f64>,
    /// Seed of the noise generator: the same seed gives the same echoes.
    pub seed: u64,
    /// The targets.
    pub targets: Vec<Target>,
    /// Focus a scene shorter than a target's synthetic aperture: each target from the
    /// pulses recorded, its azimuth resolution coarser by the ratio
    /// ([`Config::focused_doppler_bandwidth_hz`]). Off: such a scene is refused.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial_aperture: bool,
}

impl Default for Scene {
    fn default() -> Self {
        // The reference scene's five targets: dr = 50 range resolutions, da = 50 pulses.
        let (r0, dr, da) = (20e3, 50.0 * C / (2.0 * 100e6), 50.0 * 100.0 / 1000.0);
        let t = |r: f64, a: f64| Target {
            range_m: r0 + r * dr,
            azimuth_m: a * da,
            amplitude: 1.0,
        };
        Scene {
            lines: 4096,
            samples: 4096,
            snr_db: Some(20.0),
            seed: 1,
            targets: vec![
                t(0.0, 0.0),
                t(1.0, 0.0),
                t(0.0, 1.0),
                t(-1.0, -1.0),
                t(2.0, -2.0),
            ],
            partial_aperture: false,
        }
    }
}

/// Radar and scene together, as read from a TOML file.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The radar.
    pub radar: Radar,
    /// The scene.
    pub scene: Scene,
}

impl Config {
    /// Parses TOML (see the module docs for the keys) and validates it.
    pub fn from_toml(text: &str) -> Result<Config, SarError> {
        let config = Config::parse_toml(text, DefaultTargets::Keep)?;
        config.validate()?;
        Ok(config)
    }

    /// Parses TOML without validating it (call [`Config::validate`] once the scene's size is
    /// final: focusing a user's echoes takes it from the data). When the file lists no
    /// `[[scene.targets]]`, `targets` says whether the default scene's five stay.
    pub fn parse_toml(text: &str, targets: DefaultTargets) -> Result<Config, SarError> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| SarError::Config(e.to_string()))?;
        if targets == DefaultTargets::Drop {
            let table: toml::Table =
                toml::from_str(text).map_err(|e| SarError::Config(e.to_string()))?;
            let listed = table
                .get("scene")
                .and_then(|scene| scene.get("targets"))
                .is_some();
            if !listed {
                config.scene.targets.clear();
            }
        }
        Ok(config)
    }

    /// Takes the scene's size from the echoes, `lines × samples`, refusing a config `text`
    /// (its TOML, where it came from one) that states another size: the echoes' shape is the
    /// scene's, and a disagreeing config most likely describes other echoes.
    pub fn size_from_echoes(
        &mut self,
        text: Option<&str>,
        lines: usize,
        samples: usize,
    ) -> Result<(), SarError> {
        if let Some(text) = text {
            let table: toml::Table =
                toml::from_str(text).map_err(|e| SarError::Config(e.to_string()))?;
            let scene = table.get("scene");
            let stated = |key: &str| scene.and_then(|s| s.get(key)).and_then(|v| v.as_integer());
            if lines != samples
                && (stated("lines"), stated("samples"))
                    == (Some(samples as i64), Some(lines as i64))
            {
                return Err(SarError::Echoes(format!(
                    "the echoes' shape [{lines}, {samples}] is the config's scene transposed \
                     (scene.lines = {samples}, scene.samples = {lines}): the echoes must be \
                     [azimuth lines, range samples] (numpy: raw.T.copy())"
                )));
            }
            for (key, found) in [("lines", lines), ("samples", samples)] {
                if let Some(stated) = stated(key)
                    && stated != found as i64
                {
                    return Err(SarError::Config(format!(
                        "scene.{key} = {stated}, but the echoes have {found} {key} (shape \
                         [{lines}, {samples}]): the echoes' shape is the scene's size; remove \
                         scene.lines and scene.samples from the config, or give the echoes \
                         it describes"
                    )));
                }
            }
        }
        self.scene.lines = lines;
        self.scene.samples = samples;
        Ok(())
    }

    /// The scene as [`crate::scene::simulate`] simulates it, with the values it takes where the config
    /// leaves them open written in: the near range, the Doppler centroid (0 Hz), the azimuth
    /// pattern (uniform). Written out ([`Config::to_toml`]), it is the config that focuses the
    /// simulated echoes and measures their targets.
    pub fn as_simulated(&self) -> Config {
        let mut scene = self.clone();
        let radar = &mut scene.radar;
        radar.near_range_m = Some(self.near_range_m());
        radar
            .doppler_centroid_hz
            .get_or_insert(Centroid::Constant(0.0));
        radar.azimuth_pattern.get_or_insert(AzimuthPattern::Uniform);
        scene
    }

    /// The config as TOML, every key written out (what [`Config::parse_toml`] reads back to
    /// an equal config, but for a loaded replica, which is referred to by its file).
    pub fn to_toml(&self) -> Result<String, SarError> {
        toml::to_string(self).map_err(|e| SarError::Config(format!("cannot write TOML: {e}")))
    }

    /// Where target `t` lies in the scene, (line, sample), fractional: line `lines/2` is
    /// azimuth 0 m, sample 0 the near range.
    pub fn target_position(&self, t: &Target) -> (f64, f64) {
        let r = &self.radar;
        (
            self.scene.lines as f64 / 2.0 + t.azimuth_m * r.prf_hz / r.speed_at(t.range_m),
            (t.range_m - self.near_range_m()) / r.range_bin_m(),
        )
    }

    /// Slant range at the middle of the range window, m.
    pub fn mid_swath_m(&self) -> f64 {
        self.near_range_m() + self.scene.samples as f64 / 2.0 * self.radar.range_bin_m()
    }

    /// A target's synthetic aperture at mid-swath, azimuth lines: the fewest lines a scene
    /// may have (`2·R·tan(θ/2)` over the line spacing `v/PRF`, θ the two-way beamwidth).
    pub fn aperture_lines(&self) -> f64 {
        let r = &self.radar;
        2.0 * self.mid_swath_m() * (r.beamwidth_rad() / 2.0).tan() / r.azimuth_bin_m()
    }

    /// The Doppler bandwidth a target is focused with, Hz: the beam's
    /// ([`Radar::doppler_bandwidth_hz`]), or, in a scene shorter than the aperture
    /// ([`Scene::partial_aperture`]), what the recorded pulses hold at mid-swath: the azimuth
    /// FM rate 2v²/(λR) over the scene's duration.
    pub fn focused_doppler_bandwidth_hz(&self) -> f64 {
        let r = &self.radar;
        let beam = r.doppler_bandwidth_hz();
        if !self.scene.partial_aperture {
            return beam;
        }
        let fm_rate = 2.0 * r.speed_mps.powi(2) / (r.wavelength_m() * self.mid_swath_m());
        beam.min(fm_rate * self.scene.lines as f64 / r.prf_hz)
    }

    /// Where each of the scene's targets lies ([`Config::target_position`]), in order.
    pub fn target_positions(&self) -> Vec<(f64, f64)> {
        self.scene
            .targets
            .iter()
            .map(|t| self.target_position(t))
            .collect()
    }

    /// Bytes of one scene-sized buffer of complex f32 (`lines × samples × 8`); `None` when
    /// that overflows the address space.
    pub fn scene_bytes(&self) -> Option<u64> {
        let values = self.scene.lines.checked_mul(self.scene.samples)?;
        let bytes = values.checked_mul(8)?;
        (bytes <= isize::MAX as usize).then_some(bytes as u64)
    }

    /// Slant range of the first range sample, m.
    pub fn near_range_m(&self) -> f64 {
        let half_window = self.scene.samples as f64 / 2.0 * self.radar.range_bin_m();
        self.radar.near_range_m.unwrap_or(20e3 - half_window)
    }

    /// Checks everything a user can get wrong, before any work.
    pub fn validate(&self) -> Result<(), SarError> {
        let r = &self.radar;
        let bad = |m: String| Err(SarError::Config(m));
        let positive = [
            ("carrier_hz", r.carrier_hz),
            ("bandwidth_hz", r.bandwidth_hz),
            ("pulse_s", r.pulse_s),
            ("sample_rate_hz", r.sample_rate_hz),
            ("prf_hz", r.prf_hz),
            ("speed_mps", r.speed_mps),
            ("antenna_m", r.antenna_m),
        ];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
            return bad(format!("radar.{name} must be a positive number (got {v})"));
        }
        if let Some(table) = &r.speed_by_range_mps {
            let ordered = table.windows(2).all(|w| w[1][0] > w[0][0]);
            let valid = table
                .iter()
                .all(|[range, v]| range.is_finite() && v.is_finite() && *v > 0.0);
            if table.len() < 2 || !ordered || !valid {
                return bad(format!(
                    "radar.speed_by_range_mps must be at least two [range_m, mps] rows, ranges \
                     increasing and speeds positive (got {table:?})"
                ));
            }
        }
        if let Some(near) = r.near_range_m
            && !(near.is_finite() && near > 0.0)
        {
            return bad(format!(
                "radar.near_range_m must be a positive number (got {near})"
            ));
        }
        if let Some(snr) = self.scene.snr_db
            && !snr.is_finite()
        {
            return bad(format!(
                "scene.snr_db must be a finite number of dB (got {snr})"
            ));
        }
        if r.sample_rate_hz < r.bandwidth_hz {
            return bad(format!(
                "radar.sample_rate_hz = {} MHz is below radar.bandwidth_hz = {} MHz: the \
                 echoes would alias; sample at least at the bandwidth",
                r.sample_rate_hz / 1e6,
                r.bandwidth_hz / 1e6
            ));
        }
        if r.beamwidth_rad() >= std::f64::consts::FRAC_PI_2 {
            return bad(format!(
                "radar.antenna_m = {} m gives a two-way beam of {:.0}° at radar.carrier_hz = {} \
                 Hz; the processor needs a beam narrower than 90°: use a longer antenna",
                r.antenna_m,
                r.beamwidth_rad().to_degrees(),
                r.carrier_hz
            ));
        }
        if let (Some(file), None) = (&r.replica_file, &r.replica) {
            return bad(format!(
                "radar.replica = '{file}' is not loaded: tierfft sar loads it (from the library, \
                 Radar::set_replica)"
            ));
        }
        if let Some(centroid) = &r.doppler_centroid_hz {
            centroid.validate().map_err(SarError::Config)?;
            self.check_squint(centroid)?;
        }
        if r.prf_hz < r.doppler_bandwidth_hz() {
            return bad(format!(
                "radar.prf_hz = {} Hz is below the Doppler bandwidth {:.1} Hz (radar.speed_mps \
                 = {} m/s, radar.antenna_m = {} m): azimuth would alias; raise the PRF or \
                 lengthen the antenna",
                r.prf_hz,
                r.doppler_bandwidth_hz(),
                r.speed_mps,
                r.antenna_m
            ));
        }
        let s = &self.scene;
        for (name, v) in [("lines", s.lines), ("samples", s.samples)] {
            if v < 16 {
                return bad(format!("scene.{name} must be at least 16 (got {v})"));
            }
            if v > 1 << tierfft::FftSpec::MAX_LOG2_N {
                return bad(format!(
                    "scene.{name} = {v} is longer than the longest transform, 2^{} = {}",
                    tierfft::FftSpec::MAX_LOG2_N,
                    1usize << tierfft::FftSpec::MAX_LOG2_N
                ));
            }
        }
        if self.scene_bytes().is_none() {
            return bad(format!(
                "a scene of {} × {} samples does not fit in this machine's address space",
                s.lines, s.samples
            ));
        }
        // A target needs its whole synthetic aperture in the scene, unless partial apertures
        // are asked for: the azimuth filter assumes the full Doppler bandwidth. Checked at mid-swath (targets near the far edge
        // have longer apertures and lose some resolution in a scene barely long enough).
        let (mid_m, aperture_lines) = (self.mid_swath_m(), self.aperture_lines());
        if aperture_lines > s.lines as f64 && !s.partial_aperture {
            return bad(format!(
                "scene.lines = {} is shorter than the synthetic aperture at mid-swath ({:.0} m), \
                 {aperture_lines:.1} lines: use at least {:.0} lines, a longer \
                 radar.antenna_m (shorter aperture, coarser azimuth resolution), or \
                 scene.partial_aperture = true (each target from the lines there are)",
                s.lines,
                mid_m,
                aperture_lines.ceil(),
            ));
        }
        let pulse_samples = r.pulse_s * r.sample_rate_hz;
        if pulse_samples >= s.samples as f64 {
            return bad(format!(
                "radar.pulse_s = {} s spans {pulse_samples:.0} range samples but scene.samples = \
                 {}: use more samples or a shorter pulse",
                r.pulse_s, s.samples
            ));
        }
        for (i, t) in s.targets.iter().enumerate() {
            self.check_target(i, t)?;
        }
        Ok(())
    }
}

impl Config {
    /// Checks that every squint the centroid asks for keeps the beam ahead of 90°.
    fn check_squint(&self, centroid: &Centroid) -> Result<(), SarError> {
        let r = &self.radar;
        let largest = match centroid {
            Centroid::Constant(f) => f.abs(),
            Centroid::Table(t) => t.iter().map(|p| p[1].abs()).fold(0.0, f64::max),
        };
        let sin = largest * r.wavelength_m() / (2.0 * r.speed_mps);
        if sin.asin() + r.beamwidth_rad() / 2.0 < std::f64::consts::FRAC_PI_2 * 0.99 {
            return Ok(());
        }
        Err(SarError::Config(format!(
            "radar.doppler_centroid_hz reaches {largest} Hz, a squint of {} at radar.speed_mps \
             = {} m/s and radar.carrier_hz = {} Hz; the beam must stay within 89° of broadside",
            match sin < 1.0 {
                true => format!("{:.1}°", sin.asin().to_degrees()),
                false => "past 90°".to_string(),
            },
            r.speed_mps,
            r.carrier_hz
        )))
    }

    /// Checks that target `i` (0-based; `scene.targets[i]`) is a target of this scene: finite
    /// values, a positive range, and a position inside the scene's lines and samples.
    fn check_target(&self, i: usize, t: &Target) -> Result<(), SarError> {
        let r = &self.radar;
        let key = format!("scene.targets[{i}] (target {})", i + 1);
        let bad = |m: String| Err(SarError::Config(format!("{key}: {m}")));
        for (name, v) in [
            ("range_m", t.range_m),
            ("azimuth_m", t.azimuth_m),
            ("amplitude", t.amplitude),
        ] {
            if !v.is_finite() {
                return bad(format!("{name} must be a finite number (got {v})"));
            }
        }
        if t.range_m <= 0.0 {
            return bad(format!("range_m must be positive (got {} m)", t.range_m));
        }
        let (line, sample) = self.target_position(t);
        let (lines, samples) = (self.scene.lines, self.scene.samples);
        if !(0.0..=(samples - 1) as f64).contains(&sample) {
            let near = self.near_range_m();
            return bad(format!(
                "range_m = {} m puts it at range sample {sample:.0}, outside the scene's \
                 samples 0 .. {} (slant ranges {near:.1} .. {:.1} m)",
                t.range_m,
                samples - 1,
                near + (samples - 1) as f64 * r.range_bin_m()
            ));
        }
        if !(0.0..=(lines - 1) as f64).contains(&line) {
            let half = lines as f64 / 2.0 * r.azimuth_bin_m();
            return bad(format!(
                "azimuth_m = {} m puts it on line {line:.0}, outside the scene's lines 0 .. {} \
                 (azimuth {:.1} .. {:.1} m)",
                t.azimuth_m,
                lines - 1,
                -half,
                half - r.azimuth_bin_m()
            ));
        }
        Ok(())
    }
}

/// What [`Config::parse_toml`] does with the default scene's targets when a file lists none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultTargets {
    /// Keep them: a simulation of the default scene.
    Keep,
    /// Drop them: the user's own echoes, where only the targets the user names are measured.
    Drop,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_reference_scene_and_valid() {
        let c = Config::default();
        c.validate().expect("defaults are valid");
        assert_eq!(c.scene.targets.len(), 5);
        assert!((c.radar.range_bin_m() - 1.249).abs() < 1e-3);
        assert!((c.scene.targets[1].range_m - c.scene.targets[0].range_m - 74.95).abs() < 0.01);
        // 2 m antenna at 3 cm: 0.0133 rad, 88.6 Hz of Doppler, well under the 1 kHz PRF.
        assert!((c.radar.doppler_bandwidth_hz() - 88.6).abs() < 0.5);
    }

    #[test]
    fn configs_read_back_what_they_write() {
        let mut c = Config::default();
        c.radar.near_range_m = Some(c.near_range_m());
        c.radar.doppler_centroid_hz = Some(Centroid::Table(vec![[19e3, 40.0], [21e3, 60.0]]));
        c.radar.azimuth_pattern = Some(AzimuthPattern::Sinc2);
        c.radar.chirp = Chirp::Down;
        let text = c.to_toml().expect("written");
        let back = Config::parse_toml(&text, DefaultTargets::Drop).expect("read back");
        assert_eq!(back, c, "{text}");
        // No targets: an empty list, read back as none (not the reference scene's five).
        c.scene.targets.clear();
        let text = c.to_toml().expect("written");
        let back = Config::parse_toml(&text, DefaultTargets::Keep).expect("read back");
        assert!(back.scene.targets.is_empty(), "{text}");
    }

    #[test]
    fn echoes_set_the_size_a_config_may_not_contradict() {
        let mut c = Config::default();
        c.size_from_echoes(Some("[scene]\nsnr_db = 3.0\n"), 3000, 2500)
            .expect("no size stated");
        assert_eq!((c.scene.lines, c.scene.samples), (3000, 2500));
        c.size_from_echoes(Some("[scene]\nlines = 3000\n"), 3000, 2500)
            .expect("the same size");
        let e = c
            .size_from_echoes(Some("[scene]\nsamples = 4096\n"), 3000, 2500)
            .expect_err("another size")
            .to_string();
        assert!(
            e.contains("scene.samples = 4096") && e.contains("2500"),
            "{e}"
        );
    }

    #[test]
    fn echoes_measure_only_the_listed_targets() {
        let none =
            Config::parse_toml("[scene]\nsnr_db = 10.0\n", DefaultTargets::Drop).expect("parse");
        assert!(none.scene.targets.is_empty());
        let kept =
            Config::parse_toml("[scene]\nsnr_db = 10.0\n", DefaultTargets::Keep).expect("parse");
        assert_eq!(kept.scene.targets.len(), 5);
        let listed = Config::parse_toml(
            "[[scene.targets]]\nrange_m = 20000.0\nazimuth_m = 1.0\n",
            DefaultTargets::Drop,
        )
        .expect("parse");
        assert_eq!(listed.scene.targets.len(), 1);
        let c = Config::default();
        let (line, sample) = c.target_position(&c.scene.targets[0]);
        assert_eq!((line, sample.round()), (2048.0, 2048.0));
    }

    #[test]
    fn toml_overrides_and_errors() {
        let c = Config::from_toml(
            "[radar]\nbandwidth_hz = 50e6\n[scene]\nlines = 8192\nsamples = 2048\n",
        )
        .expect("parse");
        assert_eq!(
            (c.radar.bandwidth_hz, c.scene.lines, c.radar.prf_hz),
            (50e6, 8192, 1000.0)
        );
        for (toml, says) in [
            (
                "[radar]\nbandwidth_hz = -1.0",
                "bandwidth_hz must be a positive",
            ),
            (
                "[radar]\nsample_rate_hz = 80e6",
                "radar.sample_rate_hz = 80 MHz is below radar.bandwidth_hz = 100 MHz",
            ),
            (
                "[radar]\nprf_hz = 50.0",
                "radar.prf_hz = 50 Hz is below the Doppler bandwidth",
            ),
            ("[scene]\nlines = 8", "scene.lines must be at least 16"),
            (
                "[scene]\nlines = 256",
                "scene.lines = 256 is shorter than the synthetic aperture",
            ),
            ("[radar]\npulse_s = 1e-3", "radar.pulse_s = 0.001 s spans"),
            (
                "[radar]\nnear_range_m = -5.0",
                "radar.near_range_m must be a positive",
            ),
            ("[scene]\nsnr_db = nan", "scene.snr_db must be a finite"),
            ("[radar]\nantenna_m = 1e-9", "beam narrower than 90°"),
            (
                "[radar]\nantenna_m = 0.03\nprf_hz = 1e6",
                "189630088.5 lines: use at least 189630089 lines",
            ),
            ("[radar]\nbandwith_hz = 1.0", "unknown field"),
            (
                "[[scene.targets]]\nrange_m = 20000.0\nazimuth_m = 5000.0",
                "scene.targets[0] (target 1): azimuth_m = 5000 m puts it on line 52048",
            ),
            (
                "[[scene.targets]]\nrange_m = 30000.0\nazimuth_m = 0.0",
                "scene.targets[0] (target 1): range_m = 30000 m puts it at range sample",
            ),
            (
                "[[scene.targets]]\nrange_m = -1.0\nazimuth_m = 0.0",
                "range_m must be positive",
            ),
            (
                "[scene]\nlines = 8192\nsamples = 1099511627776",
                "longer than the longest transform",
            ),
        ] {
            let e = Config::from_toml(toml).expect_err(toml).to_string();
            assert!(e.contains(says), "{toml}: {e}");
        }
    }
}
