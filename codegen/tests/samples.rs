//! The reference sample kernels (`shared/reference/ptx-samples/`) rebuilt with the builder:
//! assembled by ptxas for their target (skipped without ptxas) and run by the interpreter
//! from their printed text, with every address and value checked against a model.
//!
//! `misc90.ptx`'s wgmma (descriptors packed with `mov.b64 {lo, hi}`) and `umma100.ptx`
//! (`tcgen05.mma`, `tcgen05.commit`) are outside the subset; the rest is here.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{AccessKind, Config, Location, Machine, ParamValue, Tmem};
use codegen::ptx::{
    parse, Address, Builder, CmpOp, DataType, Guard, IntType, Kernel, MatrixCount, ParamType, Role,
    SpecialReg, StateSpace, Target, TmemShape, Width,
};

fn assemble(k: &Kernel) {
    let Some(ptxas) = codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    let text = k.to_string();
    match codegen::ptxas::assemble_with(&ptxas, &text, k.target.arch()) {
        Ok(out) => assert!(out.registers.is_some(), "{}", out.stderr),
        Err(e) => panic!("{e}\n{text}"),
    }
}

fn reparse(k: Kernel) -> Kernel {
    let back = parse(&k.to_string()).unwrap();
    assert_eq!(back, k);
    back
}

/// swz.ptx / swz100.ptx: Swizzle<3,4,3> of a 16-byte chunk offset, `ld.shared.v4` at it and
/// `ld.shared.b32` 1024 further, their sum written to `out[16·tid]`.
fn swz(target: Target) -> Kernel {
    let mut b = Builder::new("swz_load", target).unwrap();
    b.param("out", ParamType::U64).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    let out = b.global_pointer("out").unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    b.comment("logical byte offset of a 16-byte chunk: row = tid>>3 (128 B rows), chunk = tid&7")
        .unwrap();
    let off = b.shl(Width::B32, tid, 4).unwrap();
    b.comment("Swizzle<3,4,3>: off ^ ((off >> 3) & 0x70)")
        .unwrap();
    let hi = b.shr(IntType::U32, off, 3).unwrap();
    let swz = b.lop3(off, hi, 0x70, 0x78).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::S32, base, swz).unwrap();
    let v = b.ld(StateSpace::Shared, DataType::B32, 4, addr).unwrap();
    let w = b
        .ld(
            StateSpace::Shared,
            DataType::B32,
            1,
            Address::new(addr, 1024),
        )
        .unwrap();
    let sum = b
        .with_role(Role::Data, |b| b.add(IntType::S32, v[0], w[0]))
        .unwrap();
    let row = b
        .with_role(Role::Data, |b| b.mul_wide_u32(tid, 16))
        .unwrap();
    let dst = b
        .with_role(Role::Data, |b| b.add(IntType::S64, out, row))
        .unwrap();
    b.st(
        StateSpace::Global,
        DataType::B32,
        dst,
        &[sum, v[1], v[2], v[3]],
    )
    .unwrap();
    b.ret().unwrap();
    reparse(b.finish().unwrap())
}

fn swizzle_343(off: u32) -> u32 {
    off ^ ((off >> 3) & 0x70)
}

#[test]
fn swz_sample() {
    for target in [Target::Sm90a, Target::Sm100a] {
        let k = swz(target);
        assemble(&k);
        // 4 address ALU ops (shl, shr, lop3, add) + mov tid + mov smem per 2 accesses + the
        // store; the global-pointer ld.param/cvta are address work too.
        let stats = k.stats();
        assert_eq!(stats.memory_accesses, 3);
        assert_eq!(stats.data, 3 + 3);
        let threads = 128;
        let mut m = Machine::new(&k, Config::new(threads).dynamic_shared(4096)).unwrap();
        let smem = m.shared_address("smem").unwrap();
        assert_eq!(smem, 1024);
        let data: Vec<u8> = (0..1024u32)
            .flat_map(|w| (w * 7 + 1).to_le_bytes())
            .collect();
        m.write_shared(smem, &data).unwrap();
        let out = m
            .run(&[ParamValue::Buffer(vec![0; 16 * threads as usize])])
            .unwrap();
        let word = |byte: u32| (byte / 4) * 7 + 1;
        for t in 0..threads {
            let s = swizzle_343(16 * t);
            let loads: Vec<_> = out
                .trace
                .of_thread(t)
                .filter(|a| a.kind == AccessKind::Load)
                .collect();
            assert_eq!(loads.len(), 2);
            assert_eq!(
                (loads[0].location, loads[0].bytes),
                (Location::Shared(smem + s), 16)
            );
            assert_eq!(
                (loads[1].location, loads[1].bytes),
                (Location::Shared(smem + s + 1024), 4)
            );
            let got: Vec<u32> = out.buffers[0][16 * t as usize..16 * t as usize + 16]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let want = vec![
                word(s) + word(s + 1024),
                word(s + 4),
                word(s + 8),
                word(s + 12),
            ];
            assert_eq!(got, want, "thread {t}");
            let store = out
                .trace
                .of_thread(t)
                .find(|a| a.kind == AccessKind::Store)
                .unwrap();
            assert_eq!(
                store.location,
                Location::Global {
                    param: 0,
                    offset: 16 * u64::from(t)
                }
            );
        }
    }
}

/// misc90.ptx without its wgmma: ldmatrix.x4 from a Swizzle<3,4,3>'d row address built with
/// bfe / mad.lo / shl / or, stmatrix.x4 2048 further, bfi and prmt of the fragments.
fn misc90() -> Kernel {
    let mut b = Builder::new("misc90", Target::Sm90a).unwrap();
    b.param("out", ParamType::U64).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    let out = b.global_pointer("out").unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    b.comment("ldmatrix row address: lane -> row (lane & 15), 16B chunk (lane >> 4)")
        .unwrap();
    let row = b.bfe(tid, 0, 4).unwrap();
    let chunk = b.bfe(tid, 4, 1).unwrap();
    let row_bytes = b.mad_lo(IntType::S32, row, 128, 0).unwrap();
    let chunk_bytes = b.shl(Width::B32, chunk, 4).unwrap();
    let off = b.or(Width::B32, row_bytes, chunk_bytes).unwrap();
    let hi = b.shr(IntType::U32, off, 3).unwrap();
    let swz = b.lop3(off, hi, 0x70, 0x78).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::S32, base, swz).unwrap();
    let f = b.ldmatrix(MatrixCount::X4, false, addr).unwrap();
    b.stmatrix(MatrixCount::X4, false, Address::new(addr, 2048), &f)
        .unwrap();
    let (ins, perm, total, slot, dst) = b
        .with_role(Role::Data, |b| {
            let ins = b.bfi(f[0], f[1], 8, 4)?;
            let perm = b.prmt(f[2], f[3], 0x5410)?;
            let total = b.add(IntType::S32, ins, perm)?;
            let slot = b.mul_wide_u32(tid, 4)?;
            let dst = b.add(IntType::S64, out, slot)?;
            Ok((ins, perm, total, slot, dst))
        })
        .unwrap();
    let _ = (ins, perm, slot);
    b.st(StateSpace::Global, DataType::B32, dst, &[total])
        .unwrap();
    b.ret().unwrap();
    reparse(b.finish().unwrap())
}

#[test]
fn misc90_sample() {
    let k = misc90();
    assemble(&k);
    let mut m = Machine::new(&k, Config::new(32).dynamic_shared(4096)).unwrap();
    let smem = m.shared_address("smem").unwrap();
    // Element e (16-bit) at byte 2e holds e.
    let data: Vec<u8> = (0..2048u16).flat_map(|e| e.to_le_bytes()).collect();
    m.write_shared(smem, &data).unwrap();
    let out = m.run(&[ParamValue::Buffer(vec![0; 128])]).unwrap();
    let row_addr = |t: u32| swizzle_343((t & 15) * 128 + (t >> 4) * 16);
    for a in out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::LdmatrixRow { .. }))
    {
        let AccessKind::LdmatrixRow { matrix, row } = a.kind else {
            unreachable!()
        };
        assert_eq!(u32::from(matrix) * 8 + u32::from(row), a.thread);
        assert_eq!(a.location, Location::Shared(smem + row_addr(a.thread)));
    }
    for a in out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::StmatrixRow { .. }))
    {
        assert_eq!(
            a.location,
            Location::Shared(smem + 2048 + row_addr(a.thread))
        );
    }
    // The model: fragment i of lane l = elements (row l/4, cols 2(l%4), +1) of matrix i, whose
    // row r is at row_addr(8i + r).
    let frag = |l: u32, i: u32| {
        let at = row_addr(8 * i + l / 4) + 4 * (l % 4);
        (at / 2) | (at / 2 + 1) << 16
    };
    let bfi = |a: u32, b: u32| (b & !(0xF << 8)) | ((a & 0xF) << 8);
    let prmt = |a: u32, b: u32| (a & 0xFFFF) | (b & 0xFFFF) << 16;
    for l in 0..32u32 {
        let want = bfi(frag(l, 0), frag(l, 1)).wrapping_add(prmt(frag(l, 2), frag(l, 3)));
        let got = u32::from_le_bytes(
            out.buffers[0][4 * l as usize..4 * l as usize + 4]
                .try_into()
                .unwrap(),
        );
        assert_eq!(got, want, "lane {l}");
    }
    // stmatrix wrote exactly what ldmatrix read, at the same swizzled rows 2048 further.
    for t in 0..32 {
        let a = (smem + row_addr(t)) as usize;
        assert_eq!(out.shared[a..a + 16], out.shared[a + 2048..a + 2048 + 16]);
    }
}

/// tmem100.ptx: 128 threads; warp 0 allocates 64 columns; each warp stores (tid, warp, w<<21,
/// taddr) with 32x32b.x4 at column 8 of its lanes, loads them back, loads with the three
/// 16-lane shapes at column 0, sums, writes out[tid]; warp 0 frees.
fn tmem100() -> Kernel {
    let mut b = Builder::new("tmem_roundtrip", Target::Sm100a).unwrap();
    b.param("out", ParamType::U64).unwrap();
    b.shared("tmem_slot", 16, 4).unwrap();
    let out = b.global_pointer("out").unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let warp = b.shr(IntType::U32, tid, 5).unwrap();
    let slot = b.shared_address("tmem_slot").unwrap();
    let p = b.setp(CmpOp::Eq, IntType::U32, warp, 0).unwrap();
    b.guarded(Guard::unless(p), |b| b.bra("ALLOC_DONE"))
        .unwrap();
    b.tcgen05_alloc(slot, 64).unwrap();
    b.tcgen05_relinquish_alloc_permit().unwrap();
    b.label("ALLOC_DONE").unwrap();
    b.tcgen05_fence_before_thread_sync().unwrap();
    b.bar_sync(0).unwrap();
    b.tcgen05_fence_after_thread_sync().unwrap();
    let base = b.ld(StateSpace::Shared, DataType::B32, 1, slot).unwrap()[0];
    let lanes = b.shl(Width::B32, warp, 21).unwrap();
    let taddr = b.add(IntType::S32, base, lanes).unwrap();
    let col8 = b.add(IntType::S32, taddr, 8).unwrap();
    b.tcgen05_st(TmemShape::S32x32b, 4, col8, &[tid, warp, lanes, taddr])
        .unwrap();
    b.tcgen05_wait_st().unwrap();
    let mut regs = b.tcgen05_ld(TmemShape::S32x32b, 4, col8).unwrap();
    regs.extend(b.tcgen05_ld(TmemShape::S16x64b, 2, taddr).unwrap());
    regs.extend(b.tcgen05_ld(TmemShape::S16x128b, 1, taddr).unwrap());
    regs.extend(b.tcgen05_ld(TmemShape::S16x256b, 1, taddr).unwrap());
    b.tcgen05_wait_ld().unwrap();
    let sum = b
        .with_role(Role::Data, |b| {
            let mut sum = regs[0];
            for r in &regs[1..] {
                sum = b.add(IntType::S32, sum, *r)?;
            }
            Ok(sum)
        })
        .unwrap();
    let slot4 = b.mul_wide_u32(tid, 4).unwrap();
    let dst = b.add(IntType::S64, out, slot4).unwrap();
    b.st(StateSpace::Global, DataType::B32, dst, &[sum])
        .unwrap();
    b.tcgen05_fence_before_thread_sync().unwrap();
    b.bar_sync(0).unwrap();
    b.tcgen05_fence_after_thread_sync().unwrap();
    b.guarded(Guard::unless(p), |b| b.bra("DONE")).unwrap();
    b.tcgen05_dealloc(base, 64).unwrap();
    b.label("DONE").unwrap();
    b.ret().unwrap();
    reparse(b.finish().unwrap())
}

#[test]
fn tmem100_sample() {
    let k = tmem100();
    assemble(&k);
    let mut m = Machine::new(&k, Config::new(128)).unwrap();
    // Pre-fill columns 0..8 so the 16-lane loads read something recognisable.
    for lane in 0..Tmem::LANES {
        for col in 0..8 {
            m.tmem_mut().set(lane, col, lane * 100 + col);
        }
    }
    let out = m.run(&[ParamValue::Buffer(vec![0; 512])]).unwrap();
    let st: Vec<_> = out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::TmemStore { .. }))
        .collect();
    assert_eq!(st.len(), 128 * 4);
    for a in &st {
        let AccessKind::TmemStore { reg, .. } = a.kind else {
            unreachable!()
        };
        assert_eq!(
            a.location,
            Location::Tmem {
                lane: a.thread,
                column: 8 + u32::from(reg)
            }
        );
    }
    for t in 0..128u32 {
        let (w, l) = (t / 32, t % 32);
        let cell = |lane: u32, col: u32| lane * 100 + col;
        let mut want = t
            .wrapping_add(w)
            .wrapping_add(w << 21)
            .wrapping_add(w << 21);
        for (shape, n) in [
            (TmemShape::S16x64b, 2),
            (TmemShape::S16x128b, 2),
            (TmemShape::S16x256b, 4),
        ] {
            for r in 0..n {
                let (dl, dc) = shape.cell(l, r);
                want = want.wrapping_add(cell(32 * w + dl, dc));
            }
        }
        let got = u32::from_le_bytes(
            out.buffers[0][4 * t as usize..4 * t as usize + 4]
                .try_into()
                .unwrap(),
        );
        assert_eq!(got, want, "thread {t}");
    }
    assert!(out.tmem.allocations().is_empty());
    // ALU work per access: the address part is the same for every warp.
    let stats = k.stats();
    assert_eq!(stats.memory_accesses, 1 + 1 + 4 + 1);
}
