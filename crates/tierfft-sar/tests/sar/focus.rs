//! Full Range-Doppler focusing of simulated point targets against theory.

use tierfft::Device;
use tierfft_sar::filters::range::Window;
use tierfft_sar::focus::Algorithm;
use tierfft_sar::focus::{FocusOptions, Focuser, focus};
use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
use tierfft_sar::quality::neighbours::{AxisResponse, IdealResponse, SceneModel};
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: 4096,
            samples: 2048,
            snr_db: None,
            seed: 5,
            targets: vec![],
            partial_aperture: false,
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

/// `raw` focused on the CPU with `opts`, and the scene's target (line 2048, sample 1000)
/// measured with cuts of ±64 samples and ±128 lines.
fn focus_and_measure(
    c: &Config,
    raw: &[num_complex::Complex32],
    opts: FocusOptions,
) -> Result<tierfft_sar::quality::metrics::PointMetrics, tierfft_sar::quality::metrics::MetricsError>
{
    let mut data = raw.to_vec();
    Focuser::new(&Device::cpu(), c, opts)
        .expect("plan")
        .focus(&mut data, |_| {})
        .expect("focus");
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 128,
        ..CutOptions::default()
    };
    analyze_point(&data, 4096, 2048, (2048, 1000), &cuts, None)
}

#[test]
fn a_point_target_focuses_to_theory() {
    let c = scene();
    let mut data = simulate(&c);
    focus(&Device::cpu(), &c, &mut data, Window::None).expect("focus");
    let opts = CutOptions {
        half: 64,
        half_azimuth: 64,
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
fn fused_unfused_and_cpu_agree() {
    // The fused GPU steps (one range kernel, column azimuth FFTs, azimuth filter fused into
    // the inverse), the same steps unfused on the GPU, and the CPU reference, on a noisy scene
    // with a Taylor window in range and Hamming in azimuth; and chirp scaling's.
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    let gpu = Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"));
    let mut c = scene();
    c.scene.snr_db = Some(20.0);
    let raw = simulate(&c);
    let run = |device: &Device, fused: bool, algorithm: Algorithm| {
        let opts = FocusOptions {
            range_window: Window::parse("taylor").expect("window"),
            azimuth_window: Window::Hamming,
            fused,
            algorithm,
            ..FocusOptions::default()
        };
        let mut data = raw.clone();
        Focuser::new(device, &c, opts)
            .expect("plan")
            .focus(&mut data, |_| {})
            .expect("focus");
        data
    };
    let cpu = run(&Device::cpu(), true, Algorithm::Rda);
    let want = tierfft::debug::reference::widen(&cpu);
    let snr = |image: &[num_complex::Complex32]| {
        let opts = CutOptions {
            half: 64,
            half_azimuth: 64,
            ..CutOptions::default()
        };
        let noise = Some((0..512, 0..256));
        analyze_point(image, 4096, 2048, (2048, 1000), &opts, noise)
            .expect("analysis")
            .peak_snr_db
            .expect("snr")
    };
    let cpu_snr = snr(&cpu);
    for fused in [true, false] {
        let image = run(&gpu, fused, Algorithm::Rda);
        let err = tierfft::debug::reference::relative_l2_error(&image, &want);
        let gpu_snr = snr(&image);
        eprintln!("fused {fused}: error vs CPU {err:e}, SNR {gpu_snr:.3} vs {cpu_snr:.3} dB");
        assert!(err <= 1e-5, "fused {fused}: GPU vs CPU focusing: {err:e}");
        assert!(
            (gpu_snr - cpu_snr).abs() <= 0.05,
            "fused {fused}: SNR {gpu_snr} vs {cpu_snr}"
        );
    }
    // Chirp scaling's steps unfused on the GPU against its fused kernels on the CPU.
    let cpu = run(&Device::cpu(), true, Algorithm::Csa);
    let image = run(&gpu, false, Algorithm::Csa);
    let err = tierfft::debug::reference::relative_l2_error(
        &image,
        &tierfft::debug::reference::widen(&cpu),
    );
    eprintln!("chirp scaling unfused: error vs CPU {err:e}");
    assert!(err <= 1e-5, "chirp scaling, unfused GPU vs CPU: {err:e}");
}

#[test]
fn rcmc_corrects_large_migration() {
    // L band (24 cm) at 3 km: the 2 m antenna's 0.106 rad beam makes a 319 m aperture and
    // R·θ²/8 = 4.2 m (3.4 range bins) of migration. With RCMC the target focuses to theory;
    // without it the azimuth response smears.
    let mut c = scene();
    c.radar.carrier_hz = 1.25e9;
    c.radar.near_range_m = Some(3000.0 - 1000.0 * c.radar.range_bin_m());
    c.scene.targets[0].range_m = c.near_range_m() + 1000.37 * c.radar.range_bin_m();
    c.validate().expect("valid");
    let az_irw = 0.886 * c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    let raw = simulate(&c);
    let measure = |rcmc: bool| {
        let opts = FocusOptions {
            rcmc,
            ..FocusOptions::default()
        };
        focus_and_measure(&c, &raw, opts)
    };
    let on = measure(true).expect("analysis");
    eprintln!("with RCMC: range {:?}\nazimuth {:?}", on.range, on.azimuth);
    assert!(
        (on.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03,
        "{:?}",
        on.azimuth
    );
    assert!((on.azimuth.pslr_db + 13.26).abs() < 0.5, "{:?}", on.azimuth);
    assert!(
        (on.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
        "{:?}",
        on.range
    );
    assert!(
        (on.range.peak_position - 1000.37).abs() < 0.1,
        "{:?}",
        on.range
    );
    // Without RCMC the cut may not even have a proper mainlobe; if it does, it is far off.
    match measure(false) {
        Err(e) => eprintln!("without RCMC: {e}"),
        Ok(off) => {
            eprintln!(
                "without RCMC: range {:?}\nazimuth {:?}",
                off.range, off.azimuth
            );
            assert!(
                off.azimuth.irw_bins / az_irw > 1.1 || off.azimuth.pslr_db > -11.0,
                "{:?}",
                off.azimuth
            );
        }
    }
}

#[test]
fn weighted_azimuth_sidelobes_match_theory() {
    // The azimuth chirp is cut off hard at the beam edges, so its spectrum ripples; the filter
    // divides that out (crate::azimuth). Equalised, Taylor and Hamming azimuth sidelobes are
    // the windows' own; phase-only, the ripple lifts Taylor's by about 2 dB.
    let c = scene();
    let raw = simulate(&c);
    let azimuth = |window: Window, equalise: bool| {
        let opts = FocusOptions {
            azimuth_window: window,
            azimuth_equalisation: equalise,
            ..FocusOptions::default()
        };
        focus_and_measure(&c, &raw, opts).expect("analysis").azimuth
    };
    let az_irw = 0.886 * c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    for window in [Window::parse("taylor").expect("window"), Window::Hamming] {
        let theory = window.theory();
        let got = azimuth(window, true);
        eprintln!("{window}: {got:?}, theory {theory:?}");
        assert!(
            (got.pslr_db - theory.pslr_db).abs() < 0.5,
            "{window}: {got:?}"
        );
        // IRW relative to the unweighted one, as the theory's IRW is in units of 1/B.
        let irw = got.irw_bins / az_irw * 0.886;
        assert!((irw / theory.irw - 1.0).abs() < 0.03, "{window}: IRW {irw}");
        assert!((got.peak_position - 2048.0).abs() < 0.1, "{got:?}");
    }
    let taylor = Window::parse("taylor").expect("window");
    let phase_only = azimuth(taylor, false);
    assert!(
        phase_only.pslr_db - taylor.theory().pslr_db > 1.0,
        "phase-only filter: {phase_only:?}"
    );
}

#[test]
fn the_reference_pair_measured_alone_meets_theory() {
    // The reference scene puts two targets in one range bin 50 lines (4.4/B_D) apart: in phase,
    // each lies in the other's sidelobes and comes out 6 % narrow. With the other's modelled
    // response taken out (tierfft_sar::quality::neighbours), each meets the unweighted targets.
    let mut c = scene();
    let first = c.scene.targets[0].clone();
    c.scene.targets.push(Target {
        azimuth_m: 50.0 * c.radar.azimuth_bin_m(),
        ..first
    });
    let mut data = simulate(&c);
    focus(&Device::cpu(), &c, &mut data, Window::None).expect("focus");
    let per_unit = c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    let response = IdealResponse {
        azimuth: AxisResponse {
            window: Window::None,
            samples_per_unit: per_unit,
            carrier: 0.0,
        },
        range: AxisResponse {
            window: Window::None,
            samples_per_unit: c.radar.sample_rate_hz / c.radar.bandwidth_hz,
            carrier: 0.0,
        },
    };
    let placed = [(2048.0, 1000.37), (2098.0, 1000.37)];
    let model = SceneModel::fit(&data, 4096, 2048, &response, &placed).expect("fit");
    let az_irw = 0.886 * per_unit;
    for (k, &(line, sample)) in placed.iter().enumerate() {
        let guess = (line as usize, 1000);
        // As imaged, the cut ends two IRWs before the neighbour.
        let short = CutOptions {
            half: 64,
            half_azimuth: 30,
            ..CutOptions::default()
        };
        let imaged = analyze_point(&data, 4096, 2048, guess, &short, None).expect("as imaged");
        assert!(imaged.azimuth.irw_bins / az_irw < 0.95, "{imaged:?}");
        let cuts = CutOptions {
            half: 64,
            half_azimuth: 200,
            ..CutOptions::default()
        };
        let m = model
            .analyze_alone(&data, 4096, 2048, k, guess, &cuts, None)
            .expect("alone");
        eprintln!("target {k}: as imaged {:?}\nalone {m:?}", imaged.azimuth);
        assert!((m.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03, "{m:?}");
        assert!((m.azimuth.pslr_db + 13.26).abs() < 0.5, "{m:?}");
        assert!((m.azimuth.islr_db + 9.68).abs() < 1.0, "{m:?}");
        assert!((m.azimuth.peak_position - line).abs() < 0.02, "{m:?}");
        assert!((m.range.peak_position - sample).abs() < 0.02, "{m:?}");
        assert!((m.range.irw_bins / 1.063 - 1.0).abs() < 0.03, "{m:?}");
    }
}
