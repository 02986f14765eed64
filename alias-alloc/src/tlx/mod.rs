//! `TlxCompatible` mode: fbtriton 3.7.4's `tlx-storage-alias-lowering`, step by step and
//! quirk for quirk (see `shared/reference/tlx-storage-alias.md`).
//!
//! 1. [`size`]: the backing of each spec;
//! 2. [`offsets`]: `(offset, units between buffer groups, group size)` per tree leaf;
//! 3. [`materialize`]: divisibility checks, scale/offset, the expanded alias shape and the
//!    index rewrite.

pub mod materialize;
pub mod offsets;
pub mod size;
