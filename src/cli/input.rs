//! Reading LAYOUT arguments: inline text, `@FILE`, or `-` for stdin; an MLIR attribute (any
//! layout family, built at `--shape`) or JSON by content.

use std::io::Read;

use linear_layout::families::{DistributedEncoding, Encoding, SharedEncoding, SharedLinear};
use linear_layout::LinearLayout;

use crate::cli::error::CliError;
use crate::cli::module_listing::shape_text;

/// Reads layout arguments, allowing stdin (`-`) to be used by at most one of them.
#[derive(Debug, Default)]
pub struct LayoutReader {
    stdin_used: bool,
    shape: Option<Vec<u64>>,
}

/// A layout argument: the layout, and the family attribute it was built from (if any).
#[derive(Debug)]
pub struct ReadLayout {
    /// The layout (built at `--shape` for a family attribute).
    pub layout: LinearLayout,
    /// The attribute, when the argument was MLIR text.
    pub encoding: Option<Encoding>,
}

impl LayoutReader {
    /// A reader that builds family attributes at `shape` (`--shape`).
    pub fn with_shape(shape: Option<Vec<u64>>) -> LayoutReader {
        LayoutReader {
            stdin_used: false,
            shape,
        }
    }

    /// Reads and parses the argument named `arg` (e.g. `OUTER`) whose value is `value`.
    /// Every failure, unreadable source or invalid layout, is a [`CliError::Input`] naming `arg`.
    pub fn read(&mut self, arg: &str, value: &str) -> Result<LinearLayout, CliError> {
        Ok(self.read_encoded(arg, value)?.layout)
    }

    /// Like [`LayoutReader::read`], keeping the attribute the layout was built from.
    pub fn read_encoded(&mut self, arg: &str, value: &str) -> Result<ReadLayout, CliError> {
        let text = self.source_text(arg, value)?;
        // A byte-order mark, as some editors write one, is not part of the layout.
        let text = text.trim_start_matches('\u{feff}').trim();
        if !text.starts_with(['#', '{']) && std::path::Path::new(value).is_file() {
            return Err(CliError::input(
                arg,
                format!("'{value}' is a file name, not a layout: write @{value} to read it"),
            ));
        }
        if !text.starts_with('#') {
            let layout = LinearLayout::from_json_str(text).map_err(|e| CliError::input(arg, e))?;
            if let Some(shape) = &self.shape {
                let own: Vec<u64> = layout.out_dims().iter().map(|&(_, s)| s).collect();
                if &own != shape {
                    return Err(CliError::input(
                        arg,
                        format!(
                            "the JSON layout covers {} but --shape is {}: a JSON layout is used \
                             as given; drop --shape or give the layout at that shape",
                            shape_text(&own),
                            shape_text(shape)
                        ),
                    ));
                }
            }
            return Ok(ReadLayout {
                layout,
                encoding: None,
            });
        }
        let encoding = Encoding::from_mlir(text).map_err(|e| CliError::input(arg, e))?;
        let layout = match (&encoding, &self.shape) {
            (Encoding::Distributed(DistributedEncoding::Linear(l)), None)
            | (Encoding::Shared(SharedEncoding::Linear(SharedLinear { layout: l, .. })), None) => {
                l.clone()
            }
            (_, Some(shape)) => encoding
                .to_linear_layout(shape)
                .map_err(|e| CliError::input(arg, e))?,
            (_, None) => return Err(CliError::input(
                arg,
                "a layout-family attribute needs the tensor shape: add --shape, e.g. --shape 64x64",
            )),
        };
        Ok(ReadLayout {
            layout,
            encoding: Some(encoding),
        })
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

/// The text of the file argument `arg` (`-`: stdin), and its name as given.
pub fn read_file_arg(arg: &str, path: &std::path::Path) -> Result<(String, String), CliError> {
    let file = path.display().to_string();
    let text = if file == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| CliError::input(arg, e))?
    } else {
        std::fs::read_to_string(path).map_err(|e| CliError::input(arg, format!("{file}: {e}")))?
    };
    Ok((file, text))
}
