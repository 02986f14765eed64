//! [`read_module`]: a TTGIR module as the TLX fork prints it → the [`Program`] of its specs,
//! allocations and reuse trees, with where each came from.

use std::collections::HashMap;

use super::memdesc::MemDesc;
use super::scan::{identifier, split_top_level, ssa_name, Source};
use crate::{
    AllocError, AllocId, Allocation, GroupKind, Member, Program, Reuse, ReuseGroup, SpecId,
    Storage, Target,
};
use linear_layout::text::aliases::Aliases;

/// The module attributes the planner uses (`module attributes {…}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleAttributes {
    /// `ttg.num-warps`.
    pub num_warps: Option<u64>,
    /// `ttg.num-ctas`.
    pub num_ctas: Option<u64>,
    /// `ttg.threads-per-warp`.
    pub threads_per_warp: Option<u64>,
    /// `ttg.target` (`cuda:100`).
    pub target: Option<String>,
    /// `ttg.cluster-dim-x`, `-y`, `-z` (1 where absent).
    pub cluster_dims: [u64; 3],
    /// `ttng.two-ctas`.
    pub two_ctas: bool,
}

/// The op an allocation of the module came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocOp {
    /// `tlx.storage_alias_local_alloc %spec` (`local_alloc(…, reuse = spec)`).
    StorageAliasLocalAlloc,
    /// `tlx.local_alias %buffer` (legacy `local_alloc(…, reuse = buffer)`).
    LocalAlias,
    /// `ttg.local_alloc`: its own shared memory.
    LocalAlloc,
    /// `ttng.tmem_alloc`: its own tensor memory.
    TmemAlloc,
}

impl AllocOp {
    /// The op's name as MLIR prints it.
    pub fn name(self) -> &'static str {
        match self {
            AllocOp::StorageAliasLocalAlloc => "tlx.storage_alias_local_alloc",
            AllocOp::LocalAlias => "tlx.local_alias",
            AllocOp::LocalAlloc => "ttg.local_alloc",
            AllocOp::TmemAlloc => "ttng.tmem_alloc",
        }
    }
}

/// A `tlx.storage_alias_spec` of the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSpec {
    /// Its id in the program.
    pub spec: SpecId,
    /// Its SSA name, without `%`.
    pub ssa: String,
    /// The 1-based line of the op.
    pub line: usize,
}

/// An allocation of the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleAlloc {
    /// Its id in the program.
    pub alloc: AllocId,
    /// Its SSA name, without `%`.
    pub ssa: String,
    /// The op that made it.
    pub op: AllocOp,
    /// Its result type.
    pub memdesc: MemDesc,
    /// The 1-based line of the op.
    pub line: usize,
}

/// What [`read_module`] found.
#[derive(Debug, Clone)]
pub struct KernelModule {
    /// Specs, allocations and reuse trees in program order.
    pub program: Program,
    /// The module attributes.
    pub attributes: ModuleAttributes,
    /// Each spec's origin, in program order.
    pub specs: Vec<ModuleSpec>,
    /// Each allocation's origin, in program order.
    pub allocs: Vec<ModuleAlloc>,
}

impl KernelModule {
    /// The target `ttg.target` names (`cuda:100` → sm_100), sm_100 when the module names none.
    pub fn target(&self) -> Result<Target, AllocError> {
        match &self.attributes.target {
            None => Ok(Target::default()),
            Some(t) => match t.strip_prefix("cuda:") {
                Some(cc) => format!("sm_{cc}").parse(),
                None => Err(AllocError::Input(format!(
                    "ttg.target \"{t}\": only cuda targets have TLX storage aliasing"
                ))),
            },
        }
    }

    /// The allocation made by the op whose result is `%ssa`.
    pub fn alloc_by_ssa(&self, ssa: &str) -> Option<&ModuleAlloc> {
        self.allocs.iter().find(|a| a.ssa == ssa)
    }
}

/// What an SSA value of the module is, for the ops that use it.
#[derive(Debug, Clone)]
enum Value {
    Spec(SpecId),
    Alloc(AllocId),
    Group(ReuseGroup),
}

/// The ops that carry aliasing or allocate, by name.
const READ_OPS: [&str; 7] = [
    "tlx.storage_alias_spec",
    "tlx.storage_alias_local_alloc",
    "tlx.reuse_group",
    "tlx.set_buffer_overlap",
    "tlx.local_alias",
    "ttg.local_alloc",
    "ttng.tmem_alloc",
];

/// Reads a TTGIR module — as `MLIR_ENABLE_DUMP=1`, `TRITON_KERNEL_DUMP` or `triton-opt` print it,
/// with or without `loc(…)` locations — into the [`Program`] it allocates.
///
/// Read: attribute aliases (`#shared = #ttg.nvmma_shared<{…}>`, resolved in order, an alias may
/// use an earlier one), the module attributes, and the ops `tlx.storage_alias_spec` (with or
/// without `size`), `tlx.storage_alias_local_alloc`, `tlx.reuse_group`,
/// `tlx.set_buffer_overlap`, `tlx.local_alias` (legacy `reuse=`), `ttg.local_alloc` and
/// `ttng.tmem_alloc`, wherever they sit (inside `ttg.warp_specialize` partitions too). Every
/// other op, region and generic-form op is skipped without being understood — except one of
/// the ops above in generic form (`"tlx.reuse_group"(…)`), which is refused rather than
/// silently dropped.
///
/// An allocation's buffers and tile follow TLX's `[num] + shape` ([`MemDesc::buffers`]); its
/// name is its SSA name without `%` (`@LINE` added when a name repeats, as in separate
/// partitions).
///
/// Errors: [`AllocError::Mlir`] with the line and column of the culprit — a malformed op of the
/// list, an unknown SSA value, element type or memory space, a layout that cannot hold an
/// allocation, or what [`Program`]'s own checks refuse there.
///
/// ```
/// use alias_alloc::mlir::read_module;
/// use alias_alloc::{Mode, PlanOptions};
/// let m = read_module(r#"
/// #tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
/// module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {
///   tt.func public @k() {
///     %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
///     %qk = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>
///     %p = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x128xbf16, #tmem, #ttng.tensor_memory, mutable>
///     %0 = tlx.reuse_group(%qk, %p) group_kind = shared : (!ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<2x128x128xbf16, #tmem, #ttng.tensor_memory, mutable>) -> !tlx.reuse_group<shared>
///     tlx.set_buffer_overlap(%s, %0) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<shared>) -> ()
///     tt.return
///   }
/// }
/// "#)?;
/// assert_eq!(m.attributes.num_warps, Some(4));
/// let plan = m.program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
/// assert_eq!(plan.spec("s")?.backing_shape, vec![128, 256]);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn read_module(text: &str) -> Result<KernelModule, AllocError> {
    let mut r = Reader {
        src: Source::new(text),
        aliases: Aliases::default(),
        values: HashMap::new(),
        module: KernelModule {
            program: Program::new(),
            attributes: ModuleAttributes {
                cluster_dims: [1, 1, 1],
                ..ModuleAttributes::default()
            },
            specs: Vec::new(),
            allocs: Vec::new(),
        },
    };
    let src = r.src;
    for (start, line) in src.lines() {
        let body = line.trim_start();
        let pos = start + (line.len() - body.len());
        if body.is_empty() || body.starts_with("//") {
            continue;
        }
        if body.starts_with('#') {
            r.alias(pos, body)?;
        } else if body.starts_with("module") {
            r.module_attributes(pos, body)?;
        } else {
            r.operation(pos, body)?;
        }
    }
    Ok(r.module)
}

struct Reader<'a> {
    src: Source<'a>,
    aliases: Aliases,
    values: HashMap<String, Value>,
    module: KernelModule,
}

impl<'a> Reader<'a> {
    /// `#name = value`: an attribute alias (`#loc…` location aliases are skipped).
    fn alias(&mut self, pos: usize, line: &str) -> Result<(), AllocError> {
        let name_len = identifier(line.get(1..).unwrap_or("")).len() + 1;
        let name = line.get(..name_len).unwrap_or("");
        let after = line.get(name_len..).unwrap_or("");
        let Some(value) = after.trim_start().strip_prefix('=') else {
            return Err(self.src.error(
                pos + name_len,
                format!("expected '=' after the alias {name}"),
            ));
        };
        let value = value.trim_start();
        if name_len == 1 {
            return Err(self.src.error(pos, "an alias needs a name after '#'"));
        }
        if value.starts_with("loc(") {
            return Ok(());
        }
        let vpos = pos + (line.len() - value.len());
        // Brackets may carry the value past this line; take it whole.
        let text = match value.find(['<', '(', '{', '[']) {
            Some(open) => {
                let (_, end) = self.src.bracketed(vpos + open, &format!("alias {name}"))?;
                self.src.text().get(vpos..end).unwrap_or(value)
            }
            None => value,
        };
        self.aliases.define(name, text.trim());
        Ok(())
    }

    /// `module [@name] attributes {…} {`.
    fn module_attributes(&mut self, pos: usize, line: &str) -> Result<(), AllocError> {
        let Some(at) = line.find("attributes") else {
            return Ok(());
        };
        let Some(open) = line.get(at..).and_then(|t| t.find('{')).map(|o| at + o) else {
            return Err(self.src.error(pos + at, "expected '{' after 'attributes'"));
        };
        let (dict, _) = self.src.bracketed(pos + open, "the module attributes")?;
        let inner = dict.get(1..dict.len().saturating_sub(1)).unwrap_or("");
        let attrs = &mut self.module.attributes;
        for entry in split_top_level(inner) {
            let (key, value) = match entry.split_once('=') {
                Some((k, v)) => (k.trim().trim_matches('"'), v.trim()),
                None => (entry.trim().trim_matches('"'), "true"),
            };
            let value = value.split(" : ").next().unwrap_or(value).trim();
            let number = || value.parse::<u64>().ok();
            match key {
                "ttg.num-warps" => attrs.num_warps = number(),
                "ttg.num-ctas" => attrs.num_ctas = number(),
                "ttg.threads-per-warp" => attrs.threads_per_warp = number(),
                "ttg.target" => attrs.target = Some(value.trim_matches('"').to_string()),
                "ttg.cluster-dim-x" => attrs.cluster_dims[0] = number().unwrap_or(1),
                "ttg.cluster-dim-y" => attrs.cluster_dims[1] = number().unwrap_or(1),
                "ttg.cluster-dim-z" => attrs.cluster_dims[2] = number().unwrap_or(1),
                "ttng.two-ctas" => attrs.two_ctas = value == "true",
                _ => {}
            }
        }
        Ok(())
    }

    /// One op: its results, its name, and for the ops of [`READ_OPS`] what they say.
    fn operation(&mut self, pos: usize, line: &'a str) -> Result<(), AllocError> {
        let mut at = 0;
        let mut result = None;
        if line.starts_with('%') {
            let Some(eq) = line.find(" = ") else {
                return Ok(()); // not an op line (a block argument list, a wrapped type)
            };
            result = ssa_name(line).map(|(n, _)| n.to_string());
            at = eq + 3;
        }
        let rest = line.get(at..).unwrap_or("").trim_start();
        let op_pos = pos + (line.len() - rest.len());
        if let Some(generic) = rest.strip_prefix('"') {
            let name = generic.split('"').next().unwrap_or("");
            if READ_OPS.contains(&name) {
                return Err(self.src.error(
                    op_pos,
                    format!("'{name}' in generic form is not read: print the module in its custom form (without --mlir-print-op-generic)"),
                ));
            }
            return Ok(());
        }
        let name = identifier(rest);
        if !READ_OPS.contains(&name) {
            return Ok(());
        }
        let args_pos = op_pos + name.len();
        let op = Op {
            name,
            pos: op_pos,
            args: self.src.rest(args_pos),
            args_pos,
            line: self.src.line_column(op_pos).0,
        };
        let need_result = || {
            result.clone().ok_or_else(|| {
                self.src.error(
                    op_pos,
                    format!("'{name}' needs a result (%name = {name} …)"),
                )
            })
        };
        match name {
            "tlx.storage_alias_spec" => self.spec(&op, need_result()?),
            "tlx.storage_alias_local_alloc" => {
                self.allocation(&op, need_result()?, AllocOp::StorageAliasLocalAlloc)
            }
            "tlx.local_alias" => self.allocation(&op, need_result()?, AllocOp::LocalAlias),
            "ttg.local_alloc" => self.allocation(&op, need_result()?, AllocOp::LocalAlloc),
            "ttng.tmem_alloc" => self.allocation(&op, need_result()?, AllocOp::TmemAlloc),
            "tlx.reuse_group" => self.reuse_group(&op, need_result()?),
            _ => self.set_buffer_overlap(&op),
        }
    }

    /// `%s = tlx.storage_alias_spec storage = smem|tmem[, size = N] : …`.
    fn spec(&mut self, op: &Op<'a>, ssa: String) -> Result<(), AllocError> {
        let attrs = op.attributes_before_colon();
        let mut storage = None;
        let mut size = None;
        for entry in split_top_level(attrs) {
            let (key, value) = entry
                .split_once('=')
                .map_or((entry, ""), |(k, v)| (k.trim(), v.trim()));
            match key {
                "storage" => storage = Some(value.parse::<Storage>().map_err(|e| self.at(op, e))?),
                "size" | "buffer_size_bytes" => {
                    size = Some(value.parse::<u64>().map_err(|_| {
                        self.src.error(op.args_pos, format!("size '{value}' is not a byte count"))
                    })?)
                }
                "" => {}
                other => {
                    return Err(self.src.error(
                        op.args_pos,
                        format!("unknown attribute '{other}' of tlx.storage_alias_spec (expected storage, size)"),
                    ))
                }
            }
        }
        let storage = storage.ok_or_else(|| {
            self.src.error(
                op.args_pos,
                "tlx.storage_alias_spec needs storage = smem|tmem",
            )
        })?;
        let name = self.unique_name(&ssa, op.line);
        let id = self
            .module
            .program
            .storage_alias_spec(&name, storage, size)
            .map_err(|e| self.at(op, e))?;
        self.module.specs.push(ModuleSpec {
            spec: id,
            ssa: ssa.clone(),
            line: op.line,
        });
        self.values.insert(ssa, Value::Spec(id));
        Ok(())
    }

    /// An op that makes an allocation: its result memdesc after `->`, its operand for the
    /// aliasing ones.
    fn allocation(&mut self, op: &Op<'a>, ssa: String, kind: AllocOp) -> Result<(), AllocError> {
        let memdesc = self.result_memdesc(op)?;
        let reuse = match kind {
            AllocOp::StorageAliasLocalAlloc => match self.operand(op, 0)? {
                Value::Spec(s) => Reuse::Spec(s),
                _ => return Err(self.src.error(
                    op.args_pos,
                    "the operand of tlx.storage_alias_local_alloc is not a tlx.storage_alias_spec",
                )),
            },
            AllocOp::LocalAlias => match self.operand(op, 0)? {
                Value::Alloc(a) => Reuse::Alloc(a),
                _ => {
                    return Err(self.src.error(
                        op.args_pos,
                        "the operand of tlx.local_alias is not an allocation",
                    ))
                }
            },
            AllocOp::LocalAlloc | AllocOp::TmemAlloc => Reuse::None,
        };
        let storage = memdesc.storage().map_err(|m| self.src.error(op.pos, m))?;
        let expected = match kind {
            AllocOp::LocalAlloc => Some(Storage::Smem),
            AllocOp::TmemAlloc => Some(Storage::Tmem),
            _ => None,
        };
        if expected.is_some_and(|s| s != storage) {
            return Err(self
                .src
                .error(op.pos, format!("{} of {storage} memory", kind.name())));
        }
        let (num, shape) = memdesc.buffers();
        let dtype = memdesc.dtype().map_err(|m| self.src.error(op.pos, m))?;
        let layout = memdesc
            .layout()
            .map_err(|m| self.src.error(op.pos, format!("the layout of %{ssa}: {m}")))?;
        let name = self.unique_name(&ssa, op.line);
        let mut allocation = Allocation {
            name,
            shape,
            dtype,
            num,
            storage,
            reuse,
            layout,
            align: None,
        };
        if storage == Storage::Smem && kind != AllocOp::StorageAliasLocalAlloc {
            // Triton lays the buffers of a plain memdesc end to end from an aligned start, so
            // buffer i is only as aligned as its byte size allows (an mbarrier array: 8 bytes),
            // not TLX's 128 bytes per aliased buffer.
            let bytes = allocation.bytes_per_buffer().max(1);
            allocation.align = Some((1u64 << bytes.trailing_zeros()).min(128));
        }
        let id = self
            .module
            .program
            .alloc(allocation)
            .map_err(|e| self.at(op, e))?;
        self.module.allocs.push(ModuleAlloc {
            alloc: id,
            ssa: ssa.clone(),
            op: kind,
            memdesc,
            line: op.line,
        });
        self.values.insert(ssa, Value::Alloc(id));
        Ok(())
    }

    /// `%g = tlx.reuse_group(%a, %b, …) group_kind = shared|distinct[, group_size = k] : …`.
    fn reuse_group(&mut self, op: &Op<'a>, ssa: String) -> Result<(), AllocError> {
        let (members, after) = self.operand_list(op)?;
        let attrs = after.split(" : ").next().unwrap_or(after);
        let mut kind = None;
        let mut size = 1;
        for entry in split_top_level(attrs) {
            let (key, value) = entry
                .split_once('=')
                .map_or((entry, ""), |(k, v)| (k.trim(), v.trim()));
            match key {
                "group_kind" => {
                    kind = Some(match value {
                        "shared" => GroupKind::Shared,
                        "distinct" => GroupKind::Distinct,
                        other => return Err(self.src.error(op.args_pos, format!("group_kind '{other}' (expected shared or distinct)"))),
                    })
                }
                "group_size" => {
                    size = value.split(':').next().unwrap_or("").trim().parse().map_err(|_| {
                        self.src.error(op.args_pos, format!("group_size '{value}' is not a count"))
                    })?
                }
                "" => {}
                other => return Err(self.src.error(op.args_pos, format!("unknown attribute '{other}' of tlx.reuse_group (expected group_kind, group_size)"))),
            }
        }
        let kind = kind.ok_or_else(|| {
            self.src.error(
                op.args_pos,
                "tlx.reuse_group needs group_kind = shared|distinct",
            )
        })?;
        let members = members
            .into_iter()
            .map(|v| match v {
                Value::Alloc(a) => Ok(Member::Alloc(a)),
                Value::Group(g) => Ok(Member::Group(g)),
                Value::Spec(_) => Err(self.src.error(
                    op.args_pos,
                    "a storage_alias_spec cannot be a member of a reuse_group",
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let group = ReuseGroup::new(kind, members)
            .and_then(|g| g.group_size(size))
            .map_err(|e| self.at(op, e))?;
        self.values.insert(ssa, Value::Group(group));
        Ok(())
    }

    /// `tlx.set_buffer_overlap(%spec, %group) : …`.
    fn set_buffer_overlap(&mut self, op: &Op<'a>) -> Result<(), AllocError> {
        let (operands, _) = self.operand_list(op)?;
        match operands.as_slice() {
            [Value::Spec(s), Value::Group(g)] => {
                let (s, g) = (*s, g.clone());
                self.module
                    .program
                    .set_buffer_overlap(s, g)
                    .map_err(|e| self.at(op, e))
            }
            _ => Err(self.src.error(
                op.args_pos,
                "tlx.set_buffer_overlap takes (%spec, %reuse_group)",
            )),
        }
    }

    /// The `(%a, %b, …)` operand list right after the op name, and the text after it.
    fn operand_list(&self, op: &Op<'a>) -> Result<(Vec<Value>, &'a str), AllocError> {
        let lead = op.args.len() - op.args.trim_start().len();
        let open = op.args_pos + lead;
        if !op.args.trim_start().starts_with('(') {
            return Err(self
                .src
                .error(open, format!("expected '(' after {}", op.name)));
        }
        let (list, end) = self
            .src
            .bracketed(open, &format!("the operands of {}", op.name))?;
        let inner = list.get(1..list.len().saturating_sub(1)).unwrap_or("");
        let values = split_top_level(inner)
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(|s| self.value(open + 1 + inner.find(s).unwrap_or(0), s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((values, self.src.rest(end)))
    }

    /// Operand `index` of an op written `op %a, %b : …`.
    fn operand(&self, op: &Op<'a>, index: usize) -> Result<Value, AllocError> {
        let operands = op.attributes_before_colon();
        let text = split_top_level(operands)
            .into_iter()
            .nth(index)
            .unwrap_or("");
        let at = op.args.find(text).filter(|_| !text.is_empty());
        self.value(at.map_or(op.args_pos, |i| op.args_pos + i), text)
    }

    /// The value an SSA name stands for.
    fn value(&self, pos: usize, text: &str) -> Result<Value, AllocError> {
        let name = ssa_name(text.trim()).map(|(n, _)| n).ok_or_else(|| {
            self.src.error(
                pos,
                format!("expected an SSA value (%name), found '{}'", text.trim()),
            )
        })?;
        self.values.get(name).cloned().ok_or_else(|| {
            self.src.error(
                pos,
                format!("%{name} is not a spec, allocation or reuse_group defined before this op"),
            )
        })
    }

    /// The memdesc after `->` on the op's line.
    fn result_memdesc(&self, op: &Op<'a>) -> Result<MemDesc, AllocError> {
        const ARROW: &str = "-> !ttg.memdesc<";
        let line_end = op.args.find('\n').unwrap_or(op.args.len());
        let at = op
            .args
            .get(..line_end)
            .and_then(|l| l.find(ARROW))
            .ok_or_else(|| {
                self.src.error(
                    op.args_pos,
                    format!("expected '{ARROW}…>' (the result type of {})", op.name),
                )
            })?;
        let open = op.args_pos + at + ARROW.len() - 1;
        let (ty, _) = self.src.bracketed(open, "the memdesc type")?;
        let body = ty.get(1..ty.len().saturating_sub(1)).unwrap_or("");
        MemDesc::parse_with(body, &self.aliases).map_err(|m| self.src.error(open, m))
    }

    /// `ssa`, or `ssa@LINE` when a spec or allocation already has that name.
    fn unique_name(&self, ssa: &str, line: usize) -> String {
        let p = &self.module.program;
        if p.spec_id(ssa).is_some() || p.alloc_id(ssa).is_some() {
            format!("{ssa}@{line}")
        } else {
            ssa.to_string()
        }
    }

    /// A program error placed at the op.
    fn at(&self, op: &Op<'a>, e: AllocError) -> AllocError {
        let (line, column) = self.src.line_column(op.pos);
        AllocError::Located {
            line,
            column,
            error: Box::new(e),
        }
    }
}

/// One op of [`READ_OPS`] being read.
struct Op<'a> {
    name: &'a str,
    /// Byte offset of the op name.
    pos: usize,
    /// The text after the op name (to the end of the module).
    args: &'a str,
    /// Byte offset of `args`.
    args_pos: usize,
    /// 1-based line.
    line: usize,
}

impl<'a> Op<'a> {
    /// The op's text between its name and ` : ` (its operands and attributes), on its line.
    fn attributes_before_colon(&self) -> &'a str {
        let line = self.args.split('\n').next().unwrap_or("");
        let line = line.split(" loc(").next().unwrap_or(line);
        line.split(" : ").next().unwrap_or(line).trim()
    }
}
