//! Roles: what each pass of a decomposition fuses into its kernel: the spec's load and store
//! operations, a chain's filter (and, where the chain does not fit one kernel, its
//! back-transform as passes of its own), a real transform's split or merge, and the
//! checksum's weights.

use super::{DeviceLimits, Pass, checksum, passes_fuse_chain, real};
use crate::error::Result;
use crate::spec::FftSpec;

/// Gives `passes` (the decomposition of `spec`'s transform) their roles.
pub(super) fn assign(spec: &FftSpec, limits: &DeviceLimits, passes: &mut Vec<Pass>) -> Result<()> {
    let n = spec.n;
    if spec.chain.is_some() && !passes_fuse_chain(passes) {
        // A chain that does not fit one kernel: the forward passes, then the same passes
        // run backwards, the first multiplying by the filter on load.
        let mut back = passes.clone();
        for p in passes.iter_mut() {
            p.scale = None;
        }
        for p in &mut back {
            p.inverse = true;
        }
        back[0].filter_on_load = true;
        passes.extend(back);
    }
    // Each pass carries the operations its kernel fuses.
    passes[0].load = spec.load.clone();
    if let Some(last) = passes.last_mut() {
        last.set_store(spec.store.clone());
    }
    for p in passes
        .iter_mut()
        .filter(|p| p.filter_on_load || p.fused_chain)
    {
        p.filter = spec.chain.clone();
    }
    real::fuse(passes, spec, limits)?;
    if spec.checksum != crate::Checksum::Off {
        let (input, output) = checksum::weights(n, spec.direction);
        passes[0].check_in = Some(input.into());
        if let Some(last) = passes.last_mut() {
            last.check_out = Some(output.into());
        }
    }
    Ok(())
}
