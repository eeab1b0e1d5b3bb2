//! A plan checked against its device before anything is compiled or launched: what the
//! planner promises (every kernel within the device's threads, workgroup memory and cluster
//! sizes, every dispatch within its grid, bindings and 32-bit indices, radices the kernel
//! generator has codelets for), so that a plan edited by hand, or a planner bug, is an error
//! instead of a failed launch or a panic in the generator. The fuzz target `plan` holds the
//! planner to it.

use super::{Plan, shape};
use crate::error::{Error, Result};

impl Plan {
    /// Checks that the plan fits its device ([`Plan::limits`]) and that the kernel generator
    /// can print every pass. The backends call it before compiling; `Err` is
    /// [`Error::TooLarge`] for a plan past the device's limits, [`Error::InvalidSpec`] for one
    /// that is not self-consistent.
    pub fn check(&self) -> Result<()> {
        let limits = &self.limits;
        let too_large = |what: String, detail: String| {
            Err(Error::TooLarge {
                what,
                device: limits.name.clone(),
                detail,
            })
        };
        let broken =
            |what: String| Err(Error::InvalidSpec(format!("an inconsistent plan: {what}")));
        if self.passes.is_empty() {
            return broken("no pass".into());
        }
        // The passes compute whole transforms of the plan's length one after another (a
        // chain or Bluestein's convolution runs two, or four).
        let n = self.transform().n;
        // (A cluster pass computes its head and its tail: both steps count.)
        let mut product = self
            .passes
            .iter()
            .flat_map(|pass| pass.steps())
            .try_fold(1usize, |p, step| p.checked_mul(step.size))
            .unwrap_or(0);
        while n > 1 && product > 1 && product.is_multiple_of(n) {
            product /= n;
        }
        if product != 1 {
            return broken(format!("pass sizes that do not make {n}-point transforms"));
        }
        if self.transforms_per_dispatch == 0 {
            return broken("dispatches of no transform".into());
        }
        for (i, pass) in self.passes.iter().enumerate() {
            for step in pass.steps() {
                let radices: usize = step.radices.iter().product();
                if radices != step.size
                    || step.radices.iter().any(|&r| !shape::is_smooth(r) || r == 0)
                {
                    return broken(format!(
                        "pass {i}: radices {:?} for {} points",
                        step.radices, step.size
                    ));
                }
                if step.threads() > limits.max_threads || step.threads() == 0 {
                    return too_large(
                        format!("pass {i}'s {} threads a workgroup", step.threads()),
                        format!("the device runs at most {}", limits.max_threads),
                    );
                }
            }
            let points = pass.size * pass.lines_per_group;
            if pass.rounds == 0
                || (pass.rounds > 1
                    && !points.is_multiple_of(pass.rounds * pass.exchange.pad_period()))
            {
                return broken(format!(
                    "pass {i}: {points} points a workgroup exchanged in {} rounds",
                    pass.rounds
                ));
            }
            if pass.workgroup_bytes() > limits.workgroup_memory {
                return too_large(
                    format!(
                        "pass {i}'s {} bytes of workgroup memory",
                        pass.workgroup_bytes()
                    ),
                    format!("the device has {}", limits.workgroup_memory),
                );
            }
            if let Some(c) = &pass.cluster
                && c.blocks > limits.max_cluster_blocks
            {
                return too_large(
                    format!("pass {i}'s clusters of {} workgroups", c.blocks),
                    format!("the device runs at most {}", limits.max_cluster_blocks),
                );
            }
        }
        if let Some(m) = &self.merged {
            if !limits.workgroups_wait {
                return too_large(
                    "two passes merged into one launch".into(),
                    "its workgroups cannot wait for one another".into(),
                );
            }
            let [a, b] = [0, 1].map(|i| self.passes.get(i));
            let tiles = |p: &super::Pass| self.lines_per_transform(p) / p.lines_per_group.max(1);
            match (a, b) {
                (Some(a), Some(b))
                    if self.passes.len() == 2
                        && a.threads() == b.threads()
                        && m.tiles == [tiles(a), tiles(b)]
                        && m.tiles.iter().all(|&t| t > 0)
                        && m.lag > 0
                        && m.groups != Some(0)
                        && [a, b].iter().all(|p| {
                            self.lines_per_transform(p)
                                .is_multiple_of(p.lines_per_group.max(1))
                        }) => {}
                _ => {
                    return broken(format!(
                        "a merged launch ({m:?}) of passes that are not two of whole tiles on \
                         the same threads"
                    ));
                }
            }
        }
        let bytes = self.spec.precision.complex_bytes() as u64;
        let most_groups = u64::from(limits.max_groups_per_dim).pow(2);
        let count = self.transforms_per_dispatch.min(self.spec.batch) as u64;
        for (i, pass) in self.passes.iter().enumerate() {
            let lines = count * self.lines_per_transform(pass) as u64;
            let groups = lines.div_ceil(pass.lines_per_group.max(1) as u64);
            let elements = count * pass.src_len.max(pass.dst_len) as u64;
            if groups > most_groups {
                return too_large(
                    format!("pass {i}'s {groups} workgroups in one dispatch"),
                    format!("a grid folded into two dimensions holds {most_groups}"),
                );
            }
            if lines > u64::from(u32::MAX) || elements > u64::from(u32::MAX) {
                return too_large(
                    format!("pass {i}'s {elements} elements in one dispatch"),
                    "kernels index with 32 bits: take smaller batches".into(),
                );
            }
            if elements * bytes > limits.max_binding {
                return too_large(
                    format!("pass {i}'s {} bytes in one binding", elements * bytes),
                    format!("the device binds at most {}", limits.max_binding),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DeviceLimits, Plan};
    use crate::FftSpec;

    /// Every plan the planner makes passes its own check: powers of two to 2^27 (one pass,
    /// clusters, two and three passes), smooth and Bluestein lengths, rows and columns, on
    /// every profile.
    #[test]
    fn the_planners_plans_pass_the_check() {
        let lengths = (0..=27)
            .map(|k| 1usize << k)
            .chain([1000, 16807, 1009, 100_003, 3 << 20]);
        let lengths: Vec<usize> = lengths.collect();
        for name in DeviceLimits::PROFILES {
            let limits = DeviceLimits::profile(name).expect("profile");
            for &n in &lengths {
                let specs = [
                    FftSpec::new(n).batch(3),
                    // A batch that fills the device: the cluster tier.
                    FftSpec::new(n).batch(1024),
                    FftSpec::new(n).batch(8).columns(),
                ];
                for spec in specs {
                    if let Ok(plan) = Plan::new(&spec, &limits) {
                        plan.check()
                            .unwrap_or_else(|e| panic!("{name}, n = {n}: {e}\n{plan}"));
                    }
                }
            }
        }
    }
}
