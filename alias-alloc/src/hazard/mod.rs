//! The hazard check: is every pair of accesses to aliased cells ordered by the kernel's
//! synchronisation? The semantics are stated in `docs/hazard-check.md` before any code.
//!
//! | concept | file |
//! |---|---|
//! | a kernel as timelines of events ([`Trace`], [`TraceBuilder`], [`Cells`]) | `trace.rs` |
//! | a set of events ([`EventSet`]) | `bitset.rs` |
//! | one execution, step by step: the mbarrier's rules ([`Machine`]) | `machine.rs` |
//! | every execution of a small trace: the oracle ([`explore`]) | `explore.rs` |
//! | a state's 128-bit digest, remembered instead of it | `fingerprint.rs` |
//! | a loop read as the loop run forever, from a few trip counts ([`Looped`]) | `looped.rs` |
//! | every execution of it at every trip count at once ([`EveryTripCount`]) | `every_trip_count.rs` |
//! | an mbarrier as those explorers hold it, with what its phases carry (`KnownBarrier`) | `known_barrier.rs` |
//! | the ops that need not be interleaved: persistent sets (`Footprints`) | `persistent.rs` |
//! | what the ops outside a persistent set can do to each barrier (`Outside`) | `outside.rs` |
//! | a kernel proved or refuted at every trip count, or a persistent one at every tile count ([`TripCountProof`]) | `trip_count_proof.rs` |
//! | a kernel's trace cut into the laps of its loop ([`kernel_laps`]) | `kernel_laps.rs` |
//! | a persistent kernel's trace cut into the K laps of its tiles ([`tile_laps`]) | `tile_laps.rs` |
//! | its K laps as a few kinds, one per key, read from several launches ([`LapModel`]) | `lap_model.rs` |
//! | every execution of them at every sequence of tiles at once ([`EveryTileLength`]) | `every_tile_length.rs` |
//! | a kernel whose loops run one after another cut at its joins ([`phases`]) | `phases.rs` |
//! | such a kernel proved or refuted phase by phase ([`PhasedProof`]) | `phased_proof.rs` |
//! | the relation every execution has ([`happens_before`]) | `happens_before.rs` |
//! | a verdict per conflicting pair, witnesses replayed ([`check`]) | `verdict.rs` |
//! | barriers left in the middle of a phase ([`open_phases`]) | `ledger.rs` |
//! | a TTGIR kernel run on its integer arithmetic into a trace ([`read_kernel`]) | `read.rs` |
//! | the bytes a shared-memory subslice covers ([`subslice_bytes`]) | `subslice.rs` |
//! | the TMEM cells one warp group of a partition touches ([`tmem_group_cells`]) | `warp_group.rs` |
//! | an execution drawn as swimlanes ([`swimlanes`]) | `swimlanes.rs` |
//! | the check at every residue of the trip counts ([`TripCounts`], [`SweepReport`]) | `sweep.rs` |
//! | what is refused ([`HazardError`]) | `error.rs` |
//!
//! ```
//! use alias_alloc::hazard::{check, explore, Cells, Space, TraceBuilder};
//! // A one-slot ring: the producer fills the slot, the consumer reads it and frees it.
//! let mut t = TraceBuilder::new();
//! let (p, c) = (t.partition("producer"), t.partition("consumer"));
//! let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 1)?);
//! let slot = Cells::range(Space::Smem, 0, 128);
//! for i in 0..2u8 {
//!     t.wait(p, "wait empty", empty, 1 - i % 2)?; // parity 1 passes on a fresh barrier
//!     t.access(p, "local_store", slot.clone(), true)?;
//!     t.arrive(p, "arrive full", full, 1)?;
//!     t.wait(c, "wait full", full, i % 2)?;
//!     t.access(c, "local_load", slot.clone(), false)?;
//!     t.arrive(c, "arrive empty", empty, 1)?;
//! }
//! let trace = t.build()?;
//! assert!(check(&trace).all_verified());
//! assert!(explore(&trace, 100_000)?.races.is_empty());
//! # Ok::<(), alias_alloc::hazard::HazardError>(())
//! ```

mod bitset;
mod check_report;
mod error;
mod every_tile_length;
mod every_trip_count;
mod explore;
mod fingerprint;
mod happens_before;
mod kernel_laps;
mod known_barrier;
mod lap_model;
mod ledger;
mod looped;
mod machine;
mod outside;
mod persistent;
mod phased_proof;
mod phases;
mod read;
mod subslice;
mod sweep;
mod swimlanes;
mod tile_laps;
mod trace;
mod trip_count_proof;
mod verdict;
mod warp_group;

pub use bitset::EventSet;
pub use check_report::CheckReport;
pub use error::HazardError;
pub use every_tile_length::{EveryTileLength, LapOpId, WINDOW_LAPS};
pub use every_trip_count::{EveryTripCount, DRIFT_PERIODS};
pub use explore::{explore, explore_reduced, random_run, sample, Exploration};
pub use happens_before::{happens_before, HappensBefore};
pub use kernel_laps::{kernel_laps, KernelLaps};
pub use lap_model::{LapLane, LapModel, LapOp};
pub use ledger::{open_phases, OpenPhase};
pub use looped::{Looped, Run};
pub use machine::{BarrierState, Fault, Machine};
pub use phased_proof::PhasedProof;
pub use phases::{phases, Phases};
pub use read::{read_kernel, KernelReader, KernelTrace, Origin, ReadOptions, Steps};
pub use subslice::subslice_bytes;
pub use sweep::{SweepReport, TripCounts};
pub use swimlanes::{swimlanes, Picture, WINDOW};
pub use tile_laps::{tile_laps, LapKey, LapKinds, TileLaps, TilePlace};
pub use trace::{
    Barrier, BarrierId, Cells, Event, EventId, EventKind, Space, SyncGroup, Timeline, TimelineId,
    TimelineKind, Trace, TraceBuilder, CLUSTER_SYNC, PARTITION_SYNC,
};
pub use trip_count_proof::{Counted, TripCountProof, PROOF_BUDGET};
pub use verdict::{
    check, Hang, Proof, Report, UnknownReason, Verdict, Witness, RANDOM_RUNS, REPLAY_BUDGET,
    SEARCH_BUDGET, SEARCH_EVENTS,
};
pub use warp_group::{tmem_group_cells, WARPS_PER_GROUP};
