//! Column transforms (point `k` of transform `b` at element `k·batch + b`) and per-element
//! multiplies against f64 on random data, on the GPU (lavapipe unless TIERFFT_TEST_DEVICE says
//! otherwise) and the CPU: one-pass and multi-pass columns, batches that do and do not fill
//! a workgroup, fused operations, chained transforms.

use std::sync::Arc;

use num_complex::Complex32;
use tierfft::debug::reference::{relative_l2_error, spec_f64};
use tierfft::{Device, Direction, Error, FftSpec, Layout, PointOp};

use crate::common::*;

fn check(dev: &Device, spec: &FftSpec, input: &[Complex32]) {
    let what = format!(
        "{}: n = {} batch {} {:?} {:?}",
        dev.name(),
        spec.n,
        spec.batch,
        spec.layout,
        spec.direction
    );
    let fft = dev.plan(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = spec_f64(spec, input);
    let mut out = poisoned(input.len());
    fft.process_out_of_place(input, &mut out)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let err = relative_l2_error(&out, &want);
    assert!(err <= BOUND, "{what}: error {err:e}");
    let mut data = input.to_vec();
    fft.process(&mut data).expect("in place");
    let err = relative_l2_error(&data, &want);
    assert!(err <= BOUND, "{what} in place: error {err:e}");
}

#[test]
fn columns_match_f64() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        // One pass on lavapipe up to 2048 points (4 columns of 8 bytes per transaction in
        // 32 KiB, split exchange at 2048); 2^12 and up take two passes.
        for (k, batches) in [
            (0, &[1, 5][..]),
            (1, &[3, 64]),
            (3, &[1, 4, 37]),
            (6, &[2, 100]),
            (8, &[16, 33]),
            (10, &[4, 7]),
            (11, &[8, 3]),
            (12, &[32, 5]),
            (14, &[4]),
            (17, &[2]),
        ] {
            for &batch in batches {
                let n = 1usize << k;
                for dir in [Direction::Forward, Direction::Inverse] {
                    let spec = FftSpec::new(n).batch(batch).direction(dir).columns();
                    let spec = if dir == Direction::Inverse {
                        spec.normalized()
                    } else {
                        spec
                    };
                    check(&dev, &spec, &random(&mut rng, spec.len()));
                }
            }
        }
    }
}

#[test]
fn columns_equal_transposed_rows() {
    // The same data transformed as columns, and transposed then transformed as rows.
    let mut rng = rng();
    let (n, batch) = (4096, 24);
    let input = random(&mut rng, n * batch);
    let mut columns = input.clone();
    gpu()
        .plan(&FftSpec::new(n).batch(batch).columns())
        .expect("plan")
        .process(&mut columns)
        .expect("run");
    let mut rows: Vec<Complex32> = (0..batch)
        .flat_map(|b| (0..n).map(move |k| (b, k)))
        .map(|(b, k)| input[k * batch + b])
        .collect();
    gpu()
        .plan(&FftSpec::new(n).batch(batch))
        .expect("plan")
        .process(&mut rows)
        .expect("run");
    let max_diff = (0..n * batch)
        .map(|e| (columns[e] - rows[(e % batch) * n + e / batch]).norm())
        .fold(0.0f32, f32::max);
    assert!(max_diff < 1e-3, "{max_diff}");
}

fn each(rng: &mut rand::rngs::StdRng, len: usize) -> Arc<[Complex32]> {
    random(rng, len).into()
}

fn layout_matrices(layout: Layout) -> usize {
    match layout {
        Layout::Rows => 1,
        Layout::Columns { matrices } => matrices,
        other => panic!("no check written for {other:?}"),
    }
}

/// A middle axis of an N-D array: the columns of several matrices one after another, one-
/// and multi-pass, smooth and Bluestein lengths (whose intermediate matrices are longer).
#[test]
fn stacked_columns_match_f64() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for (n, matrices, width) in [
            (1, 3, 5),
            (6, 4, 3),
            (64, 2, 33),
            (1000, 3, 8),
            (4096, 2, 5),
            (17, 3, 7),
            (257, 2, 9),
            // Bluestein above one pass on lavapipe: the j index and per-matrix row lengths.
            (4099, 3, 2),
        ] {
            for dir in [Direction::Forward, Direction::Inverse] {
                let spec = FftSpec::new(n)
                    .batch(matrices * width)
                    .direction(dir)
                    .stacked_columns(matrices);
                check(&dev, &spec, &random(&mut rng, spec.len()));
            }
        }
    }
    let bad = FftSpec::new(8).batch(10).stacked_columns(3).validate();
    assert!(
        matches!(&bad, Err(Error::InvalidSpec(m)) if m.contains("3 stacked matrices")),
        "{bad:?}"
    );
}

#[test]
fn per_element_multiplies_in_both_layouts() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for (n, batch) in [(8usize, 5usize), (256, 12), (2048, 4), (1 << 13, 3)] {
            for layout in [
                Layout::Rows,
                Layout::Columns { matrices: 1 },
                Layout::Columns { matrices: 3 },
            ] {
                if !batch.is_multiple_of(layout_matrices(layout)) {
                    continue;
                }
                let mut spec = FftSpec::new(n)
                    .batch(batch)
                    .on_load(PointOp::MultiplyEach(each(&mut rng, n * batch)))
                    .on_load(PointOp::Multiply(each(&mut rng, n)))
                    .on_store(PointOp::MultiplyEach(each(&mut rng, n * batch)))
                    .inverse()
                    .normalized();
                spec.layout = layout;
                check(&dev, &spec, &random(&mut rng, spec.len()));
            }
        }
    }
}

#[test]
fn chained_columns() {
    // Fast convolution down the columns in one kernel, with a per-element window first.
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for (n, batch) in [(64, 9), (512, 8)] {
            let spec = FftSpec::new(n)
                .batch(batch)
                .columns()
                .on_load(PointOp::MultiplyEach(each(&mut rng, n * batch)))
                .then_multiply_and_invert(each(&mut rng, n))
                .normalized();
            check(&dev, &spec, &random(&mut rng, spec.len()));
        }
    }
}

#[test]
fn per_element_vectors_must_match_the_data() {
    let v = Arc::from(vec![Complex32::new(1.0, 0.0); 64]);
    let spec = FftSpec::new(64).batch(2).on_load(PointOp::MultiplyEach(v));
    match Device::cpu().plan(&spec) {
        Err(
            e @ Error::OperandLength {
                got: 64,
                expected: 128,
                ..
            },
        ) => assert!(
            e.to_string().contains("on_load PointOp::MultiplyEach")
                && e.to_string().contains("n × batch = 64 × 2"),
            "{e}"
        ),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a 64-element array for 128 elements was accepted"),
    }
}
