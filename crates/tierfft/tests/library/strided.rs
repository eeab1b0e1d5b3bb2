//! Strided layouts of N-D transforms (`NdSpec::input_strides` / `output_strides`, as
//! `cufftPlanMany`'s embed, stride and dist or NumPy's strided arrays): pitched rows, batches
//! spaced apart, column-major arrays, broadcast inputs, input and output layouts that differ,
//! in place and apart, on the CPU and the GPU (lavapipe unless TIERFFT_TEST_DEVICE says
//! otherwise), against the f64 reference of the same array laid out row-major. The buffers'
//! other elements hold distinct values that must come back untouched.

use num_complex::Complex32;
use rand::RngExt;
use rand::rngs::StdRng;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};
use tierfft::nd::Kind;
use tierfft::{Device, NdSpec};

use crate::common::*;

/// Row-major strides of `shape`.
fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for a in (0..shape.len().saturating_sub(1)).rev() {
        s[a] = s[a + 1] * shape[a + 1];
    }
    s
}

/// Distinct, finite values that must survive where the output does not write.
fn fill(len: usize) -> Vec<f32> {
    (0..len).map(|i| 1000.0 + i as f32).collect()
}

/// `f32` values seen as complex pairs.
fn pairs(v: &[f32]) -> Vec<Complex32> {
    v.chunks(2).map(|p| Complex32::new(p[0], p[1])).collect()
}

/// Runs `spec` on `dev` through device buffers laid out by its strides, checks the output's
/// elements against f64 and every other element of the buffers against its value before.
fn check(dev: &Device, spec: &NdSpec, rng: &mut StdRng) {
    let what = format!("{}: {spec:?}", dev.name());
    let fft = dev.plan_nd(spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut dense = spec.clone();
    dense.input_strides = None;
    dense.output_strides = None;
    let kind = spec.kind();
    let (in_per, out_per) = match kind {
        Kind::ComplexToComplex => (2, 2),
        Kind::RealToComplex => (1, 2),
        Kind::ComplexToReal => (2, 1),
        other => panic!("no check written for {other:?}"),
    };
    let layout = |shape: Vec<usize>, strides: &Option<Vec<usize>>| {
        let strides = strides.clone().unwrap_or_else(|| row_major(&shape));
        strided_offsets(&shape, &strides)
    };
    let ins = layout(spec.input_shape(), &spec.input_strides);
    let outs = layout(spec.output_shape(), &spec.output_strides);
    let x: Vec<f32> = (0..ins.len() * in_per)
        .map(|_| rng.random_range(-1.0..1.0))
        .collect();
    // The caller's buffers: distinct values, the input placed at its layout's offsets.
    let in_place = kind == Kind::ComplexToComplex;
    let in_len = if in_place {
        spec.input_len().max(spec.output_len())
    } else {
        spec.input_len()
    };
    let mut input = fill(in_len * in_per);
    for (i, &at) in ins.iter().enumerate() {
        input[at * in_per..][..in_per].copy_from_slice(&x[i * in_per..][..in_per]);
    }
    // What the layout holds (a broadcast input repeats one element), read back densely.
    let x: Vec<f32> = ins
        .iter()
        .flat_map(|&at| input[at * in_per..][..in_per].to_vec())
        .collect();
    let want = match kind {
        Kind::RealToComplex => nd_f64(&dense, &NdInput::Real(&x)),
        _ => nd_f64(&dense, &NdInput::Complex(&pairs(&x))),
    };
    let output = fill(spec.output_len() * out_per);
    let (before, got) = match kind {
        Kind::ComplexToComplex => {
            let mut buf = dev.upload(&pairs(&input)).expect("upload");
            fft.process_buffer(&mut buf)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = buf.download().expect("download");
            (
                input.clone(),
                bytemuck::cast_slice::<Complex32, f32>(&got).to_vec(),
            )
        }
        Kind::RealToComplex => {
            let mut inp = dev.upload(&input).expect("upload");
            let mut out = dev.upload(&pairs(&output)).expect("upload");
            fft.process_buffer_real_to_complex(&mut inp, &mut out)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                inp.download().expect("download"),
                input,
                "{what}: input changed"
            );
            let got = out.download().expect("download");
            (
                output.clone(),
                bytemuck::cast_slice::<Complex32, f32>(&got).to_vec(),
            )
        }
        Kind::ComplexToReal => {
            let mut inp = dev.upload(&pairs(&input)).expect("upload");
            let mut out = dev.upload(&output).expect("upload");
            fft.process_buffer_complex_to_real(&mut inp, &mut out)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (output.clone(), out.download().expect("download"))
        }
        other => panic!("no check written for {other:?}"),
    };
    let at_outputs: Vec<Complex32> = outs
        .iter()
        .map(|&at| match out_per {
            1 => Complex32::new(got[at], 0.0),
            _ => Complex32::new(got[2 * at], got[2 * at + 1]),
        })
        .collect();
    let err = relative_l2_error(&at_outputs, &want);
    assert!(err <= 1e-6, "{what}: error {err:e}");
    let mut written = vec![false; got.len() / out_per];
    for &at in &outs {
        written[at] = true;
    }
    for (e, w) in written.iter().enumerate() {
        if !w {
            let (g, b) = (
                &got[e * out_per..][..out_per],
                &before[e * out_per..][..out_per],
            );
            assert_eq!(g, b, "{what}: element {e} outside the output changed");
        }
    }
}

fn cases() -> Vec<NdSpec> {
    vec![
        // cufftPlanMany's batch distance: 7 rows of 12 points, 16 apart in, 20 apart out.
        NdSpec::new(&[7, 12])
            .axes(&[1])
            .input_strides(&[16, 1])
            .output_strides(&[20, 1]),
        // A column-major array in place, transformed over both axes.
        NdSpec::new(&[6, 10])
            .input_strides(&[1, 6])
            .output_strides(&[1, 6]),
        // Row-major in, padded rows out, in one buffer.
        NdSpec::new(&[5, 9]).output_strides(&[11, 1]),
        // A broadcast input (every row the same row).
        NdSpec::new(&[3, 8]).input_strides(&[0, 1]),
        // R2C: pitched rows in, column-major bins out (the layouts differ).
        NdSpec::new(&[5, 16])
            .axes(&[1])
            .real()
            .input_strides(&[20, 1])
            .output_strides(&[1, 5]),
        // R2C of an odd real axis in 3-D, every other element in, row-major out.
        NdSpec::new(&[3, 4, 7]).real().input_strides(&[64, 16, 2]),
        // C2R: spaced bins in, padded real rows out; normalised as NumPy's irfftn.
        NdSpec::new(&[4, 6, 8])
            .real()
            .inverse()
            .normalized()
            .input_strides(&[100, 12, 2])
            .output_strides(&[70, 10, 1]),
        // C2R along a middle axis, only the output strided.
        NdSpec::new(&[3, 10, 4])
            .axes(&[1])
            .real()
            .inverse()
            .output_strides(&[1, 3, 30]),
    ]
}

#[test]
fn strided_layouts_on_the_cpu() {
    let mut rng = rng();
    for spec in cases() {
        check(&Device::cpu(), &spec, &mut rng);
    }
}

#[test]
fn strided_layouts_on_the_gpu() {
    let mut rng = rng();
    for spec in cases() {
        check(gpu(), &spec, &mut rng);
    }
}

/// The host calls keep the output buffer's other elements too, and read only the input's.
#[test]
fn host_calls_keep_what_the_layout_leaves() {
    let spec = NdSpec::new(&[4, 8])
        .axes(&[1])
        .real()
        .input_strides(&[10, 1])
        .output_strides(&[6, 1]);
    let fft = gpu().plan_nd(&spec).expect("plan");
    let input: Vec<f32> = (0..spec.input_len()).map(|i| (i % 7) as f32).collect();
    let mut output = vec![Complex32::new(-7.0, 7.0); spec.output_len()];
    fft.process_real_to_complex(&input, &mut output)
        .expect("runs");
    // Row r's bins at 6r .. 6r + 5; element 6r + 5 is the gap (r < 3).
    for r in 0..3 {
        assert_eq!(
            output[6 * r + 5],
            Complex32::new(-7.0, 7.0),
            "gap of row {r}"
        );
    }
    let dc = |r: usize| (0..8).map(|k| input[10 * r + k]).sum::<f32>();
    for r in 0..4 {
        assert!((output[6 * r].re - dc(r)).abs() < 1e-4, "row {r}");
    }
    // Buffers may reach past their layout's last element (a whole last pitch), not fall short.
    let mut pitched = input.clone();
    pitched.resize(4 * 10, 0.0);
    let mut whole = vec![Complex32::new(-7.0, 7.0); 4 * 6];
    fft.process_real_to_complex(&pitched, &mut whole)
        .expect("longer buffers");
    assert_eq!(whole[..spec.output_len()], output[..]);
    let short = fft.process_real_to_complex(&input[1..], &mut output);
    assert!(short.expect_err("short").to_string().contains("at least"));
}

#[test]
fn bad_layouts_say_what_is_wrong() {
    let msg = |s: NdSpec| s.validate().expect_err("invalid").to_string();
    assert!(msg(NdSpec::new(&[4, 6]).input_strides(&[6])).contains("give 1 axes"));
    let m = msg(NdSpec::new(&[4, 6]).output_strides(&[3, 1]));
    assert!(
        m.contains("may put two elements") && m.contains("axis 0 (stride 3)"),
        "{m}"
    );
    // The complex side of an R2C has 4 bins per row: strides 4 do not overlap, 3 do.
    assert!(
        NdSpec::new(&[2, 6])
            .real()
            .output_strides(&[4, 1])
            .validate()
            .is_ok()
    );
    assert!(
        NdSpec::new(&[2, 6])
            .real()
            .output_strides(&[3, 1])
            .validate()
            .is_err()
    );
    let huge = msg(NdSpec::new(&[4, 6]).input_strides(&[1 << 40, 1]));
    assert!(huge.contains("exceed"), "{huge}");
}
