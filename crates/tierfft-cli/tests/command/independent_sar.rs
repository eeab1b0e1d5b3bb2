//! `tierfft sar --raw` on echoes from a simulator written apart from tierfft-sar's:
//! `scripts/independent-sar.py` simulates five scenes with NumPy (C band at 3001 × 2503 with
//! a start-referenced chirp and an unknown centroid; X band with a down-chirp squinted
//! 230 Hz, not given; L band with a centroid table; a sinc² antenna pattern; a squinted
//! sinc² beam whose skirts alias, nothing given), focuses each
//! with the Range-Doppler and chirp scaling algorithms on the CPU, and measures every target
//! itself: placed within 0.1 bin, IRW within 3 % and PSLR within 0.5 dB of theory.
//! `scripts/test` installs NumPy and sets `TIERFFT_REQUIRE_NUMPY`.

#[test]
fn independently_simulated_scenes_focus_to_theory() {
    crate::common::run_numpy_script("independent-sar.py", &["--device", "cpu"]);
}
