//! Transforms of arrays spread over several devices: slab (2-D and up) and pencil (3-D)
//! decompositions of C2C, R2C and C2R transforms, with the local transforms on each device
//! and each change of layout between them as an all-to-all ([`Exchange`]: NCCL between GPUs,
//! [`LocalExchange`] between ranks of one process through host memory).
//!
//! **Slabs** (the default). The array is cut along axis 0 ("natural": rank `r` holds the
//! rows [`Slabs::rows`]`(r)`, the global array's `[rows, ..]`, row-major) or along axis 1
//! ("transposed": rank `r` holds `[:, cols(r), ..]` with every index of axis 0, row-major);
//! for a real transform the complex side's axes are cut, its last halved as in `rfftn`.
//! A forward transform takes natural slabs and gives its spectrum in the layout
//! [`DistSpec::spectrum`] names; an inverse takes that layout and gives natural slabs. The
//! transposed spectrum saves the second all-to-all, as with cuFFTMp's slab layouts: a
//! forward and an inverse with [`Spectrum::Transposed`] round-trip to natural data. Steps of
//! a forward transform on each rank: the transform over axes 1.. of its rows (R2C for a
//! real transform), the blocks for each peer packed, one all-to-all into the transposed
//! layout, the transform over axis 0, and for [`Spectrum::Natural`] a second all-to-all
//! back. The inverse runs them in the opposite order.
//!
//! **Pencils** (3-D, [`DistSpec::pencils`]) for more ranks than a slab can use: over a
//! `p0 × p1` grid, rank `a · p1 + c` holds `[rows0(a), rows1(c), all of axis 2]`, transforms
//! axis 2, exchanges within its grid row into `[rows0(a), all of axis 1, cols2(c)]`,
//! transforms axis 1, exchanges within its grid column into `[all of axis 0, cols1(a),
//! cols2(c)]` and transforms axis 0 (cuFFTMp's pencils, Z to X). Each rank's part of the
//! global arrays is [`RankFft::input_box`] and [`RankFft::output_box`].

mod batch;
mod estimate;
mod exchange;
mod group;
mod launch;
#[cfg(feature = "cuda")]
mod nccl;
#[cfg(feature = "cuda")]
mod peer;
mod plan;
mod play;
mod print;
mod rank;
mod rendezvous;
mod slab;
mod socket;
mod whole;

pub use batch::SplitBatch;
pub use estimate::{Bandwidths, Estimate, HostCopies, HostLink};
pub use exchange::{Exchange, LocalExchange, Pending};
pub use group::{DistFft, Link, RankBuffers, Rounds, check_group};
pub use launch::{Launch, RENDEZVOUS_VAR};
#[cfg(feature = "cuda")]
pub use nccl::{NcclExchange, nccl_available, nccl_unique_id};
#[cfg(feature = "cuda")]
pub use peer::{PeerExchange, link_bandwidth};
pub use play::{copy_rows, redistribute};
pub use rank::{DistTimes, RankFft};
pub use rendezvous::{JOIN_TIMEOUT, Rendezvous};
pub use slab::{Array, Blocks, Moves, Rows, Slabs, split};
pub use socket::SocketExchange;
pub use whole::WholeFft;

use crate::error::{Error, Result};
use crate::spec::Direction;

/// `f` on every item at once, a thread each; every result, or the first error once all
/// have finished (ranks and devices of one process run this way).
pub(crate) fn on_threads<I: Send, T: Send>(
    items: impl Iterator<Item = I>,
    f: impl Fn(I) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.map(|item| s.spawn(move || f(item))).collect();
        // Every thread is joined before the first error is returned.
        let results: Vec<Result<T>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::gpu("a rank's or device's thread panicked")))
            })
            .collect();
        results.into_iter().collect()
    })
}

/// Where a distributed transform's spectrum lies: its output (forward) or input (inverse).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Spectrum {
    /// Cut along axis 1: one all-to-all per transform (the default).
    #[default]
    Transposed,
    /// Cut along axis 0 like the data: a second all-to-all.
    Natural,
}

/// The part of a global row-major array one rank holds: a range of indices per axis. The
/// rank's local array is that box, row-major.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region(pub Vec<std::ops::Range<usize>>);

impl Region {
    /// Elements in the box.
    pub fn len(&self) -> usize {
        self.0.iter().map(|r| r.len()).product()
    }

    /// True when the box holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The local array's shape.
    pub fn shape(&self) -> Vec<usize> {
        self.0.iter().map(|r| r.len()).collect()
    }

    /// The box's elements of `whole`, a global row-major array of `shape`, in the box's own
    /// row-major order (a rank's part of a global input).
    pub fn cut<T: Copy>(&self, whole: &[T], shape: &[usize]) -> Result<Vec<T>> {
        self.check(whole.len(), shape)?;
        Ok(self
            .runs(shape)
            .into_iter()
            .flat_map(|(start, len)| whole[start..start + len].iter().copied())
            .collect())
    }

    /// Writes `part`, the box's elements in its row-major order, into `whole`, a global
    /// row-major array of `shape` (a rank's part of a global output).
    pub fn place<T: Copy>(&self, part: &[T], whole: &mut [T], shape: &[usize]) -> Result<()> {
        self.check(whole.len(), shape)?;
        if part.len() != self.len() {
            return Err(Error::InvalidSpec(format!(
                "a part holds {} elements; its region {:?} has {}",
                part.len(),
                self.0,
                self.len()
            )));
        }
        let mut at = 0;
        for (start, len) in self.runs(shape) {
            whole[start..start + len].copy_from_slice(&part[at..at + len]);
            at += len;
        }
        Ok(())
    }

    /// The global array (of `len` elements) must have `shape`, and the box lie inside it.
    fn check(&self, len: usize, shape: &[usize]) -> Result<()> {
        let expected: usize = shape.iter().product();
        let inside = self.0.len() == shape.len()
            && !shape.is_empty()
            && self
                .0
                .iter()
                .zip(shape)
                .all(|(r, &n)| r.start <= r.end && r.end <= n);
        if len != expected || !inside {
            return Err(Error::InvalidSpec(format!(
                "a global array of {len} elements and shape {shape:?} (holding {expected}) \
                 does not hold the region {:?}",
                self.0
            )));
        }
        Ok(())
    }

    /// The runs of the global array `shape` (row-major) that the box covers, in the box's
    /// own row-major order: `(start, length)` of each piece along the last axis.
    fn runs(&self, shape: &[usize]) -> Vec<(usize, usize)> {
        let d = shape.len();
        let last = self.0[d - 1].clone();
        let outer = &self.0[..d - 1];
        let count: usize = outer.iter().map(|r| r.len()).product();
        let mut out = Vec::with_capacity(count);
        let mut index: Vec<usize> = outer.iter().map(|r| r.start).collect();
        for _ in 0..count {
            let row = index.iter().zip(shape).fold(0, |a, (i, n)| a * n + i);
            out.push((row * shape[d - 1] + last.start, last.len()));
            // The next index of the outer axes, last fastest.
            for k in (0..d - 1).rev() {
                index[k] += 1;
                if index[k] < outer[k].end {
                    break;
                }
                index[k] = outer[k].start;
            }
        }
        out
    }
}

/// A transform over every axis of an array spread over several ranks (devices).
///
/// ```
/// use tierfft::distributed::{DistSpec, Spectrum};
/// // rfft2 of a 4096 × 4096 real image over 2 GPUs, spectrum left cut along axis 1.
/// let spec = DistSpec::new(&[4096, 4096]).real();
/// assert_eq!(spec.complex_shape(), vec![4096, 2049]);
/// assert_eq!(spec.spectrum, Spectrum::Transposed);
/// assert!(spec.slabs(2).is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DistSpec {
    /// The global array's extents, outermost first (at least two axes); for a real transform
    /// the real array's.
    pub shape: Vec<usize>,
    /// Real data on one side: forward is R2C, inverse C2R (the last axis halved).
    pub real: bool,
    /// Forward or inverse.
    pub direction: Direction,
    /// Scale the result by 1 / (number of elements of the real or complex array transformed).
    pub normalize: bool,
    /// The spectrum's layout (slabs only; pencils end in their own).
    pub spectrum: Spectrum,
    /// A pencil decomposition over a `[p0, p1]` grid of ranks (3-D arrays), instead of slabs.
    pub grid: Option<[usize; 2]>,
    /// Parts a slab's change of layout is cut into, so that the all-to-all of one part runs
    /// while the next part is transformed ([`DistSpec::parts`]); `None`: the planner's
    /// choice (one part unless the exchange can run beside the transforms).
    pub parts: Option<usize>,
}

impl DistSpec {
    /// A forward complex transform over every axis of an array of this shape.
    pub fn new(shape: &[usize]) -> Self {
        DistSpec {
            shape: shape.to_vec(),
            real: false,
            direction: Direction::Forward,
            normalize: false,
            spectrum: Spectrum::default(),
            grid: None,
            parts: None,
        }
    }

    /// Cuts each slab's change of layout into `parts` parts of rows (at least 1; slabs
    /// only): the forward transform's first all-to-all, and the inverse's last, go part by
    /// part, each beside the next part's transform where the exchange allows it (NCCL and
    /// peer copies on a stream of their own). Every rank must be given the same number.
    pub fn parts(mut self, parts: usize) -> Self {
        self.parts = Some(parts);
        self
    }

    /// Pencils over a `p0 × p1` grid of ranks (a 3-D array over `p0 · p1` ranks).
    pub fn pencils(mut self, p0: usize, p1: usize) -> Self {
        self.grid = Some([p0, p1]);
        self
    }

    /// Real data on one side: R2C forward, C2R inverse.
    pub fn real(mut self) -> Self {
        self.real = true;
        self
    }

    /// Makes this an inverse transform.
    pub fn inverse(mut self) -> Self {
        self.direction = Direction::Inverse;
        self
    }

    /// Scales the output by 1 / (product of the extents), as NumPy's inverse does.
    pub fn normalized(mut self) -> Self {
        self.normalize = true;
        self
    }

    /// Sets the spectrum's layout.
    pub fn spectrum(mut self, spectrum: Spectrum) -> Self {
        self.spectrum = spectrum;
        self
    }

    /// The complex side's shape: the last axis cut to `n/2 + 1` for a real transform.
    pub fn complex_shape(&self) -> Vec<usize> {
        let mut s = self.shape.clone();
        if let (true, Some(last)) = (self.real, s.last_mut()) {
            *last = *last / 2 + 1;
        }
        s
    }

    /// Checks that `ranks` ranks can share the transform as the spec asks.
    pub fn validate(&self, ranks: usize) -> Result<()> {
        if self.parts == Some(0) {
            return Err(Error::InvalidSpec(
                "a slab's change of layout is cut into at least one part (got parts 0)".into(),
            ));
        }
        match self.grid {
            None => self.slabs(ranks).map(|_| ()),
            Some([p0, p1]) => {
                let bad = |m: String| Err(Error::InvalidSpec(m));
                if self.shape.len() != 3 || self.shape.contains(&0) {
                    return bad(format!(
                        "pencils cut 3-D arrays (got shape {:?}); slabs cut any other",
                        self.shape
                    ));
                }
                if p0 * p1 != ranks || p0 == 0 || p1 == 0 {
                    return bad(format!(
                        "a {p0} × {p1} grid of pencils takes {} ranks, not {ranks}",
                        p0 * p1
                    ));
                }
                if self.parts.is_some_and(|p| p > 1) {
                    return bad(format!(
                        "pencils exchange whole (got parts {:?}); parts cut slabs",
                        self.parts
                    ));
                }
                if self.spectrum == Spectrum::Natural {
                    return bad(
                        "pencils leave the spectrum in their own layout (Spectrum::Transposed)"
                            .into(),
                    );
                }
                Ok(())
            }
        }
    }

    /// The slab decomposition of the complex side over `ranks` ranks, or why there is none.
    pub fn slabs(&self, ranks: usize) -> Result<Slabs> {
        let bad = |m: String| Err(Error::InvalidSpec(m));
        if self.shape.len() < 2 {
            return bad(format!(
                "a distributed transform cuts an array of two or more axes (got shape {:?}); \
                 a 1-D transform fits one device",
                self.shape
            ));
        }
        if self.shape.contains(&0) {
            return bad(format!("shape {:?} has an empty axis", self.shape));
        }
        if ranks == 0 {
            return bad("a distributed transform needs at least one rank".into());
        }
        let complex = self.complex_shape();
        Slabs::new(&complex, ranks).map_or_else(
            || {
                bad(format!(
                    "{ranks} ranks cannot each hold a slab of shape {complex:?}: axes 0 and 1 \
                     (of the complex side) need at least one index per rank"
                ))
            },
            Ok,
        )
    }
}
