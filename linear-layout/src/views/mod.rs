//! Pictures of layouts: Triton's ASCII views ([`layout_view`], [`distributed_view`],
//! [`shared_view`]) and SVG drawings ([`svg`]), in the house style every SVG of the workspace
//! shares ([`style`]).
//!
//! ```
//! use linear_layout::views::{distributed_view, svg};
//! use linear_layout::LinearLayout;
//! // 4 lanes, 2 registers each, over a 2×4 tile.
//! let l = LinearLayout::from_bases(&[
//!     ("register", vec![vec![0, 1]]), ("lane", vec![vec![0, 2], vec![1, 0]]),
//! ], &[("dim0", 2), ("dim1", 4)], true)?;
//! assert_eq!(distributed_view(&l, false)?, "[[T0:0, T0:1, T1:0, T1:1]\n[ T2:0, T2:1, T3:0, T3:1]]\n");
//! let picture = svg::tensor_svg(&l)?;
//! assert_eq!(picture.matches("<rect").count(), 8);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

pub mod style;
pub mod svg;
pub mod tensor_view;

pub use tensor_view::{distributed_view, layout_view, shared_view, MAX_VIEW_CELLS};
