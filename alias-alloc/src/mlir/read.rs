//! [`read_module`]: a TTGIR module as the TLX fork prints it → the [`Program`] of its specs,
//! allocations and reuse trees, with where each came from.

use std::collections::HashMap;

use super::memdesc::MemDesc;
use crate::reuse_group::MAX_TREE_DEPTH;
use crate::{
    AllocError, AllocId, Allocation, GroupKind, Member, Program, Reuse, ReuseGroup, SpecId,
    Storage, Target,
};
use linear_layout::families::Encoding;
use linear_layout::mlir::{
    MlirError, MlirErrorKind, Module, OpId, OpKind, Operation, TopItem, ValueId,
};
use linear_layout::text::aliases::Aliases;
use linear_layout::LayoutError;

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
    /// The op in the module.
    pub op: OpId,
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
    /// The op in the module.
    pub op_id: OpId,
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
    /// The module itself, read once: what the lowering edits and prints.
    pub module: Module,
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
    /// Whether any op of the module is a `tlx.*` op: a module without one is most likely past
    /// the storage-alias lowering ([`Warning::NoTlxOps`](crate::Warning::NoTlxOps)).
    pub fn has_tlx_ops(&self) -> bool {
        self.module.walk().into_iter().any(|id| {
            self.module
                .op(id)
                .is_some_and(|op| op.name().starts_with("tlx."))
        })
    }

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

    /// The module as a plan file: its program and the target it names (none when it names
    /// none), with what the reader warns about ([`Warning::NoTlxOps`](crate::Warning::NoTlxOps)
    /// for a module without `tlx.*` ops).
    ///
    /// # Errors
    /// A `ttg.target` that is not a CUDA target this crate knows.
    pub fn into_plan_file(
        self,
    ) -> Result<(crate::plan_file::PlanFile, Vec<crate::Warning>), AllocError> {
        let warnings = if self.has_tlx_ops() {
            Vec::new()
        } else {
            vec![crate::Warning::NoTlxOps]
        };
        let target = match self.attributes.target {
            Some(_) => Some(self.target()?),
            None => None,
        };
        Ok((
            crate::plan_file::PlanFile {
                target,
                program: self.program,
            },
            warnings,
        ))
    }

    /// The allocation made by the op whose result is `%ssa`.
    pub fn alloc_by_ssa(&self, ssa: &str) -> Option<&ModuleAlloc> {
        self.allocs.iter().find(|a| a.ssa == ssa)
    }
}

/// What an SSA value of the module is, for the ops that use it.
#[derive(Debug, Clone)]
enum Meaning {
    Spec(SpecId),
    Alloc(AllocId),
    Group(ReuseGroup),
    /// A reuse group already taken as a member of the group made at this line: a group has
    /// one parent, and moving it there keeps a deep or shared tree from being copied per use.
    Member(usize),
}

/// Reads a TTGIR module — as `MLIR_ENABLE_DUMP=1`, `TRITON_KERNEL_DUMP` or `triton-opt` print it,
/// with or without `loc(…)` locations — into the [`Program`] it allocates, keeping the module
/// itself ([`KernelModule::module`], the [`linear_layout::mlir`] model) for what edits it.
///
/// Read: attribute aliases (resolved in order, an alias may use an earlier one), the module
/// attributes, and the ops `tlx.storage_alias_spec` (with or without `size`),
/// `tlx.storage_alias_local_alloc`, `tlx.reuse_group`, `tlx.set_buffer_overlap`,
/// `tlx.local_alias` (legacy `reuse=`), `ttg.local_alloc` and `ttng.tmem_alloc`, wherever they
/// sit (inside `ttg.warp_specialize` partitions too). Every other op is read by the model (its
/// defs, uses and regions) and has no part in the program — except one of the ops above in
/// generic form (`"tlx.reuse_group"(…)`), which is refused rather than silently dropped.
///
/// An allocation's buffers and tile follow TLX's `[num] + shape` ([`MemDesc::buffers`]); its
/// name is its SSA name without `%` (`@LINE` added when a name repeats, as in separate
/// partitions).
///
/// Errors: [`AllocError::Syntax`] where the text is not a module (a bracket or region left
/// open — a module cut short —, a value used before any op defines it), [`AllocError::Mlir`]
/// with the line and column of the culprit — a malformed op of the list, an operand of the
/// wrong kind, an unknown element type or memory space, a layout that cannot hold an
/// allocation — or what [`Program`]'s own checks refuse there ([`AllocError::Located`]).
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
    let module = Module::parse(text)?;
    // A module with its body: a text cut right after `module attributes {…}` has none.
    let is_module = |o: &OpId| {
        module.op(*o).is_some_and(|op| {
            (op.kind() == Some(OpKind::Module) || op.name() == "builtin.module")
                && !op.regions().is_empty()
        })
    };
    let modules: Vec<OpId> = module.top_ops().iter().copied().filter(is_module).collect();
    if modules.len() > 1 {
        return Err(several_modules(text, &module, &modules));
    }
    if modules.is_empty() {
        // Aliases alone, or a dump cut before its module, are not a kernel.
        let (line, column) = linear_layout::mlir::error::line_column(text, text.len());
        return Err(AllocError::Syntax(MlirError {
            line,
            column,
            kind: MlirErrorKind::Expected {
                expected:
                    "a module with its body (`module {` … `}` or `module attributes {…} {` … `}`)",
                found: "end of input".into(),
            },
        }));
    }
    // Where each alias's value starts (line, column), to place an error in it there.
    let lines: Vec<&str> = text.lines().collect();
    let mut definitions = HashMap::new();
    for item in module.top_level() {
        if let TopItem::Alias(a) = item {
            let column = lines
                .get(a.line.saturating_sub(1))
                .and_then(|l| l.find(&a.value))
                .map_or(1, |c| c + 1);
            definitions.insert(a.name.clone(), (a.line, column, a.value.clone()));
        }
    }
    let mut r = Reader {
        definitions,
        aliases: module.aliases(),
        meanings: HashMap::new(),
        out: KernelModule {
            module: Module::default(),
            program: Program::new(),
            attributes: ModuleAttributes {
                cluster_dims: [1, 1, 1],
                ..ModuleAttributes::default()
            },
            specs: Vec::new(),
            allocs: Vec::new(),
        },
    };
    for id in module.walk() {
        let Some(op) = module.op(id) else { continue };
        r.op(&module, id, op)?;
    }
    r.out.module = module;
    Ok(r.out)
}

/// The refusal of a text holding several modules (a whole `MLIR_ENABLE_DUMP` output): each
/// module's line and the dump heading above it, at the second module.
fn several_modules(text: &str, module: &Module, modules: &[OpId]) -> AllocError {
    const DUMP: &str = "// -----// IR Dump ";
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::with_capacity(modules.len());
    let mut at = (1, 1);
    for (k, id) in modules.iter().enumerate() {
        let Some(op) = module.op(*id) else { continue };
        let (line, column) = op.position();
        if k == 1 {
            at = (line, column);
        }
        let heading = lines
            .iter()
            .take(line.saturating_sub(1))
            .rev()
            .take_while(|l| !l.trim_start().starts_with('}'))
            .find_map(|l| l.trim_start().strip_prefix(DUMP))
            .map(|h| {
                let name = h.split(" (").next().unwrap_or(h).trim();
                format!(" ({name})")
            })
            .unwrap_or_default();
        found.push(format!("line {line}{heading}"));
    }
    AllocError::Mlir {
        line: at.0,
        column: at.1,
        message: format!(
            "the file holds {} modules ({}): keep the one after `// -----// IR Dump Before \
             TLXStorageAliasLowering` (docs/plan-from-ir.md)",
            modules.len(),
            found.join(", ")
        ),
    }
}

struct Reader {
    /// Alias name → (line, column of its value, its value as written).
    definitions: HashMap<String, (usize, usize, String)>,
    aliases: Aliases,
    meanings: HashMap<ValueId, Meaning>,
    out: KernelModule,
}

/// An [`AllocError::Mlir`] at `op`.
fn at_op(op: &Operation, message: impl Into<String>) -> AllocError {
    let (line, column) = op.position();
    AllocError::Mlir {
        line,
        column,
        message: message.into(),
    }
}

/// A program error placed at `op`.
fn located(op: &Operation, e: AllocError) -> AllocError {
    let (line, column) = op.position();
    AllocError::Located {
        line,
        column,
        error: Box::new(e),
    }
}

impl Reader {
    /// One op: the ops that allocate or alias are read, every other kind is named and let be
    /// (a new [`OpKind`] does not compile until it is placed here).
    fn op(&mut self, m: &Module, id: OpId, op: &Operation) -> Result<(), AllocError> {
        let Some(kind) = op.kind() else {
            return Ok(());
        };
        if op.is_generic() && Self::reads(kind) {
            return Err(at_op(op, format!("'{}' in generic form is not read: print the module in its custom form (without --mlir-print-op-generic)", op.name())));
        }
        match kind {
            OpKind::Module => self.module_attributes(op),
            OpKind::StorageAliasSpec => self.spec(m, id, op),
            OpKind::StorageAliasLocalAlloc => {
                self.allocation(m, id, op, AllocOp::StorageAliasLocalAlloc)
            }
            OpKind::LocalAlias => self.allocation(m, id, op, AllocOp::LocalAlias),
            OpKind::LocalAlloc => self.allocation(m, id, op, AllocOp::LocalAlloc),
            OpKind::TmemAlloc => self.allocation(m, id, op, AllocOp::TmemAlloc),
            OpKind::ReuseGroup => self.reuse_group(m, op),
            OpKind::SetBufferOverlap => self.set_buffer_overlap(op),
            OpKind::Func
            | OpKind::Return
            | OpKind::MemdescIndex
            | OpKind::MemdescSubslice
            | OpKind::MemdescReinterpret
            | OpKind::MemdescTrans
            | OpKind::TmemSubslice
            | OpKind::LocalLoad
            | OpKind::LocalStore
            | OpKind::TmemLoad
            | OpKind::TmemStore
            | OpKind::TmemCopy
            | OpKind::WarpSpecialize
            | OpKind::WarpYield
            | OpKind::WarpReturn
            | OpKind::For
            | OpKind::If
            | OpKind::While
            | OpKind::Condition
            | OpKind::Yield
            | OpKind::Constant
            | OpKind::InitBarrier
            | OpKind::InvalBarrier
            | OpKind::BarrierExpect
            | OpKind::ArriveBarrier
            | OpKind::WaitBarrier
            | OpKind::AsyncTmaCopyGlobalToLocal
            | OpKind::AsyncTmaCopyLocalToGlobal
            | OpKind::AsyncTmaStoreWait
            | OpKind::TcGen5Mma
            | OpKind::TcGen5MmaScaled
            | OpKind::TcGen5Commit
            | OpKind::FenceAsyncShared
            | OpKind::AsyncClcTryCancel => Ok(()),
        }
    }

    /// Whether the reader takes `kind` into the program.
    fn reads(kind: OpKind) -> bool {
        matches!(
            kind,
            OpKind::StorageAliasSpec
                | OpKind::StorageAliasLocalAlloc
                | OpKind::LocalAlias
                | OpKind::LocalAlloc
                | OpKind::TmemAlloc
                | OpKind::ReuseGroup
                | OpKind::SetBufferOverlap
        )
    }

    /// `module [@name] attributes {…}`.
    fn module_attributes(&mut self, op: &Operation) -> Result<(), AllocError> {
        let attrs = &mut self.out.attributes;
        for (key, value) in op.attributes() {
            let value = value.split(" : ").next().unwrap_or(value).trim();
            let number = || value.parse::<u64>().ok();
            match key.as_str() {
                "ttg.num-warps" => attrs.num_warps = number(),
                "ttg.num-ctas" => attrs.num_ctas = number(),
                "ttg.threads-per-warp" => attrs.threads_per_warp = number(),
                "ttg.target" => attrs.target = Some(value.trim_matches('"').to_string()),
                "ttg.cluster-dim-x" => attrs.cluster_dims[0] = number().unwrap_or(1),
                "ttg.cluster-dim-y" => attrs.cluster_dims[1] = number().unwrap_or(1),
                "ttg.cluster-dim-z" => attrs.cluster_dims[2] = number().unwrap_or(1),
                "ttng.two-ctas" => attrs.two_ctas = value == "true" || value.is_empty(),
                _ => {}
            }
        }
        Ok(())
    }

    /// The SSA name of result 0, or an error naming the op.
    fn result(m: &Module, op: &Operation) -> Result<(ValueId, String), AllocError> {
        op.results()
            .first()
            .and_then(|&v| m.value(v).map(|x| (v, x.name().to_string())))
            .ok_or_else(|| {
                at_op(
                    op,
                    format!("'{0}' needs a result (%name = {0} …)", op.name()),
                )
            })
    }

    /// `%s = tlx.storage_alias_spec storage = smem|tmem[, size = N] : …`.
    fn spec(&mut self, m: &Module, id: OpId, op: &Operation) -> Result<(), AllocError> {
        let (v, ssa) = Self::result(m, op)?;
        let mut storage = None;
        let mut size = None;
        for (key, value) in op.attributes() {
            match key.as_str() {
                "storage" => {
                    storage = Some(value.parse::<Storage>().map_err(|e| located(op, e))?)
                }
                "size" | "buffer_size_bytes" => {
                    let n = value.split(':').next().unwrap_or("").trim();
                    size = Some(n.parse::<u64>().map_err(|_| {
                        at_op(op, format!("size '{value}' is not a byte count"))
                    })?)
                }
                other => {
                    return Err(at_op(
                        op,
                        format!("unknown attribute '{other}' of tlx.storage_alias_spec (expected storage, size)"),
                    ))
                }
            }
        }
        let storage =
            storage.ok_or_else(|| at_op(op, "tlx.storage_alias_spec needs storage = smem|tmem"))?;
        let line = op.position().0;
        let name = self.unique_name(&ssa, line);
        let spec = self
            .out
            .program
            .storage_alias_spec(&name, storage, size)
            .map_err(|e| located(op, e))?;
        self.out.specs.push(ModuleSpec {
            spec,
            op: id,
            ssa,
            line,
        });
        self.meanings.insert(v, Meaning::Spec(spec));
        Ok(())
    }

    /// The meaning of operand `k` of `op`.
    fn operand(&self, m: &Module, op: &Operation, k: usize) -> Result<Meaning, AllocError> {
        let v = op
            .operands()
            .get(k)
            .copied()
            .ok_or_else(|| at_op(op, format!("'{}' needs an operand", op.name())))?;
        self.meanings.get(&v).cloned().ok_or_else(|| {
            let name = m.value(v).map_or_else(String::new, |x| x.use_name());
            at_op(
                op,
                format!("{name} is not a spec, allocation or reuse_group defined before this op"),
            )
        })
    }

    /// An op that makes an allocation: its result memdesc, its operand for the aliasing ones.
    fn allocation(
        &mut self,
        m: &Module,
        id: OpId,
        op: &Operation,
        kind: AllocOp,
    ) -> Result<(), AllocError> {
        let (v, ssa) = Self::result(m, op)?;
        let memdesc = self.result_memdesc(m, op, v)?;
        let reuse = match kind {
            AllocOp::StorageAliasLocalAlloc => match self.operand(m, op, 0)? {
                Meaning::Spec(s) => Reuse::Spec(s),
                _ => return Err(at_op(
                    op,
                    "the operand of tlx.storage_alias_local_alloc is not a tlx.storage_alias_spec",
                )),
            },
            AllocOp::LocalAlias => match self.operand(m, op, 0)? {
                Meaning::Alloc(a) => Reuse::Alloc(a),
                _ => {
                    return Err(at_op(
                        op,
                        "the operand of tlx.local_alias is not an allocation",
                    ))
                }
            },
            AllocOp::LocalAlloc | AllocOp::TmemAlloc => Reuse::None,
        };
        let storage = memdesc.storage().map_err(|e| at_op(op, e))?;
        let expected = match kind {
            AllocOp::LocalAlloc => Some(Storage::Smem),
            AllocOp::TmemAlloc => Some(Storage::Tmem),
            _ => None,
        };
        if expected.is_some_and(|s| s != storage) {
            return Err(at_op(op, format!("{} of {storage} memory", kind.name())));
        }
        let (num, shape) = memdesc.buffers();
        let dtype = memdesc.dtype().map_err(|e| at_op(op, e))?;
        let layout = memdesc.layout().map_err(|source| {
            self.in_alias_definition(&memdesc.encoding, &ssa, op)
                .unwrap_or_else(|| {
                    located(
                        op,
                        AllocError::InvalidLayout {
                            alloc: ssa.clone(),
                            source: Box::new(source),
                        },
                    )
                })
        })?;
        let line = op.position().0;
        let name = self.unique_name(&ssa, line);
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
        let alloc = self
            .out
            .program
            .alloc(allocation)
            .map_err(|e| located(op, e))?;
        self.out.allocs.push(ModuleAlloc {
            alloc,
            op_id: id,
            ssa,
            op: kind,
            memdesc,
            line,
        });
        self.meanings.insert(v, Meaning::Alloc(alloc));
        Ok(())
    }

    /// `%g = tlx.reuse_group(%a, %b, …) group_kind = shared|distinct[, group_size = k] : …`.
    fn reuse_group(&mut self, m: &Module, op: &Operation) -> Result<(), AllocError> {
        let (v, _) = Self::result(m, op)?;
        let mut kind = None;
        let mut size = 1;
        for (key, value) in op.attributes() {
            match key.as_str() {
                "group_kind" => {
                    kind = Some(match value.as_str() {
                        "shared" => GroupKind::Shared,
                        "distinct" => GroupKind::Distinct,
                        other => {
                            return Err(at_op(
                                op,
                                format!("group_kind '{other}' (expected shared or distinct)"),
                            ))
                        }
                    })
                }
                "group_size" => {
                    size = value
                        .split(':')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .parse()
                        .map_err(|_| at_op(op, format!("group_size '{value}' is not a count")))?
                }
                other => {
                    return Err(at_op(
                        op,
                        format!("unknown attribute '{other}' of tlx.reuse_group (expected group_kind, group_size)"),
                    ))
                }
            }
        }
        let kind =
            kind.ok_or_else(|| at_op(op, "tlx.reuse_group needs group_kind = shared|distinct"))?;
        let line = op.position().0;
        let mut members = Vec::with_capacity(op.operands().len());
        for (k, &v) in op.operands().iter().enumerate() {
            // A member group moves into this one; a second use is refused here, before any copy.
            if let Some(Meaning::Group(_) | Meaning::Member(_)) = self.meanings.get(&v) {
                match self.meanings.insert(v, Meaning::Member(line)) {
                    Some(Meaning::Group(g)) => members.push(Member::Group(g)),
                    Some(Meaning::Member(first)) => {
                        let name = m.value(v).map_or_else(String::new, |x| x.use_name());
                        return Err(at_op(
                            op,
                            format!(
                                "reuse_group {name} is already a member of the reuse_group at \
                                 line {first}: a group has one parent"
                            ),
                        ));
                    }
                    _ => {}
                }
                continue;
            }
            members.push(match self.operand(m, op, k)? {
                Meaning::Alloc(a) => Member::Alloc(a),
                Meaning::Spec(_) => {
                    return Err(at_op(
                        op,
                        "a storage_alias_spec cannot be a member of a reuse_group",
                    ))
                }
                Meaning::Group(_) | Meaning::Member(_) => continue,
            });
        }
        // Its members are at most MAX_TREE_DEPTH deep (each was refused past it), so this
        // count stays shallow; past the limit the op is refused before the tree grows.
        let depth = 1 + members
            .iter()
            .map(|c| match c {
                Member::Group(g) => g.depth(),
                Member::Alloc(_) => 0,
            })
            .max()
            .unwrap_or(0);
        if depth > MAX_TREE_DEPTH {
            return Err(located(
                op,
                AllocError::TreeTooDeep {
                    what: "tlx.reuse_group".into(),
                    depth,
                    limit: MAX_TREE_DEPTH,
                },
            ));
        }
        let group = ReuseGroup::new(kind, members)
            .and_then(|g| g.group_size(size))
            .map_err(|e| located(op, e))?;
        self.meanings.insert(v, Meaning::Group(group));
        Ok(())
    }

    /// `tlx.set_buffer_overlap(%spec, %group) : …`.
    fn set_buffer_overlap(&mut self, op: &Operation) -> Result<(), AllocError> {
        let meanings: Vec<Option<&Meaning>> =
            op.operands().iter().map(|v| self.meanings.get(v)).collect();
        match meanings.as_slice() {
            [Some(Meaning::Spec(s)), Some(Meaning::Group(g))] => {
                let (s, g) = (*s, g.clone());
                self.out
                    .program
                    .set_buffer_overlap(s, g)
                    .map_err(|e| located(op, e))
            }
            _ => Err(at_op(
                op,
                "tlx.set_buffer_overlap takes (%spec, %reuse_group)",
            )),
        }
    }

    /// The memdesc type of result `v`.
    fn result_memdesc(
        &self,
        m: &Module,
        op: &Operation,
        v: ValueId,
    ) -> Result<MemDesc, AllocError> {
        let ty = m.value(v).and_then(|x| x.ty()).unwrap_or("");
        let body = ty
            .strip_prefix("!ttg.memdesc<")
            .and_then(|b| b.strip_suffix('>'))
            .ok_or_else(|| {
                at_op(
                    op,
                    format!(
                        "expected '-> !ttg.memdesc<…>' (the result type of {})",
                        op.name()
                    ),
                )
            })?;
        MemDesc::parse_with(body, &self.aliases).map_err(|e| at_op(op, e))
    }

    /// The error of an encoding written as an alias (`#shared`) whose own text does not parse,
    /// placed in the alias's definition (a column inside the attribute counted from its line),
    /// naming the allocation that uses it; `None` when `encoding` is no alias or its text reads.
    fn in_alias_definition(&self, encoding: &str, ssa: &str, op: &Operation) -> Option<AllocError> {
        let (line, column, value) = self.definitions.get(encoding.trim())?;
        let Err(LayoutError::Parse(message)) = Encoding::from_mlir(&self.aliases.resolve(value))
        else {
            return None;
        };
        // `#ttg.nvmma_shared, column 20: unknown key …`: the column counts inside the value.
        let (inner, message) = match message.split_once(", column ") {
            Some((head, rest)) => match rest.split_once(": ") {
                Some((n, tail)) => (n.parse::<usize>().ok(), format!("{head}: {tail}")),
                None => (None, message.clone()),
            },
            None => (None, message.clone()),
        };
        let column = inner.map_or(*column, |n| column.saturating_add(n.saturating_sub(1)));
        Some(AllocError::Mlir {
            line: *line,
            column,
            message: format!(
                "{}: {message} (the layout of '{ssa}', line {})",
                encoding.trim(),
                op.position().0
            ),
        })
    }

    /// `ssa`, or `ssa@LINE` when a spec or allocation already has that name.
    fn unique_name(&self, ssa: &str, line: usize) -> String {
        let p = &self.out.program;
        if p.spec_id(ssa).is_some() || p.alloc_id(ssa).is_some() {
            format!("{ssa}@{line}")
        } else {
            ssa.to_string()
        }
    }
}
