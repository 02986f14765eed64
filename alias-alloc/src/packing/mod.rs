//! Liveness-aware packing (dynamic storage allocation): place buffers whose lifetimes are
//! known at compile time in one arena, so that buffers live at the same time never overlap
//! and buffers that are not share bytes at any offset.
//!
//! | module | what it is |
//! |---|---|
//! | [`problem`] | buffers with half-open lifetimes, sizes, alignments, optional fixed offsets; a capacity |
//! | [`csv`] | MiniMalloc's CSV, read and written |
//! | [`bound`] | lower bounds: the peak of concurrently live units |
//! | [`error`] | [`PackError`]: bad input, naming the buffer or the CSV line |
//!
//! ```
//! use alias_alloc::packing::{Buffer, Problem};
//! let p = Problem::new(
//!     vec![Buffer::new("a", 0, 2, 64)?, Buffer::new("b", 2, 4, 32)?, Buffer::new("c", 2, 4, 32)?],
//!     Some(64),
//! )?;
//! assert!(p.conflicts(1, 2));
//! assert!(!p.conflicts(0, 1));
//! # Ok::<(), alias_alloc::packing::PackError>(())
//! ```

pub mod bound;
pub mod csv;
pub mod error;
pub mod problem;

pub use error::PackError;
pub use problem::{Buffer, Placement, Problem};
