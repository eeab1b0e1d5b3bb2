//! Memory access of a pass's kernel: where a thread's points lie in device and workgroup
//! memory, the loads (with the pass twiddles and the spec's load operations fused) and the
//! stores (with its store operations). The exchanges between stages are in `exchange.rs`.

use super::PassGen;
use crate::base::values::Values;
use crate::kernel::ir::*;
use crate::spec::Layout;

impl PassGen<'_> {
    /// Workgroup memory index of line-position `pos` of this thread's line.
    pub(super) fn shared_index(&self, pos: Expr) -> Expr {
        self.shared_index_at(var("lc"), pos)
    }

    /// Workgroup memory index of line-position `pos` of the workgroup's line `lc`.
    pub(super) fn shared_index_at(&self, lc: Expr, pos: Expr) -> Expr {
        let lines = self.pass.lines_per_group;
        match self.pass.order {
            crate::plan::LineOrder::Interleaved => lc + u(lines) * pos,
            crate::plan::LineOrder::Contiguous => lc * u(self.pass.size) + pos,
        }
    }

    /// Buffer elements between neighbouring points of one transform.
    pub(super) fn point_stride(&self) -> usize {
        self.geometry.point_stride()
    }

    /// True when the source and destination hold a transform at different places: rows or
    /// stacked matrices of different lengths (a Bluestein plan's first and last passes).
    fn bases_differ(&self) -> bool {
        self.pass.src_len != self.pass.dst_len
            && (self.geometry.matrices() > 1 || self.geometry.layout == Layout::Rows)
    }

    /// Element of this thread's transform's point `index` in the buffer `mem` (source or
    /// destination: their rows differ in a Bluestein plan's first and last passes).
    pub(super) fn element(&self, mem: Mem, index: Expr) -> Expr {
        let base = match (!self.bases_differ(), mem) {
            (true, _) => "base",
            (false, Mem::Dst) => "base_out",
            (false, _) => "base_in",
        };
        var(base) + index * u(self.point_stride())
    }

    pub(super) fn locate_line(&mut self) {
        let p = self.pass;
        let lines = p.lines_per_group;
        self.em.comment("which line this thread works on");
        if !p.prefetch() && !self.runs_to_end {
            // (Persistent kernels loop only over groups that exist; a cluster's workgroups
            // all exist and must all reach its barriers.)
            self.em.push(Stmt::If(
                ge(
                    Expr::Builtin(Builtin::GroupIndex) * u(lines),
                    Expr::Builtin(Builtin::Lines),
                ),
                vec![Stmt::Return],
            ));
        }
        let lid = Expr::Builtin(Builtin::LocalIndex);
        let (lc, tl) = match p.order {
            crate::plan::LineOrder::Interleaved => (lid.clone() % u(lines), lid / u(lines)),
            crate::plan::LineOrder::Contiguous => (lid.clone() / u(self.t()), lid % u(self.t())),
        };
        self.em.let_("lc", Ty::U32, lc);
        self.em.let_("tl", Ty::U32, tl);
        let first = Expr::Builtin(Builtin::GroupIndex) * u(lines);
        if self.guarded {
            self.em.let_(
                "valid",
                Ty::Bool,
                lt(first.clone() + var("lc"), Expr::Builtin(Builtin::Lines)),
            );
            // Threads past the end redo the last line and store nothing.
            self.em.let_(
                "line",
                Ty::U32,
                min(first + var("lc"), Expr::Builtin(Builtin::Lines) - u(1)),
            );
        } else {
            self.em.let_("line", Ty::U32, first + var("lc"));
        }
        let (n, batch) = (self.geometry.n, self.geometry.batch);
        match (self.geometry.layout, p.size == n) {
            // Stacked matrices: column `line` (or `line mod batch`) lies in matrix
            // `column / w`.
            (Layout::Columns { matrices }, whole) if matrices > 1 => {
                let column = if whole {
                    var("line")
                } else {
                    self.em.let_("j", Ty::U32, var("line") / u(batch));
                    var("line") % u(batch)
                };
                let column = self.em.bind(Ty::U32, column);
                let w = self.point_stride();
                self.em.let_("matrix", Ty::U32, column.clone() / u(w));
                self.em.let_("col", Ty::U32, column % u(w));
                if self.bases_differ() {
                    self.em.let_(
                        "base_in",
                        Ty::U32,
                        var("matrix") * u(p.src_len * w) + var("col"),
                    );
                    self.em.let_(
                        "base_out",
                        Ty::U32,
                        var("matrix") * u(p.dst_len * w) + var("col"),
                    );
                } else {
                    self.em.let_(
                        "base",
                        Ty::U32,
                        var("matrix") * u(p.src_len * w) + var("col"),
                    );
                }
            }
            (Layout::Rows, true) => self.row_bases(var("line")),
            (Layout::Rows, false) if p.splits_real() => {
                // Half the workgroup's lines and their mirrors (plan::split_line).
                let (per, half) = (n / p.size, lines / 2);
                self.em
                    .comment("R2C: lines j and their mirrors n − j in one workgroup");
                let g = self.em.bind(Ty::U32, (var("line") % u(per)) / u(lines));
                let base = g * u(half) + var("lc") % u(half);
                self.em.let_("pair_base", Ty::U32, base);
                let mirror = select(
                    lt(var("pair_base"), u(1)),
                    u(per / 2),
                    u(per) - var("pair_base"),
                );
                let j = select(lt(var("lc"), u(half)), var("pair_base"), mirror);
                self.em.let_("j", Ty::U32, j);
                self.row_bases(var("line") / u(per));
            }
            (Layout::Rows, false) => {
                let per = n / p.size;
                self.em.let_("j", Ty::U32, var("line") % u(per));
                self.row_bases(var("line") / u(per));
            }
            // Columns: neighbouring lines are neighbouring columns (line = j·batch + column).
            (Layout::Columns { .. }, true) => {
                self.em.let_("base", Ty::U32, var("line"));
            }
            (Layout::Columns { .. }, false) => {
                self.em.let_("j", Ty::U32, var("line") / u(batch));
                self.em.let_("base", Ty::U32, var("line") % u(batch));
            }
        };
    }

    /// Where row `row`'s transform starts in the source and destination buffers.
    pub(super) fn row_bases(&mut self, row: Expr) {
        let p = self.pass;
        if p.src_len == p.dst_len {
            self.em.let_("base", Ty::U32, row * u(p.src_len));
        } else {
            let row = self.em.bind(Ty::U32, row);
            self.em.let_("base_in", Ty::U32, row.clone() * u(p.src_len));
            self.em.let_("base_out", Ty::U32, row * u(p.dst_len));
        }
    }

    /// Copies of workgroup `group`'s lines (contiguous rows) into the prefetch area, 16 bytes
    /// per copy, neighbouring threads on neighbouring addresses; rows past the end of the
    /// dispatch read the last row instead (their lines store nothing). Guarded so that only
    /// an existing group is read, then committed.
    pub(super) fn prefetch(&self, group: Expr) -> Vec<Stmt> {
        let p = self.pass;
        let threads = p.threads();
        let tile = p.size * p.lines_per_group;
        let last = Expr::Builtin(Builtin::Lines) * u(p.size) - u(2);
        let first = group.clone() * u(tile);
        let copies = (0..tile / 2 / threads)
            .map(|c| {
                let at = Expr::Builtin(Builtin::LocalIndex) * u(2) + u(2 * threads * c);
                Stmt::CopyAsync {
                    shared: u(p.prefetch_offset()) + at.clone(),
                    index: min(first.clone() + at, last.clone()),
                }
            })
            .collect();
        vec![
            Stmt::If(lt(first, Expr::Builtin(Builtin::Lines) * u(p.size)), copies),
            Stmt::CopyCommit,
        ]
    }

    /// Copies of the stage twiddles and a fused chain's filter into workgroup memory
    /// ([`Pass::tables_in_shared`]), once per persistent workgroup; the loop's first barrier
    /// publishes them.
    pub(super) fn tables_to_shared(&self) -> Vec<Stmt> {
        let p = self.pass;
        if p.tables_in_shared() == 0 {
            return Vec::new();
        }
        let twiddles = self.plan.twiddles.lo_offset();
        let mut copies = vec![Stmt::Comment(
            "stage twiddles and filter into workgroup memory, once".into(),
        )];
        let mut copy = |from: Mem, src: usize, dst: usize, len: usize| {
            for i in 0..len.div_ceil(p.threads()) {
                let at = Expr::Builtin(Builtin::LocalIndex) + u(p.threads() * i);
                copies.push(Stmt::If(
                    lt(at.clone(), u(len)),
                    vec![Stmt::Store(
                        Mem::Shared,
                        u(dst) + at.clone(),
                        load(from, u(src) + at),
                    )],
                ));
            }
        };
        copy(Mem::Twiddles, 0, p.tables_offset(), twiddles);
        if let (true, Some(filter)) = (self.filter_in_shared(), &p.filter()) {
            copy(
                Mem::Aux,
                self.aux_offset(filter),
                p.tables_offset() + twiddles,
                self.geometry.n,
            );
        }
        copies
    }

    /// Loads the held points, then declares the registers only uneven stages use.
    pub(super) fn load(&mut self) {
        self.load_held();
        self.declare_spare_registers();
    }

    /// Declares the registers past the held points that only uneven stages use.
    pub(super) fn declare_spare_registers(&mut self) {
        for m in self.e()..self.regs.len() {
            self.em.push(Stmt::Var(
                format!("v{m}"),
                Ty::Complex,
                complex(f(0.0), f(0.0)),
            ));
        }
    }

    pub(super) fn load_held(&mut self) {
        let p = self.pass;
        let (t, e) = (self.t(), self.e());
        if p.prefetch() {
            self.em
                .comment("this group's lines were copied during the previous group: wait for them");
            self.em.push(Stmt::CopyWait);
            self.em.push(Stmt::Barrier);
            for m in 0..e {
                let at = u(p.prefetch_offset()) + var("lc") * u(p.size) + var("tl") + u(t * m);
                self.em.push(Stmt::Var(
                    format!("v{m}"),
                    Ty::Complex,
                    load(Mem::Shared, at),
                ));
            }
            self.em.push(Stmt::Barrier);
            self.em
                .comment("prefetch the next group's lines while this one is transformed");
            let next = Expr::Builtin(Builtin::GroupIndex) + Expr::Builtin(Builtin::GroupStride);
            let copies = self.prefetch(next);
            self.em.stmts.extend(copies);
            return;
        }
        if p.load.staged {
            // Tiny lines: read the workgroup's lines as one contiguous tile (neighbouring
            // threads, neighbouring addresses), then hand each thread its points.
            self.em
                .comment("load the workgroup's tile (coalesced), then exchange into line order");
            let threads = p.threads();
            let tile = Expr::Builtin(Builtin::GroupIndex) * u(p.lines_per_group * p.size);
            let last = Expr::Builtin(Builtin::Lines) * u(p.size) - u(1);
            for m in 0..e {
                let idx = min(
                    tile.clone() + Expr::Builtin(Builtin::LocalIndex) + u(threads * m),
                    last.clone(),
                );
                self.em
                    .push(Stmt::Var(format!("v{m}"), Ty::Complex, load(Mem::Src, idx)));
            }
            let writes = (0..e)
                .map(|m| (m, Expr::Builtin(Builtin::LocalIndex) + u(threads * m), None))
                .collect();
            let reads = (0..e)
                .map(|m| (m, var("lc") * u(p.size) + var("tl") + u(t * m)))
                .collect();
            self.exchange(writes, reads);
            return;
        }
        self.em
            .comment("load (coalesced across neighbouring threads)");
        let short = p.src_len < self.geometry.n;
        if short {
            self.em.comment(format!(
                "the source rows hold {} points: zero past them",
                p.src_len
            ));
        }
        for m in 0..e {
            let x = if short {
                let k = self.em.bind(Ty::U32, self.in_index(m));
                let at = self.element(Mem::Src, min(k.clone(), u(p.src_len - 1)));
                select(
                    lt(k, u(p.src_len)),
                    load(Mem::Src, at),
                    complex(f(0.0), f(0.0)),
                )
            } else {
                load(Mem::Src, self.element(Mem::Src, self.in_index(m)))
            };
            self.em.push(Stmt::Var(format!("v{m}"), Ty::Complex, x));
        }
        self.pass_twiddles();
    }

    /// Multiplies the loaded points by the pass twiddles, where the pass has them.
    pub(super) fn pass_twiddles(&mut self) {
        let p = self.pass;
        let n = self.geometry.n;
        let (t, e) = (self.t(), self.e());
        if p.twiddled() {
            let tw = &self.plan.twiddles;
            self.em.comment(format!(
                "pass twiddles W_{}^((j mod {})·r), from two f64-built tables",
                p.stride * p.size,
                p.stride
            ));
            let scale = n / (p.stride * p.size);
            let jr = self
                .em
                .let_("jr", Ty::U32, (var("j") % u(p.stride)) * u(scale));
            let lo_mask = (1usize << tw.lo_bits) - 1;
            for m in 0..e {
                let ex = self.em.bind(Ty::U32, jr.clone() * (var("tl") + u(t * m)));
                let lo = load(Mem::Twiddles, u(tw.lo_offset()) + (ex.clone() & u(lo_mask)));
                let hi = load(
                    Mem::Twiddles,
                    u(tw.hi_offset()) + (ex >> u(tw.lo_bits as usize)),
                );
                let mut w = self.em.bind(Ty::Complex, lo.cmul(hi));
                if p.inverse() {
                    w = complex(w.re(), -w.im());
                }
                self.em
                    .push(Stmt::Assign(format!("v{m}"), self.regs[m].clone().cmul(w)));
            }
        }
    }

    /// Multiplies every register by the chain's filter at its point: the spectrum between a
    /// chain's forward and inverse transforms, which in a one-pass line sits at the input's
    /// positions.
    pub(super) fn chain_filter(&mut self, filter: &Values) {
        let p = self.pass;
        let offset = self.aux_offset(filter);
        // One value per point (kept in workgroup memory by persistent kernels), or one per
        // element of the data (a filter for each transform), read at the point's element.
        let per_element = filter.len() != self.geometry.n;
        let in_shared = self.filter_in_shared();
        self.em
            .comment("chained: multiply the spectrum by the filter, then transform back");
        for m in 0..self.e() {
            let h = if per_element {
                load(
                    Mem::Aux,
                    u(offset) + self.element(Mem::Src, self.in_index(m)),
                )
            } else if in_shared {
                let filter = p.tables_offset() + self.plan.twiddles.lo_offset();
                load(Mem::Shared, u(filter) + self.in_index(m))
            } else {
                load(Mem::Aux, u(offset) + self.in_index(m))
            };
            self.em
                .push(Stmt::Assign(format!("v{m}"), self.regs[m].clone().cmul(h)));
        }
    }

    /// Whether the pass keeps the chain's filter in workgroup memory beside the twiddles: a
    /// persistent kernel's fused chain with one filter for every transform (a filter per
    /// element is read from device memory as it goes, and has no room there).
    fn filter_in_shared(&self) -> bool {
        let p = self.pass;
        p.fused_chain()
            && p.tables_in_shared() > 0
            && p.filter()
                .as_ref()
                .is_some_and(|f| f.len() == self.geometry.n)
    }

    /// Index within its transform of the input point register `m` holds after the load.
    pub(super) fn in_index(&self, m: usize) -> Expr {
        let pos = var("tl") + u(self.t() * m);
        let n = self.geometry.n;
        if self.pass.size == n {
            pos
        } else {
            var("j") + pos * u(n / self.pass.size)
        }
    }

    /// Index within its transform where the output point register `m` holds goes: line `j`'s
    /// point `q` to `(j / stride)·stride·size + j mod stride + q·stride` (in the last pass
    /// `j < stride`, so `j + q·stride`).
    pub(super) fn out_index(&self, m: usize) -> Expr {
        let p = self.pass;
        let pos = var("tl") + u(self.t() * m);
        let ns = p.stride;
        if p.size == self.geometry.n {
            pos
        } else if ns * p.size == self.geometry.n {
            var("j") + pos * u(ns)
        } else {
            (var("j") / u(ns)) * u(ns * p.size) + var("j") % u(ns) + pos * u(ns)
        }
    }

    /// Applies the pointwise operations `ops` to every register, at the point's index given
    /// by `index`; multiplies read their vectors from `aux`.
    pub(super) fn point_ops(
        &mut self,
        ops: &[crate::spec::PointOp],
        at: Mem,
        index: fn(&Self, usize) -> Expr,
    ) {
        use crate::spec::PointOp;
        let (when, row_len) = if at == Mem::Dst {
            ("on store", self.pass.dst_len)
        } else {
            ("on load", self.pass.src_len)
        };
        for op in ops {
            let offset = op.vector().map_or(0, |v| self.aux_offset(&v));
            self.em.comment(format!("{when}: {}", op.name()));
            for m in 0..self.e() {
                let v = self.regs[m].clone();
                let (re, im) = (v.re(), v.im());
                let power = || re.clone() * re.clone() + im.clone() * im.clone();
                // The point's buffer element, for per-element operands. Rows shorter than the
                // transform (Bluestein) hold no element past their end: those points are zero
                // or not stored, and read the row's last.
                let element = || {
                    let k = index(self, m);
                    let k = if row_len < self.geometry.n {
                        min(k, u(row_len - 1))
                    } else {
                        k
                    };
                    self.element(at, k)
                };
                let value = match op {
                    PointOp::Multiply(_) | PointOp::Multiply64(_) => {
                        v.cmul(load(Mem::Aux, u(offset) + index(self, m)))
                    }
                    PointOp::MultiplyEach(_) => v.cmul(load(Mem::Aux, u(offset) + element())),
                    // Two weights to a complex slot: per part, element e's pair; per
                    // element, slot e/2's real or imaginary part.
                    PointOp::Weight(w) => {
                        let e = element();
                        if w.is_per_part() {
                            let a = load(Mem::Aux, u(offset) + e);
                            complex(re.clone() * a.re(), im.clone() * a.im())
                        } else {
                            let a = load(Mem::Aux, u(offset) + e.clone() / u(2));
                            let s = select(lt(e % u(2), u(1)), a.re(), a.im());
                            complex(re.clone() * s.clone(), im.clone() * s)
                        }
                    }
                    PointOp::Conjugate => complex(re.clone(), -im.clone()),
                    PointOp::Scale(s) => v * f(*s),
                    PointOp::ZeroFrom(len) => {
                        select(lt(index(self, m), u(*len)), v, complex(f(0.0), f(0.0)))
                    }
                    PointOp::Magnitude => complex(call(Func::Sqrt, vec![power()]), f(0.0)),
                    // 10·log10(|z|²) = (10 / ln 10)·ln(|z|²).
                    PointOp::MagnitudeDb => complex(
                        f(std::f64::consts::LOG10_E * 10.0)
                            * call(Func::Ln, vec![call(Func::Max, vec![power(), f(1e-30)])]),
                        f(0.0),
                    ),
                };
                self.em.push(Stmt::Assign(format!("v{m}"), value));
            }
        }
    }

    pub(super) fn store(&mut self) {
        let p = self.pass;
        let (t, e) = (self.t(), self.e());
        if let Some(scale) = p.scale() {
            self.em.comment("normalise by 1/n");
            for m in 0..e {
                self.em.push(Stmt::Assign(
                    format!("v{m}"),
                    self.regs[m].clone() * f(scale),
                ));
            }
        }
        // The checksum is of the transform: its output before the fused store operations.
        self.sum_output();
        self.point_ops(&p.store.points(), Mem::Dst, PassGen::out_index);
        if p.store.staged {
            // A line's outputs are contiguous (first pass of several, or a one-pass plan), so
            // the workgroup's lines form one contiguous tile. Stage it through workgroup
            // memory and write it with neighbouring threads on neighbouring addresses.
            assert_eq!(p.stride, 1, "staged stores are for first passes");
            self.em
                .comment("stage the workgroup's output tile for a coalesced store");
            let threads = p.threads();
            let writes = (0..e)
                .map(|m| (m, var("lc") * u(p.size) + var("tl") + u(t * m), None))
                .collect();
            let reads = (0..e)
                .map(|m| (m, Expr::Builtin(Builtin::LocalIndex) + u(threads * m)))
                .collect();
            self.exchange(writes, reads);
            self.em.comment("store");
            let tile = Expr::Builtin(Builtin::GroupIndex) * u(p.lines_per_group * p.size);
            // The last workgroup's tile may reach past the dispatch's lines: those elements
            // are not the dispatch's to write.
            let end = Expr::Builtin(Builtin::Lines) * u(p.size);
            for m in 0..e {
                let idx = tile.clone() + Expr::Builtin(Builtin::LocalIndex) + u(threads * m);
                let store = Stmt::Store(Mem::Dst, idx.clone(), self.regs[m].clone());
                if self.guarded {
                    self.em.push(Stmt::If(lt(idx, end.clone()), vec![store]));
                } else {
                    self.em.push(store);
                }
            }
            return;
        }
        let short = p.dst_len < self.geometry.n;
        self.em.comment(if short {
            format!("store the first {} points of each row", p.dst_len)
        } else {
            "store".into()
        });
        let stores: Vec<Stmt> = (0..e)
            .map(|m| {
                let k = self.out_index(m);
                let store = Stmt::Store(
                    Mem::Dst,
                    self.element(Mem::Dst, k.clone()),
                    self.regs[m].clone(),
                );
                if short {
                    Stmt::If(lt(k, u(p.dst_len)), vec![store])
                } else {
                    store
                }
            })
            .collect();
        if self.guarded {
            self.em.push(Stmt::If(var("valid"), stores));
        } else {
            self.em.stmts.extend(stores);
        }
    }
}
