//! The antenna's azimuth pattern (`radar.azimuth_pattern`): echoes lit through a sinc² beam
//! are recognised as such, and focus to the unweighted theory with the pattern equalised
//! (on the CPU and lavapipe); focused as if uniformly lit they come out wider with lower
//! sidelobes. Uniformly lit echoes are recognised as uniform.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::quality::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::scene::params::{AzimuthPattern, Config, Scene, Target};
use tierfft_sar::scene::pattern::resolve;
use tierfft_sar::scene::simulate::simulate;

/// One target mid-scene lit by `pattern`: the default radar at a 250 Hz PRF (a 665-line 3 dB
/// aperture at 20 km, time-bandwidth product 236; sinc² lights 1500 lines to its nulls).
fn scene(pattern: AzimuthPattern) -> Config {
    let mut c = Config {
        scene: Scene {
            lines: 2048,
            samples: 1536,
            snr_db: Some(10.0),
            seed: 4,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.prf_hz = 250.0;
    c.radar.azimuth_pattern = Some(pattern);
    let range_m = c.near_range_m() + 700.3 * c.radar.range_bin_m();
    c.scene.targets.push(Target {
        range_m,
        azimuth_m: 1.23,
        amplitude: 1.0,
    });
    c
}

fn measure(device: &Device, c: &Config, raw: &[Complex32]) -> PointMetrics {
    let image = crate::common::focused(device, c, FocusOptions::default(), raw);
    let (line, sample) = c.target_position(&c.scene.targets[0]);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 128,
        ..CutOptions::default()
    };
    let at = (line.round() as usize, sample.round() as usize);
    analyze_point(&image, c.scene.lines, c.scene.samples, at, &cuts, None).expect("measure")
}

#[test]
fn the_pattern_is_recognised_in_the_echoes() {
    for pattern in [AzimuthPattern::Uniform, AzimuthPattern::Sinc2] {
        let c = scene(pattern);
        let raw = simulate(&c);
        let mut unknown = c.clone();
        unknown.radar.azimuth_pattern = None;
        let used = resolve(&mut unknown, &raw);
        assert_eq!(used.pattern, pattern, "{used:?}");
        assert_eq!(unknown.radar.azimuth_pattern, Some(pattern));
        // Given, it is kept.
        let mut given = c.clone();
        assert_eq!(resolve(&mut given, &raw).source, "config");
    }
    // A band of 22 Doppler bins (an 8 m antenna, 1024 lines at 1000 Hz) is too narrow to
    // tell: uniform is assumed.
    let mut narrow = scene(AzimuthPattern::Uniform);
    narrow.radar.azimuth_pattern = None;
    narrow.radar.prf_hz = 1000.0;
    narrow.radar.antenna_m = 8.0;
    narrow.scene.lines = 1024;
    let raw = simulate(&narrow);
    let used = resolve(&mut narrow, &raw);
    assert_eq!(
        (used.pattern, used.source),
        (AzimuthPattern::Uniform, "assumed")
    );
}

#[test]
fn a_sinc2_beam_focuses_to_theory_with_its_pattern() {
    let c = scene(AzimuthPattern::Sinc2);
    let raw = simulate(&c);
    for device in [Device::cpu(), crate::common::gpu()] {
        let m = measure(&device, &c, &raw);
        eprintln!("sinc2 on {}: {:?}", device.name(), m.azimuth);
        crate::common::assert_theory(&c, 0, &m, &format!("sinc2 on {}", device.name()));
        // Normalised radiometry: the peak of a uniformly lit unit target, the pulse's
        // samples (10 µs at 120 MHz).
        let pulse = c.radar.pulse_s * c.radar.sample_rate_hz;
        assert!(
            (m.azimuth.peak_value / pulse - 1.0).abs() < 0.02,
            "peak {} against {pulse}",
            m.azimuth.peak_value
        );
    }
    // As if uniformly lit: the beam's taper weights the band (wider, lower sidelobes).
    let mut uniform = c.clone();
    uniform.radar.azimuth_pattern = Some(AzimuthPattern::Uniform);
    let m = measure(&Device::cpu(), &uniform, &raw);
    eprintln!("sinc2 echoes focused as uniform: {:?}", m.azimuth);
    let irw = 0.886 * c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    assert!(
        m.azimuth.irw_bins > 1.05 * irw && m.azimuth.pslr_db < -16.0,
        "{:?}",
        m.azimuth
    );
}
