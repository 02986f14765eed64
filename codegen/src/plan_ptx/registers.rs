//! [`store_layout`]: the register layout a plan's shared-memory allocation is accessed with
//! when the plan file names none — 16-byte vectors along the contiguous dim, lanes then warps
//! after them, as a coalesced global load leaves a tile.

use linear_layout::families::Blocked;
use linear_layout::{LayoutError, LinearLayout};

/// Threads per warp.
const WARP: u64 = 32;

/// The `#ttg.blocked` layout of a `shape` tile of `element_bits`-bit elements for at most
/// `num_warps` warps (a power of two): the last dim is contiguous, each thread holds a
/// 16-byte vector along it (fewer elements when the dim is shorter), the 32 lanes continue
/// along the last dim and then the earlier ones, and the warps take the earlier dims first.
/// Only as many warps as the tile has rows of `32` vectors are used (at least one); lanes
/// past the tile repeat elements, as Triton broadcasts them.
///
/// Errors: those of [`Blocked::to_linear_layout`] (a dim that is not a power of two, no dims).
///
/// ```
/// use codegen::plan_ptx::store_layout;
/// // bf16 128 × 64: 8 elements a thread, 8 lanes along a row, 4 rows per warp, 4 warps.
/// let l = store_layout(&[128, 64], 16, 4)?;
/// assert_eq!(l.bases_of("register")?[..3], [vec![0, 1], vec![0, 2], vec![0, 4]]);
/// assert_eq!(l.bases_of("lane")?[3], vec![1, 0]);
/// assert_eq!(l.in_dim_size("warp")?, 4);
/// // f32 [128]: 4 elements a thread, one warp covers it.
/// assert_eq!(store_layout(&[128], 32, 4)?.in_dim_size("warp")?, 1);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn store_layout(
    shape: &[u64],
    element_bits: u32,
    num_warps: u32,
) -> Result<LinearLayout, LayoutError> {
    let rank = shape.len();
    let contiguous = shape.last().copied().unwrap_or(1).max(1);
    let vector = (128 / u64::from(element_bits.max(1))).clamp(1, contiguous);
    let mut size_per_thread = vec![1u64; rank];
    if let Some(s) = size_per_thread.last_mut() {
        *s = vector;
    }
    // Lanes: fastest dim first; what the tile cannot hold goes to the slowest dim.
    let mut threads_per_warp = vec![1u64; rank];
    let mut lanes = WARP;
    for (t, (&size, &s)) in threads_per_warp
        .iter_mut()
        .zip(shape.iter().zip(&size_per_thread))
        .rev()
    {
        *t = lanes.min((size / s.max(1)).max(1));
        lanes /= *t;
    }
    if let Some(t) = threads_per_warp.first_mut() {
        *t *= lanes;
    }
    // Warps: slowest dim first, and no more than the tile fills.
    let elements: u64 = shape.iter().product();
    let mut warps = (elements / (vector * WARP)).clamp(1, u64::from(num_warps.max(1)));
    let mut warps_per_cta = vec![1u64; rank];
    for ((w, &size), (&s, &t)) in warps_per_cta
        .iter_mut()
        .zip(shape)
        .zip(size_per_thread.iter().zip(&threads_per_warp))
    {
        *w = warps.min((size / (s * t).max(1)).max(1));
        warps /= *w;
    }
    if let Some(w) = warps_per_cta.first_mut() {
        *w *= warps;
    }
    Blocked {
        size_per_thread: narrow(&size_per_thread),
        threads_per_warp: narrow(&threads_per_warp),
        warps_per_cta: narrow(&warps_per_cta),
        order: (0..rank).rev().collect(),
        cga_layout: vec![],
    }
    .to_linear_layout(shape)
}

/// Counts of at most `32 × 1024`, as `u32`.
fn narrow(v: &[u64]) -> Vec<u32> {
    v.iter()
        .map(|&x| u32::try_from(x).unwrap_or(u32::MAX))
        .collect()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_lanes_and_warps_cover_the_tile() {
        let l = store_layout(&[64, 64], 16, 4).unwrap();
        assert!(l.is_surjective());
        assert_eq!(l.in_dim_size("register").unwrap(), 32);
        let l = store_layout(&[128, 128], 8, 4).unwrap();
        assert_eq!(l.bases_of("register").unwrap().len(), 7); // 16 per vector × 8 rows
                                                              // Tiny: 8 f32 elements, lanes past the tile broadcast.
        let l = store_layout(&[8], 32, 4).unwrap();
        assert_eq!(l.in_dim_size("warp").unwrap(), 1);
        assert_eq!(l.bases_of("lane").unwrap()[1], vec![0]);
    }
}
