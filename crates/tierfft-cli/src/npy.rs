//! `.npy` files: reading float, complex, integer or bool arrays (C or Fortran order) as
//! complex64 or complex128 in C order (or real pairs as complex values) with checks that say
//! what is wrong, and writing complex64, float32, complex128, float64 or float16 through a
//! temporary file so that a failed run never leaves a partial output.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use npyz::{DType, Endianness, NpyFile, Order, TypeChar, TypeStr, WriteOptions, WriterBuilder};
use num_complex::Complex;
use tierfft::{Complex32, Complex64};

use crate::CliResult;

/// The element types read, each converted to complex64 (f32 real and imaginary parts), as
/// NumPy's transforms take them: floats, complex, integers and booleans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// What one scalar is.
    kind: TypeChar,
    /// Bytes of one scalar (of each part for complex).
    scalar_bytes: usize,
    big_endian: bool,
}

impl Element {
    /// Bytes of one element in the file.
    fn bytes(self) -> usize {
        self.scalar_bytes * if self.is_complex() { 2 } else { 1 }
    }

    /// Two parts to an element.
    pub fn is_complex(self) -> bool {
        self.kind == TypeChar::Complex
    }

    /// numpy's name, e.g. `complex128`.
    pub fn name(self) -> String {
        let kind = match self.kind {
            TypeChar::Complex => "complex",
            TypeChar::Float => "float",
            TypeChar::Int => "int",
            TypeChar::Uint => "uint",
            _ => return "bool".into(),
        };
        format!("{kind}{}", self.bytes() * 8)
    }

    /// Whether reading it loses nothing (complex64).
    pub fn is_complex64(self) -> bool {
        self.is_complex() && self.scalar_bytes == 4
    }

    /// Whether it is float64 or complex128: read in full only as f64.
    pub fn is_double(self) -> bool {
        matches!(self.kind, TypeChar::Float | TypeChar::Complex) && self.scalar_bytes == 8
    }

    /// Whether it is float16.
    pub fn is_half(self) -> bool {
        self.kind == TypeChar::Float && self.scalar_bytes == 2
    }

    /// The scalar at the start of `b` (which holds at least `scalar_bytes`) as f64 (integers
    /// beyond 2^53 rounded).
    fn scalar64(self, b: &[u8]) -> f64 {
        let mut raw = [0u8; 8];
        let n = self.scalar_bytes;
        raw[..n].copy_from_slice(&b[..n]);
        if self.big_endian {
            raw[..n].reverse();
        }
        let unsigned = u64::from_le_bytes(raw);
        let shift = 64 - 8 * n as u32;
        match (self.kind, n) {
            (TypeChar::Float, 2) => tierfft::f16::from_bits(unsigned as u16).into(),
            (TypeChar::Float | TypeChar::Complex, 4) => f32::from_bits(unsigned as u32).into(),
            (TypeChar::Float | TypeChar::Complex, _) => f64::from_bits(unsigned),
            (TypeChar::Int, _) => (((unsigned << shift) as i64) >> shift) as f64,
            (TypeChar::Bool, _) => f64::from(u8::from(unsigned != 0)),
            _ => unsigned as f64,
        }
    }

    /// One element from its bytes, as complex128.
    fn read64(self, b: &[u8]) -> Complex64 {
        let im = if self.is_complex() {
            self.scalar64(&b[self.scalar_bytes..])
        } else {
            0.0
        };
        Complex64::new(self.scalar64(b), im)
    }

    /// One element from its bytes, as complex64 (float64 and integers beyond 2^24 rounded).
    fn read(self, b: &[u8]) -> Complex32 {
        let z = self.read64(b);
        Complex32::new(z.re as f32, z.im as f32)
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

/// An open `.npy` array, positioned at its data: a file by default, any seekable reader
/// through [`from_reader`].
pub struct Input<R = BufReader<File>> {
    /// What the header says.
    pub header: Header,
    reader: R,
    /// Bytes of data the header promises (the source holds at least that many).
    bytes: u64,
    /// The data are in Fortran (column-major) order, to be put in C order when read.
    fortran: bool,
    /// The source as messages name it (a path).
    name: String,
    /// Where the data start in the source, bytes.
    data_start: u64,
    /// The source as a file, when it is one ([`open`]): read by several threads at once.
    file: Option<File>,
}

/// Complex64 values read at a time: 64 MiB.
const READ_CHUNK: usize = 1 << 23;

/// Fills `data` with the bytes of `file` from `offset`, `chunk` values per task on rayon's
/// pool (positioned reads, which the page cache serves to several threads at once).
fn read_at(file: &File, offset: u64, data: &mut [Complex32], chunk: usize) -> io::Result<()> {
    use rayon::prelude::*;
    data.par_chunks_mut(chunk)
        .enumerate()
        .try_for_each(|(i, values)| {
            let at = offset + (i * chunk * size_of::<Complex32>()) as u64;
            read_exact_at(file, bytemuck::cast_slice_mut(values), at)
        })
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => (buf, at) = (&mut buf[n..], at + n as u64),
        }
    }
    Ok(())
}

/// The shapes a command takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// `tierfft fft`: any array of one or more axes, the last axis transformed.
    Rows,
    /// `tierfft sar --raw`: `[azimuth lines, range samples]`.
    Scene,
}

/// Opens `path` and checks its header: float32, float64, complex64, complex128, integers or
/// bool (`Scene`: complex64 or complex128), C or Fortran order, the dimensions `expect` asks for, not
/// empty. The data is read by [`Input::read`].
pub fn open(path: &Path, expect: Expect) -> CliResult<Input> {
    let shown = path.display();
    let file = File::open(path).map_err(|e| format!("cannot open input '{shown}': {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("cannot read input '{shown}': {e}"))?
        .len();
    let positioned = file
        .try_clone()
        .map_err(|e| format!("cannot read input '{shown}': {e}"))?;
    let mut input = from_reader(BufReader::new(file), file_len, &shown.to_string(), expect)?;
    input.file = Some(positioned);
    Ok(input)
}

/// [`open`] on `len` bytes from `source`, named `name` in messages (the fuzz target reads
/// arrays from memory through this).
pub fn from_reader<R: Read + Seek>(
    source: R,
    len: u64,
    name: &str,
    expect: Expect,
) -> CliResult<Input<R>> {
    let mut source = source;
    screen_header(&mut source).map_err(|e| format!("'{name}' is not a valid .npy file ({e})"))?;
    let npy = NpyFile::new(source).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => {
            format!("'{name}' is not a valid .npy file ({e})")
        }
        _ => format!("cannot read input '{name}': {e}"),
    })?;
    let element = check_dtype(&npy.dtype(), expect).map_err(|e| format!("'{name}': {e}"))?;
    let shape = npy.shape().to_vec();
    let dims = format!("{shape:?}");
    let (batch, n) = match (expect, &shape[..]) {
        (Expect::Scene, &[batch, n]) => (batch, n),
        (Expect::Rows, [rest @ .., n]) => {
            let batch = rest.iter().try_fold(1u64, |b, &d| b.checked_mul(d));
            (
                batch.ok_or_else(|| format!("'{name}': shape {dims} overflows"))?,
                *n,
            )
        }
        (Expect::Rows, []) => {
            return Err(format!(
                "'{name}' holds a single number (a 0-d array); tierfft transforms arrays of \
                 one or more axes, along the last"
            )
            .into());
        }
        (Expect::Scene, _) => {
            return Err(format!(
                "'{name}' has shape {dims} ({}-d); raw echoes must be one 2-d array \
                 [azimuth lines, range samples]: one row per pulse, range samples along it",
                shape.len()
            )
            .into());
        }
    };
    if n == 0 || batch == 0 {
        return Err(
            format!("'{name}' holds an empty array (shape {dims}); nothing to transform").into(),
        );
    }
    // Only the axes longer than one decide whether the order matters.
    let fortran = npy.order() == Order::Fortran && shape.iter().filter(|&&d| d > 1).count() > 1;
    let too_big = || format!("'{name}': shape {dims} is too large for this machine");
    let n = usize::try_from(n).map_err(|_| too_big())?;
    let batch = usize::try_from(batch).map_err(|_| too_big())?;
    let mut reader = npy.into_inner();
    let data_start = reader
        .stream_position()
        .map_err(|e| format!("cannot read input '{name}': {e}"))?;
    // The data's size, checked now: a truncated file is refused before any work.
    let bytes = (n as u64)
        .checked_mul(batch as u64)
        .and_then(|len| len.checked_mul(element.bytes() as u64))
        .filter(|&b| usize::try_from(b).is_ok())
        .ok_or_else(too_big)?;
    let available = len.saturating_sub(data_start);
    if available < bytes {
        return Err(format!(
            "'{name}' is truncated: shape {dims} needs {bytes} bytes of data, the file has \
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
        fortran,
        name: name.to_string(),
        data_start,
        file: None,
    })
}

/// Longest header read, bytes: NumPy's own default limit (`max_header_size`).
const MAX_HEADER_BYTES: usize = 10_000;
/// Deepest nesting of brackets in a header. Real headers nest three deep (a structured
/// dtype's list of tuples); npyz's parser takes time exponential in the depth (a header of
/// 60 nested braces ran for 20 minutes when fuzzed).
const MAX_HEADER_NESTING: usize = 8;

/// Reads the header's length and text before npyz parses it, refusing headers longer than
/// NumPy writes or nested deeper than any dtype needs, then rewinds to the start.
fn screen_header<R: Read + Seek>(source: &mut R) -> io::Result<()> {
    let bad = |m: String| io::Error::new(io::ErrorKind::InvalidData, m);
    let mut start = [0u8; 12];
    let got = source.read(&mut start)?;
    if got >= 10 && start.starts_with(b"\x93NUMPY") {
        let (len, at) = match start[6] {
            1 => (usize::from(u16::from_le_bytes([start[8], start[9]])), 10),
            _ if got >= 12 => (
                u32::from_le_bytes([start[8], start[9], start[10], start[11]]) as usize,
                12,
            ),
            _ => (0, 12),
        };
        if len > MAX_HEADER_BYTES {
            return Err(bad(format!(
                "a header of {len} bytes; NumPy writes at most {MAX_HEADER_BYTES}"
            )));
        }
        source.seek(io::SeekFrom::Start(at as u64))?;
        let mut header = Vec::new();
        source.by_ref().take(len as u64).read_to_end(&mut header)?;
        let mut depth = 0usize;
        for &b in &header {
            match b {
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth > MAX_HEADER_NESTING {
                return Err(bad(format!(
                    "a header nested more than {MAX_HEADER_NESTING} brackets deep"
                )));
            }
        }
    }
    source.seek(io::SeekFrom::Start(0))?;
    Ok(())
}

impl<R: Read> Input<R> {
    /// Reads all `n × batch` elements as complex64, rows one after another (check the lengths
    /// first: this allocates what the header asks for; [`open`] made sure the file holds that
    /// much).
    pub fn read(mut self) -> CliResult<Vec<Complex32>> {
        let e = self.header.element;
        let as_stored = e.is_complex64() && !e.big_endian && cfg!(target_endian = "little");
        if !as_stored || self.fortran {
            return self.read_with(Element::read);
        }
        // The file's bytes are the array's: read into it, a chunk at a time, several at once
        // from a file (a 2 GiB scene in a fraction of a second, where converting element by
        // element takes ten). The array starts as zero pages the reads fill, not zeroed first.
        let values = self.bytes as usize / e.bytes();
        let mut data = bytemuck::allocation::try_zeroed_vec(values).map_err(|()| {
            format!(
                "'{}': not enough memory for its {} of data",
                self.name,
                crate::memory::format_bytes(self.bytes)
            )
        })?;
        let failed = |e: io::Error| format!("cannot read the data of '{}': {e}", self.name);
        match &self.file {
            Some(file) => read_at(file, self.data_start, &mut data, READ_CHUNK).map_err(failed)?,
            None => {
                for chunk in data.chunks_mut(READ_CHUNK) {
                    self.reader
                        .read_exact(bytemuck::cast_slice_mut(chunk))
                        .map_err(failed)?;
                }
            }
        }
        Ok(data)
    }

    /// [`Input::read`] as complex128: float64 and complex128 files lose nothing.
    pub fn read_f64(self) -> CliResult<Vec<Complex64>> {
        self.read_with(Element::read64)
    }

    /// Every element through `convert`, in C order.
    fn read_with<T: Copy>(mut self, convert: fn(Element, &[u8]) -> T) -> CliResult<Vec<T>> {
        let element = self.header.element;
        let shown = &self.name;
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
            data.extend(
                bytes
                    .chunks_exact(element.bytes())
                    .map(|c| convert(element, c)),
            );
        }
        if self.fortran {
            let shape: Vec<usize> = self.header.shape.iter().map(|&d| d as usize).collect();
            data = fortran_to_c(&data, &shape);
        }
        Ok(data)
    }
}

impl<R: Read> Input<R> {
    /// Reads all elements of a real array as float32 (float64 rounded); complex arrays are
    /// an error, since their imaginary parts would be dropped.
    pub fn read_real(self) -> CliResult<Vec<f32>> {
        self.check_real()?;
        Ok(self.read()?.into_iter().map(|z| z.re).collect())
    }

    /// The array of a real type whose last axis (of length 2) holds each value's real and
    /// imaginary parts, as complex values through `part` (C order; the caller checks the
    /// shape).
    pub fn read_pairs<T: Copy>(self, part: fn(f64) -> T) -> CliResult<Vec<Complex<T>>> {
        let parts = self.read_with(Element::scalar64)?;
        Ok(parts
            .chunks_exact(2)
            .map(|z| Complex::new(part(z[0]), part(z[1])))
            .collect())
    }

    /// [`Input::read_real`] as float64.
    pub fn read_real_f64(self) -> CliResult<Vec<f64>> {
        self.check_real()?;
        self.read_with(Element::scalar64)
    }

    /// A real transform's input must be real: complex values would lose their imaginary
    /// parts.
    fn check_real(&self) -> CliResult<()> {
        if self.header.element.is_complex() {
            return Err(format!(
                "'{}' holds {} values; a real transform (--real) takes real (float, integer \
                 or bool) input: pass np.real(x) if the imaginary parts are zero",
                self.name,
                self.header.element.name()
            )
            .into());
        }
        Ok(())
    }
}

/// `data`, laid out in Fortran (column-major) order for `shape`, in C (row-major) order.
fn fortran_to_c<T: Copy>(data: &[T], shape: &[usize]) -> Vec<T> {
    let rank = shape.len();
    // Column-major strides; the C-order walk steps the last axis fastest.
    let mut strides = vec![1; rank];
    for k in 1..rank {
        strides[k] = strides[k - 1] * shape[k - 1];
    }
    let mut index = vec![0; rank];
    let mut at = 0;
    let mut out = Vec::with_capacity(data.len());
    for _ in 0..data.len() {
        out.push(data[at]);
        for k in (0..rank).rev() {
            index[k] += 1;
            at += strides[k];
            if index[k] < shape[k] {
                break;
            }
            at -= strides[k] * shape[k];
            index[k] = 0;
        }
    }
    out
}

/// Accepts float32, float64, complex64, complex128, integers of 1 to 8 bytes and booleans, in
/// either byte order, for `Rows`, and complex64 or complex128 for `Scene` (real echoes are
/// refused with the reason); anything else is an error naming the dtype found.
fn check_dtype(dtype: &DType, expect: Expect) -> Result<Element, String> {
    if let DType::Plain(t) = dtype {
        let kind = t.type_char();
        let complex = kind == TypeChar::Complex;
        let scalar_bytes = if complex {
            t.size_field() / 2
        } else {
            t.size_field()
        } as usize;
        let element = Element {
            kind,
            scalar_bytes,
            big_endian: t.endianness() == Endianness::Big,
        };
        let wanted = match (expect, kind) {
            (Expect::Scene, TypeChar::Complex) => matches!(scalar_bytes, 4 | 8),
            (Expect::Scene, TypeChar::Float | TypeChar::Int | TypeChar::Uint | TypeChar::Bool) => {
                // Refused with the reason rather than read as complex with zero imaginary parts.
                let kind = numpy_name(t).unwrap_or_else(|| dtype.descr());
                return Err(tierfft_sar::scene::echoes::not_complex(&kind));
            }
            (Expect::Scene, _) => false,
            (_, TypeChar::Complex) => matches!(scalar_bytes, 4 | 8),
            (_, TypeChar::Float) => matches!(scalar_bytes, 2 | 4 | 8),
            (_, TypeChar::Int | TypeChar::Uint) => matches!(scalar_bytes, 1 | 2 | 4 | 8),
            (_, TypeChar::Bool) => scalar_bytes == 1,
            _ => false,
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
        Expect::Rows => "float16, float32, float64, complex64, complex128, an integer type or bool",
        Expect::Scene => "complex64 or complex128",
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
    // NumPy's np.load reads any name, but a .txt or .csv name promises text that .npy bytes
    // are not: ask for the name that says what the file holds.
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if extension.as_deref() != Some("npy") {
        return Err(format!(
            "output '{shown}' does not end in .npy, but tierfft writes a NumPy .npy file \
             (binary, read with np.load): name it '{}'",
            path.with_extension("npy").display()
        )
        .into());
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

/// Values to write: complex64, float32, complex128, float64 or float16.
#[derive(Clone, Copy)]
pub enum Values<'a> {
    /// Written as `<c8`.
    Complex(&'a [Complex32]),
    /// Written as `<f4`.
    Real(&'a [f32]),
    /// Written as `<c16`.
    Complex128(&'a [Complex64]),
    /// Written as `<f8`.
    Real64(&'a [f64]),
    /// Written as `<f2`.
    Half(&'a [tierfft::f16]),
}

impl Values<'_> {
    /// The data's size in the file, bytes.
    fn bytes(&self) -> u64 {
        let bytes = match self {
            Values::Complex(d) => size_of_val(*d),
            Values::Real(d) => size_of_val(*d),
            Values::Complex128(d) => size_of_val(*d),
            Values::Real64(d) => size_of_val(*d),
            Values::Half(d) => size_of_val(*d),
        };
        bytes as u64
    }
}

/// Writes `data` as a little-endian complex64 `.npy` array of `shape` (C order) to `path`:
/// first to a temporary file in the same directory, then renamed over `path`, so that `path`
/// is either untouched or complete.
pub fn write_atomic(path: &Path, shape: &[u64], data: &[Complex32]) -> CliResult<()> {
    write_values(path, shape, Values::Complex(data))
}

/// [`write_atomic`] for any of [`Values`].
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

/// Writes each scalar's little-endian bytes in turn.
fn write_le<const N: usize>(
    w: &mut impl Write,
    scalars: impl Iterator<Item = [u8; N]>,
) -> io::Result<()> {
    scalars
        .into_iter()
        .try_for_each(|bytes| w.write_all(&bytes))
}

/// Reserves `len` bytes of `file` from `offset` on disk before they are written: a full disk is
/// an error at once, not part way through, and (ext4) a file written into reserved blocks is
/// not flushed to disk when it is renamed over an earlier one (1.0 s for a 2 GiB image on the
/// GPU machine, 0.3 s reserved). Where the file system cannot reserve, nothing is.
#[cfg(target_os = "linux")]
fn reserve(file: &File, offset: u64, len: u64) -> io::Result<()> {
    use rustix::fs::{FallocateFlags, fallocate};
    match fallocate(file, FallocateFlags::empty(), offset, len) {
        Err(e) if e == rustix::io::Errno::NOSPC => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve(_: &File, _: u64, _: u64) -> io::Result<()> {
    Ok(())
}

/// Writes the whole `.npy` file to `path`. Not synced: renamed into place whole, it is
/// complete to every reader, and the system writes it to disk in its own time (syncing a
/// 2 GiB image took 1.5 s on the GPU machine).
fn write_file(path: &Path, shape: &[u64], data: Values) -> io::Result<()> {
    let descr = match data {
        Values::Complex(_) => "<c8",
        Values::Real(_) => "<f4",
        Values::Complex128(_) => "<c16",
        Values::Real64(_) => "<f8",
        Values::Half(_) => "<f2",
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
    w.flush()?;
    let header = w.get_mut().stream_position()?;
    reserve(w.get_ref(), header, data.bytes())?;
    match data {
        // The array's bytes are the file's on a little-endian machine.
        Values::Complex(d) if cfg!(target_endian = "little") => {
            w.write_all(bytemuck::cast_slice(d))?
        }
        Values::Complex(d) => write_le(
            &mut w,
            d.iter().flat_map(|z| [z.re, z.im]).map(f32::to_le_bytes),
        )?,
        Values::Real(d) => write_le(&mut w, d.iter().map(|x| x.to_le_bytes()))?,
        Values::Complex128(d) => write_le(
            &mut w,
            d.iter().flat_map(|z| [z.re, z.im]).map(f64::to_le_bytes),
        )?,
        Values::Real64(d) => write_le(&mut w, d.iter().map(|x| x.to_le_bytes()))?,
        Values::Half(d) => write_le(&mut w, d.iter().map(|x| x.to_le_bytes()))?,
    }
    w.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks read at their own offsets land in their own places, the last one short; a file
    /// too short is an error, not zeros.
    #[test]
    fn positioned_reads_fill_every_chunk() -> io::Result<()> {
        let values: Vec<Complex32> = (0..23)
            .map(|i| Complex32::new(i as f32, -i as f32))
            .collect();
        let path = std::env::temp_dir().join(format!("tierfft-read-at-{}.bin", std::process::id()));
        let mut bytes = vec![0xAB; 5];
        bytes.extend_from_slice(bytemuck::cast_slice(&values));
        std::fs::write(&path, &bytes)?;
        let file = File::open(&path)?;
        let mut data = vec![Complex32::new(f32::NAN, 0.0); values.len()];
        read_at(&file, 5, &mut data, 4)?;
        assert_eq!(data, values);
        let mut longer = vec![Complex32::default(); values.len() + 1];
        let short = read_at(&file, 5, &mut longer, 4);
        std::fs::remove_file(&path)?;
        assert_eq!(
            short.map_err(|e| e.kind()),
            Err(io::ErrorKind::UnexpectedEof)
        );
        Ok(())
    }
}
