//! A measured transmit pulse (`radar.replica`): echoes of a distorted chirp (amplitude ripple
//! and a phase error, as a real transmitter makes) focus to theory with the pulse as the
//! matched filter's replica, and not with the ideal chirp; a replica that is the ideal chirp
//! sampled focuses as the ideal chirp does.

use std::f64::consts::PI;

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::quality::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::scene::params::{Config, PulseReference, Scene, Target};
use tierfft_sar::scene::replica::Replica;
use tierfft_sar::scene::simulate::simulate;

const LINES: usize = 1024;
const SAMPLES: usize = 2048;

fn scene(reference: PulseReference) -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 2,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.antenna_m = 8.0;
    c.radar.pulse_reference = reference;
    let range_m = c.near_range_m() + 1000.37 * c.radar.range_bin_m();
    c.scene.targets.push(Target {
        range_m,
        azimuth_m: 0.0,
        amplitude: 1.0,
    });
    c
}

/// The ideal chirp sampled over `len` samples around its reference, times `distortion(t)`
/// (t in pulses, −½ .. ½).
fn pulse(c: &Config, len: usize, distortion: impl Fn(f64) -> (f64, f64)) -> Replica {
    let r = &c.radar;
    let fs = r.sample_rate_hz;
    let samples = (0..len)
        .map(|k| {
            let t = (k as f64 - (len - 1) as f64 / 2.0) / fs;
            let (gain, phase) = distortion(t / r.pulse_s);
            let z = num_complex::Complex64::from_polar(
                gain,
                PI * r.signed_chirp_rate() * t * t + phase,
            );
            Complex32::new(z.re as f32, z.im as f32)
        })
        .collect();
    Replica::new(samples).expect("replica")
}

fn focus_and_measure(device: &Device, c: &Config, raw: &[Complex32]) -> PointMetrics {
    let image = crate::common::focused(device, c, FocusOptions::default(), raw);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    analyze_point(&image, LINES, SAMPLES, (512, 1000), &cuts, None).expect("measure")
}

#[test]
fn a_measured_pulse_focuses_with_itself_as_the_replica() {
    let ideal = scene(PulseReference::Centre);
    let mut distorted = ideal.clone();
    // 1200 samples (10 µs at 120 MHz), 30 % amplitude ripple, 0.8 rad of phase error.
    distorted.radar.set_replica(pulse(&ideal, 1200, |t| {
        (
            1.0 + 0.3 * (2.0 * PI * 2.5 * t).cos(),
            0.8 * (2.0 * PI * 1.5 * t).sin(),
        )
    }));
    let raw = simulate(&distorted);
    let gpu = crate::common::gpu();
    let with = focus_and_measure(&gpu, &distorted, &raw);
    let without = focus_and_measure(&Device::cpu(), &ideal, &raw);
    eprintln!(
        "with the replica: {:?}\nwith the ideal chirp: {:?}",
        with.range, without.range
    );
    assert!(
        (with.range.peak_position - 1000.37).abs() < 0.05,
        "{:?}",
        with.range
    );
    assert!(
        (with.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
        "{:?}",
        with.range
    );
    assert!((with.range.pslr_db + 13.26).abs() < 0.3, "{:?}", with.range);
    assert!(
        without.range.pslr_db > with.range.pslr_db + 1.0,
        "the ideal chirp on a distorted pulse: {:?}",
        without.range
    );
}

#[test]
fn the_ideal_chirp_as_a_replica_focuses_as_the_ideal_chirp() {
    for reference in [PulseReference::Centre, PulseReference::Start] {
        let ideal = scene(reference);
        let raw = simulate(&ideal);
        let mut sampled = ideal.clone();
        // Centre: 1200 samples around the delay (an even count: its reference falls between
        // two samples); start: the samples from the delay on.
        sampled.radar.set_replica(match reference {
            PulseReference::Centre => pulse(&ideal, 1200, |_| (1.0, 0.0)),
            PulseReference::Start => start_chirp(&ideal),
        });
        let a = focus_and_measure(&Device::cpu(), &ideal, &raw);
        let b = focus_and_measure(&Device::cpu(), &sampled, &raw);
        eprintln!(
            "{reference:?}: ideal {:?}\n  sampled {:?}",
            a.range, b.range
        );
        assert!((a.range.peak_position - b.range.peak_position).abs() < 0.01);
        assert!((a.range.pslr_db - b.range.pslr_db).abs() < 0.05);
        assert!((a.range.irw_bins / b.range.irw_bins - 1.0).abs() < 0.005);
    }
}

/// The ideal chirp from its start: sample k at k/fs after the delay.
fn start_chirp(c: &Config) -> Replica {
    let r = &c.radar;
    let fs = r.sample_rate_hz;
    let len = (r.pulse_s * fs).round() as usize;
    let samples = (0..len)
        .map(|k| {
            let t = k as f64 / fs - r.pulse_s / 2.0;
            let z = num_complex::Complex64::from_polar(1.0, PI * r.signed_chirp_rate() * t * t);
            Complex32::new(z.re as f32, z.im as f32)
        })
        .collect();
    Replica::new(samples).expect("replica")
}
