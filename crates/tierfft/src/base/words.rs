//! Device memory as 4-byte words, read as the values they hold: f64 data and tables live in
//! buffers allocated as f32 words, aligned for f64 only sometimes.

use std::borrow::Cow;

/// The real types the CPU transforms in: f32 and f64.
pub(crate) trait Real: rustfft::FftNum + bytemuck::Pod + Into<f64> {
    /// `x` rounded to this type.
    fn round(x: f64) -> Self;
}

impl Real for f32 {
    fn round(x: f64) -> f32 {
        x as f32
    }
}

impl Real for f64 {
    fn round(x: f64) -> f64 {
        x
    }
}

/// `words` as values of `T`: borrowed where they are aligned for it, else copied.
pub(crate) fn values<T: Real>(words: &[f32]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice(words) {
        Ok(v) => Cow::Borrowed(v),
        Err(_) => {
            let mut v = vec![T::zero(); 4 * words.len() / size_of::<T>()];
            bytemuck::cast_slice_mut::<T, f32>(&mut v).copy_from_slice(words);
            Cow::Owned(v)
        }
    }
}

/// Runs `f` on `words` as values of `T`, through an aligned copy where they are not aligned
/// for it (f64 values in memory allocated as f32).
pub(crate) fn with_values_mut<T: Real>(words: &mut [f32], f: impl FnOnce(&mut [T])) {
    match bytemuck::try_cast_slice_mut(words) {
        Ok(v) => f(v),
        Err(_) => {
            let mut v = values::<T>(words).into_owned();
            f(&mut v);
            words.copy_from_slice(bytemuck::cast_slice(&v));
        }
    }
}
