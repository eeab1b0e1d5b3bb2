//! Scenes of any size, processed with margins at efficient FFT lengths and cropped back
//! (`tierfft_sar::scene::extent`): a 3000 × 2500 scene focuses to theory on the CPU and the GPU
//! (lavapipe unless TIERFFT_TEST_DEVICE says otherwise), and targets at the scene's edges do
//! not leak into the opposite edge as they do when the scene is processed circularly.

use num_complex::Complex32;
use tierfft::Device;
use tierfft_sar::focus::{FocusOptions, Focuser};
use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
use tierfft_sar::scene::extent::Extent;
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

const LINES: usize = 3000;
const SAMPLES: usize = 2500;

/// A 3000 × 2500 scene with one target at (line, sample).
fn scene(line: f64, sample: f64) -> Config {
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
    let r = &c.radar;
    let target = Target {
        range_m: c.near_range_m() + sample * r.range_bin_m(),
        azimuth_m: (line - LINES as f64 / 2.0) * r.azimuth_bin_m(),
        amplitude: 1.0,
    };
    c.scene.targets.push(target);
    c
}

fn focused(device: &Device, c: &Config, margins: bool) -> Vec<Complex32> {
    let opts = FocusOptions {
        margins,
        ..FocusOptions::default()
    };
    let mut data = simulate(c);
    let focuser = Focuser::new(device, c, opts).expect("plan");
    focuser.focus(&mut data, |_| {}).expect("focus");
    data
}

fn gpu() -> Device {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_else(|_| "lavapipe".into());
    Device::by_name(&name).unwrap_or_else(|e| panic!("GPU tests need a device: {e}"))
}

#[test]
fn a_3000_by_2500_scene_focuses_to_theory() {
    let c = scene(1500.0, 1200.37);
    let e = Extent::of(&c, true);
    eprintln!("processed at {} × {}", e.padded_lines, e.padded_samples);
    assert!(!e.is_recorded_size());
    let cpu = focused(&Device::cpu(), &c, true);
    assert_eq!(cpu.len(), LINES * SAMPLES);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    let m = analyze_point(&cpu, LINES, SAMPLES, (1500, 1200), &cuts, None).expect("analysis");
    let az_irw = 0.886 * c.radar.prf_hz / c.radar.doppler_bandwidth_hz();
    eprintln!("range {:?}\nazimuth {:?}", m.range, m.azimuth);
    assert!(
        (m.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
        "{:?}",
        m.range
    );
    assert!((m.range.pslr_db + 13.26).abs() < 0.5, "{:?}", m.range);
    assert!(
        (m.azimuth.irw_bins / az_irw - 1.0).abs() < 0.03,
        "{:?}",
        m.azimuth
    );
    assert!((m.azimuth.pslr_db + 13.26).abs() < 0.5, "{:?}", m.azimuth);
    assert!((m.range.peak_position - 1200.37).abs() < 0.1);
    assert!((m.azimuth.peak_position - 1500.0).abs() < 0.1);
    // The fused GPU steps give the same image.
    let gpu = focused(&gpu(), &c, true);
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (a, b) in gpu.iter().zip(&cpu) {
        diff += f64::from((a - b).norm_sqr());
        norm += f64::from(b.norm_sqr());
    }
    let err = (diff / norm).sqrt();
    assert!(err < 1e-4, "GPU against CPU: relative error {err:e}");
}

/// `raw` (`LINES` × `SAMPLES`) with `lines` × `samples` of zeros around it (after its last
/// line and sample), focused circularly, cropped back: the linear convolutions' result when
/// the zeros are many.
fn focused_padded_by_hand(
    c: &Config,
    raw: &[Complex32],
    lines: usize,
    samples: usize,
) -> Vec<Complex32> {
    let mut big = c.clone();
    big.radar.near_range_m = Some(c.near_range_m());
    big.scene.lines = lines;
    big.scene.samples = samples;
    big.scene.targets.clear();
    let mut data = vec![Complex32::new(0.0, 0.0); lines * samples];
    for (from, into) in raw.chunks(SAMPLES).zip(data.chunks_mut(samples)) {
        into[..SAMPLES].copy_from_slice(from);
    }
    let opts = FocusOptions {
        margins: false,
        ..FocusOptions::default()
    };
    let focuser = Focuser::new(&Device::cpu(), &big, opts).expect("plan");
    focuser.focus(&mut data, |_| {}).expect("focus");
    data.chunks(samples)
        .take(LINES)
        .flat_map(|line| line[..SAMPLES].to_vec())
        .collect()
}

/// The strongest value in rows `lines`, columns `samples` of `image`, against the image's
/// peak, dB.
fn leak_db(
    image: &[Complex32],
    lines: std::ops::Range<usize>,
    samples: std::ops::Range<usize>,
) -> f64 {
    let peak = image.iter().map(|z| z.norm_sqr()).fold(0.0, f32::max);
    let most = lines
        .flat_map(|l| samples.clone().map(move |s| l * SAMPLES + s))
        .map(|i| image[i].norm_sqr())
        .fold(0.0, f32::max);
    10.0 * f64::from(most / peak).log10()
}

#[test]
fn edge_targets_focus_as_in_an_unbounded_scene() {
    // A target near the far range edge and one near the last line, whose responses reach
    // past the scene: circularly, their chirp and aperture wrap into the opposite edges
    // (-63 and -26 dB of the peak); with margins what reaches there is close to what the
    // scene focused inside a sea of zeros gives.
    let mut c = scene(1500.0, SAMPLES as f64 - 150.0);
    let second = scene(LINES as f64 - 100.0, 1200.0).scene.targets[0].clone();
    c.scene.targets.push(second);
    let raw = simulate(&c);
    let want = focused_padded_by_hand(&c, &raw, 2 * LINES, 2 * SAMPLES);
    let cpu = Device::cpu();
    let with = focused(&cpu, &c, true);
    let without = focused(&cpu, &c, false);
    // The near samples beside the first target, the first lines below the second.
    for (what, lines, samples) in [
        ("near range", 1400..1600, 0..100),
        ("first lines", 0..100, 1150..1250),
    ] {
        let [w, o, r] =
            [&with, &without, &want].map(|i| leak_db(i, lines.clone(), samples.clone()));
        eprintln!("{what}: {w:.1} dB with margins, {o:.1} dB circular, {r:.1} dB unbounded");
        // The echoes no longer wrap; what is left past the edge is the filters' own
        // band-limited (sinc) tails, periodic over the processed length rather than the
        // unbounded one's (-73 against -87 dB in range, -48 against -56 in azimuth).
        assert!(o > w + 8.0 && w < r + 15.0, "{what}: {w} / {o} / {r}");
    }
}
