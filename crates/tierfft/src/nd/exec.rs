//! An [`NdPlan`] compiled for a device: each axis' transform planned and compiled as an
//! [`Fft`], each [`Reshape`] as its kernel, run in order over device-resident arrays.

use std::sync::{Mutex, MutexGuard};

use num_complex::Complex32;

use super::{Buf, FuseReal, Kind, NdPlan, NdSpec, StepOp};
use crate::backend::buffer::Held;
use crate::backend::reshape::{self, ReshapeExec};
use crate::backend::view::sealed::TOKEN;
use crate::backend::{AsDeviceBuffer, Device, DeviceBuffer, Element, Fft, Timer};
use crate::error::{Error, Result};
use crate::plan::PlanOptions;

/// A step compiled for the device.
enum Compiled {
    Fft(Box<Fft>),
    Reshape(Box<dyn ReshapeExec>),
}

/// An N-D or real transform planned and compiled for one device. Reusable; `Send + Sync`.
///
/// Besides the caller's arrays it may keep device scratch arrays from its first run until
/// it is dropped, as cuFFT keeps a work area: on a GPU, a complex transform of two or more
/// axes runs them between the caller's array and one of the same size; a widened real axis
/// takes a complex array of the real shape; strided layouts a contiguous array each.
pub struct NdFft {
    plan: NdPlan,
    device: Device,
    steps: Vec<Compiled>,
    /// Arrays kept between runs from the first that needs them until the transform is
    /// dropped (as cuFFT keeps its work area), so repeated calls allocate nothing.
    scratch: Mutex<Scratch>,
}

/// The arrays one run works on (see [`Buf`]): the contiguous ones the transforms run in
/// (the caller's own where they are not strided), and the caller's strided buffers.
struct Arrays<'a> {
    real: Option<&'a mut DeviceBuffer<f32>>,
    spectrum: &'a mut DeviceBuffer<Complex32>,
    full: &'a mut Option<DeviceBuffer<Complex32>>,
    caller: Caller<'a>,
}

/// The caller's buffers where the spec lays them out with strides: the first step gathers
/// from the input, the last scatters into the output.
enum Caller<'a> {
    /// Separate input and output, each present where it is strided.
    Apart {
        input: Option<&'a Held>,
        output: Option<&'a mut Held>,
    },
    /// One buffer both gathered from and scattered into (a complex transform in place).
    InPlace(&'a mut Held),
}

impl Caller<'_> {
    fn input(&self) -> Option<&Held> {
        match self {
            Caller::Apart { input, .. } => *input,
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

/// Device arrays a transform keeps between runs ([`NdFft::scratch`]): the full-length
/// complex array of a widened real axis, and the contiguous arrays strided buffers are
/// gathered into and scattered from. Allocated on first use.
#[derive(Default)]
struct Scratch {
    full: Option<DeviceBuffer<Complex32>>,
    real: Option<DeviceBuffer<f32>>,
    spectrum: Option<DeviceBuffer<Complex32>>,
}

/// The caller's buffers of one run.
enum User<'a> {
    /// A complex transform in place.
    Complex(&'a mut DeviceBuffer),
    /// R2C: the reals in, the bins out.
    RealToComplex(&'a mut DeviceBuffer<f32>, &'a mut DeviceBuffer),
    /// C2R: the bins in, the reals out.
    ComplexToReal(&'a mut DeviceBuffer, &'a mut DeviceBuffer<f32>),
}

/// The contiguous array the steps use for the caller's `user` buffer: the buffer itself, or
/// where it is `strided`, the scratch array in `slot` (made by `make` if need be), returned
/// with the buffer's memory for the gather or scatter.
fn working<'a, T: Element>(
    user: &'a mut DeviceBuffer<T>,
    strided: bool,
    slot: &'a mut Option<DeviceBuffer<T>>,
    make: impl FnOnce() -> Result<DeviceBuffer<T>>,
) -> Result<(&'a mut DeviceBuffer<T>, Option<&'a mut Held>)> {
    if strided {
        Ok((ensure(slot, make)?, Some(&mut user.held)))
    } else {
        Ok((user, None))
    }
}

/// `slot`'s array, made by `make` if it has none yet.
fn ensure<T: Element>(
    slot: &mut Option<DeviceBuffer<T>>,
    make: impl FnOnce() -> Result<DeviceBuffer<T>>,
) -> Result<&mut DeviceBuffer<T>> {
    if slot.is_none() {
        *slot = Some(make()?);
    }
    slot.as_mut()
        .ok_or_else(|| Error::gpu("a scratch array was not made"))
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
        let steps = plan
            .steps
            .iter()
            .map(|s| match &s.op {
                StepOp::Fft { spec, .. } => self
                    .plan_with_options(spec, opts)
                    .map(|f| Compiled::Fft(Box::new(f))),
                StepOp::Reshape(r) => reshape::compile(self, r).map(Compiled::Reshape),
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

    /// `Ok` when the `what` buffer holds `expected` elements, or at least that many where it
    /// is `strided` (cufftPlanMany's buffers may reach past the layout's last element).
    fn check_len<T: Element>(what: &str, got: usize, expected: usize, strided: bool) -> Result<()> {
        if got == expected || (strided && got > expected) {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "the {what} holds {got} {}, the transform needs {}{expected}",
            if T::FLOATS == 1 {
                "reals"
            } else {
                "complex values"
            },
            if strided { "at least " } else { "" }
        )))
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

    /// Elements of the contiguous real and complex arrays the transforms run in.
    fn dense_lens(&self) -> (usize, usize) {
        let spec = self.spec();
        (
            spec.shape.iter().product(),
            spec.complex_shape().iter().product(),
        )
    }

    /// Runs every step on the caller's buffers `user`, queued on the device, with `scratch`
    /// for the arrays they do not provide.
    fn run(&self, user: User, scratch: &mut Scratch) -> Result<()> {
        let (gather, scatter) = self.strided();
        let (real_len, complex_len) = self.dense_lens();
        let Scratch {
            full,
            real: real_scratch,
            spectrum: spectrum_scratch,
        } = scratch;
        let device = &self.device;
        let mut arrays = match user {
            User::Complex(data) if gather || scatter => Arrays {
                real: None,
                spectrum: ensure(spectrum_scratch, || device.zeros(complex_len))?,
                full,
                caller: Caller::InPlace(&mut data.held),
            },
            User::Complex(data) => Arrays {
                real: None,
                spectrum: data,
                full,
                caller: Caller::Apart {
                    input: None,
                    output: None,
                },
            },
            User::RealToComplex(input, output) => {
                let (real, input) =
                    working(input, gather, real_scratch, || device.zeros_of(real_len))?;
                let (spectrum, output) = working(output, scatter, spectrum_scratch, || {
                    device.zeros(complex_len)
                })?;
                Arrays {
                    real: Some(real),
                    spectrum,
                    full,
                    caller: Caller::Apart {
                        input: input.map(|h| &*h),
                        output,
                    },
                }
            }
            User::ComplexToReal(input, output) => {
                let (spectrum, input) = working(input, gather, spectrum_scratch, || {
                    device.zeros(complex_len)
                })?;
                let (real, output) =
                    working(output, scatter, real_scratch, || device.zeros_of(real_len))?;
                Arrays {
                    real: Some(real),
                    spectrum,
                    full,
                    caller: Caller::Apart {
                        input: input.map(|h| &*h),
                        output,
                    },
                }
            }
        };
        if self.plan.uses(Buf::Full) {
            ensure(arrays.full, || device.zeros(real_len))?;
        }
        for (step, compiled) in self.plan.steps.iter().zip(&self.steps) {
            self.run_step(step, compiled, &mut arrays)?;
        }
        Ok(())
    }

    /// Runs one step on `arrays`.
    fn run_step(&self, step: &super::Step, compiled: &Compiled, arrays: &mut Arrays) -> Result<()> {
        match compiled {
            // A transform with a real axis' split, merge, cut or extension fused: between
            // arrays.
            Compiled::Fft(fft) if step.src != step.dst => {
                let Arrays {
                    real,
                    spectrum,
                    full,
                    ..
                } = arrays;
                let real = real.as_deref_mut().ok_or_else(|| missing(Buf::Packed));
                let full = full.as_mut().ok_or_else(|| missing(Buf::Full));
                match (step.src, step.dst) {
                    (Buf::Packed, Buf::Spectrum) => fft.process_between(real?, spectrum),
                    (Buf::Spectrum, Buf::Packed) => fft.process_between(spectrum, real?),
                    (Buf::Full, Buf::Spectrum) => fft.process_between(full?, spectrum),
                    (Buf::Spectrum, Buf::Full) => fft.process_between(spectrum, full?),
                    (src, _) => Err(missing(src)),
                }
            }
            Compiled::Fft(fft) => match step.dst {
                Buf::Packed => arrays
                    .real
                    .as_deref_mut()
                    .ok_or_else(|| missing(Buf::Packed))?
                    .as_view(|v: &mut DeviceBuffer| fft.process_buffer(v)),
                Buf::Spectrum => fft.process_buffer(arrays.spectrum),
                Buf::Full => {
                    fft.process_buffer(arrays.full.as_mut().ok_or_else(|| missing(Buf::Full))?)
                }
                other => Err(missing(other)),
            },
            Compiled::Reshape(exec) => {
                let Arrays {
                    real,
                    spectrum,
                    full,
                    caller,
                } = arrays;
                let real = real.as_deref_mut().map(|r| &mut r.held);
                let full = full.as_mut().map(|f| &mut f.held);
                let (src, dst) = match (step.src, step.dst) {
                    (Buf::Real, Buf::Full) => (real.map(|r| &*r), full),
                    (Buf::Packed, Buf::Spectrum) => (real.map(|r| &*r), Some(&mut spectrum.held)),
                    (Buf::Spectrum, Buf::Packed) => (Some(&spectrum.held), real),
                    (Buf::Spectrum, Buf::Full) => (Some(&spectrum.held), full),
                    (Buf::Full, Buf::Spectrum) => (full.map(|f| &*f), Some(&mut spectrum.held)),
                    (Buf::Full, Buf::Real) => (full.map(|f| &*f), real),
                    (Buf::Input, Buf::Spectrum) => (caller.input(), Some(&mut spectrum.held)),
                    (Buf::Input, Buf::Real) => (caller.input(), real),
                    (Buf::Spectrum, Buf::Output) => (Some(&spectrum.held), caller.output()),
                    (Buf::Real, Buf::Output) => (real.map(|r| &*r), caller.output()),
                    (src, _) => return Err(missing(src)),
                };
                let src = src.ok_or_else(|| missing(step.src))?;
                let dst = dst.ok_or_else(|| missing(step.dst))?;
                exec.run(src, dst)
            }
        }
    }

    /// The kept scratch arrays, for one run at a time (runs are queued in order on the
    /// device, so the next may reuse them at once).
    fn scratch(&self) -> Result<MutexGuard<'_, Scratch>> {
        self.scratch
            .lock()
            .map_err(|_| Error::gpu("a run panicked while holding the scratch arrays"))
    }

    /// Elements a buffer transformed in place holds: its input and its output layout both.
    fn in_place_len(&self) -> usize {
        self.spec().input_len().max(self.spec().output_len())
    }

    /// A complex transform of `data` in place: the spec's shape, row-major, or laid out by
    /// its strides (then [`NdSpec::input_len`] or [`NdSpec::output_len`] elements, the
    /// larger; those outside the output's layout keep their values).
    pub fn process(&self, data: &mut [Complex32]) -> Result<()> {
        self.expect(Kind::ComplexToComplex)?;
        let strided = self.strided() != (false, false);
        Self::check_len::<Complex32>("array", data.len(), self.in_place_len(), strided)?;
        let mut buffer = self.device.upload(data)?;
        self.process_buffer(&mut buffer)?;
        buffer.read_into(data)
    }

    /// R2C: `input` ([`NdSpec::input_len`] reals) into `output` ([`NdSpec::output_len`]
    /// complex values; with output strides, the elements outside them keep their values).
    pub fn process_real_to_complex(&self, input: &[f32], output: &mut [Complex32]) -> Result<()> {
        self.expect(Kind::RealToComplex)?;
        let (gather, scatter) = self.strided();
        Self::check_len::<f32>("input", input.len(), self.spec().input_len(), gather)?;
        Self::check_len::<Complex32>("output", output.len(), self.spec().output_len(), scatter)?;
        let mut real = self.device.upload(input)?;
        let mut spectrum = match self.strided().1 {
            true => self.device.upload(output)?,
            false => self.device.zeros(output.len())?,
        };
        self.process_buffer_real_to_complex(&mut real, &mut spectrum)?;
        spectrum.read_into(output)
    }

    /// C2R: `input` ([`NdSpec::input_len`] complex values) into `output`
    /// ([`NdSpec::output_len`] reals; with output strides, the elements outside them keep
    /// their values).
    pub fn process_complex_to_real(&self, input: &[Complex32], output: &mut [f32]) -> Result<()> {
        self.expect(Kind::ComplexToReal)?;
        let (gather, scatter) = self.strided();
        Self::check_len::<Complex32>("input", input.len(), self.spec().input_len(), gather)?;
        Self::check_len::<f32>("output", output.len(), self.spec().output_len(), scatter)?;
        let mut spectrum = self.device.upload(input)?;
        let mut real = match self.strided().1 {
            true => self.device.upload(output)?,
            false => self.device.zeros_of(output.len())?,
        };
        self.process_buffer_complex_to_real(&mut spectrum, &mut real)?;
        real.read_into(output)
    }

    /// A complex transform of device-resident `data` in place (queued, not waited for); see
    /// [`NdFft::process`] for its length.
    pub fn process_buffer(&self, data: &mut impl AsDeviceBuffer) -> Result<()> {
        let data = data.buffer_mut(TOKEN);
        self.expect(Kind::ComplexToComplex)?;
        let strided = self.strided() != (false, false);
        Self::check_len::<Complex32>("buffer", data.len(), self.in_place_len(), strided)?;
        self.run(User::Complex(data), &mut *self.scratch()?)
    }

    /// A complex transform of device-resident `input` into `output` (both contiguous, the
    /// spec's shape; queued, not waited for), `input` left intact: the first transform
    /// reads one and writes the other, so no copy is made.
    pub fn process_buffer_out_of_place(
        &self,
        input: &mut impl AsDeviceBuffer,
        output: &mut impl AsDeviceBuffer,
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
        Self::check_len::<Complex32>("input", input.len(), len, false)?;
        Self::check_len::<Complex32>("output", output.len(), len, false)?;
        let mut scratch = self.scratch()?;
        if self.plan.uses(Buf::Full) {
            let (full_len, _) = self.dense_lens();
            ensure(&mut scratch.full, || self.device.zeros(full_len))?;
        }
        let mut steps = self.plan.steps.iter().zip(&self.steps);
        // The first transform reads the input in place of the array the plan runs in, and
        // writes where the plan has it write (the output, or the scratch array of a
        // transform over several axes, which goes on into the output).
        match steps.next() {
            Some((step, Compiled::Fft(fft))) if step.src == Buf::Spectrum => match step.dst {
                Buf::Spectrum => fft.process_between(input, output)?,
                Buf::Full => {
                    let full = scratch.full.as_mut().ok_or_else(|| missing(Buf::Full))?;
                    fft.process_between(input, full)?
                }
                other => return Err(missing(other)),
            },
            _ => {
                return Err(Error::InvalidSpec(
                    "this plan does not start with a transform of the whole array".into(),
                ));
            }
        }
        let mut arrays = Arrays {
            real: None,
            spectrum: output,
            full: &mut scratch.full,
            caller: Caller::Apart {
                input: None,
                output: None,
            },
        };
        for (step, compiled) in steps {
            self.run_step(step, compiled, &mut arrays)?;
        }
        Ok(())
    }

    /// R2C on device-resident arrays (queued, not waited for). A contiguous `input` may be
    /// used as scratch and overwritten, as cuFFT's out-of-place real transforms may do.
    pub fn process_buffer_real_to_complex(
        &self,
        input: &mut impl AsDeviceBuffer<f32>,
        output: &mut impl AsDeviceBuffer,
    ) -> Result<()> {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.expect(Kind::RealToComplex)?;
        let (gather, scatter) = self.strided();
        Self::check_len::<f32>("input", input.len(), self.spec().input_len(), gather)?;
        Self::check_len::<Complex32>("output", output.len(), self.spec().output_len(), scatter)?;
        self.run(User::RealToComplex(input, output), &mut *self.scratch()?)
    }

    /// C2R on device-resident arrays (queued, not waited for). A contiguous `input` may be
    /// used as scratch and overwritten, as cuFFT's C2R does.
    pub fn process_buffer_complex_to_real(
        &self,
        input: &mut impl AsDeviceBuffer,
        output: &mut impl AsDeviceBuffer<f32>,
    ) -> Result<()> {
        let (input, output) = (input.buffer_mut(TOKEN), output.buffer_mut(TOKEN));
        self.expect(Kind::ComplexToReal)?;
        let (gather, scatter) = self.strided();
        Self::check_len::<Complex32>("input", input.len(), self.spec().input_len(), gather)?;
        Self::check_len::<f32>("output", output.len(), self.spec().output_len(), scatter)?;
        self.run(User::ComplexToReal(input, output), &mut *self.scratch()?)
    }

    /// Times `reps` runs on device-resident arrays of the spec's sizes (their values do not
    /// change the time; scratch arrays are made before the first): seconds each, CUDA events
    /// on CUDA, the host clock around each run (waiting for the device) elsewhere.
    pub fn time(&self, reps: usize) -> Result<(Vec<f64>, Timer)> {
        let spec = self.spec();
        let mut scratch = self.scratch()?;
        let (input_len, output_len) = (spec.input_len(), spec.output_len());
        let (mut complex_in, mut real_in) = (None, None);
        let (mut complex_out, mut real_out) = (None, None);
        match spec.kind() {
            Kind::ComplexToComplex => complex_in = Some(self.device.zeros(self.in_place_len())?),
            Kind::RealToComplex => {
                real_in = Some(self.device.zeros_of::<f32>(input_len)?);
                complex_out = Some(self.device.zeros(output_len)?);
            }
            Kind::ComplexToReal => {
                complex_in = Some(self.device.zeros(input_len)?);
                real_out = Some(self.device.zeros_of::<f32>(output_len)?);
            }
        }
        let mut once = |scratch: &mut Scratch| -> Result<()> {
            let user = match (
                &mut complex_in,
                &mut real_in,
                &mut complex_out,
                &mut real_out,
            ) {
                (Some(data), None, None, None) => User::Complex(data),
                (None, Some(input), Some(output), None) => User::RealToComplex(input, output),
                (Some(input), None, None, Some(output)) => User::ComplexToReal(input, output),
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
