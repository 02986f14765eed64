//! Named (register layout, shared layout) pairs: golden PTX under `tests/golden/smem_*.ptx`
//! (regenerate with `BLESS=1 cargo test -p codegen --test smem_golden`), the interpreter
//! against the `AddressMap` for every thread, register and buffer index, ptxas for sm_90a,
//! and the table of address instructions per access (`tests/golden/smem_alu.txt`).

mod smem_common;

use std::fmt::Write as _;

use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::smem::kernels::{access_kernel, address_dump, round_trip, IndexSource, TestKernel};
use linear_layout::families::{
    Blocked, DistributedEncoding, DotOperand, NvidiaMma, NvmmaShared, SharedEncoding,
    SwizzledShared,
};
use linear_layout::{AddressMap, BufferMap, LinearLayout};
use smem_common::{assemble, check_run, golden};

struct Named {
    name: &'static str,
    what: &'static str,
    map: AddressMap,
    regs: LinearLayout,
    /// The other side of the round trip (stores: the loading layout; loads: the storing one).
    partner: LinearLayout,
    op: MemoryOp,
    index: IndexSource,
    lowering: BufferLowering,
}

fn blocked(
    spt: [u32; 2],
    tpw: [u32; 2],
    wpc: [u32; 2],
    row_major: bool,
    shape: [u64; 2],
) -> LinearLayout {
    Blocked {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpc.to_vec(),
        order: if row_major { vec![1, 0] } else { vec![0, 1] },
        cga_layout: vec![],
    }
    .to_linear_layout(&shape)
    .unwrap()
}

fn nvmma(
    swizzle: u32,
    bits: u32,
    transposed: bool,
    buffer: BufferMap,
    shape: [u64; 2],
) -> AddressMap {
    let enc =
        SharedEncoding::Nvmma(NvmmaShared::new(swizzle, bits, transposed, false, vec![]).unwrap());
    AddressMap::from_shared_encoding(buffer, bits, &enc, &shape).unwrap()
}

fn swizzled(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    row_major: bool,
    bits: u32,
    buffer: BufferMap,
    shape: [u64; 2],
) -> AddressMap {
    let order = if row_major { vec![1, 0] } else { vec![0, 1] };
    let enc = SharedEncoding::Swizzled(
        SwizzledShared::new(vec, per_phase, max_phase, order, vec![]).unwrap(),
    );
    AddressMap::from_shared_encoding(buffer, bits, &enc, &shape).unwrap()
}

fn mma_v2(warps: [u32; 2]) -> NvidiaMma {
    NvidiaMma {
        version_major: 2,
        version_minor: 0,
        warps_per_cta: warps.to_vec(),
        instr_shape: vec![16, 8],
        cga_layout: vec![],
    }
}

fn dot(op_idx: u32, parent: NvidiaMma, shape: [u64; 2]) -> LinearLayout {
    DotOperand {
        op_idx,
        parent: Box::new(DistributedEncoding::NvidiaMma(parent)),
        k_width: 2,
    }
    .to_linear_layout(&shape)
    .unwrap()
}

/// A plain 4-warp row-major blocked layout: the other side of a round trip.
fn plain(shape: [u64; 2]) -> LinearLayout {
    blocked([1, 4], [8, 4], [4, 1], true, shape)
}

const TLX: TlxReindex = TlxReindex {
    scale: 2,
    offset: 1,
    group_size: 2,
    unit: 8192,
};

fn cases() -> Vec<Named> {
    let one = |stride| BufferMap::new(0, &[(2, stride)]).unwrap();
    let s128x64 = [128, 64];
    let store_128b = blocked([1, 8], [4, 8], [4, 1], true, s128x64);
    let ring = nvmma(
        128,
        16,
        false,
        BufferMap::new(0, &[(3, 8192)]).unwrap(),
        [64, 64],
    );
    let tlx_placed = ring.with_buffer(TLX.buffer_map(4).unwrap());
    let store_64 = blocked([1, 8], [4, 8], [4, 1], true, [64, 64]);
    vec![
        Named {
            name: "blocked_to_nvmma128_store",
            what: "Blocked [1,8]/[4,8]/[4,1] -> NVMMA 128B, f16 128x64, buffer 1 of 2",
            map: nvmma(128, 16, false, one(16384), s128x64),
            regs: store_128b.clone(),
            partner: plain(s128x64),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "blocked_to_nvmma64_store",
            what: "Blocked [1,8]/[8,4]/[4,1] -> NVMMA 64B, f16 128x32",
            map: nvmma(64, 16, false, one(8192), [128, 32]),
            regs: blocked([1, 8], [8, 4], [4, 1], true, [128, 32]),
            partner: plain([128, 32]),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "blocked_to_nvmma32_store",
            what: "Blocked [1,8]/[16,2]/[4,1] -> NVMMA 32B, f16 128x16",
            map: nvmma(32, 16, false, one(4096), [128, 16]),
            regs: blocked([1, 8], [16, 2], [4, 1], true, [128, 16]),
            partner: plain([128, 16]),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "nvmma128_to_mma_v2_a_load",
            what: "NVMMA 128B -> DotOperand A (MMA v2 [4,1], kWidth 2), f16 128x64",
            map: nvmma(128, 16, false, one(16384), s128x64),
            regs: dot(0, mma_v2([4, 1]), s128x64),
            partner: store_128b.clone(),
            op: MemoryOp::Load,
            index: IndexSource::Const(vec![0]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "nvmma128t_to_mma_v2_b_load",
            what: "NVMMA 128B transposed (K contiguous) -> DotOperand B (MMA v2 [2,2]), f16 64x64",
            map: nvmma(128, 16, true, one(8192), [64, 64]),
            regs: dot(1, mma_v2([2, 2]), [64, 64]),
            partner: blocked([8, 1], [4, 8], [1, 4], false, [64, 64]),
            op: MemoryOp::Load,
            index: IndexSource::Const(vec![0]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "swizzled_to_mma_v2_a_x2_load",
            what: "swizzled_shared vec 8/1/1 -> DotOperand A (MMA v2 [1,1]), f16 16x8: ldmatrix.x2",
            map: swizzled(8, 1, 1, true, 16, one(256), [16, 8]),
            regs: dot(0, mma_v2([1, 1]), [16, 8]),
            partner: blocked([1, 4], [8, 4], [1, 1], true, [16, 8]),
            op: MemoryOp::Load,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "mma_v2_acc_to_swizzled_store",
            what: "MMA v2 accumulator [2,2] -> swizzled_shared vec 2/phase 1/max 8, f32 64x64",
            map: swizzled(2, 1, 8, true, 32, one(16384), [64, 64]),
            regs: mma_v2([2, 2]).to_linear_layout(&[64, 64]).unwrap(),
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![0]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "mma_v3_acc_to_nvmma128_store",
            what: "wgmma accumulator [4,1] m64n64 -> NVMMA 128B, f16 128x64 (epilogue)",
            map: nvmma(128, 16, false, one(16384), s128x64),
            regs: NvidiaMma {
                version_major: 3,
                version_minor: 0,
                warps_per_cta: vec![4, 1],
                instr_shape: vec![16, 64, 16],
                cga_layout: vec![],
            }
            .to_linear_layout(&s128x64)
            .unwrap(),
            partner: plain(s128x64),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "transpose_store_row_major",
            what: "transposing conversion, store: Blocked row-major [1,8] -> swizzled vec 8/1/8, f16 64x64",
            map: swizzled(8, 1, 8, true, 16, one(8192), [64, 64]),
            regs: store_64.clone(),
            partner: blocked([8, 1], [8, 4], [1, 4], false, [64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![0]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "transpose_load_col_major",
            what: "transposing conversion, load: swizzled vec 8/1/8 -> Blocked column-major [8,1], f16 64x64",
            map: swizzled(8, 1, 8, true, 16, one(8192), [64, 64]),
            regs: blocked([8, 1], [8, 4], [1, 4], false, [64, 64]),
            partner: store_64.clone(),
            op: MemoryOp::Load,
            index: IndexSource::Const(vec![0]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "unswizzled_f32_store",
            what: "Blocked [1,4]/[4,8]/[4,1] -> unswizzled swizzled_shared 1/1/1, f32 64x64",
            map: swizzled(1, 1, 1, true, 32, one(16384), [64, 64]),
            regs: blocked([1, 4], [4, 8], [4, 1], true, [64, 64]),
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Const(vec![1]),
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "runtime_ring_explicit",
            what: "run-time stage of a 3-stage NVMMA 128B ring (3):(8192), f16 64x64, explicit",
            map: ring.clone(),
            regs: store_64.clone(),
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Param,
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "runtime_tlx_placement_explicit",
            what: "run-time index, TLX placement s=2 off=1 gs=2 unit=8192 as explicit map",
            map: tlx_placed.clone(),
            regs: store_64.clone(),
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Param,
            lowering: BufferLowering::Explicit,
        },
        Named {
            name: "runtime_tlx_placement_reindex",
            what: "run-time index, the same placement through TLX's reindex (mul, add, rem, add, mad)",
            map: tlx_placed,
            regs: store_64.clone(),
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Param,
            lowering: BufferLowering::TlxReindex(TLX),
        },
        Named {
            name: "runtime_mixed_radix_explicit",
            what: "run-time index, (3,2):(8192,32768) NVMMA 128B, f16 64x64: div by 3, two mads",
            map: ring.with_buffer(BufferMap::new(0, &[(3, 8192), (2, 32768)]).unwrap()),
            regs: store_64,
            partner: plain([64, 64]),
            op: MemoryOp::Store,
            index: IndexSource::Param,
            lowering: BufferLowering::Explicit,
        },
    ]
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
        "# Shared-memory address instructions per access (`cargo test -p codegen --test smem_golden`).\n\
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
