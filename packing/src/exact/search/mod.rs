//! The depth-first search of one [`Instance`] at one capacity (the decision form).
//!
//! **Canonical placements.** Push every buffer of a valid placement down as far as it goes;
//! in the result (a *tight* placement) each buffer sits at the lowest aligned offset where it
//! overlaps nothing, so listing buffers by offset, each one's offset is the top of the
//! earlier ones it is live with, rounded up to its alignment and lifted past fixed
//! obstacles: its *minimum offset* given the buffers before it. The search builds exactly
//! such lists: a node is a prefix, a child appends an unplaced buffer at its minimum offset,
//! and offsets never decrease along a path (equal ones in preorder). Tight placements exist
//! whenever any placement does, so this loses nothing.
//!
//! | file | concept |
//! |---|---|
//! | [`propagate`] | placing and undoing a buffer; section inference by watched witnesses |
//! | [`candidates`] | the children of a node, best first, and the pruning rules on them |
//! | [`components`] | dynamic decomposition into independent components (AND nodes) |
//! | [`max_tree`] | range maxima of the section sums |
//!
//! Failed states go to the table of no-goods ([`Memo`]). Everything is undone from trails on
//! backtrack; after start-up the only allocations are the growth of a few stacks. Nodes
//! (placements that pass the checks) are counted, and the node budget (and the deadline,
//! looked at every 256 nodes) is the only place where time can change the answer.

mod candidates;
mod components;
mod max_tree;
mod propagate;

use std::time::Instant;

use super::instance::{Instance, NONE};
use super::memo::{mix, Key, Memo};
use super::order::Preorder;
use candidates::Expand;
use components::Scope;
use max_tree::MaxTree;
use propagate::Witness;

/// How a search run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every buffer placed; offsets in [`Search::offsets`].
    Found,
    /// The whole (pruned) space searched: no placement fits.
    Exhausted,
    /// Node budget or deadline reached first.
    Aborted,
}

/// One open node of the depth-first search.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Its candidates: `cands[start..end]`, the next one to try at `next`.
    start: usize,
    end: usize,
    next: usize,
    /// Canonical position of the placement that created the node.
    level: u64,
    tie: u64,
    /// State key at the node (to restore on backtrack) and its failure-table key (the
    /// component's part of it).
    key: Key,
    mkey: Key,
    /// The child being explored and the trail length before it was placed.
    child: u32,
    mark: usize,
}

/// A child of a node: an unplaced buffer, to go at its minimum offset. A node's candidates
/// are sorted best first: lowest minimum offset, then preorder rank (the tie rule), then
/// index. The offset is not stored (8 bytes a candidate, not 16: a deep path holds millions
/// of them): when the node is back on top its minimum offsets are back too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Candidate {
    /// Its preorder rank in the current component.
    rank: u32,
    /// The buffer (local index).
    buffer: u32,
}

/// Search state for one instance and capacity; reusable across runs (orderings, limits).
///
/// Buffers are named by their local index `j` in the [`Instance`], sections by `s`. Per-buffer
/// and per-section vectors are indexed by those; everything the search changes along a path is
/// restored from a trail on backtrack.
#[derive(Debug)]
pub(crate) struct Search<'a> {
    // The problem.
    /// The instance: sizes, lifetimes as section spans, conflicts, fixed obstacles.
    inst: &'a Instance,
    /// The capacity being decided.
    cap: u64,
    /// The preorder of this run (WAT, TAW or TWA): how ties between equal offsets break.
    order: Preorder,

    // Per buffer.
    /// `rank[j]`: `j`'s position in the preorder of the current component.
    rank: Vec<u32>,
    /// Ranks overwritten by component entries: `(buffer, old rank)`.
    rank_trail: Vec<(u32, u32)>,
    /// Scratch: the unplaced buffers of the component being entered.
    members: Vec<u32>,
    /// `zobrist[j]`: the two random words `j`'s (buffer, minimum offset) hash starts from.
    zobrist: Vec<[u64; 2]>,
    /// `mo[j]`: the lowest offset `j` could take given the placed buffers it is live with.
    mo: Vec<u64>,
    /// `offset[j]`: where `j` was placed (meaningful for placed buffers).
    offset: Vec<u64>,
    /// `placed[j]`: whether `j` is placed on the current path.
    placed: Vec<bool>,
    /// Unplaced buffers as a sparse set: `unplaced[upos[j]] == j`.
    unplaced: Vec<u32>,
    /// Positions in `unplaced`.
    upos: Vec<u32>,
    /// The buffer of every minimum offset raised on the current path, and (in `trail_old`,
    /// kept apart so an entry costs 12 bytes, not 16) the value it had.
    trail: Vec<u32>,
    trail_old: Vec<u64>,

    // Per section.
    /// `total[s]`: the summed sizes of the unplaced buffers live in section `s`.
    total: Vec<u64>,
    /// Range maxima of `total` (the tightest section of a component).
    tree: MaxTree,
    /// `cut[s]`: unplaced buffers live across the boundary between sections `s` and `s + 1`.
    cut: Vec<u32>,
    /// Set by [`Search::place`] when it brought some cut to 0.
    new_cut: bool,
    /// `witness[s]`: an unplaced member of `s` that can start the stack of its unplaced
    /// members, re-checked only when it is placed or its minimum offset rises.
    witness: Vec<u32>,
    /// `watch[j]`: the sections `j` is the witness of.
    watch: Vec<Vec<u32>>,

    // The path.
    /// The Zobrist hash of every unplaced buffer's (index, minimum offset): the state key.
    key: Key,
    /// The open nodes, root first.
    frames: Vec<Frame>,
    /// The candidates of every open node, each node's a slice (`Frame::start..end`).
    cands: Vec<Candidate>,
    /// The open AND nodes of the dynamic decomposition, outermost first.
    scopes: Vec<Scope>,
    /// The components of every scope, as section ranges `[a, b)`.
    comps: Vec<(u32, u32)>,

    // Scratch, kept to avoid allocating per node.
    /// The buffers whose minimum offset the last placement raised.
    changed: Vec<u32>,
    /// The tight sections of a node ([`Search::tight_sections`]).
    tight: Vec<u32>,
    /// Per tight section, the best rank of a candidate covering it.
    tight_rank: Vec<Option<u32>>,
    /// Running minima of `tight_rank` from the left and from the right.
    prefix: Vec<u32>,
    suffix: Vec<u32>,

    /// Nodes (placements) tried, over all runs.
    pub nodes: u64,
}

impl<'a> Search<'a> {
    /// A search of `inst` at capacity `cap`.
    pub(crate) fn new(inst: &'a Instance, cap: u64) -> Search<'a> {
        let n = inst.len();
        let zobrist = (0..n as u64)
            .map(|j| {
                [
                    mix(j ^ 0x243f_6a88_85a3_08d3),
                    mix(j ^ 0x1319_8a2e_0370_7344),
                ]
            })
            .collect();
        Search {
            inst,
            cap,
            order: Preorder::Wat,
            rank: (0..n as u32).collect(),
            rank_trail: Vec::new(),
            members: Vec::new(),
            zobrist,
            mo: vec![0; n],
            offset: vec![0; n],
            placed: vec![false; n],
            unplaced: Vec::with_capacity(n),
            upos: vec![0; n],
            total: vec![0; inst.sections()],
            tree: MaxTree::default(),
            cut: vec![0; inst.sections()],
            new_cut: false,
            witness: vec![NONE; inst.sections()],
            watch: vec![Vec::new(); n],
            trail: Vec::new(),
            trail_old: Vec::new(),
            key: [0, 0],
            frames: Vec::new(),
            cands: Vec::new(),
            scopes: Vec::new(),
            comps: Vec::new(),
            changed: Vec::new(),
            tight: Vec::new(),
            tight_rank: Vec::new(),
            prefix: Vec::new(),
            suffix: Vec::new(),
            nodes: 0,
        }
    }

    /// The offsets of the last [`Outcome::Found`] run, by local index.
    pub(crate) fn offsets(&self) -> &[u64] {
        &self.offset
    }

    /// The Zobrist hash of buffer `j` at minimum offset `mo` (two independent 64-bit
    /// halves; one multiply-xorshift each, since this runs for every change).
    fn hash(&self, j: usize, mo: u64) -> [u64; 2] {
        let z = self.zobrist.get(j).copied().unwrap_or([0, 0]);
        let a = (z[0] ^ mo).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let b = (z[1] ^ mo.rotate_left(29)).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        [a ^ (a >> 29), b ^ (b >> 31)]
    }

    fn flip(&mut self, j: usize, mo: u64) {
        let h = self.hash(j, mo);
        self.key[0] ^= h[0];
        self.key[1] ^= h[1];
    }

    fn size(&self, j: usize) -> u64 {
        self.inst.size.get(j).copied().unwrap_or(0)
    }

    fn mo(&self, j: usize) -> u64 {
        self.mo.get(j).copied().unwrap_or(0)
    }

    fn is_placed(&self, j: usize) -> bool {
        self.placed.get(j).copied().unwrap_or(true)
    }

    fn span(&self, j: usize) -> (usize, usize) {
        let (a, b) = self.inst.span.get(j).copied().unwrap_or((0, 0));
        (a as usize, b as usize)
    }

    /// Resets to the root with preorder `order`; false if the root already fails.
    fn reset(&mut self, order: Preorder, salt: u64) -> bool {
        let n = self.inst.len();
        let sections = self.inst.sections();
        self.order = order;
        self.rank_trail.clear();
        self.frames.clear();
        self.cands.clear();
        self.scopes.clear();
        self.comps.clear();
        self.trail.clear();
        self.trail_old.clear();
        self.unplaced.clear();
        // Ties follow the preorder, so failures are only comparable within one preorder.
        self.key = [
            mix(salt ^ 0x9e37_79b9_7f4a_7c15),
            mix(salt ^ 0x7f4a_7c15_9e37_79b9),
        ];
        let mut ok = true;
        self.cut.iter_mut().for_each(|c| *c = 0);
        for j in 0..n {
            let m = self.inst.lift(j, 0);
            if let Some(x) = self.mo.get_mut(j) {
                *x = m;
            }
            if m.saturating_add(self.size(j)) > self.cap {
                ok = false;
            }
            if let Some(p) = self.placed.get_mut(j) {
                *p = false;
            }
            if let Some(p) = self.upos.get_mut(j) {
                *p = self.unplaced.len() as u32;
            }
            self.unplaced.push(j as u32);
            self.flip(j, m);
            if let Some(w) = self.watch.get_mut(j) {
                w.clear();
            }
            let (a, b) = self.span(j);
            for s in a..b.saturating_sub(1) {
                if let Some(c) = self.cut.get_mut(s) {
                    *c += 1;
                }
            }
        }
        for s in 0..sections {
            let t = self
                .inst
                .section(s)
                .iter()
                .map(|&k| self.size(k as usize))
                .fold(0u64, u64::saturating_add);
            if let Some(x) = self.total.get_mut(s) {
                *x = t;
            }
        }
        self.tree = MaxTree::build(&self.total);
        if self.tree.range_max(0, sections) > self.cap {
            ok = false;
        }
        for s in 0..sections {
            match self.find_witness(s) {
                Witness::Some(k) => {
                    if let Some(w) = self.witness.get_mut(s) {
                        *w = k;
                    }
                    if let Some(l) = self.watch.get_mut(k as usize) {
                        l.push(s as u32);
                    }
                }
                Witness::Empty => {}
                Witness::None => ok = false,
            }
        }
        self.comps.push((0, sections as u32));
        self.scopes.push(Scope::root());
        ok
    }

    /// Frees the memory of the last run's path (its undo trails, frames and candidates):
    /// a run starts from the root, so nothing of it is needed by the next one. The trails of
    /// a deep path hold up to two entries per conflicting pair (12 bytes each), hundreds of
    /// MiB on the largest instances; idle deciders keep none of it.
    pub(crate) fn release_path(&mut self) {
        self.rank_trail = Vec::new();
        self.trail = Vec::new();
        self.trail_old = Vec::new();
        self.frames = Vec::new();
        self.cands = Vec::new();
        self.scopes = Vec::new();
        self.comps = Vec::new();
        self.members = Vec::new();
        self.changed = Vec::new();
    }

    /// Searches from the root with preorder `order` (ties between equal offsets follow it;
    /// `salt` names it in the failure table), for at most `budget` nodes (and not past
    /// `deadline`), recording failed states in `memo`.
    pub(crate) fn run(
        &mut self,
        order: Preorder,
        salt: u64,
        budget: u64,
        deadline: Option<Instant>,
        memo: &mut Memo,
    ) -> Outcome {
        if !self.reset(order, salt) {
            return Outcome::Exhausted;
        }
        if let Some(outcome) = self.enter(0, 0, memo, true) {
            return outcome;
        }
        let mut spent = 0u64;
        // A node costs O(n): read the clock every 256 nodes on small instances, more often on
        // large ones (every 8 at 8k buffers), so a deadline is met within a few ms.
        let clock_stride = (65_536 / (self.inst.len() as u64).max(1)).clamp(1, 256);
        loop {
            let Some(f) = self.frames.last_mut() else {
                return Outcome::Exhausted;
            };
            if f.child != NONE {
                let (c, mark, key) = (f.child as usize, f.mark, f.key);
                f.child = NONE;
                self.unplace(c, mark, key);
            }
            let Some(f) = self.frames.last_mut() else {
                return Outcome::Exhausted;
            };
            if f.next == f.end {
                let (start, key, level, tie) = (f.start, f.mkey, f.level, f.tie);
                self.frames.pop();
                self.cands.truncate(start);
                memo.record(key, level, tie);
                let root_of_component = self
                    .scopes
                    .last()
                    .is_some_and(|sc| sc.comp_base == self.frames.len());
                if root_of_component && !self.fail_scope(memo) {
                    return Outcome::Exhausted;
                }
                continue;
            }
            let Candidate { rank: r, buffer: c } = self
                .cands
                .get(f.next)
                .copied()
                .unwrap_or(Candidate { rank: 0, buffer: 0 });
            f.next += 1;
            f.child = c;
            f.mark = self.trail.len();
            let o = self.mo(c as usize);
            if !self.place(c as usize) {
                continue;
            }
            // Nodes are placements that pass the checks (as MiniMalloc counts them).
            if spent == budget {
                return Outcome::Aborted;
            }
            self.nodes += 1;
            spent += 1;
            if spent % clock_stride == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Outcome::Aborted;
            }
            if let Some(outcome) = self.enter(o, u64::from(r) + 1, memo, false) {
                return outcome;
            }
        }
    }
}
