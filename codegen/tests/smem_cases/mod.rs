//! The named (register layout, shared layout) pairs of the SMEM emitter's goldens
//! (`smem_golden`), also run on the GPU (`gpu`): NVMMA 128/64/32 B, swizzled, `ldmatrix`/
//! `stmatrix`, and a run-time buffer index lowered explicitly and through TLX's reindexing.
#![allow(dead_code)]

use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use linear_layout::families::{
    Blocked, DistributedEncoding, DotOperand, NvmmaDistributed, NvmmaShared, SharedEncoding,
    SwizzledShared,
};
use linear_layout::{AddressMap, BufferMap, LinearLayout};

/// One named case: a register layout, the shared map it accesses, and how.
pub struct Named {
    pub name: &'static str,
    pub what: &'static str,
    pub map: AddressMap,
    pub regs: LinearLayout,
    /// The other side of the round trip (stores: the loading layout; loads: the storing one).
    pub partner: LinearLayout,
    pub op: MemoryOp,
    pub index: IndexSource,
    pub lowering: BufferLowering,
}

pub fn blocked(
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

pub fn nvmma(
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

pub fn swizzled(
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

pub fn mma_v2(warps: [u32; 2]) -> NvmmaDistributed {
    NvmmaDistributed {
        version_major: 2,
        version_minor: 0,
        warps_per_cta: warps.to_vec(),
        instr_shape: vec![16, 8],
        cga_layout: vec![],
    }
}

pub fn dot(operand_index: u32, parent: NvmmaDistributed, shape: [u64; 2]) -> LinearLayout {
    DotOperand {
        operand_index,
        parent: Box::new(DistributedEncoding::NvmmaDistributed(parent)),
        k_width: 2,
    }
    .to_linear_layout(&shape)
    .unwrap()
}

/// A plain 4-warp row-major blocked layout: the other side of a round trip.
pub fn plain(shape: [u64; 2]) -> LinearLayout {
    blocked([1, 4], [8, 4], [4, 1], true, shape)
}

pub const TLX: TlxReindex = TlxReindex::new(2, 1, 2, 8192);

pub fn cases() -> Vec<Named> {
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
            regs: NvmmaDistributed {
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
