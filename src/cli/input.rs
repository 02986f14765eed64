//! Reading LAYOUT arguments: inline text, `@FILE`, or `-` for stdin; MLIR or JSON by content.

use std::io::Read;

use linear_layout::LinearLayout;

use crate::cli::error::CliError;

/// Reads layout arguments, allowing stdin (`-`) to be used by at most one of them.
#[derive(Debug, Default)]
pub struct LayoutReader {
    stdin_used: bool,
}

impl LayoutReader {
    /// Reads and parses the argument named `arg` (e.g. `OUTER`) whose value is `value`.
    /// Every failure, unreadable source or invalid layout, is a [`CliError::Input`] naming `arg`.
    pub fn read(&mut self, arg: &str, value: &str) -> Result<LinearLayout, CliError> {
        let text = self.source_text(arg, value)?;
        parse_layout(&text).map_err(|e| CliError::input(arg, e))
    }

    fn source_text(&mut self, arg: &str, value: &str) -> Result<String, CliError> {
        if value == "-" {
            if self.stdin_used {
                return Err(CliError::input(
                    arg,
                    "stdin ('-') can be read by only one argument",
                ));
            }
            self.stdin_used = true;
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::input(arg, format!("cannot read stdin: {e}")))?;
            return Ok(text);
        }
        match value.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| CliError::input(arg, format!("cannot read {path:?}: {e}"))),
            None => Ok(value.to_owned()),
        }
    }
}

/// Parses layout text: `#ttg.linear…` as MLIR, anything else as JSON.
pub fn parse_layout(text: &str) -> linear_layout::Result<LinearLayout> {
    let text = text.trim();
    if text.starts_with("#ttg.linear") {
        LinearLayout::from_mlir(text)
    } else {
        LinearLayout::from_json_str(text)
    }
}
