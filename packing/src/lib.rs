//! # packing
//!
//! Liveness-aware packing (dynamic storage allocation): place buffers whose lifetimes are
//! known at compile time in one arena, so that buffers live at the same time never overlap
//! and buffers that are not share bytes at any offset.
//!
//! | module | what it is |
//! |---|---|
//! | [`problem`] | buffers with half-open lifetimes, sizes, alignments, optional fixed offsets; a capacity |
//! | [`csv`] | MiniMalloc's CSV, read and written |
//! | [`bound`] | lower bounds: the peak of concurrently live units, alignment- and fixed-offset-aware |
//! | [`error`] | [`PackError`]: bad input, naming the buffer or the CSV line |
//! | [`free_space`] | the free gaps among disjoint occupied ranges (the sweeps' state) |
//! | [`time_index`] | which placed buffers are live during a lifetime (output-sensitive) |
//! | [`greedy`] | first and best fit in program order (PTOAS-style sweeps) and best fit by size (TFLite) |
//! | [`check`] | the independent checker of placements: every [`check::Violation`] |
//! | `generator` | seeded GPU-shaped instances (SMEM pipelines, TMEM) and perfect packings (feature `generator`) |
//! | [`chart`] | a placement as an SVG time × offset chart |
//! | [`exact`] | the exact solver: [`exact::fits`] (decision) and [`exact::minimize`] (anytime optimum) |
//! | [`diagnose`] | why a problem does not fit: peak point, live set, lower bound, smallest conflicting set |
//!
//! ```
//! use packing::{Buffer, Problem};
//! let p = Problem::new(
//!     vec![Buffer::new("a", 0, 2, 64)?, Buffer::new("b", 2, 4, 32)?, Buffer::new("c", 2, 4, 32)?],
//!     Some(64),
//! )?;
//! assert!(p.conflicts(1, 2));
//! assert!(!p.conflicts(0, 1));
//! # Ok::<(), packing::PackError>(())
//! ```

pub mod bound;
pub mod chart;
pub mod check;
pub mod csv;
pub mod diagnose;
pub mod error;
pub mod exact;
pub mod free_space;
mod gap_tree;
#[cfg(feature = "generator")]
pub mod generator;
pub mod greedy;
mod offset_order;
pub mod problem;
#[cfg(test)]
mod test_rng;
pub mod time_index;

pub use error::PackError;
pub use problem::{Buffer, Placement, Problem};
