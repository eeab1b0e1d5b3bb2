//! A plan's tables as the backends upload them: 4-byte words of the plan's precision.

use num_complex::Complex64;

use super::Plan;
use crate::base::precision::device_words;

impl Plan {
    /// The plan's device vectors ([`Plan::vectors`]) laid end to end, in the order kernels
    /// index them (one zero when there are none: bindings cannot be empty).
    pub(crate) fn aux_words(&self) -> Vec<f32> {
        let mut values: Vec<Complex64> = self
            .vectors()
            .iter()
            .flat_map(crate::base::values::Values::iter)
            .collect();
        if values.is_empty() {
            values.push(Complex64::new(0.0, 0.0));
        }
        device_words(values, self.spec.precision)
    }

    /// The plan's twiddle table ([`Plan::twiddle_values`]).
    pub(crate) fn twiddle_words(&self) -> Vec<f32> {
        device_words(self.twiddle_values(), self.spec.precision)
    }
}
