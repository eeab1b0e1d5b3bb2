//! cuFFT with the chain's multiply in an LTO store callback, as a peer for the fused chain.
//! The peer is CUDA C++ (`scripts/peers/cufft_callback.cu`), built with nvcc on the GPU
//! machine into a shared library and loaded here at run time, so that it runs on tierfft's
//! own buffers and stream, timed by the same events as the other pipelines.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::Path;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};
use libloading::{Library, Symbol};
use tierfft::backend::cuda::CudaDevice;
use tierfft::{Error, Result};

use crate::cuda::gpu;

type Create = unsafe extern "C" fn(
    c_int,
    c_int,
    *const c_void,
    f32,
    c_int,
    *mut c_void,
    *mut *mut c_void,
) -> c_int;
type Run = unsafe extern "C" fn(*mut c_void, *const c_void, *mut c_void) -> c_int;
type Destroy = unsafe extern "C" fn(*mut c_void);
type LastError = unsafe extern "C" fn() -> *const c_char;

/// The loaded peer library and its entry points, resolved once (not on every timed call).
pub struct CallbackPeer {
    create: Create,
    run: Run,
    destroy: Destroy,
    last_error: LastError,
    // Keeps the entry points above valid; dropped last.
    _lib: Library,
}

/// One planned chain of the peer: `batch` transforms of `n` points. It borrows the filter,
/// whose device address the peer's callback keeps.
pub struct PeerChain<'a> {
    peer: &'a CallbackPeer,
    handle: *mut c_void,
    dev: &'a CudaDevice,
    _filter: &'a CudaSlice<f32>,
    len: usize,
}

/// The entry point `name` (NUL-terminated) of the peer library.
fn symbol<'l, T>(lib: &'l Library, name: &[u8]) -> Result<Symbol<'l, T>> {
    // SAFETY: the types above are the C signatures the peer's source declares; the caller
    // keeps `lib` loaded while it uses what it copies out.
    unsafe { lib.get::<T>(name) }.map_err(|e| {
        Error::NoDevice(format!(
            "the callback peer has no {}: {e}",
            String::from_utf8_lossy(&name[..name.len() - 1])
        ))
    })
}

impl CallbackPeer {
    /// Loads the peer library built from `scripts/peers/cufft_callback.cu`.
    pub fn load(path: &Path) -> Result<CallbackPeer> {
        // SAFETY: loading runs the library's initialisers; the peer has none beyond the C++
        // runtime's and those of libcufft / libnvrtc it links.
        let lib = unsafe { Library::new(path) }.map_err(|e| {
            Error::NoDevice(format!(
                "cannot load the cuFFT callback peer {}: {e} (build it with nvcc as \
                 scripts/peers/cufft_callback.cu says)",
                path.display()
            ))
        })?;
        Ok(CallbackPeer {
            create: *symbol::<Create>(&lib, b"tierfft_peer_chain_create\0")?,
            run: *symbol::<Run>(&lib, b"tierfft_peer_chain_run\0")?,
            destroy: *symbol::<Destroy>(&lib, b"tierfft_peer_chain_destroy\0")?,
            last_error: *symbol::<LastError>(&lib, b"tierfft_peer_last_error\0")?,
            _lib: lib,
        })
    }

    fn error(&self, code: c_int) -> Error {
        // SAFETY: the peer returns a NUL-terminated string it owns until its next call.
        let text = unsafe { CStr::from_ptr((self.last_error)()) }.to_string_lossy();
        gpu(format!("cuFFT callback peer: {text} (code {code})"))
    }

    /// Plans the chain FFT → multiply by `filter` (n complex values as f32 pairs, cycled over
    /// the batch) and `scale` → inverse FFT on `dev`'s stream; `inverse_first` runs the
    /// inverse first.
    pub fn chain<'a>(
        &'a self,
        dev: &'a CudaDevice,
        n: usize,
        batch: usize,
        filter: &'a CudaSlice<f32>,
        scale: f32,
        inverse_first: bool,
    ) -> Result<PeerChain<'a>> {
        if filter.len() < 2 * n {
            return Err(Error::InvalidSpec(
                "the callback peer's filter is shorter than n".into(),
            ));
        }
        let too_large = |_| Error::InvalidSpec("the callback peer takes 32-bit sizes".into());
        let (n32, batch32) = (
            c_int::try_from(n).map_err(too_large)?,
            c_int::try_from(batch).map_err(too_large)?,
        );
        let stream = dev.stream();
        let (filter_ptr, _sync) = filter.device_ptr(stream);
        let mut handle = std::ptr::null_mut();
        // SAFETY: `filter` holds n complex values (checked above) and is borrowed for the
        // chain's life, so the address the peer keeps stays valid; the stream is this
        // device's.
        let code = unsafe {
            (self.create)(
                n32,
                batch32,
                filter_ptr as *const c_void,
                scale,
                c_int::from(inverse_first),
                stream.cu_stream() as *mut c_void,
                &mut handle,
            )
        };
        if code != 0 {
            return Err(self.error(code));
        }
        Ok(PeerChain {
            peer: self,
            handle,
            dev,
            _filter: filter,
            len: n * batch,
        })
    }
}

impl PeerChain<'_> {
    /// Enqueues the chain from `input` into `output` (each `n · batch` complex values as f32
    /// pairs, e.g. [`tierfft::DeviceBuffer::cuda_view`]s) on the device's stream.
    pub fn run(&self, input: &CudaView<'_, f32>, output: &mut CudaViewMut<'_, f32>) -> Result<()> {
        if input.len() < 2 * self.len || output.len() < 2 * self.len {
            return Err(Error::InvalidSpec(
                "the callback peer's buffers are shorter than its plan".into(),
            ));
        }
        let stream = self.dev.stream();
        let (src, _s) = input.device_ptr(stream);
        let (dst, _d) = output.device_ptr_mut(stream);
        // SAFETY: both buffers hold the plan's n · batch complex values (checked above).
        let code =
            unsafe { (self.peer.run)(self.handle, src as *const c_void, dst as *mut c_void) };
        if code != 0 {
            return Err(self.peer.error(code));
        }
        Ok(())
    }
}

impl Drop for PeerChain<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle came from the peer's create and is destroyed once.
        unsafe { (self.peer.destroy)(self.handle) }
    }
}

#[cfg(test)]
mod tests {
    /// A missing or foreign library is an error that says how to build the peer.
    #[test]
    fn a_missing_peer_is_an_error() {
        let Err(e) = super::CallbackPeer::load(std::path::Path::new("/nonexistent/libpeer.so"))
        else {
            panic!("loaded a library that does not exist");
        };
        assert!(
            e.to_string().contains("scripts/peers/cufft_callback.cu"),
            "{e}"
        );
    }
}
