//! The plan-file format on the FA forward file and every feature of the format: round trips,
//! and errors that name line, column, entry and key.

use super::read::line_col;
use super::*;
use crate::{AllocLayout, CtaMode, DType, Mode, PlanOptions, ReuseGroup, Storage};

const FA: &str = r#"
target = "sm_100"

[[spec]]
name = "qk_storage"
storage = "tmem"
overlap = { shared = ["qk", { distinct = [{ shared = ["p"], group_size = 2 }, "alpha", "l", "m"] }] }

[[alloc]]
name = "qk"
shape = [128, 128]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "p"
shape = [128, 64]
dtype = "bf16"
num = 4
spec = "qk_storage"

[[alloc]]
name = "alpha"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "l"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "m"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"
"#;

/// The same program through the builder, as in the crate docs.
fn fa_program() -> Result<Program, AllocError> {
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

fn message(text: &str) -> String {
    match PlanFile::parse(text) {
        Ok(_) => String::from("<parsed>"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn fa_forward_parses_to_the_builder_program() -> Result<(), AllocError> {
    let file = PlanFile::parse(FA)?;
    assert_eq!(file.program, fa_program()?);
    assert_eq!(file.target, Some(Target::SM100));
    let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
    let p: Vec<u64> = (0..4)
        .map(|i| plan.buffer_start("p", i))
        .collect::<Result<_, _>>()?;
    assert_eq!(p, [0, 32, 128, 160]);
    Ok(())
}

#[test]
fn fa_forward_round_trips() -> Result<(), AllocError> {
    let file = PlanFile::parse(FA)?;
    let text = file.to_toml();
    assert_eq!(PlanFile::parse(&text)?, file);
    let tree = "overlap = { shared = [\n    \"qk\",\n    { distinct = [{ shared = [\"p\"], group_size = 2 }, \"alpha\", \"l\", \"m\"] },\n] }\n";
    assert!(text.contains(tree), "{text}");
    assert!(
        !text.contains("storage = \"tmem\"\nlayout"),
        "defaults stay implicit"
    );
    Ok(())
}

#[test]
fn everything_round_trips() -> Result<(), AllocError> {
    let text = r##"
[[spec]]
name = "a_very_long_spec_name_for_breaking_lines"
storage = "smem"
buffer_size_bytes = 65536
overlap = { shared = ["first_allocation_name", { distinct = ["second_allocation_name", { shared = ["third_allocation_name"], group_size = 2 }] }] }

[[spec]]
name = "t"
storage = "tmem"

[[alloc]]
name = "first_allocation_name"
shape = [64, 64]
dtype = "bf16"
num = 2
spec = "a_very_long_spec_name_for_breaking_lines"
layout = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
align = 1024

[[alloc]]
name = "second_allocation_name"
shape = [64, 32]
dtype = "fp8e4nv"
num = 2
spec = "a_very_long_spec_name_for_breaking_lines"
layout = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>"

[[alloc]]
name = "third_allocation_name"
shape = [32, 32]
dtype = "i8"
num = 4
spec = "a_very_long_spec_name_for_breaking_lines"

[[alloc]]
name = "dq"
shape = [64, 128]
dtype = "f32"
num = 1
spec = "t"
cta_mode = "TwoCTA_RHS"

[[alloc]]
name = "x"
shape = [128, 64]
dtype = "f32"
num = 1
spec = "t"
layout = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>"

[[alloc]]
name = "y"
shape = [128, 64]
dtype = "i4"
num = 1
spec = "t"
layout = "dummy_tmem"

[[alloc]]
name = "plain"
shape = [256]
dtype = "f32"
num = 3

[[alloc]]
name = "view"
shape = [128]
dtype = "f16"
num = 2
reuse = "plain"

[[overlap]]
spec = "t"
tree = { distinct = ["dq", "x"] }

[[overlap]]
spec = "t"
tree = { shared = ["y"] }
"##;
    let program = parse(text)?;
    let written = to_toml(&program);
    assert_eq!(parse(&written)?, program, "{written}");
    assert!(written.contains("[[overlap]]"), "{written}");
    assert!(written.contains("cta_mode = \"two_cta_rhs\""), "{written}");
    let dq = program
        .alloc_id("dq")
        .map(|id| program.allocation(id))
        .transpose()?
        .map(|a| a.layout.clone());
    assert!(matches!(dq, Some(AllocLayout::Tmem(_, CtaMode::TwoCtaRhs))));
    // Without the extra overlaps the trees go inline again, the long one over lines.
    let cut = text.split("[[overlap]]").next().unwrap_or_default();
    let program = parse(cut)?;
    let written = to_toml(&program);
    assert!(
        written.contains("overlap = { shared = [\n    \"first_allocation_name\",\n"),
        "{written}"
    );
    assert_eq!(parse(&written)?, program, "{written}");
    Ok(())
}

#[test]
fn toml_errors_name_line_entry_and_key() {
    let bad = FA.replace("num = 4", "num = \"4\"");
    let m = message(&bad);
    assert!(
        m.starts_with("line 20, column 7 (alloc #2 'p', key 'num'): "),
        "{m}"
    );
    let bad = FA.replace("dtype = \"bf16\"", "dtpe = \"bf16\"");
    let m = message(&bad);
    assert!(m.contains("alloc #2 'p'") && m.contains("dtpe"), "{m}");
    assert_eq!(m.lines().count(), 1, "{m}");
    let m = message("[[spec]]\nname = \"s\"\nstorage = tmem\n");
    assert!(
        m.starts_with("line 3, column 11 (spec #1 's', key 'storage'): "),
        "{m}"
    );
    let m = message(&FA.replace("shape = [128, 64]\n", ""));
    assert!(m.contains("alloc #2 'p'") && m.contains("shape"), "{m}");
}

#[test]
fn value_errors_name_line_entry_and_key() {
    let m = message(&FA.replace("\"bf16\"", "\"bf17\""));
    assert!(
        m.starts_with("line 19, column 9 (alloc #2 'p', key 'dtype'): unknown dtype 'bf17'"),
        "{m}"
    );
    let m = message(&FA.replace("storage = \"tmem\"", "storage = \"gmem\""));
    assert!(
        m.starts_with(
            "line 6, column 11 (spec #1 'qk_storage', key 'storage'): unknown storage 'gmem'"
        ),
        "{m}"
    );
    let m = message(&FA.replace("\"alpha\", \"l\"", "\"alpha\", \"ll\""));
    assert!(m.starts_with("line 7, column 11 (spec #1 'qk_storage', key 'overlap'): overlap.shared[1].distinct[2]: no allocation named 'll'"), "{m}");
    let m = message(&FA.replace("group_size = 2", "group_size = 0"));
    assert!(
        m.ends_with(
            "overlap.shared[1].distinct[0].shared: group_size must be a positive integer, got 0"
        ),
        "{m}"
    );
    let m = message(&FA.replace("{ shared = [\"p\"]", "{ shared = [\"p\"], distinct = []"));
    assert!(m.contains("not both"), "{m}");
    let m = message(&FA.replace(
        "overlap = { shared = [\"qk\"",
        "overlap = { shred = [\"qk\"",
    ));
    assert!(m.contains("unknown key 'shred'"), "{m}");
    let m = message(&FA.replace("[\"qk\", { distinct", "[\"qk\", 3, { distinct"));
    assert!(
        m.contains(
            "overlap.shared[1]: expected an allocation name or a group table, found integer"
        ),
        "{m}"
    );
    let m = message(&FA.replacen("spec = \"qk_storage\"", "spec = \"kq\"", 1));
    assert!(
        m.contains("(alloc #1 'qk', key 'spec'): no spec named 'kq'"),
        "{m}"
    );
    let m = message(&FA.replace("target = \"sm_100\"", "target = \"sm_75\""));
    assert!(
        m.starts_with("line 2, column 10 (key 'target'): unknown target 'sm_75'"),
        "{m}"
    );
    let m = message(&FA.replacen(
        "num = 2\nspec = \"qk_storage\"",
        "num = 2\nspec = \"qk_storage\"\nreuse = \"p\"",
        1,
    ));
    assert!(m.contains("not both"), "{m}");
    let m = message(&FA.replacen("spec = \"qk_storage\"", "reuse = \"m\"", 1));
    assert!(m.contains("no earlier allocation named 'm'"), "{m}");
}

#[test]
fn layout_errors() {
    let with = |extra: &str| {
        message(&FA.replacen(
            "spec = \"qk_storage\"\n",
            &format!("spec = \"qk_storage\"\n{extra}\n"),
            1,
        ))
    };
    let m = with("layout = \"#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\"");
    assert!(
        m.contains("key 'layout'): a shared-memory layout on a tensor-memory allocation"),
        "{m}"
    );
    let m = with("layout = \"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>\"");
    assert!(m.contains("cannot hold an allocation"), "{m}");
    let m = with("layout = \"#ttg.nvmma_shared<{swizzlingByteWidth = 128\"");
    assert!(m.contains("key 'layout'): parse error"), "{m}");
    let m = with("layout = \"swizzled\"");
    assert!(m.contains("is not a layout"), "{m}");
    let m = with("cta_mode = \"three_cta\"");
    assert!(m.contains("unknown cta_mode 'three_cta'"), "{m}");
    let m = with("layout = \"dummy_tmem\"\ncta_mode = \"two_cta_lhs\"");
    assert!(
        m.contains("cta_mode needs a #ttng.tensor_memory_encoding"),
        "{m}"
    );
    let smem = FA.replace("storage = \"tmem\"", "storage = \"smem\"");
    let m = message(&smem.replacen(
        "spec = \"qk_storage\"\n",
        "spec = \"qk_storage\"\ncta_mode = \"two_cta_rhs\"\n",
        1,
    ));
    assert!(m.contains("cta_mode applies to tensor memory"), "{m}");
}

#[test]
fn builder_errors_keep_their_variant() {
    let dup = FA.replace("name = \"l\"", "name = \"m\"");
    assert!(matches!(parse(&dup), Err(AllocError::DuplicateName { .. })));
    let mismatch = FA.replacen(
        "spec = \"qk_storage\"\n",
        "spec = \"qk_storage\"\nstorage = \"smem\"\n",
        1,
    );
    let err = parse(&mismatch).err();
    assert!(
        matches!(err, Some(AllocError::StorageMismatch { .. })),
        "{err:?}"
    );
    let zero = FA.replace("storage = \"tmem\"", "storage = \"tmem\"\nsize = 0");
    assert!(matches!(
        parse(&zero),
        Err(AllocError::NonPositiveSize { .. })
    ));
}

#[test]
fn hostile_input_is_an_error_not_a_panic() -> Result<(), AllocError> {
    for text in [
        "",
        "[[",
        "[[alloc]]\n",
        "overlap = 3",
        "[[spec]]\nname = \"s\"\nstorage = \"smem\"\noverlap = \"a\"",
        "[[alloc]]\nname = \"é\"\nshape = [1]\ndtype = \"f32\"\nnum = -1",
    ] {
        let _ = parse(text);
    }
    assert_eq!(parse("")?, Program::new());
    let m = message("[[spec]]\nname = \"s\"\nstorage = \"smem\"\noverlap = \"a\"");
    assert!(m.contains("the root of a reuse tree is a group"), "{m}");
    Ok(())
}

#[test]
fn line_col_counts_characters() {
    assert_eq!(line_col("ab\néx = 1", 6), (2, 3));
    assert_eq!(line_col("é", 1), (1, 1));
    assert_eq!(line_col("x", 99), (1, 2));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Edited plan files never panic the parser, and whatever parses writes back to the
    /// same program.
    #[test]
    fn edited_files_parse_or_fail_cleanly(
        edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<char>()), 1..4)
    ) {
        let mut text: Vec<char> = FA.chars().collect();
        for (at, c) in edits {
            let at = at % (text.len() + 1);
            if c.is_ascii_digit() || c == '"' || c == ']' || c == '}' {
                text.insert(at, c);
            } else if at < text.len() {
                text[at] = c;
            }
        }
        let text: String = text.into_iter().collect();
        if let Ok(file) = PlanFile::parse(&text) {
            proptest::prop_assert_eq!(PlanFile::parse(&file.to_toml()).ok(), Some(file));
        }
    }
}
