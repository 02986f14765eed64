//! [`read_kernel`]: a TTGIR module before the storage-alias lowering, run on its integer
//! arithmetic for one set of parameters, → the [`Trace`] of what its partitions, tensor cores
//! and TMA copies do (`docs/hazard-check.md`, *Reading a kernel*).
//!
//! Every slot index (`memdesc_index`), phase, predicate, loop bound and branch condition is
//! evaluated exactly on `arith` ops; a value the reader cannot compute (tensor data, a CLC
//! response) where the synchronisation depends on it is refused with the op that needs it,
//! never guessed. Footprints come from the allocation plan: buffer `i` of an allocation covers
//! `placement(i) … + unit` of its region (bytes of SMEM, 32-bit columns × 128 lanes of TMEM),
//! so the `shared` aliasing of a reuse tree and the legacy `reuse=` views overlap exactly
//! where the plan puts them; distinct regions never overlap.

use std::collections::{BTreeMap, HashMap};

use linear_layout::mlir::{Module, OpId, OpKind, Operation, RegionId, TypedOp, ValueDef, ValueId};
use linear_layout::text::aliases::Aliases;

use super::error::HazardError;
use super::subslice::subslice_bytes;
use super::trace::{
    BarrierId, Cells, EventId, Space, TimelineId, Trace, TraceBuilder, CLUSTER_SYNC,
};
use super::warp_group::{WarpGroups, WARPS_PER_GROUP};
use crate::mlir::{read_module, MemDesc};
use crate::{Mode, Plan, PlanOptions, Storage};

/// What [`read_kernel`] needs besides the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// The plan mode whose placement the footprints follow.
    pub mode: Mode,
    /// Values of the kernel's integer parameters, by name; see [`ReadOptions::laps`] for the
    /// ones left out.
    pub params: BTreeMap<String, i64>,
    /// A parameter left out that bounds a loop (`scf.for … to %N_CTX step 128`, or to
    /// `N_CTX / 128` step 1; through the partitions' captures) is `laps · 128` (of the longest
    /// step where it bounds several loops); any other is 1.
    /// [`read_kernel`] raises it to `R + 1` where a `memdesc_index` picks among `R` barriers
    /// with an index that is not constant (a ring of `R` slots), so that every slot's reuse is
    /// in the trace. One trip count is one case: [`TripCounts`](super::TripCounts) gives the
    /// laps that cover every residue modulo the period of the rings.
    pub laps: i64,
    /// `tt.get_program_id`.
    pub program_id: i64,
    /// `tt.get_num_programs`.
    pub num_programs: i64,
    /// The most events the trace may have.
    pub max_events: usize,
    /// Warps of the default region where the module does not say (`ttg.num-warps`).
    pub default_warps: u64,
    /// Tiles a CLC `try_cancel` hands out before it answers none (`clc_query_cancel` gives -1).
    pub clc_tiles: i64,
    /// What one step of an integer-array parameter read by a scalar `tt.load` adds: the array
    /// is taken as cumulative offsets (`cu_seqlens`), element i = i · `seq_stride`. `None`:
    /// `laps` laps of the loops such a length bounds (`laps · 128` for `scf.for … to
    /// %seq_len step 128`), 512 where it bounds none.
    pub seq_stride: Option<i64>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            mode: Mode::TlxCompatible,
            params: BTreeMap::new(),
            laps: 4,
            program_id: 0,
            num_programs: 1,
            max_events: 20_000,
            default_warps: 4,
            clc_tiles: 2,
            seq_stride: None,
        }
    }
}

/// Where an event of the trace comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The op's name.
    pub op: String,
    /// Its 1-based line.
    pub line: usize,
    /// Its location, as written (`loc(#loc33)`).
    pub location: Option<String>,
    /// The buffer it touches or the barrier it uses (`kv_tiles[1]`), where one.
    pub buffer: Option<String>,
    /// The iteration of every loop around it, outermost first.
    pub iteration: Vec<i64>,
    /// The induction variable of every loop around it and the loop's step, outermost first
    /// (an `scf.while`: its iteration and 1).
    pub induction: Vec<(i64, i64)>,
}

/// A kernel read into a trace.
#[derive(Debug, Clone)]
pub struct KernelTrace {
    /// The trace.
    pub trace: Trace,
    /// Per event, where it comes from.
    pub origins: Vec<Origin>,
    /// The parameter values the trace was read with.
    pub params: BTreeMap<String, i64>,
    /// Where loops run over lengths read from memory (`cu_seqlens`): the stride the reader took
    /// ([`ReadOptions::seq_stride`]).
    pub seq_stride: Option<i64>,
    /// The tile position the trace was read at: `tt.get_program_id` and `tt.get_num_programs`
    /// ([`ReadOptions::program_id`], [`ReadOptions::num_programs`]).
    pub tile: (i64, i64),
    /// The tiles a CLC `try_cancel` handed out ([`ReadOptions::clc_tiles`]).
    pub clc_tiles: i64,
}

impl KernelTrace {
    /// Event `e`'s loop induction variables and steps, outermost first ([`Origin::induction`]).
    pub(super) fn induction(&self, e: usize) -> &[(i64, i64)] {
        self.origins
            .get(e)
            .map_or(&[][..], |o| o.induction.as_slice())
    }

    /// A refusal of event `e`'s op, at its line, for `reason`.
    pub(super) fn refuse(&self, e: usize, reason: &str) -> HazardError {
        let o = self.origins.get(e);
        HazardError::Unsupported {
            op: o.map_or_else(String::new, |o| o.op.clone()),
            line: o.map_or(0, |o| o.line),
            reason: reason.to_string(),
        }
    }
}

/// A value of the interpreter.
#[derive(Debug, Clone)]
enum Val {
    Int(i64),
    Mem(Box<Mem>),
    /// A scalar pointer: the integer-array parameter it points into and the index.
    Ptr(String, i64),
    Opaque,
}

/// A view of an allocation: where it lies in its region, and how it splits further.
#[derive(Debug, Clone)]
struct Mem {
    /// The allocation's name and the indices taken so far.
    name: String,
    /// Its plan (`Some` while no buffer index has been taken).
    root: Option<usize>,
    region: usize,
    space: Space,
    /// First unit (byte or column) in the region, and how many.
    start: u64,
    len: u64,
    /// Where a shared-memory subslice covers only some of them: those byte ranges of the
    /// region.
    bytes: Option<Vec<(u64, u64)>>,
    /// The CTA of the cluster whose memory it is.
    cta: u64,
    /// The memdesc type (shape, element).
    desc: MemDesc,
}

impl Mem {
    fn cells(&self) -> Cells {
        self.local_cells()
            .offset(self.cta.saturating_mul(CTA_CELLS))
    }

    /// The bytes its shape holds (what a copy into it brings).
    fn bytes_of_view(&self) -> u64 {
        self.desc
            .shape
            .iter()
            .fold(1u64, |p, &d| p.saturating_mul(d))
            .saturating_mul(bits(&self.desc.element))
            / 8
    }

    /// The cells in its CTA's own memory.
    fn local_cells(&self) -> Cells {
        let region = self.region as u64;
        match (self.space, &self.bytes) {
            (Space::Smem, Some(bytes)) => Cells::from_ranges(
                Space::Smem,
                bytes.iter().map(|&(a, b)| {
                    (
                        (region << 32).saturating_add(a),
                        (region << 32).saturating_add(b),
                    )
                }),
            ),
            (Space::Smem, None) => Cells::range(
                Space::Smem,
                (region << 32).saturating_add(self.start),
                self.len,
            ),
            (Space::Tmem, _) => {
                Cells::tmem_columns((region << 16).saturating_add(self.start), self.len)
            }
        }
    }

    fn is_barrier(&self) -> bool {
        self.space == Space::Smem && self.desc.element == "i64"
    }
}

/// Cells of CTA *c* of a cluster start at *c* · this (past every region's bytes and columns).
const CTA_CELLS: u64 = 1 << 48;

/// The most iterations of one `scf.while` the reader runs.
const MAX_ITERATIONS: i64 = 100_000;

/// Element width in bits of an MLIR element type.
fn bits(element: &str) -> u64 {
    let digits: String = element.chars().filter(char::is_ascii_digit).collect();
    match element {
        e if e.starts_with("f8") || e.contains("E4M3") || e.contains("E5M2") => 8,
        e if e.starts_with("f4") || e.contains("E2M1") => 4,
        _ => digits
            .get(..2)
            .or(digits.get(..1))
            .and_then(|d| d.parse().ok())
            .unwrap_or(32),
    }
}

fn memdesc_of(m: &Module, v: ValueId) -> Option<MemDesc> {
    let ty = m.value(v)?.ty()?;
    let body = ty.trim().strip_prefix("!ttg.memdesc<")?.strip_suffix('>')?;
    MemDesc::parse(body).ok()
}

struct Interp<'m> {
    m: &'m Module,
    plan: Plan,
    /// Allocation ops → their plan index.
    roots: HashMap<OpId, usize>,
    env: HashMap<ValueId, Val>,
    b: TraceBuilder,
    origins: Vec<Origin>,
    /// Per (CTA, region, offset): the mbarrier; and which CTAs initialised theirs.
    barriers: HashMap<(u64, usize, u64), BarrierId>,
    initialised: std::collections::HashSet<(u64, usize, u64)>,
    /// The CTA of the cluster this run is, and how many the cluster has.
    cta: u64,
    ctas: u64,
    /// Whether the module pairs CTAs for MMA (`ttng.two-ctas`): commits arrive on both.
    paired: bool,
    /// Per partition timeline: its CTA and name (`partition2`); per timeline and barrier, its
    /// expects in order.
    timelines: HashMap<TimelineId, (u64, String)>,
    expects: HashMap<(TimelineId, BarrierId), Vec<EventId>>,
    /// Copies completing on another CTA's barrier: (completion, the CTA and partition name
    /// whose expect it belongs to, the barrier), linked once every CTA ran.
    remote: Vec<(EventId, u64, String, BarrierId)>,
    /// The barrier the CTAs of a cluster sync on after their inits.
    cluster_sync: Option<BarrierId>,
    iteration: Vec<i64>,
    induction: Vec<(i64, i64)>,
    /// Per partition: TMA stores not yet waited for.
    stores: HashMap<TimelineId, Vec<super::trace::EventId>>,
    opts: ReadOptions,
    params: BTreeMap<String, i64>,
    partitions: usize,
    /// Warps per timeline (named barriers count threads).
    warps: HashMap<TimelineId, u64>,
    /// Named barriers: the mbarrier each id stands for, and each timeline's generations so far.
    named: HashMap<(u64, i64), BarrierId>,
    named_seen: HashMap<(TimelineId, i64), u64>,
    /// The condition of the last `scf.condition` run.
    condition: Option<Val>,
    /// Inside a data-dependent `scf.if` (its line): accesses may run, synchronisation may not.
    maybe: Option<usize>,
    /// CLC responses queried so far, per timeline and response buffer.
    clc_seen: HashMap<(TimelineId, usize, u64), i64>,
    /// The partitions that run as several warp groups.
    groups: WarpGroups,
    /// The module's attribute aliases (`#tmem`).
    aliases: Aliases,
    /// [`subslice_bytes`] by its arguments.
    subslices: HashMap<SubsliceKey, Option<Vec<(u64, u64)>>>,
}

/// The arguments of a [`subslice_bytes`]: shape, element, encoding, offsets, view shape.
type SubsliceKey = (Vec<u64>, String, String, Vec<u64>, Vec<u64>);

fn unsupported(op: &Operation, reason: impl Into<String>) -> HazardError {
    HazardError::Unsupported {
        op: op.name().to_string(),
        line: op.position().0,
        reason: reason.into(),
    }
}

/// Ops that synchronise or move data asynchronously and that the model does not have: a kernel
/// using one is refused, not checked without it.
fn outside_the_model(name: &str) -> bool {
    ["barrier", "async", "clc", "fence", "cluster", "remote"]
        .iter()
        .any(|w| name.contains(w))
}

impl<'m> Interp<'m> {
    /// A `bar.sync` of `t`'s partition ([`WarpGroups::sync`]).
    fn bar_sync(&mut self, t: TimelineId, op: &Operation) -> Result<(), HazardError> {
        let label = self.label(op, None);
        self.groups.sync(&mut self.b, t, &label)?;
        self.record(op, None)
    }

    /// A register access (`local_load/store`, `tmem_load/store`) of `mem` by every warp group
    /// of `t`'s partition, each with its own cells ([`WarpGroups::cells`]).
    fn register_access(
        &mut self,
        t: TimelineId,
        op: &Operation,
        mem: &Mem,
        write: bool,
    ) -> Result<(), HazardError> {
        let label = self.label(op, Some(&mem.name));
        let encoding = self.aliases.resolve(&mem.desc.encoding);
        let first = (mem.region as u64) << 16;
        let mut events = Vec::new();
        for (k, l) in self.groups.lanes(t).into_iter().enumerate() {
            let cells = self
                .groups
                .cells(
                    t,
                    k,
                    mem.local_cells(),
                    (&mem.desc.shape, &mem.desc.element, &encoding),
                    first.saturating_add(mem.start),
                    mem.len,
                )
                .offset(mem.cta.saturating_mul(CTA_CELLS));
            events.push(Some(self.b.access(l, &label, cells, write)?));
        }
        if mem.space == Space::Smem {
            self.groups
                .shared(&mut self.b, t, mem.cells(), write, events)?;
        }
        self.record(op, Some(&mem.name))
    }

    /// A shared-memory effect of an op only the leader of `t`'s partition issues (a TMA copy,
    /// an MMA's operand): `event` its event ([`WarpGroups::shared`]).
    fn leader_shared(
        &mut self,
        t: TimelineId,
        cells: Cells,
        write: bool,
        event: EventId,
    ) -> Result<(), HazardError> {
        if !self.groups.is_split(t) {
            return Ok(());
        }
        let events: Vec<Option<EventId>> = (0..self.groups.lanes(t).len())
            .map(|k| (k == 0).then_some(event))
            .collect();
        self.groups.shared(&mut self.b, t, cells, write, events)
    }

    /// Every CTA's copy of barrier `mem` where `all` (a multicast), else none.
    fn copies(&self, mem: &Mem, all: bool) -> Option<Vec<BarrierId>> {
        (all && self.ctas > 1).then(|| {
            (0..self.ctas)
                .filter_map(|c| self.barriers.get(&(c, mem.region, mem.start)).copied())
                .collect()
        })
    }

    /// A copy `t` issued whose bytes complete on CTA `cta`'s barrier `bar`: when that is
    /// another CTA's, its expect is that CTA's same partition's, linked once every CTA ran.
    fn remote_completion(&mut self, t: TimelineId, done: EventId, cta: u64, bar: BarrierId) {
        if cta != self.cta {
            let name = self.partition_name(t);
            self.remote.push((done, cta, name, bar));
        }
    }

    /// `t`'s partition name without its CTA (`partition2` for `cta1.partition2`).
    fn partition_name(&self, t: TimelineId) -> String {
        self.timelines
            .get(&t)
            .map_or_else(String::new, |(_, n)| n.clone())
    }

    /// A partition's timeline name: `cta1.partition2` in a cluster, else `partition2`.
    fn cta_name(&self, name: &str) -> String {
        if self.ctas > 1 {
            format!("cta{}.{name}", self.cta)
        } else {
            name.to_string()
        }
    }

    fn val(&self, v: ValueId) -> Val {
        self.env.get(&v).cloned().unwrap_or(Val::Opaque)
    }

    fn int(&self, op: &Operation, v: ValueId, what: &str) -> Result<i64, HazardError> {
        match self.val(v) {
            Val::Int(i) => Ok(i),
            _ => Err(unsupported(
                op,
                format!("its {what} depends on a value the check cannot compute (tensor data, a CLC response, an unknown op)"),
            )),
        }
    }

    /// Whether an optional predicate holds (absent: it does).
    fn pred(&self, op: &Operation, v: Option<ValueId>) -> Result<bool, HazardError> {
        match v {
            None => Ok(true),
            Some(v) => Ok(self.int(op, v, "predicate")? != 0),
        }
    }

    /// Refuses synchronisation under a data-dependent `scf.if`.
    fn sure(&self, op: &Operation) -> Result<(), HazardError> {
        match self.maybe {
            Some(line) => Err(unsupported(
                op,
                format!(
                    "synchronises under the scf.if of line {line}, whose condition is tensor data"
                ),
            )),
            None => Ok(()),
        }
    }

    fn mem(&self, op: &Operation, v: ValueId) -> Result<Mem, HazardError> {
        match self.val(v) {
            Val::Mem(m) => Ok(*m),
            _ => Err(unsupported(
                op,
                "a buffer operand that no allocation the check read defines",
            )),
        }
    }

    fn word(op: &Operation, k: usize) -> Result<u64, HazardError> {
        op.words()
            .get(k)
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| unsupported(op, "an integer literal its custom form should write"))
    }

    fn label(&self, op: &Operation, buffer: Option<&str>) -> String {
        let mut s = format!("{} line {}", op.name(), op.position().0);
        if let Some(b) = buffer {
            s.push_str(&format!(" {b}"));
        }
        if !self.iteration.is_empty() {
            let its: Vec<String> = self.iteration.iter().map(i64::to_string).collect();
            s.push_str(&format!(" iteration {}", its.join(",")));
        }
        s
    }

    /// Where an event of `op` at the current iteration comes from.
    fn origin(&self, op: &Operation, buffer: Option<&str>) -> Origin {
        Origin {
            op: op.name().to_string(),
            line: op.position().0,
            location: op.location().map(str::to_string),
            buffer: buffer.map(str::to_string),
            iteration: self.iteration.clone(),
            induction: self.induction.clone(),
        }
    }

    /// Records the origin of every event added since `from`.
    fn record(&mut self, op: &Operation, buffer: Option<&str>) -> Result<(), HazardError> {
        while self.origins.len() < self.b.len() {
            let o = self.origin(op, buffer);
            self.origins.push(o);
        }
        if self.b.len() > self.opts.max_events {
            return Err(HazardError::TooManyEvents {
                max: self.opts.max_events,
                params: self
                    .params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
        Ok(())
    }

    fn barrier(&mut self, op: &Operation, v: ValueId) -> Result<(BarrierId, String), HazardError> {
        let mem = self.mem(op, v)?;
        Ok((self.barrier_of(op, &mem)?, mem.name))
    }

    /// The mbarrier `mem` is (its CTA's copy), initialised.
    fn barrier_of(&self, op: &Operation, mem: &Mem) -> Result<BarrierId, HazardError> {
        self.barriers
            .get(&(mem.cta, mem.region, mem.start))
            .copied()
            .ok_or_else(|| HazardError::Uninitialized {
                barrier: mem.name.clone(),
                op: op.name().to_string(),
                line: op.position().0,
            })
    }

    /// A CTA rank operand: a CTA of the cluster.
    fn rank(&self, op: &Operation, v: ValueId) -> Result<u64, HazardError> {
        let rank = self.int(op, v, "CTA rank")?;
        u64::try_from(rank)
            .ok()
            .filter(|&c| c < self.ctas)
            .ok_or_else(|| {
                unsupported(op, format!("CTA rank {rank} in a cluster of {}", self.ctas))
            })
    }

    fn root(&self, op: &Operation, id: OpId, result: ValueId) -> Result<Mem, HazardError> {
        let &k = self
            .roots
            .get(&id)
            .ok_or_else(|| unsupported(op, "an allocation the plan does not have"))?;
        let a = self
            .plan
            .allocs
            .get(k)
            .ok_or_else(|| unsupported(op, "an allocation the plan does not have"))?;
        let region = self
            .plan
            .specs
            .get(a.region)
            .ok_or_else(|| unsupported(op, "an allocation without a region"))?;
        let space = match region.storage {
            Storage::Tmem => Space::Tmem,
            _ => Space::Smem,
        };
        let desc = memdesc_of(self.m, result)
            .ok_or_else(|| unsupported(op, "a result that is not a memdesc"))?;
        let first = a
            .placement
            .offset(0)
            .map_err(|e| unsupported(op, e.to_string()))?;
        let last = a
            .placement
            .offset(a.num.saturating_sub(1))
            .map_err(|e| unsupported(op, e.to_string()))?;
        Ok(Mem {
            name: a.name.clone(),
            root: Some(k),
            region: a.region,
            space,
            start: first.min(last),
            len: (first.max(last) - first.min(last)).saturating_add(a.unit),
            bytes: None,
            cta: self.cta,
            desc,
        })
    }

    fn index(&self, op: &Operation, mem: Mem, i: i64, result: ValueId) -> Result<Mem, HazardError> {
        let desc = memdesc_of(self.m, result)
            .ok_or_else(|| unsupported(op, "a result that is not a memdesc"))?;
        let n = mem.desc.shape.first().copied().unwrap_or(1);
        let i = u64::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
            HazardError::IndexOutOfRange {
                buffer: mem.name.clone(),
                index: i,
                buffers: n,
                line: op.position().0,
            }
        })?;
        let (start, len) = match mem.root.and_then(|k| self.plan.allocs.get(k)) {
            Some(a) => (
                a.placement
                    .offset(i)
                    .map_err(|e| unsupported(op, e.to_string()))?,
                a.unit,
            ),
            None => {
                let stride = mem.len / n.max(1);
                (mem.start.saturating_add(i.saturating_mul(stride)), stride)
            }
        };
        Ok(Mem {
            name: format!("{}[{i}]", mem.name),
            root: None,
            start,
            len,
            desc,
            ..mem
        })
    }

    fn define(&mut self, op: &Operation, vals: Vec<Val>) {
        for (&r, v) in op.results().iter().zip(vals) {
            self.env.insert(r, v);
        }
    }

    /// Runs the first block of `region` with `args`; returns the values its terminator passes.
    fn region(
        &mut self,
        t: TimelineId,
        region: RegionId,
        args: &[Val],
    ) -> Result<Vec<Val>, HazardError> {
        let Some(block) = self
            .m
            .region(region)
            .and_then(|r| r.blocks().first().copied())
            .and_then(|b| self.m.block(b))
        else {
            return Ok(vec![]);
        };
        for (&a, v) in block.arguments().iter().zip(args) {
            self.env.insert(a, v.clone());
        }
        for &id in block.ops() {
            if let Some(out) = self.op(t, id)? {
                return Ok(out);
            }
        }
        Ok(vec![])
    }

    /// Runs one op; a terminator returns the values it passes.
    fn op(&mut self, t: TimelineId, id: OpId) -> Result<Option<Vec<Val>>, HazardError> {
        let m = self.m;
        let op = m.op(id).ok_or(HazardError::NoSuchEvent { event: 0 })?;
        let typed = m.typed(id).map_err(|e| unsupported(op, e.to_string()))?;
        let Some(typed) = typed else {
            self.generic(t, op)?;
            self.record(op, None)?;
            return Ok(None);
        };
        match typed {
            TypedOp::Terminator { values, .. } => {
                return Ok(Some(values.iter().map(|&v| self.val(v)).collect()));
            }
            TypedOp::Condition { cond, values } => {
                self.condition = Some(self.val(cond));
                return Ok(Some(values.iter().map(|&v| self.val(v)).collect()));
            }
            TypedOp::Module { body } | TypedOp::Func { body } => {
                self.region(t, body, &[])?;
            }
            TypedOp::StorageAliasSpec { .. }
            | TypedOp::ReuseGroup { .. }
            | TypedOp::SetBufferOverlap { .. }
            | TypedOp::FenceAsyncShared => self.define(op, vec![Val::Opaque]),
            TypedOp::InvalBarrier { barrier } => {
                let mem = self.mem(op, barrier)?;
                self.barriers.remove(&(mem.cta, mem.region, mem.start));
                self.initialised.remove(&(mem.cta, mem.region, mem.start));
            }
            TypedOp::StorageAliasLocalAlloc { .. } | TypedOp::Alloc { .. } => {
                let r = *op
                    .results()
                    .first()
                    .ok_or_else(|| unsupported(op, "no result"))?;
                let mem = self.root(op, id, r)?;
                if let TypedOp::Alloc { init: Some(_), .. } = typed {
                    let label = self.label(op, Some(&mem.name));
                    self.b.access(t, &label, mem.cells(), true)?;
                }
                let name = mem.name.clone();
                self.env.insert(r, Val::Mem(Box::new(mem)));
                self.record(op, Some(&name))?;
            }
            TypedOp::View { kind, src } => {
                let r = *op
                    .results()
                    .first()
                    .ok_or_else(|| unsupported(op, "no result"))?;
                if kind == OpKind::LocalAlias {
                    let mem = self.root(op, id, r)?;
                    self.env.insert(r, Val::Mem(Box::new(mem)));
                    return Ok(None);
                }
                let mut mem = self.mem(op, src)?;
                let desc = memdesc_of(m, r)
                    .ok_or_else(|| unsupported(op, "a result that is not a memdesc"))?;
                if kind == OpKind::TmemSubslice {
                    let n: u64 = op
                        .attribute("N")
                        .and_then(|v| v.split(':').next())
                        .and_then(|v| v.trim().parse().ok())
                        .ok_or_else(|| unsupported(op, "tmem_subslice without N"))?;
                    let b = bits(&mem.desc.element);
                    let cols = |elems: u64| elems.saturating_mul(b).div_ceil(32);
                    let width = cols(desc.shape.last().copied().unwrap_or(1));
                    mem.start += cols(n);
                    mem.len = width.min(mem.len.saturating_sub(cols(n)));
                }
                if kind == OpKind::MemdescSubslice
                    && mem.space == Space::Smem
                    && mem.bytes.is_none()
                {
                    let offsets: Option<Vec<u64>> =
                        op.words().iter().map(|w| w.parse().ok()).collect();
                    let encoding = self.aliases.resolve(&mem.desc.encoding);
                    let bytes = offsets.and_then(|o| {
                        let key = (
                            mem.desc.shape.clone(),
                            mem.desc.element.clone(),
                            encoding,
                            o,
                            desc.shape.clone(),
                        );
                        self.subslices
                            .entry(key)
                            .or_insert_with_key(|(shape, element, encoding, o, sub)| {
                                subslice_bytes(shape, element, encoding, o, sub)
                            })
                            .clone()
                    });
                    if let Some(b) = bytes.filter(|b| b.iter().all(|&(_, e)| e <= mem.len)) {
                        let start = mem.start;
                        mem.bytes = Some(
                            b.into_iter()
                                .map(|(x, y)| (start.saturating_add(x), start.saturating_add(y)))
                                .collect(),
                        );
                    }
                }
                // Other views keep their source's whole footprint (a superset: never a missed
                // overlap).
                mem.desc = desc;
                mem.root = None;
                self.env.insert(r, Val::Mem(Box::new(mem)));
            }
            TypedOp::MemdescIndex { src, index } => {
                let r = *op
                    .results()
                    .first()
                    .ok_or_else(|| unsupported(op, "no result"))?;
                let mem = self.mem(op, src)?;
                let i = self.int(op, index, "buffer index")?;
                let mem = self.index(op, mem, i, r)?;
                self.env.insert(r, Val::Mem(Box::new(mem)));
            }
            TypedOp::InitBarrier { barrier } => {
                self.sure(op)?;
                let mem = self.mem(op, barrier)?;
                let count = u32::try_from(Self::word(op, 0)?)
                    .map_err(|_| unsupported(op, "a count past u32"))?;
                if !self.initialised.insert((mem.cta, mem.region, mem.start)) {
                    return Err(HazardError::Reinitialized {
                        barrier: mem.name,
                        line: op.position().0,
                    });
                }
                // Every CTA's copy exists from the first init on (the cluster syncs after its
                // inits, so another CTA's arrive never finds it uninitialised).
                for c in 0..self.ctas {
                    if let std::collections::hash_map::Entry::Vacant(v) =
                        self.barriers.entry((c, mem.region, mem.start))
                    {
                        let name = if self.ctas > 1 {
                            format!("cta{c}.{}", mem.name)
                        } else {
                            mem.name.clone()
                        };
                        v.insert(self.b.barrier(&name, count)?);
                    }
                }
            }
            TypedOp::BarrierExpect { barrier, pred } => {
                self.sure(op)?;
                if self.pred(op, pred)? {
                    let (bar, name) = self.barrier(op, barrier)?;
                    let label = self.label(op, Some(&name));
                    let e = self.b.barrier_expect(t, &label, bar, Self::word(op, 0)?)?;
                    self.expects.entry((t, bar)).or_default().push(e);
                    self.record(op, Some(&name))?;
                }
            }
            TypedOp::ArriveBarrier { barrier, pred } => {
                self.sure(op)?;
                if self.pred(op, pred)? {
                    let (bar, name) = self.barrier(op, barrier)?;
                    // `{perThread}`: every thread of the partition (of each warp group)
                    // arrives. Otherwise one thread, after a `bar.sync` of the partition (the
                    // lowering's).
                    let per_thread = op.attributes().iter().any(|(k, _)| k == "perThread");
                    let threads = if per_thread {
                        self.warps
                            .get(&t)
                            .copied()
                            .unwrap_or(self.opts.default_warps)
                            .saturating_mul(32)
                    } else {
                        self.bar_sync(t, op)?;
                        1
                    };
                    let count = u32::try_from(Self::word(op, 0)?.saturating_mul(threads))
                        .map_err(|_| unsupported(op, "a count past u32"))?;
                    let label = self.label(op, Some(&name));
                    let lanes = if per_thread {
                        self.groups.lanes(t)
                    } else {
                        vec![t]
                    };
                    for l in lanes {
                        self.b.arrive(l, &label, bar, count)?;
                    }
                    self.record(op, Some(&name))?;
                }
            }
            TypedOp::WaitBarrier {
                barrier,
                phase,
                rest,
            } => {
                self.sure(op)?;
                if self.pred(op, rest.first().copied())? {
                    let (bar, name) = self.barrier(op, barrier)?;
                    let phase = self.int(op, phase, "phase")?;
                    let label = self.label(op, Some(&name));
                    for l in self.groups.lanes(t) {
                        self.b.wait(l, &label, bar, u8::from(phase & 1 == 1))?;
                    }
                    self.record(op, Some(&name))?;
                }
            }
            TypedOp::TmaLoad {
                dst, barrier, pred, ..
            } => {
                self.sure(op)?;
                if self.pred(op, Some(pred))? {
                    let mem = self.mem(op, dst)?;
                    let bar_cta = self.mem(op, barrier)?.cta;
                    let (bar, _) = self.barrier(op, barrier)?;
                    let label = self.label(op, Some(&mem.name));
                    let bytes = mem.bytes_of_view();
                    let (e, done) = self.b.tma_load(t, &label, mem.cells(), bar, bytes)?;
                    self.remote_completion(t, done, bar_cta, bar);
                    self.leader_shared(t, mem.cells(), true, e)?;
                    self.record(op, Some(&mem.name))?;
                }
            }
            TypedOp::TmaStore { src, .. } => {
                let mem = self.mem(op, src)?;
                let label = self.label(op, Some(&mem.name));
                let e = self.b.tma_store(t, &label, mem.cells())?;
                self.leader_shared(t, mem.cells(), false, e)?;
                self.stores.entry(t).or_default().push(e);
                self.record(op, Some(&mem.name))?;
            }
            TypedOp::TmaStoreWait { pendings } => {
                self.sure(op)?;
                let keep: usize = pendings
                    .and_then(|p| p.split(':').next())
                    .and_then(|p| p.trim().parse().ok())
                    .unwrap_or(0);
                let pending = self.stores.entry(t).or_default();
                let done = pending.len().saturating_sub(keep);
                let waited: Vec<_> = pending.drain(..done).collect();
                for e in waited {
                    self.b.depend(t, e)?;
                }
                // A wait for memory: `Membar` puts a `bar.sync` after it.
                self.bar_sync(t, op)?;
            }
            TypedOp::Mma { a, b, d, rest, .. } => self.mma(t, op, [a, b, d], rest)?,
            TypedOp::Commit { barrier, pred } => {
                self.sure(op)?;
                if self.pred(op, pred)? {
                    let (bar, name) = self.barrier(op, barrier)?;
                    let label = self.label(op, Some(&name));
                    // Paired CTAs: the commit multicasts, one arrival on every CTA's copy.
                    let mem = self.mem(op, barrier)?;
                    for b in self.copies(&mem, self.paired).unwrap_or_else(|| vec![bar]) {
                        self.b.commit(t, &label, b)?;
                    }
                    self.record(op, Some(&name))?;
                }
            }
            TypedOp::TmemCopy { src, dst, barrier } => {
                let (s, d) = (self.mem(op, src)?, self.mem(op, dst)?);
                let bars = match barrier {
                    Some(b) => {
                        self.sure(op)?;
                        vec![self.barrier(op, b)?.0]
                    }
                    None => vec![],
                };
                let label = self.label(op, Some(&d.name));
                let events = self.b.mma(t, &label, &[s.cells()], &[d.cells()], &bars)?;
                if let (Some(&e), Space::Smem) = (events.first(), s.space) {
                    self.leader_shared(t, s.cells(), false, e)?;
                }
                self.record(op, Some(&d.name))?;
            }
            TypedOp::Load { src, .. } => {
                let mem = self.mem(op, src)?;
                self.register_access(t, op, &mem, false)?;
                self.define(op, vec![Val::Opaque]);
            }
            TypedOp::Store { dst, pred, .. } => {
                if self.pred(op, pred)? {
                    let mem = self.mem(op, dst)?;
                    self.register_access(t, op, &mem, true)?;
                }
            }
            TypedOp::WarpSpecialize {
                captures,
                default,
                partitions,
            } => {
                self.sure(op)?;
                let args: Vec<Val> = captures.iter().map(|&v| self.val(v)).collect();
                let text = op.keywords();
                let warps: Vec<u64> = text
                    .split("num_warps(")
                    .skip(1)
                    .filter_map(|w| w.split(')').next()?.trim().parse().ok())
                    .collect();
                // A cluster: its CTAs sync after their barrier inits, before any partition.
                if self.ctas > 1 {
                    let bar = match self.cluster_sync {
                        Some(b) => b,
                        None => {
                            let n = u32::try_from(self.ctas).unwrap_or(u32::MAX);
                            let b = self.b.barrier(CLUSTER_SYNC, n)?;
                            self.cluster_sync = Some(b);
                            b
                        }
                    };
                    let label = self.label(op, Some("cluster sync"));
                    self.b.arrive(t, &label, bar, 1)?;
                    self.b.wait(t, &label, bar, 0)?;
                    self.record(op, None)?;
                }
                let mut lanes = Vec::new();
                for (k, &p) in partitions.iter().enumerate() {
                    self.partitions += 1;
                    let name = format!("partition{k}");
                    let lane = self.b.partition_after(&self.cta_name(&name), t)?;
                    self.timelines.insert(lane, (self.cta, name.clone()));
                    let w = warps.get(k).copied().ok_or_else(|| {
                        unsupported(op, format!("partition{k} without num_warps"))
                    })?;
                    let full = self.cta_name(&name);
                    let groups = self.groups.split(&mut self.b, &full, lane, t, w)?;
                    self.warps
                        .insert(lane, if groups.len() > 1 { WARPS_PER_GROUP } else { w });
                    self.region(lane, p, &args)?;
                    lanes.extend(groups);
                }
                let w = self
                    .warps
                    .get(&t)
                    .copied()
                    .unwrap_or(self.opts.default_warps);
                let full = self.cta_name("default");
                let groups = self.groups.split(&mut self.b, &full, t, t, w)?;
                if groups.len() > 1 {
                    self.warps.insert(t, WARPS_PER_GROUP);
                }
                let out = self.region(t, default, &[])?;
                // After the region the default warps run as one thread again.
                self.warps.insert(t, w);
                self.groups.join(t);
                lanes.extend(groups.into_iter().skip(1));
                for lane in lanes {
                    if let Some(e) = self.b.last_event(lane) {
                        self.b.depend(t, e)?;
                    }
                }
                self.define(op, out);
            }
            TypedOp::For {
                lower,
                upper,
                step,
                inits,
                body,
            } => {
                let (lo, hi, st) = (
                    self.int(op, lower, "lower bound")?,
                    self.int(op, upper, "upper bound")?,
                    self.int(op, step, "step")?,
                );
                if st <= 0 {
                    return Err(unsupported(op, format!("a step of {st}")));
                }
                let mut carried: Vec<Val> = inits.iter().map(|&v| self.val(v)).collect();
                let (mut iv, mut k) = (lo, 0i64);
                while iv < hi {
                    self.iteration.push(k);
                    self.induction.push((iv, st));
                    let mut args = vec![Val::Int(iv)];
                    args.extend(carried.iter().cloned());
                    carried = self.region(t, body, &args)?;
                    self.iteration.pop();
                    self.induction.pop();
                    iv = iv.saturating_add(st);
                    k += 1;
                }
                self.define(op, carried);
            }
            TypedOp::If {
                cond,
                then,
                otherwise,
            } => {
                let out = match (self.val(cond), otherwise) {
                    (Val::Int(c), _) if c != 0 => self.region(t, then, &[])?,
                    (Val::Int(_), Some(e)) => self.region(t, e, &[])?,
                    (Val::Int(_), None) => vec![],
                    // A condition on tensor data: both branches' accesses may run, neither
                    // may synchronise (an arrival that may not happen orders nothing).
                    _ => {
                        let outer = self.maybe.replace(op.position().0);
                        self.region(t, then, &[])?;
                        if let Some(e) = otherwise {
                            self.region(t, e, &[])?;
                        }
                        self.maybe = outer;
                        op.results().iter().map(|_| Val::Opaque).collect()
                    }
                };
                self.define(op, out);
            }
            TypedOp::While {
                inits,
                before,
                after,
            } => {
                let mut carried: Vec<Val> = inits.iter().map(|&v| self.val(v)).collect();
                let mut k = 0i64;
                loop {
                    let values = self.region(t, before, &carried)?;
                    match self.condition.take() {
                        Some(Val::Int(0)) => {
                            self.define(op, values);
                            break;
                        }
                        Some(Val::Int(_)) => {}
                        _ => {
                            return Err(unsupported(
                                op,
                                "its condition depends on a value the check cannot compute",
                            ))
                        }
                    }
                    if k >= MAX_ITERATIONS {
                        return Err(unsupported(
                            op,
                            format!("more than {MAX_ITERATIONS} iterations"),
                        ));
                    }
                    self.iteration.push(k);
                    self.induction.push((k, 1));
                    carried = self.region(t, after, &values)?;
                    self.iteration.pop();
                    self.induction.pop();
                    k += 1;
                }
            }
            TypedOp::ClcTryCancel { barrier, response } => {
                // The CLC unit writes its 16-byte response and completes tx on the barrier.
                self.sure(op)?;
                let mem = self.mem(op, response)?;
                let (bar, _) = self.barrier(op, barrier)?;
                let label = self.label(op, Some(&mem.name));
                let (e, _) = self.b.tma_load(t, &label, mem.cells(), bar, 16)?;
                self.leader_shared(t, mem.cells(), true, e)?;
                self.record(op, Some(&mem.name))?;
            }
            TypedOp::Constant { value } => {
                let v = match value.trim() {
                    "true" => Val::Int(1),
                    "false" => Val::Int(0),
                    w => w.parse().map_or(Val::Opaque, Val::Int),
                };
                self.define(op, vec![v]);
            }
        }
        Ok(None)
    }

    /// `tc_gen5_mma` / `_scaled`: A, B and the scales read, D read unless `useD` is false, D
    /// written, then an arrival on each barrier operand whose predicate holds; every event
    /// labelled with its own buffer.
    fn mma(
        &mut self,
        t: TimelineId,
        op: &Operation,
        [a, b, d]: [ValueId; 3],
        rest: &[ValueId],
    ) -> Result<(), HazardError> {
        let (ma, mb, md) = (self.mem(op, a)?, self.mem(op, b)?, self.mem(op, d)?);
        // rest: [scales…,] useD, pred, then barriers each with its predicate.
        let mut reads = vec![ma, mb];
        let mut flags = Vec::new();
        let mut bars = Vec::new();
        let mut bar_mems: Vec<Mem> = Vec::new();
        let mut k = 0;
        while let Some(&v) = rest.get(k) {
            match self.val(v) {
                Val::Mem(x) if x.is_barrier() => {
                    let on = match rest.get(k + 1).map(|&p| self.val(p)) {
                        Some(Val::Int(p)) => {
                            k += 1;
                            p != 0
                        }
                        _ => true,
                    };
                    if on {
                        bars.push(self.barrier(op, v)?);
                        bar_mems.push(*x);
                    }
                }
                Val::Mem(x) => reads.push(*x),
                other => flags.push(other),
            }
            k += 1;
        }
        let use_d = flags.first().cloned();
        let pred = flags.get(1).cloned();
        match pred {
            Some(Val::Int(0)) => return Ok(()),
            Some(Val::Opaque) => {
                return Err(unsupported(
                    op,
                    "its predicate depends on a value the check cannot compute",
                ))
            }
            _ => {}
        }
        if !matches!(use_d, Some(Val::Int(0))) {
            reads.push(md.clone());
        }
        let asynchronous = op.attributes().iter().any(|(k, _)| k == "is_async");
        if !bars.is_empty() || !asynchronous {
            self.sure(op)?;
        }

        // `two_ctas` (cta_group::2): the pair's MMA, issued by one CTA, reads and writes the
        // same buffers in every CTA of the cluster, and its barriers multicast.
        let paired = self.ctas > 1 && op.attributes().iter().any(|(k, _)| k == "two_ctas");
        let everywhere = |m: &Mem| {
            if paired {
                (0..self.ctas).fold(m.cells(), |c, k| {
                    c.union(
                        &Mem {
                            cta: k,
                            ..m.clone()
                        }
                        .cells(),
                    )
                })
            } else {
                m.cells()
            }
        };
        let cells: Vec<Cells> = reads.iter().map(everywhere).collect();
        let written = everywhere(&md);
        let mut ids: Vec<BarrierId> = Vec::new();
        let mut bar_names: Vec<String> = Vec::new();
        for ((id, name), m) in bars.iter().zip(&bar_mems) {
            let copies = self.copies(m, paired).unwrap_or_else(|| vec![*id]);
            bar_names.extend(copies.iter().map(|_| name.clone()));
            ids.extend(copies);
        }
        let label = self.label(op, Some(&md.name));
        let events = self.b.mma(t, &label, &cells, &[written], &ids)?;
        for (m, &e) in reads.iter().zip(&events) {
            if m.space == Space::Smem {
                self.leader_shared(t, m.cells(), false, e)?;
            }
        }
        let names: Vec<String> = reads
            .iter()
            .map(|m| m.name.clone())
            .chain(std::iter::once(md.name.clone()))
            .chain(bar_names)
            .collect();
        for (&e, name) in events.iter().zip(&names) {
            let label = self.label(op, Some(name));
            self.b.relabel(e, &label)?;
            // One origin per event, each with its own buffer.
            while self.origins.len() <= e.0 {
                let o = self.origin(op, Some(name));
                self.origins.push(o);
            }
        }
        self.record(op, Some(&md.name))?;
        if !asynchronous {
            // A synchronous MMA: the issuer waits for its completion.
            if let Some(&last) = events.last() {
                self.b.depend(t, last)?;
            }
        }
        Ok(())
    }

    /// `ttng.arrive_barrier_named` / `ttng.wait_barrier_named %id, %threads`: the named
    /// barrier as an mbarrier of `threads` arrivals, each partition arriving with its threads;
    /// a wait also waits for the generation it arrived in.
    fn named_barrier(
        &mut self,
        t: TimelineId,
        op: &Operation,
        wait: bool,
    ) -> Result<(), HazardError> {
        let (id, threads) = match op.operands() {
            [a, b] => (
                self.int(op, *a, "barrier id")?,
                self.int(op, *b, "thread count")?,
            ),
            _ => {
                return Err(unsupported(
                    op,
                    "a named barrier without its id and thread count",
                ))
            }
        };
        let threads =
            u32::try_from(threads).map_err(|_| unsupported(op, "a thread count past u32"))?;
        let bar = match self.named.get(&(self.cta, id)) {
            Some(&b) => {
                if self.b.barrier_count(b) != Some(threads) {
                    return Err(unsupported(
                        op,
                        format!("named barrier {id} used with two thread counts"),
                    ));
                }
                b
            }
            None => {
                let b = self.b.barrier(&format!("named barrier {id}"), threads)?;
                self.named.insert((self.cta, id), b);
                b
            }
        };
        let warps = self
            .warps
            .get(&t)
            .copied()
            .unwrap_or(self.opts.default_warps);
        let mine = u32::try_from(warps.saturating_mul(32))
            .map_err(|_| unsupported(op, "too many warps"))?;
        let generation = self.named_seen.entry((t, id)).or_insert(0);
        let parity = u8::from(*generation % 2 == 1);
        *generation += 1;
        let label = self.label(op, Some(&format!("named barrier {id}")));
        let lanes = self.groups.lanes(t);
        for &l in &lanes {
            self.b.arrive(l, &label, bar, mine)?;
        }
        if wait {
            for &l in &lanes {
                self.b.wait(l, &label, bar, parity)?;
            }
        }
        Ok(())
    }

    /// An op outside the [`OpKind`] table: integer arithmetic is computed, program ids read
    /// from the options, named barriers, bulk copies and TMA reductions run, anything else
    /// that synchronises or touches a buffer refused, the rest opaque.
    fn generic(&mut self, t: TimelineId, op: &Operation) -> Result<(), HazardError> {
        let name = op.name();
        let mems: Vec<Mem> = op
            .operands()
            .iter()
            .filter_map(|&v| match self.val(v) {
                Val::Mem(m) => Some(*m),
                _ => None,
            })
            .collect();
        match name {
            "ttng.wait_barrier_named" => {
                self.sure(op)?;
                return self.named_barrier(t, op, true);
            }
            "ttng.arrive_barrier_named" => {
                self.sure(op)?;
                return self.named_barrier(t, op, false);
            }
            "ttng.clc_query_cancel" => {
                // The k-th response this thread reads: a tile for the first `clc_tiles`, then
                // none (-1), for every thread alike.
                let resp = mems
                    .first()
                    .ok_or_else(|| unsupported(op, "no response buffer"))?;
                let resp = resp.clone();
                self.register_access(t, op, &resp, false)?;
                let k = self
                    .clc_seen
                    .entry((t, resp.region, resp.start))
                    .or_insert(0);
                let tile = if *k < self.opts.clc_tiles {
                    self.opts.num_programs.saturating_add(*k)
                } else {
                    -1
                };
                *k += 1;
                let out = op.results().iter().map(|_| Val::Int(tile)).collect();
                self.define(op, out);
                return Ok(());
            }
            "gpu.barrier" | "ttg.barrier" => {
                // `tl.debug_barrier()`: a `bar.sync` of the partition's warps.
                self.sure(op)?;
                return self.bar_sync(t, op);
            }
            "ttng.map_to_remote_buffer" => {
                // The same buffer in CTA `rank` of the cluster.
                let (Some(mem), Some(&r)) = (mems.first(), op.operands().get(1)) else {
                    return Err(unsupported(op, "a remote view without its buffer and rank"));
                };
                let cta = self.rank(op, r)?;
                let remote = Mem { cta, ..mem.clone() };
                self.define(op, vec![Val::Mem(Box::new(remote))]);
                return Ok(());
            }
            "ttg.async_remote_shmem_copy" => {
                // One thread copies local `src` into `dst` of CTA `rank`, completing its bytes
                // on that CTA's `barrier`.
                self.sure(op)?;
                let (Some(src), Some(dst), Some(bar), Some(&r)) =
                    (mems.first(), mems.get(1), mems.get(2), op.operands().get(1))
                else {
                    return Err(unsupported(
                        op,
                        "a remote copy without source, rank, destination and barrier",
                    ));
                };
                let cta = self.rank(op, r)?;
                let (dst, bar) = (Mem { cta, ..dst.clone() }, Mem { cta, ..bar.clone() });
                let id = self.barrier_of(op, &bar)?;
                let bytes = dst.bytes_of_view();
                let label = self.label(op, Some(&dst.name));
                let (read, _, done) =
                    self.b
                        .bulk_copy(t, &label, src.cells(), dst.cells(), id, bytes)?;
                // The read is of the source, the rest of the destination.
                let o = self.origin(op, Some(&src.name));
                self.origins.push(o);
                let name = dst.name.clone();
                self.record(op, Some(&name))?;
                self.remote_completion(t, done, cta, id);
                self.leader_shared(t, src.cells(), false, read)?;
                self.define(op, vec![]);
                return Ok(());
            }
            "nvg.cluster_id" => {
                let rank = i64::try_from(self.cta).unwrap_or(i64::MAX);
                self.define(op, vec![Val::Int(rank)]);
                return Ok(());
            }
            "tt.addptr" => {
                let out = match (
                    op.operands().first().map(|&v| self.val(v)),
                    op.operands().get(1).map(|&v| self.val(v)),
                ) {
                    (Some(Val::Ptr(p, at)), Some(Val::Int(d))) => Val::Ptr(p, at.saturating_add(d)),
                    _ => Val::Opaque,
                };
                self.define(op, vec![out]);
                return Ok(());
            }
            "tt.load" => {
                // A scalar read of an integer-array parameter: taken as cumulative offsets
                // (`cu_seqlens`), element i = i · seq_stride.
                let scalar = !op
                    .results()
                    .first()
                    .and_then(|&r| self.m.value(r))
                    .and_then(|v| v.ty())
                    .is_some_and(|ty| ty.trim().starts_with("tensor"));
                let out = match op.operands().first().map(|&v| self.val(v)) {
                    Some(Val::Ptr(_, at)) if scalar => {
                        Val::Int(at.saturating_mul(self.opts.seq_stride.unwrap_or(512)))
                    }
                    _ => Val::Opaque,
                };
                self.define(op, vec![out]);
                return Ok(());
            }
            "ttng.async_tma_reduce" => {
                let src = mems
                    .first()
                    .ok_or_else(|| unsupported(op, "no shared-memory source"))?;
                let label = self.label(op, Some(&src.name));
                let e = self.b.tma_store(t, &label, src.cells())?;
                self.record(op, Some(&src.name))?;
                self.leader_shared(t, src.cells(), false, e)?;
                self.stores.entry(t).or_default().push(e);
                return Ok(());
            }
            "ttg.async_copy_global_to_local" if op.attribute("useBulk") == Some("true") => {
                self.sure(op)?;
                let (bars, dsts): (Vec<&Mem>, Vec<&Mem>) =
                    mems.iter().partition(|m| m.is_barrier());
                let (Some(dst), Some(bar)) = (dsts.first(), bars.first()) else {
                    return Err(unsupported(
                        op,
                        "a bulk copy without its destination and barrier",
                    ));
                };
                let bytes = op
                    .operands()
                    .iter()
                    .find_map(|&v| match self.val(v) {
                        Val::Int(i) => u64::try_from(i).ok(),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        unsupported(op, "a bulk copy whose size the check cannot compute")
                    })?;
                let id = self.barrier_of(op, bar)?;
                let label = self.label(op, Some(&dst.name));
                let (e, _) = self.b.tma_load(t, &label, dst.cells(), id, bytes)?;
                self.record(op, Some(&dst.name))?;
                self.leader_shared(t, dst.cells(), true, e)?;
                self.define(op, vec![Val::Opaque]);
                return Ok(());
            }
            _ => {}
        }
        if outside_the_model(name) || !mems.is_empty() {
            return Err(unsupported(
                op,
                "an op outside the model that synchronises or touches a buffer",
            ));
        }
        let ints: Vec<Option<i64>> = op
            .operands()
            .iter()
            .map(|&v| match self.val(v) {
                Val::Int(i) => Some(i),
                _ => None,
            })
            .collect();
        let arg = |k: usize| ints.get(k).copied().flatten();
        let bin = |f: fn(i64, i64) -> Option<i64>| match (arg(0), arg(1)) {
            (Some(a), Some(b)) => f(a, b),
            _ => None,
        };
        let v = match name {
            "arith.addi" => bin(i64::checked_add),
            "arith.subi" => bin(i64::checked_sub),
            "arith.muli" => bin(i64::checked_mul),
            "arith.divsi" | "arith.divui" => bin(i64::checked_div),
            "arith.remsi" | "arith.remui" => bin(i64::checked_rem),
            "arith.ceildivsi" => bin(|a, b| {
                if b == 0 {
                    None
                } else {
                    b.checked_sub(1)
                        .and_then(|m| a.checked_add(m))
                        .and_then(|x| x.checked_div_euclid(b))
                }
            }),
            "arith.andi" => bin(|a, b| Some(a & b)),
            "arith.ori" => bin(|a, b| Some(a | b)),
            "arith.xori" => bin(|a, b| Some(a ^ b)),
            "arith.shli" => bin(|a, b| u32::try_from(b).ok().and_then(|b| a.checked_shl(b))),
            "arith.shrsi" | "arith.shrui" => {
                bin(|a, b| u32::try_from(b).ok().and_then(|b| a.checked_shr(b)))
            }
            "arith.maxsi" | "arith.maxui" => bin(|a, b| Some(a.max(b))),
            "arith.minsi" | "arith.minui" => bin(|a, b| Some(a.min(b))),
            "arith.extui" | "arith.extsi" | "arith.trunci" | "arith.index_cast" => arg(0),
            "arith.select" => match arg(0) {
                Some(c) => arg(if c != 0 { 1 } else { 2 }),
                None => None,
            },
            "arith.cmpi" => {
                let pred = op.words().first().cloned().unwrap_or_default();
                bin(match pred.as_str() {
                    "eq" => |a, b| Some(i64::from(a == b)),
                    "ne" => |a, b| Some(i64::from(a != b)),
                    "slt" | "ult" => |a, b| Some(i64::from(a < b)),
                    "sle" | "ule" => |a, b| Some(i64::from(a <= b)),
                    "sgt" | "ugt" => |a, b| Some(i64::from(a > b)),
                    "sge" | "uge" => |a, b| Some(i64::from(a >= b)),
                    _ => |_, _| None,
                })
            }
            "tt.get_program_id" => Some(self.opts.program_id),
            "tt.get_num_programs" => Some(self.opts.num_programs),
            _ => None,
        };
        let out = op
            .results()
            .iter()
            .map(|_| v.map_or(Val::Opaque, Val::Int))
            .collect();
        self.define(op, out);
        Ok(())
    }
}

/// The integer an `arith.constant` result holds.
fn constant(m: &Module, v: ValueId) -> Option<i64> {
    let ValueDef::Result { op, .. } = m.value(v)?.def() else {
        return None;
    };
    let op = m.op(op)?;
    (op.kind() == Some(OpKind::Constant))
        .then(|| op.words().first().and_then(|w| w.parse().ok()))
        .flatten()
}

/// The laps a loop bound left out is unrolled for: `laps`, raised to `R + 1` for the longest
/// ring of `R` barriers — a ring comes round to a slot again `R` laps on.
pub(super) fn laps(m: &Module, laps: i64) -> i64 {
    laps.max(
        i64::try_from(longest_ring(m))
            .unwrap_or(i64::MAX)
            .saturating_add(1),
    )
}

/// The most barriers a `memdesc_index` picks among with an index that is not a constant: the
/// longest ring. A ring's barriers are its one sure sign — a `memdesc_index` also picks rows of
/// buffers that are no ring — and a ring's slot moves: an array of barriers each taken by a
/// constant index (the forward kernels' four `p_fulls`) is four barriers, not a ring of four.
fn longest_ring(m: &Module) -> u64 {
    rings(m).into_iter().max().unwrap_or(1)
}

/// The sizes of the barrier rings: arrays of barriers a `memdesc_index` picks among with an
/// index that is not a constant (through the partitions' captures).
pub(super) fn rings(m: &Module) -> std::collections::BTreeSet<u64> {
    m.walk()
        .into_iter()
        .filter_map(|id| match m.typed(id) {
            Ok(Some(TypedOp::MemdescIndex { src, index })) if !is_constant(m, index) => {
                memdesc_of(m, src)
            }
            _ => None,
        })
        .filter(|d| d.element == "i64")
        .filter_map(|d| d.shape.first().copied())
        .filter(|&r| r > 1)
        .collect()
}

/// Whether `v` is a constant, or a partition's capture of one.
fn is_constant(m: &Module, v: ValueId) -> bool {
    let mut v = v;
    for _ in 0..8 {
        if constant(m, v).is_some() {
            return true;
        }
        match captured(m, v) {
            Some(c) => v = c,
            None => return false,
        }
    }
    false
}

/// What a partition's block argument captures: the value `ttg.warp_specialize` passes in.
fn captured(m: &Module, v: ValueId) -> Option<ValueId> {
    let ValueDef::BlockArgument { block, index } = m.value(v)?.def() else {
        return None;
    };
    let owner = m
        .block(block)
        .map(|b| b.parent())
        .and_then(|r| m.region(r))
        .map(|r| r.parent())?;
    match m.typed(owner) {
        Ok(Some(TypedOp::WarpSpecialize { captures, .. })) => captures.get(index).copied(),
        _ => None,
    }
}

/// The function parameters that bound a loop, with the factor each is divided by on the way:
/// `scf.for … to %N_CTX step 128` gives `N_CTX → 128`, `to %n` with `%n = N_CTX / 128` and
/// step 1 the same. The way back goes through the partitions' captures, divisions by a
/// constant, the first factor of a product and additions of a constant.
pub(super) fn loop_bounds(m: &Module) -> BTreeMap<ValueId, Steps> {
    let mut out = BTreeMap::new();
    for id in m.walk() {
        let Ok(Some(TypedOp::For { upper, step, .. })) = m.typed(id) else {
            continue;
        };
        let mut scale = constant(m, step).unwrap_or(1).max(1);
        let mut v = upper;
        for _ in 0..16 {
            let Some(def) = m.value(v).map(|x| x.def()) else {
                break;
            };
            let next = match def {
                ValueDef::BlockArgument { .. } => captured(m, v),
                ValueDef::Result { op, .. } => m.op(op).and_then(|o| {
                    let (a, b) = (o.operands().first().copied()?, o.operands().get(1).copied());
                    match o.name() {
                        "arith.divsi" | "arith.divui" | "arith.ceildivsi" => {
                            scale = scale.saturating_mul(constant(m, b?)?);
                            Some(a)
                        }
                        "arith.muli" => Some(a),
                        "arith.addi" | "arith.subi" if b.and_then(|b| constant(m, b)).is_some() => {
                            Some(a)
                        }
                        _ => None,
                    }
                }),
                _ => None,
            };
            match next {
                Some(n) => v = n,
                None => break,
            }
        }
        out.entry(v)
            .and_modify(|s: &mut Steps| *s = s.with(scale))
            .or_insert(Steps::one(scale));
    }
    out
}

/// What one lap takes of a value that bounds loops, over the loops it bounds: their shortest
/// and longest step (`cu_seqlens` lengths in `cross_attention` bound loops of step 128 and of
/// step 256).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Steps {
    /// The shortest step.
    pub shortest: i64,
    /// The longest step.
    pub longest: i64,
}

impl Steps {
    fn one(step: i64) -> Self {
        Steps {
            shortest: step,
            longest: step,
        }
    }

    fn with(self, step: i64) -> Self {
        Steps {
            shortest: self.shortest.min(step),
            longest: self.longest.max(step),
        }
    }
}

/// The steps of the loops whose bound is a length read from memory — `cu_seqlens[z + 1] -
/// cu_seqlens[z]` through casts, which the reader takes as `seq_stride`
/// ([`ReadOptions::seq_stride`]) — or none.
pub(super) fn loaded_bound_steps(m: &Module) -> Option<Steps> {
    m.walk()
        .into_iter()
        .filter_map(|id| {
            let Ok(Some(TypedOp::For { upper, step, .. })) = m.typed(id) else {
                return None;
            };
            let step = constant(m, step)?;
            let mut v = upper;
            for _ in 0..16 {
                let def = m.value(v)?.def();
                let ValueDef::Result { op, .. } = def else {
                    v = captured(m, v)?;
                    continue;
                };
                let o = m.op(op)?;
                match o.name() {
                    "tt.load" => return Some(step),
                    "arith.trunci" | "arith.extsi" | "arith.extui" | "arith.index_cast"
                    | "arith.subi" => v = *o.operands().first()?,
                    _ => return None,
                }
            }
            None
        })
        .fold(None, |acc: Option<Steps>, step| {
            Some(acc.map_or(Steps::one(step), |s| s.with(step)))
        })
}

/// The kernel's parameters that bound a loop (`N_CTX`), each with the steps one lap of its
/// loops takes ([`loop_bounds`] on the function's arguments).
pub(super) fn bounding_params(m: &Module) -> BTreeMap<String, Steps> {
    let bounds = loop_bounds(m);
    let Some(func) = m
        .walk()
        .into_iter()
        .find(|&o| m.op(o).and_then(Operation::kind) == Some(OpKind::Func))
    else {
        return BTreeMap::new();
    };
    let Ok(Some(TypedOp::Func { body })) = m.typed(func) else {
        return BTreeMap::new();
    };
    m.region(body)
        .and_then(|r| r.blocks().first().copied())
        .and_then(|b| m.block(b))
        .map(|b| {
            b.arguments()
                .iter()
                .filter_map(|a| Some((m.value(*a)?.name().to_string(), *bounds.get(a)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Reads `text` (a kernel's TTGIR before `tlx-storage-alias-lowering`) into the trace of one
/// CTA's execution with `opts`' parameters.
///
/// Errors: what [`read_module`] refuses (as [`HazardError::Module`]), an op outside the model
/// or a value the synchronisation depends on that cannot be computed
/// ([`HazardError::Unsupported`], naming the op and its line), a buffer index past its
/// allocation ([`HazardError::IndexOutOfRange`]), a trace past `max_events`.
///
/// ```
/// use alias_alloc::hazard::{check, read_kernel, ReadOptions};
/// let text = r#"
/// #shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
/// #smem = #ttg.shared_memory
/// module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {
///   tt.func public @k(%n: i32) {
///     %c0 = arith.constant 0 : i32
///     %c1 = arith.constant 1 : i32
///     %tile = ttg.local_alloc : () -> !ttg.memdesc<1x64xf32, #shared, #smem, mutable>
///     %bars = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
///     %bar = ttg.memdesc_index %bars[%c0] : !ttg.memdesc<1xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
///     ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
///     %t = ttg.memdesc_index %tile[%c0] : !ttg.memdesc<1x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
///     ttg.warp_specialize(%t, %bar)
///     default {
///       ttg.warp_yield
///     }
///     partition0(%a: !ttg.memdesc<64xf32, #shared, #smem, mutable>, %b: !ttg.memdesc<1xi64, #shared, #smem, mutable>) num_warps(1) {
///       %x = ttg.local_load %a : !ttg.memdesc<64xf32, #shared, #smem, mutable> -> tensor<64xf32>
///       ttng.arrive_barrier %b, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
///       ttg.warp_return
///     }
///     partition1(%a: !ttg.memdesc<64xf32, #shared, #smem, mutable>, %b: !ttg.memdesc<1xi64, #shared, #smem, mutable>) num_warps(1) {
///       %c0_1 = arith.constant 0 : i32
///       ttng.wait_barrier %b, %c0_1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
///       %z = arith.constant dense<0.0> : tensor<64xf32>
///       ttg.local_store %z, %a : tensor<64xf32> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
///       ttg.warp_return
///     } : (!ttg.memdesc<64xf32, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared, #smem, mutable>) -> ()
///     tt.return
///   }
/// }
/// "#;
/// let k = read_kernel(text, &ReadOptions::default())?;
/// assert_eq!(k.trace.timelines.len(), 3); // the default region and two partitions
/// assert!(check(&k.trace).all_verified()); // the store waits for the load's arrive
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn read_kernel(text: &str, opts: &ReadOptions) -> Result<KernelTrace, HazardError> {
    KernelReader::new(text, opts.mode)?.read(opts)
}

/// A kernel parsed and planned once, read into a trace at as many options as a proof asks
/// for ([`read_kernel`] at each: the parse and the plan — most of a short read — done once).
///
/// ```
/// use alias_alloc::hazard::{read_kernel, KernelReader, ReadOptions};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// let reader = KernelReader::new(&text, alias_alloc::Mode::TlxCompatible)?;
/// let mut opts = ReadOptions::default();
/// for n_ctx in [256, 384] {
///     opts.params.insert("N_CTX".into(), n_ctx);
///     assert_eq!(reader.read(&opts)?.trace, read_kernel(&text, &opts)?.trace);
/// }
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub struct KernelReader {
    km: crate::mlir::KernelModule,
    mode: crate::Mode,
    plan: Plan,
}

impl KernelReader {
    /// Parses `text` and plans it in `mode`. Errors: an unreadable module or one the planner
    /// refuses ([`HazardError::Module`]).
    pub fn new(text: &str, mode: crate::Mode) -> Result<Self, HazardError> {
        let km = read_module(text).map_err(|e| HazardError::Module {
            message: e.to_string(),
        })?;
        let plan = plan_of(&km, mode)?;
        Ok(KernelReader { km, mode, plan })
    }

    /// The kernel read under `opts` ([`read_kernel`]); a mode other than the reader's is
    /// planned for this read.
    pub fn read(&self, opts: &ReadOptions) -> Result<KernelTrace, HazardError> {
        if opts.mode == self.mode {
            read_planned(&self.km, self.plan.clone(), opts)
        } else {
            read_planned(&self.km, plan_of(&self.km, opts.mode)?, opts)
        }
    }
}

/// The plan of `km` in `mode`, for its target.
fn plan_of(km: &crate::mlir::KernelModule, mode: crate::Mode) -> Result<Plan, HazardError> {
    let target = km.target().map_err(|e| HazardError::Module {
        message: e.to_string(),
    })?;
    let mut plan_opts = PlanOptions::new(mode);
    plan_opts.target = target;
    km.program
        .plan(&plan_opts)
        .map_err(|e| HazardError::Module {
            message: e.to_string(),
        })
}

/// [`read_kernel`] on a module read and planned.
fn read_planned(
    km: &crate::mlir::KernelModule,
    plan: Plan,
    opts: &ReadOptions,
) -> Result<KernelTrace, HazardError> {
    let m = &km.module;
    let mut roots = HashMap::new();
    for a in &km.allocs {
        if let Some(k) = plan.allocs.iter().position(|p| p.alloc == a.alloc) {
            roots.insert(a.op_id, k);
        }
    }
    let func = m
        .walk()
        .into_iter()
        .find(|&o| m.op(o).and_then(Operation::kind) == Some(OpKind::Func))
        .ok_or_else(|| HazardError::Module {
            message: "no tt.func in the module".into(),
        })?;
    let bounds = loop_bounds(m);
    let mut opts = opts.clone();
    opts.default_warps = km.attributes.num_warps.unwrap_or(4);
    opts.laps = laps(m, opts.laps);
    let loaded = loaded_bound_steps(m);
    if opts.seq_stride.is_none() {
        opts.seq_stride = Some(loaded.map_or(512, |s| s.longest.saturating_mul(opts.laps)));
    }
    let seq_stride = loaded.and(opts.seq_stride);
    let opts = &opts;
    let mut interp = Interp {
        m,
        plan,
        roots,
        env: HashMap::new(),
        b: TraceBuilder::new(),
        origins: Vec::new(),
        barriers: HashMap::new(),
        iteration: Vec::new(),
        induction: Vec::new(),
        stores: HashMap::new(),
        opts: opts.clone(),
        params: BTreeMap::new(),
        partitions: 0,
        warps: HashMap::new(),
        named: HashMap::new(),
        named_seen: HashMap::new(),
        condition: None,
        maybe: None,
        clc_seen: HashMap::new(),
        groups: WarpGroups::default(),
        aliases: m.aliases(),
        subslices: HashMap::new(),
        initialised: std::collections::HashSet::new(),
        cta: 0,
        ctas: km.attributes.cluster_dims.iter().product::<u64>().max(1),
        paired: km.attributes.two_ctas,
        timelines: HashMap::new(),
        expects: HashMap::new(),
        remote: Vec::new(),
        cluster_sync: None,
    };
    // The parameters: integers from the options or the defaults, the rest opaque.
    let body = match m.typed(func) {
        Ok(Some(TypedOp::Func { body })) => body,
        _ => {
            return Err(HazardError::Module {
                message: "a tt.func without a body".into(),
            })
        }
    };
    let args: Vec<ValueId> = m
        .region(body)
        .and_then(|r| r.blocks().first().copied())
        .and_then(|b| m.block(b))
        .map(|b| b.arguments().to_vec())
        .unwrap_or_default();
    for &a in &args {
        let Some(v) = m.value(a) else { continue };
        if v.ty().is_some_and(|t| {
            let t = t.trim();
            t.starts_with("!tt.ptr<i") && !t.starts_with("!tt.ptr<i1>")
        }) {
            interp.env.insert(a, Val::Ptr(v.name().to_string(), 0));
            continue;
        }
        let is_int = v.ty().is_some_and(|t| {
            let t = t.trim();
            t.starts_with('i')
                && t.get(1..)
                    .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit()))
                && t != "i1"
        });
        if !is_int {
            continue;
        }
        let value = opts
            .params
            .get(v.name())
            .copied()
            .or_else(|| bounds.get(&a).map(|s| s.longest.saturating_mul(opts.laps)))
            .unwrap_or(1);
        interp.params.insert(v.name().to_string(), value);
        interp.env.insert(a, Val::Int(value));
    }
    let first_env = interp.env.clone();
    if let Some(unknown) = opts.params.keys().find(|k| !interp.params.contains_key(*k)) {
        return Err(HazardError::NoSuchParam {
            name: unknown.clone(),
            params: interp.params.keys().cloned().collect::<Vec<_>>().join(", "),
        });
    }
    // Every CTA of the cluster runs the kernel (one, outside a cluster), its own memory and
    // barriers; `nvg.cluster_id` is its rank.
    for cta in 0..interp.ctas {
        interp.cta = cta;
        if cta > 0 {
            interp.env = first_env.clone();
            interp.iteration.clear();
            interp.induction.clear();
            interp.condition = None;
            interp.maybe = None;
        }
        let main = interp.b.partition(&interp.cta_name("default"));
        interp.timelines.insert(main, (cta, "default".to_string()));
        interp.warps.insert(main, opts.default_warps);
        interp.region(main, body, &[])?;
    }
    // Copies completing on another CTA's barrier: the k-th from a partition onto a barrier
    // belongs to the k-th expect of that CTA's same partition on it.
    let mut seen: HashMap<(String, u64, BarrierId), usize> = HashMap::new();
    for (done, cta, name, bar) in std::mem::take(&mut interp.remote) {
        let k = seen.entry((name.clone(), cta, bar)).or_insert(0);
        let expect = interp
            .timelines
            .iter()
            .find(|(_, (c, n))| *c == cta && *n == name)
            .and_then(|(t, _)| interp.expects.get(&(*t, bar)))
            .and_then(|v| v.get(*k))
            .copied();
        *k += 1;
        if let Some(e) = expect {
            interp.b.set_expect(done, e)?;
        }
    }
    if interp.partitions == 0 {
        return Err(HazardError::Module {
            message: "no ttg.warp_specialize: the kernel has one thread, nothing to order".into(),
        });
    }
    let Interp {
        b, origins, params, ..
    } = interp;
    Ok(KernelTrace {
        trace: b.build()?,
        origins,
        params,
        seq_stride,
        tile: (opts.program_id, opts.num_programs),
        clc_tiles: opts.clc_tiles,
    })
}
