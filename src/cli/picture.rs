//! `--svg`: which picture a layout gets, and writing it.

use std::path::Path;

use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::views::svg::{shared_svg, tensor_svg, tmem_svg};
use linear_layout::LinearLayout;

use crate::cli::error::CliError;

/// The element width an attribute implies: NVMMA's `elementBitWidth`, or the 32-bit TMEM
/// column divided by `colStride`.
pub fn element_bits(encoding: Option<&Encoding>) -> Option<u32> {
    match encoding? {
        Encoding::Shared(SharedEncoding::Nvmma(n)) => Some(n.element_bitwidth),
        Encoding::TensorMemory(t) => 32u32.checked_div(t.col_stride),
        Encoding::TensorMemoryScales(_) => Some(8),
        _ => None,
    }
}

/// The picture of a layout: offsets and banks for a shared-memory layout (`offset` in-dim),
/// lanes and 32-bit columns for a tensor-memory layout (`row` in-dim; 32-bit elements unless
/// told), owners for a register layout.
pub fn layout_svg(layout: &LinearLayout, element_bits: Option<u32>) -> Result<String, CliError> {
    if layout.has_in_dim("row") {
        Ok(tmem_svg(layout, element_bits.unwrap_or(32))?)
    } else if layout.has_in_dim("offset") {
        let bits = element_bits.unwrap_or(16);
        if !bits.is_multiple_of(8) || bits == 0 {
            return Err(CliError::input(
                "--element-bits",
                format!("{bits} is not a whole number of bytes"),
            ));
        }
        Ok(shared_svg(layout, bits / 8, 32)?)
    } else {
        Ok(tensor_svg(layout)?)
    }
}

/// Writes `svg` to `path`.
pub fn write(path: &Path, svg: &str) -> Result<(), CliError> {
    std::fs::write(path, svg)
        .map_err(|e| CliError::input("--svg", format!("cannot write {}: {e}", path.display())))
}
