//! FFTs of an `ndarray` array along one axis and then another, on the best device present
//! (CUDA, a hardware GPU, else the CPU; `TIERFFT_DEVICE` names another, e.g. `lavapipe`).
//!
//! ```text
//! cargo run --release -p tierfft --features ndarray --example ndarray_axes
//! ```
//!
//! Each row of a 64 × 256 array holds a tone at its own frequency; the FFT along the rows
//! (axis 1) puts each row's energy in that bin. The same array seen transposed (axis 0 of
//! the view, no copy by the caller) gives the same answer.

use ndarray::{Array2, Axis};
use num_complex::Complex32;
use tierfft::{Device, NdSpec};

fn main() -> tierfft::Result<()> {
    let (rows, n) = (64, 256);
    let tone = |r: usize, k: usize| {
        let phase = 2.0 * std::f32::consts::PI * (3 * r + 1) as f32 * k as f32 / n as f32;
        Complex32::new(phase.cos(), phase.sin())
    };
    let mut a = Array2::from_shape_fn((rows, n), |(r, k)| tone(r, k));
    let device = Device::auto()?;
    println!("device: {}", device.name());

    // Along the rows, in place in the array's own (row-major) memory.
    let fft = device.plan_nd(&NdSpec::new(&[rows, n]).axes(&[1]))?;
    fft.process_array(&mut a.view_mut())?;
    for (r, row) in a.axis_iter(Axis(0)).enumerate() {
        assert_eq!(peak(row.iter()), (3 * r + 1) % n, "row {r}");
    }

    // The same tones laid out down the columns, transformed through a transposed view.
    let mut t = Array2::from_shape_fn((n, rows), |(k, r)| tone(r, k));
    let mut view = t.view_mut().reversed_axes();
    fft.process_array(&mut view)?;
    for (r, row) in view.axis_iter(Axis(0)).enumerate() {
        assert_eq!(peak(row.iter()), (3 * r + 1) % n, "column {r}");
    }
    println!("{rows} tones found in their bins along axis 1 and through a transposed view");
    Ok(())
}

/// The bin with the most energy.
fn peak<'a>(bins: impl Iterator<Item = &'a Complex32>) -> usize {
    bins.enumerate()
        .max_by(|a, b| a.1.norm_sqr().total_cmp(&b.1.norm_sqr()))
        .map_or(0, |(i, _)| i)
}
