//! A focusing configuration from what a raw product says ([`crate::product::Description`]):
//! the radar's parameters as recorded, the effective velocity from the orbit's zero-Doppler
//! geometry, and the Doppler centroid the orbit and attitude predict beside it. Where the
//! product holds fewer pulses than a target's synthetic aperture, each target is focused
//! from the pulses it has ([`crate::scene::params::Scene::partial_aperture`]): the full
//! aperture's azimuth filter over margins as long as it, the resolution coarser by the
//! ratio.

use serde::Serialize;

use crate::error::SarError;
use crate::product::Description;
use crate::product::geometry::{effective_velocity, predicted_centroid};
use crate::scene::params::{C, Chirp, Config, PulseReference, Radar, Scene};

/// Antenna lengths along track of the missions whose products carry none, m.
const ANTENNAS: [(&str, f64); 2] = [
    // ALOS-1 PALSAR's phased array: 8.9 m × 3.1 m.
    ("ALOS", 8.9),
    // NISAR's reflector: 12 m across.
    ("NISAR", 12.0),
];

/// The geometry a configuration was made from, for the terminal and metrics.json.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Geometry {
    /// Slant ranges the values below are at (near, mid, far), m.
    pub ranges_m: [f64; 3],
    /// Effective velocity at those ranges, m/s (the configuration takes nine across the
    /// swath for the azimuth filter, the middle one for the rest).
    pub effective_velocity_mps: [f64; 3],
    /// The Doppler centroid the orbit and attitude predict there, Hz; `None` without
    /// attitude.
    pub predicted_centroid_hz: Option<[f64; 3]>,
    /// Platform speed at mid-time, m/s.
    pub platform_speed_mps: f64,
    /// The antenna length along track used, m, and where it came from.
    pub antenna_m: f64,
    /// Where the antenna length came from: "given" or the mission's name.
    pub antenna_from: String,
    /// A target's full synthetic aperture at mid-swath, pulses.
    pub full_aperture_lines: f64,
    /// The pulses focused over (the whole aperture, or the product's pulses when fewer).
    pub processed_lines: f64,
}

impl Geometry {
    /// How much coarser the azimuth resolution is than a full aperture's (1 when whole).
    pub fn resolution_factor(&self) -> f64 {
        (self.full_aperture_lines / self.processed_lines).max(1.0)
    }
}

/// The configuration that focuses `d`'s echoes, and the geometry it came from. The antenna
/// length along track is `antenna_m`, else the mission's ([`ANTENNAS`]); a product of fewer
/// pulses than the aperture is focused with partial apertures. The Doppler centroid and the
/// azimuth pattern are left to the echoes.
pub fn config(d: &Description, antenna_m: Option<f64>) -> Result<(Config, Geometry), SarError> {
    let (antenna_m, antenna_from) = match antenna_m {
        Some(a) if a.is_finite() && a > 0.0 => (a, "given".to_string()),
        Some(a) => {
            return Err(SarError::Config(format!(
                "the antenna length must be a positive number of m (got {a})"
            )));
        }
        None => match ANTENNAS
            .iter()
            .find(|(m, _)| d.mission.eq_ignore_ascii_case(m))
        {
            Some((m, a)) => (*a, m.to_string()),
            None => {
                return Err(SarError::Config(format!(
                    "the product's mission '{}' has no known antenna length: give it (tierfft \
                     sar --antenna-m, Python antenna_m=)",
                    d.mission
                )));
            }
        },
    };
    let (pulses, samples) = (d.pulses(), d.samples());
    let t_mid = d.pulse_times_s[pulses / 2];
    let wavelength = C / d.carrier_hz;
    // The range history fitted over about the product's own span.
    let span = (d.pulse_times_s[pulses - 1] - d.pulse_times_s[0]).max(1.0 / d.prf_hz) / 2.0;
    // The azimuth filter's velocity table: nine ranges across the swath.
    let table = (0..9)
        .map(|i| {
            let r = d.slant_range_m[(samples - 1) * i / 8];
            Ok([r, effective_velocity(&d.orbit, t_mid, r, d.look, span)?])
        })
        .collect::<Result<Vec<[f64; 2]>, SarError>>()?;
    let ranges_m = [table[0][0], table[4][0], table[8][0]];
    let velocity = [table[0][1], table[4][1], table[8][1]];
    let predicted = match &d.attitude {
        Some(att) => {
            let mut f = [0.0; 3];
            for (f, &r) in f.iter_mut().zip(&ranges_m) {
                *f = predicted_centroid(&d.orbit, att, t_mid, r, d.look, wavelength)?;
            }
            Some(f)
        }
        None => None,
    };
    let state = d.orbit.at(t_mid)?;
    let platform_speed_mps = crate::product::orbit::norm(state.velocity_mps);
    let mut config = Config {
        radar: Radar {
            carrier_hz: d.carrier_hz,
            bandwidth_hz: d.bandwidth_hz,
            pulse_s: d.pulse_s,
            sample_rate_hz: d.sample_rate_hz,
            prf_hz: d.prf_hz,
            speed_mps: velocity[1],
            speed_by_range_mps: Some(table),
            antenna_m,
            near_range_m: Some(d.near_range_m()),
            chirp: match d.chirp_slope_hz_per_s < 0.0 {
                true => Chirp::Down,
                false => Chirp::Up,
            },
            // A sample's slant range is its delay's; the pulse starts there.
            pulse_reference: PulseReference::Start,
            ..Radar::default()
        },
        scene: Scene {
            lines: pulses,
            samples,
            snr_db: None,
            seed: 0,
            targets: Vec::new(),
            partial_aperture: false,
        },
    };
    let full = config.aperture_lines();
    config.scene.partial_aperture = full > pulses as f64;
    let geometry = Geometry {
        ranges_m,
        effective_velocity_mps: velocity,
        predicted_centroid_hz: predicted,
        platform_speed_mps,
        antenna_m,
        antenna_from,
        full_aperture_lines: full,
        processed_lines: full.min(pulses as f64),
    };
    config.validate()?;
    Ok((config, geometry))
}

/// `effective velocity 7003.0 / 7002.0 / 7001.0 m/s (platform 7597.6 m/s), predicted Doppler
/// centroid 15.6 / 15.8 / 16.0 Hz at 847166 / 857471 / 867767 m; ...`.
impl std::fmt::Display for Geometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [v0, v1, v2] = self.effective_velocity_mps;
        let [r0, r1, r2] = self.ranges_m;
        write!(
            f,
            "effective velocity {v0:.1} / {v1:.1} / {v2:.1} m/s (platform {:.1} m/s)",
            self.platform_speed_mps
        )?;
        if let Some([a, b, c]) = self.predicted_centroid_hz {
            write!(
                f,
                ", Doppler centroid from orbit and attitude {a:.1} / {b:.1} / {c:.1} Hz"
            )?;
        }
        write!(
            f,
            " at {r0:.0} / {r1:.0} / {r2:.0} m; antenna {} m ({})",
            self.antenna_m, self.antenna_from
        )?;
        if self.resolution_factor() > 1.0 {
            write!(
                f,
                "; {:.0} pulses of a {:.0}-pulse aperture: azimuth resolution {:.1}× coarser \
                 than a full aperture's",
                self.processed_lines,
                self.full_aperture_lines,
                self.resolution_factor()
            )?;
        }
        Ok(())
    }
}
