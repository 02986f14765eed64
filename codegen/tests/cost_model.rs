//! The cost model's refusals: every input the H100's rules do not cover is a typed error
//! naming the culprit, never a count (`codegen::cost`).

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::cost::{
    access_cost, kernel_cost, run_cost, AccessError, CostError, LaneAccess, SharedAccessClass,
};
use codegen::interp::{run, Access, AccessKind, Config, Location, Trace};
use codegen::ptx::{Builder, DataType, IntType, SpecialReg, StateSpace, Target, Width};
use codegen::smem::kernels::{Probe, ProbeAccess};

fn lanes(f: impl Fn(u32) -> u32) -> Vec<LaneAccess> {
    (0..32)
        .map(|l| LaneAccess {
            slot: l,
            address: f(l),
        })
        .collect()
}

#[test]
fn access_cost_refuses_what_no_access_is() {
    let ld = SharedAccessClass::Load;
    assert_eq!(
        access_cost(ld, 3, &lanes(|l| 4 * l)),
        Err(AccessError::Width { bytes: 3 })
    );
    assert_eq!(
        access_cost(ld, 32, &lanes(|l| 32 * l)),
        Err(AccessError::Width { bytes: 32 })
    );
    let mut past = lanes(|l| 4 * l);
    past[5].slot = 40;
    assert!(matches!(
        access_cost(ld, 4, &past),
        Err(AccessError::Slot { slot: 40, .. })
    ));
    let mut twice = lanes(|l| 4 * l);
    twice[5].slot = 4;
    assert!(matches!(
        access_cost(ld, 4, &twice),
        Err(AccessError::Slot { slot: 4, .. })
    ));
    let e = access_cost(ld, 16, &lanes(|l| 8 * l)).unwrap_err();
    assert!(
        e.to_string()
            .contains("lane slot 1: address 8 is not a multiple of the 16 bytes"),
        "{e}"
    );
    let top = lanes(|l| u32::MAX - 15 - 16 * l);
    assert!(access_cost(ld, 16, &top).is_ok());
    let over = [LaneAccess {
        slot: 0,
        address: u32::MAX - 3,
    }];
    assert!(
        access_cost(ld, 8, &over).is_err(),
        "misaligned and past the window"
    );
    assert_eq!(access_cost(ld, 4, &[]).map(|c| c.wavefronts), Ok(0));
}

#[test]
fn a_warp_with_every_lane_off_is_refused() {
    let p = Probe {
        access: ProbeAccess::Load {
            ty: DataType::B32,
            vec: 1,
        },
        lane_bytes: [4, 8, 16, 32, 64],
        base: 0,
        lanes: 0,
        scale: None,
    };
    let e = run_cost(&p.kernel("off").unwrap(), &p.config(), &p.params()).unwrap_err();
    assert!(matches!(e, CostError::AllLanesOff { warp: 0, .. }), "{e}");
    assert!(e.to_string().contains("every lane predicated off"), "{e}");
    // One lane on: counted.
    let one = Probe { lanes: 1, ..p };
    let c = run_cost(&one.kernel("one").unwrap(), &one.config(), &one.params()).unwrap();
    assert_eq!(c.counters.values(), [1, 0, 1, 0, 0, 0]);
}

#[test]
fn a_trace_of_another_kernel_is_refused() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.extern_shared("smem", 1024).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let off = b.shl(Width::B32, tid, 2).unwrap();
    let smem = b.shared_address("smem").unwrap();
    let at = b.add(IntType::U32, smem, off).unwrap();
    b.st(StateSpace::Shared, DataType::B32, at, &[tid]).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    let out = run(&k, &Config::new(32).dynamic_shared(128), &[]).unwrap();
    assert_eq!(
        kernel_cost(&k, &out.trace).unwrap().counters.values(),
        [0, 1, 0, 1, 0, 0]
    );
    // The store's execution, claimed by the `add` before it.
    let store = out
        .trace
        .executions()
        .find(|(_, _, a)| !a.is_empty())
        .unwrap()
        .0;
    let mut forged = Trace::default();
    forged.begin_issue(store, 0);
    for (i, a) in out
        .trace
        .executions()
        .flat_map(|(_, _, a)| a.iter())
        .enumerate()
    {
        let stmt = if i == 3 { store - 1 } else { a.stmt };
        forged.push(Access { stmt, ..*a });
    }
    let e = kernel_cost(&k, &forged).unwrap_err();
    assert!(matches!(e, CostError::Trace { .. }), "{e}");
    // Shared memory written by an instruction that is not a shared access.
    let mut odd = Trace::default();
    odd.begin_issue(store - 1, 0);
    odd.push(Access {
        thread: 0,
        stmt: store - 1,
        kind: AccessKind::Store,
        location: Location::Shared(1024),
        bytes: 4,
        value: 0,
    });
    let e = kernel_cost(&k, &odd).unwrap_err();
    assert!(
        e.to_string()
            .contains("through an instruction the rules do not cover"),
        "{e}"
    );
}
