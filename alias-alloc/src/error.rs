//! [`AllocError`] and [`Warning`]: everything the API and the planner refuse or point out.
//!
//! Where TLX (fbtriton 3.7.4) has a message for the same condition, [`AllocError::tlx_message`]
//! returns its exact text (what the golden tests compare); `Display` adds the names and numbers
//! TLX leaves out.

use thiserror::Error;

use crate::checker::Violation;

/// Why a program could not be built or planned. Every variant names the spec, allocation or
/// group involved and the numbers that broke the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AllocError {
    /// `storage_alias_spec(storage = smemCluster)`.
    #[error("spec '{spec}': smemCluster storage is not supported for storage_alias_spec")]
    SmemClusterSpec {
        /// The spec.
        spec: String,
    },
    /// `buffer_size_bytes = 0`.
    #[error("spec '{spec}': buffer_size_bytes must be positive, got {size}")]
    NonPositiveSize {
        /// The spec.
        spec: String,
        /// The size given.
        size: u64,
    },
    /// An allocation whose storage differs from its spec's.
    #[error("allocation '{alloc}': storage_alias_spec '{spec}' storage ({spec_storage}) doesn't match local_alloc storage ({alloc_storage})")]
    StorageMismatch {
        /// The allocation.
        alloc: String,
        /// Its spec.
        spec: String,
        /// The spec's storage (`smem`, `tmem`).
        spec_storage: String,
        /// The allocation's storage.
        alloc_storage: String,
    },
    /// Legacy `reuse=<allocation>` with a different storage kind.
    #[error("allocation '{alloc}': reuse tensor '{reused}' has different storage")]
    LegacyStorageMismatch {
        /// The allocation.
        alloc: String,
        /// The allocation it reuses.
        reused: String,
    },
    /// A tile shape with no dims or a zero dim, or a buffer count of zero.
    #[error("allocation '{alloc}': {reason} (shape {shape:?}, {num} buffer{})", if *num == 1 { "" } else { "s" })]
    InvalidShape {
        /// The allocation.
        alloc: String,
        /// Its tile shape.
        shape: Vec<u64>,
        /// Its buffer count.
        num: u64,
        /// What is wrong with them.
        reason: String,
    },
    /// The allocation's element layout is invalid for its shape and dtype.
    #[error("allocation '{alloc}': {source}")]
    InvalidLayout {
        /// The allocation.
        alloc: String,
        /// Why the layout refused the shape.
        #[source]
        source: Box<linear_layout::LayoutError>,
    },
    /// More specs or allocations than one program may hold
    /// ([`MAX_ALLOCATIONS`](crate::program::MAX_ALLOCATIONS) of each).
    #[error("{what} '{name}': more than {limit} {what}s in one kernel; at most {limit} are read")]
    TooMany {
        /// `spec` or `allocation`.
        what: &'static str,
        /// The first one past the limit.
        name: String,
        /// [`MAX_ALLOCATIONS`](crate::program::MAX_ALLOCATIONS).
        limit: usize,
    },
    /// `reuse_group()` with no elements.
    #[error("reuse_group requires at least one element")]
    EmptyGroup,
    /// A reuse tree nested deeper than [`MAX_TREE_DEPTH`](crate::reuse_group::MAX_TREE_DEPTH)
    /// groups (TLX kernels nest a handful).
    #[error("{what}: reuse groups nested {depth} deep; at most {limit} are read")]
    TreeTooDeep {
        /// Where: the spec, or the op that nests it.
        what: String,
        /// Its depth (at least `limit + 1`).
        depth: usize,
        /// [`MAX_TREE_DEPTH`](crate::reuse_group::MAX_TREE_DEPTH).
        limit: usize,
    },
    /// `group_size = 0`.
    #[error("group_size must be a positive integer, got {got}")]
    InvalidGroupSize {
        /// The group size given.
        got: u64,
    },
    /// An id that does not belong to this program.
    #[error("{what} #{index} does not exist in this program (it has {count})")]
    UnknownId {
        /// `spec` or `allocation`.
        what: &'static str,
        /// The id's index.
        index: usize,
        /// How many of that kind the program has.
        count: usize,
    },
    /// A name used twice for specs or allocations.
    #[error("{what} name '{name}' is used twice")]
    DuplicateName {
        /// `spec` or `allocation`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// The same allocation twice in one reuse_group tree.
    #[error("spec '{spec}': allocation '{alloc}' appears twice in the reuse_group tree; each allocation can only appear once")]
    DuplicateElement {
        /// The spec.
        spec: String,
        /// The repeated allocation.
        alloc: String,
    },
    /// A tree element that is not a storage-alias allocation (no spec, or legacy reuse).
    #[error("spec '{spec}': allocation '{alloc}' in the reuse_group tree is not allocated from a storage_alias_spec")]
    NotAliasAllocation {
        /// The spec.
        spec: String,
        /// The allocation that has no spec.
        alloc: String,
    },
    /// A tree element allocated from another spec.
    #[error("spec '{spec}': allocation '{alloc}' in the reuse_group tree uses spec '{other}'")]
    ForeignElement {
        /// The spec whose tree it is.
        spec: String,
        /// The allocation.
        alloc: String,
        /// The spec it was allocated from.
        other: String,
    },
    /// A second `set_buffer_overlap` on one spec.
    #[error("spec '{spec}' already has a set_buffer_overlap defined; each spec can only have one overlap definition")]
    DuplicateOverlap {
        /// The spec.
        spec: String,
    },
    /// `buffer_size_bytes` below what the allocations need.
    #[error("spec '{spec}': buffer_size_bytes {size} is too small for computed shape, requires at least {required} bytes")]
    ExplicitSizeTooSmall {
        /// The spec.
        spec: String,
        /// Its `buffer_size_bytes`.
        size: u64,
        /// The bytes its allocations need.
        required: u64,
    },
    /// TLX reindexing: the group stride is not a whole number of the allocation's buffers.
    #[error("allocation '{alloc}': units_between_buffer_groups ({units}) must be a multiple of the original buffer size ({unit})")]
    UnitsNotMultiple {
        /// The allocation.
        alloc: String,
        /// Units between its buffer groups.
        units: u64,
        /// Its buffer's size in units.
        unit: u64,
    },
    /// TLX reindexing: the offset is not a whole number of the allocation's buffers.
    #[error("allocation '{alloc}': buffer_offset ({offset}) must be a multiple of the original buffer size ({unit})")]
    OffsetNotMultiple {
        /// The allocation.
        alloc: String,
        /// Its buffer offset in units.
        offset: u64,
        /// Its buffer's size in units.
        unit: u64,
    },
    /// TLX: a spec with no allocations fails the pass (a warning in Intended mode).
    #[error("spec '{spec}' has no referencing allocations, so it has no shape")]
    UnusedSpec {
        /// The spec.
        spec: String,
    },
    /// Members of a tree that are live together buffer group by buffer group but do not have the
    /// same number of buffer groups (or a count that does not fill its subtile groups).
    #[error("allocation '{alloc}': {num} buffers with group size {group_size} do not make the {groups} buffer groups of spec '{spec}' (first set by '{first}'): buffer group k holds buffer k of each of them, live together, so some k would have a buffer of one and none of the other; give them one count, or put them under a shared group of their own if no buffer of one is live while any of the other is")]
    BufferCountMismatch {
        /// The spec.
        spec: String,
        /// The allocation whose count does not fit.
        alloc: String,
        /// Its buffer count.
        num: u64,
        /// Its leaf group size.
        group_size: u64,
        /// The buffer groups the spec has.
        groups: u64,
        /// The allocation that set that number.
        first: String,
    },
    /// `group_size` on a `distinct` group (TLX ignores it).
    #[error("spec '{spec}': group_size {group_size} on a distinct group (around '{first}') has no meaning; put it on a shared group")]
    GroupSizeOnDistinct {
        /// The spec.
        spec: String,
        /// The group size given.
        group_size: u64,
        /// The group's first allocation, to find it by.
        first: String,
    },
    /// An allocation of a spec with a reuse tree that is not in the tree.
    #[error("allocation '{alloc}' uses spec '{spec}' but is not in its reuse_group tree, so it would overlap every member")]
    NotInTree {
        /// The spec.
        spec: String,
        /// The allocation left out.
        alloc: String,
    },
    /// The tree does not fit the backing (TLX sizes TMEM backings without the tree).
    #[error("spec '{spec}': the reuse_group tree needs {need} {unit} per buffer group but the backing has {have}")]
    DistinctOverflow {
        /// The spec.
        spec: String,
        /// Units the tree needs per buffer group.
        need: u64,
        /// Units the backing has per buffer group.
        have: u64,
        /// `bytes` or `columns`.
        unit: &'static str,
    },
    /// More tensor memory than one CTA has.
    #[error("tensor memory: {what} needs {need} {unit}, a CTA has {limit}")]
    TmemCapacity {
        /// The spec or region.
        what: String,
        /// What it needs.
        need: u64,
        /// What one CTA has.
        limit: u64,
        /// `lanes` or `columns`.
        unit: &'static str,
    },
    /// More shared memory than the target allows per block.
    #[error("shared memory: specs {specs:?} need {need} bytes, {target} allows {limit}")]
    SmemCapacity {
        /// The specs counted.
        specs: Vec<String>,
        /// Bytes they need.
        need: u64,
        /// Bytes the target allows per block.
        limit: u64,
        /// The target.
        target: String,
    },
    /// What Triton's own verifiers refuse (a memdesc shape, a TMEM encoding), with their text.
    #[error("{what}: {message}")]
    Verifier {
        /// The op or encoding refused.
        what: String,
        /// Triton's text.
        message: String,
    },
    /// A plan that the independent checker rejects (a planner bug, never user error).
    #[error("internal: the checker rejected an Intended plan: {0}")]
    CheckerRejected(Box<Violation>),
    /// A plan or CLI input file that cannot be read.
    #[error("{0}")]
    Input(String),
    /// What the program refuses about an op of a TTGIR module, at the op.
    #[error("line {line}, column {column}: {error}")]
    Located {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// The refusal.
        error: Box<AllocError>,
    },
    /// An Intended placement the fork's IR cannot write: a `tlx.local_alias` of the backing is
    /// indexed by `ttg.memdesc_index` in whole buffers of the alias type, and this allocation's
    /// buffers start elsewhere.
    #[error("allocation '{alloc}': Intended mode places its buffers at {buffer_map} ({unit} {units} each), not at whole buffers of an alias of the backing, which is all a tlx.local_alias + ttg.memdesc_index can reach: the fork's IR cannot write this placement (plan with --mode tlx to lower it as TLX does, or use Intended mode's address maps: --emit ptx)")]
    AliasIndexUnreachable {
        /// The allocation.
        alloc: String,
        /// Its buffer map (`3 + (2):(128)`).
        buffer_map: String,
        /// Its buffer size in plan units.
        unit: u64,
        /// `bytes` or `columns`.
        units: &'static str,
    },
    /// A module whose text the module model cannot read, or an edit of it that would print
    /// a module the compiler rejects (`linear_layout::mlir`), with its line and column.
    #[error(transparent)]
    Syntax(#[from] linear_layout::mlir::MlirError),
    /// A TTGIR module that cannot be read or planned, at a place in its text.
    #[error("line {line}, column {column}: {message}")]
    Mlir {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// The regions of one storage kind do not fit the target even packed by lifetime.
    #[error("{storage} arena does not fit: {diagnosis}")]
    ArenaOverflow {
        /// `smem` or `tmem`.
        storage: String,
        /// The packer's diagnosis: the peak, its live buffers, the bound.
        diagnosis: String,
    },
    /// A lifetime `[start, end)` with `end <= start`.
    #[error(
        "allocation '{alloc}': empty lifetime [{start}, {end}) (end must be greater than start)"
    )]
    EmptyLifetime {
        /// The allocation.
        alloc: String,
        /// First program point of the lifetime.
        start: u64,
        /// The point after the last.
        end: u64,
    },
}

impl AllocError {
    /// The error as `linalias plan` words it: in TLX-compatible mode followed by TLX's own text
    /// where that differs — the Python frontend's (`frontend`: the program stands for Python
    /// calls, as a plan file or the Python `Kernel` does) where it catches the error first,
    /// else the verifier's.
    ///
    /// ```
    /// use alias_alloc::{AllocError, Mode};
    /// let e = AllocError::StorageMismatch { alloc: "p".into(), spec: "s".into(),
    ///     spec_storage: "tmem".into(), alloc_storage: "smem".into() };
    /// assert!(e.explain(Mode::TlxCompatible, true).ends_with(
    ///     "(TLX: storage_alias_spec storage (tmem) doesn't match local_alloc storage (smem))"));
    /// assert_eq!(e.explain(Mode::Intended, true), e.to_string());
    /// ```
    pub fn explain(&self, mode: crate::Mode, frontend: bool) -> String {
        let tlx = if frontend {
            self.tlx_frontend_message().or_else(|| self.tlx_message())
        } else {
            self.tlx_message()
        };
        match (mode, tlx) {
            (crate::Mode::TlxCompatible, Some(tlx)) if tlx != self.to_string() => {
                format!("{self} (TLX: {tlx})")
            }
            _ => self.to_string(),
        }
    }

    /// The text TLX's Python frontend (`tlx.local_alloc`, `tlx.reuse_group`,
    /// `tlx.storage_alias_spec`) raises for this error, where it catches it before the MLIR
    /// verifier does — what a user writing the kernel sees; `None` where the frontend lets it
    /// through (then [`tlx_message`](Self::tlx_message) is what TLX says).
    ///
    /// ```
    /// use alias_alloc::AllocError;
    /// let e = AllocError::StorageMismatch { alloc: "p".into(), spec: "s".into(),
    ///     spec_storage: "tmem".into(), alloc_storage: "smem".into() };
    /// assert_eq!(e.tlx_frontend_message().as_deref(),
    ///     Some("storage_alias_spec storage (tmem) doesn't match local_alloc storage (smem)"));
    /// ```
    pub fn tlx_frontend_message(&self) -> Option<String> {
        match self {
            AllocError::StorageMismatch {
                spec_storage,
                alloc_storage,
                ..
            } => Some(format!(
                "storage_alias_spec storage ({spec_storage}) doesn't match local_alloc storage ({alloc_storage})"
            )),
            AllocError::LegacyStorageMismatch { .. } => {
                Some("reuse tensor has different storage".into())
            }
            AllocError::SmemClusterSpec { .. }
            | AllocError::NonPositiveSize { .. }
            | AllocError::EmptyGroup
            | AllocError::InvalidGroupSize { .. } => self.tlx_message(),
            AllocError::Located { error, .. } => error.tlx_frontend_message(),
            _ => None,
        }
    }

    /// The exact text fbtriton 3.7.4 prints for this condition, when TLX detects it.
    ///
    /// ```
    /// use alias_alloc::AllocError;
    /// let e = AllocError::UnitsNotMultiple { alloc: "a".into(), units: 24576, unit: 16384 };
    /// assert_eq!(e.tlx_message().as_deref(),
    ///     Some("units_between_buffer_groups (24576) must be a multiple of the original buffer size (16384)"));
    /// assert!(e.to_string().starts_with("allocation 'a': "));
    /// ```
    pub fn tlx_message(&self) -> Option<String> {
        const OVERLAP: &str = "'tlx.set_buffer_overlap' op ";
        Some(match self {
            AllocError::Located { error, .. } => return error.tlx_message(),
            AllocError::SmemClusterSpec { .. } => {
                "smemCluster storage is not supported for storage_alias_spec".into()
            }
            AllocError::NonPositiveSize { size, .. } => {
                format!("buffer_size_bytes must be positive, got {size}")
            }
            AllocError::StorageMismatch { spec_storage, .. } => {
                let (s, m) = if spec_storage == "tmem" {
                    ("tmem", "tensor")
                } else {
                    ("smem", "shared")
                };
                format!("'tlx.storage_alias_local_alloc' op storage_alias_spec has {s} storage but result is not in {m} memory")
            }
            AllocError::EmptyGroup => "reuse_group requires at least one element".into(),
            AllocError::InvalidGroupSize { got } => {
                format!("group_size must be a positive integer, got {got}")
            }
            AllocError::DuplicateElement { .. } => format!("{OVERLAP}reuse_group tree contains duplicate elements; each allocation can only appear once in the tree"),
            AllocError::NotAliasAllocation { .. } => format!("{OVERLAP}all elements in the reuse_group tree must be allocated via tlx.storage_alias_local_alloc, but found an element that is not"),
            AllocError::ForeignElement { .. } => format!("{OVERLAP}all allocations in the reuse_group must reference the same storage_alias_spec, but found an allocation that uses a different spec"),
            AllocError::DuplicateOverlap { .. } => "storage_alias_spec already has a set_buffer_overlap defined; each spec can only have one overlap definition".into(),
            AllocError::ExplicitSizeTooSmall { size, required, .. } => format!("storage_alias_spec buffer_size_bytes {size} is too small for computed shape, requires at least {required} bytes"),
            AllocError::UnitsNotMultiple { units, unit, .. } => format!("units_between_buffer_groups ({units}) must be a multiple of the original buffer size ({unit})"),
            AllocError::OffsetNotMultiple { offset, unit, .. } => format!("buffer_offset ({offset}) must be a multiple of the original buffer size ({unit})"),
            AllocError::Verifier { message, .. } => message.clone(),
            AllocError::UnusedSpec { .. } => "storage_alias_spec has no shape set; run TLXStorageAliasSizeDefinition pass first".into(),
            _ => return None,
        })
    }
}

/// Something a plan is allowed to have but its user should know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Warning {
    /// A spec no allocation references.
    #[error("spec '{spec}' has no referencing allocations")]
    UnusedSpec {
        /// The spec.
        spec: String,
    },
    /// TlxCompatible: a logical buffer TLX places somewhere other than the documented meaning
    /// (subtile `j` at `j·(U + unit)` instead of `j·W`).
    #[error("allocation '{alloc}' buffer {index}: TLX places it at {tlx} {unit}, the documented subtile layout at {intended}")]
    ModesDisagree {
        /// The allocation.
        alloc: String,
        /// The logical buffer.
        index: u64,
        /// Where TLX places it.
        tlx: u64,
        /// Where the documented subtile rule places it.
        intended: u64,
        /// `bytes` or `columns`.
        unit: &'static str,
    },
    /// TlxCompatible: TLX sizes an SMEM backing by the first allocation's buffer count.
    #[error("spec '{spec}': TLX sizes the backing with {count} buffer groups taken from '{first}' (program order), the tree has {tree_groups}")]
    FirstUserBufferCount {
        /// The spec.
        spec: String,
        /// The allocation TLX takes the count from.
        first: String,
        /// Its buffer groups.
        count: u64,
        /// The buffer groups of the tree.
        tree_groups: u64,
    },
    /// TlxCompatible: an alias view outgrows the backing `tlx-storage-alias-lowering` made, and
    /// `tlx-rewrite-local-alias` (the next pass) re-allocates the backing as that alias's type.
    #[error("spec '{spec}': tlx-rewrite-local-alias grows the backing from {from} to {to} {unit} to hold the alias of '{alloc}'")]
    BackingGrown {
        /// The spec.
        spec: String,
        /// The allocation whose alias is the largest.
        alloc: String,
        /// Units the storage-alias pass allocated.
        from: u64,
        /// Units the rewritten backing has.
        to: u64,
        /// `bytes` or `columns`.
        unit: &'static str,
    },
    /// Intended: a shared group whose children have different buffer counts, planned as a
    /// phase pool: each child lays out all its buffers, and no buffer of one may be live while
    /// any buffer of another is (sched2tlx's multiphase GEMM, whose phases run one after another).
    #[error("spec '{spec}': the shared group around '{first}' has members with {counts:?} buffer groups, planned as phases: each keeps all its buffers and they share bytes, so no buffer of one may be live while any buffer of another is")]
    PhasePool {
        /// The spec.
        spec: String,
        /// The first allocation of the group.
        first: String,
        /// Its children's buffer-group counts.
        counts: Vec<u64>,
    },
    /// Intended: two members of a `distinct` group share bytes because their lifetimes are
    /// disjoint (`distinct` keeps apart what is live together; these never are).
    #[error("spec '{spec}': '{first}' (live {first_live}) and '{second}' (live {second_live}) are in a distinct group but share bytes [{start}, {end}): their lifetimes do not overlap")]
    SharedByLifetime {
        /// The spec.
        spec: String,
        /// The first member (its first allocation).
        first: String,
        /// Its lifetime, `[start, end)`.
        first_live: String,
        /// The second member.
        second: String,
        /// Its lifetime.
        second_live: String,
        /// First shared unit of the region.
        start: u64,
        /// One past the last shared unit.
        end: u64,
    },
    /// TlxCompatible: TLX accepts what Intended mode rejects.
    #[error("TLX accepts this, Intended mode rejects it: {0}")]
    AcceptedByTlx(AllocError),
    /// TlxCompatible: the plan TLX produces is unsafe (found by the independent checker).
    #[error("TLX plan is unsafe: {0}")]
    Unsafe(Violation),
    /// A module without any `tlx.*` op: most likely dumped after `tlx-storage-alias-lowering`,
    /// where the aliasing is already gone, so nothing it planned is aliased.
    #[error("the module has no tlx.* op: it is probably the module after tlx-storage-alias-lowering, where the aliasing is gone; plan the one before it (docs/plan-from-ir.md)")]
    NoTlxOps,
}

impl Warning {
    /// The warning as `linalias plan` words it: in TLX-compatible mode followed by TLX's own
    /// text where TLX prints one.
    ///
    /// ```
    /// use alias_alloc::{Mode, Warning};
    /// let w = Warning::UnusedSpec { spec: "s".into() };
    /// assert!(w.explain(Mode::TlxCompatible).ends_with("(TLX: storage_alias_spec has no referencing storage_alias_local_alloc operations)"));
    /// assert_eq!(w.explain(Mode::Intended), w.to_string());
    /// ```
    pub fn explain(&self, mode: crate::Mode) -> String {
        match (mode, self.tlx_message()) {
            (crate::Mode::TlxCompatible, Some(tlx)) => format!("{self} (TLX: {tlx})"),
            _ => self.to_string(),
        }
    }

    /// The exact text fbtriton 3.7.4 prints for this warning, when it prints one.
    ///
    /// ```
    /// use alias_alloc::Warning;
    /// let w = Warning::UnusedSpec { spec: "s".into() };
    /// assert_eq!(w.tlx_message().as_deref(),
    ///     Some("storage_alias_spec has no referencing storage_alias_local_alloc operations"));
    /// ```
    pub fn tlx_message(&self) -> Option<String> {
        match self {
            Warning::UnusedSpec { .. } => Some(
                "storage_alias_spec has no referencing storage_alias_local_alloc operations".into(),
            ),
            _ => None,
        }
    }
}

/// A `linear-layout` error where no allocation is at hand to name (buffer maps, plan
/// arithmetic), as [`AllocError::Input`].
pub(crate) fn map_err<T>(r: Result<T, linear_layout::LayoutError>) -> Result<T, AllocError> {
    r.map_err(|e| AllocError::Input(e.to_string()))
}
