//! Tensor-memory (TMEM) access code: from a TMEM [`AddressMap`](linear_layout::AddressMap), a
//! register layout and a `tcgen05` atom to `tcgen05.alloc`, the warp's address and the
//! `tcgen05.ld/st` messages, for a constant or run-time buffer index.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`TmemPlan`], [`TmemMessage`], [`WarpOffset`], [`alloc_columns`] | the register layout taken apart into messages | `tmem/plan.rs` |
//! | [`TmemContext`], [`TmemAddress`], [`thread_sync`] | allocation protocol, addresses, `ld`/`st` emission | `tmem/emit.rs` |
//! | [`roundtrip_kernel`], [`roundtrip_value`] | whole store-then-load test kernels | `tmem/kernel.rs` |
//! | [`TmemCopyPlan`], [`CpMessage`] | scales copied from shared memory with `tcgen05.cp` | `tmem/copy.rs` |
//! | [`scales_copy_kernel`] | fill shared scales, copy them, read TMEM back | `tmem/copy_kernel.rs` |
//! | [`TmemError`] | why a layout or an emission was refused | `tmem/error.rs` |
//!
//! The address of message `m` of buffer `i` for warp `w` is
//! `taddr = base + (32·(w%4) << 16) + warp offsets + B(i) + offset(m)`:
//!
//! | part | instructions |
//! |---|---|
//! | `base` | warp 0's `tcgen05.alloc` into a `.shared` word, fences around `bar.sync`, `ld.shared` (once per kernel) |
//! | `32·(w%4) << 16` | `bfi.b32 t, warp, base, 21, 2` (once per kernel and plan) |
//! | warp offsets (8 warps: lane 16, or columns) | `shr` + `mad.lo` (once) |
//! | `B(i)`, constant `i` | 0: folded into the immediates |
//! | `B(i)`, run-time `i` | `mad.lo` for the first mode, `shr` + `mad.lo` per further mode (per access) |
//! | `offset(m)`: message columns, lane 16 | 0: `[t+imm]` (ptxas folds it: `STTM tmem[UR+imm]`) |
//!
//! ```
//! use codegen::interp::{run, AccessKind, Config, Location, ParamValue};
//! use codegen::ptx::parse;
//! use codegen::access::IndexSource;
//! use codegen::tmem::{roundtrip_kernel, TmemPlan};
//! use linear_layout::{Address, AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
//! // FA's S: f32 128 × 128, two buffers at columns 0 and 128; buffer chosen at run time.
//! let tm = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
//! let s = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &tm, &[128, 128])?;
//! let plan = TmemPlan::for_tensor_memory(&s, &tm, &[128, 128], Tcgen05Atom::M32x32b, 4)?;
//! let kernel = parse(&roundtrip_kernel("s_roundtrip", &plan, &plan, IndexSource::Param)?.to_string())?;
//! let out = run(&kernel, &Config::new(128), &[ParamValue::Buffer(vec![0; 128 * 128 * 4]), ParamValue::U32(1)])?;
//! // Every stored cell is where the address map puts the element the register layout names.
//! for a in out.trace.iter() {
//!     if let (AccessKind::TmemStore { reg, .. }, Location::Tmem { lane, column }) = (a.kind, a.location) {
//!         let coords = plan.layout().apply(&[("register", u64::from(reg)), ("lane", u64::from(a.thread % 32)),
//!                                            ("warp", u64::from(a.thread / 32)), ("block", 0)])?;
//!         assert_eq!(s.address(1, &[coords[0].1, coords[1].1])?, Address::Tensor { lane, column });
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod copy;
mod copy_kernel;
mod emit;
mod error;
mod kernel;
mod plan;

pub use copy::{CpMessage, TmemCopyPlan};
pub use copy_kernel::{scales_copy_kernel, COPY_BARRIER, SCALES_BUFFER, SRC_PARAM};
pub use emit::{thread_sync, TmemAddress, TmemContext, TMEM_SLOT};
pub use error::TmemError;
pub use kernel::{roundtrip_kernel, roundtrip_value, BUFFER_PARAM, OUT_PARAM};
pub use plan::{alloc_columns, shape_of, TmemMessage, TmemPlan, WarpOffset};
