//! [`EventSet`]: a set of events as a bit vector, the currency of happens-before.

use super::trace::{EventId, Trace};

/// A set of [`EventId`]s of one trace (a bit per event).
///
/// ```
/// use alias_alloc::hazard::{EventId, EventSet};
/// let mut s = EventSet::new(70);
/// s.insert(EventId(3));
/// s.insert(EventId(65));
/// assert!(s.contains(EventId(65)) && !s.contains(EventId(4)));
/// assert!(s.remove(EventId(3)) && !s.contains(EventId(3)));
/// s.insert(EventId(3));
/// assert_eq!(s.iter().collect::<Vec<_>>(), [EventId(3), EventId(65)]);
/// let mut t = EventSet::new(70);
/// t.insert(EventId(64));
/// assert!(!s.intersects(&t));
/// t.insert(EventId(65));
/// assert!(s.intersects(&t));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct EventSet {
    words: Vec<u64>,
}

impl EventSet {
    /// The empty set over `events` events.
    pub fn new(events: usize) -> Self {
        Self {
            words: vec![0; events.div_ceil(64)],
        }
    }

    /// The empty set sized for `trace`'s events.
    pub fn of(trace: &Trace) -> Self {
        Self::new(trace.events.len())
    }

    /// Adds `e`; returns whether it was new. Events past the set's size are ignored.
    pub fn insert(&mut self, e: EventId) -> bool {
        match self.words.get_mut(e.0 / 64) {
            Some(w) => {
                let bit = 1u64 << (e.0 % 64);
                let new = *w & bit == 0;
                *w |= bit;
                new
            }
            None => false,
        }
    }

    /// Removes `e`; returns whether it was there.
    pub fn remove(&mut self, e: EventId) -> bool {
        match self.words.get_mut(e.0 / 64) {
            Some(w) => {
                let bit = 1u64 << (e.0 % 64);
                let was = *w & bit != 0;
                *w &= !bit;
                was
            }
            None => false,
        }
    }

    /// Whether `e` is in the set.
    pub fn contains(&self, e: EventId) -> bool {
        self.words
            .get(e.0 / 64)
            .is_some_and(|w| w & (1u64 << (e.0 % 64)) != 0)
    }

    /// Adds every member of `other`; returns whether anything was new.
    pub fn union_with(&mut self, other: &EventSet) -> bool {
        let mut changed = false;
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            let before = *w;
            *w |= o;
            changed |= *w != before;
        }
        changed
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = EventId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            // (the lowest member left, then cleared: one step a member, not a bit)
            let mut rest = w;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    EventId(i * 64 + b)
                })
            })
        })
    }

    /// Whether some event is in both sets.
    pub fn intersects(&self, other: &EventSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The bits as words, event `64 w + b` at bit `b` of word `w` (a state's fingerprint).
    pub(super) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Removes every member, keeping the set's size.
    pub(super) fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}
