//! TLX step 2 (`BufferOffsetCalculation.cpp`): sizes, alignments and the offset walk over a
//! reuse tree.

use rustc_hash::FxHashMap;

use linear_layout::address::align_up_saturating;

use crate::{AllocError, AllocId, GroupKind, Member, Program, ReuseGroup, Storage};

/// What step 2 records for one leaf: TLX's `(buffer_offset, units_between_buffer_groups,
/// group_size)`, plus the subtile slots the documented meaning would use (`(k, W)` per shared
/// ancestor with `group_size = k > 1`, outermost first) to compare against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlxOffset {
    /// `o`: where buffer group 0 starts.
    pub offset: u64,
    /// `U`: units between buffer groups, divided by every ancestor shared group size.
    pub units: u64,
    /// `gs`: product of the ancestor shared group sizes.
    pub group_size: u64,
    /// Documented subtiles: `(group size, slot width)` per shared ancestor, outermost first.
    pub subtiles: Vec<(u64, u64)>,
}

/// Sizes and alignments of a tree as TLX computes them (`Dialect.h`).
pub(crate) struct TlxTree {
    /// Columns mode (a TMEM tree).
    tm: bool,
    /// `(size, alignment)` of every leaf, computed once.
    leaves: FxHashMap<AllocId, (u64, u64)>,
}

impl TlxTree {
    pub(crate) fn new(program: &Program, tree: &ReuseGroup, tm: bool) -> Result<Self, AllocError> {
        let mut leaves = FxHashMap::default();
        for id in tree.allocations() {
            let a = program.allocation(id)?;
            let fact = if tm {
                let cols = a.tmem_columns()?;
                (cols, cols)
            } else {
                (a.tlx_tree_bytes(), a.dtype.bytes_ceil().max(128))
            };
            leaves.insert(id, fact);
        }
        Ok(TlxTree { tm, leaves })
    }

    fn leaf(&self, a: AllocId) -> Result<(u64, u64), AllocError> {
        self.leaves.get(&a).copied().ok_or(AllocError::UnknownId {
            what: "allocation",
            index: a.index(),
            count: self.leaves.len(),
        })
    }

    fn leaf_size(&self, a: AllocId) -> Result<u64, AllocError> {
        self.leaf(a).map(|(size, _)| size)
    }

    fn leaf_align(&self, a: AllocId) -> Result<u64, AllocError> {
        self.leaf(a).map(|(_, align)| align)
    }

    pub(crate) fn align(&self, m: &Member) -> Result<u64, AllocError> {
        match m {
            Member::Alloc(a) => self.leaf_align(*a),
            Member::Group(g) => self.align_group(g),
        }
    }

    pub(crate) fn align_group(&self, g: &ReuseGroup) -> Result<u64, AllocError> {
        let mut a = 1;
        for m in &g.members {
            a = a.max(self.align(m)?);
        }
        Ok(a)
    }

    /// The alignment of a distinct child's start: its own in columns mode, the root's in SMEM.
    fn child_align(&self, m: &Member, root_align: u64) -> Result<u64, AllocError> {
        if self.tm {
            self.align(m)
        } else {
            Ok(root_align)
        }
    }

    pub(crate) fn size_group(&self, g: &ReuseGroup) -> Result<u64, AllocError> {
        self.size_group_in(g, None)
    }

    fn size_group_in(&self, g: &ReuseGroup, root_align: Option<u64>) -> Result<u64, AllocError> {
        let root_align = match root_align {
            Some(a) => a,
            None => self.align_group(g)?,
        };
        match g.kind {
            GroupKind::Shared => {
                let mut m = 0;
                for c in &g.members {
                    m = m.max(self.size_in(c, root_align)?);
                }
                Ok(g.group_size.saturating_mul(m))
            }
            GroupKind::Distinct => {
                let mut t = 0;
                for c in &g.members {
                    t = align_up_saturating(t, self.child_align(c, root_align)?)
                        .saturating_add(self.size_in(c, root_align)?);
                }
                Ok(t)
            }
        }
    }

    fn size_in(&self, m: &Member, root_align: u64) -> Result<u64, AllocError> {
        match m {
            Member::Alloc(a) => self.leaf_size(*a),
            Member::Group(g) => self.size_group_in(g, Some(root_align)),
        }
    }
}

/// Step 2 for one tree: `U_root = alignUp(size(root), A)`, then the offset walk. Returns
/// `U_root` and the leaves' offsets.
pub fn offsets(
    program: &Program,
    tree: &ReuseGroup,
    storage: Storage,
) -> Result<(u64, FxHashMap<AllocId, TlxOffset>), AllocError> {
    offsets_and_sizes(program, tree, storage).map(|(units, out, _)| (units, out))
}

/// [`offsets`], and each leaf's `(size, alignment)` in plan units as the walk took them (a
/// TMEM leaf's are its columns), for a caller that needs them again.
#[allow(clippy::type_complexity)]
pub(crate) fn offsets_and_sizes(
    program: &Program,
    tree: &ReuseGroup,
    storage: Storage,
) -> Result<
    (
        u64,
        FxHashMap<AllocId, TlxOffset>,
        FxHashMap<AllocId, (u64, u64)>,
    ),
    AllocError,
> {
    let t = TlxTree::new(program, tree, storage == Storage::Tmem)?;
    let root_align = t.align_group(tree)?;
    let units = align_up_saturating(t.size_group_in(tree, Some(root_align))?, root_align);
    let mut out = FxHashMap::default();
    let mut walk = Walk {
        tree: &t,
        root_align,
        out: &mut out,
    };
    walk.group(tree, 0, units, 1, &[])?;
    Ok((units, out, t.leaves))
}

struct Walk<'a> {
    tree: &'a TlxTree,
    root_align: u64,
    out: &'a mut FxHashMap<AllocId, TlxOffset>,
}

impl Walk<'_> {
    fn member(
        &mut self,
        m: &Member,
        offset: u64,
        units: u64,
        gs: u64,
        subtiles: &[(u64, u64)],
    ) -> Result<(), AllocError> {
        match m {
            Member::Alloc(a) => {
                self.out.insert(
                    *a,
                    TlxOffset {
                        offset,
                        units,
                        group_size: gs,
                        subtiles: subtiles.to_vec(),
                    },
                );
                Ok(())
            }
            Member::Group(g) => self.group(g, offset, units, gs, subtiles),
        }
    }

    fn group(
        &mut self,
        g: &ReuseGroup,
        offset: u64,
        units: u64,
        gs: u64,
        subtiles: &[(u64, u64)],
    ) -> Result<(), AllocError> {
        match g.kind {
            GroupKind::Shared => {
                let k = g.group_size.max(1);
                let mut inner = subtiles.to_vec();
                if k > 1 {
                    let mut w = 0;
                    for c in &g.members {
                        w = w.max(self.tree.size_in(c, self.root_align)?);
                    }
                    inner.push((k, w));
                }
                for c in &g.members {
                    self.member(c, offset, units / k, gs.saturating_mul(k), &inner)?;
                }
            }
            GroupKind::Distinct => {
                let mut r = offset;
                for c in &g.members {
                    r = align_up_saturating(r, self.tree.child_align(c, self.root_align)?);
                    self.member(c, r, units, gs, subtiles)?;
                    r = r.saturating_add(self.tree.size_in(c, self.root_align)?);
                }
            }
        }
        Ok(())
    }
}
