//! tcgen05 in the interpreter: the exact (lane, column) every thread's registers touch for
//! each shape, the allocation protocol, and the errors for what hardware forbids.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{run, AccessKind, Config, InterpError, Location, Machine};
use codegen::ptx::{
    parse, Address, Builder, CmpOp, DataType, Guard, IntType, Kernel, PtxError, Reg, RegType,
    SpecialReg, StateSpace, Target, TmemShape, Width,
};

/// Registers every kernel here starts with.
struct Prologue {
    tid: Reg,
    warp: Reg,
    slot: Reg,
    is_warp0: Reg,
}

fn prologue(b: &mut Builder) -> Prologue {
    b.shared("tmem_slot", 16, 4).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let warp = b.shr(IntType::U32, tid, 5).unwrap();
    let slot = b.shared_address("tmem_slot").unwrap();
    let is_warp0 = b.setp(CmpOp::Eq, IntType::U32, warp, 0).unwrap();
    Prologue {
        tid,
        warp,
        slot,
        is_warp0,
    }
}

/// Warp 0 allocates `ncols`; everyone syncs and reads the base back.
fn alloc(b: &mut Builder, p: &Prologue, ncols: u32) -> Reg {
    let skip = b.fresh_label("alloc_done");
    b.guarded(Guard::unless(p.is_warp0), |b| b.bra(&skip))
        .unwrap();
    b.tcgen05_alloc(p.slot, ncols).unwrap();
    b.tcgen05_relinquish_alloc_permit().unwrap();
    b.label(&skip).unwrap();
    b.tcgen05_fence_before_thread_sync().unwrap();
    b.bar_sync(0).unwrap();
    b.tcgen05_fence_after_thread_sync().unwrap();
    b.ld(StateSpace::Shared, DataType::B32, 1, p.slot).unwrap()[0]
}

/// Everyone syncs; warp 0 frees.
fn dealloc(b: &mut Builder, p: &Prologue, base: Reg, ncols: u32) {
    b.tcgen05_fence_before_thread_sync().unwrap();
    b.bar_sync(0).unwrap();
    b.tcgen05_fence_after_thread_sync().unwrap();
    b.guarded(Guard::when(p.is_warp0), |b| b.tcgen05_dealloc(base, ncols))
        .unwrap();
    b.ret().unwrap();
}

/// `taddr = base + ((warp % 4) · 32 << 16)`.
fn warp_taddr(b: &mut Builder, p: &Prologue, base: Reg) -> Reg {
    let quarter = b.and(Width::B32, p.warp, 3).unwrap();
    let lanes = b.shl(Width::B32, quarter, 21).unwrap();
    b.add(IntType::U32, base, lanes).unwrap()
}

fn reparse(k: Kernel) -> Kernel {
    let back = parse(&k.to_string()).unwrap();
    assert_eq!(back, k);
    back
}

/// Each thread stores `tid · 1000 + r` to its cells with `32x32b.x4` at column 16, waits,
/// loads them back with the same shape.
fn roundtrip_32x32b() -> Kernel {
    let mut b = Builder::new("tmem_roundtrip", Target::Sm100a).unwrap();
    b.reqntid(128).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 64);
    let taddr = warp_taddr(&mut b, &p, base);
    let tag = b.mul_lo(IntType::U32, p.tid, 1000).unwrap();
    let vals: Vec<Reg> = (0..4)
        .map(|r| b.add(IntType::U32, tag, r).unwrap())
        .collect();
    b.tcgen05_st(TmemShape::S32x32b, 4, Address::new(taddr, 16), &vals)
        .unwrap();
    b.tcgen05_wait_st().unwrap();
    let back = b
        .tcgen05_ld(TmemShape::S32x32b, 4, Address::new(taddr, 16))
        .unwrap();
    b.tcgen05_wait_ld().unwrap();
    // Read them after the wait, so the pending-load check is exercised.
    let mut sum = back[0];
    for r in &back[1..] {
        sum = b.add(IntType::U32, sum, *r).unwrap();
    }
    dealloc(&mut b, &p, base, 64);
    reparse(b.finish().unwrap())
}

#[test]
fn tcgen05_32x32b_roundtrip_touches_lane_tid_column_16_plus_r() {
    let k = roundtrip_32x32b();
    let out = run(&k, &Config::new(128), &[]).unwrap();
    let stores: Vec<_> = out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::TmemStore { .. }))
        .collect();
    let loads: Vec<_> = out
        .trace
        .iter()
        .filter(|a| matches!(a.kind, AccessKind::TmemLoad { .. }))
        .collect();
    assert_eq!((stores.len(), loads.len()), (128 * 4, 128 * 4));
    for accesses in [&stores, &loads] {
        for a in accesses.iter() {
            let r = match a.kind {
                AccessKind::TmemStore { reg, .. } | AccessKind::TmemLoad { reg, .. } => {
                    u32::from(reg)
                }
                _ => unreachable!(),
            };
            assert_eq!(
                a.location,
                Location::Tmem {
                    lane: a.thread,
                    column: 16 + r
                },
                "{a:?}"
            );
            assert_eq!(a.value, u128::from(a.thread * 1000 + r));
            assert_eq!(a.bytes, 4);
        }
    }
    // Every thread touched exactly its own four cells.
    for t in 0..128u32 {
        let cells: Vec<_> = stores
            .iter()
            .filter(|a| a.thread == t)
            .map(|a| a.location)
            .collect();
        let want: Vec<_> = (0..4)
            .map(|r| Location::Tmem {
                lane: t,
                column: 16 + r,
            })
            .collect();
        assert_eq!(cells, want);
        assert_eq!(out.tmem.get(t, 17), Some(t * 1000 + 1));
    }
    // The allocation wrote column 0 to the slot, once, from warp 0.
    let allocs: Vec<_> = out
        .trace
        .iter()
        .filter(|a| a.kind == AccessKind::TmemAllocWrite)
        .collect();
    assert_eq!(allocs.len(), 1);
    assert_eq!(
        (allocs[0].thread, allocs[0].location, allocs[0].value),
        (0, Location::Shared(1024), 0)
    );
    assert!(out.tmem.allocations().is_empty());
}

/// One load of `shape.x2` per warp at column 8; every cell's (lane, column) against the table.
#[test]
fn every_shape_follows_its_thread_to_data_map() {
    // 16x32bx2: lanes 16-31 at 16 columns on, or at TMEM lane 8 and 4 columns on.
    let shapes = TmemShape::ALL
        .into_iter()
        .chain([TmemShape::S16x32bx2(16), TmemShape::S16x32bx2(8 << 16 | 4)]);
    for shape in shapes {
        for warp_lane_half in [0u32, 16] {
            if shape == TmemShape::S32x32b && warp_lane_half == 16 {
                continue;
            }
            // A split into TMEM lane 8 stays in the warp's quarter only from lane 0.
            if shape == TmemShape::S16x32bx2(8 << 16 | 4) && warp_lane_half == 16 {
                continue;
            }
            let mut b = Builder::new("shapes", Target::Sm100a).unwrap();
            let p = prologue(&mut b);
            let base = alloc(&mut b, &p, 32);
            let taddr = warp_taddr(&mut b, &p, base);
            let regs = b
                .tcgen05_ld(
                    shape,
                    2,
                    Address::new(taddr, (warp_lane_half << 16) as i32 + 8),
                )
                .unwrap();
            b.tcgen05_wait_ld().unwrap();
            dealloc(&mut b, &p, base, 32);
            let k = reparse(b.finish().unwrap());
            let mut m = Machine::new(&k, Config::new(128)).unwrap();
            for lane in 0..128 {
                for col in 0..32 {
                    m.tmem_mut().set(lane, col, lane << 16 | col);
                }
            }
            let out = m.run(&[]).unwrap();
            let loads: Vec<_> = out
                .trace
                .iter()
                .filter(|a| matches!(a.kind, AccessKind::TmemLoad { .. }))
                .collect();
            assert_eq!(loads.len(), 128 * regs.len(), "{shape}");
            for a in &loads {
                let AccessKind::TmemLoad { reg, .. } = a.kind else {
                    unreachable!()
                };
                let (l, r) = (a.thread % 32, u32::from(reg));
                let w = a.thread / 32;
                let want = match shape {
                    TmemShape::S32x32b => (l, r),
                    TmemShape::S16x64b => (l / 4 + 8 * (l % 2), (l / 2) % 2 + 2 * r),
                    TmemShape::S16x128b => (l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)),
                    TmemShape::S16x256b => {
                        (l / 4 + 8 * ((r / 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r / 4))
                    }
                    // The PTX ISA: two .16x32b accesses, the second at taddr + immHalfSplitoff.
                    TmemShape::S16x32bx2(_) if l < 16 => (l, r),
                    TmemShape::S16x32bx2(split) => (l - 16 + (split >> 16), r + (split & 0xFFFF)),
                };
                let (lane, column) = (32 * w + warp_lane_half + want.0, 8 + want.1);
                assert_eq!(a.location, Location::Tmem { lane, column }, "{shape} {a:?}");
                assert_eq!(a.value, u128::from(lane << 16 | column));
                assert_eq!(
                    out.register(a.thread, regs[reg as usize]),
                    Some(u64::from(lane << 16 | column))
                );
            }
            // The cells of one warp's load are all distinct and cover lanes × columns exactly.
            let mut cells: Vec<_> = loads
                .iter()
                .filter(|a| a.thread < 32)
                .map(|a| a.location)
                .collect();
            cells.sort();
            cells.dedup();
            assert_eq!(cells.len(), 32 * regs.len(), "{shape}");
        }
    }
}

#[test]
fn lane_restriction_is_enforced() {
    // Every warp addresses lanes 0..32: only warp 0 may.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    b.tcgen05_st(TmemShape::S32x32b, 1, base, &[p.tid]).unwrap();
    dealloc(&mut b, &p, base, 32);
    let k = b.finish().unwrap();
    let err = run(&k, &Config::new(64), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::TmemLaneRestriction {
                warp: 1,
                lane: 0,
                allowed_start: 32,
                ..
            }
        ),
        "{err}"
    );
    // Warp 4 is back in the first quarter: `warp % 4` is what counts.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    let taddr = warp_taddr(&mut b, &p, base);
    b.tcgen05_st(TmemShape::S32x32b, 1, taddr, &[p.tid])
        .unwrap();
    dealloc(&mut b, &p, base, 32);
    let out = run(&b.finish().unwrap(), &Config::new(256), &[]).unwrap();
    // Warps 0 and 4 both wrote lane 5 column 0; warp 4 last.
    assert_eq!(out.tmem.get(5, 0), Some(128 + 5));
}

#[test]
fn a_16_lane_shape_may_not_cross_into_the_next_quarter() {
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    let taddr = warp_taddr(&mut b, &p, base);
    b.tcgen05_ld(TmemShape::S16x64b, 1, Address::new(taddr, 20 << 16))
        .unwrap();
    b.tcgen05_wait_ld().unwrap();
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::TmemLaneRestriction {
                warp: 0,
                lane: 32,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn allocation_errors() {
    // Column count from a register: 48 is not a power of two.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let n = b.mov(RegType::B32, 48).unwrap();
    b.tcgen05_alloc(p.slot, n).unwrap();
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::TmemColumns { ncols: 48, .. }),
        "{err}"
    );
    // As an immediate it is a build-time error.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    assert_eq!(
        b.tcgen05_alloc(p.slot, 48),
        Err(PtxError::TmemColumns { ncols: 48 })
    );
    assert_eq!(
        b.tcgen05_alloc(p.slot, 1024),
        Err(PtxError::TmemColumns { ncols: 1024 })
    );
    assert_eq!(
        b.tcgen05_alloc(p.slot, 16),
        Err(PtxError::TmemColumns { ncols: 16 })
    );

    // Not freed before exit.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    b.tcgen05_alloc(p.slot, 64).unwrap();
    b.ret().unwrap();
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert_eq!(
        err,
        InterpError::TmemLeak {
            columns: vec![(0, 64)]
        }
    );

    // Allocating after relinquishing the permit.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    b.tcgen05_relinquish_alloc_permit().unwrap();
    b.tcgen05_alloc(p.slot, 64).unwrap();
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::AllocAfterRelinquish { .. }),
        "{err}"
    );

    // Freeing with the wrong size.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 64);
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::TmemDealloc { ncols: 32, .. }),
        "{err}"
    );

    // All 512 columns, then 32 more.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    b.tcgen05_alloc(p.slot, 512).unwrap();
    b.tcgen05_alloc(p.slot, 32).unwrap();
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::TmemExhausted { ncols: 32, .. }),
        "{err}"
    );
}

#[test]
fn two_allocations_get_consecutive_aligned_columns() {
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    b.shared("slots", 16, 8).unwrap();
    let s = b.shared_address("slots").unwrap();
    b.tcgen05_alloc(s, 32).unwrap();
    b.tcgen05_alloc(Address::new(s, 4), 128).unwrap();
    let v = b.ld(StateSpace::Shared, DataType::B32, 2, s).unwrap();
    b.tcgen05_dealloc(v[0], 32).unwrap();
    b.tcgen05_dealloc(v[1], 128).unwrap();
    b.ret().unwrap();
    let out = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap();
    assert_eq!(out.register(0, v[0]), Some(0));
    assert_eq!(out.register(0, v[1]), Some(128));
}

#[test]
fn unallocated_out_of_range_and_non_uniform_accesses() {
    // Column 40 of a 32-column allocation.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    b.tcgen05_st(TmemShape::S32x32b, 1, Address::new(base, 40), &[p.tid])
        .unwrap();
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::TmemUnallocated { column: 40, .. }),
        "{err}"
    );

    // Column 512.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 512);
    b.tcgen05_st(
        TmemShape::S32x32b,
        2,
        Address::new(base, 511),
        &[p.tid, p.warp],
    )
    .unwrap();
    dealloc(&mut b, &p, base, 512);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::TmemOutOfRange { column: 512, .. }),
        "{err}"
    );

    // A per-thread address.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    let bad = b.add(IntType::U32, base, p.tid).unwrap();
    b.tcgen05_st(TmemShape::S32x32b, 1, bad, &[p.tid]).unwrap();
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(matches!(err, InterpError::NonUniform { .. }), "{err}");
}

#[test]
fn reading_a_loaded_register_before_wait_ld_is_an_error() {
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    let v = b.tcgen05_ld(TmemShape::S32x32b, 1, base).unwrap();
    b.add(IntType::U32, v[0], 1).unwrap();
    b.tcgen05_wait_ld().unwrap();
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::PendingLoad { thread: 0, .. }),
        "{err}"
    );
}

#[test]
fn divergent_collectives_are_errors() {
    // Half the warp skips the tcgen05.ld.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let base = alloc(&mut b, &p, 32);
    let lo = b.setp(CmpOp::Lt, IntType::U32, p.tid, 16).unwrap();
    b.guarded(Guard::when(lo), |b| b.bra("SKIP")).unwrap();
    b.tcgen05_ld(TmemShape::S32x32b, 1, base).unwrap();
    b.label("SKIP").unwrap();
    b.tcgen05_wait_ld().unwrap();
    dealloc(&mut b, &p, base, 32);
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::Divergent { warp: 0, .. }),
        "{err}"
    );

    // A guard that differs between threads.
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let p = prologue(&mut b);
    let lo = b.setp(CmpOp::Lt, IntType::U32, p.tid, 16).unwrap();
    b.guarded(Guard::when(lo), |b| b.tcgen05_alloc(p.slot, 32))
        .unwrap();
    let err = run(&b.finish().unwrap(), &Config::new(32), &[]).unwrap_err();
    assert!(
        matches!(err, InterpError::Divergent { warp: 0, .. }),
        "{err}"
    );
}

#[test]
fn tcgen05_ld_register_counts_are_typed_errors_at_build_time() {
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let t = b.mov(RegType::B32, 0).unwrap();
    for (shape, max) in [
        (TmemShape::S32x32b, 128),
        (TmemShape::S16x64b, 128),
        (TmemShape::S16x128b, 64),
        (TmemShape::S16x256b, 32),
    ] {
        let mut num = 1;
        while num <= max {
            let regs = b.tcgen05_ld(shape, num, t).unwrap();
            assert_eq!(regs.len() as u32, num * shape.registers_per_repeat());
            num *= 2;
        }
        assert!(matches!(
            b.tcgen05_ld(shape, max * 2, t),
            Err(PtxError::Tcgen05Repeat { .. })
        ));
        assert!(matches!(
            b.tcgen05_ld(shape, 3, t),
            Err(PtxError::Tcgen05Repeat { .. })
        ));
        assert!(matches!(
            b.tcgen05_ld(shape, 0, t),
            Err(PtxError::Tcgen05Repeat { .. })
        ));
        // A store with one register too few.
        let src: Vec<Reg> = (0..shape.registers_per_repeat() * 2 - 1)
            .map(|_| t)
            .collect();
        assert!(matches!(
            b.tcgen05_st(shape, 2, t, &src),
            Err(PtxError::VectorLength { .. })
        ));
    }
    // And on sm_90a, none of it exists.
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let t = b.mov(RegType::B32, 0).unwrap();
    assert!(matches!(
        b.tcgen05_ld(TmemShape::S32x32b, 1, t),
        Err(PtxError::TargetFeature { .. })
    ));
}

#[test]
fn roundtrip_kernel_assembles_for_sm_100a() {
    let Some(ptxas) = codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    let k = roundtrip_32x32b();
    let out = codegen::ptxas::assemble_with(&ptxas, &k.to_string(), "sm_100a").unwrap();
    assert!(out.registers.is_some(), "{}", out.stderr);
}

/// `tcgen05.alloc` is a warp's: the slot write is recorded, and a bad slot reported, under the
/// warp's first thread (warp 2 here: thread 64).
#[test]
fn an_allocation_is_written_by_its_warps_first_thread() {
    let kernel = |slot_offset: i32| {
        let mut b = Builder::new("k", Target::Sm100a).unwrap();
        let p = prologue(&mut b);
        let is_warp2 = b.setp(CmpOp::Eq, IntType::U32, p.warp, 2).unwrap();
        b.guarded(Guard::when(is_warp2), |b| {
            b.tcgen05_alloc(Address::new(p.slot, slot_offset), 32)?;
            b.tcgen05_dealloc(0, 32)?;
            b.tcgen05_relinquish_alloc_permit()
        })
        .unwrap();
        b.ret().unwrap();
        b.finish().unwrap()
    };
    let out = run(&kernel(0), &Config::new(96), &[]).unwrap();
    let allocs: Vec<_> = out
        .trace
        .iter()
        .filter(|a| a.kind == AccessKind::TmemAllocWrite)
        .map(|a| (a.thread, a.location))
        .collect();
    assert_eq!(allocs, vec![(64, Location::Shared(1024))]);
    match run(&kernel(2), &Config::new(96), &[]) {
        Err(InterpError::Misaligned {
            thread, address, ..
        }) => assert_eq!((thread, address), (64, 1026)),
        other => panic!("{other:?}"),
    }
}
