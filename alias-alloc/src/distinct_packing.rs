//! A `distinct` group whose children carry [lifetimes](crate::Lifetime): children that are
//! never live together may share bytes, so the group is a packing problem (one buffer per
//! child: its size, alignment and lifetime) solved by the exact solver. Without two
//! time-disjoint children the group keeps the documented layout: children in order, each on
//! its own alignment.

use linear_layout::address::align_up_saturating;
use packing::exact::{minimize, SolveOptions};
use packing::{Buffer, PackError, Problem};

use crate::{AllocError, Lifetime};

/// Work the exact solver may do for one group; deterministic (no wall-clock budget), so a
/// plan never depends on the machine.
const NODE_LIMIT: u64 = 100_000;

/// One child of a distinct group.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Child {
    pub size: u64,
    pub align: u64,
    /// `None`: some allocation below it has no lifetime, so it is live throughout.
    pub lifetime: Option<Lifetime>,
}

/// Offsets of the children (relative to the group) and the group's size.
pub(crate) fn distinct_layout(children: &[Child]) -> Result<(Vec<u64>, u64), AllocError> {
    let mut offsets = Vec::with_capacity(children.len());
    let mut size = 0u64;
    for c in children {
        let at = align_up_saturating(size, c.align);
        offsets.push(at);
        size = at.saturating_add(c.size);
    }
    let time_disjoint = children.iter().enumerate().any(|(i, a)| {
        children
            .iter()
            .skip(i + 1)
            .any(|b| match (a.lifetime, b.lifetime) {
                (Some(x), Some(y)) => !x.overlaps(&y),
                _ => false,
            })
    });
    if !time_disjoint {
        return Ok((offsets, size));
    }
    let pack_err = |e: PackError| AllocError::Input(format!("packing a distinct group: {e}"));
    let buffers = children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let l = c.lifetime.unwrap_or(Lifetime::ALWAYS);
            Buffer::new(format!("child{i}"), l.start, l.end, c.size)?.aligned(c.align.max(1))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(pack_err)?;
    let problem = Problem::new(buffers, None).map_err(pack_err)?;
    let options = SolveOptions {
        budget: None,
        node_limit: Some(NODE_LIMIT),
        ..SolveOptions::default()
    };
    let solution = minimize(&problem, &options).map_err(pack_err)?;
    if solution.peak < size {
        Ok((solution.placement.offsets, solution.peak))
    } else {
        Ok((offsets, size))
    }
}
