//! Complex values a transform reads beside its data: a chain's filter, Bluestein's chirps,
//! the planner's tables. f32 as most callers hold them, or f64, exact in f64 transforms;
//! each rounded to the transform's precision when it is uploaded.

use std::sync::Arc;

use num_complex::{Complex32, Complex64};

/// Shared complex values in f32 or f64. Cheap to clone; two clones are the same vector
/// ([`Values::same`]), which is how a plan stores a vector once however many passes read it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Values {
    /// Single precision.
    F32(Arc<[Complex32]>),
    /// Double precision.
    F64(Arc<[Complex64]>),
}

impl Values {
    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`, in f64.
    ///
    /// # Panics
    /// If `i` is out of range.
    pub fn get(&self, i: usize) -> Complex64 {
        match self {
            Values::F32(v) => Complex64::new(v[i].re.into(), v[i].im.into()),
            Values::F64(v) => v[i],
        }
    }

    /// Every value, in f64.
    pub fn iter(&self) -> impl Iterator<Item = Complex64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Whether `other` is this very vector (a clone of it), not merely equal values.
    pub fn same(&self, other: &Values) -> bool {
        match (self, other) {
            (Values::F32(a), Values::F32(b)) => Arc::ptr_eq(a, b),
            (Values::F64(a), Values::F64(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<Arc<[Complex32]>> for Values {
    fn from(v: Arc<[Complex32]>) -> Values {
        Values::F32(v)
    }
}

impl From<Vec<Complex32>> for Values {
    fn from(v: Vec<Complex32>) -> Values {
        Values::F32(v.into())
    }
}

impl From<Arc<[Complex64]>> for Values {
    fn from(v: Arc<[Complex64]>) -> Values {
        Values::F64(v)
    }
}

impl From<Vec<Complex64>> for Values {
    fn from(v: Vec<Complex64>) -> Values {
        Values::F64(v.into())
    }
}
