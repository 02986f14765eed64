//! Placing a buffer and undoing it, with what follows from it: the minimum offsets of the
//! unplaced buffers live with it rise to its top (rounded up to their alignments, lifted past
//! fixed obstacles), the section sums and cut counts along its lifetime drop, and the
//! section inference runs: in every section some unplaced member must be able to start the
//! stack of all unplaced members, `mo + Σ sizes (+ fixed obstacles above) ≤ capacity`. Each
//! section is watched by one such member, its *witness*, and re-checked only when the
//! witness is placed or its minimum offset rises (as SAT solvers watch literals), so a
//! placement touches only the sections of the buffers it changed.

use super::Search;
use crate::exact::memo::Key;

impl Search<'_> {
    /// Whether a stack of all unplaced members of section `s` can start at `v`.
    pub(super) fn section_ok(&self, s: usize, v: u64) -> bool {
        let mut need = v.saturating_add(self.total.get(s).copied().unwrap_or(0));
        for &(o, e) in self.inst.section_obstacles(s) {
            if e > v {
                need = need.saturating_add(e - o.max(v));
            }
        }
        need <= self.cap
    }

    pub(super) fn find_witness(&self, s: usize) -> Witness {
        let mut any = false;
        for &k in self.inst.section(s) {
            let k = k as usize;
            if self.is_placed(k) {
                continue;
            }
            any = true;
            if self.section_ok(s, self.mo(k)) {
                return Witness::Some(k as u32);
            }
        }
        if any {
            Witness::None
        } else {
            Witness::Empty
        }
    }

    /// Re-checks the sections watched by `w` (placed, or its minimum offset rose); false on a
    /// section that no unplaced member can start.
    pub(super) fn revisit(&mut self, w: usize) -> bool {
        let mut list = self
            .watch
            .get_mut(w)
            .map(std::mem::take)
            .unwrap_or_default();
        let mut ok = true;
        let mut i = 0;
        while i < list.len() {
            let s = list.get(i).copied().unwrap_or(0) as usize;
            if self.witness.get(s).copied() != Some(w as u32) {
                list.swap_remove(i);
                continue;
            }
            if !self.is_placed(w) && self.section_ok(s, self.mo(w)) {
                i += 1;
                continue;
            }
            match self.find_witness(s) {
                Witness::Some(k) => {
                    if let Some(x) = self.witness.get_mut(s) {
                        *x = k;
                    }
                    if let Some(l) = self.watch.get_mut(k as usize) {
                        l.push(s as u32);
                    }
                    list.swap_remove(i);
                }
                Witness::Empty => i += 1,
                Witness::None => {
                    ok = false;
                    break;
                }
            }
        }
        if let Some(slot) = self.watch.get_mut(w) {
            *slot = list;
        }
        ok
    }

    /// Adds (`unplaced`) or takes away buffer `c`'s size from the unplaced sums of the
    /// sections it spans, and refreshes their max tree.
    fn section_sums(&mut self, c: usize, unplaced: bool) {
        let (a, b) = self.span(c);
        let size = self.size(c);
        for s in a..b {
            if let Some(t) = self.total.get_mut(s) {
                if unplaced {
                    *t += size;
                } else {
                    *t -= size;
                }
                let v = *t;
                self.tree.set(s, v);
            }
        }
        self.tree.refresh(a, b);
    }

    /// Places `c` at its minimum offset and propagates; false if the result fails a check
    /// (the caller undoes it either way with [`Search::unplace`]).
    pub(super) fn place(&mut self, c: usize) -> bool {
        let o = self.mo(c);
        let top = o.saturating_add(self.size(c));
        if let Some(x) = self.offset.get_mut(c) {
            *x = o;
        }
        if let Some(p) = self.placed.get_mut(c) {
            *p = true;
        }
        // Remove from the unplaced set.
        let p = self.upos.get(c).copied().unwrap_or(0) as usize;
        self.unplaced.swap_remove(p);
        if let Some(&moved) = self.unplaced.get(p) {
            if let Some(q) = self.upos.get_mut(moved as usize) {
                *q = p as u32;
            }
        }
        self.flip(c, o);
        // Section sums and cuts.
        let (a, b) = self.span(c);
        self.section_sums(c, false);
        self.new_cut = false;
        for s in a..b.saturating_sub(1) {
            if let Some(x) = self.cut.get_mut(s) {
                *x -= 1;
                self.new_cut |= *x == 0;
            }
        }
        // Minimum offsets of the unplaced buffers live with `c`.
        self.changed.clear();
        let mut ok = true;
        for &j in self.inst.conflicts(c) {
            let j = j as usize;
            if self.is_placed(j) || self.mo(j) >= top {
                continue;
            }
            let old = self.mo(j);
            let new = self.inst.lift(j, top);
            self.trail.push(j as u32);
            self.trail_old.push(old);
            self.flip(j, old);
            self.flip(j, new);
            if let Some(x) = self.mo.get_mut(j) {
                *x = new;
            }
            if new.saturating_add(self.size(j)) > self.cap {
                ok = false;
                break;
            }
            self.changed.push(j as u32);
        }
        let (ca, cb) = self.component();
        if !ok || o.saturating_add(self.tree.range_max(ca, cb)) > self.cap || !self.revisit(c) {
            return false;
        }
        let changed = std::mem::take(&mut self.changed);
        for &j in &changed {
            if !self.revisit(j as usize) {
                ok = false;
                break;
            }
        }
        self.changed = changed;
        ok
    }

    /// Undoes [`Search::place`] of `c`: minimum offsets back to the trail `mark`, the key back
    /// to `key`.
    pub(super) fn unplace(&mut self, c: usize, mark: usize, key: Key) {
        while self.trail.len() > mark {
            if let (Some(j), Some(old)) = (self.trail.pop(), self.trail_old.pop()) {
                if let Some(x) = self.mo.get_mut(j as usize) {
                    *x = old;
                }
            }
        }
        let (a, b) = self.span(c);
        self.section_sums(c, true);
        for s in a..b.saturating_sub(1) {
            if let Some(x) = self.cut.get_mut(s) {
                *x += 1;
            }
        }
        if let Some(p) = self.placed.get_mut(c) {
            *p = false;
        }
        if let Some(p) = self.upos.get_mut(c) {
            *p = self.unplaced.len() as u32;
        }
        self.unplaced.push(c as u32);
        self.key = key;
    }
}

/// The result of looking for a section's witness.
pub(super) enum Witness {
    Some(u32),
    /// No unplaced member: nothing to check.
    Empty,
    /// Unplaced members, none of which can start the stack.
    None,
}
