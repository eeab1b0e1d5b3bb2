//! One rank's steps as data: the local transforms and the changes of layout of a slab or a
//! pencil decomposition, over the caller's buffers and the rank's scratch arrays.

use std::ops::Range;

use super::exchange::Exchange;
use super::slab::{Moves, Slabs, split};
use super::{DistSpec, Region, Spectrum};
use crate::backend::Device;
use crate::error::{Error, Result};
use crate::nd::{NdFft, NdSpec};
use crate::spec::Direction;

/// An array a step works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The caller's input.
    Input,
    /// The caller's output.
    Output,
    /// Scratch array `k` of [`Plan::arrays`].
    Scratch(usize),
}

/// One step of a rank's plan. A step with a `part` runs on those elements of its arrays
/// alone (some rows of a slab).
pub(crate) enum Step {
    /// A complex transform in place.
    Fft {
        fft: NdFft,
        on: Slot,
        part: Option<Range<usize>>,
    },
    /// R2C from the caller's reals into a complex array.
    RealIn {
        fft: NdFft,
        into: Slot,
        part: Option<PartElements>,
    },
    /// C2R from a complex array into the caller's reals.
    RealOut {
        fft: NdFft,
        from: Slot,
        part: Option<PartElements>,
    },
    /// A change of layout between two arrays, whole before the next step.
    Move {
        moves: Moves,
        natural: Slot,
        transposed: Slot,
    },
    /// The copies before one part of a change of layout, and its all-to-all started: it
    /// may run beside the steps that follow, until the [`Step::Receive`] of the same `id`.
    Send {
        moves: Moves,
        natural: Slot,
        transposed: Slot,
        id: usize,
    },
    /// Waits for the all-to-all [`Step::Send`] `id` started, then makes its copies after.
    Receive {
        moves: Moves,
        natural: Slot,
        transposed: Slot,
        id: usize,
    },
}

/// The elements of the real and of the complex array a step on one part of a slab works
/// on (a complex step uses the complex ones).
#[derive(Clone, Debug)]
pub(crate) struct PartElements {
    pub reals: Range<usize>,
    pub complex: Range<usize>,
}

/// A rank's steps, the scratch they need, and the parts of the global arrays it holds.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Parts each slab's first change of layout is cut into (1: not cut).
    pub parts: usize,
    /// Whether the exchange runs a part's all-to-all beside the next part's steps.
    pub overlaps: bool,
    /// All-to-alls started by [`Step::Send`] (their ids are `0..sends`).
    pub sends: usize,
    /// Complex elements of each scratch array.
    pub arrays: Vec<usize>,
    /// Complex elements of the staging and receive buffers (the most any move uses).
    pub staging: usize,
    pub received: usize,
    pub input: Region,
    pub output: Region,
}

/// The transform of `shape` over `axes`, complex unless `real`, with `spec`'s direction and
/// normalisation, planned on `device`.
fn local(
    device: &Device,
    spec: &DistSpec,
    shape: Vec<usize>,
    axes: &[usize],
    real: bool,
) -> Result<NdFft> {
    let mut nd = NdSpec::new(&shape).axes(axes).direction(spec.direction);
    if real {
        nd = nd.real();
    }
    if spec.normalize {
        nd = nd.normalized();
    }
    device.plan_nd(&nd)
}

/// Builds a plan's steps in order, the scratch arrays as they are first needed.
struct Builder {
    steps: Vec<Step>,
    arrays: Vec<usize>,
    sends: usize,
}

impl Builder {
    fn scratch(&mut self, len: usize) -> Slot {
        self.arrays.push(len);
        Slot::Scratch(self.arrays.len() - 1)
    }

    /// Where the forward transform's first complex array is: the input (C2C) or a scratch
    /// array the R2C writes (`fft`).
    fn first(&mut self, fft: NdFft, real: bool, len: usize) -> Slot {
        if real {
            let into = self.scratch(len);
            self.steps.push(Step::RealIn {
                fft,
                into,
                part: None,
            });
            into
        } else {
            self.fft(fft, Slot::Input);
            Slot::Input
        }
    }

    /// Where the inverse transform's last complex array is: the output (C2C), or a scratch
    /// array the C2R reads ([`Builder::finish_last`] adds that step once the steps before
    /// it are in).
    fn last(&mut self, real: bool, len: usize) -> Slot {
        if real {
            self.scratch(len)
        } else {
            Slot::Output
        }
    }

    fn finish_last(&mut self, fft: NdFft, real: bool, at: Slot) {
        self.steps.push(match real {
            true => Step::RealOut {
                fft,
                from: at,
                part: None,
            },
            false => Step::Fft {
                fft,
                on: at,
                part: None,
            },
        });
    }

    fn fft(&mut self, fft: NdFft, on: Slot) {
        self.steps.push(Step::Fft {
            fft,
            on,
            part: None,
        });
    }

    /// The transform of the rows of one part of a slab: complex (`on`, in place) or real
    /// (the caller's reals into `on` forward, `on` into them inverse).
    fn part_fft(&mut self, fft: NdFft, real: bool, on: Slot, part: PartElements) {
        let forward = fft.spec().direction == Direction::Forward;
        self.steps.push(match (real, forward) {
            (false, _) => Step::Fft {
                fft,
                on,
                part: Some(part.complex),
            },
            (true, true) => Step::RealIn {
                fft,
                into: on,
                part: Some(part),
            },
            (true, false) => Step::RealOut {
                fft,
                from: on,
                part: Some(part),
            },
        });
    }

    /// Starts a part's all-to-all; returns its id for [`Builder::receive`].
    fn send(&mut self, moves: Moves, natural: Slot, transposed: Slot) -> usize {
        let id = self.sends;
        self.sends += 1;
        self.steps.push(Step::Send {
            moves,
            natural,
            transposed,
            id,
        });
        id
    }

    fn receive(&mut self, moves: Moves, natural: Slot, transposed: Slot, id: usize) {
        self.steps.push(Step::Receive {
            moves,
            natural,
            transposed,
            id,
        });
    }

    fn exchange(&mut self, moves: Moves, natural: Slot, transposed: Slot) {
        self.steps.push(Step::Move {
            moves,
            natural,
            transposed,
        });
    }
}

fn no_halo() -> Error {
    Error::InvalidSpec("a transform's slabs have no halo".into())
}

impl Plan {
    /// Rank `rank`'s plan of `spec` over `ranks` ranks, its transforms compiled on `device`.
    /// The exchange's abilities shape the slab's first change of layout: cut into parts
    /// where it runs beside the transforms ([`Exchange::overlaps`]), its messages read and
    /// written in place where it moves 2-D blocks ([`Exchange::moves_blocks`]).
    pub(crate) fn new(
        spec: &DistSpec,
        rank: usize,
        ranks: usize,
        device: &Device,
        exchange: &dyn Exchange,
    ) -> Result<Plan> {
        let overlaps = exchange.overlaps();
        let mut b = Builder {
            steps: Vec::new(),
            arrays: Vec::new(),
            sends: 0,
        };
        let mut parts = 1;
        let (input, output) = match spec.grid {
            None => {
                let slabs = spec.slabs(ranks)?;
                parts = spec.parts.unwrap_or_else(|| auto_parts(&slabs, overlaps));
                let cut = Cut {
                    parts,
                    in_place: exchange.moves_blocks(),
                };
                slab_steps(&mut b, spec, rank, &slabs, cut, device)?
            }
            Some(grid) => pencil_steps(&mut b, spec, rank, grid, device)?,
        };
        let most = |f: fn(&Moves) -> usize| {
            b.steps
                .iter()
                .filter_map(|s| match s {
                    Step::Move { moves, .. } | Step::Send { moves, .. } => Some(f(moves)),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        let (staging, received) = (most(|m| m.staging), most(|m| m.received));
        Ok(Plan {
            parts,
            overlaps,
            sends: b.sends,
            steps: b.steps,
            arrays: b.arrays,
            staging,
            received,
            input,
            output,
        })
    }
}

/// The whole of `n` elements.
fn all(n: usize) -> std::ops::Range<usize> {
    0..n
}

/// Bytes of messages a part of a slab's change of layout should hold at least, for the
/// messages of one part to take long enough against their fixed cost (an untuned choice).
const PART_BYTES: usize = 8 << 20;
/// Most parts a slab's change of layout is cut into.
const MOST_PARTS: usize = 4;

/// Parts a slab's first change of layout is cut into when the spec does not say: one
/// unless the exchange overlaps the transforms, else one per [`PART_BYTES`] a rank sends (on
/// average, so that every rank makes the same choice), at most [`MOST_PARTS`].
fn auto_parts(slabs: &Slabs, overlaps: bool) -> usize {
    let ranks = slabs.ranks;
    if !overlaps || ranks < 2 {
        return 1;
    }
    let sent = 8 * slabs.shape.iter().product::<usize>() / ranks * (ranks - 1) / ranks;
    (sent / PART_BYTES).clamp(1, MOST_PARTS)
}

/// Rows a part of a slab starts at a multiple of: the part's complex row (`width` elements)
/// and real row (`real_width` values) then start on 256 bytes, where a device view may.
fn part_align(width: usize, real_width: Option<usize>) -> usize {
    let rows_to = |unit: usize, per_row: usize| unit / gcd(unit, per_row);
    let complex = rows_to(32, width);
    real_width.map_or(complex, |w| complex.max(rows_to(64, w)))
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// How a slab's first change of layout goes: in `parts` parts, its messages packed or read
/// and written in place (`in_place`).
#[derive(Clone, Copy)]
struct Cut {
    parts: usize,
    in_place: bool,
}

/// A slab decomposition: the transform over axes 1.. on each rank's rows, one all-to-all, the
/// transform over axis 0 (and a second all-to-all back for a natural spectrum). With more
/// than one part, the first transform and its all-to-all go part by part (the all-to-all of
/// one part beside the transform of the next) and the inverse's last all-to-all and
/// transform likewise; with messages in place, nothing is packed, one part or several.
/// Returns the input's and output's regions.
fn slab_steps(
    b: &mut Builder,
    spec: &DistSpec,
    rank: usize,
    slabs: &Slabs,
    Cut { parts, in_place }: Cut,
    device: &Device,
) -> Result<(Region, Region)> {
    let (cs, d, real) = (spec.complex_shape(), spec.shape.len(), spec.real);
    let rows = slabs.rows(rank);
    let local_axes: Vec<usize> = (1..d).collect();
    let local_rows = |n: usize| {
        let mut shape = spec.shape.clone();
        shape[0] = n;
        local(device, spec, shape, &local_axes, real)
    };
    let axis0 = local(device, spec, slabs.transposed_shape(rank), &[0], false)?;
    let to_n = slabs.to_natural(rank).ok_or_else(no_halo)?;
    let region = |shape: &[usize], axis0, axis1| {
        let mut r: Vec<_> = shape.iter().map(|&n| all(n)).collect();
        (r[0], r[1]) = (axis0, axis1);
        Region(r)
    };
    let natural = |shape: &[usize]| region(shape, rows.clone(), all(shape[1]));
    let transposed = region(&cs, all(cs[0]), slabs.cols(rank));
    let (natural_len, transposed_len) = (slabs.natural_len(rank), slabs.transposed_len(rank));
    let spectrum = match spec.spectrum {
        Spectrum::Transposed => transposed,
        Spectrum::Natural => natural(&cs),
    };
    let data = natural(&spec.shape);
    // Where the parts' rows lie in the complex and the real arrays.
    let (width, real_width) = (cs[1..].iter().product(), spec.shape[1..].iter().product());
    let align = part_align(width, real.then_some(real_width));
    let cut = slabs.parts(rank, parts, align);
    let part = |r: &Range<usize>| PartElements {
        reals: r.start * real_width..r.end * real_width,
        complex: r.start * width..r.end * width,
    };
    Ok(match spec.direction {
        Direction::Forward => {
            let t = match spec.spectrum {
                Spectrum::Transposed => Slot::Output,
                Spectrum::Natural => b.scratch(transposed_len),
            };
            if parts == 1 && !in_place {
                let rows_done = b.first(local_rows(rows.len())?, real, natural_len);
                b.exchange(slabs.to_transposed(rank), rows_done, t);
            } else {
                let rows_done = match real {
                    true => b.scratch(natural_len),
                    false => Slot::Input,
                };
                let mut sent = Vec::with_capacity(parts);
                for (j, r) in cut.iter().enumerate() {
                    if !r.is_empty() {
                        b.part_fft(local_rows(r.len())?, real, rows_done, part(r));
                    }
                    let moves = match in_place {
                        true => slabs.part_in_place(rank, j, parts, align),
                        false => slabs.part_to_transposed(rank, j, parts, align),
                    };
                    sent.push((b.send(moves.clone(), rows_done, t), moves));
                }
                for (id, moves) in sent {
                    b.receive(moves, rows_done, t, id);
                }
            }
            b.fft(axis0, t);
            if spec.spectrum == Spectrum::Natural {
                b.exchange(to_n, Slot::Output, t);
            }
            (data, spectrum)
        }
        Direction::Inverse => {
            let rows_in = b.last(real, natural_len);
            let t = match spec.spectrum {
                Spectrum::Transposed => Slot::Input,
                Spectrum::Natural => {
                    let t = b.scratch(transposed_len);
                    b.exchange(slabs.to_transposed(rank), Slot::Input, t);
                    t
                }
            };
            b.fft(axis0, t);
            if parts == 1 && !in_place {
                b.exchange(to_n, rows_in, t);
                b.finish_last(local_rows(rows.len())?, real, rows_in);
            } else {
                let mut sent = Vec::with_capacity(parts);
                for j in 0..parts {
                    let moves = match in_place {
                        true => slabs.part_in_place_back(rank, j, parts, align),
                        false => slabs.part_to_natural(rank, j, parts, align),
                    }
                    .ok_or_else(no_halo)?;
                    sent.push((b.send(moves.clone(), rows_in, t), moves));
                }
                for ((id, moves), r) in sent.into_iter().zip(&cut) {
                    b.receive(moves, rows_in, t, id);
                    if !r.is_empty() {
                        b.part_fft(local_rows(r.len())?, real, rows_in, part(r));
                    }
                }
            }
            (spectrum, data)
        }
    })
}

/// A pencil decomposition of a 3-D array over a `p0 × p1` grid, rank `a · p1 + c` at row
/// `a`, column `c`: it starts with `[rows0(a), rows1(c), all of axis 2]`, transforms axis 2,
/// exchanges within its grid row into `[rows0(a), all of axis 1, cols2(c)]`, transforms axis
/// 1, exchanges within its grid column into `[all of axis 0, cols1(a), cols2(c)]` and
/// transforms axis 0. The spectrum is always in that last layout.
fn pencil_steps(
    b: &mut Builder,
    spec: &DistSpec,
    rank: usize,
    [p0, p1]: [usize; 2],
    device: &Device,
) -> Result<(Region, Region)> {
    let (cs, real) = (spec.complex_shape(), spec.real);
    let ranks = p0 * p1;
    let (a, c) = (rank / p1, rank % p1);
    let too_small = || {
        Error::InvalidSpec(format!(
            "a {p0} × {p1} grid of ranks cannot each hold a pencil of shape {cs:?}: axis 0 needs \
             at least {p0} indices, axis 1 at least {}, and axis 2 (of the complex side) at \
             least {p1}",
            p0.max(p1)
        ))
    };
    // Within grid row `a`: [n1, n2] arrays, a batch of rows0(a) of them.
    let rows0 = split(cs[0], p0)[a].clone();
    let row_members = (0..p1).map(|j| a * p1 + j).collect();
    let in_row = Slabs::new(&[cs[1], cs[2]], p1)
        .and_then(|s| s.within(row_members, ranks, rows0.len()))
        .ok_or_else(too_small)?;
    let (rows1, cols2) = (in_row.rows(c), in_row.cols(c));
    // Within grid column `c`: the [n0, n1, cols2(c)] array.
    let column_members = (0..p0).map(|i| i * p1 + c).collect();
    let in_column = Slabs::new(&[cs[0], cs[1], cols2.len()], p0)
        .and_then(|s| s.within(column_members, ranks, 1))
        .ok_or_else(too_small)?;
    let cols1 = in_column.cols(a);
    let axis2 = local(
        device,
        spec,
        vec![rows0.len(), rows1.len(), spec.shape[2]],
        &[2],
        real,
    )?;
    let axis1 = local(
        device,
        spec,
        vec![rows0.len(), cs[1], cols2.len()],
        &[1],
        false,
    )?;
    let axis0 = local(device, spec, in_column.transposed_shape(a), &[0], false)?;
    let pencil_a_len = rows0.len() * rows1.len() * cs[2];
    let pencil_b = b.scratch(rows0.len() * cs[1] * cols2.len());
    let data = Region(vec![rows0.clone(), rows1.clone(), all(spec.shape[2])]);
    let spectrum = Region(vec![all(cs[0]), cols1, cols2]);
    Ok(match spec.direction {
        Direction::Forward => {
            let first = b.first(axis2, real, pencil_a_len);
            b.exchange(in_row.to_transposed(c), first, pencil_b);
            b.fft(axis1, pencil_b);
            b.exchange(in_column.to_transposed(a), pencil_b, Slot::Output);
            b.fft(axis0, Slot::Output);
            (data, spectrum)
        }
        Direction::Inverse => {
            let last = b.last(real, pencil_a_len);
            b.fft(axis0, Slot::Input);
            let back = in_column.to_natural(a).ok_or_else(no_halo)?;
            b.exchange(back, pencil_b, Slot::Input);
            b.fft(axis1, pencil_b);
            b.exchange(in_row.to_natural(c).ok_or_else(no_halo)?, last, pencil_b);
            b.finish_last(axis2, real, last);
            (spectrum, data)
        }
    })
}
