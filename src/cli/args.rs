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
}

/// `linalias layout …`.
#[derive(Debug, Args)]
#[command(after_help = LAYOUT_HELP)]
pub struct LayoutArgs {
    /// The layout operation.
    #[command(subcommand)]
    pub command: LayoutCommand,
}

const LAYOUT_HELP: &str = "\
A LAYOUT argument is inline text, @FILE to read a file, or - to read stdin (once per command).
Text starting with #ttg.linear is read as the MLIR attribute, anything else as JSON:
  {\"bases\":[[\"lane\",[[1],[2]]],[\"warp\",[[4]]]],\"out_dims\":[[\"x\",8]]}
Exit codes: 0 success, 1 the operation refused the layouts, 2 bad arguments.";

/// The `layout` subcommands.
#[derive(Debug, Subcommand)]
pub enum LayoutCommand {
    /// Print a layout, with whether it is surjective/injective and its rank.
    Show {
        /// The layout.
        #[arg(value_name = "LAYOUT")]
        layout: String,
        #[command(flatten)]
        format: FormatArg,
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
