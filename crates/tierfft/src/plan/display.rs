//! `Display` for plans: the table `tierfft plan` prints.

use std::fmt;

use super::{Bluestein, Exchange, LineOrder, Pass, Plan};
use crate::base::precision::Precision;
use crate::spec::{Direction, Layout, PointOp, RealHalf};

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.spec;
        let l = &self.limits;
        let dir = match (s.direction, s.normalize) {
            (Direction::Forward, _) => "forward",
            (Direction::Inverse, false) => "inverse (unnormalised)",
            (Direction::Inverse, true) => "inverse (scaled by 1/n)",
        };
        let layout = match s.layout {
            Layout::Rows => String::new(),
            Layout::Columns { matrices: 1 } => " down the columns".into(),
            Layout::Columns { matrices } => format!(" down the columns of {matrices} matrices"),
        };
        let precision = match s.precision {
            Precision::F32 => String::new(),
            p => format!(" in {p}"),
        };
        writeln!(
            f,
            "{}-point {dir} FFT ({}){precision}, batch {}{layout}, on {}",
            s.n,
            factored(s.n),
            s.batch,
            l.name
        )?;
        writeln!(
            f,
            "device: {} KiB workgroup memory, {} threads/workgroup, subgroup {}, {} MiB per binding",
            l.workgroup_memory >> 10,
            l.max_threads,
            l.subgroup_size,
            l.max_binding >> 20
        )?;
        let (block, ex) = self.block;
        let (what, bytes) = (
            match ex {
                Exchange::Complex => "complex exchange",
                Exchange::Split => "split re/im exchange",
            },
            ex.bytes(s.precision),
        );
        writeln!(
            f,
            "on-chip block: {block} points ({what}, {bytes} bytes/point)"
        )?;
        if let Some(b) = &self.bluestein {
            writeln!(
                f,
                "Bluestein: {} has a prime factor above 31; {} {}-point convolution{} ({}): chirp \
                 on load, FFT, chirp spectrum, inverse FFT, chirp on store",
                s.n,
                if s.chain.is_some() { "two" } else { "a" },
                b.m,
                if s.chain.is_some() { "s" } else { "" },
                factored(b.m)
            )?;
            let candidates: Vec<String> = Bluestein::candidates(s.n)
                .iter()
                .map(|m| m.to_string())
                .collect();
            writeln!(
                f,
                "candidate convolution lengths (the fewest bytes moved wins; --measure times \
                 them, --bluestein-m pins one): {}",
                candidates.join(", ")
            )?;
        }
        writeln!(f, "passes over device memory: {}", self.passes.len())?;
        if let Some(c) = self.passes.iter().find_map(|p| p.cluster.as_ref()) {
            writeln!(
                f,
                "cluster tier: clusters of {} workgroups, {} points each; the head's outputs (a) \
                 reach the tail (b) through the cluster's workgroup memory, not device memory",
                c.blocks,
                s.n / c.blocks
            )?;
        } else if self.passes.len() > 1
            && self.bluestein.is_none()
            && s.len() < l.compute_units * block
        {
            // A cluster shape exists for a larger batch: say why it is not taken.
            let larger = s.clone().batch(l.compute_units * block);
            let opts = super::PlanOptions::default();
            if super::cluster::cluster_pass(&larger, l, &opts, block).is_some() {
                writeln!(
                    f,
                    "cluster tier: not taken: {} points in all give the {} compute units fewer than \
                     {block} each, and two passes over all of them are faster (--cluster-blocks \
                     forces it)",
                    s.len(),
                    l.compute_units
                )?;
            }
        }
        if s.chain.is_some() && self.bluestein.is_some() {
            writeln!(
                f,
                "chained multiply and inverse FFT: a second convolution in the opposite \
                 direction, the filter multiplied on the first one's store"
            )?;
        } else if s.chain.is_some() {
            writeln!(
                f,
                "chained multiply and inverse FFT: {}",
                if self.split_chain {
                    "the forward passes, then the inverse's (the first multiplies on load)"
                } else {
                    "fused into the same kernel"
                }
            )?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "pass  {:>8}  {:<10} {:>8}  {:<18} {:>5} {:>7} {:>5} {:>5} {:>8}  order",
            "size",
            "radices",
            "stride",
            "pass twiddles",
            "lines",
            "threads",
            "pts",
            "exch",
            "wg bytes",
        )?;
        let rows = self.passes.iter().enumerate().flat_map(|(i, p)| {
            p.steps().enumerate().map(move |(k, step)| {
                let label = match (&p.cluster, k) {
                    (None, _) => (i + 1).to_string(),
                    (Some(_), 0) => format!("{}a", i + 1),
                    (Some(_), _) => format!("{}b", i + 1),
                };
                (label, step)
            })
        });
        for (label, p) in rows {
            let radices = p.radix_label();
            let tw = if p.twiddled() {
                format!("fused W_{}", p.stride * p.size)
            } else {
                "-".to_string()
            };
            let order = match (p.order, p.store.staged) {
                (LineOrder::Contiguous, _) => "contiguous lines",
                (LineOrder::Interleaved, false) => "interleaved lines",
                (LineOrder::Interleaved, true) => "interleaved lines, staged store",
            };
            let order = if p.load.staged {
                format!("{order}, staged load and store")
            } else {
                order.to_string()
            };
            let order = if p.padded {
                format!("{order}, padded")
            } else {
                order.to_string()
            };
            let order = if p.rounds > 1 {
                format!("{order}, exchanges in {} rounds", p.rounds)
            } else {
                order
            };
            let order = if p.prefetch() {
                format!("{order}, persistent with prefetch")
            } else {
                order
            };
            let order = match fused(p) {
                Some(ops) => format!("{order}; fuses {ops}"),
                None => order,
            };
            writeln!(
                f,
                "{:>4}  {:>8}  {:<10} {:>8}  {:<18} {:>5} {:>7} {:>5} {:>5} {:>8}  {order}",
                label,
                p.size,
                radices,
                p.stride,
                tw,
                p.lines_per_group,
                p.threads(),
                p.points_per_thread,
                p.exchanges(),
                p.workgroup_bytes(),
            )?;
        }
        if let Some(m) = &self.merged {
            writeln!(
                f,
                "passes 1 and 2 run as one launch: workgroups take their {} and {} tiles a \
                 transform by ticket, pass 1 running {} transform(s) ahead, so that pass 2 \
                 reads the intermediate from L2",
                m.tiles[0], m.tiles[1], m.lag
            )?;
        }
        writeln!(f)?;
        let data = (s.precision.complex_bytes() * s.len()) as f64;
        writeln!(
            f,
            "device memory traffic: {:.1} MB ({} pass(es) × read + write of {:.1} MB)",
            self.bytes_moved() as f64 / 1e6,
            self.passes.len(),
            data / 1e6
        )?;
        writeln!(
            f,
            "dispatches per pass: {} ({} transforms per dispatch{})",
            s.batch.div_ceil(self.transforms_per_dispatch),
            self.transforms_per_dispatch,
            if self.resident {
                ", all passes per chunk so it stays in L2"
            } else {
                ""
            }
        )?;
        write!(
            f,
            "twiddle table: {} entries ({:.1} KiB), computed in f64",
            self.twiddles.len(),
            self.twiddles.len() as f64 * 8.0 / 1024.0
        )
    }
}

/// What `p` fuses besides its transform, in order ("multiply, conjugate on load; filter on
/// load"), or `None`.
fn fused(p: &Pass) -> Option<String> {
    let names = |ops: &[PointOp]| -> String {
        let names: Vec<String> = ops.iter().map(PointOp::name).collect();
        names.join(", ")
    };
    let mut parts = Vec::new();
    let (load, store) = (p.load.points(), p.store.points());
    if !load.is_empty() {
        parts.push(format!("{} on load", names(&load)));
    }
    if let Some(w) = p.check_in() {
        parts.push(format!("checksum of the input ({} weights)", w.len()));
    }
    if p.filter_on_load() {
        parts.push("filter on load".into());
    }
    match p.real().as_ref().map(|r| r.half) {
        Some(RealHalf::Merge { .. }) => parts.push("C2R merge on load".into()),
        Some(RealHalf::Split { .. }) => parts.push("R2C split on store".into()),
        Some(RealHalf::Truncate) => parts.push("R2C bins 0..=n/2 stored".into()),
        Some(RealHalf::Extend) => parts.push("C2R Hermitian extension on load".into()),
        None => {}
    }
    if p.fused_chain() {
        parts.push("filter and back-transform".into());
    }
    if let Some(w) = p.check_out() {
        parts.push(format!("checksum of the output ({} weights)", w.len()));
    }
    if !store.is_empty() {
        parts.push(format!("{} on store", names(&store)));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `n` as a product of prime powers: `2^12`, `2^4·3^3·13`.
fn factored(n: usize) -> String {
    let mut parts = Vec::new();
    let mut rest = n;
    let mut p = 2;
    while rest > 1 {
        if p * p > rest {
            parts.push(rest.to_string());
            break;
        }
        let mut k = 0;
        while rest.is_multiple_of(p) {
            rest /= p;
            k += 1;
        }
        match k {
            0 => {}
            1 => parts.push(p.to_string()),
            _ => parts.push(format!("{p}^{k}")),
        }
        p += 1;
    }
    if parts.is_empty() {
        "1".into()
    } else {
        parts.join("·")
    }
}
