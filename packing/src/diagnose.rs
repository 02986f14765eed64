//! Why a problem does not fit its capacity, in terms a kernel author can act on.
//!
//! Incumbent planners say at most "needed N, have M" (Triton, TFLite Micro, pypto, PTOAS)
//! or nothing (MiniMalloc's `NOT_FOUND`). [`explain`] names
//!
//! 1. the program point where the most units are live, the buffers live there with their
//!    sizes, and that total (the lower bound) against the capacity: when it exceeds the
//!    capacity, no placement can fit and these buffers are the ones to shrink or shorten;
//! 2. otherwise the volume fits and *fragmentation* is the problem: the buffer whose top is
//!    the solver's peak, and the smallest set of buffers found that provably cannot share
//!    the capacity (a deletion filter: buffers are dropped while the rest still provably
//!    does not fit, each probe a node-limited [`fits`]); it says whether that set is proved
//!    irreducible (dropping any one of its buffers makes it fit) or only the smallest found
//!    within the work limit.

use std::fmt;
use std::time::Instant;

use super::bound::{live_bound, lower_bound};
use super::exact::{fits, Fit, Solution, SolveOptions};
use super::problem::time_partitions;
use super::{Buffer, Placement, Problem};

/// A buffer named in a diagnosis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Its id.
    pub id: String,
    /// Its size.
    pub size: u64,
    /// Its lifetime `[lower, upper)`.
    pub lower: u64,
    /// One past its last live point.
    pub upper: u64,
}

/// A set of buffers that cannot share the capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The buffers, in problem order.
    pub buffers: Vec<Named>,
    /// Whether the set is proved irreducible: without any one of its buffers the rest fits.
    /// False when the work limit cut the deletion filter short (the set still provably does
    /// not fit).
    pub minimal: bool,
}

/// Why a problem does not fit its capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Infeasibility {
    /// The problem's capacity.
    pub capacity: u64,
    /// The height of the best placement found.
    pub peak: u64,
    /// The volume lower bound ([`lower_bound`]: live units, alignment, fixed offsets).
    pub lower_bound: u64,
    /// Whether nothing can fit: the volume bound exceeds the capacity, or the solver proved
    /// a higher bound ([`Solution::lower_bound`]) that does.
    pub proved: bool,
    /// The program point where the most units are live.
    pub at: u64,
    /// The buffers live there, largest first.
    pub live: Vec<Named>,
    /// Their total size.
    pub live_total: u64,
    /// The buffer whose top is the best placement's peak (first in problem order).
    pub top: Option<Named>,
    /// With `lower_bound ≤ capacity` (fragmentation): the smallest conflicting set found,
    /// if the search could prove one.
    pub conflict: Option<Conflict>,
}

impl Infeasibility {
    /// Whether the volume fits and fragmentation is the problem (`lower_bound ≤ capacity`).
    ///
    /// ```
    /// use packing::diagnose::explain;
    /// use packing::exact::{minimize, SolveOptions};
    /// use packing::{Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 1, 9)?], Some(8))?;
    /// let why = explain(&p, &minimize(&p, &SolveOptions::default())?).ok_or("9 > 8")?;
    /// assert!(!why.fragmentation() && why.proved);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fragmentation(&self) -> bool {
        self.lower_bound <= self.capacity
    }
}

fn named(b: &Buffer) -> Named {
    Named {
        id: b.id.clone(),
        size: b.size,
        lower: b.lower,
        upper: b.upper,
    }
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = if self.size == 1 { "unit" } else { "units" };
        write!(
            f,
            "'{}' ({} {units}, live [{}, {}))",
            self.id, self.size, self.lower, self.upper
        )
    }
}

impl fmt::Display for Infeasibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "does not fit in capacity {}: the best placement needs {}",
            self.capacity, self.peak
        )?;
        // The reason on a line of its own, under the headline.
        if !self.fragmentation() {
            write!(
                f,
                "\n  no placement can fit: {} units are live together at program point {} \
                 (lower bound {} > {})",
                self.live_total, self.at, self.lower_bound, self.capacity
            )?;
        } else {
            write!(
                f,
                "\n  at most {} units are live together (at program point {}; lower bound {} ≤ {}), \
                 so fragmentation is the problem{}",
                self.live_total,
                self.at,
                self.lower_bound,
                self.capacity,
                if self.proved {
                    ", and the search proved that no placement fits"
                } else {
                    ""
                }
            )?;
        }
        write!(f, "\n  live at {}:", self.at)?;
        list(f, &self.live)?;
        if let Some(t) = &self.top {
            write!(f, "\n  the peak {} is the top of {t}", self.peak)?;
        }
        match (&self.conflict, self.proved || !self.fragmentation()) {
            (Some(c), _) => {
                let total: u64 = c.buffers.iter().map(|b| b.size).sum();
                write!(
                    f,
                    "\n  these {} buffers ({} units in all) cannot share {} units{}:",
                    c.buffers.len(),
                    total,
                    self.capacity,
                    if c.minimal {
                        " (proved minimal: without any one of them the rest fits)"
                    } else {
                        " (the smallest set found within the work limit)"
                    }
                )?;
                list(f, &c.buffers)?;
            }
            (None, false) => write!(
                f,
                "\n  no placement within {} was found, but none was proved impossible either \
                 (raise the solver's budget)",
                self.capacity
            )?,
            (None, true) => {}
        }
        Ok(())
    }
}

/// Buffers a diagnosis lists, one a line, before it counts the rest (a million-buffer trace
/// can have 300,000 live at its peak).
pub const MAX_LISTED: usize = 16;

/// `buffers` one a line, the first [`MAX_LISTED`] of them, then how many more and their size.
fn list(f: &mut fmt::Formatter<'_>, buffers: &[Named]) -> fmt::Result {
    for b in buffers.iter().take(MAX_LISTED) {
        write!(f, "\n    {b}")?;
    }
    if let Some(rest) = buffers.get(MAX_LISTED..).filter(|r| !r.is_empty()) {
        let units: u64 = rest.iter().map(|b| b.size).fold(0, u64::saturating_add);
        write!(f, "\n    … and {} more ({units} units)", rest.len())?;
    }
    Ok(())
}

/// Work limits of [`explain`]: deterministic node counts.
const PROBE_NODES: u64 = 20_000;
const TOTAL_NODES: u64 = 1_000_000;

/// `None` when `solution` fits the problem's capacity (or the problem has none); otherwise
/// the diagnosis (module docs). Deterministic: its searches are node-limited.
///
/// ```
/// use packing::diagnose::explain;
/// use packing::exact::{minimize, SolveOptions};
/// use packing::{Buffer, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("k", 0, 4, 40_000)?, Buffer::new("v", 2, 6, 30_000)?, Buffer::new("q", 5, 8, 8_000)?],
///     Some(65_536),
/// )?;
/// let s = minimize(&p, &SolveOptions::default())?;
/// let why = explain(&p, &s).ok_or("70,000 units are live at point 2")?;
/// assert!(why.proved);
/// assert_eq!((why.at, why.live_total), (2, 70_000));
/// assert_eq!(why.live.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(), ["k", "v"]);
/// assert!(why.to_string().contains("program point 2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn explain(problem: &Problem, solution: &Solution) -> Option<Infeasibility> {
    explain_within(problem, solution, None)
}

/// [`explain`], its search for a conflicting set also ended at `deadline` (the caller's time
/// budget): what it has by then is reported, the set marked not minimal, or none found.
///
/// ```
/// use std::time::Instant;
/// use packing::diagnose::explain_within;
/// use packing::exact::{minimize, SolveOptions};
/// use packing::{Buffer, Problem};
/// // Three buffers of 2, all live at time 1: 6 units over a capacity of 4, proved at once.
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 2, 2)?, Buffer::new("b", 1, 3, 2)?, Buffer::new("c", 0, 3, 2)?],
///     Some(4),
/// )?;
/// let s = minimize(&p, &SolveOptions::default())?;
/// let past = Some(Instant::now());
/// let why = explain_within(&p, &s, past).ok_or("6 > 4")?;
/// assert_eq!(why.peak, 6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn explain_within(
    problem: &Problem,
    solution: &Solution,
    deadline: Option<Instant>,
) -> Option<Infeasibility> {
    let capacity = problem.capacity()?;
    if solution.peak <= capacity {
        return None;
    }
    let buffers = problem.buffers();
    let live = live_bound(problem);
    let mut live_named: Vec<Named> = live
        .live
        .iter()
        .filter_map(|&i| buffers.get(i))
        .map(named)
        .collect();
    live_named.sort_by(|a, b| b.size.cmp(&a.size).then(a.id.cmp(&b.id)));
    let bound = lower_bound(problem);
    let top = top_buffer(problem, &solution.placement, solution.peak);
    let proved = bound.max(solution.lower_bound) > capacity;
    let conflict = if bound > capacity {
        None
    } else {
        conflicting_set(problem, capacity, top, deadline)
    };
    Some(Infeasibility {
        capacity,
        peak: solution.peak,
        lower_bound: bound,
        proved,
        at: live.at,
        live: live_named,
        live_total: live.peak,
        top: top.and_then(|i| buffers.get(i)).map(named),
        conflict,
    })
}

fn top_buffer(problem: &Problem, placement: &Placement, peak: u64) -> Option<usize> {
    problem
        .buffers()
        .iter()
        .zip(&placement.offsets)
        .position(|(b, &o)| o.saturating_add(b.size) == peak && b.size > 0)
}

/// The buffers of `problem` at `keep` (problem indices, in order) as a problem.
fn subproblem(problem: &Problem, keep: &[usize], capacity: u64) -> Option<Problem> {
    let buffers: Vec<Buffer> = keep
        .iter()
        .filter_map(|&i| problem.buffers().get(i).cloned())
        .collect();
    Problem::new(buffers, Some(capacity)).ok()
}

/// Whether the buffers `keep` provably do not fit (`Some(true)`), provably fit
/// (`Some(false)`), or neither within `nodes` (`None`).
fn refuted(
    problem: &Problem,
    keep: &[usize],
    capacity: u64,
    nodes: u64,
    deadline: Option<Instant>,
) -> Option<bool> {
    let sub = subproblem(problem, keep, capacity)?;
    let options = SolveOptions {
        budget: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        node_limit: Some(nodes),
        ..SolveOptions::default()
    };
    match fits(&sub, capacity, &options).ok()? {
        Fit::No => Some(true),
        Fit::Yes(_) => Some(false),
        Fit::Unknown => None,
    }
}

/// The deletion filter, on the buffers time-connected to the peak's buffer (the others
/// cannot be part of its conflict), dropping halves first, then single buffers.
fn conflicting_set(
    problem: &Problem,
    capacity: u64,
    top: Option<usize>,
    deadline: Option<Instant>,
) -> Option<Conflict> {
    let buffers = problem.buffers();
    let mut set = connected_group(buffers, top?);
    let mut spent = 0u64;
    let budget_probe = |keep: &[usize], spent: &mut u64| -> Option<bool> {
        if *spent >= TOTAL_NODES || deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let nodes = PROBE_NODES.min(TOTAL_NODES - *spent);
        *spent += nodes;
        refuted(problem, keep, capacity, nodes, deadline)
    };
    if budget_probe(&set, &mut spent) != Some(true) {
        return None;
    }
    let mut minimal = true;
    let mut chunk = (set.len() / 2).max(1);
    loop {
        let mut i = 0;
        while i < set.len() {
            let end = (i + chunk).min(set.len());
            let rest: Vec<usize> = set
                .iter()
                .enumerate()
                .filter(|&(k, _)| k < i || k >= end)
                .map(|(_, &b)| b)
                .collect();
            match budget_probe(&rest, &mut spent) {
                Some(true) => set = rest,
                Some(false) => i = end,
                None => {
                    if chunk == 1 {
                        minimal = false;
                    }
                    i = end;
                }
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = (chunk / 2).max(1);
    }
    set.sort_unstable();
    Some(Conflict {
        buffers: set
            .iter()
            .filter_map(|&i| buffers.get(i))
            .map(named)
            .collect(),
        minimal,
    })
}

/// The buffers whose lifetimes chain (through overlaps) to buffer `from`'s.
fn connected_group(buffers: &[Buffer], from: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers.get(i).map_or(0, |b| b.lower), i));
    let mut group = time_partitions(buffers, &order)
        .into_iter()
        .find(|g| g.contains(&from))
        .unwrap_or_default();
    group.sort_unstable();
    group
}
