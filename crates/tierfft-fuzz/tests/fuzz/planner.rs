//! Property tests of the planner's invariants, on every device profile: any spec is refused
//! with an error or planned into passes that fit the device and compute the transform
//! (`tierfft::fuzzing::check_plan`); lengths the device binds always plan; planning is a
//! function of its inputs.

use proptest::prelude::*;
use tierfft::fuzzing::{Checked, check_plan};
use tierfft::plan::{DeviceLimits, Plan, PlanOptions};
use tierfft::{FftSpec, Precision};

fn profile() -> impl Strategy<Value = DeviceLimits> {
    prop::sample::select(tierfft_fuzz::PROFILES)
        .prop_map(|p| DeviceLimits::profile(p).expect("profile"))
}

/// Lengths of every kind: powers of two to 2^27, smooth, and any (Bluestein's).
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        (0u32..=27).prop_map(|k| 1usize << k),
        (0u32..12, 0u32..6, 0u32..4, 0u32..3, 0u32..2, 0u32..2).prop_map(|(a, b, c, d, e, f)| {
            2usize.pow(a)
                * 3usize.pow(b)
                * 5usize.pow(c)
                * 7usize.pow(d)
                * 11usize.pow(e)
                * 13usize.pow(f)
        }),
        1usize..100_000,
    ]
}

fn precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(
        &[
            Precision::F32,
            Precision::F64,
            Precision::F16,
            Precision::Bf16,
        ][..],
    )
}

fn spec() -> impl Strategy<Value = FftSpec> {
    (
        length(),
        1usize..600,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        precision(),
    )
        .prop_map(|(n, batch, inverse, normalize, columns, precision)| {
            let mut s = FftSpec::new(n).batch(batch).precision(precision);
            if inverse {
                s = s.inverse();
            }
            if normalize {
                s = s.normalized();
            }
            if columns {
                s = s.columns();
            }
            s
        })
}

proptest! {
    // Failures are printed with the input that shrank to them; nothing is written to the tree.
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Refused with an error, or a plan within the device's limits that the interpreter
    /// runs to the reference (transforms of up to 2^12 elements).
    #[test]
    fn any_spec_is_refused_or_planned_correctly(spec in spec(), limits in profile(), seed in any::<u64>()) {
        let checked = check_plan(&spec, &limits, &PlanOptions::default(), 1 << 12, seed);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// A power of two whose batch fits one binding always plans in f32 with the defaults.
    #[test]
    fn bindable_powers_of_two_always_plan(k in 0u32..=27, limits in profile(), columns in any::<bool>()) {
        let n = 1usize << k;
        prop_assume!((8 * n) as u64 <= limits.max_binding);
        let mut spec = FftSpec::new(n);
        if columns {
            spec = spec.columns();
        }
        match check_plan(&spec, &limits, &PlanOptions::default(), 0, 0) {
            Ok(Checked::Planned { passes, .. }) => prop_assert!(passes >= 1),
            Ok(Checked::Refused(e)) => prop_assert!(false, "2^{k} on {}: refused: {e}", limits.name),
            Err(e) => prop_assert!(false, "{e}"),
        }
    }

    /// The same spec on the same device gives the same plan, and each element is read
    /// and written at least once.
    #[test]
    fn planning_is_deterministic(spec in spec(), limits in profile()) {
        let a = Plan::new(&spec, &limits);
        let b = Plan::new(&spec, &limits);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                let least = 2 * spec.precision.complex_bytes() as u64 * spec.len() as u64;
                prop_assert!(a.bytes_moved() >= least, "{} bytes moved, at least {least}", a.bytes_moved());
                prop_assert_eq!(a, b);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{a:?} then {b:?}"),
        }
    }
}
