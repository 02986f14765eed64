//! [`memory_map_text`]: every buffer of every region as a row with an ASCII bar over the
//! backing, the way TLX's design document draws QK, P, alpha, l and m.

use std::fmt::Write as _;

use super::{
    backing_text, region_allocs, region_buffers, region_title, row_group_range, utilisation,
    BufferRow,
};
use crate::{AllocPlan, Plan, Program, SpecPlan};

/// Characters of the bar that stands for the whole backing (fewer when the backing has fewer
/// units: one character is never less than one unit).
///
/// ```
/// assert_eq!(alias_alloc::report::BAR_WIDTH, 64);
/// ```
pub const BAR_WIDTH: u64 = 64;

/// Most buffer rows printed per region; the rest are counted in a closing line.
///
/// ```
/// assert_eq!(alias_alloc::report::MAX_ROWS, 1024);
/// ```
pub const MAX_ROWS: usize = 1024;

/// Letters tried, in order, when an allocation's own initial is taken.
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A text memory map of every region of `plan`: a header (name, storage, size, mode, buffer
/// groups), a legend giving each allocation a letter (its initial where free), a ruler, one
/// row per buffer `name[i]` with its `[start, end)` in plan units and a bar of [`BAR_WIDTH`]
/// characters over the backing (buffers listed by buffer group with a tree, allocations in
/// program order), a `used` row marking what any buffer covers, the backing size and the
/// [`utilisation`](super::utilisation) line. Deterministic: the same plan prints the same text.
///
/// Flash-Attention forward in Intended mode (the crate example, with `alpha` only):
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
/// let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
/// let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
/// let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 2, s)?;
/// let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
/// let distinct = ReuseGroup::distinct(vec![slices.into(), alpha.into()])?;
/// p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
/// let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// let text = report::memory_map_text(&p, &plan);
/// let expected = "\
/// qk_storage: tmem, 256 columns × 128 lanes, Intended mode, 2 buffer groups of 128 columns
/// legend: Q = qk (f32 [128, 128] ×2), P = p (bf16 [128, 64] ×4), A = alpha (f32 [128, 1] ×2)
///   buffer    start  end  |0               64              128             192          256|
///   group 0 [0, 128)
///   qk[0]         0  128  |QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ................................|
///   p[0]          0   32  |PPPPPPPP........................................................|
///   p[1]         32   64  |........PPPPPPPP................................................|
///   alpha[0]     64   65  |................A...............................................|
///   group 1 [128, 256)
///   qk[1]       128  256  |................................QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ|
///   p[2]        128  160  |................................PPPPPPPP........................|
///   p[3]        160  192  |........................................PPPPPPPP................|
///   alpha[1]    192  193  |................................................A...............|
///   used                  |################################################################|
/// backing: 256 columns × 128 lanes (buffer_size_bytes 131072)
/// qk_storage: 256 columns, 256 used, 0 unused
/// ";
/// assert_eq!(text, expected);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn memory_map_text(program: &Program, plan: &Plan) -> String {
    memory_map_text_of(program, plan, |_| true)
}

/// [`memory_map_text`] of the regions `keep` selects (by index in [`Plan::specs`]).
pub fn memory_map_text_of(program: &Program, plan: &Plan, keep: impl Fn(usize) -> bool) -> String {
    let usage = utilisation(program, plan);
    let mut out = String::new();
    if plan.specs.is_empty() {
        out.push_str("no regions\n");
    }
    let mut first = true;
    for (region, spec) in plan.specs.iter().enumerate() {
        if !keep(region) {
            continue;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        region_text(&mut out, program, plan, region, spec);
        if let Some(u) = usage.get(region) {
            let _ = writeln!(out, "{u}");
        }
    }
    out
}

fn region_text(out: &mut String, program: &Program, plan: &Plan, region: usize, spec: &SpecPlan) {
    out.push_str(&region_title(plan, spec));
    out.push('\n');

    let allocs = region_allocs(plan, region);
    let letters = letters(&allocs);
    let legend: Vec<String> = allocs
        .iter()
        .zip(&letters)
        .map(|(a, l)| format!("{l} = {} ({})", a.name, describe(program, a)))
        .collect();
    if !legend.is_empty() {
        let _ = writeln!(out, "legend: {}", legend.join(", "));
    }

    let (rows, skipped) = region_buffers(plan, region);
    let backing = spec.backing_units;
    let width = BAR_WIDTH.min(backing);
    let label_w = rows
        .iter()
        .map(|r| r.label().chars().count())
        .chain(["buffer".len(), "used".len()])
        .max()
        .unwrap_or(0);
    let start_w = rows
        .iter()
        .map(|r| digits(r.start))
        .chain([5])
        .max()
        .unwrap_or(5);
    let end_w = rows
        .iter()
        .map(|r| digits(r.end))
        .chain([3])
        .max()
        .unwrap_or(3);
    let pad = label_w + 2 + start_w + 2 + end_w + 2;
    let _ = writeln!(
        out,
        "  {:<label_w$}  {:>start_w$}  {:>end_w$}  {}",
        "buffer",
        "start",
        "end",
        ruler(backing, width)
    );

    let mut ordered: Vec<&BufferRow<'_>> = rows.iter().collect();
    // By buffer group (buffers outside the tree last), then program order, then index.
    // In a phase pool, phase by phase.
    ordered.sort_by_key(|r| (r.group.is_none(), r.phase, r.group, r.slot, r.index));
    let mut heading = None;
    let has_tree = spec.tree.is_some();
    for r in ordered.iter().take(MAX_ROWS) {
        if has_tree && heading != Some((r.phase, r.group)) {
            heading = Some((r.phase, r.group));
            let phase = r.phase.map(|p| format!("phase {p}, ")).unwrap_or_default();
            match r
                .group
                .and_then(|k| row_group_range(spec, r).map(|g| (k, g)))
            {
                Some((k, (s, e))) => {
                    let _ = writeln!(out, "  {phase}group {k} [{s}, {e})");
                }
                None => match r.group {
                    Some(k) => {
                        let _ = writeln!(out, "  group {k}");
                    }
                    None => out.push_str("  outside the reuse tree\n"),
                },
            }
        }
        let letter = letters.get(r.slot).copied().unwrap_or('*');
        let mut cells = vec!['.'; usize::try_from(width).unwrap_or(0)];
        mark(&mut cells, r.start, r.end, backing, letter);
        let past = if r.end > backing {
            "  past the backing"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:<label_w$}  {:>start_w$}  {:>end_w$}  |{}|{past}",
            r.label(),
            r.start,
            r.end,
            cells.iter().collect::<String>()
        );
    }
    let hidden = (ordered.len().saturating_sub(MAX_ROWS) as u64).saturating_add(skipped);
    if hidden > 0 {
        let _ = writeln!(out, "  … {hidden} more buffers not shown");
    }
    let mut used = vec!['.'; usize::try_from(width).unwrap_or(0)];
    for r in &rows {
        mark(&mut used, r.start, r.end, backing, '#');
    }
    let _ = writeln!(
        out,
        "  {:<pad$}|{}|",
        "used",
        used.iter().collect::<String>(),
        pad = pad
    );
    let _ = write!(out, "backing: {}", backing_text(spec));
    if spec.rows > 0 {
        let _ = write!(out, " (buffer_size_bytes {})", spec.buffer_size_bytes);
    }
    out.push('\n');
}

/// `f32 [128, 128] ×2`, from the program when it knows the allocation.
fn describe(program: &Program, a: &AllocPlan) -> String {
    match program.allocation(a.alloc) {
        Ok(x) if x.name == a.name => {
            let dims: Vec<String> = x.shape.iter().map(u64::to_string).collect();
            format!("{} [{}] ×{}", x.dtype, dims.join(", "), a.num)
        }
        _ => format!("×{}", a.num),
    }
}

/// One letter per allocation: its initial (upper case) where free, else the first free one.
fn letters(allocs: &[&AllocPlan]) -> Vec<char> {
    let mut taken: Vec<char> = Vec::new();
    for a in allocs {
        let initial = a
            .name
            .chars()
            .find(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase());
        let pick = initial
            .filter(|c| !taken.contains(c))
            .or_else(|| LETTERS.chars().find(|c| !taken.contains(c)))
            .unwrap_or('*');
        taken.push(pick);
    }
    taken
}

/// Marks with `letter` the cells of `cells` (the bar over `[0, backing)`) that `[start, end)`
/// touches.
fn mark(cells: &mut [char], start: u64, end: u64, backing: u64, letter: char) {
    let width = cells.len() as u64;
    if start >= end || width == 0 || backing == 0 || start >= backing {
        return;
    }
    let end = end.min(backing);
    let scale = |u: u64| u128::from(u) * u128::from(width);
    let first = scale(start) / u128::from(backing);
    let last = scale(end).div_ceil(u128::from(backing));
    for c in first..last.min(u128::from(width)) {
        if let Some(cell) = usize::try_from(c).ok().and_then(|c| cells.get_mut(c)) {
            *cell = letter;
        }
    }
}

/// `|0      64      128 …  256|`: offsets at the quarters of the bar, the backing at its end
/// (labels that would collide are left out, the end one last).
fn ruler(backing: u64, width: u64) -> String {
    let w = usize::try_from(width).unwrap_or(0);
    let mut line = vec![' '; w];
    let put = |line: &mut Vec<char>, at: usize, text: &str| {
        for (k, ch) in text.chars().enumerate() {
            if let Some(cell) = at.checked_add(k).and_then(|i| line.get_mut(i)) {
                *cell = ch;
            }
        }
    };
    let end = backing.to_string();
    let limit = match w.checked_sub(end.len()) {
        Some(from) => {
            put(&mut line, from, &end);
            from.saturating_sub(1)
        }
        None => w,
    };
    let mut free_from = 0usize;
    for q in 0..4u64 {
        let pos = width.saturating_mul(q) / 4;
        let Ok(p) = usize::try_from(pos) else {
            continue;
        };
        if (q > 0 && pos == 0) || p < free_from {
            continue;
        }
        let value = u128::from(pos) * u128::from(backing) / u128::from(width.max(1));
        let label = value.to_string();
        if p.saturating_add(label.len()) > limit {
            continue;
        }
        put(&mut line, p, &label);
        free_from = p.saturating_add(label.len()).saturating_add(1);
    }
    format!("|{}|", line.iter().collect::<String>())
}

fn digits(v: u64) -> usize {
    v.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_rulers() {
        let mut cells = vec!['.'; 8];
        mark(&mut cells, 64, 65, 256, 'A');
        assert_eq!(cells.iter().collect::<String>(), "..A.....");
        mark(&mut cells, 200, 300, 256, 'B');
        assert_eq!(cells.iter().collect::<String>(), "..A...BB");
        assert_eq!(ruler(256, 16), "|0   64  128  256|");
        assert_eq!(ruler(4, 4), "|0  4|");
        assert_eq!(ruler(0, 0), "||");
    }
}
