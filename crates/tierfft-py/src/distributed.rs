//! `tierfft._core.DistTransform`: a transform spread over several devices, every rank in
//! this process (one per device) or this process one rank of several that a launcher
//! started (torchrun, mpirun, srun). It runs on each rank's part of the global arrays, as
//! NumPy arrays (copied to and from the rank's device) or CUDA arrays handed over through
//! DLPack (transformed where they lie). The NumPy-style wrapper is `tierfft.distributed`.

use num_complex::Complex32;
use numpy::{Element as NpElement, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tierfft::distributed::{DistFft, DistSpec, Launch, Link, RankFft, Rendezvous, Spectrum};
use tierfft::{Device, DeviceBuffer, DeviceKind, Direction, Element};

use crate::device::PyDevice;
use crate::dlpack;
use crate::errors::IntoPy;
use crate::lent::{Array, LentParts};
use crate::transform::{array, hand_over, not_writeable};

/// The ranks this process runs.
enum Ranks {
    /// Every rank, one per device of this process.
    Group(DistFft),
    /// One rank of a group of processes.
    One(Box<RankFft>),
}

/// A distributed transform: `ranks` ranks, each holding a box of the global input and of the
/// global output (`input_box`, `output_box`: a `(start, stop)` per axis, row-major parts).
#[pyclass(frozen, name = "DistTransform", module = "tierfft._core")]
pub struct DistTransform {
    spec: DistSpec,
    ranks: Ranks,
    /// Ranks of the whole transform.
    world: usize,
}

/// The spec of the arguments both constructors take.
fn spec(
    shape: Vec<usize>,
    real: bool,
    inverse: bool,
    normalize: bool,
    spectrum: &str,
    grid: Option<(usize, usize)>,
    parts: Option<usize>,
) -> PyResult<DistSpec> {
    let mut spec = DistSpec::new(&shape);
    if real {
        spec = spec.real();
    }
    if inverse {
        spec = spec.inverse();
    }
    if normalize {
        spec = spec.normalized();
    }
    spec = spec.spectrum(match spectrum {
        "transposed" => Spectrum::Transposed,
        "natural" => Spectrum::Natural,
        other => {
            return Err(PyValueError::new_err(format!(
                "spectrum={other:?}: give 'transposed' (cut along axis 1, one all-to-all) or \
                 'natural' (cut along axis 0 like the data, two)"
            )));
        }
    });
    if let Some((p0, p1)) = grid {
        spec = spec.pencils(p0, p1);
    }
    if let Some(parts) = parts {
        spec = spec.parts(parts);
    }
    Ok(spec)
}

fn link(name: &str) -> PyResult<Link> {
    Ok(match name {
        "default" => Link::Default,
        "nccl" => Link::Nccl,
        "peer" => Link::Peer,
        "measure" => Link::Measure,
        other => {
            return Err(PyValueError::new_err(format!(
                "link={other:?}: give 'default', 'nccl', 'peer' or 'measure'"
            )));
        }
    })
}

/// The element types of a rank's input and output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Complex,
    RealIn,
    RealOut,
}

impl DistTransform {
    fn kind(&self) -> Kind {
        match (self.spec.real, self.spec.direction) {
            (false, _) => Kind::Complex,
            (true, Direction::Forward) => Kind::RealIn,
            (true, _) => Kind::RealOut,
        }
    }

    /// The ranks this process runs, in order.
    fn local(&self) -> Vec<&RankFft> {
        match &self.ranks {
            Ranks::Group(fft) => fft.ranks().iter().collect(),
            Ranks::One(rank) => vec![rank],
        }
    }

    fn rank_of(&self, rank: usize) -> PyResult<&RankFft> {
        let ranks = match &self.ranks {
            Ranks::Group(fft) => fft.ranks(),
            Ranks::One(one) if one.rank() == rank => std::slice::from_ref(&**one),
            Ranks::One(one) => {
                return Err(PyValueError::new_err(format!(
                    "this process runs rank {} only (asked for rank {rank})",
                    one.rank()
                )));
            }
        };
        ranks
            .iter()
            .find(|r| r.rank() == rank)
            .ok_or_else(|| PyValueError::new_err(format!("rank {rank} of {} ranks", self.world)))
    }

    /// Every local rank's transform on its device buffers (each input used as scratch),
    /// the devices waited for.
    fn run(&self, ins: &mut Buffers, outs: &mut Buffers) -> tierfft::Result<()> {
        use Buffers::{Complex as C, Real as R};
        let mismatch = || {
            tierfft::Error::InvalidSpec(
                "the arrays' element types do not fit this transform".into(),
            )
        };
        match &self.ranks {
            Ranks::Group(fft) => match (ins, outs) {
                (C(i), C(o)) => fft.process(i, o),
                (R(i), C(o)) => fft.process_real_to_complex(i, o),
                (C(i), R(o)) => fft.process_complex_to_real(i, o),
                _ => Err(mismatch()),
            },
            Ranks::One(rank) => {
                match (ins, outs) {
                    (C(i), C(o)) => rank.process(first(i)?, first(o)?),
                    (R(i), C(o)) => rank.process_real_to_complex(first(i)?, first(o)?),
                    (C(i), R(o)) => rank.process_complex_to_real(first(i)?, first(o)?),
                    _ => Err(mismatch()),
                }?;
                rank.device().synchronize()
            }
        }
    }
}

/// The one buffer of a process that runs one rank.
fn first<T: Element>(buffers: &mut [DeviceBuffer<T>]) -> tierfft::Result<&mut DeviceBuffer<T>> {
    match buffers {
        [one] => Ok(one),
        _ => Err(tierfft::Error::InvalidSpec(format!(
            "this process runs one rank: one input and one output (got {})",
            buffers.len()
        ))),
    }
}

/// Device buffers of one element type, one per local rank.
pub(crate) enum Buffers {
    Complex(Vec<DeviceBuffer<Complex32>>),
    Real(Vec<DeviceBuffer<f32>>),
}

/// A NumPy array's values as a rank's device buffer (uploaded).
fn upload<T: NpElement + Element>(
    obj: &Bound<'_, PyAny>,
    rank: &RankFft,
    shape: &[usize],
    dtype: &str,
) -> PyResult<DeviceBuffer<T>> {
    let a = array::<T>(obj, &format!("rank {}'s input", rank.rank()), dtype, shape)?;
    let values = a.readonly();
    let values = values
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    rank.device().upload(values).py_err()
}

/// Writes a rank's device buffer into a NumPy array.
fn download<T: NpElement + Element>(
    obj: &Bound<'_, PyAny>,
    buffer: &DeviceBuffer<T>,
    rank: usize,
    shape: &[usize],
    dtype: &str,
) -> PyResult<()> {
    let what = format!("rank {rank}'s output");
    let a = array::<T>(obj, &what, dtype, shape)?;
    let mut out = a.try_readwrite().map_err(not_writeable(&what))?;
    let out = out
        .as_slice_mut()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    out.copy_from_slice(&buffer.download().py_err()?);
    Ok(())
}

#[pymethods]
impl DistTransform {
    /// Every rank in this process, rank `i` on `devices[i]`: CUDA GPUs (a GPU may hold more
    /// than one rank with `link="peer"`), or the CPU for every rank. Planned at once; the
    /// GIL is released meanwhile.
    #[new]
    #[pyo3(signature = (shape, devices, *, real=false, inverse=false, normalize=false,
                        spectrum="transposed", grid=None, parts=None, link="default"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        shape: Vec<usize>,
        devices: Vec<PyRef<'_, PyDevice>>,
        real: bool,
        inverse: bool,
        normalize: bool,
        spectrum: &str,
        grid: Option<(usize, usize)>,
        parts: Option<usize>,
        link: &str,
    ) -> PyResult<Self> {
        let spec = self::spec(shape, real, inverse, normalize, spectrum, grid, parts)?;
        let link = self::link(link)?;
        let devices: Vec<Device> = devices.iter().map(|d| d.device.clone()).collect();
        let kinds: Vec<DeviceKind> = devices.iter().map(Device::kind).collect();
        let fft = if kinds.iter().all(|k| *k == DeviceKind::Cpu) {
            let ranks = devices.len();
            let spec = spec.clone();
            py.detach(move || DistFft::on_cpu(&spec, ranks)).py_err()?
        } else {
            let gpus: Vec<_> = devices.iter().filter_map(Device::cuda_device).collect();
            if gpus.len() != devices.len() {
                return Err(PyValueError::new_err(
                    "a distributed transform runs on CUDA GPUs or on CPU ranks: give devices \
                     all 'cuda:N' or all 'cpu'",
                ));
            }
            let spec = spec.clone();
            py.detach(move || DistFft::on_cuda_with(&spec, &gpus, link))
                .py_err()?
        };
        Ok(DistTransform {
            spec,
            world: fft.ranks().len(),
            ranks: Ranks::Group(fft),
        })
    }

    /// This process as one rank of a group that a launcher started, placed by its
    /// environment (RANK/WORLD_SIZE/LOCAL_RANK and MASTER_ADDR/MASTER_PORT as torchrun sets
    /// them, OMPI_COMM_WORLD_*, PMI_*, SLURM_*; TIERFFT_RENDEZVOUS=host:port): it meets the
    /// others (waiting up to `timeout` seconds) and exchanges through NCCL on its GPU (the
    /// launcher's local rank among the visible ones), or over TCP with `cpu=True`.
    #[staticmethod]
    #[pyo3(signature = (shape, *, real=false, inverse=false, normalize=false,
                        spectrum="transposed", grid=None, parts=None, cpu=false, timeout=300.0))]
    #[allow(clippy::too_many_arguments)]
    fn from_env(
        py: Python<'_>,
        shape: Vec<usize>,
        real: bool,
        inverse: bool,
        normalize: bool,
        spectrum: &str,
        grid: Option<(usize, usize)>,
        parts: Option<usize>,
        cpu: bool,
        timeout: f64,
    ) -> PyResult<Self> {
        let spec = self::spec(shape, real, inverse, normalize, spectrum, grid, parts)?;
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(PyValueError::new_err(format!(
                "timeout={timeout}: give the seconds to wait for the other ranks (> 0)"
            )));
        }
        let launch = Launch::from_env().py_err()?;
        let plan = spec.clone();
        let (rank, meet) = py
            .detach(move || -> tierfft::Result<_> {
                let device = match cpu {
                    true => Device::cpu(),
                    false => Device::cuda(
                        launch.gpu_ordinal(tierfft::backend::cuda::CudaDevice::count()?),
                    )?,
                };
                let mut meet =
                    Rendezvous::join_within(&launch, std::time::Duration::from_secs_f64(timeout))?;
                let exchange = meet.exchange(&device)?;
                let rank = RankFft::new(&plan, device, exchange);
                // Every rank learns whether every rank could plan, rather than wait.
                meet.end_round(rank.is_ok())?;
                Ok((rank?, meet))
            })
            .py_err()?;
        Ok(DistTransform {
            spec,
            world: meet.ranks(),
            ranks: Ranks::One(Box::new(rank)),
        })
    }

    /// Ranks of the whole transform.
    #[getter]
    fn ranks(&self) -> usize {
        self.world
    }

    /// The ranks this process runs, in order.
    #[getter]
    fn local_ranks(&self) -> Vec<usize> {
        self.local().iter().map(|r| r.rank()).collect()
    }

    /// What carries the all-to-alls: "NCCL", "peer copies", "host memory" or "sockets".
    #[getter]
    fn link(&self) -> &'static str {
        self.local().first().map_or("none", |r| r.link())
    }

    /// Parts each slab's change of layout is cut into (1: whole).
    #[getter]
    fn parts(&self) -> usize {
        self.local().first().map_or(1, |r| r.parts())
    }

    /// The global input array's shape (the real array's for R2C).
    #[getter]
    fn input_shape(&self) -> Vec<usize> {
        match self.kind() {
            Kind::RealIn => self.spec.shape.clone(),
            _ => self.spec.complex_shape(),
        }
    }

    /// The global output array's shape.
    #[getter]
    fn output_shape(&self) -> Vec<usize> {
        match self.kind() {
            Kind::RealOut => self.spec.shape.clone(),
            _ => self.spec.complex_shape(),
        }
    }

    /// Whether the input is float32 (R2C) rather than complex64.
    #[getter]
    fn real_input(&self) -> bool {
        self.kind() == Kind::RealIn
    }

    /// Whether the output is float32 (C2R) rather than complex64.
    #[getter]
    fn real_output(&self) -> bool {
        self.kind() == Kind::RealOut
    }

    /// The part of the global input rank `rank` holds: `(start, stop)` per axis.
    fn input_box(&self, rank: usize) -> PyResult<Vec<(usize, usize)>> {
        let r = self.rank_of(rank)?;
        Ok(r.input_box().0.iter().map(|a| (a.start, a.end)).collect())
    }

    /// The part of the global output rank `rank` holds: `(start, stop)` per axis.
    fn output_box(&self, rank: usize) -> PyResult<Vec<(usize, usize)>> {
        let r = self.rank_of(rank)?;
        Ok(r.output_box().0.iter().map(|a| (a.start, a.end)).collect())
    }

    /// The CUDA ordinal of each local rank's GPU (`None` for CPU ranks).
    #[getter]
    fn cuda_ordinals(&self) -> Vec<Option<usize>> {
        self.local()
            .iter()
            .map(|r| {
                r.device()
                    .cuda_device()
                    .map(|d| d.stream().context().ordinal())
            })
            .collect()
    }

    /// The CUDA stream each local rank queues its work on (`None` for CPU ranks): arrays
    /// handed over through DLPack are made ready on it.
    #[getter]
    fn cuda_streams(&self) -> Vec<Option<usize>> {
        self.local()
            .iter()
            .map(|r| {
                r.device()
                    .cuda_device()
                    .map(|d| d.stream().cu_stream() as usize)
            })
            .collect()
    }

    /// Runs on NumPy arrays, one input and one output per local rank (its boxes' shapes,
    /// C-contiguous, complex64 or float32 by kind): each input is copied to its rank's
    /// device and the result copied into the output. Every rank of the group must call it.
    fn execute(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyAny>>,
        outputs: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let local = self.local();
        if inputs.len() != local.len() || outputs.len() != local.len() {
            return Err(PyValueError::new_err(format!(
                "this process runs {} rank(s): one input and one output each (got {} and {})",
                local.len(),
                inputs.len(),
                outputs.len()
            )));
        }
        let shapes = |f: fn(&RankFft) -> Vec<usize>| local.iter().map(|r| f(r)).collect::<Vec<_>>();
        let (ishapes, oshapes) = (
            shapes(|r| r.input_box().shape()),
            shapes(|r| r.output_box().shape()),
        );
        let kind = self.kind();
        let take =
            |real: bool, objs: &[Bound<'_, PyAny>], shapes: &[Vec<usize>]| -> PyResult<Buffers> {
                let each = local.iter().zip(objs).zip(shapes);
                Ok(match real {
                    true => Buffers::Real(
                        each.map(|((r, o), s)| upload::<f32>(o, r, s, "float32"))
                            .collect::<PyResult<_>>()?,
                    ),
                    false => Buffers::Complex(
                        each.map(|((r, o), s)| upload::<Complex32>(o, r, s, "complex64"))
                            .collect::<PyResult<_>>()?,
                    ),
                })
            };
        let mut ins = take(kind == Kind::RealIn, &inputs, &ishapes)?;
        // The outputs are checked now, before any rank runs; their values are not read.
        let mut outs = take(kind == Kind::RealOut, &outputs, &oshapes)?;
        py.detach(|| self.run(&mut ins, &mut outs)).py_err()?;
        match outs {
            Buffers::Complex(b) => {
                for (((o, b), r), s) in outputs.iter().zip(&b).zip(&local).zip(&oshapes) {
                    download::<Complex32>(o, b, r.rank(), s, "complex64")?;
                }
            }
            Buffers::Real(b) => {
                for (((o, b), r), s) in outputs.iter().zip(&b).zip(&local).zip(&oshapes) {
                    download::<f32>(o, b, r.rank(), s, "float32")?;
                }
            }
        }
        Ok(())
    }

    /// Runs on CUDA arrays where they lie: one DLPack capsule per local rank for its input
    /// (used as scratch: overwritten) and its output (its boxes' shapes, C-contiguous,
    /// complex64 or float32 by kind), on that rank's GPU (made ready on `cuda_streams`);
    /// `streams[i]`, where given, is ordered after the transform, else the GPUs are waited
    /// for. Every rank of the group must call it.
    fn execute_dlpack(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyAny>>,
        outputs: Vec<Bound<'_, PyAny>>,
        streams: Vec<Option<usize>>,
    ) -> PyResult<()> {
        let local = self.local();
        let n = local.len();
        if inputs.len() != n || outputs.len() != n || streams.len() != n {
            return Err(PyValueError::new_err(format!(
                "this process runs {n} rank(s): one input, output and stream each (got {}, \
                 {} and {})",
                inputs.len(),
                outputs.len(),
                streams.len()
            )));
        }
        use dlpack::Element::{Complex, Real};
        let kind = self.kind();
        let (ie, oe) = match kind {
            Kind::RealIn => (Real, Complex),
            Kind::RealOut => (Complex, Real),
            Kind::Complex => (Complex, Complex),
        };
        let mut arrays = Vec::with_capacity(n);
        for ((r, i), o) in local.iter().zip(&inputs).zip(&outputs) {
            let Some(gpu) = r.device().cuda_device() else {
                return Err(PyTypeError::new_err(format!(
                    "rank {} runs on '{}': CUDA arrays need ranks on CUDA GPUs (give NumPy \
                     arrays to CPU ranks)",
                    r.rank(),
                    r.device().name()
                )));
            };
            let ordinal = gpu.stream().context().ordinal();
            let mut pair = [
                (i, "input", ie, r.input_box().shape()),
                (o, "output", oe, r.output_box().shape()),
            ]
            .into_iter()
            .map(|(obj, what, element, shape)| {
                let what = format!("rank {}'s {what}", r.rank());
                let a = dlpack::cuda_array(obj, &what, (element, false), &shape)?;
                if a.ordinal != ordinal {
                    return Err(PyValueError::new_err(format!(
                        "{what} is on CUDA device {}, but rank {} runs on CUDA device \
                             {ordinal}",
                        a.ordinal,
                        r.rank()
                    )));
                }
                let floats = a.len * if element == Complex { 2 } else { 1 };
                Ok(Array {
                    gpu: gpu.clone(),
                    device: r.device().clone(),
                    pointer: a.pointer,
                    floats,
                })
            });
            let (Some(input), Some(output)) = (pair.next().transpose()?, pair.next().transpose()?)
            else {
                return Err(PyValueError::new_err("a rank's arrays could not be read"));
            };
            arrays.push((input, output));
        }
        py.detach(|| -> tierfft::Result<()> {
            // SAFETY: the pointers and lengths come from DLPack tensors the caller keeps
            // alive for this call; `LentParts` gives every one back unfreed.
            let mut lent = unsafe { LentParts::new(&arrays, kind)? };
            let (ins, outs) = (&mut lent.ins, &mut lent.outs);
            self.run(ins, outs)?;
            for (r, theirs) in local.iter().zip(&streams) {
                if let (Some(gpu), Some(theirs)) = (r.device().cuda_device(), theirs) {
                    hand_over(gpu.stream(), *theirs)?;
                }
            }
            Ok(())
        })
        .py_err()
    }

    /// Each local rank's part of the global arrays and its steps.
    fn __str__(&self) -> String {
        self.local().iter().map(|r| r.to_string()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "tierfft.DistTransform({:?} over {} ranks, {} local, {})",
            self.spec.shape,
            self.world,
            self.local().len(),
            self.link()
        )
    }
}
