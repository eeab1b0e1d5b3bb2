//! [`NdSpec`] → [`NdPlan`]: the steps over whole arrays, pure data.
//!
//! Each transformed axis is one batched 1-D transform, in place: the last axis as contiguous
//! rows, any other as the columns of the stacked `[n][inner]` matrices the axes after it make
//! ([`Layout::Columns`](crate::Layout::Columns)), so nothing is transposed. A real axis that
//! is the array's last (or followed only by axes of extent 1) and has even length `n` is
//! transformed as `n/2` complex points (the reals read in pairs) and split into `n/2 + 1`
//! bins (R2C), or merged from them (C2R); any other real axis is widened to complex,
//! transformed at full length, and cut to `n/2 + 1` bins or extended by Hermitian symmetry.

use std::fmt;

use super::{Kind, NdSpec, Reshape};
use crate::error::Result;
use crate::plan::LinePairs;
use crate::spec::{Direction, FftSpec, RealHalf};
use crate::trig::RealToReal;

/// The arrays an N-D transform's steps read and write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Buf {
    /// The real array (R2C input, C2R output).
    Real,
    /// The real array read as complex pairs: the half-length transform of an even real axis
    /// with nothing but extent-1 axes after it.
    Packed,
    /// The complex side: C2C data, R2C output, C2R input.
    Spectrum,
    /// A complex array of the real side's shape: a real axis at full length. For a complex
    /// transform (same shape as the spectrum) the work array its axes alternate with.
    Full,
    /// The caller's input laid out with strides ([`NdSpec::input_strides`]), only gathered
    /// from.
    Input,
    /// The caller's output laid out with strides ([`NdSpec::output_strides`]), only
    /// scattered into (the same buffer as [`Buf::Input`] for an in-place transform).
    Output,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StepOp {
    /// A batched 1-D transform along one axis, in place.
    Fft {
        /// The spec's axis it transforms (for the packed rows of a real axis, the half-length
        /// transform along that axis).
        axis: usize,
        /// The transform, its layout giving the axis' place.
        spec: FftSpec,
    },
    /// A move between real and complex data.
    Reshape(Reshape),
}

/// One step: what it does, what it reads, what it writes.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Step {
    /// The operation.
    pub op: StepOp,
    /// The array read.
    pub src: Buf,
    /// The array written (the same for in-place transforms).
    pub dst: Buf,
}

/// An N-D or real transform as steps over whole arrays. Pure data: printable and testable
/// without a device.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NdPlan {
    /// What was asked for.
    pub spec: NdSpec,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// Puts the spec's load operations on its first transform and its store operations on its
/// last: every element passes through them once, at its row-major place (the index a
/// [`crate::PointOp::MultiplyEach`] reads). On the complex side that transform must be the
/// first (last) step; on the real side of a real transform it may follow the reals' widening
/// (precede the real part's extraction), whose elements keep their places, and where it
/// reads (writes) the reals in pairs the weights go per part.
fn attach_ops(spec: &NdSpec, steps: &mut Vec<Step>) -> Result<()> {
    if spec.load.is_empty() && spec.store.is_empty() {
        return Ok(());
    }
    // A transform of extent 1 is skipped; where complex-side operations need one at an end,
    // an axis other than a real one (all of extent 1 there, else its transform would be that
    // end) gets its identity transform to carry them.
    let identity = || {
        let axis = spec
            .axes
            .iter()
            .copied()
            .find(|&a| Some(a) != spec.real_axis())?;
        Some(Step {
            op: StepOp::Fft {
                axis,
                spec: axis_fft(&spec.complex_shape(), axis, spec.direction, false),
            },
            src: Buf::Spectrum,
            dst: Buf::Spectrum,
        })
    };
    let is_fft = |s: Option<&Step>| {
        matches!(
            s,
            Some(Step {
                op: StepOp::Fft { .. },
                ..
            })
        )
    };
    let kind = spec.kind();
    let real_load = kind == Kind::RealToComplex;
    let real_store = kind == Kind::ComplexToReal;
    if !spec.load.is_empty() && !real_load && !is_fft(steps.first()) {
        steps.splice(0..0, identity());
    }
    if !spec.store.is_empty() && !real_store && !is_fft(steps.last()) {
        steps.extend(identity());
    }
    let cannot = |at: &str, end: &str| {
        Err(crate::Error::InvalidSpec(format!(
            "{at} operations ride on the {end} transform, which here is not next to the {} \
             ({:?} over axes {:?}, with a step between real and complex data there); \
             transform another axis too, or apply them apart",
            if end == "first" { "input" } else { "output" },
            kind,
            spec.axes,
        )))
    };
    // The reals' widening and real-part extraction keep every element's place.
    let keeps_places = |s: &Step| {
        matches!(
            s.op,
            StepOp::Reshape(Reshape::Widen { .. } | Reshape::RealPart { .. })
        )
    };
    if !spec.load.is_empty() {
        let skip = match real_load {
            true => steps.iter().take_while(|s| keeps_places(s)).count(),
            false => 0,
        };
        let packed = steps.get(skip).is_some_and(|s| s.src == Buf::Packed);
        let Some(first) = fft(steps.get_mut(skip)) else {
            return cannot("on_load", "first");
        };
        first.load = per_part_if(packed, &spec.load);
    }
    if !spec.store.is_empty() {
        let skip = match real_store {
            true => steps.iter().rev().take_while(|s| keeps_places(s)).count(),
            false => 0,
        };
        let at = steps.len().checked_sub(skip + 1);
        let packed = at.is_some_and(|i| steps[i].dst == Buf::Packed);
        let Some(last) = at.and_then(|i| fft(steps.get_mut(i))) else {
            return cannot("on_store", "last");
        };
        last.store = per_part_if(packed, &spec.store);
    }
    Ok(())
}

/// `ops` with their weights per part where the transform reads or writes the reals in
/// pairs (element `e` of its rows holds reals `2e` and `2e + 1`).
fn per_part_if(packed: bool, ops: &[crate::PointOp]) -> Vec<crate::PointOp> {
    use crate::PointOp;
    ops.iter()
        .map(|op| match op {
            PointOp::Weight(w) if packed => PointOp::Weight(w.to_per_part()),
            op => op.clone(),
        })
        .collect()
}

/// The transform `step` runs, if it is one.
fn fft(step: Option<&mut Step>) -> Option<&mut FftSpec> {
    match step {
        Some(Step {
            op: StepOp::Fft { spec, .. },
            ..
        }) => Some(spec),
        _ => None,
    }
}

/// `(outer, n, inner)` of `axis` in a row-major array of `shape`.
pub(crate) fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// The batched 1-D transform along `axis` of a row-major array of `shape`, in place.
fn axis_fft(shape: &[usize], axis: usize, direction: Direction, normalize: bool) -> FftSpec {
    let (outer, n, inner) = around(shape, axis);
    lines_fft(outer, n, inner, direction, normalize)
}

/// The batched transform along the middle axis of `[outer][n][inner]`.
fn lines_fft(
    outer: usize,
    n: usize,
    inner: usize,
    direction: Direction,
    normalize: bool,
) -> FftSpec {
    let spec = FftSpec::new(n).direction(direction);
    let spec = if inner == 1 {
        spec.batch(outer)
    } else {
        spec.batch(outer * inner).stacked_columns(outer)
    };
    if normalize { spec.normalized() } else { spec }
}

/// The steps of a DCT or DST along each of `spec`'s axes, in the caller's real array: the
/// reals reordered into the complex work array ([`Buf::Spectrum`], the axis at the FFT's
/// length; two lines to each FFT where [`LinePairs::choose`] pairs them), transformed along
/// the axis, and brought back to reals. The normalisation goes
/// on each axis' last step, `r2r`'s scale on the last axis'.
fn trig_steps(spec: &NdSpec, r2r: RealToReal) -> Vec<Step> {
    let transform = match spec.direction {
        Direction::Forward => r2r.transform,
        Direction::Inverse => r2r.transform.inverse(),
    };
    let mut steps = Vec::new();
    for (i, &axis) in spec.axes.iter().enumerate() {
        let (outer, n, inner) = around(&spec.shape, axis);
        let m = transform.fft_len(n);
        let pairs = LinePairs::choose(transform, outer, inner);
        let (fft_outer, fft_inner) = pairs.fft_dims(outer, inner);
        let mut scale = match spec.normalize {
            true => 1.0 / transform.logical_len(n) as f64,
            false => 1.0,
        };
        if i + 1 == spec.axes.len() {
            scale *= r2r.scale;
        }
        let (orthogonalize, real, work_buf) = (r2r.orthogonalize, Buf::Real, Buf::Spectrum);
        steps.push(Step {
            op: StepOp::Reshape(Reshape::TrigLoad {
                transform,
                outer,
                n,
                inner,
                orthogonalize,
                pairs,
            }),
            src: real,
            dst: work_buf,
        });
        // A 1-point transform is the identity.
        if m > 1 {
            steps.push(Step {
                op: StepOp::Fft {
                    axis,
                    spec: lines_fft(fft_outer, m, fft_inner, transform.direction(), false),
                },
                src: work_buf,
                dst: work_buf,
            });
        }
        steps.push(Step {
            op: StepOp::Reshape(Reshape::TrigStore {
                transform,
                outer,
                n,
                inner,
                orthogonalize,
                pairs,
                scale,
            }),
            src: work_buf,
            dst: real,
        });
    }
    steps
}

impl NdPlan {
    /// Plans `spec` (validated first).
    pub fn new(spec: &NdSpec) -> Result<NdPlan> {
        spec.validate()?;
        // Strided input and output: gathered into the contiguous array the steps start from,
        // scattered from the one they end in (the steps themselves know only row-major).
        let (first, last) = match spec.kind() {
            Kind::ComplexToComplex => (Buf::Spectrum, Buf::Spectrum),
            Kind::RealToComplex => (Buf::Real, Buf::Spectrum),
            Kind::ComplexToReal => (Buf::Spectrum, Buf::Real),
            Kind::RealToReal => (Buf::Real, Buf::Real),
        };
        // A complex transform runs in the caller's one buffer: strided on either side, it is
        // gathered and scattered on both (row-major where no strides are given).
        let both = spec.kind() == Kind::ComplexToComplex
            && (spec.input_strides.is_some() || spec.output_strides.is_some());
        let strided = |shape: Vec<usize>, strides: &Option<Vec<usize>>| match strides {
            Some(s) => Some((shape, s.clone())),
            None if both => {
                let s = crate::base::layout::row_major(&shape);
                Some((shape, s))
            }
            None => None,
        };
        let mut steps = Vec::new();
        if let Some((shape, strides)) = strided(spec.input_shape(), &spec.input_strides) {
            let real = spec.kind() == Kind::RealToComplex;
            steps.push(Step {
                op: StepOp::Reshape(Reshape::Gather {
                    shape,
                    strides,
                    real,
                }),
                src: Buf::Input,
                dst: first,
            });
        }
        let mut dense = Self::dense_steps(spec);
        attach_ops(spec, &mut dense)?;
        steps.extend(dense);
        if let Some((shape, strides)) = strided(spec.output_shape(), &spec.output_strides) {
            let real = spec.kind() == Kind::ComplexToReal;
            steps.push(Step {
                op: StepOp::Reshape(Reshape::Scatter {
                    shape,
                    strides,
                    real,
                }),
                src: last,
                dst: Buf::Output,
            });
        }
        // Every transform in the spec's precision, checksummed as the spec is.
        for step in &mut steps {
            if let StepOp::Fft { spec: fft, .. } = &mut step.op {
                fft.precision = spec.precision;
                fft.checksum = spec.checksum;
            }
        }
        Ok(NdPlan {
            spec: spec.clone(),
            steps,
        })
    }

    /// The steps over row-major contiguous arrays.
    fn dense_steps(spec: &NdSpec) -> Vec<Step> {
        if let Some(r2r) = spec.trig {
            return trig_steps(spec, r2r);
        }
        let mut steps = Vec::new();
        let dir = spec.direction;
        let complex = spec.complex_shape();
        // Operations on the reals ride on the real axis' transform, kept even at 1 point.
        let real_ops = match spec.kind() {
            Kind::RealToComplex => !spec.load.is_empty(),
            Kind::ComplexToReal => !spec.store.is_empty(),
            Kind::ComplexToComplex | Kind::RealToReal => false,
        };
        // The transform along `axis` of an array of `shape`, which is axis `shown` of the
        // spec's array (they differ for the packed half-length rows).
        let fft_as = |steps: &mut Vec<Step>, shape: &[usize], axis, shown, on, normalize| {
            // A 1-point transform is the identity (and 1/1 changes nothing).
            if shape[axis] > 1
                || (real_ops && Some(shown) == spec.real_axis() && on != Buf::Spectrum)
            {
                steps.push(Step {
                    op: StepOp::Fft {
                        axis: shown,
                        spec: axis_fft(shape, axis, dir, normalize),
                    },
                    src: on,
                    dst: on,
                });
            }
        };
        let fft = |steps: &mut Vec<Step>, shape: &[usize], axis, on, normalize| {
            fft_as(steps, shape, axis, axis, on, normalize)
        };
        let reshape = |steps: &mut Vec<Step>, r: Reshape, src, dst| {
            steps.push(Step {
                op: StepOp::Reshape(r),
                src,
                dst,
            });
        };
        let norm = spec.normalize;
        let Some(real_axis) = spec.real_axis() else {
            for &a in &spec.axes {
                fft(&mut steps, &complex, a, Buf::Spectrum, norm);
            }
            return steps;
        };
        let (outer, n, inner) = around(&spec.shape, real_axis);
        let packed = inner == 1 && n.is_multiple_of(2);
        let half = [outer, n / 2];
        let scale = if norm { 1.0 / n as f64 } else { 1.0 };
        let len: usize = spec.shape.iter().product();
        let others = spec.axes.iter().copied().filter(|&a| a != real_axis);
        match spec.kind() {
            Kind::RealToComplex => {
                if packed {
                    fft_as(&mut steps, &half, 1, real_axis, Buf::Packed, false);
                    let split = Reshape::Split {
                        n,
                        rows: outer,
                        scale,
                    };
                    reshape(&mut steps, split, Buf::Packed, Buf::Spectrum);
                } else {
                    reshape(&mut steps, Reshape::Widen { len }, Buf::Real, Buf::Full);
                    fft(&mut steps, &spec.shape, real_axis, Buf::Full, norm);
                    let cut = Reshape::Truncate { outer, n, inner };
                    reshape(&mut steps, cut, Buf::Full, Buf::Spectrum);
                }
                for a in others {
                    fft(&mut steps, &complex, a, Buf::Spectrum, norm);
                }
            }
            Kind::ComplexToReal => {
                for a in others {
                    fft(&mut steps, &complex, a, Buf::Spectrum, norm);
                }
                if packed {
                    let merge = Reshape::Merge {
                        n,
                        rows: outer,
                        scale,
                    };
                    reshape(&mut steps, merge, Buf::Spectrum, Buf::Packed);
                    fft_as(&mut steps, &half, 1, real_axis, Buf::Packed, false);
                } else {
                    let extend = Reshape::Extend { outer, n, inner };
                    reshape(&mut steps, extend, Buf::Spectrum, Buf::Full);
                    fft(&mut steps, &spec.shape, real_axis, Buf::Full, false);
                    let re = Reshape::RealPart { len, scale };
                    reshape(&mut steps, re, Buf::Full, Buf::Real);
                }
            }
            Kind::ComplexToComplex | Kind::RealToReal => {
                unreachable!("real_axis is None for complex and real-to-real transforms")
            }
        }
        steps
    }

    /// True when a step uses `buf`.
    pub fn uses(&self, buf: Buf) -> bool {
        self.steps.iter().any(|s| s.src == buf || s.dst == buf)
    }

    /// Whether a run leaves a separate input (R2C, C2R) as it was: no step writes the array
    /// it lies in. A strided input is only gathered from; a contiguous one is the real array
    /// (R2C) or the spectrum (C2R), which steps may use as work space: an unfused
    /// half-length transform runs in place on the reals, a C2R's other axes on the bins.
    /// A fused half-length transform reads the one and writes the other.
    pub fn preserves_input(&self) -> bool {
        if self.spec.input_strides.is_some() {
            return true;
        }
        let input: &[Buf] = match self.spec.kind() {
            Kind::RealToComplex | Kind::RealToReal => &[Buf::Real, Buf::Packed],
            Kind::ComplexToReal | Kind::ComplexToComplex => &[Buf::Spectrum],
        };
        !self.steps.iter().any(|s| input.contains(&s.dst))
    }
}

impl fmt::Display for NdPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.spec;
        let kind = match s.trig {
            Some(r2r) => format!("{} ({})", s.kind().abbreviation(), r2r.transform),
            None => s.kind().abbreviation().to_string(),
        };
        let dir = match s.direction {
            Direction::Forward => "forward",
            Direction::Inverse => "inverse",
        };
        writeln!(
            f,
            "{kind} {dir} over axes {:?} of a {:?} {} array{}: {} steps",
            s.axes,
            s.shape,
            s.precision,
            if s.normalize { ", normalised" } else { "" },
            self.steps.len()
        )?;
        for (i, step) in self.steps.iter().enumerate() {
            let what = match &step.op {
                StepOp::Fft { axis, spec } => {
                    let place = if spec.layout.is_columns() {
                        format!(
                            "columns of {} stacked [{}][{}] matrices",
                            spec.matrices(),
                            spec.n,
                            spec.point_stride()
                        )
                    } else {
                        format!("rows, batch {}", spec.batch)
                    };
                    let fused = match spec.real {
                        Some(RealHalf::Split { .. }) => {
                            format!(", split into {} bins on store (R2C)", spec.n + 1)
                        }
                        Some(RealHalf::Merge { .. }) => {
                            format!(", merged from {} bins on load (C2R)", spec.n + 1)
                        }
                        Some(RealHalf::Truncate) => {
                            format!(", bins 0..={} stored (R2C)", spec.n / 2)
                        }
                        Some(RealHalf::Extend) => {
                            format!(", {} bins extended on load (C2R)", spec.n / 2 + 1)
                        }
                        None => String::new(),
                    };
                    format!("{}-point FFT along axis {axis} ({place}){fused}", spec.n)
                }
                StepOp::Reshape(r) => r.name(),
            };
            let at = if step.src == step.dst {
                format!("in {:?}", step.src)
            } else {
                format!("{:?} → {:?}", step.src, step.dst)
            };
            writeln!(f, "  {}. {what}, {at}", i + 1)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(spec: &NdSpec) -> Vec<String> {
        NdPlan::new(spec)
            .expect("plans")
            .steps
            .iter()
            .map(|s| match &s.op {
                StepOp::Fft { axis, spec } => format!("fft{} n{}", axis, spec.n),
                StepOp::Reshape(r) => r.name().split(' ').next().unwrap_or("").to_string(),
            })
            .collect()
    }

    #[test]
    fn an_even_last_axis_is_packed_and_any_other_widened() {
        assert_eq!(
            ops(&NdSpec::new(&[8, 6]).real()),
            ["fft1 n3", "split", "fft0 n8"]
        );
        assert_eq!(
            ops(&NdSpec::new(&[8, 6]).real().inverse()),
            ["fft0 n8", "merge", "fft1 n3"]
        );
        assert_eq!(
            ops(&NdSpec::new(&[7, 5]).real()),
            ["widen", "fft1 n5", "keep", "fft0 n7"]
        );
        assert_eq!(
            ops(&NdSpec::new(&[6, 4]).axes(&[1, 0]).real().inverse()),
            ["fft1 n4", "extend", "fft0 n6", "real"]
        );
        // Length-1 axes need no transform.
        assert_eq!(ops(&NdSpec::new(&[1, 2]).real()), ["split"]);
    }

    #[test]
    fn middle_axes_are_stacked_columns() {
        let plan = NdPlan::new(&NdSpec::new(&[3, 5, 7]).axes(&[1])).expect("plans");
        let StepOp::Fft { spec, .. } = &plan.steps[0].op else {
            panic!("{plan}");
        };
        assert_eq!((spec.n, spec.batch, spec.matrices()), (5, 21, 3));
        assert_eq!(spec.point_stride(), 7);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let msg = |s: NdSpec| s.validate().expect_err("invalid").to_string();
        assert!(msg(NdSpec::new(&[4, 0])).contains("axis 1 has extent 0"));
        assert!(msg(NdSpec::new(&[4, 4]).axes(&[2])).contains("axis 2 is out of range"));
        assert!(msg(NdSpec::new(&[4, 4]).axes(&[1, 1]).real()).contains("listed twice"));
        assert!(NdSpec::new(&[4, 4]).axes(&[1, 0, 1]).validate().is_ok());
        assert!(msg(NdSpec::new(&[4]).axes(&[])).contains("no axes"));
        assert!(msg(NdSpec::new(&[])).contains("no axes"));
    }
}
