//! Performance analyses of layouts: shared-memory bank conflicts ([`bank_conflicts`](fn@bank_conflicts)) and the
//! vectorisation helpers they rest on ([`largest_vectorisation`], [`ColumnAction`]).
//!
//! ```
//! use linear_layout::analysis::{bank_conflicts, DEFAULT_NUM_BANKS};
//! use linear_layout::LinearLayout;
//! // 32 lanes × 4 contiguous f32 registers, stored row-major: one 128-bit row per lane.
//! let reg = LinearLayout::from_bases(&[
//!     ("register", vec![vec![0, 1], vec![0, 2]]),
//!     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
//! ], &[("dim0", 32), ("dim1", 4)], true)?;
//! let smem = LinearLayout::from_bases(&[("offset", vec![
//!     vec![0, 1], vec![0, 2], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
//!     &[("dim0", 32), ("dim1", 4)], true)?;
//! assert_eq!(bank_conflicts(&reg, &smem, 32, DEFAULT_NUM_BANKS)?.conflicts, 0);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

pub mod bank_conflicts;
pub mod vectorisation;

pub use bank_conflicts::{
    bank_conflicts, bank_conflicts_at_vector, warp_request, widest_conflict_free_vector,
    BankConflicts, WarpRequest, BANK_BITS, DEFAULT_NUM_BANKS, MAX_WARP_REQUEST_LANES,
};
pub use vectorisation::{
    action_remove_broadcasted_regs, largest_vectorisation, reg_perm_for_divide_left, ColumnAction,
    MAX_VECTOR_BITS,
};
