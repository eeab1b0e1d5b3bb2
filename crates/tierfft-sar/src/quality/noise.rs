//! Where to measure a focused image's noise for the targets' SNR.
//!
//! A point target's sidelobes run along its whole line (range sidelobes) and its whole
//! sample column (azimuth sidelobes), falling only as 1/distance² in power (−13 dB first,
//! unweighted): 400 range cells from a target, its line still holds −62 dB of its peak, more
//! than the noise of a well-focused scene (−85 dB below a unit target's peak for the
//! reference scene). Off both its line and its column the two multiply: 32 IRWs away on each
//! axis (28 resolution cells unweighted) their product peaks at −78 dB and averages −84 dB or
//! less over any region beyond, falling with both distances squared (weighted windows' far
//! sidelobes are lower still). So the noise is measured in a rectangle that shares no line
//! with a band of ±[`BAND_IRWS`] theoretical IRWs around any target's line and no sample with
//! the same band around any target's sample: the bands cut the image into a grid of free cells,
//! and the largest free line interval times the largest free sample interval is the largest
//! free cell. Bands from the placed positions need no fit, so a target that did not focus
//! still keeps its sidelobes out of the noise (taking the modelled responses out instead
//! would leave whatever the model misses, and fail with it).
//!
//! The rectangle lies in the lines and samples focused from a whole aperture and pulse
//! ([`crate::scene::extent::Extent`]'s `full_lines` and `full_samples`), where the noise has the
//! whole processing gain. When no free interval of [`MIN_SIDE`] fits there on an axis, that
//! axis takes the free interval of the whole image nearest the fully focused part (at most
//! [`FALLBACK_SIDE`] long, its end nearest that part: focused from most of the aperture, it
//! holds at least half the full noise power, usually 90 % of it, so the SNR reads at most
//! 3 dB high); when even that fails, narrower bands are tried (16, 8, 4 and 2 IRWs, the
//! sidelobes' bias growing as they narrow). Either way the region is marked not clean and a
//! warning says why; with no region even then, the targets get no SNR.

use std::ops::Range;

use serde::{Serialize, Serializer};

use crate::scene::extent::Extent;
use crate::scene::params::Config;

/// Half-width of the band excluded around each target's line and sample, theoretical IRWs.
pub const BAND_IRWS: f64 = 32.0;

/// Narrower bands tried, IRWs, when no region clears [`BAND_IRWS`].
const NARROWER_IRWS: [f64; 4] = [16.0, 8.0, 4.0, 2.0];

/// Fewest lines and samples of a noise region (256 samples estimate the mean power to 6 %,
/// 0.3 dB).
pub const MIN_SIDE: usize = 16;

/// Most lines (samples) taken from outside the fully focused ones, nearest them.
pub const FALLBACK_SIDE: usize = 64;

/// The rectangle of the image the SNR's noise is measured over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NoiseRegion {
    /// Image lines `[first, end)` (serialised as `[first, end]`).
    #[serde(serialize_with = "pair")]
    pub lines: Range<usize>,
    /// Image samples `[first, end)` (serialised as `[first, end]`).
    #[serde(serialize_with = "pair")]
    pub samples: Range<usize>,
    /// Whether it is clear of every target's sidelobe bands (±[`BAND_IRWS`] IRWs) and lies
    /// in the fully focused lines and samples; when not, the SNR is less trustworthy
    /// ([`NoiseChoice::warning`] says how).
    pub clean: bool,
}

/// `[start, end)` as a two-element list.
fn pair<S: Serializer>(r: &Range<usize>, s: S) -> Result<S::Ok, S::Error> {
    [r.start, r.end].serialize(s)
}

/// The noise region chosen for a scene, and why it is not clean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseChoice {
    /// Where to measure the noise; `None`: nowhere (the targets get no SNR).
    pub region: Option<NoiseRegion>,
    /// For the user, when the region is not clean or there is none.
    pub warning: Option<String>,
}

/// The image's extent as [`choose`] sees it: recorded and fully focused lines and samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spans {
    /// Image lines and samples, `(lines, samples)`.
    pub size: (usize, usize),
    /// Lines focused from a whole aperture, `[first, end)`.
    pub full_lines: Range<usize>,
    /// Samples focused from a whole pulse, `[first, end)`.
    pub full_samples: Range<usize>,
}

/// The noise region for targets placed at `placed` (fractional (line, sample) each) whose
/// theoretical IRWs are `irw_bins` (lines, samples), in an image of `spans` (see the module
/// docs for the rule and its fallbacks).
pub fn choose(placed: &[(f64, f64)], irw_bins: (f64, f64), spans: &Spans) -> NoiseChoice {
    let lines: Vec<f64> = placed.iter().map(|p| p.0).collect();
    let samples: Vec<f64> = placed.iter().map(|p| p.1).collect();
    for irws in std::iter::once(BAND_IRWS).chain(NARROWER_IRWS) {
        let on_lines = axis(spans.size.0, &spans.full_lines, &lines, irws * irw_bins.0);
        let on_samples = axis(
            spans.size.1,
            &spans.full_samples,
            &samples,
            irws * irw_bins.1,
        );
        let (Some((l, l_full)), Some((s, s_full))) = (on_lines, on_samples) else {
            continue;
        };
        let region = NoiseRegion {
            lines: l,
            samples: s,
            clean: irws == BAND_IRWS && l_full && s_full,
        };
        let warning = (!region.clean).then(|| unclean(&region, placed, irw_bins, spans));
        return NoiseChoice {
            region: Some(region),
            warning,
        };
    }
    NoiseChoice {
        region: None,
        warning: Some(format!(
            "no region of {MIN_SIDE} x {MIN_SIDE} lines and samples lies {} IRWs or more \
             from every target's line and sample: no SNR",
            NARROWER_IRWS[NARROWER_IRWS.len() - 1]
        )),
    }
}

/// Why `region` is not clean, for the user.
fn unclean(
    region: &NoiseRegion,
    placed: &[(f64, f64)],
    irw_bins: (f64, f64),
    spans: &Spans,
) -> String {
    let near = |c: f64, half: f64, r: &Range<usize>| {
        c + half >= r.start as f64 && c - half <= r.end as f64 - 1.0
    };
    let held: Vec<String> = placed
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            near(p.0, BAND_IRWS * irw_bins.0, &region.lines)
                || near(p.1, BAND_IRWS * irw_bins.1, &region.samples)
        })
        .map(|(k, _)| (k + 1).to_string())
        .collect();
    let mut why = Vec::new();
    if !held.is_empty() {
        let s = if held.len() == 1 { "" } else { "s" };
        why.push(format!(
            "holds the sidelobes of target{s} {} (within {BAND_IRWS} IRWs of their line or \
             sample: SNR too low)",
            held.join(", ")
        ));
    }
    let outside = |r: &Range<usize>, full: &Range<usize>| r.start < full.start || r.end > full.end;
    let f = (&spans.full_lines, &spans.full_samples);
    if outside(&region.lines, f.0) || outside(&region.samples, f.1) {
        why.push(format!(
            "reaches outside the fully focused lines {}..{} and samples {}..{} (focused from \
             part of the aperture or pulse, less noise: SNR up to 3 dB too high)",
            f.0.start, f.0.end, f.1.start, f.1.end
        ));
    }
    format!(
        "no region of {MIN_SIDE} x {MIN_SIDE} or more in the fully focused image is clear of \
         the targets' sidelobes ({BAND_IRWS} IRWs either side of each target's line and \
         sample): SNR measured over lines {}..{}, samples {}..{}, which {}",
        region.lines.start,
        region.lines.end,
        region.samples.start,
        region.samples.end,
        why.join(" and ")
    )
}

/// The noise region along one axis of `len` bins, clear of bands `half` bins either side of
/// each of `centres`: the longest free interval within `full` (`true`), or else the free
/// interval nearest `full`, its [`FALLBACK_SIDE`] bins nearest it (`false`); at least
/// [`MIN_SIDE`] long.
fn axis(
    len: usize,
    full: &Range<usize>,
    centres: &[f64],
    half: f64,
) -> Option<(Range<usize>, bool)> {
    let free = free_intervals(len, centres, half);
    let inside = free
        .iter()
        .map(|r| r.start.max(full.start)..r.end.min(full.end))
        .filter(|r| r.len() >= MIN_SIDE)
        .max_by_key(|r| (r.len(), std::cmp::Reverse(r.start)));
    if let Some(r) = inside {
        return Some((r, true));
    }
    let gap = |r: &Range<usize>| {
        full.start
            .saturating_sub(r.end)
            .max(r.start.saturating_sub(full.end))
    };
    let nearest = free
        .into_iter()
        .filter(|r| r.len() >= MIN_SIDE)
        .min_by_key(|r| (gap(r), r.start))?;
    // Its part nearest the fully focused bins' middle.
    let side = nearest.len().min(FALLBACK_SIDE);
    let middle = (full.start + full.end) / 2;
    let start = middle
        .saturating_sub(side / 2)
        .clamp(nearest.start, nearest.end - side);
    Some((start..start + side, false))
}

/// The intervals of `0..len` with no bin within `half` of any of `centres`, in order.
fn free_intervals(len: usize, centres: &[f64], half: f64) -> Vec<Range<usize>> {
    let mut bands: Vec<(f64, f64)> = centres.iter().map(|&c| (c - half, c + half)).collect();
    bands.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Float to bin index, clamped to 0..=len (`as` saturates, NaN to 0).
    let bin = |x: f64| (x.max(0.0) as usize).min(len);
    let mut free = Vec::new();
    let mut at = 0;
    for (lo, hi) in bands {
        // Bins i with lo ≤ i ≤ hi are in the band.
        let end = bin(lo.ceil());
        if end > at {
            free.push(at..end);
        }
        at = at.max(bin(hi.floor() + 1.0));
    }
    if at < len {
        free.push(at..len);
    }
    free
}

impl Extent {
    /// Where to measure the image's noise for `config`'s targets, whose theoretical IRWs are
    /// `irw_bins` (lines, samples): the largest rectangle of fully focused lines and samples
    /// clear of every target's sidelobe bands (this module, with its fallbacks). Nowhere
    /// without targets: the noise is measured for their SNR.
    pub fn noise_region(&self, config: &Config, irw_bins: (f64, f64)) -> NoiseChoice {
        if config.scene.targets.is_empty() {
            return NoiseChoice {
                region: None,
                warning: None,
            };
        }
        let placed = config.target_positions();
        let spans = Spans {
            size: (self.lines, self.samples),
            full_lines: self.full_lines.0..self.full_lines.1,
            full_samples: self.full_samples.0..self.full_samples.1,
        };
        choose(&placed, irw_bins, &spans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The extent of a 1024² image whose first and last 100 lines and 60 samples were
    /// focused from part of their echoes.
    fn spans() -> Spans {
        Spans {
            size: (1024, 1024),
            full_lines: 100..924,
            full_samples: 60..964,
        }
    }

    /// (lines, samples) of one IRW: 2 lines, 1.06 samples.
    const IRW: (f64, f64) = (2.0, 1.063);

    /// Whether `r` keeps `bins` or more bins away from every one of `centres`.
    fn clear(r: &Range<usize>, centres: impl Iterator<Item = f64>, bins: f64) -> bool {
        centres
            .into_iter()
            .all(|c| r.start as f64 > c + bins || (r.end as f64 - 1.0) < c - bins)
    }

    #[test]
    fn free_intervals_leave_out_each_band() {
        assert_eq!(free_intervals(100, &[], 5.0), vec![0..100]);
        assert_eq!(free_intervals(100, &[50.0], 5.0), vec![0..45, 56..100]);
        assert_eq!(free_intervals(100, &[50.5], 5.0), vec![0..46, 56..100]);
        // Overlapping bands, one past the start, one past the end.
        assert_eq!(
            free_intervals(100, &[60.0, 2.0, 52.0, 99.0], 4.0),
            vec![7..48, 65..95]
        );
        assert!(free_intervals(10, &[5.0], 20.0).is_empty());
    }

    #[test]
    fn the_region_avoids_every_targets_bands() {
        // Today's first-eighth box (lines 100..203, samples 60..173) holds target 2's sample
        // and target 3's line.
        let placed = [(512.0, 512.0), (700.0, 120.0), (150.0, 800.0)];
        let choice = choose(&placed, IRW, &spans());
        let region = choice.region.expect("a region");
        assert!(region.clean, "{region:?}");
        assert_eq!(choice.warning, None);
        let band = (BAND_IRWS * IRW.0, BAND_IRWS * IRW.1);
        assert!(clear(&region.lines, placed.iter().map(|p| p.0), band.0));
        assert!(clear(&region.samples, placed.iter().map(|p| p.1), band.1));
        // The largest free cell: lines 215..448 (between targets 3 and 1), samples
        // 155..478 (between targets 2 and 1).
        assert_eq!((&region.lines, &region.samples), (&(215..448), &(155..478)));
        // With no targets, the whole fully focused image.
        let none = choose(&[], IRW, &spans()).region.expect("a region");
        assert_eq!((none.lines, none.samples), (100..924, 60..964));
    }

    #[test]
    fn a_crowded_scene_gets_a_marked_region_or_none() {
        // Targets every 40 lines and 20 samples: no fully focused line or sample clears
        // 32 IRWs (64 lines, 34 samples) of them, and none of the image either.
        let placed: Vec<(f64, f64)> = (0..26)
            .map(|k| (k as f64 * 40.0 + 10.0, k as f64 * 40.0 + 10.0))
            .collect();
        let choice = choose(&placed, IRW, &spans());
        let region = choice.region.expect("a region");
        assert!(!region.clean);
        // 16 and 8 IRWs leave gaps of 7 lines at most; 4 IRWs (8 lines) leave 23.
        assert_eq!((&region.lines, &region.samples), (&(139..162), &(95..126)));
        assert!(clear(
            &region.lines,
            placed.iter().map(|p| p.0),
            4.0 * IRW.0
        ));
        assert!(clear(
            &region.samples,
            placed.iter().map(|p| p.1),
            4.0 * IRW.1
        ));
        let warning = choice.warning.expect("a warning");
        assert!(
            warning.contains("holds the sidelobes of targets"),
            "{warning}"
        );
        assert!(
            warning.contains(&format!(
                "lines {}..{}",
                region.lines.start, region.lines.end
            )),
            "{warning}"
        );
        // A scene of 16 × 16 with a target in the middle: nowhere 2 IRWs from it.
        let tiny = Spans {
            size: (16, 16),
            full_lines: 8..8,
            full_samples: 8..8,
        };
        let choice = choose(&[(8.0, 8.0)], IRW, &tiny);
        assert_eq!(choice.region, None);
        assert!(choice.warning.expect("a warning").contains("no SNR"));
    }

    #[test]
    fn partly_focused_lines_serve_when_the_full_ones_are_taken() {
        // The fully focused lines 400..624 all lie within 64 lines of a target; lines
        // 0..336 and 688..1024 are free.
        let spans = Spans {
            full_lines: 400..624,
            ..spans()
        };
        let placed = [(400.0, 512.0), (512.0, 512.0), (624.0, 512.0)];
        let choice = choose(&placed, IRW, &spans);
        let region = choice.region.expect("a region");
        assert!(!region.clean);
        // The 64 free lines nearest the fully focused ones.
        assert_eq!(region.lines, 272..336);
        assert_eq!(region.samples, 60..478);
        let warning = choice.warning.expect("a warning");
        assert!(
            warning.contains("outside the fully focused lines 400..624"),
            "{warning}"
        );
        assert!(!warning.contains("holds the sidelobes"), "{warning}");
        let json = serde_json::to_value(&region).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"lines": [272, 336], "samples": [60, 478], "clean": false})
        );
    }
}
