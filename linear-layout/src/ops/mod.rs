//! Operations on [`LinearLayout`](crate::LinearLayout), one concept per file.

pub mod apply;
pub mod compose;
pub mod divide;
mod gfni;
pub mod invert;
pub(crate) mod packed;
pub mod product;
pub mod reshape;
pub mod sublayout;
