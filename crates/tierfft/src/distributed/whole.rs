//! A transform of whole arrays in host memory that the planner spreads over a group of
//! devices or runs on the first of them, whichever its [`Estimate`] says is faster: a
//! second GPU is never a slower answer.

#[cfg(feature = "cuda")]
use std::sync::Arc;

use super::estimate::Estimate;
use super::{DistFft, DistSpec};
#[cfg(feature = "cuda")]
use super::{
    Link,
    estimate::{Bandwidths, HostLink},
};
#[cfg(feature = "cuda")]
use crate::backend::cuda::CudaDevice;
use crate::backend::{DeviceBuffer, Element};
use crate::error::{Error, Result};
use crate::nd::{NdFft, NdSpec};
use crate::{Complex32, Direction};

/// A transform of whole row-major arrays in host memory, run spread over ranks or on one
/// device as the planner chose when it was made ([`WholeFft::on_cuda`],
/// [`WholeFft::choose`]). The arrays are the global ones whichever runs: the spectrum in
/// natural order, as [`crate::NdFft`] gives it.
pub struct WholeFft {
    spec: DistSpec,
    runs: Runs,
    estimate: Option<Estimate>,
}

/// What a [`WholeFft`] runs.
enum Runs {
    Spread(DistFft),
    One(NdFft),
}

impl DistSpec {
    /// The same transform of the whole array on one device.
    pub fn one_device(&self) -> NdSpec {
        let mut spec = NdSpec::new(&self.shape).direction(self.direction);
        if self.real {
            spec = spec.real();
        }
        if self.normalize {
            spec = spec.normalized();
        }
        spec
    }
}

impl WholeFft {
    /// Keeps `spread` unless `estimate` (of `spread` against `one`) says one device is
    /// faster, then `one`; without an estimate (ranks on the CPU, whose plans have no
    /// device traffic to count), `spread`. `one` must plan the same transform
    /// ([`DistSpec::one_device`]). The one not kept is dropped with its memory.
    pub fn choose(spread: DistFft, one: NdFft, estimate: Option<Estimate>) -> Result<WholeFft> {
        let spec = spread.spec().clone();
        let want = spec.one_device();
        if *one.spec() != want {
            return Err(Error::InvalidSpec(format!(
                "the one-device transform plans {:?}, not the spread one's {:?}: plan it from \
                 DistSpec::one_device",
                one.spec(),
                want
            )));
        }
        let runs = match &estimate {
            Some(e) if !e.spread_is_faster() => Runs::One(one),
            _ => Runs::Spread(spread),
        };
        Ok(WholeFft {
            spec,
            runs,
            estimate,
        })
    }

    /// Plans `spec` over `gpus` (one rank each, exchanging through `link`) and on the first
    /// of them, measures the memory, link and host bandwidths, and keeps the one its
    /// estimate says is faster, host copies included. One GPU runs on it alone.
    #[cfg(feature = "cuda")]
    pub fn on_cuda(spec: &DistSpec, gpus: &[Arc<CudaDevice>], link: Link) -> Result<WholeFft> {
        let first = gpus.first().ok_or_else(|| {
            Error::InvalidSpec("a transform runs on at least one GPU (got none)".into())
        })?;
        let one = crate::Device::from(Arc::clone(first)).plan_nd(&spec.one_device())?;
        if gpus.len() == 1 {
            spec.validate(1)?;
            return Ok(WholeFft {
                spec: spec.clone(),
                runs: Runs::One(one),
                estimate: None,
            });
        }
        let spread = DistFft::on_cuda_with(spec, gpus, link)?;
        let bandwidths = Bandwidths::measure(gpus)?.with_host(HostLink::measure(gpus)?);
        let estimate = Estimate::new(&one, spread.ranks(), bandwidths)
            .map(|e| e.with_host_copies(host_bytes(spec) as f64));
        WholeFft::choose(spread, one, estimate)
    }

    /// What this transform computes.
    pub fn spec(&self) -> &DistSpec {
        &self.spec
    }

    /// Devices it runs on: the ranks, or 1 where the planner kept one device.
    pub fn devices(&self) -> usize {
        match &self.runs {
            Runs::Spread(fft) => fft.ranks().len(),
            Runs::One(_) => 1,
        }
    }

    /// The estimate the choice was made by, where there was one.
    pub fn estimate(&self) -> Option<&Estimate> {
        self.estimate.as_ref()
    }

    /// The spread transform, where it was kept.
    pub fn spread(&self) -> Option<&DistFft> {
        match &self.runs {
            Runs::Spread(fft) => Some(fft),
            Runs::One(_) => None,
        }
    }

    /// A complex transform of `data` (the global array, row-major) in place.
    pub fn process(&self, data: &mut [Complex32]) -> Result<()> {
        self.expect(false, None)?;
        check_len("array", data.len(), self.spec.shape.iter().product())?;
        match &self.runs {
            Runs::One(fft) => fft.process(data),
            Runs::Spread(fft) => {
                let mut inputs = fft.scatter(data)?;
                let (_, mut outputs) = fft.zeros::<Complex32, Complex32>()?;
                fft.process(&mut inputs, &mut outputs)?;
                drop(inputs);
                fft.gather_into(&outputs, data)
            }
        }
    }

    /// R2C: the global reals `input` into the global spectrum `output` (the last axis
    /// `n/2 + 1` bins).
    pub fn process_real_to_complex(&self, input: &[f32], output: &mut [Complex32]) -> Result<()> {
        self.expect(true, Some(Direction::Forward))?;
        self.check_real_complex(input.len(), output.len())?;
        match &self.runs {
            Runs::One(fft) => fft.process_real_to_complex(input, output),
            Runs::Spread(fft) => run_spread(fft, input, output, DistFft::process_real_to_complex),
        }
    }

    /// C2R: the global spectrum `input` into the global reals `output`.
    pub fn process_complex_to_real(&self, input: &[Complex32], output: &mut [f32]) -> Result<()> {
        self.expect(true, Some(Direction::Inverse))?;
        self.check_real_complex(output.len(), input.len())?;
        match &self.runs {
            Runs::One(fft) => fft.process_complex_to_real(input, output),
            Runs::Spread(fft) => run_spread(fft, input, output, DistFft::process_complex_to_real),
        }
    }

    /// Refuses a call of the wrong kind, naming the one the spec plans.
    fn expect(&self, real: bool, direction: Option<Direction>) -> Result<()> {
        let s = &self.spec;
        let kind = match (s.real, s.direction) {
            (false, _) => "a complex transform (process)",
            (true, Direction::Forward) => "an R2C transform (process_real_to_complex)",
            (true, Direction::Inverse) => "a C2R transform (process_complex_to_real)",
        };
        if s.real != real || direction.is_some_and(|d| d != s.direction) {
            return Err(Error::InvalidSpec(format!(
                "this whole-array transform of {:?} is {kind}",
                s.shape
            )));
        }
        Ok(())
    }

    /// Checks a real transform's arrays: `reals` elements of the shape, `bins` of its
    /// complex shape.
    fn check_real_complex(&self, reals: usize, bins: usize) -> Result<()> {
        check_len("real array", reals, self.spec.shape.iter().product())?;
        check_len("spectrum", bins, self.spec.complex_shape().iter().product())
    }
}

/// Scatters `input`, runs `f` over the ranks and gathers their outputs into `output`.
fn run_spread<I: Element, O: Element>(
    fft: &DistFft,
    input: &[I],
    output: &mut [O],
    f: impl Fn(&DistFft, &mut [DeviceBuffer<I>], &mut [DeviceBuffer<O>]) -> Result<()>,
) -> Result<()> {
    let mut inputs = fft.scatter(input)?;
    let (_, mut outputs) = fft.zeros::<I, O>()?;
    f(fft, &mut inputs, &mut outputs)?;
    drop(inputs);
    fft.gather_into(&outputs, output)
}

/// An error unless `got` is `want` elements.
fn check_len(what: &str, got: usize, want: usize) -> Result<()> {
    match got == want {
        true => Ok(()),
        false => Err(Error::InvalidSpec(format!(
            "the {what} holds {got} elements; the transform's takes {want}"
        ))),
    }
}

/// Bytes a run of `spec` on whole arrays copies between host memory and the devices:
/// its input uploaded, its output downloaded (f32 reals, complex f32).
#[cfg(feature = "cuda")]
fn host_bytes(spec: &DistSpec) -> usize {
    let reals: usize = spec.shape.iter().product();
    let complex: usize = spec.complex_shape().iter().product();
    match spec.real {
        true => 4 * reals + 8 * complex,
        false => 16 * complex,
    }
}

/// `runs on 2 ranks (estimate: ...)`, `runs on one device (estimate: ...)`.
impl std::fmt::Display for WholeFft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.runs {
            Runs::Spread(fft) => write!(f, "runs on {} ranks", fft.ranks().len())?,
            Runs::One(_) => write!(f, "runs on one device")?,
        }
        match &self.estimate {
            Some(e) => write!(f, " ({e})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::Bandwidths;

    /// An estimate that says what `spread_faster` asks.
    fn estimate(spread_faster: bool) -> Estimate {
        let (one, spread) = if spread_faster {
            (2.0, 1.0)
        } else {
            (1.0, 2.0)
        };
        Estimate {
            one,
            spread,
            ranks: 2,
            bandwidths: Bandwidths::new(1e12, 1e11),
            host: None,
        }
    }

    #[test]
    fn keeps_what_the_estimate_says_is_faster() {
        let spec = DistSpec::new(&[6, 10]);
        let cpu = crate::Device::cpu();
        let x: Vec<Complex32> = (0..60).map(|i| Complex32::new(i as f32, 1.0)).collect();
        let mut want = x.clone();
        cpu.plan_nd(&spec.one_device())
            .unwrap()
            .process(&mut want)
            .unwrap();
        for faster in [false, true] {
            let spread = DistFft::on_cpu(&spec, 2).unwrap();
            let one = cpu.plan_nd(&spec.one_device()).unwrap();
            let whole = WholeFft::choose(spread, one, Some(estimate(faster))).unwrap();
            assert_eq!(whole.devices(), if faster { 2 } else { 1 });
            assert!(whole.to_string().contains(match faster {
                true => "runs on 2 ranks",
                false => "runs on one device",
            }));
            let mut y = x.clone();
            whole.process(&mut y).unwrap();
            let err: f32 = y.iter().zip(&want).map(|(a, b)| (a - b).norm()).sum();
            assert!(err < 1e-3, "{err}");
        }
        // The host copies can turn the verdict: the same device times, copies 4× slower
        // through one device's link than through both.
        let mut e = estimate(false);
        e.bandwidths = e
            .bandwidths
            .with_host(crate::distributed::HostLink::new(1.0, 4.0));
        let e = e.with_host_copies(8.0);
        assert_eq!((e.one_total(), e.spread_total()), (9.0, 4.0));
        assert!(e.spread_is_faster(), "{e}");
    }
}
