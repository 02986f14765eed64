//! [`TidLinear`]: a GF(2)-linear function of `%tid.x`, and the fewest ALU instructions that
//! compute it.
//!
//! Lane and warp are bit-slices of `%tid.x` (lane = tid & 31, warp = tid >> 5), so a layout's
//! lane and warp bases together are one basis per tid bit, and the per-thread part of an
//! address is `f(tid) = ⊕ {bases[k] : bit k of tid set}` — no lane/warp extraction needed.
//!
//! Write each basis bit `j` of `bases[k]` as tid bit `k` moved by `d = j − k`. All the pairs
//! with the same `d` lie on one bit-diagonal and form one term `shift_d(tid) & M_d`; `f` is the
//! XOR of the terms. A term costs its shift (none for `d = 0`) and its mask, which is free when
//! `M_d` keeps every bit `shift_d(tid)` can have, and is fused with the XOR into one
//! `lop3.b32 acc, s, M, 0x78` (`acc ^ (s & M)`) otherwise; a right shift whose mask is the low
//! bits is one `bfe.u32`, and a field of the low tid bits moved up where no other diagonal
//! writes is one `bfi.b32`. Unmasked terms are XORed three at a time (`lop3 … 0x96`).

use crate::ptx::{Builder, IntType, PtxError, Reg, SpecialReg, Target, Width};

/// `lop3` LUT of `a ^ b ^ c`.
const LUT_XOR3: u8 = 0x96;
/// `lop3` LUT of `a ^ (b & c)`.
const LUT_XOR_AND: u8 = 0x78;

/// One bit-diagonal: the term `shift(tid) & mask`, `shift > 0` left, `< 0` right.
///
/// ```
/// use codegen::smem::{Diagonal, TidLinear};
/// // tid bits 0..3 → bytes 16, 32, 64; tid bit 3 → 128 ^ 16 (a 16-byte-chunk swizzle).
/// let f = TidLinear::new(vec![16, 32, 64, 128 | 16]);
/// assert_eq!(f.diagonals(), vec![Diagonal { shift: 1, mask: 16 }, Diagonal { shift: 4, mask: 0xF0 }]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Diagonal {
    /// The shift: bit `k` of tid lands on bit `k + shift`.
    pub shift: i32,
    /// The destination bits this diagonal sets.
    pub mask: u32,
}

/// `f(tid) = ⊕ {bases[k] : bit k of tid set}` for a CTA of `2^bases.len()` threads.
///
/// ```
/// use codegen::smem::TidLinear;
/// use codegen::ptx::{Builder, SpecialReg, Target};
/// // 128-byte swizzle, 16-byte vectors: lanes 0-2 walk 16-byte chunks, lanes 3-4 and the
/// // warp rows, each row XORing its chunk.
/// let f = TidLinear::new(vec![16, 32, 64, 128 ^ 16, 256 ^ 32, 512 ^ 64, 1024]);
/// assert_eq!(f.eval(9), 16 ^ 128 ^ 16);
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// let tid = b.special(SpecialReg::TidX)?;
/// let before = b.kernel().instruction_count();
/// f.emit(&mut b, tid)?;
/// assert_eq!(b.kernel().instruction_count() - before, 3); // shl, shl, lop3
/// assert_eq!(f.cost(), 3);
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TidLinear {
    bases: Vec<u32>,
}

impl TidLinear {
    /// The function with `bases[k]` for tid bit `k` (at most 10 bits: 1024 threads).
    ///
    /// ```
    /// assert_eq!(codegen::smem::TidLinear::new(vec![4, 8]).threads(), 4);
    /// ```
    pub fn new(mut bases: Vec<u32>) -> TidLinear {
        bases.truncate(10);
        TidLinear { bases }
    }

    /// One basis per tid bit.
    ///
    /// ```
    /// assert_eq!(codegen::smem::TidLinear::new(vec![16, 32]).bases(), &[16, 32]);
    /// ```
    pub fn bases(&self) -> &[u32] {
        &self.bases
    }

    /// `2^bases.len()`.
    ///
    /// ```
    /// assert_eq!(codegen::smem::TidLinear::new(vec![0; 7]).threads(), 128);
    /// ```
    pub fn threads(&self) -> u32 {
        1u32 << self.bases.len()
    }

    /// Every bit `f` can set: the OR of the bases.
    ///
    /// ```
    /// assert_eq!(codegen::smem::TidLinear::new(vec![3, 8, 0]).span(), 11);
    /// ```
    pub fn span(&self) -> u32 {
        self.bases.iter().fold(0, |a, b| a | b)
    }

    /// Whether `f` is identically 0.
    ///
    /// ```
    /// assert!(codegen::smem::TidLinear::new(vec![0; 5]).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.span() == 0
    }

    /// `f(tid)`; bits of `tid` past the CTA are ignored.
    ///
    /// ```
    /// assert_eq!(codegen::smem::TidLinear::new(vec![4, 8, 12]).eval(7), 4 ^ 8 ^ 12);
    /// ```
    pub fn eval(&self, tid: u32) -> u32 {
        self.bases
            .iter()
            .enumerate()
            .filter(|(k, _)| tid >> k & 1 == 1)
            .fold(0, |acc, (_, b)| acc ^ b)
    }

    /// The nonzero bit-diagonals, by increasing shift.
    ///
    /// ```
    /// use codegen::smem::{Diagonal, TidLinear};
    /// // tid bit 0 → bit 4, tid bit 1 → bit 3: shifts 4 and 2.
    /// assert_eq!(TidLinear::new(vec![16, 8]).diagonals(),
    ///            vec![Diagonal { shift: 2, mask: 8 }, Diagonal { shift: 4, mask: 16 }]);
    /// ```
    pub fn diagonals(&self) -> Vec<Diagonal> {
        let mut out: Vec<Diagonal> = Vec::new();
        for (k, &basis) in self.bases.iter().enumerate() {
            let mut rest = basis;
            while rest != 0 {
                let j = rest.trailing_zeros();
                rest &= rest - 1;
                let shift = j as i32 - k as i32;
                match out.iter_mut().find(|d| d.shift == shift) {
                    Some(d) => d.mask |= 1 << j,
                    None => out.push(Diagonal {
                        shift,
                        mask: 1 << j,
                    }),
                }
            }
        }
        out.sort_by_key(|d| d.shift);
        out
    }

    /// The bits `shift(tid)` can have.
    fn reach(&self, shift: i32) -> u32 {
        let tid_bits = (1u64 << self.bases.len()) - 1;
        let moved = if shift >= 0 {
            tid_bits << shift
        } else {
            tid_bits >> shift.unsigned_abs()
        };
        (moved & u64::from(u32::MAX)) as u32
    }

    /// Appends the instructions computing `f(tid)` from the `.b32` register `tid` (with the
    /// builder's current role) and returns the register holding it; `None` when `f` is 0.
    ///
    /// ```
    /// use codegen::smem::TidLinear;
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let tid = b.special(SpecialReg::TidX)?;
    /// assert_eq!(TidLinear::new(vec![0; 7]).emit(&mut b, tid)?, None);
    /// // warp · 4096 with 4 warps: one diagonal (shift 7), masked: `shl` + `and`.
    /// let f = TidLinear::new(vec![0, 0, 0, 0, 0, 4096, 8192]);
    /// assert!(f.emit(&mut b, tid)?.is_some());
    /// assert_eq!(f.cost(), 2);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn emit(&self, b: &mut Builder, tid: Reg) -> Result<Option<Reg>, PtxError> {
        let diagonals = self.diagonals();
        let mut ready: Vec<Reg> = Vec::new();
        let mut masked: Vec<(Reg, u32)> = Vec::new();
        let mut inserted: Vec<Diagonal> = Vec::new();
        for (k, d) in diagonals.iter().enumerate() {
            let reach = self.reach(d.shift);
            let trivial = d.mask == reach;
            let low_field = d.mask.wrapping_add(1) & d.mask == 0;
            if d.shift < 0 && !trivial && low_field {
                // (tid >> s) & (2^len − 1) is one bit-field extract.
                let len = d.mask.count_ones();
                ready.push(b.bfe(tid, d.shift.unsigned_abs(), len)?);
                continue;
            }
            if !trivial && self.insertable(&diagonals, k) {
                inserted.push(*d);
                continue;
            }
            let src = match d.shift {
                0 => tid,
                s if s > 0 => b.shl(Width::B32, tid, s.unsigned_abs())?,
                s => b.shr(IntType::U32, tid, s.unsigned_abs())?,
            };
            if trivial {
                ready.push(src);
            } else {
                masked.push((src, d.mask));
            }
        }
        let mut ready = ready.into_iter();
        let mut inserted = inserted.into_iter();
        let (mut acc, masked) = match (ready.next(), masked.split_first()) {
            (Some(r), _) => (r, masked.as_slice()),
            (None, Some(((s, m), rest))) => (b.and(Width::B32, *s, *m)?, rest),
            (None, None) => match inserted.next() {
                // Only inserts: the first is a plain shift and mask.
                Some(d) => {
                    let shifted = match d.shift.unsigned_abs() {
                        0 => tid,
                        s => b.shl(Width::B32, tid, s)?,
                    };
                    (b.and(Width::B32, shifted, d.mask)?, &[][..])
                }
                None => return Ok(None),
            },
        };
        let rest: Vec<Reg> = ready.collect();
        let mut pairs = rest.chunks_exact(2);
        for pair in pairs.by_ref() {
            if let [x, y] = pair {
                acc = b.lop3(acc, *x, *y, LUT_XOR3)?;
            }
        }
        if let [x] = pairs.remainder() {
            acc = b.xor(Width::B32, acc, *x)?;
        }
        for &(s, m) in masked {
            acc = b.lop3(acc, s, m, LUT_XOR_AND)?;
        }
        for d in inserted {
            acc = b.bfi(tid, acc, d.shift.unsigned_abs(), d.mask.count_ones())?;
        }
        Ok(Some(acc))
    }

    /// Whether diagonal `k` moves the low tid bits `0..len` up as one field that no other
    /// diagonal touches: then `bfi tid, acc, shift, len` adds it (shift, mask and XOR in one).
    fn insertable(&self, diagonals: &[Diagonal], k: usize) -> bool {
        let Some(d) = diagonals.get(k) else {
            return false;
        };
        let Ok(shift) = u32::try_from(d.shift) else {
            return false;
        };
        let len = d.mask.count_ones();
        let field = ((1u64 << len) - 1) << shift;
        let others = diagonals
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .fold(0u32, |acc, (_, o)| acc | o.mask);
        field == u64::from(d.mask) && d.mask & others == 0
    }

    /// The number of instructions [`emit`](Self::emit) adds.
    ///
    /// ```
    /// use codegen::smem::TidLinear;
    /// assert_eq!(TidLinear::new(vec![1, 2, 4, 8, 16]).cost(), 0); // f(tid) = tid
    /// assert_eq!(TidLinear::new(vec![2, 4, 8, 16, 32]).cost(), 1); // tid << 1
    /// ```
    pub fn cost(&self) -> usize {
        let count = || -> Result<usize, PtxError> {
            let mut b = Builder::new("cost", Target::Sm90a)?;
            let tid = b.special(SpecialReg::TidX)?;
            let before = b.kernel().instruction_count();
            self.emit(&mut b, tid)?;
            Ok(b.kernel().instruction_count() - before)
        };
        // emit only fails on invalid immediates, which a u32 mask never is.
        count().unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{run, Config};

    fn check(bases: Vec<u32>) {
        let f = TidLinear::new(bases);
        let mut b = Builder::new("k", Target::Sm90a).unwrap();
        let tid = b.special(SpecialReg::TidX).unwrap();
        let out = f.emit(&mut b, tid).unwrap();
        b.ret().unwrap();
        let k = b.finish().unwrap();
        let threads = f.threads().max(32);
        let o = run(&k, &Config::new(threads), &[]).unwrap();
        for t in 0..threads {
            let got = out.map_or(0, |r| o.register(t, r).unwrap() as u32);
            assert_eq!(got, f.eval(t), "thread {t} of {:?}\n{k}", f.bases());
        }
    }

    #[test]
    fn every_diagonal_shape_computes_the_function() {
        check(vec![16, 32, 64, 128 | 16, 256 | 32, 512 | 64, 1024]);
        check(vec![0, 0, 0, 0, 0, 4096, 8192]);
        check(vec![1, 2, 4, 8, 16]);
        check(vec![2, 1, 8, 4, 16, 64, 32]);
        check(vec![0x80, 0x1, 0x3, 0x300, 0, 0x10]);
        check(vec![0; 5]);
        check(vec![
            0xFFFF_FFFF,
            0x8000_0000,
            1,
            0,
            0,
            0,
            0,
            0,
            0,
            0x4000_0000,
        ]);
        check(vec![16, 32, 64, 256, 512, 1024, 2048]);
        check(vec![2, 4, 0, 0, 0]);
        check(vec![2, 4, 8, 0, 0, 64]);
        check(vec![1, 2, 4, 8, 16, 32, 64, 128]);
    }

    #[test]
    fn a_low_field_moved_up_alone_is_one_bfi() {
        // 64 x 64 f32 rows of 256 bytes: lanes 0-2 walk 16-byte vectors, the rest rows.
        let f = TidLinear::new(vec![16, 32, 64, 256, 512, 1024, 2048]);
        assert_eq!(f.cost(), 3); // shl, and, bfi
        check(f.bases().to_vec());
    }

    #[test]
    fn a_low_field_moved_right_is_one_bfe() {
        // warp bits 5, 6 → bits 0, 1: (tid >> 5) & 3 with 8 warps.
        let f = TidLinear::new(vec![0, 0, 0, 0, 0, 1, 2, 0]);
        assert_eq!(f.cost(), 1);
        check(f.bases().to_vec());
    }
}
