//! One pass over device memory, as typed steps: its shape (size, radices, threads, lines),
//! then what it does to the points on the way in ([`Load`]), on chip ([`Body`]) and on the
//! way out ([`Store`]), and whether it runs as a persistent kernel ([`Persistent`]) or a
//! cluster ([`Cluster`]). The planner builds passes (the decomposition their shapes, the
//! roles their operations); the kernel generator reads them and the transform's
//! [`Geometry`], not the spec.

use super::{Cluster, Exchange, LineOrder, RealFusion, shape};
use crate::base::precision::Precision;
use crate::base::values::Values;
use crate::spec::{Direction, Layout, PointOp, RealHalf};

/// One pass over device memory: one kernel launch (split into dispatches by binding size).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Pass {
    /// Points per line: the size of the sub-transform this pass does on chip.
    pub size: usize,
    /// Radices of the on-chip stages, in order; their product is `size`.
    pub radices: Vec<usize>,
    /// Product of the earlier passes' sizes (1 for the first pass).
    pub stride: usize,
    /// Threads per line.
    pub threads_per_line: usize,
    /// Points each thread holds in registers.
    pub points_per_thread: usize,
    /// Lines one workgroup transforms together.
    pub lines_per_group: usize,
    /// How threads are laid over lines.
    pub order: LineOrder,
    /// How stages exchange through workgroup memory.
    pub exchange: Exchange,
    /// What the kernel stores and computes in (the spec's).
    pub precision: Precision,
    /// Workgroup memory has one unused slot after every [`Exchange::pad_period`] elements, so
    /// that the strided Stockham writes fall in different banks. Used wherever it fits.
    pub padded: bool,
    /// Each exchange goes through workgroup memory in this many rounds, a part of the
    /// workgroup's points each (every thread writes the values bound for the part, then
    /// reads those it needs from it), so that a line the registers hold but workgroup memory
    /// does not stays one pass ([`super::PlanOptions::exchange_rounds`],
    /// [`super::DeviceLimits::exchange_rounds`]); 1: in one.
    pub rounds: usize,
    /// Workgroups per compute unit the kernel is compiled for ([`super::PlanOptions::groups_per_unit`]).
    pub groups_per_unit: Option<usize>,
    /// Elements per transform in the buffer this pass reads and in the one it writes: the
    /// transform's length, except where a Bluestein plan's first pass reads the user's
    /// shorter rows and its last pass writes them.
    pub src_len: usize,
    /// See [`Pass::src_len`].
    pub dst_len: usize,
    /// How the points come in, and what is done to them on the way.
    pub load: Load,
    /// What the pass computes on chip.
    pub body: Body,
    /// How the results go out, and what is done to them on the way.
    pub store: Store,
    /// A persistent kernel ([`Persistent`]); `None`: one workgroup per line group.
    pub persistent: Option<Persistent>,
    /// A cluster pass: this pass is the head, run by a cluster of workgroups whose second
    /// half (the tail) reads the head's outputs from their workgroup memory ([`Cluster`]).
    pub cluster: Option<Box<Cluster>>,
}

/// How a pass reads its points, and the operations fused into the load.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Load {
    /// Inputs come through workgroup memory, read as one contiguous tile (tiny transforms
    /// whose line has fewer than 4 threads, so that neighbouring threads read neighbouring
    /// addresses).
    pub staged: bool,
    /// The operations on the loaded points. The kernel applies each kind at its own point
    /// of the load (see [`LoadOp`]), whatever their order here.
    pub ops: Vec<LoadOp>,
}

/// An operation fused into a pass's load.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LoadOp {
    /// A pointwise operation at each point's index in its transform, after the pass
    /// twiddles: the spec's load operations on a plan's first pass, Bluestein's chirp on
    /// each convolution's first.
    Point(PointOp),
    /// Multiply by the chain's filter: the first pass of a back-transform that runs as
    /// passes of its own.
    Filter(Values),
    /// An even real transform's merge, or an odd one's Hermitian extension, as the points
    /// are read ([`RealFusion`]).
    Real(RealFusion),
    /// Checksummed plans' first pass: the input weights (one per point); each line sums its
    /// loaded points times them ([`crate::Checksum`]) into its checksum record.
    Checksum(Values),
}

/// What a pass computes on chip.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Body {
    /// One step of the transform; `inverse` for a pass of a chain's back-transform, which
    /// runs in the opposite direction (conjugated twiddles).
    Fft {
        /// Runs in the opposite direction to the spec's.
        inverse: bool,
    },
    /// A whole chain in registers, in one one-pass kernel: the transform, the multiply by
    /// `filter`, the back-transform.
    Chain {
        /// The chain's filter (one value per point, or per element).
        filter: Values,
    },
}

/// How a pass writes its results, and the operations fused into the store.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Store {
    /// Results go through workgroup memory before the store, so that it is coalesced (the
    /// first pass of a multi-pass plan writes whole lines, not strided points; tiny
    /// transforms whose line has fewer than 4 threads).
    pub staged: bool,
    /// The operations on the results. The kernel applies each kind at its own point of the
    /// store (see [`StoreOp`]), whatever their order here.
    pub ops: Vec<StoreOp>,
}

/// An operation fused into a pass's store.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StoreOp {
    /// Factor the results are multiplied by first (1/n on a normalised inverse).
    Scale(f64),
    /// An even real transform's split after the last stage, or the cut to `n/2 + 1` bins
    /// ([`RealFusion`]).
    Real(RealFusion),
    /// A pointwise operation at each point's output index, after the scale: the spec's
    /// store operations on the last pass, Bluestein's chirp on each convolution's last.
    Point(PointOp),
    /// Checksummed plans' last pass: the output weights; each line sums its stored points
    /// times them, and their energy `Σ|X|²`, into its checksum record.
    Checksum(Values),
}

/// A persistent kernel: each workgroup loops over line groups, and copies the next group's
/// input into workgroup memory (asynchronously where the device can) while it transforms
/// the current one, so loads overlap computation without a second resident workgroup.
/// One-pass row transforms only; the copy needs `lines · size` more elements of workgroup
/// memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Persistent {
    /// The stage twiddles (and a fused chain's filter) are copied into workgroup memory
    /// once, after the prefetch area, and read there: this many elements (0: read from
    /// device memory).
    pub tables_in_shared: usize,
}

impl Persistent {
    /// A persistent kernel that reads its tables from device memory.
    pub fn new() -> Persistent {
        Persistent::default()
    }
}

impl Load {
    /// The pointwise operations, in order.
    pub fn points(&self) -> Vec<PointOp> {
        self.ops
            .iter()
            .filter_map(|op| match op {
                LoadOp::Point(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    /// The chain's filter, where this load multiplies by it.
    pub fn filter(&self) -> Option<&Values> {
        self.ops.iter().find_map(|op| match op {
            LoadOp::Filter(v) => Some(v),
            _ => None,
        })
    }

    /// The real transform's merge or extension, if fused here.
    pub fn real(&self) -> Option<&RealFusion> {
        self.ops.iter().find_map(|op| match op {
            LoadOp::Real(r) => Some(r),
            _ => None,
        })
    }

    /// The checksum's input weights, if this pass sums its inputs.
    pub fn checksum(&self) -> Option<&Values> {
        self.ops.iter().find_map(|op| match op {
            LoadOp::Checksum(v) => Some(v),
            _ => None,
        })
    }
}

impl Store {
    /// The pointwise operations, in order.
    pub fn points(&self) -> Vec<PointOp> {
        self.ops
            .iter()
            .filter_map(|op| match op {
                StoreOp::Point(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    /// The factor on the results, if any.
    pub fn scale(&self) -> Option<f64> {
        self.ops.iter().find_map(|op| match op {
            StoreOp::Scale(s) => Some(*s),
            _ => None,
        })
    }

    /// The real transform's split or cut, if fused here.
    pub fn real(&self) -> Option<&RealFusion> {
        self.ops.iter().find_map(|op| match op {
            StoreOp::Real(r) => Some(r),
            _ => None,
        })
    }

    /// The checksum's output weights, if this pass sums its outputs.
    pub fn checksum(&self) -> Option<&Values> {
        self.ops.iter().find_map(|op| match op {
            StoreOp::Checksum(v) => Some(v),
            _ => None,
        })
    }
}

impl Pass {
    /// A pass of one step of the forward transform with nothing fused, its shape given:
    /// what the decomposition builds before the roles ([`Pass`]'s load, body and store)
    /// are given.
    #[expect(
        clippy::too_many_arguments,
        reason = "the shape's fields, each named at the call"
    )]
    pub(crate) fn step(
        size: usize,
        radices: Vec<usize>,
        stride: usize,
        (threads_per_line, points_per_thread, lines_per_group): (usize, usize, usize),
        order: LineOrder,
        exchange: Exchange,
        precision: Precision,
        groups_per_unit: Option<usize>,
        len: usize,
    ) -> Pass {
        Pass {
            size,
            radices,
            stride,
            threads_per_line,
            points_per_thread,
            lines_per_group,
            order,
            exchange,
            precision,
            padded: false,
            rounds: 1,
            groups_per_unit,
            src_len: len,
            dst_len: len,
            load: Load::default(),
            body: Body::Fft { inverse: false },
            store: Store::default(),
            persistent: None,
            cluster: None,
        }
    }

    /// Factor the results are multiplied by before the store ([`StoreOp::Scale`]).
    pub fn scale(&self) -> Option<f64> {
        self.store.scale()
    }

    /// Whether this is a persistent kernel that prefetches its next lines ([`Persistent`]).
    pub fn prefetch(&self) -> bool {
        self.persistent.is_some()
    }

    /// Elements of tables a persistent kernel keeps in workgroup memory
    /// ([`Persistent::tables_in_shared`]; 0 for other kernels).
    pub fn tables_in_shared(&self) -> usize {
        self.persistent.map_or(0, |p| p.tables_in_shared)
    }

    /// Whether this pass runs in the opposite direction: a pass of a chain's back-transform.
    pub fn inverse(&self) -> bool {
        matches!(self.body, Body::Fft { inverse: true })
    }

    /// Whether this pass multiplies by the chain's filter on load ([`LoadOp::Filter`]).
    pub fn filter_on_load(&self) -> bool {
        self.load.filter().is_some()
    }

    /// Whether this one-pass kernel runs the whole chain in registers ([`Body::Chain`]).
    pub fn fused_chain(&self) -> bool {
        matches!(self.body, Body::Chain { .. })
    }

    /// The chain's filter, where this pass reads it (on load, or in a fused chain).
    pub fn filter(&self) -> Option<&Values> {
        match &self.body {
            Body::Chain { filter } => Some(filter),
            Body::Fft { .. } => self.load.filter(),
        }
    }

    /// An even real transform's split or merge (or an odd one's cut or extension) fused
    /// into this pass, on load or on store.
    pub fn real(&self) -> Option<&RealFusion> {
        self.load.real().or(self.store.real())
    }

    /// The checksum's input weights, on a checksummed plan's first pass.
    pub fn check_in(&self) -> Option<&Values> {
        self.load.checksum()
    }

    /// The checksum's output weights, on a checksummed plan's last pass.
    pub fn check_out(&self) -> Option<&Values> {
        self.store.checksum()
    }
    /// Threads in one workgroup.
    pub fn threads(&self) -> usize {
        self.threads_per_line * self.lines_per_group
    }

    /// Number of register exchanges through workgroup memory.
    pub fn exchanges(&self) -> usize {
        shape::stage_exchanges(self.size, &self.radices, self.threads_per_line)
            + usize::from(self.store.staged)
            + usize::from(self.load.staged)
            + usize::from(self.splits_real())
    }

    /// True when this pass splits an even real transform's bins on store (which pairs points
    /// `k` and `n − k` through workgroup memory).
    pub fn splits_real(&self) -> bool {
        matches!(
            self.store.real(),
            Some(RealFusion {
                half: RealHalf::Split { .. },
                ..
            })
        )
    }

    /// Registers (complex values) a thread needs: the points it holds between stages, or more
    /// where a stage's butterflies do not share out evenly over the threads.
    pub fn registers(&self) -> usize {
        shape::registers(self.size, &self.radices, self.threads_per_line)
    }

    /// Workgroup-memory elements one workgroup uses (0 when all stages stay in registers):
    /// the exchange area, then the prefetch area; in a cluster pass, the largest of the
    /// head's and the tail's exchange areas and the table the head's outputs are sent to,
    /// which share one area.
    pub fn shared_len(&self) -> usize {
        let own = (self.tables_offset() + self.tables_in_shared()).max(self.check_len());
        match &self.cluster {
            Some(c) => own.max(c.tail.shared_len()).max(c.table_len()),
            None => own,
        }
    }

    /// Complex values in each line's checksum record: the input sum (first pass), the
    /// output sum and the energy (last pass, or a cluster pass's tail); 0 for a pass that is
    /// not checked.
    pub fn check_record(&self) -> usize {
        usize::from(self.check_in().is_some())
            + 2 * usize::from(self.storing().check_out().is_some())
    }

    /// Workgroup-memory elements the reduction of the checksum sums takes: every thread's
    /// partial sums (as complex pairs or single reals, as the exchange holds them), where a
    /// line has more than one thread.
    pub fn check_len(&self) -> usize {
        let reals = 2 * usize::from(self.check_in().is_some())
            + 3 * usize::from(self.check_out().is_some());
        let slots = match self.exchange {
            Exchange::Complex => reals.div_ceil(2),
            Exchange::Split => reals,
        };
        match self.threads_per_line {
            0 | 1 => 0,
            _ => slots * self.threads(),
        }
    }

    /// The on-chip steps of this pass: itself, and a cluster pass's tail.
    pub fn steps(&self) -> impl Iterator<Item = &Pass> {
        std::iter::once(self).chain(self.cluster.as_ref().map(|c| &c.tail))
    }

    /// The step that stores to device memory: a cluster pass's tail, else the pass itself.
    pub fn storing(&self) -> &Pass {
        match &self.cluster {
            Some(c) => &c.tail,
            None => self,
        }
    }

    /// [`Pass::storing`], to change.
    pub fn storing_mut(&mut self) -> &mut Pass {
        match self.cluster {
            Some(ref mut c) => &mut c.tail,
            None => self,
        }
    }

    /// Adds the pointwise `ops` to the step that stores to device memory
    /// ([`Pass::storing`]).
    pub fn set_store(&mut self, ops: Vec<PointOp>) {
        let store = &mut self.storing_mut().store;
        store.ops.extend(ops.into_iter().map(StoreOp::Point));
    }

    /// The radices as printed: `8x8x4`, or `-` for none.
    pub fn radix_label(&self) -> String {
        if self.radices.is_empty() {
            return "-".into();
        }
        let r: Vec<String> = self.radices.iter().map(|r| r.to_string()).collect();
        r.join("x")
    }

    /// Where [`Pass::tables_in_shared`] start in workgroup memory: after the exchange and
    /// prefetch areas.
    pub fn tables_offset(&self) -> usize {
        self.prefetch_offset()
            + if self.prefetch() {
                self.size * self.lines_per_group
            } else {
                0
            }
    }

    /// Where the prefetch area starts in workgroup memory, elements: after the exchanges,
    /// rounded up to 16 bytes for the prefetch's 16-byte copies (a padded 16-point exchange
    /// is 17 elements, and `cp.async` faults on a misaligned address).
    pub fn prefetch_offset(&self) -> usize {
        self.exchange_len()
            .next_multiple_of((16 / self.exchange_bytes()).max(1))
    }

    /// Workgroup-memory elements of the register exchanges (padded): one round's.
    pub fn exchange_len(&self) -> usize {
        let len = self.size * self.lines_per_group / self.rounds.max(1);
        match (self.exchanges(), self.padded) {
            (0, _) => 0,
            (_, true) => len + len / self.exchange.pad_period(),
            (_, false) => len,
        }
    }

    /// Workgroup-memory bytes one workgroup uses (0 when all stages stay in registers).
    pub fn workgroup_bytes(&self) -> usize {
        self.shared_len() * self.exchange_bytes()
    }

    /// Workgroup-memory bytes per element of its exchanges.
    pub fn exchange_bytes(&self) -> usize {
        self.exchange.bytes(self.precision)
    }

    /// True when points are multiplied by pass-boundary twiddles on load.
    pub fn twiddled(&self) -> bool {
        self.stride > 1
    }
}

/// The transform its passes compute, as the kernels address it: the length, how many, how
/// they lie in memory and the direction ([`Plan::geometry`]; for a Bluestein plan its
/// convolution's transform). What the kernel generator reads besides the pass, instead of
/// the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Geometry {
    /// Points per transform.
    pub n: usize,
    /// Transforms.
    pub batch: usize,
    /// How the transforms lie in memory.
    pub layout: Layout,
    /// The direction of the passes that are not [`Body::Fft`]'s `inverse`.
    pub direction: Direction,
}

impl Geometry {
    /// Buffer elements between neighbouring points of one transform: 1 for rows, the
    /// matrices' width for columns.
    pub fn point_stride(&self) -> usize {
        match self.layout {
            Layout::Rows => 1,
            Layout::Columns { matrices } => self.batch / matrices.max(1),
        }
    }

    /// Matrices the columns lie in (1 for rows).
    pub fn matrices(&self) -> usize {
        match self.layout {
            Layout::Rows => 1,
            Layout::Columns { matrices } => matrices,
        }
    }
}
