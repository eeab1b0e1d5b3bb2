//! Colour scales of the dB pictures: viridis from a floor to 0 dB, the bar beside a picture
//! that says what 0 dB is and which range is shown, and a floor chosen from a picture's own
//! values so that its noise shows as texture rather than as black.

use std::ops::Range;

use plotters::backend::RGBPixel;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontTransform;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::DYNAMIC_RANGE_DB;
use crate::CliResult;

/// Percentile of a picture's values put at the bottom of its scale: nearly all of its noise
/// shows above it.
pub const FLOOR_PERCENTILE: usize = 5;

/// Most a scale chosen from the data spans, dB: deep enough for the reference scene's noise
/// (85 dB below its targets' peaks after the processing gain), while a scene without noise is
/// not stretched down to the f32 rounding floor (near −140 dB).
pub const MAX_RANGE_DB: f32 = 100.0;

/// Least a scale chosen from the data spans, dB: a flat picture (echoes) is not stretched
/// over the whole colour map.
pub const MIN_RANGE_DB: f32 = 20.0;

/// Width of the bar, pixels.
const BAR_WIDTH: i32 = 26;

/// A dB colour scale: `floor_db` at the bottom of the colour map (dark blue), 0 dB at the
/// top (yellow).
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    /// dB at the bottom of the map, negative: it and everything below get the darkest colour.
    pub floor_db: f32,
    /// Written along the bar: what 0 dB is, and how the range was chosen.
    pub label: String,
}

impl Scale {
    /// The fixed scale of the crops and the overview: −[`DYNAMIC_RANGE_DB`] to 0 dB.
    pub fn fixed(reference: &str) -> Scale {
        Scale {
            floor_db: -DYNAMIC_RANGE_DB,
            label: reference.to_string(),
        }
    }

    /// A scale for the values `db` (dB of `reference`, 0 at the top): the floor at their
    /// [`FLOOR_PERCENTILE`]th percentile, rounded down to a whole dB, kept between
    /// [`MIN_RANGE_DB`] and [`MAX_RANGE_DB`] below 0. Non-finite values are left out; with
    /// none left the scale is [`Scale::fixed`].
    pub fn from_data(db: &[f32], reference: &str) -> Scale {
        let mut finite: Vec<f32> = db.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.is_empty() {
            return Scale::fixed(reference);
        }
        let k = finite.len() * FLOOR_PERCENTILE / 100;
        let (_, &mut low, _) = finite.select_nth_unstable_by(k, f32::total_cmp);
        let floor = low.floor();
        let (floor_db, why) = if floor < -MAX_RANGE_DB {
            (-MAX_RANGE_DB, format!("{MAX_RANGE_DB:.0} dB shown"))
        } else if floor > -MIN_RANGE_DB {
            (
                -MIN_RANGE_DB,
                format!("at least {MIN_RANGE_DB:.0} dB shown"),
            )
        } else {
            (floor, format!("floor: the {FLOOR_PERCENTILE}th percentile"))
        };
        Scale {
            floor_db,
            label: format!("{reference}, {floor_db:.0} to 0 ({why})"),
        }
    }

    /// Position of `db` on the scale: 0 at the floor and below, 1 at 0 dB and above.
    pub fn level(&self, db: f32) -> f32 {
        ((db - self.floor_db) / -self.floor_db).clamp(0.0, 1.0)
    }

    /// The colour of `db` (dB of the reference): viridis from the floor to 0 dB.
    pub fn colour(&self, db: f32) -> RGBColor {
        ViridisRGB::get_color(self.level(db))
    }

    /// dB values labelled on the bar: every `step` from 0 (10 dB, 5 below 30 dB of range)
    /// down to the floor, and the floor itself, which replaces a tick too close to it to
    /// write both (closer than a sixth of a step).
    pub fn ticks(&self) -> Vec<f32> {
        let step = if self.floor_db <= -30.0 { 10.0 } else { 5.0 };
        let mut ticks: Vec<f32> = (0..)
            .map(|i| -step * i as f32)
            .take_while(|&db| db >= self.floor_db)
            .collect();
        if let Some(&last) = ticks.last()
            && last - self.floor_db < step / 6.0
        {
            ticks.pop();
        }
        ticks.push(self.floor_db);
        ticks
    }
}

/// Draws `scale`'s bar at pixel column `x` beside a picture whose plotting area spans pixel
/// rows `rows` (0 dB at the top): ticks with their dB, "dB" above, and the scale's label
/// along its right side.
pub(crate) fn draw_colour_bar(
    area: &DrawingArea<BitMapBackend<'_, RGBPixel>, Shift>,
    x: i32,
    rows: Range<i32>,
    scale: &Scale,
) -> CliResult<()> {
    let height = (rows.end - rows.start).max(1);
    let row_of = |db: f32| rows.start + (db / scale.floor_db * (height - 1) as f32).round() as i32;
    for py in rows.clone() {
        let db = scale.floor_db * (py - rows.start) as f32 / (height - 1).max(1) as f32;
        area.draw(&PathElement::new(
            [(x, py), (x + BAR_WIDTH, py)],
            scale.colour(db),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x - 1, rows.start - 1), (x + BAR_WIDTH + 1, rows.end)],
        BLACK.stroke_width(1),
    ))?;
    for db in scale.ticks() {
        let y = row_of(db);
        area.draw(&PathElement::new(
            [(x + BAR_WIDTH, y), (x + BAR_WIDTH + 6, y)],
            BLACK,
        ))?;
        area.draw(&Text::new(
            super::tick(&f64::from(db)),
            (x + BAR_WIDTH + 9, y - 8),
            ("sans-serif", 15).into_font(),
        ))?;
    }
    area.draw(&Text::new(
        "dB".to_string(),
        (x, rows.start - 30),
        ("sans-serif", 17).into_font(),
    ))?;
    let along = TextStyle::from(
        ("sans-serif", 15)
            .into_font()
            .transform(FontTransform::Rotate270),
    )
    .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(
        scale.label.clone(),
        (x + BAR_WIDTH + 62, (rows.start + rows.end) / 2),
        along,
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_scale_spans_fifty_db() {
        let s = Scale::fixed("dB");
        assert_eq!(s.level(0.0), 1.0);
        assert_eq!(s.level(3.0), 1.0, "above the peak saturates");
        assert_eq!(s.level(-25.0), 0.5);
        assert_eq!(s.level(-50.0), 0.0);
        assert_eq!(s.level(-80.0), 0.0);
        assert_eq!(s.ticks(), [0.0, -10.0, -20.0, -30.0, -40.0, -50.0]);
    }

    #[test]
    fn a_data_scale_starts_at_the_low_percentile_within_limits() {
        // 0 .. −199.8 dB evenly: the 5th percentile is −189.8 dB, below the 100 dB limit.
        let wide: Vec<f32> = (0..1000).map(|i| -0.2 * i as f32).collect();
        assert_eq!(Scale::from_data(&wide, "dB").floor_db, -MAX_RANGE_DB);
        // 0 .. −59.94 dB: the 5th percentile is −56.94 dB, rounded down.
        let noise: Vec<f32> = (0..1000).map(|i| -0.06 * i as f32).collect();
        let s = Scale::from_data(&noise, "dB of the peak");
        assert_eq!(s.floor_db, -57.0);
        assert!(
            s.label.starts_with("dB of the peak, -57 to 0"),
            "{}",
            s.label
        );
        // Floor −57: ticks every 10 dB, −50 kept (7 dB above it), the floor written.
        assert_eq!(s.ticks(), [0.0, -10.0, -20.0, -30.0, -40.0, -50.0, -57.0]);
        // A flat picture keeps 20 dB; NaN is left out.
        let flat = [0.0, -1.0, -2.0, f32::NAN];
        assert_eq!(Scale::from_data(&flat, "dB").floor_db, -MIN_RANGE_DB);
        assert_eq!(
            Scale::from_data(&[f32::NAN], "dB").floor_db,
            -DYNAMIC_RANGE_DB
        );
        // A tick a dB above the floor gives way to it.
        let s = Scale {
            floor_db: -41.0,
            label: String::new(),
        };
        assert_eq!(s.ticks(), [0.0, -10.0, -20.0, -30.0, -41.0]);
    }
}
