//! The files `tierfft sar` writes, in two batches that run on threads of their own beside
//! the work that follows them: the echoes' (raw.png, and with the options raw.npy with its
//! scene.toml, the range-compressed image) beside estimating the centroid and planning, and
//! the image's (image.png, focused.npy, the looks) beside measuring it. Errors come back as
//! text, since the command's error type does not cross threads.

use tierfft::Complex32;
use tierfft_sar::scene::params::Config;

use super::{figures, write_looks, write_scene};
use crate::npy;
use crate::outdir::Staged;
use crate::plot;

/// What the echoes' batch writes.
pub(super) struct EchoFiles<'a> {
    /// The echoes, `[lines][samples]`.
    pub data: &'a [Complex32],
    /// Also raw.npy and scene.toml (`--write-raw`).
    pub write_raw: bool,
    /// The echoes compressed in range alone, for range_compressed.npy and .png.
    pub compressed: Option<&'a [Complex32]>,
}

/// Writes the echoes' files of `config`'s scene into `out`.
pub(super) fn write_echoes(out: &Staged, config: &Config, files: &EchoFiles) -> Result<(), String> {
    let text = |e: tierfft_cli::CliError| e.to_string();
    let (lines, samples) = (config.scene.lines, config.scene.samples);
    let shape = [lines as u64, samples as u64];
    if files.write_raw {
        npy::write_atomic(&out.path("raw.npy"), &shape, files.data).map_err(text)?;
        write_scene(out, config).map_err(text)?;
    }
    figures::raw(&out.path("raw.png"), files.data, config).map_err(text)?;
    if let Some(compressed) = files.compressed {
        npy::write_atomic(&out.path("range_compressed.npy"), &shape, compressed).map_err(text)?;
        let image = plot::Focused::new(compressed, lines, samples).map_err(text)?;
        figures::range_compressed(&out.path("range_compressed.png"), &image, config)
            .map_err(text)?;
    }
    Ok(())
}

/// Writes the focused `image`'s files (image.png, focused.npy, and with `looks` the
/// multi-looked product) of `config`'s scene into `out`.
pub(super) fn write_image(
    out: &Staged,
    config: &Config,
    image: &plot::Focused,
    looks: Option<(usize, usize)>,
) -> Result<(), String> {
    let text = |e: tierfft_cli::CliError| e.to_string();
    let (lines, samples) = (image.lines, image.samples);
    std::thread::scope(|s| {
        // The picture and the array at once: one draws, the other writes.
        let picture =
            s.spawn(|| figures::image(&out.path("image.png"), image, config).map_err(text));
        let shape = [lines as u64, samples as u64];
        npy::write_atomic(&out.path("focused.npy"), &shape, image.data).map_err(text)?;
        if let Some(looks) = looks {
            write_looks(out, image.data, (lines, samples), looks, config).map_err(text)?;
        }
        picture
            .join()
            .map_err(|_| "drawing image.png panicked".to_string())?
    })
}
