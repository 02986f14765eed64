//! Shared-memory bank conflicts of a register ↔ shared copy: Triton 3.9's
//! `bankConflictsMemDesc` (`lib/Tools/GenericSwizzling.cpp`), the number Gluon's
//! `ttgl.bank_conflicts(distributed_type, shared_memory_descriptor_type)` returns, with the bank
//! count as a parameter.
//!
//! The model, bit for bit as Triton's:
//!
//! 1. Register broadcast is dropped ([`action_remove_broadcasted_regs`]) and the copy is
//!    expressed as registers → offsets (`reg.invert_and_compose(shared)`).
//! 2. Each lane moves `v` elements per instruction, `v` from [`largest_vectorisation`]
//!    (at most 128 bits).
//! 3. The shared buffer's offset bits, least significant first, are split into `vector`
//!    (`log2 v` bits), `bank` (enough further bits to fill one row of `num_banks × 32` bits) and
//!    `segment` (the rest: which row).
//! 4. Accesses wider than 32 bits are issued in phases of consecutive lanes (128-bit accesses on
//!    32 banks: 4 phases of 8 lanes); the lanes of one phase are the low lane bases, the
//!    "tile".
//! 5. Two lanes of a phase conflict when they address the same bank position in different rows.
//!    The rows one phase touches form the space `span(segment) ∩ span(tile)` (both flattened over
//!    the tensor), so a phase needs `2^dim` wavefronts and the conflict count is `2^dim − 1`:
//!    the excess wavefronts per wavefront, 0 when conflict-free. Lanes holding the same element
//!    (a zero lane basis) read the same address and never conflict.
//!
//! Departures from Triton, all where Triton would assert or compute garbage: invalid inputs are
//! typed errors; the register and shared layouts must cover the same tensor shape (Triton
//! flattens both without checking); a `bank` part wider than the buffer is clamped so that a
//! tiny buffer has one segment (Triton divides by zero there); out-dims may be listed in any
//! order (they are matched by name).
//!
//! ```
//! use linear_layout::analysis::bank_conflicts::{bank_conflicts, bank_conflicts_at_vector};
//! use linear_layout::LinearLayout;
//! // Lane i holds column i (4 f32) of a 4×32 tile stored row after row: each 4-register
//! // vector is strided, so every lane moves one element at a time, conflict-free.
//! let reg = LinearLayout::from_bases(&[
//!     ("register", vec![vec![1, 0], vec![2, 0]]),
//!     ("lane", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16]]),
//! ], &[("dim0", 4), ("dim1", 32)], true)?;
//! let smem = LinearLayout::from_bases(&[("offset", vec![
//!     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16], vec![1, 0], vec![2, 0]])],
//!     &[("dim0", 4), ("dim1", 32)], true)?;
//! let c = bank_conflicts(&reg, &smem, 32, 32)?;
//! assert_eq!((c.vector_elems, c.conflicts), (1, 0));
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use crate::dims::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

use super::vectorisation::{
    action_remove_broadcasted_regs, check_element_bits, largest_vectorisation,
};

/// NVIDIA's shared memory: 32 banks of 4 bytes. (AMD gfx950 has 64.)
///
/// ```
/// assert_eq!(linear_layout::analysis::DEFAULT_NUM_BANKS, 32);
/// ```
pub const DEFAULT_NUM_BANKS: u32 = 32;

/// Width of one bank, in bits: a bank row is `num_banks × BANK_BITS` bits.
///
/// ```
/// use linear_layout::analysis::{BANK_BITS, DEFAULT_NUM_BANKS};
/// assert_eq!(DEFAULT_NUM_BANKS * BANK_BITS / 8, 128); // bytes per bank row
/// ```
pub const BANK_BITS: u32 = 32;

/// Most lanes [`warp_request`] lists (hardware warps have 32 or 64).
///
/// ```
/// assert!(linear_layout::analysis::bank_conflicts::MAX_WARP_REQUEST_LANES >= 64);
/// ```
pub const MAX_WARP_REQUEST_LANES: u64 = 1 << 16;

/// What one warp-wide `ld.shared`/`st.shared` of the copy costs.
///
/// ```
/// use linear_layout::analysis::{bank_conflicts, BankConflicts};
/// use linear_layout::LinearLayout;
/// // 32 lanes each hold one row (32 f32) of an unswizzled row-major 32×32 tile.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 32)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16],
///     vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 32)], true)?;
/// let c: BankConflicts = bank_conflicts(&reg, &smem, 32, 32)?;
/// // 128-bit accesses, 4 phases of 8 lanes, all on the same 4 banks of 8 different rows
/// assert_eq!((c.conflicts, c.wavefronts, c.vector_elems, c.vector_bits), (7, 8, 4, 128));
/// assert_eq!((c.phases, c.request_wavefronts()), (4, 32));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BankConflicts {
    /// Triton's number: excess wavefronts per wavefront of one request (0 = conflict-free).
    pub conflicts: u64,
    /// Wavefronts one phase of lanes needs: `conflicts + 1`.
    pub wavefronts: u64,
    /// Phases the request is split into (groups of consecutive lanes served together: 1 for
    /// accesses up to 32 bits, 2 for 64-bit and 4 for 128-bit ones on 32 banks).
    pub phases: u64,
    /// Elements each lane moves per instruction (the vector width used for the count).
    pub vector_elems: u64,
    /// `vector_elems × element_bits`.
    pub vector_bits: u64,
    /// Bank count the figure was computed for.
    pub num_banks: u32,
}

impl BankConflicts {
    /// Wavefronts the whole warp-wide request takes: `phases × wavefronts`.
    ///
    /// ```
    /// use linear_layout::analysis::BankConflicts;
    /// let c = BankConflicts { conflicts: 1, wavefronts: 2, phases: 4, vector_elems: 8, vector_bits: 128, num_banks: 32 };
    /// assert_eq!(c.request_wavefronts(), 8);
    /// ```
    pub fn request_wavefronts(&self) -> u64 {
        self.phases.saturating_mul(self.wavefronts)
    }
}

/// Triton's `bankConflictsMemDesc(reg, shared, element_bits)` with `num_banks` banks of 32 bits,
/// at the vector width Triton's lowering picks ([`largest_vectorisation`]).
///
/// `reg` maps `register, lane, warp[, block]` to the tensor, `shared` maps `offset[, block]`
/// to the same tensor (same out-dim names and sizes, any order). Errors:
/// [`LayoutError::UnknownDim`] (no `register`/`lane` in `reg`, no `offset` in `shared`),
/// [`LayoutError::DimsMismatch`] / [`LayoutError::SizeMismatch`] (different tensors),
/// [`LayoutError::NotPowerOfTwo`] / [`LayoutError::InvalidParameter`] (`element_bits` not a
/// power of two up to 128, `num_banks` not a power of two of at least 4), and whatever
/// [`LinearLayout::invert_and_compose`] refuses (e.g. `shared` not covering the tensor).
///
/// ```
/// use linear_layout::analysis::bank_conflicts;
/// use linear_layout::LinearLayout;
/// // Blocked [1,4]x[8,4]x[2,2] on 64×64 f16, stored with the NVMMA 128-byte swizzle.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 32], vec![16, 0], vec![32, 0]]),
///     ("lane", vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]]),
///     ("warp", vec![vec![0, 16], vec![8, 0]]),
/// ], &[("dim0", 64), ("dim1", 64)], true)?;
/// let nvmma = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16], vec![0, 32],
///     vec![1, 8], vec![2, 16], vec![4, 32], vec![8, 0], vec![16, 0], vec![32, 0]])],
///     &[("dim0", 64), ("dim1", 64)], true)?;
/// let c = bank_conflicts(&reg, &nvmma, 16, 32)?;
/// assert_eq!(c.vector_elems, 4); // 64-bit accesses: two phases of 16 lanes
/// assert_eq!(c.conflicts, 1);   // Gluon's ttgl.bank_conflicts says 1 as well
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn bank_conflicts(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
) -> Result<BankConflicts> {
    let access = Access::new(reg, shared, element_bits, num_banks)?;
    Ok(access.conflicts_at(access.max_vector_elems))
}

/// [`bank_conflicts`] if each lane moved `vector_elems` elements per instruction instead of the
/// widest possible vector. `vector_elems` must be a power of two not above the widest vector
/// the copy allows ([`LayoutError::InvalidParameter`] otherwise).
///
/// ```
/// use linear_layout::analysis::{bank_conflicts, bank_conflicts_at_vector};
/// use linear_layout::LinearLayout;
/// // Each lane holds 8 contiguous f16 of its own row of an unswizzled 32×8 tile.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 8)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// assert_eq!(bank_conflicts(&reg, &smem, 16, 32)?.conflicts, 0); // 128-bit rows, 8 lanes a phase
/// let scalar = bank_conflicts_at_vector(&reg, &smem, 16, 32, 1)?;
/// assert_eq!(scalar.conflicts, 3); // lanes 0, 8, 16, 24 hit the same bank in 4 bank rows
/// assert!(bank_conflicts_at_vector(&reg, &smem, 16, 32, 16).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn bank_conflicts_at_vector(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
    vector_elems: u64,
) -> Result<BankConflicts> {
    let access = Access::new(reg, shared, element_bits, num_banks)?;
    if !vector_elems.is_power_of_two() || vector_elems > access.max_vector_elems {
        return Err(LayoutError::InvalidParameter {
            family: "bank_conflicts",
            param: "vector_elems",
            value: vector_elems.to_string(),
            reason: format!(
                "must be a power of two of at most {} (the widest vector this copy allows)",
                access.max_vector_elems
            ),
        });
    }
    Ok(access.conflicts_at(vector_elems))
}

/// The widest vector, in elements, at which the copy is conflict-free, or `None` if it is not
/// conflict-free at any width.
///
/// Definition: the largest power of two `v` not above the vector width Triton picks
/// ([`largest_vectorisation`]: `v` consecutive registers on `v` consecutive offsets, at most 128
/// bits) for which [`bank_conflicts_at_vector`] is 0. Narrower vectors are always possible (a
/// prefix of a contiguous run is contiguous), but they never help: a bank row is
/// `num_banks × 32` bits whatever `v` is, so the segment bits do not move, while a narrower
/// access puts more lanes in one phase. The count therefore never decreases as `v` narrows, and
/// the answer is Triton's width when that is conflict-free and `None` otherwise; the copy has
/// to change (another swizzle, another register layout) to lose its conflicts.
///
/// Errors: as [`bank_conflicts`].
///
/// ```
/// use linear_layout::analysis::{bank_conflicts_at_vector, widest_conflict_free_vector};
/// use linear_layout::LinearLayout;
/// // Lane i holds row i (8 contiguous f16) of a 32×8 tile stored row after row.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 8)], true)?;
/// let rows = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// assert_eq!(widest_conflict_free_vector(&reg, &rows, 16, 32)?, Some(8));
/// // Element by element all 32 lanes form one phase, spread over 4 bank rows: narrowing hurts.
/// assert_eq!(bank_conflicts_at_vector(&reg, &rows, 16, 32, 1)?.conflicts, 3);
/// // With 16 f16 per row, lanes 0 and 4 of a phase (8 lanes) collide at any width.
/// let reg16 = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 16)], true)?;
/// let rows16 = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 16)], true)?;
/// assert_eq!(widest_conflict_free_vector(&reg16, &rows16, 16, 32)?, None);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn widest_conflict_free_vector(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
) -> Result<Option<u64>> {
    let access = Access::new(reg, shared, element_bits, num_banks)?;
    let mut v = access.max_vector_elems;
    while v >= 1 {
        if access.conflicts_at(v).conflicts == 0 {
            return Ok(Some(v));
        }
        v /= 2;
    }
    Ok(None)
}

/// The first `ld/st.shared` request of warp 0 (block 0) of a register ↔ shared copy, at the
/// vector width [`bank_conflicts`] uses: what a picture of the banks needs.
///
/// ```
/// use linear_layout::analysis::warp_request;
/// use linear_layout::LinearLayout;
/// // Lane i holds row i (4 f32) of a 32×4 tile stored row after row.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 4)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 4)], true)?;
/// let r = warp_request(&reg, &smem, 32, 32)?;
/// assert_eq!(&r.lane_offsets[..3], &[0, 4, 8]);
/// assert_eq!(r.lanes_per_phase, 8); // 128-bit accesses: 4 phases of 8 lanes
/// assert_eq!(r.conflicts.conflicts, 0);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpRequest {
    /// Offset (in elements) of the vector each lane moves, lane by lane.
    pub lane_offsets: Vec<u64>,
    /// Consecutive lanes served together (one phase).
    pub lanes_per_phase: u64,
    /// The conflict count of the request ([`bank_conflicts`]).
    pub conflicts: BankConflicts,
}

/// The first request of warp 0 of a register ↔ shared copy; see [`WarpRequest`].
/// Errors: as [`bank_conflicts`], and [`LayoutError::Invalid`] past
/// [`MAX_WARP_REQUEST_LANES`] lanes.
///
/// ```
/// use linear_layout::analysis::warp_request;
/// use linear_layout::LinearLayout;
/// let reg = LinearLayout::from_bases(&[("register", vec![]), ("lane", vec![vec![1], vec![2]])], &[("dim0", 4)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![vec![2], vec![1]])], &[("dim0", 4)], true)?;
/// assert_eq!(warp_request(&reg, &smem, 32, 32)?.lane_offsets, vec![0, 2, 1, 3]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn warp_request(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
) -> Result<WarpRequest> {
    let access = Access::new(reg, shared, element_bits, num_banks)?;
    let lane_bits = access.lane_offsets.len();
    if lane_bits > MAX_WARP_REQUEST_LANES.trailing_zeros() as usize {
        return Err(LayoutError::Invalid {
            op: "warp_request",
            what: format!(
                "a warp of 2^{lane_bits} lanes; at most {MAX_WARP_REQUEST_LANES} are listed"
            ),
        });
    }
    let v = access.max_vector_elems;
    let lanes = 1u64 << lane_bits;
    let lane_offsets = (0..lanes)
        .map(|lane| {
            access
                .lane_offsets
                .iter()
                .enumerate()
                .filter(|(bit, _)| lane >> bit & 1 == 1)
                .fold(0, |acc, (_, &o)| acc ^ o)
        })
        .collect();
    let phase_log2 = access.phase_log2(v);
    Ok(WarpRequest {
        lane_offsets,
        lanes_per_phase: lanes >> phase_log2.min(lane_bits),
        conflicts: access.conflicts_at(v),
    })
}

/// The parts of a register ↔ shared copy the conflict count reads, flattened over the tensor.
struct Access {
    /// `lane` bases of the register layout, as flattened tensor indices.
    lanes: Vec<u64>,
    /// `lane` bases of registers → shared, as offsets.
    lane_offsets: Vec<u64>,
    /// Every input basis of the shared layout (offset bits, then block bits), flattened.
    shared_bases: Vec<u64>,
    element_bits: u32,
    num_banks: u32,
    max_vector_elems: u64,
}

impl Access {
    fn new(
        reg: &LinearLayout,
        shared: &LinearLayout,
        element_bits: u32,
        num_banks: u32,
    ) -> Result<Access> {
        const OP: &str = "bank_conflicts";
        check_element_bits(element_bits)?;
        if !num_banks.is_power_of_two() || num_banks < 4 {
            return Err(LayoutError::InvalidParameter {
                family: OP,
                param: "num_banks",
                value: num_banks.to_string(),
                reason: "must be a power of two of at least 4 (a 128-bit access spans 4 banks)"
                    .into(),
            });
        }
        for (layout, dim) in [(reg, "register"), (reg, "lane"), (shared, "offset")] {
            if !layout.has_in_dim(dim) {
                return Err(LayoutError::UnknownDim {
                    op: OP,
                    role: "in",
                    dim: dim.into(),
                    available: layout
                        .in_dim_names()
                        .iter()
                        .map(|d| d.to_string())
                        .collect(),
                });
            }
        }
        let reg_outs = reg.out_dims();
        let shared_outs = shared.out_dims();
        let names = |l: &[(Dim, u64)]| l.iter().map(|(d, _)| d.to_string()).collect::<Vec<_>>();
        if reg_outs.len() != shared_outs.len()
            || reg_outs.iter().any(|(d, _)| !shared.has_out_dim(*d))
        {
            return Err(LayoutError::DimsMismatch {
                op: OP,
                what: "the out-dims of the register and shared layouts",
                left: names(&reg_outs),
                right: names(&shared_outs),
            });
        }
        for &(d, size) in &reg_outs {
            let shared_size = shared.out_dim_size(d)?;
            if shared_size != size {
                return Err(LayoutError::SizeMismatch {
                    op: OP,
                    dim: d.to_string(),
                    left: u128::from(size),
                    right: u128::from(shared_size),
                    rule: "the register and shared layouts must cover the same tensor",
                });
            }
        }
        let shared = shared.transpose_outs(&reg.out_dim_names())?;

        let reg = action_remove_broadcasted_regs(reg)?.apply(reg)?;
        let cvt = reg.invert_and_compose(&shared)?;
        let (max_vector_elems, _) = largest_vectorisation(&cvt, element_bits, None)?;

        let lanes = flat_bases(&reg.flatten_outs()?, Some(Dim::new("lane")));
        let offset_index = cvt
            .out_dim_names()
            .iter()
            .position(|d| d.name() == "offset")
            .unwrap_or(0);
        let lane_offsets = cvt
            .bases_of("lane")?
            .iter()
            .map(|b| b.get(offset_index).copied().unwrap_or(0))
            .collect();
        let shared_bases = flat_bases(&shared.flatten_outs()?, None);
        Ok(Access {
            lanes,
            lane_offsets,
            shared_bases,
            element_bits,
            num_banks,
            max_vector_elems,
        })
    }

    /// `log2` of the number of phases a `v`-element request is split into: accesses wider than
    /// a bank are served a group of consecutive lanes at a time.
    fn phase_log2(&self, v: u64) -> usize {
        let vector_bits = v * u64::from(self.element_bits);
        let words_log2 = (vector_bits / u64::from(BANK_BITS)).max(1).trailing_zeros() as usize;
        (words_log2 + self.lanes.len()).saturating_sub(self.num_banks.trailing_zeros() as usize)
    }

    /// Triton's `bankConflictsLdSt` + `bankConflicts` for `v`-element accesses (`v` a power of
    /// two up to `max_vector_elems`).
    fn conflicts_at(&self, v: u64) -> BankConflicts {
        let v_log2 = v.trailing_zeros() as usize;
        let vector_bits = v * u64::from(self.element_bits);
        let row_bits = u64::from(self.num_banks) * u64::from(BANK_BITS);
        let bank_log2 = ((row_bits / vector_bits.max(1)).max(1).trailing_zeros() as usize)
            .min(self.shared_bases.len().saturating_sub(v_log2));
        let segment = self.shared_bases.get(v_log2 + bank_log2..).unwrap_or(&[]);

        let tile = self
            .lanes
            .get(..self.lanes.len().saturating_sub(self.phase_log2(v)))
            .unwrap_or(&[]);

        let dim = intersection_dim(segment, tile);
        let wavefronts = 1u64.checked_shl(dim).unwrap_or(u64::MAX);
        let phases = 1u64 << self.phase_log2(v).min(self.lanes.len()).min(63);
        BankConflicts {
            conflicts: wavefronts - 1,
            wavefronts,
            phases,
            vector_elems: v,
            vector_bits,
            num_banks: self.num_banks,
        }
    }
}

/// The bases of one in-dim (or of all, in order) of a layout with one out-dim.
fn flat_bases(layout: &LinearLayout, dim: Option<Dim>) -> Vec<u64> {
    layout
        .bases()
        .into_iter()
        .filter(|(d, _)| dim.is_none_or(|want| *d == want))
        .flat_map(|(_, b)| b.into_iter().map(|v| v.first().copied().unwrap_or(0)))
        .collect()
}

/// Triton's `intersectionBasis(b1, b2).size()`: when every vector of both lists is a single
/// bit, the number of (non-zero) vectors of `b1` that also appear in `b2`; otherwise the
/// dimension of `span(b1) ∩ span(b2)`.
fn intersection_dim(b1: &[u64], b2: &[u64]) -> u32 {
    if b1.iter().chain(b2).all(|b| b.is_power_of_two()) {
        b1.iter().filter(|b| b2.contains(b)).count() as u32
    } else {
        let both: Vec<u64> = b1.iter().chain(b2).copied().collect();
        (rank(b1) + rank(b2)).saturating_sub(rank(&both))
    }
}

/// GF(2) rank of a list of bit vectors.
fn rank(vectors: &[u64]) -> u32 {
    let mut basis: Vec<u64> = Vec::new();
    for &v in vectors {
        // basis kept with distinct leading bits, highest first, so one pass reduces fully
        let r = basis.iter().fold(v, |r, &b| r.min(r ^ b));
        if r != 0 {
            basis.push(r);
            basis.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
    basis.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_intersection() {
        assert_eq!(rank(&[1, 2, 3]), 2);
        assert_eq!(rank(&[0, 0]), 0);
        assert_eq!(rank(&[6, 5, 3]), 2);
        // fast path keeps Triton's count of repeated single bits
        assert_eq!(intersection_dim(&[4, 4, 8], &[4]), 2);
        assert_eq!(intersection_dim(&[1, 2], &[3, 0]), 1);
        assert_eq!(intersection_dim(&[5, 2], &[7]), 1);
    }
}
