//! A plan's tables as the backends upload them: 4-byte words of the plan's precision.

use rayon::prelude::*;

use super::Plan;
use crate::base::precision::{Precision, device_words};
use crate::base::values::Values;

impl Plan {
    /// The vectors buffer: the plan's device vectors ([`Plan::vectors`]) where
    /// [`Plan::aux_range`] places them, zeros between.
    pub(crate) fn aux_words(&self) -> Vec<f32> {
        // Words per value: two f32, or an f64's two halves twice.
        let per = match self.spec.precision {
            Precision::F64 => 4,
            _ => 2,
        };
        let mut words = vec![0f32; self.aux_len() * per];
        for (v, at) in self.aux_layout() {
            let out = &mut words[at * per..(at + v.len()) * per];
            match (&v, per) {
                // A filter as large as a scene (gigabytes) is copied as it is, in parallel,
                // rather than widened to f64 and narrowed back value by value.
                (Values::F32(values), 2) => out
                    .par_chunks_mut(1 << 20)
                    .zip(bytemuck::cast_slice::<_, f32>(values).par_chunks(1 << 20))
                    .for_each(|(d, s)| d.copy_from_slice(s)),
                _ => out
                    .chunks_exact_mut(per)
                    .zip(v.iter())
                    .for_each(|(d, z)| d.copy_from_slice(&device_words([z], self.spec.precision))),
            }
        }
        words
    }

    /// The plan's twiddle table ([`Plan::twiddle_values`]).
    pub(crate) fn twiddle_words(&self) -> Vec<f32> {
        device_words(self.twiddle_values(), self.spec.precision)
    }
}
