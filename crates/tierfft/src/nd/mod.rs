//! Transforms of N-dimensional arrays and of real data: NumPy's `fftn`, `rfftn`, `irfftn`
//! (and `rfft`, `irfft` as the one-axis case) over chosen axes of a row-major array, and
//! SciPy's `dctn`, `dstn` and their inverses ([`NdSpec::trig`]).
//!
//! An [`NdSpec`] is planned ([`NdPlan`]) into steps over whole arrays: one batched 1-D
//! transform per axis ([`FftSpec`](crate::FftSpec) rows for the last axis, stacked columns for the others,
//! so no axis is transposed), and the steps that move between real and complex data
//! ([`Reshape`]). [`crate::Device::plan_nd`] compiles them into an [`NdFft`].

#[cfg(feature = "ndarray")]
mod array;
mod device;
mod direct;
mod double;
mod exec;
mod host_calls;
pub(crate) mod plan;

pub use double::NdFft64;
pub use exec::NdFft;
pub use host_calls::NdTransform;

pub use crate::plan::Reshape;
pub use device::FuseReal;
pub use plan::{Buf, NdPlan, Step, StepOp};

use crate::base::precision::Precision;
use crate::checksum::Checksum;
use crate::error::{Error, Result};
use crate::spec::{Direction, MAX_LOG2_N, PointOp};
use crate::trig::RealToReal;

/// Checks the operations `ops` that `at` ("on_load", "on_store") adds on an array of `len`
/// elements (`real`: a real array, which takes weights and scales only).
fn check_ops(at: &str, ops: &[PointOp], len: usize, real: bool) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidSpec(m));
    for op in ops {
        match op {
            PointOp::Multiply(_) | PointOp::ZeroFrom(_) => {
                return bad(format!(
                    "{at} {}: an N-D transform takes operations on each element of its array \
                     (MultiplyEach or Weight with one value per element, row-major), not on \
                     the points of a 1-D transform",
                    op.name()
                ));
            }
            PointOp::Weight(w) if w.is_per_part() => {
                return bad(format!(
                    "{at} PointOp::Weight: an N-D transform takes one weight per element \
                     (RealWeights::new), not per part"
                ));
            }
            PointOp::Weight(_) | PointOp::Scale(_) => {}
            _ if real => {
                return bad(format!(
                    "{at} {}: the real side of a real transform takes real weights \
                     (PointOp::Weight) and scales only",
                    op.name()
                ));
            }
            _ => {}
        }
        let (name, values) = match op {
            PointOp::MultiplyEach(v) => ("MultiplyEach", v.len()),
            PointOp::Weight(w) => ("Weight", w.len()),
            _ => continue,
        };
        if values != len {
            return Err(Error::OperandLength {
                operand: format!("{at} PointOp::{name}"),
                got: values,
                expected: len,
                per: "one per element of the array, row-major".into(),
            });
        }
    }
    Ok(())
}

/// The most elements an N-D array may hold: kernels index with 32-bit integers, and the
/// reshape kernels' padded grids stay below 2^32 threads.
const MAX_ELEMENTS: usize = 1 << 31;

/// What a transform's input and output hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// Complex in, complex out, same shape.
    ComplexToComplex,
    /// Real in (the spec's shape), complex out: the last transformed axis holds `n/2 + 1`
    /// bins (the others follow from Hermitian symmetry).
    RealToComplex,
    /// Complex in (the last transformed axis holding `n/2 + 1` bins), real out (the spec's
    /// shape). Imaginary parts that a real signal's spectrum cannot have (bin 0, and bin n/2
    /// for even n, along that axis) are ignored, as NumPy's `irfft` ignores them.
    ComplexToReal,
    /// Real in, real out, same shape: a DCT or DST along every transformed axis
    /// ([`NdSpec::trig`]).
    RealToReal,
}

impl Kind {
    /// "C2C", "R2C" or "C2R".
    pub fn abbreviation(self) -> &'static str {
        match self {
            Kind::ComplexToComplex => "C2C",
            Kind::RealToComplex => "R2C",
            Kind::ComplexToReal => "C2R",
            Kind::RealToReal => "R2R",
        }
    }
}

/// A transform over chosen axes of a row-major array of any rank, like NumPy's `fftn`
/// (complex), `rfftn` (`.real()`) and `irfftn` (`.real().inverse()`).
///
/// ```
/// use tierfft::NdSpec;
/// use tierfft::nd::Kind;
/// // rfftn over both axes of a 1080 × 1920 image: 1080 × 961 complex bins.
/// let spec = NdSpec::new(&[1080, 1920]).real();
/// assert_eq!(spec.kind(), Kind::RealToComplex);
/// assert_eq!(spec.complex_shape(), vec![1080, 961]);
/// // irfft along axis 0 of a 3-D array, normalised like NumPy's.
/// let back = NdSpec::new(&[9, 4, 5]).axes(&[0]).real().inverse().normalized();
/// assert_eq!(back.complex_shape(), vec![5, 4, 5]);
/// assert!(back.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NdSpec {
    /// Extents of the row-major array, outermost first. For real transforms, the real
    /// array's: the complex side has the last transformed axis cut to `n/2 + 1`.
    pub shape: Vec<usize>,
    /// The axes transformed, in order (the last of them is the halved one of a real
    /// transform, and may appear only once; another listed twice is transformed twice, as
    /// NumPy does). Default: every axis, in order.
    pub axes: Vec<usize>,
    /// Real data on one side: forward is R2C, inverse C2R.
    pub real: bool,
    /// A DCT or DST along every transformed axis instead of a DFT: real in, real out
    /// ([`NdSpec::trig`]).
    pub trig: Option<RealToReal>,
    /// Forward or inverse.
    pub direction: Direction,
    /// Scale the result by 1 / (product of the transformed extents), as NumPy's inverse
    /// transforms do. Off by default, like cuFFT and FFTW.
    pub normalize: bool,
    /// Where the input's elements lie in its buffer: element `(i_0, .., i_{r-1})` of the
    /// input array at `Σ i_k · strides[k]` (elements of the input's type). `None`: row-major
    /// and contiguous.
    pub input_strides: Option<Vec<usize>>,
    /// The same for the output (no two elements on one place); buffer elements outside it
    /// are left as they were.
    pub output_strides: Option<Vec<usize>>,
    /// Operations on each element of the (complex) input before the transform, at its
    /// row-major place in the input array, fused into the first axis' transform.
    pub load: Vec<PointOp>,
    /// Operations on each element of the (complex) output after the transform (and its
    /// normalisation), at its row-major place in the output array, fused into the last
    /// axis' transform.
    pub store: Vec<PointOp>,
    /// The precision the arrays are stored and transformed in: [`Precision::F32`] (the
    /// default; f32 and [`crate::Complex32`] data) or [`Precision::F64`] (f64 and
    /// [`crate::Complex64`] data, on the CPU and on GPUs with f64 arithmetic); the 16-bit
    /// storage precisions are refused (1-D complex [`crate::FftSpec`]s only).
    pub precision: Precision,
    /// Check every axis' transform against a weighted checksum of its input
    /// ([`NdSpec::checksum`]). Off by default.
    pub checksum: Checksum,
}

impl NdSpec {
    /// A forward complex transform over every axis of an array of this shape.
    pub fn new(shape: &[usize]) -> Self {
        NdSpec {
            shape: shape.to_vec(),
            axes: (0..shape.len()).collect(),
            real: false,
            trig: None,
            direction: Direction::Forward,
            normalize: false,
            input_strides: None,
            output_strides: None,
            load: Vec::new(),
            store: Vec::new(),
            precision: Precision::F32,
            checksum: Checksum::Off,
        }
    }

    /// Stores and transforms the arrays in `precision`.
    ///
    /// ```
    /// use tierfft::{NdSpec, Precision};
    /// // rfft2 of a 512 × 512 float64 image, as NumPy computes it.
    /// let spec = NdSpec::new(&[512, 512]).real().precision(Precision::F64);
    /// assert!(spec.validate().is_ok());
    /// ```
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// Checks each axis' batched transform against a weighted checksum of its input, as
    /// [`crate::FftSpec::checksum`] does for one (algorithm-based fault tolerance): a call
    /// whose output fails returns [`Error::Checksum`] naming the *batch elements* hit, the
    /// row-major indices over the axes not transformed (`batch` their product, 1
    /// when every axis is transformed), after every step has run. The gathers and scatters
    /// of strided layouts are copies outside the check.
    ///
    /// Complex transforms (C2C) of axes with no prime factor above 31, in f32 or f64, with
    /// fused load and store operations; real and real-to-real transforms are refused.
    /// [`Checksum::Recompute`] recomputes an axis' failed transforms where its step still
    /// has their input (always on the CPU; on a GPU where the axis runs between two arrays);
    /// an axis transformed in place on a GPU reports as [`Checksum::Detect`] does. Each checksummed axis waits for its records, so a call
    /// returns once the transform is done.
    ///
    /// ```
    /// use tierfft::{Checksum, NdSpec};
    /// // Four 256 × 256 images (axis 0 not transformed): a failure names the images.
    /// let spec = NdSpec::new(&[4, 256, 256]).axes(&[1, 2]).checksum(Checksum::Detect);
    /// assert!(spec.validate().is_ok());
    /// assert_eq!(spec.checksum_batch(), 4);
    /// ```
    pub fn checksum(mut self, checksum: Checksum) -> Self {
        self.checksum = checksum;
        self
    }

    /// The batch a checksum failure's indices count in ([`NdSpec::checksum`]): the product
    /// of the extents of the axes not transformed (1 when every axis is).
    pub fn checksum_batch(&self) -> usize {
        (0..self.shape.len())
            .filter(|a| !self.axes.contains(a))
            .map(|a| self.shape[a])
            .product()
    }

    /// The batch element ([`NdSpec::checksum_batch`]) that line `line` of the batched
    /// transform along `axis` (`(outer, inner)` around it, `line = o·inner + i`) belongs to.
    pub(crate) fn batch_element(&self, axis: usize, line: usize) -> usize {
        let (_, _, inner) = plan::around(&self.shape, axis);
        let (mut o, mut i) = (line / inner, line % inner);
        let mut coords = vec![0; self.shape.len()];
        for a in (0..self.shape.len()).rev() {
            let rest = match a.cmp(&axis) {
                std::cmp::Ordering::Greater => &mut i,
                std::cmp::Ordering::Less => &mut o,
                std::cmp::Ordering::Equal => continue,
            };
            coords[a] = *rest % self.shape[a];
            *rest /= self.shape[a];
        }
        (0..self.shape.len())
            .filter(|a| !self.axes.contains(a))
            .fold(0, |flat, a| flat * self.shape[a] + coords[a])
    }

    /// Transforms only these axes (the last of them halved by a real transform).
    pub fn axes(mut self, axes: &[usize]) -> Self {
        self.axes = axes.to_vec();
        self
    }

    /// Real data on one side: R2C forward, C2R inverse.
    pub fn real(mut self) -> Self {
        self.real = true;
        self
    }

    /// Makes this a real-to-real transform: `r2r`'s DCT or DST along every transformed axis
    /// (its inverse type when the spec is [`NdSpec::inverse`]; [`NdSpec::normalized`]
    /// divides by the product of the axes' [`crate::Trig::logical_len`]), as SciPy's
    /// `dctn`, `dstn`, `idctn` and `idstn` compute them. Each axis is one pass that reorders
    /// and extends the reals into complex points, a complex FFT along the axis, and one pass
    /// back to reals.
    ///
    /// ```
    /// use tierfft::{NdSpec, RealToReal, Trig};
    /// // dctn(x, type=2, norm="ortho") of a 64 × 64 image, as SciPy computes it.
    /// let ortho = RealToReal::new(Trig::DctII).orthogonalized().scaled(1.0 / (128.0 * 128.0f64).sqrt());
    /// let spec = NdSpec::new(&[64, 64]).trig(ortho);
    /// assert!(spec.validate().is_ok());
    /// // Its inverse, SciPy's idctn with norm="backward": DCT-III divided by 128 per axis.
    /// let back = NdSpec::new(&[64, 64]).trig(Trig::DctII).inverse().normalized();
    /// assert_eq!(back.output_shape(), vec![64, 64]);
    /// # Ok::<(), tierfft::Error>(())
    /// ```
    pub fn trig(mut self, r2r: impl Into<RealToReal>) -> Self {
        self.trig = Some(r2r.into());
        self
    }

    /// Sets the direction.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// Makes this an inverse transform.
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Scales the output by 1 / (product of the transformed extents).
    pub fn normalized(mut self) -> Self {
        self.normalize = true;
        self
    }

    /// Lays the input out with these element strides, one per axis of the input array (the
    /// real shape for R2C, the complex one for C2R), like `cufftPlanMany`'s `istride`,
    /// `inembed` and `idist` or a NumPy array's strides (in elements, not bytes): rows padded
    /// to a pitch, a column-major array, a batch spaced out in a larger buffer.
    ///
    /// ```
    /// use tierfft::NdSpec;
    /// // 100 rows of 1000 reals, each row starting 1024 floats after the last (a pitch), into
    /// // 501 bins per row with every row's bins 512 complex values apart.
    /// let spec = NdSpec::new(&[100, 1000]).axes(&[1]).real()
    ///     .input_strides(&[1024, 1])
    ///     .output_strides(&[512, 1]);
    /// assert!(spec.validate().is_ok());
    /// assert_eq!((spec.input_len(), spec.output_len()), (99 * 1024 + 1000, 99 * 512 + 501));
    /// ```
    pub fn input_strides(mut self, strides: &[usize]) -> Self {
        self.input_strides = Some(strides.to_vec());
        self
    }

    /// Lays the output out with these element strides, one per axis of the output array (see
    /// [`NdSpec::input_strides`]); the output's elements must not overlap.
    pub fn output_strides(mut self, strides: &[usize]) -> Self {
        self.output_strides = Some(strides.to_vec());
        self
    }

    /// Adds an operation on each element of the input before the transform. On a complex
    /// input (C2C, C2R): [`PointOp::MultiplyEach`] with one value per element of the input
    /// array (row-major, whatever its strides), [`PointOp::Weight`] (one real weight per
    /// element), [`PointOp::Conjugate`], [`PointOp::Scale`], [`PointOp::Magnitude`] or
    /// [`PointOp::MagnitudeDb`]. On R2C's reals: [`PointOp::Weight`] with one weight per real
    /// (a window) and [`PointOp::Scale`]. Fused into the loads of the first transform, which
    /// must be the first step (not a C2R's merge of one axis).
    ///
    /// ```
    /// use tierfft::{NdSpec, PointOp, RealWeights};
    /// // rfft of 8 rows of 1024 reals, each under a Hann window: NumPy's rfft(x * w).
    /// let hann: Vec<f32> = (0..8 * 1024)
    ///     .map(|i| (std::f32::consts::PI * (i % 1024) as f32 / 1024.0).sin().powi(2))
    ///     .collect();
    /// let spec = NdSpec::new(&[8, 1024]).real().on_load(PointOp::Weight(RealWeights::new(&hann)));
    /// assert!(spec.validate().is_ok());
    /// ```
    pub fn on_load(mut self, op: PointOp) -> Self {
        self.load.push(op);
        self
    }

    /// Adds an operation on each element of the output after the transform and its
    /// normalisation: on a complex output (C2C, R2C) the operations of [`NdSpec::on_load`],
    /// such as a filter multiplied into a spectrum for a fast convolution (R2C → multiply →
    /// C2R) or detection; on C2R's reals, [`PointOp::Weight`] and [`PointOp::Scale`]. Fused
    /// into the stores of the last transform, which must be the last step (not an R2C's split
    /// of one axis).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tierfft::{Complex32, NdSpec, PointOp};
    /// // rfft2 of a 64 × 64 image times a filter laid out like its 64 × 33 bins.
    /// let h: Arc<[Complex32]> = vec![Complex32::new(0.5, 0.0); 64 * 33].into();
    /// let spec = NdSpec::new(&[64, 64]).real().on_store(PointOp::MultiplyEach(h));
    /// assert!(spec.validate().is_ok());
    /// ```
    pub fn on_store(mut self, op: PointOp) -> Self {
        self.store.push(op);
        self
    }

    /// The input array's shape: the real one for R2C, the complex one for C2R.
    pub fn input_shape(&self) -> Vec<usize> {
        match self.kind() {
            Kind::ComplexToReal => self.complex_shape(),
            _ => self.shape.clone(),
        }
    }

    /// The output array's shape: the complex one for R2C, the real one for C2R.
    pub fn output_shape(&self) -> Vec<usize> {
        match self.kind() {
            Kind::RealToComplex => self.complex_shape(),
            _ => self.shape.clone(),
        }
    }

    /// Complex, real-to-complex, complex-to-real or real-to-real.
    pub fn kind(&self) -> Kind {
        if self.trig.is_some() {
            return Kind::RealToReal;
        }
        match (self.real, self.direction) {
            (false, _) => Kind::ComplexToComplex,
            (true, Direction::Forward) => Kind::RealToComplex,
            (true, Direction::Inverse) => Kind::ComplexToReal,
        }
    }

    /// The axis a real transform halves (the last of [`NdSpec::axes`]).
    pub fn real_axis(&self) -> Option<usize> {
        if self.real {
            self.axes.last().copied()
        } else {
            None
        }
    }

    /// The complex side's shape: the spec's, with the real axis cut to `n/2 + 1`.
    pub fn complex_shape(&self) -> Vec<usize> {
        let mut shape = self.shape.clone();
        if let Some(a) = self.real_axis()
            && let Some(n) = shape.get_mut(a)
        {
            *n = *n / 2 + 1;
        }
        shape
    }

    /// Elements the input buffer holds: reals for R2C, complex values otherwise; the array's
    /// size, or the span of its strides (a strided buffer may be longer; of a validated spec:
    /// not checked for overflow here).
    pub fn input_len(&self) -> usize {
        let shape = self.input_shape();
        match &self.input_strides {
            Some(strides) => crate::base::layout::span(&shape, strides).unwrap_or(usize::MAX),
            None => shape.iter().product(),
        }
    }

    /// Elements the output buffer holds: reals for C2R, complex values otherwise; the
    /// array's size, or the span of its strides (a strided buffer may be longer).
    pub fn output_len(&self) -> usize {
        let shape = self.output_shape();
        match &self.output_strides {
            Some(strides) => crate::base::layout::span(&shape, strides).unwrap_or(usize::MAX),
            None => shape.iter().product(),
        }
    }

    /// Checks the spec on its own: a non-empty shape of non-zero extents, each transformed
    /// extent at most 2^[`MAX_LOG2_N`], axes in range (a real transform's halved axis not
    /// repeated), at least one axis, at most 2^31 elements (the
    /// kernels index with 32-bit integers), and strides (one per axis, spanning at most 2^31
    /// elements, the output's not overlapping).
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidSpec(m));
        if self.shape.is_empty() {
            return bad("the array has no axes (shape is empty)".into());
        }
        if let Some(a) = self.shape.iter().position(|&n| n == 0) {
            return bad(format!("axis {a} has extent 0 (shape {:?})", self.shape));
        }
        if self.axes.is_empty() {
            return bad("no axes to transform".into());
        }
        if self.precision.is_half() {
            return bad(format!(
                "N-D and real transforms run in f32 or f64; {} storage covers 1-D complex \
                 transforms (FftSpec)",
                self.precision
            ));
        }
        for (i, &a) in self.axes.iter().enumerate() {
            if a >= self.shape.len() {
                return bad(format!(
                    "axis {a} is out of range for a {}-dimensional array (shape {:?})",
                    self.shape.len(),
                    self.shape
                ));
            }
            // NumPy transforms a repeated axis again; a real transform's halved axis, though,
            // changes length, so it may appear once.
            if Some(a) == self.real_axis() && self.axes[..i].contains(&a) {
                return bad(format!(
                    "axis {a} is listed twice in {:?}: the axis a real transform halves (the \
                     last listed) may appear only once",
                    self.axes
                ));
            }
            if self.shape[a] > 1 << MAX_LOG2_N {
                return Err(Error::UnsupportedLength {
                    n: self.shape[a],
                    max_log2: MAX_LOG2_N,
                });
            }
        }
        let elements = self
            .shape
            .iter()
            .try_fold(1usize, |acc, &n| acc.checked_mul(n));
        if elements.is_none_or(|len| len > MAX_ELEMENTS) {
            return Err(Error::TooLarge {
                what: format!("an array of shape {:?}", self.shape),
                device: "any".into(),
                detail: "kernels index arrays of at most 2^31 elements".into(),
            });
        }
        if let Some(strides) = &self.input_strides {
            crate::base::layout::check("input", &self.input_shape(), strides, false, MAX_ELEMENTS)?;
        }
        if let Some(r2r) = self.trig {
            self.check_trig(r2r)?;
        }
        if self.checksum != Checksum::Off {
            self.check_checksum()?;
        }
        let dense = |shape: Vec<usize>| shape.iter().product::<usize>();
        let kind = self.kind();
        check_ops(
            "on_load",
            &self.load,
            dense(self.input_shape()),
            kind == Kind::RealToComplex,
        )?;
        check_ops(
            "on_store",
            &self.store,
            dense(self.output_shape()),
            kind == Kind::ComplexToReal,
        )?;
        if let Some(strides) = &self.output_strides {
            crate::base::layout::check(
                "output",
                &self.output_shape(),
                strides,
                true,
                MAX_ELEMENTS,
            )?;
        }
        Ok(())
    }

    /// The checks a checksummed transform adds ([`NdSpec::checksum`]): complex, and every
    /// axis' transform one the 1-D checksums cover.
    fn check_checksum(&self) -> Result<()> {
        if self.kind() != Kind::ComplexToComplex {
            return Err(Error::InvalidSpec(format!(
                "checksummed N-D transforms are complex (C2C); this one is {} (real halves \
                 and DCT/DST steps are not checksummed yet): transform complex data, or \
                 leave the checksum off",
                self.kind().abbreviation()
            )));
        }
        for &a in &self.axes {
            let axis = crate::spec::FftSpec::new(self.shape[a]).checksum(self.checksum);
            if let Err(Error::InvalidSpec(why)) = crate::checksum::supports(&axis) {
                return Err(Error::InvalidSpec(format!("axis {a}: {why}")));
            }
        }
        Ok(())
    }

    /// The checks a real-to-real transform adds: contiguous arrays with no fused operations,
    /// no `real` flag, every axis long enough for its type, a finite scale, and complex work
    /// arrays the kernels can index.
    fn check_trig(&self, r2r: RealToReal) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidSpec(m));
        let t = r2r.transform;
        if self.real {
            return bad(format!(
                "a {t} is real to real already: drop .real() (it asks for R2C or C2R)"
            ));
        }
        if self.input_strides.is_some() || self.output_strides.is_some() {
            return bad(format!(
                "a {t} takes contiguous row-major arrays: copy strided data into one first"
            ));
        }
        if !self.load.is_empty() || !self.store.is_empty() {
            return bad(format!(
                "a {t} fuses no load or store operations; scale it with RealToReal::scaled"
            ));
        }
        if !r2r.scale.is_finite() {
            return bad(format!(
                "the {t}'s scale must be finite (got {})",
                r2r.scale
            ));
        }
        let len: usize = self.shape.iter().product();
        for &a in &self.axes {
            let n = self.shape[a];
            if n < t.min_len() {
                return bad(format!(
                    "a {t} needs at least {} points; axis {a} has {n}",
                    t.min_len()
                ));
            }
            let m = t.fft_len(n);
            if m > 1 << MAX_LOG2_N {
                return Err(Error::UnsupportedLength {
                    n: m,
                    max_log2: MAX_LOG2_N,
                });
            }
            if len / n * m > MAX_ELEMENTS {
                return Err(Error::TooLarge {
                    what: format!(
                        "a {t} of shape {:?} along axis {a} ({m}-point transforms)",
                        self.shape
                    ),
                    device: "any".into(),
                    detail: "kernels index arrays of at most 2^31 elements".into(),
                });
            }
        }
        Ok(())
    }
}
