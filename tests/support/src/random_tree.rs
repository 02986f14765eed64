//! Random VALID storage-alias programs: one spec (SMEM or TMEM) with a reuse tree, shared by the
//! property tests (`tests/properties.rs`) and the planning bench (`benches/planning.rs`, which
//! includes this file by path).
//!
//! Every random decision is read from a [`Source`]. The property tests drive it with a
//! proptest-shrinkable list of `u32`s ([`Choices`]; a missing value reads as 0 and 0 is always
//! the simplest option, so shrinking gives small trees), the bench with a fixed-seed
//! [`XorShift`].
//!
//! What "valid" means here (what Intended mode must accept on a target with enough shared
//! memory, [`big_target`]):
//! * depth ≤ 3 (the root group is level 1), 1–6 leaves, now and then 7–40 (SMEM only);
//! * `group_size ∈ {1, 2, 4}` on shared groups only;
//! * buffer counts consistent with the tree: `num = groups · Π(shared ancestor group sizes)`,
//!   `groups ∈ {1, 2, 3, 4}`;
//! * SMEM: power-of-two 2-D tiles of f32, f16, bf16, f8e4m3, i8, i32 or f64 with at least two
//!   elements, in the default layout, a `SwizzledShared` or an `NvmmaShared` (every layout is
//!   checked with `linear_layout` before it is used; one that does not fit the tile falls back
//!   to the default), sometimes an `align` (a power of two), sometimes an explicit
//!   `buffer_size_bytes` larger than both modes need;
//! * TMEM: `[64|128, 2^0..2^8]` tiles of f32, bf16, f16 or fp8 in the default layout or a
//!   valid `TensorMemory` (block_m, block_n ≤ N, col_stride), shrunk until the tree fits the
//!   512 columns of a CTA;
//! * program order sometimes shuffled (TLX sizes SMEM by the first user), and sometimes one
//!   plain allocation outside the spec.

use alias_alloc::{
    AllocError, AllocId, AllocLayout, Allocation, CtaMode, DType, GroupKind, Member, Program,
    Reuse, ReuseGroup, SpecId, Storage, Target,
};
use linear_layout::families::{NvmmaShared, SharedEncoding, SwizzledShared, TensorMemory};
use linear_layout::{AddressMap, BufferMap};

/// Where random decisions come from.
pub trait Source {
    /// The next raw value.
    fn next_u32(&mut self) -> u32;

    /// A value in `0..n` (0 when `n ≤ 1`).
    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            0
        } else {
            self.next_u32() % n
        }
    }

    /// True with probability `percent`% (a raw 0 reads as false).
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) >= 100 - percent.min(100)
    }

    /// One of `options` (the first for a raw 0).
    fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        let n = u32::try_from(options.len()).unwrap_or(u32::MAX);
        options[self.below(n) as usize]
    }
}

/// A proptest-shrinkable choice sequence: reads `data` in order, then zeros.
pub struct Choices<'a> {
    data: &'a [u32],
    pos: usize,
}

impl<'a> Choices<'a> {
    /// Reads `data`, then zeros.
    pub fn new(data: &'a [u32]) -> Self {
        Choices { data, pos: 0 }
    }
}

impl Source for Choices<'_> {
    fn next_u32(&mut self) -> u32 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
}

/// xorshift64* with a fixed seed (the benches).
pub struct XorShift(pub u64);

impl XorShift {
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        let mut s = self.0;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        s.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl Source for XorShift {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// sm_100 with 1 TiB of shared memory: random SMEM trees are valid whatever their size.
pub fn big_target() -> Target {
    Target {
        smem_bytes: 1 << 40,
        ..Target::SM100
    }
}

/// One leaf of the tree: an allocation of the spec.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafSpec {
    /// The allocation's name.
    pub name: String,
    /// Its tile shape.
    pub shape: Vec<u64>,
    /// Its element type.
    pub dtype: DType,
    /// Its element layout.
    pub layout: AllocLayout,
    /// An explicit alignment in bytes.
    pub align: Option<u64>,
    /// Product of the group sizes of the leaf's shared ancestors.
    pub subtiles: u64,
}

/// A tree node; leaves index [`TreeSpec::leaves`].
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Leaf number `i` of [`TreeSpec::leaves`].
    Leaf(usize),
    /// A reuse group.
    Group {
        /// Shared or distinct.
        kind: GroupKind,
        /// Its `group_size` (1 on distinct groups).
        group_size: u64,
        /// Its children, in order.
        children: Vec<Node>,
    },
}

/// A generated program: one spec, its allocations and its tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeSpec {
    /// SMEM or TMEM.
    pub storage: Storage,
    /// Buffer groups of the tree.
    pub groups: u64,
    /// The allocations of the spec.
    pub leaves: Vec<LeafSpec>,
    /// Always a group.
    pub root: Node,
    /// Program order of the leaves' allocations.
    pub order: Vec<usize>,
    /// Explicit `buffer_size_bytes`.
    pub size: Option<u64>,
    /// A plain (`reuse = None`) SMEM allocation outside the spec, allocated first.
    pub plain: bool,
}

/// A [`TreeSpec`] built into a [`Program`].
pub struct Built {
    /// The program.
    pub program: Program,
    /// Its one spec.
    pub spec: SpecId,
    /// Allocation of each leaf, by leaf index.
    pub ids: Vec<AllocId>,
}

/// Generation knobs.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenOptions {
    /// Exactly this many SMEM leaves (the bench's 40-allocation trees); otherwise random.
    pub leaves: Option<usize>,
    /// Only this storage (otherwise SMEM or TMEM at random).
    pub storage: Option<Storage>,
    /// At most 4 leaves and tiles of at most 64 elements per SMEM buffer (for tests of error
    /// paths, where the size of the tree does not matter).
    pub small: bool,
}

/// A random valid program.
pub fn gen_tree(src: &mut impl Source, opts: GenOptions) -> TreeSpec {
    let (storage, n) = match opts.leaves {
        Some(n) => (Storage::Smem, n.max(1)),
        None => {
            let storage = src.pick(&[Storage::Smem, Storage::Tmem]);
            let storage = opts.storage.unwrap_or(storage);
            let n = if opts.small {
                1 + src.below(4) as usize
            } else if storage == Storage::Smem && src.chance(4) {
                7 + src.below(34) as usize
            } else {
                1 + src.below(6) as usize
            };
            (storage, n)
        }
    };
    // Large (and small) trees keep tiles and subtiling small.
    let big = n > 6 || opts.small;
    let groups = u64::from(1 + src.below(4));
    let mut leaves = Vec::new();
    let root = gen_group(src, storage, 1, n, 1, big, &mut leaves);
    let mut t = TreeSpec {
        storage,
        groups,
        leaves,
        root,
        order: Vec::new(),
        size: None,
        plain: false,
    };
    t.order = (0..t.leaves.len()).collect();
    if src.chance(30) {
        for i in (1..t.order.len()).rev() {
            let j = src.below(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
            t.order.swap(i, j);
        }
    }
    if storage == Storage::Tmem {
        fit_tmem(&mut t);
    } else {
        if src.chance(8) {
            t.size = Some(t.size_bound() + 1000 * u64::from(src.below(3)));
        }
        t.plain = src.chance(8);
    }
    t
}

fn gen_group(
    src: &mut impl Source,
    storage: Storage,
    level: u32,
    n: usize,
    subtiles: u64,
    big: bool,
    leaves: &mut Vec<LeafSpec>,
) -> Node {
    let kind = src.pick(&[GroupKind::Shared, GroupKind::Distinct]);
    // Large trees keep their subtiling small (the property checks every buffer).
    let sizes: &[u64] = if big { &[1, 1, 1, 2] } else { &[1, 1, 2, 4] };
    let group_size = match kind {
        GroupKind::Shared => src.pick(sizes),
        GroupKind::Distinct => 1,
    };
    let inner = subtiles * group_size;
    let mut children = Vec::new();
    let mut remaining = n;
    while remaining > 0 {
        if level < 3 && src.chance(if big { 15 } else { 30 }) {
            let k = 1 + src.below(u32::try_from(remaining).unwrap_or(u32::MAX)) as usize;
            children.push(gen_group(src, storage, level + 1, k, inner, big, leaves));
            remaining -= k;
        } else {
            let leaf = match storage {
                Storage::Tmem => gen_tmem_leaf(src, leaves.len(), inner),
                _ => gen_smem_leaf(src, leaves.len(), inner, big),
            };
            leaves.push(leaf);
            children.push(Node::Leaf(leaves.len() - 1));
            remaining -= 1;
        }
    }
    Node::Group {
        kind,
        group_size,
        children,
    }
}

const SMEM_DTYPES: [DType; 7] = [
    DType::F32,
    DType::F16,
    DType::BF16,
    DType::F8E4M3,
    DType::I8,
    DType::I32,
    DType::F64,
];

fn gen_smem_leaf(src: &mut impl Source, index: usize, subtiles: u64, big: bool) -> LeafSpec {
    let dtype = src.pick(&SMEM_DTYPES);
    // log2 of the element count: the smaller of two draws, so small tiles dominate.
    let max_log = if big { 7 } else { 12 };
    let t = src.below(max_log).min(src.below(max_log)).max(1);
    let r = src.below(t + 1);
    let mut rows_log = r;
    let mut cols_log = t - r;
    let bytes = dtype.bytes_ceil();
    let layout = match src.below(10) {
        0..=4 => AllocLayout::Default,
        5 | 6 => {
            let order = if src.chance(50) {
                vec![0, 1]
            } else {
                vec![1, 0]
            };
            SwizzledShared::new(
                1 << src.below(4),
                1 << src.below(3),
                1 << src.below(4),
                order,
                vec![],
            )
            .map_or(AllocLayout::Default, |s| {
                AllocLayout::Shared(SharedEncoding::Swizzled(s))
            })
        }
        _ => {
            let transposed = src.chance(20);
            let bits = dtype.bits();
            // At least one 8-row atom; a swizzle no wider than the contiguous dim's bytes.
            let (contig, other) = if transposed {
                (&mut rows_log, &mut cols_log)
            } else {
                (&mut cols_log, &mut rows_log)
            };
            *other = (*other).max(3);
            *contig = (*contig).max((16 / bytes).max(1).trailing_zeros());
            let row_bytes = (1u64 << *contig) * bytes;
            let fits: Vec<u32> = [0u32, 32, 64, 128]
                .into_iter()
                .filter(|&w| u64::from(w) <= row_bytes)
                .collect();
            let swizzle = src.pick(&fits);
            NvmmaShared::new(swizzle, bits, transposed, false, vec![])
                .map_or(AllocLayout::Default, |n| {
                    AllocLayout::Shared(SharedEncoding::Nvmma(n))
                })
        }
    };
    let shape = vec![1u64 << rows_log, 1u64 << cols_log];
    let layout = match &layout {
        AllocLayout::Shared(enc) => {
            let ok = AddressMap::from_shared_encoding(empty_map(), dtype.bits(), enc, &shape);
            if ok.is_ok() {
                layout
            } else {
                AllocLayout::Default
            }
        }
        _ => layout,
    };
    let align = if src.chance(15) {
        Some(src.pick(&[16u64, 32, 64, 128, 256, 1024]))
    } else {
        None
    };
    LeafSpec {
        name: format!("a{index}"),
        shape,
        dtype,
        layout,
        align,
        subtiles,
    }
}

const TMEM_DTYPES: [DType; 4] = [DType::F32, DType::BF16, DType::F16, DType::F8E4M3];

fn gen_tmem_leaf(src: &mut impl Source, index: usize, subtiles: u64) -> LeafSpec {
    let dtype = src.pick(&TMEM_DTYPES);
    let m = src.pick(&[128u64, 64]);
    // Mostly narrow tiles (the property compares every element of every buffer); the whole
    // 1..=256 range 15% of the time.
    let n_log = if src.chance(15) {
        src.below(9)
    } else {
        src.below(2)
    };
    let n = 1u64 << n_log;
    let bits = dtype.bits();
    let layout = if src.chance(30) {
        let block_m = if m == 128 {
            src.pick(&[128u32, 64])
        } else {
            64
        };
        let block_n = 1u32 << src.below(n_log + 1);
        let strides: Vec<u32> = [1u32, 2, 4]
            .into_iter()
            .filter(|s| bits * s <= 32)
            .collect();
        let tm = TensorMemory {
            block_m,
            block_n,
            col_stride: src.pick(&strides),
            cga_layout: vec![],
            two_ctas: false,
            fp4_padded: false,
        };
        AllocLayout::Tmem(tm, CtaMode::Default)
    } else {
        AllocLayout::Default
    };
    let align = if src.chance(10) {
        Some(src.pick(&[2u64, 4, 8]))
    } else {
        None
    };
    let mut leaf = LeafSpec {
        name: format!("a{index}"),
        shape: vec![m, n],
        dtype,
        layout,
        align,
        subtiles,
    };
    if tmem_columns(&leaf).is_none() {
        leaf.layout = AllocLayout::Default;
    }
    leaf
}

/// The resolved TMEM encoding of a leaf.
fn tmem_encoding(leaf: &LeafSpec) -> TensorMemory {
    match &leaf.layout {
        AllocLayout::Tmem(tm, _) => tm.clone(),
        _ => TensorMemory {
            block_m: leaf.shape[0] as u32,
            block_n: leaf.shape[1] as u32,
            col_stride: 1,
            cga_layout: vec![],
            two_ctas: false,
            fp4_padded: false,
        },
    }
}

/// Columns of one TMEM buffer, when the layout is valid for the tile.
fn tmem_columns(leaf: &LeafSpec) -> Option<u64> {
    let tm = tmem_encoding(leaf);
    let bits = leaf.dtype.bits();
    AddressMap::tensor_memory(empty_map(), bits, &tm, &leaf.shape).ok()?;
    tm.alloc_columns(&leaf.shape, bits).ok().map(u64::from)
}

/// Whether Intended mode refuses the tree for tensor memory alone (other refusals are the
/// property's to judge).
fn needs_more_tmem(t: &TreeSpec) -> bool {
    t.build().is_ok_and(|built| {
        matches!(
            built
                .program
                .plan(&alias_alloc::PlanOptions::new(alias_alloc::Mode::Intended)),
            Err(AllocError::TmemCapacity { .. })
        )
    })
}

/// Halves TMEM tiles (then drops buffer groups) until an upper bound of the intended backing
/// fits 512 columns.
/// Then, while the planner still needs more than 512 columns, the same.
fn fit_tmem(t: &mut TreeSpec) {
    loop {
        let per_group: u64 = t
            .leaves
            .iter()
            .map(|l| l.subtiles * (tmem_columns(l).unwrap_or(512) + l.align.unwrap_or(1)))
            .sum::<u64>()
            + 8;
        // The bound, then the planner itself: the bound misses some padding (alignment inside
        // subtiled groups: a tree of 537 columns passed it).
        if per_group * t.groups <= 512 && !needs_more_tmem(t) {
            return;
        }
        let widest = (0..t.leaves.len())
            .filter(|&i| t.leaves[i].shape[1] > 1)
            .max_by_key(|&i| t.leaves[i].subtiles * tmem_columns(&t.leaves[i]).unwrap_or(0));
        match widest {
            Some(i) => {
                let leaf = &mut t.leaves[i];
                leaf.shape[1] /= 2;
                if let AllocLayout::Tmem(tm, _) = &mut leaf.layout {
                    tm.block_n = tm.block_n.min(leaf.shape[1] as u32);
                }
                if tmem_columns(leaf).is_none() {
                    leaf.layout = AllocLayout::Default;
                }
            }
            None if t.groups > 1 => t.groups -= 1,
            None => {
                for l in &mut t.leaves {
                    l.align = None;
                }
                return;
            }
        }
    }
}

fn empty_map() -> BufferMap {
    BufferMap::new(0, &[]).expect("one buffer at 0")
}

impl TreeSpec {
    /// Buffers of leaf `i`.
    pub fn num(&self, i: usize) -> u64 {
        self.groups * self.leaves[i].subtiles
    }

    /// Leaves whose shared ancestors subtile them.
    pub fn has_subtiles(&self) -> bool {
        self.leaves.iter().any(|l| l.subtiles > 1)
    }

    /// More than either mode's SMEM backing can need (for an explicit `buffer_size_bytes`).
    pub fn size_bound(&self) -> u64 {
        let per_group: u64 = self
            .leaves
            .iter()
            .map(|l| {
                let bytes = l.shape.iter().product::<u64>() * l.dtype.bytes_ceil();
                l.subtiles * (bytes + 1024 + l.align.unwrap_or(0))
            })
            .sum();
        let max_num = (0..self.leaves.len())
            .map(|i| self.num(i))
            .max()
            .unwrap_or(1);
        per_group * max_num + 4096
    }

    /// The allocation of leaf `i`.
    pub fn allocation(&self, i: usize, spec: SpecId) -> Allocation {
        let l = &self.leaves[i];
        Allocation {
            name: l.name.clone(),
            shape: l.shape.clone(),
            dtype: l.dtype,
            num: self.num(i),
            storage: self.storage,
            reuse: Reuse::Spec(spec),
            layout: l.layout.clone(),
            align: l.align,
        }
    }

    /// Builds the program: spec, (plain allocation,) allocations in [`order`](Self::order), tree.
    pub fn build(&self) -> Result<Built, AllocError> {
        let mut program = Program::new();
        let spec = program.storage_alias_spec("s", self.storage, self.size)?;
        if self.plain {
            program.alloc(Allocation {
                name: "plain".into(),
                shape: vec![8, 8],
                dtype: DType::F32,
                num: 2,
                storage: Storage::Smem,
                reuse: Reuse::None,
                layout: AllocLayout::Default,
                align: None,
            })?;
        }
        let mut ids = vec![None; self.leaves.len()];
        for &i in &self.order {
            ids[i] = Some(program.alloc(self.allocation(i, spec))?);
        }
        let ids: Vec<AllocId> = ids.into_iter().flatten().collect();
        let tree = self.reuse_group(&ids)?;
        program.set_buffer_overlap(spec, tree)?;
        Ok(Built { program, spec, ids })
    }

    /// The tree as a [`ReuseGroup`] over `ids` (by leaf index).
    pub fn reuse_group(&self, ids: &[AllocId]) -> Result<ReuseGroup, AllocError> {
        match node_member(&self.root, ids)? {
            Member::Group(g) => Ok(g),
            Member::Alloc(a) => ReuseGroup::shared(vec![a.into()]),
        }
    }

    /// One line: `smem ×2 groups shared(a0 f32[8, 4]×2, distinct(…) …)`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} ×{} groups{}{}{} ",
            self.storage,
            self.groups,
            self.size.map_or(String::new(), |b| format!(" size {b}")),
            if self.plain { " +plain" } else { "" },
            if self.order.windows(2).all(|w| w[0] < w[1]) {
                String::new()
            } else {
                format!(" order {:?}", self.order)
            }
        );
        self.describe_node(&self.root, &mut s);
        s
    }

    fn describe_node(&self, n: &Node, out: &mut String) {
        match n {
            Node::Leaf(i) => {
                let l = &self.leaves[*i];
                out.push_str(&format!(
                    "{} {}{:?}×{}",
                    l.name,
                    l.dtype,
                    l.shape,
                    self.num(*i)
                ));
                match &l.layout {
                    AllocLayout::Default => {}
                    AllocLayout::Shared(SharedEncoding::Swizzled(s)) => out.push_str(&format!(
                        " swizzled<{},{},{},{:?}>",
                        s.vec, s.per_phase, s.max_phase, s.order
                    )),
                    AllocLayout::Shared(SharedEncoding::Nvmma(n)) => out.push_str(&format!(
                        " nvmma<{}B{}>",
                        n.swizzle_byte_width,
                        if n.transposed { " T" } else { "" }
                    )),
                    AllocLayout::Tmem(tm, _) => out.push_str(&format!(
                        " tmem<{},{},{}>",
                        tm.block_m, tm.block_n, tm.col_stride
                    )),
                    other => out.push_str(&format!(" {other:?}")),
                }
                if let Some(a) = l.align {
                    out.push_str(&format!(" align {a}"));
                }
            }
            Node::Group {
                kind,
                group_size,
                children,
            } => {
                out.push_str(&kind.to_string());
                if *group_size > 1 {
                    out.push_str(&format!("[gs {group_size}]"));
                }
                out.push('(');
                for (k, c) in children.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.describe_node(c, out);
                }
                out.push(')');
            }
        }
    }
}

fn node_member(n: &Node, ids: &[AllocId]) -> Result<Member, AllocError> {
    match n {
        Node::Leaf(i) => Ok(Member::Alloc(ids[*i])),
        Node::Group {
            kind,
            group_size,
            children,
        } => {
            let members = children
                .iter()
                .map(|c| node_member(c, ids))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Member::Group(
                ReuseGroup::new(*kind, members)?.group_size(*group_size)?,
            ))
        }
    }
}
