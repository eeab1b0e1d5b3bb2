//! Copies of rows between two buffers of one device, queued like the transforms: a
//! distributed transform's packing and unpacking of the blocks it exchanges.

use super::buffer::Held;
use crate::error::{Error, Result};

/// A copy of `rows` rows of `row_len` complex elements from one array to another, each row
/// `src_pitch` (`dst_pitch`) elements after the last, starting at element `src` (`dst`).
/// The default copies nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// Rows copied.
    pub rows: usize,
    /// Complex elements per row.
    pub row_len: usize,
    /// First source element.
    pub src: usize,
    /// Source elements from one row's start to the next.
    pub src_pitch: usize,
    /// First destination element.
    pub dst: usize,
    /// Destination elements from one row's start to the next.
    pub dst_pitch: usize,
}

impl Rows {
    /// Complex elements copied.
    pub fn len(&self) -> usize {
        self.rows * self.row_len
    }

    /// The same rows copied the other way: from the destination back to the source.
    pub fn reversed(&self) -> Rows {
        Rows {
            src: self.dst,
            src_pitch: self.dst_pitch,
            dst: self.src,
            dst_pitch: self.src_pitch,
            ..*self
        }
    }

    /// True when nothing is copied.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Copies the rows `c` describes (complex elements) from `src` into `dst`, both held by the
/// same device; on a GPU the copy is queued on the device's stream.
pub(crate) fn copy_rows(src: &Held, dst: &mut Held, c: &Rows) -> Result<()> {
    if c.is_empty() {
        return Ok(());
    }
    // One past the last f32 the copy touches, if that does not overflow.
    let end = |start: usize, pitch: usize| {
        (c.rows - 1)
            .checked_mul(pitch)?
            .checked_add(start)?
            .checked_add(c.row_len)?
            .checked_mul(2)
    };
    let fits = |start, pitch, floats| end(start, pitch).is_some_and(|e| e <= floats);
    if c.src_pitch < c.row_len
        || c.dst_pitch < c.row_len
        || !fits(c.src, c.src_pitch, src.floats())
        || !fits(c.dst, c.dst_pitch, dst.floats())
    {
        return Err(Error::InvalidSpec(format!(
            "a copy of {} rows of {} elements (pitches {} and {}) does not fit its buffers \
             ({} and {} elements)",
            c.rows,
            c.row_len,
            c.src_pitch,
            c.dst_pitch,
            src.floats() / 2,
            dst.floats() / 2
        )));
    }
    src.memory().copy_rows(dst, c)
}
