//! Property tests of lifetimes over random programs (the reuse trees of `random_tree`, each
//! leaf given a random lifetime or none, plus plain allocations with lifetimes):
//!
//! 1. the Intended plan with lifetimes passes the independent checker, and its backing is
//!    never larger than the plan of the same tree without lifetimes;
//! 2. [`Program::pack`] gives arenas that pass [`check_packed`], with
//!    `lower bound ≤ peak ≤ regions one after another`.
//!
//! 2,000 programs per run (override with `PROPTEST_CASES`).

#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::checker::{check, check_packed};
use alias_alloc::{AllocError, DType, Mode, PackOptions, PlanOptions, Storage};
use test_support::random_tree::{big_target, gen_tree, GenOptions, Source, XorShift};

fn cases() -> u64 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

#[test]
fn lifetimes_only_shrink_plans_and_packed_plans_check() -> Result<(), AllocError> {
    let options = PlanOptions {
        mode: Mode::Intended,
        target: big_target(),
    };
    let (mut shrunk, mut packed_below_bump) = (0u64, 0u64);
    for seed in 0..cases() {
        let mut src =
            XorShift(0x9E37_79B9_7F4A_7C15 ^ (seed + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        let spec = gen_tree(&mut src, GenOptions::default());
        let built = spec.build()?;
        let mut program = built.program;
        let without = program
            .plan(&options)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", spec.describe()));
        for &id in &built.ids {
            if !src.next_u32().is_multiple_of(4) {
                let start = u64::from(src.next_u32() % 8);
                let len = 1 + u64::from(src.next_u32() % 4);
                program.set_lifetime(id, start, start + len)?;
            }
        }
        for k in 0..src.next_u32() % 4 {
            let elements = 64u64 << (src.next_u32() % 6);
            let id = program.plain_alloc(
                &format!("extra{k}"),
                &[elements],
                DType::F16,
                1,
                Storage::Smem,
            )?;
            let start = u64::from(src.next_u32() % 8);
            program.set_lifetime(id, start, start + 1 + u64::from(src.next_u32() % 4))?;
        }
        let with = program.plan(&options)?;
        let violations = check(&program, &with);
        assert!(
            violations.is_empty(),
            "seed {seed}: {violations:?}\n{}",
            spec.describe()
        );
        let (before, after) = (
            without.spec("s")?.backing_units,
            with.spec("s")?.backing_units,
        );
        assert!(
            after <= before,
            "seed {seed}: {after} > {before}\n{}",
            spec.describe()
        );
        shrunk += u64::from(after < before);
        let packed = program.pack(&PackOptions::new(options))?;
        let violations = check_packed(&program, &packed);
        assert!(violations.is_empty(), "seed {seed}: {violations:?}");
        for a in &packed.arenas {
            assert!(
                a.lower_bound <= a.peak && a.peak <= a.unpacked,
                "seed {seed}: {a:?}"
            );
            packed_below_bump += u64::from(a.peak < a.unpacked);
        }
    }
    eprintln!(
        "{} programs: {shrunk} trees smaller with lifetimes, {packed_below_bump} arenas smaller than one-after-another",
        cases()
    );
    assert!(shrunk > 0 && packed_below_bump > 0);
    Ok(())
}
