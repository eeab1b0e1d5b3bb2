//! Focusing spread over ranks (`DistFocuser`) against one device's `Focuser` on the same
//! echoes: 3 CPU ranks (uneven blocks, RCMC halos crossing block edges; chirp scaling and
//! SRC, which exchange back to lines and to range bins again) in CI; CUDA ranks
//! sharing the test GPU through host memory when TIERFFT_TEST_DEVICE names a CUDA device,
//! and over NCCL on TIERFFT_TEST_GPUS GPUs.

use std::sync::Arc;

use num_complex::Complex32;
use tierfft::distributed::{Exchange, LocalExchange};
use tierfft::{Device, DeviceKind};
use tierfft_sar::focus::distributed::DistFocuser;
use tierfft_sar::focus::{Algorithm, FocusOptions, Focuser};
use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

/// 4096 lines × 2048 range bins with targets near the ends of the swath and in the middle,
/// where the migration is largest, so that RCMC reads across the ranks' block edges.
fn scene() -> Config {
    let mut c = Config {
        scene: Scene {
            lines: 4096,
            samples: 2048,
            snr_db: None,
            seed: 9,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    for (bin, azimuth_m) in [
        (40.3, -60.0),
        (1000.37, 0.0),
        (1500.6, 30.0),
        (2000.2, -20.0),
    ] {
        c.scene.targets.push(Target {
            range_m: c.near_range_m() + bin * c.radar.range_bin_m(),
            azimuth_m,
            amplitude: 1.0,
        });
    }
    c
}

fn relative_difference(a: &[Complex32], b: &[Complex32]) -> f64 {
    let num: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from((x - y).norm_sqr()))
        .sum();
    let den: f64 = b.iter().map(|y| f64::from(y.norm_sqr())).sum();
    (num / den).sqrt()
}

/// Focuses `raw` with `dist` and checks the image against `reference` and the target in the
/// middle of the swath against theory's range IRW.
fn check(dist: &DistFocuser, raw: &[Complex32], reference: &[Complex32], what: &str) {
    let mut image = vec![Complex32::new(f32::NAN, f32::NAN); raw.len()];
    image.copy_from_slice(raw);
    let t = dist
        .focus(&mut image)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let diff = relative_difference(&image, reference);
    eprintln!("{what}: relative difference {diff:.2e} from one device; {t:?}");
    // The same samples through the same kernels: the same image, bit for bit.
    assert!(diff == 0.0, "{what}: relative difference {diff:e}");
    let cuts = CutOptions {
        half: 32,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    let m = analyze_point(&image, 4096, 2048, (2048, 1000), &cuts, None).expect("analysis");
    assert!(
        (m.range.irw_bins / 1.063 - 1.0).abs() < 0.03,
        "{what}: {:?}",
        m.range
    );
}

fn reference(device: &Device, c: &Config, raw: &[Complex32]) -> Vec<Complex32> {
    reference_with(device, c, FocusOptions::default(), raw)
}

fn reference_with(
    device: &Device,
    c: &Config,
    opts: FocusOptions,
    raw: &[Complex32],
) -> Vec<Complex32> {
    let mut image = raw.to_vec();
    Focuser::new(device, c, opts)
        .expect("plan")
        .focus(&mut image, |_| {})
        .expect("focus");
    image
}

#[test]
fn cpu_ranks_focus_as_one_device() {
    let c = scene();
    let raw = simulate(&c);
    let want = reference(&Device::cpu(), &c, &raw);
    let dist = DistFocuser::on_cpu(&c, FocusOptions::default(), 3).expect("plan");
    assert!(dist.slabs().halo > 8, "halo {}", dist.slabs().halo);
    check(&dist, &raw, &want, "3 CPU ranks");
    // Exchanges handed over in another order: ranks follow their exchanges.
    let mut exchanges: Vec<Box<dyn Exchange>> = LocalExchange::group(3)
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Exchange>)
        .collect();
    exchanges.rotate_left(1);
    let rotated = DistFocuser::new(
        &c,
        FocusOptions::default(),
        vec![Device::cpu(); 3],
        exchanges,
    )
    .expect("plan");
    check(&rotated, &raw, &want, "3 CPU ranks, exchanges rotated");
    // A scene already on the ranks' devices (at the processed extent): each rank's lines
    // in, its range bins out, left there; joined and cropped, the same image.
    let e = dist.extent();
    let (padded, samples) = (e.pad(&raw), e.padded_samples);
    let mut scenes: Vec<_> = (0..3)
        .map(|r| {
            let rows = dist.slabs().rows(r);
            Device::cpu()
                .upload(&padded[rows.start * samples..rows.end * samples])
                .expect("upload")
        })
        .collect();
    let (parts, _) = dist
        .focus_buffers(&mut scenes)
        .expect("focus on the devices");
    let mut joined = vec![Complex32::new(f32::NAN, f32::NAN); padded.len()];
    for (r, part) in parts.iter().enumerate() {
        let own = dist.slabs().own_cols(r);
        let values = part.download().expect("download");
        for (row, got) in joined.chunks_mut(samples).zip(values.chunks(own.len())) {
            row[own.clone()].copy_from_slice(got);
        }
    }
    let mut image = raw.clone();
    e.crop(&joined, &mut image);
    assert_eq!(relative_difference(&image, &want), 0.0);
    assert!(dist.focus_buffers(&mut scenes[..2]).is_err());
    let mut short: Vec<_> = (0..3)
        .map(|_| Device::cpu().zeros(5).expect("zeros"))
        .collect();
    let err = dist.focus_buffers(&mut short).expect_err("short scenes");
    assert!(err.to_string().contains("lines hold 5 samples"), "{err}");
}

/// Chirp scaling, and the Range-Doppler algorithm with SRC: their range-Doppler range
/// filters need whole lines after the azimuth FFT, so the ranks exchange lines for range
/// bins, back, and for bins again (with SRC, the last with RCMC's halo); the image is one
/// device's.
#[test]
fn cpu_ranks_focus_chirp_scaling_and_src_as_one_device() {
    let c = scene();
    let raw = simulate(&c);
    let csa = FocusOptions {
        algorithm: Algorithm::Csa,
        ..FocusOptions::default()
    };
    let src = FocusOptions {
        src: Some(true),
        ..FocusOptions::default()
    };
    for (opts, what) in [(csa, "chirp scaling"), (src, "Range-Doppler with SRC")] {
        let want = reference_with(&Device::cpu(), &c, opts, &raw);
        let dist = DistFocuser::on_cpu(&c, opts, 3).expect("plan");
        assert!(dist.plan().src(), "{what}: {}", dist.plan());
        check(&dist, &raw, &want, &format!("3 CPU ranks, {what}"));
    }
}

#[test]
fn cuda_ranks_focus_as_one_device() {
    let name = std::env::var("TIERFFT_TEST_DEVICE").unwrap_or_default();
    let Some(gpu) = Device::by_name(&name)
        .ok()
        .filter(|d| d.kind() == DeviceKind::Cuda)
    else {
        eprintln!("skipped: TIERFFT_TEST_DEVICE names no CUDA device");
        return;
    };
    let c = scene();
    let raw = simulate(&c);
    let want = reference(&gpu, &c, &raw);
    let exchanges = LocalExchange::group(2)
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Exchange>)
        .collect();
    let shared = vec![gpu.clone(); 2];
    let dist = DistFocuser::new(&c, FocusOptions::default(), shared, exchanges).expect("plan");
    check(&dist, &raw, &want, "2 ranks on one GPU");
    let gpus: usize = std::env::var("TIERFFT_TEST_GPUS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if gpus > 0 {
        let devices: Vec<_> = (0..gpus)
            .map(|i| Arc::new(tierfft::backend::cuda::CudaDevice::open(i).expect("open GPU")))
            .collect();
        let dist = DistFocuser::on_cuda(&c, FocusOptions::default(), &devices).expect("plan");
        check(&dist, &raw, &want, &format!("{gpus} GPUs over NCCL"));
    }
}
