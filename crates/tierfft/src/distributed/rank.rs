//! One rank of a distributed transform: its steps (local transforms and its part of each
//! change of layout, [`super::plan`]), and the scratch arrays it keeps between runs.

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use super::exchange::{Exchange, Pending};
use super::plan::{Plan, Slot, Step};
use super::play::{finish, play, start};
use super::{DistSpec, Region};
use crate::backend::{Device, DeviceBuffer, median};
use crate::error::{Error, Result};
use crate::spec::Direction;

/// One rank's share of a distributed transform ([`super::DistSpec`]): made on each device
/// with its end of an [`Exchange`], and run by every rank at once (each on its own thread or
/// process; [`super::DistFft`] runs a whole group in one process).
pub struct RankFft {
    spec: DistSpec,
    rank: usize,
    device: Device,
    plan: Plan,
    exchange: Mutex<Box<dyn Exchange>>,
    link: &'static str,
    scratch: Mutex<Scratch>,
}

/// Arrays kept from the first run until the transform is dropped: the plan's intermediate
/// layouts, and the staging and receive buffers of its exchanges (all made at once).
#[derive(Default)]
struct Scratch {
    arrays: Vec<DeviceBuffer>,
    staging: Option<DeviceBuffer>,
    received: Option<DeviceBuffer>,
}

/// A rank's exchange and scratch, held for one run.
type Locked<'a> = (MutexGuard<'a, Box<dyn Exchange>>, MutexGuard<'a, Scratch>);

/// The rank, its device, the parts of the global arrays it holds and its steps.
impl std::fmt::Display for RankFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "rank {} on {}, exchanging through {}: input {:?} of the global array, output {:?}",
            self.rank,
            self.device.name(),
            self.link,
            self.plan.input.0,
            self.plan.output.0
        )?;
        self.plan.write(f, "  ")
    }
}

/// Times of a distributed transform ([`RankFft::time`], [`super::DistFft::time`]), seconds
/// per run (host clock from a common start until the device, or every device, has finished).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DistTimes {
    /// The whole transform.
    pub total: Vec<f64>,
    /// The all-to-alls alone, without their packing copies (same buffers and counts).
    pub exchange: Vec<f64>,
    /// The local transforms alone.
    pub transforms: Vec<f64>,
}

impl DistTimes {
    /// Each run's time on the slowest of `ranks` (each rank's [`RankFft::time`]): the
    /// group's times.
    pub fn slowest(ranks: &[DistTimes]) -> DistTimes {
        let max = |of: fn(&DistTimes) -> &Vec<f64>| -> Vec<f64> {
            let runs = ranks.iter().map(|r| of(r).len()).min().unwrap_or(0);
            (0..runs)
                .map(|k| ranks.iter().map(|r| of(r)[k]).fold(0.0, f64::max))
                .collect()
        };
        DistTimes {
            total: max(|t| &t.total),
            exchange: max(|t| &t.exchange),
            transforms: max(|t| &t.transforms),
        }
    }

    /// Medians of the three, seconds.
    pub fn medians(&self) -> (f64, f64, f64) {
        (
            median(&self.total),
            median(&self.exchange),
            median(&self.transforms),
        )
    }
}

/// What one timed run does (for [`RankFft::time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The whole transform.
    All,
    /// The all-to-alls alone (no packing copies), on the same buffers and counts.
    Exchange,
    /// The local transforms alone.
    Transforms,
}

/// The caller's buffers of one run.
enum User<'a> {
    Complex(&'a mut DeviceBuffer, &'a mut DeviceBuffer),
    RealIn(&'a mut DeviceBuffer<f32>, &'a mut DeviceBuffer),
    RealOut(&'a mut DeviceBuffer, &'a mut DeviceBuffer<f32>),
}

impl RankFft {
    /// Rank `exchange.rank()` of `spec` over `exchange.ranks()` ranks, on `device` (which
    /// must hold the buffers `exchange` moves).
    pub fn new(spec: &DistSpec, device: Device, exchange: Box<dyn Exchange>) -> Result<RankFft> {
        if !device.distributes() {
            return Err(Error::Unsupported {
                what: "a distributed transform".into(),
                device: device.name(),
                detail: "distributed transforms run on CUDA GPUs (over NCCL) or CPU ranks".into(),
            });
        }
        let (rank, ranks) = (exchange.rank(), exchange.ranks());
        if rank >= ranks {
            return Err(Error::InvalidSpec(format!(
                "an exchange says it is rank {rank} of {ranks}"
            )));
        }
        spec.validate(ranks)?;
        let plan = Plan::new(spec, rank, ranks, &device, &*exchange)?;
        Ok(RankFft {
            spec: spec.clone(),
            rank,
            device,
            plan,
            link: exchange.link(),
            exchange: Mutex::new(exchange),
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// This rank's index.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Parts its slab's change of layout is cut into ([`super::DistSpec::parts`]; 1 when
    /// whole, and for pencils).
    pub fn parts(&self) -> usize {
        self.plan.parts
    }

    /// Bytes one run moves (for [`super::Estimate`]); `None` on the CPU.
    pub(crate) fn traffic(&self) -> Option<super::estimate::Traffic> {
        self.plan.traffic()
    }

    /// What carries this rank's messages ([`Exchange::link`]).
    pub fn link(&self) -> &'static str {
        self.link
    }

    /// The device this rank runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The part of the global input array this rank holds (its local array is that box,
    /// row-major): the real array's for R2C, the complex one's otherwise.
    pub fn input_box(&self) -> &Region {
        &self.plan.input
    }

    /// The part of the global output array this rank holds.
    pub fn output_box(&self) -> &Region {
        &self.plan.output
    }

    /// Elements of this rank's input: reals for R2C, complex values otherwise.
    pub fn input_len(&self) -> usize {
        self.plan.input.len()
    }

    /// Elements of this rank's output: reals for C2R, complex values otherwise.
    pub fn output_len(&self) -> usize {
        self.plan.output.len()
    }

    /// Bytes that leave this rank for its peers in the all-to-alls of one transform.
    pub fn bytes_sent(&self) -> usize {
        self.plan
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Move { moves, .. } | Step::Send { moves, .. } => {
                    Some(8 * moves.sent().iter().sum::<usize>())
                }
                _ => None,
            })
            .sum::<usize>()
    }

    fn check(&self, what: &str, got: usize, expected: usize) -> Result<()> {
        if got == expected {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "rank {}'s {what} holds {got} elements; its part of {:?} has {expected}",
            self.rank, self.spec.shape
        )))
    }

    fn expect(&self, real: bool, forward: Option<bool>) -> Result<()> {
        let is_forward = self.spec.direction == Direction::Forward;
        if self.spec.real == real && forward.is_none_or(|f| f == is_forward) {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "this distributed transform is {} {}; call {}",
            if self.spec.real {
                "a real"
            } else {
                "a complex"
            },
            if is_forward { "forward" } else { "inverse" },
            match (self.spec.real, is_forward) {
                (false, _) => "process",
                (true, true) => "process_real_to_complex",
                (true, false) => "process_complex_to_real",
            }
        )))
    }

    fn locks(&self) -> Result<Locked<'_>> {
        let poisoned = || Error::gpu(format!("rank {} panicked during a run", self.rank));
        Ok((
            self.exchange.lock().map_err(|_| poisoned())?,
            self.scratch.lock().map_err(|_| poisoned())?,
        ))
    }

    /// A complex transform (forward or inverse) from `input` into `output`, each this rank's
    /// part in its layout ([`RankFft::input_box`], [`RankFft::output_box`]); `input` is used
    /// as scratch and overwritten. Queued, not waited for; every rank must call it.
    pub fn process(&self, input: &mut DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        self.expect(false, None)?;
        self.run(User::Complex(input, output), Part::All)
    }

    /// R2C: this rank's part of the reals in, its part of the spectrum out.
    pub fn process_real_to_complex(
        &self,
        input: &mut DeviceBuffer<f32>,
        output: &mut DeviceBuffer,
    ) -> Result<()> {
        self.expect(true, Some(true))?;
        self.run(User::RealIn(input, output), Part::All)
    }

    /// C2R: this rank's part of the spectrum in (used as scratch), its part of the reals out.
    pub fn process_complex_to_real(
        &self,
        input: &mut DeviceBuffer,
        output: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        self.expect(true, Some(false))?;
        self.run(User::RealOut(input, output), Part::All)
    }

    /// This rank's times of `reps` runs of a complex forward transform, of its all-to-alls
    /// alone and of its local transforms alone, on zeroed parts (values do not change the
    /// time), after one untimed run of each. Each run starts when `end_round(true)` returns
    /// and ends when this rank's device has finished; then `end_round(ok)` must return on
    /// every rank (and fail on every rank where one failed), so every rank calls this with
    /// the same `reps` and a barrier between the ranks: [`super::Rounds::end`] for threads,
    /// [`super::Rendezvous::end_round`] for processes.
    pub fn time(
        &self,
        reps: usize,
        mut end_round: impl FnMut(bool) -> Result<()>,
    ) -> Result<DistTimes> {
        if self.spec.real || self.spec.direction != Direction::Forward {
            return Err(Error::InvalidSpec(
                "distributed timing runs complex forward transforms".into(),
            ));
        }
        // Every rank learns of one whose buffers could not be made, rather than wait for it.
        let buffers = (self.device.zeros(self.input_len()))
            .and_then(|input| Ok((input, self.device.zeros(self.output_len())?)));
        end_round(buffers.is_ok())?;
        let (mut input, mut output) = buffers?;
        let reps = reps.max(1);
        let mut timed = |part: Part| -> Result<Vec<f64>> {
            let mut seconds = Vec::with_capacity(reps);
            for rep in 0..=reps {
                end_round(true)?;
                let t = Instant::now();
                let done = self
                    .run(User::Complex(&mut input, &mut output), part)
                    .and_then(|()| self.device.synchronize());
                let elapsed = t.elapsed().as_secs_f64();
                let everyone = end_round(done.is_ok());
                done?;
                everyone?;
                if rep > 0 {
                    seconds.push(elapsed);
                }
            }
            Ok(seconds)
        };
        Ok(DistTimes {
            total: timed(Part::All)?,
            exchange: timed(Part::Exchange)?,
            transforms: timed(Part::Transforms)?,
        })
    }

    /// Runs the plan's steps (those of `part`); on an error, tells the other ranks
    /// ([`Exchange::abort`]) so that they do not wait for this one.
    fn run(&self, user: User, part: Part) -> Result<()> {
        let result = self.run_steps(user, part);
        if result.is_err()
            && let Ok(mut ex) = self.exchange.lock()
        {
            ex.abort();
        }
        result
    }

    /// Runs the plan's steps (those of `what`) on the caller's buffers and the scratch.
    fn run_steps(&self, user: User, what: Part) -> Result<()> {
        let (input_len, output_len) = match &user {
            User::Complex(i, o) => (i.len(), o.len()),
            User::RealIn(i, o) => (i.len(), o.len()),
            User::RealOut(i, o) => (i.len(), o.len()),
        };
        self.check("input", input_len, self.input_len())?;
        self.check("output", output_len, self.output_len())?;
        let (mut ex, mut scratch) = self.locks()?;
        let scratch = &mut *scratch;
        if scratch.staging.is_none() {
            for &len in &self.plan.arrays {
                scratch.arrays.push(self.device.zeros(len.max(1))?);
            }
            scratch.received = Some(self.device.zeros(self.plan.received.max(1))?);
            scratch.staging = Some(self.device.zeros(self.plan.staging.max(1))?);
        }
        let (Some(staging), Some(received)) = (&mut scratch.staging, &mut scratch.received) else {
            return Err(Error::gpu("scratch arrays were not made"));
        };
        let mut slots = Slots {
            user,
            arrays: &mut scratch.arrays,
        };
        // All-to-alls started and not yet received; any left at an error join as they drop,
        // before the buffers they use are given back.
        let mut pending: Vec<Option<Pending>> = (0..self.plan.sends).map(|_| None).collect();
        let (transforms, exchanges) = (what != Part::Exchange, what != Part::Transforms);
        let copies = what == Part::All;
        for step in &self.plan.steps {
            match step {
                Step::Fft { fft, on, part } if transforms => {
                    let on = slots.one(*on)?;
                    match part {
                        None => fft.process_buffer(on)?,
                        Some(rows) => fft.process_buffer(&mut on.view_mut(rows.clone())?)?,
                    }
                }
                Step::RealIn { fft, into, part } if transforms => {
                    let (real, out) = slots.real_in(*into)?;
                    match part {
                        None => fft.process_buffer_real_to_complex(real, out)?,
                        Some(p) => fft.process_buffer_real_to_complex(
                            &mut real.view_mut(p.reals.clone())?,
                            &mut out.view_mut(p.complex.clone())?,
                        )?,
                    }
                }
                Step::RealOut { fft, from, part } if transforms => {
                    let (input, real) = slots.real_out(*from)?;
                    match part {
                        None => fft.process_buffer_complex_to_real(input, real)?,
                        Some(p) => fft.process_buffer_complex_to_real(
                            &mut input.view_mut(p.complex.clone())?,
                            &mut real.view_mut(p.reals.clone())?,
                        )?,
                    }
                }
                Step::Move {
                    moves,
                    natural,
                    transposed,
                } if exchanges => {
                    let (n, t) = slots.two(*natural, *transposed)?;
                    play(moves, &mut **ex, [n, t, staging, received], copies)?;
                }
                Step::Send {
                    moves,
                    natural,
                    transposed,
                    id,
                } if exchanges => {
                    let (n, t) = slots.two(*natural, *transposed)?;
                    let arrays = [n, t, &mut *staging, &mut *received];
                    // SAFETY: the plan's later steps, until this part's receive, neither
                    // write the elements it sends (a part of staging of its own, or rows of
                    // the transposed array already transformed) nor touch those it receives
                    // (rows of its own); every array outlives `pending`.
                    let started = unsafe { start(moves, &mut **ex, arrays, copies)? };
                    pending[*id] = Some(started);
                }
                Step::Receive {
                    moves,
                    natural,
                    transposed,
                    id,
                } if exchanges => {
                    if let Some(started) = pending[*id].take() {
                        ex.join(started)?;
                    }
                    if copies {
                        let (n, t) = slots.two(*natural, *transposed)?;
                        finish(moves, [n, t, &mut *staging, &mut *received])?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The arrays a plan's steps name, lent out one or two at a time.
struct Slots<'a> {
    user: User<'a>,
    arrays: &'a mut [DeviceBuffer],
}

impl Slots<'_> {
    fn missing(slot: Slot) -> Error {
        Error::InvalidSpec(format!(
            "a distributed plan's step names {slot:?}, which this run lacks"
        ))
    }

    fn one(&mut self, slot: Slot) -> Result<&mut DeviceBuffer> {
        match (slot, &mut self.user) {
            (Slot::Input, User::Complex(i, _) | User::RealOut(i, _)) => Ok(i),
            (Slot::Output, User::Complex(_, o) | User::RealIn(_, o)) => Ok(o),
            (Slot::Scratch(k), _) => self.arrays.get_mut(k).ok_or_else(|| Self::missing(slot)),
            _ => Err(Self::missing(slot)),
        }
    }

    fn two(&mut self, a: Slot, b: Slot) -> Result<(&mut DeviceBuffer, &mut DeviceBuffer)> {
        let missing = || Self::missing(a);
        match (a, b) {
            (Slot::Scratch(i), Slot::Scratch(j)) if i != j => {
                let (lo, hi) = (i.min(j), i.max(j));
                let (head, tail) = self.arrays.split_at_mut(hi);
                let (x, y) = (head.get_mut(lo).ok_or_else(missing)?, &mut tail[0]);
                Ok(if i < j { (x, y) } else { (y, x) })
            }
            (Slot::Scratch(k), user) | (user, Slot::Scratch(k)) => {
                let scratch = self.arrays.get_mut(k).ok_or_else(missing)?;
                let mine = match (user, &mut self.user) {
                    (Slot::Input, User::Complex(i, _) | User::RealOut(i, _)) => &mut **i,
                    (Slot::Output, User::Complex(_, o) | User::RealIn(_, o)) => &mut **o,
                    _ => return Err(missing()),
                };
                Ok(if matches!(a, Slot::Scratch(_)) {
                    (scratch, mine)
                } else {
                    (mine, scratch)
                })
            }
            (Slot::Input, Slot::Output) | (Slot::Output, Slot::Input) => match &mut self.user {
                User::Complex(i, o) => Ok(if a == Slot::Input { (i, o) } else { (o, i) }),
                _ => Err(missing()),
            },
            _ => Err(missing()),
        }
    }

    fn real_in(&mut self, into: Slot) -> Result<(&mut DeviceBuffer<f32>, &mut DeviceBuffer)> {
        match (&mut self.user, into) {
            (User::RealIn(real, _), Slot::Scratch(k)) => Ok((
                real,
                self.arrays.get_mut(k).ok_or_else(|| Self::missing(into))?,
            )),
            (User::RealIn(real, out), Slot::Output) => Ok((real, out)),
            _ => Err(Self::missing(into)),
        }
    }

    fn real_out(&mut self, from: Slot) -> Result<(&mut DeviceBuffer, &mut DeviceBuffer<f32>)> {
        match (&mut self.user, from) {
            (User::RealOut(_, real), Slot::Scratch(k)) => Ok((
                self.arrays.get_mut(k).ok_or_else(|| Self::missing(from))?,
                real,
            )),
            (User::RealOut(input, real), Slot::Input) => Ok((input, real)),
            _ => Err(Self::missing(from)),
        }
    }
}
