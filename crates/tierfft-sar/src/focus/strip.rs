//! Long strips focused in blocks of lines, for recordings longer than a device holds.
//!
//! Image line L is focused from the echoes of lines L − ahead .. L + behind
//! ([`Extent::reach`]: the aperture over which the squinted beam lights a target). A block of
//! `block` image lines therefore needs `ahead + block + behind` lines of echoes (a chunk,
//! rounded up to an efficient FFT length by widening the block), zeros standing in for lines
//! outside the strip as the margins do for a whole scene. Every chunk is focused by one
//! [`Focuser`] (planned once; margins in range only: the chunk's own lines are its azimuth
//! margin) and its middle `block` lines are the image's. Blocks are written over the echoes
//! in place once no later block reads those lines, so the strip needs one chunk of memory
//! beyond itself, and the image is one array as if focused whole.

use std::collections::VecDeque;

use num_complex::Complex32;
use tierfft::Device;

use crate::error::SarError;
use crate::focus::focuser::Focuser;
use crate::focus::options::{FocusOptions, StepTimings};
use crate::scene::extent::{Extent, fft_length};
use crate::scene::params::Config;

/// A strip's focusing in blocks, planned for one device.
pub struct StripFocuser {
    focuser: Focuser,
    /// Image lines per block.
    block: usize,
    /// Lines of echoes per block: `ahead + block + behind`.
    chunk: usize,
    /// Lines of echoes before a block's first image line that it reads.
    ahead: usize,
    /// The strip's lines and samples.
    lines: usize,
    samples: usize,
}

impl StripFocuser {
    /// Plans `strip`'s focusing in blocks of at least `block_lines` image lines (widened to
    /// fill an efficient FFT length).
    pub fn new(
        device: &Device,
        strip: &Config,
        opts: FocusOptions,
        block_lines: usize,
    ) -> Result<StripFocuser, SarError> {
        strip.validate()?;
        if block_lines == 0 {
            return Err(SarError::Config("blocks need at least one line".into()));
        }
        let (ahead, behind) = Extent::reach(strip);
        let (piece, extent) = StripFocuser::chunk(strip, opts, block_lines);
        piece.validate()?;
        let chunk = piece.scene.lines;
        Ok(StripFocuser {
            focuser: Focuser::at(device, &piece, opts, extent)?,
            block: chunk - ahead - behind,
            chunk,
            ahead,
            lines: strip.scene.lines,
            samples: strip.scene.samples,
        })
    }

    /// The scene each block of `block_lines` image lines focuses (`ahead + block + behind`
    /// lines rounded up to an efficient FFT length, without the strip's targets), and the
    /// extent it is processed at (margins in range only): what planning allocates, for
    /// memory estimates ([`crate::focus::focuser::memory_needs`]).
    pub fn chunk(strip: &Config, opts: FocusOptions, block_lines: usize) -> (Config, Extent) {
        let (ahead, behind) = Extent::reach(strip);
        let mut piece = strip.clone();
        piece.scene.lines = fft_length(block_lines.max(1) + ahead + behind);
        piece.scene.targets.clear();
        let extent = Extent::of(&piece, opts.margins).without_azimuth_margin();
        (piece, extent)
    }

    /// Whether the blocks' steps include secondary range compression.
    pub fn src(&self) -> bool {
        self.focuser.src()
    }

    /// Image lines per block.
    pub fn block_lines(&self) -> usize {
        self.block
    }

    /// Blocks the strip is focused in.
    pub fn blocks(&self) -> usize {
        self.lines.div_ceil(self.block)
    }

    /// Lines of echoes each block is focused from (its FFT length in azimuth).
    pub fn chunk_lines(&self) -> usize {
        self.chunk
    }

    /// Focuses the strip's echoes `data` (`[lines][samples]`) into its image, in place;
    /// `progress(done, blocks)` hears each block finish. Timings are summed over blocks (the
    /// copies between the strip and the chunk are host work, in none of them).
    pub fn focus(
        &self,
        data: &mut [Complex32],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<StepTimings, SarError> {
        let (lines, samples) = (self.lines, self.samples);
        if data.len() != lines * samples {
            return Err(SarError::Config(format!(
                "the data hold {} samples, the strip {lines} × {samples}",
                data.len()
            )));
        }
        let mut piece = vec![Complex32::new(0.0, 0.0); self.chunk * samples];
        // Focused blocks (first line, lines) waiting until no later block reads their echoes.
        let mut pending: VecDeque<(usize, Vec<Complex32>)> = VecDeque::new();
        let mut total = StepTimings::default();
        let blocks = self.blocks();
        for b in 0..blocks {
            let first = b * self.block;
            let end = (first + self.block).min(lines);
            // This block and the later ones read from line `first − ahead` on.
            let start = first as isize - self.ahead as isize;
            // Blocks are pending in line order: write those that end before `start`.
            while let Some((f, image)) = pending.front() {
                if (f + image.len() / samples) as isize > start {
                    break;
                }
                data[f * samples..][..image.len()].copy_from_slice(image);
                pending.pop_front();
            }
            for (j, row) in piece.chunks_mut(samples).enumerate() {
                let line = start + j as isize;
                match line >= 0 && (line as usize) < lines {
                    true => row.copy_from_slice(&data[line as usize * samples..][..samples]),
                    false => row.fill(Complex32::new(0.0, 0.0)),
                }
            }
            let t = self.focuser.focus(&mut piece, |_| {})?;
            total.add(&t);
            let image = piece[self.ahead * samples..][..(end - first) * samples].to_vec();
            pending.push_back((first, image));
            progress(b + 1, blocks);
        }
        for (f, image) in pending {
            data[f * samples..][..image.len()].copy_from_slice(&image);
        }
        Ok(total)
    }
}
