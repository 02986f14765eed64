//! [`WordEchelon`]: the echelon basis of [`crate::gf2`] for vectors and tags of at most 64
//! bits each, held in fixed arrays: no allocation.
//!
//! It makes the same choices as [`Echelon`](crate::gf2::Echelon) (a new vector's pivot is its
//! lowest remaining bit, and the basis stays fully reduced), so the two give the same ranks,
//! residuals and tags; the solvers take this one whenever both widths fit a word. Clearing a
//! new pivot from the earlier rows XORs each under a mask, with no branch on the data.

/// A fully reduced echelon basis of `u64` vectors with `u64` provenance tags.
///
/// ```
/// use linear_layout::word_echelon::WordEchelon;
/// // columns 0b01, 0b11, 0b10: the third is the XOR of the first two
/// let mut e = WordEchelon::new();
/// assert!(e.insert(0b01, 0b001));
/// assert!(e.insert(0b11, 0b010));
/// assert!(!e.insert(0b10, 0b100));
/// assert_eq!(e.rank(), 2);
/// assert_eq!(e.reduce(0b10), (0, 0b011));
/// assert_eq!(e.tag_of_pivot(1), Some(0b011));
/// # assert_eq!(e.tag_of_pivot(2), None);
/// ```
#[derive(Clone, Debug)]
pub struct WordEchelon {
    /// The basis vectors in insertion order (the first `rank`).
    rows: [u64; 64],
    /// `tags[r]`: the tag of `rows[r]`.
    tags: [u64; 64],
    /// `pivot_of[b]`: the row whose pivot is bit `b` (when `pivots` has bit `b`).
    pivot_of: [u8; 64],
    /// The pivot bits.
    pivots: u64,
    rank: usize,
}

impl Default for WordEchelon {
    fn default() -> Self {
        WordEchelon::new()
    }
}

impl WordEchelon {
    /// An empty basis.
    pub fn new() -> Self {
        WordEchelon {
            rows: [0; 64],
            tags: [0; 64],
            pivot_of: [0; 64],
            pivots: 0,
            rank: 0,
        }
    }

    /// Number of independent vectors inserted so far (the rank).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Reduces `v` against the basis: the residual (zero iff `v` is in the span) and the XOR
    /// of the tags of the vectors used, one per pivot bit of `v` (the basis is fully reduced).
    pub fn reduce(&self, v: u64) -> (u64, u64) {
        let (mut v, mut tag) = (v, 0);
        let mut rest = v & self.pivots;
        while rest != 0 {
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let row = self.pivot_of.get(bit).copied().unwrap_or(0) as usize;
            v ^= self.rows.get(row).copied().unwrap_or(0);
            tag ^= self.tags.get(row).copied().unwrap_or(0);
        }
        (v, tag)
    }

    /// Inserts `v` tagged `tag`. Returns `true` if it was independent of the basis (a pivot).
    pub fn insert(&mut self, v: u64, tag: u64) -> bool {
        let (residual, used) = self.reduce(v);
        if residual == 0 {
            return false;
        }
        let bit = residual.trailing_zeros();
        let tag = tag ^ used;
        let rows = self.rows.iter_mut().zip(self.tags.iter_mut());
        for (row, row_tag) in rows.take(self.rank) {
            let mask = ((*row >> bit) & 1).wrapping_neg();
            *row ^= residual & mask;
            *row_tag ^= tag & mask;
        }
        if let (Some(row), Some(row_tag), Some(slot)) = (
            self.rows.get_mut(self.rank),
            self.tags.get_mut(self.rank),
            self.pivot_of.get_mut(bit as usize),
        ) {
            *row = residual;
            *row_tag = tag;
            *slot = self.rank as u8;
        }
        self.pivots |= 1 << bit;
        self.rank += 1;
        true
    }

    /// The tag of the basis vector whose pivot is `bit`, if `bit` is a pivot. In a basis of
    /// full rank every vector is a single bit, so this is the preimage of that bit.
    pub fn tag_of_pivot(&self, bit: usize) -> Option<u64> {
        (bit < 64 && self.pivots >> bit & 1 == 1)
            .then(|| {
                let row = self.pivot_of.get(bit).copied().unwrap_or(0) as usize;
                self.tags.get(row).copied()
            })
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::Echelon;
    use crate::test_rng::XorShift;

    /// On random columns (sparse and dense, dependent ones included, tags of one bit or
    /// many) a `WordEchelon` makes the
    /// choices an `Echelon<u64, u64>` makes: the same independence verdicts, ranks, residuals,
    /// tags, and at full rank the same preimage of each bit.
    #[test]
    fn agrees_with_the_general_echelon() {
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next();
        for case in 0..500 {
            let width = next() % 65;
            let keep = u64::MAX.checked_shr(64 - width as u32).unwrap_or(0);
            let (mut word, mut general) = (WordEchelon::new(), Echelon::<u64, u64>::new(64, 64));
            for i in 0..64 {
                let sparse = next() & next() & next();
                let v = if case % 2 == 0 { sparse } else { next() } & keep;
                // One column's unit tag (as the solvers give), or any tag on some cases:
                // the new row's tag is its own XOR the tags of the rows it was reduced by.
                let tag = if case % 3 == 0 { next() } else { 1u64 << i };
                assert_eq!(
                    word.insert(v, tag),
                    general.insert(v, tag),
                    "case {case} column {i}"
                );
                assert_eq!(word.rank(), general.rank());
                let probe = next() & keep;
                assert_eq!(word.reduce(probe), general.reduce(probe), "case {case}");
            }
            // One pivot per row; at full rank each row is its pivot alone, whose preimage it tags.
            let pivots = (0..64)
                .filter(|&bit| word.tag_of_pivot(bit).is_some())
                .count();
            assert_eq!(pivots, word.rank(), "case {case}");
            if word.rank() == width as usize {
                for bit in 0..width as usize {
                    let (rest, tag) = general.reduce(1 << bit);
                    assert_eq!(
                        (rest, word.tag_of_pivot(bit)),
                        (0, Some(tag)),
                        "case {case}"
                    );
                }
            }
            assert_eq!(word.tag_of_pivot(64), None);
        }
    }
}
