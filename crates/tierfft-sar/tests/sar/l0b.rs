//! The NISAR L0B reader: on the real ALOS-1 PALSAR chip in `../shared/data` (skipped with a
//! message where that folder is absent), on products written here in the same layout
//! (every field as the reader expects, then one missing or mistyped at a time), and on
//! truncated and corrupted files: errors that name what is wrong, never a panic.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hdf5_pure::{AttrValue, CompoundTypeBuilder, FileBuilder, GroupBuilder};
use num_complex::Complex32;
use tierfft_sar::product::nisar::{Channel, L0b};
use tierfft_sar::product::{LookSide, RawProduct};

/// The shared test data folder: `TIERFFT_DATA`, else `shared/data` beside the repository.
pub fn data_dir() -> PathBuf {
    match std::env::var_os("TIERFFT_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    }
}

/// The real chip, or `None` (said on stderr) where it is absent.
pub fn chip() -> Option<PathBuf> {
    let path = data_dir().join("alos1_palsar_l0b_chip.h5");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (set TIERFFT_DATA to the folder holding \
             alos1_palsar_l0b_chip.h5)",
            path.display()
        );
        None
    }
}

/// A dataset to write: its values and shape, and its attributes.
#[derive(Clone)]
pub enum Data {
    F64(Vec<f64>, Vec<u64>),
    F32(Vec<f32>, Vec<u64>),
    I64(Vec<i64>, Vec<u64>),
    Text(String),
    /// BFPQ codes `(r, i)`, `[pulses, samples]`.
    Codes(Vec<(u16, u16)>, [u64; 2]),
}

/// A product's datasets by path, with attributes, written as HDF5 by [`Product::bytes`].
#[derive(Clone, Default)]
pub struct Product {
    pub items: BTreeMap<String, (Data, Vec<(String, AttrValue)>)>,
}

impl Product {
    pub fn set(&mut self, path: &str, data: Data) {
        self.items.insert(path.to_string(), (data, Vec::new()));
    }

    pub fn attr(&mut self, path: &str, name: &str, value: AttrValue) {
        let item = self
            .items
            .get_mut(path)
            .expect("attribute on a written dataset");
        item.1.push((name.to_string(), value));
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut fb = FileBuilder::new();
        let items: Vec<(Vec<String>, &(Data, Vec<(String, AttrValue)>))> = self
            .items
            .iter()
            .map(|(p, d)| (p.split('/').map(str::to_string).collect(), d))
            .collect();
        let mut top: BTreeMap<String, Vec<_>> = BTreeMap::new();
        for (mut parts, d) in items {
            let head = parts.remove(0);
            top.entry(head).or_default().push((parts, d));
        }
        for (name, items) in top {
            let mut g = fb.create_group(&name);
            fill(&mut g, items);
            fb.add_group(g.finish());
        }
        fb.finish().expect("HDF5 written")
    }
}

type Items<'a> = Vec<(Vec<String>, &'a (Data, Vec<(String, AttrValue)>))>;

fn fill(g: &mut GroupBuilder, items: Items) {
    let mut sub: BTreeMap<String, Items> = BTreeMap::new();
    for (mut parts, d) in items {
        if parts.len() > 1 {
            let head = parts.remove(0);
            sub.entry(head).or_default().push((parts, d));
            continue;
        }
        let (data, attrs) = d;
        let ds = g.create_dataset(&parts[0]);
        match data {
            Data::F64(v, s) => ds.with_f64_data(v).with_shape(s),
            Data::F32(v, s) => ds.with_f32_data(v).with_shape(s),
            Data::I64(v, s) => ds.with_i64_data(v).with_shape(s),
            Data::Text(t) => ds.with_strings(&[t.as_str()]).expect("a string dataset"),
            Data::Codes(c, shape) => {
                let dt = CompoundTypeBuilder::new()
                    .u16_field("r")
                    .u16_field("i")
                    .build()
                    .expect("compound type");
                let bytes = c
                    .iter()
                    .flat_map(|&(r, i)| [r.to_le_bytes(), i.to_le_bytes()].concat())
                    .collect();
                ds.with_compound_data(dt, bytes, c.len() as u64)
                    .with_shape(shape)
                    .with_chunks(&[shape[0].min(64), shape[1].min(256)])
                    .with_deflate(4)
            }
        };
        for (name, value) in attrs {
            ds.set_attr(name, value.clone());
        }
    }
    for (name, items) in sub {
        let mut child = g.create_group(&name);
        fill(&mut child, items);
        g.add_group(child.finish());
    }
}

/// The BFPQ table the tests write: code `c` means `(c − 32768) · step`.
pub fn linear_lut(step: f32) -> Vec<f32> {
    (0..65536).map(|c| (c as f32 - 32768.0) * step).collect()
}

/// The code of `x` in [`linear_lut`]`(step)`.
pub fn encode(x: f32, step: f32) -> u16 {
    ((x / step).round() + 32768.0).clamp(0.0, 65535.0) as u16
}

/// Where the swath's fields lie.
pub const TX: &str = "science/LSAR/RRSD/swaths/frequencyA/txH";

/// A complete product of `pulses × samples` echoes `echoes` (complex, quantised with
/// `step`): L band, a right-looking satellite in a circular orbit, times from
/// 2011-01-13 00:00:00.
pub fn product(pulses: usize, samples: usize, echoes: &[Complex32], step: f32) -> Product {
    let mut p = Product::default();
    let (n, s) = (pulses as u64, samples as u64);
    let scalar = |v: f64| Data::F64(vec![v], vec![]);
    let epoch = "seconds since 2011-01-13 00:00:00";
    p.set(&format!("{TX}/centerFrequency"), scalar(1.27e9));
    p.set(&format!("{TX}/chirpSlope"), scalar(-5.185e11));
    p.set(&format!("{TX}/chirpDuration"), scalar(27e-6));
    p.set(&format!("{TX}/rangeBandwidth"), scalar(14e6));
    p.set(&format!("{TX}/nominalAcquisitionPRF"), scalar(2150.0));
    p.set(
        &format!("{TX}/numberOfSubSwaths"),
        Data::I64(vec![1], vec![]),
    );
    let spacing = 299_792_458.0 / (2.0 * 16e6);
    let ranges = (0..samples).map(|k| 850e3 + spacing * k as f64).collect();
    p.set(&format!("{TX}/slantRange"), Data::F64(ranges, vec![s]));
    let times = (0..pulses).map(|i| 9000.0 + i as f64 / 2150.0).collect();
    p.set(&format!("{TX}/UTCtime"), Data::F64(times, vec![n]));
    p.attr(
        &format!("{TX}/UTCtime"),
        "units",
        AttrValue::String(epoch.into()),
    );
    let windows = (0..pulses).flat_map(|_| [0, samples as i64]).collect();
    p.set(
        &format!("{TX}/validSamplesSubSwath1"),
        Data::I64(windows, vec![n, 2]),
    );
    p.set(
        &format!("{TX}/txPhase"),
        Data::F32(vec![0.0; pulses], vec![n, 1]),
    );
    p.set(
        &format!("{TX}/rxH/attenuation"),
        Data::F32(vec![1.0; pulses], vec![n, 1]),
    );
    p.set(
        &format!("{TX}/rxH/BFPQLUT"),
        Data::F32(linear_lut(step), vec![65536]),
    );
    let codes = echoes
        .iter()
        .map(|z| (encode(z.re, step), encode(z.im, step)))
        .collect();
    p.set(&format!("{TX}/rxH/HH"), Data::Codes(codes, [n, s]));
    let ident = "science/LSAR/identification";
    p.set(&format!("{ident}/missionId"), Data::Text("TEST".into()));
    p.set(
        &format!("{ident}/lookDirection"),
        Data::Text("Right".into()),
    );
    // A circular polar orbit of radius 7.07e6 m, one vector a minute from 8400 s.
    let (r, w) = (7.07e6, 1.0e-3);
    let orbit = "science/LSAR/RRSD/lowRateTelemetry/orbit";
    let t: Vec<f64> = (0..30).map(|i| 8400.0 + 60.0 * i as f64).collect();
    let pos = t
        .iter()
        .flat_map(|&t| [r * (w * t).cos(), 0.0, r * (w * t).sin()])
        .collect();
    let vel = t
        .iter()
        .flat_map(|&t| [-r * w * (w * t).sin(), 0.0, r * w * (w * t).cos()])
        .collect();
    p.set(&format!("{orbit}/time"), Data::F64(t, vec![30]));
    p.attr(
        &format!("{orbit}/time"),
        "units",
        AttrValue::String(epoch.into()),
    );
    p.set(&format!("{orbit}/position"), Data::F64(pos, vec![30, 3]));
    p.set(&format!("{orbit}/velocity"), Data::F64(vel, vec![30, 3]));
    p
}

fn random_echoes(pulses: usize, samples: usize) -> Vec<Complex32> {
    let mut state = 12345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    (0..pulses * samples)
        .map(|_| Complex32::new(next() * 20.0, next() * 20.0))
        .collect()
}

#[test]
fn the_alos_chip_reads_as_its_readme_describes() {
    let Some(path) = chip() else { return };
    let l0b = L0b::open(&path, None).expect("the chip opens");
    let d = l0b.description();
    assert_eq!((d.pulses(), d.samples()), (1000, 2200));
    assert_eq!(d.mission, "ALOS");
    assert_eq!(d.channel, "frequencyA HH");
    assert_eq!(d.look, LookSide::Right);
    assert!((d.carrier_hz - 1_269_999_750.0).abs() < 1.0);
    assert!(
        (d.chirp_slope_hz_per_s + 5.185e11).abs() < 1e9,
        "falling chirp"
    );
    assert!((d.pulse_s - 27e-6).abs() < 1e-12 && (d.bandwidth_hz - 14e6).abs() < 1.0);
    assert!((d.prf_hz - 2150.538).abs() < 1e-3);
    // 9.3685 m between samples: c / (2 · 9.3685 m) = 16 MHz.
    assert!(
        (d.sample_rate_hz - 16e6).abs() < 2e3,
        "{}",
        d.sample_rate_hz
    );
    assert!((d.near_range_m() - 847_166.0).abs() < 1.0);
    // The valid windows (0..5194 in the file) clipped to the 2200 samples of the chip.
    assert!(d.valid.iter().all(|w| *w == (0..2200)));
    // Pulses a PRI apart, within the orbit's span.
    let pri = (d.pulse_times_s[999] - d.pulse_times_s[0]) / 999.0;
    assert!((pri * d.prf_hz - 1.0).abs() < 1e-6, "{pri}");
    let state = d
        .orbit
        .at(d.pulse_times_s[500])
        .expect("orbit covers the pulses");
    let radius = state.position_m.iter().map(|x| x * x).sum::<f64>().sqrt();
    let speed = state.velocity_mps.iter().map(|x| x * x).sum::<f64>().sqrt();
    assert!((7.0e6..7.1e6).contains(&radius), "{radius}");
    assert!((7.4e3..7.7e3).contains(&speed), "{speed}");
    assert!(d.orbit.accelerations_mps2.is_some() && d.attitude.is_some());
    // The decoded echoes: each code through the table, as numpy's lut[code] gives it (the
    // chip's codes are 0..31 and its table's first values −15.5, −14.5, ...).
    let all = l0b.read_all().expect("read");
    assert_eq!(all.len(), 2_200_000);
    let mean_power = all.iter().map(|z| z.norm_sqr() as f64).sum::<f64>() / all.len() as f64;
    assert!((50.0..200.0).contains(&mean_power), "{mean_power}");
    assert!(
        all.iter()
            .all(|z| z.re.fract().abs() == 0.5 && z.im.fract().abs() == 0.5)
    );
    let mut block = vec![Complex32::default(); 7 * 2200];
    l0b.read_pulses(993, &mut block).expect("last block");
    assert_eq!(block[..], all[993 * 2200..]);
    assert!(l0b.read_pulses(994, &mut block).is_err(), "past the end");
}

#[test]
fn a_written_product_reads_back_its_echoes() {
    let (pulses, samples, step) = (40, 96, 1.0 / 64.0);
    let echoes = random_echoes(pulses, samples);
    let mut p = product(pulses, samples, &echoes, step);
    // Pulse 3's valid window is 10..90: the rest reads as zero.
    let path = format!("{TX}/validSamplesSubSwath1");
    let mut windows: Vec<i64> = (0..pulses).flat_map(|_| [0, samples as i64]).collect();
    windows[6..8].copy_from_slice(&[10, 90]);
    p.set(&path, Data::I64(windows, vec![pulses as u64, 2]));
    let l0b = L0b::from_bytes(p.bytes(), "written.h5", None).expect("opens");
    let got = l0b.read_all().expect("read");
    for (k, (g, e)) in got.iter().zip(&echoes).enumerate() {
        let (line, sample) = (k / samples, k % samples);
        let want = match line == 3 && !(10..90).contains(&sample) {
            true => Complex32::default(),
            false => *e,
        };
        assert!(
            (g - want).norm() <= step,
            "pulse {line} sample {sample}: {g} vs {want}"
        );
    }
    assert!(
        L0b::from_bytes(p.bytes(), "x", Some(&Channel::parse("A/HV").unwrap()))
            .err()
            .expect("no HV")
            .to_string()
            .contains("the product holds A/HH")
    );
}

#[test]
fn varying_transmit_phases_are_undone_or_refused_by_name() {
    let (pulses, samples, step) = (8, 32, 1.0 / 256.0);
    let echoes = random_echoes(pulses, samples);
    let phases: Vec<f32> = (0..pulses).map(|i| 0.3 * i as f32).collect();
    // Echoes as recorded carry the transmit phase; the reader takes it off.
    let recorded: Vec<Complex32> = echoes
        .iter()
        .enumerate()
        .map(|(k, z)| z * Complex32::from_polar(1.0, phases[k / samples]))
        .collect();
    let mut p = product(pulses, samples, &recorded, step);
    let path = format!("{TX}/txPhase");
    p.set(&path, Data::F32(phases.clone(), vec![pulses as u64, 1]));
    let err = L0b::from_bytes(p.bytes(), "p.h5", None)
        .err()
        .expect("no units");
    assert!(err.to_string().contains("txPhase varies"), "{err}");
    p.attr(&path, "units", AttrValue::String("radians".into()));
    let got = L0b::from_bytes(p.bytes(), "p.h5", None)
        .unwrap()
        .read_all()
        .unwrap();
    for (g, e) in got.iter().zip(&echoes) {
        assert!((g - e).norm() < 2.0 * step, "{g} vs {e}");
    }
}

#[test]
fn missing_and_mistyped_fields_are_named() {
    let (pulses, samples) = (8, 32);
    let good = product(pulses, samples, &random_echoes(pulses, samples), 0.01);
    assert!(L0b::from_bytes(good.bytes(), "good.h5", None).is_ok());
    for path in good.items.keys() {
        let mut p = good.clone();
        p.items.remove(path);
        let optional = path.ends_with("txPhase") || path.ends_with("attenuation");
        match L0b::from_bytes(p.bytes(), "p.h5", None) {
            Ok(_) => assert!(optional, "{path} missing, yet the product opened"),
            Err(e) => {
                let leaf = path.rsplit('/').next().unwrap();
                assert!(
                    e.to_string().contains(leaf) || e.to_string().contains("no echoes"),
                    "{path} missing: {e}"
                );
            }
        }
    }
    let cases: [(&str, Data, &str); 5] = [
        (
            &format!("{TX}/rxH/HH"),
            Data::F32(vec![0.0; 256], vec![8, 32]),
            "only BFPQ codes",
        ),
        (
            &format!("{TX}/slantRange"),
            Data::F64(vec![1.0; 32], vec![32]),
            "slantRange",
        ),
        (
            &format!("{TX}/numberOfSubSwaths"),
            Data::I64(vec![2], vec![]),
            "several sub-swaths",
        ),
        (
            &format!("{TX}/centerFrequency"),
            Data::F64(vec![f64::NAN], vec![]),
            "centerFrequency",
        ),
        (
            "science/LSAR/identification/lookDirection",
            Data::Text("Up".into()),
            "Left or Right",
        ),
    ];
    for (path, data, said) in cases {
        let mut p = good.clone();
        let attrs = p.items[path].1.clone();
        p.items.insert(path.to_string(), (data, attrs));
        let err = L0b::from_bytes(p.bytes(), "p.h5", None).err().expect(path);
        assert!(err.to_string().contains(said), "{path}: {err}");
    }
}

/// Truncated and corrupted products give errors (opening or reading), never a panic.
#[test]
fn truncated_and_corrupted_files_are_errors() {
    let (pulses, samples) = (16, 64);
    let bytes = product(pulses, samples, &random_echoes(pulses, samples), 0.01).bytes();
    let try_all = |b: Vec<u8>| {
        std::panic::catch_unwind(|| {
            if let Ok(l0b) = L0b::from_bytes(b, "bad.h5", None) {
                let _ = l0b.read_all();
            }
        })
        .is_ok()
    };
    for len in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        assert!(
            try_all(bytes[..len].to_vec()),
            "truncated to {len} bytes: panicked"
        );
    }
    let mut state = 99u64;
    for trial in 0..300 {
        let mut b = bytes.clone();
        for _ in 0..4 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let at = (state >> 33) as usize % b.len();
            b[at] ^= 1 << ((state >> 20) % 8);
        }
        assert!(try_all(b), "corruption {trial}: panicked");
    }
}

/// A scene simulated with the configuration a written product gives, written back into the
/// product as BFPQ codes, read and focused: its targets meet theory (through the reader, the
/// product's configuration and the focuser alike).
#[test]
fn a_simulated_scene_through_a_written_product_focuses_to_theory() {
    use tierfft_sar::quality::metrics::{CutOptions, analyze_point};
    use tierfft_sar::scene::params::Target;
    let (pulses, samples) = (1024, 1024);
    // A 60 m antenna: a 974-line aperture at 858 km, so that a scene of 1024 holds it.
    let antenna = Some(60.0);
    let empty = product(
        pulses,
        samples,
        &vec![Complex32::default(); pulses * samples],
        1.0,
    );
    let d = L0b::from_bytes(empty.bytes(), "empty.h5", None).unwrap();
    let (mut c, g) = tierfft_sar::scene::product::config(d.description(), antenna).unwrap();
    assert_eq!(g.resolution_factor(), 1.0, "{g}");
    let bin = c.radar.range_bin_m();
    // Both whole in the range window: a 27 µs pulse spans 432 samples from its delay.
    for (sample, line) in [(300.3, 480.0), (560.6, 530.4)] {
        c.scene.targets.push(Target {
            range_m: c.near_range_m() + sample * bin,
            azimuth_m: (line - pulses as f64 / 2.0) * c.radar.azimuth_bin_m(),
            amplitude: 1.0,
        });
    }
    c.radar.doppler_centroid_hz = Some(tierfft_sar::scene::params::Centroid::Constant(0.0));
    c.radar.azimuth_pattern = Some(tierfft_sar::scene::params::AzimuthPattern::Uniform);
    let echoes = tierfft_sar::scene::simulate::simulate(&c);
    let peak = echoes.iter().map(|z| z.norm()).fold(0.0f32, f32::max);
    let written = product(pulses, samples, &echoes, peak / 16384.0);
    let read = L0b::from_bytes(written.bytes(), "scene.h5", None).unwrap();
    let (mut c2, _) = tierfft_sar::scene::product::config(read.description(), antenna).unwrap();
    c2.scene.targets = c.scene.targets.clone();
    c2.radar.doppler_centroid_hz = c.radar.doppler_centroid_hz.clone();
    c2.radar.azimuth_pattern = Some(tierfft_sar::scene::params::AzimuthPattern::Uniform);
    assert_eq!(c2.radar, c.radar);
    let raw = read.read_all().unwrap();
    let image = crate::common::focused(
        &crate::common::gpu(),
        &c2,
        tierfft_sar::focus::FocusOptions::default(),
        &raw,
    );
    let cuts = CutOptions {
        half: 64,
        half_azimuth: 64,
        ..CutOptions::default()
    };
    for (i, t) in c2.scene.targets.iter().enumerate() {
        let (line, sample) = c2.target_position(t);
        let at = (line.round() as usize, sample.round() as usize);
        let m = analyze_point(&image, pulses, samples, at, &cuts, None).expect("measure");
        crate::common::assert_theory(&c2, i, &m, &format!("target {}", i + 1));
    }
}

/// The chip focused from its 1000 pulses (partial apertures over margins as long as the
/// full one): its speckle is as correlated in azimuth as the band those pulses hold says,
/// within 6 %, and in range as the chirp's band says; its multi-looked power shows more
/// contrast than the range-compressed image's.
#[test]
fn the_chip_focuses_to_its_partial_aperture_resolution() {
    use tierfft_sar::filters::range::{Window, compress_range_linear};
    use tierfft_sar::quality::looks::multilook;
    use tierfft_sar::quality::speckle::{Axis, contrast, correlation_width};
    let Some(path) = chip() else { return };
    let l0b = L0b::open(&path, None).unwrap();
    let (mut c, g) = tierfft_sar::scene::product::config(l0b.description(), None).unwrap();
    assert!(
        c.scene.partial_aperture && g.resolution_factor() > 6.0,
        "{g}"
    );
    let raw = l0b.read_all().unwrap();
    tierfft_sar::scene::centroid::resolve(&mut c, &raw).unwrap();
    tierfft_sar::scene::pattern::resolve(&mut c, &raw);
    let device = tierfft::Device::cpu();
    let image = crate::common::focused(
        &device,
        &c,
        tierfft_sar::focus::FocusOptions::default(),
        &raw,
    );
    let compressed = compress_range_linear(&device, &c, &raw, Window::None).unwrap();
    let shape = (1000, 2200);
    // Every line has its 1000 pulses; the samples whose pulse was recorded whole.
    let extent = tierfft_sar::scene::extent::Extent::of(&c, true);
    let region = (0..1000, extent.full_samples.0..extent.full_samples.1);
    let az = correlation_width(&image, shape, region.clone(), Axis::Azimuth).unwrap();
    let rg = correlation_width(&image, shape, region.clone(), Axis::Range).unwrap();
    let az_theory =
        Window::None.speckle_width() * c.radar.prf_hz / c.focused_doppler_bandwidth_hz();
    let rg_theory = Window::None.speckle_width() * c.radar.sample_rate_hz / c.radar.bandwidth_hz;
    eprintln!(
        "azimuth {az:.3} lines (theory {az_theory:.3}), range {rg:.3} samples (theory {rg_theory:.3})"
    );
    assert!(
        (az / az_theory - 1.0).abs() < 0.06,
        "azimuth {az} vs {az_theory}"
    );
    assert!(
        (rg / rg_theory - 1.0).abs() < 0.06,
        "range {rg} vs {rg_theory}"
    );
    let looks = (az_theory.ceil() as usize, rg_theory.ceil() as usize);
    let cut = |z: &[Complex32]| -> Vec<Complex32> {
        z.chunks(2200)
            .flat_map(|l| l[region.1.clone()].to_vec())
            .collect()
    };
    let width = region.1.len();
    let focused = contrast(&multilook(&cut(&image), 1000, width, looks).unwrap());
    let range_only = contrast(&multilook(&cut(&compressed), 1000, width, looks).unwrap());
    eprintln!(
        "contrast over {looks:?} looks: focused {focused:.3}, range-compressed {range_only:.3}"
    );
    assert!(focused > range_only, "{focused} vs {range_only}");
}

/// The effective velocity by range (`radar.speed_by_range_mps`, which a product's orbit
/// gives): a scene simulated with it, 180 m/s at the near range to 220 at the far (a 2 m
/// antenna at X band, PRF 300 Hz: a time-bandwidth product of 235), focuses to theory at
/// both ends with the table; with one velocity for the whole swath, the targets away from
/// mid-swath defocus in azimuth.
#[test]
fn the_azimuth_filter_follows_the_velocity_across_the_swath() {
    use tierfft_sar::scene::params::{Config, Scene, Target};
    let (lines, samples) = (1024, 1024);
    let mut c = Config {
        scene: Scene {
            lines,
            samples,
            snr_db: None,
            seed: 1,
            targets: vec![],
            partial_aperture: false,
        },
        ..Config::default()
    };
    c.radar.pulse_s = 2e-6;
    c.radar.prf_hz = 300.0;
    c.radar.speed_mps = 200.0;
    let (near, bin) = (c.near_range_m(), c.radar.range_bin_m());
    let far = near + samples as f64 * bin;
    c.radar.speed_by_range_mps = Some(vec![[near, 180.0], [far, 220.0]]);
    for (sample, line) in [(150.3, 480.0), (870.6, 530.4)] {
        c.scene.targets.push(Target {
            range_m: near + sample * bin,
            azimuth_m: (line - lines as f64 / 2.0) * 200.0 / c.radar.prf_hz,
            amplitude: 1.0,
        });
    }
    c.radar.doppler_centroid_hz = Some(tierfft_sar::scene::params::Centroid::Constant(0.0));
    c.radar.azimuth_pattern = Some(tierfft_sar::scene::params::AzimuthPattern::Uniform);
    c.validate().unwrap();
    let raw = tierfft_sar::scene::simulate::simulate(&c);
    let device = tierfft::Device::cpu();
    let measure = |c: &Config| {
        let image = crate::common::focused(&device, c, Default::default(), &raw);
        crate::common::measure_targets(&image, c)
    };
    for (i, m) in measure(&c).into_iter().enumerate() {
        let m = m.expect("measured");
        // The theory at each target's own velocity.
        let mut own = c.clone();
        own.radar = c.radar.at_range(c.scene.targets[i].range_m);
        crate::common::assert_theory(&own, i, &m, &format!("target {} with the table", i + 1));
    }
    let mut flat = c.clone();
    flat.radar.speed_by_range_mps = None;

    for (i, m) in measure(&flat).into_iter().enumerate() {
        let mut own = c.clone();
        own.radar = c.radar.at_range(c.scene.targets[i].range_m);
        let irw = 0.886 * own.radar.prf_hz / own.radar.doppler_bandwidth_hz();
        // Defocused: wider, higher sidelobes, or no mainlobe to measure at all.
        match m {
            Ok(m) => assert!(
                m.azimuth.irw_bins > 1.1 * irw || m.azimuth.pslr_db > -12.0,
                "target {} focused without the table: {m:?}",
                i + 1
            ),
            Err(e) => eprintln!("target {} without the table: {e}", i + 1),
        }
    }
}
