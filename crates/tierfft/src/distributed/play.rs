//! Playing a rank's [`Moves`] on its device buffers: the copies before and after, and the
//! all-to-all between them.

use num_complex::Complex32;

use super::exchange::{Exchange, Pending};
use super::slab::{Array, Moves, Rows};
use crate::backend::DeviceBuffer;
use crate::backend::copy;
use crate::error::{Error, Result};

/// Copies the rows `rows` describes from `src` into `dst` (complex elements; both on one
/// device), queued on a GPU like the transforms.
pub fn copy_rows(src: &DeviceBuffer, dst: &mut DeviceBuffer, rows: &Rows) -> Result<()> {
    copy::copy_rows(&src.held, &mut dst.held, rows)
}

/// Plays this rank's part of one change of layout (`moves`, from
/// [`super::Slabs::to_transposed`] or [`super::Slabs::to_natural`]) on its arrays (at least
/// [`Moves::staging`] and [`Moves::received`] elements of `staging` and `received`; moves of
/// one unbatched slab receive nothing there, and take `None`); every rank of the exchange
/// must play its own at the same time.
pub fn redistribute(
    moves: &Moves,
    exchange: &mut dyn Exchange,
    natural: &mut DeviceBuffer,
    transposed: &mut DeviceBuffer,
    staging: &mut DeviceBuffer,
    received: Option<&mut DeviceBuffer>,
) -> Result<()> {
    let mut arrays = Arrays {
        natural,
        transposed,
        staging,
        received,
    };
    arrays.play(moves, exchange, true)
}

/// [`redistribute`] on `[natural, transposed, staging, received]`, with its copies or (for
/// timing the all-to-all alone) without them.
pub(crate) fn play(
    moves: &Moves,
    exchange: &mut dyn Exchange,
    [natural, transposed, staging, received]: [&mut DeviceBuffer; 4],
    copies: bool,
) -> Result<()> {
    let mut arrays = Arrays {
        natural,
        transposed,
        staging,
        received: Some(received),
    };
    arrays.play(moves, exchange, copies)
}

/// The copies before one part of a change of layout ([`super::plan::Step::Send`]), when
/// `copies`, then its all-to-all started ([`Exchange::start`]).
///
/// # Safety
/// As [`Exchange::start`]: until the returned [`Pending`] is joined or dropped, later work
/// must leave the send array's sent elements unwritten and the receive array's received
/// elements untouched, and free neither array.
pub(crate) unsafe fn start(
    moves: &Moves,
    exchange: &mut dyn Exchange,
    [natural, transposed, staging, received]: [&mut DeviceBuffer; 4],
    copies: bool,
) -> Result<Pending> {
    let mut arrays = Arrays {
        natural,
        transposed,
        staging,
        received: Some(received),
    };
    arrays.copy(&moves.before, copies)?;
    let (send, recv) = arrays.pair(moves.send_from, moves.recv_into)?;
    // SAFETY: the caller's contract.
    unsafe {
        match &moves.blocks {
            Some(b) => exchange.start_blocks(send, &b.sends, recv, &b.recvs),
            None => exchange.start(send, &moves.sends, recv, &moves.recvs),
        }
    }
}

/// The copies after one part of a change of layout ([`super::plan::Step::Receive`]), once
/// its all-to-all has been joined.
pub(crate) fn finish(
    moves: &Moves,
    [natural, transposed, staging, received]: [&mut DeviceBuffer; 4],
) -> Result<()> {
    let mut arrays = Arrays {
        natural,
        transposed,
        staging,
        received: Some(received),
    };
    arrays.copy(&moves.after, true)
}

/// The arrays of one change of layout, lent out two at a time.
struct Arrays<'a> {
    natural: &'a mut DeviceBuffer<Complex32>,
    transposed: &'a mut DeviceBuffer<Complex32>,
    staging: &'a mut DeviceBuffer<Complex32>,
    received: Option<&'a mut DeviceBuffer<Complex32>>,
}

impl Arrays<'_> {
    fn play(&mut self, moves: &Moves, exchange: &mut dyn Exchange, copies: bool) -> Result<()> {
        self.copy(&moves.before, copies)?;
        let (send, recv) = self.pair(moves.send_from, moves.recv_into)?;
        match &moves.blocks {
            // SAFETY: joined at once, before either buffer is touched again.
            Some(b) => unsafe { exchange.start_blocks(send, &b.sends, recv, &b.recvs) }?.join()?,
            None => exchange.all_to_all(send, &moves.sends, recv, &moves.recvs)?,
        }
        self.copy(&moves.after, copies)
    }

    /// Makes `copies` (when `enabled`).
    fn copy(&mut self, copies: &[(Array, Array, Rows)], enabled: bool) -> Result<()> {
        for (from, to, rows) in copies.iter().filter(|_| enabled) {
            let (src, dst) = self.pair(*from, *to)?;
            copy_rows(src, dst, rows)?;
        }
        Ok(())
    }

    fn pair(&mut self, from: Array, to: Array) -> Result<(&DeviceBuffer, &mut DeviceBuffer)> {
        use Array::{Natural as N, Received as R, Staging as S, Transposed as T};
        let bad = |m: String| Err(Error::InvalidSpec(m));
        let (natural, transposed, staging) = (
            &mut *self.natural,
            &mut *self.transposed,
            &mut *self.staging,
        );
        let received = self.received.as_deref_mut();
        Ok(match (from, to, received) {
            (N, T, _) => (&*natural, transposed),
            (N, S, _) => (&*natural, staging),
            (T, N, _) => (&*transposed, natural),
            (T, S, _) => (&*transposed, staging),
            (S, N, _) => (&*staging, natural),
            (S, T, _) => (&*staging, transposed),
            (S, R, Some(r)) => (&*staging, r),
            (N, R, Some(r)) => (&*natural, r),
            (T, R, Some(r)) => (&*transposed, r),
            (R, N, Some(r)) => (&*r, natural),
            (R, T, Some(r)) => (&*r, transposed),
            (R, S, Some(r)) => (&*r, staging),
            (_, _, None) if from == R || to == R => {
                return bad("these moves receive into a buffer of their own; pass one".into());
            }
            _ => return bad(format!("a copy from {from:?} into {to:?}")),
        })
    }
}
