//! The hardware's figure for a register ↔ shared copy at the layout level — the counterpart of
//! Triton's `bankConflictsMemDesc` ([`bank_conflicts`](linear_layout::analysis::bank_conflicts)),
//! which counts every access in phases of consecutive lanes whatever it is. Here the lanes of
//! one warp-wide request (Triton's vector width and addressing, [`warp_request`]) are costed
//! by the H100's rules ([`access_cost`]), separately for a load and a store: a load whose lanes
//! share addresses can take fewer wavefronts than the phases. The two agree wherever
//! `docs/gpu-counters.md` says Triton's figure is exact (a property test holds them to it).

use linear_layout::analysis::{warp_request, BankConflicts, DEFAULT_NUM_BANKS};
use linear_layout::{LayoutError, LinearLayout};

use super::wavefront::{access_cost, LaneAccess, SharedAccessClass, WavefrontCost};

/// One request of a register ↔ shared copy, as Triton counts it and as the hardware does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyCost {
    /// Triton's figure (per phase; [`BankConflicts::request_wavefronts`] for the request).
    pub triton: BankConflicts,
    /// Bytes each lane moves.
    pub bytes: u32,
    /// The request as a `ld.shared`.
    pub load: WavefrontCost,
    /// The request as a `st.shared`.
    pub store: WavefrontCost,
}

/// Costs one warp-wide request of the copy between `reg` (`register, lane, warp` → tensor) and
/// `shared` (`offset` → tensor) of `element_bits`-bit elements, at the vector width Triton's
/// lowering picks.
///
/// Errors: those of [`warp_request`]; [`LayoutError::Invalid`] for a warp other than 32 lanes
/// or an offset past the 32-bit shared window.
///
/// ```
/// use codegen::cost::copy_cost;
/// use linear_layout::LinearLayout;
/// // Lanes 2k and 2k+1 hold the same 4 f32 (a zero lane basis) of a row-major 16×16 tile.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2]]),
///     ("lane", vec![vec![0, 0], vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0]]),
///     ("warp", vec![vec![4, 0], vec![8, 0]]),
/// ], &[("dim0", 16), ("dim1", 16)], false)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0]])],
///     &[("dim0", 16), ("dim1", 16)], true)?;
/// let c = copy_cost(&reg, &smem, 32)?;
/// assert_eq!((c.bytes, c.triton.request_wavefronts()), (16, 4)); // 4 phases of 8 lanes
/// assert_eq!(c.store.wavefronts, 4);
/// assert_eq!(c.load.wavefronts, 2); // 16 distinct addresses: one wavefront per half-warp
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_cost(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<CopyCost, LayoutError> {
    let request = warp_request(reg, shared, element_bits, DEFAULT_NUM_BANKS)?;
    let invalid = |what: String| LayoutError::Invalid {
        op: "copy_cost",
        what,
    };
    if request.lane_offsets.len() != 32 {
        return Err(invalid(format!(
            "a warp of {} lanes; the hardware's rules are for 32",
            request.lane_offsets.len()
        )));
    }
    let bits = request.conflicts.vector_bits;
    let bytes = u32::try_from(bits / 8)
        .ok()
        .filter(|_| bits % 8 == 0)
        .ok_or_else(|| invalid(format!("{bits}-bit accesses")))?;
    let lanes = request
        .lane_offsets
        .iter()
        .zip(0u32..)
        .map(|(&offset, slot)| {
            offset
                .checked_mul(u64::from(element_bits))
                .map(|b| b / 8)
                .and_then(|a| u32::try_from(a).ok())
                .map(|address| LaneAccess { slot, address })
                .ok_or_else(|| invalid(format!("element offset {offset} past the shared window")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let cost = |class| access_cost(class, bytes, &lanes).map_err(|e| invalid(e.to_string()));
    Ok(CopyCost {
        triton: request.conflicts,
        bytes,
        load: cost(SharedAccessClass::Load)?,
        store: cost(SharedAccessClass::Store)?,
    })
}
