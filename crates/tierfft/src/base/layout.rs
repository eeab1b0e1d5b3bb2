//! Strided layouts of an N-D transform's input and output, as `cufftPlanMany` takes them
//! (`embed`, `stride`, `dist`) or NumPy's strided arrays have them: per-axis element strides
//! into the caller's buffer.

use crate::error::{Error, Result};

/// The buffer elements a layout of `shape` with `strides` spans: the farthest element's
/// offset plus one (0 never: every extent is at least 1). `None` past `usize`.
pub(crate) fn span(shape: &[usize], strides: &[usize]) -> Option<usize> {
    shape
        .iter()
        .zip(strides)
        .try_fold(0usize, |acc, (&n, &s)| {
            acc.checked_add(n.checked_sub(1)?.checked_mul(s)?)
        })?
        .checked_add(1)
}

/// Checks `strides` for an array of `shape` (the `side` it lays out, "input" or "output"):
/// one stride per axis, a span within `max` elements, and for an output a layout that
/// cannot overlap: sorted by stride, each axis must step past everything the axes of
/// smaller stride reach (nested layouts: padded, permuted, spaced; an interleaving that
/// happens not to collide, such as strides 3 and 2 over 2 × 3, is refused too).
pub(crate) fn check(
    side: &str,
    shape: &[usize],
    strides: &[usize],
    written: bool,
    max: usize,
) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidSpec(m));
    if strides.len() != shape.len() {
        return bad(format!(
            "the {side} strides {strides:?} give {} axes, the {side} array {shape:?} has {}",
            strides.len(),
            shape.len()
        ));
    }
    if span(shape, strides).is_none_or(|s| s > max) {
        return Err(Error::TooLarge {
            what: format!("an {side} laid out with strides {strides:?} over shape {shape:?}"),
            device: "any".into(),
            detail: format!("its buffer would exceed {max} elements (kernels index with 32 bits)"),
        });
    }
    if written {
        let mut axes: Vec<usize> = (0..shape.len()).filter(|&a| shape[a] > 1).collect();
        axes.sort_by_key(|&a| strides[a]);
        let mut reach = 0;
        for &a in &axes {
            if strides[a] <= reach {
                return bad(format!(
                    "the output strides {strides:?} may put two elements of the {shape:?} array \
                     on one place: axis {a} (stride {}) must step past the {reach} elements the \
                     axes of smaller stride reach",
                    strides[a]
                ));
            }
            reach += strides[a] * (shape[a] - 1);
        }
    }
    Ok(())
}

/// Row-major strides of `shape` (the last axis contiguous).
pub(crate) fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for a in (0..shape.len().saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * shape[a + 1];
    }
    strides
}

/// `src` (`matrices` row-major `rows × cols` matrices one after another) with each matrix
/// transposed.
pub(crate) fn transpose<T: Copy>(src: &[T], matrices: usize, rows: usize, cols: usize) -> Vec<T> {
    // In tiles of 32 × 32: a plain walk down each column reads one element per cache line
    // and missed the cache on every read of a SAR scene's columns.
    const TILE: usize = 32;
    let size = rows * cols;
    let mut dst = src[..matrices * size].to_vec();
    if size == 0 {
        return dst;
    }
    for (from, to) in src.chunks_exact(size).zip(dst.chunks_exact_mut(size)) {
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                for r in r0..(r0 + TILE).min(rows) {
                    for c in c0..(c0 + TILE).min(cols) {
                        to[c * rows + r] = from[r * cols + c];
                    }
                }
            }
        }
    }
    dst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_overlaps() {
        assert_eq!(span(&[3, 4], &[4, 1]), Some(12));
        assert_eq!(span(&[3, 4], &[10, 2]), Some(27));
        assert_eq!(span(&[1], &[0]), Some(1));
        assert_eq!(row_major(&[2, 3, 4]), [12, 4, 1]);
        let max = 1 << 31;
        assert!(check("output", &[3, 4], &[1, 3], true, max).is_ok());
        assert!(check("output", &[3, 4], &[6, 1], true, max).is_ok());
        assert!(check("output", &[3, 1, 4], &[4, 0, 1], true, max).is_ok());
        let err = check("output", &[3, 4], &[2, 1], true, max).expect_err("overlaps");
        assert!(err.to_string().contains("axis 0 (stride 2)"), "{err}");
        assert!(check("output", &[3, 4], &[0, 1], true, max).is_err());
        // Inputs may repeat elements (a stride of 0 broadcasts).
        assert!(check("input", &[3, 4], &[0, 1], false, max).is_ok());
        let err = check("input", &[3, 4], &[1], false, max).expect_err("rank");
        assert!(err.to_string().contains("give 1 axes"), "{err}");
        assert!(check("input", &[3, 4], &[1 << 40, 1], false, max).is_err());
    }

    /// Tiles cover every element: sizes around and across the tile, several matrices.
    #[test]
    fn transpose_moves_every_element() {
        for (matrices, rows, cols) in [(1, 1, 1), (2, 3, 5), (3, 33, 31), (1, 64, 100), (2, 1, 70)]
        {
            let src: Vec<usize> = (0..matrices * rows * cols).collect();
            let dst = transpose(&src, matrices, rows, cols);
            for m in 0..matrices {
                for r in 0..rows {
                    for c in 0..cols {
                        let at = m * rows * cols;
                        assert_eq!(dst[at + c * rows + r], src[at + r * cols + c]);
                    }
                }
            }
        }
    }
}
