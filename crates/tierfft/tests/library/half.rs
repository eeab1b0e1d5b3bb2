//! f16 and bf16 storage (f32 arithmetic) on the test GPU and the CPU: power-of-two and
//! smooth lengths, one and several passes, both directions, in place and out of place,
//! device-resident buffers, unaligned host slices; fresh random inputs (rounded to the
//! precision, so the reference transforms exactly what the device read), poisoned outputs.
//! The error is reported per length; specs the 16-bit path does not cover are refused.

use num_complex::{Complex, Complex32};
use rand::rngs::StdRng;
use tierfft::debug::reference::{relative_l2_error, spec_f64};
use tierfft::{Device, FftSpec, NdSpec, Precision, bf16, f16};

use crate::common::*;

/// A 16-bit storage type as the tests use it.
trait Half: Copy + Send + Sync + 'static
where
    Complex<Self>: tierfft::Element,
{
    const PRECISION: Precision;
    /// Its unit roundoff: half the distance from 1 to the next value.
    const ROUNDOFF: f64;
    fn from_f32(x: f32) -> Self;
    fn to_f32(self) -> f32;
    fn nan() -> Self;
}

impl Half for f16 {
    const PRECISION: Precision = Precision::F16;
    const ROUNDOFF: f64 = 1.0 / 2048.0;
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn nan() -> Self {
        f16::NAN
    }
}

impl Half for bf16 {
    const PRECISION: Precision = Precision::Bf16;
    const ROUNDOFF: f64 = 1.0 / 256.0;
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn nan() -> Self {
        bf16::NAN
    }
}

fn to_half<H: Half>(values: &[Complex32]) -> Vec<Complex<H>>
where
    Complex<H>: tierfft::Element,
{
    values
        .iter()
        .map(|z| Complex::new(H::from_f32(z.re), H::from_f32(z.im)))
        .collect()
}

fn to_f32<H: Half>(values: &[Complex<H>]) -> Vec<Complex32>
where
    Complex<H>: tierfft::Element,
{
    values
        .iter()
        .map(|z| Complex32::new(z.re.to_f32(), z.im.to_f32()))
        .collect()
}

/// Transforms of every length in `lens` on `dev` in `H`'s storage, against the f64
/// transform of the stored input: within one rounding per device-memory pass plus one (the
/// CPU counts as one pass), and from 4 points (where sums need more bits than the input's)
/// above a sixteenth of one (the values are stored in 16 bits). Returns each length's worst
/// error.
fn check<H: Half>(dev: &Device, lens: &[usize], batch: usize, rng: &mut StdRng) -> Vec<f64>
where
    Complex<H>: tierfft::Element,
{
    let mut errors = Vec::new();
    for &n in lens {
        let mut worst: f64 = 0.0;
        for (dir, norm) in directions() {
            let mut spec = FftSpec::new(n)
                .batch(batch)
                .direction(dir)
                .precision(H::PRECISION);
            spec.normalize = norm;
            let fft = dev
                .plan(&spec)
                .unwrap_or_else(|e| panic!("plan {n} in {} on {}: {e}", H::PRECISION, dev.name()));
            let passes = fft.plan().map_or(1, |p| p.passes.len());
            let input = to_half::<H>(&random(rng, spec.len()));
            let want = spec_f64(&spec, &to_f32(&input));
            let bound = H::ROUNDOFF * (passes + 1) as f64;
            let mut out = vec![Complex::new(H::nan(), H::nan()); spec.len()];
            fft.process_out_of_place(&input, &mut out)
                .expect("out of place");
            let err = relative_l2_error(&to_f32(&out), &want);
            assert!(
                err <= bound && (n < 4 || err >= H::ROUNDOFF / 16.0),
                "{}, {}: n = {n} batch {batch} {dir:?} ({passes} passes): relative L2 error \
                 {err:e}, bound {bound:e}",
                H::PRECISION,
                dev.name()
            );
            worst = worst.max(err);
            let mut data = input.clone();
            fft.process(&mut data).expect("in place");
            assert_eq!(to_f32(&data), to_f32(&out), "in place, n = {n}");
        }
        errors.push(worst);
    }
    errors
}

/// Powers of two through several passes, and smooth lengths, in both storage precisions on
/// `dev`; prints the table of errors.
fn check_both(dev: &Device, max_log2: usize) {
    let mut rng = rng();
    let mut lens: Vec<usize> = (0..=max_log2).map(|k| 1 << k).collect();
    lens.extend([3, 12, 17, 60, 169, 1000, 5616, 6561, 29 * 31 * 2, 100_000]);
    let f16_errors = check::<f16>(dev, &lens, 2, &mut rng);
    let bf16_errors = check::<bf16>(dev, &lens, 2, &mut rng);
    eprintln!("{}: relative L2 error (f16, bf16)", dev.name());
    for ((n, a), b) in lens.iter().zip(&f16_errors).zip(&bf16_errors) {
        eprintln!("  n = {n:>7}: {a:.2e} {b:.2e}");
    }
}

#[test]
fn f16_and_bf16_storage_on_the_gpu() {
    check_both(gpu(), 18);
}

#[test]
fn f16_and_bf16_storage_on_the_cpu() {
    check_both(&Device::cpu(), 16);
}

/// Device-resident buffers of 16-bit pairs: upload, transform in place, read back.
#[test]
fn device_resident_f16() {
    let mut rng = rng();
    let spec = FftSpec::new(1 << 12).batch(3).precision(Precision::F16);
    let fft = gpu().plan(&spec).expect("plan");
    let input = to_half::<f16>(&random(&mut rng, spec.len()));
    let mut buffer = gpu().upload(&input).expect("upload");
    fft.process_buffer(&mut buffer).expect("transform");
    let mut out = vec![Complex::new(f16::NAN, f16::NAN); spec.len()];
    buffer.read_into(&mut out).expect("read");
    let mut want = input.clone();
    fft.process(&mut want).expect("host");
    assert_eq!(to_f32(&out), to_f32(&want));
}

/// Host slices of 16-bit pairs need only 2-byte alignment: an unaligned one goes through a
/// copy, with the same result.
#[test]
fn unaligned_host_slices() {
    let mut rng = rng();
    let spec = FftSpec::new(256).batch(2).precision(Precision::F16);
    let fft = gpu().plan(&spec).expect("plan");
    let input = to_half::<f16>(&random(&mut rng, spec.len()));
    let mut aligned = input.clone();
    fft.process(&mut aligned).expect("aligned");
    // 2-byte words shifted by one: the complex values start 2 bytes past a 4-byte boundary.
    let mut words = vec![f16::ZERO; 2 * spec.len() + 2];
    let start = if (words.as_ptr() as usize).is_multiple_of(4) {
        1
    } else {
        0
    };
    let shifted: &mut [Complex<f16>] =
        bytemuck::cast_slice_mut(&mut words[start..start + 2 * spec.len()]);
    assert!(!(shifted.as_ptr() as usize).is_multiple_of(4));
    shifted.copy_from_slice(&input);
    fft.process(shifted).expect("unaligned");
    assert_eq!(to_f32(shifted), to_f32(&aligned));
}

/// Values of another precision, and specs outside the 16-bit path, are refused with errors
/// that name what to use instead.
#[test]
fn wrong_types_and_uncovered_specs_are_refused() {
    let fft = gpu()
        .plan(&FftSpec::new(64).precision(Precision::Bf16))
        .expect("plan");
    let mut f32_data = vec![Complex32::new(0.0, 0.0); 64];
    let e = fft
        .process(&mut f32_data)
        .expect_err("f32 data")
        .to_string();
    assert!(
        e.contains("Complex<bf16>") && e.contains("Complex32"),
        "{e}"
    );
    let mut f16_data = vec![Complex::new(f16::ZERO, f16::ZERO); 64];
    let e = fft
        .process(&mut f16_data)
        .expect_err("f16 data")
        .to_string();
    assert!(e.contains("Complex<f16>"), "{e}");

    for dev in [gpu(), &Device::cpu()] {
        let e = dev
            .plan(&FftSpec::new(37).precision(Precision::F16))
            .expect_err("Bluestein length")
            .to_string();
        assert!(e.contains("prime factor above 31"), "{e}");
        let e = dev
            .plan_nd(&NdSpec::new(&[8, 8]).precision(Precision::Bf16))
            .expect_err("N-D")
            .to_string();
        assert!(e.contains("f32 or f64"), "{e}");
    }
}
