//! [`optimal_scratch`]: the shared-memory layout a layout conversion goes through, chosen as
//! Triton 3.9 chooses it (`optimalSwizzling` in `lib/Tools/GenericSwizzling.cpp`).
//!
//! Everything works on the flattened tensor (one out-dim, Fortran order), with bases as bit
//! masks. The scratch is built from four groups of bases:
//! - **vector**: bits both layouts hold in registers, as many as one 128-bit access moves (or,
//!   for a matrix instruction, its registers and contiguous lanes);
//! - **segment**: the bits that pick one 32-bank row (1024 bits) from another, chosen so that
//!   the lanes of one access — in the source and in the destination — fall in different
//!   banks where possible (`computeSegment`: bits neither side's bank-tile uses, then XORs of
//!   the two sides' differing bits, then conflicts);
//! - **bank**: the complement of vector and segment (what fills a bank row);
//! - **reps**: segment bits both layouts hold in registers — the conversion goes round by
//!   round over them, reusing the scratch (Triton's `buildReps`).
//!
//! Candidate instruction pairs are tried — `st.shared`/`ld.shared` `.v4`, `stmatrix`/`ldmatrix`
//! and their `.trans` for 16-bit elements — and the pair with the fewest bank conflicts wins
//! (ties: more rounds, a smaller scratch); when no pair fills a 128-bit access on both sides
//! the plain `ld`/`st` choice (`optimalSwizzlingLdSt`) is used.
//!
//! The result is a shared layout with one `offset` in-dim: vector bits lowest, then bank,
//! segment, and the reps on top, so that [`Rounds`](super::Rounds) splits exactly those off.

use linear_layout::gf2::Echelon;
use linear_layout::{Dim, LinearLayout};

use super::error::SmemError;

/// The 32 four-byte banks of a shared-memory row.
const BANKS: u32 = 32;

/// A scratch layout for a conversion and what it costs.
///
/// ```
/// use codegen::smem::optimal_scratch;
/// use linear_layout::LinearLayout;
/// // A 32 x 32 transpose of 32-bit elements by one warp: each lane holds a row (src) or a
/// // column (dst).
/// let l = |reg: &str, lane: &str| LinearLayout::from_bases(
///     &[("register", (0..5).map(|b| if reg == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("lane", (0..5).map(|b| if lane == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("warp", vec![])],
///     &[("dim0", 32), ("dim1", 32)], true);
/// let (src, dst) = (l("c", "r")?, l("r", "c")?);
/// let s = optimal_scratch(&src, &dst, 32)?;
/// assert_eq!(s.bytes, 4096);
/// assert_eq!((s.read_conflicts, s.write_conflicts), (0, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scratch {
    /// `offset` (vector, bank, segment, then the round bits on top) → the tensor's dims.
    pub layout: LinearLayout,
    /// Rounds the conversion takes (log2): the top offset bits.
    pub rounds_log2: u32,
    /// Bytes of one round's scratch.
    pub bytes: u64,
    /// Extra wavefronts per access of the destination's loads (Triton's `bankConflicts`).
    pub read_conflicts: u32,
    /// Extra wavefronts per access of the source's stores.
    pub write_conflicts: u32,
}

/// An instruction's shape on one side (Triton's `LocalMemOpTile`): lane bases contiguous in
/// memory, and lane bases that supply the addresses of one wavefront.
#[derive(Debug, Clone, Copy)]
struct Tile {
    contig: &'static [usize],
    addr: &'static [usize],
}

const LD_ST: Tile = Tile {
    contig: &[],
    addr: &[0, 1, 2],
};
const MATRIX: Tile = Tile {
    contig: &[0, 1],
    addr: &[2, 3, 4],
};
const MATRIX_TRANS: Tile = Tile {
    contig: &[2, 3, 4],
    addr: &[0, 1],
};

/// Bases of `dim` in a flattened layout, as masks; empty when the layout lacks the dim.
fn flat(l: &LinearLayout, dim: &str) -> Result<Vec<u64>, SmemError> {
    if !l.has_in_dim(dim) {
        return Ok(Vec::new());
    }
    Ok(l.bases_of(dim)?
        .into_iter()
        .map(|b| b.first().copied().unwrap_or(0))
        .collect())
}

fn remove_zeros(v: &[u64]) -> Vec<u64> {
    v.iter().copied().filter(|&x| x != 0).collect()
}

/// Reduced row echelon form over GF(2), each row's pivot its lowest set bit (f2reduce's
/// convention); zero rows dropped.
fn rref(vectors: &[u64]) -> Vec<u64> {
    let mut rows: Vec<u64> = Vec::new();
    for &v in vectors {
        let mut v = v;
        for &r in &rows {
            if v & (r & r.wrapping_neg()) != 0 {
                v ^= r;
            }
        }
        if v != 0 {
            let pivot = v & v.wrapping_neg();
            for r in rows.iter_mut() {
                if *r & pivot != 0 {
                    *r ^= v;
                }
            }
            rows.push(v);
        }
    }
    rows
}

/// The nullspace of the vectors (as rows) over `dim` bits, one basis vector per free column
/// in increasing order (Triton's `nullspaceBasis`).
fn nullspace_basis(vectors: &[u64], dim: u32) -> Vec<u64> {
    let rows = rref(vectors);
    let pivots: u64 = rows.iter().fold(0, |acc, r| acc | (r & r.wrapping_neg()));
    (0..dim)
        .filter(|&c| pivots >> c & 1 == 0)
        .map(|c| {
            rows.iter()
                .filter(|r| *r >> c & 1 == 1)
                .fold(1u64 << c, |acc, r| acc ^ (r & r.wrapping_neg()))
        })
        .collect()
}

/// Unit vectors of the columns no row of the echelon form pivots on (`complementBasis`).
fn complement_basis(basis: &[u64], dim: u32) -> Vec<u64> {
    let pivots: u64 = rref(basis)
        .iter()
        .fold(0, |acc, r| acc | (r & r.wrapping_neg()));
    (0..dim)
        .filter(|&c| pivots >> c & 1 == 0)
        .map(|c| 1u64 << c)
        .collect()
}

/// A basis of the intersection of two spans (`intersectionBasis`): for unit vectors, `b1`'s
/// that `b2` holds, in `b1`'s order.
fn intersection_basis(b1: &[u64], b2: &[u64], dim: u32) -> Vec<u64> {
    let pow2 = |v: &[u64]| v.iter().all(|x| x.is_power_of_two());
    if pow2(b1) && pow2(b2) {
        b1.iter().copied().filter(|b| b2.contains(b)).collect()
    } else {
        let mut joint = nullspace_basis(b1, dim);
        joint.extend(nullspace_basis(b2, dim));
        nullspace_basis(&joint, dim)
    }
}

/// The segment bases (`computeSegment`).
fn compute_segment(
    bank_src: &[u64],
    bank_dst: &[u64],
    block: &[u64],
    dim: u32,
    len: usize,
) -> Vec<u64> {
    let set = |bank: &[u64]| -> Vec<u64> {
        let mut s: Vec<u64> = Vec::new();
        for &b in bank.iter().chain(block) {
            if b != 0 && !s.contains(&b) {
                s.push(b);
            }
        }
        s
    };
    let (src, dst) = (set(bank_src), set(bank_dst));
    let mut segment: Vec<u64> = (0..dim)
        .map(|b| 1u64 << b)
        .filter(|b| !src.contains(b) && !dst.contains(b))
        .collect();
    if segment.len() >= len {
        segment.truncate(len);
        return segment;
    }
    let mut a: Vec<u64> = src.iter().copied().filter(|v| !dst.contains(v)).collect();
    let mut b: Vec<u64> = dst.iter().copied().filter(|v| !src.contains(v)).collect();
    if a.len() > b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    a.sort_unstable();
    b.sort_unstable();
    let conflicts = len.saturating_sub(a.len() + segment.len()).min(a.len());
    for i in conflicts..a.len() {
        segment.push(a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0));
    }
    segment.extend(a.iter().take(conflicts));
    segment.extend(b.iter().take(conflicts));
    segment.truncate(len);
    segment
}

fn log2_floor(x: u64) -> u32 {
    63u32.saturating_sub(x.max(1).leading_zeros())
}

/// The bases of the four groups (before the flat layout is built).
#[derive(Debug, Clone)]
struct Groups {
    vector: Vec<u64>,
    bank: Vec<u64>,
    segment: Vec<u64>,
    reps: Vec<u64>,
}

struct Sides {
    reg_src: Vec<u64>,
    reg_dst: Vec<u64>,
    lane_src: Vec<u64>,
    lane_dst: Vec<u64>,
    warp_src: Vec<u64>,
    warp_dst: Vec<u64>,
    dim: u32,
}

impl Sides {
    /// Triton's `optimalSwizzling` core for a vector basis and the two bank tiles, with
    /// `buildReps` leaving `leave_reps` shared register bits in the segment.
    fn swizzle(
        &self,
        bits: u32,
        vector: &[u64],
        tile_src: &[u64],
        tile_dst: &[u64],
        leave_reps: usize,
    ) -> Groups {
        let dim = self.dim;
        let bank_src: Vec<u64> = vector.iter().chain(tile_src).copied().collect();
        let bank_dst: Vec<u64> = vector.iter().chain(tile_dst).copied().collect();
        let bank_bits = u64::from(BANKS) * 32;
        let vec_bits = (1u64 << vector.len()) * u64::from(bits);
        let len_bank = (log2_floor(bank_bits / vec_bits.max(1)) as usize)
            .min((dim as usize).saturating_sub(vector.len()));
        let len_segment = (dim as usize).saturating_sub(len_bank + vector.len());
        let segment = compute_segment(&bank_src, &bank_dst, &[], dim, len_segment);
        // Keep the segment bases independent of the vector and of each other (Triton assumes
        // they are, which holds for unit bases; a general GF(2) layout can break it, and a
        // dependent basis would make the scratch map two offsets to one element).
        let mut basis: Echelon<u64, u64> = Echelon::new(dim as usize, 0);
        for &v in vector {
            basis.insert(v, 0);
        }
        let segment: Vec<u64> = segment
            .into_iter()
            .filter(|&b| basis.insert(b, 0))
            .collect();
        let mut union: Vec<u64> = vector.to_vec();
        union.extend(&segment);
        let bank = complement_basis(&union, dim);
        // buildReps: segment bits in registers on both sides become rounds.
        let (mut seg, mut reps, mut leave) = (Vec::new(), Vec::new(), leave_reps);
        for s in segment {
            if self.reg_src.contains(&s) && self.reg_dst.contains(&s) {
                if leave > 0 {
                    leave -= 1;
                    seg.push(s);
                } else {
                    reps.push(s);
                }
            } else {
                seg.push(s);
            }
        }
        Groups {
            vector: vector.to_vec(),
            bank,
            segment: seg,
            reps,
        }
    }
}

/// Triton's `bankConflicts`: extra wavefronts of the reads and of the writes.
fn bank_conflicts(tile_src: &[u64], tile_dst: &[u64], segment: &[u64], dim: u32) -> (u32, u32) {
    let write = (1u32 << intersection_basis(segment, tile_src, dim).len()) - 1;
    let read = (1u32 << intersection_basis(segment, tile_dst, dim).len()) - 1;
    (read, write)
}

/// Triton's `optimalSwizzlingTile`: the vector basis for a pair of instruction tiles, or
/// `None` when the layouts cannot feed both at full width.
fn swizzling_tile(
    a: &LinearLayout,
    b: &LinearLayout,
    n_reg_a: usize,
    n_reg_b: usize,
    lanes_a: &[usize],
    lanes_b: &[usize],
) -> Result<Option<Vec<u64>>, SmemError> {
    if n_reg_a < n_reg_b {
        return swizzling_tile(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a);
    }
    let dim = a.total_out_dim_size_log2();
    let cvt = b.invert_and_compose(a)?;
    let (reg_a, reg_b) = (flat(a, "register")?, flat(b, "register")?);
    let (lane_a, lane_b) = (flat(a, "lane")?, flat(b, "lane")?);
    let mut vector = intersection_basis(&reg_a, &reg_b, dim);
    if vector.len() < n_reg_b {
        return Ok(None);
    }
    vector.truncate(n_reg_b);
    let pick = |lane: &[u64], ids: &[usize]| -> Vec<u64> {
        ids.iter()
            .map(|&i| lane.get(i).copied().unwrap_or(0))
            .collect()
    };
    let (tile_a, tile_b) = (pick(&lane_a, lanes_a), pick(&lane_b, lanes_b));
    if tile_a.contains(&0) || tile_b.contains(&0) {
        return Ok(None);
    }
    let outs: Vec<Dim> = cvt.out_dims().into_iter().map(|(d, _)| d).collect();
    let component = |basis: &[u64], name: &str| -> u64 {
        outs.iter()
            .position(|d| d.to_string() == name)
            .and_then(|i| basis.get(i).copied())
            .unwrap_or(0)
    };
    let cvt_lanes = cvt.bases_of("lane")?;
    for &id in lanes_b.iter().take(n_reg_a - n_reg_b) {
        let basis = cvt_lanes.get(id).map(Vec::as_slice).unwrap_or(&[]);
        if component(basis, "register") == 0 {
            return Ok(None);
        }
    }
    let tail = lanes_b
        .get(lanes_b.len().saturating_sub(lanes_a.len())..)
        .unwrap_or(&[]);
    for (&ia, &ib) in lanes_a.iter().zip(tail) {
        let basis = cvt_lanes.get(ib).map(Vec::as_slice).unwrap_or(&[]);
        if component(basis, "lane") != 1 << ia {
            return Ok(None);
        }
    }
    vector.extend(tile_b);
    Ok(Some(vector))
}

/// Triton's `getTile`: the bank tile of an instruction — its first registers outside the
/// vector, then its address lanes.
fn bank_tile(tile: Tile, regs: &[u64], lanes: &[u64], vector: &[u64]) -> Option<Vec<u64>> {
    let needed = 3usize.saturating_sub(tile.addr.len());
    let mut out: Vec<u64> = regs
        .iter()
        .copied()
        .filter(|r| !vector.contains(r))
        .take(needed)
        .collect();
    if out.len() < needed {
        return None;
    }
    out.extend(
        tile.addr
            .iter()
            .map(|&i| lanes.get(i).copied().unwrap_or(0)),
    );
    Some(out)
}

/// The scratch layout Triton 3.9 converts `src` to `dst` through (see the module docs), for
/// `bits`-bit elements, one CTA: among [`scratch_candidates`], the one with the fewest bank
/// conflicts by Triton's count (ties: more rounds), else the plain `ld`/`st` one.
///
/// Errors: [`SmemError::Layout`] for layouts that are not register layouts of one tensor
/// (in-dims `register`, `lane`, `warp`), [`SmemError::Scratch`] for a conversion across CTAs.
pub fn optimal_scratch(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
) -> Result<Scratch, SmemError> {
    let c = Candidates::new(src, dst, bits)?;
    let mut best: Option<&Pair> = None;
    for p in &c.pairs {
        let better = match best {
            None => true,
            Some(b) => p.conflicts < b.conflicts || (p.conflicts == b.conflicts && p.reps > b.reps),
        };
        if better {
            best = Some(p);
        }
    }
    match best {
        Some(b) => b.scratch.clone(),
        None => c.plain,
    }
}

/// Every scratch Triton 3.9's `optimalSwizzling` weighs for the conversion: one per pair of
/// instruction tiles whose vectors both layouts fill (`st`/`ld.shared`, `stmatrix`/`ldmatrix`
/// and, for 16-bit elements, their `.trans`; in Triton's order, duplicates dropped), then the
/// plain `ld`/`st` one (`optimalSwizzlingLdSt`) when it can be built. [`optimal_scratch`] is
/// Triton's pick among them; `codegen::cost::fewest_wavefronts_scratch` the hardware's.
///
/// Errors: as [`optimal_scratch`], and the plain scratch's when no tile pair fits.
///
/// ```
/// use codegen::smem::{optimal_scratch, scratch_candidates};
/// use linear_layout::LinearLayout;
/// let l = |reg: &str, lane: &str| LinearLayout::from_bases(
///     &[("register", (0..5).map(|b| if reg == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("lane", (0..5).map(|b| if lane == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("warp", vec![])],
///     &[("dim0", 32), ("dim1", 32)], true);
/// let (src, dst) = (l("c", "r")?, l("r", "c")?);
/// let all = scratch_candidates(&src, &dst, 32)?;
/// assert!(all.contains(&optimal_scratch(&src, &dst, 32)?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scratch_candidates(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
) -> Result<Vec<Scratch>, SmemError> {
    let c = Candidates::new(src, dst, bits)?;
    let mut all: Vec<Scratch> = c.pairs.into_iter().filter_map(|p| p.scratch.ok()).collect();
    match c.plain {
        Ok(p) => all.push(p),
        Err(e) if all.is_empty() => return Err(e),
        Err(_) => {}
    }
    let mut unique: Vec<Scratch> = Vec::with_capacity(all.len());
    for s in all {
        if !unique.iter().any(|u| u.layout == s.layout) {
            unique.push(s);
        }
    }
    Ok(unique)
}

/// One tile pair's scratch (built only to be looked at: Triton ranks the pairs first), with
/// Triton's bank conflicts and rounds.
struct Pair {
    scratch: Result<Scratch, SmemError>,
    conflicts: u32,
    reps: usize,
}

/// The tile pairs' scratches, in Triton's order, and the plain one.
struct Candidates {
    pairs: Vec<Pair>,
    plain: Result<Scratch, SmemError>,
}

impl Candidates {
    fn new(src: &LinearLayout, dst: &LinearLayout, bits: u32) -> Result<Candidates, SmemError> {
        let dims = src.out_dims();
        let prep = |l: &LinearLayout| -> Result<LinearLayout, SmemError> {
            if l.has_in_dim("block")
                && l.bases_of("block")?
                    .iter()
                    .any(|b| b.iter().any(|&x| x != 0))
            {
                return Err(SmemError::Scratch {
                    reason: "the conversion crosses CTAs".into(),
                });
            }
            // Drop broadcast registers (actionRemoveBroadcastedRegs), then flatten.
            let mut bases = l.bases();
            if let Some((_, regs)) = bases.iter_mut().find(|(d, _)| d.to_string() == "register") {
                regs.retain(|b| b.iter().any(|&x| x != 0));
            }
            Ok(LinearLayout::from_bases(&bases, &l.out_dims(), false)?.flatten_outs()?)
        };
        let (s, d) = (prep(src)?, prep(dst)?);
        if bits == 0 || bits > 128 || !bits.is_power_of_two() {
            return Err(SmemError::Scratch {
                reason: format!("{bits}-bit elements"),
            });
        }
        let sides = Sides {
            reg_src: flat(&s, "register")?,
            reg_dst: flat(&d, "register")?,
            lane_src: flat(&s, "lane")?,
            lane_dst: flat(&d, "lane")?,
            warp_src: remove_zeros(&flat(&s, "warp")?),
            warp_dst: remove_zeros(&flat(&d, "warp")?),
            dim: s.total_out_dim_size_log2(),
        };
        let flat_name = s
            .out_dims()
            .first()
            .map(|(d, _)| *d)
            .unwrap_or_else(|| Dim::new("dim0"));
        let total = log2_floor(u64::from(128 / bits)) as usize;
        let mut src_tiles = vec![LD_ST];
        let mut dst_tiles = vec![LD_ST];
        if bits <= 32 {
            src_tiles.push(MATRIX);
            dst_tiles.push(MATRIX);
        }
        if bits == 16 {
            src_tiles.push(MATRIX_TRANS);
            dst_tiles.push(MATRIX_TRANS);
        }
        let mut pairs = Vec::new();
        for ts in &src_tiles {
            for td in &dst_tiles {
                let (ns, nd) = (
                    total.saturating_sub(ts.contig.len()),
                    total.saturating_sub(td.contig.len()),
                );
                let Some(vector) = swizzling_tile(&s, &d, ns, nd, ts.contig, td.contig)? else {
                    continue;
                };
                let (Some(tile_src), Some(tile_dst)) = (
                    bank_tile(*ts, &sides.reg_src, &sides.lane_src, &vector),
                    bank_tile(*td, &sides.reg_dst, &sides.lane_dst, &vector),
                ) else {
                    continue;
                };
                let missing = |t: &Tile| t.contig.len() + t.addr.len() - 3;
                let leave = missing(ts).min(missing(td));
                let g = sides.swizzle(bits, &vector, &tile_src, &tile_dst, leave);
                let c = bank_conflicts(&tile_src, &tile_dst, &g.segment, sides.dim);
                pairs.push(Pair {
                    scratch: scratch(&g, c, &sides, bits, flat_name, &dims),
                    conflicts: c.0 + c.1,
                    reps: g.reps.len(),
                });
            }
        }
        let plain =
            ld_st(&sides, bits).and_then(|(g, c)| scratch(&g, c, &sides, bits, flat_name, &dims));
        Ok(Candidates { pairs, plain })
    }
}

/// The scratch of `groups`: vector, bank and segment bits, the reps on top.
fn scratch(
    groups: &Groups,
    (read, write): (u32, u32),
    sides: &Sides,
    bits: u32,
    flat_name: Dim,
    dims: &[(Dim, u64)],
) -> Result<Scratch, SmemError> {
    let mut offset: Vec<u64> = groups.vector.clone();
    offset.extend(&groups.bank);
    offset.extend(&groups.segment);
    let per_round = offset.len() as u32;
    offset.extend(&groups.reps);
    let mut basis: Echelon<u64, u64> = Echelon::new(sides.dim as usize, 0);
    let independent = offset.iter().all(|&b| basis.insert(b, 0));
    if !independent || offset.len() != sides.dim as usize {
        return Err(SmemError::Scratch {
            reason: format!(
                "the chosen bases {offset:?} are not a basis of the {}-bit tile",
                sides.dim
            ),
        });
    }
    let bases: Vec<Vec<u64>> = offset.iter().map(|&b| vec![b]).collect();
    let layout = LinearLayout::from_bases(
        &[("offset", bases)],
        &[(flat_name, 1u64 << sides.dim)],
        true,
    )?
    .reshape_outs(dims)?;
    Ok(Scratch {
        layout,
        rounds_log2: groups.reps.len() as u32,
        bytes: (1u64 << per_round) * u64::from(bits) / 8,
        read_conflicts: read,
        write_conflicts: write,
    })
}

/// Triton's `optimalSwizzlingLdSt` (with `getVecBasisLdSt`): plain `ld`/`st`, the vector
/// filled towards 32 bits with register bits one side holds in registers and the other in
/// warps, then warp bits; the banks reordered so that the side that filled them vectorises.
fn ld_st(sides: &Sides, bits: u32) -> Result<(Groups, (u32, u32)), SmemError> {
    let dim = sides.dim;
    let mut vector = intersection_basis(&sides.reg_src, &sides.reg_dst, dim);
    vector.truncate(log2_floor(u64::from(128 / bits)) as usize);
    let mut src_fills: Option<bool> = None;
    if (1u64 << vector.len()) * u64::from(bits) < 32 {
        let per_bank = log2_floor(u64::from(32 / bits)) as usize;
        let not_vec =
            |v: &[u64]| -> Vec<u64> { v.iter().copied().filter(|r| !vector.contains(r)).collect() };
        let src_warp = intersection_basis(&not_vec(&sides.reg_src), &sides.warp_dst, dim);
        let dst_warp = intersection_basis(&not_vec(&sides.reg_dst), &sides.warp_src, dim);
        let largest = if src_warp.len() == dst_warp.len() && !src_warp.is_empty() {
            let (ms, md) = (src_warp.iter().min(), dst_warp.iter().min());
            src_fills = Some(ms < md);
            if ms < md {
                src_warp
            } else {
                dst_warp
            }
        } else {
            let fills = src_warp.len() > dst_warp.len();
            src_fills = Some(fills);
            if fills {
                src_warp
            } else {
                dst_warp
            }
        };
        vector.extend(largest);
        if vector.len() < per_bank {
            vector.extend(intersection_basis(&sides.warp_src, &sides.warp_dst, dim));
        }
        let mut i = 0;
        while vector.len() < per_bank && (i < sides.warp_src.len() || i < sides.warp_dst.len()) {
            if let Some(&w) = sides.warp_src.get(i) {
                if !vector.contains(&w) {
                    vector.push(w);
                }
            }
            if let Some(&w) = sides.warp_dst.get(i) {
                if vector.len() < per_bank && !vector.contains(&w) {
                    vector.push(w);
                }
            }
            i += 1;
        }
        vector.truncate(per_bank);
    }
    let vec_size = 1u64 << vector.len();
    let log2_vec = log2_floor((vec_size * u64::from(bits) / 32).max(1));
    let lane_tile = |lanes: &[u64]| -> Vec<u64> {
        let phase =
            (log2_vec as usize + lanes.len()).saturating_sub(log2_floor(u64::from(BANKS)) as usize);
        lanes
            .get(..lanes.len().saturating_sub(phase))
            .unwrap_or(&[])
            .to_vec()
    };
    let (tile_src, tile_dst) = (lane_tile(&sides.lane_src), lane_tile(&sides.lane_dst));
    let mut g = sides.swizzle(bits, &vector, &tile_src, &tile_dst, 0);
    if log2_vec < 2 {
        let in_src: Vec<usize> = (0..g.bank.len())
            .filter(|&i| g.bank.get(i).is_some_and(|b| sides.reg_src.contains(b)))
            .collect();
        let in_dst: Vec<usize> = (0..g.bank.len())
            .filter(|&i| g.bank.get(i).is_some_and(|b| sides.reg_dst.contains(b)))
            .collect();
        let mut order = match src_fills {
            Some(true) => in_src,
            Some(false) => in_dst,
            None if in_src.len() > in_dst.len() => in_src,
            None => in_dst,
        };
        for i in 0..g.bank.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        g.bank = order
            .iter()
            .filter_map(|&i| g.bank.get(i).copied())
            .collect();
    }
    let conflicts = bank_conflicts(&tile_src, &tile_dst, &g.segment, dim);
    Ok((g, conflicts))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics
    use super::*;

    #[test]
    fn gf2_helpers_follow_f2reduce() {
        assert_eq!(nullspace_basis(&[0b011], 3), vec![0b011, 0b100]);
        assert_eq!(complement_basis(&[0b011, 0b100], 4), vec![0b0010, 0b1000]);
        assert_eq!(intersection_basis(&[1, 2, 8], &[8, 1], 4), vec![1, 8]);
        assert_eq!(
            intersection_basis(&[0b11, 0b100], &[0b11, 0b1000], 4),
            vec![0b11]
        );
    }

    #[test]
    fn segment_prefers_free_bits_then_xors() {
        // 4 bits: src banks use bits 0, 1; dst banks use bits 0, 2 → bit 3 is free, then 1 ^ 2.
        assert_eq!(compute_segment(&[1, 2], &[1, 4], &[], 4, 2), vec![8, 6]);
    }
}
