//! The reports on real trees: Flash-Attention forward in both modes, an SMEM tree with holes,
//! a TMEM spec the `tcgen05.alloc` rounding leaves half idle, and the SVG's well-formedness.

#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::report::{self, GroupUtilisation, TmemSuggestion};
use alias_alloc::{
    AllocLayout, Allocation, DType, Mode, Plan, PlanOptions, Program, Reuse, ReuseGroup, Storage,
};

/// Test results: `AllocError` is large, so errors travel boxed.
type Res<T> = Result<T, Box<dyn std::error::Error>>;
type TestResult = Res<()>;

/// The TLX tutorial's FA forward tree (the crate example): `qk` (f32 128×128, 128 columns)
/// shared with a distinct group of `p` (bf16 128×64, 32 columns, 2 subtiles per group),
/// `alpha`, `l` and `m` (1 column each).
fn fa_forward() -> Res<Program> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
    let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
    let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
    let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 2, s)?;
    let l = p.local_alloc("l", &[128, 1], DType::F32, 2, s)?;
    let m = p.local_alloc("m", &[128, 1], DType::F32, 2, s)?;
    let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
    let distinct = ReuseGroup::distinct(vec![slices.into(), alpha.into(), l.into(), m.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
    Ok(p)
}

/// `a` (f32 32×64 = 8 KiB, asked to sit on 16 KiB) and `b` (f32 32×32 = 4 KiB) side by side:
/// the distinct group needs 12 KiB, the root rounds `U` up to a's 16 KiB alignment, so each of
/// the 2 buffer groups ends in a 4 KiB hole.
fn smem_with_holes() -> Res<Program> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.alloc(Allocation {
        name: "a".into(),
        shape: vec![32, 64],
        dtype: DType::F32,
        num: 2,
        storage: Storage::Smem,
        reuse: Reuse::Spec(s),
        layout: AllocLayout::Default,
        align: Some(16384),
    })?;
    let b = p.local_alloc("b", &[32, 32], DType::F32, 2, s)?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
    Ok(p)
}

fn plan(p: &Program, mode: Mode) -> Res<Plan> {
    Ok(p.plan(&PlanOptions::new(mode))?)
}

#[test]
fn fa_forward_utilisation_in_both_modes() -> TestResult {
    let p = fa_forward()?;
    for mode in [Mode::Intended, Mode::TlxCompatible] {
        let plan = plan(&p, mode)?;
        let u = report::utilisation(&p, &plan);
        assert_eq!(u.len(), 1);
        let u = &u[0];
        // U = 128 columns (qk's tile), 2 buffer groups → 256 columns. Inside a group the
        // distinct members cover only [0, 67): p's two 32-column subtiles, then alpha, l, m at
        // 64, 65, 66 (TLX mode puts p's second subtile at 96 instead of 32, which covers
        // [96, 128) and still leaves [67, 96) to qk alone). Columns 67..128 of each group are
        // therefore free of the distinct group — but qk spans the whole group, so every column
        // is used by someone: 256 used, 0 unused, no hole in any group.
        assert_eq!(u.region, "qk_storage");
        assert_eq!(
            (u.backing_units, u.used_units, u.unused_units),
            (256, 256, 0),
            "{mode:?}"
        );
        assert!(u.unused.is_empty());
        assert_eq!(
            u.groups,
            [
                GroupUtilisation {
                    group: 0,
                    start: 0,
                    end: 128,
                    unused: vec![]
                },
                GroupUtilisation {
                    group: 1,
                    start: 128,
                    end: 256,
                    unused: vec![]
                },
            ]
        );
        // 256 columns is a tcgen05.alloc size already: nothing idle, no suggestion.
        assert_eq!(u.suggestion, None);
        assert_eq!(u.skipped_buffers, 0);
        assert_eq!(u.to_string(), "qk_storage: 256 columns, 256 used, 0 unused");
    }
    Ok(())
}

#[test]
fn fa_forward_without_qk_shows_the_free_columns() -> TestResult {
    // The reasoning above, checked: the same plan with qk's buffers taken out of the picture
    // leaves exactly [67, 128) and [195, 256) free.
    let p = fa_forward()?;
    let mut plan = plan(&p, Mode::Intended)?;
    plan.allocs.retain(|a| a.name != "qk");
    let u = &report::utilisation(&p, &plan)[0];
    assert_eq!((u.used_units, u.unused_units), (134, 122));
    assert_eq!(u.unused, [(67, 128), (195, 256)]);
    assert_eq!(u.groups[0].unused, [(67, 128)]);
    assert_eq!(u.groups[1].unused_units(), 61);
    assert_eq!(
        u.to_string(),
        "qk_storage: 256 columns, 134 used, 122 unused (47.7 %): group 0 [67, 128); group 1 [195, 256)"
    );
    Ok(())
}

#[test]
fn smem_tree_with_a_known_hole() -> TestResult {
    let p = smem_with_holes()?;
    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(plan.buffer_start("b", 1)?, 16384 + 8192);
    let u = &report::utilisation(&p, &plan)[0];
    // The backing stops after the last group's content (16384 + 12288): only group 0 has a hole.
    assert_eq!(
        (u.backing_units, u.used_units, u.unused_units),
        (28672, 24576, 4096)
    );
    assert_eq!(u.unused, [(12288, 16384)]);
    assert_eq!(u.groups[0].unused, [(12288, 16384)]);
    assert!(u.groups[1].unused.is_empty());
    assert_eq!(u.suggestion, None); // SMEM: no tcgen05.alloc
    assert_eq!(
        u.to_string(),
        "s: 28672 bytes, 24576 used, 4096 unused (14.3 %): group 0 [12288, 16384)"
    );
    // TLX rejects this tree (its buffer groups must be whole multiples of every unit).
    assert!(plan_tlx_fails(&p));
    Ok(())
}

fn plan_tlx_fails(p: &Program) -> bool {
    plan(p, Mode::TlxCompatible).is_err()
}

#[test]
fn tmem_rounding_suggests_unsharing() -> TestResult {
    // Three f32 128×64 accumulators (64 columns each) with a 1-column alpha on each: 192
    // columns, which tcgen05.alloc rounds to 256 — 64 idle, enough for alpha's 3 columns.
    let mut p = Program::new();
    let t = p.storage_alias_spec("acc", Storage::Tmem, None)?;
    let acc = p.local_alloc("acc", &[128, 64], DType::F32, 3, t)?;
    let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 3, t)?;
    p.set_buffer_overlap(t, ReuseGroup::shared(vec![acc.into(), alpha.into()])?)?;
    let plan = plan(&p, Mode::Intended)?;
    let u = &report::utilisation(&p, &plan)[0];
    assert_eq!((u.backing_units, u.used_units), (192, 192));
    assert_eq!(
        u.suggestion,
        Some(TmemSuggestion {
            columns: 192,
            alloc_columns: 256,
            free_columns: 64,
            unshare: vec![("alpha".into(), 3)],
        })
    );
    assert_eq!(
        u.to_string(),
        "acc: 192 columns, 192 used, 0 unused — tcgen05.alloc rounds 192 columns up to 256, 64 idle: alpha (3 columns) could stop sharing and use them"
    );
    Ok(())
}

#[test]
fn text_map_lists_every_buffer() -> TestResult {
    let p = fa_forward()?;
    for mode in [Mode::Intended, Mode::TlxCompatible] {
        let plan = plan(&p, mode)?;
        let text = report::memory_map_text(&p, &plan);
        for a in &plan.allocs {
            for i in 0..a.num {
                let start = a.placement.offset(i)?;
                let row = text
                    .lines()
                    .find(|l| l.trim_start().starts_with(&format!("{}[{i}] ", a.name)))
                    .unwrap_or_else(|| panic!("no row for {}[{i}] in\n{text}", a.name));
                let fields: Vec<&str> = row.split_whitespace().collect();
                assert_eq!(fields[1], start.to_string(), "{row}");
            }
        }
        assert!(text.contains("backing: 256 columns × 128 lanes (buffer_size_bytes 131072)"));
        assert!(text.ends_with("qk_storage: 256 columns, 256 used, 0 unused\n"));
        // Every bar is BAR_WIDTH characters between pipes.
        for l in text.lines().filter(|l| l.ends_with('|')) {
            let bar = l.rsplit('|').nth(1).unwrap_or_default();
            assert_eq!(bar.chars().count() as u64, report::BAR_WIDTH, "{l}");
        }
    }
    // TLX: p[1] at 96 — columns 96..128 are cells 24..32 of the 64-character bar.
    let tlx = report::memory_map_text(&p, &plan(&p, Mode::TlxCompatible)?);
    let row = tlx
        .lines()
        .find(|l| l.trim_start().starts_with("p[1] "))
        .unwrap_or_default();
    assert!(
        row.ends_with(&format!(
            "|{}{}{}|",
            ".".repeat(24),
            "P".repeat(8),
            ".".repeat(32)
        )),
        "{row}"
    );
    assert!(tlx.starts_with("qk_storage: tmem, 256 columns × 128 lanes, TLX-compatible mode"));
    Ok(())
}

#[test]
fn text_map_of_fa_forward_intended() -> TestResult {
    let p = fa_forward()?;
    let text = report::memory_map_text(&p, &plan(&p, Mode::Intended)?);
    let expected = "\
qk_storage: tmem, 256 columns × 128 lanes, Intended mode, 2 buffer groups of 128 columns
legend: Q = qk (f32 [128, 128] ×2), P = p (bf16 [128, 64] ×4), A = alpha (f32 [128, 1] ×2), L = l (f32 [128, 1] ×2), M = m (f32 [128, 1] ×2)
  buffer    start  end  |0               64              128             192          256|
  group 0 [0, 128)
  qk[0]         0  128  |QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ................................|
  p[0]          0   32  |PPPPPPPP........................................................|
  p[1]         32   64  |........PPPPPPPP................................................|
  alpha[0]     64   65  |................A...............................................|
  l[0]         65   66  |................L...............................................|
  m[0]         66   67  |................M...............................................|
  group 1 [128, 256)
  qk[1]       128  256  |................................QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ|
  p[2]        128  160  |................................PPPPPPPP........................|
  p[3]        160  192  |........................................PPPPPPPP................|
  alpha[1]    192  193  |................................................A...............|
  l[1]        193  194  |................................................L...............|
  m[1]        194  195  |................................................M...............|
  used                  |################################################################|
backing: 256 columns × 128 lanes (buffer_size_bytes 131072)
qk_storage: 256 columns, 256 used, 0 unused
";
    assert_eq!(text, expected);
    Ok(())
}

#[test]
fn text_map_of_smem_holes() -> TestResult {
    let p = smem_with_holes()?;
    let text = report::memory_map_text(&p, &plan(&p, Mode::Intended)?);
    // The `used` row shows the 4 KiB hole at the end of group 0 (cells of 448 bytes: 12288 is
    // cell 27.4, 16384 cell 36.6), and group 1 ends the backing.
    let used = text
        .lines()
        .find(|l| l.starts_with("  used"))
        .ok_or("no used row")?;
    let bar: String = used.chars().skip_while(|&c| c != '|').collect();
    assert_eq!(bar.chars().filter(|&c| c == '.').count(), 8, "{text}");
    assert!(bar.starts_with(&format!("|{}", "#".repeat(27))), "{text}");
    assert!(bar.ends_with(&format!("{}|", "#".repeat(27))), "{text}");
    assert!(text.contains("legend: A = a (f32 [32, 64] ×2), B = b (f32 [32, 32] ×2)"));
    assert!(text.contains("backing: 28672 bytes\n"));
    Ok(())
}

/// A tiny XML well-formedness check: tags nest and close, attributes are quoted, text holds
/// no raw `<` and every `&` starts an entity. Returns the element names in document order.
fn check_xml(doc: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = doc;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "tag <{tag}>"
        );
        check_attributes(&body[name.len()..]);
        names.push(name.clone());
        if !self_closing {
            stack.push(name);
        }
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed {stack:?}");
    names
}

fn check_text(text: &str) {
    assert!(!text.contains('>'), "raw > in {text:?}");
    for (i, _) in text.match_indices('&') {
        let entity: String = text[i..].chars().take_while(|&c| c != ';').collect();
        assert!(
            ["&amp", "&lt", "&gt", "&quot", "&apos"].contains(&entity.as_str()),
            "bad entity {entity:?}"
        );
    }
}

fn check_attributes(mut attrs: &str) {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return;
        }
        let eq = attrs.find("=\"").expect("attribute without =\"");
        let name = &attrs[..eq];
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
            "{name}"
        );
        let value_end = attrs[eq + 2..].find('"').expect("unterminated value") + eq + 2;
        let value = &attrs[eq + 2..value_end];
        assert!(!value.contains('<'), "< in attribute {value:?}");
        check_text(value);
        attrs = &attrs[value_end + 1..];
    }
}

#[test]
fn svg_is_well_formed_with_one_rect_per_buffer() -> TestResult {
    for p in [fa_forward()?, smem_with_holes()?] {
        let plan = plan(&p, Mode::Intended)?;
        let svg = report::memory_map_svg(&p, &plan);
        let names = check_xml(&svg);
        assert_eq!(names.first().map(String::as_str), Some("svg"));
        let buffers: u64 = plan.allocs.iter().map(|a| a.num).sum();
        assert_eq!(
            names.iter().filter(|n| *n == "rect").count() as u64,
            buffers
        );
        // One tooltip per buffer, in the plan's units.
        for a in &plan.allocs {
            for i in 0..a.num {
                let start = a.placement.offset(i)?;
                let unit = plan.specs[a.region].storage.unit();
                assert!(
                    svg.contains(&format!("<title>{}[{i}]: {unit} {start}–", a.name)),
                    "{}[{i}]",
                    a.name
                );
            }
        }
        // Deterministic.
        assert_eq!(svg, report::memory_map_svg(&p, &plan));
    }
    let p = fa_forward()?;
    let svg = report::memory_map_svg(&p, &plan(&p, Mode::Intended)?);
    assert!(svg.contains("<title>p[1]: columns 32–64</title>"));
    assert!(svg.contains("qk_storage: tmem, 256 columns × 128 lanes, Intended mode"));
    assert!(svg.contains(">group 0<") && svg.contains(">group 1<"));
    assert!(svg.contains("qk: f32 [128, 128] ×2, 128 columns each"));
    for colour in &report::PALETTE[..5] {
        assert!(svg.contains(colour), "{colour}");
    }
    assert!(!svg.contains(">unused<")); // nothing unused in FA forward
    let holes = report::memory_map_svg(
        &smem_with_holes()?,
        &plan(&smem_with_holes()?, Mode::Intended)?,
    );
    assert!(holes.contains("<title>unused: bytes 12288–16384</title>"));
    Ok(())
}

#[test]
fn names_are_escaped() -> TestResult {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s<&>\"'", Storage::Smem, None)?;
    let a = p.local_alloc("a<b>&'c\"", &[64], DType::F16, 2, s)?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![a.into()])?)?;
    let plan = plan(&p, Mode::Intended)?;
    let svg = report::memory_map_svg(&p, &plan);
    check_xml(&svg);
    assert!(svg.contains("a&lt;b&gt;&amp;&apos;c&quot;[1]: bytes 128–256"));
    assert_eq!(svg.matches("<rect").count(), 2);
    Ok(())
}

#[test]
fn regions_without_trees_and_empty_plans() -> TestResult {
    // A plain 3-stage ring (its own region, no tree) next to a spec without a tree.
    let mut p = Program::new();
    let s = p.storage_alias_spec("views", Storage::Smem, None)?;
    p.local_alloc("x", &[64], DType::F32, 2, s)?; // 256 bytes per buffer
    p.local_alloc("y", &[32], DType::F32, 1, s)?; // 128 bytes, on x[0]
    p.alloc(Allocation {
        name: "ring".into(),
        shape: vec![64],
        dtype: DType::F16,
        num: 3,
        storage: Storage::Smem,
        reuse: Reuse::None,
        layout: AllocLayout::Default,
        align: None,
    })?;
    let plan = plan(&p, Mode::Intended)?;
    let u = report::utilisation(&p, &plan);
    let lines: Vec<String> = u.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "views: 512 bytes, 512 used, 0 unused",
            "ring: 384 bytes, 384 used, 0 unused"
        ]
    );
    assert!(u.iter().all(|u| u.groups.is_empty()));
    let text = report::memory_map_text(&p, &plan);
    assert!(!text.contains("group"));
    assert_eq!(text.matches("backing: ").count(), 2);
    check_xml(&report::memory_map_svg(&p, &plan));

    let empty = Program::new();
    let nothing = plan_or_empty(&empty)?;
    assert!(report::utilisation(&empty, &nothing).is_empty());
    assert_eq!(report::memory_map_text(&empty, &nothing), "no regions\n");
    let svg = report::memory_map_svg(&empty, &nothing);
    check_xml(&svg);
    assert_eq!(svg.matches("<rect").count(), 0);
    Ok(())
}

fn plan_or_empty(p: &Program) -> Res<Plan> {
    plan(p, Mode::Intended)
}

#[test]
fn a_damaged_plan_does_not_panic() -> TestResult {
    // Reports must survive plans the checker would reject: a buffer past the backing, an
    // allocation pointing at a region that does not exist.
    let p = fa_forward()?;
    let mut plan = plan(&p, Mode::Intended)?;
    plan.allocs[1].placement = linear_layout::BufferMap::new(240, &[(4, 32)])?;
    plan.allocs[2].region = 7;
    let u = &report::utilisation(&p, &plan)[0];
    assert_eq!(u.used_units, 256);
    let text = report::memory_map_text(&p, &plan);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("p[3] "))
        .unwrap_or_default();
    assert_eq!(
        row.split_whitespace().take(3).collect::<Vec<_>>(),
        ["p[3]", "336", "368"],
        "{text}"
    );
    assert!(text.contains("past the backing"));
    assert!(!text.contains("alpha"));
    let svg = report::memory_map_svg(&p, &plan);
    check_xml(&svg);
    assert!(svg.contains("(past the end of the backing, 256)"));
    Ok(())
}
