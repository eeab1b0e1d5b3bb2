//! `.npy` files: reading float32, float64, complex64 or complex128 arrays as complex64 with
//! checks that say what is wrong, and writing complex64 through a temporary file so that a
//! failed run never leaves a partial output.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use npyz::{DType, Endianness, NpyFile, Order, TypeChar, TypeStr, WriteOptions, WriterBuilder};
use tierfft::Complex32;

use crate::CliResult;

/// The element types read, each converted to complex64 (f32 real and imaginary parts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// Complex (two floats per element) rather than real (one, the imaginary part zero).
    complex: bool,
    /// Bytes of one float: 4 or 8.
    float_bytes: usize,
    big_endian: bool,
}

impl Element {
    /// Bytes of one element in the file.
    fn bytes(self) -> usize {
        self.float_bytes * if self.complex { 2 } else { 1 }
    }

    /// numpy's name, e.g. `complex128`.
    pub fn name(self) -> String {
        let kind = if self.complex { "complex" } else { "float" };
        format!("{kind}{}", self.bytes() * 8)
    }

    /// Whether reading it loses nothing (complex64).
    pub fn is_complex64(self) -> bool {
        self.complex && self.float_bytes == 4
    }

    /// The float at the start of `b` (which holds at least `float_bytes`), as f32: float64
    /// values are rounded.
    fn float(self, b: &[u8]) -> f32 {
        let be = self.big_endian;
        match self.float_bytes {
            4 => {
                let b = [b[0], b[1], b[2], b[3]];
                if be {
                    f32::from_be_bytes(b)
                } else {
                    f32::from_le_bytes(b)
                }
            }
            _ => {
                let b = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
                (if be {
                    f64::from_be_bytes(b)
                } else {
                    f64::from_le_bytes(b)
                }) as f32
            }
        }
    }

    /// One element from its bytes.
    fn read(self, b: &[u8]) -> Complex32 {
        let im = if self.complex {
            self.float(&b[self.float_bytes..])
        } else {
            0.0
        };
        Complex32::new(self.float(b), im)
    }
}

/// The header of a `.npy` file that passed every check but the data's.
pub struct Header {
    /// The shape as written in the file.
    pub shape: Vec<u64>,
    /// Points per transform (the last axis).
    pub n: usize,
    /// Number of transforms (the product of the other axes; 1 for a 1-d array).
    pub batch: usize,
    /// The element type in the file.
    pub element: Element,
}

/// An open complex64 `.npy` file, positioned at its data.
pub struct Input {
    /// What the header says.
    pub header: Header,
    reader: BufReader<File>,
    /// Bytes of data the header promises (the file holds at least that many).
    bytes: u64,
    path: PathBuf,
}

/// The shapes a command takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// `tierfft fft`: any array of one or more axes, the last axis transformed.
    Rows,
    /// `tierfft sar --raw`: `[azimuth lines, range samples]`.
    Scene,
}

/// Opens `path` and checks its header: float32, float64, complex64 or complex128 (`Scene`:
/// complex64 only), C order (or a layout where the order does not matter), the dimensions
/// `expect` asks for, not empty. The data is read by [`Input::read`].
pub fn open(path: &Path, expect: Expect) -> CliResult<Input> {
    let shown = path.display();
    let file = File::open(path).map_err(|e| format!("cannot open input '{shown}': {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("cannot read input '{shown}': {e}"))?
        .len();
    let npy = NpyFile::new(BufReader::new(file)).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => {
            format!("'{shown}' is not a valid .npy file ({e})")
        }
        _ => format!("cannot read input '{shown}': {e}"),
    })?;
    let element = check_dtype(&npy.dtype(), expect).map_err(|e| format!("'{shown}': {e}"))?;
    let shape = npy.shape().to_vec();
    let dims = format!("{shape:?}");
    let (batch, n) = match (expect, &shape[..]) {
        (Expect::Scene, &[batch, n]) => (batch, n),
        (Expect::Rows, [rest @ .., n]) => {
            let batch = rest.iter().try_fold(1u64, |b, &d| b.checked_mul(d));
            (
                batch.ok_or_else(|| format!("'{shown}': shape {dims} overflows"))?,
                *n,
            )
        }
        (Expect::Rows, []) => {
            return Err(format!(
                "'{shown}' holds a single number (a 0-d array); tierfft transforms arrays of \
                 one or more axes, along the last"
            )
            .into());
        }
        (Expect::Scene, _) => {
            return Err(format!(
                "'{shown}' has shape {dims} ({}-d); raw echoes must be one 2-d array \
                 [azimuth lines, range samples]: one row per pulse, range samples along it",
                shape.len()
            )
            .into());
        }
    };
    if n == 0 || batch == 0 {
        return Err(
            format!("'{shown}' holds an empty array (shape {dims}); nothing to transform").into(),
        );
    }
    // Only the axes longer than one decide whether the order matters.
    if npy.order() == Order::Fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(format!(
            "'{shown}' is in Fortran (column-major) order; tierfft needs C order: \
             save np.ascontiguousarray(x) instead"
        )
        .into());
    }
    let too_big = || format!("'{shown}': shape {dims} is too large for this machine");
    let n = usize::try_from(n).map_err(|_| too_big())?;
    let batch = usize::try_from(batch).map_err(|_| too_big())?;
    let mut reader = npy.into_inner();
    let data_start = reader
        .stream_position()
        .map_err(|e| format!("cannot read input '{shown}': {e}"))?;
    // The data's size, checked now: a truncated file is refused before any work.
    let bytes = (n as u64)
        .checked_mul(batch as u64)
        .and_then(|len| len.checked_mul(element.bytes() as u64))
        .filter(|&b| usize::try_from(b).is_ok())
        .ok_or_else(too_big)?;
    let available = file_len.saturating_sub(data_start);
    if available < bytes {
        return Err(format!(
            "'{shown}' is truncated: shape {dims} needs {bytes} bytes of data, the file has \
             {available}"
        )
        .into());
    }
    Ok(Input {
        header: Header {
            shape,
            n,
            batch,
            element,
        },
        reader,
        bytes,
        path: path.to_path_buf(),
    })
}

impl Input {
    /// Reads all `n × batch` elements as complex64, rows one after another (check the lengths
    /// first: this allocates what the header asks for; [`open`] made sure the file holds that
    /// much).
    pub fn read(mut self) -> CliResult<Vec<Complex32>> {
        let element = self.header.element;
        let shown = self.path.display();
        let needed = self.bytes;
        let values = needed as usize / element.bytes();
        let mut data = Vec::new();
        data.try_reserve_exact(values).map_err(|_| {
            format!(
                "'{shown}': not enough memory for its {} of data",
                crate::memory::format_bytes(needed)
            )
        })?;
        // In chunks: no second copy of the whole file as bytes.
        let mut chunk = vec![0u8; (1 << 20) * element.bytes()];
        while data.len() < values {
            let take = (values - data.len()).min(chunk.len() / element.bytes());
            let bytes = &mut chunk[..take * element.bytes()];
            self.reader
                .read_exact(bytes)
                .map_err(|e| format!("cannot read the data of '{shown}': {e}"))?;
            data.extend(bytes.chunks_exact(element.bytes()).map(|c| element.read(c)));
        }
        Ok(data)
    }
}

impl Input {
    /// Reads all elements of a real array as float32 (float64 rounded); complex arrays are
    /// an error, since their imaginary parts would be dropped.
    pub fn read_real(self) -> CliResult<Vec<f32>> {
        if self.header.element.complex {
            return Err(format!(
                "'{}' holds {} values; a real transform (--real) takes float32 or float64 \
                 input: pass np.real(x) if the imaginary parts are zero",
                self.path.display(),
                self.header.element.name()
            )
            .into());
        }
        Ok(self.read()?.into_iter().map(|z| z.re).collect())
    }
}

/// Accepts float32, float64, complex64 and complex128 in either byte order for `Rows`, and
/// complex64 for `Scene`; anything else is an error naming the dtype found.
fn check_dtype(dtype: &DType, expect: Expect) -> Result<Element, String> {
    if let DType::Plain(t) = dtype {
        let complex = t.type_char() == TypeChar::Complex;
        let float_bytes = if complex {
            t.size_field() / 2
        } else {
            t.size_field()
        } as usize;
        let element = Element {
            complex,
            float_bytes,
            big_endian: t.endianness() == Endianness::Big,
        };
        let wanted = match expect {
            Expect::Rows => {
                matches!(t.type_char(), TypeChar::Complex | TypeChar::Float)
                    && matches!(float_bytes, 4 | 8)
            }
            Expect::Scene => element.is_complex64(),
        };
        if wanted {
            return Ok(element);
        }
    }
    let found = match dtype {
        DType::Plain(t) => {
            numpy_name(t).map_or(dtype.descr(), |name| format!("{name} ({})", dtype.descr()))
        }
        DType::Record(_) => format!("a structured dtype {}", dtype.descr()),
        DType::Array(..) => dtype.descr(),
    };
    let needs = match expect {
        Expect::Rows => "float32, float64, complex64 or complex128",
        Expect::Scene => "complex64 ('<c8')",
    };
    Err(format!(
        "dtype is {found}, but tierfft needs {needs}; convert it in numpy with \
         np.save(path, x.astype(np.complex64))"
    ))
}

/// numpy's name for a scalar type string, e.g. `float32` for `<f4`.
fn numpy_name(t: &TypeStr) -> Option<String> {
    let bits = t.size_field() * 8;
    let kind = match t.type_char() {
        TypeChar::Bool => return Some("bool".into()),
        TypeChar::Int => "int",
        TypeChar::Uint => "uint",
        TypeChar::Float => "float",
        TypeChar::Complex => "complex",
        _ => return None,
    };
    Some(format!("{kind}{bits}"))
}

/// The directory a file at `path` goes in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Fails early, before any work, when `path` cannot become an output file: its directory is
/// missing or it is a directory itself. (Writing can still fail later; then nothing is left.)
pub fn check_output(path: &Path) -> CliResult<()> {
    let shown = path.display();
    if path.file_name().is_none() || path.is_dir() {
        return Err(format!("output '{shown}' is a directory, not a file name").into());
    }
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(format!(
            "cannot write output '{shown}': directory '{}' does not exist",
            dir.display()
        )
        .into());
    }
    Ok(())
}

/// Values to write: complex64 or float32.
#[derive(Clone, Copy)]
pub enum Values<'a> {
    /// Written as `<c8`.
    Complex(&'a [Complex32]),
    /// Written as `<f4`.
    Real(&'a [f32]),
}

/// Writes `data` as a little-endian complex64 `.npy` array of `shape` (C order) to `path`:
/// first to a temporary file in the same directory, then renamed over `path`, so that `path`
/// is either untouched or complete.
pub fn write_atomic(path: &Path, shape: &[u64], data: &[Complex32]) -> CliResult<()> {
    write_values(path, shape, Values::Complex(data))
}

/// [`write_atomic`] for complex64 or float32 values.
pub fn write_values(path: &Path, shape: &[u64], data: Values) -> CliResult<()> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("output '{}' does not name a file", path.display()))?;
    let dir = parent_dir(path);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tierfft-{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = write_file(&tmp, shape, data).and_then(|()| std::fs::rename(&tmp, path));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write output '{}': {e}", path.display()).into()
    })
}

/// Writes the whole `.npy` file to `path` and syncs it.
fn write_file(path: &Path, shape: &[u64], data: Values) -> io::Result<()> {
    let descr = match data {
        Values::Complex(_) => "<c8",
        Values::Real(_) => "<f4",
    };
    let dtype = descr
        .parse::<TypeStr>()
        .map(DType::Plain)
        .map_err(io::Error::other)?;
    let file = File::create(path)?;
    let mut w = WriteOptions::new_header_only()
        .dtype(dtype)
        .shape(shape)
        .writer(BufWriter::new(file))
        .write_header_only()?;
    match data {
        Values::Complex(data) => {
            for z in data {
                w.write_all(&z.re.to_le_bytes())?;
                w.write_all(&z.im.to_le_bytes())?;
            }
        }
        Values::Real(data) => {
            for x in data {
                w.write_all(&x.to_le_bytes())?;
            }
        }
    }
    let file = w.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}
