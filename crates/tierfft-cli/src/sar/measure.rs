//! The measured targets of `tierfft sar` as tables on the terminal (the measuring itself is
//! `tierfft_sar::measure`).

use tierfft_sar::measure::TargetReport;
use tierfft_sar::metrics::PointMetrics;

/// Prints the targets as imaged and alone, or a line saying there are none.
pub fn print_tables(targets: &[TargetReport]) {
    if targets.is_empty() {
        println!("no targets to measure (list them as [[scene.targets]] in the config)");
        return;
    }
    print_table("as imaged", targets, |t| t.metrics.as_ref());
    print_table(
        "alone: every other target's modelled response taken out (docs/SAR.md)",
        targets,
        |t| t.alone.as_ref(),
    );
}

/// One table of target metrics: position errors (measured − placed), widths in bins, dB.
fn print_table(
    title: &str,
    targets: &[TargetReport],
    pick: fn(&TargetReport) -> Option<&PointMetrics>,
) {
    println!("{title}");
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8} {:>7}",
        "range m",
        "az m",
        "Δline",
        "Δsample",
        "IRW rg",
        "IRW az",
        "PSLR rg",
        "PSLR az",
        "ISLR rg",
        "ISLR az",
        "SNR dB"
    );
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
            "{:>10.1} {:>8.1} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>7.1}",
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
            m.peak_snr_db.unwrap_or(f64::NAN)
        );
    }
}
