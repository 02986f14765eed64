//! [`roundtrip_kernel`]: a whole sm_100a kernel that stores a tile through one [`TmemPlan`]
//! and loads it back through another, for the interpreter, ptxas and goldens.

use linear_layout::LinearLayout;

use super::emit::{thread_sync, TmemContext};
use super::error::TmemError;
use super::plan::{alloc_columns, TmemPlan};
use crate::access::{BufferIndex, IndexSource};
use crate::ptx::{
    Address, Builder, DataType, IntType, Kernel, ParamType, PtxError, Reg, RegType, Role,
    StateSpace, Target, Width,
};

/// The round-trip kernel's output parameter (`.u64`, a global buffer).
pub const OUT_PARAM: &str = "out";
/// The round-trip kernel's run-time buffer index parameter (`.u32`), with [`IndexSource::Param`].
pub const BUFFER_PARAM: &str = "buffer";

/// The linear (row-major) index of each basis of `dim`: out-dims concatenated, the last one
/// lowest. Out-dims are powers of two, so this is linear over GF(2).
fn linear_indices(layout: &LinearLayout, dim: &str) -> Result<Vec<u64>, TmemError> {
    let outs = layout.out_dims();
    let mut shifts = vec![0u32; outs.len()];
    let mut shift = 0u32;
    for (s, (_, size)) in shifts.iter_mut().zip(&outs).rev() {
        *s = shift;
        shift = shift.saturating_add(size.trailing_zeros());
    }
    Ok(layout
        .bases_of(dim)?
        .into_iter()
        .map(|basis| {
            basis
                .iter()
                .zip(&shifts)
                .fold(0u64, |acc, (&v, &s)| acc | v.checked_shl(s).unwrap_or(0))
        })
        .collect())
}

/// The value register `k` of thread `(lane, warp)` holds in a round trip through `plan`: the
/// linear (row-major) indices of its `32 / element_bits` elements (register
/// `k · 32/element_bits + e` of the plan's layout), element `e` in bits `e · element_bits ..`.
/// Errors: [`TmemError::IndexWidth`] when the tile has more elements than an element can
/// count; layout errors for inputs out of range.
///
/// ```
/// use codegen::tmem::{roundtrip_value, TmemPlan};
/// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
/// let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 16, &tm, &[128, 64])?;
/// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 64], Tcgen05Atom::M32x32b, 4)?;
/// // Thread 33 (warp 1, lane 1) is row 33; its register 2 holds columns 4 and 5.
/// assert_eq!(roundtrip_value(&plan, 2, 1, 1)?, (33 * 64 + 4) | (33 * 64 + 5) << 16);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn roundtrip_value(plan: &TmemPlan, k: u32, lane: u32, warp: u32) -> Result<u32, TmemError> {
    let layout = plan.layout();
    let bits = plan.element_bits();
    let pack = 32u32.checked_div(bits).unwrap_or(1).max(1);
    let mut v = 0u64;
    for e in 0..pack {
        let mut inputs = vec![
            ("register", u64::from(k) * u64::from(pack) + u64::from(e)),
            ("lane", u64::from(lane)),
            ("warp", u64::from(warp)),
        ];
        if layout.has_in_dim("block") {
            inputs.push(("block", 0));
        }
        let coords = layout.apply(&inputs)?;
        let mut index = 0u64;
        for ((_, c), (_, size)) in coords.iter().zip(layout.out_dims()) {
            index = index.wrapping_mul(size).wrapping_add(*c);
        }
        v |= index << (e * bits);
    }
    Ok(v as u32)
}

/// Emits, tagged [`Role::Data`], each thread's [`roundtrip_value`]s: the thread's part
/// `T = ⊕ bit_j(tid) · B_j` once (`bfe`, `mul.lo`, `xor` per tid bit), then one `xor` with a
/// constant per register.
fn emit_values(b: &mut Builder, plan: &TmemPlan, tid: Reg) -> Result<Vec<Reg>, TmemError> {
    let layout = plan.layout();
    let bits = plan.element_bits();
    let pack = 32u32.checked_div(bits).unwrap_or(1).max(1);
    let elements: u64 = layout.out_dims().iter().map(|(_, s)| *s).product();
    if u128::from(elements) > 1u128 << bits {
        return Err(TmemError::IndexWidth {
            elements,
            element_bits: bits,
        });
    }
    // Every element of a register holds the thread's part once.
    let spread: u64 = (0..pack).map(|e| 1u64 << (e * bits)).sum();
    let mut thread = linear_indices(layout, "lane")?;
    thread.extend(linear_indices(layout, "warp")?);
    let regs = linear_indices(layout, "register")?;
    let constant = |x: u64| -> u64 {
        (0u32..)
            .zip(&regs)
            .filter(|(j, _)| x >> j & 1 == 1)
            .fold(0, |acc, (_, r)| acc ^ r)
    };
    let constants: Vec<u64> = (0..u64::from(plan.registers()))
        .map(|k| {
            (0..u64::from(pack)).fold(0, |acc, e| {
                acc | constant(k * u64::from(pack) + e) << (e * u64::from(bits))
            })
        })
        .collect();
    Ok(b.with_role(Role::Data, |b| {
        let mut t: Option<Reg> = None;
        for (j, &base) in (0u32..).zip(&thread) {
            if base == 0 {
                continue;
            }
            let bit = b.bfe(tid, j, 1)?;
            let term = b.mul_lo(IntType::U32, bit, base.wrapping_mul(spread) as u32)?;
            t = Some(match t {
                None => term,
                Some(acc) => b.xor(Width::B32, acc, term)?,
            });
        }
        let t = match t {
            Some(t) => t,
            None => b.mov(RegType::B32, 0)?,
        };
        constants
            .iter()
            .map(|&c| b.xor(Width::B32, t, c as u32))
            .collect::<Result<Vec<_>, PtxError>>()
    })?)
}

/// A kernel `name(.param .u64 out[, .param .u32 buffer])` for `32 · num_warps` threads that
/// allocates the columns both plans need ([`TmemContext::alloc`]), stores each thread's
/// [`roundtrip_value`]s through `store` to buffer `index`, waits, [`thread_sync`]s, loads buffer
/// `index` back through `load`, and writes load register `k` of thread `t` to
/// `out[k · threads + t]` (`.b32`), then frees the columns. With the same plan on both sides,
/// `out` holds the stored values; with another atom, `load`'s own [`roundtrip_value`]s.
///
/// Errors: [`TmemError::WarpMismatch`], [`TmemError::IndexWidth`], [`TmemError::ConstIndices`]
/// for other than one constant index, the plans' emission errors.
///
/// ```
/// use codegen::interp::{run, Config, ParamValue};
/// use codegen::ptx::parse;
/// use codegen::access::IndexSource;
/// use codegen::tmem::{roundtrip_kernel, roundtrip_value, TmemPlan};
/// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
/// let tm = TensorMemory { block_m: 128, block_n: 16, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let map = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32)])?, 32, &tm, &[128, 16])?;
/// let st = TmemPlan::for_tensor_memory(&map, &tm, &[128, 16], Tcgen05Atom::M32x32b, 4)?;
/// let ld = TmemPlan::for_tensor_memory(&map, &tm, &[128, 16], Tcgen05Atom::M16x256b, 4)?;
/// let k = parse(&roundtrip_kernel("rt", &st, &ld, IndexSource::Param)?.to_string())?;
/// let out = run(&k, &Config::new(128), &[ParamValue::Buffer(vec![0; 128 * 16 * 4]), ParamValue::U32(1)])?;
/// let at = 4 * (5 * 128 + 77); // register 5 of thread 77
/// let word = out.buffers[0].get(at..at + 4).ok_or("short output")?;
/// assert_eq!(u32::from_le_bytes(word.try_into()?), roundtrip_value(&ld, 5, 77 % 32, 77 / 32)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn roundtrip_kernel(
    name: &str,
    store: &TmemPlan,
    load: &TmemPlan,
    index: IndexSource,
) -> Result<Kernel, TmemError> {
    if store.num_warps() != load.num_warps() {
        return Err(TmemError::WarpMismatch {
            store: store.num_warps(),
            load: load.num_warps(),
        });
    }
    let threads = 32 * store.num_warps();
    let mut b = Builder::new(name, Target::Sm100a)?;
    b.reqntid(threads)?;
    b.param(OUT_PARAM, ParamType::U64)?;
    if index == IndexSource::Param {
        b.param(BUFFER_PARAM, ParamType::U32)?;
    }
    let ctx = TmemContext::alloc(&mut b, alloc_columns(&[store, load])?)?;
    let index = match index {
        IndexSource::Const(ref v) => match v.as_slice() {
            &[i] => BufferIndex::Const(i),
            _ => return Err(TmemError::ConstIndices { count: v.len() }),
        },
        IndexSource::Param => {
            BufferIndex::Runtime(b.with_role(Role::Address, |b| b.ld_param(BUFFER_PARAM))?)
        }
    };
    let values = emit_values(&mut b, store, ctx.tid)?;
    let warp_at = store.warp_address(&mut b, &ctx)?;
    let at = store.address(&mut b, warp_at, index)?;
    store.store_at(&mut b, at, &values)?;
    thread_sync(&mut b)?;
    // The load reuses the store's address when it adds the same warp offsets and buffer map.
    let regs = if load.warp_offsets() == store.warp_offsets() && load.buffer() == store.buffer() {
        load.load_at(&mut b, at)?
    } else {
        let warp_at = load.warp_address(&mut b, &ctx)?;
        load.load(&mut b, warp_at, index)?
    };
    let offsets = (0u64..)
        .take(regs.len())
        .map(|k| {
            let value = 4 * k * u64::from(threads);
            i32::try_from(value).map_err(|_| TmemError::Immediate { value })
        })
        .collect::<Result<Vec<_>, _>>()?;
    b.with_role(Role::Data, |b| {
        let out = b.global_pointer(OUT_PARAM)?;
        let off = b.mul_wide_u32(ctx.tid, 4)?;
        let p = b.add(IntType::U64, out, off)?;
        for (at, r) in offsets.into_iter().zip(&regs) {
            b.st(
                StateSpace::Global,
                DataType::B32,
                Address::new(p, at),
                &[*r],
            )?;
        }
        Ok(())
    })?;
    ctx.free(&mut b)?;
    b.ret()?;
    Ok(b.finish()?)
}
