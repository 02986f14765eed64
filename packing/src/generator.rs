//! Seeded, deterministic generators of GPU-shaped packing instances (no public suite has
//! them; see the static-packing reference, Tier G) and of perfect packings with a known
//! optimum (what MiniMalloc's "challenging" instances look like).
//!
//! - **SMEM** ([`Kind::SmemPipeline`], [`Kind::SmemPingPong`], [`Kind::SmemChained`],
//!   [`Kind::SmemMixed`]): capacity 227 KiB ([`SMEM_CAPACITY`], sm_90/sm_100 opt-in). GEMMs
//!   run one after another on an unrolled schedule: the A and B tiles of mainloop iteration `t`
//!   of a `k`-stage pipeline live over `[s + t, s + t + k)`, so `k` iterations overlap; tiles
//!   are multiples of 1 KiB, 1024-aligned (128B-swizzled TMA/WGMMA); epilogue tiles, mbarrier
//!   and reduction scratch are multiples of 128 B, 128-aligned. The stage count is CUTLASS's
//!   `StageCountAutoCarveout`: as many stages as fit beside everything else live, so instances
//!   are tight. The next GEMM's prologue loads overlap the previous epilogue. Chained matmuls
//!   keep the producer's output in SMEM for the consumer, and an A-stationary producer holds
//!   one big A tile that the consumer's double-buffered halves reuse (pypto's 64 KB → 2 × 32 KB).
//! - **TMEM** ([`Kind::Tmem`]): 512 columns ([`TMEM_CAPACITY`]); every allocation a power of
//!   two in `[32, 512]` columns, 32-aligned: double-buffered GEMM accumulators and
//!   Flash-Attention blocks (O accumulator, S tiles, softmax statistics).
//! - **Perfect packings** ([`Kind::Perfect`], [`perfect_packing`]): a `W × T` rectangle cut
//!   guillotine-style into `n` rectangles on a grain, so every instant is covered exactly once:
//!   `LB = W` and the cut itself is an optimal placement.
//!
//! Every generated problem keeps its live peak at or below its capacity, so it fits at LB
//! whenever a zero-fragmentation placement exists. The PRNG is SplitMix64, so instances are
//! the same on every platform.

use super::{Buffer, PackError, Placement, Problem};

/// H100/B200 opt-in shared memory per block (CUTLASS `sm90_smem_capacity_bytes`).
///
/// ```
/// assert_eq!(packing::generator::SMEM_CAPACITY, 227 * 1024);
/// ```
pub const SMEM_CAPACITY: u64 = 232_448;
/// Blackwell tensor memory columns per CTA.
///
/// ```
/// assert_eq!(packing::generator::TMEM_CAPACITY, 512);
/// ```
pub const TMEM_CAPACITY: u64 = 512;
/// Width and time span of [`Kind::Perfect`] instances: MiniMalloc's 2^20 × 2^20 square.
///
/// ```
/// use packing::generator::{Kind, PERFECT_SIDE};
/// assert_eq!(Kind::Perfect.capacity(), PERFECT_SIDE);
/// ```
pub const PERFECT_SIDE: u64 = 1 << 20;
/// Grain of [`Kind::Perfect`] instances: sizes and times are multiples of 1 KiB.
///
/// ```
/// use packing::generator::{generate, Kind, PERFECT_GRAIN};
/// let p = generate(Kind::Perfect, 2, 150)?;
/// assert!(p.buffers().iter().all(|b| b.size % PERFECT_GRAIN == 0 && b.lower % PERFECT_GRAIN == 0));
/// # Ok::<(), packing::PackError>(())
/// ```
pub const PERFECT_GRAIN: u64 = 1024;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and the same everywhere.
///
/// ```
/// use packing::generator::SplitMix64;
/// let mut a = SplitMix64::new(7);
/// let mut b = SplitMix64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// assert_eq!(SplitMix64::new(0).next_u64(), 0xE220A8397B1DCDAF);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    ///
    /// ```
    /// use packing::generator::SplitMix64;
    /// assert_ne!(SplitMix64::new(1).next_u64(), SplitMix64::new(2).next_u64());
    /// ```
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    ///
    /// ```
    /// use packing::generator::SplitMix64;
    /// let mut r = SplitMix64::new(3);
    /// assert_ne!(r.next_u64(), r.next_u64());
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform value in `[0, n)` (Lemire's multiply-shift; 0 when `n` is 0).
    ///
    /// ```
    /// use packing::generator::SplitMix64;
    /// let mut r = SplitMix64::new(9);
    /// assert!((0..100).all(|_| r.below(3) < 3));
    /// assert_eq!(r.below(0), 0);
    /// ```
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform element of `items` (None when empty).
    ///
    /// ```
    /// use packing::generator::SplitMix64;
    /// assert_eq!(SplitMix64::new(1).pick(&[5]), Some(5));
    /// assert_eq!(SplitMix64::new(1).pick::<u8>(&[]), None);
    /// ```
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        let k = self.below(items.len() as u64);
        items.get(usize::try_from(k).ok()?).copied()
    }
}

/// What [`generate`] builds.
///
/// ```
/// use packing::generator::{generate, Kind};
/// let p = generate(Kind::Tmem, 4, 10)?;
/// assert!(p.buffers().iter().all(|b| b.size.is_power_of_two() && (32..=512).contains(&b.size)));
/// # Ok::<(), packing::PackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// GEMMs in sequence, each a `k`-stage TMA pipeline (k = 2..7) plus epilogue and scratch.
    SmemPipeline,
    /// Double-buffered (k = 2) GEMMs whose epilogue subtiles ping-pong across the next
    /// mainloop.
    SmemPingPong,
    /// Chained matmuls: an A-stationary producer (one held A tile) whose output stays in SMEM
    /// for a double-buffered consumer.
    SmemChained,
    /// A random mix of the three SMEM patterns.
    SmemMixed,
    /// TMEM columns: double-buffered accumulators and Flash-Attention blocks.
    Tmem,
    /// A guillotine cut of the 2^20 × 2^20 square on a 1 KiB grain (optimum = LB = 2^20).
    Perfect,
}

impl Kind {
    /// Every kind, in declaration order.
    ///
    /// ```
    /// use packing::generator::Kind;
    /// assert_eq!(Kind::ALL.len(), 6);
    /// assert_eq!(Kind::ALL[0].name(), "smem_pipeline");
    /// ```
    pub const ALL: [Kind; 6] = [
        Kind::SmemPipeline,
        Kind::SmemPingPong,
        Kind::SmemChained,
        Kind::SmemMixed,
        Kind::Tmem,
        Kind::Perfect,
    ];

    /// The name used in file names: `smem_pipeline`, `tmem`, `perfect`, …
    ///
    /// ```
    /// use packing::generator::Kind;
    /// assert_eq!(Kind::SmemPingPong.name(), "smem_pingpong");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Kind::SmemPipeline => "smem_pipeline",
            Kind::SmemPingPong => "smem_pingpong",
            Kind::SmemChained => "smem_chained",
            Kind::SmemMixed => "smem_mixed",
            Kind::Tmem => "tmem",
            Kind::Perfect => "perfect",
        }
    }

    /// The capacity of the kind's instances: bytes, columns, or the perfect packing's width.
    ///
    /// ```
    /// use packing::generator::Kind;
    /// assert_eq!(Kind::SmemMixed.capacity(), 232_448);
    /// assert_eq!(Kind::Tmem.capacity(), 512);
    /// assert_eq!(Kind::Perfect.capacity(), 1 << 20);
    /// ```
    pub fn capacity(self) -> u64 {
        match self {
            Kind::Tmem => TMEM_CAPACITY,
            Kind::Perfect => PERFECT_SIDE,
            _ => SMEM_CAPACITY,
        }
    }
}

/// An instance of `n` buffers of `kind` from `seed`, with the kind's capacity. The same
/// arguments give the same problem on every platform; its live peak never exceeds the
/// capacity. A perfect packing with fewer grain cells than `n` has one buffer per cell.
///
/// Errors: none for valid arguments; a [`PackError`] would name a buffer the generator built
/// wrongly.
///
/// ```
/// use packing::{bound::live_bound, generator::{generate, Kind}};
/// let p = generate(Kind::SmemPipeline, 7, 24)?;
/// assert_eq!((p.len(), p.capacity()), (24, Some(232_448)));
/// assert!(live_bound(&p).peak <= 232_448);
/// assert!(p.buffers().iter().all(|b| b.size % 128 == 0 && b.alignment >= 128));
/// assert_eq!(p, generate(Kind::SmemPipeline, 7, 24)?);
/// let perfect = generate(Kind::Perfect, 1, 200)?;
/// assert_eq!(live_bound(&perfect).peak, 1 << 20);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn generate(kind: Kind, seed: u64, n: usize) -> Result<Problem, PackError> {
    // Mix the kind into the seed so that kinds with one seed are unrelated.
    let salt = Kind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u64;
    let mut rng = SplitMix64::new(seed ^ salt.wrapping_mul(0xA076_1D64_78BD_642F));
    match kind {
        Kind::Perfect => perfect_packing(
            seed,
            n,
            PERFECT_SIDE / PERFECT_GRAIN,
            PERFECT_SIDE / PERFECT_GRAIN,
            PERFECT_GRAIN,
        )
        .map(|(p, _)| p),
        Kind::Tmem => {
            let mut g = Builder::new(TMEM_CAPACITY, n);
            while !g.full() {
                if rng.below(2) == 0 {
                    g.tmem_gemm(&mut rng)?;
                } else {
                    g.tmem_attention(&mut rng)?;
                }
            }
            g.finish()
        }
        _ => {
            let mut g = Builder::new(SMEM_CAPACITY, n);
            while !g.full() {
                let pattern = match kind {
                    Kind::SmemMixed => {
                        rng.pick(&[Kind::SmemPipeline, Kind::SmemPingPong, Kind::SmemChained])
                    }
                    k => Some(k),
                };
                match pattern {
                    Some(Kind::SmemPingPong) => g.smem_gemm(&mut rng, Gemm::PingPong)?,
                    Some(Kind::SmemChained) => g.smem_chained(&mut rng)?,
                    _ => g.smem_gemm(&mut rng, Gemm::Pipelined)?,
                }
            }
            g.finish()
        }
    }
}

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

/// One instance of the committed suite: what to generate and the file it goes to.
///
/// ```
/// use packing::generator::{Instance, Kind};
/// let i = Instance { kind: Kind::SmemPipeline, seed: 7, n: 16 };
/// assert_eq!(i.file_name(), "smem_pipeline_s7.232448.csv");
/// assert_eq!(i.problem()?.capacity(), Some(232_448));
/// # Ok::<(), packing::PackError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instance {
    /// The generator.
    pub kind: Kind,
    /// Its seed.
    pub seed: u64,
    /// Number of buffers.
    pub n: usize,
}

impl Instance {
    /// MiniMalloc-style name carrying the capacity: `smem_pipeline_s7.232448.csv`.
    ///
    /// ```
    /// use packing::generator::{Instance, Kind};
    /// let i = Instance { kind: Kind::Tmem, seed: 3, n: 12 };
    /// assert_eq!(i.file_name(), "tmem_s3.512.csv");
    /// ```
    pub fn file_name(&self) -> String {
        format!(
            "{}_s{}.{}.csv",
            self.kind.name(),
            self.seed,
            self.kind.capacity()
        )
    }

    /// The problem: [`generate`]`(kind, seed, n)`.
    ///
    /// ```
    /// use packing::generator::{Instance, Kind};
    /// assert_eq!(Instance { kind: Kind::Tmem, seed: 3, n: 12 }.problem()?.len(), 12);
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn problem(&self) -> Result<Problem, PackError> {
        generate(self.kind, self.seed, self.n)
    }
}

/// The committed suite (`packing/tests/data/generated/`): 20 SMEM instances (five
/// of each SMEM kind, 8–40 buffers), 10 TMEM (4–24 buffers) and 10 perfect packings (150–450
/// buffers).
///
/// ```
/// use packing::generator::{suite, Kind};
/// let s = suite();
/// assert_eq!(s.len(), 40);
/// assert_eq!(s.iter().filter(|i| i.kind == Kind::Perfect).count(), 10);
/// ```
pub fn suite() -> Vec<Instance> {
    let mut out = Vec::new();
    let smem = [
        Kind::SmemPipeline,
        Kind::SmemPingPong,
        Kind::SmemChained,
        Kind::SmemMixed,
    ];
    for (k, &kind) in smem.iter().enumerate() {
        for seed in 1..=5u64 {
            let n = 8 + (k * 5 + seed as usize - 1) * 32 / 19;
            out.push(Instance { kind, seed, n });
        }
    }
    for seed in 1..=10u64 {
        out.push(Instance {
            kind: Kind::Tmem,
            seed,
            n: 4 + (seed as usize - 1) * 20 / 9,
        });
    }
    for seed in 1..=10u64 {
        out.push(Instance {
            kind: Kind::Perfect,
            seed,
            n: 150 + (seed as usize - 1) * 300 / 9,
        });
    }
    out
}

/// How a GEMM's operands are buffered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gemm {
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
struct Builder {
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
    fn new(capacity: u64, n: usize) -> Builder {
        Builder {
            capacity,
            n,
            buffers: Vec::new(),
            recent: Vec::new(),
            clock: 0,
            blocks: 0,
        }
    }

    fn full(&self) -> bool {
        self.buffers.len() >= self.n
    }

    fn finish(mut self) -> Result<Problem, PackError> {
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
    fn smem_gemm(&mut self, rng: &mut SplitMix64, style: Gemm) -> Result<(), PackError> {
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
    fn smem_chained(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
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
    fn tmem_gemm(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
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
    fn tmem_attention(&mut self, rng: &mut SplitMix64) -> Result<(), PackError> {
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
