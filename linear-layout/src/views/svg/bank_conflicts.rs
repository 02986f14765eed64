//! [`bank_conflict_svg`]: the banks one warp's shared-memory request touches.

use std::fmt::Write as _;

use super::*;

/// The first `ld/st.shared` request of warp 0 of a register ↔ shared copy (see
/// [`warp_request`]), one panel per phase of lanes: columns are banks, rows are the distinct
/// bank rows (`num_banks × 4` bytes each) the phase touches, and each access is a cell labelled
/// with its lanes (`L3`, or `L0,L8` for lanes reading the same word). A bank column with
/// several rows filled is a conflict: the phase needs as many wavefronts as its fullest column.
/// The title gives Triton's count ([`bank_conflicts`](fn@crate::analysis::bank_conflicts)).
///
/// Errors: as [`bank_conflicts`](fn@crate::analysis::bank_conflicts), and
/// [`LayoutError::InvalidShape`] for more than [`MAX_GRID_SIDE`] banks.
///
/// ```
/// use linear_layout::views::svg::bank_conflict_svg;
/// use linear_layout::LinearLayout;
/// // 32 lanes × one column of a 32×32 f32 tile stored row-major: 8 lanes a phase, 8 rows.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 32)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16],
///     vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 32)], true)?;
/// let svg = bank_conflict_svg(&reg, &smem, 32, 32)?;
/// assert!(svg.contains("7 conflicts"));
/// assert!(svg.contains(">phase 3: lanes 24..32<"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn bank_conflict_svg(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
) -> Result<String> {
    const OP: &str = "bank_conflict_svg";
    let request = warp_request(reg, shared, element_bits, num_banks)?;
    let banks = u64::from(num_banks);
    if banks > MAX_GRID_SIDE {
        return Err(LayoutError::InvalidShape {
            family: OP,
            shape: vec![banks],
            reason: format!("at most {MAX_GRID_SIDE} banks are drawn"),
        });
    }
    let vector_bytes = (request.conflicts.vector_bits / 8).max(1);
    let elem_bits = u64::from(element_bits);
    let cell_w = 40u64;
    let left = 64u64;
    let width = left + banks * cell_w + PAD;
    let mut body = String::new();
    let mut y = 52u64;
    let lanes = request.lane_offsets.len() as u64;
    let per_phase = request.lanes_per_phase.clamp(1, lanes.max(1));
    let mut worst = 1u64;
    for (phase, chunk) in request.lane_offsets.chunks(per_phase as usize).enumerate() {
        let first_lane = phase as u64 * per_phase;
        // (row, bank) → lanes touching that word
        let mut words: Vec<(u64, u64, Vec<u64>)> = Vec::new();
        for (k, &offset) in chunk.iter().enumerate() {
            let byte = offset.saturating_mul(elem_bits) / 8;
            let (w0, w1) = (byte / 4, (byte + vector_bytes).div_ceil(4));
            for word in w0..w1.max(w0 + 1) {
                let (row, bank) = (word / banks, word % banks);
                let lane = first_lane + k as u64;
                match words.iter_mut().find(|(r, b, _)| *r == row && *b == bank) {
                    Some((_, _, ls)) if !ls.contains(&lane) => ls.push(lane),
                    Some(_) => {}
                    None => words.push((row, bank, vec![lane])),
                }
            }
        }
        let mut rows: Vec<u64> = words.iter().map(|(r, _, _)| *r).collect();
        rows.sort_unstable();
        rows.dedup();
        for b in 0..banks {
            worst = worst.max(words.iter().filter(|(_, bank, _)| *bank == b).count() as u64);
        }
        let _ = writeln!(
            body,
            r#"<text x="{PAD}" y="{}" font-size="12" font-weight="bold">phase {phase}: lanes {first_lane}..{}</text>"#,
            y + 12,
            first_lane + chunk.len() as u64
        );
        y += 18;
        for (b, bank_x) in (0..banks).map(|b| (b, left + b * cell_w)) {
            let _ = writeln!(
                body,
                r##"<text x="{}" y="{}" font-size="9" text-anchor="middle" fill="{MUTED}">b{b}</text>"##,
                bank_x + cell_w / 2,
                y + 10,
            );
        }
        y += 14;
        for (ri, row) in rows.iter().enumerate() {
            let row_y = y + ri as u64 * 22;
            let _ = writeln!(
                body,
                r#"<text x="{}" y="{}" font-size="9" text-anchor="end">row {row}</text>"#,
                left - 4,
                row_y + 14
            );
            for b in 0..banks {
                let hit = words.iter().find(|(r, bank, _)| r == row && *bank == b);
                let (fill, text, tip) = match hit {
                    Some((_, _, ls)) => (
                        bank_colour(b, banks),
                        xml_escape(
                            &ls.iter()
                                .map(|l| format!("L{l}"))
                                .collect::<Vec<_>>()
                                .join(","),
                        ),
                        format!(
                            "bank {b}, row {row}: lanes {}",
                            joined(ls.iter().map(|l| l.to_string()))
                        ),
                    ),
                    None => (
                        EMPTY_FILL.to_string(),
                        String::new(),
                        format!("bank {b}, row {row}: idle"),
                    ),
                };
                let x = left + b * cell_w;
                let _ = writeln!(
                    body,
                    r##"<g><title>{}</title><rect x="{x}" y="{row_y}" width="{cell_w}" height="20" fill="{fill}" stroke="#888" stroke-width="0.5"/><text x="{}" y="{}" font-size="8" text-anchor="middle">{text}</text></g>"##,
                    xml_escape(&tip),
                    x + cell_w / 2,
                    row_y + 13
                );
            }
        }
        y += rows.len() as u64 * 22 + 10;
    }
    let c = request.conflicts;
    let title = format!(
        "First request of warp 0: {} lanes × {}-bit vectors on {num_banks} banks — Triton: {} conflicts ({} wavefronts per phase); fullest bank here: {worst} rows",
        lanes, c.vector_bits, c.conflicts, c.wavefronts
    );
    let height = y + PAD;
    let mut s = String::new();
    s.push_str(&svg_open(width, height));
    let _ = writeln!(s, "<title>{}</title>", xml_escape(&title));
    let _ = writeln!(
        s,
        r#"<text x="{PAD}" y="20" font-size="13">{}</text>"#,
        xml_escape(&title)
    );
    s.push_str(&body);
    s.push_str(SVG_CLOSE);
    Ok(s)
}
