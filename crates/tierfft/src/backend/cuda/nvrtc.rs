//! NVRTC: CUDA C → CUBIN for one GPU architecture, cached in memory and on disk.
//!
//! Works without a GPU (CI compiles every kernel this way); needs only libnvrtc, which cudarc
//! loads at run time. The disk cache is keyed by source, architecture and NVRTC version, and
//! a hit is trusted only when the stored source matches, so a second run of the same plan
//! starts without compiling.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::nvrtc::{result, sys};

use crate::error::{Error, Result};

/// Environment variable that overrides the disk cache's folder (`off` disables it).
pub const CACHE_ENV: &str = "TIERFFT_CACHE_DIR";

/// A compiled kernel image.
pub type Cubin = Arc<Vec<u8>>;

/// True when libnvrtc can be loaded (cudarc would panic otherwise).
pub fn available() -> bool {
    // SAFETY: only tries to dlopen the library under cudarc's candidate names.
    unsafe { sys::is_culib_present() }
}

fn require() -> Result<()> {
    if available() {
        Ok(())
    } else {
        Err(Error::NoDevice(
            "libnvrtc (NVIDIA's run-time CUDA compiler) was not found; install the CUDA toolkit \
             or `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH"
                .into(),
        ))
    }
}

/// NVRTC's (major, minor) version.
pub fn version() -> Result<(i32, i32)> {
    require()?;
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Error::gpu(format!("nvrtcVersion: {e:?}")))?;
    Ok((major, minor))
}

/// Compiles `source` for `arch` (e.g. `sm_90`), from the caches when it was compiled before.
pub fn compile(source: &str, arch: &str) -> Result<Cubin> {
    require()?;
    let version = version()?;
    let key = {
        let mut h = DefaultHasher::new();
        (source, arch, version).hash(&mut h);
        h.finish()
    };
    static MEMORY: OnceLock<Mutex<HashMap<u64, Cubin>>> = OnceLock::new();
    let memory = MEMORY.get_or_init(Default::default);
    if let Some(c) = memory.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(c);
    }
    let disk = cache_dir().map(|d| {
        (
            d.join(format!("{key:016x}-{arch}.cu")),
            d.join(format!("{key:016x}-{arch}.cubin")),
        )
    });
    let cached = disk.as_ref().and_then(|(cu, bin)| {
        let stored = std::fs::read_to_string(cu).ok()?;
        (stored == source)
            .then(|| std::fs::read(bin).ok())
            .flatten()
    });
    let cubin = Arc::new(match cached {
        Some(c) => c,
        None => {
            let c = compile_uncached(source, arch)?;
            if let Some((cu, bin)) = &disk {
                // The cache is an optimisation: a read-only home folder must not fail a run.
                let _ = std::fs::create_dir_all(cu.parent().unwrap_or(cu))
                    .and_then(|_| std::fs::write(bin, &c))
                    .and_then(|_| std::fs::write(cu, source));
            }
            c
        }
    });
    if let Ok(mut m) = memory.lock() {
        m.insert(key, cubin.clone());
    }
    Ok(cubin)
}

fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_ENV) {
        Some(d) if d == "off" => None,
        Some(d) => Some(PathBuf::from(d)),
        None => crate::backend::user_cache().map(|d| d.join("cubin")),
    }
}

/// Owns an NVRTC program so it is destroyed on every path.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by create_program and destroyed once, here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

fn compile_uncached(source: &str, arch: &str) -> Result<Vec<u8>> {
    let name = source
        .lines()
        .next()
        .unwrap_or("kernel")
        .trim_start_matches("// ")
        .to_string();
    let fail = |log: String| Error::Compile {
        kernel: name.clone(),
        log,
    };
    let src = CString::new(source).map_err(|_| fail("source contains a NUL byte".into()))?;
    let prog = Program(result::create_program(&src, None).map_err(|e| fail(format!("{e:?}")))?);
    let options = [
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
        "-default-device".to_string(),
    ];
    // SAFETY: `prog` is a live program; options are valid C strings.
    if let Err(e) = unsafe { result::compile_program(prog.0, &options) } {
        // SAFETY: as above.
        let log = unsafe { result::get_program_log(prog.0) }
            .map(|l| {
                unsafe { CStr::from_ptr(l.as_ptr()) }
                    .to_string_lossy()
                    .into_owned()
            })
            .unwrap_or_default();
        return Err(fail(format!("{e:?} with options {options:?}:\n{log}")));
    }
    let mut size = 0usize;
    // SAFETY: `prog` compiled; `size` is an out-parameter, then a buffer of that size.
    unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBINSize: {e:?}")))?;
    let mut cubin = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBIN: {e:?}")))?;
    Ok(cubin)
}
