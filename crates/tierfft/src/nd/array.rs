//! `ndarray` arrays in and out of N-D transforms (feature `ndarray`): any layout, any axes.
//!
//! An array in standard (row-major, contiguous) layout is transformed where it lies; any
//! other view (transposed, sliced with steps, Fortran order) is copied into row-major order
//! first and the result copied back, since the memory between a view's elements may belong
//! to another view.

use ndarray::{ArrayView, ArrayViewMut, Dimension};
use num_complex::Complex32;

use super::NdFft;
use crate::error::{Error, Result};

impl NdFft {
    /// A complex transform of `array` in place; its shape must be the spec's.
    pub fn process_array<D: Dimension>(
        &self,
        array: &mut ArrayViewMut<'_, Complex32, D>,
    ) -> Result<()> {
        self.check_array("array", array.shape(), &self.spec().input_shape())?;
        if let Some(data) = array.as_slice_mut() {
            return self.process(data);
        }
        let mut data: Vec<Complex32> = array.iter().copied().collect();
        self.process(&mut data)?;
        array.iter_mut().zip(data).for_each(|(x, y)| *x = y);
        Ok(())
    }

    /// R2C from `input` (the spec's shape) into `output` (its output shape: the real axis
    /// `n / 2 + 1` long).
    pub fn process_array_real_to_complex<D: Dimension>(
        &self,
        input: &ArrayView<'_, f32, D>,
        output: &mut ArrayViewMut<'_, Complex32, D>,
    ) -> Result<()> {
        self.check_array("input", input.shape(), &self.spec().input_shape())?;
        self.check_array("output", output.shape(), &self.spec().output_shape())?;
        let x = row_major(input);
        into(output, |out| self.process_real_to_complex(&x, out))
    }

    /// C2R from `input` (the spec's input shape: the real axis `n / 2 + 1` long) into
    /// `output` (the real array's shape).
    pub fn process_array_complex_to_real<D: Dimension>(
        &self,
        input: &ArrayView<'_, Complex32, D>,
        output: &mut ArrayViewMut<'_, f32, D>,
    ) -> Result<()> {
        self.check_array("input", input.shape(), &self.spec().input_shape())?;
        self.check_array("output", output.shape(), &self.spec().output_shape())?;
        let x = row_major(input);
        into(output, |out| self.process_complex_to_real(&x, out))
    }

    /// An array's shape against the spec's; a spec with strides describes a buffer's
    /// layout, which an array brings itself.
    fn check_array(&self, what: &str, got: &[usize], want: &[usize]) -> Result<()> {
        let spec = self.spec();
        if spec.input_strides.is_some() || spec.output_strides.is_some() {
            return Err(Error::InvalidSpec(
                "an ndarray array brings its own layout: plan the transform without strides".into(),
            ));
        }
        if got != want {
            return Err(Error::InvalidSpec(format!(
                "the {what} array has shape {got:?}; the transform needs {want:?}"
            )));
        }
        Ok(())
    }
}

/// Runs `fill` on `output`'s memory where it is row-major, else on a row-major copy that
/// is then written back.
fn into<T: Copy + Default, D: Dimension>(
    output: &mut ArrayViewMut<'_, T, D>,
    fill: impl FnOnce(&mut [T]) -> Result<()>,
) -> Result<()> {
    if let Some(out) = output.as_slice_mut() {
        return fill(out);
    }
    let mut out = vec![T::default(); output.len()];
    fill(&mut out)?;
    output.iter_mut().zip(out).for_each(|(o, y)| *o = y);
    Ok(())
}

/// `array`'s elements in row-major order: borrowed where they already are, else copied.
fn row_major<'a, T: Copy, D: Dimension>(
    array: &'a ArrayView<'_, T, D>,
) -> std::borrow::Cow<'a, [T]> {
    match array.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(array.iter().copied().collect()),
    }
}
