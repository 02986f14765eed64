//! The shared-memory layout families against Triton 3.9: every golden case of
//! `tests/data/families/{swizzled_shared,nvmma_shared}.json` (layout and alignment, or an error
//! where Triton failed), the documented departures (typed errors where Triton silently builds a
//! different map), the CuTe view of NVMMA's swizzle, and properties on random parameters.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::gluon_spec::{encoding, layout, load_cases, shape};
use linear_layout::families::{
    AmdRotatingShared, CuteSwizzle, Encoding, NvmmaShared, PaddedShared, PartitionedShared,
    SharedEncoding, SwizzledShared,
};
use linear_layout::{Dim, LayoutError, LinearLayout};
use proptest::prelude::*;
use serde_json::Value;

// ----- goldens -------------------------------------------------------------------------------

/// A deliberate departure from Triton 3.9: which cases it covers and the parameter our typed
/// error must name.
struct Departure {
    reason: &'static str,
    param: &'static str,
    applies: fn(&Value) -> bool,
}

fn non_pow2(spec: &Value, key: &str) -> bool {
    spec[key].as_u64().is_some_and(|v| !v.is_power_of_two())
}

const SWIZZLED_DEPARTURES: &[Departure] = &[
    Departure {
        reason: "vec not a power of two (Triton builds a non-XOR map, or none for 0)",
        param: "vec",
        applies: |s| non_pow2(s, "vec"),
    },
    Departure {
        reason: "per_phase not a power of two (Triton builds a non-XOR map, crashes on 0)",
        param: "per_phase",
        applies: |s| !non_pow2(s, "vec") && non_pow2(s, "per_phase"),
    },
    Departure {
        reason: "max_phase not a power of two (Triton builds a non-XOR map, crashes on 0)",
        param: "max_phase",
        applies: |s| !non_pow2(s, "vec") && !non_pow2(s, "per_phase") && non_pow2(s, "max_phase"),
    },
];

/// None: every NVMMA case Triton builds agrees, and every parameter or shape it rejects (Gluon
/// assertion or process abort) is a typed error here. (Rank-1 swizzled layouts, which Triton
/// only `assert`s against, are not in the goldens; they are `InvalidShape` here.)
const NVMMA_DEPARTURES: &[Departure] = &[];

#[derive(Default)]
struct Tally {
    agree: usize,
    agree_errors: usize,
    departures: Vec<(&'static str, bool)>,
    mismatches: Vec<String>,
}

fn shared(spec: &Value) -> SharedEncoding {
    match encoding(spec) {
        Encoding::Shared(s) => s,
        other => panic!("not a shared layout: {other:?}"),
    }
}

fn check_family(family: &str, departures: &[Departure]) -> Tally {
    let mut t = Tally::default();
    for case in load_cases(family) {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let spec = &case["args"]["layout"];
        if case["op"] == "mlir" {
            check_mlir_case(&id, spec, &case["expect"], &mut t);
            continue;
        }
        assert_eq!(case["op"], "to_linear_layout", "{id}");
        let enc = shared(spec);
        let shape = shape(&case["args"]["shape"]);
        // Gluon's view of a partitioned layout drops the `partition` in-dim; the properties
        // test checks it.
        let got = enc.to_linear_layout(&shape).and_then(|l| match enc {
            SharedEncoding::Partitioned(_) => l.sublayout(&["offset", "block"], &l.out_dim_names()),
            _ => Ok(l),
        });
        let triton_ok = case["expect"].get("ok").is_some();
        if let Some(d) = departures.iter().find(|d| (d.applies)(spec)) {
            match &got {
                Err(LayoutError::InvalidParameter { param, .. }) if *param == d.param => {
                    t.departures.push((d.reason, triton_ok));
                }
                other => t.mismatches.push(format!(
                    "{id}: departure '{}' expects InvalidParameter naming {}, got {other:?}",
                    d.reason, d.param
                )),
            }
            continue;
        }
        match (&case["expect"], got) {
            (e, Ok(l)) if triton_ok => {
                let want = layout(&e["ok"]["layout"]);
                let want_align = e["ok"]["alignment"].as_u64();
                if l != want || want_align != Some(enc.alignment()) {
                    t.mismatches.push(format!(
                        "{id} {spec} shape {shape:?}\n  expected {want:?} (alignment {want_align:?})\n  got      {l:?} (alignment {})",
                        enc.alignment()
                    ));
                } else {
                    t.agree += 1;
                }
            }
            (e, Err(err)) if triton_ok => t.mismatches.push(format!(
                "{id} {spec} shape {shape:?}\n  expected {}\n  got error {err}",
                layout(&e["ok"]["layout"]).to_json()
            )),
            (e, Ok(l)) => t.mismatches.push(format!(
                "{id} {spec} shape {shape:?}\n  expected error {}\n  got {l:?}",
                e["error"]
            )),
            (e, Err(err)) => match error_kind_agrees(e["error"].as_str().unwrap_or(""), &err) {
                Ok(()) => t.agree_errors += 1,
                Err(why) => t
                    .mismatches
                    .push(format!("{id} {spec} shape {shape:?}: {why}")),
            },
        }
    }
    t
}

/// A padded layout (alone or as the pieces of a partitioned one), which has no linear layout in
/// Triton: the attribute Triton prints from the Gluon spec parses to ours and ours prints it
/// back byte for byte; where Triton's verifier refuses the spec, ours does too.
fn check_mlir_case(id: &str, spec: &Value, expect: &Value, t: &mut Tally) {
    let padded = if spec["kind"] == "padded_shared" {
        spec
    } else {
        &spec["partition_layout"]
    };
    let pairs: Vec<(u64, u64)> = common::gluon_spec::bases(&padded["interval_padding_pairs"])
        .iter()
        .map(|p| (p[0], p[1]))
        .collect();
    let checked = PaddedShared::new(
        &pairs,
        &common::gluon_spec::bases(&padded["offset_bases"]),
        &common::gluon_spec::bases(&padded["cga_layout"]),
        &shape(&padded["shape"]),
    );
    match (expect.get("ok"), checked) {
        (Some(ok), Ok(_)) => {
            let text = ok["mlir"].as_str().unwrap_or("");
            let ours = encoding(spec);
            match Encoding::from_mlir(text) {
                Ok(parsed) if parsed == ours && ours.to_mlir() == text => t.agree += 1,
                other => t.mismatches.push(format!(
                    "{id} {spec}\n  Triton prints {text}\n  we print     {}\n  we parse it as {other:?}",
                    ours.to_mlir()
                )),
            }
        }
        (Some(_), Err(e)) => t
            .mismatches
            .push(format!("{id} {spec}: Triton takes it, we refuse: {e}")),
        (None, Ok(p)) => t.mismatches.push(format!(
            "{id} {spec}: Triton refuses ({}), we take {p:?}",
            expect["error"]
        )),
        (None, Err(LayoutError::InvalidParameter { .. })) => t.agree_errors += 1,
        (None, Err(e)) => t
            .mismatches
            .push(format!("{id}: refused, but not as InvalidParameter: {e}")),
    }
}

/// Triton's failure and ours must be the same kind: a Python-side parameter assertion is an
/// `InvalidParameter`; an abort on the shape (TMA block, atom, non-power-of-two, no offset bits)
/// is an `InvalidShape` saying which check failed.
fn error_kind_agrees(triton: &str, ours: &LayoutError) -> Result<(), String> {
    let shape_reason = |needle: &str| match ours {
        LayoutError::InvalidShape { reason, .. } if reason.contains(needle) => Ok(()),
        _ => Err(format!(
            "Triton failed with '{triton}', expected InvalidShape mentioning '{needle}', got {ours}"
        )),
    };
    if triton.contains("getTMABlockShape failed") {
        shape_reason("swizzle row")
    } else if triton.contains("Illegal shared layout") {
        shape_reason("atom")
    } else if triton.contains("offset_bases must not be empty") {
        shape_reason("no offset bits")
    } else if triton.contains("Assertion `llvm::all_of(shape") {
        shape_reason("power of two").or_else(|_| shape_reason("cannot be cut into"))
    } else if triton.contains("SharedLinearEncodingAttr::toLinearLayout") {
        shape_reason("does not broadcast a shared linear layout")
    } else if triton.contains("has no linear layout; use paddedLinearLayout")
        || triton.contains("partitioned layouts wrapping padded layouts")
    {
        match ours {
            LayoutError::InvalidParameter { reason, .. }
                if reason.contains("paddedLinearLayout") =>
            {
                Ok(())
            }
            _ => Err(format!(
                "Triton: '{triton}', expected our refusal to name paddedLinearLayout, got {ours}"
            )),
        }
    } else if triton.starts_with("AssertionError") {
        match ours {
            LayoutError::InvalidParameter { .. } => Ok(()),
            _ => Err(format!(
                "Gluon refused the parameters ('{triton}'), expected InvalidParameter, got {ours}"
            )),
        }
    } else {
        Err(format!(
            "unclassified Triton failure '{triton}' (ours: {ours})"
        ))
    }
}

fn report(family: &str, t: &Tally) {
    println!(
        "{family}: {} agree ({} layouts, {} errors), {} departures, {} mismatches",
        t.agree + t.agree_errors,
        t.agree,
        t.agree_errors,
        t.departures.len(),
        t.mismatches.len()
    );
    let mut reasons: Vec<&str> = t.departures.iter().map(|d| d.0).collect();
    reasons.sort_unstable();
    reasons.dedup();
    for r in reasons {
        let n = t.departures.iter().filter(|d| d.0 == r).count();
        let built = t.departures.iter().filter(|d| d.0 == r && d.1).count();
        println!("  departure: {r}: {n} cases (Triton built a layout in {built})");
    }
    for m in t.mismatches.iter().take(20) {
        println!("MISMATCH {m}");
    }
}

#[test]
fn swizzled_shared_goldens() {
    let t = check_family("swizzled_shared", SWIZZLED_DEPARTURES);
    report("swizzled_shared", &t);
    assert!(t.mismatches.is_empty(), "{} mismatches", t.mismatches.len());
    assert_eq!(t.agree + t.agree_errors + t.departures.len(), 161);
}

#[test]
fn nvmma_shared_goldens() {
    let t = check_family("nvmma_shared", NVMMA_DEPARTURES);
    report("nvmma_shared", &t);
    assert!(t.mismatches.is_empty(), "{} mismatches", t.mismatches.len());
    assert_eq!(t.agree + t.agree_errors + t.departures.len(), 493);
}

/// `#ttg.shared_linear` on its own shape and on others (Triton asserts they are equal).
#[test]
fn padded_shared_goldens() {
    let t = check_family("padded_shared", &[]);
    report("padded_shared", &t);
    assert!(t.mismatches.is_empty());
    assert!(
        t.agree > 50 && t.agree_errors >= 3,
        "{} / {}",
        t.agree,
        t.agree_errors
    );
}

#[test]
fn partitioned_shared_goldens() {
    let t = check_family("partitioned_shared", &[]);
    report("partitioned_shared", &t);
    assert!(t.mismatches.is_empty());
    assert!(
        t.agree > 50 && t.agree_errors > 5,
        "{} / {}",
        t.agree,
        t.agree_errors
    );
}

/// The `partition` in-dim Gluon's view drops: each partition bit picks the next piece along
/// the cut dim, and the whole layout is a bijection onto the allocation.
#[test]
fn partitions_are_the_pieces_in_turn() {
    for case in load_cases("partitioned_shared") {
        let spec = &case["args"]["layout"];
        let (Some(_), SharedEncoding::Partitioned(p)) = (case["expect"].get("ok"), shared(spec))
        else {
            continue;
        };
        if case["op"] != "to_linear_layout" {
            continue;
        }
        let shape = shape(&case["args"]["shape"]);
        let l = p.to_linear_layout(&shape).unwrap();
        let pieces = u64::from(p.num_partitions * p.num_groups);
        let piece = shape[p.partition_dim] / pieces;
        let partition = l.bases_of("partition").unwrap();
        assert_eq!(partition.len() as u32, p.num_partitions.trailing_zeros());
        for (k, b) in partition.iter().enumerate() {
            let mut want = vec![0; shape.len()];
            want[p.partition_dim] = piece << k;
            assert_eq!(b, &want, "{spec}");
        }
        assert!(l.is_injective() && l.is_surjective(), "{spec} on {shape:?}");
    }
}

#[test]
fn shared_linear_goldens() {
    let t = check_family("shared_linear", &[]);
    report("shared_linear", &t);
    assert!(t.mismatches.is_empty(), "{} mismatches", t.mismatches.len());
    assert_eq!(t.agree + t.agree_errors, 60);
    assert!(t.agree_errors > 0 && t.agree > 0);
}

// ----- CuTe ----------------------------------------------------------------------------------

/// `(row, col) → byte address` of one atom stored row-major, `row_bytes` per row.
fn row_major_bytes(rows: u64, cols: u64, elem_bytes: u64, row_bytes: u64) -> LinearLayout {
    let pow = |n: u64, step: u64| (0..n.trailing_zeros()).map(|i| vec![step << i]).collect();
    LinearLayout::from_bases(
        &[
            ("dim0", pow(rows, row_bytes)),
            ("dim1", pow(cols, elem_bytes)),
        ],
        &[("offset", rows * row_bytes)],
        false,
    )
    .unwrap()
}

/// NVMMA's swizzle is CuTe's `Swizzle<log2(sw/16), 4, 3>` on byte addresses: for one atom,
/// element offset → (row, col) → row-major byte address → CuTe swizzle gives the element's
/// byte address back.
#[test]
fn nvmma_swizzle_is_cute_swizzle_on_bytes() {
    for sw in [32u32, 64, 128] {
        for bits in [8u32, 16, 32, 64] {
            let n = NvmmaShared::new(sw, bits, false, false, vec![]).unwrap();
            let cute = n.cute_swizzle().unwrap();
            let want = match sw {
                32 => "Sw<1,4,3>",
                64 => "Sw<2,4,3>",
                _ => "Sw<3,4,3>",
            };
            assert_eq!(cute.to_string(), want);
            let atom = n.atom().unwrap();
            let eb = u64::from(bits / 8);
            let row_bytes = u64::from(sw);
            let (rows, cols) = (
                atom.out_dim_size("dim0").unwrap(),
                atom.out_dim_size("dim1").unwrap(),
            );
            assert_eq!((rows, cols * eb), (8, row_bytes));
            let bytes = row_major_bytes(rows, cols, eb, row_bytes);
            let via_cute = atom
                .compose(&bytes)
                .unwrap()
                .compose(&cute.to_linear_layout(8 * row_bytes).unwrap())
                .unwrap();
            let elements = 8 * row_bytes / eb;
            assert_eq!(
                via_cute,
                LinearLayout::strided_1d(elements, eb, "offset", "offset").unwrap(),
                "{sw}B, {bits}-bit"
            );
            // The same, point by point, with CuTe's formula.
            let ev = atom.evaluator().unwrap();
            for o in 0..elements {
                let rc = ev.split(ev.apply(o));
                let addr = rc[0] * row_bytes + rc[1] * eb;
                assert_eq!(cute.apply(addr), o * eb, "{sw}B {bits}-bit offset {o}");
            }
            // And the whole layout of one atom-sized allocation is that atom.
            let full = n.to_linear_layout(&[rows, cols]).unwrap();
            assert_eq!(
                full.bases_of("offset").unwrap(),
                atom.bases_of("offset").unwrap()
            );
        }
    }
    assert_eq!(
        NvmmaShared::new(0, 16, false, false, vec![])
            .unwrap()
            .cute_swizzle(),
        None
    );
}

#[test]
fn cute_swizzle_matches_pycute() {
    // pycute: yyy_msk = bit_msk << (base + shift); offset ^ ((offset & yyy_msk) >> shift)
    for (b, m, s) in [
        (3, 4, 3),
        (2, 4, 3),
        (1, 4, 3),
        (2, 0, 3),
        (3, 3, 3),
        (0, 4, 3),
        (1, 0, 5),
    ] {
        let sw = CuteSwizzle::new(b, m, s).unwrap();
        let yyy = ((1u64 << b) - 1) << (m + s);
        let l = sw.to_linear_layout(sw.size().unwrap() * 2).unwrap();
        let ev = l.evaluator().unwrap();
        for x in 0..sw.size().unwrap() * 2 {
            let want = x ^ ((x & yyy) >> s);
            assert_eq!(sw.apply(x), want, "{sw} at {x}");
            assert_eq!(ev.apply(x), want, "{sw} layout at {x}");
        }
        assert!(l.is_invertible());
        assert_eq!(l.invert().unwrap(), l, "{sw} is an involution");
    }
    assert!(matches!(
        CuteSwizzle::new(3, 4, 2),
        Err(LayoutError::InvalidParameter { param: "shift", .. })
    ));
    let sw = CuteSwizzle::new(3, 4, 3).unwrap();
    assert!(matches!(
        sw.to_linear_layout(512),
        Err(LayoutError::InvalidShape { .. })
    ));
    assert!(matches!(
        sw.to_linear_layout(1536),
        Err(LayoutError::InvalidShape { .. })
    ));
}

// ----- huge and hostile parameters -----------------------------------------------------------

#[test]
fn hostile_parameters_error_without_panicking() {
    let big = u32::MAX;
    for (vec, pp, mp) in [
        (big, 1, 1),
        (1, big, 1),
        (1, 1, big),
        (1 << 31, 1, 1),
        (0, 0, 0),
    ] {
        let s = SwizzledShared {
            vec,
            per_phase: pp,
            max_phase: mp,
            order: vec![1, 0],
            cga_layout: vec![],
        };
        assert!(matches!(
            s.to_linear_layout(&[16, 16]),
            Err(LayoutError::InvalidParameter { .. })
        ));
    }
    let ok = SwizzledShared::new(1 << 30, 1 << 30, 1 << 30, vec![1, 0], vec![]).unwrap();
    assert!(ok.to_linear_layout(&[1 << 30, 1 << 30]).is_ok());
    assert!(ok.to_linear_layout(&[1 << 31, 2]).is_err());
    assert!(ok.to_linear_layout(&[u64::MAX, 2]).is_err());
    assert!(ok.to_linear_layout(&[16]).is_err());
    let wide = SwizzledShared::new(1, 1, 1, (0..40).collect(), vec![]).unwrap();
    assert!(wide.to_linear_layout(&[1 << 30; 40]).is_err()); // 1200 offset bits
    let bad_order = SwizzledShared {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order: vec![usize::MAX, 0],
        cga_layout: vec![],
    };
    assert!(bad_order.to_linear_layout(&[4, 4]).is_err());
    let bad_cga = SwizzledShared {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order: vec![1, 0],
        cga_layout: vec![vec![u64::MAX, 0]],
    };
    assert!(bad_cga.to_linear_layout(&[4, 4]).is_err());
    let short_cga = SwizzledShared {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order: vec![1, 0],
        cga_layout: vec![vec![1]],
    };
    assert!(short_cga.to_linear_layout(&[4, 4]).is_err());

    for (sw, bits) in [(big, 16), (16, 16), (128, 0), (128, big), (0, 4)] {
        let n = NvmmaShared {
            swizzle_byte_width: sw,
            element_bitwidth: bits,
            transposed: false,
            fp4_padded: false,
            cga_layout: vec![],
            rank: None,
        };
        assert!(matches!(
            n.to_linear_layout(&[64, 64]),
            Err(LayoutError::InvalidParameter { .. })
        ));
        assert!(n.atom().is_err());
    }
    for transposed in [false, true] {
        for sw in [0, 128] {
            let n = NvmmaShared::new(sw, 8, transposed, false, vec![]).unwrap();
            assert!(n.to_linear_layout(&[]).is_err());
            assert!(n.to_linear_layout(&[u64::MAX, 128]).is_err());
            assert!(n.to_linear_layout(&[1 << 30; 40]).is_err());
            assert!(n.to_linear_layout(&[256; 12]).is_err());
            assert!(n.to_linear_layout(&[1, 1]).is_err());
        }
    }
    assert!(matches!(
        NvmmaShared::new(128, 16, false, false, vec![])
            .unwrap()
            .to_linear_layout(&[128]),
        Err(LayoutError::InvalidShape { .. })
    ));

    let sw = CuteSwizzle {
        bits: big,
        base: big,
        shift: big,
    };
    assert!(CuteSwizzle::new(big, big, big).is_err());
    assert!(sw.size().is_err() && sw.to_linear_layout(1 << 20).is_err());
    let _ = (sw.apply(u64::MAX), sw.address_bits(), sw.to_string());
    let sw = CuteSwizzle {
        bits: 5,
        base: 62,
        shift: 1,
    };
    let _ = sw.apply(u64::MAX);
    assert!(sw.size().is_err());
}

// ----- properties ----------------------------------------------------------------------------

fn identity_on(dims: &[(Dim, u64)]) -> LinearLayout {
    dims.iter().fold(LinearLayout::empty(), |l, &(d, s)| {
        l.product(&LinearLayout::identity_1d(s, d, d).unwrap())
            .unwrap()
    })
}

/// Surjective; `P = pseudoinvert` satisfies `L ∘ P = id` on the tensor, and `P ∘ L = id` on
/// (offset, block) when `L` is injective.
fn check_inverse(l: &LinearLayout) {
    assert!(l.is_surjective(), "{l:?}");
    let p = l.pseudoinvert().unwrap();
    assert_eq!(p.compose(l).unwrap(), identity_on(&l.out_dims()), "{l:?}");
    if l.is_injective() {
        assert_eq!(l.compose(&p).unwrap(), identity_on(&l.in_dims()), "{l:?}");
    }
}

fn pow2(max_log2: u32) -> impl Strategy<Value = u64> {
    (0..=max_log2).prop_map(|e| 1u64 << e)
}

fn swizzled_case() -> impl Strategy<Value = (SwizzledShared, Vec<u64>)> {
    (1usize..=3)
        .prop_flat_map(|rank| {
            (
                Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
                (pow2(4), pow2(3), pow2(4)),
                prop::collection::vec(pow2(5), rank),
                prop::option::of(0..rank),
            )
        })
        .prop_filter("at least 2 elements per CTA", |(_, _, shape, split)| {
            let total: u64 = shape.iter().product();
            match split {
                Some(d) => shape[*d] >= 2 && total >= 4,
                None => total >= 2,
            }
        })
        .prop_map(|(order, (vec, pp, mp), shape, split)| {
            let rank = shape.len();
            let cga = split
                .map(|d| vec![(0..rank).map(|i| u64::from(i == d)).collect()])
                .unwrap_or_default();
            let s = SwizzledShared::new(vec as u32, pp as u32, mp as u32, order, cga).unwrap();
            (s, shape)
        })
}

/// A valid NVMMA case: the contiguous dim holds at least one swizzle row and the collapsed
/// block at least 8 rows.
fn nvmma_case() -> impl Strategy<Value = (NvmmaShared, Vec<u64>)> {
    (
        prop::sample::select(vec![0u32, 32, 64, 128]),
        prop::sample::select(vec![8u32, 16, 32, 64]),
        any::<bool>(),
        any::<bool>(),
        1usize..=3,
        prop::collection::vec(0u32..=3, 3),
    )
        .prop_filter_map(
            "valid NVMMA shape",
            |(sw, bits, transposed, fp4, rank, grow)| {
                let fp4 = fp4 && sw == 128 && bits == 8;
                let bits = if fp4 { 8 } else { bits };
                if sw != 0 && rank < 2 {
                    return None;
                }
                let contig = if transposed { 0 } else { rank - 1 };
                let row = (8 * u64::from(sw.max(16)) / u64::from(bits)) / if fp4 { 2 } else { 1 };
                let mut shape: Vec<u64> = grow.iter().take(rank).map(|&g| 1u64 << g).collect();
                if sw != 0 {
                    shape[contig] = row << grow[0];
                    // collapsed rows: the last dim when transposed (Triton 3.9), else the leading dims
                    let rows_dim = if transposed { rank - 1 } else { 0 };
                    shape[rows_dim] = 8 << grow[rows_dim.min(2)].min(2);
                    if rank == 3 && !transposed {
                        shape[1] = 1 << grow[1];
                    }
                }
                if shape.iter().product::<u64>() < 2 {
                    return None;
                }
                let n = NvmmaShared::new(sw, bits, transposed, fp4, vec![]).ok()?;
                Some((n, shape))
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rotating_layouts_are_bijections_swizzled_within_a_block((s, shape) in swizzled_case()) {
        prop_assume!(s.cga_layout.is_empty());
        let swizzled = s.to_linear_layout(&shape).unwrap();
        let l = AmdRotatingShared { swizzle: s.clone() }.to_linear_layout(&shape).unwrap();
        prop_assert!(l.is_injective() && l.is_surjective(), "{:?}", l);
        check_inverse(&l);
        // Row bases below one block of `per_phase · max_phase` rows are the swizzled ones.
        let block = u64::from(s.per_phase) * u64::from(s.max_phase);
        let row = s.order.get(1).copied();
        for (a, b) in l.bases_of("offset").unwrap().iter().zip(swizzled.bases_of("offset").unwrap()) {
            if row.is_none_or(|r| a[r] < block) {
                prop_assert_eq!(a, &b);
            }
        }
    }

    #[test]
    fn partitioned_layouts_are_bijections(
        (s, shape) in swizzled_case(),
        np in 1u32..3,
        ng in 0u32..3,
        dim_pick in 0usize..3,
    ) {
        let dim = dim_pick % shape.len();
        let p = PartitionedShared::new(1 << np, 1 << ng, dim, SharedEncoding::Swizzled(s)).unwrap();
        let mut big = shape.clone();
        big[dim] <<= np + ng;
        let l = p.to_linear_layout(&big).unwrap();
        prop_assert!(l.is_injective() && l.is_surjective(), "{:?}", l);
        check_inverse(&l);
    }

    #[test]
    fn padded_slots_are_distinct_and_fit_the_padded_size(
        pairs in prop::collection::vec((0u32..8, 0u32..5), 1..3),
        log2s in prop::collection::vec(0u32..5, 1..=3),
    ) {
        let pairs: Vec<(u64, u64)> = pairs.iter().map(|&(i, p)| (1 << i, 1 << p)).collect();
        let shape: Vec<u64> = log2s.iter().map(|&l| 1 << l).collect();
        let order: Vec<usize> = (0..shape.len()).collect();
        let Ok(p) = PaddedShared::with_identity(&pairs, &shape, &order) else {
            // Only a repeated interval is refused.
            prop_assert!(pairs.iter().enumerate().any(|(k, a)| pairs[k + 1..].iter().any(|b| b.0 == a.0)));
            return Ok(());
        };
        prop_assert!(p.linear_component().sublayout(&["offset"], &p.linear_component().out_dim_names()).unwrap().is_injective());
        let n: u64 = shape.iter().product();
        let slots: Vec<u64> = (0..n).map(|x| p.padded_offset(x)).collect();
        prop_assert!(slots.windows(2).all(|w| w[0] < w[1]), "{:?}", slots);
        prop_assert!(slots.last().is_some_and(|&last| last < p.padded_size(n)), "{:?}", slots);
    }

    #[test]
    fn swizzled_shared_is_a_bijection_with_xor_columns((s, shape) in swizzled_case()) {
        let l = s.to_linear_layout(&shape).unwrap();
        prop_assert!(l.is_injective(), "{:?}", l);
        check_inverse(&l);
        // Columns (order[0]) come first, and every swizzle step moves whole `vec` groups.
        let per_cta: Vec<u64> = shape.iter().enumerate()
            .map(|(d, &n)| if s.cga_layout.first().is_some_and(|b| b[d] == 1) { n / 2 } else { n })
            .collect();
        let c = s.order[0];
        let cols = per_cta[c];
        let offsets = l.bases_of("offset").unwrap();
        for (i, b) in offsets.iter().enumerate() {
            if i < cols.trailing_zeros() as usize {
                let mut unit = vec![0; shape.len()];
                unit[c] = 1 << i;
                prop_assert_eq!(b, &unit);
            } else {
                prop_assert_eq!(b[c] % u64::from(s.vec).min(cols), 0);
            }
        }
        // The closed form on 2-D slices: column col ⊕ vec·((row / per_phase) mod max_phase).
        if shape.len() == 2 && s.cga_layout.is_empty() {
            let r = s.order[1];
            let p = l.pseudoinvert().unwrap();
            for row in 0..per_cta[r] {
                for col in 0..cols {
                    let phase = (row / u64::from(s.per_phase)) % u64::from(s.max_phase);
                    let phys = col ^ ((u64::from(s.vec) * phase) % cols);
                    let mut at = [("dim0", 0), ("dim1", 0)];
                    at[r].1 = row;
                    at[c].1 = col;
                    let got = p.apply(&at).unwrap();
                    prop_assert_eq!(got[0].1, row * cols + phys);
                }
            }
        }
    }

    #[test]
    fn nvmma_shared_is_a_bijection_keeping_16_byte_vectors((n, shape) in nvmma_case()) {
        let l = n.to_linear_layout(&shape).unwrap();
        check_inverse(&l);
        let offsets = l.bases_of("offset").unwrap();
        let rank = shape.len();
        // Triton 3.9 relabels transposed unswizzled blocks of rank ≥ 3 with a wrong rotation,
        // which may repeat elements; everything else is a bijection (fp4 aside).
        let quirk = n.swizzle_byte_width == 0 && n.transposed && rank >= 3;
        if n.fp4_padded {
            // Exactly offset bit 3 of each 16-byte group is padding.
            prop_assert_eq!(&offsets[3], &vec![0; rank]);
            prop_assert_eq!(l.rank(), l.total_in_dim_size_log2() - 1);
            let p = l.pseudoinvert().unwrap();
            for d in 0..rank {
                for b in p.bases_of(Dim::standard(d)).unwrap() {
                    prop_assert_eq!(b[0] & 8, 0, "the inverse picks real (not padding) offsets");
                }
            }
        } else if !quirk {
            prop_assert!(l.is_injective(), "{:?}", l);
        }
        if !n.fp4_padded && !quirk {
            let contig = if n.transposed { 0 } else { rank - 1 };
            let vec = 128 / u64::from(n.element_bitwidth);
            if shape[contig] >= vec {
                for (i, b) in offsets.iter().take(vec.trailing_zeros() as usize).enumerate() {
                    let mut unit = vec![0; rank];
                    unit[contig] = 1 << i;
                    prop_assert_eq!(b, &unit);
                }
            }
        }
    }
}
