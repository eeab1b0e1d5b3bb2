//! Helpers the filters are computed with: scene-sized arrays filled in parallel, and f64
//! values stored as f32.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};
use rayon::prelude::*;

/// A shareable array of `len` zeros, its memory not yet touched: the pages are mapped as the
/// rows are written, by the threads that write them. (Building a `Vec` and converting it
/// would copy a 16384² filter, 2 GiB, into a fresh allocation on one thread.)
pub(crate) fn zeroed(len: usize) -> Arc<[Complex32]> {
    let zeros = Arc::<[Complex32]>::new_zeroed_slice(len);
    // SAFETY: a Complex32 is two f32 and every bit pattern, all zeros included, is a valid
    // f32 (0.0).
    unsafe { zeros.assume_init() }
}

/// A scene-sized array (`lines` rows of `samples`), each row written by `row(index, row)`
/// in parallel on rayon's pool over zeros.
pub(crate) fn scene_array(
    lines: usize,
    samples: usize,
    row: impl Fn(usize, &mut [Complex32]) + Sync,
) -> Arc<[Complex32]> {
    let mut data = zeroed(lines * samples);
    par_rows(unique(&mut data), samples, row);
    data
}

/// The values of an array being built, to be written (never shared yet, so never copied).
pub(crate) fn unique(data: &mut Arc<[Complex32]>) -> &mut [Complex32] {
    Arc::make_mut(data)
}

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
