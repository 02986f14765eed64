//! Large-neighbourhood search: lowering an incumbent's peak by re-placing a few buffers at a
//! time with the exact search, the rest held where they are.
//!
//! On perfect packings whose tiling is not guillotine (pinwheels), the decision search at a
//! capacity between the bounds finds nothing for seconds, and the anytime answer stayed at
//! its greedy start (1.13–1.27× the bound). Here the peak comes down in steps of one grain:
//! for the target `peak − grain`, every buffer ending above it (a *violator*) is freed with
//! the buffers live during its lifetime, everything else is held (clipped to the target), and
//! the freed buffers are placed below the target — by the sweeps, else by the exact search
//! within a node allowance. A neighbourhood that does not fit is widened to the buffers
//! live with it, twice; a violator that cannot be moved ends the step. Every choice depends
//! on the instance and node counts only, so the result is deterministic.

use super::decide::Effort;
use super::{decide, Fit};
use crate::greedy::{best_fit_by_size, GreedyRule, SWEEPS};
use crate::{Buffer, PackError, Placement, Problem};

/// Buffers freed at most in one neighbourhood (beyond it the exact search rarely answers
/// within the allowance).
const MAX_FREE: usize = 96;

/// Nodes one neighbourhood's search may spend.
const NODES_PER_TRY: u64 = 4096;

/// Lowers `placement`'s peak (`peak`, kept in step) towards `floor` in steps of `grain`,
/// within `effort`; returns whether it lowered it. `placement` stays valid throughout.
pub(super) fn improve(
    problem: &Problem,
    placement: &mut Placement,
    peak: &mut u64,
    floor: u64,
    grain: u64,
    effort: &mut Effort,
    slots: usize,
) -> Result<bool, PackError> {
    let mut improved = false;
    while *peak > floor && !effort.exhausted() {
        let target = peak.saturating_sub(grain).max(floor);
        if !lower_to(problem, placement, target, effort, slots)? {
            break;
        }
        *peak = placement.peak(problem)?;
        improved = true;
    }
    Ok(improved)
}

/// Moves every buffer ending above `target` below it, one neighbourhood at a time; on
/// failure `placement` keeps the moves made (still valid, peak unchanged or lower).
fn lower_to(
    problem: &Problem,
    placement: &mut Placement,
    target: u64,
    effort: &mut Effort,
    slots: usize,
) -> Result<bool, PackError> {
    let buffers = problem.buffers();
    loop {
        let top = |i: usize| {
            buffers
                .get(i)
                .zip(placement.offsets.get(i))
                .map_or(0, |(b, &o)| o.saturating_add(b.size))
        };
        // The violator ending highest (ties: the lowest index).
        let Some(v) = (0..buffers.len())
            .filter(|&i| top(i) > target)
            .max_by_key(|&i| (top(i), std::cmp::Reverse(i)))
        else {
            return Ok(true);
        };
        if buffers.get(v).is_none_or(|b| b.offset.is_some()) || effort.exhausted() {
            return Ok(false); // a fixed buffer above the target, or no effort left
        }
        // Neighbourhoods: the buffers live with `v` that reach into a band below the
        // target, the band doubling from 1/16 of the target to all of it.
        let mut moved = false;
        let mut last = 0usize;
        for shift in (0..=4).rev() {
            let floor = target - (target >> shift);
            let free = band(problem, placement, v, floor);
            if free.len() > MAX_FREE {
                break;
            }
            if free.len() == last {
                continue; // the same neighbourhood as the last band
            }
            last = free.len();
            if let Some(offsets) = place_below(problem, placement, &free, target, effort, slots)? {
                for (&i, o) in free.iter().zip(offsets) {
                    if let Some(x) = placement.offsets.get_mut(i) {
                        *x = o;
                    }
                }
                moved = true;
                break;
            }
        }
        if !moved {
            return Ok(false);
        }
    }
}

/// `v` and the free buffers live with it that end above `floor`, in index order.
fn band(problem: &Problem, placement: &Placement, v: usize, floor: u64) -> Vec<usize> {
    let buffers = problem.buffers();
    (0..buffers.len())
        .filter(|&j| {
            let top = buffers
                .get(j)
                .zip(placement.offsets.get(j))
                .map_or(0, |(b, &o)| o.saturating_add(b.size));
            j == v
                || (buffers
                    .get(j)
                    .is_some_and(|b| b.offset.is_none() && b.size > 0)
                    && top > floor
                    && problem.conflicts(v, j))
        })
        .collect()
}

/// New offsets for `free` below `target` with every other buffer held where `placement`
/// has it, or `None` if none was found within the allowance.
fn place_below(
    problem: &Problem,
    placement: &Placement,
    free: &[usize],
    target: u64,
    effort: &mut Effort,
    slots: usize,
) -> Result<Option<Vec<u64>>, PackError> {
    let buffers = problem.buffers();
    let mut sub: Vec<Buffer> = Vec::with_capacity(free.len());
    for &i in free {
        if let Some(b) = buffers.get(i) {
            sub.push(b.clone());
        }
    }
    // Held buffers live with a freed one: obstacles, clipped at the target (the freed
    // buffers stay below it, so what lies above cannot touch them).
    for (j, b) in buffers.iter().enumerate() {
        let Some(&o) = placement.offsets.get(j) else {
            continue;
        };
        if free.contains(&j) || o >= target || b.size == 0 {
            continue;
        }
        if !free.iter().any(|&i| problem.conflicts(i, j)) {
            continue;
        }
        let mut held = b.clone();
        held.size = b.size.min(target - o);
        sub.push(held.fixed_at(o)?);
    }
    let sub = Problem::new(sub, None)?;
    let greedy: [GreedyRule; 4] = [SWEEPS[0], SWEEPS[1], SWEEPS[2], best_fit_by_size];
    for rule in greedy {
        let p = rule(&sub)?;
        if p.peak(&sub)? <= target {
            return Ok(Some(p.offsets.get(..free.len()).unwrap_or(&[]).to_vec()));
        }
    }
    let mut part = effort.share(NODES_PER_TRY);
    let fit = decide(&sub, target, &mut part, slots)?;
    effort.absorb(&part);
    Ok(match fit {
        Fit::Yes(p) => Some(p.offsets.get(..free.len()).unwrap_or(&[]).to_vec()),
        Fit::No | Fit::Unknown => None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;
    use crate::bound::lower_bound;
    use crate::check::check;

    #[test]
    fn a_stacked_placement_comes_down_to_the_bound_and_stays_valid() {
        // Ten buffers in two waves; stacked one above the other they need the sum of all.
        let buffers: Vec<Buffer> = (0..10u64)
            .map(|i| Buffer::new(format!("b{i}"), (i % 2) * 4, (i % 2) * 4 + 4, 1 + i % 3).unwrap())
            .collect();
        let p = Problem::new(buffers, None).unwrap();
        let mut at = 0;
        let offsets = p
            .buffers()
            .iter()
            .map(|b| {
                at += b.size;
                at - b.size
            })
            .collect();
        let mut placement = Placement { offsets };
        let mut peak = placement.peak(&p).unwrap();
        let floor = lower_bound(&p);
        assert!(peak > floor);
        let mut effort = Effort {
            nodes_left: Some(1 << 20),
            deadline: None,
            nodes: 0,
        };
        assert!(improve(
            &p,
            &mut placement,
            &mut peak,
            floor,
            1,
            &mut effort,
            1 << 10
        )
        .unwrap());
        assert_eq!(peak, floor);
        assert_eq!(placement.peak(&p).unwrap(), floor);
        assert!(check(&p, &placement).is_empty());
    }

    #[test]
    fn a_fixed_buffer_above_the_target_stops_the_descent() {
        let p = Problem::new(
            vec![
                Buffer::new("pinned", 0, 2, 4).unwrap().fixed_at(8).unwrap(),
                Buffer::new("free", 0, 2, 4).unwrap(),
            ],
            None,
        )
        .unwrap();
        let mut placement = Placement {
            offsets: vec![8, 0],
        };
        let mut peak = 12;
        let mut effort = Effort {
            nodes_left: Some(1000),
            deadline: None,
            nodes: 0,
        };
        assert!(!improve(&p, &mut placement, &mut peak, 8, 1, &mut effort, 64).unwrap());
        assert_eq!((peak, placement.offsets.clone()), (12, vec![8, 0]));
    }
}
