//! The buffer part `base + B(i)` of a shared address, added once per access group.
//!
//! * A constant index is folded into the address immediates (0 instructions).
//! * A run-time index `i` with the explicit map `(s0, s1, …):(d0, d1, …)`: writing
//!   `q_k = i div (s0·…·s_{k−1})`, each digit is `q_k − s_k·q_{k+1}`, so
//!   `B(i) = Σ_k (d_k − s_{k−1}·d_{k−1})·q_k` — one `shr` (or `div`) and one `mad.lo` per mode
//!   past the first, no `rem` at all, and nothing for a mode that continues the previous one
//!   (`d_k = s_{k−1}·d_{k−1}`, the coefficient is 0). A single mode is one `mad.lo`.
//!   When every `B(i)` lies above every bit of the thread base `T` (the usual case: buffers
//!   are at least a tile apart), `B(i)` is accumulated onto `T` instead of the shared base,
//!   and the first two modes may be rewritten `c·i + e·(i mod s0)` with `c = d1 / s0`,
//!   `e = d0 − c`: for a power-of-two `s0` and `e` whose field is clear in `T`, the second
//!   term is one `bfi` (TLX's placement `U·i + unit·(i mod gs)` is a `bfi` and a `mad.lo`).
//! * TLX's reindexing: `slot = scale·i + offset + i mod gs` (`mul`, `add`, `rem`, `add`; a
//!   power-of-two `scale`/`gs` as `shl`/`and`, what LLVM makes of them), then
//!   `mad.lo slot, unit, smem`.

use linear_layout::LayoutError;

use super::error::SmemError;
use super::plan::SmemPlan;
use crate::access::{BufferIndex, BufferLowering, TlxReindex};
use crate::ptx::{Builder, IntType, PtxError, Reg, RegType, Width};

/// The buffer part as emitted: `q = smem + B(i) − immediate`, and what it guarantees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BufferPart {
    /// The register holding `smem + B(i) − immediate`.
    pub q: Reg,
    /// Bytes added through the address immediate.
    pub immediate: u64,
    /// `q` is a multiple of `2^align_log2`.
    pub align_log2: u32,
}

/// Emits the buffer part for `index`; `smem` is a `2^smem_align_log2`-aligned register and
/// `headroom` the largest immediate the accesses add on top of the buffer's.
pub(crate) fn emit(
    b: &mut Builder,
    plan: &SmemPlan,
    smem: Reg,
    smem_align_log2: u32,
    index: BufferIndex,
    headroom: u64,
) -> Result<BufferPart, SmemError> {
    let num_buffers = plan.map().buffer().num_buffers();
    match index {
        BufferIndex::Const(i) => {
            let offset = match plan.lowering() {
                BufferLowering::Explicit => plan.map().buffer().offset(i)?,
                BufferLowering::TlxReindex(t) => {
                    if i >= num_buffers {
                        return Err(LayoutError::BufferIndexOutOfRange {
                            index: i,
                            count: num_buffers,
                        }
                        .into());
                    }
                    tlx_offset(t, i)?
                }
            };
            let fits = offset
                .checked_add(headroom)
                .is_some_and(|e| e <= i32::MAX as u64);
            if fits {
                return Ok(BufferPart {
                    q: smem,
                    immediate: offset,
                    align_log2: smem_align_log2,
                });
            }
            let value = u32::try_from(offset).map_err(|_| SmemError::AddressTooLarge {
                what: "buffer offset",
                value: offset,
            })?;
            Ok(BufferPart {
                q: b.add(IntType::U32, smem, value)?,
                immediate: 0,
                align_log2: smem_align_log2.min(value.trailing_zeros()),
            })
        }
        BufferIndex::Runtime(i) => {
            if i.ty() != RegType::B32 {
                return Err(SmemError::RegisterClass {
                    what: "a run-time buffer index",
                    reg: i.to_string(),
                });
            }
            let align_log2 = smem_align_log2.min(plan.runtime_align_log2());
            match plan.lowering() {
                BufferLowering::Explicit => Ok(BufferPart {
                    q: explicit(b, plan.map().buffer().modes(), i, smem)?,
                    immediate: plan.map().buffer().base(),
                    align_log2,
                }),
                BufferLowering::TlxReindex(t) => Ok(BufferPart {
                    q: tlx(b, t, i, smem)?,
                    immediate: 0,
                    align_log2,
                }),
            }
        }
    }
}

/// `acc + Σ_k c_k·q_k` for the mixed-radix modes (sizes > 1 only).
fn explicit(b: &mut Builder, modes: &[(u64, u64)], i: Reg, acc: Reg) -> Result<Reg, PtxError> {
    q_form(b, modes, i, acc, 1, None)
}

/// The q-form of `modes` when the modes before them have `place` buffers in all and the last
/// of them is `previous` (size, stride).
fn q_form(
    b: &mut Builder,
    modes: &[(u64, u64)],
    i: Reg,
    mut acc: Reg,
    mut place: u64,
    mut previous: Option<(u64, u64)>,
) -> Result<Reg, PtxError> {
    for &(size, stride) in modes.iter().filter(|(s, _)| *s > 1) {
        let coefficient = match previous {
            None => stride,
            Some((s, d)) => stride.wrapping_sub(s.wrapping_mul(d)),
        } as u32;
        if coefficient != 0 && place <= u64::from(u32::MAX) {
            let q = divide(b, i, place as u32)?;
            acc = b.mad_lo(IntType::U32, q, coefficient, acc)?;
        }
        previous = Some((size, stride));
        place = place.saturating_mul(size);
    }
    Ok(acc)
}

/// Whether the run-time buffer part may be accumulated onto the thread base: every `B(i)`
/// (a multiple of `2^runtime_align_log2`) is above every bit `T` can set, so `T + B = T | B`
/// and XORs of `T`'s bits commute with it. Only for the explicit lowering (TLX's is emitted
/// as TLX does, onto the base pointer).
pub(crate) fn fusable(plan: &SmemPlan, span: u32) -> bool {
    matches!(plan.lowering(), BufferLowering::Explicit)
        && span != 0
        && u64::from(span) >> plan.runtime_align_log2().min(32) == 0
}

/// `t + B(i) − base` for a [`fusable`] plan: the q-form, or `bfi` + `mad.lo` when the first two
/// modes allow (see the module docs) and save an instruction.
pub(crate) fn onto_thread_base(
    b: &mut Builder,
    plan: &SmemPlan,
    i: Reg,
    t: Reg,
    span: u32,
) -> Result<Reg, SmemError> {
    if i.ty() != RegType::B32 {
        return Err(SmemError::RegisterClass {
            what: "a run-time buffer index",
            reg: i.to_string(),
        });
    }
    let modes: Vec<(u64, u64)> = plan
        .map()
        .buffer()
        .modes()
        .iter()
        .copied()
        .filter(|(s, _)| *s > 1)
        .collect();
    if let [(s0, d0), (s1, d1), rest @ ..] = modes.as_slice() {
        let continues = *d1 == s0.wrapping_mul(*d0);
        let c = d1 / s0;
        let e = d0.wrapping_sub(c);
        let field = s0
            .checked_mul(e)
            .map(|end| end - e)
            .filter(|_| s0.is_power_of_two() && e.is_power_of_two());
        let fits = field.is_some_and(|f| f <= u64::from(u32::MAX) && f & u64::from(span) == 0);
        if !continues && d1 % s0 == 0 && fits {
            let acc = b.bfi(i, t, e.trailing_zeros(), s0.trailing_zeros())?;
            let acc = b.mad_lo(IntType::U32, i, c as u32, acc)?;
            let place = s0.saturating_mul(*s1);
            return Ok(q_form(b, rest, i, acc, place, Some((*s1, *d1)))?);
        }
    }
    Ok(explicit(b, &modes, i, t)?)
}

/// `i div d` (`i` itself for 1, `shr` for a power of two).
fn divide(b: &mut Builder, i: Reg, d: u32) -> Result<Reg, PtxError> {
    match d {
        1 => Ok(i),
        d if d.is_power_of_two() => b.shr(IntType::U32, i, d.trailing_zeros()),
        d => b.div(IntType::U32, i, d),
    }
}

/// [`TlxReindex::byte_offset`], or [`SmemError::Tlx`] past `u64::MAX`.
pub(crate) fn tlx_offset(t: &TlxReindex, i: u64) -> Result<u64, SmemError> {
    t.byte_offset(i).ok_or(SmemError::Tlx {
        param: "buffer index",
        value: i,
        reason: "its slot's byte offset overflows u64",
    })
}

/// `smem + unit·(scale·i + offset + i mod gs)`.
fn tlx(b: &mut Builder, t: &TlxReindex, i: Reg, smem: Reg) -> Result<Reg, SmemError> {
    let narrow = |param: &'static str, value: u64| {
        u32::try_from(value).map_err(|_| SmemError::Tlx {
            param,
            value,
            reason: "does not fit 32 bits",
        })
    };
    let r = &t.rewrite;
    let (scale, offset) = (narrow("scale", r.scale)?, narrow("offset", r.offset)?);
    let (gs, unit) = (narrow("group_size", r.group_size)?, narrow("unit", t.unit)?);
    let mut slot = i;
    if r.rewrites() {
        slot = match scale {
            1 => i,
            s if s.is_power_of_two() => b.shl(Width::B32, i, s.trailing_zeros())?,
            s => b.mul_lo(IntType::U32, i, s)?,
        };
        if offset != 0 {
            slot = b.add(IntType::U32, slot, offset)?;
        }
        if gs > 1 {
            let sub = if gs.is_power_of_two() {
                b.and(Width::B32, i, gs - 1)?
            } else {
                b.rem(IntType::U32, i, gs)?
            };
            slot = b.add(IntType::U32, slot, sub)?;
        }
    }
    if unit == 0 {
        return Ok(smem);
    }
    Ok(b.mad_lo(IntType::U32, slot, unit, smem)?)
}
