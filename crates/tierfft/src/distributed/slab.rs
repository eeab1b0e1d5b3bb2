//! The slab decomposition as data: which part of the global array each rank holds, and the
//! copies and messages that move an array between the two slab layouts. No device calls.
//!
//! The complex array (for a real transform, its complex side) of shape `[n0, n1, rest..]`
//! is held in one of two layouts over `ranks` ranks:
//! - **natural**: rank `r` holds rows `rows(r)` of axis 0, i.e. `[rows(r).len(), n1, rest..]`,
//!   row-major: the global array cut along axis 0;
//! - **transposed**: rank `r` holds `[n0, cols(r).len(), rest..]`, row-major: the global
//!   array's indices `[:, cols(r), ..]`, cut along axis 1 (cuFFTMp's "slab, distributed
//!   along Y"), so that axis 0 is whole on every rank.
//!
//! Going from one layout to the other sends each peer one block and receives one from each:
//! an all-to-all with a different count per peer where the extents do not divide evenly.
//!
//! The same change applies to a batch of `outer` such arrays laid one after the other (each
//! rank's local array `[outer, ..]`), and within a group of the ranks (`members`, world rank
//! of each): a pencil decomposition's exchanges are these, in rows and columns of its grid.

use std::ops::Range;

pub use crate::backend::copy::Rows;

/// The part of `0..n` each of `ranks` ranks holds: consecutive, as even as can be (the first
/// `n % ranks` ranks hold one more).
pub fn split(n: usize, ranks: usize) -> Vec<Range<usize>> {
    let (base, extra) = (n / ranks, n % ranks);
    let mut start = 0;
    (0..ranks)
        .map(|r| {
            let len = base + usize::from(r < extra);
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// One rank's part of a change of layout: copies within the rank before the all-to-all
/// (`before`), the messages (`sends[p]`, `recvs[q]`: element ranges of the send and receive
/// arrays, empty for the rank itself; or, read and written in place, `blocks`), and copies
/// after it (`after`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Moves {
    /// Copies before the messages (packing blocks to send, and the rank's own block).
    pub before: Vec<(Array, Array, Rows)>,
    /// Elements of the send array that go to each peer.
    pub sends: Vec<Range<usize>>,
    /// Elements of the receive array that come from each peer.
    pub recvs: Vec<Range<usize>>,
    /// Copies after the messages (unpacking received blocks).
    pub after: Vec<(Array, Array, Rows)>,
    /// The array messages are sent from.
    pub send_from: Array,
    /// The array messages are received into.
    pub recv_into: Array,
    /// Complex elements of [`Array::Staging`] these moves use.
    pub staging: usize,
    /// Complex elements of [`Array::Received`] these moves use.
    pub received: usize,
    /// The messages as 2-D blocks read and written in place ([`Slabs::part_in_place`]),
    /// instead of the contiguous `sends` and `recvs` (then empty).
    pub blocks: Option<Blocks>,
}

/// The messages of a change of layout read from and written into the arrays in place, as
/// 2-D blocks, so that nothing is packed or unpacked: `sends[p]` is read (`rows` rows of
/// `row_len` from `src` at `src_pitch`) from the send array for world rank `p`, and
/// `recvs[q]` is written (at `dst`, `dst_pitch`) into the receive array from world rank `q`;
/// the other side of each is unused (0). Empty blocks for the rank itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Blocks {
    /// What this rank sends each world rank, from the send array.
    pub sends: Vec<Rows>,
    /// Where what each world rank sends lands in the receive array.
    pub recvs: Vec<Rows>,
}

impl Moves {
    /// Complex elements this rank sends each world rank.
    pub fn sent(&self) -> Vec<usize> {
        match &self.blocks {
            Some(b) => b.sends.iter().map(Rows::len).collect(),
            None => self.sends.iter().map(|r| r.len()).collect(),
        }
    }

    /// Complex elements this rank receives from each world rank.
    pub fn received_from(&self) -> Vec<usize> {
        match &self.blocks {
            Some(b) => b.recvs.iter().map(Rows::len).collect(),
            None => self.recvs.iter().map(|r| r.len()).collect(),
        }
    }
}

/// The arrays a change of layout touches on one rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Array {
    /// The array in the natural layout.
    Natural,
    /// The array in the transposed layout.
    Transposed,
    /// Packed blocks to send (and the rank's own block on its way across).
    Staging,
    /// Blocks received, before they are unpacked.
    Received,
}

/// The slab decomposition of a complex array of `shape` over `ranks` ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Slabs {
    /// The global complex array's shape (at least two axes).
    pub shape: Vec<usize>,
    /// Ranks holding it.
    pub ranks: usize,
    /// Axis-1 indices each transposed slab holds beyond its own on either side (within the
    /// array), for steps that read neighbours along axis 1.
    pub halo: usize,
    /// Arrays in the batch each rank holds one after the other.
    pub outer: usize,
    /// The world rank of each rank of this decomposition.
    pub members: Vec<usize>,
    /// Ranks of the whole exchange (the length of every [`Moves`] message list).
    pub world: usize,
    rows: Vec<Range<usize>>,
    cols: Vec<Range<usize>>,
}

impl Slabs {
    /// The decomposition of `shape` (two or more axes, axes 0 and 1 at least `ranks` long)
    /// over `ranks` ranks; `None` when it does not exist.
    pub fn new(shape: &[usize], ranks: usize) -> Option<Slabs> {
        if shape.len() < 2 || ranks == 0 || shape[0] < ranks || shape[1] < ranks {
            return None;
        }
        Some(Slabs {
            shape: shape.to_vec(),
            ranks,
            halo: 0,
            outer: 1,
            members: (0..ranks).collect(),
            world: ranks,
            rows: split(shape[0], ranks),
            cols: split(shape[1], ranks),
        })
    }

    /// The same decomposition among ranks `members` (world ranks, one per rank of this
    /// decomposition) of an exchange between `world` ranks, each holding a batch of `outer`
    /// arrays one after the other; `None` when `members` does not fit (one distinct world
    /// rank per rank).
    pub fn within(mut self, members: Vec<usize>, world: usize, outer: usize) -> Option<Slabs> {
        let mut sorted = members.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != self.ranks || members.iter().any(|&m| m >= world) || outer == 0 {
            return None;
        }
        (self.members, self.world, self.outer) = (members, world, outer);
        Some(self)
    }

    /// The decomposition whose transposed slabs also hold `halo` axis-1 indices on either
    /// side of their own (fewer at the array's ends); only [`Slabs::to_transposed`] applies.
    pub fn with_halo(shape: &[usize], ranks: usize, halo: usize) -> Option<Slabs> {
        let mut slabs = Slabs::new(shape, ranks)?;
        slabs.halo = halo;
        for c in &mut slabs.cols {
            *c = c.start.saturating_sub(halo)..(c.end + halo).min(shape[1]);
        }
        Some(slabs)
    }

    /// Axis-1 indices rank `r`'s transposed slab holds as its own (without the halo).
    pub fn own_cols(&self, r: usize) -> Range<usize> {
        split(self.shape[1], self.ranks)[r].clone()
    }

    /// Complex elements of staging rank `r` needs for either change of layout.
    pub fn staging_len(&self, r: usize) -> usize {
        let width: usize = (0..self.ranks)
            .filter(|&p| p != r || self.outer > 1)
            .map(|p| self.col_width(p))
            .sum();
        self.outer * self.rows[r].len() * width
    }

    /// Axis-0 indices rank `r` holds in the natural layout.
    pub fn rows(&self, r: usize) -> Range<usize> {
        self.rows[r].clone()
    }

    /// Axis-1 indices rank `r` holds in the transposed layout (with its halo).
    pub fn cols(&self, r: usize) -> Range<usize> {
        self.cols[r].clone()
    }

    /// Elements per axis-1 index: the product of the axes after axis 1.
    pub fn inner(&self) -> usize {
        self.shape[2..].iter().product()
    }

    /// Rank `r`'s array in the natural layout: `[rows(r).len(), n1, rest..]`.
    pub fn natural_shape(&self, r: usize) -> Vec<usize> {
        let mut s = self.shape.clone();
        s[0] = self.rows[r].len();
        s
    }

    /// Rank `r`'s array in the transposed layout: `[n0, cols(r).len(), rest..]`.
    pub fn transposed_shape(&self, r: usize) -> Vec<usize> {
        let mut s = self.shape.clone();
        s[1] = self.cols[r].len();
        s
    }

    /// Elements of rank `r`'s natural array (the whole batch).
    pub fn natural_len(&self, r: usize) -> usize {
        self.outer * self.natural_shape(r).iter().product::<usize>()
    }

    /// Elements of rank `r`'s transposed array (the whole batch).
    pub fn transposed_len(&self, r: usize) -> usize {
        self.outer * self.transposed_shape(r).iter().product::<usize>()
    }

    /// Message lists over the world's ranks: `messages[p]` for the member `p`, nothing
    /// (the default) for the others.
    fn to_world<T: Clone + Default>(&self, messages: Vec<T>) -> Vec<T> {
        let mut world = vec![T::default(); self.world];
        for (p, message) in messages.into_iter().enumerate() {
            world[self.members[p]] = message;
        }
        world
    }

    /// Elements of one axis-0 row of rank `p`'s transposed block (`cols(p).len() · inner`).
    fn col_width(&self, p: usize) -> usize {
        self.cols[p].len() * self.inner()
    }

    /// Elements of one axis-0 row of the natural array (`n1 · inner`).
    fn row_width(&self) -> usize {
        self.shape[1] * self.inner()
    }

    /// Rank `r`'s moves from the natural layout to the transposed one: each peer's columns
    /// packed into staging and sent; the rank's own copied straight across; blocks received
    /// into their place in the transposed array (rows `rows(q)` from rank `q`).
    pub fn to_transposed(&self, r: usize) -> Moves {
        if self.outer > 1 {
            return self.to_transposed_batched(r);
        }
        self.part_to_transposed(r, 0, 1, 1)
    }

    /// The rows (local indices of axis 0, from 0) of each of `parts` consecutive parts of
    /// rank `r`'s natural slab, as even as can be in whole multiples of `align` rows (the
    /// last part takes any rest; parts beyond the rows are empty). Every rank cuts its own
    /// slab the same way, so the parts of one index meet in one all-to-all.
    pub fn parts(&self, r: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
        let (rows, align) = (self.rows[r].len(), align.max(1));
        let mut cut: Vec<Range<usize>> = split(rows.div_ceil(align), parts.max(1))
            .into_iter()
            .map(|u| (u.start * align).min(rows)..(u.end * align).min(rows))
            .collect();
        if let Some(last) = cut.last_mut() {
            last.end = rows;
        }
        cut
    }

    /// Part `part` of [`Slabs::to_transposed`] for a slab cut into `parts` parts of
    /// `align` rows ([`Slabs::parts`]; one unbatched array): each rank packs and sends the
    /// columns of that part's rows alone, and receives each peer's part of the same index
    /// into its place. Played for every part, in any order, they make one
    /// [`Slabs::to_transposed`]; each part packs into staging of its own, so a part's
    /// messages may still be on their way while the next part is packed.
    pub fn part_to_transposed(&self, r: usize, part: usize, parts: usize, align: usize) -> Moves {
        let mut m = self.part_in_place(r, part, parts, align);
        let Some(blocks) = m.blocks.take() else {
            return m;
        };
        // Each peer's block packed into staging after the earlier parts' (which staged their
        // rows' columns for every peer).
        let mine = self.parts(r, parts, align)[part].clone();
        let peers: usize = (0..self.ranks)
            .filter(|&p| p != r)
            .map(|p| self.col_width(p))
            .sum();
        let mut staged = mine.start * peers;
        let mut sends = vec![0..0; self.world];
        for (p, block) in blocks
            .sends
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
        {
            let packed = Rows {
                dst: staged,
                dst_pitch: block.row_len,
                ..*block
            };
            m.before.push((Array::Natural, Array::Staging, packed));
            sends[p] = staged..staged + block.len();
            staged += block.len();
        }
        // Blocks land in whole rows of the transposed array: contiguous.
        m.recvs = (blocks.recvs.iter())
            .map(|b| b.dst..b.dst + b.len())
            .collect();
        m.sends = sends;
        m.send_from = Array::Staging;
        m.staging = staged;
        m
    }

    /// [`Slabs::part_to_transposed`] with its messages read and written in place
    /// ([`Blocks`]): each peer's columns of the part's rows read straight from the natural
    /// array, received straight into their rows of the transposed one; only the rank's own
    /// block is copied. For exchanges that move 2-D blocks (peer copies).
    pub fn part_in_place(&self, r: usize, part: usize, parts: usize, align: usize) -> Moves {
        let mine = self.parts(r, parts, align)[part].clone();
        let (width, own, inner) = (self.row_width(), self.col_width(r), self.inner());
        let none = Rows::default();
        let mut before = Vec::new();
        let mut sends = Vec::with_capacity(self.ranks);
        for p in 0..self.ranks {
            let block = Rows {
                rows: mine.len(),
                row_len: self.col_width(p),
                src: mine.start * width + self.cols[p].start * inner,
                src_pitch: width,
                ..none
            };
            if p == r {
                let here = Rows {
                    dst: (self.rows[r].start + mine.start) * own,
                    dst_pitch: own,
                    ..block
                };
                before.push((Array::Natural, Array::Transposed, here));
                sends.push(none);
            } else {
                sends.push(block);
            }
        }
        let recvs = (0..self.ranks)
            .map(|q| match q == r {
                true => none,
                false => {
                    let theirs = &self.parts(q, parts, align)[part];
                    Rows {
                        rows: theirs.len(),
                        row_len: own,
                        dst: (self.rows[q].start + theirs.start) * own,
                        dst_pitch: own,
                        ..none
                    }
                }
            })
            .collect();
        Moves {
            before,
            sends: vec![0..0; self.world],
            recvs: vec![0..0; self.world],
            after: Vec::new(),
            send_from: Array::Natural,
            recv_into: Array::Transposed,
            staging: 0,
            received: 0,
            blocks: Some(Blocks {
                sends: self.to_world(sends),
                recvs: self.to_world(recvs),
            }),
        }
    }

    /// [`Slabs::to_transposed`] of a batch: a peer's block is no longer contiguous in the
    /// transposed array (it is one run per array of the batch), so every block, the rank's
    /// own too, is packed into staging as `[outer][rows][its columns]`, and blocks are
    /// received into a buffer of their own and unpacked.
    fn to_transposed_batched(&self, r: usize) -> Moves {
        let (n_r, width, own, n0) = (
            self.rows[r].len(),
            self.row_width(),
            self.col_width(r),
            self.shape[0],
        );
        let (mut before, mut after, mut sends, mut recvs) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut staged, mut received) = (0, 0);
        let mut own_block = 0;
        for p in 0..self.ranks {
            // The batch's rows one after the other: one pitch throughout.
            let block = Rows {
                rows: self.outer * n_r,
                row_len: self.col_width(p),
                src: self.cols[p].start * self.inner(),
                src_pitch: width,
                dst: staged,
                dst_pitch: self.col_width(p),
            };
            before.push((Array::Natural, Array::Staging, block));
            if p == r {
                own_block = staged;
                sends.push(0..0);
            } else {
                sends.push(staged..staged + block.len());
            }
            staged += block.len();
        }
        for q in 0..self.ranks {
            let n_q = self.rows[q].len();
            let (from, src) = match q == r {
                true => (Array::Staging, own_block),
                false => (Array::Received, received),
            };
            let unpack = Rows {
                rows: self.outer,
                row_len: n_q * own,
                src,
                src_pitch: n_q * own,
                dst: self.rows[q].start * own,
                dst_pitch: n0 * own,
            };
            after.push((from, Array::Transposed, unpack));
            if q == r {
                recvs.push(0..0);
            } else {
                recvs.push(received..received + unpack.len());
                received += unpack.len();
            }
        }
        Moves {
            before,
            sends: self.to_world(sends),
            recvs: self.to_world(recvs),
            after,
            send_from: Array::Staging,
            recv_into: Array::Received,
            staging: staged,
            received,
            blocks: None,
        }
    }

    /// Rank `r`'s moves from the transposed layout to the natural one: those of
    /// [`Slabs::to_transposed`] played backwards (every copy and message reversed), so that
    /// peers' blocks go straight from the transposed array where they are contiguous and are
    /// unpacked from staging into their columns. `None` with a halo (the slabs overlap).
    pub fn to_natural(&self, r: usize) -> Option<Moves> {
        (self.halo == 0).then(|| backwards(self.to_transposed(r)))
    }

    /// Part `part` of [`Slabs::to_natural`] for a slab cut into parts
    /// ([`Slabs::part_to_transposed`] played backwards): the part's rows of each peer's
    /// block received into staging of its own and unpacked into those rows of the natural
    /// slab, so that the rows of one part can be transformed while the next part's messages
    /// are on their way. `None` with a halo.
    pub fn part_to_natural(
        &self,
        r: usize,
        part: usize,
        parts: usize,
        align: usize,
    ) -> Option<Moves> {
        (self.halo == 0).then(|| backwards(self.part_to_transposed(r, part, parts, align)))
    }

    /// [`Slabs::part_in_place`] played backwards: the part's rows of each peer's block read
    /// from the transposed array and written straight into their columns of the natural
    /// one. `None` with a halo.
    pub fn part_in_place_back(
        &self,
        r: usize,
        part: usize,
        parts: usize,
        align: usize,
    ) -> Option<Moves> {
        (self.halo == 0).then(|| backwards(self.part_in_place(r, part, parts, align)))
    }
}

/// `m` played backwards: every copy and message reversed, in the opposite order.
fn backwards(m: Moves) -> Moves {
    let back = |copies: Vec<(Array, Array, Rows)>| -> Vec<(Array, Array, Rows)> {
        (copies.into_iter())
            .map(|(from, to, c)| (to, from, c.reversed()))
            .collect()
    };
    // What was received at `dst` is sent from there, and what was sent from `src` lands
    // there (a block's unused side is 0 on both ends, so reversing keeps it so).
    let reversed = |blocks: Vec<Rows>| blocks.iter().map(Rows::reversed).collect();
    let blocks = m.blocks.map(|b| Blocks {
        sends: reversed(b.recvs),
        recvs: reversed(b.sends),
    });
    Moves {
        before: back(m.after),
        sends: m.recvs,
        recvs: m.sends,
        after: back(m.before),
        send_from: m.recv_into,
        recv_into: m.send_from,
        staging: m.staging,
        received: m.received,
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_even_and_covers() {
        assert_eq!(split(10, 3), vec![0..4, 4..7, 7..10]);
        assert_eq!(split(8, 4), vec![0..2, 2..4, 4..6, 6..8]);
        assert_eq!(split(3, 3), vec![0..1, 1..2, 2..3]);
    }

    #[test]
    fn refuses_what_cannot_be_cut() {
        assert!(Slabs::new(&[16], 2).is_none());
        assert!(Slabs::new(&[1, 16], 2).is_none());
        assert!(Slabs::new(&[16, 3], 4).is_none());
        assert!(Slabs::new(&[16, 16], 0).is_none());
    }

    /// One rank's arrays in the index-array simulation below.
    struct Held {
        natural: Vec<usize>,
        transposed: Vec<usize>,
        staging: Vec<usize>,
        received: Vec<usize>,
    }

    impl Held {
        fn get(&mut self, a: Array) -> &mut Vec<usize> {
            match a {
                Array::Natural => &mut self.natural,
                Array::Transposed => &mut self.transposed,
                Array::Staging => &mut self.staging,
                Array::Received => &mut self.received,
            }
        }

        fn copy(&mut self, from: Array, to: Array, c: &Rows) {
            let src = self.get(from).clone();
            let dst = self.get(to);
            for row in 0..c.rows {
                let (a, b) = (c.src + row * c.src_pitch, c.dst + row * c.dst_pitch);
                dst[b..b + c.row_len].copy_from_slice(&src[a..a + c.row_len]);
            }
        }
    }

    /// Plays every rank's `moves` (copies, then messages between world ranks, then copies).
    fn play_moves(s: &Slabs, held: &mut [Held], moves: &[Moves]) {
        for (r, m) in moves.iter().enumerate() {
            held[r].staging = vec![usize::MAX; m.staging.max(1)];
            held[r].received = vec![usize::MAX; m.received.max(1)];
            for (from, to, c) in &m.before {
                held[r].copy(*from, *to, c);
            }
        }
        for r in 0..s.ranks {
            for q in 0..s.ranks {
                let (wr, wq) = (s.members[r], s.members[q]);
                if let (Some(from), Some(into)) = (&moves[q].blocks, &moves[r].blocks) {
                    // A 2-D block read in place on one side, written in place on the other.
                    let (b, w) = (from.sends[wr], into.recvs[wq]);
                    assert_eq!((b.rows, b.row_len), (w.rows, w.row_len), "rank {q} -> {r}");
                    let src = held[q].get(moves[q].send_from).clone();
                    let dst = held[r].get(moves[r].recv_into);
                    for row in 0..b.rows {
                        let (a, c) = (b.src + row * b.src_pitch, w.dst + row * w.dst_pitch);
                        dst[c..c + b.row_len].copy_from_slice(&src[a..a + b.row_len]);
                    }
                    continue;
                }
                let (send, recv) = (moves[q].sends[wr].clone(), moves[r].recvs[wq].clone());
                assert_eq!(send.len(), recv.len(), "rank {q} -> {r}");
                let block = held[q].get(moves[q].send_from)[send].to_vec();
                held[r].get(moves[r].recv_into)[recv].copy_from_slice(&block);
            }
        }
        for (r, m) in moves.iter().enumerate() {
            for (from, to, c) in &m.after {
                held[r].copy(*from, *to, c);
            }
            assert_eq!(m.sends.len(), s.world);
        }
    }

    /// Plays every rank's moves on index arrays (element `i` of the global batch holds `i`)
    /// and checks that each rank ends with exactly its slab of the other layout, and back;
    /// an unbatched slab in `parts` parts of rows in multiples of `align`, its messages
    /// packed or (`in_place`) read and written as 2-D blocks.
    fn play(
        shape: &[usize],
        ranks: usize,
        halo: usize,
        outer: usize,
        (parts, align): (usize, usize),
        in_place: bool,
    ) {
        let members: Vec<usize> = (0..ranks).map(|r| 2 * r + 1).collect();
        let s = Slabs::with_halo(shape, ranks, halo)
            .unwrap()
            .within(members, 2 * ranks + 1, outer)
            .unwrap();
        let one: usize = shape.iter().product();
        let inner = s.inner();
        let row = shape[1] * inner;
        let natural = |r: usize| -> Vec<usize> {
            (0..outer)
                .flat_map(|o| {
                    (s.rows(r).start * row..s.rows(r).end * row).map(move |i| o * one + i)
                })
                .collect()
        };
        let transposed = |r: usize| -> Vec<usize> {
            let mut v = Vec::new();
            for o in 0..outer {
                for i0 in 0..shape[0] {
                    for i1 in s.cols(r) {
                        v.extend((0..inner).map(|k| o * one + (i0 * shape[1] + i1) * inner + k));
                    }
                }
            }
            v
        };
        let mut held: Vec<Held> = (0..ranks)
            .map(|r| Held {
                natural: natural(r),
                transposed: vec![usize::MAX; s.transposed_len(r)],
                staging: Vec::new(),
                received: Vec::new(),
            })
            .collect();
        let (parts, in_place) = if outer == 1 {
            (parts, in_place)
        } else {
            (1, false)
        };
        let mut staged = vec![Vec::new(); ranks];
        let what = |r| {
            format!(
                "rank {r} of {ranks}, {shape:?}, halo {halo}, outer {outer}, {parts} parts of \
                 {align}, in place {in_place}"
            )
        };
        for part in 0..parts {
            let moves: Vec<Moves> = (0..ranks)
                .map(|r| match (in_place, parts) {
                    (true, _) => s.part_in_place(r, part, parts, align),
                    (false, 1) => s.to_transposed(r),
                    (false, _) => s.part_to_transposed(r, part, parts, align),
                })
                .collect();
            play_moves(&s, &mut held, &moves);
            for (r, m) in moves.iter().enumerate() {
                assert!(m.staging <= s.staging_len(r), "{}", what(r));
                staged[r].extend(m.sends.iter().filter(|x| !x.is_empty()).cloned());
            }
        }
        // Parts may be on their way at once: each stages into elements of its own.
        for (r, ranges) in staged.iter_mut().enumerate() {
            ranges.sort_by_key(|x| x.start);
            assert!(
                ranges.windows(2).all(|w| w[0].end <= w[1].start),
                "{}",
                what(r)
            );
        }
        for (r, h) in held.iter().enumerate() {
            assert_eq!(h.transposed, transposed(r), "{}", what(r));
        }
        if halo > 0 {
            assert!(s.to_natural(0).is_none());
            return;
        }
        for h in &mut held {
            h.natural.fill(usize::MAX);
        }
        for part in 0..parts {
            let moves: Vec<Moves> = (0..ranks)
                .map(|r| match (in_place, parts) {
                    (true, _) => s.part_in_place_back(r, part, parts, align),
                    (false, 1) => s.to_natural(r),
                    (false, _) => s.part_to_natural(r, part, parts, align),
                })
                .map(Option::unwrap)
                .collect();
            play_moves(&s, &mut held, &moves);
        }
        for (r, h) in held.iter().enumerate() {
            assert_eq!(h.natural, natural(r), "back: {}", what(r));
        }
    }

    #[test]
    fn moves_reach_the_other_layout_and_back() {
        for (shape, ranks) in [
            (&[8, 8][..], 2),
            (&[10, 7][..], 3),
            (&[5, 9, 3][..], 4),
            (&[6, 6, 2, 3][..], 1),
            (&[7, 5, 4][..], 5),
        ] {
            for outer in [1, 3] {
                play(shape, ranks, 0, outer, (1, 1), false);
            }
            for parts in [(1, 1), (2, 1), (3, 2), (4, 1), (9, 1)] {
                play(shape, ranks, 0, 1, parts, false);
                play(shape, ranks, 0, 1, parts, true);
            }
        }
        for (shape, ranks, halo) in [
            (&[8, 12][..], 3, 2),
            (&[6, 20, 3][..], 4, 3),
            (&[5, 7][..], 2, 9),
        ] {
            play(shape, ranks, halo, 1, (1, 1), false);
            play(shape, ranks, halo, 1, (3, 1), false);
            play(shape, ranks, halo, 1, (3, 1), true);
        }
    }

    #[test]
    fn parts_cover_the_rows_in_aligned_pieces() {
        let s = Slabs::new(&[21, 8], 2).unwrap();
        assert_eq!(s.rows(0), 0..11);
        assert_eq!(s.parts(0, 3, 4), vec![0..4, 4..8, 8..11]);
        assert_eq!(s.parts(1, 3, 4), vec![0..4, 4..8, 8..10]);
        assert_eq!(s.parts(0, 4, 8), vec![0..8, 8..11, 11..11, 11..11]);
        assert_eq!(s.parts(1, 1, 4), vec![0..10]);
    }
}
