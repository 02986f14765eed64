//! [`training_trace`]: seeded buffer traces of one training step of a deep network, the shape
//! of the real traces of 20k–60k buffers on which exact packers run away (thousands of buffers
//! live at once).
//!
//! The step is `layers` blocks run forward then backward, one time unit per operator:
//! - **weights**, one to four per block, live the whole step;
//! - **forward**: each block runs `ops` operators; every operator's output lives one to three
//!   units (a temporary), and one or two of a block's outputs are *saved* for the backward
//!   pass, living until the block's backward operators run — so saved activations pile up to
//!   the turn of the step;
//! - **backward**: blocks in reverse, each operator's gradient temporary living one to three
//!   units, and each weight's gradient living from its block's backward pass to the optimizer
//!   at the end of the step.
//!
//! Sizes are multiples of 512 bytes, log-uniform from 4 KiB to 64 MiB for activations and
//! from 64 KiB to 256 MiB for weights (and their gradients), with 512-byte alignment. The
//! problem has no capacity: a trace asks for the lowest peak.

use super::SplitMix64;
use crate::{Buffer, PackError, Problem};

/// A log-uniform multiple of 512 between `2^lo` and `2^hi` bytes.
fn size(rng: &mut SplitMix64, lo: u64, hi: u64) -> u64 {
    let e = lo + rng.below(hi - lo + 1);
    let base = 1u64 << e;
    (base + rng.below(base)) / 512 * 512
}

/// About `n` buffers (within 10 %: blocks hold 17 on average) of a training
/// step from `seed`; see the module docs. The same arguments give the same trace everywhere.
///
/// Errors: none for valid arguments; a [`PackError`] would name a buffer built wrongly.
///
/// ```
/// use packing::{bound::live_bound, generator::training_trace};
/// let p = training_trace(3, 2000)?;
/// assert!((1800..2200).contains(&p.len()));
/// assert_eq!(p, training_trace(3, 2000)?);
/// // Saved activations pile up: hundreds of buffers are live at the turn of the step.
/// let live_at_turn = |p: &packing::Problem| {
///     let t = p.buffers().iter().map(|b| b.upper).max().unwrap_or(0) / 2;
///     p.buffers().iter().filter(|b| b.lower <= t && t < b.upper).count()
/// };
/// assert!(live_at_turn(&p) > 200);
/// assert!(live_bound(&p).peak > 0);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn training_trace(seed: u64, n: usize) -> Result<Problem, PackError> {
    let mut rng = SplitMix64::new(seed ^ 0x7261_696E_696E_6721);
    // Per block: weights + ops forward temporaries + backward temporaries + weight grads.
    let ops = 6;
    let per_block = 2 * ops + 5;
    let layers = n.div_ceil(per_block).max(1) as u64;
    struct Block {
        weights: Vec<u64>,
        saved: Vec<(u64, u64)>,
    }
    let mut blocks = Vec::new();
    let mut buffers = Vec::new();
    let mut t = 0u64;
    let mut name = 0usize;
    let mut push = |buffers: &mut Vec<Buffer>, start: u64, end: u64, size: u64| {
        name += 1;
        Buffer::new(format!("b{name}"), start, end, size)
            .and_then(|b| b.aligned(512))
            .map(|b| buffers.push(b))
    };
    // Forward.
    for _ in 0..layers {
        let weights: Vec<u64> = (0..1 + rng.below(4))
            .map(|_| size(&mut rng, 16, 28))
            .collect();
        let mut saved = Vec::new();
        let keep = 1 + rng.below(2);
        for op in 0..ops {
            let s = size(&mut rng, 12, 26);
            if (op as u64) >= ops as u64 - keep {
                saved.push((t, s));
            } else {
                push(&mut buffers, t, t + 1 + rng.below(3), s)?;
            }
            t += 1;
        }
        blocks.push(Block { weights, saved });
    }
    // Backward, blocks in reverse; weight gradients live to the optimizer.
    let backward_start = t;
    let end = backward_start + layers * ops as u64 + 1;
    for block in blocks.iter().rev() {
        for (start, s) in &block.saved {
            push(&mut buffers, *start, t + 1 + rng.below(ops as u64), *s)?;
        }
        for _ in 0..ops {
            push(
                &mut buffers,
                t,
                t + 1 + rng.below(3),
                size(&mut rng, 12, 26),
            )?;
            t += 1;
        }
        for &w in &block.weights {
            push(&mut buffers, t.saturating_sub(1), end, w)?;
        }
    }
    for block in &blocks {
        for &w in &block.weights {
            push(&mut buffers, 0, end, w)?;
        }
    }
    Problem::new(buffers, None)
}
