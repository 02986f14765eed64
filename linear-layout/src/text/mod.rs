//! Text forms of a layout: Triton's JSON `from_bases` shape, Triton's `toString`, and the MLIR
//! attribute `#ttg.linear<{…}>`.

pub mod attr;
pub mod display;
pub mod json;
pub mod mlir;
