//! Focusing fitted to a device that cannot bind the scene with its margins: the test GPU
//! (lavapipe by default) opened with 12 MiB bindings, on which a 1024 × 1024 scene (8 MiB a
//! buffer) fits but its margins do not. The planner falls back, says why, and the targets
//! still focus to theory.

use tierfft::Device;
use tierfft_sar::focus::fit::{Fitted, fit};
use tierfft_sar::focus::{FocusOptions, Focuser, Planned};
use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
use tierfft_sar::scene::doppler::Centroid;
use tierfft_sar::scene::params::{Config, Scene, Target};
use tierfft_sar::scene::simulate::simulate;

use crate::common::assert_theory;

/// The test GPU's adapter opened with bindings and buffers of at most `bytes`: lavapipe by
/// default, the first GPU adapter for `TIERFFT_TEST_DEVICE` = `gpu`, `cuda` or `auto`, else
/// the adapter whose name holds `TIERFFT_TEST_DEVICE`.
fn small_device(bytes: u64) -> Device {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let want = std::env::var("TIERFFT_TEST_DEVICE")
        .unwrap_or_else(|_| "lavapipe".into())
        .to_lowercase();
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let adapter = adapters
        .into_iter()
        .find(|a| {
            let info = a.get_info();
            match want.as_str() {
                "gpu" | "cuda" | "auto" => info.device_type != wgpu::DeviceType::Cpu,
                "lavapipe" => info.name.to_lowercase().contains("llvmpipe"),
                name => info.name.to_lowercase().contains(name),
            }
        })
        .unwrap_or_else(|| panic!("no wgpu adapter for TIERFFT_TEST_DEVICE '{want}'"));
    let mut limits = adapter.limits();
    limits.max_storage_buffer_binding_size = bytes.min(limits.max_storage_buffer_binding_size);
    limits.max_buffer_size = bytes.min(limits.max_buffer_size);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits,
        ..Default::default()
    }))
    .expect("device with small limits");
    Device::from_wgpu(&adapter, device, queue)
}

#[test]
fn a_scene_too_large_with_margins_falls_back_and_says_so() {
    let mut c = Config {
        scene: Scene {
            lines: 1024,
            samples: 1024,
            snr_db: None,
            seed: 3,
            targets: vec![Target {
                range_m: 20000.0,
                azimuth_m: 2.0,
                amplitude: 1.0,
            }],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.antenna_m = 8.0;
    c.radar.pulse_s = 2e-6;
    let device = small_device(12 << 20);
    let mut opts = FocusOptions::default();
    let fitted = fit(&device, &c, &mut opts, None, None).expect("a plan that fits");
    let why = fitted.fallback.as_deref().expect("a fallback");
    assert!(why.contains("more than") && why.contains("binds"), "{why}");
    match &fitted.focusing {
        // Blocks shorter than the aperture cannot help: at the recorded size, circularly.
        Fitted::Whole(_) => assert!(!opts.margins && why.contains("recorded size"), "{why}"),
        Fitted::Strip(_) => assert!(opts.margins && why.contains("blocks"), "{why}"),
    }
    let mut data = simulate(&c);
    fitted.focusing.focus(&mut data, |_| {}).expect("focus");
    let guess = c.target_position(&c.scene.targets[0]);
    let guess = (guess.0.round() as usize, guess.1.round() as usize);
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    let m = analyze_point(&data, 1024, 1024, guess, &cuts, None).expect("measured");
    assert_theory(&c, 0, &m, "fallback");
}

/// A plan made ahead, beside other work, focuses exactly as one made with the device; one made
/// for another scene (another Doppler centroid) is not used: the scene is planned again.
#[test]
fn a_plan_made_ahead_is_used_only_for_its_own_scene() {
    let mut c = Config::default();
    (c.radar.antenna_m, c.radar.pulse_s) = (8.0, 2e-6);
    (c.scene.lines, c.scene.samples) = (1024, 512);
    c.scene.targets.truncate(1);
    c.radar.doppler_centroid_hz = Some(Centroid::Constant(0.0));
    let device = crate::common::gpu();
    let opts = FocusOptions::default();
    let raw = simulate(&c);
    let expected = crate::common::focused(&device, &c, opts, &raw);
    let focus = |planned: Planned| {
        let focuser = Focuser::with_planned(&device, &c, opts, planned).expect("plan");
        let mut data = raw.clone();
        focuser.focus(&mut data, |_| {}).expect("focus");
        (data, focuser.planning().ahead)
    };
    let (data, ahead) = focus(Planned::new(&c, opts).expect("planned ahead"));
    assert!(ahead, "the plan made ahead was not used");
    assert_eq!(
        data, expected,
        "focused otherwise than with a plan made on the spot"
    );
    let mut other = c.clone();
    other.radar.doppler_centroid_hz = Some(Centroid::Constant(40.0));
    let (data, ahead) = focus(Planned::new(&other, opts).expect("planned ahead"));
    assert!(!ahead, "another scene's plan was used");
    assert_eq!(data, expected, "another scene's plan changed the image");
}
