//! Writing a plan file: a [`Program`] as TOML that [`read`](super::read) gives back equal —
//! specs, then allocations in program order, each reuse tree inline on its spec (or as
//! `[[overlap]]` tables when a spec has more than one).

use linear_layout::families::Encoding;
use toml::Value;

use super::DUMMY_TMEM;
use crate::{
    AllocLayout, Allocation, CtaMode, Member, Program, Reuse, ReuseGroup, Storage, Target,
};

/// A member line longer than this is broken over several lines.
const LINE_WIDTH: usize = 96;

fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The file of `program` (with `target` when given).
pub(super) fn write_file(program: &Program, target: Option<Target>) -> String {
    let mut out = String::new();
    if let Some(t) = target {
        out.push_str(&format!("target = {}\n", quoted(&t.to_string())));
    }
    // Inline `overlap` keys when each spec has at most one, in spec order; else [[overlap]].
    let overlaps = program.overlaps();
    let inline = overlaps
        .windows(2)
        .all(|w| matches!(w, [a, b] if a.spec.index() < b.spec.index()));
    for (id, s) in program.specs() {
        out.push_str(&format!(
            "\n[[spec]]\nname = {}\nstorage = {}\n",
            quoted(&s.name),
            quoted(&s.storage.to_string())
        ));
        if let Some(size) = s.size {
            out.push_str(&format!("size = {size}\n"));
        }
        if inline {
            if let Some(o) = overlaps.iter().find(|o| o.spec == id) {
                out.push_str(&format!(
                    "overlap = {}\n",
                    tree_text(program, &o.tree, 0, 10)
                ));
            }
        }
    }
    for (_, a) in program.allocations() {
        write_alloc(&mut out, program, a);
    }
    if !inline {
        for o in overlaps {
            let spec = program
                .spec(o.spec)
                .map_or_else(|_| String::new(), |s| s.name.clone());
            out.push_str(&format!(
                "\n[[overlap]]\nspec = {}\ntree = {}\n",
                quoted(&spec),
                tree_text(program, &o.tree, 0, 7)
            ));
        }
    }
    out.trim_start_matches('\n').to_string()
}

fn write_alloc(out: &mut String, program: &Program, a: &Allocation) {
    let shape: Vec<String> = a.shape.iter().map(u64::to_string).collect();
    out.push_str(&format!(
        "\n[[alloc]]\nname = {}\nshape = [{}]\ndtype = {}\nnum = {}\n",
        quoted(&a.name),
        shape.join(", "),
        quoted(a.dtype.name()),
        a.num
    ));
    let implied = match a.reuse {
        Reuse::Spec(s) => {
            let spec = program.spec(s).ok();
            let name = spec.map_or_else(String::new, |s| s.name.clone());
            out.push_str(&format!("spec = {}\n", quoted(&name)));
            spec.map(|s| s.storage)
        }
        Reuse::Alloc(r) => {
            let reused = program.allocation(r).ok();
            let name = reused.map_or_else(String::new, |r| r.name.clone());
            out.push_str(&format!("reuse = {}\n", quoted(&name)));
            reused.map(|r| r.storage)
        }
        Reuse::None => Some(Storage::Smem),
    };
    if implied != Some(a.storage) {
        out.push_str(&format!("storage = {}\n", quoted(&a.storage.to_string())));
    }
    match &a.layout {
        AllocLayout::Default => {}
        AllocLayout::Shared(s) => {
            let attr = Encoding::Shared(s.clone()).to_mlir_for_rank(a.shape.len());
            out.push_str(&format!("layout = {}\n", quoted(&attr)));
        }
        AllocLayout::DummyTmem => out.push_str(&format!("layout = {}\n", quoted(DUMMY_TMEM))),
        AllocLayout::TmemScales(sc) => {
            let attr = Encoding::TensorMemoryScales(sc.clone()).to_mlir();
            out.push_str(&format!("layout = {}\n", quoted(&attr)));
        }
        AllocLayout::Tmem(tm, mode) => {
            // A CTA mode on TLX's default encoding needs no layout: parse rebuilds it.
            let default = Allocation {
                layout: AllocLayout::Default,
                ..a.clone()
            };
            let is_default = matches!(default.resolved_layout().map(std::borrow::Cow::into_owned),
                Ok(AllocLayout::Tmem(d, _)) if d == *tm);
            if !(is_default && *mode != CtaMode::Default) {
                let attr = Encoding::TensorMemory(tm.clone()).to_mlir();
                out.push_str(&format!("layout = {}\n", quoted(&attr)));
            }
            if *mode != CtaMode::Default {
                out.push_str(&format!("cta_mode = {}\n", quoted(cta_mode_name(*mode))));
            }
        }
    }
    if let Some(align) = a.align {
        out.push_str(&format!("align = {align}\n"));
    }
    if let Some(l) = program
        .alloc_id(&a.name)
        .and_then(|id| program.lifetime(id))
    {
        out.push_str(&format!("lifetime = [{}, {}]\n", l.start, l.end));
    }
}

/// A group as an inline table; on one line when it fits in [`LINE_WIDTH`] after `column`
/// characters, else with one member per line at `indent + 4` spaces.
fn tree_text(program: &Program, g: &ReuseGroup, indent: usize, column: usize) -> String {
    let one_line = tree_line(program, g);
    if column.saturating_add(one_line.len()) <= LINE_WIDTH {
        return one_line;
    }
    let inner = indent + 4;
    let lines: Vec<String> = g
        .members
        .iter()
        .map(|m| {
            let text = match m {
                Member::Alloc(a) => leaf_text(program, *a),
                Member::Group(sub) => tree_text(program, sub, inner, inner),
            };
            format!("{}{text},\n", " ".repeat(inner))
        })
        .collect();
    format!(
        "{{ {} = [\n{}{}]{} }}",
        g.kind,
        lines.concat(),
        " ".repeat(indent),
        group_size_text(g)
    )
}

/// A group on one line.
fn tree_line(program: &Program, g: &ReuseGroup) -> String {
    let members: Vec<String> = g
        .members
        .iter()
        .map(|m| match m {
            Member::Alloc(a) => leaf_text(program, *a),
            Member::Group(sub) => tree_line(program, sub),
        })
        .collect();
    format!(
        "{{ {} = [{}]{} }}",
        g.kind,
        members.join(", "),
        group_size_text(g)
    )
}

fn group_size_text(g: &ReuseGroup) -> String {
    if g.group_size == 1 {
        String::new()
    } else {
        format!(", group_size = {}", g.group_size)
    }
}

fn leaf_text(program: &Program, a: crate::AllocId) -> String {
    quoted(
        &program
            .allocation(a)
            .map_or_else(|_| format!("#{}", a.index()), |x| x.name.clone()),
    )
}

fn cta_mode_name(mode: CtaMode) -> &'static str {
    match mode {
        CtaMode::Default => "default",
        CtaMode::TwoCtaLhs => "two_cta_lhs",
        CtaMode::TwoCtaRhs => "two_cta_rhs",
    }
}
