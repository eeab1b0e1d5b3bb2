//! A whole group of ranks in one process: one [`RankFft`] per device, run on a thread each,
//! with the host-side cutting and joining of global arrays.

use std::sync::{Arc, Barrier};
use std::time::Instant;

use super::exchange::{Exchange, LocalExchange};
use super::nccl::NcclExchange;
use super::rank::{Part, RankFft};
use super::{DistSpec, Slab, Slabs};
use crate::backend::cuda::CudaDevice;
use crate::backend::{Device, DeviceBuffer, Element, median};
use crate::error::{Error, Result};

/// A distributed transform over the devices of one process: rank `i` on device `i`.
/// Reusable; every call runs all ranks at once, one thread each, and waits for them.
pub struct DistFft {
    spec: DistSpec,
    ranks: Vec<RankFft>,
}

/// One buffer per rank, in rank order.
pub type RankBuffers<T> = Vec<DeviceBuffer<T>>;

/// Times of [`DistFft::time`], seconds per run (host clock from a common start until every
/// device has finished).
#[derive(Clone, Debug)]
pub struct DistTimes {
    /// The whole transform.
    pub total: Vec<f64>,
    /// The all-to-all alone (same buffers and counts as the transform's first).
    pub exchange: Vec<f64>,
    /// The local transforms alone (over axes 1.., then axis 0).
    pub transforms: Vec<f64>,
}

impl DistTimes {
    /// Medians of the three, seconds.
    pub fn medians(&self) -> (f64, f64, f64) {
        (
            median(&self.total),
            median(&self.exchange),
            median(&self.transforms),
        )
    }
}

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
        spec.slabs(ranks)?;
        let exchanges = LocalExchange::group(ranks)
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Exchange>)
            .collect();
        DistFft::new(spec, vec![Device::Cpu; ranks], exchanges)
    }

    /// One rank per GPU, exchanging through NCCL.
    pub fn on_cuda(spec: &DistSpec, gpus: &[Arc<CudaDevice>]) -> Result<DistFft> {
        spec.slabs(gpus.len())?;
        let exchanges = NcclExchange::group(gpus)?
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Exchange>)
            .collect();
        let devices = gpus.iter().map(|g| Device::Cuda(g.clone())).collect();
        DistFft::new(spec, devices, exchanges)
    }

    /// What this transform computes.
    pub fn spec(&self) -> &DistSpec {
        &self.spec
    }

    /// The ranks, in order.
    pub fn ranks(&self) -> &[RankFft] {
        &self.ranks
    }

    /// The decomposition of the complex side.
    pub fn slabs(&self) -> &Slabs {
        self.ranks[0].slabs()
    }

    /// Runs `f(rank, input, output)` for every rank at once, one thread each, each ending by
    /// waiting for its device; the first error is returned.
    fn run_all<I: Element, O: Element>(
        &self,
        inputs: &mut [DeviceBuffer<I>],
        outputs: &mut [DeviceBuffer<O>],
        f: impl Fn(&RankFft, &mut DeviceBuffer<I>, &mut DeviceBuffer<O>) -> Result<()> + Sync,
    ) -> Result<()> {
        let n = self.ranks.len();
        if inputs.len() != n || outputs.len() != n {
            return Err(Error::InvalidSpec(format!(
                "{n} ranks take {n} input and {n} output buffers (got {} and {})",
                inputs.len(),
                outputs.len()
            )));
        }
        let f = &f;
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .ranks
                .iter()
                .zip(inputs.iter_mut().zip(outputs.iter_mut()))
                .map(|(rank, (i, o))| {
                    s.spawn(move || f(rank, i, o).and_then(|()| rank.device().synchronize()))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Gpu("a rank's thread panicked".into())))
                })
                .collect::<Vec<_>>()
                .into_iter()
                .collect::<Result<()>>()
        })
    }

    /// A complex transform: `inputs[i]` (overwritten) into `outputs[i]`, rank `i`'s slabs.
    pub fn process(&self, inputs: &mut [DeviceBuffer], outputs: &mut [DeviceBuffer]) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process(i, o))
    }

    /// R2C: each rank's rows of reals into its slab of the spectrum.
    pub fn process_real_to_complex(
        &self,
        inputs: &mut [DeviceBuffer<f32>],
        outputs: &mut [DeviceBuffer],
    ) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process_real_to_complex(i, o))
    }

    /// C2R: each rank's slab of the spectrum (overwritten) into its rows of reals.
    pub fn process_complex_to_real(
        &self,
        inputs: &mut [DeviceBuffer],
        outputs: &mut [DeviceBuffer<f32>],
    ) -> Result<()> {
        self.run_all(inputs, outputs, |r, i, o| r.process_complex_to_real(i, o))
    }

    /// The shape of the array the input (`input`) or output slabs cut: the real one on the
    /// real side of a real transform, else the complex one.
    fn global_shape(&self, input: bool) -> Vec<usize> {
        let forward = self.spec.direction == crate::Direction::Forward;
        match self.spec.real && input == forward {
            true => self.spec.shape.clone(),
            false => self.spec.complex_shape(),
        }
    }

    /// Cuts the global input array `whole` (row-major) into each rank's slab, uploaded to
    /// the rank's device.
    pub fn scatter<T: Element>(&self, whole: &[T]) -> Result<Vec<DeviceBuffer<T>>> {
        let shape = self.global_shape(true);
        let slab = self.spec.input_slab();
        check_whole(whole.len(), &shape)?;
        self.ranks
            .iter()
            .map(|r| {
                let part = cut(whole, &shape, self.slabs(), r.rank(), slab);
                r.device().upload(&part)
            })
            .collect()
    }

    /// Joins each rank's output slab into the global output array (row-major).
    pub fn gather<T: Element>(&self, parts: &[DeviceBuffer<T>]) -> Result<Vec<T>> {
        let shape = self.global_shape(false);
        let slab = self.spec.output_slab();
        let mut whole = vec![T::default(); shape.iter().product()];
        for (r, part) in self.ranks.iter().zip(parts) {
            let values = part.download()?;
            place(&values, &mut whole, &shape, self.slabs(), r.rank(), slab)?;
        }
        Ok(whole)
    }

    /// Zeroed input and output slabs on each rank's device.
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

    /// Times `reps` runs of a complex forward transform, of its all-to-all alone and of its
    /// local transforms alone, on zeroed slabs (values do not change the time), after one
    /// untimed run of each. Each run starts on every rank at once and ends when every device
    /// has finished (host clock).
    pub fn time(&self, reps: usize) -> Result<DistTimes> {
        if self.spec.real || self.spec.direction != crate::Direction::Forward {
            return Err(Error::InvalidSpec(
                "DistFft::time times complex forward transforms".into(),
            ));
        }
        let (mut inputs, mut outputs) = self.zeros::<num_complex::Complex32, _>()?;
        let mut timed = |part: Part| -> Result<Vec<f64>> {
            let n = self.ranks.len();
            let barrier = Barrier::new(n);
            let (barrier, reps) = (&barrier, reps.max(1));
            std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .ranks
                    .iter()
                    .zip(inputs.iter_mut().zip(outputs.iter_mut()))
                    .map(|(rank, (i, o))| {
                        s.spawn(move || -> Result<Vec<f64>> {
                            let mut seconds = Vec::with_capacity(reps);
                            for rep in 0..=reps {
                                barrier.wait();
                                let t = Instant::now();
                                let done = rank
                                    .run_part(part, i, o)
                                    .and_then(|()| rank.device().synchronize());
                                // Every rank waits here even after an error, so none hangs.
                                barrier.wait();
                                let elapsed = t.elapsed().as_secs_f64();
                                done?;
                                if rep > 0 {
                                    seconds.push(elapsed);
                                }
                            }
                            Ok(seconds)
                        })
                    })
                    .collect();
                let per_rank = handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(Error::Gpu("a rank's thread panicked".into())))
                    })
                    .collect::<Result<Vec<_>>>()?;
                // A run lasts until its slowest rank is done.
                Ok((0..reps)
                    .map(|k| per_rank.iter().map(|s| s[k]).fold(0.0, f64::max))
                    .collect())
            })
        };
        Ok(DistTimes {
            total: timed(Part::All)?,
            exchange: timed(Part::Exchange)?,
            transforms: timed(Part::Transforms)?,
        })
    }
}

fn check_whole(len: usize, shape: &[usize]) -> Result<()> {
    let expected: usize = shape.iter().product();
    if len == expected {
        return Ok(());
    }
    Err(Error::InvalidSpec(format!(
        "the global array holds {len} elements; shape {shape:?} has {expected}"
    )))
}

/// The elements of the global array `shape` that rank `r`'s slab holds, in the slab's
/// order: for each index of axis 0 it holds, a run of `run` elements at `start` of the row.
fn runs(shape: &[usize], slabs: &Slabs, r: usize, slab: Slab) -> Vec<(usize, usize)> {
    let row: usize = shape[1..].iter().product();
    let inner: usize = shape[2..].iter().product();
    match slab {
        Slab::Natural => vec![(slabs.rows(r).start * row, slabs.rows(r).len() * row)],
        Slab::Transposed => (0..shape[0])
            .map(|i| {
                (
                    i * row + slabs.cols(r).start * inner,
                    slabs.cols(r).len() * inner,
                )
            })
            .collect(),
    }
}

fn cut<T: Element>(whole: &[T], shape: &[usize], slabs: &Slabs, r: usize, slab: Slab) -> Vec<T> {
    runs(shape, slabs, r, slab)
        .into_iter()
        .flat_map(|(start, len)| whole[start..start + len].iter().copied())
        .collect()
}

fn place<T: Element>(
    part: &[T],
    whole: &mut [T],
    shape: &[usize],
    slabs: &Slabs,
    r: usize,
    slab: Slab,
) -> Result<()> {
    let mut at = 0;
    for (start, len) in runs(shape, slabs, r, slab) {
        let Some(values) = part.get(at..at + len) else {
            return Err(Error::InvalidSpec(format!(
                "rank {r}'s output holds {} elements, fewer than its slab",
                part.len()
            )));
        };
        whole[start..start + len].copy_from_slice(values);
        at += len;
    }
    Ok(())
}
