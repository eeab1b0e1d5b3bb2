//! `tierfft._core.Transform`: an N-D or real transform planned once for a device and run on
//! NumPy arrays (through host memory) or on CUDA arrays in place (DLPack), with the GIL
//! released while it runs.

use std::sync::Mutex;

use cudarc::driver::CudaSlice;
use num_complex::{Complex32, Complex64};
use numpy::{Element as NpElement, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tierfft::nd::Kind;
use tierfft::nd::NdTransform;
use tierfft::{
    Device, DeviceBuffer, DeviceKind, Element, NdFft, NdFft64, NdSpec, PointOp, Precision,
    RealToReal, Trig,
};

mod cuda;

pub(crate) use cuda::hand_over;

use crate::device::PyDevice;
use crate::dlpack;
use crate::errors::IntoPy;
use crate::workers::on_workers;

/// The planned transform, its scale included (applied in its precision, so that
/// `norm="ortho"` keeps f64's accuracy in f64).
enum Engine {
    /// complex64/float32 data on any device, or complex128/float64 data on a GPU with f64
    /// arithmetic (planned in f64).
    Nd(Box<NdFft>),
    /// complex128/float64 data on the CPU: `NdFft64`, faster there than `NdFft`'s CPU steps
    /// in f64.
    Cpu64(Box<NdFft64>),
}

/// An N-D or real transform over chosen axes of C-contiguous arrays of one shape, planned
/// and compiled once (reusable from several threads).
#[pyclass(frozen, name = "Transform", module = "tierfft._core")]
pub struct Transform {
    engine: Engine,
    /// Whether it takes complex128/float64 data (else complex64/float32).
    double: bool,
    device: Device,
    /// The process's fork count when its device was opened ([`crate::fork`]).
    opened: u64,
    kind: Kind,
    input_shape: Vec<usize>,
    output_shape: Vec<usize>,
    /// The device copy of a real transform's input (CUDA arrays), kept between calls, in
    /// 4-byte words.
    scratch: Mutex<Option<CudaSlice<f32>>>,
    /// The device arrays host arrays are copied through, kept between calls.
    arrays: Mutex<HostArrays>,
}

/// The device arrays of [`Transform::execute`] in single precision.
#[derive(Default)]
struct HostArrays {
    complex: Option<DeviceBuffer>,
    real: Option<DeviceBuffer<f32>>,
}

/// `slot`'s array of `len` elements on `device`, made (or remade for another length) if
/// need be.
fn kept<'a, T: Element>(
    slot: &'a mut Option<DeviceBuffer<T>>,
    device: &Device,
    len: usize,
) -> tierfft::Result<&'a mut DeviceBuffer<T>> {
    if slot.as_ref().is_none_or(|b| b.len() != len) {
        *slot = Some(device.zeros_of(len)?);
    }
    slot.as_mut().ok_or_else(|| tierfft::Error::Gpu {
        what: "a device array was not made".into(),
        source: None,
    })
}

/// A NumPy array `obj` of `T`s in `shape`, C-contiguous; a clear error otherwise.
pub(crate) fn array<'py, T: NpElement>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    dtype: &str,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let array = obj.cast::<PyArrayDyn<T>>().map_err(|_| {
        let got = obj
            .getattr("dtype")
            .map_or_else(|_| obj.get_type().to_string(), |d| d.to_string());
        PyTypeError::new_err(format!(
            "the {what} must be a NumPy array of {dtype} (got {got})"
        ))
    })?;
    if array.shape() != shape {
        return Err(PyValueError::new_err(format!(
            "the {what} has shape {:?}, but the transform needs {shape:?}",
            array.shape()
        )));
    }
    if !array.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "the {what} is not C-contiguous; make it so first (numpy.ascontiguousarray)"
        )));
    }
    Ok(array.clone())
}

pub(crate) fn not_writeable(what: &str) -> impl Fn(numpy::BorrowError) -> PyErr + '_ {
    move |e| PyValueError::new_err(format!("the {what} cannot be written: {e}"))
}

impl Transform {
    /// [`Transform::run_host`] on complex128/float64 host arrays through `fft`.
    fn run_host64(
        &self,
        py: Python<'_>,
        fft: &dyn NdTransform<f64>,
        input: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        workers: Option<usize>,
    ) -> PyResult<()> {
        self.run_host::<Complex64, f64>(
            py,
            input,
            output,
            workers,
            ("complex128", "float64"),
            |src, d| {
                if let Some(src) = src {
                    d.copy_from_slice(src);
                }
                fft.c2c(d)
            },
            |i, o| fft.r2c(i, o),
            |i, o| fft.c2r(i, o),
            |i, o| fft.r2r(i, o),
        )
    }

    /// Runs in place (C2C) or from `input` into `output`, on host arrays of `C` (complex)
    /// and `R` (real) elements, through `c2c`, `r2c`, `c2r` and `r2r`, on `workers` threads
    /// ([`on_workers`]).
    #[allow(clippy::too_many_arguments)]
    fn run_host<C, R>(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        workers: Option<usize>,
        names: (&str, &str),
        c2c: impl Fn(Option<&[C]>, &mut [C]) -> tierfft::Result<()> + Send + Sync,
        r2c: impl Fn(&[R], &mut [C]) -> tierfft::Result<()> + Send + Sync,
        c2r: impl Fn(&[C], &mut [R]) -> tierfft::Result<()> + Send + Sync,
        r2r: impl Fn(&[R], &mut [R]) -> tierfft::Result<()> + Send + Sync,
    ) -> PyResult<()>
    where
        C: NpElement + Copy + Send + Sync,
        R: NpElement + Copy + Send + Sync,
    {
        let (complex, real) = names;
        let (ins, outs) = (&self.input_shape[..], &self.output_shape[..]);
        match self.kind {
            Kind::ComplexToComplex if input.is(output) => {
                let data = array::<C>(output, "array", complex, outs)?;
                let mut data = data.try_readwrite().map_err(not_writeable("array"))?;
                let data = data.as_slice_mut()?;
                on_workers(py, workers, || c2c(None, data))?.py_err()
            }
            Kind::ComplexToComplex => {
                let src = array::<C>(input, "input", complex, ins)?;
                let dst = array::<C>(output, "output", complex, outs)?;
                let src = src.readonly();
                let mut dst = dst.try_readwrite().map_err(not_writeable("output"))?;
                let (src, dst) = (src.as_slice()?, dst.as_slice_mut()?);
                on_workers(py, workers, || c2c(Some(src), dst))?.py_err()
            }
            Kind::RealToComplex => {
                let src = array::<R>(input, "input", real, ins)?;
                let dst = array::<C>(output, "output", complex, outs)?;
                let src = src.readonly();
                let mut dst = dst.try_readwrite().map_err(not_writeable("output"))?;
                let (src, dst) = (src.as_slice()?, dst.as_slice_mut()?);
                on_workers(py, workers, || r2c(src, dst))?.py_err()
            }
            Kind::ComplexToReal => {
                let src = array::<C>(input, "input", complex, ins)?;
                let dst = array::<R>(output, "output", real, outs)?;
                let src = src.readonly();
                let mut dst = dst.try_readwrite().map_err(not_writeable("output"))?;
                let (src, dst) = (src.as_slice()?, dst.as_slice_mut()?);
                on_workers(py, workers, || c2r(src, dst))?.py_err()
            }
            Kind::RealToReal => {
                let src = array::<R>(input, "input", real, ins)?;
                let dst = array::<R>(output, "output", real, outs)?;
                let src = src.readonly();
                let mut dst = dst.try_readwrite().map_err(not_writeable("output"))?;
                let (src, dst) = (src.as_slice()?, dst.as_slice_mut()?);
                on_workers(py, workers, || r2r(src, dst))?.py_err()
            }
            _ => Err(PyValueError::new_err("unknown transform kind")),
        }
    }
}

/// Plans `spec` in f32, or in f64 where `double`, with its result multiplied by `scale`:
/// as the normalisation where it is 1/N, else fused into the last transform's stores or,
/// where a real step follows that transform, into the first one's loads.
fn planned(device: &Device, spec: NdSpec, scale: f64, double: bool) -> tierfft::Result<Engine> {
    let checked = spec.checksum != tierfft::Checksum::Off;
    let plan = |spec: &NdSpec| match (double, device.kind()) {
        // NdFft64 runs unchecked: checked f64 goes through plan_nd on the CPU too.
        (true, DeviceKind::Cpu) if !checked => {
            device.plan_nd_f64(spec).map(|f| Engine::Cpu64(Box::new(f)))
        }
        (true, _) => device
            .plan_nd(&spec.clone().precision(Precision::F64))
            .map(|f| Engine::Nd(Box::new(f))),
        (false, _) => device.plan_nd(spec).map(|f| Engine::Nd(Box::new(f))),
    };
    let points: f64 = spec.axes.iter().map(|&a| spec.shape[a] as f64).product();
    if scale == 1.0 {
        return plan(&spec);
    }
    if (scale * points - 1.0).abs() < 1e-12 {
        return plan(&spec.normalized());
    }
    let op = PointOp::Scale(scale);
    match plan(&spec.clone().on_store(op.clone())) {
        Err(tierfft::Error::InvalidSpec(_)) => plan(&spec.on_load(op)),
        other => other,
    }
}

/// The DCT or DST a kind such as `"dct2"` names (`None` for another kind).
fn trig(kind: &str) -> PyResult<Option<Trig>> {
    let (family, number) = match (kind.strip_prefix("dct"), kind.strip_prefix("dst")) {
        (Some(n), _) => (Trig::dct as fn(u32) -> tierfft::Result<Trig>, n),
        (_, Some(n)) => (Trig::dst as fn(u32) -> tierfft::Result<Trig>, n),
        _ => return Ok(None),
    };
    let number = number
        .parse()
        .map_err(|_| PyValueError::new_err(format!("unknown transform kind {kind:?}")))?;
    family(number).py_err().map(Some)
}

#[pymethods]
impl Transform {
    /// Plans the transform of arrays of `shape` over `axes` (in order; NumPy's `fftn` axes)
    /// on `device`. `kind`: `"c2c"`, `"r2c"` (forward, real in), `"c2r"` (inverse, real
    /// out; `shape` is the real array's), or a real-to-real `"dct1"` … `"dct4"`, `"dst1"` …
    /// `"dst4"` (SciPy's types; `orthogonalize` is SciPy's). `inverse` applies to `"c2c"` and
    /// the real-to-real kinds (whose inverse is type II ↔ III, unnormalised). The result is
    /// multiplied by `scale`; `double` plans it for complex128/float64 data (on devices with
    /// f64 arithmetic, `Device.has_f64`). `checksum` (`"detect"` or `"recompute"`)
    /// checks every axis' transform against a checksum of its input (`"c2c"` only), a
    /// failure raising `ChecksumError`.
    /// The GIL is released while it is planned and compiled.
    #[new]
    #[pyo3(signature = (device, shape, axes, kind, inverse=false, scale=1.0, double=false, orthogonalize=false, checksum=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        device: &PyDevice,
        shape: Vec<usize>,
        axes: Vec<usize>,
        kind: &str,
        inverse: bool,
        scale: f64,
        double: bool,
        orthogonalize: bool,
        checksum: Option<&str>,
    ) -> PyResult<Self> {
        if !scale.is_finite() {
            return Err(PyValueError::new_err(format!(
                "scale must be finite (got {scale})"
            )));
        }
        let spec = NdSpec::new(&shape).axes(&axes);
        let spec = match kind {
            "c2c" if inverse => spec.inverse(),
            "c2c" => spec,
            "r2c" => spec.real(),
            "c2r" => spec.real().inverse(),
            other => match trig(other)? {
                Some(t) => {
                    let r2r = RealToReal::new(t).scaled(scale);
                    let r2r = if orthogonalize {
                        r2r.orthogonalized()
                    } else {
                        r2r
                    };
                    let spec = spec.trig(r2r);
                    if inverse { spec.inverse() } else { spec }
                }
                None => {
                    return Err(PyValueError::new_err(format!(
                        "kind must be 'c2c', 'r2c', 'c2r', 'dct1' to 'dct4' or 'dst1' to \
                         'dst4' (got {other:?})"
                    )));
                }
            },
        };
        let spec = spec.checksum(match checksum {
            None => tierfft::Checksum::Off,
            Some("detect") => tierfft::Checksum::Detect,
            Some("recompute") => tierfft::Checksum::Recompute,
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "checksum must be None, 'detect' or 'recompute' (got {other:?})"
                )));
            }
        });
        // A DCT or DST carries its scale in its spec, applied in f64.
        let scale = if spec.trig.is_some() { 1.0 } else { scale };
        spec.validate().py_err()?;
        crate::fork::check(&device.device, device.opened)?;
        let dev = device.device.clone();
        let (input_shape, output_shape) = (spec.input_shape(), spec.output_shape());
        let kind = spec.kind();
        let engine = on_workers(py, None, move || planned(&dev, spec, scale, double))?.py_err()?;
        Ok(Transform {
            engine,
            double,
            device: device.device.clone(),
            opened: device.opened,
            kind,
            input_shape,
            output_shape,
            scratch: Mutex::default(),
            arrays: Mutex::default(),
        })
    }

    /// The input array's shape.
    #[getter]
    fn input_shape(&self) -> Vec<usize> {
        self.input_shape.clone()
    }

    /// The output array's shape.
    #[getter]
    fn output_shape(&self) -> Vec<usize> {
        self.output_shape.clone()
    }

    /// Whether it takes complex128/float64 data (else complex64/float32).
    #[getter]
    fn double(&self) -> bool {
        self.double
    }

    /// Bytes of the device's memory the transform holds now (its tables, the arrays its 1-D
    /// passes keep between calls, and the device copies of host arrays); freed when it is
    /// dropped. Its N-D work arrays on a GPU are the device's (`Device.workspace_bytes`). On
    /// the CPU, the host memory it keeps between calls.
    #[getter]
    fn held_bytes(&self) -> u64 {
        let engine = match &self.engine {
            Engine::Nd(fft) => fft.held_bytes(),
            Engine::Cpu64(fft) => NdTransform::held_bytes(&**fft),
        };
        let arrays = self.arrays.lock().map_or(0, |a| {
            let complex = a.complex.as_ref().map_or(0, |b| 8 * b.len() as u64);
            complex + a.real.as_ref().map_or(0, |b| 4 * b.len() as u64)
        });
        let copy = self
            .scratch
            .lock()
            .map_or(0, |c| c.as_ref().map_or(0, |s| 4 * s.len() as u64));
        engine + arrays + copy
    }

    /// The device's name.
    #[getter]
    fn device(&self) -> String {
        self.device.name()
    }

    /// Runs on NumPy arrays: `input` into `output` (both C-contiguous, of the plan's shapes
    /// and element types; for C2C `output` may be `input` itself, transformed in place).
    /// The input is left unchanged otherwise. The GIL is released while it runs. `workers`:
    /// the CPU threads it may use (SciPy's `workers`; default every core).
    #[pyo3(signature = (input, output, workers=None))]
    fn execute(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        workers: Option<usize>,
    ) -> PyResult<()> {
        crate::fork::check(&self.device, self.opened)?;
        match &self.engine {
            Engine::Nd(fft) if !self.double => {
                // Through device arrays kept between calls: written from the input, read
                // into the output, nothing allocated after the first call.
                let arrays = || {
                    self.arrays.lock().map_err(|_| tierfft::Error::Gpu {
                        what: "a run panicked while holding the device arrays".into(),
                        source: None,
                    })
                };
                let device = &self.device;
                self.run_host::<Complex32, f32>(
                    py,
                    input,
                    output,
                    workers,
                    ("complex64", "float32"),
                    |src, dst| {
                        let mut arrays = arrays()?;
                        let buffer = kept(&mut arrays.complex, device, dst.len())?;
                        buffer.write(src.unwrap_or(dst))?;
                        fft.process_buffer(buffer)?;
                        buffer.read_into(dst)
                    },
                    |i, o| {
                        let mut arrays = arrays()?;
                        let HostArrays { complex, real } = &mut *arrays;
                        let real = kept(real, device, i.len())?;
                        let complex = kept(complex, device, o.len())?;
                        real.write(i)?;
                        fft.process_buffer_real_to_complex(real, complex)?;
                        complex.read_into(o)
                    },
                    |i, o| {
                        let mut arrays = arrays()?;
                        let HostArrays { complex, real } = &mut *arrays;
                        let complex = kept(complex, device, i.len())?;
                        let real = kept(real, device, o.len())?;
                        complex.write(i)?;
                        fft.process_buffer_complex_to_real(complex, real)?;
                        real.read_into(o)
                    },
                    |i, o| {
                        let mut arrays = arrays()?;
                        let real = kept(&mut arrays.real, device, i.len())?;
                        real.write(i)?;
                        fft.process_buffer_real_to_real(real)?;
                        real.read_into(o)
                    },
                )
            }
            Engine::Nd(fft) => self.run_host64(py, &**fft, input, output, workers),
            Engine::Cpu64(fft) => self.run_host64(py, &**fft, input, output, workers),
        }
    }

    /// Runs on CUDA arrays without copying them to the host: `input` and `output` are
    /// DLPack capsules (`x.__dlpack__(stream=device.cuda_stream)`) of C-contiguous arrays
    /// on this plan's CUDA device, of its shapes and element types (complex64/float32, or
    /// complex128/float64 for a plan in double precision). For C2C the output may be the
    /// input's own memory (in place). The input is left unchanged otherwise (real transforms
    /// work on a device copy of it). With `stream` (a raw `CUstream` of the caller's library)
    /// that stream is ordered after the transform and the call returns at once; without it,
    /// the call returns once the device has finished.
    #[pyo3(signature = (input, output, stream=None))]
    fn execute_dlpack(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        output: &Bound<'_, PyAny>,
        stream: Option<usize>,
    ) -> PyResult<()> {
        crate::fork::check(&self.device, self.opened)?;
        let stream_handle = stream;
        let Some(cuda) = self.device.cuda_device() else {
            return Err(PyValueError::new_err(format!(
                "CUDA arrays need a plan on a CUDA device; this one is on '{}'",
                self.device.name()
            )));
        };
        let Engine::Nd(fft) = &self.engine else {
            return Err(PyValueError::new_err(
                "CUDA arrays need a plan on a CUDA device; this one runs on the CPU",
            ));
        };
        use dlpack::Element::{Complex, Real};
        let (ie, oe) = match self.kind {
            Kind::RealToComplex => (Real, Complex),
            Kind::ComplexToReal => (Complex, Real),
            Kind::RealToReal => (Real, Real),
            _ => (Complex, Complex),
        };
        let double = self.double;
        let a = dlpack::cuda_array(input, "input", (ie, double), &self.input_shape)?;
        let b = dlpack::cuda_array(output, "output", (oe, double), &self.output_shape)?;
        let stream = cuda.stream().clone();
        let ordinal = stream.context().ordinal();
        if let Some(other) = [&a, &b].iter().find(|x| x.ordinal != ordinal) {
            return Err(PyValueError::new_err(format!(
                "an array is on CUDA device {}, but the plan is on CUDA device {ordinal}",
                other.ordinal
            )));
        }
        // Both in 4-byte words.
        let input = (a.pointer, a.len * ie.words(double));
        let output = (b.pointer, b.len * oe.words(double));
        if input.0 != output.0
            && input.0 < output.0 + 4 * output.1 as u64
            && output.0 < input.0 + 4 * input.1 as u64
        {
            return Err(PyValueError::new_err(
                "the input and output overlap without being the same array",
            ));
        }
        py.detach(|| -> tierfft::Result<()> {
            match double {
                true => self.run_lent::<f64>(fft, &cuda, input, output),
                false => self.run_lent::<f32>(fft, &cuda, input, output),
            }?;
            match stream_handle {
                Some(theirs) => hand_over(&stream, theirs),
                None => self.device.synchronize(),
            }
        })
        .py_err()
    }

    fn __repr__(&self) -> String {
        format!(
            "tierfft.Transform({} {:?} -> {:?} on {:?})",
            self.kind.abbreviation(),
            self.input_shape,
            self.output_shape,
            self.device.name()
        )
    }
}
