//! The `linalias` command line: argument definitions ([`args`]), reading layout arguments
//! ([`input`]), rendering results ([`output`]), the `layout` subcommands ([`layout_cmd`]) and
//! `plan` ([`plan_cmd`]), `pack` ([`pack_cmd`]), `ptx` ([`ptx_cmd`]), `ptx-cost` ([`ptx_cost_cmd`]) and `check` ([`check_cmd`]).

pub mod args;
pub mod check_cmd;
pub mod error;
pub mod input;
pub mod layout_cmd;
pub mod module_listing;
pub mod output;
pub mod pack_cmd;
pub mod picture;
pub mod plan_cmd;
pub mod ptx_cmd;
pub mod ptx_cost_cmd;

use std::io::Write;

use args::{Cli, Command};
pub use error::CliError;

/// Runs a parsed command line, writing what it prints on stdout to `out`. `pack` streams its
/// report (its size grows with the buffers); the others build theirs first.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<(), CliError> {
    let text = match cli.command {
        Command::Layout(layout) => layout_cmd::run(layout.command, layout.shape.map(|s| s.0))?,
        Command::Plan(plan) => plan_cmd::run(plan)?,
        Command::Ptx(ptx) => ptx_cmd::run(ptx)?,
        Command::PtxCost(args) => ptx_cost_cmd::run(args)?,
        Command::Pack(pack) => return pack_cmd::run(pack, out),
        Command::Check(args) => check_cmd::run(args)?,
    };
    out.write_all(text.as_bytes()).map_err(CliError::Output)
}
