//! Range compression of a simulated point target: the range response matches theory
//! (../shared/ANCHORS.md) and sits where the target was placed; the fused GPU kernel matches the
//! CPU reference. GPU: lavapipe unless TIERFFT_TEST_DEVICE names another device.

use tierfft::Device;
use tierfft_sar::metrics::{CutMetrics, analyze_cut};
use tierfft_sar::params::{Config, Scene, Target};
use tierfft_sar::range::{Window, compress_range};
use tierfft_sar::simulate::simulate;

const LINES: usize = 32;
const SAMPLES: usize = 2048;
/// Where the target's delay falls, in range samples (sub-bin on purpose).
const DELAY_SAMPLE: f64 = 1000.37;

fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 3,
            targets: vec![],
        },
        ..Config::default()
    };
    let range_m = c.near_range_m() + DELAY_SAMPLE * c.radar.range_bin_m();
    c.scene.targets.push(Target {
        range_m,
        azimuth_m: 0.0,
        amplitude: 1.0,
    });
    c
}

fn gpu() -> Device {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"))
}

/// The range cut through the target at closest approach (before azimuth compression a
/// target spreads over every line, so only the range cut is meaningful), in image samples.
fn range_cut(image: &[tierfft::Complex32]) -> CutMetrics {
    let (first, half) = (1000 - 32, 32);
    let row = &image[LINES / 2 * SAMPLES..][first..first + 2 * half];
    let mut m = analyze_cut(row, 16).expect("analysis");
    m.peak_position += first as f64;
    eprintln!(
        "range IRW {:.4} bins, PSLR {:.2} dB, ISLR {:.2} dB, peak at {:.3} (placed at {DELAY_SAMPLE})",
        m.irw_bins, m.pslr_db, m.islr_db, m.peak_position
    );
    m
}

fn compressed(device: &Device, window: Window) -> Vec<tierfft::Complex32> {
    let c = scene();
    let mut data = simulate(&c);
    compress_range(device, &c, &mut data, window).expect("range compression");
    data
}

#[test]
fn unweighted_range_response_matches_theory() {
    for device in [Device::Cpu, gpu()] {
        let image = compressed(&device, Window::None);
        let r = &range_cut(&image);
        // fs/B = 1.2: 0.886 × 1.2 = 1.063 bins.
        assert!(
            (r.irw_bins / 1.063 - 1.0).abs() < 0.03,
            "{}: IRW {}",
            device.name(),
            r.irw_bins
        );
        assert!(
            (r.pslr_db + 13.26).abs() < 0.5,
            "{}: PSLR {}",
            device.name(),
            r.pslr_db
        );
        assert!(
            (r.islr_db + 9.68).abs() < 1.0,
            "{}: ISLR {}",
            device.name(),
            r.islr_db
        );
        assert!(
            (r.peak_position - DELAY_SAMPLE).abs() < 0.1,
            "{}: at {}",
            device.name(),
            r.peak_position
        );
    }
}

#[test]
fn hamming_range_response_matches_theory() {
    let image = compressed(&gpu(), Window::Hamming);
    let r = &range_cut(&image);
    assert!(
        (r.irw_bins / (1.303 * 1.2) - 1.0).abs() < 0.03,
        "IRW {}",
        r.irw_bins
    );
    assert!((r.pslr_db + 42.67).abs() < 1.0, "PSLR {}", r.pslr_db);
    assert!(
        (r.peak_position - DELAY_SAMPLE).abs() < 0.1,
        "at {}",
        r.peak_position
    );
}

#[test]
fn fused_gpu_matches_the_cpu_reference() {
    let (gpu, cpu) = (
        compressed(&gpu(), Window::None),
        compressed(&Device::Cpu, Window::None),
    );
    let want: Vec<num_complex::Complex64> = cpu
        .iter()
        .map(|z| num_complex::Complex64::new(z.re.into(), z.im.into()))
        .collect();
    let err = tierfft::reference::relative_l2_error(&gpu, &want);
    assert!(err <= 1e-5, "fused vs CPU: {err:e}");
}
