//! [`scales_copy_kernel`]: a whole sm_100a kernel that fills a shared scales buffer from global
//! memory, copies it into tensor memory through a [`TmemCopyPlan`] and reads every lane back,
//! for the interpreter, ptxas and the GPU.

use super::copy::TmemCopyPlan;
use super::emit::{thread_sync, TmemContext};
use super::error::TmemError;
use crate::ptx::{
    Address, Builder, CmpOp, DataType, Guard, IntType, Kernel, ParamType, Role, StateSpace, Target,
    TmemShape, Width,
};

/// The copy kernel's source parameter (`.u64`): the shared buffer's bytes.
pub const SRC_PARAM: &str = "src";
/// The shared scales buffer the copy kernel declares.
pub const SCALES_BUFFER: &str = "scales";
/// The mbarrier the copy kernel's commit arrives on.
pub const COPY_BARRIER: &str = "cp_bar";

/// A kernel `name(.param .u64 src, .param .u64 out)` for 128 threads:
/// 1. allocates the plan's columns, copies `smem_bytes` bytes from `src` into
///    `.shared .align 128 .b8 scales[smem_bytes]` (one `.b32` per thread per 512 bytes), each
///    thread then `fence.proxy.async`; thread 0 initialises the mbarrier; `bar.sync`;
/// 2. thread 0 issues the plan's copies and `tcgen05.commit`s them to the mbarrier; every
///    thread waits for phase 0 (`try_wait` loop) and `tcgen05.fence::after_thread_sync`;
/// 3. each warp loads its 32 lanes (`32x32b.x4` per copy) and thread `t` writes column `c`
///    to `out[4·(t·columns + c)]`; the columns are freed.
///
/// Errors: `smem_bytes` not a positive multiple of 512 ([`TmemError::CopyShapes`]); emission
/// errors.
///
/// ```
/// use codegen::interp::{run, Config, ParamValue};
/// use codegen::ptx::parse;
/// use codegen::tmem::{scales_copy_kernel, TmemCopyPlan};
/// use linear_layout::{AddressMap, BufferMap, LinearLayout, families::TensorMemoryScales};
/// let smem = LinearLayout::identity_1d(512, "offset", "flat")?
///     .reshape_outs(&[("dim3", 16), ("dim2", 32), ("dim1", 1), ("dim0", 1)])?
///     .transpose_outs(&["dim0", "dim1", "dim2", "dim3"])?;
/// let map = AddressMap::shared(BufferMap::new(0, &[])?, 8, &smem)?;
/// let plan = TmemCopyPlan::for_scales(&map, &[1, 1, 32, 16], &TensorMemoryScales::default(), &[128, 4])?;
/// let k = parse(&scales_copy_kernel("cp", &plan, 512)?.to_string())?;
/// let src: Vec<u8> = (0..512u32).map(|i| (i * 7 % 251) as u8).collect();
/// let out = run(&k, &Config::new(128), &[ParamValue::Buffer(src.clone()), ParamValue::Buffer(vec![0; 128 * 4 * 4])])?;
/// // Lane 97 is row 1 of the fourth quarter: its 16 bytes are source row 1.
/// assert_eq!(out.buffers[1][97 * 16..98 * 16], src[16..32]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scales_copy_kernel(
    name: &str,
    plan: &TmemCopyPlan,
    smem_bytes: u32,
) -> Result<Kernel, TmemError> {
    if smem_bytes == 0 || smem_bytes % 512 != 0 {
        return Err(TmemError::CopyShapes {
            smem: vec![u64::from(smem_bytes)],
            tmem: vec![],
            reason: "the copy kernel moves the buffer in 512-byte steps".into(),
        });
    }
    let mut b = Builder::new(name, Target::Sm100a)?;
    b.reqntid(128)?;
    b.param(SRC_PARAM, ParamType::U64)?;
    b.param(super::OUT_PARAM, ParamType::U64)?;
    b.shared(SCALES_BUFFER, 128, smem_bytes)?;
    b.shared(COPY_BARRIER, 8, 8)?;
    let ctx = TmemContext::alloc(&mut b, plan.columns())?;
    let (smem, bar, first) = b.with_role(Role::Control, |b| {
        let smem = b.shared_address(SCALES_BUFFER)?;
        let bar = b.shared_address(COPY_BARRIER)?;
        let first = b.setp(CmpOp::Eq, IntType::U32, ctx.tid, 0)?;
        Ok::<_, crate::ptx::PtxError>((smem, bar, first))
    })?;
    b.with_role(Role::Data, |b| {
        let src = b.global_pointer(SRC_PARAM)?;
        let word = b.shl(Width::B32, ctx.tid, 2)?;
        let wide = b.mul_wide_u32(ctx.tid, 4)?;
        let from = b.add(IntType::U64, src, wide)?;
        let to = b.add(IntType::U32, smem, word)?;
        for step in 0..smem_bytes / 512 {
            let at = (512 * step) as i32;
            let v = b.ld(StateSpace::Global, DataType::B32, 1, Address::new(from, at))?;
            b.st(StateSpace::Shared, DataType::B32, Address::new(to, at), &v)?;
        }
        b.fence_proxy_async()
    })?;
    b.guarded(Guard::when(first), |b| b.mbarrier_init(bar, 1))?;
    b.bar_sync(0)?;
    plan.issue(&mut b, smem, ctx.base, first)?;
    b.guarded(Guard::when(first), |b| b.tcgen05_commit(bar))?;
    b.mbarrier_wait(bar, 0)?;
    b.tcgen05_fence_after_thread_sync()?;
    let columns = plan.columns();
    b.with_role(Role::Data, |b| {
        let lanes = b.shl(Width::B32, ctx.warp, 21)?;
        let taddr = b.add(IntType::U32, ctx.base, lanes)?;
        let mut regs = Vec::new();
        for c in plan.copies() {
            regs.extend(b.tcgen05_ld(
                TmemShape::S32x32b,
                4,
                Address::new(taddr, c.column as i32),
            )?);
        }
        b.tcgen05_wait_ld()?;
        let out = b.global_pointer(super::OUT_PARAM)?;
        let row = b.mul_wide_u32(ctx.tid, 4 * columns)?;
        let p = b.add(IntType::U64, out, row)?;
        for (k, r) in (0i32..).zip(&regs) {
            b.st(
                StateSpace::Global,
                DataType::B32,
                Address::new(p, 4 * k),
                &[*r],
            )?;
        }
        Ok::<_, crate::ptx::PtxError>(())
    })?;
    thread_sync(&mut b)?;
    ctx.free(&mut b)?;
    b.ret()?;
    Ok(b.finish()?)
}
