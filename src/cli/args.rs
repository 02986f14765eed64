//! Command-line arguments, declared with clap's derive API.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// GF(2) linear layouts, TLX storage aliasing and PTX address generation for GPU kernel compilers.
#[derive(Debug, Parser)]
#[command(name = "linalias", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes of every command (the README and `docs/cli.md` show the same table;
/// `tests/exit_codes.rs` drives each command through each code).
pub const EXIT_CODES: &str = "\
Exit codes, for every command:
  0  done: printed, planned, packed within the capacity; check: every pair verified
     (--every-trip-count, --every-tile-count: at every trip or tile count)
  1  read and refused: an operation refused the layouts, the planner refused the program, it
     does not fit (plan, pack: the report is printed, what does not fit last), check found a
     hazard or a protocol fault (--every-trip-count, --every-tile-count: at some count)
  2  an unreadable or invalid file or argument
  3  check only: no hazard found, but something it cannot decide";

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect and combine linear layouts (Triton semantics).
    Layout(LayoutArgs),
    /// Plan the storage_alias_specs and allocations of a TOML plan file or of a kernel's TTGIR
    /// (TLX's storage_alias_spec / local_alloc / reuse_group): regions, buffer maps, index
    /// rewrites, buffer starts, the memory map, warnings and the independent checker's verdict.
    Plan(PlanArgs),
    /// Pack buffers with known lifetimes into one arena (a MiniMalloc CSV): offsets per
    /// buffer, peak, lower bound, peak ÷ LB, time, and whether the peak is proved optimal.
    Pack(PackArgs),
    /// Print the PTX kernel that stores a register layout to a shared-memory layout (or loads
    /// it, or both: a layout conversion through shared memory), with the address arithmetic
    /// of the codegen emitter; ptxas accepts it for sm_90a.
    Ptx(PtxArgs),
    /// Run a PTX kernel (the subset the interpreter reads) for one CTA, every pointer
    /// parameter a zeroed buffer, and print the shared-memory counters an H100 would report
    /// (Nsight Compute's metric names), in total and per shared-memory instruction. Each PTX
    /// access counts as one hardware access unless nothing uses its result (ptxas deletes
    /// it); ptxas merging or narrowing accesses is not modelled.
    PtxCost(PtxCostArgs),
    /// Check the synchronisation of every aliased buffer of a warp-specialized kernel (TTGIR
    /// before the storage-alias lowering): each pair of accesses to the same bytes of shared
    /// memory or cells of tensor memory, one a write, is verified ordered by the kernel's
    /// mbarriers, commits and named barriers, or shown racing by a replayed execution.
    Check(CheckArgs),
}

/// `linalias check …`.
#[derive(Debug, Args)]
#[command(after_help = CHECK_HELP)]
pub struct CheckArgs {
    /// The kernel's TTGIR (before tlx-storage-alias-lowering), or - to read stdin.
    #[arg(value_name = "KERNEL.mlir")]
    pub kernel: std::path::PathBuf,
    /// Whose placement the footprints follow: TLX's (fbtriton 3.7.4) or the intended one.
    #[arg(long, value_enum, default_value_t = PlanMode::Tlx)]
    pub mode: PlanMode,
    /// An integer parameter of the kernel, e.g. `--param N_CTX=512` (default: a loop bound
    /// 4 laps of its step, or R + 1 where a ring of R barriers is longer; any other 1; see
    /// --sweep).
    #[arg(long, value_name = "NAME=V", value_parser = parse_param::<i64>)]
    pub param: Vec<(String, i64)>,
    /// Also run N random executions (seeded) and report what they run into: every race and
    /// hang they find is real, and none may contradict a verified pair.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub sample: usize,
    /// Draw the first hazard's witness (or a hang) as swimlanes: partitions and engines over
    /// time, the racing accesses, the missing wait.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// The offsets an integer array read by a scalar load holds (`cu_seqlens`): element i is
    /// i · N (default: 4 laps of the loops such a length bounds, R + 1 where a ring of R
    /// barriers is longer; see --sweep).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = |s: &str| parse_at_least(s, 1))]
    pub seq_stride: Option<i64>,
    /// The tile the CTA starts on: what `tt.get_program_id` gives (default 0). Loops bounded
    /// by the tile position (a causal kernel's `start_m`) run its trip counts; the tiles must
    /// lie in the launch the parameters give (docs/hazard-check.md, Loops).
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = |s: &str| parse_at_least(s, 0))]
    pub program_id: i64,
    /// What `tt.get_num_programs` gives (default 1): where a persistent loop steps and the
    /// first tile a CLC `try_cancel` hands out (then the next).
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true, value_parser = |s: &str| parse_at_least(s, 1))]
    pub num_programs: i64,
    /// How many tiles a CLC `try_cancel` hands out before it answers none (default 2: three
    /// tiles a CTA). Tile t starts its loops at t times their trip count: every start modulo
    /// the rings' period needs up to that many tiles (docs/hazard-check.md, Loops).
    #[arg(long, value_name = "N", default_value_t = 2, allow_negative_numbers = true, value_parser = |s: &str| parse_at_least(s, 0))]
    pub clc_tiles: i64,
    /// The most events one read of the kernel may hold (default 20000); a longer trace is not
    /// decided (exit 3). The proofs read the kernel up to a few periods of laps or tiles past
    /// the sweep's: raise it to prove a persistent kernel at a longer K loop (docs/hazard-check.md,
    /// Every tile count).
    #[arg(long, value_name = "N", default_value_t = 20_000, allow_negative_numbers = true, value_parser = |s: &str| parse_at_least(s, 1))]
    pub max_events: i64,
    /// Check every residue of the loops' trip counts modulo the period of the kernel's ring
    /// slots and phases (lcm of 2 and 2R for each ring of R barriers): each parameter that
    /// bounds a loop and is not given runs that many consecutive trip counts.
    #[arg(long)]
    pub sweep: bool,
    /// Decide every trip count at once: the kernel read lap by lap as its loop run forever
    /// (at most one loop a partition, a parameter bounding it and left free), every
    /// interleaving explored over every trip count from the least it decides and at each one
    /// below (docs/hazard-check.md, Every trip count). Exit 0 verified at every trip count, 1
    /// one goes wrong, 2 a --param fixing the bound, 3 not decided.
    #[arg(long, conflicts_with_all = ["sweep", "svg", "sample"])]
    pub every_trip_count: bool,
    /// Decide every tile count at once: a persistent kernel (a tile loop around its K loop in
    /// every partition) with its K loop's bound as --param gives it (default: the sweep's
    /// first), one lap a tile, every number of tiles a CTA runs (set by clc_tiles or a free
    /// parameter, `H`; --clc-tiles and --num-programs are the proof's to choose, its first
    /// line says which) explored as --every-trip-count explores laps (docs/hazard-check.md,
    /// Every tile count). Exit codes as --every-trip-count.
    #[arg(long, conflicts_with_all = ["sweep", "svg", "sample", "every_trip_count"])]
    pub every_tile_count: bool,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

const CHECK_HELP: &str = "\
The kernel runs on its integer arithmetic for the parameters given (slot indices, phases,
predicates, loop bounds); an op outside the model or a value the synchronisation depends on
that cannot be computed is named, never guessed (docs/hazard-check.md).
Exit codes: 0 every pair verified, 1 a hazard or a protocol fault (a wait that never completes,
tx bytes that differ from barrier_expect, an arrival past its phase, a phase left open), 2 an
unreadable file or argument, 3 no hazard but something the check cannot decide (an op outside
the model, a pair left unknown). With --every-trip-count: 0 verified at every trip count, 1 some
trip count goes wrong, 2 also a --param fixing the loops' bound, 3 not decided (a kernel outside
the model, the explorer stopped). With --every-tile-count the same of every tile count.";

/// `linalias ptx-cost …`.
#[derive(Debug, Args)]
pub struct PtxCostArgs {
    /// The PTX file (one `.entry`), or - to read stdin.
    #[arg(value_name = "KERNEL")]
    pub kernel: std::path::PathBuf,
    /// Threads of the CTA (default: the kernel's `.reqntid`).
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// Dynamic shared memory of the launch in bytes (default: what an H100 CTA may have, 227
    /// KiB, less the kernel's static `.shared` variables).
    #[arg(long, value_name = "BYTES")]
    pub dynamic_shared: Option<u32>,
    /// Bytes of each zeroed global buffer (a pointer parameter), at most 1 GiB.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub buffer_bytes: usize,
    /// A `.u32` parameter's value (default 0), e.g. `--param index=3`.
    #[arg(long, value_name = "NAME=V", value_parser = parse_param::<u32>)]
    pub param: Vec<(String, u32)>,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `NAME=V` with a value of type `T` (`u32` for `ptx-cost`, `i64` for `check`).
fn parse_param<T: std::str::FromStr>(s: &str) -> Result<(String, T), String>
where
    T::Err: std::fmt::Display,
{
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected NAME=VALUE"))?;
    let value = value
        .trim()
        .parse::<T>()
        .map_err(|e| format!("{value:?}: {e}"))?;
    Ok((name.trim().to_string(), value))
}

/// `linalias pack …`.
#[derive(Debug, Args)]
#[command(after_help = PACK_HELP)]
pub struct PackArgs {
    /// The buffers, as MiniMalloc CSV (`id,lower,upper,size[,alignment][,offset]`, lifetimes
    /// half-open `[lower, upper)`; MiniMalloc's own column names `buffer,start,end` are read
    /// too, `end` inclusive), or - to read stdin.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// The arena size (default: the number in the file name, `a.6.csv` → 6; none: minimise
    /// the peak only).
    #[arg(long, value_name = "N")]
    pub capacity: Option<u64>,
    /// Time budget of the exact solver, in milliseconds.
    #[arg(long, value_name = "T", default_value_t = 1_000)]
    pub budget_ms: u64,
    /// Instead of the time budget, stop the exact search after N nodes: the same answer on
    /// every machine and every run (for reproducible results).
    #[arg(long, value_name = "N", conflicts_with = "budget_ms")]
    pub max_nodes: Option<u64>,
    /// The packer.
    #[arg(long, value_enum, default_value_t = PackAlgo::Exact)]
    pub algo: PackAlgo,
    /// Write the placement as an SVG time × offset chart to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// Write the placement as MiniMalloc CSV (an `offset` column added) to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Print the result as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

const PACK_HELP: &str = "\
Every placement is verified by an independent checker (alignment, fixed offsets, no overlap of
buffers live at the same time). \"proved optimal\" means the peak equals the live lower bound
or the exact solver exhausted the search below it. The chart and the CSV are written even when
the placement does not fit, to show where it overflows.
Exit codes: 0 packed within the capacity, 1 it does not fit (the report is printed, then the
diagnosis and what to change), 2 an unreadable or invalid file or argument.";

/// `--algo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PackAlgo {
    /// Branch and bound from the greedy incumbent, to a proof of optimality or the budget.
    Exact,
    /// PTOAS-style: program order, each buffer at the lowest offset free over its lifetime.
    FirstFit,
    /// TFLite-style: largest first, each into the smallest gap that holds it.
    BestFit,
}

/// `linalias ptx …`.
#[derive(Debug, Args)]
#[command(after_help = PTX_HELP)]
pub struct PtxArgs {
    /// The register layout (`register, lane, warp` in-dims, or a distributed attribute).
    #[arg(long, value_name = "LAYOUT")]
    pub regs: String,
    /// The shared-memory layout (`offset` in-dim, or a shared attribute); `auto` with
    /// --round-trip and --dtype: the scratch Triton 3.9 would convert through (its
    /// `optimalSwizzling`), in its rounds; `auto-hw`: among the scratches Triton weighs, the
    /// one with the fewest shared wavefronts on an H100 (the cost model's).
    #[arg(long, value_name = "LAYOUT")]
    pub mem: String,
    /// Tensor shape for layout-family attributes, e.g. `64x64`.
    #[arg(long, value_name = "D0xD1…", value_parser = parse_shape)]
    pub shape: Option<Shape>,
    /// Store the registers to shared memory (the default).
    #[arg(long, conflicts_with_all = ["load", "round_trip"])]
    pub store: bool,
    /// Load the registers from shared memory.
    #[arg(long, conflicts_with = "round_trip")]
    pub load: bool,
    /// Store --regs, bar.sync, then load the tile back through this register layout (a
    /// layout conversion through shared memory).
    #[arg(long, value_name = "LAYOUT")]
    pub round_trip: Option<String>,
    /// With --round-trip: convert in rounds through at most this many bytes of scratch, as
    /// Triton does for large tiles (round bits: tensor bits both register layouts hold in
    /// registers and --mem in its highest offsets).
    #[arg(long, value_name = "BYTES", requires = "round_trip")]
    pub max_scratch_bytes: Option<u64>,
    /// Element type: f16, bf16, f32, f8e4m3, f8e5m2, i8, i16, i32… (default: an NVMMA
    /// attribute's elementBitWidth, else 16 bits). 8-, 16- and 32-bit elements are emitted.
    #[arg(long, value_name = "DTYPE")]
    pub dtype: Option<String>,
    /// Buffers of the allocation, each starting on the layout's alignment.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub buffers: u64,
    /// The buffer accessed: a constant (folded into the immediates) or `runtime` (a `.u32`
    /// kernel parameter `index`).
    #[arg(long, value_name = "I|runtime", default_value = "0", value_parser = parse_index)]
    pub index: IndexArg,
    /// How the buffer part of the address is computed.
    #[arg(long, value_enum, default_value_t = Lowering::Explicit)]
    pub lowering: Lowering,
    /// TLX's reindexing `slot = SCALE·i + OFFSET + i mod GROUP` for `--lowering tlx` (slots of
    /// one buffer's stride).
    #[arg(long, value_name = "SCALE,OFFSET,GROUP", default_value = "1,0,1", value_parser = parse_tlx)]
    pub tlx: [u64; 3],
    /// The kernel's name (default store_tile, load_tile or round_trip): a PTX identifier.
    #[arg(long, value_name = "NAME", value_parser = parse_kernel_name)]
    pub name: Option<String>,
    /// After the kernel, comment lines with the accesses and address instructions of each
    /// emission and of the kernel.
    #[arg(long)]
    pub stats: bool,
    /// Triton's benchmark kernel, like for like: the tile comes from `.param .u64 in_ptr`
    /// and goes to `out_ptr`, row-major tensors in global memory (as Gluon's
    /// `gl.load(in_ptr + rows[:, None] * N + cols[None, :])`), and stays packed as loaded.
    /// One buffer, index 0, explicit lowering.
    #[arg(long)]
    pub global: bool,
}

const PTX_HELP: &str = "\
LAYOUT arguments are read as for `linalias layout` (inline, @FILE or -; JSON, #ttg.linear,
#ttg.shared_linear or a layout family with --shape).
The kernel declares `.extern .shared .align 1024 .b8 smem[]` and `.param .u64 out` (a store
reads each thread's registers from it, a load writes them; a round trip stores each element's
linear index and writes what it loads), plus `.param .u32 index` for --index runtime; with
--global, `.param .u64 in_ptr, out_ptr, global_scratch, profile_scratch` as Triton 3.9's kernels.
Exit codes: 0 success, 1 the emitter refused the layouts, 2 bad arguments.";

/// `--index`: a constant buffer or the run-time parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexArg {
    /// This buffer.
    Const(u64),
    /// `.param .u32 index`.
    Runtime,
}

/// Parses `--index` (`runtime` or a number).
pub fn parse_index(text: &str) -> Result<IndexArg, String> {
    match text.trim() {
        "runtime" => Ok(IndexArg::Runtime),
        t => t
            .parse::<u64>()
            .map(IndexArg::Const)
            .map_err(|e| format!("'{text}' is neither a buffer index nor 'runtime' ({e})")),
    }
}

/// `--lowering`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lowering {
    /// The allocation's buffer map: base in the immediate, `mad.lo` per mode.
    Explicit,
    /// TLX's reindexing (see --tlx), for comparison.
    Tlx,
}

/// Parses `--tlx SCALE,OFFSET,GROUP`.
pub fn parse_tlx(text: &str) -> Result<[u64; 3], String> {
    let parts = text
        .split(',')
        .map(|p| p.trim().parse::<u64>().map_err(|e| format!("'{p}': {e}")))
        .collect::<Result<Vec<u64>, String>>()?;
    match parts.as_slice() {
        [scale, offset, group] if *group > 0 => Ok([*scale, *offset, *group]),
        [_, _, _] => Err("GROUP must be at least 1".into()),
        _ => Err(format!("expected SCALE,OFFSET,GROUP, got '{text}'")),
    }
}

/// `linalias plan …`.
#[derive(Debug, Args)]
#[command(after_help = PLAN_HELP)]
pub struct PlanArgs {
    /// The plan file (TOML), a TTGIR module (.mlir, .ttgir: a kernel's IR as the TLX fork
    /// prints it), or - to read stdin (either).
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// Which meaning of the reuse tree to plan with.
    #[arg(long, value_enum, default_value_t = PlanMode::Intended)]
    pub mode: PlanMode,
    /// Write the memory map (offset × buffer, per region) as an SVG picture to this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// The target whose shared/tensor memory limits apply: sm_80, sm_90, sm_100 or sm_120
    /// (default: the file's `target`, else sm_100).
    #[arg(long, value_name = "TARGET", value_parser = parse_target)]
    pub target: Option<alias_alloc::Target>,
    /// Print the plan as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Instead of the report, print the PTX of each allocation's accesses under the explicit
    /// lowering: a kernel per allocation that stores its tile to the buffer given at run time
    /// and loads it back (shared memory: sm_90a; tensor memory: tcgen05, sm_100a).
    #[arg(long, value_enum, value_name = "WHAT", conflicts_with_all = ["json", "svg"])]
    pub emit: Option<Emit>,
    /// Time budget of the arena search when allocations have lifetimes, in milliseconds; the
    /// search also stops at a fixed 1,000,000 nodes, so a run that ends there is reproducible.
    #[arg(long, value_name = "T", default_value_t = 1000)]
    pub budget_ms: u64,
    /// Warps per CTA of the emitted kernels (--emit ptx): a power of two from 1 to 32, as
    /// Triton's num_warps.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "emit", value_parser = parse_num_warps)]
    pub num_warps: u32,
}

/// `linalias plan --emit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// PTX kernels.
    Ptx,
    /// The equivalent plan file (TOML) of the program read.
    Toml,
    /// A TTGIR module given: the module after the storage-alias lowering — as fbtriton's
    /// tlx-storage-alias-lowering leaves it (--mode tlx), or with Intended mode's placement.
    Mlir,
}

const PLAN_HELP: &str = "\
FILE holds [[spec]] tables (name, storage = smem|tmem, size, overlap = { shared = [...] }),
[[alloc]] tables (name, shape, dtype, num, spec or reuse, storage, layout, cta_mode, align,
lifetime = [start, end)) and an optional target; see docs/plan-file.md and
examples/flash_attention.toml.
Or FILE is a kernel's TTGIR (.mlir/.ttgir, or text starting with `module` or `#`): its
tlx.storage_alias_spec / storage_alias_local_alloc / reuse_group / set_buffer_overlap /
local_alias ops and plain ttg.local_alloc / ttng.tmem_alloc are planned as a plan file would be;
dump it with MLIR_ENABLE_DUMP=1 (docs/plan-from-ir.md).
Exit codes: 0 planned (the checker's verdict is in the output), 1 the planner refused the
program or it does not fit the target (the report is printed, what does not fit last), 2 an
unreadable or invalid file or argument.";

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanMode {
    /// fbtriton 3.7.4's placement bit for bit; what it gets wrong becomes warnings.
    Tlx,
    /// The documented meaning: subtiles contiguous in their group, layout alignment only.
    Intended,
}

/// Parses `--target` (`sm_90`, `sm_100`, …; an `a` suffix is accepted).
pub fn parse_target(text: &str) -> Result<alias_alloc::Target, String> {
    text.parse::<alias_alloc::Target>()
        .map_err(|e| e.to_string())
}

/// `linalias layout …`.
#[derive(Debug, Args)]
#[command(after_help = LAYOUT_HELP)]
pub struct LayoutArgs {
    /// Tensor shape for LAYOUT arguments given as a layout-family attribute (`#ttg.blocked`,
    /// `#ttg.nvmma_shared`, `#ttng.tensor_memory_encoding`, …), e.g. `64x64`.
    #[arg(long, global = true, value_name = "D0xD1…", value_parser = parse_shape)]
    pub shape: Option<Shape>,
    /// The layout operation.
    #[command(subcommand)]
    pub command: LayoutCommand,
}

const LAYOUT_HELP: &str = "\
A LAYOUT argument is inline text, @FILE to read a file, or - to read stdin (once per command).
Text starting with # is an MLIR attribute as a TTGIR dump prints it (an alias line
`#blocked = #ttg.blocked<{...}>` is fine): #ttg.linear, #ttg.shared_linear, or a layout family
(#ttg.blocked, #ttg.slice, #ttg.nvidia_mma, #ttg.dot_op, #ttg.swizzled_shared,
#ttg.nvmma_shared, #ttg.padded_shared, #ttg.partitioned_shared, #ttg.amd_mfma, #ttg.amd_wmma,
#ttg.amd_rotating_shared, #ttng.tensor_memory_encoding, #ttng.tensor_memory_scales_encoding),
which needs --shape. Anything else is JSON:
  {\"bases\":[[\"lane\",[[1],[2]]],[\"warp\",[[4]]]],\"out_dims\":[[\"x\",8]]}
Exit codes: 0 success, 1 the operation refused the layouts, 2 bad arguments.";

/// The `layout` subcommands.
#[derive(Debug, Subcommand)]
pub enum LayoutCommand {
    /// Print a layout, with whether it is surjective/injective and its rank; for a family
    /// attribute also its alignment or TMEM allocation. Optionally Triton's ASCII view and an
    /// SVG picture.
    Show {
        /// The layout.
        #[arg(value_name = "LAYOUT", required_unless_present = "module")]
        layout: Option<String>,
        /// Instead of one LAYOUT, every layout of a TTGIR module (a compiler dump, `.ttgir`,
        /// a lit test): each `#alias = …` layout and each layout written inline, built on every
        /// shape the file uses it with (`tensor<…>` and `!ttg.memdesc<…>` types). A layout we
        /// cannot build is refused on its own line; the listing goes on.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["layout", "view", "svg"])]
        module: Option<std::path::PathBuf>,
        #[command(flatten)]
        format: FormatArg,
        /// Also print Triton's ASCII view: the tensor grid or the hardware listing.
        #[arg(long, value_enum, value_name = "VIEW")]
        view: Option<View>,
        /// Write an SVG picture to this file: owner thread and register per element for a
        /// register layout, offset and bank per element for a shared-memory layout, TMEM lane
        /// and 32-bit column per element for a tensor-memory layout.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
        /// Element width in bits, for banks and TMEM columns (default: from the attribute, else
        /// 16 for shared memory, 32 for tensor memory).
        #[arg(long, value_name = "BITS")]
        element_bits: Option<u32>,
    },
    /// Bank conflicts of storing/loading a register layout to/from a shared-memory layout
    /// (Triton's model: excess wavefronts per request), and the widest conflict-free vector.
    Conflicts {
        /// The register layout (`register, lane, warp` in-dims, or a distributed attribute).
        #[arg(value_name = "REG")]
        reg: String,
        /// The shared-memory layout (`offset` in-dim, or a shared attribute).
        #[arg(value_name = "SHARED")]
        shared: String,
        /// Element width in bits (default: from the shared attribute, else 16).
        #[arg(long, value_name = "BITS")]
        element_bits: Option<u32>,
        /// Number of 4-byte shared-memory banks: a power of two of at least 4.
        #[arg(long, value_name = "N", default_value_t = 32, value_parser = parse_banks)]
        banks: u32,
        /// Write an SVG picture of one warp request's banks to this file.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
    },
    /// INNER.compose(OUTER): x ↦ OUTER(INNER(x)).
    Compose {
        /// The layout applied first; its out-dims are OUTER's in-dims.
        #[arg(value_name = "INNER")]
        inner: String,
        /// The layout applied second.
        #[arg(value_name = "OUTER")]
        outer: String,
        #[command(flatten)]
        format: FormatArg,
    },
    /// INNER.invert_and_compose(OUTER): C with OUTER(C(x)) = INNER(x).
    InvertAndCompose {
        /// The layout to express in OUTER's inputs (e.g. registers → tensor).
        #[arg(value_name = "INNER")]
        inner: String,
        /// The layout whose inputs the result produces (e.g. shared offsets → tensor).
        #[arg(value_name = "OUTER")]
        outer: String,
        /// Solve along these in-dims of OUTER first (invert_and_compose_preferring), e.g.
        /// `register,lane`; other dims keep their position when possible.
        #[arg(long, value_name = "DIM,…", value_delimiter = ',')]
        prefer: Option<Vec<String>>,
        #[command(flatten)]
        format: FormatArg,
    },
    /// A right inverse P of a surjective layout: LAYOUT(P(y)) = y, smallest preimage.
    Pseudoinvert {
        /// The layout (must be surjective).
        #[arg(value_name = "LAYOUT")]
        layout: String,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The inverse of an invertible layout.
    Invert {
        /// The layout (must be injective and surjective).
        #[arg(value_name = "LAYOUT")]
        layout: String,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Evaluate a layout at one input: every in-dim must be given exactly once.
    Apply {
        /// The layout.
        #[arg(value_name = "LAYOUT")]
        layout: String,
        /// Input values as DIM=VALUE (decimal, 0x… or 0b…); repeat the flag or separate with commas.
        #[arg(
            short,
            long = "input",
            value_name = "DIM=VALUE",
            value_delimiter = ',',
            value_parser = parse_assignment
        )]
        inputs: Vec<(String, u64)>,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = ValueFormat::Text)]
        format: ValueFormat,
    },
    /// The product A * B (Triton's operator*): B's bits above A's on shared dims.
    Product {
        /// The low (minor) factor.
        #[arg(value_name = "A")]
        a: String,
        /// The high (major) factor.
        #[arg(value_name = "B")]
        b: String,
        #[command(flatten)]
        format: FormatArg,
    },
}

/// `--format` for commands that print a layout.
#[derive(Debug, Args, Clone, Copy)]
pub struct FormatArg {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// How a layout is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Triton's `toString()`, then a line with surjectivity, injectivity and rank.
    Text,
    /// Triton's `from_bases` JSON shape, on one line.
    Json,
    /// The `#ttg.linear<{…}>` attribute (out-dims must be dim0…dimN-1).
    Mlir,
}

/// Which of Triton's ASCII views `show --view` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum View {
    /// The tensor grid: who holds each element (`T<thread>:<reg>`) or where it is stored.
    Tensor,
    /// The hardware listing: per warp and register, or per offset.
    Hardware,
}

/// How the result of `apply` is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValueFormat {
    /// `dim0=… dim1=…`.
    Text,
    /// `{"dim0":…,"dim1":…}`, in out-dim order.
    Json,
}

/// Parses `DIM=VALUE`, with VALUE in decimal, `0x` hex or `0b` binary.
pub fn parse_assignment(text: &str) -> Result<(String, u64), String> {
    let (dim, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected DIM=VALUE, got '{text}'"))?;
    let (dim, value) = (dim.trim(), value.trim());
    if dim.is_empty() {
        return Err(format!("missing dim name in '{text}'"));
    }
    let parsed = if let Some(hex) = value.strip_prefix("0x") {
        u64::from_str_radix(hex, 16)
    } else if let Some(bin) = value.strip_prefix("0b") {
        u64::from_str_radix(bin, 2)
    } else {
        value.parse::<u64>()
    };
    let value = parsed.map_err(|e| format!("value of '{dim}' is not a u64 ('{value}'): {e}"))?;
    Ok((dim.to_owned(), value))
}

/// A tensor shape (`--shape 64x64`); a newtype so clap takes it as one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape(pub Vec<u64>);

/// Parses a shape like `64x64` or `2x128x64` (powers of two are checked by the families).
pub fn parse_shape(text: &str) -> Result<Shape, String> {
    text.split(['x', 'X', ','])
        .map(|d| {
            d.trim()
                .parse::<u64>()
                .map_err(|e| format!("shape '{text}': '{d}' is not a size ({e})"))
        })
        .collect::<Result<Vec<u64>, String>>()
        .map(Shape)
}

/// `--num-warps`: a power of two from 1 to 32 (Triton's `num_warps`).
fn parse_num_warps(s: &str) -> Result<u32, String> {
    let n: u32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if n.is_power_of_two() && n <= 32 {
        Ok(n)
    } else {
        Err(format!(
            "{n} warps: Triton's num_warps is a power of two from 1 to 32"
        ))
    }
}

/// `--name`: a PTX identifier (`[A-Za-z_][A-Za-z0-9_$]*`).
fn parse_kernel_name(s: &str) -> Result<String, String> {
    if codegen::ptx::is_identifier(s) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "'{s}' is not a PTX identifier ([A-Za-z_][A-Za-z0-9_$]*)"
        ))
    }
}

/// `--banks`: a power of two of at least 4 (a 128-bit access spans 4 banks).
fn parse_banks(s: &str) -> Result<u32, String> {
    let n: u32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if n.is_power_of_two() && n >= 4 {
        Ok(n)
    } else {
        Err(format!(
            "{n} banks: a power of two of at least 4 (a 128-bit access spans 4 banks)"
        ))
    }
}

/// `--seq-stride N`, `--program-id N`, `--num-programs N`, `--clc-tiles N`: a whole number of
/// at least `least`.
fn parse_at_least(s: &str, least: i64) -> Result<i64, String> {
    let n: i64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if n >= least {
        Ok(n)
    } else {
        Err(format!("{n}: at least {least}"))
    }
}
