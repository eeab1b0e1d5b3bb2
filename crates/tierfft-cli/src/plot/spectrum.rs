//! The figure of `tierfft fft2d`: an image's 2-D spectrum, centred (zero frequency in the
//! middle), in dB of its strongest non-zero frequency, with axes in cycles per image and a
//! colour bar, and the filter's cut-off drawn on it.

use plotters::prelude::*;

use super::scale::{Scale, draw_colour_bar};
use super::{Rgb, render};
use crate::CliResult;

/// Figure size, pixels.
const SIZE: (u32, u32) = (1100, 1000);

/// Height of the band above the picture for the title, pixels.
const TEXT_BAND: u32 = 70;

/// Width of the colour bar and its labels, pixels.
const BAR_AREA: u32 = 130;

/// What the figure shows.
pub struct Spectrum<'a> {
    /// dB of each bin of the full `height × width` spectrum, centred: row `r`, column `c`
    /// is frequency (`r − height/2`, `c − width/2`) cycles per image.
    pub db: &'a [f32],
    /// Image rows.
    pub height: usize,
    /// Image columns.
    pub width: usize,
    /// Title.
    pub title: String,
    /// Subtitle.
    pub subtitle: String,
    /// A filter's cut-off radius, cycles per image, drawn as a circle.
    pub cutoff: Option<f64>,
}

/// Draws the spectrum figure.
pub fn spectrum_figure(s: &Spectrum) -> CliResult<Rgb> {
    let (h, w) = (s.height as f64, s.width as f64);
    let (x0, y0) = (
        -(s.width as f64 / 2.0).floor(),
        -(s.height as f64 / 2.0).floor(),
    );
    let scale = Scale::fixed("dB of the strongest non-zero frequency");
    render(SIZE, |root| {
        let (text, picture) = root.split_vertically(TEXT_BAND);
        text.draw(&Text::new(
            s.title.clone(),
            (90, 10),
            ("sans-serif", 22).into_font(),
        ))?;
        text.draw(&Text::new(
            s.subtitle.clone(),
            (90, 42),
            ("sans-serif", 16).into_font(),
        ))?;
        let (main, _) = picture.split_horizontally(SIZE.0 - BAR_AREA);
        let mut chart = ChartBuilder::on(&main)
            .margin(10)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x0 + w, y0..y0 + h)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("horizontal frequency (cycles per image width)")
            .y_desc("vertical frequency (cycles per image height)")
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()?;
        // Pixel by pixel: each pixel's centre looked up in the spectrum (nearest bin);
        // frequencies grow upwards.
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        for py in ys.clone() {
            let fy = 1.0 - ((py - ys.start) as f64 + 0.5) / ys.len() as f64;
            let row = ((fy * h) as usize).min(s.height - 1);
            for px in xs.clone() {
                let fx = ((px - xs.start) as f64 + 0.5) / xs.len() as f64;
                let col = ((fx * w) as usize).min(s.width - 1);
                root.draw_pixel((px, py), &scale.colour(s.db[row * s.width + col]))?;
            }
        }
        if let Some(r) = s.cutoff {
            let circle = (0..=360).map(|d| {
                let a = (d as f64).to_radians();
                (r * a.cos(), r * a.sin())
            });
            chart.draw_series(LineSeries::new(circle, RED.stroke_width(2)))?;
        }
        draw_colour_bar(root, (SIZE.0 - BAR_AREA) as i32 + 20, ys, &scale)?;
        Ok(())
    })
}
