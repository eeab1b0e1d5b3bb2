//! The launch schedule: every kernel launch of one run of a plan, as data.
//!
//! A run of `transforms` transforms is a list of launches, each one pass over some of the
//! transforms, reading one part of a buffer slot and writing another, on a grid of
//! workgroups. The CUDA and wgpu backends and the IR interpreter all follow the same
//! [`Schedule`]: they keep only what is theirs (allocating the slots, compiling the kernels
//! and making one driver call per launch), so the interpreter tests the backends' own
//! schedule. `tierfft plan N --launches` prints it.

use std::fmt;
use std::ops::Range;

use super::{DeviceLimits, Plan, PlanOptions, transforms_per_binding};
use crate::error::Result;
use crate::spec::FftSpec;

/// Workgroups a persistent kernel is launched with where the backend cannot ask the device
/// how many it holds at once (wgpu, the interpreter): enough for several per compute unit
/// of the GPUs we plan for. CUDA launches the occupancy it reads from the driver instead.
pub const PERSISTENT_WAVE: u32 = 256;

/// Which buffer slot each pass reads and writes, `(source, destination)` by pass.
pub type Routing = Vec<(usize, usize)>;

/// Where a run's input is and where its result must go: which [`Routing`] it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    /// Slot 0 holds the input and may be overwritten ([`Plan::routing`] without keeping
    /// the input): a one-pass plan, or a chain split into one-pass halves, runs in place.
    InPlace,
    /// Slot 0 holds the input, which is kept ([`Plan::routing`] keeping the input).
    KeepInput,
    /// Slot 0 holds the input, which is kept, and the result slot is a caller's array of
    /// the output's rows only ([`Plan::routing_into_caller`]).
    IntoCaller,
}

/// The workgroups of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// Each workgroup runs once: `x` × `y` of them (`y` > 1 folds a grid wider than a
    /// dimension allows into rows; the kernel folds them back into one index).
    Fixed { x: u32, y: u32 },
    /// A persistent kernel: one wave of workgroups, each looping over the `groups` groups
    /// with the wave's size as its stride.
    Persistent { groups: u32 },
    /// A cluster kernel: `groups` workgroups in clusters of `blocks` (CUDA thread-block
    /// clusters sharing their workgroup memory).
    Clusters { groups: u32, blocks: u32 },
    /// A merged kernel ([`crate::plan::Merged`]): one wave of workgroups (at most `groups`
    /// where that is set) taking the `tickets` tiles of both passes by ticket.
    Tickets { tickets: u32, groups: Option<u32> },
}

impl Grid {
    /// The grid's dimensions `(x, y)`, a persistent kernel's wave being at most `wave`
    /// workgroups (the device's resident workgroups, or [`PERSISTENT_WAVE`]).
    pub fn dims(self, wave: u32) -> (u32, u32) {
        match self {
            Grid::Fixed { x, y } => (x, y),
            Grid::Persistent { groups } => (groups.min(wave).max(1), 1),
            Grid::Clusters { groups, .. } => (groups, 1),
            Grid::Tickets { tickets, groups } => {
                (tickets.min(wave).min(groups.unwrap_or(u32::MAX)).max(1), 1)
            }
        }
    }

    /// Counters ([`crate::kernel::ir::Mem::Counters`]) a launch of `transforms` transforms
    /// needs zeroed before it: for a merged launch the ticket, then one per transform; 0 for
    /// the others.
    pub fn counters(self, transforms: usize) -> usize {
        match self {
            Grid::Tickets { .. } => 1 + transforms,
            _ => 0,
        }
    }
}

/// A run of a slot's elements: complex values of the plan's precision, from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The buffer slot ([`Schedule::slots`]).
    pub slot: usize,
    /// First element.
    pub start: usize,
    /// Elements.
    pub len: usize,
}

impl Span {
    /// The span in units of `scale` per element (4-byte words, bytes).
    pub fn scaled(&self, scale: usize) -> Range<usize> {
        scale * self.start..scale * (self.start + self.len)
    }
}

/// One kernel launch: a pass over `count` transforms from `first`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The pass ([`Plan::passes`]) whose kernel runs.
    pub pass: usize,
    /// The passes it runs: its own, or both of a merged plan's ([`Plan::merged`]).
    pub passes: Range<usize>,
    /// Whether the pass reads and writes one slot, and so runs its in-place kernel.
    pub in_place: bool,
    /// First transform of the batch this launch covers.
    pub first: usize,
    /// Transforms it covers.
    pub count: usize,
    /// The kernel's `lines` parameter: lines of the pass in the launch.
    pub lines: u32,
    /// The workgroups.
    pub grid: Grid,
    /// The rows the kernel reads (`None` in place: it reads `dst`).
    pub src: Option<Span>,
    /// The rows the kernel writes.
    pub dst: Span,
    /// A checksummed pass's records in the check buffer: complex values of the compute
    /// precision ([`Plan::check_regions`]).
    pub check: Option<Range<usize>>,
    /// Whether this is its pass's last launch: the point at which a fault armed for the
    /// pass (tests of the checksummed mode) is injected into the pass's destination slot.
    pub ends_pass: bool,
    /// The elements of the vectors buffer it binds: its pass's ([`Plan::aux_range`]).
    pub vectors: Range<usize>,
}

/// What one slot must hold for a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Elements per transform: the longest rows any pass reads from or writes to it.
    pub row: usize,
    /// Transforms it holds at once: all of the run's, or one chunk's in a resident plan's
    /// intermediate slots (reused from the start by every chunk, so they stay in L2).
    pub transforms: usize,
}

impl Slot {
    /// Elements the slot holds.
    pub fn len(&self) -> usize {
        self.row * self.transforms
    }

    /// Whether the slot holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Every launch of one run of a plan, in order, with the buffers they bind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Transforms in the run.
    pub transforms: usize,
    /// Where the input is and where the result goes.
    pub route: Route,
    /// Which slot each pass reads and writes.
    pub routing: Routing,
    /// The buffer slots: slot 0 holds the input.
    pub slots: Vec<Slot>,
    /// The slot holding the result after the last launch.
    pub result: usize,
    /// The launches, in order.
    pub launches: Vec<Launch>,
    /// Complex values (of the compute precision) in the check buffer; 0 where the plan is
    /// not checksummed.
    pub check_len: usize,
    /// Complex values in the twiddle buffer every launch binds whole.
    pub twiddles: usize,
    /// Elements of the vectors buffer ([`Plan::aux_len`]), of which each launch binds its
    /// pass's.
    pub vectors: usize,
}

impl Plan {
    /// The routing `route` takes.
    pub fn route(&self, route: Route) -> Routing {
        match route {
            Route::InPlace => self.routing(false),
            Route::KeepInput => self.routing(true),
            Route::IntoCaller => self.routing_into_caller(),
        }
    }

    /// The launch schedule of a run of `transforms` transforms by `route`.
    pub fn schedule(&self, transforms: usize, route: Route) -> Schedule {
        let routing = self.route(route);
        let result = Plan::result_slot(&routing);
        let resident = |slot: usize| self.resident && slot != 0 && slot != result;
        let slots = self
            .slot_lens(&routing)
            .into_iter()
            .enumerate()
            .map(|(slot, row)| Slot {
                row,
                transforms: match resident(slot) {
                    true => self.transforms_per_dispatch.min(transforms),
                    false => transforms,
                },
            })
            .collect();
        let (regions, check_len) = match self.checksummed() {
            true => self.check_regions(transforms),
            false => (Vec::new(), 0),
        };
        let dispatches = self.dispatches(transforms);
        let vectors: Vec<Range<usize>> =
            (0..self.passes.len()).map(|p| self.aux_range(p)).collect();
        let launches = dispatches
            .iter()
            .enumerate()
            .map(|(d, &(p, first, count))| {
                let pass = &self.passes[p];
                let (src, dst) = routing[p];
                // This launch's rows, of the pass's own lengths (Bluestein's differ); a
                // resident plan's intermediate slots hold one chunk, from the start.
                let span = |slot: usize, row: usize| {
                    let at = if resident(slot) { 0 } else { first };
                    Span {
                        slot,
                        start: at * row,
                        len: count * row,
                    }
                };
                let groups = self.groups(pass, count) as u32;
                let grid = match (&self.merged, &pass.cluster, pass.prefetch()) {
                    (Some(m), _, _) => Grid::Tickets {
                        tickets: m.tickets(count) as u32,
                        groups: m.groups.map(|g| g as u32),
                    },
                    (None, Some(c), _) => Grid::Clusters {
                        groups,
                        blocks: c.blocks as u32,
                    },
                    (None, None, true) => Grid::Persistent { groups },
                    (None, None, false) => {
                        let x = groups.min(self.limits.max_groups_per_dim).max(1);
                        Grid::Fixed {
                            x,
                            y: groups.div_ceil(x),
                        }
                    }
                };
                Launch {
                    pass: p,
                    passes: match self.merged {
                        Some(_) => 0..2,
                        None => p..p + 1,
                    },
                    in_place: src == dst,
                    first,
                    count,
                    lines: (count * self.lines_per_transform(pass)) as u32,
                    grid,
                    src: (src != dst).then(|| span(src, pass.src_len)),
                    dst: span(dst, pass.dst_len),
                    check: regions
                        .iter()
                        .find(|r| r.dispatch == d)
                        .map(|r| r.offset..r.offset + r.len),
                    // (A merged plan's last launch ends both passes.)
                    ends_pass: dispatches.get(d + 1).is_none_or(|next| next.0 != p),
                    vectors: vectors[p].clone(),
                }
            })
            .collect();
        Schedule {
            transforms,
            route,
            routing,
            slots,
            result,
            launches,
            check_len,
            twiddles: self.twiddles.len(),
            vectors: self.aux_len(),
        }
    }
}

/// Transforms one launch covers, and whether the plan runs chunk by chunk for L2 residency
/// ([`Plan::resident`]), for `spec`'s transform in `passes` passes: as many as the binding
/// limit allows (the whole batch where it must be bound at once), fewer where the
/// L2-resident option asks for chunks small enough that a pass's output is still cached when
/// the next pass reads it.
pub(super) fn dispatch_size(
    spec: &FftSpec,
    limits: &DeviceLimits,
    opts: &PlanOptions,
    passes: usize,
) -> Result<(usize, bool)> {
    let whole = spec.whole_batch();
    let transform_bytes = (spec.precision.complex_bytes() * spec.n) as u64;
    let (src_len, dst_len) = spec.row_lens();
    let mut transforms_per_dispatch = transforms_per_binding(
        limits,
        &[src_len, dst_len],
        spec.precision.complex_bytes(),
        spec.whole_batch(),
        spec.batch,
    )?;
    // L2 residency: chunks small enough that a pass's output is still cached when the next
    // pass reads it.
    let budget = opts.resident_bytes.unwrap_or(0);
    let resident = passes > 1 && budget > 0 && !whole;
    if resident {
        let per = (budget as u64 / transform_bytes).max(1) as usize;
        transforms_per_dispatch = transforms_per_dispatch.min(per);
    }
    let transforms_per_dispatch = if whole {
        spec.batch
    } else {
        transforms_per_dispatch.min(spec.batch)
    };
    Ok((transforms_per_dispatch, resident))
}

impl Schedule {
    /// The launch after which a fault armed for `pass` is injected, and the slot it flips.
    pub fn fault_point(&self, pass: usize) -> Option<(usize, usize)> {
        let i = self
            .launches
            .iter()
            .rposition(|l| l.passes.contains(&pass) && l.ends_pass)?;
        Some((i, self.launches[i].dst.slot))
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let route = match self.route {
            Route::InPlace => "the input may be overwritten",
            Route::KeepInput => "the input is kept",
            Route::IntoCaller => "the input is kept, the result written into the caller's array",
        };
        writeln!(
            f,
            "launch schedule of {} transforms ({route}): {} launch{}",
            self.transforms,
            self.launches.len(),
            if self.launches.len() == 1 { "" } else { "es" }
        )?;
        for (i, s) in self.slots.iter().enumerate() {
            let what = match i {
                0 if i == self.result => " (input and result)",
                0 => " (input)",
                _ if i == self.result => " (result)",
                _ => "",
            };
            writeln!(
                f,
                "slot {i}: {} transforms of {} elements{what}",
                s.transforms, s.row
            )?;
        }
        writeln!(
            f,
            "every launch also binds the twiddles ({} values) and its pass's part of the \
             vectors ({} values in all){}",
            self.twiddles,
            self.vectors,
            match self.check_len {
                0 => String::new(),
                n => format!("; check buffer: {n} values"),
            }
        )?;
        writeln!(
            f,
            "{:>4}  {:>4}  {:>13}  {:>9}  {:<22}  {:<22}  {:<22}  {:<15}  checks",
            "#", "pass", "transforms", "lines", "grid", "reads", "writes", "vectors"
        )?;
        let span = |s: &Span| format!("slot {} [{}, {})", s.slot, s.start, s.start + s.len);
        for (i, l) in self.launches.iter().enumerate() {
            let grid = match l.grid {
                Grid::Fixed { x, y: 1 } => format!("{x}"),
                Grid::Fixed { x, y } => format!("{x} x {y}"),
                Grid::Persistent { groups } => format!("persistent over {groups}"),
                Grid::Clusters { groups, blocks } => format!("{groups} in clusters of {blocks}"),
                Grid::Tickets { tickets, .. } => format!("{tickets} tiles by ticket"),
            };
            let reads = l.src.as_ref().map_or("(in place)".into(), span);
            let checks = l
                .check
                .as_ref()
                .map_or("-".into(), |r| format!("[{}, {})", r.start, r.end));
            writeln!(
                f,
                "{i:>4}  {:>4}  {:>13}  {:>9}  {grid:<22}  {reads:<22}  {:<22}  {:<15}  {checks}",
                l.pass,
                format!("{}..{}", l.first, l.first + l.count),
                l.lines,
                span(&l.dst),
                format!("[{}, {})", l.vectors.start, l.vectors.end),
            )?;
        }
        if self.check_len > 0 {
            // Where tests of the checksummed mode flip a bit, one point per pass.
            let points: Vec<String> = (0..self.routing.len())
                .filter_map(|p| self.fault_point(p))
                .map(|(launch, slot)| format!("launch {launch} (slot {slot})"))
                .collect();
            writeln!(f, "fault points, pass by pass: after {}", points.join(", "))?;
        }
        write!(f, "result in slot {}", self.result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FftSpec;
    use crate::plan::DeviceLimits;

    /// Every profile's plans: launches cover each pass's transforms once, in spans that lie
    /// inside their slots, and check regions that do not overlap.
    #[test]
    fn launches_cover_each_pass_once_inside_their_slots() {
        for name in DeviceLimits::PROFILES {
            let limits = DeviceLimits::profile(name).expect("a profile");
            for (n, batch) in [
                (1 << 10, 3),
                (1 << 16, 5),
                (1 << 20, 2),
                (1009, 4),
                (3 << 14, 7),
            ] {
                let spec = FftSpec::new(n).batch(batch);
                let Ok(plan) = Plan::new(&spec, &limits) else {
                    continue;
                };
                for route in [Route::InPlace, Route::KeepInput, Route::IntoCaller] {
                    let s = plan.schedule(batch, route);
                    let mut covered = vec![0; plan.passes.len()];
                    let mut checks: Vec<Range<usize>> = Vec::new();
                    for l in &s.launches {
                        for p in l.passes.clone() {
                            covered[p] += l.count;
                        }
                        for span in l.src.iter().chain([&l.dst]) {
                            assert!(
                                span.start + span.len <= s.slots[span.slot].len(),
                                "{n}x{batch} on {}: {span:?} past its slot",
                                limits.name
                            );
                        }
                        if let Some(c) = &l.check {
                            assert!(c.end <= s.check_len);
                            assert!(checks.iter().all(|o| o.end <= c.start || c.end <= o.start));
                            checks.push(c.clone());
                        }
                    }
                    assert!(covered.iter().all(|&c| c == batch), "{covered:?}");
                    for p in 0..plan.passes.len() {
                        let (i, slot) = s.fault_point(p).expect("every pass has an end");
                        assert!(s.launches[i + 1..].iter().all(|l| !l.passes.contains(&p)));
                        assert_eq!(slot, s.routing[p].1);
                    }
                }
            }
        }
    }

    /// A printed schedule names every launch.
    #[test]
    fn prints_every_launch() {
        let limits = DeviceLimits::profile("lavapipe").expect("a profile");
        let plan = Plan::new(&FftSpec::new(1 << 16).batch(2), &limits).expect("plan");
        let s = plan.schedule(2, Route::KeepInput);
        let text = s.to_string();
        assert!(text.contains(&format!("{} launches", s.launches.len())));
        assert_eq!(
            text.lines().filter(|l| l.contains("slot 0 [")).count(),
            1,
            "{text}"
        );
        assert!(text.ends_with(&format!("result in slot {}", s.result)));
    }
}
