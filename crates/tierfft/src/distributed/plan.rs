//! One rank's steps as data: the local transforms and the changes of layout of a slab or a
//! pencil decomposition, over the caller's buffers and the rank's scratch arrays.

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

/// One step of a rank's plan.
pub(crate) enum Step {
    /// A complex transform in place.
    Fft { fft: NdFft, on: Slot },
    /// R2C from the caller's reals into a complex array.
    RealIn { fft: NdFft, into: Slot },
    /// C2R from a complex array into the caller's reals.
    RealOut { fft: NdFft, from: Slot },
    /// A change of layout between two arrays.
    Move {
        moves: Moves,
        natural: Slot,
        transposed: Slot,
    },
}

/// A rank's steps, the scratch they need, and the parts of the global arrays it holds.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
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
            self.steps.push(Step::RealIn { fft, into });
            into
        } else {
            self.steps.push(Step::Fft {
                fft,
                on: Slot::Input,
            });
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
            true => Step::RealOut { fft, from: at },
            false => Step::Fft { fft, on: at },
        });
    }

    fn fft(&mut self, fft: NdFft, on: Slot) {
        self.steps.push(Step::Fft { fft, on });
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
    pub(crate) fn new(spec: &DistSpec, rank: usize, ranks: usize, device: &Device) -> Result<Plan> {
        let mut b = Builder {
            steps: Vec::new(),
            arrays: Vec::new(),
        };
        let (input, output) = match spec.grid {
            None => slab_steps(&mut b, spec, rank, ranks, device)?,
            Some(grid) => pencil_steps(&mut b, spec, rank, grid, device)?,
        };
        let most = |f: fn(&Moves) -> usize| {
            b.steps
                .iter()
                .filter_map(|s| match s {
                    Step::Move { moves, .. } => Some(f(moves)),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        let (staging, received) = (most(|m| m.staging), most(|m| m.received));
        Ok(Plan {
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

/// A slab decomposition: the transform over axes 1.. on each rank's rows, one all-to-all, the
/// transform over axis 0 (and a second all-to-all back for a natural spectrum). Returns the
/// input's and output's regions.
fn slab_steps(
    b: &mut Builder,
    spec: &DistSpec,
    rank: usize,
    ranks: usize,
    device: &Device,
) -> Result<(Region, Region)> {
    let slabs = spec.slabs(ranks)?;
    let (cs, d, real) = (spec.complex_shape(), spec.shape.len(), spec.real);
    let rows = slabs.rows(rank);
    let mut local_shape = spec.shape.clone();
    local_shape[0] = rows.len();
    let local_axes: Vec<usize> = (1..d).collect();
    let local_fft = local(device, spec, local_shape, &local_axes, real)?;
    let axis0 = local(device, spec, slabs.transposed_shape(rank), &[0], false)?;
    let to_t = slabs.to_transposed(rank);
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
    Ok(match spec.direction {
        Direction::Forward => {
            let rows_done = b.first(local_fft, real, natural_len);
            match spec.spectrum {
                Spectrum::Transposed => {
                    b.exchange(to_t, rows_done, Slot::Output);
                    b.fft(axis0, Slot::Output);
                }
                Spectrum::Natural => {
                    let t = b.scratch(transposed_len);
                    b.exchange(to_t, rows_done, t);
                    b.fft(axis0, t);
                    b.exchange(to_n, Slot::Output, t);
                }
            }
            (data, spectrum)
        }
        Direction::Inverse => {
            let rows_in = b.last(real, natural_len);
            match spec.spectrum {
                Spectrum::Transposed => {
                    b.fft(axis0, Slot::Input);
                    b.exchange(to_n, rows_in, Slot::Input);
                }
                Spectrum::Natural => {
                    let t = b.scratch(transposed_len);
                    b.exchange(to_t, Slot::Input, t);
                    b.fft(axis0, t);
                    b.exchange(to_n, rows_in, t);
                }
            }
            b.finish_last(local_fft, real, rows_in);
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

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slot::Input => write!(f, "the input"),
            Slot::Output => write!(f, "the output"),
            Slot::Scratch(k) => write!(f, "scratch {k}"),
        }
    }
}

/// The bytes of `elements` complex f32 values, in a unit that suits them.
fn bytes(elements: usize) -> String {
    let b = 8 * elements;
    match b {
        0..1024 => format!("{b} B"),
        1024..0x10_0000 => format!("{:.1} KiB", b as f64 / 1024.0),
        0x10_0000..0x4000_0000 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        _ => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
    }
}

/// What a local transform computes: its kind and direction, axes and array.
fn describe(fft: &NdFft) -> String {
    let spec = fft.spec();
    let kind = match (spec.real, spec.direction) {
        (false, Direction::Forward) => "C2C forward",
        (false, Direction::Inverse) => "C2C inverse",
        (true, Direction::Forward) => "R2C",
        (true, Direction::Inverse) => "C2R",
    };
    format!("{kind} over axes {:?} of {:?}", spec.axes, spec.shape)
}

/// One line per step, then the scratch; each line starts with `indent`.
impl Plan {
    pub(crate) fn write(&self, f: &mut std::fmt::Formatter<'_>, indent: &str) -> std::fmt::Result {
        for (k, step) in self.steps.iter().enumerate() {
            write!(f, "{indent}{}. ", k + 1)?;
            match step {
                Step::Fft { fft, on } => writeln!(f, "{} in place on {on}", describe(fft))?,
                Step::RealIn { fft, into } => {
                    writeln!(f, "{} from the input into {into}", describe(fft))?
                }
                Step::RealOut { fft, from } => {
                    writeln!(f, "{} from {from} into the output", describe(fft))?
                }
                Step::Move {
                    moves,
                    natural,
                    transposed,
                } => {
                    let total = |ranges: &[std::ops::Range<usize>]| -> (usize, usize) {
                        let busy = ranges.iter().filter(|r| !r.is_empty()).count();
                        (busy, ranges.iter().map(|r| r.len()).sum())
                    };
                    let (to, sent) = total(&moves.sends);
                    let (from, got) = total(&moves.recvs);
                    writeln!(
                        f,
                        "all-to-all between {natural} (natural) and {transposed} (transposed): \
                         {} to {to} rank(s), {} from {from}; {} row copies before, {} after",
                        bytes(sent),
                        bytes(got),
                        moves.before.len(),
                        moves.after.len()
                    )?;
                }
            }
        }
        let scratch: usize = self.arrays.iter().sum();
        writeln!(
            f,
            "{indent}scratch: {} array(s), {}; staging {}, receiving {}",
            self.arrays.len(),
            bytes(scratch),
            bytes(self.staging),
            bytes(self.received)
        )
    }
}
