//! Perfect packings: a `W × T` rectangle cut into rectangles on a grain — guillotine-style, or
//! with pinwheels — so every instant is covered exactly once and the cut is an optimal
//! placement (`LB = W`).

use super::SplitMix64;
use crate::{Buffer, PackError, Placement, Problem};

/// Width and time span of [`Kind::Perfect`](super::Kind::Perfect) instances: MiniMalloc's 2^20 × 2^20 square.
///
/// ```
/// use packing::generator::{Kind, PERFECT_SIDE};
/// assert_eq!(Kind::Perfect.capacity(), PERFECT_SIDE);
/// ```
pub const PERFECT_SIDE: u64 = 1 << 20;
/// Grain of [`Kind::Perfect`](super::Kind::Perfect) instances: sizes and times are multiples of 1 KiB.
///
/// ```
/// use packing::generator::{generate, Kind, PERFECT_GRAIN};
/// let p = generate(Kind::Perfect, 2, 150)?;
/// assert!(p.buffers().iter().all(|b| b.size % PERFECT_GRAIN == 0 && b.lower % PERFECT_GRAIN == 0));
/// # Ok::<(), packing::PackError>(())
/// ```
pub const PERFECT_GRAIN: u64 = 1024;

/// A rectangle of `width_cells × span_cells` grain cells (`grain` units each way) cut
/// guillotine-style into `n` rectangles, one buffer each: rectangle `[x, x + w) × [t, t + d)`
/// becomes buffer `lower = t, upper = t + d, size = w` (times `grain`), ids `0, 1, …` in order
/// of `lower`, shuffled among equal `lower`s so that program order does not reveal the cut. Returned with the cut as its placement, which is optimal: every
/// instant is covered exactly once, so `LB = width` = its peak. The problem's capacity is the
/// width. Each step cuts a random rectangle (the largest, half of the time) across its
/// relatively longer side at a random grain point; it stops early when every rectangle is one
/// cell.
///
/// Errors: [`PackError::Overflow`] (id `perfect_packing`) when the width or span in units
/// passes `u64`; [`PackError::EmptyLifetime`] for a zero grain.
///
/// ```
/// use packing::{bound::live_bound, check::check, generator::perfect_packing};
/// let (p, cut) = perfect_packing(3, 150, 1024, 1024, 1024)?;
/// assert_eq!((p.len(), p.capacity()), (150, Some(1 << 20)));
/// assert_eq!(live_bound(&p).peak, 1 << 20);
/// assert_eq!(cut.peak(&p)?, 1 << 20);
/// assert!(check(&p, &cut).is_empty());
/// assert_eq!(perfect_packing(3, 9, 2, 2, 1)?.0.len(), 4); // only 4 cells
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn perfect_packing(
    seed: u64,
    n: usize,
    width_cells: u64,
    span_cells: u64,
    grain: u64,
) -> Result<(Problem, Placement), PackError> {
    cut_rectangle(seed, n, width_cells, span_cells, grain, false)
}

/// [`perfect_packing`] whose cuts are not all guillotine: the first split, and then half of
/// the splits of rectangles at least 3 × 3 cells (while `n` leaves room for the pieces), are
/// *pinwheels*: five rectangles, four turning around a central one,
///
/// ```text
///  t ┌────┬────────┐
///    │    │   C    │
///    │ D  ├──┬─────┤
///    │    │E │     │
///    ├────┴──┤  B  │
///    │   A   │     │
///    └───────┴─────┘ x (offset)
/// ```
///
/// so no straight cut crosses the square. The optimum is still `LB = W` with the tiling as
/// its placement, but no sequence of guillotine cuts builds it: the instances MiniMalloc and
/// canonical search find hardest.
///
/// Errors: as [`perfect_packing`].
///
/// ```
/// use packing::{bound::live_bound, check::check, generator::pinwheel_packing};
/// let (p, tiling) = pinwheel_packing(3, 300, 1024, 1024, 1024)?;
/// assert_eq!((p.len(), p.capacity()), (300, Some(1 << 20)));
/// assert_eq!(live_bound(&p).peak, 1 << 20);
/// assert_eq!(tiling.peak(&p)?, 1 << 20);
/// assert!(check(&p, &tiling).is_empty());
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn pinwheel_packing(
    seed: u64,
    n: usize,
    width_cells: u64,
    span_cells: u64,
    grain: u64,
) -> Result<(Problem, Placement), PackError> {
    cut_rectangle(seed, n, width_cells, span_cells, grain, true)
}

/// The five rectangles of a pinwheel split of `(x, w, t, d)` (w, d ≥ 3), cut points drawn
/// from `rng`: `A` along the bottom, `B` up the right, `C` along the top, `D` up the left,
/// `E` in the middle.
fn pinwheel(rng: &mut SplitMix64, (x, w, t, d): Rect) -> [Rect; 5] {
    let x1 = 1 + rng.below(w - 2); // 1..=w-2
    let x2 = x1 + 1 + rng.below(w - 1 - x1); // x1+1..=w-1
    let t1 = 1 + rng.below(d - 2);
    let t2 = t1 + 1 + rng.below(d - 1 - t1);
    [
        (x, x2, t, t1),
        (x + x2, w - x2, t, t2),
        (x + x1, w - x1, t + t2, d - t2),
        (x, x1, t + t1, d - t1),
        (x + x1, x2 - x1, t + t1, t2 - t1),
    ]
}

/// The cutting of [`perfect_packing`] and [`pinwheel_packing`].
fn cut_rectangle(
    seed: u64,
    n: usize,
    width_cells: u64,
    span_cells: u64,
    grain: u64,
    pinwheels: bool,
) -> Result<(Problem, Placement), PackError> {
    let overflow = || PackError::Overflow {
        id: "perfect_packing".into(),
    };
    let width = width_cells.checked_mul(grain).ok_or_else(overflow)?;
    span_cells.checked_mul(grain).ok_or_else(overflow)?;
    let (w_cells, t_cells) = (width_cells, span_cells);
    let mut rng = SplitMix64::new(seed);
    let mut rects: Vec<Rect> = Vec::new();
    if w_cells > 0 && t_cells > 0 && n > 0 {
        rects.push((0, w_cells, 0, t_cells));
    }
    // Largest rectangles first; entries go stale when their rectangle is cut (checked).
    let area = |r: &Rect| u128::from(r.1) * u128::from(r.3);
    let mut largest: std::collections::BinaryHeap<(u128, usize)> = rects
        .iter()
        .enumerate()
        .map(|(i, r)| (area(r), i))
        .collect();
    while rects.len() < n {
        let random = usize::try_from(rng.below(rects.len() as u64)).unwrap_or(0);
        let cuttable = |i: usize| rects.get(i).is_some_and(|r| r.1 > 1 || r.3 > 1);
        let chosen = if rng.below(2) == 1 && cuttable(random) {
            Some(random)
        } else {
            loop {
                match largest.pop() {
                    Some((a, i)) if rects.get(i).is_some_and(|r| area(r) == a) => break Some(i),
                    Some(_) => continue,
                    None => break None,
                }
            }
        };
        let Some((i, &(x, w, t, d))) = chosen
            .filter(|&i| cuttable(i))
            .and_then(|i| rects.get(i).map(|r| (i, r)))
        else {
            break; // every rectangle is one cell
        };
        let roomy = w >= 3 && d >= 3 && rects.len() + 4 <= n;
        if pinwheels && roomy && (rects.len() == 1 || rng.below(2) == 0) {
            let [first, rest @ ..] = pinwheel(&mut rng, (x, w, t, d));
            if let Some(slot) = rects.get_mut(i) {
                *slot = first;
            }
            largest.push((area(&first), i));
            for piece in rest {
                largest.push((area(&piece), rects.len()));
                rects.push(piece);
            }
            continue;
        }
        // Cut across the side that is longer relative to the whole square.
        let across_width = if w > 1 && d > 1 {
            let (rw, rd) = (
                u128::from(w) * u128::from(t_cells),
                u128::from(d) * u128::from(w_cells),
            );
            let total = rw + rd;
            u128::from(rng.below(u64::try_from(total).unwrap_or(u64::MAX))) < rw
        } else {
            w > 1
        };
        let pieces = if across_width {
            let cut = 1 + rng.below(w - 1);
            [(x, cut, t, d), (x + cut, w - cut, t, d)]
        } else {
            let cut = 1 + rng.below(d - 1);
            [(x, w, t, cut), (x, w, t + cut, d - cut)]
        };
        if let Some(slot) = rects.get_mut(i) {
            *slot = pieces[0];
        }
        largest.push((area(&pieces[0]), i));
        largest.push((area(&pieces[1]), rects.len()));
        rects.push(pieces[1]);
    }
    // Program order must not give the cut away (first fit in (lower, offset) order finds it):
    // rectangles starting together are shuffled.
    let mut keyed: Vec<(u64, u64, Rect)> = rects
        .into_iter()
        .map(|r| (r.2, rng.next_u64(), r))
        .collect();
    keyed.sort_unstable();
    let mut buffers = Vec::with_capacity(keyed.len());
    let mut offsets = Vec::with_capacity(keyed.len());
    for (k, &(_, _, (x, w, t, d))) in keyed.iter().enumerate() {
        buffers.push(Buffer::new(
            k.to_string(),
            t * grain,
            (t + d) * grain,
            w * grain,
        )?);
        offsets.push(x * grain);
    }
    Ok((Problem::new(buffers, Some(width))?, Placement { offsets }))
}

/// A rectangle of a perfect packing, in grain cells: `(x, width, t, duration)`.
type Rect = (u64, u64, u64, u64);
