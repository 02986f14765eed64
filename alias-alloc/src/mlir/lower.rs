//! [`lower_module`]: the module as fbtriton's `tlx-storage-alias-lowering` leaves it, from the
//! module it receives and a TLX-mode [`Plan`] of it.

use std::collections::HashMap;

use super::read::{AllocOp, KernelModule};
use super::scan::{identifier, split_top_level, ssa_name, Source};
use crate::{AllocError, Mode, Plan, Reindex, Storage, TlxRewrite};

/// An aliased allocation: its new type, and the slot each buffer index reaches.
#[derive(Debug, Clone)]
struct Aliased {
    new_type: String,
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

/// The text of `module` (read from `text` by [`read_module`](super::read_module)) after TLX's
/// storage-alias lowering, as planned by `plan` (TLX mode):
///
/// * each `tlx.storage_alias_spec` becomes its backing: `ttng.tmem_alloc` of
///   `ROWSxCOLUMNSxi32` or `ttg.local_alloc` of `BYTESxi8` (unswizzled), under the spec's name;
/// * each `tlx.storage_alias_local_alloc` becomes `tlx.local_alias` of the backing, its type's
///   buffer dim the alias's slot count;
/// * the `tlx.reuse_group` and `tlx.set_buffer_overlap` ops are gone;
/// * each `ttg.memdesc_index` of an aliased buffer — directly or through the block argument of
///   a `ttg.warp_specialize` partition that captures it, whose type changes with it — indexes
///   slot `scale·i + offset + i mod group_size`, computed by `arith` ops inserted before it
///   (only where TLX rewrites: `scale > 1` or `offset > 0`).
///
/// Everything else is copied as it is. New SSA values are named `%tlx_idx…`.
///
/// Errors: [`AllocError::Input`] for a plan that is not TLX mode's; [`AllocError::Mlir`] where
/// an aliased buffer is used by an op other than `ttg.memdesc_index` (or a partition capture),
/// whose types this rewrite does not know how to change — rather than print a module with a
/// stale type.
///
/// ```
/// use alias_alloc::mlir::{lower_module, read_module};
/// use alias_alloc::{Mode, PlanOptions};
/// let text = "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
/// module {
///   %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
///   %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
///   %b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
///   %0 = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>) -> !tlx.reuse_group<distinct>
///   tlx.set_buffer_overlap(%s, %0) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
///   %b1 = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #tmem, #ttng.tensor_memory, mutable>
/// }
/// ";
/// let m = read_module(text)?;
/// let plan = m.program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
/// let lowered = lower_module(text, &m, &plan)?;
/// assert!(lowered.contains("%s = ttng.tmem_alloc : () -> !ttg.memdesc<128x2xi32"));
/// assert!(lowered.contains("%b = tlx.local_alias %s : !ttg.memdesc<128x2xi32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 2, colStride = 1>, #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x1xf32, #tmem, #ttng.tensor_memory, mutable>"));
/// assert!(lowered.contains("arith.muli %i, %tlx_idx0 : i32"));
/// assert!(!lowered.contains("reuse_group"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn lower_module(text: &str, module: &KernelModule, plan: &Plan) -> Result<String, AllocError> {
    let src = Source::new(text);
    let program = &module.program;
    // Backing type of each spec, by SSA name.
    let mut backing: HashMap<&str, String> = HashMap::new();
    for s in &module.specs {
        let sp = plan
            .specs
            .iter()
            .find(|p| p.origin == crate::Origin::Spec(s.spec))
            .ok_or_else(|| AllocError::Input(format!("the plan has no region for %{}", s.ssa)))?;
        let ty = match (sp.storage, sp.backing_shape.as_slice()) {
            (Storage::Tmem, [rows, cols]) => format!(
                "!ttg.memdesc<{rows}x{cols}xi32, #ttng.tensor_memory_encoding<blockM = {rows}, blockN = {cols}, colStride = 1>, #ttng.tensor_memory, mutable>"
            ),
            (_, [bytes]) => format!(
                "!ttg.memdesc<{bytes}xi8, #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>, #ttg.shared_memory, mutable>"
            ),
            _ => return Err(AllocError::Input(format!("%{}: no backing shape", s.ssa))),
        };
        backing.insert(s.ssa.as_str(), ty);
    }
    // Each aliased allocation: its new type and rewrite.
    let mut values: HashMap<String, Aliased> = HashMap::new();
    let mut alias_lines: HashMap<usize, (String, String, String)> = HashMap::new();
    for a in module
        .allocs
        .iter()
        .filter(|a| a.op == AllocOp::StorageAliasLocalAlloc)
    {
        let alloc = program.allocation(a.alloc)?;
        let ap = plan.alloc(&alloc.name)?;
        let slots = match (&ap.reindex, plan.mode) {
            (Some(Reindex::Tlx(r)), _) => Slots::Tlx(*r),
            (Some(Reindex::Slots(m)), _) => Slots::Map(m.clone()),
            (None, Mode::TlxCompatible) => Slots::Tlx(TlxRewrite::IDENTITY),
            (None, Mode::Intended) => {
                return Err(AllocError::Input(format!(
                    "%{}: Intended mode places its buffers at offsets that are not whole buffers ({}), which no index of an alias of the backing reaches",
                    a.ssa, ap.explicit
                )))
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
        let spec = match alloc.reuse {
            crate::Reuse::Spec(s) => module
                .specs
                .iter()
                .find(|m| m.spec == s)
                .map(|m| m.ssa.clone())
                .unwrap_or_default(),
            _ => String::new(),
        };
        let back = backing.get(spec.as_str()).cloned().unwrap_or_default();
        alias_lines.insert(a.line, (spec, back, md.to_string()));
        values.insert(
            a.ssa.clone(),
            Aliased {
                new_type: md.to_string(),
                identity: slots.identity(alloc.num),
                slots,
            },
        );
    }
    if text.contains("%tlx_idx") {
        return Err(AllocError::Input(
            "the module already has %tlx_idx… values; the lowering names its own so".into(),
        ));
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut fresh = 0usize;
    let mut captures: Vec<Option<Aliased>> = Vec::new();
    for (n, (start, line)) in src.lines().enumerate() {
        let number = n + 1;
        let body = line.trim_start();
        let indent = line.get(..line.len() - body.len()).unwrap_or("");
        let (lhs, op) = match body.split_once(" = ") {
            Some((l, r)) if l.starts_with('%') => (Some(l), r),
            _ => (None, body),
        };
        let name = identifier(op);
        let tail = loc_suffix(line);
        match name {
            "tlx.reuse_group" | "tlx.set_buffer_overlap" => continue,
            "tlx.storage_alias_spec" => {
                let ssa = lhs.and_then(|l| ssa_name(l)).map_or("", |(s, _)| s);
                let ty = backing.get(ssa).cloned().unwrap_or_default();
                let alloc = if ty.contains("tensor_memory") {
                    "ttng.tmem_alloc"
                } else {
                    "ttg.local_alloc"
                };
                out.push_str(&format!("{indent}%{ssa} = {alloc} : () -> {ty}{tail}\n"));
                continue;
            }
            "tlx.storage_alias_local_alloc" => {
                if let (Some(l), Some((spec, back, new))) = (lhs, alias_lines.get(&number)) {
                    out.push_str(&format!(
                        "{indent}{l} = tlx.local_alias %{spec} : {back} -> {new}{tail}\n"
                    ));
                    continue;
                }
            }
            "ttg.warp_specialize" => {
                captures = warp_captures(op)
                    .into_iter()
                    .map(|c| values.get(c).cloned())
                    .collect();
                out.push_str(line);
                out.push('\n');
                continue;
            }
            "ttg.memdesc_index" => {
                if let Some(done) = rewrite_index(indent, lhs, op, tail, &values, &mut fresh) {
                    out.push_str(&done);
                    continue;
                }
            }
            _ if body.starts_with("partition") && body.contains('(') => {
                out.push_str(&partition_header(line, &captures, &mut values));
                out.push('\n');
                continue;
            }
            _ => {}
        }
        // Any other use of an aliased value would keep a stale type.
        if let Some(v) = uses(op, &values) {
            let col = line.find(&format!("%{v}")).map_or(1, |c| c + 1);
            let (line_no, _) = src.line_column(start);
            return Err(AllocError::Mlir {
                line: line_no,
                column: col,
                message: format!("%{v} is aliased and used by '{name}': only ttg.memdesc_index and ttg.warp_specialize captures of an aliased buffer are rewritten"),
            });
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// ` loc(…)` at the end of an op line, or `""`.
fn loc_suffix(line: &str) -> &str {
    match line.rfind(" loc(") {
        Some(at) if line.ends_with(')') => line.get(at..).unwrap_or(""),
        _ => "",
    }
}

/// The SSA names `ttg.warp_specialize(%a, %b, …)` captures, in order.
fn warp_captures(op: &str) -> Vec<&str> {
    let Some(open) = op.find('(') else {
        return Vec::new();
    };
    let src = Source::new(op);
    let Some(end) = src.balanced_end(open) else {
        return Vec::new();
    };
    let inner = op.get(open + 1..end - 1).unwrap_or("");
    split_top_level(inner)
        .into_iter()
        .map(|s| ssa_name(s).map_or("", |(n, _)| n))
        .collect()
}

/// A `partitionK(%argN: T loc(…), …)` header with the types of captured aliases replaced; the
/// block arguments now stand for those aliases.
fn partition_header(
    line: &str,
    captures: &[Option<Aliased>],
    values: &mut HashMap<String, Aliased>,
) -> String {
    let Some(open) = line.find('(') else {
        return line.to_string();
    };
    let Some(end) = Source::new(line).balanced_end(open) else {
        return line.to_string();
    };
    let inner = line.get(open + 1..end - 1).unwrap_or("");
    let args: Vec<String> = split_top_level(inner)
        .into_iter()
        .enumerate()
        .map(|(j, arg)| {
            let name = ssa_name(arg).map_or("", |(n, _)| n).to_string();
            match captures.get(j).cloned().flatten() {
                Some(a) => {
                    let loc = arg.find(" loc(").map_or("", |i| arg.get(i..).unwrap_or(""));
                    let text = format!("%{name}: {}{loc}", a.new_type);
                    values.insert(name, a);
                    text
                }
                None => {
                    values.remove(&name);
                    arg.to_string()
                }
            }
        })
        .collect();
    format!(
        "{}{}{}",
        line.get(..=open).unwrap_or(""),
        args.join(", "),
        line.get(end - 1..).unwrap_or("")
    )
}

/// `%r = ttg.memdesc_index %V[%I] : T -> U` of an aliased `%V`: the new type, and TLX's index
/// arithmetic before it where TLX rewrites.
fn rewrite_index(
    indent: &str,
    lhs: Option<&str>,
    op: &str,
    tail: &str,
    values: &HashMap<String, Aliased>,
    fresh: &mut usize,
) -> Option<String> {
    let rest = op.strip_prefix("ttg.memdesc_index")?.trim_start();
    let (base, used) = ssa_name(rest)?;
    let a = values.get(base)?;
    let after = rest.get(used..)?;
    let index = after.strip_prefix('[')?.split(']').next()?.trim();
    let types = after.split_once(" : ")?.1;
    let result_type = types.split_once(" -> ")?.1;
    let result_type = result_type
        .get(..result_type.len() - tail.len())?
        .trim_end();
    let mut out = String::new();
    let mut new_index = index.to_string();
    let mut name = || {
        let n = format!("%tlx_idx{fresh}");
        *fresh += 1;
        n
    };
    let mut emit = |line: String| out.push_str(&format!("{indent}{line}\n"));
    match &a.slots {
        Slots::Tlx(r) if r.rewrites() => {
            let (scale, scaled) = (name(), name());
            emit(format!("{scale} = arith.constant {} : i32", r.scale));
            emit(format!("{scaled} = arith.muli {index}, {scale} : i32"));
            new_index = scaled;
            if r.offset > 0 {
                let (c, sum) = (name(), name());
                emit(format!("{c} = arith.constant {} : i32", r.offset));
                emit(format!("{sum} = arith.addi {new_index}, {c} : i32"));
                new_index = sum;
            }
            if r.group_size > 1 {
                let (c, rem, sum) = (name(), name(), name());
                emit(format!("{c} = arith.constant {} : i32", r.group_size));
                emit(format!("{rem} = arith.remsi {index}, {c} : i32"));
                emit(format!("{sum} = arith.addi {new_index}, {rem} : i32"));
                new_index = sum;
            }
        }
        Slots::Map(m) if !a.identity => {
            // base + Σ digit_d · stride_d, the digits of i in the map's mixed radix (first
            // mode fastest); the last digit needs no remainder.
            let base = name();
            emit(format!("{base} = arith.constant {} : i32", m.base()));
            let mut sum = base;
            let mut rest = index.to_string();
            let modes: Vec<(u64, u64)> =
                m.modes().iter().copied().filter(|(n, _)| *n > 1).collect();
            for (d, &(size, stride)) in modes.iter().enumerate() {
                let last = d + 1 == modes.len();
                let digit = if last {
                    rest.clone()
                } else {
                    let (c, digit, quotient) = (name(), name(), name());
                    emit(format!("{c} = arith.constant {size} : i32"));
                    emit(format!("{digit} = arith.remui {rest}, {c} : i32"));
                    emit(format!("{quotient} = arith.divui {rest}, {c} : i32"));
                    rest = quotient;
                    digit
                };
                let (c, term, next) = (name(), name(), name());
                emit(format!("{c} = arith.constant {stride} : i32"));
                emit(format!("{term} = arith.muli {digit}, {c} : i32"));
                emit(format!("{next} = arith.addi {sum}, {term} : i32"));
                sum = next;
            }
            new_index = sum;
        }
        _ => {}
    }
    let lhs = lhs.map_or(String::new(), |l| format!("{l} = "));
    out.push_str(&format!(
        "{indent}{lhs}ttg.memdesc_index %{base}[{new_index}] : {} -> {result_type}{tail}\n",
        a.new_type
    ));
    Some(out)
}

/// The first aliased value `op` names as an operand (`%v` not followed by a name character).
fn uses<'v>(op: &str, values: &'v HashMap<String, Aliased>) -> Option<&'v str> {
    let mut rest = op;
    while let Some(at) = rest.find('%') {
        let tail = rest.get(at..).unwrap_or("");
        if let Some((name, len)) = ssa_name(tail) {
            if let Some((k, _)) = values.get_key_value(name) {
                return Some(k.as_str());
            }
            rest = tail.get(len..).unwrap_or("");
        } else {
            rest = tail.get(1..).unwrap_or("");
        }
    }
    None
}

#[cfg(test)]
mod tests;
