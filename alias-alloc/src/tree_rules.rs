//! The rules a reuse tree must follow that TLX does not enforce: buffer counts that make whole
//! buffer groups, one count for the members that are live together group by group,
//! `group_size` only on shared groups, every allocation of the spec in the tree. Intended mode
//! refuses the first broken rule; TlxCompatible mode warns about all of them.
//!
//! **Phase pools.** A `shared` group (without `group_size`) whose children have different
//! buffer-group counts — sched2tlx's multiphase GEMM: `shared(distinct(L0 a, L0 b) ×2,
//! distinct(L1 a, L1 b) ×2, distinct(L2 a, L2 b) ×3)` — cannot mean "buffer group k of each
//! child shares bytes", as there is no common k. Its meaning is the phases': no buffer of one
//! child is live while any buffer of another is, so each child lays out all its own buffer
//! groups and the children share the pool's bytes. Intended mode plans it so, and says so
//! ([`Warning::PhasePool`](crate::Warning::PhasePool)). Mixed counts anywhere else (inside a
//! `distinct` group, a subtiled `shared` group, or leaves whose count is not a multiple of
//! their subtile group) are refused.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::{AllocError, AllocId, GroupKind, Member, Program, ReuseGroup, SpecId};

/// What the tree says about its buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeFacts {
    /// Buffer groups: `num / group_size` of the first leaf.
    pub groups: u64,
    /// Product of the shared ancestors' group sizes, per leaf.
    pub leaf_group_size: FxHashMap<AllocId, u64>,
    /// Buffer groups of each leaf (`num / group size`).
    pub counts: Counts,
    /// The phase pools of the tree: the first allocation of each and its children's counts.
    pub pools: Vec<(String, Vec<u64>)>,
}

/// Buffer-group counts of a tree's members: each group's computed once, children first
/// ([`Counts::settle`]), so that a deep tree costs one visit per node, not one per path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Counts {
    leaf: FxHashMap<AllocId, u64>,
    /// Each group's count, keyed by the node's address (stable while its tree is borrowed;
    /// never dereferenced).
    group: FxHashMap<*const ReuseGroup, u64>,
    /// Groups whose count was computed from their children: the work counted by the tests.
    visits: std::cell::Cell<u64>,
}

impl Counts {
    /// A member's buffer groups: a leaf's `num / group size`; a group's common count, or 1 for
    /// a phase pool (its children lay out all their own buffer groups).
    pub(crate) fn of(&self, m: &Member) -> u64 {
        match m {
            Member::Alloc(a) => self.leaf.get(a).copied().unwrap_or(1),
            Member::Group(g) => self.group(g),
        }
    }

    /// [`Counts::of`] a group: settled, or from its children's (one level).
    pub(crate) fn group(&self, g: &ReuseGroup) -> u64 {
        let key: *const ReuseGroup = g;
        match self.group.get(&key) {
            Some(&n) => n,
            None => self.by_children(g),
        }
    }

    /// A group's count from its children's, each asked once: their common count, 1 when they
    /// differ.
    fn by_children(&self, g: &ReuseGroup) -> u64 {
        self.visits.set(self.visits.get().saturating_add(1));
        let counts: Vec<u64> = g.members.iter().map(|c| self.of(c)).collect();
        match counts.split_first() {
            Some((first, rest)) if rest.iter().all(|c| c == first) => *first,
            Some(_) => 1,
            None => 1,
        }
    }

    /// Computes and keeps the count of every group of `g`, children first.
    fn settle(&mut self, g: &ReuseGroup) {
        for m in &g.members {
            if let Member::Group(c) = m {
                self.settle(c);
            }
        }
        let n = self.by_children(g);
        self.group.insert(g, n);
    }

    /// Whether the children of `g` have different counts.
    fn mixed(&self, g: &ReuseGroup) -> bool {
        let mut counts = g.members.iter().map(|c| self.of(c));
        let first = counts.next();
        counts.any(|c| Some(c) != first)
    }

    /// Whether `g` is a phase pool: a shared group without subtiles whose children differ.
    pub(crate) fn pooled(&self, g: &ReuseGroup) -> bool {
        g.kind == GroupKind::Shared && g.group_size <= 1 && self.mixed(g)
    }
}

/// The facts of `tree` and every rule it breaks, in tree order.
pub(crate) fn check_tree(
    program: &Program,
    spec: SpecId,
    tree: &ReuseGroup,
) -> Result<(TreeFacts, Vec<AllocError>), AllocError> {
    let spec_name = program.spec(spec)?.name.clone();
    let mut issues = Vec::new();
    let mut leaf_group_size = FxHashMap::default();
    walk(
        program,
        &spec_name,
        tree,
        1,
        &mut leaf_group_size,
        &mut issues,
    );
    let leaves = tree.allocations();
    let mut counts = Counts::default();
    let mut groups = None;
    for id in &leaves {
        let a = program.allocation(*id)?;
        let gs = leaf_group_size.get(id).copied().unwrap_or(1);
        let count = a.num.div_ceil(gs);
        counts.leaf.insert(*id, count);
        let first = groups.get_or_insert((count, a.name.clone()));
        if a.num % gs != 0 {
            issues.push(mismatch(&spec_name, &a.name, a.num, gs, first.0, &first.1));
        }
    }
    counts.settle(tree);
    let mut pools = Vec::new();
    mixing(program, &spec_name, tree, &counts, &mut pools, &mut issues)?;
    let in_tree: FxHashSet<AllocId> = leaves.into_iter().collect();
    for u in program.users(spec) {
        if !in_tree.contains(&u) {
            issues.push(AllocError::NotInTree {
                spec: spec_name.clone(),
                alloc: program.allocation(u)?.name.clone(),
            });
        }
    }
    Ok((
        TreeFacts {
            groups: groups.map_or(1, |g| g.0),
            leaf_group_size,
            counts,
            pools,
        },
        issues,
    ))
}

/// Mixed counts where no phase pool takes them: the first member of each such group whose count
/// differs from the group's first member's. Records the phase pools on the way.
fn mixing(
    program: &Program,
    spec: &str,
    g: &ReuseGroup,
    counts: &Counts,
    pools: &mut Vec<(String, Vec<u64>)>,
    issues: &mut Vec<AllocError>,
) -> Result<(), AllocError> {
    for m in &g.members {
        if let Member::Group(c) = m {
            mixing(program, spec, c, counts, pools, issues)?;
        }
    }
    if !counts.mixed(g) {
        return Ok(());
    }
    if counts.pooled(g) {
        pools.push((
            program.member_name(&Member::Group(g.clone())),
            g.members.iter().map(|c| counts.of(c)).collect(),
        ));
        return Ok(());
    }
    // The count most members have is the group's; the first member without it is the odd one.
    let all: Vec<u64> = g.members.iter().map(|c| counts.of(c)).collect();
    let want = all
        .iter()
        .enumerate()
        .max_by_key(|&(i, c)| (all.iter().filter(|x| *x == c).count(), std::cmp::Reverse(i)))
        .map_or(1, |(_, c)| *c);
    let Some(first) = g.members.iter().find(|c| counts.of(c) == want) else {
        return Ok(());
    };
    if let Some(odd) = g.members.iter().find(|c| counts.of(c) != want) {
        let leaf = match odd {
            Member::Alloc(a) => Some(*a),
            Member::Group(c) => c.first_allocation(),
        };
        if let Some(a) = leaf {
            let alloc = program.allocation(a)?;
            let count = counts.leaf.get(&a).copied().unwrap_or(1).max(1);
            issues.push(mismatch(
                spec,
                &alloc.name,
                alloc.num,
                alloc.num / count,
                want,
                &program.member_name(first),
            ));
        }
    }
    Ok(())
}

fn mismatch(spec: &str, alloc: &str, num: u64, gs: u64, groups: u64, first: &str) -> AllocError {
    AllocError::BufferCountMismatch {
        spec: spec.into(),
        alloc: alloc.into(),
        num,
        group_size: gs,
        groups,
        first: first.into(),
    }
}

fn walk(
    program: &Program,
    spec: &str,
    g: &ReuseGroup,
    gs: u64,
    out: &mut FxHashMap<AllocId, u64>,
    issues: &mut Vec<AllocError>,
) {
    let inner = match g.kind {
        GroupKind::Shared => gs.saturating_mul(g.group_size.max(1)),
        GroupKind::Distinct => {
            if g.group_size > 1 {
                issues.push(AllocError::GroupSizeOnDistinct {
                    spec: spec.into(),
                    group_size: g.group_size,
                    first: program.member_name(&Member::Group(g.clone())),
                });
            }
            gs
        }
    };
    for m in &g.members {
        match m {
            Member::Alloc(a) => {
                out.insert(*a, inner);
            }
            Member::Group(c) => walk(program, spec, c, inner, out, issues),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, Storage};

    /// A chain of one-member groups at the depth limit costs one count per group, not one per
    /// path (#30: 29 levels took 36 s, doubling per level).
    #[test]
    fn deep_trees_count_each_group_once() -> Result<(), AllocError> {
        let mut p = Program::new();
        let s = p.storage_alias_spec("s", Storage::Smem, None)?;
        let a = p.local_alloc("a", &[64, 64], DType::F16, 2, s)?;
        let mut tree = ReuseGroup::shared(vec![a.into()])?;
        for _ in 1..crate::reuse_group::MAX_TREE_DEPTH {
            tree = ReuseGroup::shared(vec![tree.into()])?;
        }
        let (facts, issues) = check_tree(&p, s, &tree)?;
        assert!(issues.is_empty());
        let depth = crate::reuse_group::MAX_TREE_DEPTH as u64;
        assert_eq!(facts.counts.visits.get(), depth);
        assert_eq!(facts.counts.group(&tree), 2);
        // Asking again is a lookup.
        assert_eq!(facts.counts.visits.get(), depth);
        Ok(())
    }
}
