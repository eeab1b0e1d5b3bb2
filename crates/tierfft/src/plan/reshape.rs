//! The steps of an N-D or real plan that are not transforms: one pass over whole arrays
//! moving between real and complex data or between strided and contiguous layouts, one
//! thread per output element (kernels in `kernel/real.rs`, host versions in `reshape_host.rs`).

use num_complex::Complex64;

use crate::base::precision::Precision;
use crate::trig::Trig;

/// A step that is not a transform: one pass moving between real and complex data, one
/// thread per output element.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reshape {
    /// R2C of `rows` contiguous rows of even length `n` from their `n/2`-point transforms
    /// `Z` (the reals read in pairs): `X[k] = (Z[k] + Z*[n/2−k])/2 − i·W^k·(Z[k] − Z*[n/2−k])/2`
    /// for `k = 0..=n/2`, `W = exp(−2πi/n)`, times `scale`.
    Split {
        /// Real points per row (even).
        n: usize,
        /// Rows.
        rows: usize,
        /// Factor on every bin (1/n for a normalised forward transform).
        scale: f64,
    },
    /// C2R's first half for even `n`: from `n/2 + 1` bins per row, the `n/2` complex points
    /// whose unnormalised `n/2`-point inverse transform is the `n` reals read in pairs:
    /// `Z[k] = (X[k] + X*[n/2−k]) + i·W^−k·(X[k] − X*[n/2−k])`, times `scale`, with the
    /// imaginary parts of bins 0 and n/2 ignored.
    Merge {
        /// Real points per row (even).
        n: usize,
        /// Rows.
        rows: usize,
        /// Factor on every point (1/n for a normalised inverse transform).
        scale: f64,
    },
    /// `len` reals to complex values with zero imaginary parts.
    Widen {
        /// Elements.
        len: usize,
    },
    /// The first `n/2 + 1` of `n` points along an axis: `[outer][n][inner]` →
    /// `[outer][n/2 + 1][inner]`.
    Truncate {
        /// Product of the extents before the axis.
        outer: usize,
        /// The axis' length.
        n: usize,
        /// Product of the extents after it.
        inner: usize,
    },
    /// The Hermitian extension along an axis: `[outer][n/2 + 1][inner]` → `[outer][n][inner]`,
    /// point `k > n/2` being the conjugate of point `n − k`.
    Extend {
        /// Product of the extents before the axis.
        outer: usize,
        /// The axis' length.
        n: usize,
        /// Product of the extents after it.
        inner: usize,
    },
    /// The real parts of `len` complex values, times `scale`.
    RealPart {
        /// Elements.
        len: usize,
        /// Factor on every value (1/n for a normalised inverse transform).
        scale: f64,
    },
    /// The first half of an `n`-point [`Trig`] along an axis: the reals `[outer][n][inner]`
    /// reordered, extended and twiddled into the [`Trig::fft_len`] complex points
    /// `[outer][m][inner]` whose FFT (in [`Trig::direction`]) the second half finishes.
    TrigLoad {
        /// The transform.
        transform: Trig,
        /// Product of the extents before the axis.
        outer: usize,
        /// The axis' length.
        n: usize,
        /// Product of the extents after it.
        inner: usize,
        /// SciPy's `orthogonalize` ([`crate::RealToReal::orthogonalize`]): the first (DCT) or
        /// last (DST) input of types I and III times √2.
        orthogonalize: bool,
        /// Lines sharing one FFT ([`LinePairs`]).
        pairs: LinePairs,
    },
    /// The second half: the `n` reals of each line from its FFT's `m` points, times `scale`.
    TrigStore {
        /// The transform.
        transform: Trig,
        /// Product of the extents before the axis.
        outer: usize,
        /// The axis' length.
        n: usize,
        /// Product of the extents after it.
        inner: usize,
        /// SciPy's `orthogonalize`: the first (DCT) or last (DST) output of types I and II
        /// divided by √2.
        orthogonalize: bool,
        /// Lines sharing one FFT ([`LinePairs`]).
        pairs: LinePairs,
        /// Factor on every output.
        scale: f64,
    },
    /// A strided array into a contiguous row-major one: element `i` (row-major over `shape`,
    /// multi-index `(i_0, ..)`) from element `Σ i_k · strides[k]` of the source.
    Gather {
        /// The array's extents.
        shape: Vec<usize>,
        /// Source elements between neighbours along each axis.
        strides: Vec<usize>,
        /// Reals (else complex values).
        real: bool,
    },
    /// The reverse of [`Reshape::Gather`]: contiguous element `i` to `Σ i_k · strides[k]`
    /// of the destination, whose other elements are left as they were.
    Scatter {
        /// The array's extents.
        shape: Vec<usize>,
        /// Destination elements between neighbours along each axis.
        strides: Vec<usize>,
        /// Reals (else complex values).
        real: bool,
    },
}

/// How the lines of a trigonometric transform share complex FFTs. Types I to III may
/// transform two real lines as the real and imaginary parts of one FFT (their lines' FFTs
/// are real, come back real, or are Hermitian and split apart after), halving the FFT's
/// work; type IV's lines are complex, one per FFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LinePairs {
    /// Each line its own FFT.
    Single,
    /// Lines `(2q, c)` and `(2q + 1, c)` of `[outer][n][inner]` share FFT `(q, c)` of
    /// `[outer/2][m][inner]` (`outer` even).
    Outer,
    /// Lines `(o, 2q)` and `(o, 2q + 1)` share FFT `(o, q)` of `[outer][m][inner/2]`
    /// (`inner` even).
    Inner,
}

impl LinePairs {
    /// The pairing for `transform`'s `outer × inner` lines: along `outer` where it is even,
    /// else along `inner` where that is; none for type IV or an odd count of lines.
    pub fn choose(transform: Trig, outer: usize, inner: usize) -> LinePairs {
        match transform.kind() {
            4 => LinePairs::Single,
            _ if outer.is_multiple_of(2) => LinePairs::Outer,
            _ if inner.is_multiple_of(2) => LinePairs::Inner,
            _ => LinePairs::Single,
        }
    }

    /// The FFT array's `(outer, inner)` for `outer × inner` lines.
    pub fn fft_dims(self, outer: usize, inner: usize) -> (usize, usize) {
        match self {
            LinePairs::Single => (outer, inner),
            LinePairs::Outer => (outer / 2, inner),
            LinePairs::Inner => (outer, inner / 2),
        }
    }

    /// The number of FFTs for `outer × inner` lines.
    pub fn fft_lines(self, outer: usize, inner: usize) -> usize {
        let (o, i) = self.fft_dims(outer, inner);
        o * i
    }

    /// The line `(o, c)` that is part `half` (0: real, 1: imaginary) of FFT `(q, d)`.
    pub(crate) fn line(self, q: usize, d: usize, half: usize) -> (usize, usize) {
        match self {
            LinePairs::Single => (q, d),
            LinePairs::Outer => (2 * q + half, d),
            LinePairs::Inner => (q, 2 * d + half),
        }
    }

    /// The FFT `(q, d)` line `(o, c)` is in, and its part.
    pub(crate) fn fft_of(self, o: usize, c: usize) -> (usize, usize, usize) {
        match self {
            LinePairs::Single => (o, c, 0),
            LinePairs::Outer => (o / 2, c, o % 2),
            LinePairs::Inner => (o, c / 2, c % 2),
        }
    }

    /// True when two lines share each FFT.
    pub fn paired(self) -> bool {
        self != LinePairs::Single
    }
}

impl Reshape {
    /// Elements written (one thread each).
    pub fn outputs(&self) -> usize {
        match *self {
            Reshape::Gather { ref shape, .. } | Reshape::Scatter { ref shape, .. } => {
                shape.iter().product()
            }
            Reshape::Split { n, rows, .. } => rows * (n / 2 + 1),
            Reshape::Merge { n, rows, .. } => rows * (n / 2),
            Reshape::Widen { len } | Reshape::RealPart { len, .. } => len,
            Reshape::Truncate { outer, n, inner } => outer * (n / 2 + 1) * inner,
            Reshape::Extend { outer, n, inner } => outer * n * inner,
            Reshape::TrigLoad {
                transform,
                outer,
                n,
                inner,
                pairs,
                ..
            } => pairs.fft_lines(outer, inner) * transform.fft_len(n),
            Reshape::TrigStore {
                outer, n, inner, ..
            } => outer * n * inner,
        }
    }

    /// Elements the source holds.
    pub fn inputs(&self) -> usize {
        match *self {
            Reshape::Gather {
                ref shape,
                ref strides,
                ..
            } => crate::base::layout::span(shape, strides).unwrap_or(usize::MAX),
            Reshape::Scatter { ref shape, .. } => shape.iter().product(),
            Reshape::Split { n, rows, .. } => rows * (n / 2),
            Reshape::Merge { n, rows, .. } => rows * (n / 2 + 1),
            Reshape::Widen { len } | Reshape::RealPart { len, .. } => len,
            Reshape::Truncate { outer, n, inner } => outer * n * inner,
            Reshape::Extend { outer, n, inner } => outer * (n / 2 + 1) * inner,
            Reshape::TrigLoad {
                outer, n, inner, ..
            } => outer * n * inner,
            Reshape::TrigStore {
                transform,
                outer,
                n,
                inner,
                pairs,
                ..
            } => pairs.fft_lines(outer, inner) * transform.fft_len(n),
        }
    }

    /// 4-byte words the source and the destination hold in `precision` (an f32 real is
    /// one, an f64 complex value four).
    pub fn words(&self, precision: Precision) -> (usize, usize) {
        let (real_src, real_dst) = self.real_ends();
        let real = precision.storage_bytes() / 4;
        let per = |is_real: bool| if is_real { real } else { 2 * real };
        let dst = match self {
            Reshape::Scatter { shape, strides, .. } => {
                crate::base::layout::span(shape, strides).unwrap_or(usize::MAX)
            }
            _ => self.outputs(),
        };
        (self.inputs() * per(real_src), dst * per(real_dst))
    }

    /// Whether the source and the destination hold reals (else complex values).
    pub fn real_ends(&self) -> (bool, bool) {
        match self {
            Reshape::Gather { real, .. } | Reshape::Scatter { real, .. } => (*real, *real),
            Reshape::Widen { .. } | Reshape::TrigLoad { .. } => (true, false),
            Reshape::RealPart { .. } | Reshape::TrigStore { .. } => (false, true),
            _ => (false, false),
        }
    }

    /// The twiddles the step reads (in f64, rounded once to the precision they are used in):
    /// `W_n^k = exp(−2πik/n)`, `k = 0..=n/2`, for splitting and merging, [`Trig::twiddles`]
    /// for the trigonometric transforms' halves; `None` for the other steps.
    pub fn twiddles(&self) -> Option<Vec<Complex64>> {
        match *self {
            Reshape::Split { n, .. } | Reshape::Merge { n, .. } => {
                Some(crate::base::twiddle::table(n / 2 + 1, 1, n, -1.0))
            }
            Reshape::TrigLoad { transform, n, .. } | Reshape::TrigStore { transform, n, .. } => {
                transform.twiddles(n)
            }
            _ => None,
        }
    }

    /// How many twiddles [`Reshape::twiddles`] gives, without computing them.
    pub fn twiddle_count(&self) -> Option<usize> {
        match *self {
            Reshape::Split { n, .. } | Reshape::Merge { n, .. } => Some(n / 2 + 1),
            Reshape::TrigLoad { transform, n, .. } | Reshape::TrigStore { transform, n, .. } => {
                (transform.kind() != 1).then_some(2 * n)
            }
            _ => None,
        }
    }

    /// A short name for kernels and printed plans.
    pub fn name(&self) -> String {
        match self {
            Reshape::Split { n, rows, .. } => {
                format!(
                    "split {rows} × {} points into {} bins each (R2C)",
                    n / 2,
                    n / 2 + 1
                )
            }
            Reshape::Merge { n, rows, .. } => {
                format!(
                    "merge {rows} × {} bins into {} points each (C2R)",
                    n / 2 + 1,
                    n / 2
                )
            }
            Reshape::Widen { len } => format!("widen {len} reals to complex"),
            Reshape::Truncate { outer, n, inner } => {
                format!(
                    "keep bins 0..={} of {n} along [{outer}][{n}][{inner}]",
                    n / 2
                )
            }
            Reshape::Extend { outer, n, inner } => format!(
                "extend {} bins to {n} by Hermitian symmetry along [{outer}][{}][{inner}]",
                n / 2 + 1,
                n / 2 + 1
            ),
            Reshape::RealPart { len, .. } => format!("real parts of {len} values"),
            Reshape::TrigLoad {
                transform,
                outer,
                n,
                inner,
                pairs,
                ..
            } => format!(
                "{transform} of {n} reals along [{outer}][{n}][{inner}]: to {} points to transform{}",
                transform.fft_len(*n),
                if pairs.paired() {
                    ", two lines to each"
                } else {
                    ""
                }
            ),
            Reshape::TrigStore {
                transform,
                outer,
                n,
                inner,
                pairs,
                ..
            } => format!(
                "{transform} of {n} reals along [{outer}][{n}][{inner}]: from the {}-point transform{}",
                transform.fft_len(*n),
                if pairs.paired() {
                    "s of two lines each"
                } else {
                    ""
                }
            ),
            Reshape::Gather {
                shape,
                strides,
                real,
            } => format!(
                "gather the {shape:?} {} input from strides {strides:?}",
                if *real { "real" } else { "complex" }
            ),
            Reshape::Scatter {
                shape,
                strides,
                real,
            } => format!(
                "scatter the {shape:?} {} output to strides {strides:?}",
                if *real { "real" } else { "complex" }
            ),
        }
    }
}
