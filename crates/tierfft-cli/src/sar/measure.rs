//! The measured targets of `tierfft sar` as tables on the terminal (the measuring itself is
//! `tierfft_sar::quality::measure`).

use tierfft_sar::quality::measure::{TargetReport, Theories};
use tierfft_sar::quality::metrics::PointMetrics;

/// Prints the targets as imaged and alone, each table with a row of theory, or a line saying
/// there are none (the image's speckle is measured instead).
pub fn print_tables(targets: &[TargetReport], theory: &Theories) {
    if targets.is_empty() {
        println!(
            "no targets to measure (a config's [[scene.targets]] lists them for --raw echoes): \
             the image's speckle instead"
        );
        return;
    }
    print_table("as imaged", targets, theory, |t| t.metrics.as_ref());
    print_table(
        "alone: every other target's modelled response taken out (docs/SAR.md)",
        targets,
        theory,
        |t| t.alone.as_ref(),
    );
}

/// Column headings and their units: positions as placed, the peak's offset from where it was
/// placed (measured − placed), widths at −3 dB, sidelobe ratios and SNR.
const HEADINGS: [[&str; 11]; 2] = [
    [
        "range", "azimuth", "Δline", "Δsample", "IRW rg", "IRW az", "PSLR rg", "PSLR az",
        "ISLR rg", "ISLR az", "SNR",
    ],
    [
        "m", "m", "lines", "samples", "samples", "lines", "dB", "dB", "dB", "dB", "dB",
    ],
];

/// One table of target metrics, then theory's row for the windows used.
fn print_table(
    title: &str,
    targets: &[TargetReport],
    theory: &Theories,
    pick: fn(&TargetReport) -> Option<&PointMetrics>,
) {
    println!("{title}");
    for row in HEADINGS {
        println!(
            "{:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7}",
            row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10]
        );
    }
    for t in targets {
        let Some(m) = pick(t) else {
            println!(
                "{:>10.1} {:>8.1}  not measured: {}",
                t.range_m,
                t.azimuth_m,
                t.error.as_deref().unwrap_or("-")
            );
            continue;
        };
        println!(
            "{:>10.1} {:>8.1} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7}",
            t.range_m,
            t.azimuth_m,
            m.azimuth.peak_position - t.expected.0,
            m.range.peak_position - t.expected.1,
            m.range.irw_bins,
            m.azimuth.irw_bins,
            m.range.pslr_db,
            m.azimuth.pslr_db,
            m.range.islr_db,
            m.azimuth.islr_db,
            m.peak_snr_db.map_or("-".into(), |snr| format!("{snr:.1}"))
        );
    }
    println!(
        "{:>10} {:>8} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7}",
        "theory",
        "",
        0.0,
        0.0,
        theory.irw_bins.1,
        theory.irw_bins.0,
        theory.range.pslr_db,
        theory.azimuth.pslr_db,
        theory.range.islr_db,
        theory.azimuth.islr_db,
        "-"
    );
}
