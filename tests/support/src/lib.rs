//! # test-support
//!
//! What several test trees of the workspace share, in one place instead of `#[path]` includes:
//!
//! | module | what it is | feature |
//! |---|---|---|
//! | [`golden`] | the one golden-file helper: compare, unified diff, `BLESS=1` rewrites | — |
//! | [`cli`] | runs the real `linalias` binary as a user does | — |
//! | `pipelines` | small random producer/consumer pipelines with aliased buffers, unrolled into hazard-check traces | `alloc` |
//! | `random_tree` | random valid storage-alias programs (property tests, planning bench) | `alloc` |
//! | [`dsa_cases`] | the public DSA packing cases with their known peaks | — |
//! | [`svg`] | whether a picture can be read: text inside its view box, a size cap | — |
//! | `smem` | SMEM test kernels: run the printed text, check every access against the `AddressMap` | `kernels` |
//! | `tmem` | TMEM round-trip kernels and their checks | `kernels` |
//! | `tlx_kernels` | the real TLX kernels' TTGIR, and a lowered module's index arithmetic evaluated on the module model | `alloc` |
//!
//! Test code: a failed check panics, so the panic lints are off here.

#![allow(clippy::restriction)]

pub mod cli;
pub mod dsa_cases;
pub mod golden;
pub mod svg;

#[cfg(feature = "alloc")]
pub mod pipelines;
#[cfg(feature = "alloc")]
pub mod random_tree;
#[cfg(feature = "kernels")]
pub mod smem;
#[cfg(feature = "alloc")]
pub mod tlx_kernels;
#[cfg(feature = "kernels")]
pub mod tmem;
