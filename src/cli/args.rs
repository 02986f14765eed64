//! Command-line arguments, declared with clap's derive API.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// GF(2) linear layouts, TLX storage aliasing and PTX address generation for GPU kernel compilers.
#[derive(Debug, Parser)]
#[command(name = "linalias", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect and combine linear layouts (Triton semantics).
    Layout(LayoutArgs),
    /// Plan the storage_alias_specs and allocations of a TOML plan file (TLX's
    /// storage_alias_spec / local_alloc / reuse_group): regions, buffer maps, index rewrites,
    /// buffer starts, the memory map, warnings and the independent checker's verdict.
    Plan(PlanArgs),
}

/// `linalias plan …`.
#[derive(Debug, Args)]
#[command(after_help = PLAN_HELP)]
pub struct PlanArgs {
    /// The plan file (TOML), or - to read stdin.
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
}

const PLAN_HELP: &str = "\
FILE holds [[spec]] tables (name, storage = smem|tmem, size, overlap = { shared = [...] }),
[[alloc]] tables (name, shape, dtype, num, spec or reuse, layout, cta_mode, align) and an
optional target; see examples/flash_attention.toml and the alias_alloc::plan_file docs.
Exit codes: 0 planned (the checker's verdict is in the output), 1 the planner refused the
program, 2 an unreadable or invalid file or argument.";

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
#ttg.nvmma_shared, #ttng.tensor_memory_encoding, #ttng.tensor_memory_scales_encoding), which
needs --shape. Anything else is JSON:
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
        #[arg(value_name = "LAYOUT")]
        layout: String,
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
        /// Number of 4-byte shared-memory banks.
        #[arg(long, value_name = "N", default_value_t = 32)]
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
