//! `tierfft bench --backend cuda --compare cufft`: tierfft and cuFFT on the same GPU, the
//! same buffers and in the same run, with the copy bandwidth that bounds both; optionally the
//! portable wgpu path on the same GPU.

use std::sync::Arc;

use num_complex::Complex;
use serde::Serialize;
use tierfft::backend::Element;
use tierfft::backend::median;
use tierfft::debug::reference::{relative_l2_error, relative_l2_error64, spec_dd, spec_f64, widen};
use tierfft::plan::{Plan, PlanOptions};
use tierfft::{Complex32, Complex64, Device, Direction, Fft, FftSpec, Layout, PointOp, Precision};

use super::CommandResult;
use crate::compare::{Comparison, Energies, Extras, compare, compare_half, compare_z2z};
use crate::energy::{EnergyMeter, EnergyReading};
use crate::peer::CallbackPeer;

/// What to compare.
pub struct Options {
    /// The lengths (points per transform).
    pub sizes: Vec<usize>,
    /// These batches (time per call) instead of 1 GiB buffers.
    pub batches: Option<Vec<usize>>,
    /// Timed calls per library and size.
    pub reps: usize,
    /// Also time the wgpu path on the same GPU.
    pub with_wgpu: bool,
    /// Direction.
    pub direction: Direction,
    /// JSON instead of the table.
    pub json: bool,
    /// Planner variant.
    pub plan: PlanOptions,
    /// Compare the fused FFT → multiply → inverse FFT (one kernel) with the cuFFT pipeline of
    /// the same step, on scenes of 2^24 points (4096 × 4096 at n = 4096).
    pub chain: bool,
    /// The steps of SAR focusing on square scenes of n × n (n from `sizes`): fused range
    /// compression, column azimuth FFT, azimuth compression (per-element filter fused into
    /// the column inverse FFT), SRC's and chirp scaling's range steps (per-element multiply
    /// on a row FFT's load), each against the same step on cuFFT; then RCMC (tierfft's
    /// resampler, which both pipelines share) and each algorithm's total.
    pub sar: bool,
    /// Energy per transform of each library, over loops of at least this many seconds.
    pub energy_seconds: Option<f64>,
    /// The cuFFT callback peer library, for chains.
    pub callback_peer: Option<std::path::PathBuf>,
    /// f32 (C2C against cuFFT's C2C) or f64 (Z2Z against Z2Z; plain transforms only).
    pub precision: Precision,
    /// Checksummed plain transforms ([`tierfft::Checksum`]).
    pub checksum: tierfft::Checksum,
}

/// One size and batch.
#[derive(Serialize)]
struct Row {
    /// What was timed.
    step: String,
    n: usize,
    batch: usize,
    ours_s: f64,
    ours_gbps: f64,
    ours_error: f64,
    cufft_s: f64,
    cufft_gbps: f64,
    cufft_error: f64,
    /// cuFFT time / our time: above 1, tierfft is faster.
    ratio: f64,
    /// Our GB/s over the measured copy GB/s.
    of_copy: f64,
    copy_gbps: f64,
    wgpu_gbps: Option<f64>,
    wgpu_ratio: Option<f64>,
    registers: Vec<i32>,
    spill_bytes: i32,
    passes: usize,
    /// Bluestein's convolution length, for lengths with a prime factor above 31.
    bluestein_m: Option<usize>,
    /// cuFFT with the multiply in a store callback (chains with --callback-peer).
    callback_s: Option<f64>,
    callback_error: Option<f64>,
    /// Callback time / our time.
    callback_ratio: Option<f64>,
    /// Energy per transform (joules) and board power (watts) of each pipeline.
    energy: Option<RowEnergy>,
}

/// Energy of one row's pipelines.
#[derive(Serialize)]
struct RowEnergy {
    ours: PipelineEnergy,
    cufft: PipelineEnergy,
    callback: Option<PipelineEnergy>,
}

/// Energy of one pipeline, per transform.
#[derive(Serialize)]
struct PipelineEnergy {
    joules_per_transform: f64,
    transforms_per_joule: f64,
    watts: f64,
    seconds_per_call: f64,
    window_seconds: f64,
    sm_mhz: u32,
}

impl PipelineEnergy {
    fn new(r: &EnergyReading, batch: usize) -> PipelineEnergy {
        let joules = r.joules_per_call / batch as f64;
        PipelineEnergy {
            joules_per_transform: joules,
            transforms_per_joule: 1.0 / joules,
            watts: r.watts,
            seconds_per_call: r.seconds_per_call,
            window_seconds: r.window_seconds,
            sm_mhz: r.sm_mhz,
        }
    }
}

impl RowEnergy {
    fn new(e: &Energies, batch: usize) -> RowEnergy {
        RowEnergy {
            ours: PipelineEnergy::new(&e.ours, batch),
            cufft: PipelineEnergy::new(&e.cufft, batch),
            callback: e.callback.as_ref().map(|c| PipelineEnergy::new(c, batch)),
        }
    }
}

/// Transforms checked against the f64 reference: the first 2^22 points' worth.
fn checked(n: usize, batch: usize) -> usize {
    ((1 << 22) / n).clamp(1, batch)
}

/// Runs the comparison on `device`, which must be CUDA.
pub fn run(device: &Device, opts: &Options) -> CommandResult<()> {
    let Some(dev) = &device.cuda_device() else {
        return Err(format!(
            "--compare cufft needs the CUDA backend (--backend cuda), not {}",
            device.name()
        )
        .into());
    };
    if opts.with_wgpu && opts.precision.is_half() {
        return Err(
            "--with-wgpu times f32 and f64 transforms; leave it out for f16 and bf16".into(),
        );
    }
    // Opened before anything runs, so that a missing NVML or peer fails at once.
    let meter = opts
        .energy_seconds
        .map(|_| EnergyMeter::open(dev))
        .transpose()?;
    let peer = opts
        .callback_peer
        .as_deref()
        .map(CallbackPeer::load)
        .transpose()?;
    // The board before any work of this run (idle unless something else just ran).
    let before = meter.as_ref().map(EnergyMeter::state).transpose()?;
    let extras = Extras {
        energy: meter.as_ref().zip(opts.energy_seconds),
        callback: peer.as_ref(),
    };
    let wgpu = if opts.with_wgpu {
        Some(Device::by_name("gpu")?)
    } else {
        None
    };
    if !opts.json {
        println!(
            "device:  {}  ({} SMs, {} MiB L2)",
            dev.name(),
            dev.limits().compute_units,
            dev.l2_bytes >> 20
        );
        println!("command: {}", super::report::command_line());
        if let Some(w) = &wgpu {
            println!("wgpu:    {}", w.name());
        }
        println!("planner: {:?}", opts.plan);
        if let (Some(b), Some(t)) = (&before, opts.energy_seconds) {
            println!(
                "energy:  NVML total-energy counter over loops of at least {t} s per library, \
                 ours, cuFFT(, callback) and back again; before the run {:.1} W, SM {} MHz, \
                 memory {} MHz, power limit {:.0} W",
                b.watts, b.sm_mhz, b.memory_mhz, b.limit_watts
            );
        }
        if peer.is_some() {
            println!(
                "callback: cuFFT forward with the multiply in an LTO store callback, then cuFFT \
                 inverse (two kernels' trips), same buffers and stream"
            );
        }
        if opts.chain {
            println!(
                "fused: FFT → multiply by a random filter → inverse FFT → 1/n in one kernel, against cuFFT forward, a multiply kernel and cuFFT inverse; scenes of 2^24 points"
            );
        }
        let (kind, bytes, reference) = match opts.precision {
            Precision::F64 => ("Z2Z", 32, "double-double"),
            Precision::F16 => (
                "C2C in f16 storage (cufftXtExec)",
                8,
                "f64 of the stored input",
            ),
            Precision::Bf16 => (
                "C2C in bf16 storage (cufftXtExec)",
                8,
                "f64 of the stored input",
            ),
            _ => ("C2C", 16, "f64"),
        };
        println!(
            "{} {kind}, out of place, median of {} CUDA-event timings per library (interleaved); GB/s = {bytes}·N·batch / t; \
             ratio = cuFFT time / ours; error: rel. L2 vs {reference} over the first min(batch, 2^22/N) transforms\n",
            if opts.direction == Direction::Forward {
                "forward"
            } else {
                "inverse"
            },
            opts.reps
        );
        println!(
            "{:>9} {:>8} {:>2} {:>10} {:>7} {:>8} {:>10} {:>7} {:>8} {:>6} {:>6} {:>7}{} {:>10}",
            "N",
            "batch",
            "p",
            "ours",
            "GB/s",
            "error",
            "cuFFT",
            "GB/s",
            "error",
            "ratio",
            "/copy",
            "copy",
            if wgpu.is_some() {
                format!(" {:>7} {:>6}", "wgpu", "ratio")
            } else {
                String::new()
            },
            "regs"
        );
    }
    let mut rows = Vec::new();
    let mut focusing = Vec::new();
    for &n in &opts.sizes {
        let batches = match (opts.chain, &opts.batches) {
            _ if opts.sar => vec![n],
            (true, _) => vec![((1usize << 24) / n).max(1)],
            (false, Some(list)) => list.clone(),
            // 1 GiB buffers (2^27 points in f32, 2^26 in f64), 2^27 points in f16 and bf16.
            (false, None) => {
                vec![((1usize << 30) / (opts.precision.complex_bytes().max(8) * n)).max(1)]
            }
        };
        let specs: Vec<(String, FftSpec)> = batches
            .into_iter()
            .flat_map(|batch| steps(n, batch, opts))
            .collect();
        for (step, spec) in specs {
            let batch = spec.batch;
            match row(device, wgpu.as_ref(), step, spec, opts, extras) {
                Ok(r) => {
                    if !opts.json {
                        print_row(&r, wgpu.is_some());
                    }
                    rows.push(r);
                }
                Err(e) => eprintln!("N = {n}, batch {batch}: {e}"),
            }
        }
        if opts.sar {
            match whole_focusing(device, n, opts.reps, &rows) {
                Ok(f) => {
                    if !opts.json {
                        print_focusing(&f);
                    }
                    focusing.push(f);
                }
                Err(e) => eprintln!("RCMC of {n} × {n}: {e}"),
            }
        }
    }
    if opts.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "device": dev.name(),
                "rows": rows,
                "focusing": focusing,
                "board_before": before.map(|b| serde_json::json!({
                    "watts": b.watts,
                    "sm_mhz": b.sm_mhz,
                    "memory_mhz": b.memory_mhz,
                    "limit_watts": b.limit_watts,
                })),
            }))?
        );
    }
    Ok(())
}

/// The specs timed for length `n` and `batch`: the plain transform, the chain, or the SAR
/// focusing steps of an `n` × `batch` scene (`[lines][samples]`, square here).
fn steps(n: usize, batch: usize, opts: &Options) -> Vec<(String, FftSpec)> {
    let random = |len| -> Arc<[Complex32]> { super::random_input(len).into() };
    let plain = FftSpec::new(n)
        .batch(batch)
        .direction(opts.direction)
        .precision(opts.precision)
        .checksum(opts.checksum);
    if opts.sar {
        let columns = FftSpec::new(n).batch(batch).columns();
        let each = || PointOp::MultiplyEach(random(n * batch));
        return vec![
            (
                RANGE_STEP.into(),
                plain
                    .clone()
                    .then_multiply_and_invert(random(n))
                    .normalized(),
            ),
            (AZIMUTH_FFT_STEP.into(), columns.clone()),
            (
                AZIMUTH_STEP.into(),
                columns.inverse().normalized().on_load(each()),
            ),
            (
                SRC_STEP.into(),
                plain
                    .clone()
                    .then_multiply_and_invert(random(n * batch))
                    .normalized(),
            ),
            (
                CSA_STEP.into(),
                plain
                    .on_load(each())
                    .then_multiply_and_invert(random(n * batch))
                    .normalized(),
            ),
        ];
    }
    if opts.chain {
        return vec![(
            "chain".into(),
            plain.then_multiply_and_invert(random(n)).normalized(),
        )];
    }
    vec![("fft".into(), plain)]
}

/// The first `count` transforms of `spec`'s buffer `data`: a prefix for rows, the first
/// `count` columns (as an `[n][count]` matrix) for columns.
fn first_transforms(spec: &FftSpec, count: usize, data: &[Complex32]) -> Vec<Complex32> {
    match spec.layout {
        Layout::Rows => data[..count * spec.n].to_vec(),
        Layout::Columns { .. } => data
            .chunks(spec.batch)
            .flat_map(|row| row[..count].iter().copied())
            .collect(),
        // A layout this comparison does not know: nothing to check.
        _ => Vec::new(),
    }
}

/// `spec` cut to its first `count` transforms (per-element arrays cut alike).
fn first_spec(spec: &FftSpec, count: usize) -> FftSpec {
    let cut = |ops: &[PointOp]| {
        ops.iter()
            .map(|op| match op {
                PointOp::MultiplyEach(v) => {
                    PointOp::MultiplyEach(first_transforms(spec, count, v).into())
                }
                op => op.clone(),
            })
            .collect()
    };
    let mut first = spec.clone().batch(count);
    first.load = cut(&spec.load);
    first.store = cut(&spec.store);
    first
}

/// One comparison of `spec` on `device` (a CUDA device), planned there with the options
/// asked for (with `--measure`, the plan the device's measurement picks).
fn row(
    device: &Device,
    wgpu: Option<&Device>,
    step: String,
    spec: FftSpec,
    opts: &Options,
    extras: Extras<'_>,
) -> CommandResult<Row> {
    let (n, batch) = (spec.n, spec.batch);
    let fft = device.plan_with_options(&spec, &opts.plan)?;
    let plan = fft
        .plan()
        .cloned()
        .ok_or("a CUDA transform without a plan")?;
    match spec.precision {
        Precision::F64 => return row_z2z(device, wgpu, step, &spec, &plan, &fft, opts),
        Precision::F16 => {
            let convert: Conversions<_> = (tierfft::f16::from_f32, tierfft::f16::to_f32);
            return row_half(device, step, &spec, &plan, &fft, opts, convert);
        }
        Precision::Bf16 => {
            let convert: Conversions<_> = (tierfft::bf16::from_f32, tierfft::bf16::to_f32);
            return row_half(device, step, &spec, &plan, &fft, opts, convert);
        }
        _ => {}
    }
    let input = super::random_input(n * batch);
    let c = compare(device, &fft, &input, opts.reps, extras)?;
    let count = checked(n, batch);
    let want = spec_f64(
        &first_spec(&spec, count),
        &first_transforms(&spec, count, &input),
    );
    let error = |out: &[Complex32]| relative_l2_error(&first_transforms(&spec, count, out), &want);
    let wgpu_s = match wgpu {
        Some(w) => {
            let m = w
                .plan_with_options(&spec, &opts.plan)?
                .measure(&input, opts.reps)?;
            Some(m.median_seconds())
        }
        None => None,
    };
    Ok(row_of(step, &spec, &plan, &c, 16.0, error, wgpu_s))
}

/// The row of one comparison `c` of `spec`'s `plan`: `bytes` read and written per point,
/// `error` of an output, the wgpu time if it ran.
fn row_of<T>(
    step: String,
    spec: &FftSpec,
    plan: &Plan,
    c: &Comparison<T>,
    bytes: f64,
    error: impl Fn(&[T]) -> f64,
    wgpu_s: Option<f64>,
) -> Row {
    let (n, batch) = (spec.n, spec.batch);
    let (ours_s, cufft_s) = (median(&c.ours.1), median(&c.cufft.1));
    let gbps = |t: f64| bytes * (n * batch) as f64 / t / 1e9;
    Row {
        step,
        n,
        batch,
        ours_s,
        ours_gbps: gbps(ours_s),
        ours_error: error(&c.ours.0),
        cufft_s,
        cufft_gbps: gbps(cufft_s),
        cufft_error: error(&c.cufft.0),
        ratio: cufft_s / ours_s,
        of_copy: gbps(ours_s) / c.copy_gbps,
        copy_gbps: c.copy_gbps,
        wgpu_gbps: wgpu_s.map(gbps),
        wgpu_ratio: wgpu_s.map(|t| cufft_s / t),
        registers: c.kernels.iter().map(|k| k.registers).collect(),
        spill_bytes: c.kernels.iter().map(|k| k.local_bytes).max().unwrap_or(0),
        passes: plan.passes.len(),
        bluestein_m: plan.bluestein.as_ref().map(|b| b.m),
        callback_s: c.callback.as_ref().map(|(_, t)| median(t)),
        callback_error: c.callback.as_ref().map(|(out, _)| error(out)),
        callback_ratio: c.callback.as_ref().map(|(_, t)| median(t) / ours_s),
        energy: c.energy.as_ref().map(|e| RowEnergy::new(e, batch)),
    }
}

/// [`row`] of an f64 plan: Z2Z against cuFFT's Z2Z, errors against the double-double
/// reference.
fn row_z2z(
    device: &Device,
    wgpu: Option<&Device>,
    step: String,
    spec: &FftSpec,
    plan: &Plan,
    fft: &Fft,
    opts: &Options,
) -> CommandResult<Row> {
    let (n, batch) = (spec.n, spec.batch);
    let input: Vec<Complex64> = super::random_input(n * batch)
        .iter()
        .zip(super::random_input(n * batch))
        // Random in all 53 bits: two f32 draws per part.
        .map(|(a, b)| {
            Complex64::new(
                f64::from(a.re) + f64::from(b.re) * 2e-8,
                f64::from(a.im) + f64::from(b.im) * 2e-8,
            )
        })
        .collect();
    let c = compare_z2z(device, fft, &input, opts.reps)?;
    let count = checked(n, batch) * n;
    let want = spec_dd(&spec.clone().batch(count / n), &input[..count]);
    let error = |out: &[Complex64]| relative_l2_error64(&out[..count], &want);
    let wgpu_s = match wgpu {
        Some(w) => Some(
            w.plan_with_options(spec, &opts.plan)?
                .measure(&input, opts.reps)?
                .median_seconds(),
        ),
        None => None,
    };
    Ok(row_of(step, spec, plan, &c, 32.0, error, wgpu_s))
}

/// A 16-bit storage type's conversions from and to f32.
type Conversions<H> = (fn(f32) -> H, fn(H) -> f32);

/// [`row`] of a plan in 16-bit storage (`H`, with its conversions from and to f32): against
/// cuFFT's transforms of the same storage, errors against the f64 transform of the stored
/// input. No wgpu column.
fn row_half<H: Copy>(
    device: &Device,
    step: String,
    spec: &FftSpec,
    plan: &Plan,
    fft: &Fft,
    opts: &Options,
    (from_f32, to_f32): Conversions<H>,
) -> CommandResult<Row>
where
    Complex<H>: Element,
{
    let (n, batch) = (spec.n, spec.batch);
    let input: Vec<Complex<H>> = super::random_input(n * batch)
        .iter()
        .map(|z| Complex::new(from_f32(z.re), from_f32(z.im)))
        .collect();
    let c = compare_half(device, fft, &input, opts.reps)?;
    let count = checked(n, batch) * n;
    let to_f32s = |v: &[Complex<H>]| -> Vec<Complex32> {
        v[..count]
            .iter()
            .map(|z| Complex32::new(to_f32(z.re), to_f32(z.im)))
            .collect()
    };
    let want = spec_f64(&spec.clone().batch(count / n), &to_f32s(&input));
    let error = |out: &[Complex<H>]| relative_l2_error(&to_f32s(out), &want);
    Ok(row_of(step, spec, plan, &c, 8.0, error, None))
}

/// The whole focusing of one scene size, step by step.
#[derive(Serialize)]
struct Focusing {
    /// Lines and samples.
    n: usize,
    /// RCMC on the same buffers: median seconds, GB/s (read + write), rel. L2 vs the CPU.
    rcmc_s: f64,
    rcmc_gbps: f64,
    rcmc_error: f64,
    /// The three FFT steps plus RCMC, seconds.
    ours_s: f64,
    /// The same three steps on cuFFT plus the same RCMC, seconds.
    cufft_s: f64,
    /// With secondary range compression's step too, seconds.
    ours_src_s: f64,
    /// The same on cuFFT, seconds.
    cufft_src_s: f64,
    /// The chirp scaling algorithm's four steps (no RCMC), seconds.
    ours_csa_s: f64,
    /// The same on cuFFT, seconds.
    cufft_csa_s: f64,
}

/// The SAR steps' names: Range-Doppler's three FFT steps, SRC's chain (a filter for each
/// row) and chirp scaling's (its scaling multiply on load, and a filter for each row).
const RANGE_STEP: &str = "range compression (FFT, filter, IFFT)";
const AZIMUTH_FFT_STEP: &str = "azimuth FFT (columns)";
const AZIMUTH_STEP: &str = "azimuth compression (filter, column IFFT)";
const SRC_STEP: &str = "SRC (range FFT, filter per row, IFFT)";
const CSA_STEP: &str = "CSA (scaling, range FFT, filter per row, IFFT)";

/// Times RCMC of an `n` × `n` scene of the default radar (its real migration positions) and
/// adds it to the FFT steps of that size in `rows`. cuFFT has no interpolation, so both
/// pipelines use tierfft's resampler for this step.
fn whole_focusing(device: &Device, n: usize, reps: usize, rows: &[Row]) -> CommandResult<Focusing> {
    let mut config = tierfft_sar::scene::params::Config::default();
    config.scene.lines = n;
    config.scene.samples = n;
    let spec = tierfft_sar::filters::rcmc::rcmc_spec(&config, 0.0);
    let input = super::random_input(spec.len());
    let m = device.plan_resample(&spec)?.measure(&input, reps)?;
    let cpu = widen(
        &Device::cpu()
            .plan_resample(&spec)?
            .measure(&input, 1)?
            .output,
    );
    let rcmc_s = m.median_seconds();
    let steps: Vec<&Row> = rows
        .iter()
        .filter(|r| r.n == n && r.step != "fft")
        .collect();
    let sum = |names: &[&str], rcmc: bool, time: fn(&Row) -> f64| {
        steps
            .iter()
            .filter(|r| names.contains(&r.step.as_str()))
            .map(|r| time(r))
            .sum::<f64>()
            + if rcmc { rcmc_s } else { 0.0 }
    };
    let rda = [RANGE_STEP, AZIMUTH_FFT_STEP, AZIMUTH_STEP];
    let rda_src = [RANGE_STEP, AZIMUTH_FFT_STEP, AZIMUTH_STEP, SRC_STEP];
    let csa = [AZIMUTH_FFT_STEP, CSA_STEP, AZIMUTH_STEP];
    Ok(Focusing {
        n,
        rcmc_s,
        rcmc_gbps: 16.0 * spec.len() as f64 / rcmc_s / 1e9,
        rcmc_error: relative_l2_error(&m.output, &cpu),
        ours_s: sum(&rda, true, |r| r.ours_s),
        cufft_s: sum(&rda, true, |r| r.cufft_s),
        ours_src_s: sum(&rda_src, true, |r| r.ours_s),
        cufft_src_s: sum(&rda_src, true, |r| r.cufft_s),
        ours_csa_s: sum(&csa, false, |r| r.ours_s),
        cufft_csa_s: sum(&csa, false, |r| r.cufft_s),
    })
}

fn print_focusing(f: &Focusing) {
    println!(
        "{:>9} {:>8} {:>2} {:>10} {:>7.0} {:>8.2e}   (same kernel in both pipelines; error vs the CPU resampler)",
        f.n,
        f.n,
        1,
        time(f.rcmc_s),
        f.rcmc_gbps,
        f.rcmc_error
    );
    println!("          ^ RCMC (16-tap windowed-sinc resampler)");
    println!(
        "  whole focusing {n} × {n} (range compression + azimuth FFT + RCMC + azimuth compression): \
         tierfft {}, cuFFT steps + the same RCMC {}: ratio {:.2}",
        time(f.ours_s),
        time(f.cufft_s),
        f.cufft_s / f.ours_s,
        n = f.n
    );
    println!(
        "  with SRC (+ range FFT, filter per row and range IFFT of the range-Doppler rows, \
         chained): tierfft {}, \
         cuFFT steps + the same RCMC {}: ratio {:.2}",
        time(f.ours_src_s),
        time(f.cufft_src_s),
        f.cufft_src_s / f.ours_src_s,
    );
    println!(
        "  chirp scaling (azimuth FFT; scaling multiply, range FFT, filter per row, range \
         IFFT, chained; azimuth compression; no RCMC): tierfft {}, cuFFT steps {}: ratio \
         {:.2}\n",
        time(f.ours_csa_s),
        time(f.cufft_csa_s),
        f.cufft_csa_s / f.ours_csa_s,
    );
}

fn time(t: f64) -> String {
    if t < 1e-3 {
        format!("{:.2} µs", t * 1e6)
    } else {
        format!("{:.3} ms", t * 1e3)
    }
}

fn print_row(r: &Row, wgpu: bool) {
    let regs: Vec<String> = r.registers.iter().map(|x| x.to_string()).collect();
    let spill = if r.spill_bytes > 0 {
        format!(" spill {}B", r.spill_bytes)
    } else {
        String::new()
    };
    let w = match (wgpu, r.wgpu_gbps, r.wgpu_ratio) {
        (true, Some(g), Some(q)) => format!(" {g:>7.0} {q:>6.2}"),
        (true, ..) => format!(" {:>7} {:>6}", "-", "-"),
        _ => String::new(),
    };
    println!(
        "{:>9} {:>8} {:>2} {:>10} {:>7.0} {:>8.2e} {:>10} {:>7.0} {:>8.2e} {:>6.3} {:>6.3} {:>7.0}{w} {:>10}",
        r.n,
        r.batch,
        r.passes,
        time(r.ours_s),
        r.ours_gbps,
        r.ours_error,
        time(r.cufft_s),
        r.cufft_gbps,
        r.cufft_error,
        r.ratio,
        r.of_copy,
        r.copy_gbps,
        format!("{}{spill}", regs.join("/")),
    );
    let m = r.bluestein_m.map(|m| format!("Bluestein m = {m}"));
    let notes: Vec<&str> = [(r.step != "fft").then_some(r.step.as_str()), m.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    if !notes.is_empty() {
        println!("          ^ {}", notes.join(", "));
    }
    if let (Some(t), Some(e), Some(q)) = (r.callback_s, r.callback_error, r.callback_ratio) {
        println!(
            "          ^ cuFFT + callback {} ({:.0} GB/s, error {e:.2e}): ratio {q:.3}",
            time(t),
            16.0 * (r.n * r.batch) as f64 / t / 1e9
        );
    }
    if let Some(e) = &r.energy {
        let one = |name: &str, p: &PipelineEnergy| {
            format!(
                "{name} {:.3} µJ ({:.0} W, SM {} MHz)",
                p.joules_per_transform * 1e6,
                p.watts,
                p.sm_mhz
            )
        };
        let mut parts = vec![one("ours", &e.ours), one("cuFFT", &e.cufft)];
        let mut ratios = format!(
            "transforms/J ours / cuFFT {:.3}",
            e.ours.transforms_per_joule / e.cufft.transforms_per_joule
        );
        if let Some(c) = &e.callback {
            parts.push(one("callback", c));
            ratios += &format!(
                ", ours / callback {:.3}",
                e.ours.transforms_per_joule / c.transforms_per_joule
            );
        }
        println!(
            "          ^ energy per transform: {}; {ratios}",
            parts.join(", ")
        );
    }
}
