//! Spec + options -> plan: whatever the fuzzer's bytes describe is either refused with an
//! error or planned into passes that fit the device profile and compute the transform in the
//! IR interpreter ([`tierfft::fuzzing::check_plan`]).

use std::sync::Arc;

use arbitrary::{Arbitrary, Unstructured};
use tierfft::fuzzing::check_plan;
use tierfft::plan::{DeviceLimits, Exchange, PlanOptions};
use tierfft::{Complex32, FftSpec, PointOp, Precision, RealWeights};

/// Device profiles the plans are made for: every [`DeviceLimits::profile`] (the corpus
/// indexes this list, so a new profile goes at its end).
pub const PROFILES: &[&str] = DeviceLimits::PROFILES;

/// Largest batch × length the interpreter runs per case (it interprets every thread).
pub const INTERPRET_POINTS: usize = 1 << 12;

/// One planner case as the fuzzer's bytes describe it.
#[derive(Arbitrary, Debug)]
pub struct PlanCase {
    length: Length,
    batch: u16,
    inverse: bool,
    normalize: bool,
    /// Stacked matrices of columns, for a columns layout.
    columns: Option<u8>,
    load: Vec<Op>,
    store: Vec<Op>,
    chain: Option<Chain>,
    precision: u8,
    profile: u8,
    options: Options,
    /// Changes to the profile's limits, as a caller filling in `DeviceLimits` might make.
    limits: Option<Limits>,
    seed: u64,
}

/// Device limits set by hand: each `Some` replaces the profile's value.
#[derive(Arbitrary, Debug)]
struct Limits {
    workgroup_memory: Option<u32>,
    max_threads: Option<u16>,
    subgroup_size: Option<u8>,
    max_binding: Option<u32>,
    max_groups_per_dim: Option<u16>,
    binding_alignment: Option<u16>,
    transaction_bytes: Option<u8>,
    max_points_per_thread: Option<u8>,
    registers_per_workgroup: Option<u32>,
    max_cluster_blocks: Option<u8>,
    compute_units: Option<u8>,
    target_threads: Option<u16>,
    workgroups_wait: Option<bool>,
    exchange_rounds: Option<u8>,
}

/// A length: a power of two, a smooth length, or any.
#[derive(Arbitrary, Debug)]
enum Length {
    PowerOfTwo(u8),
    Smooth {
        twos: u8,
        threes: u8,
        fives: u8,
        sevens: u8,
        elevens: u8,
        thirteens: u8,
    },
    Any(u32),
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// A vector of the length the spec needs, or off by `wrong`.
    Multiply {
        wrong: i8,
    },
    MultiplyEach {
        wrong: i8,
    },
    Weight {
        per_part: bool,
    },
    Conjugate,
    Scale(f32),
    ZeroFrom(u32),
    Magnitude,
}

#[derive(Arbitrary, Debug)]
struct Chain {
    per_element: bool,
    wrong: i8,
}

/// Planner options, passed through raw so that bad values reach `PlanOptions::validate`.
#[derive(Arbitrary, Debug)]
struct Options {
    target_threads: Option<u16>,
    max_radix: u8,
    points_per_thread: Option<u8>,
    resident_bytes: Option<u32>,
    groups_per_unit: Option<u8>,
    max_chain_points: Option<u32>,
    prefetch: Option<bool>,
    bluestein_m: Option<u32>,
    min_lines: Option<u8>,
    cluster_blocks: Option<u8>,
    last_pass_points: Option<u32>,
    exchange: Option<bool>,
    merge: Option<bool>,
    persistent_groups: Option<u8>,
    exchange_rounds: Option<u8>,
}

impl Length {
    fn n(&self) -> usize {
        match *self {
            Length::PowerOfTwo(k) => 1 << (k % 29),
            Length::Smooth {
                twos,
                threes,
                fives,
                sevens,
                elevens,
                thirteens,
            } => {
                let mut n = 1usize;
                for (p, e) in [
                    (2, twos),
                    (3, threes),
                    (5, fives),
                    (7, sevens),
                    (11, elevens),
                    (13, thirteens),
                ] {
                    for _ in 0..e % 8 {
                        n = n.saturating_mul(p);
                    }
                }
                n
            }
            Length::Any(n) => n as usize % (1 << 20),
        }
    }
}

/// `len` complex values from `seed`, nonzero, and `len + wrong` of them (at least none).
fn vector(len: usize, wrong: i8, seed: u64) -> Arc<[Complex32]> {
    let len = len.saturating_add_signed(isize::from(wrong % 3));
    (0..len)
        .map(|i| {
            let t = (i as u64 ^ seed) as f32 * 0.618;
            Complex32::new(0.5 + 0.5 * t.sin(), 0.5 * t.cos())
        })
        .collect()
}

impl PlanCase {
    /// The spec, the device profile and the options this case describes.
    pub fn build(&self) -> Option<(FftSpec, DeviceLimits, PlanOptions)> {
        let n = self.length.n();
        // Kept to what a vector of the batch can hold in memory here.
        let batch = usize::from(self.batch) % 4097;
        let mut spec = FftSpec::new(n)
            .batch(batch)
            .precision(match self.precision % 4 {
                0 => Precision::F32,
                1 => Precision::F64,
                2 => Precision::F16,
                _ => Precision::Bf16,
            });
        if self.inverse {
            spec = spec.inverse();
        }
        if self.normalize {
            spec = spec.normalized();
        }
        if let Some(m) = self.columns {
            spec = spec.stacked_columns(usize::from(m % 4));
        }
        // (Bit 2 of the precision byte, which the four precisions leave free.)
        if self.precision & 4 != 0 {
            spec = spec.checksum(tierfft::Checksum::Detect);
        }
        // Element-wise vectors are only made for batches that are cheap to hold.
        let small = n.saturating_mul(batch) <= 1 << 16;
        let op = |op: &Op| -> Option<PointOp> {
            Some(match *op {
                Op::Multiply { wrong } if n <= 1 << 16 => {
                    PointOp::Multiply(vector(n, wrong, self.seed))
                }
                Op::MultiplyEach { wrong } if small => {
                    PointOp::MultiplyEach(vector(n * batch, wrong, self.seed))
                }
                Op::Weight { per_part } if small => {
                    let w: Vec<f32> = (0..n * batch * (1 + usize::from(per_part)))
                        .map(|i| 1.0 + (i % 7) as f32 * 0.125)
                        .collect();
                    PointOp::Weight(match per_part {
                        true => RealWeights::per_part(&w),
                        false => RealWeights::new(&w),
                    })
                }
                Op::Conjugate => PointOp::Conjugate,
                Op::Scale(s) if s.is_finite() && s.abs() < 1e6 && s.abs() > 1e-6 => {
                    PointOp::Scale(f64::from(s))
                }
                Op::ZeroFrom(k) => PointOp::ZeroFrom(k as usize),
                Op::Magnitude => PointOp::Magnitude,
                _ => return None,
            })
        };
        for o in self.load.iter().take(3).filter_map(op) {
            spec = spec.on_load(o);
        }
        for o in self.store.iter().take(3).filter_map(op) {
            spec = spec.on_store(o);
        }
        if let Some(c) = &self.chain {
            let len = if c.per_element {
                n.saturating_mul(batch)
            } else {
                n
            };
            if len <= 1 << 16 {
                spec = spec.then_multiply_and_invert(vector(len, c.wrong, self.seed));
            }
        }
        let profile = PROFILES[usize::from(self.profile) % PROFILES.len()];
        let mut limits = DeviceLimits::profile(profile)?;
        if let Some(l) = &self.limits {
            let set = |field: &mut usize, v: Option<usize>| *field = v.unwrap_or(*field);
            set(
                &mut limits.workgroup_memory,
                l.workgroup_memory.map(|v| v as usize),
            );
            set(&mut limits.max_threads, l.max_threads.map(usize::from));
            set(&mut limits.subgroup_size, l.subgroup_size.map(usize::from));
            set(
                &mut limits.transaction_bytes,
                l.transaction_bytes.map(usize::from),
            );
            set(
                &mut limits.max_points_per_thread,
                l.max_points_per_thread.map(usize::from),
            );
            set(
                &mut limits.registers_per_workgroup,
                l.registers_per_workgroup.map(|v| v as usize),
            );
            set(
                &mut limits.max_cluster_blocks,
                l.max_cluster_blocks.map(usize::from),
            );
            set(&mut limits.compute_units, l.compute_units.map(usize::from));
            set(
                &mut limits.target_threads,
                l.target_threads.map(usize::from),
            );
            limits.workgroups_wait = l.workgroups_wait.unwrap_or(limits.workgroups_wait);
            set(
                &mut limits.exchange_rounds,
                l.exchange_rounds.map(usize::from),
            );
            limits.max_binding = l.max_binding.map_or(limits.max_binding, u64::from);
            limits.max_groups_per_dim = l
                .max_groups_per_dim
                .map_or(limits.max_groups_per_dim, u32::from);
            limits.binding_alignment = l
                .binding_alignment
                .map_or(limits.binding_alignment, u64::from);
        }
        let o = &self.options;
        let opts = PlanOptions::default()
            .with_target_threads(o.target_threads.map(usize::from))
            .with_max_radix(usize::from(o.max_radix % 20))
            .with_points_per_thread(o.points_per_thread.map(usize::from))
            .with_resident_bytes(o.resident_bytes.map(|b| b as usize))
            .with_groups_per_unit(o.groups_per_unit.map(usize::from))
            .with_max_chain_points(o.max_chain_points.map(|p| p as usize))
            .with_prefetch(o.prefetch)
            .with_bluestein_m(o.bluestein_m.map(|m| m as usize % (1 << 24)))
            .with_min_lines(o.min_lines.map(usize::from))
            .with_cluster_blocks(o.cluster_blocks.map(usize::from))
            .with_last_pass_points(o.last_pass_points.map(|p| p as usize))
            .with_exchange(o.exchange.map(|split| {
                if split {
                    Exchange::Split
                } else {
                    Exchange::Complex
                }
            }))
            .with_merge(o.merge)
            .with_persistent_groups(o.persistent_groups.map(usize::from))
            .with_exchange_rounds(o.exchange_rounds.map(usize::from));
        Some((spec, limits, opts))
    }
}

/// Decodes a [`PlanCase`] from `data` and checks it ([`plan_case`]).
pub fn plan(data: &[u8]) -> Result<(), String> {
    match PlanCase::arbitrary_take_rest(Unstructured::new(data)) {
        Ok(case) => plan_case(&case),
        Err(_) => Ok(()),
    }
}

/// Plans `case` and checks the plan ([`check_plan`]); `Err` names the case.
pub fn plan_case(case: &PlanCase) -> Result<(), String> {
    let (spec, limits, opts) = case
        .build()
        .ok_or("a profile DeviceLimits::profile lacks")?;
    check_plan(&spec, &limits, &opts, INTERPRET_POINTS, case.seed)
        .map(|_| ())
        .map_err(|e| format!("{case:?} on {}:\n{e}", limits.name))
}
