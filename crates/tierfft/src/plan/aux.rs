//! The vectors buffer (`aux`): every device vector the passes read (fused multiplies, a
//! chain's filter, a real transform's twiddles, checksum weights), each once, each starting
//! on the device's binding alignment. A launch binds only the span of its own pass's vectors
//! ([`Plan::aux_range`]), so that a chain split into passes binds its forward multiply and
//! its filter one at a time where the two together exceed what the device binds.

use std::ops::Range;

use super::{Pass, Plan};
use crate::base::values::Values;
use crate::spec::PointOp;

impl Plan {
    /// Every device vector the passes read, each once, in the order the vectors buffer
    /// holds them.
    pub fn vectors(&self) -> Vec<Values> {
        self.aux_layout().into_iter().map(|(v, _)| v).collect()
    }

    /// Elements of the vectors buffer: the vectors with the padding that aligns each (at
    /// least one element: bindings cannot be empty).
    pub fn aux_len(&self) -> usize {
        self.aux_layout()
            .last()
            .map_or(1, |(v, at)| (at + v.len()).max(1))
    }

    /// Bytes of one element of the vectors buffer: a complex f64 in f64 plans, else a complex
    /// f32 (16-bit plans compute in f32).
    pub fn aux_element_bytes(&self) -> usize {
        2 * self.spec.precision.compute_bytes()
    }

    /// The elements of the vectors buffer that the launches of pass `pass` bind: from the
    /// start of its first vector to the end of its last (the first element alone where it
    /// reads none).
    pub fn aux_range(&self, pass: usize) -> Range<usize> {
        let layout = self.aux_layout();
        pass_vectors(&self.passes[pass])
            .iter()
            .filter_map(|v| layout.iter().find(|(o, _)| o.same(v)))
            .map(|(v, at)| *at..at + v.len())
            .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end))
            .unwrap_or(0..1)
    }

    /// Where vector `v` (one of pass `pass`'s) starts within the pass's binding of the
    /// vectors buffer ([`Plan::aux_range`]), elements.
    #[expect(
        clippy::panic,
        reason = "the generator asks only for vectors the pass reads (pass_vectors)"
    )]
    pub(crate) fn aux_offset(&self, pass: usize, v: &Values) -> usize {
        let range = self.aux_range(pass);
        match self.aux_layout().iter().find(|(o, _)| o.same(v)) {
            Some((_, at)) if range.start <= *at && at + v.len() <= range.end => at - range.start,
            Some(_) => panic!("aux_offset: a vector outside pass {pass}'s binding"),
            None => panic!("aux_offset: a vector the plan's passes do not hold"),
        }
    }

    /// The vectors, each with where it starts (elements): in pass order, each at a
    /// multiple of the device's binding alignment.
    pub(super) fn aux_layout(&self) -> Vec<(Values, usize)> {
        let align = (self.limits.binding_alignment as usize / self.aux_element_bytes()).max(1);
        let mut out: Vec<(Values, usize)> = Vec::new();
        let mut end = 0usize;
        for v in self.passes.iter().flat_map(pass_vectors) {
            if !out.iter().any(|(o, _)| o.same(&v)) {
                let at = end.next_multiple_of(align);
                end = at + v.len();
                out.push((v, at));
            }
        }
        out
    }
}

/// The vectors the kernel of `pass` reads (every on-chip step's), in the order the vectors
/// buffer lays them out: load multiplies, the chain's filter, store multiplies, the real
/// transform's twiddles, the checksum's weights.
fn pass_vectors(pass: &Pass) -> Vec<Values> {
    let mut out = Vec::new();
    for p in pass.steps() {
        let (load, store) = (p.load.points(), p.store.points());
        out.extend(load.iter().filter_map(PointOp::vector));
        out.extend(p.filter().cloned());
        out.extend(store.iter().filter_map(PointOp::vector));
        out.extend(p.real().and_then(|r| r.twiddles.clone()));
        out.extend(p.check_in().into_iter().chain(p.check_out()).cloned());
    }
    out
}
