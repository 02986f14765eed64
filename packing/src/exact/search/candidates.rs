//! The children of a node: the unplaced buffers of the current component that may go next,
//! each at its minimum offset, best first (lowest offset, then preorder rank). Pruned:
//!
//! - *canonical order*: offsets never decrease along a path, and equal offsets follow the
//!   preorder (the *tie*), so every tight placement is built exactly one way;
//! - *dominance*: nothing goes at or above `min(mo + size)` over the unplaced buffers: the
//!   buffer attaining it would fit below for good, so the placement could not be tight;
//! - *twins* (same lifetime, size and alignment) go in index order;
//! - the *level check* ahead of placing: with `c` placed at `m`, every section of the
//!   component must hold its remaining sum above `m`;
//! - *tight sections*: a section whose remaining sum exactly fills `[level, capacity)` has a
//!   member starting at `level`, which must be an allowed candidate now (the section
//!   inference alone cannot see the tie rule).

use super::{Candidate, Frame, Search};
use crate::exact::instance::NONE;

/// What [`Search::expand`] found.
pub(super) enum Expand {
    /// A frame with candidates was pushed.
    Pushed,
    /// The component has no unplaced buffer left.
    Complete,
    /// Unplaced buffers, none of which can go next.
    Dead,
}
impl Search<'_> {
    /// Pushes a frame with the candidates of the current component, best first.
    pub(super) fn expand(&mut self, level: u64, tie: u64) -> Expand {
        let (ca, cb) = self.component();
        let mut min_top = u64::MAX;
        let mut any = false;
        for &j in &self.unplaced {
            let j = j as usize;
            let (a, b) = self.span(j);
            if a < ca || b > cb {
                continue;
            }
            any = true;
            min_top = min_top.min(self.mo(j).saturating_add(self.size(j)));
        }
        if !any {
            return Expand::Complete;
        }
        if min_top <= level {
            return Expand::Dead;
        }
        let comp_max = self.tree.range_max(ca, cb);
        let start = self.cands.len();
        for &j in &self.unplaced {
            let ju = j as usize;
            let (a, b) = self.span(ju);
            if a < ca || b > cb {
                continue;
            }
            let m = self.mo(ju);
            let r = self.rank.get(ju).copied().unwrap_or(0);
            if m >= min_top || m < level || (m == level && u64::from(r) < tie) {
                continue;
            }
            let twin = self.inst.twin_prev.get(ju).copied().unwrap_or(NONE);
            if twin != NONE && !self.is_placed(twin as usize) {
                continue;
            }
            // The level check of `place`, ahead of placing: every section of the component
            // must hold its remaining total above `m` once `j` is out of it.
            if m.saturating_add(comp_max) > self.cap {
                let (a, b) = self.span(ju);
                let outside = self.tree.range_max(ca, a).max(self.tree.range_max(b, cb));
                let inside = self.tree.range_max(a, b).saturating_sub(self.size(ju));
                if m.saturating_add(outside.max(inside)) > self.cap {
                    continue;
                }
            }
            self.cands.push(Candidate { rank: r, buffer: j });
        }
        let end = self.cands.len();
        if start == end {
            return Expand::Dead;
        }
        let mo = &self.mo;
        if let Some(c) = self.cands.get_mut(start..end) {
            c.sort_unstable_by_key(|c| {
                let m = mo.get(c.buffer as usize).copied().unwrap_or(0);
                (m, c.rank, c.buffer)
            });
        }
        if level.saturating_add(comp_max) == self.cap && !self.tight_sections(start, level) {
            self.cands.truncate(start);
            return Expand::Dead;
        }
        let end = self.cands.len();
        self.frames.push(Frame {
            start,
            end,
            next: start,
            level,
            tie,
            key: self.key,
            mkey: self.mkey(),
            child: NONE,
            mark: 0,
        });
        Expand::Pushed
    }

    /// Sections whose unplaced total exactly fills `[level, capacity)` leave no room for a
    /// gap: one of their members starts at `level`, so it is among this node's candidates at
    /// `level` (the tie rule bars the others). Drops the candidates at `level` after whose
    /// placement (they go in rank order) some such section could no longer be started, and
    /// returns false if one cannot be started at all.
    pub(super) fn tight_sections(&mut self, start: usize, level: u64) -> bool {
        let (ca, cb) = self.component();
        let mut tight = std::mem::take(&mut self.tight);
        tight.clear();
        self.tree
            .maxima(ca, cb, self.cap.saturating_sub(level), &mut tight);
        let at_level = self
            .cands
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| self.mo(c.buffer as usize) == level)
            .count();
        // The tight sections a buffer covers: a run of `tight` (sorted).
        let covered = |span: (usize, usize)| {
            (
                tight.partition_point(|&s| (s as usize) < span.0),
                tight.partition_point(|&s| (s as usize) < span.1),
            )
        };
        // Per tight section, the highest rank of a candidate at `level` covering it.
        let mut best = std::mem::take(&mut self.tight_rank);
        best.clear();
        best.resize(tight.len(), None);
        for c in self.cands.get(start..start + at_level).unwrap_or(&[]) {
            let (from, to) = covered(self.span(c.buffer as usize));
            for x in best.get_mut(from..to).unwrap_or(&mut []) {
                *x = Some(x.map_or(c.rank, |y| y.max(c.rank)));
            }
        }
        let ok = best.iter().all(Option::is_some);
        if ok {
            // A candidate may go only if every tight section it does not cover keeps a
            // covering candidate of higher rank: `prefix[t]` is the least best rank of
            // sections `..t`, `suffix[t]` of sections `t..`.
            let ranks = || best.iter().map(|x| x.unwrap_or(0));
            let mut prefix = std::mem::take(&mut self.prefix);
            prefix.clear();
            prefix.push(u32::MAX);
            prefix.extend(ranks().scan(u32::MAX, |m, r| {
                *m = (*m).min(r);
                Some(*m)
            }));
            let mut suffix = std::mem::take(&mut self.suffix);
            suffix.clear();
            suffix.extend(ranks().rev().scan(u32::MAX, |m, r| {
                *m = (*m).min(r);
                Some(*m)
            }));
            suffix.reverse();
            suffix.push(u32::MAX);
            let mut keep = start;
            for i in start..start + at_level {
                let Some(&c) = self.cands.get(i) else {
                    break;
                };
                let (from, to) = covered(self.span(c.buffer as usize));
                let left = prefix.get(from).copied().unwrap_or(u32::MAX);
                let right = suffix.get(to).copied().unwrap_or(u32::MAX);
                if left.min(right) > c.rank {
                    if let Some(x) = self.cands.get_mut(keep) {
                        *x = c;
                    }
                    keep += 1;
                }
            }
            self.cands.drain(keep..start + at_level);
            self.prefix = prefix;
            self.suffix = suffix;
        }
        self.tight = tight;
        self.tight_rank = best;
        ok && self.cands.len() > start
    }
}
