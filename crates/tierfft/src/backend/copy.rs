//! Copies of rows between two buffers of one device, queued like the transforms: a
//! distributed transform's packing and unpacking of the blocks it exchanges.

use super::buffer::Held;
use crate::dist::Rows;
use crate::error::{Error, Result};

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
