//! A rank's plan printed: one line per step, then its scratch (`Display for`
//! [`super::RankFft`] writes it under the rank's line).

use std::ops::Range;

use super::plan::{PartElements, Plan, Slot, Step};
use super::slab::Moves;
use crate::nd::NdFft;
use crate::spec::Direction;

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slot::Input => write!(f, "the input"),
            Slot::Output => write!(f, "the output"),
            Slot::Scratch(k) => write!(f, "scratch {k}"),
        }
    }
}

/// The bytes of `elements` complex f32 values, in a unit that suits them.
fn bytes(elements: usize) -> String {
    let b = 8 * elements;
    match b {
        0..1024 => format!("{b} B"),
        1024..0x10_0000 => format!("{:.1} KiB", b as f64 / 1024.0),
        0x10_0000..0x4000_0000 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        _ => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
    }
}

/// What a local transform computes: its kind and direction, axes and array.
fn describe(fft: &NdFft) -> String {
    let spec = fft.spec();
    let kind = match (spec.real, spec.direction) {
        (false, Direction::Forward) => "C2C forward",
        (false, Direction::Inverse) => "C2C inverse",
        (true, Direction::Forward) => "R2C",
        (true, Direction::Inverse) => "C2R",
    };
    format!("{kind} over axes {:?} of {:?}", spec.axes, spec.shape)
}

/// One line per step, then the scratch; each line starts with `indent`.
impl Plan {
    pub(crate) fn write(&self, f: &mut std::fmt::Formatter<'_>, indent: &str) -> std::fmt::Result {
        if self.parts > 1 {
            writeln!(
                f,
                "{indent}the slab's change of layout in {} parts: {}",
                self.parts,
                match self.overlaps {
                    true =>
                        "each part's all-to-all runs beside the next part's steps, until its receive",
                    false =>
                        "one after the other (this exchange does not run beside the transforms)",
                }
            )?;
        }
        let rows = |part: &Option<Range<usize>>| match part {
            Some(r) => format!(" (elements {}..{})", r.start, r.end),
            None => String::new(),
        };
        let real_rows =
            |part: &Option<PartElements>| rows(&part.as_ref().map(|p| p.complex.clone()));
        let messages = |moves: &Moves| {
            let total = |counts: Vec<usize>| -> (usize, usize) {
                (
                    counts.iter().filter(|&&n| n > 0).count(),
                    counts.iter().sum(),
                )
            };
            let (to, sent) = total(moves.sent());
            let (from, got) = total(moves.received_from());
            let how = match moves.blocks {
                Some(_) => ", read and written in place",
                None => "",
            };
            format!(
                "{} to {to} rank(s), {} from {from}{how}",
                bytes(sent),
                bytes(got)
            )
        };
        for (k, step) in self.steps.iter().enumerate() {
            write!(f, "{indent}{}. ", k + 1)?;
            match step {
                Step::Fft { fft, on, part } => {
                    writeln!(f, "{} in place on {on}{}", describe(fft), rows(part))?
                }
                Step::RealIn { fft, into, part } => writeln!(
                    f,
                    "{} from the input into {into}{}",
                    describe(fft),
                    real_rows(part)
                )?,
                Step::RealOut { fft, from, part } => writeln!(
                    f,
                    "{} from {from}{} into the output",
                    describe(fft),
                    real_rows(part)
                )?,
                Step::Move {
                    moves,
                    natural,
                    transposed,
                } => writeln!(
                    f,
                    "all-to-all between {natural} (natural) and {transposed} (transposed): \
                     {}; {} row copies before, {} after",
                    messages(moves),
                    moves.before.len(),
                    moves.after.len()
                )?,
                Step::Send {
                    moves,
                    natural,
                    transposed,
                    id,
                } => writeln!(
                    f,
                    "send {id}: {} row copies, then the all-to-all between {natural} (natural) \
                     and {transposed} (transposed) started: {}",
                    moves.before.len(),
                    messages(moves)
                )?,
                Step::Receive { moves, id, .. } => match moves.after.len() {
                    0 => writeln!(f, "receive {id}: wait for its all-to-all")?,
                    n => writeln!(
                        f,
                        "receive {id}: wait for its all-to-all, then {n} row copies"
                    )?,
                },
            }
        }
        let scratch: usize = self.arrays.iter().sum();
        writeln!(
            f,
            "{indent}scratch: {} array(s), {}; staging {}, receiving {}",
            self.arrays.len(),
            bytes(scratch),
            bytes(self.staging),
            bytes(self.received)
        )
    }
}
