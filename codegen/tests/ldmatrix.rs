//! ldmatrix / stmatrix in the interpreter: which thread supplies which row, what each lane
//! receives, .trans, and the round trip through stmatrix.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{AccessKind, Config, InterpError, Location, Machine};
use codegen::ptx::{
    parse, Address, Builder, CmpOp, Guard, IntType, Kernel, MatrixCount, Reg, SpecialReg, Target,
    Width,
};

/// Thread `t` points at row `t` of a 32-row × 16-byte table (matrix t/8, row t%8),
/// optionally XOR-swizzled; loads with `ldmatrix.x4`, stores the fragments back with
/// `stmatrix.x4` 2048 bytes further.
fn kernel(trans: bool, swizzle: bool) -> (Kernel, Vec<Reg>) {
    let mut b = Builder::new("ldsm", Target::Sm90a).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let lane = b.and(Width::B32, tid, 31).unwrap();
    let mut off = b.shl(Width::B32, lane, 4).unwrap();
    if swizzle {
        // off ^ ((off >> 1) & 0x10): rows 2 and 3 (mod 4) swap places.
        let hi = b.shr(IntType::U32, off, 1).unwrap();
        off = b.lop3(off, hi, 0x10, 0x78).unwrap();
    }
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::U32, base, off).unwrap();
    let frag = b.ldmatrix(MatrixCount::X4, trans, addr).unwrap();
    b.stmatrix(MatrixCount::X4, trans, Address::new(addr, 2048), &frag)
        .unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let back = parse(&k.to_string()).unwrap();
    assert_eq!(back, k);
    (back, frag)
}

/// 16-bit element `e` of shared byte `2e` relative to smem holds `e`.
fn fill(m: &mut Machine) {
    let data: Vec<u8> = (0..2048u16).flat_map(|e| e.to_le_bytes()).collect();
    m.write_shared(1024, &data).unwrap();
}

#[test]
fn ldmatrix_x4_rows_and_fragments() {
    for trans in [false, true] {
        let (k, frag) = kernel(trans, false);
        let mut m = Machine::new(&k, Config::new(32).dynamic_shared(4096)).unwrap();
        fill(&mut m);
        let out = m.run(&[]).unwrap();
        let rows: Vec<_> = out
            .trace
            .iter()
            .filter(|a| matches!(a.kind, AccessKind::LdmatrixRow { .. }))
            .collect();
        assert_eq!(rows.len(), 32);
        for a in &rows {
            let AccessKind::LdmatrixRow { matrix, row } = a.kind else {
                unreachable!()
            };
            // Thread t supplies matrix t/8, row t%8, at its own address.
            assert_eq!(
                (u32::from(matrix), u32::from(row)),
                (a.thread / 8, a.thread % 8)
            );
            assert_eq!(a.location, Location::Shared(1024 + 16 * a.thread));
            assert_eq!(a.bytes, 16);
            let first = 8 * a.thread as u128;
            assert_eq!(a.value & 0xFFFF, first);
        }
        // Element (row, col) of matrix i is 64·i + 8·row + col.
        for l in 0..32u64 {
            for (i, r) in frag.iter().enumerate() {
                let e = |row: u64, col: u64| 64 * i as u64 + 8 * row + col;
                let (lo, hi) = if trans {
                    (e(2 * (l % 4), l / 4), e(2 * (l % 4) + 1, l / 4))
                } else {
                    (e(l / 4, 2 * (l % 4)), e(l / 4, 2 * (l % 4) + 1))
                };
                assert_eq!(
                    out.register(l as u32, *r),
                    Some(lo | hi << 16),
                    "trans {trans} lane {l} matrix {i}"
                );
            }
        }
        // stmatrix with the same shape and addresses 2048 further copies the table.
        assert_eq!(
            &out.shared[1024 + 2048..1024 + 2048 + 512],
            &out.shared[1024..1024 + 512]
        );
        let st_rows: Vec<_> = out
            .trace
            .iter()
            .filter(|a| matches!(a.kind, AccessKind::StmatrixRow { .. }))
            .collect();
        assert_eq!(st_rows.len(), 32);
        assert!(st_rows
            .iter()
            .all(|a| a.location == Location::Shared(1024 + 2048 + 16 * a.thread)));
    }
}

#[test]
fn ldmatrix_rows_follow_the_supplied_swizzled_addresses() {
    let (k, frag) = kernel(false, true);
    let mut m = Machine::new(&k, Config::new(32).dynamic_shared(4096)).unwrap();
    fill(&mut m);
    let out = m.run(&[]).unwrap();
    for a in out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::LdmatrixRow { .. }))
    {
        let off = 16 * a.thread;
        let swz = off ^ ((off >> 1) & 0x10);
        assert_eq!(
            a.location,
            Location::Shared(1024 + swz),
            "thread {}",
            a.thread
        );
    }
    // Lane 4·r gets row r: the 16 bytes at the address thread r supplied.
    assert_eq!(out.register(0, frag[0]), Some(1 << 16)); // thread 0 → byte 0: elements 0, 1
    assert_eq!(out.register(4, frag[0]), Some(8 | 9 << 16)); // thread 1 → byte 16
    assert_eq!(out.register(8, frag[0]), Some(24 | 25 << 16)); // thread 2 → byte 48
    assert_eq!(out.register(12, frag[0]), Some(16 | 17 << 16)); // thread 3 → byte 32
}

#[test]
fn ldmatrix_x1_reads_only_threads_0_to_7() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let base = b.shared_address("smem").unwrap();
    // Only threads 0..8 compute an address; the others leave the register unwritten.
    let addr = b.reg(codegen::ptx::RegType::B32);
    let low = b.setp(CmpOp::Lt, IntType::U32, tid, 8).unwrap();
    b.guarded(Guard::when(low), |b| {
        let off = b.shl(Width::B32, tid, 4)?;
        b.push(codegen::ptx::Op::Arith {
            op: codegen::ptx::ArithOp::Add,
            ty: IntType::U32,
            d: addr,
            a: base.into(),
            b: off.into(),
        })
    })
    .unwrap();
    let frag = b.ldmatrix(MatrixCount::X1, false, addr).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let mut m = Machine::new(&k, Config::new(32).dynamic_shared(128)).unwrap();
    fill_small(&mut m);
    let out = m.run(&[]).unwrap();
    assert_eq!(out.trace.len(), 8);
    assert_eq!(out.register(31, frag[0]), Some(62 | 63 << 16));
}

fn fill_small(m: &mut Machine) {
    let data: Vec<u8> = (0..64u16).flat_map(|e| e.to_le_bytes()).collect();
    m.write_shared(1024, &data).unwrap();
}

#[test]
fn misaligned_row_address_is_an_error() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let base = b.shared_address("smem").unwrap();
    let off = b.shl(Width::B32, tid, 3).unwrap(); // 8-byte steps: odd threads misaligned
    let addr = b.add(IntType::U32, base, off).unwrap();
    b.ldmatrix(MatrixCount::X2, false, addr).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let err = Machine::new(&k, Config::new(32).dynamic_shared(512))
        .unwrap()
        .run(&[])
        .unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::Misaligned {
                thread: 1,
                align: 16,
                ..
            }
        ),
        "{err}"
    );
}

/// `stmatrix` writes through the generic proxy, each 16-bit half tagged with the thread whose
/// fragment it was: a `tcgen05.cp` that reads the stored rows without a fence names that
/// thread. Both warps store the same rows, warp 1 last (warp 0 waits at the barrier), so the
/// first half of row 0 is lane 0 of warp 1's: thread 32.
#[test]
fn stmatrix_halves_are_written_by_their_own_thread() {
    let mut b = Builder::new("st", Target::Sm100a).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let lane = b.and(Width::B32, tid, 31).unwrap();
    let off = b.shl(Width::B32, lane, 4).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::U32, base, off).unwrap();
    let frag = b.ldmatrix(MatrixCount::X4, false, addr).unwrap();
    b.stmatrix(MatrixCount::X4, false, Address::new(addr, 2048), &frag)
        .unwrap();
    b.bar_sync(0).unwrap();
    // A copy of the stored rows: descriptor start (smem + 2048) / 16, the fixed 0b001.
    let stored = b.add(IntType::U32, base, 2048).unwrap();
    let start = b.shr(IntType::U32, stored, 4).unwrap();
    let start = b.cvt_u64_u32(start).unwrap();
    let desc = b.or(Width::B64, start, 1i64 << 46).unwrap();
    let taddr = b.mov(codegen::ptx::RegType::B32, 0).unwrap();
    b.tcgen05_cp(codegen::ptx::CpShape::S32x128bWarpx4, taddr, desc)
        .unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let mut m = Machine::new(&k, Config::new(64).dynamic_shared(4096)).unwrap();
    fill(&mut m);
    let smem = m.shared_address("smem").unwrap();
    match m.run(&[]) {
        Err(InterpError::UnfencedSharedWrite {
            thread,
            writer,
            address,
            ..
        }) => assert_eq!((thread, writer, address), (0, 32, smem + 2048)),
        other => panic!("{other:?}"),
    }
}
