//! [`lower_module`]: the module as fbtriton's `tlx-storage-alias-lowering` leaves it (TLX
//! mode), or as Intended mode's placement lowers it — edits of the module model, printed
//! from it.

use std::collections::HashMap;

use linear_layout::families::{Encoding, SharedEncoding, SwizzledShared, TensorMemory};
use linear_layout::mlir::{Module, NewOp, OpId, OpKind, TypedOp, ValueId};

use super::read::{AllocOp, KernelModule};
use crate::{AllocError, Mode, Plan, Reindex, SpecId, Storage, TlxRewrite};

/// An aliased allocation: its new type, and the slot each buffer index reaches.
#[derive(Debug, Clone)]
struct Aliased {
    new_type: String,
    /// Whether the new type differs from the one written.
    changed: bool,
    slots: Slots,
    /// Slot `i` is `i` for every buffer.
    identity: bool,
}

/// How buffer `i` reaches its slot of the alias.
#[derive(Debug, Clone)]
enum Slots {
    /// TLX's rewrite (`scale·i + offset + i mod group_size`, where it rewrites).
    Tlx(TlxRewrite),
    /// Intended mode's: `base + Σ digit_d(i)·stride_d`, digits of `i` in the map's mixed radix.
    Map(linear_layout::BufferMap),
}

impl Slots {
    /// Whether slot `i` is `i` for every buffer (no arithmetic to insert).
    fn identity(&self, num: u64) -> bool {
        match self {
            Slots::Tlx(r) => !r.rewrites(),
            Slots::Map(m) => {
                m.base() == 0
                    && m.modes()
                        .iter()
                        .filter(|(n, _)| *n > 1)
                        .all(|&(n, s)| n == num && s == 1)
            }
        }
    }
}

/// `module` after TLX's storage-alias lowering, as planned by `plan` (either mode), printed
/// from the edited model ([`KernelModule::module`]):
///
/// * each `tlx.storage_alias_spec` becomes its backing: `ttng.tmem_alloc` of
///   `ROWSxCOLUMNSxi32` or `ttg.local_alloc` of `BYTESxi8` (unswizzled), under the spec's name;
/// * each `tlx.storage_alias_local_alloc` becomes `tlx.local_alias` of the backing, its type's
///   buffer dim the alias's slot count;
/// * the `tlx.reuse_group` and `tlx.set_buffer_overlap` ops are gone;
/// * an alias's new type reaches every use: the `ttg.warp_specialize` ops that capture it (their
///   operand types and the partitions' block arguments), the `scf.for` loops that carry it in
///   their `iter_args` (the body's argument, the loop's result, its `scf.yield`), and every
///   `ttg.memdesc_index` of it or of such a value, which indexes slot `scale·i + offset + i mod group_size` (TLX
///   mode, only where TLX rewrites: `scale > 1` or `offset > 0`) or Intended mode's explicit
///   slot, computed by `arith` ops inserted before it, with its location.
///
/// New values are named `%tlx_idx`, `%tlx_idx_1`, … (names no value of the module has).
///
/// Errors: [`AllocError::AliasIndexUnreachable`] for an Intended placement the fork's IR cannot
/// write (buffers off whole buffers of an alias of the backing); [`AllocError::Mlir`] where an alias whose type changes is used by an op
/// other than `ttg.memdesc_index` or a `ttg.warp_specialize` capture, whose meaning under the
/// new type the lowering does not know; [`AllocError::Syntax`] where an op would keep printing
/// the old type — never a module with a stale type.
///
/// ```
/// use alias_alloc::mlir::{lower_module, read_module};
/// use alias_alloc::{Mode, PlanOptions};
/// let text = "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
/// module {
///   tt.func @k(%i: i32) {
///     %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
///     %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
///     %b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
///     %0 = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>) -> !tlx.reuse_group<distinct>
///     tlx.set_buffer_overlap(%s, %0) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
///     %b1 = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #tmem, #ttng.tensor_memory, mutable>
///     tt.return
///   }
/// }
/// ";
/// let m = read_module(text)?;
/// let plan = m.program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
/// let lowered = lower_module(&m, &plan)?;
/// assert!(lowered.contains("%s = ttng.tmem_alloc : () -> !ttg.memdesc<128x2xi32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 2, colStride = 1>, #ttng.tensor_memory, mutable>"));
/// assert!(lowered.contains("%b = tlx.local_alias %s : !ttg.memdesc<128x2xi32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 2, colStride = 1>, #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x1xf32, #tmem, #ttng.tensor_memory, mutable>"));
/// assert!(lowered.contains("%tlx_idx_1 = arith.muli %i, %tlx_idx : i32"));
/// assert!(lowered.contains("ttg.memdesc_index %b[%tlx_idx_3] : !ttg.memdesc<4x128x1xf32"));
/// assert!(!lowered.contains("reuse_group"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn lower_module(module: &KernelModule, plan: &Plan) -> Result<String, AllocError> {
    let mut m = module.module.clone();
    let backing = backings(&mut m, module, plan)?;
    // The reuse trees go, users first.
    let tree_ops: Vec<OpId> = m
        .walk()
        .into_iter()
        .filter(|&o| {
            matches!(
                m.op(o).and_then(|x| x.kind()),
                Some(OpKind::ReuseGroup | OpKind::SetBufferOverlap)
            )
        })
        .collect();
    for &o in tree_ops.iter().rev() {
        m.erase(o)?;
    }
    let mut work = views(&mut m, module, plan, &backing)?;
    // The aliases' uses, once: the lowering only adds uses of index values.
    let uses = m.uses();
    // The new types reach every use, through captures into partitions.
    while let Some((v, a)) = work.pop() {
        let of_v = uses.get(&v).map_or(&[][..], Vec::as_slice);
        if a.changed {
            m.set_type_with_uses(v, &a.new_type, of_v)?;
        }
        for &(user, k) in of_v {
            match m.typed(user)? {
                Some(TypedOp::MemdescIndex { src, .. }) if src == v && k == 0 => {
                    if !a.identity {
                        index_arithmetic(&mut m, user, &a.slots)?;
                    }
                }
                Some(TypedOp::WarpSpecialize {
                    default,
                    partitions,
                    ..
                }) => {
                    // Every region's block argument k holds the capture.
                    let args: Vec<ValueId> = std::iter::once(default)
                        .chain(partitions.iter().copied())
                        .filter_map(|r| m.region(r))
                        .filter_map(|r| r.blocks().first())
                        .filter_map(|&b| m.block(b))
                        .filter_map(|b| b.arguments().get(k).copied())
                        .collect();
                    work.extend(args.into_iter().map(|arg| (arg, a.clone())));
                }
                Some(TypedOp::For { .. }) if k >= 3 => {
                    // A loop-carried alias: the body's argument and the loop's result carry it,
                    // and the body must pass the alias itself back.
                    let Some((arg, result, yielded)) = m.loop_carried(user, k) else {
                        return Err(refusal(&m, user, v, "carried by this scf.for, whose body does not end in an scf.yield of it"));
                    };
                    if plan.mode == Mode::TlxCompatible && a.changed {
                        // fbtriton 3.7.4 re-types the alias and not the loop: its verifier
                        // refuses what the pass leaves.
                        let aliases = m.aliases();
                        let old = m.value(arg).and_then(|x| x.ty()).unwrap_or("");
                        let (line, column) = m.op(user).map_or((0, 0), |o| o.position());
                        return Err(AllocError::Located {
                            line,
                            column,
                            error: Box::new(AllocError::Verifier {
                                what: "scf.for".into(),
                                message: format!(
                                    "'scf.for' op along control flow edge from parent to Region #0: successor operand type #{} '{}' should match successor input type #{} '{}'",
                                    k - 3,
                                    aliases.resolve(&a.new_type),
                                    k - 3,
                                    aliases.resolve(old)
                                ),
                            }),
                        });
                    }
                    if plan.mode == Mode::TlxCompatible {
                        // Same type: the fork's pass follows the alias's own uses only, so the
                        // loop's argument and result keep their indices, as here.
                        continue;
                    }
                    if yielded != arg && (a.changed || !a.identity) {
                        return Err(refusal(&m, user, v, "carried by this scf.for, whose body yields another value in its place: the lowering cannot give that value the alias's new type"));
                    }
                    work.push((arg, a.clone()));
                    work.push((result, a.clone()));
                }
                Some(TypedOp::View { src, .. }) if src == v && k == 0 => {
                    // A view of the whole aliased buffer. fbtriton 3.7.4 re-types its operand
                    // and keeps its result type, so it views the alias's first slots, not the
                    // buffers' (TLX mode prints the same). Intended mode would need the
                    // buffer map in the view's result type, which the IR cannot say.
                    if plan.mode == Mode::Intended && (a.changed || !a.identity) {
                        return Err(refusal(&m, user, v, "viewed whole by this op: in Intended mode its buffers sit at the slots of their buffer map, which a view of the alias cannot follow (index a buffer first: ttg.memdesc_index, then view it)"));
                    }
                }
                Some(TypedOp::Terminator {
                    kind: OpKind::Yield,
                    ..
                }) if yields_back(&m, user, k, v) => {
                    // The loop passes the alias back around: the loop's arm above carries it.
                }
                _ if !a.changed && a.identity => {}
                _ => {
                    let name = m
                        .op(user)
                        .map_or_else(String::new, |o| o.name().to_string());
                    return Err(refusal(&m, user, v, &format!("used by '{name}': only ttg.memdesc_index, ttg.warp_specialize captures, scf.for iter_args and (in TLX mode) views of an aliased buffer are rewritten")));
                }
            }
        }
    }
    Ok(m.to_string())
}

/// The refusal of a use of the aliased `v` by `user`: `%v is aliased and {why}`, at `user`.
fn refusal(m: &Module, user: OpId, v: ValueId, why: &str) -> AllocError {
    let (line, column) = m.op(user).map_or((0, 0), |o| o.position());
    let name = m.value(v).map_or_else(String::new, |x| x.use_name());
    AllocError::Mlir {
        line,
        column,
        message: format!("{name} is aliased and {why}"),
    }
}

/// Whether the `scf.yield` `user` passes `v`, its operand `k`, back around the `scf.for` that
/// holds it as that loop's carried value `k`.
fn yields_back(m: &Module, user: OpId, k: usize, v: ValueId) -> bool {
    let parent = m
        .op(user)
        .and_then(|o| o.parent())
        .and_then(|b| m.block(b))
        .and_then(|b| m.region(b.parent()))
        .map(|r| r.parent());
    parent
        .and_then(|p| m.loop_carried(p, k + 3))
        .is_some_and(|(arg, _, yielded)| arg == v && yielded == v)
}

/// Rewrites each spec as its backing allocation; the backing value of each spec.
fn backings(
    m: &mut Module,
    module: &KernelModule,
    plan: &Plan,
) -> Result<HashMap<SpecId, ValueId>, AllocError> {
    let uses = m.uses();
    let mut backing = HashMap::new();
    for s in &module.specs {
        let sp = plan
            .specs
            .iter()
            .find(|p| p.origin == crate::Origin::Spec(s.spec))
            .ok_or_else(|| AllocError::Input(format!("the plan has no region for %{}", s.ssa)))?;
        let (ty, alloc_op) = backing_type(sp.storage, &sp.backing_shape)
            .map_err(|e| AllocError::Input(format!("%{}: {e}", s.ssa)))?;
        let v = first_result(m, s.op)?;
        m.rewrite(
            s.op,
            NewOp {
                name: alloc_op.into(),
                template: format!("$r0 = {alloc_op} : () -> $Tr0$loc"),
                operands: vec![],
                results: vec![(s.ssa.clone(), ty.clone())],
                attributes: vec![],
            },
        )?;
        m.set_type_with_uses(v, &ty, uses.get(&v).map_or(&[][..], Vec::as_slice))?;
        backing.insert(s.spec, v);
    }
    Ok(backing)
}

/// Rewrites each `tlx.storage_alias_local_alloc` as a `tlx.local_alias` of its backing; each
/// alias with its new type and slots.
fn views(
    m: &mut Module,
    module: &KernelModule,
    plan: &Plan,
    backing: &HashMap<SpecId, ValueId>,
) -> Result<Vec<(ValueId, Aliased)>, AllocError> {
    let mut aliased = Vec::new();
    for a in module
        .allocs
        .iter()
        .filter(|a| a.op == AllocOp::StorageAliasLocalAlloc)
    {
        let alloc = module.program.allocation(a.alloc)?;
        let ap = plan.alloc(&alloc.name)?;
        let slots = match (&ap.reindex, plan.mode) {
            (Some(Reindex::Tlx(r)), _) => Slots::Tlx(*r),
            (Some(Reindex::Slots(map)), _) => Slots::Map(map.clone()),
            (None, Mode::TlxCompatible) => Slots::Tlx(TlxRewrite::IDENTITY),
            (None, Mode::Intended) => {
                return Err(AllocError::AliasIndexUnreachable {
                    alloc: alloc.name.clone(),
                    buffer_map: ap.explicit.to_string(),
                    unit: ap.unit,
                    units: alloc.storage.unit(),
                })
            }
        };
        let mut md = a.memdesc.clone();
        if !md.has_buffer_dim() {
            // A 2-D tensor-memory buffer: TLX aliases it as it is; it has no index to rewrite.
            if !slots.identity(alloc.num) {
                return Err(AllocError::Input(format!(
                    "%{}: a 2-D tensor-memory allocation placed off slot 0 has no buffer dim to index",
                    a.ssa
                )));
            }
        } else if let (Some(first), Some(buffers)) = (
            md.shape.first_mut(),
            ap.alias_shape.as_ref().and_then(|s| s.first()),
        ) {
            *first = *buffers;
        }
        let spec_value = match alloc.reuse {
            crate::Reuse::Spec(s) => backing.get(&s).copied(),
            _ => None,
        }
        .ok_or_else(|| AllocError::Input(format!("%{}: no backing", a.ssa)))?;
        let v = first_result(m, a.op_id)?;
        let old_type = a.memdesc.to_string();
        m.rewrite(
            a.op_id,
            NewOp {
                name: "tlx.local_alias".into(),
                template: "$r0 = tlx.local_alias $o0 : $To0 -> $Tr0$loc".into(),
                operands: vec![spec_value],
                results: vec![(a.ssa.clone(), old_type.clone())],
                attributes: vec![],
            },
        )?;
        let new_type = md.to_string();
        aliased.push((
            v,
            Aliased {
                changed: new_type != old_type,
                new_type,
                identity: slots.identity(alloc.num),
                slots,
            },
        ));
    }
    Ok(aliased)
}

/// The type of a spec's backing and the op that allocates it: TMEM `ROWSxCOLUMNSxi32` with a
/// `#ttng.tensor_memory_encoding` of that block, SMEM `BYTESxi8` unswizzled — the attributes
/// printed by their families.
fn backing_type(storage: Storage, shape: &[u64]) -> Result<(String, &'static str), String> {
    match (storage, shape) {
        (Storage::Tmem, [rows, cols]) => {
            let enc = Encoding::TensorMemory(TensorMemory {
                block_m: u32::try_from(*rows).map_err(|e| e.to_string())?,
                block_n: u32::try_from(*cols).map_err(|e| e.to_string())?,
                col_stride: 1,
                cga_layout: vec![],
                two_ctas: false,
                fp4_padded: false,
            });
            Ok((
                format!(
                    "!ttg.memdesc<{rows}x{cols}xi32, {}, #ttng.tensor_memory, mutable>",
                    enc.to_mlir()
                ),
                "ttng.tmem_alloc",
            ))
        }
        (_, [bytes]) => {
            let swizzled =
                SwizzledShared::new(1, 1, 1, vec![0], vec![]).map_err(|e| e.to_string())?;
            let enc = Encoding::Shared(SharedEncoding::Swizzled(swizzled));
            Ok((
                format!(
                    "!ttg.memdesc<{bytes}xi8, {}, #ttg.shared_memory, mutable>",
                    enc.to_mlir()
                ),
                "ttg.local_alloc",
            ))
        }
        _ => Err(format!("no backing shape ({shape:?})")),
    }
}

/// Result 0 of `op`.
fn first_result(m: &Module, op: OpId) -> Result<ValueId, AllocError> {
    m.op(op)
        .and_then(|o| o.results().first().copied())
        .ok_or_else(|| AllocError::Input("an allocating op without a result".into()))
}

/// Inserts before the `ttg.memdesc_index` `user` the arithmetic that turns its index into the
/// slot of the alias, and makes that the index.
fn index_arithmetic(m: &mut Module, user: OpId, slots: &Slots) -> Result<(), AllocError> {
    let Some(index) = m.op(user).and_then(|o| o.operands().get(1).copied()) else {
        return Ok(());
    };
    let constant = |m: &mut Module, n: u64| -> Result<ValueId, AllocError> {
        let id = m.insert_before(
            user,
            NewOp {
                name: "arith.constant".into(),
                template: format!("$r0 = arith.constant {n} : i32$loc"),
                operands: vec![],
                results: vec![("tlx_idx".into(), "i32".into())],
                attributes: vec![("value".into(), format!("{n} : i32"))],
            },
        )?;
        first_result(m, id)
    };
    let binary =
        |m: &mut Module, op: &str, a: ValueId, b: ValueId| -> Result<ValueId, AllocError> {
            let id = m.insert_before(
                user,
                NewOp {
                    name: format!("arith.{op}"),
                    template: format!("$r0 = arith.{op} $o0, $o1 : i32$loc"),
                    operands: vec![a, b],
                    results: vec![("tlx_idx".into(), "i32".into())],
                    attributes: vec![],
                },
            )?;
            first_result(m, id)
        };
    let new_index = match slots {
        Slots::Tlx(r) if r.rewrites() => {
            let scale = constant(m, r.scale)?;
            let mut sum = binary(m, "muli", index, scale)?;
            if r.offset > 0 {
                let c = constant(m, r.offset)?;
                sum = binary(m, "addi", sum, c)?;
            }
            if r.group_size > 1 {
                let c = constant(m, r.group_size)?;
                let rem = binary(m, "remsi", index, c)?;
                sum = binary(m, "addi", sum, rem)?;
            }
            sum
        }
        Slots::Map(map) => {
            // base + Σ digit_d · stride_d, the digits of i in the map's mixed radix (first
            // mode fastest); the last digit needs no remainder.
            let mut sum = constant(m, map.base())?;
            let mut rest = index;
            let modes: Vec<(u64, u64)> = map
                .modes()
                .iter()
                .copied()
                .filter(|(n, _)| *n > 1)
                .collect();
            for (d, &(size, stride)) in modes.iter().enumerate() {
                let digit = if d + 1 == modes.len() {
                    rest
                } else {
                    let c = constant(m, size)?;
                    let digit = binary(m, "remui", rest, c)?;
                    rest = binary(m, "divui", rest, c)?;
                    digit
                };
                let c = constant(m, stride)?;
                let term = binary(m, "muli", digit, c)?;
                sum = binary(m, "addi", sum, term)?;
            }
            sum
        }
        Slots::Tlx(_) => return Ok(()),
    };
    m.set_operand(user, 1, new_index)?;
    Ok(())
}

#[cfg(test)]
mod tests;
