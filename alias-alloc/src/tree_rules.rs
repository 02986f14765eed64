//! The rules a reuse tree must follow that TLX does not enforce: one buffer-group count for
//! every member, `group_size` only on shared groups, every allocation of the spec in the tree.
//! Intended mode refuses the first broken rule; TlxCompatible mode warns about all of them.

use std::collections::{HashMap, HashSet};

use crate::{AllocError, AllocId, GroupKind, Member, Program, ReuseGroup, SpecId};

/// What the tree says about its buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeFacts {
    /// Buffer groups: `num / group_size` of the first leaf.
    pub groups: u64,
    /// Product of the shared ancestors' group sizes, per leaf.
    pub leaf_group_size: HashMap<AllocId, u64>,
}

/// The facts of `tree` and every rule it breaks, in tree order.
pub(crate) fn check_tree(
    program: &Program,
    spec: SpecId,
    tree: &ReuseGroup,
) -> Result<(TreeFacts, Vec<AllocError>), AllocError> {
    let spec_name = program.spec(spec)?.name.clone();
    let mut issues = Vec::new();
    let mut leaf_group_size = HashMap::new();
    walk(
        program,
        &spec_name,
        tree,
        1,
        &mut leaf_group_size,
        &mut issues,
    );
    let leaves = tree.allocations();
    let mut groups = None;
    let mut first = String::new();
    for id in &leaves {
        let a = program.allocation(*id)?;
        let gs = leaf_group_size.get(id).copied().unwrap_or(1);
        let Some(g) = groups else {
            groups = Some(a.num.div_ceil(gs));
            first = a.name.clone();
            if a.num % gs != 0 {
                issues.push(mismatch(
                    &spec_name,
                    &a.name,
                    a.num,
                    gs,
                    a.num.div_ceil(gs),
                    &first,
                ));
            }
            continue;
        };
        if a.num % gs != 0 || a.num / gs != g {
            issues.push(mismatch(&spec_name, &a.name, a.num, gs, g, &first));
        }
    }
    let in_tree: HashSet<AllocId> = leaves.into_iter().collect();
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
            groups: groups.unwrap_or(1),
            leaf_group_size,
        },
        issues,
    ))
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
    out: &mut HashMap<AllocId, u64>,
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
