//! # codegen
//!
//! PTX for swizzled shared-memory and tensor-memory addresses from `linear-layout` address
//! maps. The emitter arrives with its own issue; this crate currently holds no items, so that
//! the workspace has its final shape from the start.
