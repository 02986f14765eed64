//! # alias-alloc
//!
//! TLX's `storage_alias_spec` / `local_alloc(reuse=…)` / `reuse_group` / `set_buffer_overlap`
//! for shared and tensor memory, lowered by TLX's reindexing or by explicit address maps built
//! on [`linear_layout`]. The planner arrives with its own issue; this crate currently holds no
//! items, so that the workspace has its final shape from the start.
