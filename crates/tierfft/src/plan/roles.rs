//! Roles: what each pass of a decomposition fuses into its kernel: the spec's load and store
//! operations, a chain's filter (and, where the chain does not fit one kernel, its
//! back-transform as passes of its own), a real transform's split or merge, and the
//! checksum's weights.

use super::{Body, DeviceLimits, LoadOp, Pass, StoreOp, checksum, passes_fuse_chain, real};
use crate::error::Result;
use crate::spec::FftSpec;

/// Gives `passes` (the decomposition of `spec`'s transform) their roles.
pub(super) fn assign(spec: &FftSpec, limits: &DeviceLimits, passes: &mut Vec<Pass>) -> Result<()> {
    let n = spec.n;
    if let Some(filter) = spec.chain.as_ref().filter(|_| !passes_fuse_chain(passes)) {
        // A chain that does not fit one kernel: the forward passes, then the same passes
        // run backwards, the first multiplying by the filter on load.
        let mut back = passes.clone();
        for p in passes.iter_mut() {
            p.store.ops.retain(|op| !matches!(op, StoreOp::Scale(_)));
        }
        for p in &mut back {
            p.body = Body::Fft { inverse: true };
        }
        back[0].load.ops.push(LoadOp::Filter(filter.clone()));
        passes.extend(back);
    }
    // Each pass carries the operations its kernel fuses.
    let load = spec.load.iter().cloned().map(LoadOp::Point);
    passes[0].load.ops.extend(load);
    if let Some(last) = passes.last_mut() {
        last.set_store(spec.store.clone());
    }
    real::fuse(passes, spec, limits)?;
    if spec.checksum != crate::Checksum::Off {
        let (input, output) = checksum::weights(n, spec.direction);
        passes[0].load.ops.push(LoadOp::Checksum(input.into()));
        if let Some(last) = passes.last_mut() {
            last.storing_mut()
                .store
                .ops
                .push(StoreOp::Checksum(output.into()));
        }
    }
    Ok(())
}
