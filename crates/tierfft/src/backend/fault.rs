//! Faults injected on purpose, to test what checksummed transforms catch.

use crate::error::{Error, Result};

/// A bit to flip in device memory during a plan's next run, to test what the checksummed
/// mode catches ([`crate::Fft::inject_fault`]): bit `bit` of 4-byte word `word` of the
/// buffer that pass `after_pass` writes, flipped once that pass has run over the whole call
/// (or host chunk) and before the next pass reads it. On the CPU backend, which has no
/// passes, the word is the input's, flipped after its checksum is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Fault {
    /// The pass after which the bit flips (0 = after the first).
    pub after_pass: usize,
    /// The 4-byte word (index into the pass's output buffer, as the run lays it out).
    pub word: usize,
    /// The bit, 0..32 (23..31 are an f32's exponent).
    pub bit: u32,
}

impl Fault {
    /// Bit `bit` of word `word` of the buffer pass `after_pass` writes.
    pub fn new(after_pass: usize, word: usize, bit: u32) -> Fault {
        Fault {
            after_pass,
            word,
            bit,
        }
    }
}

/// A fault armed for an executor's next run ([`crate::Fft::inject_fault`]).
#[derive(Debug, Default)]
pub(crate) struct Armed(std::sync::Mutex<Option<Fault>>);

impl Armed {
    /// Arms `fault` for the next run.
    pub(crate) fn arm(&self, fault: Fault) -> Result<()> {
        *self
            .0
            .lock()
            .map_err(|_| Error::gpu("a call panicked while arming a fault"))? = Some(fault);
        Ok(())
    }

    /// The armed fault, disarmed.
    pub(crate) fn take(&self) -> Option<Fault> {
        self.0.lock().ok().and_then(|mut f| f.take())
    }
}

impl Fault {
    /// `Ok` when `plan` has a pass `after_pass` and `bit` is a bit of a word.
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    pub(crate) fn check(&self, plan: &crate::plan::Plan) -> Result<()> {
        if self.bit >= 32 || self.after_pass >= plan.passes.len() {
            return Err(Error::InvalidSpec(format!(
                "a fault flips bit 0..32 of a word after one of the plan's {} passes (got bit \
                 {} after pass {})",
                plan.passes.len(),
                self.bit,
                self.after_pass
            )));
        }
        Ok(())
    }

    /// `x` with the bit flipped.
    pub(crate) fn apply(&self, x: f32) -> f32 {
        f32::from_bits(x.to_bits() ^ (1 << self.bit))
    }

    /// The error for a word past the `len` words of the buffer.
    #[cfg(any(feature = "cuda", feature = "wgpu"))]
    pub(crate) fn out_of_range(&self, len: usize) -> Error {
        Error::InvalidSpec(format!(
            "the fault's word {} lies past the {len} words of pass {}'s output",
            self.word, self.after_pass
        ))
    }
}
