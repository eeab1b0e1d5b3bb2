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
}
