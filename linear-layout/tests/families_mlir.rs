//! MLIR attribute text of the layout families (`Encoding::from_mlir`, `Encoding::to_mlir`) against Triton 3.9.0:
//! every golden case with an `"mlir"` string must parse to the Gluon spec's [`Encoding`] and
//! print back byte for byte; extra strings probed from Triton 3.9.0 cover the forms the goldens
//! lack (`#ttg.linear`, `#ttg.shared_linear`, CGA layouts on every family, `twoCTAs`, ranks of
//! `#ttg.nvmma_shared`) and what Triton's parser accepts and rejects. Property tests check the
//! round trip on random parameters; fuzz tests check that no input makes the parser panic.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::gluon_spec::{encoding, load_cases, shape};
use linear_layout::families::{
    AmdMfma, AmdWmma, Blocked, DistributedEncoding, DotOperand, Encoding, NvmmaDistributed,
    NvmmaShared, PaddedShared, PartitionedShared, SharedEncoding, SharedLinear, Slice,
    SwizzledShared, TensorMemory, TensorMemoryScales,
};
use linear_layout::{LayoutError, LinearLayout};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::Value;

// ----- goldens -----------------------------------------------------------------------------

const FAMILIES: [&str; 13] = [
    "swizzled_shared",
    "nvmma_shared",
    "blocked",
    "slice",
    "nvidia_mma",
    "dot_operand",
    "tensor_memory",
    "amd_mfma",
    "amd_wmma",
    "amd_dot_operand",
    "amd_slice",
    "padded_shared",
    "partitioned_shared",
];

fn parse(text: &str) -> Encoding {
    Encoding::from_mlir(text).unwrap_or_else(|e| panic!("{text}\n  does not parse: {e}"))
}

/// `#ttg.nvmma_shared` text that carries `rank = N`, which [`NvmmaShared`] leaves to the shape.
fn has_rank_key(mlir: &str) -> bool {
    mlir.contains(", rank = ")
}

/// A `#ttg.amd_wmma` of rank ≠ 2 with no bases: Triton prints `ctaLayout = {}` and loses the
/// rank (its own parser reads the text back as rank 2). We print `, rank = N` at the end of the
/// WMMA attribute; the rest is Triton's text byte for byte. Returns our text in that case.
fn wmma_rank_kept(want: &Encoding, mlir: &str) -> Option<String> {
    let ours = want.to_mlir();
    let cta = mlir
        .find("#ttg.amd_wmma")
        .and(mlir.find("ctaLayout = {}"))?;
    let at = ours.find(", rank = ")?;
    let rank: String = ours[at + 9..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let end = cta + mlir[cta..].find("}>").expect("attribute end");
    assert_eq!(
        ours,
        format!("{}, rank = {rank}{}", &mlir[..end], &mlir[end..])
    );
    Some(ours)
}

#[test]
fn goldens_parse_and_print_byte_for_byte() {
    let mut tally = Vec::new();
    let mut total = 0;
    for family in FAMILIES {
        let (mut checked, mut ranked) = (0, 0);
        for case in load_cases(family) {
            let Some(mlir) = case["expect"]["ok"]["mlir"].as_str() else {
                continue;
            };
            let id = &case["id"];
            let spec = &case["args"]["layout"];
            let rank = shape(&case["args"]["shape"]).len();
            let want = encoding(spec);
            if let Some(ours) = wmma_rank_kept(&want, mlir) {
                // Triton drops the rank of a WMMA layout with no bases; we keep it.
                assert_eq!(parse(&ours), want, "case {id}: parsing {ours}");
                checked += 1;
                continue;
            }
            assert_eq!(parse(mlir), want, "case {id}: parsing {mlir}");
            assert_eq!(
                want.to_mlir_for_rank(rank),
                mlir,
                "case {id}: printing {spec}"
            );
            if has_rank_key(mlir) {
                // Triton prints the rank of an nvmma_shared without CGA layout when it is not 2;
                // the attribute keeps its rank, so `to_mlir` prints it too.
                assert_eq!(want.to_mlir(), mlir, "case {id}: printing {spec}");
                ranked += 1;
            } else {
                assert_eq!(want.to_mlir(), mlir, "case {id}: printing {spec}");
                assert_eq!(want.to_string(), mlir, "case {id}: Display");
            }
            checked += 1;
        }
        assert!(checked > 0, "{family}: no golden case has an MLIR string");
        tally.push(format!("{family} {checked} (rank key {ranked})"));
        total += checked;
    }
    println!(
        "families_mlir goldens: {total} attributes parsed and printed byte for byte: {}",
        tally.join(", ")
    );
}

// ----- extra strings printed by Triton 3.9.0 -------------------------------------------------

/// `(Gluon spec, shape, attribute)` printed by Triton 3.9.0 (Gluon layout `_to_ir`, printed
/// inside a tensor / memdesc type as `tools/gen_family_goldens.py` does).
const PROBED_SPECS: &[(&str, &[u64], &str)] = &[
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 128, "element_bitwidth": 16, "rank": 3, "transposed": false, "fp4_padded": false, "cga_layout": [[1, 0, 0]]}"#,
        &[2, 16, 64],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0, 0]]}>",
    ),
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 128, "element_bitwidth": 16, "rank": 4, "transposed": false, "fp4_padded": false, "cga_layout": []}"#,
        &[2, 2, 16, 64],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 4}>",
    ),
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 128, "element_bitwidth": 16, "rank": 1, "transposed": false, "fp4_padded": false, "cga_layout": []}"#,
        &[64],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 1}>",
    ),
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 128, "element_bitwidth": 8, "rank": 2, "transposed": true, "fp4_padded": true, "cga_layout": []}"#,
        &[64, 16],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8, fp4Padded = true}>",
    ),
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 128, "element_bitwidth": 8, "rank": 2, "transposed": false, "fp4_padded": true, "cga_layout": [[1, 0]]}"#,
        &[32, 128],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8, fp4Padded = true, CGALayout = [[1, 0]]}>",
    ),
    (
        r#"{"kind": "nvmma_shared", "swizzle_byte_width": 0, "element_bitwidth": 16, "rank": 2, "transposed": false, "fp4_padded": false, "cga_layout": [[0, 0]]}"#,
        &[16, 64],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16, CGALayout = [[0, 0]]}>",
    ),
    (
        r#"{"kind": "tensor_memory", "block": [128, 64], "col_stride": 1, "cga_layout": [[1, 0]], "two_ctas": true}"#,
        &[256, 64],
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = [[1, 0]], twoCTAs = true>",
    ),
    (
        r#"{"kind": "tensor_memory", "block": [64, 64], "col_stride": 1, "cga_layout": [[0, 1], [1, 0]], "two_ctas": false}"#,
        &[128, 128],
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1, CGALayout = [[0, 1], [1, 0]]>",
    ),
    (
        r#"{"kind": "tensor_memory", "block": [128, 64], "col_stride": 2, "cga_layout": [[1, 0], [0, 1]], "two_ctas": true}"#,
        &[512, 128],
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2, CGALayout = [[1, 0], [0, 1]], twoCTAs = true>",
    ),
    (
        r#"{"kind": "tensor_memory", "block": [128, 64], "col_stride": 1, "cga_layout": [], "two_ctas": false}"#,
        &[2, 128, 64],
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
    ),
    (
        r#"{"kind": "tensor_memory_scales", "cga_layout": [[1, 0]]}"#,
        &[256, 4],
        "#ttng.tensor_memory_scales_encoding<CGALayout = [[1, 0]]>",
    ),
    (
        r#"{"kind": "nvidia_mma", "version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16], "cga_layout": [[1, 0]]}"#,
        &[128, 64],
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CGALayout = [[1, 0]], instrShape = [16, 64, 16]}>",
    ),
    (
        r#"{"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [2, 2], "instr_shape": [16, 8], "cga_layout": [[0, 1], [1, 0]]}"#,
        &[128, 64],
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CGALayout = [[0, 1], [1, 0]], instrShape = [16, 8]}>",
    ),
    (
        r#"{"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 2, 2], "instr_shape": [1, 16, 8], "cga_layout": []}"#,
        &[2, 32, 16],
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2, 2], instrShape = [1, 16, 8]}>",
    ),
    (
        r#"{"kind": "dot_operand", "operand_index": 0, "parent": {"kind": "nvidia_mma", "version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16], "cga_layout": [[1, 0]]}, "k_width": 2}"#,
        &[128, 64],
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CGALayout = [[1, 0]], instrShape = [16, 64, 16]}>, kWidth = 2}>",
    ),
    (
        r#"{"kind": "slice", "dim": 1, "parent": {"kind": "nvidia_mma", "version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16], "cga_layout": [[1, 0]]}}"#,
        &[128],
        "#ttg.slice<{dim = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CGALayout = [[1, 0]], instrShape = [16, 64, 16]}>}>",
    ),
    (
        r#"{"kind": "blocked", "size_per_thread": [1, 1, 1], "threads_per_warp": [1, 4, 8], "warps_per_cta": [1, 1, 4], "order": [2, 1, 0], "cga_layout": [[0, 0, 1]]}"#,
        &[4, 8, 64],
        "#ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 1, 4], order = [2, 1, 0], CGALayout = [[0, 0, 1]]}>",
    ),
    (
        r#"{"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4], "order": [0], "cga_layout": [[1]]}"#,
        &[256],
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CGALayout = [[1]]}>",
    ),
    (
        r#"{"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4], "warps_per_cta": [2, 2], "order": [1, 0], "cga_layout": [[0, 0]]}"#,
        &[64, 64],
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 0]]}>",
    ),
    (
        r#"{"kind": "swizzled_shared", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [0], "cga_layout": []}"#,
        &[128],
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
    ),
    (
        r#"{"kind": "swizzled_shared", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [2, 1, 0], "cga_layout": [[1, 0, 0]]}"#,
        &[4, 8, 64],
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0], CGALayout = [[1, 0, 0]]}>",
    ),
];

#[test]
fn probed_family_strings() {
    for (spec, shape, mlir) in PROBED_SPECS {
        let spec: Value = serde_json::from_str(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let want = encoding(&spec);
        assert_eq!(parse(mlir), want, "parsing {mlir}");
        assert_eq!(want.to_mlir_for_rank(shape.len()), *mlir, "printing {spec}");
    }
}

fn bases(v: &[&[u64]]) -> Vec<Vec<u64>> {
    v.iter().map(|b| b.to_vec()).collect()
}

fn distributed_linear(
    reg: &[&[u64]],
    lane: &[&[u64]],
    warp: &[&[u64]],
    block: &[&[u64]],
    shape: &[u64],
) -> Encoding {
    let outs: Vec<(String, u64)> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("dim{i}"), s))
        .collect();
    let outs: Vec<(&str, u64)> = outs.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let l = LinearLayout::from_bases(
        &[
            ("register", bases(reg)),
            ("lane", bases(lane)),
            ("warp", bases(warp)),
            ("block", bases(block)),
        ],
        &outs,
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    Encoding::Distributed(DistributedEncoding::Linear(l))
}

fn shared_linear(offset: &[&[u64]], block: &[&[u64]], shape: &[u64], alignment: u64) -> Encoding {
    let outs: Vec<(String, u64)> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("dim{i}"), s))
        .collect();
    let outs: Vec<(&str, u64)> = outs.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let layout = LinearLayout::from_bases(
        &[("offset", bases(offset)), ("block", bases(block))],
        &outs,
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    Encoding::Shared(SharedEncoding::Linear(SharedLinear { layout, alignment }))
}

#[test]
fn probed_linear_strings() {
    // Printed by Triton 3.9.0 for Gluon `DistributedLinearLayout` / `SharedLinearLayout`.
    let cases = [
        (
            distributed_linear(
                &[&[0, 1], &[8, 0]],
                &[&[0, 2], &[0, 4], &[1, 0], &[2, 0], &[4, 0]],
                &[&[0, 8], &[16, 0]],
                &[],
                &[32, 16],
            ),
            "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>",
        ),
        (
            distributed_linear(&[], &[&[1], &[2], &[4], &[8], &[16]], &[], &[], &[32]),
            "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = []}>",
        ),
        (
            distributed_linear(
                &[&[0, 0]],
                &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[16, 0]],
                &[&[0, 1]],
                &[&[0, 2]],
                &[32, 4],
            ),
            "#ttg.linear<{register = [[0, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[0, 1]], block = [[0, 2]]}>",
        ),
        (
            shared_linear(&[&[0, 1], &[0, 2], &[1, 0], &[2, 0]], &[], &[4, 4], 16),
            "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}, alignment = 16>",
        ),
        (
            shared_linear(&[&[0, 1], &[0, 2], &[1, 0], &[2, 0]], &[&[0, 4]], &[4, 8], 128),
            "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]], block = [[0, 4]]}, alignment = 128>",
        ),
        (
            shared_linear(&[&[1], &[2], &[4]], &[], &[8], 8),
            "#ttg.shared_linear<{offset = [[1], [2], [4]]}, alignment = 8>",
        ),
    ];
    for (want, mlir) in cases {
        assert_eq!(parse(mlir), want, "parsing {mlir}");
        assert_eq!(want.to_mlir(), mlir);
    }
}

/// Text that Triton 3.9.0's parser accepts, and the attribute it prints back.
const TRITON_ACCEPTS: &[(&str, &str)] = &[
    (
        "#ttg.blocked<{order = [1, 0], sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2]}>",
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
    ),
    (
        "#ttg.blocked< { sizePerThread=[1,4],threadsPerWarp=[8,4],warpsPerCTA=[2,2],order=[1,0] } >",
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
    ),
    (
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = []}>",
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
    ),
    (
        "#ttg.linear<{lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], register = [[0, 1], [8, 0]], block = [], warp = [[0, 8], [16, 0]]}>",
        "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>",
    ),
    (
        "#ttg.nvidia_mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
    ),
    (
        "#ttg.nvidia_mma<{instrShape = [16, 8], warpsPerCTA = [2, 2], versionMinor = 0, versionMajor = 2}>",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
    ),
    // Triton prints this one with its parent as an alias (`parent = #blocked`); spelled out here.
    (
        "#ttg.slice<{parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>, dim = 1}>",
        "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>",
    ),
    // kWidth = 0 is not printed (Triton: `#ttg.dot_op<{opIdx = 0, parent = #blocked}>`).
    (
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>, kWidth = 0}>",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>",
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    ),
    (
        "#ttg.nvmma_shared<{elementBitWidth = 16, transposed = true, swizzlingByteWidth = 64}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>",
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, fp4Padded = false}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 2}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = []}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    ),
    (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 3, CGALayout = [[1, 0, 0]]}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0, 0]]}>",
    ),
    (
        "#ttg.swizzled_shared<{order = [0, 1], maxPhase = 8, perPhase = 1, vec = 4}>",
        "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>",
    ),
    (
        "#ttg.shared_linear<{block = [], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}, alignment = 16>",
        "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}, alignment = 16>",
    ),
    (
        "#ttng.tensor_memory_encoding<colStride = 1, blockN = 64, blockM = 128>",
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
    ),
    (
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, twoCTAs = false>",
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
    ),
    (
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = []>",
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
    ),
    (
        "#ttng.tensor_memory_scales_encoding<CGALayout = []>",
        "#ttng.tensor_memory_scales_encoding<>",
    ),
];

#[test]
fn accepts_what_triton_accepts() {
    for (input, canonical) in TRITON_ACCEPTS {
        assert_eq!(parse(input).to_mlir(), *canonical, "reprinting {input}");
        assert_eq!(parse(input), parse(canonical), "{input}");
    }
}

fn parse_error(text: &str) -> String {
    match Encoding::from_mlir(text) {
        Err(LayoutError::Parse(msg)) => msg,
        other => panic!("{text}\n  should be a parse error, got {other:?}"),
    }
}

#[test]
fn rejects_what_triton_rejects() {
    // Each rejected by Triton 3.9.0's parser (its message in the comment).
    let cases = [
        // "sizePerThread, threadsPerWarp, warpsPerCTA, and order must all have the same rank."
        (
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2]}>",
            "#ttg.blocked, column 1: missing key 'order'",
        ),
        // "unexpected key: foo"
        (
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], foo = 1}>",
            "#ttg.blocked, column 102: unknown key 'foo' (expected one of sizePerThread, \
             threadsPerWarp, warpsPerCTA, order, CGALayout)",
        ),
        // "Expected basis of 'block' not found"
        (
            "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]]}>",
            "#ttg.linear, column 1: missing key 'block'",
        ),
        // "expected ','"
        (
            "#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}>",
            "#ttg.shared_linear, column 47: expected ',' before 'alignment', found '>'",
        ),
        // "struct is missing required parameter: colStride"
        (
            "#ttng.tensor_memory_encoding<blockM = 64, blockN = 16>",
            "#ttng.tensor_memory_encoding, column 1: missing key 'colStride'",
        ),
        // "duplicate or unknown struct parameter name: CTASplitM"
        (
            "#ttng.tensor_memory_encoding<blockM = 64, blockN = 16, colStride = 1, CTASplitM = 1>",
            "#ttng.tensor_memory_encoding, column 71: unknown key 'CTASplitM' (expected one of \
             blockM, blockN, colStride, CGALayout, twoCTAs, fp4Padded)",
        ),
        // "expected valid keyword"
        (
            "#ttng.tensor_memory_encoding<{blockM = 64, blockN = 16, colStride = 1}>",
            "#ttng.tensor_memory_encoding, column 30: expected a key, found '{'",
        ),
        // "expected '<'"
        (
            "#ttng.tensor_memory_scales_encoding",
            "#ttng.tensor_memory_scales_encoding, column 36: expected '<', found end of input",
        ),
        // "'CGALayout' entry length does not match rank 3"
        (
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, rank = 3, CGALayout = [[0, 1]]}>",
            "#ttg.nvmma_shared, column 1: CGALayout basis [0, 1] has 2 entries, expected 3 (the rank)",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse_error(text), want, "{text}");
    }
}

#[test]
fn error_messages_name_attribute_key_and_position() {
    let cases = [
        (
            "#ttg.blocked<{sizePerThreads = [1, 4]}>",
            "#ttg.blocked, column 15: unknown key 'sizePerThreads' (expected one of \
             sizePerThread, threadsPerWarp, warpsPerCTA, order, CGALayout)",
        ),
        (
            "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4}>",
            "#ttg.swizzled_shared, column 1: missing key 'order'",
        ),
        (
            "#ttg.swizzled_shared<{vec = 2, vec = 2}>",
            "#ttg.swizzled_shared, column 32: key 'vec' given twice",
        ),
        (
            "#ttg.swizzled_shared<{vec = -2}>",
            "#ttg.swizzled_shared, column 29: vec: expected a non-negative integer, found '-2'",
        ),
        (
            "#ttg.swizzled_shared<{vec = 4294967296}>",
            "#ttg.swizzled_shared, column 29: vec: 4294967296 is out of range",
        ),
        (
            "#ttg.swizzled_shared<{vec = 99999999999999999999}>",
            "#ttg.swizzled_shared, column 29: vec: 99999999999999999999 does not fit in 64 bits",
        ),
        (
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = no}>",
            "#ttg.nvmma_shared, column 59: transposed: expected true or false, found 'no'",
        ),
        (
            "#ttg.blocked<{sizePerThread = [1, 4 threadsPerWarp",
            "#ttg.blocked, column 37: sizePerThread: expected ',' or ']', found 'threadsPerWarp'",
        ),
        (
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [1, 0]}>",
            "#ttg.blocked, column 1: sizePerThread, threadsPerWarp, warpsPerCTA and order must \
             have the same length, got [1, 1, 1, 2]",
        ),
        (
            "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CGALayout = [[1, 0]]}>",
            "#ttg.blocked, column 1: CGALayout basis [1, 0] has 2 entries, expected 1 (the rank)",
        ),
        (
            "#ttg.amd_mfma<{version = 3}>",
            "#ttg.amd_mfma, column 1: missing key 'warpsPerCTA'",
        ),
        (
            "#ttg.fancy<{vec = 3}>",
            "MLIR attribute, column 1: unknown attribute '#ttg.fancy' (expected one of \
             #ttg.blocked, #ttg.slice, #ttg.nvidia_mma, #ttg.dot_op, #ttg.linear, \
             #ttg.amd_mfma, #ttg.amd_wmma, #ttg.swizzled_shared, #ttg.nvmma_shared, \
             #ttg.shared_linear, #ttg.amd_rotating_shared, #ttg.padded_shared, \
             #ttg.partitioned_shared, \
             #ttng.tensor_memory_encoding, #ttng.tensor_memory_scales_encoding)",
        ),
        (
            "#ttg.dot_op<{opIdx = 0, parent = #blocked}>",
            "MLIR attribute, column 34: #blocked is an alias: give the attribute it names (the \
             right-hand side of its '#blocked = …' line)",
        ),
        (
            "#ttg.slice<{dim = 0, parent = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>}>",
            "#ttg.slice, column 31: parent must be a register layout, got #ttg.swizzled_shared",
        ),
        (
            "blocked<{}>",
            "MLIR attribute, column 1: expected a layout attribute such as #ttg.blocked<…>, found 'blocked'",
        ),
        (
            "#ttng.tensor_memory_scales_encoding<> trailing",
            "MLIR attribute, column 39: unexpected text after the attribute: 'trailing'",
        ),
        (
            "#ttg.linear<{register = [[1], [4]], lane = [], warp = [], block = []}>",
            "#ttg.linear, column 1: layout is not surjective: its bases span 2 of the 3 output \
             bits (out-dims [\"dim0\"])",
        ),
        (
            "#ttng.tensor_memory_encoding<\n  blockM = 128,\n  blockN = 64,\n  colStride = x>",
            "#ttng.tensor_memory_encoding, line 4, column 15: colStride: expected a non-negative \
             integer, found 'x'",
        ),
        ("", "MLIR attribute, column 1: expected a layout attribute such as #ttg.blocked<…>, found end of input"),
    ];
    for (text, want) in cases {
        assert_eq!(parse_error(text), want, "{text:?}");
    }
}

#[test]
fn alias_definition_lines_and_whitespace() {
    let canonical = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}>";
    let want = parse(canonical);
    for text in [
        format!("#mma1 = {canonical}"),
        format!("  #dot_a=\t{canonical}\n"),
        "#ttg.dot_op< {\n  kWidth = 4,\n  parent = #ttg.nvidia_mma<{ instrShape=[16,8], warpsPerCTA=[2,2], versionMajor=2 }>,\n  opIdx = 1\n} >".into(),
    ] {
        assert_eq!(parse(&text), want, "{text}");
    }
}

#[test]
fn oversized_linear_layouts_are_errors() {
    let wide = format!("[[{}]]", vec!["0"; 65].join(", "));
    let msg = parse_error(&format!(
        "#ttg.linear<{{register = {wide}, lane = [], warp = [], block = []}}>"
    ));
    assert!(msg.contains("at most 64 dims"), "{msg}");
    let many = format!("[{}]", vec!["[0]"; 70].join(", "));
    let msg = parse_error(&format!(
        "#ttg.shared_linear<{{offset = {many}}}, alignment = 16>"
    ));
    assert!(msg.starts_with("#ttg.shared_linear, column 1: "), "{msg}");
    let msg =
        parse_error("#ttg.linear<{register = [[1, 0], [2]], lane = [], warp = [], block = []}>");
    assert!(
        msg.starts_with("#ttg.linear, column 1: basis 1 of in-dim 'register'"),
        "{msg}"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let text = "#ttg.slice<{dim = 0, parent = ".repeat(depth);
    let msg = parse_error(&text);
    assert!(msg.contains("nested more than"), "{msg}");
    // Within the limit, nesting parses and prints back.
    let leaf = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
    let mut text = leaf.to_string();
    for _ in 0..20 {
        text = format!("#ttg.slice<{{dim = 0, parent = {text}}}>");
    }
    assert_eq!(parse(&text).to_mlir(), text);
}

// ----- properties ----------------------------------------------------------------------------

/// Small values most of the time, any `u32` sometimes.
fn param() -> BoxedStrategy<u32> {
    prop_oneof![4 => (0u32..8).prop_map(|k| 1 << k), 1 => any::<u32>()].boxed()
}

fn params(rank: usize) -> BoxedStrategy<Vec<u32>> {
    prop::collection::vec(param(), rank).boxed()
}

fn order(rank: usize) -> BoxedStrategy<Vec<usize>> {
    Just((0..rank).collect::<Vec<_>>()).prop_shuffle().boxed()
}

fn cga(rank: usize) -> BoxedStrategy<Vec<Vec<u64>>> {
    let basis = prop_oneof![3 => prop::collection::vec(0u64..4, rank), 1 => prop::collection::vec(any::<u64>(), rank)];
    prop_oneof![2 => Just(Vec::new()), 1 => prop::collection::vec(basis, 1..4)].boxed()
}

fn blocked() -> BoxedStrategy<DistributedEncoding> {
    (1usize..=4)
        .prop_flat_map(|r| (params(r), params(r), params(r), order(r), cga(r)))
        .prop_map(|(spt, tpw, wpc, order, cga)| {
            DistributedEncoding::Blocked(Blocked {
                size_per_thread: spt,
                threads_per_warp: tpw,
                warps_per_cta: wpc,
                order,
                cga_layout: cga,
            })
        })
        .boxed()
}

fn nvidia_mma() -> BoxedStrategy<DistributedEncoding> {
    (1usize..=3)
        .prop_flat_map(|r| (2u32..=3, 0u32..2, params(r), params(3), cga(r)))
        .prop_map(|(major, minor, wpc, instr, cga)| {
            DistributedEncoding::NvmmaDistributed(NvmmaDistributed {
                version_major: major,
                version_minor: minor,
                warps_per_cta: wpc,
                instr_shape: instr,
                cga_layout: cga,
            })
        })
        .boxed()
}

/// The `#ttg.amd_wmma` attributes in `enc` that print `rank = N`: no bases, rank not 2.
fn wmma_rank_keys(enc: &DistributedEncoding) -> usize {
    match enc {
        DistributedEncoding::AmdWmma(w) => {
            let l = &w.cta_layout;
            let no_bases = l.bases().iter().all(|(_, b)| b.is_empty());
            usize::from(no_bases && l.num_out_dims() != 2)
        }
        DistributedEncoding::Slice(s) => wmma_rank_keys(&s.parent),
        DistributedEncoding::DotOperand(d) => wmma_rank_keys(&d.parent),
        _ => 0,
    }
}

fn amd_mfma() -> BoxedStrategy<DistributedEncoding> {
    (1usize..=3)
        .prop_flat_map(|r| {
            (
                0u32..6,
                params(r),
                params(3),
                any::<bool>(),
                params(r),
                select(vec![32u32, 64, 16]),
                cga(r),
            )
        })
        .prop_map(|(version, wpc, instr, t, tpw, bits, cga)| {
            DistributedEncoding::AmdMfma(AmdMfma {
                version,
                warps_per_cta: wpc,
                instr_shape: instr,
                transposed: t,
                tiles_per_warp: tpw,
                element_bitwidth: bits,
                cga_layout: cga,
            })
        })
        .boxed()
}

fn amd_wmma() -> BoxedStrategy<DistributedEncoding> {
    (
        0u32..5,
        any::<bool>(),
        linear_layout(&["register", "warp"]),
        params(3),
        any::<bool>(),
    )
        .prop_flat_map(|(version, t, cta, instr, with_cga)| {
            let rank = cta.num_out_dims();
            let cga = if with_cga {
                cga(rank)
            } else {
                Just(Vec::new()).boxed()
            };
            (Just((version, t, cta, instr)), cga)
        })
        .prop_map(|((version, t, cta, instr), cga)| {
            DistributedEncoding::AmdWmma(AmdWmma {
                version,
                transposed: t,
                cta_layout: cta,
                instr_shape: instr,
                cga_layout: cga,
            })
        })
        .boxed()
}

/// A surjective layout onto `dim0..` with the given in-dims, as Triton's attribute parser builds
/// it: every unit basis of the output appears once, shuffled among the in-dims and zero or
/// random (in-range) bases.
fn linear_layout(in_dims: &'static [&'static str]) -> BoxedStrategy<LinearLayout> {
    (
        prop::collection::vec(0u32..=4, 1..=3),
        prop::collection::vec(any::<u64>(), 0..4),
    )
        .prop_flat_map(move |(log2s, extra)| {
            let rank = log2s.len();
            let mut all: Vec<Vec<u64>> = Vec::new();
            for (d, &l) in log2s.iter().enumerate() {
                for b in 0..l {
                    let mut v = vec![0; rank];
                    v[d] = 1 << b;
                    all.push(v);
                }
            }
            for (i, x) in extra.into_iter().enumerate() {
                let d = i % rank;
                let mut v = vec![0; rank];
                // `#ttg.linear` must be a permutation once zero bases are removed (Triton's
                // verifier): its extra bases broadcast; shared layouts take any basis.
                v[d] = if log2s[d] == 0 || in_dims.first() == Some(&"register") {
                    0
                } else {
                    x % (1 << log2s[d])
                };
                all.push(v);
            }
            let n = all.len();
            (
                Just(all).prop_shuffle(),
                prop::collection::vec(0..in_dims.len(), n),
            )
        })
        .prop_map(move |(all, owner)| {
            let dims: Vec<(&str, Vec<Vec<u64>>)> = in_dims
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let b = all
                        .iter()
                        .zip(&owner)
                        .filter(|(_, &o)| o == i)
                        .map(|(v, _)| v.clone())
                        .collect();
                    (*d, b)
                })
                .collect();
            let rank = all.first().map_or(0, Vec::len);
            let outs: Vec<String> = (0..rank).map(|i| format!("dim{i}")).collect();
            let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
            LinearLayout::from_bases_inferred(&dims, &outs).unwrap_or_else(|e| panic!("{e}"))
        })
        .boxed()
}

fn distributed() -> BoxedStrategy<DistributedEncoding> {
    let leaf = prop_oneof![
        blocked(),
        nvidia_mma(),
        amd_mfma(),
        amd_wmma(),
        linear_layout(&["register", "lane", "warp", "block"]).prop_map(DistributedEncoding::Linear),
    ];
    leaf.prop_recursive(3, 8, 1, |inner| {
        prop_oneof![
            (0usize..4, inner.clone()).prop_map(|(dim, p)| DistributedEncoding::Slice(Slice {
                dim,
                parent: Box::new(p)
            })),
            (0u32..2, inner, 0u32..16).prop_map(|(operand_index, p, k_width)| {
                DistributedEncoding::DotOperand(DotOperand {
                    operand_index,
                    parent: Box::new(p),
                    k_width,
                })
            }),
        ]
    })
    .boxed()
}

fn shared() -> BoxedStrategy<SharedEncoding> {
    let swizzled = (1usize..=4)
        .prop_flat_map(|r| (param(), param(), param(), order(r), cga(r)))
        .prop_map(|(vec, per_phase, max_phase, order, cga_layout)| {
            SharedEncoding::Swizzled(SwizzledShared {
                vec,
                per_phase,
                max_phase,
                order,
                cga_layout,
            })
        });
    let nvmma = (
        select(vec![0u32, 32, 64, 128]),
        select(vec![8u32, 16, 32, 64]),
        any::<bool>(),
        any::<bool>(),
        (1usize..=3).prop_flat_map(cga),
    )
        .prop_map(
            |(swizzle_byte_width, element_bits, transposed, fp4_padded, cga_layout)| {
                SharedEncoding::Nvmma(NvmmaShared {
                    swizzle_byte_width,
                    element_bitwidth: element_bits,
                    transposed,
                    fp4_padded,
                    rank: Some(cga_layout.first().map_or(2, Vec::len)),
                    cga_layout,
                })
            },
        );
    let linear = (linear_layout(&["offset", "block"]), any::<u64>())
        .prop_map(|(layout, alignment)| SharedEncoding::Linear(SharedLinear { layout, alignment }));
    let padded = (
        prop::collection::vec((0u32..12, 0u32..6), 1..3),
        prop::collection::vec(0u64..=4, 1..=3),
        any::<bool>(),
    )
        .prop_flat_map(|(pairs, log2s, shuffle)| {
            let shape: Vec<u64> = log2s.iter().map(|&l| 1 << l).collect();
            let order: Vec<usize> = (0..shape.len()).rev().collect();
            let identity = PaddedShared::with_identity(&[(1, 1)], &shape, &order)
                .unwrap()
                .linear;
            let offsets = identity.bases_of("offset").unwrap();
            let offsets = if shuffle {
                Just(offsets).prop_shuffle().boxed()
            } else {
                Just(offsets).boxed()
            };
            (Just(pairs), offsets, Just(shape))
        })
        .prop_filter_map("intervals repeat", |(pairs, offsets, shape)| {
            let pairs: Vec<(u64, u64)> = pairs.iter().map(|&(i, p)| (1 << i, 1 << p)).collect();
            PaddedShared::new(&pairs, &offsets, &[], &shape).ok()
        });
    let leaf = prop_oneof![
        swizzled,
        nvmma,
        linear,
        padded.prop_map(SharedEncoding::Padded)
    ];
    (leaf.clone(), 0u32..4, 0u32..4, 0usize..3, any::<bool>())
        .prop_map(|(piece, np, ng, dim, wrap)| {
            if wrap {
                SharedEncoding::Partitioned(PartitionedShared {
                    num_partitions: 1 << np,
                    num_groups: 1 << ng,
                    partition_dim: dim,
                    partition_layout: Box::new(piece),
                })
            } else {
                piece
            }
        })
        .boxed()
}

fn any_encoding() -> BoxedStrategy<Encoding> {
    let tmem = (param(), param(), param(), cga(2), any::<bool>()).prop_map(
        |(block_m, block_n, col_stride, cga_layout, two_ctas)| {
            Encoding::TensorMemory(TensorMemory {
                block_m,
                block_n,
                col_stride,
                cga_layout,
                two_ctas,
                fp4_padded: false,
            })
        },
    );
    let scales = (cga(2), any::<bool>()).prop_map(|(cga_layout, k_then_mn)| {
        Encoding::TensorMemoryScales(TensorMemoryScales {
            cga_layout,
            k_then_mn,
        })
    });
    prop_oneof![
        3 => distributed().prop_map(Encoding::Distributed),
        2 => shared().prop_map(Encoding::Shared),
        1 => tmem,
        1 => scales,
    ]
    .boxed()
}

/// Blanks MLIR allows between tokens.
fn blanks() -> BoxedStrategy<String> {
    prop::collection::vec(select(vec!["", " ", "  ", "\n", "\t", "\r\n"]), 0..3)
        .prop_map(|v| v.concat())
        .boxed()
}

/// `text` with random blanks around every punctuation mark.
fn respace(text: &str, blanks: &[String]) -> String {
    let mut out = String::new();
    let mut k = 0;
    for c in text.chars() {
        if c == ' ' {
            continue;
        }
        let punct = "<>{}[],=".contains(c);
        if punct {
            out.push_str(&blanks[k % blanks.len()]);
            k += 1;
        }
        out.push(c);
        if punct {
            out.push_str(&blanks[k % blanks.len()]);
            k += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn print_then_parse_is_identity(enc in any_encoding()) {
        let text = enc.to_mlir();
        prop_assert_eq!(Encoding::from_mlir(&text)?, enc.clone(), "{}", text);
        prop_assert_eq!(text.parse::<Encoding>()?.to_string(), text);
    }

    #[test]
    fn print_for_any_rank_then_parse_is_identity(enc in any_encoding(), rank in 1usize..6) {
        // An nvmma_shared without CGA layout that follows its shape (rank None) is printed for
        // `rank` and reads back with that rank; every other attribute reads back as it was.
        let enc = match enc {
            Encoding::Shared(SharedEncoding::Nvmma(n)) if n.cga_layout.is_empty() => {
                Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared { rank: None, ..n }))
            }
            e => e,
        };
        let text = enc.to_mlir_for_rank(rank);
        let expected = match &enc {
            Encoding::Shared(SharedEncoding::Nvmma(n)) if n.rank.is_none() => {
                Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared { rank: Some(rank), ..n.clone() }))
            }
            e => e.clone(),
        };
        prop_assert_eq!(Encoding::from_mlir(&text)?, expected, "{}", text);
        let nvmma_rank = matches!(&enc,
            Encoding::Shared(SharedEncoding::Nvmma(n)) if n.cga_layout.is_empty() && rank != 2);
        let wmma_ranks = match &enc {
            Encoding::Distributed(d) => wmma_rank_keys(d),
            _ => 0,
        };
        prop_assert_eq!(text.matches(", rank = ").count(), usize::from(nvmma_rank) + wmma_ranks);
    }

    #[test]
    fn blanks_and_alias_lines_do_not_matter(
        enc in any_encoding(),
        spaces in prop::collection::vec(blanks(), 1..16),
        alias in select(vec!["", "#blocked = ", "#shared1=", "#tmem =\n"]),
    ) {
        let text = format!("{alias}{}", respace(&enc.to_mlir(), &spaces));
        prop_assert_eq!(Encoding::from_mlir(&text)?, enc, "{}", text);
    }

    #[test]
    fn keys_in_any_order(
        enc in blocked(),
        perm in Just(vec![0usize, 1, 2, 3, 4]).prop_shuffle(),
    ) {
        let DistributedEncoding::Blocked(b) = &enc else { unreachable!() };
        let list = |v: &[String]| format!("[{}]", v.join(", "));
        let ints = |v: &[u32]| list(&v.iter().map(u32::to_string).collect::<Vec<_>>());
        let entries = [
            format!("sizePerThread = {}", ints(&b.size_per_thread)),
            format!("threadsPerWarp = {}", ints(&b.threads_per_warp)),
            format!("warpsPerCTA = {}", ints(&b.warps_per_cta)),
            format!("order = {}", list(&b.order.iter().map(usize::to_string).collect::<Vec<_>>())),
            format!("CGALayout = {}", list(&b.cga_layout.iter().map(|v| list(&v.iter().map(u64::to_string).collect::<Vec<_>>())).collect::<Vec<_>>())),
        ];
        let text = format!("#ttg.blocked<{{{}}}>", perm.iter().map(|&i| entries[i].as_str()).collect::<Vec<_>>().join(", "));
        prop_assert_eq!(Encoding::from_mlir(&text)?, Encoding::Distributed(enc), "{}", text);
    }
}

// ----- fuzz ----------------------------------------------------------------------------------

/// One edit of a valid attribute string.
#[derive(Clone, Debug)]
enum Edit {
    Delete(Index, usize),
    Insert(Index, &'static str),
    Truncate(Index),
    Duplicate(Index, Index),
}

/// Fragments that steer the parser into its corners: other keys, values, nesting, non-ASCII.
const FRAGMENTS: [&str; 20] = [
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ",",
    "=",
    "-",
    "#",
    "é",
    "🦀",
    " ",
    "\n",
    "0",
    "18446744073709551616",
    "true",
    "#ttg.slice<{dim = 0, parent = ",
    "CGALayout = [[0, 1]]",
    "#blocked",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 1usize..8).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<Index>(), select(FRAGMENTS.to_vec())).prop_map(|(i, s)| Edit::Insert(i, s)),
        any::<Index>().prop_map(Edit::Truncate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::Duplicate(a, b)),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len + 1) };
    match edit {
        Edit::Delete(i, n) => {
            let s = at(i, chars.len()).min(chars.len());
            let e = (s + n).min(chars.len());
            chars.drain(s..e);
        }
        Edit::Insert(i, frag) => {
            let s = at(i, chars.len());
            chars.splice(s..s, frag.chars());
        }
        Edit::Truncate(i) => chars.truncate(at(i, chars.len())),
        Edit::Duplicate(a, b) => {
            let (x, y) = (at(a, chars.len()), at(b, chars.len()));
            let piece: Vec<char> = chars[x.min(y)..x.max(y)].to_vec();
            chars.splice(x..x, piece);
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Encoding::from_mlir(&text);
        let _ = Encoding::from_mlir(&format!("#ttg.blocked<{{{text}"));
    }

    #[test]
    fn mutated_attributes_never_panic(enc in any_encoding(), edits in prop::collection::vec(edit(), 1..6)) {
        let mut text = enc.to_mlir();
        for e in &edits {
            text = apply(&text, e);
            if let Ok(parsed) = Encoding::from_mlir(&text) {
                // Whatever parses prints as something that parses to the same value.
                prop_assert_eq!(Encoding::from_mlir(&parsed.to_mlir())?, parsed);
            }
        }
    }
}

/// Legacy `CTAsPerCGA` / `CTASplitNum` / `CTAOrder` keys (real TTGIR still has them): one CTA
/// is accepted and prints back without them, as Triton 3.9 prints it; more CTAs are refused,
/// because Triton 3.9 would silently lay the tensor out for one.
#[test]
fn legacy_cta_keys() {
    let real = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], instrShape = [16, 256, 32]}>";
    assert_eq!(
        parse(real).to_mlir(),
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 32]}>"
    );
    let two = real.replace(
        "CTAsPerCGA = [1, 1], CTASplitNum = [1, 1]",
        "CTAsPerCGA = [2, 1], CTASplitNum = [2, 1]",
    );
    let msg = parse_error(&two);
    assert!(
        msg.starts_with("#ttg.nvidia_mma, column 1: legacy CTAsPerCGA = [2, 1], CTASplitNum = [2, 1] describe more than one CTA, but Triton 3.9 ignores these keys"),
        "{msg}"
    );
    let mfma = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true, CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>";
    assert!(parse(mfma).to_mlir().ends_with("isTransposed = true}>"));
    // Families whose Triton parser rejects unknown keys reject these too.
    assert!(parse_error("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCGA = [1]}>").contains("unknown key 'CTAsPerCGA'"));
}
