//! Checks on a user's echoes before any work, the same for `tierfft sar --raw` and Python's
//! `tierfft.sar.focus`: every sample finite (or zeroed where the caller asks), and the layout
//! `[azimuth lines][range samples]`, not transposed.
//!
//! A NaN or an infinity anywhere spreads through both FFTs into every pixel of the image, so
//! two bad samples in millions give an all-NaN image; they are refused (or zeroed) up front.

use num_complex::Complex32;
use rayon::prelude::*;
use serde::Serialize;

use crate::error::SarError;
use crate::scene::params::Config;

/// What to do with NaN or infinite samples in the echoes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NonFinite {
    /// Refuse the echoes, naming how many samples are bad and where the first is.
    #[default]
    Refuse,
    /// Set them to zero (a gap in the data) and report it.
    Zero,
}

/// Samples [`check_finite`] set to zero: how many, and the first as `[line, sample]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Zeroed {
    /// Samples with a NaN or infinite part.
    pub count: usize,
    /// The first of them, `[azimuth line, range sample]`.
    pub first: [usize; 2],
}

/// Checks that every sample of `data` (`samples` range samples a line) is finite. With
/// [`NonFinite::Zero`] the bad ones are set to zero and reported; with
/// [`NonFinite::Refuse`] they are an error naming their count and the first one's place.
/// `None`: all finite.
pub fn check_finite(
    data: &mut [Complex32],
    samples: usize,
    policy: NonFinite,
) -> Result<Option<Zeroed>, SarError> {
    let bad = |z: &Complex32| !(z.re.is_finite() && z.im.is_finite());
    // Scenes of gigabytes: scanned on every core, a block of values per task.
    const BLOCK: usize = 1 << 16;
    let Some(first) = data
        .par_chunks(BLOCK)
        .enumerate()
        .find_map_first(|(i, block)| block.iter().position(bad).map(|at| i * BLOCK + at))
    else {
        return Ok(None);
    };
    let count = data[first..].par_iter().filter(|z| bad(z)).count();
    let samples = samples.max(1);
    let at = [first / samples, first % samples];
    match policy {
        NonFinite::Refuse => Err(SarError::Echoes(format!(
            "{count} of the {} echo samples are NaN or infinite (the first at line {}, sample \
             {}); they would spread through the FFTs into every pixel of the image: repair \
             them, or set them to zero with --zero-nonfinite (Python: zero_nonfinite=True)",
            data.len(),
            at[0],
            at[1]
        ))),
        NonFinite::Zero => {
            for z in data[first..].iter_mut().filter(|z| bad(z)) {
                *z = Complex32::new(0.0, 0.0);
            }
            Ok(Some(Zeroed { count, first: at }))
        }
    }
}

/// Refuses echoes that look transposed ([`crate::scene::layout::transposed`]) unless `trust` says
/// their layout is intended.
pub fn check_layout(config: &Config, data: &[Complex32], trust: bool) -> Result<(), SarError> {
    match crate::scene::layout::transposed(config, data) {
        Some(why) if !trust => Err(SarError::Echoes(format!(
            "{why}; if this layout is intended, pass --trust-layout (Python: \
             trust_layout=True)"
        ))),
        _ => Ok(()),
    }
}

/// Why echoes of the real dtype `kind` (numpy's name) are refused: a SAR receiver's output is
/// complex baseband (I and Q), and reading reals as complex values with zero imaginary parts
/// would focus a mirrored, doubled spectrum without a word.
pub fn not_complex(kind: &str) -> String {
    format!(
        "the echoes are {kind}, but focusing needs complex baseband samples (I and Q: \
         complex64 or complex128): a real array is not a SAR echo; convert real IF samples to \
         complex baseband first (e.g. scipy.signal.hilbert, then mix down)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_samples_are_counted_refused_or_zeroed() {
        let mut data = vec![Complex32::new(1.0, 0.0); 64 * 32];
        assert_eq!(
            check_finite(&mut data, 32, NonFinite::Refuse).ok(),
            Some(None)
        );
        data[3 * 32 + 5].im = f32::NAN;
        data[40 * 32 + 1].re = f32::INFINITY;
        let e = check_finite(&mut data.clone(), 32, NonFinite::Refuse)
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains("2 of the 2048") && e.contains("line 3, sample 5"),
            "{e}"
        );
        assert!(e.contains("--zero-nonfinite"), "{e}");
        let zeroed = check_finite(&mut data, 32, NonFinite::Zero).expect("zeroed");
        assert_eq!(
            zeroed,
            Some(Zeroed {
                count: 2,
                first: [3, 5]
            })
        );
        assert!(data.iter().all(|z| z.re.is_finite() && z.im.is_finite()));
        assert_eq!(data[3 * 32 + 5], Complex32::new(0.0, 0.0));
        assert_eq!(data[3 * 32 + 6], Complex32::new(1.0, 0.0));
    }
}
