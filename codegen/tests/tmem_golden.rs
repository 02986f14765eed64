//! Golden PTX for the Flash-Attention forward TMEM allocations (the plan of
//! `examples/flash_attention.toml`): S = QK^T f32 `[128, 128]` ×2 at columns 0 / 128, P bf16
//! `[128, 64]` ×4 at 0 / 32 / 128 / 160, alpha f32 `[128, 1]` ×2 at 64 / 192. Each golden is a
//! round-trip kernel with a run-time buffer index; it must match `golden/tmem_*.ptx`
//! (`BLESS=1` rewrites them), pass the interpreter check for every buffer and assemble.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::access::IndexSource;
use codegen::tmem::{roundtrip_kernel, TmemPlan};
use linear_layout::families::Tcgen05Atom;
use linear_layout::BufferMap;
use test_support::tmem::{assemble_all, check_roundtrip, tmem, Alloc};

/// The FA forward allocations: `(name, allocation)`.
fn fa_allocations() -> Vec<(&'static str, Alloc)> {
    vec![
        (
            "qk",
            Alloc::new(
                tmem(128, 128),
                [128, 128],
                32,
                BufferMap::new(0, &[(2, 128)]).unwrap(),
            ),
        ),
        (
            "p",
            Alloc::new(
                tmem(128, 64),
                [128, 64],
                16,
                BufferMap::new(0, &[(2, 32), (2, 128)]).unwrap(),
            ),
        ),
        (
            "alpha",
            Alloc::new(
                tmem(128, 1),
                [128, 1],
                32,
                BufferMap::new(64, &[(2, 128)]).unwrap(),
            ),
        ),
    ]
}

/// Compares `text` with `tests/golden/<name>.ptx` (`BLESS=1` rewrites it).
fn golden(name: &str, text: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    test_support::golden::check(format!("{dir}/{name}.ptx"), text);
}

/// One golden per allocation (32x32b, 4 warps, the softmax warpgroup's access), plus S loaded
/// with 16x256b by 8 warps, the other shape Triton picks for it.
#[test]
fn fa_forward_goldens() {
    let mut kernels = Vec::new();
    let mut cases: Vec<(String, Alloc, Tcgen05Atom, u32)> = fa_allocations()
        .into_iter()
        .map(|(n, a)| (format!("tmem_fa_{n}"), a, Tcgen05Atom::M32x32b, 4))
        .collect();
    cases.push((
        "tmem_fa_qk_16x256b_w8".into(),
        fa_allocations().remove(0).1,
        Tcgen05Atom::M16x256b,
        8,
    ));
    for (name, alloc, atom, warps) in cases {
        let plan: TmemPlan = alloc.plan(atom, warps).unwrap();
        let kernel = roundtrip_kernel(&name, &plan, &plan, IndexSource::Param).unwrap();
        golden(&name, &kernel.to_string());
        let (_, cells) = check_roundtrip(&name, &alloc, &plan, &plan, IndexSource::Param);
        assert!(cells > 0);
        let messages: Vec<String> = plan
            .messages()
            .iter()
            .map(|m| format!("{}.x{}@+{}", plan.shape(), m.num, m.offset()))
            .collect();
        eprintln!(
            "{name}: {} registers, messages {messages:?}, {} instructions, {} address ALU",
            plan.registers(),
            kernel.instruction_count(),
            kernel.address_alu_count()
        );
        kernels.push(kernel);
    }
    assemble_all(&kernels);
}

/// The FA plan's allocations fit one 256-column `tcgen05.alloc`.
#[test]
fn fa_forward_fits_256_columns() {
    let allocs = fa_allocations();
    let plans: Vec<TmemPlan> = allocs
        .iter()
        .map(|(_, a)| a.plan(Tcgen05Atom::M32x32b, 4).unwrap())
        .collect();
    let ends: Vec<u64> = plans.iter().map(|p| p.end_column()).collect();
    assert_eq!(ends, [256, 192, 193]);
    let refs: Vec<&TmemPlan> = plans.iter().collect();
    assert_eq!(codegen::tmem::alloc_columns(&refs).unwrap(), 256);
}
