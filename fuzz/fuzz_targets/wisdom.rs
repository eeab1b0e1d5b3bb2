//! The `wisdom` target: `tierfft_fuzz::wisdom` on libFuzzer's bytes; a broken promise panics.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = tierfft_fuzz::wisdom(data) {
        panic!("{e}");
    }
});
