//! Real weights multiplied into data element by element ([`crate::PointOp::Weight`]): a
//! window or taper on real samples, a mask on an image.

use std::sync::Arc;

use num_complex::Complex32;

/// Real factors, one per element of the data they weight, or one per part (real and
/// imaginary apart) where the data are reals read in pairs.
///
/// The kernels read them from the same device vector as complex multiplies, two weights to a
/// complex slot, so they cost half the bytes of a [`crate::PointOp::MultiplyEach`].
#[derive(Clone, Debug, PartialEq)]
pub struct RealWeights {
    /// The weights two by two: slot `i` holds weights `2i` (re) and `2i + 1` (im); an odd
    /// count ends in a zero.
    pairs: Arc<[Complex32]>,
    /// How many weights.
    len: usize,
    /// One weight per part of a complex element rather than one per element.
    per_part: bool,
}

impl RealWeights {
    /// One weight per element: element `e` (both its parts) is multiplied by `w[e]`.
    pub fn new(w: &[f32]) -> RealWeights {
        RealWeights {
            pairs: w
                .chunks(2)
                .map(|p| Complex32::new(p[0], p.get(1).copied().unwrap_or(0.0)))
                .collect(),
            len: w.len(),
            per_part: false,
        }
    }

    /// One weight per part: element `e`'s real part is multiplied by `w[2e]` and its
    /// imaginary part by `w[2e + 1]`, which weights reals read two to a complex element (the
    /// half-length transform of a real row) one by one.
    pub fn per_part(w: &[f32]) -> RealWeights {
        RealWeights {
            per_part: true,
            ..RealWeights::new(w)
        }
    }

    /// How many weights.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// One weight per part (see [`RealWeights::per_part`]) rather than per element.
    pub fn is_per_part(&self) -> bool {
        self.per_part
    }

    /// Weight `i`.
    pub fn get(&self, i: usize) -> f32 {
        let pair = self.pairs[i / 2];
        if i.is_multiple_of(2) {
            pair.re
        } else {
            pair.im
        }
    }

    /// The same weights taken one per part ([`RealWeights::per_part`]), sharing their storage.
    pub(crate) fn to_per_part(&self) -> RealWeights {
        RealWeights {
            per_part: true,
            ..self.clone()
        }
    }

    /// The weights as the kernels read them: two to a complex slot.
    pub(crate) fn pairs(&self) -> &Arc<[Complex32]> {
        &self.pairs
    }

    /// The factors for element `e`: (real part's, imaginary part's).
    pub(crate) fn factors(&self, e: usize) -> (f32, f32) {
        if self.per_part {
            (self.get(2 * e), self.get(2 * e + 1))
        } else {
            (self.get(e), self.get(e))
        }
    }

    /// The weights of a batch of `rows × cols` matrices laid out transposed, element by
    /// element (each element's two weights together when per part).
    pub(crate) fn transposed(&self, matrices: usize, rows: usize, cols: usize) -> RealWeights {
        use crate::base::layout::transpose;
        if self.per_part {
            let pairs = transpose(&self.pairs, matrices, rows, cols);
            RealWeights {
                pairs: pairs.into(),
                ..self.clone()
            }
        } else {
            let w: Vec<f32> = (0..self.len).map(|i| self.get(i)).collect();
            RealWeights::new(&transpose(&w, matrices, rows, cols))
        }
    }
}

impl From<&[f32]> for RealWeights {
    fn from(w: &[f32]) -> RealWeights {
        RealWeights::new(w)
    }
}

impl From<Vec<f32>> for RealWeights {
    fn from(w: Vec<f32>) -> RealWeights {
        RealWeights::new(&w)
    }
}
