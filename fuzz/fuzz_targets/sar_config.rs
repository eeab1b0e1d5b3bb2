//! The `sar_config` target: `tierfft_fuzz::sar_config` on libFuzzer's bytes; a broken promise panics.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = tierfft_fuzz::sar_config(data) {
        panic!("{e}");
    }
});
