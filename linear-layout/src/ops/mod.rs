//! Operations on [`LinearLayout`](crate::LinearLayout), one concept per file.

pub mod apply;
pub mod compose;
pub mod divide;
pub mod invert;
pub mod product;
pub mod reshape;
pub mod sublayout;
