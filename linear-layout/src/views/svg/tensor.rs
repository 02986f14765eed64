//! [`tensor_svg`]: who holds each element of a distributed tensor.

use super::*;

/// A distributed layout (`register, lane, warp, block → dim*`) as a grid over the tensor: each
/// cell is coloured by the warp holding the element, labelled `T<thread>:<register>` as
/// Triton's views do (thread = `warp × lanes + lane`, prefixed `B<block>:` with several
/// blocks), with a `×n` badge when `n` threads/registers hold a copy and `-` when nobody
/// does. Errors: [`LayoutError::DimsMismatch`] for other in-dims,
/// [`LayoutError::InvalidShape`] past [`MAX_GRID_SIDE`] or
/// [`MAX_VIEW_CELLS`](crate::views::MAX_VIEW_CELLS).
///
/// ```
/// use linear_layout::views::svg::tensor_svg;
/// use linear_layout::LinearLayout;
/// // 2 lanes × 2 registers over 4 elements, both warps holding the same data.
/// let l = LinearLayout::from_bases(&[
///     ("register", vec![vec![1]]), ("lane", vec![vec![2]]), ("warp", vec![vec![0]]),
/// ], &[("dim0", 4)], true)?;
/// let svg = tensor_svg(&l)?;
/// assert_eq!(svg.matches("<rect").count(), 4);
/// assert!(svg.contains(">T0:0<") && svg.contains(">×2<"));
/// assert!(svg.contains("(0): T0:0 | T2:0"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn tensor_svg(layout: &LinearLayout) -> Result<String> {
    const OP: &str = "tensor_svg";
    let eval = InputEval::new(layout, OP, &["register", "lane", "warp", "block"])?;
    let grid = Grid::new(layout, OP)?;
    eval.check_positions(OP, &grid.shape, "hardware positions")?;
    let (regs, lanes, warps, blocks) = (eval.size(0), eval.size(1), eval.size(2), eval.size(3));
    // owners[element] = (global warp, label) in Triton's enumeration order
    let mut owners: Vec<Vec<(u64, String)>> = vec![Vec::new(); grid.len()];
    for block in 0..blocks {
        for warp in 0..warps {
            for lane in 0..lanes {
                for reg in 0..regs {
                    let out = eval.apply(&[reg, lane, warp, block]);
                    if let Some(list) = owners.get_mut(linearize(&out, &grid.shape)) {
                        let thread = warp * lanes + lane;
                        let label = if blocks > 1 {
                            format!("B{block}:T{thread}:{reg}")
                        } else {
                            format!("T{thread}:{reg}")
                        };
                        list.push((block * warps + warp, label));
                    }
                }
            }
        }
    }
    let cells: Vec<Cell> = owners
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let index = grid.index_text(i);
            match list.first() {
                None => Cell::empty(format!("{index}: held by no thread")),
                Some((warp, label)) => Cell {
                    fill: palette(*warp),
                    label: label.clone(),
                    sub: None,
                    badge: (list.len() > 1).then(|| format!("×{}", list.len())),
                    tooltip: format!("{index}: {}", joined(list.iter().map(|(_, l)| l.as_str()))),
                },
            }
        })
        .collect();
    let legend: Vec<(String, String)> = (0..(warps * blocks).min(WARP_PALETTE.len() as u64))
        .map(|w| (palette(w), format!("warp {w}")))
        .collect();
    let title = format!(
        "Distributed layout over a {} tensor: {blocks} block(s) × {warps} warp(s) × {lanes} lane(s) × {regs} register(s)",
        grid.shape_text()
    );
    Ok(render(&title, &grid, &cells, &legend))
}
