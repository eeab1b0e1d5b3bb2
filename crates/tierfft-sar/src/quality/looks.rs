//! The multi-looked detected product: the focused image's power averaged over blocks of
//! lines × samples (looks), which trades resolution for less speckle and noise variance
//! (N looks divide the variance of a distributed target's power by N).

use num_complex::Complex32;

use crate::error::SarError;

/// `image`'s power `|z|²` (`lines` × `samples`, row-major) averaged over blocks of `looks =
/// (azimuth, range)` lines × samples, row-major, `lines.div_ceil(azimuth)` ×
/// `samples.div_ceil(range)`; blocks cut short at the image's last lines and samples average
/// what they hold.
pub fn multilook(
    image: &[Complex32],
    lines: usize,
    samples: usize,
    looks: (usize, usize),
) -> Result<Vec<f32>, SarError> {
    let (a, r) = looks;
    if a == 0 || r == 0 {
        return Err(SarError::Config(format!(
            "looks must be at least 1 in azimuth and range (got {a}, {r})"
        )));
    }
    if image.len() != lines * samples {
        return Err(SarError::Config(format!(
            "the image holds {} samples, not {lines} × {samples}",
            image.len()
        )));
    }
    let (out_lines, out_samples) = (lines.div_ceil(a), samples.div_ceil(r));
    let mut sums = vec![0.0f64; out_lines * out_samples];
    for (j, row) in image.chunks(samples).enumerate() {
        let out = &mut sums[(j / a) * out_samples..][..out_samples];
        for (k, z) in row.iter().enumerate() {
            out[k / r] += f64::from(z.norm_sqr());
        }
    }
    let count = |block: usize, of: usize, len: usize| (len - block * of).min(of) as f64;
    Ok(sums
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (bl, bs) = (i / out_samples, i % out_samples);
            (s / (count(bl, a, lines) * count(bs, r, samples))) as f32
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_average_their_power() {
        // 3 × 5 image, looks (2, 2): blocks of 4, 2 (last column), 2 (last row), 1.
        let image: Vec<Complex32> = (0..15).map(|i| Complex32::new(i as f32, 0.0)).collect();
        let out = multilook(&image, 3, 5, (2, 2)).expect("looks");
        assert_eq!(out.len(), 2 * 3);
        let p = |i: usize| (i * i) as f32;
        assert_eq!(out[0], (p(0) + p(1) + p(5) + p(6)) / 4.0);
        assert_eq!(out[2], (p(4) + p(9)) / 2.0);
        assert_eq!(out[3], (p(10) + p(11)) / 2.0);
        assert_eq!(out[5], p(14));
        assert!(multilook(&image, 3, 5, (0, 1)).is_err());
        assert!(multilook(&image, 4, 5, (1, 1)).is_err());
    }
}
