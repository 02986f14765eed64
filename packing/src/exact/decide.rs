//! The decision driver: one instance at one capacity, searched with each preordering in
//! turn under node limits that double every round (MiniMalloc's round robin). A hard
//! instance for one ordering is often easy for another, so this bounds the damage of a bad
//! first choice; failed states are shared between the runs ([`Memo`]), so a restart does
//! not redo what was already refuted, and any run that exhausts its space proves
//! infeasibility. A [`Decider`] can be resumed: a later call goes on where the last one ran
//! out of effort.

use std::time::Instant;

use super::instance::Instance;
use super::memo::Memo;
use super::order::Preorder;
use super::search::{Outcome, Search};

/// The answer for one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// A placement, as offsets by local index.
    Yes(Vec<u64>),
    /// Proved: nothing fits.
    No,
    /// Out of nodes or time.
    Unknown,
}

/// How much work a decision may do.
#[derive(Debug)]
pub(crate) struct Effort {
    /// Nodes left (shared by everything this effort is passed to); `None`: unlimited.
    pub nodes_left: Option<u64>,
    pub deadline: Option<Instant>,
    /// Nodes spent so far.
    pub nodes: u64,
}

impl Effort {
    /// Whether no work is left: nodes spent or the deadline passed.
    pub(crate) fn exhausted(&self) -> bool {
        self.nodes_left == Some(0) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// At most `nodes` of this effort (and its deadline); give it back with
    /// [`Effort::absorb`].
    pub(crate) fn share(&self, nodes: u64) -> Effort {
        Effort {
            nodes_left: Some(self.nodes_left.map_or(nodes, |n| n.min(nodes))),
            deadline: self.deadline,
            nodes: 0,
        }
    }

    /// Counts the nodes a [`Effort::share`] spent.
    pub(crate) fn absorb(&mut self, part: &Effort) {
        self.nodes += part.nodes;
        if let Some(left) = self.nodes_left.as_mut() {
            *left = left.saturating_sub(part.nodes);
        }
    }
}

/// A resumable decision of one instance at one capacity.
#[derive(Debug)]
pub(crate) struct Decider<'a> {
    search: Search<'a>,
    memo: Memo,
    /// Node limit of the current round, and the preordering to run next in it.
    limit: u64,
    next: usize,
    /// The answer, once known.
    done: Option<Decision>,
}

impl<'a> Decider<'a> {
    /// A decider for `inst` at `cap` with a failure table of at most `memo_slots` slots.
    pub(crate) fn new(inst: &'a Instance, cap: u64, memo_slots: usize) -> Decider<'a> {
        Decider {
            search: Search::new(inst, cap),
            memo: Memo::new(memo_slots),
            limit: (2 * inst.len() as u64).max(64),
            next: 0,
            done: None,
        }
    }

    /// Goes on deciding within `effort`; [`Decision::Unknown`] when it runs out first.
    pub(crate) fn run(&mut self, effort: &mut Effort) -> Decision {
        if let Some(d) = &self.done {
            return d.clone();
        }
        loop {
            let Some(&order) = Preorder::ALL.get(self.next) else {
                self.next = 0;
                self.limit = self.limit.saturating_mul(2);
                continue;
            };
            let budget = effort
                .nodes_left
                .map_or(self.limit, |left| self.limit.min(left));
            if budget == 0 || effort.exhausted() {
                return Decision::Unknown;
            }
            let before = self.search.nodes;
            let outcome = self.search.run(
                order,
                self.next as u64,
                budget,
                effort.deadline,
                &mut self.memo,
            );
            let found = (outcome == Outcome::Found).then(|| self.search.offsets().to_vec());
            // The next run starts from the root: an idle decider keeps no path.
            self.search.release_path();
            let spent = self.search.nodes - before;
            effort.nodes += spent;
            if let Some(left) = effort.nodes_left.as_mut() {
                *left = left.saturating_sub(spent);
            }
            let decision = match (outcome, found) {
                (Outcome::Found, Some(offsets)) => Decision::Yes(offsets),
                (Outcome::Exhausted, _) => Decision::No,
                (Outcome::Found | Outcome::Aborted, _) => {
                    // A run cut short by the effort (not by its own limit) is redone in full.
                    if spent >= self.limit {
                        self.next += 1;
                    }
                    continue;
                }
            };
            self.done = Some(decision.clone());
            return decision;
        }
    }
}
