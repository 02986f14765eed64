//! `ldmatrix`/`stmatrix` (m8n8, `.b16`): when a register layout's 16-bit elements fall into
//! 8 × 8 matrices of 16-byte rows exactly as the instructions distribute them, one instruction
//! moves up to four matrices (16 bytes per thread) and only lanes 0–31 supply row addresses.
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
/// bit, in elements) and the accesses as (element offset of the outer registers,
/// `slots[2j + h]`: the registers of matrix `j`, half `h`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MatrixPlan {
    pub count: MatrixCount,
    pub trans: bool,
    pub address_bases: Vec<u64>,
    pub accesses: Vec<(u64, Vec<Vec<usize>>)>,
}

/// The first (plain before `.trans`) matrix path the bases allow, for 16-bit elements and
/// buffers aligned to 16 bytes.
pub(crate) fn plan(
    register: &[u64],
    lane: &[u64],
    warp: &[u64],
    element_bytes: u32,
    buffer_align_log2: u32,
) -> Option<MatrixPlan> {
    if element_bytes != 2 || buffer_align_log2 < 4 {
        return None;
    }
    let lanes: Vec<u64> = (0..5).map(|k| lane.get(k).copied().unwrap_or(0)).collect();
    [false, true]
        .into_iter()
        .find_map(|trans| plan_with(register, &lanes, warp, trans))
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
        assert!(plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[], 4, 10).is_none());
        assert!(plan(&[1, 128, 8], &[2, 4, 16, 32, 64], &[], 2, 3).is_none());
    }
}
