//! [`ReuseGroup`]: TLX's `reuse_group` tree — which allocations share memory and which must not.

use std::fmt;

use crate::{AllocError, AllocId};

/// How the children of a group relate at one buffer index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    /// Children occupy the same memory at each buffer index (never across indices).
    Shared,
    /// Children occupy disjoint memory: they may be live at the same time.
    Distinct,
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupKind::Shared => "shared",
            GroupKind::Distinct => "distinct",
        })
    }
}

/// One element of a group: an allocation or a nested group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member {
    /// A leaf.
    Alloc(AllocId),
    /// A nested group.
    Group(ReuseGroup),
}

impl From<AllocId> for Member {
    fn from(a: AllocId) -> Self {
        Member::Alloc(a)
    }
}

impl From<ReuseGroup> for Member {
    fn from(g: ReuseGroup) -> Self {
        Member::Group(g)
    }
}

/// `tlx.reuse_group(*members, group_type, group_size)`.
///
/// `group_size = k` on a `shared` group makes `k` consecutive buffers of each member one
/// logical buffer group (subtiling: FA's `p` has twice the buffers of `qk`).
///
/// ```
/// use alias_alloc::{DType, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.local_alloc("a", &[64, 64], DType::F32, 2, s)?;
/// let b = p.local_alloc("b", &[64, 64], DType::BF16, 4, s)?;
/// let tree = ReuseGroup::shared(vec![a.into(), ReuseGroup::shared(vec![b.into()])?.group_size(2)?.into()])?;
/// assert_eq!(tree.allocations(), vec![a, b]);
/// assert!(ReuseGroup::distinct(vec![]).is_err());
/// assert!(ReuseGroup::shared(vec![a.into()])?.group_size(0).is_err());
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReuseGroup {
    /// Shared or distinct.
    pub kind: GroupKind,
    /// Subtiling factor (1 = none).
    pub group_size: u64,
    /// Children, in order (distinct children are laid out in this order).
    pub members: Vec<Member>,
}

/// The deepest reuse tree read: groups nested at most this many levels (TLX's kernels nest a
/// handful). Deeper ones are refused ([`AllocError::TreeTooDeep`]) where they are read, so that
/// no recursion over a tree — planning, checking, printing, dropping it — runs deep.
///
/// ```
/// use alias_alloc::reuse_group::MAX_TREE_DEPTH;
/// assert_eq!(MAX_TREE_DEPTH, 64);
/// ```
pub const MAX_TREE_DEPTH: usize = 64;

impl ReuseGroup {
    /// Levels of groups, this one included (a group of allocations is 1), counted without
    /// recursion.
    ///
    /// ```
    /// use alias_alloc::{DType, Program, ReuseGroup, Storage};
    /// let mut p = Program::new();
    /// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    /// let a = p.local_alloc("a", &[64, 64], DType::F16, 1, s)?;
    /// let inner = ReuseGroup::shared(vec![a.into()])?;
    /// assert_eq!(ReuseGroup::distinct(vec![inner.into()])?.depth(), 2);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((g, d)) = stack.pop() {
            deepest = deepest.max(d);
            for m in &g.members {
                if let Member::Group(c) = m {
                    stack.push((c, d + 1));
                }
            }
        }
        deepest
    }

    /// A group of `kind`; errors with [`AllocError::EmptyGroup`] when `members` is empty.
    pub fn new(kind: GroupKind, members: Vec<Member>) -> Result<Self, AllocError> {
        if members.is_empty() {
            return Err(AllocError::EmptyGroup);
        }
        Ok(ReuseGroup {
            kind,
            group_size: 1,
            members,
        })
    }

    /// `reuse_group(..., group_type=shared)`.
    pub fn shared(members: Vec<Member>) -> Result<Self, AllocError> {
        Self::new(GroupKind::Shared, members)
    }

    /// `reuse_group(..., group_type=distinct)`.
    pub fn distinct(members: Vec<Member>) -> Result<Self, AllocError> {
        Self::new(GroupKind::Distinct, members)
    }

    /// Sets `group_size`; [`AllocError::InvalidGroupSize`] for 0.
    pub fn group_size(mut self, k: u64) -> Result<Self, AllocError> {
        if k == 0 {
            return Err(AllocError::InvalidGroupSize { got: k });
        }
        self.group_size = k;
        Ok(self)
    }

    /// Every allocation of the tree, depth first in member order.
    pub fn allocations(&self) -> Vec<AllocId> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<AllocId>) {
        for m in &self.members {
            match m {
                Member::Alloc(a) => out.push(*a),
                Member::Group(g) => g.collect(out),
            }
        }
    }

    /// The first allocation of the tree (to name a group in messages).
    pub fn first_allocation(&self) -> Option<AllocId> {
        self.members.iter().find_map(|m| match m {
            Member::Alloc(a) => Some(*a),
            Member::Group(g) => g.first_allocation(),
        })
    }
}
