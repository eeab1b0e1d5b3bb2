//! A long strip focused in blocks of lines matches the strip focused whole: 1.6e-4 in
//! relative L2 over the image (2.4e-6 without RCMC: what is left is the interpolator's, its
//! positions rounded to 1/4096 sample and its taps jumping as a position crosses a sample,
//! at the Doppler bins of each length), every target's
//! peak within 0.1 % and position within 0.01 line, and to theory, whatever block it falls in or whether it sits on a seam.
//! With chirp scaling, which has no interpolator, 5.2e-6 (CPU) and 4.9e-6 (lavapipe): its
//! Doppler-dependent multiplies are smooth all round the PRF (`Config::moved_doppler_hz`;
//! held flat outside the band ± 10 %, their kinks left 3.3e-5).
//! Before the azimuth filter became a compact kernel (designed at one length, cut to the
//! aperture and a margin) the blocks differed by 12 %: its band-edge tails wrapped
//! differently at each length.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::Algorithm;
use tierfft_sar::focus::FocusOptions;
use tierfft_sar::focus::strip::StripFocuser;
use tierfft_sar::quality::metrics::{CutOptions, PointMetrics, analyze_point};
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

const LINES: usize = 6000;

/// Relative L2 distance of `a` from `b`.
fn distance(a: &[Complex32], b: &[Complex32]) -> f64 {
    let (mut d, mut n) = (0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        d += f64::from((x - y).norm_sqr());
        n += f64::from(y.norm_sqr());
    }
    (d / n).sqrt()
}
const SAMPLES: usize = 1024;

fn measure(c: &Config, image: &[Complex32], t: usize) -> PointMetrics {
    let (line, sample) = c.target_position(&c.scene.targets[t]);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 600,
        ..CutOptions::default()
    };
    let at = (line.round() as usize, sample.round() as usize);
    analyze_point(image, LINES, SAMPLES, at, &cuts, None).expect("measure")
}

#[test]
fn a_strip_in_blocks_focuses_every_target_as_whole() {
    // 6000 lines of an 8 m antenna (a 664-line aperture), targets all along it.
    let mut c = Config {
        scene: Scene {
            lines: LINES,
            samples: SAMPLES,
            snr_db: Some(10.0),
            seed: 3,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.antenna_m = 8.0;
    c.radar.pulse_s = 2e-6;
    let bin = c.radar.azimuth_bin_m();
    for (i, line) in [500.0, 1234.5, 2047.0, 2900.0, 4100.2, 5500.0]
        .iter()
        .enumerate()
    {
        c.scene.targets.push(Target {
            range_m: c.near_range_m() + (200 + 120 * i) as f64 * c.radar.range_bin_m(),
            azimuth_m: (line - 3000.0) * bin,
            amplitude: 1.0,
        });
    }
    let raw = simulate(&c);
    let gpu = crate::common::gpu();
    let r = &c.radar;
    let az_irw = 0.886 * r.prf_hz / r.doppler_bandwidth_hz();
    for (algorithm, device, block, within) in [
        (Algorithm::Rda, Device::cpu(), 1000, 5e-4),
        (Algorithm::Rda, gpu.clone(), 1800, 5e-4),
        (Algorithm::Csa, Device::cpu(), 1000, 1e-5),
        (Algorithm::Csa, gpu, 1800, 1e-5),
    ] {
        let opts = FocusOptions {
            algorithm,
            ..FocusOptions::default()
        };
        let whole = crate::common::focused(&Device::cpu(), &c, opts, &raw);
        let strip = StripFocuser::new(&device, &c, opts, block).expect("plan the strip");
        let mut blocks = raw.clone();
        let mut heard = Vec::new();
        strip
            .focus(&mut blocks, |done, of| heard.push((done, of)))
            .expect("focus the strip");
        let what = format!(
            "{algorithm}: {} blocks of {} lines (chunks of {}) on {}",
            strip.blocks(),
            strip.block_lines(),
            strip.chunk_lines(),
            device.name()
        );
        assert_eq!(
            heard.last(),
            Some(&(strip.blocks(), strip.blocks())),
            "{what}"
        );
        let d = distance(&blocks, &whole);
        eprintln!("{what}: relative L2 distance from the whole {d:.2e}");
        assert!(d < within, "{what}: {d:.2e} from the whole");
        for t in 0..c.scene.targets.len() {
            let (m, w) = (measure(&c, &blocks, t), measure(&c, &whole, t));
            eprintln!("{what}, target {t}: {:?}", m.azimuth);
            let peak = m.azimuth.peak_value / w.azimuth.peak_value - 1.0;
            assert!(peak.abs() < 1e-3, "{what}, target {t}: peak {peak:+.1e}");
            let moved = m.azimuth.peak_position - w.azimuth.peak_position;
            assert!(moved.abs() < 0.01, "{what}, target {t}: moved {moved}");
            assert!(
                (m.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03,
                "{what}: {m:?}"
            );
            assert!((m.azimuth.pslr_db + 13.26).abs() < 0.3, "{what}: {m:?}");
            assert!((m.range.pslr_db + 13.26).abs() < 0.3, "{what}: {m:?}");
        }
    }
}
