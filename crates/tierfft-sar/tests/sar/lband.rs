//! An L-band, wide-beam scene: 30 m (24 range bins) of migration at the Doppler band's edge,
//! where range and azimuth couple enough that range compression alone leaves a residual chirp
//! (about 2.5 rad at the band's corners). With secondary range compression the targets focus to
//! theory in range and azimuth; without it the range sidelobes rise. The chirp scaling
//! algorithm, which corrects the migration by phase multiplies alone, focuses it to theory
//! too.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::filters::coupling;
use tierfft_sar::filters::radiometry::Radiometry;
use tierfft_sar::focus::Algorithm;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::quality::metrics::PointMetrics;
use tierfft_sar::scene::params::{Chirp, Config, PulseReference, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

use crate::common::assert_theory;

const LINES: usize = 3000;
const SAMPLES: usize = 2048;

/// 1.27 GHz, 100 MHz sampled at 120, a 1.35 m antenna at 200 m/s (262 Hz of Doppler at a
/// 320 Hz PRF) and targets from 9.8 to 11.5 km, 700 bins either side of mid-swath (the
/// chirp scaling's reference): a 1550 m synthetic aperture.
fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 5,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    let r = &mut c.radar;
    r.carrier_hz = 1.27e9;
    r.pulse_s = 5e-6;
    r.antenna_m = 1.35;
    r.speed_mps = 200.0;
    r.prf_hz = 320.0;
    r.near_range_m = Some(9400.0);
    let bin = c.radar.range_bin_m();
    for (k, line) in [(320.3, 1450.0), (1000.37, 1500.0), (1720.2, 1510.4)] {
        let azimuth_m = (line - LINES as f64 / 2.0) * c.radar.azimuth_bin_m();
        c.scene.targets.push(Target {
            range_m: 9400.0 + k * bin,
            azimuth_m,
            amplitude: 1.0,
        });
    }
    c
}

fn measure(
    device: &Device,
    c: &Config,
    raw: &[Complex32],
    opts: FocusOptions,
) -> Vec<PointMetrics> {
    let image = crate::common::focused(device, c, opts, raw);
    crate::common::measure_targets(&image, c)
        .into_iter()
        .map(|m| m.expect("measure"))
        .collect()
}

fn src(on: bool) -> FocusOptions {
    FocusOptions {
        src: Some(on),
        ..FocusOptions::default()
    }
}

/// Also with a down-chirp whose delays point at its start: the scaling is centred on the
/// reference's pulse, half a pulse after its delay.
#[test]
fn chirp_scaling_brings_l_band_to_theory() {
    let csa = FocusOptions {
        algorithm: Algorithm::Csa,
        ..FocusOptions::default()
    };
    for (device, chirp, reference) in [
        (Device::cpu(), Chirp::Up, PulseReference::Centre),
        (crate::common::gpu(), Chirp::Up, PulseReference::Centre),
        (Device::cpu(), Chirp::Down, PulseReference::Start),
    ] {
        let mut c = scene();
        (c.radar.chirp, c.radar.pulse_reference) = (chirp, reference);
        if reference == PulseReference::Start {
            // Half a pulse nearer the start, so that the pulses after the delays fit.
            let half_pulse = c.radar.pulse_s / 2.0 * c.radar.sample_rate_hz;
            c.radar.near_range_m = Some(9400.0 + half_pulse * c.radar.range_bin_m());
        }
        let raw = simulate(&c);
        for (i, m) in measure(&device, &c, &raw, csa).iter().enumerate() {
            let what = format!(
                "target {i} on {}, chirp scaling, {chirp:?} chirp from its {reference:?}",
                device.name()
            );
            eprintln!("{what}: {m:?}");
            assert_theory(&c, i, m, &what);
        }
    }
}

/// Normalised, equal targets image with equal peaks across the swath; raw, the peak grows
/// with range (the aperture's pulses); with the spreading loss undone, as range squared.
#[test]
fn radiometry_normalises_the_gain_across_range() {
    let c = scene();
    let raw = simulate(&c);
    let ranges: Vec<f64> = c.scene.targets.iter().map(|t| t.range_m).collect();
    for (radiometry, power) in [
        (Radiometry::Normalised, 0),
        (Radiometry::Raw, 1),
        (Radiometry::Spreading, 2),
    ] {
        let opts = FocusOptions {
            radiometry,
            ..FocusOptions::default()
        };
        let m = measure(&Device::cpu(), &c, &raw, opts);
        for i in 1..m.len() {
            let got = m[i].range.peak_value / m[0].range.peak_value;
            let want = (ranges[i] / ranges[0]).powi(power);
            assert!(
                (got / want - 1.0).abs() < 0.005,
                "{radiometry}: target {i}'s peak is {got} of target 0's, not {want}"
            );
        }
    }
}

#[test]
fn secondary_range_compression_brings_l_band_to_theory() {
    let c = scene();
    assert!(coupling::needed(&c), "the scene needs SRC");
    let raw = simulate(&c);
    let gpu = crate::common::gpu();
    for device in [Device::cpu(), gpu] {
        let with = measure(&device, &c, &raw, src(true));
        let without = measure(&Device::cpu(), &c, &raw, src(false));
        for (i, (m, w)) in with.iter().zip(&without).enumerate() {
            let what = format!("target {i} on {}", device.name());
            eprintln!("{what}: with SRC {m:?}\n  without {w:?}");
            assert_theory(&c, i, m, &what);
            assert!(
                w.range.pslr_db > m.range.pslr_db + 0.5,
                "{what}: without SRC {w:?}"
            );
        }
    }
}
