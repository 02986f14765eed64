//! Preprocessing: a [`Problem`] turned into the arrays the search runs on.
//!
//! Buffers of size 0 occupy nothing and buffers with a fixed offset are not searched: the
//! former sit at offset 0 (or where they are pinned), the latter become *obstacles* for the
//! free buffers they are live with. The free buffers split into *partitions*, groups whose
//! lifetimes chain together; buffers of different partitions are never live together, so
//! each partition is an independent [`Instance`]. Inside an instance the buffers are indexed
//! by `(lower, upper, problem index)`; that index is also the tie order of the canonical
//! search (equal offsets are placed in index order).
//!
//! *Sections* are the maximal time intervals over which the set of live buffers is constant
//! (MiniMalloc's sections). Every buffer is a member of a contiguous run of sections, its
//! *span*; the search keeps, per section, the sum of the sizes of its unplaced members.

use linear_layout::address::align_up_saturating;

use super::super::problem::time_partitions;
use super::super::{PackError, Problem};

/// No buffer (a sentinel index).
pub(crate) const NONE: u32 = u32::MAX;

/// One partition of free buffers, ready for the search. Arrays are indexed by the local
/// buffer index `0..n` unless said otherwise.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    /// Problem index of each buffer.
    pub orig: Vec<usize>,
    pub lower: Vec<u64>,
    pub upper: Vec<u64>,
    pub size: Vec<u64>,
    pub align: Vec<u64>,
    /// Time-conflicting buffers of `j`: `adj[adj_start[j]..adj_start[j + 1]]`.
    pub adj_start: Vec<u32>,
    pub adj: Vec<u32>,
    /// Fixed obstacles `(offset, end)` live with `j`, sorted by offset:
    /// `fix[fix_start[j]..fix_start[j + 1]]`.
    pub fix_start: Vec<u32>,
    pub fix: Vec<(u64, u64)>,
    /// Sections `[first, last)` of each buffer.
    pub span: Vec<(u32, u32)>,
    /// Members of section `s`: `members[member_start[s]..member_start[s + 1]]`.
    pub member_start: Vec<u32>,
    pub members: Vec<u32>,
    /// Fixed obstacles live during section `s`: `section_fix[section_fix_start[s]..]`.
    pub section_fix_start: Vec<u32>,
    pub section_fix: Vec<(u64, u64)>,
    /// The previous buffer (in index order) with the same lifetime, size and alignment, or
    /// [`NONE`]: such twins are interchangeable, so the search places them in index order.
    pub twin_prev: Vec<u32>,
}

/// A problem split for the search: where the unsearched buffers go, and the instances.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    /// Offsets of every buffer that is not searched (fixed or empty), by problem index; the
    /// searched ones hold 0 until a search fills them in.
    pub base: Vec<u64>,
    /// The highest `offset + size` of the fixed buffers (0 without any).
    pub fixed_peak: u64,
    pub instances: Vec<Instance>,
}

/// Which two fixed buffers (problem indices) collide, if any: live together with
/// intersecting ranges.
pub(crate) fn fixed_collision(problem: &Problem) -> Option<(usize, usize)> {
    let buffers = problem.buffers();
    let mut fixed: Vec<usize> = (0..buffers.len())
        .filter(|&i| {
            buffers
                .get(i)
                .is_some_and(|b| b.offset.is_some() && b.size > 0)
        })
        .collect();
    fixed.sort_by_key(|&i| (buffers.get(i).map_or(0, |b| b.lower), i));
    let mut live: Vec<usize> = Vec::new();
    for i in fixed {
        let Some(b) = buffers.get(i) else { continue };
        live.retain(|&j| buffers.get(j).is_some_and(|o| o.upper > b.lower));
        let (o1, e1) = range(b.offset, b.size);
        for &j in &live {
            let Some(other) = buffers.get(j) else {
                continue;
            };
            let (o2, e2) = range(other.offset, other.size);
            if o1.max(o2) < e1.min(e2) {
                return Some((j.min(i), j.max(i)));
            }
        }
        live.push(i);
    }
    None
}

fn range(offset: Option<u64>, size: u64) -> (u64, u64) {
    let o = offset.unwrap_or(0);
    (o, o.saturating_add(size))
}

impl Prepared {
    /// Splits `problem` (fixed offsets already validated: no overflow, no collision).
    pub(crate) fn new(problem: &Problem) -> Result<Prepared, PackError> {
        let buffers = problem.buffers();
        let mut base = vec![0u64; buffers.len()];
        let mut fixed_peak = 0u64;
        let mut free: Vec<usize> = Vec::new();
        let mut fixed: Vec<usize> = Vec::new();
        for (i, b) in buffers.iter().enumerate() {
            match b.offset {
                Some(o) => {
                    if let Some(slot) = base.get_mut(i) {
                        *slot = o;
                    }
                    let end = o
                        .checked_add(b.size)
                        .ok_or_else(|| PackError::Overflow { id: b.id.clone() })?;
                    fixed_peak = fixed_peak.max(end);
                    if b.size > 0 {
                        fixed.push(i);
                    }
                }
                None if b.size > 0 => free.push(i),
                None => {}
            }
        }
        free.sort_by_key(|&i| buffers.get(i).map_or((0, 0), |b| (b.lower, b.upper)));
        let instances = time_partitions(buffers, &free)
            .iter()
            .map(|group| Instance::new(problem, group, &fixed))
            .collect();
        Ok(Prepared {
            base,
            fixed_peak,
            instances,
        })
    }
}

impl Instance {
    /// The instance of the free buffers `group` (problem indices sorted by `(lower, upper)`),
    /// with the fixed buffers `fixed` as obstacles.
    fn new(problem: &Problem, group: &[usize], fixed: &[usize]) -> Instance {
        let buffers = problem.buffers();
        let n = group.len();
        let get = |i: usize| buffers.get(i);
        let orig = group.to_vec();
        let lower: Vec<u64> = orig
            .iter()
            .map(|&i| get(i).map_or(0, |b| b.lower))
            .collect();
        let upper: Vec<u64> = orig
            .iter()
            .map(|&i| get(i).map_or(0, |b| b.upper))
            .collect();
        let size: Vec<u64> = orig.iter().map(|&i| get(i).map_or(0, |b| b.size)).collect();
        let align: Vec<u64> = orig
            .iter()
            .map(|&i| get(i).map_or(1, |b| b.alignment.max(1)))
            .collect();

        // Conflicts: a sweep in index order (sorted by lower).
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut active: Vec<usize> = Vec::new();
        for j in 0..n {
            let lj = lower.get(j).copied().unwrap_or(0);
            active.retain(|&k| upper.get(k).is_some_and(|&u| u > lj));
            for &k in &active {
                if let Some(l) = lists.get_mut(k) {
                    l.push(j as u32);
                }
                if let Some(l) = lists.get_mut(j) {
                    l.push(k as u32);
                }
            }
            active.push(j);
        }
        let (adj_start, adj) = flatten(lists);

        // Fixed obstacles per buffer.
        let obstacles: Vec<(u64, u64, u64, u64)> = fixed
            .iter()
            .filter_map(|&f| get(f))
            .map(|b| {
                let (o, e) = range(b.offset, b.size);
                (b.lower, b.upper, o, e)
            })
            .collect();
        let fix_lists: Vec<Vec<(u64, u64)>> = (0..n)
            .map(|j| {
                let (l, u) = (lower.get(j).copied(), upper.get(j).copied());
                let (l, u) = (l.unwrap_or(0), u.unwrap_or(0));
                let mut v: Vec<(u64, u64)> = obstacles
                    .iter()
                    .filter(|&&(fl, fu, _, _)| fl < u && l < fu)
                    .map(|&(_, _, o, e)| (o, e))
                    .collect();
                v.sort_unstable();
                v
            })
            .collect();
        let (fix_start, fix) = flatten(fix_lists);

        // Sections: the maximal intervals over which the live set is constant (recorded
        // after the last event at each time, when something is live).
        let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * n);
        for j in 0..n {
            events.push((lower.get(j).copied().unwrap_or(0), true, j));
            events.push((upper.get(j).copied().unwrap_or(0), false, j));
        }
        events.sort_unstable_by_key(|&(t, start, j)| (t, start, j));
        let mut span = vec![(0u32, 0u32); n];
        let mut member_lists: Vec<Vec<u32>> = Vec::new();
        let mut section_times: Vec<u64> = Vec::new();
        let mut live: Vec<u32> = Vec::new();
        let mut live_pos = vec![0usize; n];
        for (k, &(t, start, j)) in events.iter().enumerate() {
            if start {
                if let Some(s) = span.get_mut(j) {
                    s.0 = member_lists.len() as u32;
                }
                if let Some(p) = live_pos.get_mut(j) {
                    *p = live.len();
                }
                live.push(j as u32);
            } else {
                if let Some(s) = span.get_mut(j) {
                    s.1 = member_lists.len() as u32;
                }
                let p = live_pos.get(j).copied().unwrap_or(0);
                live.swap_remove(p);
                if let Some(&moved) = live.get(p) {
                    if let Some(q) = live_pos.get_mut(moved as usize) {
                        *q = p;
                    }
                }
            }
            let last_at_t = events.get(k + 1).is_none_or(|&(next, _, _)| next != t);
            if last_at_t && !live.is_empty() {
                let mut m = live.clone();
                m.sort_unstable();
                member_lists.push(m);
                section_times.push(t);
            }
        }
        let (member_start, members) = flatten(member_lists);
        let section_fix_lists: Vec<Vec<(u64, u64)>> = section_times
            .iter()
            .map(|&t| {
                let mut v: Vec<(u64, u64)> = obstacles
                    .iter()
                    .filter(|&&(fl, fu, _, _)| fl <= t && t < fu)
                    .map(|&(_, _, o, e)| (o, e))
                    .collect();
                v.sort_unstable();
                v
            })
            .collect();
        let (section_fix_start, section_fix) = flatten(section_fix_lists);

        // Twins: same lifetime, size and alignment (hence the same obstacles).
        let mut twin_prev = vec![NONE; n];
        let mut by_shape: Vec<usize> = (0..n).collect();
        let shape = |j: usize| {
            (
                lower.get(j).copied(),
                upper.get(j).copied(),
                size.get(j).copied(),
                align.get(j).copied(),
            )
        };
        by_shape.sort_by_key(|&j| (shape(j), j));
        for w in by_shape.windows(2) {
            if let [a, b] = *w {
                if shape(a) == shape(b) {
                    if let Some(t) = twin_prev.get_mut(b) {
                        *t = a as u32;
                    }
                }
            }
        }

        Instance {
            orig,
            lower,
            upper,
            size,
            align,
            adj_start,
            adj,
            fix_start,
            fix,
            span,
            member_start,
            members,
            section_fix_start,
            section_fix,
            twin_prev,
        }
    }

    /// Number of buffers.
    pub(crate) fn len(&self) -> usize {
        self.orig.len()
    }

    /// Number of sections.
    pub(crate) fn sections(&self) -> usize {
        self.member_start.len().saturating_sub(1)
    }

    /// The buffers time-conflicting with `j`.
    pub(crate) fn conflicts(&self, j: usize) -> &[u32] {
        slice(&self.adj, &self.adj_start, j)
    }

    /// The fixed obstacles of `j`, sorted by offset.
    pub(crate) fn obstacles(&self, j: usize) -> &[(u64, u64)] {
        slice(&self.fix, &self.fix_start, j)
    }

    /// The members of section `s`.
    pub(crate) fn section(&self, s: usize) -> &[u32] {
        slice(&self.members, &self.member_start, s)
    }

    /// The fixed obstacles live during section `s`.
    pub(crate) fn section_obstacles(&self, s: usize) -> &[(u64, u64)] {
        slice(&self.section_fix, &self.section_fix_start, s)
    }

    /// The lowest offset `≥ floor` that is a multiple of `j`'s alignment and keeps `j` clear
    /// of its obstacles (saturating at `u64::MAX`, which never fits).
    pub(crate) fn lift(&self, j: usize, floor: u64) -> u64 {
        let a = self.align.get(j).copied().unwrap_or(1);
        let s = self.size.get(j).copied().unwrap_or(0);
        let mut p = align_up_saturating(floor, a);
        let obstacles = self.obstacles(j);
        if obstacles.is_empty() {
            return p;
        }
        for &(o, e) in obstacles {
            if e <= p {
                continue;
            }
            if p.saturating_add(s) <= o {
                break;
            }
            p = align_up_saturating(e, a);
        }
        p
    }
}

fn flatten<T>(lists: Vec<Vec<T>>) -> (Vec<u32>, Vec<T>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut flat = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    start.push(0u32);
    for l in lists {
        flat.extend(l);
        start.push(flat.len() as u32);
    }
    (start, flat)
}

fn slice<'a, T>(flat: &'a [T], start: &[u32], i: usize) -> &'a [T] {
    match (start.get(i), start.get(i + 1)) {
        (Some(&a), Some(&b)) => flat.get(a as usize..b as usize).unwrap_or(&[]),
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    #[test]
    fn sections_spans_partitions_and_obstacles() {
        // a [0,4) and b [2,6) chain into one partition; c [6,8) is on its own; p is fixed;
        // e is empty.
        let p = Problem::new(
            vec![
                Buffer::new("a", 0, 4, 4).unwrap(),
                Buffer::new("b", 2, 6, 2).unwrap().aligned(2).unwrap(),
                Buffer::new("c", 6, 8, 3).unwrap(),
                Buffer::new("p", 3, 7, 8).unwrap().fixed_at(16).unwrap(),
                Buffer::new("e", 0, 9, 0).unwrap(),
            ],
            None,
        )
        .unwrap();
        let prepared = Prepared::new(&p).unwrap();
        assert_eq!(
            (prepared.base, prepared.fixed_peak),
            (vec![0, 0, 0, 16, 0], 24)
        );
        let [ab, c] = prepared.instances.as_slice() else {
            panic!("two partitions")
        };
        assert_eq!((ab.orig.clone(), c.orig.clone()), (vec![0, 1], vec![2]));
        // Live sets of [0,2) {a}, [2,4) {a,b}, [4,6) {b}.
        let sections: Vec<&[u32]> = (0..ab.sections()).map(|s| ab.section(s)).collect();
        assert_eq!(sections, [&[0u32][..], &[0, 1], &[1]]);
        assert_eq!(ab.span, [(0, 2), (1, 3)]);
        assert_eq!(
            (ab.conflicts(0), ab.conflicts(1)),
            (&[1u32][..], &[0u32][..])
        );
        // The fixed buffer is an obstacle for both; lifting b past it keeps its alignment.
        assert_eq!(ab.obstacles(1), [(16, 24)]);
        assert_eq!(
            (ab.lift(1, 13), ab.lift(1, 15), ab.lift(0, 13)),
            (14, 24, 24)
        );
        assert_eq!(fixed_collision(&p), None);
    }
}
