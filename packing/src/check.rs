//! The independent checker of placements: it knows nothing of how a placement was made.
//!
//! A placement of a [`Problem`] is **valid** iff
//!
//! 1. it has one offset per buffer;
//! 2. every offset is a multiple of its buffer's alignment, and `offset + size` fits in `u64`;
//! 3. a buffer with a fixed offset sits exactly there;
//! 4. with a capacity, every `offset + size ≤ capacity`;
//! 5. two buffers whose half-open lifetimes intersect occupy disjoint ranges
//!    `[offset, offset + size)` (empty ranges overlap nothing).
//!
//! [`check`] reports every violation; it sweeps the buffers by `lower`, keeping those still
//! live, so it costs `O(n log n + c)` for `c` pairs of time-conflicting buffers.

use std::fmt;

use super::{Placement, Problem};

/// One way a placement breaks the rules above. Buffers are named by their ids.
///
/// ```
/// use packing::check::Violation;
/// let v = Violation::FixedOffsetMoved { id: "bar".into(), fixed: 0, got: 128 };
/// assert_eq!(v.to_string(), "buffer 'bar': fixed at offset 0, placed at 128");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Violation {
    /// Buffers `a` and `b` (`a` first in problem order) are live at the same time and both
    /// occupy `[from, to)`.
    Overlap {
        /// The earlier buffer, in problem order.
        a: String,
        /// The later buffer.
        b: String,
        /// First unit both occupy.
        from: u64,
        /// One past the last unit both occupy.
        to: u64,
    },
    /// An offset that is not a multiple of the buffer's alignment.
    Misaligned {
        /// The buffer.
        id: String,
        /// Its offset.
        offset: u64,
        /// Its alignment.
        alignment: u64,
    },
    /// `offset + size` past the capacity.
    OverCapacity {
        /// The buffer.
        id: String,
        /// Its `offset + size`.
        end: u64,
        /// The problem's capacity.
        capacity: u64,
    },
    /// `offset + size` past `u64::MAX`.
    EndOverflows {
        /// The buffer.
        id: String,
        /// Its offset.
        offset: u64,
    },
    /// A buffer with a fixed offset placed elsewhere.
    FixedOffsetMoved {
        /// The buffer.
        id: String,
        /// Where the problem pins it.
        fixed: u64,
        /// Where the placement puts it.
        got: u64,
    },
    /// A placement with another number of offsets than the problem has buffers (nothing else
    /// is checked then).
    WrongLength {
        /// Buffers in the problem.
        expected: usize,
        /// Offsets in the placement.
        got: usize,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Overlap { a, b, from, to } => write!(
                f,
                "buffers '{a}' and '{b}' are live at the same time and both occupy [{from}, {to})"
            ),
            Violation::Misaligned {
                id,
                offset,
                alignment,
            } => write!(
                f,
                "buffer '{id}': offset {offset} is not a multiple of its alignment {alignment}"
            ),
            Violation::OverCapacity { id, end, capacity } => {
                write!(
                    f,
                    "buffer '{id}': ends at {end}, past the capacity {capacity}"
                )
            }
            Violation::EndOverflows { id, offset } => {
                write!(f, "buffer '{id}': offset {offset} + size overflows 64 bits")
            }
            Violation::FixedOffsetMoved { id, fixed, got } => {
                write!(f, "buffer '{id}': fixed at offset {fixed}, placed at {got}")
            }
            Violation::WrongLength { expected, got } => {
                write!(f, "placement has {got} offsets for {expected} buffers")
            }
        }
    }
}

/// Every violation of the validity rules (module docs) by `placement`; empty means valid.
/// Order: per-buffer violations in problem order, then overlaps in order of the later
/// buffer's `lower`.
///
/// ```
/// use packing::check::{check, Violation};
/// use packing::{Buffer, Placement, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 4, 8)?.aligned(4)?, Buffer::new("b", 2, 6, 8)?, Buffer::new("c", 4, 6, 8)?],
///     Some(16),
/// )?;
/// assert!(check(&p, &Placement { offsets: vec![0, 8, 0] }).is_empty()); // a and c share 0..8
/// assert_eq!(
///     check(&p, &Placement { offsets: vec![2, 6, 12] }),
///     vec![
///         Violation::Misaligned { id: "a".into(), offset: 2, alignment: 4 },
///         Violation::OverCapacity { id: "c".into(), end: 20, capacity: 16 },
///         Violation::Overlap { a: "a".into(), b: "b".into(), from: 6, to: 10 },
///         Violation::Overlap { a: "b".into(), b: "c".into(), from: 12, to: 14 },
///     ]
/// );
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn check(problem: &Problem, placement: &Placement) -> Vec<Violation> {
    let buffers = problem.buffers();
    if placement.offsets.len() != buffers.len() {
        return vec![Violation::WrongLength {
            expected: buffers.len(),
            got: placement.offsets.len(),
        }];
    }
    let mut violations = Vec::new();
    // Per buffer: `[offset, end)`, or None when the end overflows.
    let mut ranges: Vec<Option<(u64, u64)>> = Vec::with_capacity(buffers.len());
    for (b, &offset) in buffers.iter().zip(&placement.offsets) {
        if offset % b.alignment != 0 {
            violations.push(Violation::Misaligned {
                id: b.id.clone(),
                offset,
                alignment: b.alignment,
            });
        }
        if let Some(fixed) = b.offset.filter(|&f| f != offset) {
            violations.push(Violation::FixedOffsetMoved {
                id: b.id.clone(),
                fixed,
                got: offset,
            });
        }
        let end = offset.checked_add(b.size);
        match (end, problem.capacity()) {
            (None, _) => violations.push(Violation::EndOverflows {
                id: b.id.clone(),
                offset,
            }),
            (Some(end), Some(capacity)) if end > capacity => {
                violations.push(Violation::OverCapacity {
                    id: b.id.clone(),
                    end,
                    capacity,
                });
            }
            _ => {}
        }
        ranges.push(end.map(|e| (offset, e)));
    }

    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers.get(i).map_or(0, |b| b.lower), i));
    if disjoint_while_live(buffers, &ranges, &order) {
        return violations;
    }
    // Some pair overlaps: every pair of buffers live together is compared, to name them all.
    // Buffers whose lifetime has started and may not have ended: (upper, index).
    let mut live: Vec<(u64, usize)> = Vec::new();
    for i in order {
        let Some(b) = buffers.get(i) else { continue };
        live.retain(|&(upper, _)| upper > b.lower);
        let mine = ranges.get(i).copied().flatten();
        for &(_, j) in &live {
            let theirs = ranges.get(j).copied().flatten();
            let (Some((o1, e1)), Some((o2, e2))) = (mine, theirs) else {
                continue;
            };
            let (from, to) = (o1.max(o2), e1.min(e2));
            if from < to {
                let (first, second) = (i.min(j), i.max(j));
                violations.push(Violation::Overlap {
                    a: id_of(problem, first),
                    b: id_of(problem, second),
                    from,
                    to,
                });
            }
        }
        live.push((b.upper, i));
    }
    violations
}

/// Whether no two buffers live together overlap, in `O(n log n)`: a sweep in `order` (by
/// lower) keeping the live non-empty ranges by start. While they are pairwise disjoint, a new
/// range `[o, e)` overlaps one of them exactly when it overlaps the live range with the
/// greatest start below `e` (disjoint ranges sorted by start have increasing ends). Ranges
/// whose end overflows are left out (they are reported on their own).
fn disjoint_while_live(
    buffers: &[super::Buffer],
    ranges: &[Option<(u64, u64)>],
    order: &[usize],
) -> bool {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};
    let mut live: BTreeMap<u64, u64> = BTreeMap::new();
    let mut ending: BinaryHeap<Reverse<(u64, u64)>> = BinaryHeap::new();
    for &i in order {
        let (Some(b), Some(&Some((o, e)))) = (buffers.get(i), ranges.get(i)) else {
            continue;
        };
        while let Some(&Reverse((upper, start))) = ending.peek() {
            if upper > b.lower {
                break;
            }
            ending.pop();
            live.remove(&start);
        }
        if o == e {
            continue;
        }
        if live.range(..e).next_back().is_some_and(|(_, &end)| end > o) {
            return false;
        }
        live.insert(o, e);
        ending.push(Reverse((b.upper, o)));
    }
    true
}

fn id_of(problem: &Problem, i: usize) -> String {
    problem
        .buffers()
        .get(i)
        .map(|b| b.id.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;
    use crate::Buffer;

    #[test]
    fn the_sweep_finds_an_overlap_exactly_when_some_pair_overlaps() {
        let mut next = crate::test_rng::below(0x2545_F491_4F6C_DD1D);
        let mut overlapping = 0;
        for _ in 0..4000 {
            let n = 1 + next(12) as usize;
            let buffers: Vec<Buffer> = (0..n)
                .map(|i| {
                    let lower = next(10);
                    Buffer::new(format!("b{i}"), lower, lower + 1 + next(6), next(5)).unwrap()
                })
                .collect();
            let offsets: Vec<u64> = (0..n).map(|_| next(16)).collect();
            let p = Problem::new(buffers, None).unwrap();
            let brute = (0..n).any(|i| {
                (0..i).any(|j| {
                    let (a, b) = (&p.buffers()[i], &p.buffers()[j]);
                    let (oa, ob) = (offsets[i], offsets[j]);
                    p.conflicts(i, j) && oa.max(ob) < (oa + a.size).min(ob + b.size)
                })
            });
            overlapping += usize::from(brute);
            let placement = Placement { offsets };
            let found = check(&p, &placement)
                .iter()
                .any(|v| matches!(v, Violation::Overlap { .. }));
            assert_eq!(found, brute, "{p:?} {placement:?}");
        }
        assert!(overlapping > 1000 && overlapping < 3000, "{overlapping}");
    }

    /// Rule 5 names every overlapping pair exactly: the list equals a brute force over all
    /// pairs live together whose ranges share at least one unit — touching ranges
    /// (`[0, 4)` and `[4, 8)`) and empty ones are not overlaps, and each pair is named once,
    /// earlier buffer first, with the shared range.
    #[test]
    fn every_overlapping_pair_is_named_once_with_its_shared_range() {
        let mut next = crate::test_rng::below(0x0DDB_A11C_0FFE);
        let mut touching = 0;
        for _ in 0..3000 {
            let n = 2 + next(10) as usize;
            let buffers: Vec<Buffer> = (0..n)
                .map(|i| {
                    let lower = next(8);
                    Buffer::new(format!("b{i}"), lower, lower + 1 + next(5), next(5)).unwrap()
                })
                .collect();
            // Offsets on a grid of 4 and sizes up to 4: many ranges touch.
            let offsets: Vec<u64> = (0..n).map(|_| 4 * next(4)).collect();
            let p = Problem::new(buffers, None).unwrap();
            let mut want = Vec::new();
            for i in 0..n {
                for j in 0..i {
                    let (a, b) = (&p.buffers()[j], &p.buffers()[i]);
                    let (from, to) = (
                        offsets[i].max(offsets[j]),
                        (offsets[j] + a.size).min(offsets[i] + b.size),
                    );
                    if p.conflicts(i, j) && from == to && a.size > 0 && b.size > 0 {
                        touching += 1;
                    }
                    if p.conflicts(i, j) && from < to {
                        want.push(Violation::Overlap {
                            a: a.id.clone(),
                            b: b.id.clone(),
                            from,
                            to,
                        });
                    }
                }
            }
            let placement = Placement { offsets };
            let mut got = check(&p, &placement);
            let key = |v: &Violation| v.to_string();
            got.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(got, want, "{p:?} {placement:?}");
        }
        assert!(touching > 1000, "{touching}");
    }
}
