//! What the SAR tests share: the test GPU, focusing, and an unweighted target checked
//! against theory.

// Each test binary uses part of it.
#![allow(dead_code)]

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::{FocusOptions, Focuser};
use tierfft_sar::quality::metrics::{CutOptions, MetricsError, PointMetrics, analyze_point};
use tierfft_sar::scene::params::Config;

/// The GPU the tests run on: `TIERFFT_TEST_DEVICE`, lavapipe by default.
pub fn gpu() -> Device {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"))
}

/// `raw` echoes of `c`'s scene focused on `device` with `opts`.
pub fn focused(
    device: &Device,
    c: &Config,
    opts: FocusOptions,
    raw: &[Complex32],
) -> Vec<Complex32> {
    let mut data = raw.to_vec();
    Focuser::new(device, c, opts)
        .expect("plan")
        .focus(&mut data, |_| {})
        .expect("focus");
    data
}

/// Every target of `c` measured in the focused `image` (`c`'s lines × samples) where it was
/// placed, with cuts of 64 bins each side.
pub fn measure_targets(image: &[Complex32], c: &Config) -> Vec<Result<PointMetrics, MetricsError>> {
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    let (lines, samples) = (c.scene.lines, c.scene.samples);
    c.scene
        .targets
        .iter()
        .map(|t| {
            let (line, sample) = c.target_position(t);
            let at = (line.round() as usize, sample.round() as usize);
            analyze_point(image, lines, samples, at, &cuts, None)
        })
        .collect()
}

/// Checks target `t` of `c` as measured (`m`) against the unweighted theory: on its place
/// within 0.1 bin, IRW within 3 % (0.886·fs/B samples, 0.886·PRF/B_D lines), PSLR within
/// 0.3 dB of −13.26 dB, in range and azimuth.
pub fn assert_theory(c: &Config, t: usize, m: &PointMetrics, what: &str) {
    let r = &c.radar;
    let (line, sample) = c.target_position(&c.scene.targets[t]);
    let irw = (
        0.886 * r.prf_hz / r.doppler_bandwidth_hz(),
        0.886 * r.sample_rate_hz / r.bandwidth_hz,
    );
    for (cut, place, irw, axis) in [
        (&m.azimuth, line, irw.0, "azimuth"),
        (&m.range, sample, irw.1, "range"),
    ] {
        let near = |x: f64, want: f64, tol: f64| (x - want).abs() < tol;
        assert!(
            near(cut.peak_position, place, 0.1),
            "{what}, {axis}: {cut:?}"
        );
        assert!(
            near(cut.irw_bins / irw, 1.0, 0.03),
            "{what}, {axis}: {cut:?}"
        );
        assert!(near(cut.pslr_db, -13.26, 0.3), "{what}, {axis}: {cut:?}");
    }
}
