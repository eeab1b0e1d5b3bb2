//! Properties of the DFT, checked on the GPU: linearity, impulses, the shift theorem and
//! Parseval's theorem, for one-pass and multi-pass plans.

use num_complex::{Complex32, Complex64};
use tierfft::{Fft, FftSpec};

use crate::common::*;

const LENGTHS: [u32; 6] = [3, 8, 11, 12, 14, 19];

fn run(fft: &Fft, input: &[Complex32]) -> Vec<Complex32> {
    let mut out = poisoned(input.len());
    fft.process_out_of_place(input, &mut out)
        .expect("transform");
    out
}

fn widen(x: &[Complex32]) -> Vec<Complex64> {
    x.iter()
        .map(|z| Complex64::new(z.re.into(), z.im.into()))
        .collect()
}

fn rel_diff(a: &[Complex32], b: &[Complex64]) -> f64 {
    tierfft::debug::reference::relative_l2_error(a, b)
}

#[test]
fn linearity() {
    let mut rng = rng();
    for k in LENGTHS {
        let fft = gpu().plan(&FftSpec::new(1 << k).batch(2)).expect("plan");
        let (x, y) = (random(&mut rng, 2 << k), random(&mut rng, 2 << k));
        let (a, b) = (Complex32::new(0.75, -1.5), Complex32::new(-2.0, 0.25));
        let mix: Vec<Complex32> = x.iter().zip(&y).map(|(x, y)| a * x + b * y).collect();
        let (fx, fy, fmix) = (run(&fft, &x), run(&fft, &y), run(&fft, &mix));
        let want: Vec<Complex64> = widen(&fx)
            .iter()
            .zip(widen(&fy))
            .map(|(x, y)| widen(&[a])[0] * x + widen(&[b])[0] * y)
            .collect();
        let d = rel_diff(&fmix, &want);
        assert!(d < 4.0 * BOUND, "2^{k}: {d:e}");
    }
}

#[test]
fn impulse_gives_a_pure_tone() {
    for k in LENGTHS {
        let n = 1usize << k;
        let fft = gpu().plan(&FftSpec::new(n)).expect("plan");
        for p in [0, 1, n / 2 - 1, n - 1] {
            let mut x = vec![Complex32::new(0.0, 0.0); n];
            x[p] = Complex32::new(1.0, 0.0);
            let got = run(&fft, &x);
            let want: Vec<Complex64> = (0..n)
                .map(|q| {
                    Complex64::from_polar(
                        1.0,
                        -2.0 * std::f64::consts::PI * ((p * q) % n) as f64 / n as f64,
                    )
                })
                .collect();
            let d = rel_diff(&got, &want);
            assert!(d < BOUND, "2^{k} impulse at {p}: {d:e}");
        }
    }
}

#[test]
fn shift_theorem() {
    let mut rng = rng();
    for k in LENGTHS {
        let n = 1usize << k;
        let fft = gpu().plan(&FftSpec::new(n)).expect("plan");
        let x = random(&mut rng, n);
        let s = 1 + n / 3;
        let shifted: Vec<Complex32> = (0..n).map(|i| x[(i + n - s) % n]).collect();
        let (fx, fs) = (widen(&run(&fft, &x)), run(&fft, &shifted));
        let want: Vec<Complex64> = fx
            .iter()
            .enumerate()
            .map(|(q, z)| {
                z * Complex64::from_polar(
                    1.0,
                    -2.0 * std::f64::consts::PI * ((s * q) % n) as f64 / n as f64,
                )
            })
            .collect();
        let d = rel_diff(&fs, &want);
        assert!(d < 2.0 * BOUND, "2^{k}: {d:e}");
    }
}

#[test]
fn parseval() {
    let mut rng = rng();
    for k in LENGTHS {
        let n = 1usize << k;
        let fft = gpu().plan(&FftSpec::new(n).batch(3)).expect("plan");
        let x = random(&mut rng, 3 * n);
        let fx = run(&fft, &x);
        let energy = |v: &[Complex32]| v.iter().map(|z| f64::from(z.norm_sqr())).sum::<f64>();
        let ratio = energy(&fx) / (n as f64 * energy(&x));
        assert!(
            (ratio - 1.0).abs() < 2.0 * BOUND,
            "2^{k}: energy ratio {ratio}"
        );
    }
}
