//! `Device::tune` on the test GPU: every candidate shape of a length runs, matches the
//! planner's own plan, and the winner's entry speaks for the transform tuned.

use tierfft::backend::Outcome;
use tierfft::plan::wisdom::{Choice, Key};
use tierfft::{Error, FftSpec, Precision};

use crate::common::gpu;

#[test]
fn tuning_times_every_candidate_and_each_computes_the_transform() {
    let dev = gpu();
    let limits = dev.limits().unwrap().clone();
    let cases = [
        FftSpec::new(256).batch(64),
        FftSpec::new(1000).batch(8).inverse(),
        FftSpec::new(1 << 14).batch(2),
        FftSpec::new(512).batch(32).columns(),
        FftSpec::new(2048).batch(4).precision(Precision::F16),
    ];
    for spec in cases {
        let tuning = dev.tune(&spec, 2).unwrap();
        let what = format!("{} points, {:?}", spec.n, spec.layout);
        assert_eq!(tuning.timed[0].choice, Choice::default(), "{what}");
        assert!(
            tuning.timed.len() >= 2,
            "{what}: {} plans",
            tuning.timed.len()
        );
        for t in &tuning.timed {
            // Every candidate the device compiles must compute the same transform.
            assert!(
                !matches!(t.outcome, Outcome::Differs(_)),
                "{what}, {}: {:?}",
                t.choice.flags(),
                t.outcome
            );
        }
        let e = &tuning.entry;
        assert_eq!(Some(&e.key), Key::of(&spec, &limits).as_ref(), "{what}");
        assert_eq!(
            (e.device.clone(), e.driver.clone()),
            (dev.name(), dev.driver())
        );
        assert_eq!(e.measured.candidates, tuning.timed.len());
        assert!(e.measured.seconds > 0.0 && e.measured.default_seconds > 0.0);
        // The winner plans.
        let opts = e.choice.apply(&tierfft::plan::PlanOptions::default());
        dev.plan_with_options(&spec, &opts).unwrap();
    }
}

#[test]
fn tuning_refuses_what_no_wisdom_speaks_for() {
    let dev = gpu();
    for (spec, says) in [
        (FftSpec::new(4099), "prime factor above 31"),
        (
            FftSpec::new(64).then_multiply_and_invert(vec![tierfft::Complex32::new(1.0, 0.0); 64]),
            "a chain",
        ),
        (
            FftSpec::new(64).checksum(tierfft::Checksum::Detect),
            "a checksum",
        ),
    ] {
        let e = dev.tune(&spec, 1).unwrap_err();
        assert!(matches!(e, Error::InvalidSpec(_)), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    let e = tierfft::Device::cpu()
        .tune(&FftSpec::new(64), 1)
        .unwrap_err();
    assert!(e.to_string().contains("nothing to tune"), "{e}");
}
