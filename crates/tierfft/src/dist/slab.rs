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

use std::ops::Range;

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

/// A copy of `rows` rows of `row_len` complex elements from one array to another, each row
/// `src_pitch` (`dst_pitch`) elements after the last, starting at element `src` (`dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// Rows copied.
    pub rows: usize,
    /// Complex elements per row.
    pub row_len: usize,
    /// First source element.
    pub src: usize,
    /// Source elements from one row's start to the next.
    pub src_pitch: usize,
    /// First destination element.
    pub dst: usize,
    /// Destination elements from one row's start to the next.
    pub dst_pitch: usize,
}

impl Rows {
    /// Complex elements copied.
    pub fn len(&self) -> usize {
        self.rows * self.row_len
    }

    /// True when nothing is copied.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One rank's part of a change of layout: copies within the rank before the all-to-all
/// (`before`), the messages (`sends[p]`, `recvs[q]`: element ranges of the send and receive
/// arrays, empty for the rank itself), and copies after it (`after`).
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// The arrays a change of layout touches on one rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Array {
    /// The array in the natural layout.
    Natural,
    /// The array in the transposed layout.
    Transposed,
    /// Staging for packed blocks (at most the natural array's length).
    Staging,
}

/// The slab decomposition of a complex array of `shape` over `ranks` ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slabs {
    /// The global complex array's shape (at least two axes).
    pub shape: Vec<usize>,
    /// Ranks holding it.
    pub ranks: usize,
    /// Axis-1 indices each transposed slab holds beyond its own on either side (within the
    /// array), for steps that read neighbours along axis 1.
    pub halo: usize,
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
            rows: split(shape[0], ranks),
            cols: split(shape[1], ranks),
        })
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
            .filter(|&p| p != r)
            .map(|p| self.col_width(p))
            .sum();
        self.rows[r].len() * width
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

    /// Elements of rank `r`'s natural array.
    pub fn natural_len(&self, r: usize) -> usize {
        self.natural_shape(r).iter().product()
    }

    /// Elements of rank `r`'s transposed array.
    pub fn transposed_len(&self, r: usize) -> usize {
        self.transposed_shape(r).iter().product()
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
        let (n_r, width, own) = (self.rows[r].len(), self.row_width(), self.col_width(r));
        let mut before = Vec::new();
        let mut sends = Vec::new();
        let mut staged = 0;
        for p in 0..self.ranks {
            let block = Rows {
                rows: n_r,
                row_len: self.col_width(p),
                src: self.cols[p].start * self.inner(),
                src_pitch: width,
                dst: staged,
                dst_pitch: self.col_width(p),
            };
            if p == r {
                let here = Rows {
                    dst: self.rows[r].start * own,
                    dst_pitch: own,
                    ..block
                };
                before.push((Array::Natural, Array::Transposed, here));
                sends.push(0..0);
            } else {
                before.push((Array::Natural, Array::Staging, block));
                sends.push(staged..staged + block.len());
                staged += block.len();
            }
        }
        let recvs = (0..self.ranks)
            .map(|q| match q == r {
                true => 0..0,
                false => self.rows[q].start * own..self.rows[q].end * own,
            })
            .collect();
        Moves {
            before,
            sends,
            recvs,
            after: Vec::new(),
            send_from: Array::Staging,
            recv_into: Array::Transposed,
        }
    }

    /// Rank `r`'s moves from the transposed layout to the natural one, the mirror of
    /// [`Slabs::to_transposed`]: each peer's rows sent straight from the transposed array
    /// (they are contiguous there), received into staging and unpacked into their columns.
    /// `None` with a halo (the slabs overlap).
    pub fn to_natural(&self, r: usize) -> Option<Moves> {
        if self.halo > 0 {
            return None;
        }
        let (n_r, width, own) = (self.rows[r].len(), self.row_width(), self.col_width(r));
        let sends = (0..self.ranks)
            .map(|p| match p == r {
                true => 0..0,
                false => self.rows[p].start * own..self.rows[p].end * own,
            })
            .collect();
        let mut after = Vec::new();
        let mut recvs = Vec::new();
        let mut staged = 0;
        let mut before = Vec::new();
        for q in 0..self.ranks {
            let block = Rows {
                rows: n_r,
                row_len: self.col_width(q),
                src: staged,
                src_pitch: self.col_width(q),
                dst: self.cols[q].start * self.inner(),
                dst_pitch: width,
            };
            if q == r {
                let here = Rows {
                    src: self.rows[r].start * own,
                    src_pitch: own,
                    ..block
                };
                before.push((Array::Transposed, Array::Natural, here));
                recvs.push(0..0);
            } else {
                after.push((Array::Staging, Array::Natural, block));
                recvs.push(staged..staged + block.len());
                staged += block.len();
            }
        }
        Some(Moves {
            before,
            sends,
            recvs,
            after,
            send_from: Array::Transposed,
            recv_into: Array::Staging,
        })
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

    /// Plays every rank's moves on index arrays (element `i` of the global array holds `i`)
    /// and checks that each rank ends with exactly its slab of the other layout.
    fn play(shape: &[usize], ranks: usize, halo: usize) {
        let s = Slabs::with_halo(shape, ranks, halo).unwrap();
        let total: usize = shape.iter().product();
        let index = |idx: &[usize]| idx.iter().zip(shape).fold(0, |a, (i, n)| a * n + i);
        let inner = s.inner();
        // Natural slabs of the global index array.
        let natural: Vec<Vec<usize>> = (0..ranks)
            .map(|r| {
                (s.rows(r).start * shape[1] * inner..s.rows(r).end * shape[1] * inner).collect()
            })
            .collect();
        let expect_transposed = |r: usize| -> Vec<usize> {
            let mut v = Vec::new();
            for i0 in 0..shape[0] {
                for i1 in s.cols(r) {
                    for k in 0..inner {
                        v.push(index(&[i0, i1]) * inner + k);
                    }
                }
            }
            v
        };
        let copy = |src: &[usize], dst: &mut [usize], c: &Rows| {
            for row in 0..c.rows {
                let (a, b) = (c.src + row * c.src_pitch, c.dst + row * c.dst_pitch);
                dst[b..b + c.row_len].copy_from_slice(&src[a..a + c.row_len]);
            }
        };
        // Natural → transposed.
        let mut staging: Vec<Vec<usize>> = (0..ranks)
            .map(|r| vec![usize::MAX; s.staging_len(r)])
            .collect();
        let mut transposed: Vec<Vec<usize>> = (0..ranks)
            .map(|r| vec![usize::MAX; s.transposed_len(r)])
            .collect();
        let moves: Vec<Moves> = (0..ranks).map(|r| s.to_transposed(r)).collect();
        for r in 0..ranks {
            for (from, to, c) in &moves[r].before {
                match (from, to) {
                    (Array::Natural, Array::Staging) => copy(&natural[r], &mut staging[r], c),
                    (Array::Natural, Array::Transposed) => copy(&natural[r], &mut transposed[r], c),
                    other => panic!("unexpected copy {other:?}"),
                }
            }
        }
        for r in 0..ranks {
            for q in 0..ranks {
                let (send, recv) = (moves[q].sends[r].clone(), moves[r].recvs[q].clone());
                assert_eq!(send.len(), recv.len(), "rank {q} -> {r}");
                let block = staging[q][send].to_vec();
                transposed[r][recv].copy_from_slice(&block);
            }
            assert_eq!(
                transposed[r],
                expect_transposed(r),
                "rank {r} of {ranks}, {shape:?}"
            );
        }
        if halo > 0 {
            assert!(s.to_natural(0).is_none());
            return;
        }
        // And back.
        let mut back: Vec<Vec<usize>> = (0..ranks)
            .map(|r| vec![usize::MAX; s.natural_len(r)])
            .collect();
        let moves: Vec<Moves> = (0..ranks).map(|r| s.to_natural(r).unwrap()).collect();
        for r in 0..ranks {
            for (_, _, c) in &moves[r].before {
                copy(&transposed[r], &mut back[r], c);
            }
            for q in 0..ranks {
                let (send, recv) = (moves[q].sends[r].clone(), moves[r].recvs[q].clone());
                assert_eq!(send.len(), recv.len());
                let block = transposed[q][send].to_vec();
                staging[r][recv].copy_from_slice(&block);
            }
        }
        for r in 0..ranks {
            for (_, _, c) in &moves[r].after {
                copy(&staging[r], &mut back[r], c);
            }
            assert_eq!(
                back[r], natural[r],
                "back to natural: rank {r} of {ranks}, {shape:?}"
            );
        }
        assert_eq!(natural.iter().map(Vec::len).sum::<usize>(), total);
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
            play(shape, ranks, 0);
        }
        for (shape, ranks, halo) in [
            (&[8, 12][..], 3, 2),
            (&[6, 20, 3][..], 4, 3),
            (&[5, 7][..], 2, 9),
        ] {
            play(shape, ranks, halo);
        }
    }
}
