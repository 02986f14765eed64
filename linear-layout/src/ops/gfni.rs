//! [`Evaluator::apply_many`](crate::Evaluator::apply_many) on x86-64 CPUs with AVX-512
//! (F, BW, VBMI) and GFNI: sixteen addresses per step, for layouts of up to 32 input and 32
//! output bits.
//!
//! The layout's matrix is a 4 × 4 grid of 8 × 8 blocks: output byte `i` is the XOR over input
//! bytes `j` of `M[i][j] · x[j]`, and `vgf2p8affineqb` multiplies every byte of a 64-bit lane
//! by that lane's 8 × 8 matrix. One step:
//! 1. gathers byte `j` of sixteen inputs into 128-bit section `j` of one register (`vpermt2b`);
//! 2. for each rotation `s` of the sections (`vshufi64x2`), multiplies section `i` by
//!    `M[i][(i + s) mod 4]` (`vgf2p8affineqb`, the four matrices side by side in one register),
//!    so that XOR over the four rotations leaves `y[i] = ⊕ⱼ M[i][j] · x[j]` in section `i`;
//! 3. scatters section `i` back to byte `i` of each 64-bit output, the rest zero (`vpermb`).
//!
//! Seventeen vector instructions per sixteen addresses, no table lookups. Input bits past the
//! layout's width are ignored, as the scalar path ignores them; the tests require both paths
//! to agree on every input.

/// The matrices of a layout of at most 32 input and 32 output bits, laid out for step 2:
/// `rotated[s]` holds `M[i][(i + s) mod 4]` in 64-bit lanes `2i` and `2i + 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GfniMatrices {
    rotated: [[u64; 8]; 4],
}

impl GfniMatrices {
    /// The matrices of the layout whose byte tables are `tables` (table `j` maps input byte
    /// `j`; entry `1 << k` is the column of input bit `8j + k`), or `None` where this CPU
    /// lacks the instructions (and on other architectures) or the tables are more than four.
    pub(crate) fn new(tables: &[[u32; 256]]) -> Option<GfniMatrices> {
        if !supported() || tables.len() > 4 {
            return None;
        }
        let block = |i: usize, j: usize| -> u64 {
            let Some(t) = tables.get(j) else { return 0 };
            // Row k = input bit 8j + k, its bit b = output bit 8i + b.
            let columns = (0..8).fold(0u64, |acc, k| {
                let column = t.get(1 << k).copied().unwrap_or(0);
                acc | u64::from((column >> (8 * i)) & 0xff) << (8 * k)
            });
            // GF2P8AFFINEQB takes output bit b's row mask from byte 7 − b.
            transpose_8x8(columns).swap_bytes()
        };
        let mut rotated = [[0u64; 8]; 4];
        for (s, lanes) in rotated.iter_mut().enumerate() {
            for (q, lane) in lanes.iter_mut().enumerate() {
                let i = q / 2;
                *lane = block(i, (i + s) % 4);
            }
        }
        Some(GfniMatrices { rotated })
    }

    /// `out[k] = L(xs[k])` for the first `16 · ⌊min(len) / 16⌋` elements; returns that count
    /// (the caller finishes the rest).
    pub(crate) fn apply_many(&self, xs: &[u64], out: &mut [u64]) -> usize {
        let n = xs.len().min(out.len()) / 16 * 16;
        if n == 0 {
            return 0;
        }
        #[cfg(target_arch = "x86_64")]
        if supported() {
            // SAFETY: the CPU has every feature `x86::apply_many` enables (checked just now),
            // and both slices hold at least `n` elements.
            unsafe { x86::apply_many(&self.rotated, xs, out, n) };
            return n;
        }
        0
    }
}

/// Whether this CPU runs the GFNI path (detected once by the standard library, then cached).
pub(crate) fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("gfni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The transpose of an 8 × 8 bit matrix held one row per byte (bit `8r + c` is row `r`,
/// column `c`).
fn transpose_8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m512i, _mm512_gf2p8affine_epi64_epi8, _mm512_loadu_epi64, _mm512_maskz_permutexvar_epi8,
        _mm512_permutex2var_epi8, _mm512_set_epi8, _mm512_shuffle_i64x2, _mm512_storeu_epi64,
        _mm512_xor_si512,
    };

    /// Byte `p` of a 512-bit register from `f(p)`.
    #[target_feature(enable = "avx512f")]
    fn bytes(f: impl Fn(usize) -> u8) -> __m512i {
        let b = |p: usize| f(p) as i8;
        _mm512_set_epi8(
            b(63),
            b(62),
            b(61),
            b(60),
            b(59),
            b(58),
            b(57),
            b(56),
            b(55),
            b(54),
            b(53),
            b(52),
            b(51),
            b(50),
            b(49),
            b(48),
            b(47),
            b(46),
            b(45),
            b(44),
            b(43),
            b(42),
            b(41),
            b(40),
            b(39),
            b(38),
            b(37),
            b(36),
            b(35),
            b(34),
            b(33),
            b(32),
            b(31),
            b(30),
            b(29),
            b(28),
            b(27),
            b(26),
            b(25),
            b(24),
            b(23),
            b(22),
            b(21),
            b(20),
            b(19),
            b(18),
            b(17),
            b(16),
            b(15),
            b(14),
            b(13),
            b(12),
            b(11),
            b(10),
            b(9),
            b(8),
            b(7),
            b(6),
            b(5),
            b(4),
            b(3),
            b(2),
            b(1),
            b(0),
        )
    }

    /// `out[k] = L(xs[k])` for `k < n`.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, BW, VBMI and GFNI; `n` must be a multiple of 16 and at most
    /// both lengths.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
    pub(super) unsafe fn apply_many(m: &[[u64; 8]; 4], xs: &[u64], out: &mut [u64], n: usize) {
        let matrix = |s: usize| {
            let lanes = m.get(s).copied().unwrap_or_default();
            // SAFETY: `lanes` is eight 64-bit values, one 512-bit load.
            unsafe { _mm512_loadu_epi64(lanes.as_ptr().cast()) }
        };
        let (m0, m1, m2, m3) = (matrix(0), matrix(1), matrix(2), matrix(3));
        // Section j, byte k ← byte j of input k (input k is 64-bit lane k of the pair).
        let gather = bytes(|p| ((8 * (p % 16)) + p / 16) as u8);
        // Output k's byte i (< 4) ← section i, byte k; inputs 8–15 in the second half.
        let scatter_lo = bytes(|p| (16 * (p % 8 % 4) + p / 8) as u8);
        let scatter_hi = bytes(|p| (16 * (p % 8 % 4) + 8 + p / 8) as u8);
        let low_four = 0x0F0F_0F0F_0F0F_0F0F;
        for k in (0..n).step_by(16) {
            // SAFETY: k + 16 ≤ n ≤ both lengths: two 64-byte loads and stores in bounds.
            let (a, b) = unsafe {
                let p = xs.as_ptr().add(k).cast();
                (_mm512_loadu_epi64(p), _mm512_loadu_epi64(p.add(8)))
            };
            let r0 = _mm512_permutex2var_epi8(a, gather, b);
            let r1 = _mm512_shuffle_i64x2::<0x39>(r0, r0);
            let r2 = _mm512_shuffle_i64x2::<0x4E>(r0, r0);
            let r3 = _mm512_shuffle_i64x2::<0x93>(r0, r0);
            let y = _mm512_xor_si512(
                _mm512_xor_si512(
                    _mm512_gf2p8affine_epi64_epi8::<0>(r0, m0),
                    _mm512_gf2p8affine_epi64_epi8::<0>(r1, m1),
                ),
                _mm512_xor_si512(
                    _mm512_gf2p8affine_epi64_epi8::<0>(r2, m2),
                    _mm512_gf2p8affine_epi64_epi8::<0>(r3, m3),
                ),
            );
            let lo = _mm512_maskz_permutexvar_epi8(low_four, scatter_lo, y);
            let hi = _mm512_maskz_permutexvar_epi8(low_four, scatter_hi, y);
            // SAFETY: as for the loads.
            unsafe {
                let p = out.as_mut_ptr().add(k).cast();
                _mm512_storeu_epi64(p, lo);
                _mm512_storeu_epi64(p.add(8), hi);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics
    use super::{supported, transpose_8x8, GfniMatrices};
    use crate::test_rng::XorShift;

    /// On a CPU with the instructions, the vector path computes the XOR of the selected
    /// columns for every table count (1–4 bytes of input) and batch length.
    #[test]
    fn the_vector_path_is_the_xor_of_the_columns() {
        if !supported() {
            eprintln!("no AVX-512 VBMI + GFNI here: the vector path is not run");
            assert!(GfniMatrices::new(&[[0; 256]; 2]).is_none());
            return;
        }
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next();
        for n_tables in 1..=4usize {
            let columns: Vec<u32> = (0..8 * n_tables).map(|_| next() as u32).collect();
            let tables: Vec<[u32; 256]> = columns
                .chunks(8)
                .map(|chunk| {
                    let mut t = [0u32; 256];
                    for byte in 1..256usize {
                        t[byte] = t[byte & (byte - 1)] ^ chunk[byte.trailing_zeros() as usize];
                    }
                    t
                })
                .collect();
            let g = GfniMatrices::new(&tables).unwrap();
            for len in [0usize, 15, 16, 17, 48, 100] {
                let xs: Vec<u64> = (0..len).map(|_| next()).collect();
                let mut out = vec![u64::MAX; len];
                let done = g.apply_many(&xs, &mut out);
                assert_eq!(done, len / 16 * 16);
                for (k, &x) in xs.iter().enumerate().take(done) {
                    let want = (0..8 * n_tables)
                        .filter(|&b| x >> b & 1 == 1)
                        .fold(0u32, |acc, b| acc ^ columns[b]);
                    assert_eq!(out[k], u64::from(want), "{n_tables} tables, input {x:#x}");
                }
                assert!(
                    out[done..].iter().all(|&o| o == u64::MAX),
                    "past the steps: untouched"
                );
            }
        }
        assert!(GfniMatrices::new(&[[0; 256]; 5]).is_none());
    }

    #[test]
    fn transpose_8x8_moves_bit_rc_to_cr() {
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(
                    transpose_8x8(1 << (8 * r + c)),
                    1 << (8 * c + r),
                    "({r}, {c})"
                );
            }
        }
    }
}
