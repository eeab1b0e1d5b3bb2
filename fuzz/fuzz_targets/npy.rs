//! The `npy` target: `tierfft_fuzz::npy` on libFuzzer's bytes; a broken promise panics.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = tierfft_fuzz::npy(data) {
        panic!("{e}");
    }
});
