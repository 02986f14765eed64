//! Triton's ASCII views of a layout, byte for byte: `getDistributedLayoutStr` and
//! `getSharedLayoutStr` (`lib/Dialect/TritonGPU/IR/Dialect.cpp`), which Gluon's
//! `get_layout_view(layout, shape, use_hw_view)`, `LinearLayout.get_distributed_view` /
//! `get_shared_view` and the `triton-tensor-layout` tool print.
//!
//! * Distributed tensor view: the tensor as nested `[…]` rows; each element lists every
//!   `T<thread>:<register>` holding it, `|`-separated (thread = `warp × lanes + lane`, prefixed
//!   `B<block>:` when there are several blocks). Hardware view: per warp, one line per register
//!   listing the element `(i,j)` each lane holds.
//! * Shared tensor view: the offsets laid out in the tensor's shape, each showing the element
//!   `(i:j)` stored there. Hardware view: `Offset: k -> (i,j)` per block.
//!
//! Numbers are right-aligned to the width of the dim's size. Like Triton, an input value above
//! an in-dim's size keeps only its low bits, and an element nobody holds prints as nothing.
//! Unlike Triton, missing `lane`/`warp`/`block` (or `block`) in-dims count as size 1, other
//! in-dims are refused, and views of more than [`MAX_VIEW_CELLS`] elements or hardware
//! positions are refused instead of allocating without bound.
//!
//! ```
//! use linear_layout::views::tensor_view::shared_view;
//! use linear_layout::LinearLayout;
//! let l = LinearLayout::identity_1d(4, "offset", "dim0")?;
//! assert_eq!(shared_view(&l, false)?, "[(0),(1),(2),(3)]\n");
//! assert_eq!(shared_view(&l, true)?, "Block: 0:\nOffset: 0 -> (0)\nOffset: 1 -> (1)\nOffset: 2 -> (2)\nOffset: 3 -> (3)\n");
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use crate::dims::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

/// Most tensor elements, and most hardware positions, a view enumerates.
///
/// ```
/// use linear_layout::views::{distributed_view, MAX_VIEW_CELLS};
/// use linear_layout::LinearLayout;
/// let huge = LinearLayout::identity_1d(2 * MAX_VIEW_CELLS, "register", "dim0")?;
/// assert!(distributed_view(&huge, false).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const MAX_VIEW_CELLS: u64 = 1 << 20;

/// Gluon's `get_layout_view`: the shared view when the layout has an `offset` in-dim, the
/// distributed view otherwise. Errors: as [`shared_view`] / [`distributed_view`].
///
/// ```
/// use linear_layout::views::layout_view;
/// use linear_layout::LinearLayout;
/// let smem = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![1, 1]])], &[("dim0", 2), ("dim1", 2)], true)?;
/// assert_eq!(layout_view(&smem, false)?, "[[(0:0),(0:1)]\n[ (1:1),(1:0)]]\n");
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn layout_view(layout: &LinearLayout, hardware: bool) -> Result<String> {
    if layout.has_in_dim("offset") {
        shared_view(layout, hardware)
    } else {
        distributed_view(layout, hardware)
    }
}

/// Triton's `getDistributedLayoutStr` for a `register, lane, warp, block → dim*` layout.
/// With `hardware`, the per-warp listing; otherwise the tensor grid.
///
/// Errors: [`LayoutError::DimsMismatch`] for an in-dim other than the four, and
/// [`LayoutError::InvalidShape`] past [`MAX_VIEW_CELLS`].
///
/// ```
/// use linear_layout::views::distributed_view;
/// use linear_layout::LinearLayout;
/// // 2 registers × 2 lanes over 4 elements, 2 warps holding the same data.
/// let l = LinearLayout::from_bases(&[
///     ("register", vec![vec![1]]), ("lane", vec![vec![2]]), ("warp", vec![vec![0]]),
/// ], &[("dim0", 4)], true)?;
/// assert_eq!(distributed_view(&l, false)?, "[T0:0|T2:0, T0:1|T2:1, T1:0|T3:0, T1:1|T3:1]\n");
/// assert_eq!(distributed_view(&l, true)?, "Warp0:\n(0), (2)\n(1), (3)\nWarp1:\n(0), (2)\n(1), (3)\n");
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn distributed_view(layout: &LinearLayout, hardware: bool) -> Result<String> {
    let eval = InputEval::new(
        layout,
        "distributed_view",
        &["register", "lane", "warp", "block"],
    )?;
    let shape = out_shape(layout, "distributed_view")?;
    eval.check_positions("distributed_view", &shape, "hardware positions")?;
    let (regs, lanes, warps, blocks) = (eval.size(0), eval.size(1), eval.size(2), eval.size(3));
    let tensor_size = shape.iter().product::<u64>();

    let mut elements = vec![String::new(); tensor_size as usize];
    let mut threads = Vec::new();
    for block in 0..blocks {
        for warp in 0..warps {
            for lane in 0..lanes {
                for reg in 0..regs {
                    let out = eval.apply(&[reg, lane, warp, block]);
                    let thread = lane + warp * lanes;
                    if let Some(cell) = elements.get_mut(linearize(&out, &shape)) {
                        if !cell.is_empty() {
                            cell.push('|');
                        }
                        let pad = padding(block, blocks)
                            + padding(thread, warps * lanes)
                            + padding(reg, regs);
                        cell.push_str(&" ".repeat(pad));
                        if blocks > 1 {
                            cell.push_str(&format!("B{block}:"));
                        }
                        cell.push_str(&format!("T{thread}:{reg}"));
                    }
                    threads.push(format!("({})", padded_list(&out, &shape, ",")));
                }
            }
        }
    }
    if !hardware {
        return Ok(tensor_grid(&elements, &shape, ", "));
    }
    let mut s = String::new();
    let mut rows = threads.chunks(regs.max(1) as usize);
    for block in 0..blocks {
        if blocks > 1 {
            s.push_str(&format!("Block{block}:\n"));
        }
        for warp in 0..warps {
            s.push_str(&format!("Warp{warp}:\n"));
            // threads[] runs lane-major within a warp; the listing is register-major.
            let per_lane: Vec<&[String]> = rows.by_ref().take(lanes as usize).collect();
            for reg in 0..regs as usize {
                let line: Vec<&str> = per_lane
                    .iter()
                    .filter_map(|l| l.get(reg).map(String::as_str))
                    .collect();
                s.push_str(&line.join(", "));
                s.push('\n');
            }
        }
    }
    Ok(s)
}

/// Triton's `getSharedLayoutStr` for an `offset, block → dim*` layout. With `hardware`, the
/// `Offset: k -> (i,j)` listing per block; otherwise the offsets laid out in the tensor's shape,
/// each showing the element `(i:j)` stored there. Offsets are enumerated up to the tensor size
/// divided by the block count.
///
/// Errors: [`LayoutError::DimsMismatch`] for an in-dim other than `offset`, `block`, and
/// [`LayoutError::InvalidShape`] past [`MAX_VIEW_CELLS`].
///
/// ```
/// use linear_layout::views::shared_view;
/// use linear_layout::LinearLayout;
/// // A 2×4 tile whose second row is stored rotated by 2 (XOR swizzle).
/// let l = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![0, 2], vec![1, 2]])], &[("dim0", 2), ("dim1", 4)], true)?;
/// assert_eq!(shared_view(&l, false)?, "[[(0:0),(0:1),(0:2),(0:3)]\n[ (1:2),(1:3),(1:0),(1:1)]]\n");
/// assert!(shared_view(&l, true)?.starts_with("Block: 0:\nOffset: 0 -> (0,0)\nOffset: 1 -> (0,1)\n"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn shared_view(layout: &LinearLayout, hardware: bool) -> Result<String> {
    let eval = InputEval::new(layout, "shared_view", &["offset", "block"])?;
    let shape = out_shape(layout, "shared_view")?;
    let tensor_size = shape.iter().product::<u64>();
    let blocks = eval.size(1);
    let block_size = tensor_size / blocks;

    let mut elements = Vec::with_capacity(tensor_size as usize);
    let mut offsets = Vec::with_capacity(tensor_size as usize);
    for block in 0..blocks {
        for offset in 0..block_size {
            let out = eval.apply(&[offset, block]);
            elements.push(format!("({})", padded_list(&out, &shape, ":")));
            offsets.push(format!("({})", padded_list(&out, &shape, ",")));
        }
    }
    elements.resize(tensor_size as usize, String::new());
    if !hardware {
        return Ok(tensor_grid(&elements, &shape, ","));
    }
    let mut s = String::new();
    let mut listed = offsets.iter();
    for block in 0..blocks {
        s.push_str(&format!("Block: {block}:\n"));
        for (offset, text) in (0..block_size).zip(listed.by_ref()) {
            s.push_str(&format!("Offset: {offset} -> {text}\n"));
        }
    }
    Ok(s)
}

/// A layout evaluated by named in-dims in a fixed order, dropping input bits past each in-dim's
/// size as Triton's `apply` does; absent dims count as size 1.
pub(super) struct InputEval {
    /// `sizes[k]`: size of the k-th wanted dim (1 when absent).
    pub(super) sizes: Vec<u64>,
    /// `bases[k]`: the bases of the k-th wanted dim, one tuple per bit.
    bases: Vec<Vec<Vec<u64>>>,
    n_out: usize,
}

impl InputEval {
    /// Size of the k-th wanted dim (1 when absent).
    pub(super) fn size(&self, k: usize) -> u64 {
        self.sizes.get(k).copied().unwrap_or(1)
    }

    /// Refuses ([`too_big`]) enumerating every combination of the wanted dims' values when
    /// there are more than [`MAX_VIEW_CELLS`] of them.
    pub(super) fn check_positions(
        &self,
        op: &'static str,
        shape: &[u64],
        what: &str,
    ) -> Result<()> {
        let positions = self.sizes.iter().try_fold(1u64, |p, &s| p.checked_mul(s));
        if positions.is_none_or(|p| p > MAX_VIEW_CELLS) {
            return Err(too_big(op, shape, what));
        }
        Ok(())
    }

    pub(super) fn new(
        layout: &LinearLayout,
        op: &'static str,
        wanted: &[&str],
    ) -> Result<InputEval> {
        let all = layout.bases();
        if let Some((extra, _)) = all.iter().find(|(d, _)| !wanted.contains(&d.name())) {
            return Err(LayoutError::DimsMismatch {
                op,
                what: "the layout's in-dims and the dims a view enumerates",
                left: layout
                    .in_dim_names()
                    .iter()
                    .map(|d| d.to_string())
                    .collect(),
                right: wanted
                    .iter()
                    .map(|s| s.to_string())
                    .chain(std::iter::once(format!("(not {extra})")))
                    .collect(),
            });
        }
        let mut sizes = Vec::new();
        let mut bases = Vec::new();
        for w in wanted {
            let dim = Dim::new(w);
            let b = all
                .iter()
                .find(|(d, _)| *d == dim)
                .map(|(_, b)| b.clone())
                .unwrap_or_default();
            if b.len() > MAX_VIEW_CELLS.trailing_zeros() as usize {
                let size = 1u64.checked_shl(b.len() as u32).unwrap_or(u64::MAX);
                return Err(too_big(op, &[size], "positions along one in-dim"));
            }
            sizes.push(1u64 << b.len());
            bases.push(b);
        }
        Ok(InputEval {
            sizes,
            bases,
            n_out: layout.num_out_dims(),
        })
    }

    pub(super) fn apply(&self, inputs: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; self.n_out];
        for (&x, dim_bases) in inputs.iter().zip(&self.bases) {
            for (bit, basis) in dim_bases.iter().enumerate() {
                if x >> bit & 1 == 1 {
                    for (o, &c) in out.iter_mut().zip(basis) {
                        *o ^= c;
                    }
                }
            }
        }
        out
    }
}

/// Out-dim sizes, refusing tensors past [`MAX_VIEW_CELLS`].
fn out_shape(layout: &LinearLayout, op: &'static str) -> Result<Vec<u64>> {
    let shape: Vec<u64> = layout.out_dims().into_iter().map(|(_, s)| s).collect();
    if layout.total_out_dim_size_log2() > MAX_VIEW_CELLS.trailing_zeros() {
        return Err(too_big(op, &shape, "tensor elements"));
    }
    Ok(shape)
}

pub(super) fn too_big(op: &'static str, shape: &[u64], what: &str) -> LayoutError {
    LayoutError::InvalidShape {
        family: op,
        shape: shape.to_vec(),
        reason: format!("a view enumerates at most {MAX_VIEW_CELLS} {what}"),
    }
}

/// Row-major index of a tensor element (last dim fastest).
pub(super) fn linearize(index: &[u64], shape: &[u64]) -> usize {
    index
        .iter()
        .zip(shape)
        .fold(0u64, |acc, (&i, &s)| acc * s + i) as usize
}

/// Triton's `numCharacterPadding(value, max)`: digits of `max` minus digits of `value`.
fn padding(value: u64, max: u64) -> usize {
    max.to_string()
        .len()
        .saturating_sub(value.to_string().len())
}

/// Triton's `paddedString` over every component, joined by `sep`.
fn padded_list(values: &[u64], shape: &[u64], sep: &str) -> String {
    values
        .iter()
        .zip(shape)
        .map(|(&v, &max)| format!("{}{v}", " ".repeat(padding(v, max))))
        .collect::<Vec<_>>()
        .join(sep)
}

/// The tensor view's nested brackets: `[` before an element for every trailing index that is 0,
/// `]` after it for every trailing index that wraps, a newline at the end of each innermost
/// row (indented by the brackets still open), `sep` otherwise.
fn tensor_grid(elements: &[String], shape: &[u64], sep: &str) -> String {
    let rank = shape.len();
    let mut s = String::new();
    if rank == 0 {
        for e in elements {
            s.push_str(e);
            s.push('\n');
        }
        return s;
    }
    let mut new_line = true;
    for (i, e) in elements.iter().enumerate() {
        let opening = zero_suffix(&delinearize(i as u64, shape));
        s.push_str(&"[".repeat(opening));
        if new_line {
            s.push_str(&" ".repeat(rank.saturating_sub(opening)));
            new_line = false;
        }
        s.push_str(e);
        let next = delinearize(i as u64 + 1, shape);
        s.push_str(&"]".repeat(zero_suffix(&next)));
        if next.last().copied().unwrap_or(0) == 0 {
            s.push('\n');
            new_line = true;
        } else {
            s.push_str(sep);
        }
    }
    s
}

/// How many trailing indices are 0.
fn zero_suffix(index: &[u64]) -> usize {
    index.iter().rev().take_while(|&&i| i == 0).count()
}

/// Triton's `delinearizeIndex`: row-major digits of `i` (wrapping past the end).
pub(super) fn delinearize(mut i: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for (slot, &s) in out.iter_mut().zip(shape).rev() {
        let s = s.max(1);
        *slot = i % s;
        i /= s;
    }
    out
}
