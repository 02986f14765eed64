//! Preorderings: the order in which the search tries buffers that could go at the same
//! offset (and the tie order of equal offsets). MiniMalloc's three (`WAT`, `TAW`, `TWA`, each
//! key descending): **W**idth of the lifetime, **A**rea (size × width), **T**otal = the
//! largest sum of *unplaced* sizes in any section the buffer is live in. They are computed
//! at the root and again for every component the search splits off, with the totals of that
//! moment, so the most constrained buffers of each subproblem come first (without this,
//! MiniMalloc's instance H is out of reach). A poor order on one instance is usually a good
//! one on another, so the driver cycles through them under doubling node limits.

use super::instance::Instance;

/// One static preordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Preorder {
    /// Width, area, total.
    Wat,
    /// Total, area, width.
    Taw,
    /// Total, width, area.
    Twa,
}

impl Preorder {
    /// All of them, in the order the driver tries them.
    pub(crate) const ALL: [Preorder; 3] = [Preorder::Wat, Preorder::Taw, Preorder::Twa];
}

/// Ranks the buffers `members` (local indices) by `order` (0 first) into `rank`, with
/// `total[s]` the current sum of unplaced sizes of section `s`: a buffer's **T** is the
/// largest `total` over its span. Ties go to problem order, as in MiniMalloc.
pub(crate) fn rank_members(
    inst: &Instance,
    order: Preorder,
    members: &mut [u32],
    total: &[u64],
    rank: &mut [u32],
) {
    let key = |j: u32| {
        let j = j as usize;
        let width =
            inst.upper.get(j).copied().unwrap_or(0) - inst.lower.get(j).copied().unwrap_or(0);
        let size = inst.size.get(j).copied().unwrap_or(0);
        let (a, b) = inst.span.get(j).copied().unwrap_or((0, 0));
        let t = total
            .get(a as usize..b as usize)
            .map_or(0, |t| t.iter().copied().max().unwrap_or(0));
        let (w, a, t) = (
            u128::from(width),
            u128::from(width) * u128::from(size),
            u128::from(t),
        );
        let k = match order {
            Preorder::Wat => (w, a, t),
            Preorder::Taw => (t, a, w),
            Preorder::Twa => (t, w, a),
        };
        (std::cmp::Reverse(k), inst.orig.get(j).copied().unwrap_or(j))
    };
    members.sort_by_cached_key(|&j| key(j));
    for (r, &j) in members.iter().enumerate() {
        if let Some(slot) = rank.get_mut(j as usize) {
            *slot = r as u32;
        }
    }
}
