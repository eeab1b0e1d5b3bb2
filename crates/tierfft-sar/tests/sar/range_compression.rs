//! Range compression of a simulated point target: the range response matches theory
//! (docs/SAR.md and [`Window::theory`]) for every window and sits where the target
//! was placed; the fused GPU kernel matches the CPU reference. GPU: lavapipe unless
//! TIERFFT_TEST_DEVICE names another device.

use tierfft::Device;
use tierfft_sar::filters::range::{Window, compress_range};
use tierfft_sar::quality::metrics::{CutMetrics, analyze_cut};
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

const LINES: usize = 32;
const SAMPLES: usize = 2048;
/// Where the target's delay falls, in range samples (sub-bin on purpose).
const DELAY_SAMPLE: f64 = 1000.37;
/// Half-length of the range cut, samples: ±128 samples is ±107/B at fs/B = 1.2, far enough
/// out that the sidelobe energy (ISLR) misses under 0.3 dB of the tails for every window
/// (±32 samples missed 0.9 dB of Hamming's slowly decaying far sidelobes).
const HALF_CUT: usize = 128;

/// The windows under test: the anchor table's four and two other parameter choices.
const WINDOWS: [Window; 6] = [
    Window::None,
    Window::Hamming,
    Window::Taylor {
        nbar: 4,
        sll_db: -35.0,
    },
    Window::Kaiser { beta: 2.5 },
    Window::Taylor {
        nbar: 6,
        sll_db: -40.0,
    },
    Window::Kaiser { beta: 6.0 },
];

fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: None,
            seed: 3,
            targets: vec![],
            partial_aperture: false,
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
fn range_cut(image: &[tierfft::Complex32], what: &str) -> CutMetrics {
    let first = 1000 - HALF_CUT;
    let row = &image[LINES / 2 * SAMPLES..][first..first + 2 * HALF_CUT];
    let mut m = analyze_cut(row, 16).expect("analysis");
    m.peak_position += first as f64;
    eprintln!(
        "{what}: range IRW {:.4} bins, PSLR {:.2} dB, ISLR {:.2} dB, peak at {:.3} (placed at {DELAY_SAMPLE})",
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

/// Oversampling fs/B of the test scene: theory's widths (× 1/B) times this are in bins.
fn oversampling() -> f64 {
    let r = &scene().radar;
    r.sample_rate_hz / r.bandwidth_hz
}

#[test]
fn unweighted_range_response_matches_theory() {
    for device in [Device::cpu(), gpu()] {
        let image = compressed(&device, Window::None);
        let r = &range_cut(&image, &format!("{} none", device.name()));
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

/// Every window's measured response against its computed theory: IRW within 3 %, PSLR within
/// 0.5 dB, ISLR within 1 dB, peak within 0.1 bin of the placed delay. Returns what is off
/// (empty when all is well), so that one run reports every window.
fn check_against_theory(device: &Device, window: Window) -> Vec<String> {
    let what = format!("{} {window}", device.name());
    let image = compressed(device, window);
    let r = range_cut(&image, &what);
    let t = window.theory();
    let irw_bins = t.irw * oversampling();
    eprintln!(
        "{what}: theory IRW {irw_bins:.4} bins, PSLR {:.2} dB, ISLR {:.2} dB",
        t.pslr_db, t.islr_db
    );
    let mut off = Vec::new();
    if (r.irw_bins / irw_bins - 1.0).abs() >= 0.03 {
        off.push(format!(
            "{what}: IRW {} bins, theory {irw_bins}",
            r.irw_bins
        ));
    }
    if (r.pslr_db - t.pslr_db).abs() >= 0.5 {
        off.push(format!(
            "{what}: PSLR {} dB, theory {}",
            r.pslr_db, t.pslr_db
        ));
    }
    if (r.islr_db - t.islr_db).abs() >= 1.0 {
        off.push(format!(
            "{what}: ISLR {} dB, theory {}",
            r.islr_db, t.islr_db
        ));
    }
    if (r.peak_position - DELAY_SAMPLE).abs() >= 0.1 {
        off.push(format!("{what}: peak at {}", r.peak_position));
    }
    off
}

#[test]
fn every_window_matches_its_theory_on_the_cpu() {
    let off: Vec<String> = WINDOWS
        .iter()
        .flat_map(|&w| check_against_theory(&Device::cpu(), w))
        .collect();
    assert!(off.is_empty(), "{off:#?}");
}

#[test]
fn weighted_range_responses_match_theory_on_the_gpu() {
    let gpu = gpu();
    // Hamming, Taylor and Kaiser: the weighted filters through the fused kernel.
    let off: Vec<String> = WINDOWS[1..4]
        .iter()
        .flat_map(|&w| check_against_theory(&gpu, w))
        .collect();
    assert!(off.is_empty(), "{off:#?}");
}

#[test]
fn fused_gpu_matches_the_cpu_reference() {
    let gpu = gpu();
    for window in [Window::None, WINDOWS[2]] {
        let (on_gpu, on_cpu) = (compressed(&gpu, window), compressed(&Device::cpu(), window));
        let want = tierfft::debug::reference::widen(&on_cpu);
        let err = tierfft::debug::reference::relative_l2_error(&on_gpu, &want);
        assert!(err <= 1e-5, "{window}: fused vs CPU: {err:e}");
    }
}
