//! The SAR configuration: any text either fails to parse or validate with an error, or gives
//! a scene whose memory needs and processing extent are computed without overflow, and which
//! (when small) is simulated and focused on the CPU.

use tierfft::Device;
use tierfft_sar::focus::{FocusOptions, Focuser, memory_needs};
use tierfft_sar::scene::extent::Extent;
use tierfft_sar::scene::params::{Config, DefaultTargets};
use tierfft_sar::scene::simulate::simulate;

/// Largest scene (lines × samples, with margins) focused per input.
const FOCUS_POINTS: usize = 1 << 14;
/// Most targets simulated per input.
const FOCUS_TARGETS: usize = 8;

/// Parses `data` as `tierfft sar --config` does, validates it, and plans (and for small
/// scenes runs) the focusing.
pub fn sar_config(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    for targets in [DefaultTargets::Keep, DefaultTargets::Drop] {
        let Ok(config) = Config::parse_toml(text, targets) else {
            continue;
        };
        if config.validate().is_err() {
            continue;
        }
        let device = Device::cpu();
        let opts = FocusOptions::default();
        let extent = Extent::of(&config, opts.margins);
        // A scene too large for the address space is None here, and refused by the command.
        let Some(_) = memory_needs(&config, &device, &extent, &opts) else {
            continue;
        };
        let processed = extent.processing_config(&config);
        let points = processed
            .scene
            .lines
            .saturating_mul(processed.scene.samples);
        if points > FOCUS_POINTS || config.scene.targets.len() > FOCUS_TARGETS {
            continue;
        }
        let mut raw = simulate(&config);
        if raw.len() != config.scene.lines * config.scene.samples {
            return Err(format!(
                "simulate returned {} samples for a {} × {} scene",
                raw.len(),
                config.scene.lines,
                config.scene.samples
            ));
        }
        // Refusing the scene is fine (e.g. an aperture longer than it); panicking is not.
        if let Ok(focuser) = Focuser::new(&device, &config, opts) {
            let _ = focuser.focus(&mut raw, |_| {});
        }
    }
    Ok(())
}
