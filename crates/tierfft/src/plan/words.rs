//! A plan's tables as the backends upload them: 4-byte words of the plan's precision.

use num_complex::Complex64;

use super::Plan;
use crate::base::precision::device_words;

impl Plan {
    /// The vectors buffer: the plan's device vectors ([`Plan::vectors`]) where
    /// [`Plan::aux_range`] places them, zeros between.
    pub(crate) fn aux_words(&self) -> Vec<f32> {
        let mut values = vec![Complex64::new(0.0, 0.0); self.aux_len()];
        for (v, at) in self.aux_layout() {
            values[at..at + v.len()]
                .iter_mut()
                .zip(v.iter())
                .for_each(|(d, s)| *d = s);
        }
        device_words(values, self.spec.precision)
    }

    /// The plan's twiddle table ([`Plan::twiddle_values`]).
    pub(crate) fn twiddle_words(&self) -> Vec<f32> {
        device_words(self.twiddle_values(), self.spec.precision)
    }
}
