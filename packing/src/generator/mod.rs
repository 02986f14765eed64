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
//!   `LB = W` and the cut itself is an optimal placement. [`Kind::Pinwheel`]
//!   ([`pinwheel_packing`]) cuts with pinwheels too, so the tiling is not guillotine.
//!
//! - **Training steps** ([`training_trace`]): 20k–60k buffers of a network's forward and
//!   backward pass, weights live throughout and saved activations piling up to thousands live
//!   at once — the scale at which exact packers must stay bounded.
//!
//! Every generated problem keeps its live peak at or below its capacity, so it fits at LB
//! whenever a zero-fragmentation placement exists. The PRNG is SplitMix64, so instances are
//! the same on every platform. The GPU-shaped builder is in `gpu.rs`, the perfect packings in
//! `perfect.rs`, the training steps in `training.rs`.

mod gpu;
mod perfect;
mod training;

pub use perfect::{perfect_packing, pinwheel_packing, PERFECT_GRAIN, PERFECT_SIDE};
pub use training::training_trace;

use crate::{PackError, Problem};
use gpu::{Builder, Gemm};

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
    /// The same square cut with pinwheels ([`pinwheel_packing`]): not guillotine
    /// (optimum = LB = 2^20).
    Pinwheel,
}

impl Kind {
    /// Every kind, in declaration order.
    ///
    /// ```
    /// use packing::generator::Kind;
    /// assert_eq!(Kind::ALL.len(), 7);
    /// assert_eq!(Kind::ALL[0].name(), "smem_pipeline");
    /// ```
    pub const ALL: [Kind; 7] = [
        Kind::SmemPipeline,
        Kind::SmemPingPong,
        Kind::SmemChained,
        Kind::SmemMixed,
        Kind::Tmem,
        Kind::Perfect,
        Kind::Pinwheel,
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
            Kind::Pinwheel => "pinwheel",
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
            Kind::Perfect | Kind::Pinwheel => PERFECT_SIDE,
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
        Kind::Perfect | Kind::Pinwheel => {
            let cut = match kind {
                Kind::Pinwheel => pinwheel_packing,
                _ => perfect_packing,
            };
            let cells = PERFECT_SIDE / PERFECT_GRAIN;
            cut(seed, n, cells, cells, PERFECT_GRAIN).map(|(p, _)| p)
        }
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
/// of each SMEM kind, 8–40 buffers), 10 TMEM (4–24 buffers), 10 perfect packings (150–450
/// buffers) and 10 pinwheel packings (250–400 buffers).
///
/// ```
/// use packing::generator::{suite, Kind};
/// let s = suite();
/// assert_eq!(s.len(), 50);
/// assert_eq!(s.iter().filter(|i| i.kind == Kind::Perfect).count(), 10);
/// assert_eq!(s.iter().filter(|i| i.kind == Kind::Pinwheel).count(), 10);
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
    for seed in 1..=10u64 {
        out.push(Instance {
            kind: Kind::Pinwheel,
            seed,
            n: 250 + (seed as usize - 1) * 150 / 9,
        });
    }
    out
}
