//! Random valid kernels through the interpreter: whatever they do, the result is a value
//! (an outcome or a typed error), never a panic.

mod common;

use codegen::interp::{run, Config, ParamValue};
use codegen::ptx::{Inst, Kernel, MovSource, Op, Operand, Reg, RegType, SpecialReg, Stmt};
use proptest::prelude::*;

/// Defines every register the generator uses (indices 0..6 of every class) up front, mixing
/// in `%tid.x`, so runs get past the first read.
fn with_prologue(mut k: Kernel, seeds: &[i64]) -> Kernel {
    let mut pro = Vec::new();
    let tid = Reg::new(RegType::B32, 63);
    pro.push(Stmt::Inst(Inst::new(Op::Mov {
        d: tid,
        src: MovSource::Special(SpecialReg::TidX),
    })));
    for (i, ty) in RegType::ALL.into_iter().enumerate() {
        for idx in 0..6u32 {
            let seed = seeds.get(i * 6 + idx as usize).copied().unwrap_or(0);
            let value = match ty {
                RegType::Pred => seed & 1,
                RegType::B16 => seed & 0xFFFF,
                RegType::B32 => seed & 0xFFFF_FFFF,
                RegType::B64 => seed,
            };
            let d = Reg::new(ty, idx);
            pro.push(Stmt::Inst(Inst::new(Op::Mov {
                d,
                src: MovSource::Operand(Operand::Imm(value)),
            })));
        }
    }
    // Make %r0 per-thread.
    pro.push(Stmt::Inst(Inst::new(Op::Arith {
        op: codegen::ptx::ArithOp::Add,
        ty: codegen::ptx::IntType::U32,
        d: Reg::new(RegType::B32, 0),
        a: Reg::new(RegType::B32, 0).into(),
        b: tid.into(),
    })));
    pro.append(&mut k.body);
    k.body = pro;
    k
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn interpreting_random_kernels_never_panics(
        k in common::kernel(),
        seeds in prop::collection::vec(prop_oneof![0i64..2048, any::<i64>()], 24),
        warps in 1u32..5,
    ) {
        let mut k = with_prologue(k, &seeds);
        (k.reqntid, k.maxntid) = (None, None);
        let threads = 32 * warps;
        let config = Config::new(threads).dynamic_shared(4096);
        let params = [ParamValue::Buffer(vec![0; 1024]), ParamValue::U32(7)];
        let _ = run(&k, &config, &params);
        // And through the text.
        let back = codegen::ptx::parse(&k.to_string()).unwrap();
        let _ = run(&back, &config, &params);
    }
}
