//! An [`NdPlan`] compiled for a device: each axis' transform planned and compiled as an
//! [`Fft`], each [`Reshape`] as its kernel, run in order over device-resident arrays.

use std::sync::{Mutex, MutexGuard};

use num_complex::Complex;

use super::{Buf, FuseReal, Kind, NdPlan, NdSpec, StepOp};
use crate::backend::buffer::Held;
use crate::backend::reshape::{self, ReshapeExec};
use crate::backend::view::sealed::TOKEN;
use crate::backend::workspace::Workspace;
use crate::backend::{AsDeviceBuffer, Device, DeviceKind, Element, Fft, RealElement, Timer};
use crate::base::precision::Precision;
use crate::error::{Error, Result};
use crate::plan::PlanOptions;

/// A step compiled for the device.
enum Compiled {
    Fft(Box<Fft>),
    Reshape(Box<dyn ReshapeExec>),
}

/// An N-D or real transform planned and compiled for one device. Reusable; `Send + Sync`.
///
/// Besides the caller's arrays it may need work arrays: on a GPU, a complex transform of
/// two or more axes runs them between the caller's array and one of the same size; a
/// widened real axis takes a complex array of the real shape; strided layouts a contiguous
/// array each; a DCT or DST a complex array. On a GPU these are the device's, shared by all
/// its N-D transforms and kept between runs ([`Device::workspace_bytes`]), as cuFFT's plans
/// may share one work area (`cufftSetWorkArea`); on the CPU each transform keeps its own
/// from its first run until it is dropped.
pub struct NdFft {
    plan: NdPlan,
    device: Device,
    steps: Vec<Compiled>,
    /// The work arrays of a transform on the CPU (on a GPU, the device's are used).
    scratch: Mutex<Workspace>,
}

/// The arrays one run works on (see [`Buf`]), as 4-byte words of the plan's precision: the
/// contiguous ones the transforms run in (the caller's own where they are not strided), and
/// the caller's strided buffers.
struct Arrays<'a> {
    real: Option<&'a mut Held>,
    spectrum: &'a mut Held,
    full: Option<&'a mut Held>,
    caller: Caller<'a>,
}

/// The caller's buffers where the spec lays them out with strides: the first step gathers
/// from the input, the last scatters into the output.
enum Caller<'a> {
    /// Separate input and output, each present where it is strided.
    Apart {
        input: Option<&'a mut Held>,
        output: Option<&'a mut Held>,
    },
    /// One buffer both gathered from and scattered into (a complex transform in place).
    InPlace(&'a mut Held),
}

impl Caller<'_> {
    fn input(&mut self) -> Option<&mut Held> {
        match self {
            Caller::Apart { input, .. } => input.as_deref_mut(),
            Caller::InPlace(held) => Some(held),
        }
    }

    fn output(&mut self) -> Option<&mut Held> {
        match self {
            Caller::Apart { output, .. } => output.as_deref_mut(),
            Caller::InPlace(held) => Some(held),
        }
    }
}

/// The caller's buffers of one run.
enum User<'a> {
    /// A complex transform in place.
    Complex(&'a mut Held),
    /// R2C: the reals in, the bins out.
    RealToComplex(&'a mut Held, &'a mut Held),
    /// C2R: the bins in, the reals out.
    ComplexToReal(&'a mut Held, &'a mut Held),
    /// A DCT or DST of the reals in place.
    RealToReal(&'a mut Held),
}

/// The contiguous array the steps use for the caller's `user` buffer: the buffer itself, or
/// where it is strided, the work array `work`, returned with the buffer for the gather or
/// scatter.
fn working<'a>(
    user: &'a mut Held,
    work: Option<&'a mut Held>,
) -> (&'a mut Held, Option<&'a mut Held>) {
    match work {
        Some(work) => (work, Some(user)),
        None => (user, None),
    }
}

impl Device {
    /// Plans `spec` on this device and compiles every step.
    pub fn plan_nd(&self, spec: &NdSpec) -> Result<NdFft> {
        self.plan_nd_with(spec, FuseReal::default(), &PlanOptions::default())
    }

    /// [`Device::plan_nd`] with a real axis' split and merge fused where `fuse` says, and
    /// each axis' transform planned with `opts` (for timing the choices side by side:
    /// `tierfft bench --shapes .. --fuse-real ..` and the planner variants).
    pub fn plan_nd_with(&self, spec: &NdSpec, fuse: FuseReal, opts: &PlanOptions) -> Result<NdFft> {
        let plan = NdPlan::with_fusion(spec, self.limits(), fuse, opts)?;
        if let Some(e) =
            crate::plan::limits::precision_refusal(spec.precision, self.name(), self.limits())
        {
            return Err(e);
        }
        let steps = plan
            .steps
            .iter()
            .map(|s| match &s.op {
                StepOp::Fft { spec, .. } => self
                    .plan_with_options(spec, opts)
                    .map(|f| Compiled::Fft(Box::new(f))),
                StepOp::Reshape(r) => {
                    reshape::compile(self, r, spec.precision).map(Compiled::Reshape)
                }
            })
            .collect::<Result<_>>()?;
        Ok(NdFft {
            plan,
            device: self.clone(),
            steps,
            scratch: Mutex::default(),
        })
    }
}

fn missing(buf: Buf) -> Error {
    Error::InvalidSpec(format!(
        "the plan uses the {buf:?} array, which this run lacks"
    ))
}

impl std::fmt::Debug for NdFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdFft")
            .field("plan", &self.plan)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl NdFft {
    /// What this transform computes.
    pub fn spec(&self) -> &NdSpec {
        &self.plan.spec
    }

    /// The steps it runs.
    pub fn plan(&self) -> &NdPlan {
        &self.plan
    }

    /// Whether [`NdFft::process_buffer_real_to_complex`] and
    /// [`NdFft::process_buffer_complex_to_real`] leave their input as it was
    /// ([`NdPlan::preserves_input`]): a caller that must keep its input needs no copy of it
    /// then. 1-D real transforms on a GPU whose split or merge is fused into the half-length
    /// transform do.
    pub fn preserves_input(&self) -> bool {
        self.plan.preserves_input()
    }

    /// Bytes its transforms read and write in device memory in one run (the planner's count
    /// of each pass; `None` on the CPU, which runs without such plans).
    pub fn bytes_moved(&self) -> Option<u64> {
        self.ffts().map(|f| f.plan().map(|p| p.bytes_moved())).sum()
    }

    /// Bytes of memory on its device the transform holds now: its transforms' tables and
    /// work arrays ([`Fft::held_bytes`]) and its steps' twiddle tables (on the CPU backend,
    /// the work arrays it keeps from its first run, in host memory). Dropping the transform
    /// frees them. On a GPU the N-D work arrays are the device's, shared by its transforms
    /// and counted by [`Device::workspace_bytes`].
    pub fn held_bytes(&self) -> u64 {
        let precision = self.spec().precision;
        let ffts: u64 = self.ffts().map(Fft::held_bytes).sum();
        let tables: usize = (self.plan.steps.iter())
            .filter_map(|s| match &s.op {
                StepOp::Reshape(r) => r.twiddle_count().map(|t| t * precision.complex_bytes()),
                StepOp::Fft { .. } => None,
            })
            .sum();
        let kept = self.scratch.lock().map_or(0, |s| s.bytes());
        ffts + tables as u64 + kept
    }

    /// The 1-D transforms it runs, in order (for printing their passes).
    pub fn ffts(&self) -> impl Iterator<Item = &Fft> {
        self.steps.iter().filter_map(|s| match s {
            Compiled::Fft(f) => Some(&**f),
            Compiled::Reshape(_) => None,
        })
    }

    fn expect(&self, kind: Kind) -> Result<()> {
        if self.spec().kind() == kind {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "this transform is {:?}; the call is for {kind:?}",
            self.spec().kind()
        )))
    }

    /// `Ok` when the `what` buffer holds `T`, the spec's precision's real (`complex`: complex)
    /// type, `expected` of them, or at least that many where it is `strided`
    /// (cufftPlanMany's buffers may reach past the layout's last element).
    fn check<T: Element>(
        &self,
        what: &str,
        complex: bool,
        got: usize,
        expected: usize,
        strided: bool,
    ) -> Result<()> {
        let precision = self.spec().precision;
        if T::COMPLEX != complex || T::PRECISION != precision {
            let want = match (precision, complex) {
                (Precision::F64, true) => "Complex64",
                (Precision::F64, false) => "f64",
                (_, true) => "Complex32",
                (_, false) => "f32",
            };
            return Err(Error::InvalidSpec(format!(
                "the {what} holds {}; this transform is planned in {precision}, and its {what} \
                 holds {want}",
                T::NAME
            )));
        }
        if got == expected || (strided && got > expected) {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "the {what} holds {got} {}, the transform needs {}{expected}",
            if complex { "complex values" } else { "reals" },
            if strided { "at least " } else { "" }
        )))
    }

    /// `Ok` when this is a `kind` transform whose input holds `input` values of `I` and
    /// output `output` of `O` (see [`NdFft::check`]); whether the output is strided.
    fn check_io<I: Element, O: Element>(
        &self,
        kind: Kind,
        input: usize,
        output: usize,
    ) -> Result<bool> {
        self.expect(kind)?;
        let (gather, scatter) = self.strided();
        let spec = self.spec();
        let r2r = kind == Kind::RealToReal;
        let (real_in, real_out) = (
            r2r || kind == Kind::RealToComplex,
            r2r || kind == Kind::ComplexToReal,
        );
        self.check::<I>("input", !real_in, input, spec.input_len(), gather)?;
        self.check::<O>("output", !real_out, output, spec.output_len(), scatter)?;
        Ok(scatter)
    }

    /// Whether the first step gathers a strided input and the last scatters a strided output.
    fn strided(&self) -> (bool, bool) {
        let is =
            |step: Option<&super::Step>, buf| step.is_some_and(|s| s.src == buf || s.dst == buf);
        (
            is(self.plan.steps.first(), Buf::Input),
            is(self.plan.steps.last(), Buf::Output),
        )
    }

    /// 4-byte words of the contiguous real and complex arrays the transforms run in (for a
    /// DCT or DST, the complex work array of its longest FFTs).
    fn dense_words(&self) -> (usize, usize) {
        let spec = self.spec();
        let real = spec.precision.storage_bytes() / 4;
        let complex = match spec.kind() {
            Kind::RealToReal => self
                .plan
                .steps
                .iter()
                .filter_map(|s| match &s.op {
                    StepOp::Reshape(r) if s.dst == Buf::Spectrum => Some(r.outputs()),
                    _ => None,
                })
                .max()
                .unwrap_or(0),
            _ => spec.complex_shape().iter().product::<usize>(),
        };
        (
            real * spec.shape.iter().product::<usize>(),
            2 * real * complex,
        )
    }

    /// Runs every step on the caller's buffers `user`, queued on the device, with `scratch`
    /// for the arrays they do not provide.
    fn run(&self, user: User, scratch: &mut Workspace) -> Result<()> {
        let (gather, scatter) = self.strided();
        let (real_words, complex_words) = self.dense_words();
        let device = &self.device;
        let Workspace {
            full,
            real,
            spectrum,
        } = scratch;
        // The work arrays this run needs besides the caller's buffers.
        let (need_real, need_spectrum) = match &user {
            User::Complex(_) => (false, gather || scatter),
            User::RealToComplex(..) => (gather, scatter),
            User::ComplexToReal(..) => (scatter, gather),
            User::RealToReal(_) => (false, true),
        };
        let mut views: [Option<Held>; 3] = Default::default();
        let [full_view, real_view, spectrum_view] = &mut views;
        // A widened real axis' array holds the real shape's complex values.
        let full = match self.plan.uses(Buf::Full) {
            true => Some(full.lend(device, 2 * real_words, full_view)?),
            false => None,
        };
        let real_work = match need_real {
            true => Some(real.lend(device, real_words, real_view)?),
            false => None,
        };
        let spectrum_work = match need_spectrum {
            true => Some(spectrum.lend(device, complex_words, spectrum_view)?),
            false => None,
        };
        let unlent = || Error::gpu("a work array was not lent");
        let apart = |input, output| Caller::Apart { input, output };
        let mut arrays = match user {
            User::Complex(data) if gather || scatter => Arrays {
                real: None,
                spectrum: spectrum_work.ok_or_else(unlent)?,
                full,
                caller: Caller::InPlace(data),
            },
            User::Complex(data) => Arrays {
                real: None,
                spectrum: data,
                full,
                caller: apart(None, None),
            },
            User::RealToComplex(input, output) => {
                let (real, input) = working(input, real_work);
                let (spectrum, output) = working(output, spectrum_work);
                Arrays {
                    real: Some(real),
                    spectrum,
                    full,
                    caller: apart(input, output),
                }
            }
            User::ComplexToReal(input, output) => {
                let (spectrum, input) = working(input, spectrum_work);
                let (real, output) = working(output, real_work);
                Arrays {
                    real: Some(real),
                    spectrum,
                    full,
                    caller: apart(input, output),
                }
            }
            User::RealToReal(data) => Arrays {
                real: Some(data),
                spectrum: spectrum_work.ok_or_else(unlent)?,
                full,
                caller: apart(None, None),
            },
        };
        // A checksummed axis that fails is reported once every step has run, its lines
        // named by the batch elements they belong to.
        let mut failed = std::collections::BTreeSet::new();
        for (step, compiled) in self.plan.steps.iter().zip(&self.steps) {
            match (self.run_step(step, compiled, &mut arrays), &step.op) {
                (Err(Error::Checksum { transforms, .. }), StepOp::Fft { axis, .. }) => {
                    let spec = self.spec();
                    failed.extend(transforms.iter().map(|&l| spec.batch_element(*axis, l)));
                }
                (result, _) => result?,
            }
        }
        match failed.is_empty() {
            true => Ok(()),
            false => Err(Error::Checksum {
                transforms: failed.into_iter().collect(),
                batch: self.spec().checksum_batch(),
            }),
        }
    }

    /// Runs one step on `arrays`.
    fn run_step(&self, step: &super::Step, compiled: &Compiled, arrays: &mut Arrays) -> Result<()> {
        let Arrays {
            real,
            spectrum,
            full,
            caller,
        } = arrays;
        let (src, dst) = match (step.src, step.dst) {
            // In place.
            (Buf::Real | Buf::Packed, b) if b == step.src => (None, real.as_deref_mut()),
            (Buf::Spectrum, Buf::Spectrum) => (None, Some(&mut **spectrum)),
            (Buf::Full, Buf::Full) => (None, full.as_deref_mut()),
            // Between two arrays.
            (Buf::Real | Buf::Packed, Buf::Full) => (real.as_deref_mut(), full.as_deref_mut()),
            (Buf::Real | Buf::Packed, Buf::Spectrum) => {
                (real.as_deref_mut(), Some(&mut **spectrum))
            }
            (Buf::Spectrum, Buf::Real | Buf::Packed) => {
                (Some(&mut **spectrum), real.as_deref_mut())
            }
            (Buf::Spectrum, Buf::Full) => (Some(&mut **spectrum), full.as_deref_mut()),
            (Buf::Full, Buf::Spectrum) => (full.as_deref_mut(), Some(&mut **spectrum)),
            (Buf::Full, Buf::Real | Buf::Packed) => (full.as_deref_mut(), real.as_deref_mut()),
            (Buf::Input, Buf::Spectrum) => (caller.input(), Some(&mut **spectrum)),
            (Buf::Input, Buf::Real) => (caller.input(), real.as_deref_mut()),
            (Buf::Spectrum, Buf::Output) => (Some(&mut **spectrum), caller.output()),
            (Buf::Real, Buf::Output) => (real.as_deref_mut(), caller.output()),
            (src, _) => return Err(missing(src)),
        };
        let dst = dst.ok_or_else(|| missing(step.dst))?;
        match (compiled, src) {
            // A DCT or DST's work array is sized for its longest transform: the others run
            // on its start.
            (Compiled::Fft(fft), None) if self.spec().kind() == Kind::RealToReal => {
                let words = fft.spec().precision.complex_bytes() / 4 * fft.spec().len();
                match dst.floats() > words {
                    true => fft.process_held(&mut dst.memory_mut().view(0..words)?),
                    false => fft.process_held(dst),
                }
            }
            (Compiled::Fft(fft), None) => fft.process_held(dst),
            (Compiled::Fft(fft), Some(src)) => fft.process_between(src, dst),
            (Compiled::Reshape(exec), Some(src)) => exec.run(src, dst),
            (Compiled::Reshape(_), None) => Err(missing(step.src)),
        }
    }

    /// The work arrays, for one run at a time (runs are queued in order on the device, so
    /// the next may reuse them at once): the device's on a GPU, this transform's own on the
    /// CPU.
    fn scratch(&self) -> Result<MutexGuard<'_, Workspace>> {
        if self.device.kind() != DeviceKind::Cpu {
            return self.device.workspace();
        }
        self.scratch
            .lock()
            .map_err(|_| Error::gpu("a run panicked while holding the work arrays"))
    }

    /// Elements a buffer transformed in place holds: its input and its output layout both.
    fn in_place_len(&self) -> usize {
        self.spec().input_len().max(self.spec().output_len())
    }

    /// A complex transform of `data` in place: the spec's shape, row-major, or laid out by
    /// its strides (then [`NdSpec::input_len`] or [`NdSpec::output_len`] elements, the
    /// larger; those outside the output's layout keep their values). The elements are the
    /// spec's precision's complex type: [`Complex32`](crate::Complex32) for f32,
    /// [`Complex64`](crate::Complex64) for f64.
    pub fn process<T: Element>(&self, data: &mut [T]) -> Result<()> {
        self.expect(Kind::ComplexToComplex)?;
        let strided = self.strided() != (false, false);
        self.check::<T>("array", true, data.len(), self.in_place_len(), strided)?;
        let mut buffer = self.device.upload(data)?;
        self.process_buffer(&mut buffer)?;
        buffer.read_into(data)
    }

    /// R2C: `input` ([`NdSpec::input_len`] reals, f32 or f64 as the spec's precision) into
    /// `output` ([`NdSpec::output_len`] complex values of that precision; with output
    /// strides, the elements outside them keep their values).
    pub fn process_real_to_complex<T: RealElement>(
        &self,
        input: &[T],
        output: &mut [Complex<T>],
    ) -> Result<()>
    where
        Complex<T>: Element,
    {
        let scatter =
            self.check_io::<T, Complex<T>>(Kind::RealToComplex, input.len(), output.len())?;
        let mut real = self.device.upload(input)?;
        let mut spectrum = match scatter {
            true => self.device.upload(output)?,
            false => self.device.zeros_of(output.len())?,
        };
        let user = User::RealToComplex(&mut real.held, &mut spectrum.held);
        self.run(user, &mut *self.scratch()?)?;
        spectrum.read_into(output)
    }

    /// C2R: `input` ([`NdSpec::input_len`] complex values of the spec's precision) into
    /// `output` ([`NdSpec::output_len`] reals; with output strides, the elements outside
    /// them keep their values).
    pub fn process_complex_to_real<T: RealElement>(
        &self,
        input: &[Complex<T>],
        output: &mut [T],
    ) -> Result<()>
    where
        Complex<T>: Element,
    {
        let scatter =
            self.check_io::<Complex<T>, T>(Kind::ComplexToReal, input.len(), output.len())?;
        let mut spectrum = self.device.upload(input)?;
        let mut real = match scatter {
            true => self.device.upload(output)?,
            false => self.device.zeros_of(output.len())?,
        };
        let user = User::ComplexToReal(&mut spectrum.held, &mut real.held);
        self.run(user, &mut *self.scratch()?)?;
        real.read_into(output)
    }

    /// A DCT or DST ([`NdSpec::trig`]): `input` into `output` ([`NdSpec::input_len`] reals
    /// each, f32 or f64 as the spec's precision).
    pub fn process_real_to_real<T: RealElement>(
        &self,
        input: &[T],
        output: &mut [T],
    ) -> Result<()> {
        self.check_io::<T, T>(Kind::RealToReal, input.len(), output.len())?;
        let mut data = self.device.upload(input)?;
        self.run(User::RealToReal(&mut data.held), &mut *self.scratch()?)?;
        data.read_into(output)
    }

    /// A DCT or DST of device-resident reals in place (queued, not waited for); see
    /// [`NdFft::process_real_to_real`].
    pub fn process_buffer_real_to_real<T: RealElement>(
        &self,
        data: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()> {
        let data = data.buffer_mut(TOKEN);
        self.check_io::<T, T>(Kind::RealToReal, data.len(), data.len())?;
        self.run(User::RealToReal(&mut data.held), &mut *self.scratch()?)
    }

    /// A complex transform of device-resident `data` in place (queued, not waited for); see
    /// [`NdFft::process`] for its length and type.
    pub fn process_buffer<T: Element>(&self, data: &mut impl AsDeviceBuffer<T>) -> Result<()> {
        let data = data.buffer_mut(TOKEN);
        self.expect(Kind::ComplexToComplex)?;
        let strided = self.strided() != (false, false);
        self.check::<T>("buffer", true, data.len(), self.in_place_len(), strided)?;
        self.run(User::Complex(&mut data.held), &mut *self.scratch()?)
    }

    /// A complex transform of device-resident `input` into `output` (both contiguous, the
    /// spec's shape; queued, not waited for), `input` left intact: the first transform
    /// reads one and writes the other, so no copy is made.
    pub fn process_buffer_out_of_place<T: Element>(
        &self,
        input: &mut impl AsDeviceBuffer<T>,
        output: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()> {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.expect(Kind::ComplexToComplex)?;
        if self.strided() != (false, false) {
            return Err(Error::InvalidSpec(
                "out-of-place transforms of device buffers take contiguous arrays (no strides)"
                    .into(),
            ));
        }
        let len = self.in_place_len();
        self.check::<T>("input", true, input.len(), len, false)?;
        self.check::<T>("output", true, output.len(), len, false)?;
        let mut scratch = self.scratch()?;
        let mut view = None;
        let full = match self.plan.uses(Buf::Full) {
            true => {
                let (_, words) = self.dense_words();
                Some(scratch.full.lend(&self.device, words, &mut view)?)
            }
            false => None,
        };
        let mut steps = self.plan.steps.iter().zip(&self.steps);
        // The first transform reads the input in place of the array the plan runs in, and
        // writes where the plan has it write (the output, or the scratch array of a
        // transform over several axes, which goes on into the output).
        let mut arrays = Arrays {
            real: None,
            spectrum: &mut output.held,
            full,
            caller: Caller::Apart {
                input: None,
                output: None,
            },
        };
        match steps.next() {
            Some((step, Compiled::Fft(fft))) if step.src == Buf::Spectrum => {
                let dst = match step.dst {
                    Buf::Spectrum => &mut *arrays.spectrum,
                    Buf::Full => arrays
                        .full
                        .as_deref_mut()
                        .ok_or_else(|| missing(Buf::Full))?,
                    other => return Err(missing(other)),
                };
                fft.process_between(&mut input.held, dst)?
            }
            _ => {
                return Err(Error::InvalidSpec(
                    "this plan does not start with a transform of the whole array".into(),
                ));
            }
        }
        for (step, compiled) in steps {
            self.run_step(step, compiled, &mut arrays)?;
        }
        Ok(())
    }

    /// R2C on device-resident arrays (queued, not waited for). A contiguous `input` may be
    /// used as scratch and overwritten, as cuFFT's out-of-place real transforms may do,
    /// unless [`NdFft::preserves_input`].
    pub fn process_buffer_real_to_complex<T: RealElement>(
        &self,
        input: &mut impl AsDeviceBuffer<T>,
        output: &mut impl AsDeviceBuffer<Complex<T>>,
    ) -> Result<()>
    where
        Complex<T>: Element,
    {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.check_io::<T, Complex<T>>(Kind::RealToComplex, input.len(), output.len())?;
        let user = User::RealToComplex(&mut input.held, &mut output.held);
        self.run(user, &mut *self.scratch()?)
    }

    /// C2R on device-resident arrays (queued, not waited for). A contiguous `input` may be
    /// used as scratch and overwritten, as cuFFT's C2R does, unless
    /// [`NdFft::preserves_input`].
    pub fn process_buffer_complex_to_real<T: RealElement>(
        &self,
        input: &mut impl AsDeviceBuffer<Complex<T>>,
        output: &mut impl AsDeviceBuffer<T>,
    ) -> Result<()>
    where
        Complex<T>: Element,
    {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.check_io::<Complex<T>, T>(Kind::ComplexToReal, input.len(), output.len())?;
        let user = User::ComplexToReal(&mut input.held, &mut output.held);
        self.run(user, &mut *self.scratch()?)
    }

    /// Times `reps` runs on device-resident arrays of the spec's sizes (their values do not
    /// change the time; scratch arrays are made before the first): seconds each, CUDA events
    /// on CUDA, the host clock around each run (waiting for the device) elsewhere.
    pub fn time(&self, reps: usize) -> Result<(Vec<f64>, Timer)> {
        let spec = self.spec();
        let mut scratch = self.scratch()?;
        // Arrays of the input's and the output's words (one for a complex transform).
        let real = spec.precision.storage_bytes() / 4;
        let words = |len: usize, complex: bool| len * real * if complex { 2 } else { 1 };
        let zeros = |words: usize| self.device.zeros_of::<f32>(words);
        let (mut input, mut output) = match spec.kind() {
            Kind::ComplexToComplex => (zeros(words(self.in_place_len(), true))?, None),
            Kind::RealToComplex => (
                zeros(words(spec.input_len(), false))?,
                Some(zeros(words(spec.output_len(), true))?),
            ),
            Kind::ComplexToReal => (
                zeros(words(spec.input_len(), true))?,
                Some(zeros(words(spec.output_len(), false))?),
            ),
            Kind::RealToReal => (zeros(words(spec.input_len(), false))?, None),
        };
        let mut once = |scratch: &mut Workspace| -> Result<()> {
            let user = match (spec.kind(), output.as_mut()) {
                (Kind::ComplexToComplex, _) => User::Complex(&mut input.held),
                (Kind::RealToReal, _) => User::RealToReal(&mut input.held),
                (Kind::RealToComplex, Some(out)) => {
                    User::RealToComplex(&mut input.held, &mut out.held)
                }
                (Kind::ComplexToReal, Some(out)) => {
                    User::ComplexToReal(&mut input.held, &mut out.held)
                }
                _ => return Err(Error::InvalidSpec("no arrays for this kind".into())),
            };
            self.run(user, scratch)
        };
        // The first run makes the scratch arrays and compiles nothing more.
        once(&mut scratch)?;
        self.device.synchronize()?;
        self.device
            .time_runs(reps.max(1), &mut || once(&mut scratch))
    }
}
