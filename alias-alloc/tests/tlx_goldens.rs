//! TlxCompatible mode against fbtriton 3.7.4's real `tlx-storage-alias-lowering` pass:
//! backing shapes, alias shapes, the physical index of every logical buffer, warnings and error
//! texts for every case `tools/gen_tlx_alias_goldens.py` recorded.

use alias_alloc::{
    checker::check, AllocError, AllocLayout, Allocation, CtaMode, DType, GroupKind, Member, Mode,
    PlanOptions, Program, Reuse, ReuseGroup, Storage, Warning,
};
use linear_layout::families::{NvmmaShared, SharedEncoding, SwizzledShared, TensorMemory};
use serde_json::Value;

const CASES: &str = include_str!("data/tlx_alias/cases.json");

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_default()
}

fn u32v(v: &Value) -> u32 {
    u32::try_from(u(v)).unwrap_or(u32::MAX)
}

/// The case's layout; `null` on TMEM means the generator's default encoding
/// (`blockM = M, blockN = N, colStride = 1`), also for sub-16-bit types.
fn layout(v: &Value, storage: Storage, tile: &[u64]) -> Result<AllocLayout, AllocError> {
    if let (true, Storage::Tmem, [m, n]) = (v.is_null(), storage, tile) {
        return Ok(AllocLayout::Tmem(
            TensorMemory {
                block_m: u32::try_from(*m).unwrap_or(u32::MAX),
                block_n: u32::try_from(*n).unwrap_or(u32::MAX),
                col_stride: 1,
                cga_layout: vec![],
                two_ctas: false,
                fp4_padded: false,
            },
            CtaMode::Default,
        ));
    }
    let err = |e: linear_layout::LayoutError| AllocError::Input(e.to_string());
    Ok(match s(&v["kind"]) {
        // The generator's SMEM default is unswizzled (it writes the module itself; TLX's
        // frontend would have picked an NVMMA layout).
        "" if storage == Storage::Smem => {
            let order = (0..tile.len()).rev().collect();
            AllocLayout::Shared(SharedEncoding::Swizzled(
                SwizzledShared::new(1, 1, 1, order, vec![]).map_err(err)?,
            ))
        }
        "" => AllocLayout::Default,
        "swizzled_shared" => {
            let order = v["order"].as_array().map_or(vec![], |o| {
                o.iter()
                    .map(|x| usize::try_from(u(x)).unwrap_or(0))
                    .collect()
            });
            AllocLayout::Shared(SharedEncoding::Swizzled(
                SwizzledShared::new(
                    u32v(&v["vec"]),
                    u32v(&v["per_phase"]),
                    u32v(&v["max_phase"]),
                    order,
                    vec![],
                )
                .map_err(err)?,
            ))
        }
        "nvmma_shared" => AllocLayout::Shared(SharedEncoding::Nvmma(
            NvmmaShared::new(
                u32v(&v["swizzle_bytes"]),
                u32v(&v["element_bits"]),
                v["transposed"].as_bool().unwrap_or(false),
                v["fp4_padded"].as_bool().unwrap_or(false),
                vec![],
            )
            .map_err(err)?,
        )),
        "tmem" => AllocLayout::Tmem(
            TensorMemory {
                block_m: u32v(&v["block_m"]),
                block_n: u32v(&v["block_n"]),
                col_stride: u32v(&v["col_stride"]),
                cga_layout: vec![],
                two_ctas: v["two_ctas"].as_bool().unwrap_or(false),
                fp4_padded: false,
            },
            match s(&v["cta_mode"]) {
                "two_cta_lhs" => CtaMode::TwoCtaLhs,
                "two_cta_rhs" => CtaMode::TwoCtaRhs,
                _ => CtaMode::Default,
            },
        ),
        "dummy_tmem" => AllocLayout::DummyTmem,
        other => return Err(AllocError::Input(format!("unknown layout kind {other}"))),
    })
}

fn tree(p: &Program, v: &Value) -> Result<Member, AllocError> {
    if let Some(name) = v.as_str() {
        return p
            .alloc_id(name)
            .map(Member::Alloc)
            .ok_or_else(|| AllocError::Input(format!("no alloc {name}")));
    }
    let kids = v["children"]
        .as_array()
        .map_or(Ok(vec![]), |c| c.iter().map(|c| tree(p, c)).collect())?;
    let kind = if s(&v["kind"]) == "distinct" {
        GroupKind::Distinct
    } else {
        GroupKind::Shared
    };
    Ok(Member::Group(
        ReuseGroup::new(kind, kids)?.group_size(u(&v["group_size"]).max(1))?,
    ))
}

/// Builds the case's program; `Ok(None)` for what the API cannot express (2-D TMEM memdescs
/// without a buffer dim).
fn program(case: &Value) -> Result<Option<Program>, AllocError> {
    let mut p = Program::new();
    for spec in case["specs"].as_array().into_iter().flatten() {
        let storage: Storage = s(&spec["storage"]).parse()?;
        p.storage_alias_spec(s(&spec["name"]), storage, spec["size"].as_u64())?;
    }
    for a in case["allocs"].as_array().into_iter().flatten() {
        let shape: Vec<u64> = a["shape"].as_array().into_iter().flatten().map(u).collect();
        let storage: Storage = s(&a["memory"]).parse()?;
        if storage == Storage::Tmem && shape.len() == 2 {
            return Ok(None);
        }
        let spec = p
            .spec_id(s(&a["spec"]))
            .ok_or_else(|| AllocError::Input("no spec".into()))?;
        let tile = shape.get(1..).unwrap_or_default().to_vec();
        p.alloc(Allocation {
            name: s(&a["name"]).into(),
            layout: layout(&a["layout"], storage, &tile)?,
            shape: tile,
            dtype: s(&a["dtype"])
                .parse::<DType>()
                .map_err(|e| AllocError::Input(e.to_string()))?,
            num: shape.first().copied().unwrap_or(0),
            storage,
            reuse: Reuse::Spec(spec),
            align: None,
        })?;
    }
    for o in case["overlaps"].as_array().into_iter().flatten() {
        let spec = p
            .spec_id(s(&o["spec"]))
            .ok_or_else(|| AllocError::Input("no spec".into()))?;
        match tree(&p, &o["tree"])? {
            Member::Group(g) => p.set_buffer_overlap(spec, g)?,
            Member::Alloc(_) => return Err(AllocError::Input("tree is a leaf".into())),
        }
    }
    Ok(Some(p))
}

/// Compares one case; returns the mismatches.
fn compare(case: &Value) -> Vec<String> {
    let exp = &case["expected"];
    let want_warnings: Vec<&str> = exp["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    let planned = program(case).and_then(|p| match p {
        None => Ok(None),
        Some(p) => p
            .plan(&PlanOptions::new(Mode::TlxCompatible))
            .map(|plan| Some((p, plan))),
    });
    let mut bad = Vec::new();
    match (exp["ok"].as_bool(), planned) {
        (_, Ok(None)) => {}
        (Some(true), Ok(Some((p, plan)))) => {
            for spec in exp["specs"].as_array().into_iter().flatten() {
                let want: Vec<u64> = spec["backing_shape"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(u)
                    .collect();
                match plan.spec(s(&spec["name"])) {
                    Ok(got) if got.backing_shape == want => {}
                    Ok(got) => bad.push(format!(
                        "backing {}: {:?} != {want:?}",
                        s(&spec["name"]),
                        got.backing_shape
                    )),
                    Err(e) => bad.push(e.to_string()),
                }
            }
            for a in exp["allocs"].as_array().into_iter().flatten() {
                let name = s(&a["name"]);
                let Ok(got) = plan.alloc(name) else {
                    bad.push(format!("no plan for {name}"));
                    continue;
                };
                let shape: Vec<u64> = a["alias_shape"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(u)
                    .collect();
                if got.alias_shape.as_ref() != Some(&shape) {
                    bad.push(format!("alias {name}: {:?} != {shape:?}", got.alias_shape));
                }
                for (i, want) in a["indices"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(u)
                    .enumerate()
                {
                    let slot = got.reindex.as_ref().map(|r| r.slot(i as u64));
                    if slot != Some(Ok(want)) {
                        bad.push(format!("{name}[{i}] -> {slot:?}, TLX {want}"));
                    }
                }
            }
            let got_warnings: Vec<String> = plan
                .warnings
                .iter()
                .filter_map(Warning::tlx_message)
                .collect();
            if got_warnings != want_warnings {
                bad.push(format!("warnings {got_warnings:?} != {want_warnings:?}"));
            }
            // Every checker finding on TLX's placement is reported as a warning.
            for v in check(&p, &plan) {
                if !plan.warnings.contains(&Warning::Unsafe(v.clone())) {
                    bad.push(format!("unreported violation: {v}"));
                }
            }
        }
        (Some(false), Err(e)) => {
            let want = s(&exp["error"]);
            if e.tlx_message().as_deref() != Some(want) {
                bad.push(format!("error {:?} ({e}) != {want:?}", e.tlx_message()));
            }
            // What TLX warned about before failing is what we show beside the error.
            if let Ok(Some(p)) = program(case) {
                let early: Vec<String> = p
                    .early_warnings()
                    .iter()
                    .filter_map(Warning::tlx_message)
                    .collect();
                if early != want_warnings {
                    bad.push(format!(
                        "warnings before the error {early:?} != {want_warnings:?}"
                    ));
                }
            }
        }
        (Some(false), Ok(Some(_))) => bad.push(format!("planned, TLX says {}", s(&exp["error"]))),
        (_, Err(e)) => bad.push(format!("error {e}, TLX planned it")),
        (None, Ok(Some(_))) => bad.push("case without expected.ok".into()),
    }
    bad
}

#[test]
fn every_fbtriton_case_matches() {
    let data: Value = serde_json::from_str(CASES).expect("cases.json parses");
    let cases = data["cases"].as_array().expect("cases");
    let (mut ok, mut skipped, mut failed) = (0, 0, Vec::new());
    for case in cases {
        if matches!(program(case), Ok(None)) {
            skipped += 1;
            continue;
        }
        let bad = compare(case);
        if bad.is_empty() {
            ok += 1;
        } else {
            failed.push(format!("{}: {}", s(&case["name"]), bad.join("; ")));
        }
    }
    eprintln!(
        "fbtriton 3.7.4 goldens: {ok} match, {skipped} not expressible, {} differ",
        failed.len()
    );
    assert!(cases.len() >= 400, "only {} cases", cases.len());
    assert!(
        failed.is_empty(),
        "{} cases differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
