//! Views of device buffers ([`DeviceBuffer::view_mut`]): transforms, N-D real transforms,
//! resampling, reads and writes on part of a buffer, the rest left as it was (and zeroing a
//! whole buffer); views that start off the device's binding alignment or reach outside the
//! buffer are refused. On the test GPU (lavapipe unless TIERFFT_TEST_DEVICE says otherwise)
//! and the CPU.

use num_complex::Complex32;
use rand::RngExt;
use tierfft::debug::reference::{NdInput, nd_f64, relative_l2_error};
use tierfft::resample::{ResampleSpec, RowPositions};
use tierfft::{Device, DeviceBuffer, Error, FftSpec, NdSpec};

use crate::common::*;

fn devices() -> [Device; 2] {
    [gpu().clone(), Device::cpu()]
}

/// `whole` with elements `part` replaced by `by`.
fn replaced<T: Copy>(whole: &[T], part: std::ops::Range<usize>, by: &[T]) -> Vec<T> {
    let mut v = whole.to_vec();
    v[part].copy_from_slice(by);
    v
}

#[test]
fn transforms_run_on_part_of_a_buffer() {
    let mut rng = rng();
    for dev in devices() {
        // One-pass and multi-pass lengths, rows from the middle of the batch.
        for (n, rows, first, count) in [(1024, 6, 2, 3), (1 << 16, 3, 1, 1)] {
            let whole = random(&mut rng, n * rows);
            let part = first * n..(first + count) * n;
            let spec = FftSpec::new(n).batch(count);
            let fft = dev.plan(&spec).expect("plan");
            let mut buffer = dev.upload(&whole).expect("upload");
            let mut view = buffer.view_mut(part.clone()).expect("view");
            assert_eq!(view.len(), count * n);
            fft.process_buffer(&mut view).expect("transform the view");
            let seen = view.download().expect("read the view");
            let out = buffer.download().expect("read the buffer");
            let what = format!("{} view of {n}-point rows", dev.name());
            assert_accurate(&what, &spec, &whole[part.clone()], &seen);
            assert_eq!(
                out,
                replaced(&whole, part, &seen),
                "{what}: the rest changed"
            );
        }
    }
}

#[test]
fn real_transforms_between_views() {
    let mut rng = rng();
    let spec = NdSpec::new(&[2, 512]).real();
    let (reals, halves) = (spec.input_len(), spec.output_len());
    for dev in devices() {
        let fft = dev.plan_nd(&spec).expect("plan");
        // The input from the second of three transforms' worth of reals (2 KiB in: aligned).
        let input: Vec<f32> = (0..3 * reals)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let mut real = dev.upload(&input).expect("upload");
        let mut spectrum = dev.upload(&poisoned(2 * halves)).expect("upload");
        let part = reals..2 * reals;
        fft.process_buffer_real_to_complex(
            &mut real.view_mut(part.clone()).expect("input view"),
            &mut spectrum.view_mut(0..halves).expect("output view"),
        )
        .expect("R2C on views");
        let out = spectrum.download().expect("read");
        let want = nd_f64(&spec, &NdInput::Real(&input[part]));
        let err = relative_l2_error(&out[..halves], &want);
        assert!(err < 1e-6, "{}: R2C on views, error {err:e}", dev.name());
        assert!(
            out[halves..].iter().all(|z| z.re.is_nan() && z.im.is_nan()),
            "{}: the output's rest was written",
            dev.name()
        );
    }
}

#[test]
fn resampling_reads_and_writes_views() {
    let mut rng = rng();
    let (n, rows) = (256, 2);
    let positions: Vec<RowPositions> = (0..rows)
        .map(|_| RowPositions {
            offset: rng.random_range(-20.0..20.0),
            slope: rng.random_range(-0.01..0.01),
        })
        .collect();
    let spec = ResampleSpec::new(n, positions);
    for dev in devices() {
        let input = random(&mut rng, 3 * n * rows);
        let part = n * rows..2 * n * rows;
        let resampler = dev.plan_resample(&spec).expect("plan");
        let mut want = vec![Complex32::default(); n * rows];
        resampler
            .process(&input[part.clone()], &mut want)
            .expect("resample host data");
        let mut src = dev.upload(&input).expect("upload");
        let mut dst = dev.upload(&poisoned(3 * n * rows)).expect("upload");
        resampler
            .process_buffer(
                &src.view_mut(part.clone()).expect("input view"),
                &mut dst.view_mut(part.clone()).expect("output view"),
            )
            .expect("resample views");
        let out = dst.download().expect("read");
        assert_eq!(
            out[part.clone()],
            want[..],
            "{}: the view's rows",
            dev.name()
        );
        assert!(
            out[..part.start]
                .iter()
                .chain(&out[part.end..])
                .all(|z| z.re.is_nan() && z.im.is_nan()),
            "{}: rows outside the view were written",
            dev.name()
        );
    }
}

#[test]
fn views_read_and_write_their_part() {
    let mut rng = rng();
    for dev in devices() {
        let whole = random(&mut rng, 4096);
        let mut buffer: DeviceBuffer = dev.upload(&whole).expect("upload");
        let part = 1024..3072;
        let new = random(&mut rng, part.len());
        let mut view = buffer.view_mut(part.clone()).expect("view");
        view.write(&new).expect("write the view");
        assert_eq!(view.download().expect("read the view"), new);
        assert!(
            view.write(&new[1..]).is_err(),
            "a write of the wrong length"
        );
        assert_eq!(
            buffer.download().expect("read"),
            replaced(&whole, part, &new),
            "{}",
            dev.name()
        );
        buffer.fill_zeros().expect("zero");
        assert!(
            buffer
                .download()
                .expect("read")
                .iter()
                .all(|z| z.re == 0.0 && z.im == 0.0),
            "{}: fill_zeros",
            dev.name()
        );
    }
}

#[test]
fn views_outside_the_buffer_or_off_alignment_are_errors() {
    for dev in devices() {
        let mut buffer = dev.upload(&poisoned(1024)).expect("upload");
        for range in [0..1025, 1000..1025] {
            let e = buffer.view_mut(range.clone()).expect_err("outside");
            assert!(matches!(e, Error::InvalidSpec(_)), "{range:?}: {e}");
        }
        #[allow(clippy::reversed_empty_ranges)]
        let e = buffer.view_mut(10..5).expect_err("reversed");
        assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
        // One complex value in: 8 bytes, off every GPU's 256-byte alignment.
        let off = buffer.view_mut(1..257);
        if dev.limits().is_some() {
            let e = off.expect_err("misaligned on a GPU");
            assert!(e.to_string().contains("multiples of"), "{e}");
        } else {
            assert_eq!(off.expect("the CPU takes any start").len(), 256);
        }
        // A view of one device's buffer given to another's plan.
        let other = if dev.limits().is_some() {
            Device::cpu()
        } else {
            gpu().clone()
        };
        let fft = other.plan(&FftSpec::new(256)).expect("plan");
        let mut view = buffer.view_mut(0..256).expect("view");
        assert!(fft.process_buffer(&mut view).is_err(), "a foreign view");
    }
}
