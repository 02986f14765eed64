//! GPU-shaped instances: GEMM pipelines, ping-pong and chained GEMMs in shared memory,
//! accumulators and attention blocks in tensor memory, appended block by block on a clock
//! while every instant's live total stays within the capacity.

use super::SplitMix64;
use crate::{Buffer, PackError, Problem};

/// How a GEMM's operands are buffered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gemm {
    /// `k` stages, as many as fit (2..=7).
    Pipelined,
    /// Two stages, epilogue subtiles ping-ponging into the next mainloop.
    PingPong,
}

const KIB: u64 = 1024;
/// An mbarrier array (8 B per stage and phase) rounded up to Triton's 128 B scratch grain.
const BARRIERS: u64 = 128;

/// A buffer of a block being planned.
#[derive(Debug, Clone)]
struct Planned {
    id: String,
    lower: u64,
    upper: u64,
    size: u64,
    align: u64,
}

fn planned(id: String, lower: u64, upper: u64, size: u64, align: u64) -> Planned {
    Planned {
        id,
        lower,
        upper,
        size,
        align,
    }
}

/// Appends blocks of buffers on a clock, each only if every instant's live total stays within
/// the capacity, and stops at `n` buffers.
pub(super) struct Builder {
    capacity: u64,
    n: usize,
    buffers: Vec<Buffer>,
    /// Committed buffers that may still be live at or after `clock`: (lower, upper, size).
    recent: Vec<(u64, u64, u64)>,
    /// Where the last block started (never decreases).
    clock: u64,
    /// Number of blocks so far (for ids).
    blocks: usize,
}

impl Builder {
    pub(super) fn new(capacity: u64, n: usize) -> Builder {
        Builder {
            capacity,
            n,
            buffers: Vec::new(),
            recent: Vec::new(),
            clock: 0,
            blocks: 0,
        }
    }

    pub(super) fn full(&self) -> bool {
        self.buffers.len() >= self.n
    }

    pub(super) fn finish(mut self) -> Result<Problem, PackError> {
        self.buffers.truncate(self.n);
        Problem::new(self.buffers, Some(self.capacity))
    }

    /// End of everything committed so far.
    fn horizon(&self) -> u64 {
        self.recent
            .iter()
            .map(|&(_, u, _)| u)
            .max()
            .unwrap_or(self.clock)
    }

    /// A start overlapping the tail of the previous block by up to `overlap` steps.
    fn overlapped_start(&self, overlap: u64) -> u64 {
        self.horizon().saturating_sub(overlap).max(self.clock)
    }

    /// The live peak of the committed buffers together with `plan`.
    fn peak_with(&self, plan: &[Planned]) -> u64 {
        let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * plan.len());
        let from = plan.iter().map(|p| p.lower).min().unwrap_or(0);
        let live = self.recent.iter().filter(|&&(_, u, _)| u > from);
        for (l, u, s) in live
            .copied()
            .chain(plan.iter().map(|p| (p.lower, p.upper, p.size)))
        {
            events.push((l, true, s));
            events.push((u, false, s));
        }
        events.sort_unstable_by_key(|&(t, start, _)| (t, start));
        let (mut live, mut peak) = (0u64, 0u64);
        for (_, start, s) in events {
            if start {
                live = live.saturating_add(s);
                peak = peak.max(live);
            } else {
                live = live.saturating_sub(s);
            }
        }
        peak
    }

    fn fits(&self, plan: &[Planned]) -> bool {
        self.peak_with(plan) <= self.capacity
    }

    /// Commits a block starting at `start`, up to the buffer limit.
    fn commit(&mut self, start: u64, plan: Vec<Planned>) -> Result<(), PackError> {
        self.clock = self.clock.max(start);
        let clock = self.clock;
        self.recent.retain(|&(_, u, _)| u > clock);
        self.blocks += 1;
        for p in plan {
            if self.full() {
                break;
            }
            self.buffers
                .push(Buffer::new(p.id, p.lower, p.upper, p.size)?.aligned(p.align)?);
            self.recent.push((p.lower, p.upper, p.size));
        }
        Ok(())
    }

    /// One GEMM: `k` stages of A/B tiles (iteration `t` live over `[start + t, start + t + k)`),
    /// an mbarrier array, an epilogue tile (or 2–4 ping-pong subtiles), sometimes reduction
    /// scratch; overlapping the previous block's tail. Among the tile shapes, those whose
    /// pipeline fills the most of the room (as many stages as fit, CUTLASS-style) are drawn.
    pub(super) fn smem_gemm(&mut self, rng: &mut SplitMix64, style: Gemm) -> Result<(), PackError> {
        let elem = rng.pick(&[1u64, 2, 2]).unwrap_or(2);
        let max_stages = match style {
            Gemm::Pipelined => 2 + rng.below(6),
            Gemm::PingPong => 2,
        };
        let subtiles = match style {
            Gemm::Pipelined => 1,
            Gemm::PingPong => 2 + rng.below(3),
        };
        let epi_n = rng.pick(&[32u64, 64]).unwrap_or(32);
        let out_elem = rng.pick(&[2u64, 2, 4]).unwrap_or(2);
        let scratch = if rng.below(3) == 0 {
            128 * (1 + rng.below(16))
        } else {
            0
        };
        let extra_iters = rng.below(4);
        // Iterations the remaining buffer count leaves room for (two tiles each).
        let remaining = self.n.saturating_sub(self.buffers.len()) as u64;
        let visible_iters = (remaining.saturating_sub(1) / 2).max(1);
        let g = format!("g{}", self.blocks);
        let mut start = self.overlapped_start(1 + rng.below(4));
        loop {
            // (fill, plan) per tile shape with the most stages that fit.
            let mut options: Vec<(u64, Vec<Planned>)> = Vec::new();
            for bm in [64u64, 128, 256] {
                for bn in [64u64, 128, 256] {
                    for bk in [32u64, 64, 128] {
                        let (a, b) = (bm * bk * elem, bn * bk * elem);
                        let epi = bm * epi_n.min(bn) * out_elem;
                        for stages in (2..=max_stages).rev() {
                            let iters = stages + extra_iters;
                            let plan = gemm_plan(
                                &g,
                                start,
                                iters,
                                stages,
                                (a, b),
                                (epi, subtiles),
                                scratch,
                            );
                            if self.fits(&plan) {
                                let fill = stages.min(visible_iters) * (a + b);
                                options.push((fill, plan));
                                break;
                            }
                        }
                    }
                }
            }
            let best = options.iter().map(|o| o.0).max().unwrap_or(0);
            let good: Vec<usize> = (0..options.len())
                .filter(|&i| options.get(i).is_some_and(|o| 10 * o.0 >= 9 * best))
                .collect();
            let chosen = rng
                .pick(&good)
                .and_then(|i| (i < options.len()).then(|| options.swap_remove(i)));
            match chosen {
                Some((_, plan)) => return self.commit(start, plan),
                None if start < self.horizon() => start = self.horizon(),
                // Nothing fits even alone: the block is dropped (cannot happen at 227 KiB).
                None => return self.commit(start, Vec::new()),
            }
        }
    }

    /// Chained matmuls (pypto's case): an A-stationary producer holds one A tile for its whole
    /// mainloop and streams double-buffered B; its output D stays in SMEM for the consumer,
    /// a double-buffered GEMM whose A tiles (half the held tile each) reuse the freed space.
    pub(super) fn smem_chained(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
        let held = rng
            .pick(&[32 * KIB, 64 * KIB, 64 * KIB, 96 * KIB])
            .unwrap_or(64 * KIB);
        let b_tile = rng.pick(&[8 * KIB, 16 * KIB, 32 * KIB]).unwrap_or(16 * KIB);
        let d_size = rng
            .pick(&[16 * KIB, 32 * KIB, 64 * KIB])
            .unwrap_or(32 * KIB);
        let epi = rng.pick(&[8 * KIB, 16 * KIB]).unwrap_or(16 * KIB);
        let (iters, citers) = (2 + rng.below(5), 2 + rng.below(4));
        let (p, c) = (self.blocks, self.blocks + 1);
        let mut start = self.overlapped_start(1 + rng.below(2));
        loop {
            let end = start + iters + 1;
            let cend = end + citers + 1;
            let mut plan = vec![planned(format!("g{p}.held_a"), start, end, held, KIB)];
            for t in 0..iters {
                plan.push(planned(
                    format!("g{p}.b{t}"),
                    start + t,
                    start + t + 2,
                    b_tile,
                    KIB,
                ));
            }
            plan.push(planned(format!("g{p}.d"), end - 1, cend, d_size, KIB));
            for t in 0..citers {
                let (lower, upper) = (end + t, end + t + 2);
                plan.push(planned(format!("g{c}.a{t}"), lower, upper, held / 2, KIB));
            }
            plan.push(planned(format!("g{c}.epi"), cend - 1, cend + 1, epi, KIB));
            if self.fits(&plan) || start >= self.horizon() {
                self.blocks += 1; // the consumer's number
                return self.commit(start, plan);
            }
            start = self.horizon();
        }
    }

    /// A persistent GEMM on Blackwell: double-buffered accumulators, tile `j` live while the
    /// MMA of `j + 1` runs.
    pub(super) fn tmem_gemm(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
        let tiles = 2 + rng.below(5);
        let first = rng.pick(&[64u64, 128, 256]).unwrap_or(128);
        let g = format!("g{}", self.blocks);
        let mut start = self.overlapped_start(1 + rng.below(2));
        loop {
            let mut cols = first;
            while cols >= 32 {
                let plan: Vec<Planned> = (0..tiles)
                    .map(|j| planned(format!("{g}.acc{j}"), start + j, start + j + 2, cols, 32))
                    .collect();
                if self.fits(&plan) || (cols == 32 && start >= self.horizon()) {
                    return self.commit(start, plan);
                }
                cols /= 2;
            }
            start = self.horizon();
        }
    }

    /// A Flash-Attention forward block: the O accumulator and row statistics for the whole
    /// block, one S tile per KV step overlapping the next (QK of `i + 1` while softmax of
    /// `i`), and a 32-column correction tile per step.
    pub(super) fn tmem_attention(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
        let steps = 2 + rng.below(4);
        let o_first = rng.pick(&[64u64, 128, 256]).unwrap_or(128);
        let s_cols = rng.pick(&[64u64, 128]).unwrap_or(128);
        let a = format!("a{}", self.blocks);
        let mut start = self.overlapped_start(1 + rng.below(2));
        loop {
            let mut o_cols = o_first;
            while o_cols >= 32 {
                let end = start + steps + 1;
                let mut plan = vec![
                    planned(format!("{a}.o"), start, end, o_cols, 32),
                    planned(format!("{a}.stats"), start, end, 32, 32),
                ];
                for i in 0..steps {
                    plan.push(planned(
                        format!("{a}.s{i}"),
                        start + i,
                        start + i + 2,
                        s_cols,
                        32,
                    ));
                    let (lower, upper) = (start + i + 1, start + i + 2);
                    plan.push(planned(format!("{a}.alpha{i}"), lower, upper, 32, 32));
                }
                if self.fits(&plan) || (o_cols == 32 && start >= self.horizon()) {
                    return self.commit(start, plan);
                }
                o_cols /= 2;
            }
            start = self.horizon();
        }
    }
}

/// The buffers of one GEMM block (ids prefixed `g`), in creation order: barriers, then A and
/// B per iteration, the reduction scratch, the epilogue tiles.
fn gemm_plan(
    g: &str,
    start: u64,
    iters: u64,
    stages: u64,
    (a, b): (u64, u64),
    (epi, subtiles): (u64, u64),
    scratch: u64,
) -> Vec<Planned> {
    let main_end = start + iters + stages - 1;
    let mut plan = vec![planned(
        format!("{g}.bar"),
        start,
        main_end + 1,
        BARRIERS,
        128,
    )];
    for t in 0..iters {
        let (lower, upper) = (start + t, start + t + stages);
        plan.push(planned(format!("{g}.a{t}"), lower, upper, a, KIB));
        plan.push(planned(format!("{g}.b{t}"), lower, upper, b, KIB));
    }
    if scratch > 0 {
        plan.push(planned(
            format!("{g}.red"),
            main_end - 1,
            main_end + 1,
            scratch,
            128,
        ));
    }
    for s in 0..subtiles {
        let lower = main_end - 1 + s;
        plan.push(planned(format!("{g}.epi{s}"), lower, lower + 2, epi, KIB));
    }
    plan
}
