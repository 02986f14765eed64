//! The shared-memory address emitter: a register layout, an [`AddressMap`] in shared memory
//! and an [`Access`](crate::access::Access) become the `ld/st.shared` instructions of every
//! thread, with the address arithmetic an expert would write by hand.
//!
//! `addr(i, x) = smem + B(i) + bytes·E(x)`, and for the register layout `x = L(reg, lane,
//! warp)`, so `cvt = L ∘ E` gives every (register, thread) its offset. Being GF(2)-linear it
//! splits into
//!
//! * a per-thread base `T(tid)` ([`TidLinear`]): lane and warp are bit-slices of `%tid.x`;
//!   bits moved by the same shift (one bit-diagonal) cost one shift and one mask, and the
//!   diagonals are XORed with `lop3` (which also absorbs the masks);
//! * a per-access constant `C`: its bits outside every bit `T` can set become the `[addr+imm]`
//!   immediate (0 instructions), the others one `xor` per distinct value;
//! * the buffer part `B(i)`, in the immediate for a constant index, `mad.lo` per mode for a
//!   run-time one (or TLX's reindexing, for comparison) — see [`buffer`](self) below;
//! * vectors: registers holding an aligned run of consecutive elements move together as
//!   `ld/st.shared.v2/.v4.b32` (sub-word elements packed with `bfi`, unpacked with `bfe`);
//! * `ldmatrix`/`stmatrix` (`.x1/.x2/.x4`, `.trans`) for 16-bit elements whose 8 × 8
//!   matrices of 16-byte rows sit in the layouts exactly as those instructions deal them
//!   out, when that takes fewer instructions.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`SmemPlan`], [`PlannedAccess`], [`VectorShape`] | the analysis: thread base, vectors, constants | `smem/plan.rs` |
//! | [`TidLinear`], [`Diagonal`] | a GF(2)-linear function of `%tid.x` and its instructions | `smem/thread.rs` |
//! | matrix path | when `ldmatrix`/`stmatrix` apply, and their row addresses | `smem/matrix.rs` |
//! | buffer part | constant, explicit mixed-radix, TLX reindex | `smem/buffer.rs` |
//! | [`SmemContext`], [`SmemPlan::emit`], [`Emitted`] | the PTX | `smem/emit.rs` |
//! | [`kernels`] | whole test kernels: tile round trips and address dumps | `smem/kernels.rs` |
//! | [`Rounds`] | a conversion split into rounds through a bounded scratch | `smem/rounds.rs` |
//! | [`optimal_scratch`], [`Scratch`] | the scratch layout of a conversion, chosen as Triton 3.9 does | `smem/scratch.rs` |
//! | [`SmemError`] | why an access cannot be emitted | `smem/error.rs` |
//!
//! ```
//! use codegen::access::{Access, BufferIndex, BufferLowering};
//! use codegen::ptx::{Builder, Role, Target};
//! use codegen::smem::{SmemContext, SmemPlan};
//! use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
//! // Store a 128 × 64 bf16 tile held 8-wide by 4 warps into a 128B-swizzled buffer 1 of 2.
//! let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
//!     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[128, 64])?;
//! let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
//! let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(2, 16384)])?, 16, &enc, &[128, 64])?;
//! let plan = SmemPlan::new(&map, &regs, Access::store(16), BufferLowering::Explicit)?;
//!
//! let mut b = Builder::new("store_tile", Target::Sm90a)?;
//! b.extern_shared("smem", 1024)?;
//! let values = b.with_role(Role::Data, |b| (0..64).map(|v| b.mov(codegen::ptx::RegType::B32, v)).collect::<Result<Vec<_>, _>>())?;
//! let mut ctx = SmemContext::new(&mut b, "smem")?;
//! let out = plan.emit(&mut b, &mut ctx, BufferIndex::Const(1), &values)?;
//! // 8 × st.shared.v4.b32 [%r+imm]: the thread base (shl, shl, lop3) and one add.
//! assert_eq!((out.accesses.len(), out.address_alu), (8, 4));
//! assert_eq!(out.accesses[1].address.offset, 16384 + 2048);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod buffer;
mod emit;
mod error;
pub mod kernels;
mod matrix;
mod plan;
mod rounds;
mod scratch;
mod thread;
mod words;

pub use emit::{Emitted, EmittedAccess, SmemContext};
pub use error::SmemError;
pub use plan::{PlannedAccess, SmemPlan, VectorShape};
pub use rounds::Rounds;
pub use scratch::{optimal_scratch, scratch_candidates, Scratch};
pub use thread::{Diagonal, TidLinear};
pub use words::Element;

#[doc(no_inline)]
pub use linear_layout::AddressMap;
