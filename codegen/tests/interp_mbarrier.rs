//! The interpreter's mbarriers: a phase completes after as many arrivals (`tcgen05.commit`)
//! as `mbarrier.init` counted, every phase alike; each barrier is its own 8 bytes of shared
//! memory; a wait on a phase that no arrivals can complete is a deadlock; a barrier's address
//! must be 8-byte aligned and inside shared memory.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{run, Config, InterpError};
use codegen::ptx::parse;

/// One warp; thread 0 initialises two of three barriers (`bars` with count `count`, `bars+8`
/// with count 1; `bars+16` stays uninitialised) and runs `body` (PTX lines; `%r1` holds `bars`); then every thread returns.
fn kernel(count: u32, body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\n\
         .shared .align 8 .b8 bars[24];\n\n\
         .visible .entry k()\n.reqntid 32\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n\n\
         \tmov.u32 %r0, %tid.x;\n\
         \tmov.u32 %r1, bars;\n\
         \tsetp.eq.u32 %p0, %r0, 0;\n\
         \t@%p0 mbarrier.init.shared::cta.b64 [%r1], {count};\n\
         \t@%p0 mbarrier.init.shared::cta.b64 [%r1+8], 1;\n\
         \tbar.sync 0;\n\
         {body}\
         \tret;\n}}\n"
    )
}

/// An arrival on the barrier at `bars + offset`.
fn commit(offset: u32) -> String {
    format!(
        "\t@%p0 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1+{offset}];\n"
    )
}

/// Every thread waits for the phase of `parity` on the barrier at `bars + offset`.
fn wait(offset: u32, parity: u32, label: &str) -> String {
    format!(
        "{label}:\n\
         \tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1+{offset}], {parity};\n\
         \t@!%p1 bra {label};\n"
    )
}

fn go(text: &str) -> Result<(), InterpError> {
    run(&parse(text).unwrap(), &Config::new(32), &[]).map(|_| ())
}

#[test]
fn a_phase_completes_after_its_count_of_arrivals() {
    // Count 2: two arrivals complete phase 0, one does not.
    let two = format!("{}{}{}", commit(0), commit(0), wait(0, 0, "W0"));
    assert_eq!(go(&kernel(2, &two)), Ok(()));
    let one = format!("{}{}", commit(0), wait(0, 0, "W0"));
    assert!(
        matches!(
            go(&kernel(2, &one)),
            Err(InterpError::MbarrierDeadlock { warp: 0, .. })
        ),
        "{:?}",
        go(&kernel(2, &one))
    );
    // Every phase counts again: phase 1 of a count-2 barrier needs two more arrivals.
    let phase0 = [commit(0), commit(0), wait(0, 0, "W0")].concat();
    for (arrivals, passes) in [(2, true), (1, false)] {
        let body = [phase0.clone(), commit(0).repeat(arrivals), wait(0, 1, "W1")].concat();
        match go(&kernel(2, &body)) {
            Ok(()) => assert!(passes, "{arrivals} arrivals completed phase 1"),
            Err(InterpError::MbarrierDeadlock { .. }) => assert!(!passes),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn each_barrier_is_its_own() {
    // An arrival on the second barrier completes its phase, not the first's.
    let other = format!("{}{}", commit(8), wait(8, 0, "W0"));
    assert_eq!(go(&kernel(1, &other)), Ok(()));
    let crossed = format!("{}{}", commit(8), wait(0, 0, "W0"));
    assert!(matches!(
        go(&kernel(1, &crossed)),
        Err(InterpError::MbarrierDeadlock { .. })
    ));
    // A wait on a barrier no one initialised is an error naming its address.
    let missing = kernel(1, &wait(16, 0, "W0"));
    let bars = codegen::interp::Machine::new(&parse(&missing).unwrap(), Config::new(32))
        .unwrap()
        .shared_address("bars")
        .unwrap();
    match go(&missing) {
        Err(InterpError::MbarrierUninitialized { address, .. }) => assert_eq!(address, bars + 16),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_barrier_address_is_aligned_and_in_shared_memory() {
    let text = kernel(1, &format!("{}{}", commit(0), wait(0, 0, "W0")));
    assert_eq!(go(&text), Ok(()));
    let misaligned = text.replace("[%r1+8], 1;", "[%r1+4], 1;");
    assert!(
        matches!(go(&misaligned), Err(InterpError::Misaligned { .. })),
        "{:?}",
        go(&misaligned)
    );
    let outside = text.replace("[%r1+8], 1;", "[%r1+4096], 1;");
    assert!(
        matches!(go(&outside), Err(InterpError::SharedOutOfRange { .. })),
        "{:?}",
        go(&outside)
    );
}

/// A wait that polls before the arrival it needs (warp 0 waits, then warp 1 commits in the
/// same round) passes once it comes: a round with an arrival is progress, not a deadlock.
#[test]
fn a_wait_before_its_arrival_passes_once_it_comes() {
    let body = format!(
        "\tsetp.eq.u32 %p2, %r0, 32;\n\
         \t@%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1+8];\n{}",
        wait(8, 0, "W0")
    );
    let text = kernel(1, &body).replace(".reqntid 32", ".reqntid 64");
    assert_eq!(
        run(&parse(&text).unwrap(), &Config::new(64), &[]).map(|_| ()),
        Ok(())
    );
    // Without the arrival, the same wait is a deadlock of warp 0 (the first to wait).
    let never = text.replace("setp.eq.u32 %p2, %r0, 32;", "setp.eq.u32 %p2, %r0, 99;");
    assert!(matches!(
        run(&parse(&never).unwrap(), &Config::new(64), &[]).map(|_| ()),
        Err(InterpError::MbarrierDeadlock { warp: 0, .. })
    ));
}
