//! Dynamic decomposition (MiniMalloc's): when a placement leaves no unplaced buffer live
//! across some section boundary, the unplaced buffers on either side no longer interact, so
//! each side becomes a *component* solved on its own: by a fresh canonical search from
//! offset 0, with preorder ranks recomputed from the section sums of that moment (the most
//! constrained buffers of each subproblem first; without this, MiniMalloc's instance H is
//! out of reach). The components of a split form a [`Scope`]: all must be completed, and
//! when one cannot be, the node that split fails without trying other completions of the
//! earlier components (an AND node). Failed states inside a component are keyed by the
//! component's own buffers, so a refuted subproblem is recognised however it is reached.

use super::{Expand, Outcome, Search};
use crate::exact::instance::NONE;
use crate::exact::memo::{mix, Key, Memo};
use crate::exact::order::rank_members;

/// A group of components (section ranges without an unplaced buffer crossing between them)
/// solved one after the other, each by a fresh canonical search from offset 0: all must be
/// completed, and when one cannot be, the node that created the scope fails, without trying
/// other completions of the earlier components.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope {
    /// Its components: `comps[first..end]`, the current one at `current`.
    pub(super) first: usize,
    pub(super) end: usize,
    pub(super) current: usize,
    /// The node that created it: failure-table key and canonical position (`None` for the
    /// root scope).
    pub(super) owner: Option<(Key, u64, u64)>,
    /// Frames below it (the owner's) and below the current component's root.
    pub(super) base: usize,
    pub(super) comp_base: usize,
    /// The hash of the unplaced buffers outside the current component, and a hash of the
    /// component's state when it was entered (its ranks depend on it): `key ^ others ^ entry`
    /// is the failure-table key of a node inside it.
    pub(super) others: Key,
    pub(super) entry: Key,
    /// Length of the rank trail when the scope was created.
    pub(super) rank_mark: usize,
}

impl Scope {
    /// The root scope: one component, the whole instance.
    pub(super) fn root() -> Scope {
        Scope {
            first: 0,
            end: 1,
            current: 0,
            owner: None,
            base: 0,
            comp_base: 0,
            others: [0, 0],
            entry: [0, 0],
            rank_mark: 0,
        }
    }
}

impl Search<'_> {
    /// The current component's section range.
    pub(super) fn component(&self) -> (usize, usize) {
        let (a, b) = self
            .scopes
            .last()
            .and_then(|sc| self.comps.get(sc.current))
            .copied()
            .unwrap_or((0, 0));
        (a as usize, b as usize)
    }

    /// The failure-table key of the current node.
    pub(super) fn mkey(&self) -> Key {
        let (o, e) = self
            .scopes
            .last()
            .map_or(([0, 0], [0, 0]), |sc| (sc.others, sc.entry));
        [self.key[0] ^ o[0] ^ e[0], self.key[1] ^ o[1] ^ e[1]]
    }

    /// Enters the current component: ranks its unplaced buffers with the current section
    /// sums and sets the scope's `others` and `entry` hashes.
    pub(super) fn enter_component(&mut self) {
        let (ca, cb) = self.component();
        let mut others = [0u64, 0u64];
        self.members.clear();
        for &j in &self.unplaced {
            let ju = j as usize;
            let (a, b) = self.span(ju);
            if a < ca || b > cb {
                let h = self.hash(ju, self.mo(ju));
                others[0] ^= h[0];
                others[1] ^= h[1];
            } else {
                self.members.push(j);
            }
        }
        for &j in &self.members {
            let old = self.rank.get(j as usize).copied().unwrap_or(0);
            self.rank_trail.push((j, old));
        }
        // Problem order first, so that the ranking does not depend on the unplaced set's
        // internal order.
        self.members.sort_unstable();
        rank_members(
            self.inst,
            self.order,
            &mut self.members,
            &self.total,
            &mut self.rank,
        );
        let inside = [self.key[0] ^ others[0], self.key[1] ^ others[1]];
        let entry = [
            mix(inside[0] ^ 0x5851_f42d_4c95_7f2d),
            mix(inside[1] ^ 0x1405_7b7e_f767_814f),
        ];
        if let Some(sc) = self.scopes.last_mut() {
            sc.comp_base = self.frames.len();
            sc.others = others;
            sc.entry = entry;
        }
    }

    /// Splits the current component at its zero cuts into a new scope, if that leaves at
    /// least two components with unplaced buffers; the node is at `(level, tie)`.
    pub(super) fn decompose(&mut self, level: u64, tie: u64) -> bool {
        let (ca, cb) = self.component();
        let first = self.comps.len();
        let mut from = ca;
        for s in ca..cb.saturating_sub(1) {
            if self.cut.get(s).copied() == Some(0) {
                if self.tree.range_max(from, s + 1) > 0 {
                    self.comps.push((from as u32, (s + 1) as u32));
                }
                from = s + 1;
            }
        }
        if self.tree.range_max(from, cb) > 0 {
            self.comps.push((from as u32, cb as u32));
        }
        if self.comps.len() == first {
            self.comps.truncate(first);
            return false;
        }
        let owner = Some((self.mkey(), level, tie));
        self.scopes.push(Scope {
            first,
            end: self.comps.len(),
            current: first,
            owner,
            base: self.frames.len(),
            comp_base: self.frames.len(),
            others: [0, 0],
            entry: [0, 0],
            rank_mark: self.rank_trail.len(),
        });
        true
    }

    /// Fails the innermost scope: unwinds the frames of its components and records the
    /// failure of the node that created it; false if it was the root scope.
    pub(super) fn fail_scope(&mut self, memo: &mut Memo) -> bool {
        let Some(scope) = self.scopes.pop() else {
            return false;
        };
        self.comps.truncate(scope.first);
        let Some((key, level, tie)) = scope.owner else {
            return false;
        };
        memo.record(key, level, tie);
        while self.rank_trail.len() > scope.rank_mark {
            if let Some((j, r)) = self.rank_trail.pop() {
                if let Some(x) = self.rank.get_mut(j as usize) {
                    *x = r;
                }
            }
        }
        while self.frames.len() > scope.base {
            if let Some(f) = self.frames.pop() {
                if f.child != NONE {
                    self.unplace(f.child as usize, f.mark, f.key);
                }
                self.cands.truncate(f.start);
            }
        }
        true
    }

    /// Continues from a node at `(level, tie)` (just after a placement, or at the root):
    /// decomposes, moves through completed components, pushes the next frame. Returns
    /// `Some(Found)` when everything is placed, `Some(Exhausted)` when the root scope
    /// failed, `None` to go on with the main loop.
    pub(super) fn enter(
        &mut self,
        level: u64,
        tie: u64,
        memo: &mut Memo,
        root: bool,
    ) -> Option<Outcome> {
        let mut at_root = root;
        let (mut level, mut tie) = (level, tie);
        if root {
            self.enter_component();
        } else {
            if memo.failed(self.mkey(), level, tie) {
                return None;
            }
            if self.new_cut && self.decompose(level, tie) {
                self.enter_component();
                (level, tie) = (0, 0);
                at_root = true;
            }
        }
        loop {
            if at_root {
                let (ca, cb) = self.component();
                if level.saturating_add(self.tree.range_max(ca, cb)) > self.cap
                    || memo.failed(self.mkey(), level, tie)
                {
                    if !self.fail_scope(memo) {
                        return Some(Outcome::Exhausted);
                    }
                    return None;
                }
            }
            match self.expand(level, tie) {
                Expand::Pushed => return None,
                Expand::Dead => {
                    memo.record(self.mkey(), level, tie);
                    if at_root && !self.fail_scope(memo) {
                        return Some(Outcome::Exhausted);
                    }
                    return None;
                }
                Expand::Complete => {
                    // Next component of the innermost scope, or the scope is done (and so
                    // is the component that contained it).
                    let Some(scope) = self.scopes.last_mut() else {
                        return Some(Outcome::Found);
                    };
                    scope.current += 1;
                    if scope.current < scope.end {
                        self.enter_component();
                        (level, tie) = (0, 0);
                        at_root = true;
                        continue;
                    }
                    let first = scope.first;
                    self.scopes.pop();
                    self.comps.truncate(first);
                    if self.scopes.is_empty() {
                        return Some(Outcome::Found);
                    }
                    at_root = false;
                }
            }
        }
    }
}
