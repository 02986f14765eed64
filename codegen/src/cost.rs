//! The shared-memory cost model: from the lanes' actual addresses of every warp-level shared
//! access a kernel executes (the [interpreter](crate::interp)'s trace), the wavefronts it takes
//! and the instruction class the hardware counts it in, summed per launch into the six
//! counters Nsight Compute reports. Its rules are the H100's, read off recorded counters
//! (`codegen/tests/data/gpu/h100-shared-memory-counters.json`, `docs/gpu-counters.md`) and
//! replayed against them in the tests.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`access_cost`], [`SharedAccessClass`], [`LaneAccess`], [`WavefrontCost`], [`AccessError`] | one access: phases, broadcast, bank depth | `cost/wavefront.rs` |
//! | [`SharedCounters`] | the six counters under their metric names | `cost/counters.rs` |
//! | [`dead_shared_loads`] | loads ptxas deletes (nothing reads them) | `cost/liveness.rs` |
//! | [`kernel_cost`], [`run_cost`], [`KernelCost`], [`CostError`] | a launch, per statement and in total | `cost/kernel.rs` |
//! | [`copy_cost`], [`CopyCost`] | a register ↔ shared copy at the layout level: Triton's figure beside the hardware's | `cost/layout.rs` |
//! | [`fewest_wavefronts_scratch`], [`ScratchChoice`] | a conversion's scratch chosen by the hardware's wavefronts, beside Triton's pick | `cost/scratch.rs` |
//!
//! ```
//! use codegen::cost::run_cost;
//! use codegen::ptx::DataType;
//! use codegen::smem::kernels::{Probe, ProbeAccess};
//! // A 128-bit load whose lane pairs share an address: 4 wavefronts, 2 of them conflicts.
//! let p = Probe { access: ProbeAccess::Load { ty: DataType::B32, vec: 4 }, lane_bytes: [0, 32, 64, 128, 256], base: 0, lanes: 32, scale: None };
//! let cost = run_cost(&p.kernel("p")?, &p.config(), &p.params())?;
//! assert_eq!(cost.counters.values(), [1, 0, 4, 0, 2, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod counters;
mod kernel;
mod layout;
mod liveness;
mod scratch;
mod wavefront;

pub use counters::SharedCounters;
pub use kernel::{kernel_cost, run_cost, CostError, KernelCost, StatementCost};
pub use layout::{copy_cost, CopyCost};
pub use liveness::dead_shared_loads;
pub use scratch::{fewest_wavefronts_scratch, ScratchChoice};
pub use wavefront::{
    access_cost, AccessError, LaneAccess, SharedAccessClass, WavefrontCost, SHARED_BANKS,
};
