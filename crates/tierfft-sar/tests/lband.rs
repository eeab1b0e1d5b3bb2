//! An L-band, wide-beam scene: 30 m (24 range bins) of migration at the Doppler band's edge,
//! where range and azimuth couple enough that range compression alone leaves a residual chirp
//! (about 2.5 rad at the band's corners). With secondary range compression the targets focus to
//! theory in range and azimuth; without it the range sidelobes rise.

mod common;

use common::assert_theory;
use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::coupling;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::params::{Config, Scene, Target};
use tierfft_sar::simulate::simulate;

const LINES: usize = 3000;
const SAMPLES: usize = 1024;

/// 1.27 GHz, 100 MHz sampled at 120, a 1.35 m antenna at 200 m/s (262 Hz of Doppler at a
/// 320 Hz PRF) and targets near 10 km: a 1550 m synthetic aperture.
fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 5,
            targets: vec![],
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
    for (k, line) in [(480.37, 1500.0), (700.0, 1600.4)] {
        let azimuth_m = (line - LINES as f64 / 2.0) * c.radar.azimuth_bin_m();
        c.scene.targets.push(Target {
            range_m: 9400.0 + k * bin,
            azimuth_m,
            amplitude: 1.0,
        });
    }
    c
}

fn measure(device: &Device, c: &Config, raw: &[Complex32], src: bool) -> Vec<PointMetrics> {
    let opts = FocusOptions {
        src: Some(src),
        ..FocusOptions::default()
    };
    let image = common::focused(device, c, opts, raw);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    c.scene
        .targets
        .iter()
        .map(|t| {
            let (line, sample) = c.target_position(t);
            let at = (line.round() as usize, sample.round() as usize);
            analyze_point(&image, LINES, SAMPLES, at, &cuts, None).expect("measure")
        })
        .collect()
}

#[test]
fn secondary_range_compression_brings_l_band_to_theory() {
    let c = scene();
    assert!(coupling::needed(&c), "the scene needs SRC");
    let raw = simulate(&c);
    let gpu = common::gpu();
    for device in [Device::cpu(), gpu] {
        let with = measure(&device, &c, &raw, true);
        let without = measure(&Device::cpu(), &c, &raw, false);
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
