//! The wisdom file's reader: any text either fails to parse with an error, or parses into
//! entries that print back to the same wisdom and whose choices plan (or are refused) like
//! any planner options, on every device profile.

use tierfft::FftSpec;
use tierfft::fuzzing::check_plan;
use tierfft::plan::wisdom::Wisdom;
use tierfft::plan::{DeviceLimits, PlanOptions};

/// Entries planned per input (the rest are parsed and printed only).
const PLANNED_ENTRIES: usize = 4;

/// Reads `data` as plans read a wisdom file, prints what parses and parses that again, and
/// plans each entry's transform with its choice.
pub fn wisdom(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let Ok(w) = Wisdom::parse(text, "fuzz.json") else {
        return Ok(());
    };
    let text = w
        .to_json()
        .map_err(|e| format!("accepted wisdom does not print: {e}"))?;
    let again = Wisdom::parse(&text, "its own output")
        .map_err(|e| format!("accepted wisdom prints to text it refuses: {e}"))?;
    if again != w {
        return Err(format!(
            "printing and parsing changed the wisdom:\n{w:?}\n{again:?}"
        ));
    }
    for e in w.entries.iter().take(PLANNED_ENTRIES) {
        let mut spec = FftSpec::new(e.key.n).precision(e.key.precision);
        if e.key.columns {
            spec = spec.batch(4).columns();
        }
        let opts = e.choice.apply(&PlanOptions::default());
        for profile in DeviceLimits::PROFILES {
            let limits = DeviceLimits::profile(profile).ok_or("a listed profile is missing")?;
            check_plan(&spec, &limits, &opts, crate::plan::INTERPRET_POINTS, 1)
                .map_err(|m| format!("entry for {} points on {profile}: {m}", e.key.n))?;
        }
    }
    Ok(())
}
