//! Chirp conventions (`radar.chirp`, `radar.pulse_reference`): up- and down-chirps whose
//! delays point at the pulse's centre or its start focus to theory with each target on its
//! delay's sample; echoes focused under the wrong convention land half a pulse away.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
use tierfft_sar::scene::params::{Chirp, Config, PulseReference, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

// A 4 m antenna halves the default aperture, so that the scene with its margins fits
// lavapipe's 128 MiB bindings.
const LINES: usize = 2000;
const SAMPLES: usize = 2500;

fn scene(chirp: Chirp, reference: PulseReference) -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 4,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.antenna_m = 4.0;
    c.radar.chirp = chirp;
    c.radar.pulse_reference = reference;
    let range_m = c.near_range_m() + 1200.37 * c.radar.range_bin_m();
    c.scene.targets.push(Target {
        range_m,
        azimuth_m: 0.0,
        amplitude: 1.0,
    });
    c
}

fn focused(device: &Device, c: &Config, raw: &[Complex32]) -> Vec<Complex32> {
    crate::common::focused(device, c, FocusOptions::default(), raw)
}

#[test]
fn every_convention_focuses_on_the_delay() {
    let gpu = crate::common::gpu();
    let az_irw = {
        let r = &scene(Chirp::Up, PulseReference::Centre).radar;
        0.886 * r.prf_hz / r.doppler_bandwidth_hz()
    };
    for (chirp, reference) in [
        (Chirp::Up, PulseReference::Start),
        (Chirp::Down, PulseReference::Centre),
        (Chirp::Down, PulseReference::Start),
    ] {
        let c = scene(chirp, reference);
        let raw = simulate(&c);
        // The GPU for the last convention only: the filter is the only thing that changes.
        let device = match (chirp, reference) {
            (Chirp::Down, PulseReference::Start) => &gpu,
            _ => &Device::cpu(),
        };
        let image = focused(device, &c, &raw);
        let cuts = CutOptions {
            half: 64,
            half_azimuth: 64,
            ..CutOptions::default()
        };
        let m = analyze_point(&image, LINES, SAMPLES, (1000, 1200), &cuts, None)
            .unwrap_or_else(|e| panic!("{chirp:?} {reference:?}: {e}"));
        let what = format!(
            "{chirp:?} chirp, delay at its {reference:?}, {}",
            device.name()
        );
        eprintln!("{what}: range {:?}", m.range);
        assert!(
            (m.range.peak_position - 1200.37).abs() < 0.1,
            "{what}: {:?}",
            m.range
        );
        assert!(
            (m.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
            "{what}: {:?}",
            m.range
        );
        assert!(
            (m.range.pslr_db + 13.26).abs() < 0.5,
            "{what}: {:?}",
            m.range
        );
        assert!(
            (m.azimuth.peak_position - 1000.0).abs() < 0.1,
            "{what}: {:?}",
            m.azimuth
        );
        assert!(
            (m.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03,
            "{what}: {:?}",
            m.azimuth
        );
    }
}

#[test]
fn the_wrong_convention_lands_half_a_pulse_away() {
    let start = scene(Chirp::Up, PulseReference::Start);
    let raw = simulate(&start);
    // Focused as if delays pointed at the pulse's centre: the peak is 600 samples (5 µs at
    // 120 MHz) late.
    let centre = scene(Chirp::Up, PulseReference::Centre);
    let image = focused(&Device::cpu(), &centre, &raw);
    let row = &image[1000 * SAMPLES..1001 * SAMPLES];
    let peak = (0..SAMPLES)
        .max_by(|&a, &b| row[a].norm().total_cmp(&row[b].norm()))
        .unwrap_or(0);
    assert!((peak as f64 - 1800.37).abs() < 1.0, "peak at {peak}");
}
