//! Full Range-Doppler focusing of simulated point targets against theory.

use tierfft::Device;
use tierfft_sar::focus::focus;
use tierfft_sar::metrics::{CutOptions, analyze_point};
use tierfft_sar::params::{Config, Scene, Target};
use tierfft_sar::range::Window;
use tierfft_sar::simulate::simulate;

fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: 4096,
            samples: 2048,
            snr_db: None,
            seed: 5,
            targets: vec![],
        },
        ..Config::default()
    };
    let range_m = c.near_range_m() + 1000.37 * c.radar.range_bin_m();
    c.scene.targets.push(Target {
        range_m,
        azimuth_m: 0.0,
        amplitude: 1.0,
    });
    c
}

#[test]
fn a_point_target_focuses_to_theory() {
    let c = scene();
    let mut data = simulate(&c);
    focus(&Device::Cpu, &c, &mut data, Window::None).expect("focus");
    let opts = CutOptions {
        half: 64,
        ..CutOptions::default()
    };
    let m = analyze_point(&data, 4096, 2048, (2048, 1000), &opts, None).expect("analysis");
    let az_irw = 0.886 * c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    eprintln!(
        "range {:?}\nazimuth {:?}\ntheory azimuth IRW {az_irw:.3} bins",
        m.range, m.azimuth
    );
    assert!(
        (m.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
        "range IRW {}",
        m.range.irw_bins
    );
    assert!(
        (m.range.pslr_db + 13.26).abs() < 0.5,
        "range PSLR {}",
        m.range.pslr_db
    );
    assert!(
        (m.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03,
        "azimuth IRW {}",
        m.azimuth.irw_bins
    );
    assert!(
        (m.azimuth.pslr_db + 13.26).abs() < 0.5,
        "azimuth PSLR {}",
        m.azimuth.pslr_db
    );
    assert!(
        (m.range.peak_position - 1000.37).abs() < 0.1
            && (m.azimuth.peak_position - 2048.0).abs() < 0.1
    );
}

#[test]
fn gpu_focusing_matches_the_cpu_reference() {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    let gpu = Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"));
    let c = scene();
    let raw = simulate(&c);
    let (mut on_gpu, mut on_cpu) = (raw.clone(), raw);
    focus(&gpu, &c, &mut on_gpu, Window::None).expect("GPU focus");
    focus(&Device::Cpu, &c, &mut on_cpu, Window::None).expect("CPU focus");
    let want: Vec<num_complex::Complex64> = on_cpu
        .iter()
        .map(|z| num_complex::Complex64::new(z.re.into(), z.im.into()))
        .collect();
    let err = tierfft::reference::relative_l2_error(&on_gpu, &want);
    assert!(err <= 1e-5, "GPU vs CPU focusing: {err:e}");
}
