//! The `linalias` command line: argument definitions ([`args`]), reading layout arguments
//! ([`input`]), rendering results ([`output`]) and the `layout` subcommands ([`layout_cmd`]).

pub mod args;
pub mod error;
pub mod input;
pub mod layout_cmd;
pub mod output;
pub mod picture;

use args::{Cli, Command};
pub use error::CliError;

/// Runs a parsed command line and returns what it prints on stdout.
pub fn run(cli: Cli) -> Result<String, CliError> {
    match cli.command {
        Command::Layout(layout) => layout_cmd::run(layout.command, layout.shape.map(|s| s.0)),
    }
}
