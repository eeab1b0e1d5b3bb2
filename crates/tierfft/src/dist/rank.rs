//! One rank of a distributed transform: its two local transforms, its part of each change
//! of layout, and the scratch arrays it keeps between runs.

use std::sync::{Mutex, MutexGuard};

use super::exchange::Exchange;
use super::play::redistribute;
use super::slab::{Moves, Slabs};
use super::{DistSpec, Spectrum};
use crate::backend::{Device, DeviceBuffer};
use crate::error::{Error, Result};
use crate::nd::{NdFft, NdSpec};
use crate::spec::Direction;

/// One rank's share of a distributed transform ([`super::DistSpec`]): made on each device
/// with its end of an [`Exchange`], and run by every rank at once (each on its own thread or
/// process; [`super::DistFft`] runs a whole group in one process).
pub struct RankFft {
    spec: DistSpec,
    slabs: Slabs,
    rank: usize,
    device: Device,
    /// The transform over axes 1.. of the rank's rows (R2C or C2R for a real transform).
    local: NdFft,
    /// The transform over axis 0 of the rank's columns.
    axis0: NdFft,
    to_transposed: Moves,
    to_natural: Moves,
    exchange: Mutex<Box<dyn Exchange>>,
    scratch: Mutex<Scratch>,
}

/// A rank's exchange and scratch, held for one run.
type Locked<'a> = (MutexGuard<'a, Box<dyn Exchange>>, MutexGuard<'a, Scratch>);

/// Arrays kept from the first run that needs them until the transform is dropped.
#[derive(Default)]
struct Scratch {
    /// Packed blocks (sent from or received into).
    staging: Option<DeviceBuffer>,
    /// The complex natural slab of a real transform.
    natural: Option<DeviceBuffer>,
    /// The transposed slab where the spectrum is natural.
    transposed: Option<DeviceBuffer>,
}

/// What one timed run does (for [`super::DistFft::time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The whole transform.
    All,
    /// The all-to-all alone, on the same buffers and counts as the first change of layout.
    Exchange,
    /// The two local transforms alone.
    Transforms,
}

/// `slot`'s array of `len` complex elements, made on `device` if it has none yet.
fn ensure<'a>(
    slot: &'a mut Option<DeviceBuffer>,
    device: &Device,
    len: usize,
) -> Result<&'a mut DeviceBuffer> {
    if slot.is_none() {
        *slot = Some(device.zeros(len.max(1))?);
    }
    slot.as_mut()
        .ok_or_else(|| Error::Gpu("a scratch array was not made".into()))
}

impl RankFft {
    /// Rank `exchange.rank()` of `spec` over `exchange.ranks()` ranks, on `device` (which
    /// must hold the buffers `exchange` moves).
    pub fn new(spec: &DistSpec, device: Device, exchange: Box<dyn Exchange>) -> Result<RankFft> {
        if let Device::Wgpu(_) = device {
            return Err(Error::Unsupported {
                what: "a distributed transform".into(),
                device: device.name(),
                detail: "distributed transforms run on CUDA GPUs (over NCCL) or CPU ranks".into(),
            });
        }
        let (rank, ranks) = (exchange.rank(), exchange.ranks());
        let slabs = spec.slabs(ranks)?;
        let d = spec.shape.len();
        let mut rows = spec.shape.clone();
        rows[0] = slabs.rows(rank).len();
        let mut local = NdSpec::new(&rows)
            .axes(&(1..d).collect::<Vec<_>>())
            .direction(spec.direction);
        let mut axis0 = NdSpec::new(&slabs.transposed_shape(rank))
            .axes(&[0])
            .direction(spec.direction);
        if spec.real {
            local = local.real();
        }
        if spec.normalize {
            (local, axis0) = (local.normalized(), axis0.normalized());
        }
        Ok(RankFft {
            local: device.plan_nd(&local)?,
            axis0: device.plan_nd(&axis0)?,
            to_transposed: slabs.to_transposed(rank),
            to_natural: slabs
                .to_natural(rank)
                .ok_or_else(|| Error::InvalidSpec("a transform's slabs have no halo".into()))?,
            spec: spec.clone(),
            slabs,
            rank,
            device,
            exchange: Mutex::new(exchange),
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// This rank's index.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The device this rank runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The decomposition of the complex side.
    pub fn slabs(&self) -> &Slabs {
        &self.slabs
    }

    /// Elements of this rank's input: reals for R2C, complex values otherwise.
    pub fn input_len(&self) -> usize {
        self.len_of(
            super::DistSpec::input_slab(&self.spec),
            self.spec.real && self.forward(),
        )
    }

    /// Elements of this rank's output: reals for C2R, complex values otherwise.
    pub fn output_len(&self) -> usize {
        self.len_of(self.spec.output_slab(), self.spec.real && !self.forward())
    }

    fn len_of(&self, slab: super::Slab, real: bool) -> usize {
        match (slab, real) {
            (super::Slab::Transposed, _) => self.slabs.transposed_len(self.rank),
            (super::Slab::Natural, false) => self.slabs.natural_len(self.rank),
            (super::Slab::Natural, true) => {
                self.slabs.rows(self.rank).len() * self.spec.shape[1..].iter().product::<usize>()
            }
        }
    }

    fn forward(&self) -> bool {
        self.spec.direction == Direction::Forward
    }

    fn check(&self, what: &str, got: usize, expected: usize) -> Result<()> {
        if got == expected {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "rank {}'s {what} holds {got} elements; its slab of {:?} has {expected}",
            self.rank, self.spec.shape
        )))
    }

    fn locks(&self) -> Result<Locked<'_>> {
        let poisoned = || Error::Gpu(format!("rank {} panicked during a run", self.rank));
        Ok((
            self.exchange.lock().map_err(|_| poisoned())?,
            self.scratch.lock().map_err(|_| poisoned())?,
        ))
    }

    /// A complex transform (forward or inverse) from `input` into `output`, each this rank's
    /// slab in its layout ([`DistSpec::input_slab`], [`DistSpec::output_slab`]); `input` is
    /// used as scratch and overwritten. Queued, not waited for; every rank must call it.
    pub fn process(&self, input: &mut DeviceBuffer, output: &mut DeviceBuffer) -> Result<()> {
        self.expect(false)?;
        self.check("input", input.len(), self.input_len())?;
        self.check("output", output.len(), self.output_len())?;
        let (mut ex, mut scratch) = self.locks()?;
        if self.forward() {
            self.local.process_buffer(input)?;
            self.finish_forward(&mut **ex, &mut scratch, input, output)
        } else {
            self.start_inverse(&mut **ex, &mut scratch, input, output)?;
            self.local.process_buffer(output)
        }
    }

    /// R2C: this rank's rows of reals in, its slab of the spectrum out.
    pub fn process_real_to_complex(
        &self,
        input: &mut DeviceBuffer<f32>,
        output: &mut DeviceBuffer,
    ) -> Result<()> {
        self.expect(true)?;
        if !self.forward() {
            return Err(Error::InvalidSpec("R2C is a real forward transform".into()));
        }
        self.check("input", input.len(), self.input_len())?;
        self.check("output", output.len(), self.output_len())?;
        let (mut ex, mut scratch) = self.locks()?;
        let mut natural = scratch.natural.take();
        let result = ensure(
            &mut natural,
            &self.device,
            self.slabs.natural_len(self.rank),
        )
        .and_then(|nat| {
            self.local.process_buffer_real_to_complex(input, nat)?;
            self.finish_forward(&mut **ex, &mut scratch, nat, output)
        });
        scratch.natural = natural;
        result
    }

    /// C2R: this rank's slab of the spectrum in (used as scratch), its rows of reals out.
    pub fn process_complex_to_real(
        &self,
        input: &mut DeviceBuffer,
        output: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        self.expect(true)?;
        if self.forward() {
            return Err(Error::InvalidSpec("C2R is a real inverse transform".into()));
        }
        self.check("input", input.len(), self.input_len())?;
        self.check("output", output.len(), self.output_len())?;
        let (mut ex, mut scratch) = self.locks()?;
        let mut natural = scratch.natural.take();
        let result = ensure(
            &mut natural,
            &self.device,
            self.slabs.natural_len(self.rank),
        )
        .and_then(|nat| {
            self.start_inverse(&mut **ex, &mut scratch, input, nat)?;
            self.local.process_buffer_complex_to_real(nat, output)
        });
        scratch.natural = natural;
        result
    }

    fn expect(&self, real: bool) -> Result<()> {
        if self.spec.real == real {
            return Ok(());
        }
        Err(Error::InvalidSpec(format!(
            "this distributed transform is {}; call {}",
            if self.spec.real { "real" } else { "complex" },
            match (self.spec.real, self.forward()) {
                (false, _) => "process",
                (true, true) => "process_real_to_complex",
                (true, false) => "process_complex_to_real",
            }
        )))
    }

    /// From the natural slab after the transform over axes 1.. to the spectrum in `output`.
    fn finish_forward(
        &self,
        ex: &mut dyn Exchange,
        scratch: &mut Scratch,
        natural: &mut DeviceBuffer,
        output: &mut DeviceBuffer,
    ) -> Result<()> {
        let Scratch {
            staging,
            transposed,
            ..
        } = scratch;
        let staging = ensure(staging, &self.device, self.slabs.staging_len(self.rank))?;
        match self.spec.spectrum {
            Spectrum::Transposed => {
                redistribute(&self.to_transposed, ex, natural, output, staging)?;
                self.axis0.process_buffer(output)
            }
            Spectrum::Natural => {
                let t = ensure(
                    transposed,
                    &self.device,
                    self.slabs.transposed_len(self.rank),
                )?;
                redistribute(&self.to_transposed, ex, natural, t, staging)?;
                self.axis0.process_buffer(t)?;
                redistribute(&self.to_natural, ex, output, t, staging)
            }
        }
    }

    /// From the spectrum in `input` to the natural slab before the transform over axes 1..
    fn start_inverse(
        &self,
        ex: &mut dyn Exchange,
        scratch: &mut Scratch,
        input: &mut DeviceBuffer,
        natural: &mut DeviceBuffer,
    ) -> Result<()> {
        let Scratch {
            staging,
            transposed,
            ..
        } = scratch;
        let staging = ensure(staging, &self.device, self.slabs.staging_len(self.rank))?;
        match self.spec.spectrum {
            Spectrum::Transposed => {
                self.axis0.process_buffer(input)?;
                redistribute(&self.to_natural, ex, natural, input, staging)
            }
            Spectrum::Natural => {
                let t = ensure(
                    transposed,
                    &self.device,
                    self.slabs.transposed_len(self.rank),
                )?;
                redistribute(&self.to_transposed, ex, input, t, staging)?;
                self.axis0.process_buffer(t)?;
                redistribute(&self.to_natural, ex, natural, t, staging)
            }
        }
    }

    /// One timed run of `part` of a forward transform on `input` and `output` (the buffers
    /// [`RankFft::process`] takes; complex transforms only).
    pub(crate) fn run_part(
        &self,
        part: Part,
        input: &mut DeviceBuffer,
        output: &mut DeviceBuffer,
    ) -> Result<()> {
        match part {
            Part::All => self.process(input, output),
            Part::Transforms => {
                self.local.process_buffer(input)?;
                self.axis0.process_buffer(output)
            }
            Part::Exchange => {
                let (mut ex, mut scratch) = self.locks()?;
                let staging = ensure(
                    &mut scratch.staging,
                    &self.device,
                    self.slabs.staging_len(self.rank),
                )?;
                let m = &self.to_transposed;
                ex.all_to_all(staging, &m.sends, output, &m.recvs)
            }
        }
    }

    /// Bytes that leave this rank for its peers in one change of layout.
    pub fn bytes_sent(&self) -> usize {
        8 * self
            .to_transposed
            .sends
            .iter()
            .map(|r| r.len())
            .sum::<usize>()
    }
}
