//! Squinted scenes: echoes seen through a beam pointing ahead or behind (a Doppler centroid
//! of 50 and 150 Hz, and one beyond the PRF) focus to theory with the centroid given, and with
//! it estimated from the echoes (within 2 Hz, the ambiguity resolved); ignoring it defocuses.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::Algorithm;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::quality::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::scene::centroid::estimate;
use tierfft_sar::scene::doppler::Centroid;
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

use crate::common::assert_theory;

const SAMPLES: usize = 2500;

/// 200 m/s and a 4 m antenna: 88.6 Hz of Doppler, a 665-line aperture at 20 km, and at
/// 150 Hz a squint of 11 mrad (the aperture 1125 lines ahead of the target).
fn scene(centroid_hz: f64, prf_hz: f64, lines: usize) -> Config {
    let mut c = Config {
        scene: Scene {
            lines,
            samples: SAMPLES,
            snr_db: Some(10.0),
            seed: 11,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.antenna_m = 4.0;
    c.radar.speed_mps = 200.0;
    c.radar.prf_hz = prf_hz;
    c.radar.doppler_centroid_hz = Some(Centroid::Constant(centroid_hz));
    let bin = c.radar.range_bin_m();
    // Near the end of the lines: the beam looks ahead, so the echoes come earlier.
    let azimuth_m = 0.3 * lines as f64 * c.radar.azimuth_bin_m();
    for k in [800.37, 1500.0] {
        c.scene.targets.push(Target {
            range_m: c.near_range_m() + k * bin,
            azimuth_m,
            amplitude: 1.0,
        });
    }
    c
}

fn focus(device: &Device, c: &Config, raw: &[Complex32]) -> Vec<Complex32> {
    crate::common::focused(device, c, FocusOptions::default(), raw)
}

fn measure(c: &Config, image: &[Complex32], t: usize) -> Result<PointMetrics, String> {
    let (line, sample) = c.target_position(&c.scene.targets[t]);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    let at = (line.round() as usize, sample.round() as usize);
    analyze_point(image, c.scene.lines, SAMPLES, at, &cuts, None).map_err(|e| e.to_string())
}

/// Checks both targets against theory.
fn check(c: &Config, image: &[Complex32], what: &str) {
    for t in 0..2 {
        let m = measure(c, image, t).unwrap_or_else(|e| panic!("{what}: target {t}: {e}"));
        eprintln!(
            "{what}: target {t}: range {:?}\n  azimuth {:?}",
            m.range, m.azimuth
        );
        assert_theory(c, t, &m, &format!("{what}: target {t}"));
    }
}

#[test]
fn squinted_scenes_focus_with_the_centroid_given_or_estimated() {
    let gpu = crate::common::gpu();
    for (centroid, prf, lines) in [
        (50.0, 1000.0, 2500),
        (150.0, 1000.0, 2500),
        (400.0, 300.0, 2000),
    ] {
        let given = scene(centroid, prf, lines);
        let raw = simulate(&given);
        let e = estimate(&given, &raw).expect("estimate");
        eprintln!("{centroid} Hz at PRF {prf}: {e:?}");
        for t in &given.scene.targets {
            let found = e.centroid.at(t.range_m);
            assert!((found - centroid).abs() < 2.0, "{centroid} Hz: {e:?}");
        }
        let device = match centroid {
            150.0 => &gpu,
            _ => &Device::cpu(),
        };
        check(
            &given,
            &focus(device, &given, &raw),
            &format!("{centroid} Hz given"),
        );
        if centroid == 150.0 {
            // Broadside processing passes a band the beam never saw.
            let mut broadside = given.clone();
            broadside.radar.doppler_centroid_hz = None;
            let image = focus(&Device::cpu(), &broadside, &raw);
            let lost = measure(&given, &image, 1).map_or(0.0, |m| m.azimuth.peak_value);
            let kept = measure(&given, &focus(&Device::cpu(), &given, &raw), 1)
                .map_or(f64::INFINITY, |m| m.azimuth.peak_value);
            assert!(lost < 0.1 * kept, "broadside: peak {lost} against {kept}");
        }
        let mut estimated = given.clone();
        estimated.radar.doppler_centroid_hz = Some(e.centroid);
        check(
            &estimated,
            &focus(&Device::cpu(), &estimated, &raw),
            &format!("{centroid} Hz estimated"),
        );
        // Chirp scaling follows the squinted migration by phase multiplies alone.
        let csa = FocusOptions {
            algorithm: Algorithm::Csa,
            ..FocusOptions::default()
        };
        check(
            &estimated,
            &crate::common::focused(device, &estimated, csa, &raw),
            &format!("{centroid} Hz estimated, chirp scaling"),
        );
    }
}

#[test]
fn a_centroid_that_varies_with_range_is_estimated_along_it() {
    // 130 Hz at the near range to 170 Hz at the far one, targets across the swath; a 2 µs
    // pulse (300 m), so that the targets' spread in range says more than their chirps.
    let mut c = scene(0.0, 1000.0, 2500);
    c.radar.pulse_s = 2e-6;
    let (near, bin) = (c.near_range_m(), c.radar.range_bin_m());
    let far = near + SAMPLES as f64 * bin;
    c.radar.doppler_centroid_hz = Some(Centroid::Table(vec![[near, 130.0], [far, 170.0]]));
    let azimuth_m = c.scene.targets[0].azimuth_m;
    c.scene.targets = [300.0, 800.0, 1250.0, 1700.0, 2200.0]
        .iter()
        .map(|k| Target {
            range_m: near + k * bin,
            azimuth_m,
            amplitude: 1.0,
        })
        .collect();
    let raw = simulate(&c);
    let e = estimate(&c, &raw).expect("estimate");
    eprintln!("{e:?}");
    for t in &c.scene.targets {
        let (want, found) = (c.centroid_hz(t.range_m), e.centroid.at(t.range_m));
        assert!(
            (found - want).abs() < 2.0,
            "at {} m: {found} for {want}",
            t.range_m
        );
    }
    let mut estimated = c.clone();
    estimated.radar.doppler_centroid_hz = Some(e.centroid);
    let image = focus(&Device::cpu(), &estimated, &raw);
    for t in 0..c.scene.targets.len() {
        let m = measure(&c, &image, t).unwrap_or_else(|e| panic!("target {t}: {e}"));
        eprintln!("target {t}: {m:?}");
        assert_theory(&c, t, &m, &format!("target {t}"));
    }
}
