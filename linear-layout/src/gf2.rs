//! GF(2) vectors in machine words, and the one elimination routine everything uses.
//!
//! A vector of `n` bits is a single word when `n` fits one (`u64`, `u128`, any
//! [`num_traits::PrimInt`]), otherwise a `Vec<u64>` of limbs. Algorithms are generic over
//! [`Gf2Vector`] and monomorphised per width ([`Width`]), so layouts of up to 64 bits run on
//! plain `u64` arithmetic and wider ones still work.
//!
//! [`Echelon`] keeps a basis in reduced echelon form (each vector owns one pivot bit, which no
//! other vector has) together with, for each vector, which inserted columns it is the XOR of
//! (its *tag*).
//! Inserting columns `c0, c1, …` in order makes the pivot columns exactly the RREF pivot
//! columns of the matrix `[c0 c1 …]` (a column is a pivot iff it is independent of the
//! columns before it), and reducing a vector yields the unique combination of pivot columns
//! that produces it — the least-squares solution with every free variable set to zero that
//! Triton reads off its RREF.

use num_traits::PrimInt;

/// A bit vector over GF(2).
pub trait Gf2Vector: Clone + PartialEq + std::fmt::Debug {
    /// The zero vector able to hold `bits` bits.
    fn zeros(bits: usize) -> Self;
    /// Whether every bit is 0.
    fn is_zero(&self) -> bool;
    /// Index of the lowest set bit, if any.
    fn lowest_one(&self) -> Option<usize>;
    /// `self ^= other`.
    fn xor_assign(&mut self, other: &Self);
    /// Sets bit `i` (within the vector's width).
    fn set_bit(&mut self, i: usize);
    /// XORs `value` (of at most `len ≤ 64` bits) in at bit `offset`.
    fn xor_bits(&mut self, offset: usize, len: u32, value: u64);
    /// Reads `len ≤ 64` bits starting at bit `offset`.
    fn get_bits(&self, offset: usize, len: u32) -> u64;
    /// Calls `f` with the index of every bit set in both `self` and `mask`, lowest first.
    fn for_each_common_one(&self, mask: &Self, f: impl FnMut(usize));
}

fn low_mask(len: u32) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

fn word_bits<W: PrimInt>() -> usize {
    W::zero().count_zeros() as usize
}

/// The single-word operations, written once for any [`PrimInt`] word.
mod word {
    use super::{low_mask, word_bits};
    use num_traits::PrimInt;

    #[inline]
    pub fn lowest_one<W: PrimInt>(w: W) -> Option<usize> {
        (w != W::zero()).then(|| w.trailing_zeros() as usize)
    }
    #[inline]
    pub fn set_bit<W: PrimInt>(w: W, i: usize) -> W {
        if i < word_bits::<W>() {
            w | (W::one() << i)
        } else {
            w
        }
    }
    #[inline]
    pub fn xor_bits<W: PrimInt>(w: W, offset: usize, len: u32, value: u64) -> W {
        let value = value & low_mask(len);
        if value == 0 || offset >= word_bits::<W>() {
            return w;
        }
        // Callers size `W` to hold `offset + len` bits, so the cast cannot lose bits.
        w ^ (W::from(value).unwrap_or_else(W::zero) << offset)
    }
    #[inline]
    pub fn get_bits<W: PrimInt>(w: W, offset: usize, len: u32) -> u64 {
        if offset >= word_bits::<W>() {
            return 0;
        }
        let low = (w >> offset) & W::from(u64::MAX).unwrap_or_else(W::max_value);
        low.to_u64().unwrap_or(0) & low_mask(len)
    }
}

macro_rules! word_vector {
    ($($w:ty),*) => {$(
        impl Gf2Vector for $w {
            #[inline]
            fn zeros(_bits: usize) -> Self { 0 }
            #[inline]
            fn is_zero(&self) -> bool { *self == 0 }
            #[inline]
            fn lowest_one(&self) -> Option<usize> { word::lowest_one(*self) }
            #[inline]
            fn xor_assign(&mut self, other: &Self) { *self ^= *other; }
            #[inline]
            fn set_bit(&mut self, i: usize) { *self = word::set_bit(*self, i); }
            #[inline]
            fn xor_bits(&mut self, offset: usize, len: u32, value: u64) { *self = word::xor_bits(*self, offset, len, value); }
            #[inline]
            fn get_bits(&self, offset: usize, len: u32) -> u64 { word::get_bits(*self, offset, len) }
            #[inline]
            fn for_each_common_one(&self, mask: &Self, mut f: impl FnMut(usize)) {
                let mut rest = *self & *mask;
                while rest != 0 {
                    f(rest.trailing_zeros() as usize);
                    rest &= rest - 1;
                }
            }
        }
    )*};
}
word_vector!(u32, u64, u128);

impl Gf2Vector for Vec<u64> {
    fn zeros(bits: usize) -> Self {
        vec![0; bits.div_ceil(64).max(1)]
    }
    fn is_zero(&self) -> bool {
        self.iter().all(|&w| w == 0)
    }
    fn lowest_one(&self) -> Option<usize> {
        self.iter()
            .position(|&w| w != 0)
            .and_then(|i| self.get(i).map(|w| i * 64 + w.trailing_zeros() as usize))
    }
    fn xor_assign(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            *a ^= b;
        }
    }
    fn set_bit(&mut self, i: usize) {
        if let Some(w) = self.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    fn xor_bits(&mut self, offset: usize, len: u32, value: u64) {
        let value = value & low_mask(len);
        let (word, bit) = (offset / 64, offset % 64);
        if let Some(w) = self.get_mut(word) {
            *w ^= value << bit;
        }
        if bit != 0 {
            if let Some(w) = self.get_mut(word + 1) {
                *w ^= value >> (64 - bit);
            }
        }
    }
    fn for_each_common_one(&self, mask: &Self, mut f: impl FnMut(usize)) {
        for (i, (&a, &m)) in self.iter().zip(mask).enumerate() {
            let mut rest = a & m;
            while rest != 0 {
                f(i * 64 + rest.trailing_zeros() as usize);
                rest &= rest - 1;
            }
        }
    }
    fn get_bits(&self, offset: usize, len: u32) -> u64 {
        let (word, bit) = (offset / 64, offset % 64);
        let lo = self.get(word).copied().unwrap_or(0) >> bit;
        let hi = if bit == 0 {
            0
        } else {
            self.get(word + 1).copied().unwrap_or(0) << (64 - bit)
        };
        (lo | hi) & low_mask(len)
    }
}

/// Which vector type a computation over `bits`-bit vectors runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// Up to 64 bits: `u64`.
    W64,
    /// Up to 128 bits: `u128`.
    W128,
    /// Anything wider: `Vec<u64>`.
    Wide,
}

impl Width {
    /// The narrowest width holding `bits` bits.
    pub fn for_bits(bits: usize) -> Width {
        match bits {
            0..=64 => Width::W64,
            65..=128 => Width::W128,
            _ => Width::Wide,
        }
    }
}

/// An echelon basis with provenance tags; see the module docs.
#[derive(Clone, Debug)]
pub struct Echelon<V, T> {
    /// `pivot_of[b]` = index into `rows` of the vector whose pivot is bit `b`.
    pivot_of: Vec<u32>,
    /// The pivot bits, as a vector.
    pivots: V,
    rows: Vec<(V, T)>,
    tag_bits: usize,
}

const NO_ROW: u32 = u32::MAX;

impl<V: Gf2Vector, T: Gf2Vector> Echelon<V, T> {
    /// An empty basis for `bits`-bit vectors whose tags have `tag_bits` bits.
    pub fn new(bits: usize, tag_bits: usize) -> Self {
        Echelon {
            pivot_of: vec![NO_ROW; bits],
            pivots: V::zeros(bits),
            rows: Vec::new(),
            tag_bits,
        }
    }

    /// Number of independent vectors inserted so far (the rank).
    pub fn rank(&self) -> usize {
        self.rows.len()
    }

    /// Reduces `v` against the basis: returns the residual (zero iff `v` is in the span) and
    /// the XOR of the tags of the vectors used. The basis is fully reduced (no row has another
    /// row's pivot), so the rows to use are those of `v`'s pivot bits, independently.
    pub fn reduce(&self, mut v: V) -> (V, T) {
        let mut tag = T::zeros(self.tag_bits);
        let mut used = V::zeros(self.pivot_of.len());
        v.for_each_common_one(&self.pivots, |bit| {
            if let Some((basis, basis_tag)) = self
                .pivot_of
                .get(bit)
                .and_then(|&row| self.rows.get(row as usize))
            {
                used.xor_assign(basis);
                tag.xor_assign(basis_tag);
            }
        });
        v.xor_assign(&used);
        (v, tag)
    }

    /// Inserts `v` tagged `tag`. Returns `true` if it was independent of the basis (a pivot).
    /// The new row's pivot is its lowest remaining bit; it is then cleared from every earlier
    /// row, keeping the basis fully reduced.
    pub fn insert(&mut self, v: V, tag: T) -> bool {
        let (residual, used) = self.reduce(v);
        let Some(bit) = residual.lowest_one() else {
            return false;
        };
        let mut tag = tag;
        tag.xor_assign(&used);
        let mut single = V::zeros(self.pivot_of.len());
        single.set_bit(bit);
        for (row, row_tag) in self.rows.iter_mut() {
            let mut hit = false;
            row.for_each_common_one(&single, |_| hit = true);
            if hit {
                row.xor_assign(&residual);
                row_tag.xor_assign(&tag);
            }
        }
        if let Some(slot) = self.pivot_of.get_mut(bit) {
            *slot = self.rows.len() as u32;
            self.pivots.set_bit(bit);
            self.rows.push((residual, tag));
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echelon_picks_lowest_index_pivots_and_min_solution() {
        // columns 0b01, 0b11, 0b10: column 2 = col0 ^ col1 is dependent.
        let mut e: Echelon<u64, u64> = Echelon::new(2, 3);
        assert!(e.insert(0b01, 0b001));
        assert!(e.insert(0b11, 0b010));
        assert!(!e.insert(0b10, 0b100));
        assert_eq!(e.rank(), 2);
        // 0b10 = col0 ^ col1: solution uses pivot columns only.
        assert_eq!(e.reduce(0b10), (0, 0b011));
    }

    /// Bits past a word's width are ignored, never a shift overflow: setting, XOR-ing in and
    /// reading at bit 32/64/128 of a `u32`/`u64`/`u128` changes and reads nothing.
    #[test]
    fn bits_past_the_width_are_ignored() {
        fn past<W: Gf2Vector>(width: usize) {
            let mut w = W::zeros(width);
            w.set_bit(width);
            w.xor_bits(width, 8, 0xFF);
            assert!(w.is_zero(), "{width}");
            w.set_bit(width - 1);
            assert_eq!(w.lowest_one(), Some(width - 1));
            assert_eq!(w.get_bits(width, 8), 0);
            assert_eq!(w.get_bits(width - 1, 8), 1);
        }
        past::<u32>(32);
        past::<u64>(64);
        past::<u128>(128);
        past::<Vec<u64>>(128);
    }

    #[test]
    fn wide_vectors_cross_word_boundaries() {
        let mut v = <Vec<u64> as Gf2Vector>::zeros(130);
        v.xor_bits(60, 10, 0b11_1111_1111);
        assert_eq!(v.get_bits(60, 10), 0b11_1111_1111);
        assert_eq!(v.get_bits(64, 6), 0b11_1111);
        v.set_bit(129);
        assert_eq!(v.get_bits(128, 2), 0b10);
        assert_eq!(<Vec<u64> as Gf2Vector>::lowest_one(&v), Some(60));
        let mut w = 0u128;
        w.xor_bits(100, 20, 0xABCDE);
        assert_eq!(w.get_bits(100, 20), 0xABCDE);
    }
}
