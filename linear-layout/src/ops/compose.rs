//! `L.compose(O)`: the layout `O ∘ L`, i.e. `x ↦ O(L(x))`.

use crate::dims::names;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use crate::ops::packed::{for_each_packed, SMALL};

/// Runs `$body` with `$N` bound to the number of 4-bit tables an outer width of `$bits` bits
/// needs (a loop of fixed length per basis), rounded up past 32 bits.
macro_rules! with_tables {
    ($bits:expr, $N:ident => $body:expr) => {
        match $bits.div_ceil(4) {
            0..=1 => {
                const $N: usize = 1;
                $body
            }
            2 => {
                const $N: usize = 2;
                $body
            }
            3 => {
                const $N: usize = 3;
                $body
            }
            4 => {
                const $N: usize = 4;
                $body
            }
            5 => {
                const $N: usize = 5;
                $body
            }
            6 => {
                const $N: usize = 6;
                $body
            }
            7 => {
                const $N: usize = 7;
                $body
            }
            8 => {
                const $N: usize = 8;
                $body
            }
            9..=12 => {
                const $N: usize = 12;
                $body
            }
            _ => {
                const $N: usize = 16;
                $body
            }
        }
    };
}

impl LinearLayout {
    /// `O ∘ L` where `self = L` and `outer = O`.
    ///
    /// Preconditions: `L`'s out-dims are `O`'s in-dims in any order
    /// ([`LayoutError::DimsMismatch`]), and each is no larger in `L` than in `O`
    /// ([`LayoutError::SizeMismatch`]). The result has `L`'s in-dims and `O`'s out-dims with
    /// `O`'s sizes; it is surjective iff both are and the shared sizes are equal.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// // a swizzle applied after a permutation
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![4], vec![8], vec![1], vec![2]])], &[("o", 16)], true)?;
    /// let o = LinearLayout::from_bases(&[("o", vec![vec![3], vec![2], vec![4], vec![8]])], &[("p", 16)], true)?;
    /// assert_eq!(l.compose(&o)?.bases_of("i")?, vec![vec![4], vec![8], vec![3], vec![2]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let mismatch = || LayoutError::DimsMismatch {
            op: "compose",
            what: "this layout's out-dims and the outer layout's in-dims",
            left: names(&self.outs),
            right: names(&outer.ins),
        };
        if self.outs.len() != outer.ins.len() {
            return Err(mismatch());
        }
        // For each of our out-dims: the first flattened input bit of the matching outer in-dim,
        // found in one pass; a missing dim is reported before a size (as Triton checks).
        let mut small = [0u32; SMALL];
        let mut large = Vec::new();
        let mut too_large = None;
        for (i, o) in self.outs.iter().enumerate() {
            let mut at = 0u32;
            let found = outer.ins.iter().find_map(|d| {
                let start = at;
                at += d.log2;
                (d.dim == o.dim).then_some((start, d))
            });
            let Some((start, inner)) = found else {
                return Err(mismatch());
            };
            if o.log2 > inner.log2 && too_large.is_none() {
                too_large = Some((o, inner));
            }
            match small.get_mut(i) {
                Some(slot) if self.outs.len() <= SMALL => *slot = start,
                _ => large.push(start),
            }
        }
        if let Some((o, inner)) = too_large {
            return Err(LayoutError::SizeMismatch {
                op: "compose",
                dim: o.dim.to_string(),
                left: o.size() as u128,
                right: inner.size() as u128,
                rule: "an out-dim may not be larger than the outer layout's in-dim",
            });
        }
        let starts: &[u32] = if self.outs.len() <= SMALL {
            small.get(..self.outs.len()).unwrap_or(&[])
        } else {
            &large
        };
        let mut split = Split::default();
        let bases = match split.fill(outer) {
            // (A layout without out-dims has bases of no components: the general path.)
            true if (1..=SMALL).contains(&self.outs.len()) => {
                self.compose_by_nibbles(outer, starts, &split)
            }
            _ => self.compose_by_bits(outer, starts),
        };
        Ok(LinearLayout::from_parts(self.ins, outer.outs, bases))
    }

    /// The general path: each of our bases, one XOR of an outer basis per set bit.
    fn compose_by_bits(&self, outer: &LinearLayout, starts: &[u32]) -> Vec<u64> {
        let (n_in, n_out) = (self.total_in_dim_size_log2() as usize, outer.outs.len());
        let mut bases = vec![0u64; n_in * n_out];
        for (bit, row) in bases.chunks_mut(n_out.max(1)).enumerate().take(n_in) {
            for (&c, &start) in self.basis_at(bit).iter().zip(starts) {
                let mut rest = c;
                while rest != 0 {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    for (r, &v) in row.iter_mut().zip(outer.basis_at(start as usize + b)) {
                        *r ^= v;
                    }
                }
            }
        }
        bases
    }

    /// The fast path's bases, for an outer layout of at most 64 input bits, at most
    /// [`SMALL`] out-dims and 64 output bits: the outer layout as one word per input bit (its
    /// out-dims packed side by side, `split`), then as tables over 4 input bits at a time
    /// ("four Russians": every XOR of four columns, 16 entries per nibble, one XOR each). Each
    /// of our bases, packed at `starts` into the outer layout's flat input, is then one lookup
    /// per nibble: no branch on the data. One and two dims on either side (the usual cases)
    /// have kernels of their own, with the packing unrolled.
    fn compose_by_nibbles(&self, outer: &LinearLayout, starts: &[u32], split: &Split) -> Vec<u64> {
        let (inner, columns) = (self.bases.as_slice(), outer.bases.as_slice());
        match (starts, split.offsets(), split.masks()) {
            (&[a0], &[_], &[m0]) => with_tables!(split.in_bits, N => {
                by_nibbles::<N, 1, 1>(inner, [a0], columns, [0], [m0])
            }),
            (&[a0], &[_, o1], &[m0, m1]) => with_tables!(split.in_bits, N => {
                by_nibbles::<N, 1, 2>(inner, [a0], columns, [0, o1], [m0, m1])
            }),
            (&[a0, a1], &[_], &[m0]) => with_tables!(split.in_bits, N => {
                by_nibbles::<N, 2, 1>(inner, [a0, a1], columns, [0], [m0])
            }),
            (&[a0, a1], &[_, o1], &[m0, m1]) => with_tables!(split.in_bits, N => {
                by_nibbles::<N, 2, 2>(inner, [a0, a1], columns, [0, o1], [m0, m1])
            }),
            (starts, offsets, masks) => with_tables!(split.in_bits, N => {
                by_nibbles_any::<N>(inner, starts, columns, offsets, masks)
            }),
        }
    }
}

/// Where each out-dim of a layout sits in one packed word: its offset and mask (for at most
/// [`SMALL`] out-dims, 64 output bits and 64 input bits).
#[derive(Default)]
struct Split {
    offsets: [u32; SMALL],
    masks: [u64; SMALL],
    n: usize,
    in_bits: usize,
}

impl Split {
    /// Fills in `l`'s split in place, or returns `false`. In place: a `Split` returned by
    /// value was copied with wide loads right after its narrow stores, a store-forwarding
    /// stall that `perf annotate` put first in `compose/10`'s profile.
    fn fill(&mut self, l: &LinearLayout) -> bool {
        self.n = l.outs.len();
        self.in_bits = l.total_in_dim_size_log2() as usize;
        if self.n > SMALL || self.in_bits > 64 || l.total_out_dim_size_log2() > 64 {
            return false;
        }
        let mut at = 0u32;
        for ((off, mask), o) in self
            .offsets
            .iter_mut()
            .zip(&mut self.masks)
            .zip(l.outs.iter())
        {
            *off = at;
            *mask = u64::MAX.checked_shr(64 - o.log2).unwrap_or(0);
            at += o.log2;
        }
        true
    }

    fn offsets(&self) -> &[u32] {
        self.offsets.get(..self.n).unwrap_or(&[])
    }

    fn masks(&self) -> &[u64] {
        self.masks.get(..self.n).unwrap_or(&[])
    }
}

/// `B` components at `shifts`, side by side in one word.
///
/// Shifts wrap: a component is below `2^log2` of its dim (a layout invariant) and every dim
/// ends at or below bit 64 (`start + log2 ≤ outer_bits ≤ 64`, the outer out-dims'
/// `offset + log2 ≤ 64`), so a shift by 64 only ever meets a component or mask of 0.
#[inline(always)]
fn pack<const B: usize>(components: &[u64], shifts: &[u32; B]) -> u64 {
    components
        .iter()
        .zip(shifts)
        .fold(0, |w, (&c, &s)| w | c.wrapping_shl(s))
}

/// The tables of `N` nibbles of the outer layout, whose bases are `B` components each, packed
/// at `offsets`: entry `4·h + l` of table `t` is the XOR of its columns `4t`–`4t+1` chosen by
/// `l` and `4t+2`–`4t+3` by `h`. Columns past the outer width are zero.
#[inline(always)]
fn tables<const N: usize>(columns: impl Iterator<Item = u64>) -> [[u64; 16]; N] {
    let mut packed = [[0u64; 4]; N];
    for (slot, c) in packed.as_flattened_mut().iter_mut().zip(columns) {
        *slot = c;
    }
    std::array::from_fn(|t| {
        let [c0, c1, c2, c3] = packed.get(t).copied().unwrap_or_default();
        let low = [0, c0, c1, c0 ^ c1];
        let high = [0, c2, c3, c2 ^ c3];
        std::array::from_fn(|e| {
            low.get(e & 3).copied().unwrap_or(0) ^ high.get(e >> 2).copied().unwrap_or(0)
        })
    })
}

/// The image of packed input `x` through the tables: one lookup per nibble.
#[inline(always)]
fn lookup<const N: usize>(tables: &[[u64; 16]; N], x: u64) -> u64 {
    let mut acc = 0u64;
    for (k, table) in tables.iter().enumerate() {
        acc ^= table
            .get(((x >> (4 * k)) & 15) as usize)
            .copied()
            .unwrap_or(0);
    }
    acc
}

/// The kernel for `A` inner and `B` outer out-dims (both known at compile time): bases of
/// `A` components at `starts` in, bases of `B` components at `offsets` and `masks` out.
fn by_nibbles<const N: usize, const A: usize, const B: usize>(
    inner: &[u64],
    starts: [u32; A],
    outer: &[u64],
    offsets: [u32; B],
    masks: [u64; B],
) -> Vec<u64> {
    let tables = tables::<N>(outer.chunks_exact(B).map(|c| pack(c, &offsets)));
    // Sized first (a memset, no capacity check per basis), then written in place. Not
    // `vec![0; n]`: that is a `calloc`, which bypasses glibc's thread cache (measured slower).
    #[allow(clippy::slow_vector_initialization)]
    let mut bases = Vec::with_capacity(inner.len() / A * B);
    bases.resize(inner.len() / A * B, 0);
    for (out, base) in bases.chunks_exact_mut(B).zip(inner.chunks_exact(A)) {
        let acc = lookup(&tables, pack(base, &starts));
        for ((o, &off), &mask) in out.iter_mut().zip(&offsets).zip(&masks) {
            *o = acc.wrapping_shr(off) & mask;
        }
    }
    bases
}

/// The kernel for any counts up to [`SMALL`] on either side.
fn by_nibbles_any<const N: usize>(
    inner: &[u64],
    starts: &[u32],
    outer: &[u64],
    offsets: &[u32],
    masks: &[u64],
) -> Vec<u64> {
    let mut columns = [0u64; 64];
    let mut slots = columns.iter_mut();
    for_each_packed(outer, offsets.len(), offsets, |word| {
        if let Some(slot) = slots.next() {
            *slot = word;
        }
    });
    let tables = tables::<N>(columns.into_iter());
    let mut bases = Vec::with_capacity(inner.len() / starts.len().max(1) * offsets.len());
    for_each_packed(inner, starts.len(), starts, |x| {
        let acc = lookup(&tables, x);
        bases.extend(
            offsets
                .iter()
                .zip(masks)
                .map(|(&off, &mask)| acc.wrapping_shr(off) & mask),
        );
    });
    bases
}
