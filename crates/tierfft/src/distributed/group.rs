//! A whole group of ranks in one process: one [`RankFft`] per device, run on a thread each,
//! with the host-side cutting and joining of global arrays.

#[cfg(feature = "cuda")]
use std::sync::Arc;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use super::exchange::{Exchange, LocalExchange};
#[cfg(feature = "cuda")]
use super::nccl::NcclExchange;
#[cfg(feature = "cuda")]
use super::peer::PeerExchange;
use super::rank::{DistTimes, RankFft};
use super::{DistSpec, on_threads};
#[cfg(feature = "cuda")]
use crate::backend::cuda::CudaDevice;
use crate::backend::{Device, DeviceBuffer, Element};
use crate::error::{Error, Result};

/// A distributed transform over the devices of one process: rank `i` on device `i`.
/// Reusable; every call runs all ranks at once, one thread each, and waits for them.
pub struct DistFft {
    spec: DistSpec,
    ranks: Vec<RankFft>,
}

/// Timed runs of each link [`Link::Measure`] compares.
#[cfg(feature = "cuda")]
const MEASURE_RUNS: usize = 5;

/// How the GPUs of one process exchange in a distributed transform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Link {
    /// NCCL where libnccl loads and every GPU holds one rank; peer copies otherwise.
    #[default]
    Default,
    /// NCCL's grouped sends and receives ([`NcclExchange`]).
    Nccl,
    /// Copies between the GPUs' memories ([`PeerExchange`]), over NVLink where there is one.
    Peer,
    /// Both, timed on this transform when it is planned; the faster is kept.
    Measure,
}

#[cfg(feature = "cuda")]
impl Link {
    /// One exchange per entry of `gpus` over this link ([`Link::Default`] resolved), rank
    /// `i` on `gpus[i]`, for [`DistFft::new`] or a caller's own ranks; [`Link::Measure`]
    /// takes a transform to time, so only [`DistFft::on_cuda_with`] takes it.
    pub fn exchanges(self, gpus: &[Arc<CudaDevice>]) -> Result<Vec<Box<dyn Exchange>>> {
        match self.resolve(gpus) {
            Link::Nccl => Ok(boxed(NcclExchange::group(gpus)?)),
            Link::Peer | Link::Default => Ok(boxed(PeerExchange::group(gpus)?)),
            Link::Measure => Err(Error::InvalidSpec(
                "Link::Measure times a transform: plan it with DistFft::on_cuda_with".into(),
            )),
        }
    }

    /// The link that runs on `gpus`: [`Link::Default`] resolved to NCCL where it can run
    /// (libnccl loads, one rank per GPU), else to peer copies.
    fn resolve(self, gpus: &[Arc<CudaDevice>]) -> Link {
        let mut ordinals: Vec<_> = gpus.iter().map(|g| g.context().ordinal()).collect();
        ordinals.sort_unstable();
        ordinals.dedup();
        let nccl = super::nccl_available() && ordinals.len() == gpus.len();
        match self {
            Link::Default if nccl => Link::Nccl,
            Link::Default => Link::Peer,
            other => other,
        }
    }
}

/// One buffer per rank, in rank order.
pub type RankBuffers<T> = Vec<DeviceBuffer<T>>;

impl DistFft {
    /// One rank per `(device, exchange)` pair, rank `i` being `exchanges[i].rank()`.
    pub fn new(
        spec: &DistSpec,
        devices: Vec<Device>,
        exchanges: Vec<Box<dyn Exchange>>,
    ) -> Result<DistFft> {
        if devices.len() != exchanges.len() {
            return Err(Error::InvalidSpec(format!(
                "{} devices and {} exchanges: one of each per rank",
                devices.len(),
                exchanges.len()
            )));
        }
        spec.validate(devices.len())?;
        check_group(&exchanges)?;
        let mut ranks = devices
            .into_iter()
            .zip(exchanges)
            .map(|(d, e)| RankFft::new(spec, d, e))
            .collect::<Result<Vec<_>>>()?;
        ranks.sort_by_key(RankFft::rank);
        Ok(DistFft {
            spec: spec.clone(),
            ranks,
        })
    }

    /// `ranks` ranks on the CPU, exchanging through memory ([`LocalExchange`]): the same
    /// plan as on GPUs, for testing and for machines without them.
    pub fn on_cpu(spec: &DistSpec, ranks: usize) -> Result<DistFft> {
        spec.validate(ranks)?;
        DistFft::new(
            spec,
            vec![Device::cpu(); ranks],
            boxed(LocalExchange::group(ranks)),
        )
    }

    /// One rank per GPU, exchanging through [`Link::default`]: NCCL where it can be loaded
    /// and the GPUs are distinct, else peer copies.
    #[cfg(feature = "cuda")]
    pub fn on_cuda(spec: &DistSpec, gpus: &[Arc<CudaDevice>]) -> Result<DistFft> {
        DistFft::on_cuda_with(spec, gpus, Link::default())
    }

    /// One rank per entry of `gpus` (a GPU may appear more than once with peer copies),
    /// exchanging through `link`; [`Link::Measure`] plans with each link and keeps the
    /// faster (a few timed runs of each, on zeroed arrays).
    #[cfg(feature = "cuda")]
    pub fn on_cuda_with(spec: &DistSpec, gpus: &[Arc<CudaDevice>], link: Link) -> Result<DistFft> {
        spec.validate(gpus.len())?;
        let devices = || gpus.iter().map(|g| Device::from(g.clone())).collect();
        if link != Link::Measure {
            return DistFft::new(spec, devices(), link.exchanges(gpus)?);
        }
        // Each link's transform timed and dropped before the next is made (their scratch
        // would not fit twice where the transform is large), the faster made again.
        let mut best: Option<(f64, Link)> = None;
        for link in [Link::Nccl, Link::Peer] {
            if link == Link::Nccl && Link::Default.resolve(gpus) != Link::Nccl {
                continue;
            }
            let fft = DistFft::new(spec, devices(), link.exchanges(gpus)?)?;
            let (total, ..) = fft.time(MEASURE_RUNS)?.medians();
            if best.is_none_or(|(t, _)| total < t) {
                best = Some((total, link));
            }
        }
        let (_, fastest) = best.ok_or_else(|| Error::gpu("no link could be measured"))?;
        DistFft::new(spec, devices(), fastest.exchanges(gpus)?)
    }

    /// How this transform's ranks exchange ([`Exchange::link`]).
    pub fn link(&self) -> &'static str {
        self.ranks.first().map_or("none", RankFft::link)
    }

    /// What this transform computes.
    pub fn spec(&self) -> &DistSpec {
        &self.spec
    }

    /// The ranks, in order.
    pub fn ranks(&self) -> &[RankFft] {
        &self.ranks
    }

    /// Checks every rank's buffers before any rank starts, so that a wrong one is an error on
    /// the caller's thread rather than on one rank while the others wait for it.
    fn check_buffers<I: Element, O: Element>(
        &self,
        inputs: &[DeviceBuffer<I>],
        outputs: &[DeviceBuffer<O>],
    ) -> Result<()> {
        let n = self.ranks.len();
        if inputs.len() != n || outputs.len() != n {
            return Err(Error::InvalidSpec(format!(
                "{n} ranks take {n} input and {n} output buffers (got {} and {})",
                inputs.len(),
                outputs.len()
            )));
        }
        for ((r, i), o) in self.ranks.iter().zip(inputs).zip(outputs) {
            if (i.len(), o.len()) != (r.input_len(), r.output_len()) {
                return Err(Error::InvalidSpec(format!(
                    "rank {}'s buffers hold {} and {} elements; its parts of {:?} take {} and {}",
                    r.rank(),
                    i.len(),
                    o.len(),
                    self.spec.shape,
                    r.input_len(),
                    r.output_len()
                )));
            }
        }
        Ok(())
    }

    /// Runs `f(rank, input, output)` for every rank at once, one thread each, each ending by
    /// waiting for its device; the first error is returned.
    fn run_all<I: Element, O: Element>(
        &self,
        inputs: &mut [DeviceBuffer<I>],
        outputs: &mut [DeviceBuffer<O>],
        f: impl Fn(&RankFft, &mut DeviceBuffer<I>, &mut DeviceBuffer<O>) -> Result<()> + Sync,
    ) -> Result<()> {
        self.check_buffers(inputs, outputs)?;
        let ranks = (self.ranks.iter()).zip(inputs.iter_mut().zip(outputs.iter_mut()));
        on_threads(ranks, |(rank, (i, o))| {
            f(rank, i, o).and_then(|()| rank.device().synchronize())
        })
        .map(|_| ())
    }

    /// A complex transform: `inputs[i]` (overwritten) into `outputs[i]`, rank `i`'s parts ([`RankFft::input_box`], [`RankFft::output_box`]).
    pub fn process(&self, inputs: &mut [DeviceBuffer], outputs: &mut [DeviceBuffer]) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process(i, o))
    }

    /// R2C: each rank's part of the reals into its part of the spectrum.
    pub fn process_real_to_complex(
        &self,
        inputs: &mut [DeviceBuffer<f32>],
        outputs: &mut [DeviceBuffer],
    ) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process_real_to_complex(i, o))
    }

    /// C2R: each rank's part of the spectrum (overwritten) into its part of the reals.
    pub fn process_complex_to_real(
        &self,
        inputs: &mut [DeviceBuffer],
        outputs: &mut [DeviceBuffer<f32>],
    ) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process_complex_to_real(i, o))
    }

    /// The shape of the array the input (`input`) or output parts cut: the real one on the
    /// real side of a real transform, else the complex one.
    fn global_shape(&self, input: bool) -> Vec<usize> {
        let forward = self.spec.direction == crate::Direction::Forward;
        match self.spec.real && input == forward {
            true => self.spec.shape.clone(),
            false => self.spec.complex_shape(),
        }
    }

    /// Cuts the global input array `whole` (row-major) into each rank's part
    /// ([`RankFft::input_box`]), uploaded to the rank's device; the ranks' parts are cut
    /// and uploaded at once, a thread each.
    pub fn scatter<T: Element>(&self, whole: &[T]) -> Result<Vec<DeviceBuffer<T>>> {
        let shape = self.global_shape(true);
        on_threads(self.ranks.iter(), |r| {
            r.device().upload(&r.input_box().cut(whole, &shape)?)
        })
    }

    /// Joins each rank's output part ([`RankFft::output_box`]) into the global output array
    /// (row-major).
    pub fn gather<T: Element>(&self, parts: &[DeviceBuffer<T>]) -> Result<Vec<T>> {
        let shape = self.global_shape(false);
        let mut whole = vec![T::default(); shape.iter().product()];
        self.gather_into(parts, &mut whole)?;
        Ok(whole)
    }

    /// Joins each rank's output part into `whole`, the global output array (row-major): the
    /// parts downloaded at once, a thread each, then placed.
    pub fn gather_into<T: Element>(
        &self,
        parts: &[DeviceBuffer<T>],
        whole: &mut [T],
    ) -> Result<()> {
        let shape = self.global_shape(false);
        if parts.len() != self.ranks.len() {
            return Err(Error::InvalidSpec(format!(
                "{} ranks' outputs to gather, {} given",
                self.ranks.len(),
                parts.len()
            )));
        }
        let downloaded = on_threads(parts.iter(), DeviceBuffer::download)?;
        for (r, part) in self.ranks.iter().zip(downloaded) {
            r.output_box().place(&part, whole, &shape)?;
        }
        Ok(())
    }

    /// Zeroed input and output parts on each rank's device.
    pub fn zeros<I: Element, O: Element>(&self) -> Result<(RankBuffers<I>, RankBuffers<O>)> {
        let inputs = self
            .ranks
            .iter()
            .map(|r| r.device().zeros_of(r.input_len()))
            .collect::<Result<_>>()?;
        let outputs = self
            .ranks
            .iter()
            .map(|r| r.device().zeros_of(r.output_len()))
            .collect::<Result<_>>()?;
        Ok((inputs, outputs))
    }

    /// Times `reps` runs of a complex forward transform, of its all-to-alls alone and of its
    /// local transforms alone ([`RankFft::time`] on every rank at once): each run from a
    /// common start until every device has finished.
    pub fn time(&self, reps: usize) -> Result<DistTimes> {
        let rounds = Rounds::new(self.ranks.len());
        let per_rank = on_threads(self.ranks.iter(), |rank| {
            rank.time(reps, |ok| rounds.end(ok))
        })?;
        Ok(DistTimes::slowest(&per_rank))
    }
}

/// Each exchange of a group, boxed.
fn boxed<E: Exchange + 'static>(group: Vec<E>) -> Vec<Box<dyn Exchange>> {
    group
        .into_iter()
        .map(|e| Box::new(e) as Box<dyn Exchange>)
        .collect()
}

/// Checks that `exchanges` are one group: they say they are ranks 0..n, each once, of n.
pub fn check_group(exchanges: &[Box<dyn Exchange>]) -> Result<()> {
    let said: Vec<(usize, usize)> = exchanges.iter().map(|e| (e.rank(), e.ranks())).collect();
    let n = said.len();
    let mut seen = vec![false; n];
    for &(rank, of) in &said {
        if of != n || rank >= n || std::mem::replace(&mut seen[rank], true) {
            return Err(Error::InvalidSpec(format!(
                "{n} exchanges say they are ranks {said:?} (rank, of ranks): each of 0..{n} \
                 once, of {n}"
            )));
        }
    }
    Ok(())
}

/// Steps that every rank of a process ends together (a barrier that carries failure): a
/// rank that failed makes every rank stop at the same step's end instead of waiting for it at
/// the next.
pub struct Rounds {
    barrier: Barrier,
    failed: AtomicBool,
}

impl Rounds {
    /// Rounds for `ranks` ranks.
    pub fn new(ranks: usize) -> Rounds {
        Rounds {
            barrier: Barrier::new(ranks),
            failed: AtomicBool::new(false),
        }
    }

    /// Ends a round (`ok`: this rank's part succeeded) once every rank has; an error when
    /// any rank failed.
    pub fn end(&self, ok: bool) -> Result<()> {
        if !ok {
            self.failed.store(true, Ordering::SeqCst);
        }
        self.barrier.wait();
        match self.failed.load(Ordering::SeqCst) {
            true => Err(Error::gpu("another rank failed")),
            false => Ok(()),
        }
    }
}
