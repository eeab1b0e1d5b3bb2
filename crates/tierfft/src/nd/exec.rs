//! An [`NdPlan`] compiled for a device: each axis' transform planned and compiled as an
//! [`Fft`], each [`Reshape`] as its kernel, run in order over device-resident arrays.

use std::time::Instant;

use num_complex::Complex32;

use super::{Buf, Kind, NdPlan, NdSpec, StepOp};
use crate::backend::reshape::{self, ReshapeExec};
use crate::backend::{Device, DeviceBuffer, Element, Fft, Timer, cuda};
use crate::error::{Error, Result};

/// A step compiled for the device.
enum Compiled {
    Fft(Box<Fft>),
    Reshape(Box<dyn ReshapeExec>),
}

/// An N-D or real transform planned and compiled for one device. Reusable; `Send + Sync`.
pub struct NdFft {
    plan: NdPlan,
    device: Device,
    steps: Vec<Compiled>,
}

/// The arrays one run works on (see [`Buf`]).
struct Arrays<'a> {
    real: Option<&'a mut DeviceBuffer<f32>>,
    spectrum: &'a mut DeviceBuffer<Complex32>,
    full: Option<DeviceBuffer<Complex32>>,
}

impl Device {
    /// Plans `spec` on this device and compiles every step.
    pub fn plan_nd(&self, spec: &NdSpec) -> Result<NdFft> {
        let plan = NdPlan::for_device(spec, self.limits())?;
        let steps = plan
            .steps
            .iter()
            .map(|s| match &s.op {
                StepOp::Fft { spec, .. } => self.plan(spec).map(|f| Compiled::Fft(Box::new(f))),
                StepOp::Reshape(r) => reshape::compile(self, r).map(Compiled::Reshape),
            })
            .collect::<Result<_>>()?;
        Ok(NdFft {
            plan,
            device: self.clone(),
            steps,
        })
    }
}

fn missing(buf: Buf) -> Error {
    Error::InvalidSpec(format!(
        "the plan reads the {buf:?} array, which this run lacks"
    ))
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

    fn check_len<T: Element>(what: &str, got: usize, expected: usize) -> Result<()> {
        if got == expected {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "the {what} holds {got} {}, the transform needs {expected}",
            if T::FLOATS == 1 {
                "reals"
            } else {
                "complex values"
            }
        )))
    }

    /// Runs every step on `arrays`, queued on the device.
    fn run(&self, arrays: &mut Arrays) -> Result<()> {
        if self.plan.uses(Buf::Full) && arrays.full.is_none() {
            let len = self.spec().shape.iter().product();
            arrays.full = Some(self.device.zeros(len)?);
        }
        for (step, compiled) in self.plan.steps.iter().zip(&self.steps) {
            match compiled {
                // A half-length transform with its split or merge fused: between arrays.
                Compiled::Fft(fft) if step.src != step.dst => {
                    let real = arrays
                        .real
                        .as_deref_mut()
                        .ok_or_else(|| missing(Buf::Packed))?;
                    match (step.src, step.dst) {
                        (Buf::Packed, Buf::Spectrum) => {
                            fft.process_between(real, arrays.spectrum)?
                        }
                        (Buf::Spectrum, Buf::Packed) => {
                            fft.process_between(arrays.spectrum, real)?
                        }
                        (src, _) => return Err(missing(src)),
                    }
                }
                Compiled::Fft(fft) => match step.dst {
                    Buf::Packed => arrays
                        .real
                        .as_deref_mut()
                        .ok_or_else(|| missing(Buf::Packed))?
                        .as_view(|v| fft.process_buffer(v))?,
                    Buf::Spectrum => fft.process_buffer(arrays.spectrum)?,
                    Buf::Full => {
                        fft.process_buffer(arrays.full.as_mut().ok_or_else(|| missing(Buf::Full))?)?
                    }
                    Buf::Real => return Err(missing(Buf::Real)),
                },
                Compiled::Reshape(exec) => {
                    let Arrays {
                        real,
                        spectrum,
                        full,
                    } = arrays;
                    let real = real.as_deref_mut().map(|r| &mut r.held);
                    let full = full.as_mut().map(|f| &mut f.held);
                    let (src, dst) = match (step.src, step.dst) {
                        (Buf::Real, Buf::Full) => (real.map(|r| &*r), full),
                        (Buf::Packed, Buf::Spectrum) => {
                            (real.map(|r| &*r), Some(&mut spectrum.held))
                        }
                        (Buf::Spectrum, Buf::Packed) => (Some(&spectrum.held), real),
                        (Buf::Spectrum, Buf::Full) => (Some(&spectrum.held), full),
                        (Buf::Full, Buf::Spectrum) => (full.map(|f| &*f), Some(&mut spectrum.held)),
                        (Buf::Full, Buf::Real) => (full.map(|f| &*f), real),
                        (src, _) => return Err(missing(src)),
                    };
                    let src = src.ok_or_else(|| missing(step.src))?;
                    let dst = dst.ok_or_else(|| missing(step.dst))?;
                    exec.run(src, dst)?;
                }
            }
        }
        Ok(())
    }

    /// A complex transform of `data` (the spec's shape, row-major) in place.
    pub fn process(&self, data: &mut [Complex32]) -> Result<()> {
        self.expect(Kind::ComplexToComplex)?;
        Self::check_len::<Complex32>("array", data.len(), self.spec().input_len())?;
        let mut spectrum = self.device.upload(data)?;
        self.process_buffer(&mut spectrum)?;
        spectrum.read_into(data)
    }

    /// R2C: `input` (the spec's shape, reals) into `output` (its complex shape).
    pub fn process_real_to_complex(&self, input: &[f32], output: &mut [Complex32]) -> Result<()> {
        self.expect(Kind::RealToComplex)?;
        Self::check_len::<f32>("input", input.len(), self.spec().input_len())?;
        Self::check_len::<Complex32>("output", output.len(), self.spec().output_len())?;
        let mut real = self.device.upload(input)?;
        let mut spectrum = self.device.zeros(output.len())?;
        self.process_buffer_real_to_complex(&mut real, &mut spectrum)?;
        spectrum.read_into(output)
    }

    /// C2R: `input` (the spec's complex shape) into `output` (its shape, reals).
    pub fn process_complex_to_real(&self, input: &[Complex32], output: &mut [f32]) -> Result<()> {
        self.expect(Kind::ComplexToReal)?;
        Self::check_len::<Complex32>("input", input.len(), self.spec().input_len())?;
        Self::check_len::<f32>("output", output.len(), self.spec().output_len())?;
        let mut spectrum = self.device.upload(input)?;
        let mut real = self.device.zeros_of(output.len())?;
        self.process_buffer_complex_to_real(&mut spectrum, &mut real)?;
        real.read_into(output)
    }

    /// A complex transform of device-resident `data` in place (queued, not waited for).
    pub fn process_buffer(&self, data: &mut DeviceBuffer) -> Result<()> {
        self.expect(Kind::ComplexToComplex)?;
        Self::check_len::<Complex32>("buffer", data.len(), self.spec().input_len())?;
        self.run(&mut Arrays {
            real: None,
            spectrum: data,
            full: None,
        })
    }

    /// R2C on device-resident arrays (queued, not waited for). `input` is used as scratch
    /// and left overwritten, as cuFFT's out-of-place real transforms may do.
    pub fn process_buffer_real_to_complex(
        &self,
        input: &mut DeviceBuffer<f32>,
        output: &mut DeviceBuffer,
    ) -> Result<()> {
        self.expect(Kind::RealToComplex)?;
        Self::check_len::<f32>("input", input.len(), self.spec().input_len())?;
        Self::check_len::<Complex32>("output", output.len(), self.spec().output_len())?;
        self.run(&mut Arrays {
            real: Some(input),
            spectrum: output,
            full: None,
        })
    }

    /// C2R on device-resident arrays (queued, not waited for). `input` is used as scratch
    /// and left overwritten, as cuFFT's C2R does.
    pub fn process_buffer_complex_to_real(
        &self,
        input: &mut DeviceBuffer,
        output: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        self.expect(Kind::ComplexToReal)?;
        Self::check_len::<Complex32>("input", input.len(), self.spec().input_len())?;
        Self::check_len::<f32>("output", output.len(), self.spec().output_len())?;
        self.run(&mut Arrays {
            real: Some(output),
            spectrum: input,
            full: None,
        })
    }

    /// Times `reps` runs on device-resident arrays of the spec's sizes (their values do not
    /// change the time): seconds each, CUDA events on CUDA, the host clock around each run
    /// (waiting for the device) elsewhere.
    pub fn time(&self, reps: usize) -> Result<(Vec<f64>, Timer)> {
        let spec = self.spec();
        let (real_len, complex_len) = match spec.kind() {
            Kind::ComplexToComplex => (None, spec.input_len()),
            Kind::RealToComplex => (Some(spec.input_len()), spec.output_len()),
            Kind::ComplexToReal => (Some(spec.output_len()), spec.input_len()),
        };
        let mut spectrum = self.device.zeros(complex_len)?;
        let mut real = match real_len {
            Some(len) => Some(self.device.zeros_of::<f32>(len)?),
            None => None,
        };
        let mut arrays = Arrays {
            real: real.as_mut(),
            spectrum: &mut spectrum,
            full: None,
        };
        // The first run allocates the scratch array and compiles nothing more.
        self.run(&mut arrays)?;
        self.device.synchronize()?;
        if let Device::Cuda(d) = &self.device {
            let seconds = cuda::time_events(d, reps.max(1), || self.run(&mut arrays))?;
            return Ok((seconds, Timer::GpuTimestamps));
        }
        let mut seconds = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            self.run(&mut arrays)?;
            self.device.synchronize()?;
            seconds.push(t.elapsed().as_secs_f64());
        }
        Ok((seconds, Timer::WallClock))
    }
}
