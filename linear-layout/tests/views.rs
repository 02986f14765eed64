//! Triton's ASCII layout views (`tests/data/families/views.json`, recorded from Triton 3.9's
//! Gluon `get_layout_view`) byte for byte, and content checks of the SVG pictures.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::gluon_spec::{layout, load_cases};
use linear_layout::families::{Encoding, TensorMemory, TensorMemoryScales};
use linear_layout::views::style::WARP_PALETTE;
use linear_layout::views::svg::{
    bank_conflict_svg, shared_svg, tensor_svg, tmem_svg, MAX_GRID_SIDE,
};
use linear_layout::views::{distributed_view, layout_view, shared_view, MAX_VIEW_CELLS};
use linear_layout::{LayoutError, LinearLayout};

#[test]
fn every_golden_view_matches_byte_for_byte() {
    let cases = load_cases("views");
    assert_eq!(cases.len(), 14);
    let mut failures = Vec::new();
    for case in &cases {
        let ok = &case["expect"]["ok"];
        let l = layout(&ok["layout"]);
        let hw = case["args"]["hw"].as_bool().expect("hw flag");
        let want = ok["text"].as_str().expect("text");
        match layout_view(&l, hw) {
            Ok(got) if got == want => {}
            Ok(got) => {
                let line = got.lines().zip(want.lines()).position(|(a, b)| a != b);
                failures.push(format!(
                    "{}: first differing line {line:?}\n got: {:?}\nwant: {:?}",
                    case["id"],
                    &got[..got.len().min(300)],
                    &want[..want.len().min(300)]
                ));
            }
            Err(e) => failures.push(format!("{}: {e}", case["id"])),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Extra views recorded from Triton 3.9 (`LinearLayout.get_distributed_view` /
/// `get_shared_view`): several blocks, rank 3, broadcast lanes and offsets, elements nobody
/// holds, multi-digit padding.
#[test]
fn more_views_recorded_from_triton() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "dist_blocks",
            r#"{"bases": [["register", [[0, 1]]], ["lane", [[1, 0], [2, 0]]], ["warp", [[0, 2]]], ["block", [[4, 0]]]], "out_dims": [["dim0", 8], ["dim1", 4]]}"#,
            r#"[[B0:T0:0, B0:T0:1, B0:T4:0, B0:T4:1]
[ B0:T1:0, B0:T1:1, B0:T5:0, B0:T5:1]
[ B0:T2:0, B0:T2:1, B0:T6:0, B0:T6:1]
[ B0:T3:0, B0:T3:1, B0:T7:0, B0:T7:1]
[ B1:T0:0, B1:T0:1, B1:T4:0, B1:T4:1]
[ B1:T1:0, B1:T1:1, B1:T5:0, B1:T5:1]
[ B1:T2:0, B1:T2:1, B1:T6:0, B1:T6:1]
[ B1:T3:0, B1:T3:1, B1:T7:0, B1:T7:1]]
"#,
            r#"Block0:
Warp0:
(0,0), (1,0), (2,0), (3,0)
(0,1), (1,1), (2,1), (3,1)
Warp1:
(0,2), (1,2), (2,2), (3,2)
(0,3), (1,3), (2,3), (3,3)
Block1:
Warp0:
(4,0), (5,0), (6,0), (7,0)
(4,1), (5,1), (6,1), (7,1)
Warp1:
(4,2), (5,2), (6,2), (7,2)
(4,3), (5,3), (6,3), (7,3)
"#,
        ),
        (
            "dist_rank3",
            r#"{"bases": [["register", [[0, 0, 1]]], ["lane", [[0, 1, 0], [1, 0, 0], [0, 0, 0]]], ["warp", []], ["block", []]], "out_dims": [["dim0", 2], ["dim1", 2], ["dim2", 2]]}"#,
            r#"[[[T0:0|T4:0, T0:1|T4:1]
[  T1:0|T5:0, T1:1|T5:1]]
[[ T2:0|T6:0, T2:1|T6:1]
[  T3:0|T7:0, T3:1|T7:1]]]
"#,
            r#"Warp0:
(0,0,0), (0,1,0), (1,0,0), (1,1,0), (0,0,0), (0,1,0), (1,0,0), (1,1,0)
(0,0,1), (0,1,1), (1,0,1), (1,1,1), (0,0,1), (0,1,1), (1,0,1), (1,1,1)
"#,
        ),
        (
            "dist_partial",
            r#"{"bases": [["register", [[1]]], ["lane", [[4]]], ["warp", []], ["block", []]], "out_dims": [["dim0", 16]]}"#,
            r#"[T0:0, T0:1, , , T1:0, T1:1, , , , , , , , , , ]
"#,
            r#"Warp0:
( 0), ( 4)
( 1), ( 5)
"#,
        ),
        (
            "shared_blocks",
            r#"{"bases": [["offset", [[0, 1], [1, 0]]], ["block", [[2, 0]]]], "out_dims": [["dim0", 4], ["dim1", 2]]}"#,
            r#"[[(0:0),(0:1)]
[ (1:0),(1:1)]
[ (2:0),(2:1)]
[ (3:0),(3:1)]]
"#,
            r#"Block: 0:
Offset: 0 -> (0,0)
Offset: 1 -> (0,1)
Offset: 2 -> (1,0)
Offset: 3 -> (1,1)
Block: 1:
Offset: 0 -> (2,0)
Offset: 1 -> (2,1)
Offset: 2 -> (3,0)
Offset: 3 -> (3,1)
"#,
        ),
        (
            "shared_bcast",
            r#"{"bases": [["offset", [[1, 0], [0, 0], [0, 1], [2, 0]]], ["block", []]], "out_dims": [["dim0", 4], ["dim1", 2]]}"#,
            r#"[[(0:0),(1:0)]
[ (0:0),(1:0)]
[ (0:1),(1:1)]
[ (0:1),(1:1)]]
"#,
            r#"Block: 0:
Offset: 0 -> (0,0)
Offset: 1 -> (1,0)
Offset: 2 -> (0,0)
Offset: 3 -> (1,0)
Offset: 4 -> (0,1)
Offset: 5 -> (1,1)
Offset: 6 -> (0,1)
Offset: 7 -> (1,1)
"#,
        ),
        (
            "shared_rank3",
            r#"{"bases": [["offset", [[0, 0, 1], [0, 1, 0], [1, 0, 1]]], ["block", []]], "out_dims": [["dim0", 2], ["dim1", 2], ["dim2", 2]]}"#,
            r#"[[[(0:0:0),(0:0:1)]
[  (0:1:0),(0:1:1)]]
[[ (1:0:1),(1:0:0)]
[  (1:1:1),(1:1:0)]]]
"#,
            r#"Block: 0:
Offset: 0 -> (0,0,0)
Offset: 1 -> (0,0,1)
Offset: 2 -> (0,1,0)
Offset: 3 -> (0,1,1)
Offset: 4 -> (1,0,1)
Offset: 5 -> (1,0,0)
Offset: 6 -> (1,1,1)
Offset: 7 -> (1,1,0)
"#,
        ),
        (
            "dist_pad",
            r#"{"bases": [["register", [[1], [2], [4], [8]]], ["lane", [[16]]], ["warp", [[0]]], ["block", []]], "out_dims": [["dim0", 32]]}"#,
            r#"[ T0:0| T2:0,  T0:1| T2:1,  T0:2| T2:2,  T0:3| T2:3,  T0:4| T2:4,  T0:5| T2:5,  T0:6| T2:6,  T0:7| T2:7,  T0:8| T2:8,  T0:9| T2:9, T0:10|T2:10, T0:11|T2:11, T0:12|T2:12, T0:13|T2:13, T0:14|T2:14, T0:15|T2:15,  T1:0| T3:0,  T1:1| T3:1,  T1:2| T3:2,  T1:3| T3:3,  T1:4| T3:4,  T1:5| T3:5,  T1:6| T3:6,  T1:7| T3:7,  T1:8| T3:8,  T1:9| T3:9, T1:10|T3:10, T1:11|T3:11, T1:12|T3:12, T1:13|T3:13, T1:14|T3:14, T1:15|T3:15]
"#,
            r#"Warp0:
( 0), (16)
( 1), (17)
( 2), (18)
( 3), (19)
( 4), (20)
( 5), (21)
( 6), (22)
( 7), (23)
( 8), (24)
( 9), (25)
(10), (26)
(11), (27)
(12), (28)
(13), (29)
(14), (30)
(15), (31)
Warp1:
( 0), (16)
( 1), (17)
( 2), (18)
( 3), (19)
( 4), (20)
( 5), (21)
( 6), (22)
( 7), (23)
( 8), (24)
( 9), (25)
(10), (26)
(11), (27)
(12), (28)
(13), (29)
(14), (30)
(15), (31)
"#,
        ),
    ];
    for (name, json, tensor, hardware) in cases {
        let l = LinearLayout::from_json_str(json).expect("layout");
        assert_eq!(
            layout_view(&l, false).expect("tensor view"),
            *tensor,
            "{name}"
        );
        assert_eq!(
            layout_view(&l, true).expect("hardware view"),
            *hardware,
            "{name}"
        );
    }
}

/// A tiny well-formedness check: tags balance and nest, attribute values are quoted, text and
/// attributes hold no raw `<` and only known entities after `&`.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
        assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().expect("tag name");
            stack.push(name.to_string());
        }
        for value in tag.split('"').skip(1).step_by(2) {
            check_text(value);
        }
        rest = &rest[close + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed tags: {stack:?}");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("<title>"));
    for attr in ["width=\"", "height=\""] {
        assert!(svg.contains(attr), "missing {attr}");
    }
}

fn check_text(text: &str) {
    assert!(
        !text.contains('>') || text.trim().is_empty() || !text.contains('<'),
        "raw markup in {text}"
    );
    for (i, _) in text.match_indices('&') {
        let entity = &text[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| entity.starts_with(e)),
            "bare '&' in {text}"
        );
    }
}

/// `(tooltip, label)` of every tensor cell, in row-major order.
fn cells(svg: &str) -> Vec<(String, String)> {
    svg.split("<g><title>")
        .skip(1)
        .map(|cell| {
            let title = cell
                .split("</title>")
                .next()
                .unwrap_or_default()
                .to_string();
            let label = cell
                .split("text-anchor=\"middle\">")
                .nth(1)
                .and_then(|t| t.split('<').next())
                .unwrap_or_default()
                .to_string();
            (title, label)
        })
        .collect()
}

fn golden_layout(id: &str) -> LinearLayout {
    let case = load_cases("views")
        .into_iter()
        .find(|c| c["id"] == id)
        .expect("golden id");
    layout(&case["expect"]["ok"]["layout"])
}

#[test]
fn tensor_svg_draws_every_element_once() {
    // Blocked [1,4]x[8,4]x[2,2] over 16×16: warps 0 and 1 hold the same data.
    let l = golden_layout("views/0000");
    let svg = tensor_svg(&l).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 256);
    let cells = cells(&svg);
    assert_eq!(cells.len(), 256);
    assert_eq!(
        cells[0],
        ("(0,0): T0:0 | T32:0".to_string(), "T0:0".to_string())
    );
    assert_eq!(cells[5].1, "T1:1"); // (0,5)
    assert_eq!(cells[16].1, "T4:0"); // (1,0)
    assert_eq!(cells[255].1, "T95:3"); // (15,15): lane 31 of warp 2, register 3
    assert_eq!(svg.matches(">×2<").count(), 256); // every element held twice
                                                  // the colour of (0,0) is warp 0's and the last row's is warp 2's
    assert!(svg.contains("fill=\"#a6cee3\""));
    assert!(svg.contains("fill=\"#fb9a99\""));
    for case in load_cases("views") {
        let l = layout(&case["expect"]["ok"]["layout"]);
        let svg = if l.has_in_dim("offset") {
            shared_svg(&l, 2, 32)
        } else {
            tensor_svg(&l)
        }
        .unwrap();
        assert_well_formed(&svg);
        assert_eq!(
            svg.matches("<rect").count() as u64,
            1 << l.total_out_dim_size_log2(),
            "{}",
            case["id"]
        );
    }
}

#[test]
fn shared_svg_shows_offsets_and_banks() {
    // NVMMA 128B swizzle, f16, 8×64: row 1 is stored with 16-byte chunks swapped in pairs.
    let l = golden_layout("views/0010");
    let svg = shared_svg(&l, 2, 32).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 512);
    let cells = cells(&svg);
    assert_eq!(cells[0].1, "0");
    assert!(cells[0]
        .0
        .starts_with("(0,0): offset 0, bytes 0..2, bank 0"));
    // element (1,0) is stored at offset 72 = byte 144 = bank 4 (unswizzled it would be bank 0)
    assert_eq!(cells[64].1, "72");
    assert!(
        cells[64]
            .0
            .starts_with("(1,0): offset 72, bytes 144..146, bank 4"),
        "{}",
        cells[64].0
    );
    // 8-byte elements span two banks
    let wide = shared_svg(&l, 8, 32).unwrap();
    assert!(wide.contains("(0,1): offset 1, bytes 8..16, banks 2..3"));
}

#[test]
fn tmem_svg_shows_lanes_and_columns() {
    // blockM = 64 over 128×32 f32: rows 0..16 → lanes 0..16, rows 64..80 → lanes 16..32 (lane
    // bit 4 holds the second 64-row block), rows 16..32 → lanes 32..48, rows 32..64 → lanes
    // 64..128; one 32-bit column per element.
    let l = Encoding::from_mlir(
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 32, colStride = 1>",
    )
    .and_then(|e| e.to_linear_layout(&[128, 32]))
    .unwrap();
    let svg = tmem_svg(&l, 32).unwrap();
    assert_well_formed(&svg);
    assert_eq!(
        svg.matches("<rect").count() as u64,
        1 << l.total_out_dim_size_log2()
    );
    let drawn = cells(&svg);
    assert_eq!(drawn.len(), 128 * 32);
    assert_eq!(drawn[0], ("(0,0): L0:c0".to_string(), "L0:c0".to_string()));
    assert_eq!(drawn[16 * 32 + 3].1, "L32:c3"); // (16,3)
    assert_eq!(drawn[64 * 32 + 31].1, "L16:c31"); // (64,31)
    assert_eq!(drawn[127 * 32 + 5].1, "L127:c5"); // (127,5)
    assert!(!svg.contains(">×")); // every element held once
                                  // colours: (0,0) is warp 0's, (16,3) in lane 32 is warp 1's
    let fill_of = |tip: &str| {
        let cell = svg.split(&format!("<title>{tip}</title>")).nth(1).unwrap();
        cell.split("fill=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(fill_of("(0,0): L0:c0"), WARP_PALETTE[0]);
    assert_eq!(fill_of("(16,3): L32:c3"), WARP_PALETTE[1]);
    assert_eq!(fill_of("(64,0): L16:c0"), WARP_PALETTE[0]);
    assert!(svg.contains(">warp 3: L96..128<"));

    // Scales (8 bits, 4 to a column): lanes 32..128 repeat lanes 0..32, col bits 2, 3 are
    // rows 32, 64.
    let s = TensorMemoryScales::default()
        .to_linear_layout(&[128, 4])
        .unwrap();
    let svg = tmem_svg(&s, 8).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 128 * 4);
    let drawn = cells(&svg);
    assert_eq!(
        drawn[1],
        (
            "(0,1): L0:c0 bits 8..16 | L32:c0 bits 8..16 | L64:c0 bits 8..16 | L96:c0 bits 8..16"
                .to_string(),
            "L0:c0".to_string()
        )
    );
    assert_eq!(drawn[32 * 4].1, "L0:c1"); // (32,0)
    assert_eq!(svg.matches(">×4<").count(), 128 * 4);

    // Unpacked f16 (colStride 2): one element per column, the unused half is no copy.
    let unpacked = TensorMemory {
        block_m: 128,
        block_n: 32,
        col_stride: 2,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    };
    let svg = tmem_svg(&unpacked.to_linear_layout(&[128, 32]).unwrap(), 16).unwrap();
    assert_eq!(
        cells(&svg)[1],
        ("(0,1): L0:c1 bits 0..16".into(), "L0:c1".into())
    );
    assert!(!svg.contains(">×"));

    // Two CTAs splitting N: block prefix and per-block colours.
    let cga = TensorMemory {
        cga_layout: vec![vec![0, 1]],
        col_stride: 1,
        ..unpacked
    };
    let svg = tmem_svg(&cga.to_linear_layout(&[128, 64]).unwrap(), 32).unwrap();
    assert_well_formed(&svg);
    // 64 labelled columns would be over 4,000 pixels wide: coarse, the label in the title.
    assert!(svg.contains("<title>(0,32): B1:L0:c0</title>")); // (0,32)
    assert!(svg.contains(">B1 warp 0: L0..32<") && svg.contains(WARP_PALETTE[4]));

    // typed errors, no panics
    assert!(matches!(
        tmem_svg(&l, 64),
        Err(LayoutError::InvalidParameter {
            param: "element_bits",
            ..
        })
    ));
    assert!(matches!(
        tmem_svg(&l, 0),
        Err(LayoutError::InvalidParameter { .. })
    ));
    assert!(matches!(
        tmem_svg(&golden_layout("views/0000"), 32),
        Err(LayoutError::DimsMismatch { .. })
    ));
    // 256 rows: taller than a picture draws
    let tall = TensorMemory {
        cga_layout: vec![],
        ..cga
    };
    assert!(matches!(
        tmem_svg(&tall.to_linear_layout(&[256, 32]).unwrap(), 32),
        Err(LayoutError::InvalidShape { .. })
    ));
}

#[test]
fn svg_of_odd_layouts_does_not_panic() {
    // empty layout: a scalar
    let svg = tensor_svg(&LinearLayout::empty()).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 1);
    // 1-D with broadcast registers and lanes, and elements nobody holds
    let l = LinearLayout::from_bases(
        &[
            ("register", vec![vec![1], vec![0]]),
            ("lane", vec![vec![0], vec![4]]),
        ],
        &[("dim0", 16)],
        false,
    )
    .unwrap();
    let svg = tensor_svg(&l).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 16);
    let drawn = cells(&svg);
    assert_eq!(drawn[0].1, "T0:0");
    assert!(drawn[0].0.contains("T0:0 | T0:2 | T1:0 | T1:2"));
    assert_eq!(
        drawn[2],
        ("(2): held by no thread".to_string(), "-".to_string())
    );
    // rank 3 folds into rows; several blocks prefix the label
    let l = LinearLayout::from_bases(
        &[
            ("register", vec![vec![0, 0, 1]]),
            ("lane", vec![vec![0, 1, 0]]),
            ("block", vec![vec![1, 0, 0]]),
        ],
        &[("dim0", 2), ("dim1", 2), ("dim2", 2)],
        true,
    )
    .unwrap();
    let svg = tensor_svg(&l).unwrap();
    assert_well_formed(&svg);
    assert_eq!(cells(&svg)[7].1, "B1:T1:1");
    // a shared layout with a broadcast offset bit and several blocks
    let s = LinearLayout::from_bases(
        &[
            ("offset", vec![vec![1, 0], vec![0, 0], vec![0, 1]]),
            ("block", vec![vec![2, 0]]),
        ],
        &[("dim0", 4), ("dim1", 2)],
        true,
    )
    .unwrap();
    let svg = shared_svg(&s, 1, 4).unwrap();
    assert_well_formed(&svg);
    assert_eq!(svg.matches("<rect").count(), 8);
    assert!(svg.contains("(1,0): offset B0:1 | B0:3, bytes 1..2, bank 0"));
    assert!(svg.contains("B1:0"));
    // names that need escaping only reach the tooltips through the layout's values: fine.
    // unsupported in-dims and bad parameters are typed errors
    let odd = LinearLayout::identity_1d(4, "row", "dim0").unwrap();
    assert_eq!(
        cells(&tmem_svg(&odd, 32).unwrap())[3].1,
        "L3:c0",
        "a TMEM layout without `col`"
    );
    assert!(matches!(
        tensor_svg(&odd),
        Err(LayoutError::DimsMismatch { .. })
    ));
    assert!(matches!(
        shared_svg(&odd, 2, 32),
        Err(LayoutError::DimsMismatch { .. })
    ));
    let smem = LinearLayout::identity_1d(4, "offset", "dim0").unwrap();
    assert!(matches!(
        shared_svg(&smem, 0, 32),
        Err(LayoutError::InvalidParameter { .. })
    ));
    assert!(matches!(
        shared_svg(&smem, 2, 0),
        Err(LayoutError::InvalidParameter { .. })
    ));
}

#[test]
fn large_grids_are_refused() {
    // A 1-D tensor folds into rows of 16: 256 elements are 16 rows; past 128 rows, refused.
    let folded = LinearLayout::identity_1d(2 * MAX_GRID_SIDE, "lane", "dim0").unwrap();
    let svg = tensor_svg(&folded).unwrap();
    assert!(
        svg.contains(">240</text>"),
        "the last row is headed by its first index"
    );
    let wide = LinearLayout::identity_1d(32 * MAX_GRID_SIDE, "lane", "dim0").unwrap();
    assert!(matches!(
        tensor_svg(&wide),
        Err(LayoutError::InvalidShape { .. })
    ));
    let tall = LinearLayout::from_bases(
        &[(
            "offset",
            (0..8)
                .map(|i| vec![1 << i, 0])
                .chain([vec![0, 1]])
                .collect(),
        )],
        &[("dim0", 256), ("dim1", 2)],
        true,
    )
    .unwrap();
    assert!(matches!(
        shared_svg(&tall, 2, 32),
        Err(LayoutError::InvalidShape { .. })
    ));
    // exactly 128 × 128 is drawn
    let square = LinearLayout::from_bases(
        &[
            ("register", (0..7).map(|i| vec![0, 1 << i]).collect()),
            ("lane", (0..7).map(|i| vec![1 << i, 0]).collect()),
        ],
        &[("dim0", 128), ("dim1", 128)],
        true,
    )
    .unwrap();
    let svg = tensor_svg(&square).unwrap();
    assert_eq!(svg.matches("<rect").count(), 128 * 128);
    // ASCII views refuse tensors past MAX_VIEW_CELLS
    let huge = LinearLayout::identity_1d(2 * MAX_VIEW_CELLS, "lane", "dim0").unwrap();
    assert!(matches!(
        distributed_view(&huge, false),
        Err(LayoutError::InvalidShape { .. })
    ));
    let huge = LinearLayout::identity_1d(2 * MAX_VIEW_CELLS, "offset", "dim0").unwrap();
    assert!(matches!(
        shared_view(&huge, true),
        Err(LayoutError::InvalidShape { .. })
    ));
}

#[test]
fn ascii_views_of_odd_layouts() {
    // the empty layout is one scalar held by thread 0
    assert_eq!(
        distributed_view(&LinearLayout::empty(), false).unwrap(),
        "T0:0\n"
    );
    assert_eq!(
        distributed_view(&LinearLayout::empty(), true).unwrap(),
        "Warp0:\n()\n"
    );
    assert_eq!(
        shared_view(&LinearLayout::empty(), true).unwrap(),
        "Block: 0:\nOffset: 0 -> ()\n"
    );
    // in-dims other than the expected ones are refused
    let odd = LinearLayout::identity_1d(4, "row", "dim0").unwrap();
    assert_eq!(
        cells(&tmem_svg(&odd, 32).unwrap())[3].1,
        "L3:c0",
        "a TMEM layout without `col`"
    );
    assert!(matches!(
        distributed_view(&odd, false),
        Err(LayoutError::DimsMismatch { .. })
    ));
    assert!(matches!(
        shared_view(&odd, false),
        Err(LayoutError::DimsMismatch { .. })
    ));
}

#[test]
fn bank_conflict_picture() {
    let case = load_cases("bank_conflicts")
        .into_iter()
        .next()
        .expect("a case");
    let ok = &case["expect"]["ok"];
    let (reg, smem) = (layout(&ok["reg_layout"]), layout(&ok["shared_layout"]));
    let svg = bank_conflict_svg(&reg, &smem, 16, 32).unwrap();
    assert_well_formed(&svg);
    assert!(
        svg.contains("Triton: 1 conflicts (2 wavefronts per phase)"),
        "{}",
        &svg[..400]
    );
    assert!(svg.contains(">phase 1: lanes 16..32<"));
    assert!(bank_conflict_svg(&reg, &smem, 16, 256).is_err());
}
