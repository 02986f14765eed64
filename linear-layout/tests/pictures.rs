//! The pictures under `docs/pictures/` (linked from the README): one per layout family, drawn
//! from the family attribute exactly as a TTGIR dump prints it. Each test re-renders its
//! picture and compares it with the committed file; `BLESS=1 cargo test -p linalias-linear-layout
//! --test pictures` rewrites them.

#![allow(clippy::restriction)] // test code: a failed check panics

use linear_layout::analysis::bank_conflicts;
use linear_layout::families::tmem_access::tmem_reg_layout;
use linear_layout::families::{Encoding, Tcgen05Atom, TensorMemory};
use linear_layout::views::svg::{bank_conflict_svg, shared_svg, tensor_svg, tmem_svg};
use linear_layout::LinearLayout;

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
const NVMMA_128B: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";

fn build(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::from_mlir(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .unwrap_or_else(|e| panic!("{attr} at {shape:?}: {e}"))
}

/// Compares `svg` with `docs/pictures/<name>.svg` (`BLESS=1` rewrites it).
fn golden(name: &str, svg: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/pictures");
    test_support::golden::check(format!("{dir}/{name}.svg"), svg);
}

#[test]
fn blocked() {
    let l = build(BLOCKED, &[32, 32]);
    let svg = tensor_svg(&l).expect("picture");
    assert_eq!(
        svg.matches("<rect").count(),
        32 * 32,
        "one cell per element"
    );
    golden("blocked", &svg);
}

#[test]
fn slice() {
    let attr = format!("#ttg.slice<{{dim = 0, parent = {BLOCKED}}}>");
    golden("slice", &tensor_svg(&build(&attr, &[64])).expect("picture"));
}

#[test]
fn wgmma_accumulator() {
    let attr = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>";
    golden(
        "nvidia_mma_v3",
        &tensor_svg(&build(attr, &[64, 32])).expect("picture"),
    );
}

#[test]
fn dot_operand() {
    let attr = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
    golden(
        "dot_operand",
        &tensor_svg(&build(attr, &[32, 16])).expect("picture"),
    );
}

#[test]
fn swizzled_shared() {
    let attr = "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>";
    golden(
        "swizzled_shared",
        &shared_svg(&build(attr, &[16, 16]), 2, 32).expect("picture"),
    );
}

#[test]
fn nvmma_shared() {
    golden(
        "nvmma_shared_128b",
        &shared_svg(&build(NVMMA_128B, &[8, 64]), 2, 32).expect("picture"),
    );
}

#[test]
fn tensor_memory_access() {
    // The registers of a tcgen05.ld 32x32b from a 128×16 f32 accumulator (4 warps): warp w
    // reads TMEM lanes 32w..32w+32, thread i its row, one register per column.
    let acc = TensorMemory {
        block_m: 128,
        block_n: 16,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    };
    let l = tmem_reg_layout(
        linear_layout::DType::F32,
        &[128, 16],
        &[128, 16],
        &acc.into(),
        4,
        Tcgen05Atom::M32x32b,
    )
    .expect("layout");
    golden("tmem_32x32b", &tensor_svg(&l).expect("picture"));
}

#[test]
fn tensor_memory_layout() {
    // blockM = 64 over 128 rows: lane bit 4 (lane 16) holds the second 64-row block, so rows
    // 64..80 sit in lanes 16..32 and rows 16..32 in lanes 32..48 (warp 1's slice).
    let attr = "#ttng.tensor_memory_encoding<blockM = 64, blockN = 16, colStride = 1>";
    let svg = tmem_svg(&build(attr, &[128, 16]), 32).expect("picture");
    assert_eq!(
        svg.matches("<rect").count(),
        128 * 16,
        "one cell per element"
    );
    golden("tmem_layout", &svg);
}

#[test]
fn bank_conflict_request() {
    let reg = build(BLOCKED, &[64, 64]);
    let smem = build(NVMMA_128B, &[64, 64]);
    assert_eq!(
        bank_conflicts(&reg, &smem, 16, 32)
            .expect("count")
            .conflicts,
        1
    );
    golden(
        "bank_conflicts",
        &bank_conflict_svg(&reg, &smem, 16, 32).expect("picture"),
    );
}
