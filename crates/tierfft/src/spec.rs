//! What the user asks for: length, batch, direction, normalisation, and the pointwise
//! operations fused into the transform's loads and stores.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};

use crate::base::layout::transpose;
use crate::base::values::Values;
use crate::checksum::Checksum;

use crate::base::precision::Precision;
use crate::error::{Error, Result};
use crate::weights::RealWeights;

/// log2 of the longest transform tierfft plans (2^27 points, 1 GiB of complex f32).
pub(crate) const MAX_LOG2_N: u32 = 27;

/// Sign of the exponent: forward is `exp(-2πi nk/N)`, inverse `exp(+2πi nk/N)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Direction {
    /// `X[k] = Σ x[n] exp(-2πi nk/N)`.
    Forward,
    /// `x[n] = Σ X[k] exp(+2πi nk/N)`, unnormalised unless the spec asks for 1/N.
    Inverse,
}

impl Direction {
    /// The sign of the exponent: -1 forward, +1 inverse.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Forward => -1.0,
            Direction::Inverse => 1.0,
        }
    }
}

/// A pointwise operation fused into a transform: applied to each point as it is loaded
/// (before the transform) or stored (after it), so that windowing, matched filtering or
/// detection cost no extra pass over device memory.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PointOp {
    /// Multiply point `k` by `v[k]` (`v` has `n` values; the same for every transform of the
    /// batch): windows, matched filters, phase ramps.
    Multiply(Arc<[Complex32]>),
    /// [`PointOp::Multiply`] by a vector given in f64: exact in an f64 transform (rounded to
    /// f32 in an f32 one). Bluestein's chirps of f64 plans.
    Multiply64(Arc<[Complex64]>),
    /// Multiply every element by the element at the same place in `v`, which is laid out like
    /// the data (`n × batch` values): a different filter for every transform, such as a
    /// range-dependent azimuth filter. The whole batch is then bound in one dispatch.
    MultiplyEach(Arc<[Complex32]>),
    /// Multiply every element by real weights laid out like the data: one per element
    /// (`n × batch`), or one per part (`2 × n × batch`, [`RealWeights::per_part`]). In an
    /// [`crate::NdSpec`], one per element of its array, reals included: a windowed R2C.
    Weight(RealWeights),
    /// Complex conjugate.
    Conjugate,
    /// Multiply by a real factor: exact in an f64 transform (rounded to f32 in an f32 one),
    /// so that an f64 transform's `1/√n` keeps double precision.
    Scale(f64),
    /// Replace points at index `len` and beyond by zero (zero-padding a shorter signal).
    ZeroFrom(usize),
    /// `|z|` in the real part, 0 in the imaginary part.
    Magnitude,
    /// `20·log10(|z|)` (dB) in the real part, 0 in the imaginary part; |z| below 1e-15
    /// gives -300 dB rather than -∞.
    MagnitudeDb,
}

impl PointOp {
    /// The operation on point `k` of its transform, held at `element` of the buffer, in f64:
    /// the unfused reference the fused kernels are checked against, and what the CPU backend
    /// runs.
    pub fn apply(&self, k: usize, element: usize, z: Complex64) -> Complex64 {
        let times = |w: Complex32| z * Complex64::new(w.re.into(), w.im.into());
        match self {
            PointOp::Multiply(v) => times(v[k]),
            PointOp::Multiply64(v) => z * v[k],
            PointOp::MultiplyEach(v) => times(v[element]),
            PointOp::Weight(w) => {
                let (a, b) = w.factors(element);
                Complex64::new(z.re * f64::from(a), z.im * f64::from(b))
            }
            PointOp::Conjugate => z.conj(),
            PointOp::Scale(s) => z * *s,
            PointOp::ZeroFrom(len) => {
                if k < *len {
                    z
                } else {
                    Complex64::new(0.0, 0.0)
                }
            }
            PointOp::Magnitude => Complex64::new(z.norm(), 0.0),
            PointOp::MagnitudeDb => Complex64::new(10.0 * z.norm_sqr().max(1e-30).log10(), 0.0),
        }
    }

    /// A short description ("multiply by a device vector", "zero from index 500"), for
    /// generated source and printed plans.
    pub fn name(&self) -> String {
        match self {
            PointOp::Multiply(_) | PointOp::Multiply64(_) => "multiply by a device vector".into(),
            PointOp::MultiplyEach(_) => "multiply by the same element of a device array".into(),
            PointOp::Weight(w) if w.is_per_part() => {
                "weight each part by the same reals of a device array".into()
            }
            PointOp::Weight(_) => "weight by the same element of a real device array".into(),
            PointOp::Conjugate => "conjugate".into(),
            PointOp::Scale(s) => format!("scale by {s}"),
            PointOp::ZeroFrom(len) => format!("zero from index {len}"),
            PointOp::Magnitude => "magnitude".into(),
            PointOp::MagnitudeDb => "magnitude in dB".into(),
        }
    }

    /// True when the operation reads one value per element of the batch (or per part).
    pub fn per_element(&self) -> bool {
        matches!(self, PointOp::MultiplyEach(_) | PointOp::Weight(_))
    }

    /// The device vector the operation reads, if any (real weights two to a slot).
    pub fn vector(&self) -> Option<Values> {
        match self {
            PointOp::Multiply(v) | PointOp::MultiplyEach(v) => Some(Values::F32(v.clone())),
            PointOp::Multiply64(v) => Some(Values::F64(v.clone())),
            PointOp::Weight(w) => Some(Values::F32(w.pairs().clone())),
            _ => None,
        }
    }

    /// This operation with its per-element vector laid out for `layout`'s transpose (see
    /// [`FftSpec::as_rows`]).
    fn transposed(&self, matrices: usize, rows: usize, cols: usize) -> PointOp {
        match self {
            PointOp::MultiplyEach(v) => {
                PointOp::MultiplyEach(transpose(v, matrices, rows, cols).into())
            }
            PointOp::Weight(w) => PointOp::Weight(w.transposed(matrices, rows, cols)),
            op => op.clone(),
        }
    }
}

/// Where each transform's points lie in the buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layout {
    /// Transform `b` occupies elements `b·n .. (b+1)·n`: the rows of a row-major
    /// `[batch][n]` matrix.
    #[default]
    Rows,
    /// The columns of `matrices` row-major `[n][w]` matrices stored one after another
    /// (`w = batch / matrices`): point `k` of transform `b = m·w + c` is element
    /// `m·n·w + k·w + c`, transformed in place without a transpose (neighbouring columns are
    /// read and written together, so accesses stay coalesced). One matrix is
    /// [`FftSpec::columns`] (an azimuth FFT over range lines, the second axis of a 2-D FFT);
    /// several are a middle axis of an N-D array.
    Columns {
        /// Matrices stacked in the buffer (at least 1, dividing the batch).
        matrices: usize,
    },
}

/// How a real transform rides on a complex one, fused into its kernels (set by the N-D
/// planner, [`crate::nd::NdPlan`]). Even lengths: the `2n` reals of a row are read as `n`
/// complex pairs, so the `n`-point transform `Z` of the pairs gives the real row's `n + 1`
/// bins `X` by a split, and a C2R's `n` points come from its bins by a merge. Other
/// lengths: the full `n`-point transform of the widened reals keeps bins `0..=n/2`, and a
/// C2R's full spectrum is extended from them by Hermitian symmetry.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum RealHalf {
    /// R2C: the forward transform's results split into rows of `n + 1` bins on store,
    /// `X[k] = ((Z[k] + Z*[n−k]) − i·W^k·(Z[k] − Z*[n−k]))·scale/2`, `W = exp(−πi/n)`.
    Split {
        /// Factor on every bin (1/(2n) for a normalised forward transform).
        scale: f64,
    },
    /// C2R: rows of `n + 1` bins merged on load into the points whose unnormalised inverse
    /// transform is the `2n` reals in pairs,
    /// `Z[k] = ((X[k] + X*[n−k]) + i·W^−k·(X[k] − X*[n−k]))·scale`, the imaginary parts of
    /// bins 0 and `n` ignored.
    Merge {
        /// Factor on every point (1/(2n) for a normalised inverse transform).
        scale: f64,
    },
    /// R2C through the full transform of widened reals: only bins `0..=n/2` of each row
    /// stored, in rows of `n/2 + 1`.
    Truncate,
    /// C2R through the full inverse transform: rows of `n/2 + 1` bins extended on load by
    /// Hermitian symmetry (`X[k] = X*[n−k]` for `k > n/2`).
    Extend,
}

impl Layout {
    /// True for the column layouts.
    pub fn is_columns(self) -> bool {
        matches!(self, Layout::Columns { .. })
    }
}

/// A batched complex-to-complex transform of complex f32 (`num_complex::Complex32`, interleaved),
/// contiguous batches: transform `b` occupies elements `b·n .. (b+1)·n`.
///
/// ```
/// use tierfft::{Direction, FftSpec};
/// let spec = FftSpec::new(4096).batch(16).inverse().normalized();
/// assert_eq!(spec.direction, Direction::Inverse);
/// assert_eq!(spec.len(), 4096 * 16);
/// ```
///
/// Fusion: `.on_load(op)` and `.on_store(op)` add pointwise operations, and
/// `.then_multiply_and_invert(h)` chains FFT → multiply by `h` → inverse FFT in one kernel (fast
/// convolution, correlation, matched filtering; the output is normalised by 1/n when
/// `.normalized()` is set):
///
/// ```
/// use std::sync::Arc;
/// use tierfft::{Complex32, FftSpec, PointOp};
/// let h: Arc<[Complex32]> = vec![Complex32::new(1.0, 0.0); 1024].into();
/// let spec = FftSpec::new(1024).batch(64).then_multiply_and_invert(h).normalized()
///     .on_store(PointOp::MagnitudeDb);
/// assert!(spec.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FftSpec {
    /// Points per transform: 1 to 2^[`MAX_LOG2_N`]; each device's planner may take less (a
    /// GPU's binding limit: 2^24 on most wgpu adapters).
    pub n: usize,
    /// Number of transforms.
    pub batch: usize,
    /// Forward or inverse.
    pub direction: Direction,
    /// Scale the result by 1/n (usually wanted on the inverse). Off by default, like cuFFT and FFTW.
    pub normalize: bool,
    /// Operations on each input point before the transform, in order.
    pub load: Vec<PointOp>,
    /// Operations on each output point after the transform (and after 1/n), in order.
    pub store: Vec<PointOp>,
    /// Chained transform: multiply the spectrum by this vector, then transform back in the
    /// opposite direction, in the same kernel. `n` values (the same filter for every
    /// transform) or `n × batch` (one per element, laid out like the data: a different
    /// filter for every transform, rows only; the whole batch is then bound in one
    /// dispatch).
    pub chain: Option<Values>,
    /// Where the transforms' points lie: rows (contiguous, the default) or columns.
    pub layout: Layout,
    /// The half-length transform of an even real one, its split or merge fused ([`RealHalf`];
    /// the N-D planner sets it, `None` otherwise). Such a transform reads and writes rows of
    /// different lengths (`n` and `n + 1`) in two device buffers, so only [`crate::NdFft`]
    /// runs it: [`crate::Fft`]'s own calls refuse it.
    pub real: Option<RealHalf>,
    /// How values are stored and computed ([`Precision`]; f32 by default). The GPU
    /// backends plan f32 only so far, and refuse the others naming the device.
    pub precision: Precision,
    /// Check every transform against a weighted checksum of its input ([`Checksum`];
    /// off by default).
    pub checksum: Checksum,
}

impl FftSpec {
    /// Largest transform, as a power of two: `n` runs from 1 to `2^MAX_LOG2_N`.
    pub const MAX_LOG2_N: u32 = MAX_LOG2_N;

    /// A forward, unnormalised transform of `n` points, batch 1.
    pub fn new(n: usize) -> Self {
        FftSpec {
            n,
            batch: 1,
            direction: Direction::Forward,
            normalize: false,
            load: Vec::new(),
            store: Vec::new(),
            chain: None,
            layout: Layout::Rows,
            real: None,
            precision: Precision::F32,
            checksum: Checksum::Off,
        }
    }

    /// Sets the precision values are stored and computed in.
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// Sets the number of transforms.
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// Sets the direction.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// Checks every transform against a weighted checksum of its input (algorithm-based
    /// fault tolerance, see [`Checksum`]).
    pub fn checksum(mut self, checksum: Checksum) -> Self {
        self.checksum = checksum;
        self
    }

    /// Makes this an inverse transform.
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Scales the output by 1/n.
    pub fn normalized(mut self) -> Self {
        self.normalize = true;
        self
    }

    /// Transforms the columns of a row-major `[n][batch]` matrix (point `k` of transform `b`
    /// at element `k·batch + b`) instead of contiguous rows: an azimuth FFT over range lines,
    /// or the second half of a 2-D FFT, with no transpose.
    pub fn columns(self) -> Self {
        self.stacked_columns(1)
    }

    /// Transforms the columns of `matrices` row-major `[n][batch / matrices]` matrices
    /// stored one after another (see [`Layout::Columns`]): a middle axis of an N-D array.
    pub fn stacked_columns(mut self, matrices: usize) -> Self {
        self.layout = Layout::Columns { matrices };
        self
    }

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

    /// Adds a pointwise operation on the input points.
    pub fn on_load(mut self, op: PointOp) -> Self {
        self.load.push(op);
        self
    }

    /// Adds a pointwise operation on the output points.
    pub fn on_store(mut self, op: PointOp) -> Self {
        self.store.push(op);
        self
    }

    /// After the transform, multiply by `h` and transform back in the opposite direction,
    /// all in one pass: `h` holds `n` values (one filter for every transform) or `n × batch`
    /// (one per element, a filter for each transform; see [`FftSpec::chain`]).
    pub fn then_multiply_and_invert(mut self, h: impl Into<Values>) -> Self {
        self.chain = Some(h.into());
        self
    }

    /// This transform as the half-length one of an even real transform ([`RealHalf`]).
    pub(crate) fn real_half(mut self, half: RealHalf) -> Self {
        self.real = Some(half);
        self
    }

    /// Elements per transform in the buffer the transform reads and in the one it writes:
    /// `n` and `n`, except `n` and `n + 1` bins for a split, `n + 1` and `n` for a merge.
    pub(crate) fn row_lens(&self) -> (usize, usize) {
        match self.real {
            None => (self.n, self.n),
            Some(RealHalf::Split { .. }) => (self.n, self.n + 1),
            Some(RealHalf::Merge { .. }) => (self.n + 1, self.n),
            Some(RealHalf::Truncate) => (self.n, self.n / 2 + 1),
            Some(RealHalf::Extend) => (self.n / 2 + 1, self.n),
        }
    }

    /// True when every transform of the batch must be bound in one dispatch: column layouts,
    /// and per-element multiplies (which index the whole batch).
    pub fn whole_batch(&self) -> bool {
        self.layout.is_columns()
            || self.chain_per_element()
            || self
                .load
                .iter()
                .chain(&self.store)
                .any(PointOp::per_element)
    }

    /// True when the chain's filter has one value per element (`n × batch`, batch > 1)
    /// rather than one per point.
    pub fn chain_per_element(&self) -> bool {
        self.chain.as_ref().is_some_and(|h| h.len() != self.n)
    }

    /// The same computation on the transposed buffer when the layout is columns: rows
    /// layout, per-element vectors transposed. What the CPU backend and the f64 reference run
    /// between a transpose in and a transpose out.
    pub fn as_rows(&self) -> FftSpec {
        if self.layout == Layout::Rows {
            return self.clone();
        }
        let (n, m, w) = (self.n, self.matrices(), self.point_stride());
        let t = |ops: &[PointOp]| ops.iter().map(|op| op.transposed(m, n, w)).collect();
        FftSpec {
            load: t(&self.load),
            store: t(&self.store),
            layout: Layout::Rows,
            ..self.clone()
        }
    }

    /// True when the spec fuses anything beyond the plain transform.
    pub fn is_fused(&self) -> bool {
        !self.load.is_empty() || !self.store.is_empty() || self.chain.is_some()
    }

    /// Elements in one buffer: `n × batch`.
    pub fn len(&self) -> usize {
        self.n * self.batch
    }

    /// True when the spec describes no data (never for a validated spec).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks the spec on its own, before any device is involved: any length from 1 to
    /// 2^[`MAX_LOG2_N`] (what each device plans is its own check: the GPU planner takes
    /// powers of two for now, the CPU any length).
    pub fn validate(&self) -> Result<()> {
        if self.n == 0 || self.n > 1 << MAX_LOG2_N {
            return Err(Error::UnsupportedLength {
                n: self.n,
                max_log2: MAX_LOG2_N,
            });
        }
        if self.batch == 0 {
            return Err(Error::ZeroBatch);
        }
        if let Layout::Columns { matrices } = self.layout
            && (matrices == 0 || !self.batch.is_multiple_of(matrices))
        {
            return Err(Error::InvalidSpec(format!(
                "columns of {matrices} stacked matrices need a batch that is a whole number \
                 of columns per matrix (batch {})",
                self.batch
            )));
        }
        if self
            .n
            .checked_mul(self.batch)
            .is_none_or(|len| len.checked_mul(self.precision.complex_bytes()).is_none())
        {
            return Err(Error::TooLarge {
                what: format!("{} × {} elements", self.n, self.batch),
                device: "any".into(),
                detail: "the byte count overflows usize".into(),
            });
        }
        if self.precision.is_half() {
            // 16-bit storage rounds every pass's intermediate: kept to complex transforms of
            // few passes (smooth lengths), not Bluestein's convolution or real halves.
            if self.real.is_some() {
                return Err(Error::InvalidSpec(format!(
                    "{} storage covers complex transforms; real transforms run in f32 or f64",
                    self.precision
                )));
            }
            if !crate::base::factors::is_smooth(self.n) {
                return Err(Error::InvalidSpec(format!(
                    "{} storage covers lengths with no prime factor above 31 (n = {}); \
                     Bluestein's convolution for other lengths runs in f32 or f64",
                    self.precision, self.n
                )));
            }
        }
        if let Some(half) = self.real {
            let (direction, scales) = match half {
                RealHalf::Split { .. } => (Direction::Forward, true),
                RealHalf::Merge { .. } => (Direction::Inverse, true),
                RealHalf::Truncate => (Direction::Forward, false),
                RealHalf::Extend => (Direction::Inverse, false),
            };
            // Operations may ride on the side the split or merge leaves alone: loads before a
            // split or cut, stores after a merge or extension. (A split or merge carries its
            // own scale; the others take the transform's.)
            let fused_side = match half {
                RealHalf::Split { .. } | RealHalf::Truncate => !self.store.is_empty(),
                RealHalf::Merge { .. } | RealHalf::Extend => !self.load.is_empty(),
            };
            if self.layout != Layout::Rows
                || fused_side
                || self.chain.is_some()
                || (self.normalize && scales)
                || self.direction != direction
            {
                return Err(Error::InvalidSpec(format!(
                    "a fused real {half:?} needs a {direction:?}{} transform of rows with no \
                     chain and no operations on the side it fuses (got a {:?} transform of \
                     {:?}{}{})",
                    if scales { ", unnormalised" } else { "" },
                    self.direction,
                    self.layout,
                    if self.normalize { ", normalised" } else { "" },
                    if fused_side || self.chain.is_some() {
                        ", with operations there"
                    } else {
                        ""
                    },
                )));
            }
        }
        if self.checksum != Checksum::Off {
            crate::checksum::supports(self)?;
        }
        for (operand, got, expected, per) in self.fused_vectors() {
            if got != expected {
                return Err(Error::OperandLength {
                    operand,
                    got,
                    expected,
                    per,
                });
            }
        }
        Ok(())
    }

    /// Every fused vector as (the name the user wrote it under, its length in values, the
    /// length it must have, what that length is one per).
    fn fused_vectors(&self) -> Vec<(String, usize, usize, String)> {
        let (n, batch) = (self.n, self.batch);
        let each = || format!("one per element: n × batch = {n} × {batch}");
        let ops = |at: &str, ops: &[PointOp]| -> Vec<(String, usize, usize, String)> {
            ops.iter()
                .filter_map(|op| match op {
                    PointOp::Multiply(v) => Some((
                        format!("{at} PointOp::Multiply"),
                        v.len(),
                        n,
                        format!("one per point: n = {n}"),
                    )),
                    PointOp::Multiply64(v) => Some((
                        format!("{at} PointOp::Multiply64"),
                        v.len(),
                        n,
                        format!("one per point: n = {n}"),
                    )),
                    PointOp::MultiplyEach(v) => Some((
                        format!("{at} PointOp::MultiplyEach"),
                        v.len(),
                        self.len(),
                        each(),
                    )),
                    PointOp::Weight(w) if w.is_per_part() => Some((
                        format!("{at} PointOp::Weight"),
                        w.len(),
                        2 * self.len(),
                        format!("one per part: 2 × n × batch = 2 × {n} × {batch}"),
                    )),
                    PointOp::Weight(w) => {
                        Some((format!("{at} PointOp::Weight"), w.len(), self.len(), each()))
                    }
                    _ => None,
                })
                .collect()
        };
        // One per point, or one per element (a filter for each transform of rows).
        let chain = self
            .chain
            .iter()
            .map(|h| match h.len() == n * batch && batch > 1 {
                true if self.layout == Layout::Rows => (
                    "then_multiply_and_invert's filter".to_string(),
                    h.len(),
                    n * batch,
                    each(),
                ),
                _ => (
                    "then_multiply_and_invert's filter".to_string(),
                    h.len(),
                    n,
                    format!("one per point: n = {n} (or per element, n × batch, for rows)"),
                ),
            });
        let mut all = ops("on_load", &self.load);
        all.extend(chain);
        all.extend(ops("on_store", &self.store));
        all
    }

    /// Checks that a buffer holds exactly `n × batch` elements.
    pub(crate) fn check_len(&self, got: usize) -> Result<()> {
        if got == self.len() {
            Ok(())
        } else {
            Err(self.length_error(got))
        }
    }

    #[cold]
    fn length_error(&self, got: usize) -> Error {
        Error::BufferLength {
            got,
            expected: self.len(),
            n: self.n,
            batch: self.batch,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fused_vector_of_the_wrong_length_is_named() {
        let v = |n: usize| -> Arc<[Complex32]> { vec![Complex32::new(1.0, 0.0); n].into() };
        let message = |spec: FftSpec| spec.validate().expect_err("must fail").to_string();
        assert_eq!(
            message(FftSpec::new(4096).then_multiply_and_invert(v(100))),
            "then_multiply_and_invert's filter holds 100 complex values, but the spec needs \
             4096 (one per point: n = 4096 (or per element, n × batch, for rows))"
        );
        assert!(
            message(
                FftSpec::new(64)
                    .batch(3)
                    .on_load(PointOp::Multiply(v(64)))
                    .on_store(PointOp::MultiplyEach(v(64)))
            )
            .starts_with(
                "on_store PointOp::MultiplyEach holds 64 complex values, but the spec needs 192"
            )
        );
        assert!(
            FftSpec::new(64)
                .batch(3)
                .on_load(PointOp::MultiplyEach(v(192)))
                .validate()
                .is_ok()
        );
    }
}
