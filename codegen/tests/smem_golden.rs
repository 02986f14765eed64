//! Named (register layout, shared layout) pairs: golden PTX under `tests/golden/smem_*.ptx`
//! (regenerate with `BLESS=1 cargo test -p linalias-codegen --test smem_golden`), the interpreter
//! against the `AddressMap` for every thread, register and buffer index, ptxas for sm_90a,
//! and the table of address instructions per access (`tests/golden/smem_alu.txt`).

#![allow(clippy::restriction)] // test code: a failed check panics

mod smem_cases;

use std::fmt::Write as _;

use codegen::access::IndexSource;
use codegen::access::MemoryOp;
use codegen::smem::kernels::{access_kernel, address_dump, round_trip, TestKernel};
use smem_cases::{cases, Named};
use test_support::smem::{assemble, check_run};

/// Compares `text` with `tests/golden/<name>` (`BLESS=1` rewrites it).
fn golden(name: &str, text: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    test_support::golden::check(format!("{dir}/{name}"), text);
}

fn indices(k: &TestKernel) -> Vec<Option<u64>> {
    match k.index {
        IndexSource::Param => (0..k.map.buffer().num_buffers()).map(Some).collect(),
        IndexSource::Const(_) => vec![None],
    }
}

fn check_all(k: &TestKernel) {
    for i in indices(k) {
        if let Err(e) = check_run(k, i) {
            panic!("{} (index {i:?}): {e}", k.kernel.name);
        }
    }
}

#[test]
fn named_pairs_match_goldens_the_map_and_ptxas() {
    let mut table = String::new();
    writeln!(
        table,
        "# Shared-memory address instructions per access (`cargo test -p linalias-codegen --test smem_golden`).\n\
         # emitter: address ALU the emission adds (thread base, buffer part, XORs);\n\
         # kernel: the access kernel's total, with `mov %tid.x` and `mov smem`.\n\
         # case | instruction | accesses | emitter ALU | per access | kernel ALU | per access"
    )
    .unwrap();
    let mut assembled = 0;
    for n in cases() {
        let k = access_kernel(n.name, &n.map, &n.regs, n.op, &n.index, n.lowering).unwrap();
        golden(
            &format!("smem_{}.ptx", n.name),
            &format!("// {}\n{}", n.what, k.kernel),
        );
        check_all(&k);
        let (store, load) = match n.op {
            MemoryOp::Store => (&n.regs, &n.partner),
            MemoryOp::Load => (&n.partner, &n.regs),
        };
        let rt = round_trip(n.name, &n.map, store, load, &n.index, n.lowering).unwrap();
        check_all(&rt);
        let dump = address_dump(n.name, &n.map, &n.regs, n.op, &n.index, n.lowering).unwrap();
        check_all(&dump);
        for kernel in [&k.kernel, &rt.kernel, &dump.kernel] {
            assembled += usize::from(assemble(kernel));
        }
        let e = &k.emissions[0].emitted;
        let plan = &k.emissions[0].plan;
        let stats = k.kernel.stats();
        let shared = e.accesses.len();
        let op = if n.op == MemoryOp::Store { "st" } else { "ld" };
        let shape = match plan.matrix() {
            Some((count, trans)) => format!(
                "{op}matrix.x{}{} ({} B)",
                count.count(),
                if trans { ".trans" } else { "" },
                4 * count.count()
            ),
            None => format!(
                "{op}.shared {}x{}b ({} B)",
                plan.vector().elements,
                n.map.element_bits(),
                plan.vector().bytes()
            ),
        };
        writeln!(
            table,
            "{} | {shape} | {} | {} | {:.3} | {} | {:.3}",
            n.name,
            shared,
            e.address_alu,
            e.address_alu as f64 / shared as f64,
            stats.address_alu,
            stats.address_alu as f64 / shared as f64,
        )
        .unwrap();
    }
    golden("smem_alu.txt", &table);
    if codegen::ptxas::locate().is_some() {
        assert_eq!(assembled, 3 * cases().len());
    }
}

#[test]
fn a_runtime_index_costs_at_most_half_through_the_explicit_map() {
    let named = cases();
    let get = |name: &str| named.iter().find(|n| n.name == name).unwrap();
    let alu = |n: &Named, index: &IndexSource| {
        access_kernel(n.name, &n.map, &n.regs, n.op, index, n.lowering)
            .unwrap()
            .emissions[0]
            .emitted
            .address_alu
    };
    let explicit = get("runtime_tlx_placement_explicit");
    let constant = alu(explicit, &IndexSource::Const(vec![3]));
    let run_time = alu(explicit, &IndexSource::Param);
    let tlx = alu(get("runtime_tlx_placement_reindex"), &IndexSource::Param);
    // The thread base (shl, shl, lop3) and the add of the shared base are common; the buffer
    // part is bfi + mad.lo explicitly, shl + add + and + add + mad.lo through TLX.
    assert_eq!((constant, run_time, tlx), (4, 6, 9));
    assert!(2 * (run_time - constant) <= tlx - constant);
}
