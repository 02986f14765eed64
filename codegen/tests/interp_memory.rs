//! Interpreter memories and control flow: shared layout, global buffers, branches and
//! barriers, and the typed errors for undefined behaviour.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{run, AccessKind, Config, InterpError, Location, Machine, ParamValue};
use codegen::ptx::{
    Address, Builder, CmpOp, DataType, Guard, IntType, Kernel, ParamType, Reg, RegType, SpecialReg,
    StateSpace, Target, Width,
};

fn thread_offset_kernel(shift: u32, ty: DataType, vec: u32, extra: i32) -> Kernel {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let off = b.shl(Width::B32, tid, shift).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::U32, base, off).unwrap();
    b.ld(StateSpace::Shared, ty, vec, Address::new(addr, extra))
        .unwrap();
    b.ret().unwrap();
    b.finish().unwrap()
}

#[test]
fn shared_layout_static_then_dynamic() {
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    b.shared("a", 4, 3).unwrap();
    b.shared("bb", 64, 8).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    b.extern_shared("alias", 16).unwrap();
    let k = b.finish().unwrap();
    let m = Machine::new(&k, Config::new(32).dynamic_shared(100)).unwrap();
    assert_eq!(m.shared_address("a"), Some(1024));
    assert_eq!(m.shared_address("bb"), Some(1088));
    assert_eq!(m.shared_address("smem"), Some(2048));
    assert_eq!(m.shared_address("alias"), Some(2048));
    assert_eq!(m.layout().end, 2148);
    let m = Machine::new(&k, Config::new(32).with_base(0)).unwrap();
    assert_eq!(
        (m.shared_address("a"), m.shared_address("smem")),
        (Some(0), Some(1024))
    );
}

#[test]
fn vector_loads_need_natural_alignment() {
    // 16-byte vectors at 16·tid are fine; at 16·tid + 8 they are not.
    let ok = thread_offset_kernel(4, DataType::B32, 4, 0);
    let out = run(&ok, &Config::new(32).dynamic_shared(512), &[]).unwrap();
    assert_eq!(out.trace.len(), 32);
    assert!(out
        .trace
        .iter()
        .all(|a| a.bytes == 16 && a.location == Location::Shared(1024 + 16 * a.thread)));
    let bad = thread_offset_kernel(4, DataType::B32, 4, 8);
    let err = run(&bad, &Config::new(32).dynamic_shared(1024), &[]).unwrap_err();
    assert_eq!(
        err,
        InterpError::Misaligned {
            thread: 0,
            stmt: 4,
            space: "shared",
            address: 1032,
            align: 16
        }
    );
    // v2.b16 needs 4-byte alignment.
    let bad = thread_offset_kernel(1, DataType::B16, 2, 0);
    let err = run(&bad, &Config::new(32).dynamic_shared(256), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::Misaligned {
                thread: 1,
                align: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_vector_load_traces_all_its_elements_little_endian() {
    // The traced value of `ld.v4.b32` / `ld.v2.b16` is the whole vector as the bytes lie in
    // memory (element i at bits 8·i·size), and each register gets its own element.
    for (shift, ty, vec) in [(4, DataType::B32, 4), (2, DataType::B16, 2)] {
        let k = thread_offset_kernel(shift, ty, vec, 0);
        let mut m = Machine::new(&k, Config::new(32).dynamic_shared(512)).unwrap();
        let bytes: Vec<u8> = (0..512u32).map(|i| (i * 37 + 11) as u8).collect();
        m.write_shared(1024, &bytes).unwrap();
        let out = m.run(&[]).unwrap();
        let width = 1usize << shift;
        assert_eq!(out.trace.len(), 32);
        for a in &out.trace {
            let start = width * a.thread as usize;
            let mut expected = [0u8; 16];
            expected[..width].copy_from_slice(&bytes[start..start + width]);
            assert_eq!(
                (a.kind, a.bytes, a.value),
                (
                    AccessKind::Load,
                    width as u32,
                    u128::from_le_bytes(expected)
                ),
                "thread {}",
                a.thread
            );
        }
    }
}

#[test]
fn shared_accesses_must_stay_inside_the_declared_memory() {
    let k = thread_offset_kernel(4, DataType::B32, 4, 0);
    // 32 threads × 16 bytes need 512 bytes of dynamic shared memory.
    let err = run(&k, &Config::new(32).dynamic_shared(256), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::SharedOutOfRange {
                thread: 16,
                address: 1280,
                ..
            }
        ),
        "{err}"
    );
    // The reserved first KiB is not the kernel's.
    let k = thread_offset_kernel(4, DataType::B32, 1, -1024);
    let err = run(&k, &Config::new(32).dynamic_shared(512), &[]).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::SharedOutOfRange {
                thread: 0,
                address: 0,
                ..
            }
        ),
        "{err}"
    );
    // Too much shared memory for the target.
    let err = Machine::new(&k, Config::new(32).dynamic_shared(300 * 1024)).unwrap_err();
    assert!(matches!(err, InterpError::SharedCapacity { .. }), "{err}");
}

#[test]
fn registers_must_be_written_before_they_are_read() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let x = b.reg(RegType::B32);
    b.add(IntType::U32, x, 1).unwrap();
    let k = b.finish().unwrap();
    assert_eq!(
        run(&k, &Config::new(32), &[]).unwrap_err(),
        InterpError::Uninitialized {
            thread: 0,
            stmt: 0,
            reg: "%r0".into()
        }
    );
}

#[test]
fn sub_word_loads_and_stores() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::U32, base, tid).unwrap();
    let v = b.ld(StateSpace::Shared, DataType::B8, 1, addr).unwrap(); // a .b16 register
    let w = b.reg(RegType::B32);
    b.ld_into(StateSpace::Shared, DataType::B8, vec![w], addr)
        .unwrap();
    b.bar_sync(0).unwrap();
    let wide = b.mov(RegType::B32, 0x1234_56FFu32).unwrap();
    b.st(
        StateSpace::Shared,
        DataType::B8,
        Address::new(addr, 64),
        &[wide],
    )
    .unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let mut m = Machine::new(&k, Config::new(32).dynamic_shared(128)).unwrap();
    m.write_shared(1024, &(0..64u8).map(|i| 200 + i / 2).collect::<Vec<_>>())
        .unwrap();
    let out = m.run(&[]).unwrap();
    assert_eq!(out.register(7, v[0]), Some(203));
    assert_eq!(out.register(7, w), Some(203));
    assert!(out.shared[1024 + 64..1024 + 96].iter().all(|&b| b == 0xFF));
    let store = out
        .trace
        .iter()
        .find(|a| a.kind == AccessKind::Store && a.thread == 3)
        .unwrap();
    assert_eq!(
        (store.location, store.bytes, store.value),
        (Location::Shared(1024 + 67), 1, 0xFF)
    );
}

#[test]
fn global_buffers_scalars_and_errors() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.param("out", ParamType::U64).unwrap();
    b.param("scale", ParamType::U32).unwrap();
    b.param("big", ParamType::U64).unwrap();
    let out = b.global_pointer("out").unwrap();
    let scale = b.ld_param("scale").unwrap();
    let big = b.ld_param("big").unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let v = b.mul_lo(IntType::U32, tid, scale).unwrap();
    let lo = b.cvt_u32_u64(big).unwrap();
    let v = b.add(IntType::U32, v, lo).unwrap();
    let off = b.mul_wide_u32(tid, 4).unwrap();
    let dst = b.add(IntType::U64, out, off).unwrap();
    b.st(
        StateSpace::Global,
        DataType::B32,
        Address::new(dst, 4),
        &[v],
    )
    .unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let params = |n: usize| {
        [
            ParamValue::Buffer(vec![0; n]),
            ParamValue::U32(3),
            ParamValue::U64(0x7_0000_0005),
        ]
    };
    let out = run(&k, &Config::new(32), &params(132)).unwrap();
    for t in 0..32usize {
        let at = 4 + 4 * t;
        assert_eq!(
            u32::from_le_bytes(out.buffers[0][at..at + 4].try_into().unwrap()),
            3 * t as u32 + 5
        );
    }
    assert!(out.buffers[1].is_empty());
    // One word short: thread 31 writes past the end.
    let err = run(&k, &Config::new(32), &params(128)).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::GlobalOutOfRange {
                thread: 31,
                bytes: 4,
                ..
            }
        ),
        "{err}"
    );
    // Parameter kinds are checked.
    let err = run(
        &k,
        &Config::new(32),
        &[ParamValue::U32(0), ParamValue::U32(3), ParamValue::U64(0)],
    )
    .unwrap_err();
    assert!(matches!(err, InterpError::Param { index: 0, .. }), "{err}");
}

#[test]
fn forward_branches_diverge_and_reconverge() {
    // Threads with odd lane skip the add; all store afterwards.
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.param("out", ParamType::U64).unwrap();
    let out = b.global_pointer("out").unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let odd = b.and(Width::B32, tid, 1).unwrap();
    let p = b.setp(CmpOp::Ne, IntType::U32, odd, 0).unwrap();
    let v = b.mov(RegType::B32, 10).unwrap();
    b.guarded(Guard::when(p), |b| b.bra("JOIN")).unwrap();
    b.push(codegen::ptx::Op::Arith {
        op: codegen::ptx::ArithOp::Add,
        ty: IntType::U32,
        d: v,
        a: v.into(),
        b: 5.into(),
    })
    .unwrap();
    b.label("JOIN").unwrap();
    b.bar_sync(0).unwrap(); // needs the reconverged warp
    let off = b.mul_wide_u32(tid, 4).unwrap();
    let dst = b.add(IntType::U64, out, off).unwrap();
    b.st(StateSpace::Global, DataType::B32, dst, &[v]).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(64), &[ParamValue::Buffer(vec![0; 256])]).unwrap();
    for t in 0..64usize {
        let got = u32::from_le_bytes(out.buffers[0][4 * t..4 * t + 4].try_into().unwrap());
        assert_eq!(got, if t % 2 == 1 { 10 } else { 15 });
    }
}

#[test]
fn barrier_orders_warps() {
    // Warp 1 writes a word, everyone syncs, warp 0 reads it.
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.shared("cell", 4, 4).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let cell = b.shared_address("cell").unwrap();
    let p = b.setp(CmpOp::Eq, IntType::U32, tid, 32).unwrap();
    b.guarded(Guard::when(p), |b| {
        b.st(StateSpace::Shared, DataType::B32, cell, &[tid])
    })
    .unwrap();
    b.bar_sync(0).unwrap();
    let v = b.ld(StateSpace::Shared, DataType::B32, 1, cell).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(64), &[]).unwrap();
    assert_eq!(out.register(0, v[0]), Some(32));
    // The store comes before every load in the trace.
    let first_load = out
        .trace
        .iter()
        .position(|a| a.kind == AccessKind::Load)
        .unwrap();
    let store = out
        .trace
        .iter()
        .position(|a| a.kind == AccessKind::Store)
        .unwrap();
    assert!(store < first_load);
}

#[test]
fn divergent_barrier_is_an_error() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let p = b.setp(CmpOp::Lt, IntType::U32, tid, 3).unwrap();
    b.guarded(Guard::when(p), |b| b.bra("END")).unwrap();
    b.bar_sync(0).unwrap();
    b.label("END").unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    // Threads 3–31 reach the barrier (statement 3) while 0–2 have branched past it; the
    // error names the warp, the statement and its instruction.
    assert_eq!(
        run(&k, &Config::new(32), &[]).unwrap_err(),
        InterpError::Divergent {
            warp: 0,
            stmt: 3,
            inst: "bar.sync".into()
        }
    );
}

#[test]
fn backward_branches_and_bad_thread_counts_are_refused() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.label("TOP").unwrap();
    b.bra("TOP").unwrap();
    let k = b.finish().unwrap();
    assert_eq!(
        Machine::new(&k, Config::new(32)).unwrap_err(),
        InterpError::BackwardBranch {
            stmt: 1,
            label: "TOP".into()
        }
    );
    let k = Builder::new("k", Target::Sm90a).unwrap().finish().unwrap();
    for n in [0, 31, 33, 2048] {
        assert_eq!(
            Machine::new(&k, Config::new(n)).unwrap_err(),
            InterpError::ThreadCount { threads: n }
        );
    }
}

#[test]
fn special_registers() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let regs: Vec<_> = SpecialReg::ALL
        .iter()
        .map(|s| b.special(*s).unwrap())
        .collect();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(96), &[]).unwrap();
    let vals: Vec<_> = regs.iter().map(|r| out.register(70, *r).unwrap()).collect();
    assert_eq!(vals, vec![70, 96, 6, 0]); // tid.x, ntid.x, laneid, ctaid.x
}

#[test]
fn invalid_hand_made_kernels_are_refused_not_run() {
    let mut k = Builder::new("k", Target::Sm90a).unwrap().finish().unwrap();
    k.body
        .push(codegen::ptx::Stmt::Inst(codegen::ptx::Inst::new(
            codegen::ptx::Op::Cvt {
                d: codegen::ptx::Reg::new(RegType::B32, 0),
                a: codegen::ptx::Reg::new(RegType::B32, 1),
            },
        )));
    assert!(matches!(
        Machine::new(&k, Config::new(32)),
        Err(InterpError::InvalidKernel(_))
    ));
}

#[test]
fn trace_entries_say_what_they_read_where_and_for_which_warp() {
    use linear_layout::Address as LayoutAddress;
    // 64 threads store a word at 4·tid, then load it back: two warps, one store and one load
    // each.
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let off = b.shl(Width::B32, tid, 2).unwrap();
    let base = b.shared_address("smem").unwrap();
    let addr = b.add(IntType::U32, base, off).unwrap();
    b.st(
        StateSpace::Shared,
        DataType::B32,
        Address::new(addr, 0),
        &[tid],
    )
    .unwrap();
    b.ld(StateSpace::Shared, DataType::B32, 1, Address::new(addr, 0))
        .unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(64).dynamic_shared(256), &[]).unwrap();
    let origin = out.layout.dynamic_start;
    assert_eq!(out.trace.len(), 128);
    for a in out.trace.iter() {
        assert_eq!(a.warp(), a.thread / 32);
        assert_eq!(a.kind.is_load(), a.kind == AccessKind::Load, "{a:?}");
        assert_eq!(
            a.location.to_address(origin),
            Some(LayoutAddress::Shared {
                byte: u64::from(4 * a.thread)
            })
        );
        // Below the origin there is no address of the dynamic region.
        assert_eq!(a.location.to_address(origin + 4 * a.thread + 1), None);
    }
    assert!(out.trace.iter().any(|a| a.warp() == 1));
    // The views of the trace: all of it, by statement, by warp-level issue.
    assert!(!out.trace.is_empty());
    assert_eq!(out.trace.accesses().len(), 128);
    assert_eq!((&out.trace).into_iter().count(), 128);
    let stmts: Vec<usize> = out
        .trace
        .iter()
        .map(|a| a.stmt)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(stmts.len(), 2, "one store and one load statement");
    for (stmt, kind) in stmts.iter().zip([AccessKind::Store, AccessKind::Load]) {
        assert_eq!(out.trace.of_stmt(*stmt).count(), 64);
        assert!(out
            .trace
            .of_stmt(*stmt)
            .all(|a| a.stmt == *stmt && a.kind == kind));
    }
    // Each warp issues the store, then the load: four issues of 32 accesses, each of one
    // warp and one statement.
    let issues: Vec<&[codegen::interp::Access]> = out.trace.issues().collect();
    assert_eq!(issues.len(), 4);
    for issue in &issues {
        assert_eq!(issue.len(), 32);
        assert!(issue
            .iter()
            .all(|a| a.warp() == issue[0].warp() && a.stmt == issue[0].stmt));
    }
    let empty = {
        let mut b = Builder::new("k", Target::Sm90a).unwrap();
        b.ret().unwrap();
        b.finish().unwrap()
    };
    let none = run(&empty, &Config::new(32), &[]).unwrap();
    assert!(none.trace.is_empty() && none.trace.issues().next().is_none());
    // Every kind: which ones read.
    let reads = [
        (AccessKind::Load, true),
        (AccessKind::Store, false),
        (AccessKind::LdmatrixRow { matrix: 0, row: 0 }, true),
        (AccessKind::StmatrixRow { matrix: 0, row: 0 }, false),
        (AccessKind::TmemLoad { reg: 0, half: None }, true),
        (AccessKind::TmemStore { reg: 0, half: None }, false),
        (AccessKind::TmemCopy { row: 0 }, false),
        (AccessKind::TmemAllocWrite, false),
    ];
    for (kind, read) in reads {
        assert_eq!(kind.is_load(), read, "{kind:?}");
    }
    // A TMEM cell is its own address; global memory has none.
    assert_eq!(
        Location::Tmem { lane: 5, column: 7 }.to_address(origin),
        Some(LayoutAddress::Tensor { lane: 5, column: 7 })
    );
    assert_eq!(
        Location::Global {
            param: 0,
            offset: 0
        }
        .to_address(0),
        None
    );
}

#[test]
fn tensor_memory_cells_are_lane_by_column_and_nothing_past_them() {
    use codegen::interp::Tmem;
    let mut t = Tmem::new();
    // Every corner is its own cell.
    for (i, (lane, column)) in [(0, 0), (0, 511), (1, 0), (127, 0), (127, 511)]
        .into_iter()
        .enumerate()
    {
        assert!(t.set(lane, column, i as u32 + 1));
    }
    assert_eq!(t.get(0, 511), Some(2));
    assert_eq!(t.get(1, 0), Some(3));
    assert_eq!(t.get(127, 511), Some(5));
    // Past a lane's 512 columns is not the next lane, past lane 127 is nothing.
    for (lane, column) in [(0, 512), (0, 1024), (128, 0), (128, 511), (200, 600)] {
        assert!(!t.set(lane, column, 9), "({lane}, {column})");
        assert_eq!(t.get(lane, column), None, "({lane}, {column})");
    }
    assert_eq!(t.get(1, 0), Some(3));
    assert_eq!(t.get(0, 0), Some(1));
}

#[test]
fn tensor_memory_allocations_are_aligned_powers_of_two() {
    use codegen::interp::Tmem;
    let mut t = Tmem::new();
    // Only powers of two from 32 to 512 columns.
    for bad in [0, 1, 16, 31, 48, 96, 500, 1024, 4096] {
        assert_eq!(t.allocate(bad), None, "{bad}");
    }
    assert!(t.allocations().is_empty());
    // Each at the lowest free run aligned to its size.
    assert_eq!(t.allocate(32), Some(0));
    assert_eq!(t.allocate(64), Some(64)); // not 32: 64-column runs start at multiples of 64
    assert_eq!(t.allocate(32), Some(32)); // the hole
    assert_eq!(t.allocate(128), Some(128));
    assert_eq!(t.allocate(256), Some(256));
    assert_eq!(t.allocate(32), None); // full
    assert!((0..512).all(|c| t.is_allocated(c)));
    assert!(!t.is_allocated(512));
    // Freed runs are reused; a free must name an allocation exactly.
    assert!(!t.free(64, 32));
    assert!(t.free(64, 64));
    assert!(
        !t.is_allocated(64) && !t.is_allocated(127) && t.is_allocated(63) && t.is_allocated(128)
    );
    assert_eq!(t.allocate(32), Some(64));
    assert_eq!(t.allocate(32), Some(96));
    assert_eq!(
        t.allocations(),
        &[
            (0, 32),
            (32, 32),
            (128, 128),
            (256, 256),
            (64, 32),
            (96, 32)
        ]
    );
}

/// The host's view of shared memory (`write_shared` / `read_shared`) covers exactly the
/// kernel's shared window: its last byte is in, one past it and the reserved bytes below it
/// are `HostShared` errors naming the access.
#[test]
fn host_shared_access_covers_exactly_the_window() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 16).unwrap();
    let k = b.finish().unwrap();
    let mut m = Machine::new(&k, Config::new(32).dynamic_shared(64)).unwrap();
    let (start, end) = (m.layout().start, m.layout().end);
    assert_eq!(end - start, 64);
    m.write_shared(end - 4, &[1, 2, 3, 4]).unwrap();
    assert_eq!(m.read_shared(end - 4, 4).unwrap(), &[1, 2, 3, 4]);
    assert_eq!(m.read_shared(start, 0).unwrap(), &[] as &[u8]);
    for (address, len) in [(end - 3, 4), (end, 1), (start - 1, 1), (0, 4)] {
        assert!(
            matches!(
                m.read_shared(address, len),
                Err(InterpError::HostShared { address: a, len: l }) if (a, l) == (address, len)
            ),
            "read {len} at {address}"
        );
        assert!(
            matches!(
                m.write_shared(address, &vec![0; len]),
                Err(InterpError::HostShared { address: a, len: l }) if (a, l) == (address, len)
            ),
            "write {len} at {address}"
        );
    }
}

/// A register class of more than 65536 registers is refused before the run, naming the
/// class and the count; 65536 is accepted.
#[test]
fn register_files_hold_at_most_65536_per_class() {
    let text = |n: u32| {
        format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{{\n\
             \t.reg .b32 %r<{n}>;\n\n\tmov.b32 %r{}, 0;\n\tret;\n}}\n",
            n - 1
        )
    };
    let k = codegen::ptx::parse(&text(1 << 16)).unwrap();
    assert!(Machine::new(&k, Config::new(32)).is_ok());
    let k = codegen::ptx::parse(&text((1 << 16) + 1)).unwrap();
    match Machine::new(&k, Config::new(32)) {
        Err(InterpError::RegisterFile { class, count }) => {
            assert_eq!((class.as_str(), count), (".b32", 65537))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_register_the_kernel_does_not_declare_reads_as_none() {
    // The kernel has one 32-bit and one 64-bit register; `%r1` is past its 32-bit registers
    // and must not read as the 64-bit register stored after them.
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let r = b.mov(RegType::B32, 7u32).unwrap();
    let rd = b.mov(RegType::B64, 9u64).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(32), &[]).unwrap();
    assert_eq!(
        (out.register(0, r), out.register(31, rd)),
        (Some(7), Some(9))
    );
    assert_eq!(out.register(0, Reg::new(RegType::B32, 1)), None);
    assert_eq!(out.register(0, Reg::new(RegType::B64, 1)), None);
    assert_eq!(out.register(0, Reg::new(RegType::Pred, 0)), None);
    assert_eq!(out.register(32, r), None);
}
