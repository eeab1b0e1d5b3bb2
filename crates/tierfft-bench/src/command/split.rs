//! `tierfft bench --gpus N` without `--shapes`: each size's batch split across N GPUs (or N
//! CPU devices with `--backend cpu`), each device transforming its share with no exchange,
//! against one device with one share; checked against the f64 reference first.

use tierfft::backend::median;
use tierfft::debug::reference::{random, relative_l2_error, spec_f64};
use tierfft::distributed::SplitBatch;
use tierfft::{Device, FftSpec};

use super::CommandResult;

/// Rounds of the one-device and the split runs, interleaved.
const ROUNDS: usize = 3;

/// What to time.
pub struct SplitOptions<'a> {
    /// Transform lengths.
    pub sizes: &'a [usize],
    /// Devices: GPUs 0..devices, or CPU devices.
    pub devices: usize,
    /// CPU devices instead of GPUs.
    pub cpu: bool,
    /// Points each device transforms per call: a share of max(1, points / n) transforms.
    pub points: usize,
    /// Timed runs per measurement.
    pub reps: usize,
}

/// `tierfft bench --sizes .. --gpus N`.
pub fn run(opts: &SplitOptions) -> CommandResult<()> {
    let devices = match opts.cpu {
        true => vec![Device::cpu(); opts.devices],
        false => crate::shared::open_gpus(opts.devices)?.0,
    };
    println!("devices: {} × {}", opts.devices, devices[0].name());
    println!(
        "a batch split across the devices, a share of max(1, {} / N) transforms each, no \
         exchange; median of {} rounds of {} runs, one device and all interleaved, host clock \
         from a common start until every device is done",
        opts.points, ROUNDS, opts.reps
    );
    println!(
        "{:>10} {:>8} {:>10} {:>10} {:>11} {:>10} {:>9}",
        "N", "share", "1 dev ms", "N dev ms", "throughput", "per dev", "error"
    );
    for &n in opts.sizes {
        let share = (opts.points / n).max(1);
        // Checked on a small batch first: two transforms a device.
        let spec = FftSpec::new(n).batch(2 * opts.devices);
        let x = random(n * spec.batch, n as u64);
        let mut got = x.clone();
        SplitBatch::new(&spec, &devices)?.process(&mut got)?;
        let error = relative_l2_error(&got, &spec_f64(&spec, &x));
        drop((x, got));
        let one = SplitBatch::new(&FftSpec::new(n).batch(share), &devices[..1])?;
        let all = SplitBatch::new(&FftSpec::new(n).batch(share * opts.devices), &devices)?;
        // Interleaved rounds, every sample pooled: the clocks a device runs at depend on
        // what ran just before, so neither side goes first every time.
        let (mut single, mut split) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            single.extend(one.time(opts.reps)?);
            split.extend(all.time(opts.reps)?);
        }
        let (single, split) = (median(&single), median(&split));
        let gain = opts.devices as f64 * single / split;
        println!(
            "{:>10} {:>8} {:>10.3} {:>10.3} {:>10.2}× {:>10.2} {:>9.2e}",
            n,
            share,
            1e3 * single,
            1e3 * split,
            gain,
            gain / opts.devices as f64,
            error
        );
    }
    println!();
    println!(
        "throughput: N devices' transforms per second over one device's (N × 1 dev / N dev, \
         each device with a share); per dev: that over N (1 = perfect scaling); error: \
         relative L2 against f64 on a batch of two transforms a device."
    );
    Ok(())
}
