//! A merged plan's kernel ([`Merged`]): a persistent loop over tickets, each decoded into a
//! tile of one of the two passes. A first-pass tile runs pass 1's body and raises its
//! transform's done-counter; a second-pass tile waits for that counter to reach the
//! transform's first-pass tiles, then runs pass 2's body in place on the intermediate. Each
//! body is the pass's own (the same generator as its kernel alone), with the tile for the
//! workgroup index.

use super::{pass_bindings, pass_body, pass_doc, pass_shared};
use crate::kernel::emit::Emitter;
use crate::kernel::ir::*;
use crate::plan::{Merged, Plan};

/// The kernel of merged plan `plan`: its two passes in one launch ([`Merged`]).
pub(super) fn merged_kernel(plan: &Plan, m: &Merged) -> Kernel {
    let (first, second) = (&plan.passes[0], &plan.passes[1]);
    assert_eq!(
        first.threads(),
        second.threads(),
        "a merged kernel's passes run on the same threads"
    );
    let lines = [0, 1].map(|i| plan.lines_per_transform(&plan.passes[i]));
    let [t1, t2] = m.tiles;
    // Pass 1: its body for workgroup `transform·t1 + tile` of the launch's lines, then the
    // transform's done-counter.
    let mut one = pass_body(plan, 0, true).em.stmts;
    let group_one = var("transform") * u(t1) + var("tile");
    map_exprs(&mut one, &mut |e| {
        if *e == Expr::Builtin(Builtin::GroupIndex) {
            *e = group_one.clone();
        }
    });
    // Pass 2: wait for the counter, then its body for workgroup `transform·t2 + tile` of
    // the transforms' pass-2 lines, in place on the intermediate (its reads of `src` go to
    // `dst`).
    let mut two = pass_body(plan, 1, true).em.stmts;
    let group_two = var("transform") * u(t2) + var("tile");
    let lines_two = var("transforms") * u(lines[1]);
    map_exprs(&mut two, &mut |e| match e {
        Expr::Builtin(Builtin::GroupIndex) => *e = group_two.clone(),
        Expr::Builtin(Builtin::Lines) => *e = lines_two.clone(),
        Expr::Load(mem @ Mem::Src, _) => *mem = Mem::Dst,
        _ => {}
    });
    // Each pass a part of its own (CUDA: a function), so that the loop cannot hoist either
    // body's twiddle loads out of it and hold them in registers; each decodes the ticket.
    let counter = var("transform") + u(1);
    let mut part_one = decode(m, lines[0]);
    part_one.push(Stmt::If(
        lt(var("pass"), u(1)),
        vec![
            Stmt::Part(one),
            Stmt::Comment("this tile of the transform's first pass is written".into()),
            Stmt::Signal {
                counter: counter.clone(),
            },
        ],
    ));
    let mut part_two = decode(m, lines[0]);
    part_two.push(Stmt::If(
        ge(var("pass"), u(1)),
        vec![
            Stmt::Comment("wait until the transform's first pass is written".into()),
            Stmt::WaitFor {
                counter,
                target: u(t1),
            },
            Stmt::Part(two),
        ],
    ));

    let mut doc = vec![format!(
        "tierfft: passes 1 and 2 of a {}-point FFT merged into one launch: workgroups take \
         tiles of either by ticket, pass 1 running {} transforms ahead; the intermediate is \
         the destination, pass 2 runs in place there",
        plan.transform().n,
        m.lag
    )];
    doc.extend(pass_doc(plan, 0));
    doc.extend(pass_doc(plan, 1));
    let shared = match (pass_shared(first), pass_shared(second)) {
        (Some(a), Some(b)) => Some(Shared {
            len: a.len.max(b.len),
            ..a
        }),
        (a, b) => a.or(b),
    };
    Kernel {
        name: "fft_merged".into(),
        doc,
        precision: first.precision,
        threads: first.threads() as u32,
        groups_per_unit: first.groups_per_unit.map(|g| g as u32),
        cluster: None,
        shared,
        bindings: {
            let mut b = pass_bindings(false, first.precision);
            // The input is read once: evict-first, so that the intermediate keeps the L2.
            for src in b.iter_mut().filter(|b| b.mem == Mem::Src) {
                src.streaming = true;
            }
            b.push(Binding::read_write(Mem::Counters, Ty::U32));
            b
        },
        persistent: Some(Persistent {
            prologue: Vec::new(),
            condition: lt(
                Expr::Builtin(Builtin::GroupIndex),
                (Expr::Builtin(Builtin::Lines) / u(lines[0])) * u(t1 + t2),
            ),
            tickets: true,
        }),
        body: vec![Stmt::Part(part_one), Stmt::Part(part_two)],
    }
}

/// Statements binding `pass` (0 or 1), `transform` and `tile` from the ticket (the group
/// index) and `transforms` from the launch's lines, in the order [`Merged::ticket`] gives.
fn decode(m: &Merged, first_lines: usize) -> Vec<Stmt> {
    let [t1, t2] = m.tiles;
    let ticket = Expr::Builtin(Builtin::GroupIndex);
    let mut em = Emitter::default();
    em.comment(format!(
        "ticket -> (pass, transform, tile): pass 1 of transforms 0..{}, then pass 2 of \
         transform k and pass 1 of transform k + {}, {t1} and {t2} tiles a transform",
        m.lag, m.lag
    ));
    let transforms = em.let_(
        "transforms",
        Ty::U32,
        Expr::Builtin(Builtin::Lines) / u(first_lines),
    );
    let lead = em.let_("lead", Ty::U32, min(transforms.clone(), u(m.lag)));
    let head = em.let_("head", Ty::U32, lead.clone() * u(t1));
    let steady_end = em.let_(
        "steady_end",
        Ty::U32,
        head.clone() + (transforms.clone() - lead.clone()) * u(t1 + t2),
    );
    // (Past the range each applies to, these wrap; `select` keeps only the one that holds.)
    let r = em.let_("r", Ty::U32, (ticket.clone() - head.clone()) % u(t1 + t2));
    let k = em.let_("k", Ty::U32, (ticket.clone() - head.clone()) / u(t1 + t2));
    let v = em.let_("v", Ty::U32, ticket.clone() - steady_end.clone());
    let in_head = lt(ticket.clone(), head);
    let in_steady = lt(ticket, steady_end);
    let second_in_steady = lt(r.clone(), u(t2));
    em.let_(
        "pass",
        Ty::U32,
        select(
            in_head.clone(),
            u(0),
            select(
                in_steady.clone(),
                select(second_in_steady.clone(), u(1), u(0)),
                u(1),
            ),
        ),
    );
    em.let_(
        "transform",
        Ty::U32,
        select(
            in_head.clone(),
            Expr::Builtin(Builtin::GroupIndex) / u(t1),
            select(
                in_steady.clone(),
                select(second_in_steady.clone(), k.clone(), k + lead.clone()),
                transforms.clone() - lead + v.clone() / u(t2),
            ),
        ),
    );
    em.let_(
        "tile",
        Ty::U32,
        select(
            in_head,
            Expr::Builtin(Builtin::GroupIndex) % u(t1),
            select(
                in_steady,
                select(second_in_steady, r.clone(), r - u(t2)),
                v % u(t2),
            ),
        ),
    );

    em.stmts
}
