//! Helpers the filters are computed with: rows in parallel, and f64 values stored as f32.

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;

/// Runs `row(index, row)` over the rows of `data` (`samples` long), in parallel on rayon's
/// pool.
pub(crate) fn par_rows(
    data: &mut [Complex32],
    samples: usize,
    row: impl Fn(usize, &mut [Complex32]) + Sync,
) {
    data.par_chunks_mut(samples)
        .enumerate()
        .for_each(|(i, r)| row(i, r));
}

/// `z` in single precision, as the filters are stored.
pub(crate) fn to32(z: Complex64) -> Complex32 {
    Complex32::new(z.re as f32, z.im as f32)
}
