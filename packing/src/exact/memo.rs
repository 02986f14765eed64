//! The table of failed search states (no-goods).
//!
//! What remains to be decided at a search node depends only on the unplaced buffers, their
//! minimum offsets and the canonical position `(level, last)` of the previous placement:
//! placed buffers matter only through the minimum offsets they impose. So once a node's
//! subtree is exhausted without a solution, every later node with the same unplaced buffers
//! and minimum offsets and a canonical position at or after the recorded one fails too (its
//! candidates are a subset). Different placements of the same buffers often leave the same
//! skyline, and restarts with another preordering revisit the same states, so the table cuts
//! whole subtrees.
//!
//! States are keyed by two independent 64-bit Zobrist hashes (`xor` over unplaced buffers of
//! a hash of `(buffer, minimum offset)`), kept incrementally by the search; a false match
//! needs both to collide. Open addressing, no deletion; it stops growing at its slot limit
//! (then new failures are simply not recorded), so memory is bounded and results stay
//! deterministic.

/// A state key: two independent hashes.
pub(crate) type Key = [u64; 2];

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    k0: u64,
    k1: u64,
    level: u64,
    /// Canonical tie position: 0 before any buffer, `last + 1` after buffer `last`.
    tie: u64,
}

/// Failed states and the earliest canonical position at which each failed.
#[derive(Debug, Clone)]
pub(crate) struct Memo {
    slots: Vec<Slot>,
    len: usize,
    max_slots: usize,
}

impl Memo {
    /// An empty table that never holds more than `max_slots` slots (rounded down to a power
    /// of two; 0 disables it).
    pub(crate) fn new(max_slots: usize) -> Memo {
        let max_slots = if max_slots == 0 {
            0
        } else {
            1usize << (usize::BITS - 1 - max_slots.leading_zeros())
        };
        Memo {
            slots: Vec::new(),
            len: 0,
            max_slots,
        }
    }

    /// Number of recorded states.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn find(&self, key: Key) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let k0 = key[0] | 1;
        let mut i = (key[1] as usize) & mask;
        loop {
            let s = self.slots.get(i)?;
            if s.k0 == 0 {
                return Some(i);
            }
            if s.k0 == k0 && s.k1 == key[1] {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether the state `key` already failed at a canonical position `≤ (level, tie)`.
    pub(crate) fn failed(&self, key: Key, level: u64, tie: u64) -> bool {
        match self.find(key).and_then(|i| self.slots.get(i)) {
            Some(s) if s.k0 != 0 => (s.level, s.tie) <= (level, tie),
            _ => false,
        }
    }

    /// Records that the state `key` fails at canonical position `(level, tie)`.
    pub(crate) fn record(&mut self, key: Key, level: u64, tie: u64) {
        if self.max_slots == 0 {
            return;
        }
        if 2 * (self.len + 1) > self.slots.len() && !self.grow() {
            // Full: update existing entries only.
            if let Some(s) = self.find(key).and_then(|i| self.slots.get_mut(i)) {
                if s.k0 != 0 && (level, tie) < (s.level, s.tie) {
                    s.level = level;
                    s.tie = tie;
                }
            }
            return;
        }
        let k0 = key[0] | 1;
        if let Some(s) = self.find(key).and_then(|i| self.slots.get_mut(i)) {
            if s.k0 == 0 {
                *s = Slot {
                    k0,
                    k1: key[1],
                    level,
                    tie,
                };
                self.len += 1;
            } else if (level, tie) < (s.level, s.tie) {
                s.level = level;
                s.tie = tie;
            }
        }
    }

    /// Doubles the table (from 4096 slots); false at the limit.
    fn grow(&mut self) -> bool {
        let next = (self.slots.len() * 2).max(4096);
        if next > self.max_slots {
            return false;
        }
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); next]);
        let mask = next - 1;
        for s in old.into_iter().filter(|s| s.k0 != 0) {
            let mut i = (s.k1 as usize) & mask;
            while self.slots.get(i).is_some_and(|t| t.k0 != 0) {
                i = (i + 1) & mask;
            }
            if let Some(t) = self.slots.get_mut(i) {
                *t = s;
            }
        }
        true
    }
}

/// A strong 64-bit mixer (splitmix64's finaliser).
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_the_earliest_failure_and_answers_later_positions() {
        let mut m = Memo::new(1 << 16);
        let k = [mix(1), mix(2)];
        assert!(!m.failed(k, 5, 3));
        m.record(k, 5, 3);
        assert!(m.failed(k, 5, 3));
        assert!(m.failed(k, 6, 0));
        assert!(!m.failed(k, 5, 2));
        m.record(k, 4, 0);
        assert!(m.failed(k, 5, 2));
        assert!(!m.failed([mix(3), mix(4)], 9, 9));
        assert_eq!(m.len(), 1);
        for i in 0..10_000u64 {
            m.record([mix(i + 10), mix(i + 20_000)], i, 0);
        }
        assert_eq!(m.len(), 10_001);
        assert!(m.failed([mix(10), mix(20_000)], 0, 0));
    }

    #[test]
    fn a_full_table_stops_recording() {
        let mut m = Memo::new(4096);
        for i in 0..5000u64 {
            m.record([mix(i), mix(i + 99_999)], 0, 0);
        }
        assert_eq!(m.len(), 2048); // half the slots: the load limit
        assert!(!Memo::new(0).failed([1, 2], 0, 0));
    }
}
