//! `ldmatrix`/`stmatrix` (m8n8, `.b16`): when a register layout's 16-bit elements fall into
//! 8 × 8 matrices of 16-byte rows exactly as the instructions distribute them, one instruction
//! moves up to four matrices (16 bytes per thread) and only lanes 0–31 supply row addresses.
//!
//! Other widths go through the same `.b16` instructions, as Triton lowers them: a 32-bit
//! element is two 16-bit halves of one register (a virtual lowest register bit picks the half;
//! never `.trans`, which would split it across lanes), and two 8-bit elements that a register
//! bit puts side by side are one 16-bit unit (that bit leaves the map). [`plan`] works on
//! those 16-bit units and answers in elements.
//!
//! Lane `l` of the warp receives, in `.b32` register `j`, matrix `j`'s row `l/4`, columns
//! `2(l%4)` and `2(l%4)+1` (low half first) — or with `.trans` rows `2(l%4)`, `2(l%4)+1` of
//! column `l/4`. In element offsets (`cvt = regs ∘ E`) that is:
//!
//! * plain: a register bit `h` at offset 1 (the half), lanes 0, 1 at offsets 2, 4; lanes 2–4
//!   pick the row;
//! * `.trans`: lanes 2–4 at offsets 1, 2, 4; the register bit `h` and lanes 0, 1 pick the row;
//!
//! and every other basis (up to two more register bits choosing the matrix, the warps, the
//! remaining registers) a multiple of 8 elements: rows start on 16 bytes. Row `ρ` of matrix
//! `j` is then supplied by lane `8j + ρ`, whose address is again GF(2)-linear in its tid: bits
//! 0–2 take the row bases, bits 3–4 the matrix register bases, the warp bits their own.

use std::collections::HashMap;

use crate::ptx::MatrixCount;

/// A matrix access path: the instruction's shape, the supplying lanes' address bases (per tid
/// bit, in elements) and the accesses as (element offset of the outer registers, `slots`: per
/// element of each `.b32` word, in word order — matrix `j`'s word holds slots
/// `j·w .. (j+1)·w` for `w = 4 / element bytes`, lowest bits first — the registers holding it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MatrixPlan {
    pub count: MatrixCount,
    pub trans: bool,
    pub address_bases: Vec<u64>,
    pub accesses: Vec<(u64, Vec<Vec<usize>>)>,
}

/// The first (plain before `.trans`) matrix path the bases allow, for 8-, 16- or 32-bit
/// elements and buffers aligned to 16 bytes. Bases and the answer are in elements.
pub(crate) fn plan(
    register: &[u64],
    lane: &[u64],
    warp: &[u64],
    element_bytes: u32,
    buffer_align_log2: u32,
) -> Option<MatrixPlan> {
    if buffer_align_log2 < 4 {
        return None;
    }
    let lanes: Vec<u64> = (0..5).map(|k| lane.get(k).copied().unwrap_or(0)).collect();
    let units = Units::new(register, element_bytes)?;
    let scale = |v: &[u64]| -> Option<Vec<u64>> { v.iter().map(|&b| units.to_units(b)).collect() };
    let (lanes, warp) = (scale(&lanes)?, scale(warp)?);
    let trans: &[bool] = if element_bytes == 4 {
        &[false]
    } else {
        &[false, true]
    };
    let p = trans
        .iter()
        .find_map(|&t| plan_with(&units.register, &lanes, &warp, t))?;
    units.to_elements(p)
}

/// A register layout's bases in 16-bit units, and the way back to elements.
struct Units {
    element_bytes: u32,
    /// The register bases in units: 32-bit elements get a virtual bit 0 (the half, offset 1);
    /// 8-bit elements lose the pair bit `pair`.
    register: Vec<u64>,
    /// 8-bit elements: the register bit whose two elements share a unit.
    pair: usize,
}

impl Units {
    fn new(register: &[u64], element_bytes: u32) -> Option<Units> {
        let (register, pair) = match element_bytes {
            2 => (register.to_vec(), 0),
            4 => (
                std::iter::once(Some(1))
                    .chain(register.iter().map(|&b| b.checked_mul(2)))
                    .collect::<Option<Vec<u64>>>()?,
                0,
            ),
            1 => {
                let pair = register.iter().position(|&b| b == 1)?;
                let rest = register
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != pair)
                    .map(|(_, &b)| (b % 2 == 0).then_some(b / 2))
                    .collect::<Option<Vec<u64>>>()?;
                (rest, pair)
            }
            _ => return None,
        };
        Some(Units {
            element_bytes,
            register,
            pair,
        })
    }

    /// A lane or warp basis (elements) in units, if it moves whole units.
    fn to_units(&self, b: u64) -> Option<u64> {
        match self.element_bytes {
            4 => b.checked_mul(2),
            1 => (b % 2 == 0).then_some(b / 2),
            _ => Some(b),
        }
    }

    /// A unit offset in elements.
    fn unit_to_elements(&self, u: u64) -> u64 {
        match self.element_bytes {
            4 => u / 2,
            1 => u * 2,
            _ => u,
        }
    }

    /// The unit plan in elements: offsets scaled back, unit slots `2j + h` turned into element
    /// slots of each word, unit registers into element registers.
    fn to_elements(&self, p: MatrixPlan) -> Option<MatrixPlan> {
        let address_bases = p
            .address_bases
            .iter()
            .map(|&b| self.unit_to_elements(b))
            .collect();
        let accesses = p
            .accesses
            .into_iter()
            .map(|(key, slots)| Some((self.unit_to_elements(key), self.slots(slots)?)))
            .collect::<Option<Vec<_>>>()?;
        Some(MatrixPlan {
            address_bases,
            accesses,
            ..p
        })
    }

    fn slots(&self, unit_slots: Vec<Vec<usize>>) -> Option<Vec<Vec<usize>>> {
        match self.element_bytes {
            // Half h of word j is unit register r = 2·(element register) + h: keep the low
            // halves, and check that each high half is the same element.
            4 => unit_slots
                .chunks(2)
                .map(|pair| match pair {
                    [lo, hi] => {
                        let regs: Vec<usize> = lo.iter().map(|&r| r >> 1).collect();
                        let his: Vec<usize> = hi.iter().map(|&r| r >> 1).collect();
                        (lo.iter().all(|&r| r & 1 == 0) && regs == his).then_some(regs)
                    }
                    _ => None,
                })
                .collect(),
            // Unit u of the reduced registers holds elements with the pair bit 0 then 1.
            1 => {
                let expand = |r: usize, q: usize| {
                    let low = r & ((1 << self.pair) - 1);
                    let high = (r >> self.pair) << (self.pair + 1);
                    high | q << self.pair | low
                };
                Some(
                    unit_slots
                        .iter()
                        .flat_map(|unit| {
                            (0..2).map(move |q| unit.iter().map(|&r| expand(r, q)).collect())
                        })
                        .collect(),
                )
            }
            _ => Some(unit_slots),
        }
    }
}

fn low(v: u64) -> u64 {
    v & 7
}

fn plan_with(register: &[u64], lanes: &[u64], warp: &[u64], trans: bool) -> Option<MatrixPlan> {
    let lane = |k: usize| lanes.get(k).copied().unwrap_or(0);
    let h = if trans {
        register.iter().position(|&b| low(b) == 0)?
    } else {
        register.iter().position(|&b| b == 1)?
    };
    let half = register.get(h).copied()?;
    let (in_row, row_select) = if trans {
        ([lane(2), lane(3), lane(4)], [half, lane(0), lane(1)])
    } else {
        ([half, lane(0), lane(1)], [lane(2), lane(3), lane(4)])
    };
    if in_row != [1, 2, 4] {
        return None;
    }
    let others_aligned = row_select.iter().all(|&b| low(b) == 0)
        && warp.iter().all(|&b| low(b) == 0)
        && register
            .iter()
            .enumerate()
            .all(|(k, &b)| k == h || low(b) == 0);
    if !others_aligned {
        return None;
    }
    // Broadcast (zero) register bits would load the same matrix twice: they stay outer, where
    // equal offsets share one access.
    let matrix_bits: Vec<usize> = (0..register.len())
        .filter(|&k| k != h && register.get(k).is_some_and(|&b| b != 0))
        .take(2)
        .collect();
    let count = match matrix_bits.len() {
        0 => MatrixCount::X1,
        1 => MatrixCount::X2,
        _ => MatrixCount::X4,
    };
    let matrix_base = |m: usize| {
        matrix_bits
            .get(m)
            .and_then(|&k| register.get(k))
            .copied()
            .unwrap_or(0)
    };
    let mut address_bases = row_select.to_vec();
    address_bases.push(matrix_base(0));
    address_bases.push(matrix_base(1));
    address_bases.extend_from_slice(warp);

    let outer: Vec<usize> = (0..register.len())
        .filter(|&k| k != h && !matrix_bits.contains(&k))
        .collect();
    let offset = |r: usize| {
        register
            .iter()
            .enumerate()
            .filter(|(k, _)| r >> k & 1 == 1)
            .fold(0u64, |acc, (_, b)| acc ^ b)
    };
    let spread = |bits: &[usize], value: usize| {
        bits.iter()
            .enumerate()
            .filter(|(i, _)| value >> i & 1 == 1)
            .fold(0usize, |acc, (_, &k)| acc | 1 << k)
    };
    let mut order: Vec<u64> = Vec::new();
    let mut groups: HashMap<u64, Vec<usize>> = HashMap::new();
    for o in 0..1usize << outer.len() {
        let r = spread(&outer, o);
        let key = offset(r);
        let group = groups.entry(key).or_default();
        if group.is_empty() {
            order.push(key);
        }
        group.push(r);
    }
    let matrices = count.count() as usize;
    let accesses = order
        .into_iter()
        .map(|key| {
            let outs = groups.get(&key).cloned().unwrap_or_default();
            let slots = (0..2 * matrices)
                .map(|slot| {
                    let (j, half_bit) = (slot / 2, slot % 2);
                    let inner = spread(&matrix_bits, j) | half_bit << h;
                    outs.iter().map(|&o| o | inner).collect()
                })
                .collect();
            (key, slots)
        })
        .collect();
    Some(MatrixPlan {
        count,
        trans,
        address_bases,
        accesses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mma_a_operand_is_ldmatrix_x4() {
        // DotOperand A of mma v2, kWidth 2, 16 × 16 per warp over a row-major 16-bit tile of
        // 16 columns: registers K+1, M+8, K+8; lanes K 2, 4, rows 1, 2, 4.
        let p = plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[], 2, 10).unwrap();
        assert_eq!((p.count, p.trans), (MatrixCount::X4, false));
        assert_eq!(p.address_bases, vec![16, 32, 64, 128, 8]);
        assert_eq!(p.accesses.len(), 1);
        assert_eq!(
            p.accesses[0].1,
            vec![
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![4],
                vec![5],
                vec![6],
                vec![7]
            ]
        );
    }

    #[test]
    fn k_major_b_operand_is_ldmatrix_trans() {
        // B of mma v2 from a [K, N] tile, N contiguous (16 columns): registers K+1 (a row),
        // lanes K 2, 4 (rows), N 1, 2, 4 (columns).
        let p = plan(&[16, 128], &[32, 64, 1, 2, 4], &[8], 2, 10).unwrap();
        assert_eq!((p.count, p.trans), (MatrixCount::X2, true));
        assert_eq!(p.address_bases, vec![16, 32, 64, 128, 0, 8]);
    }

    #[test]
    fn misaligned_rows_or_other_widths_are_refused() {
        assert!(plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[3], 2, 10).is_none());
        assert!(plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[], 8, 10).is_none());
        assert!(plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[], 2, 3).is_none());
    }

    #[test]
    fn f32_rows_of_four_are_ldmatrix_halves() {
        // 32-bit, 8 columns a row: lanes 0, 1 take columns 1, 2; lanes 2–4 rows (8 elements
        // apart); registers pick two more 8 × 4 blocks. One word per matrix, no `.trans`.
        let p = plan(&[4, 64], &[1, 2, 8, 16, 32], &[], 4, 10).unwrap();
        assert_eq!((p.count, p.trans), (MatrixCount::X4, false));
        assert_eq!(p.address_bases, vec![8, 16, 32, 4, 64]);
        assert_eq!(
            p.accesses,
            vec![(0, vec![vec![0], vec![1], vec![2], vec![3]])]
        );
    }

    #[test]
    fn i8_pairs_are_ldmatrix_units() {
        // 8-bit: registers 1, 2 make 4 bytes (a pair, then the half), lanes 0, 1 at bytes 4, 8,
        // lanes 2–4 pick 16-byte rows, a register the second matrix.
        let p = plan(&[1, 2, 128], &[4, 8, 16, 32, 64], &[], 1, 10).unwrap();
        assert_eq!((p.count, p.trans), (MatrixCount::X2, false));
        assert_eq!(p.address_bases, vec![16, 32, 64, 128, 0]);
        // Word j packs unit 2j (registers 4j, 4j+1) then unit 2j+1.
        assert_eq!(
            p.accesses[0].1,
            vec![
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![4],
                vec![5],
                vec![6],
                vec![7]
            ]
        );
    }
}
