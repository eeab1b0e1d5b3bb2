//! `ndarray` arrays through N-D transforms (feature `ndarray`): standard layout, transposed
//! and stepped views, against the f64 reference on fresh random data, on the CPU and the GPU
//! (lavapipe unless TIERFFT_TEST_DEVICE says otherwise).
#![cfg(feature = "ndarray")]

use ndarray::{Array, ShapeBuilder, s};
use num_complex::Complex32;
use rand::RngExt;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};
use tierfft::{Device, Error, NdSpec};

use crate::common::*;

/// Complex transforms over several axis sets of arrays in three layouts.
#[test]
fn complex_arrays_in_any_layout() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        for axes in [vec![0], vec![1], vec![0, 2], vec![0, 1, 2]] {
            // Standard layout, a transposed view and a view with a step along an axis; each
            // has the shape (6, 10, 7) the plan is made for.
            let base = Array::from_shape_vec((6, 10, 7), random(&mut rng, 420)).unwrap();
            let transposed_base = Array::from_shape_vec((7, 10, 6), random(&mut rng, 420)).unwrap();
            let stepped_base = Array::from_shape_vec((6, 20, 7), random(&mut rng, 840)).unwrap();
            let spec = NdSpec::new(&[6, 10, 7]).axes(&axes);
            let fft = dev.plan_nd(&spec).expect("plan");
            for (layout, mut array) in [
                ("standard", base.clone()),
                ("transposed", transposed_base.clone().reversed_axes()),
                ("stepped", stepped_base.clone()),
            ] {
                let mut view = match layout {
                    "stepped" => array.slice_mut(s![.., ..;2, ..]),
                    _ => array.view_mut(),
                };
                let input: Vec<Complex32> = view.iter().copied().collect();
                let want = nd_f64(&spec, &NdInput::Complex(&input));
                fft.process_array(&mut view).expect("run");
                let got: Vec<Complex32> = view.iter().copied().collect();
                let err = relative_l2_error(&got, &want);
                assert!(
                    err < BOUND,
                    "{} {layout} axes {axes:?}: {err:e}",
                    dev.name()
                );
            }
            // The elements a stepped view skips are left alone.
            let mut array = stepped_base.clone();
            fft.process_array(&mut array.slice_mut(s![.., ..;2, ..]))
                .expect("run");
            assert_eq!(
                array.slice(s![.., 1..;2, ..]),
                stepped_base.slice(s![.., 1..;2, ..])
            );
        }
    }
}

/// R2C into a Fortran-order spectrum and C2R back from it: the round trip returns the input.
#[test]
fn real_arrays_round_trip() {
    let mut rng = rng();
    for dev in [gpu().clone(), Device::cpu()] {
        let shape = [9, 16];
        let x: Vec<f32> = (0..144).map(|_| rng.random_range(-1.0..1.0)).collect();
        let input = Array::from_shape_vec(shape, x.clone()).unwrap();
        let forward = dev.plan_nd(&NdSpec::new(&shape).real()).expect("plan");
        let back = dev
            .plan_nd(&NdSpec::new(&shape).real().inverse().normalized())
            .expect("plan");
        let mut spectrum = Array::from_elem((9, 9).f(), Complex32::new(f32::NAN, f32::NAN));
        forward
            .process_array_real_to_complex(&input.view(), &mut spectrum.view_mut())
            .expect("R2C");
        let want = nd_f64(&NdSpec::new(&shape).real(), &NdInput::Real(&x));
        let got: Vec<Complex32> = spectrum.iter().copied().collect();
        assert!(relative_l2_error(&got, &want) < BOUND, "{}", dev.name());
        let mut out = Array::from_elem(shape, f32::NAN);
        back.process_array_complex_to_real(&spectrum.view(), &mut out.view_mut())
            .expect("C2R");
        let worst = out
            .iter()
            .zip(&x)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "{}: {worst}", dev.name());
    }
}

/// A wrong shape or a spec with strides is an error naming the problem.
#[test]
fn wrong_arrays_are_errors() {
    let fft = Device::cpu().plan_nd(&NdSpec::new(&[4, 8])).expect("plan");
    let mut a = Array::from_elem((8, 4), Complex32::default());
    let e = fft.process_array(&mut a.view_mut()).expect_err("must fail");
    assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
    assert!(e.to_string().contains("[8, 4]"), "{e}");
    let strided = Device::cpu()
        .plan_nd(
            &NdSpec::new(&[4, 8])
                .input_strides(&[16, 2])
                .output_strides(&[16, 2]),
        )
        .expect("plan");
    let mut a = Array::from_elem((4, 8), Complex32::default());
    let e = strided
        .process_array(&mut a.view_mut())
        .expect_err("must fail");
    assert!(e.to_string().contains("without strides"), "{e}");
}
