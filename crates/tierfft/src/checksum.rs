//! Checksummed transforms (algorithm-based fault tolerance), as a user asks for them: the
//! [`Checksum`] mode of a spec and which specs can have one. The weights, the regions of
//! records and the judge are the plan's (`plan::checksum`); fault injection is the
//! backends' (`backend::fault`).

use crate::error::{Error, Result};
use crate::spec::FftSpec;

/// Whether and how transforms are checked ([`FftSpec::checksum`]).
///
/// A fault is caught when it moves a transform's weighted sum past what rounding allows
/// (about `1e-5 · log2 n` of the output's norm in f32): a flip that makes a value huge, NaN
/// or infinite always does, and a change of a value's size mostly does; a change of a few
/// percent of one value may pass, as in any checksum scheme. A transform whose data hold a
/// NaN or infinity is reported too: no check can vouch for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Checksum {
    /// No check (the default): no extra work.
    #[default]
    Off,
    /// Check every transform; a call whose output fails the check returns
    /// [`Error::Checksum`] naming the transforms (batch indices). Its output is left as
    /// computed.
    Detect,
    /// As [`Checksum::Detect`], but the transforms that fail are computed again once from
    /// the input where the call still has it (host data, and
    /// [`crate::Fft::process_out_of_place`]); the error remains only if they fail again. A
    /// GPU buffer transformed in place ([`crate::Fft::process_buffer`]) has lost its input:
    /// there the failure is reported as with `Detect`. The CPU backend keeps each transform's
    /// input while it runs, and recomputes in every call.
    Recompute,
}

/// `Ok` when `spec` can be checksummed: complex transforms of any smooth length (prime
/// factors up to 31) in rows or columns, with fused load and store operations (the
/// checksum is of the transform itself: its input after the load operations, its output
/// before the store operations) but no chain.
pub(crate) fn supports(spec: &FftSpec) -> Result<()> {
    let refuse = |why: &str| {
        Err(Error::InvalidSpec(format!(
            "a checksummed transform must be {why}; checksum the transform alone and apply \
             the rest in a separate step"
        )))
    };
    if spec.real.is_some() {
        return refuse("complex (not a real transform's fused half)");
    }
    if spec.chain.is_some() {
        return refuse("a transform without a chain (a multiply and the inverse fused on)");
    }
    if !crate::base::factors::is_smooth(spec.n) {
        return Err(Error::InvalidSpec(format!(
            "a checksummed transform needs a length with no prime factor above 31 (n = {}): \
             Bluestein's convolution is not checksummed yet",
            spec.n
        )));
    }
    Ok(())
}

/// Whether a run that has failed its check `tries` times is run again: once, under
/// [`Checksum::Recompute`].
pub(crate) fn retry(spec: &FftSpec, tries: usize) -> bool {
    spec.checksum == Checksum::Recompute && tries < 2
}
