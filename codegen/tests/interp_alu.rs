//! The interpreter's integer semantics, run as kernels: exact values for lop3 LUTs, bfe/bfi,
//! prmt, shifts, wraparound; property tests against reference formulas.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{alu, run, Config, InterpError};
use codegen::ptx::{
    ArithOp, Builder, CmpOp, IntType, LogicOp, Operand, Reg, RegType, SpecialReg, Target, Width,
};
use proptest::prelude::*;

/// Runs a one-warp kernel built by `body` (which returns the register to inspect) and returns
/// that register's value in each of the 32 threads.
fn eval(body: impl FnOnce(&mut Builder) -> Result<Reg, codegen::ptx::PtxError>) -> Vec<u64> {
    let mut b = Builder::new("alu", Target::Sm90a).unwrap();
    let r = body(&mut b).unwrap();
    b.ret().unwrap();
    let k = b.finish().unwrap();
    // Through the printed text, as the emitters' checks do.
    let k = codegen::ptx::parse(&k.to_string()).unwrap();
    let out = run(&k, &Config::new(32), &[]).unwrap();
    (0..32).map(|t| out.register(t, r).unwrap()).collect()
}

/// The value of one operation on constants (thread 0).
fn eval1(body: impl FnOnce(&mut Builder) -> Result<Reg, codegen::ptx::PtxError>) -> u64 {
    eval(body)[0]
}

fn c32(b: &mut Builder, v: u32) -> Result<Reg, codegen::ptx::PtxError> {
    b.mov(RegType::B32, v)
}

#[test]
fn lop3_common_luts() {
    let (a, bb, c) = (0xF0F0_1234u32, 0xFF00_FF00u32, 0x0FF0_0FF0u32);
    let lop = |lut: u8| {
        eval1(|b| {
            let (x, y, z) = (c32(b, a)?, c32(b, bb)?, c32(b, c)?);
            b.lop3(x, y, z, lut)
        })
    };
    assert_eq!(lop(0x96), u64::from(a ^ bb ^ c));
    assert_eq!(lop(0x78), u64::from(a ^ (bb & c)));
    assert_eq!(lop(0xEA), u64::from((a & bb) | c));
    assert_eq!(lop(0xF0), u64::from(a));
    assert_eq!(lop(0xCC), u64::from(bb));
    assert_eq!(lop(0xAA), u64::from(c));
    assert_eq!(lop(0x00), 0);
    assert_eq!(lop(0xFF), 0xFFFF_FFFF);
    // The sample's Swizzle<3,4,3>: off ^ ((off >> 3) & 0x70), with the mask as an immediate.
    let swz = eval(|b| {
        let t = b.special(SpecialReg::TidX)?;
        let off = b.shl(Width::B32, t, 4)?;
        let hi = b.shr(IntType::U32, off, 3)?;
        b.lop3(off, hi, 0x70, 0x78)
    });
    for (t, v) in swz.iter().enumerate() {
        let off = (t as u64) << 4;
        assert_eq!(*v, off ^ ((off >> 3) & 0x70), "thread {t}");
    }
}

#[test]
fn bfe_exact() {
    let bfe = |a: u32, pos: i64, len: i64| {
        eval1(|b| {
            let x = c32(b, a)?;
            b.bfe(x, pos, len)
        })
    };
    assert_eq!(bfe(0xABCD_1234, 4, 8), 0x23);
    assert_eq!(bfe(0xABCD_1234, 0, 32), 0xABCD_1234);
    assert_eq!(bfe(0x8000_0000, 31, 1), 1);
    assert_eq!(bfe(0xC000_0000, 30, 8), 0x3); // bits past 31 read as 0 for .u32
    assert_eq!(bfe(0xFFFF_FFFF, 5, 0), 0);
    assert_eq!(bfe(0xFFFF_FFFF, 32, 4), 0);
    assert_eq!(bfe(0xFFFF_FFFF, 255, 255), 0);
    // Register operands: only the low 8 bits of pos and len count.
    let v = eval1(|b| {
        let x = c32(b, 0xABCD_1234)?;
        let pos = c32(b, 0x0000_1104)?;
        let len = c32(b, 0xFFFF_FF08)?;
        b.bfe(x, pos, len)
    });
    assert_eq!(v, 0x23);
    // misc90.ptx's lane decomposition: row = bits [0,4), chunk = bit 4.
    let rows = eval(|b| {
        let t = b.special(SpecialReg::TidX)?;
        b.bfe(t, 0, 4)
    });
    let chunks = eval(|b| {
        let t = b.special(SpecialReg::TidX)?;
        b.bfe(t, 4, 1)
    });
    for t in 0..32u64 {
        assert_eq!((rows[t as usize], chunks[t as usize]), (t & 15, t >> 4));
    }
}

#[test]
fn bfi_exact() {
    let bfi = |a: u32, base: u32, pos: i64, len: i64| {
        eval1(|b| {
            let (x, y) = (c32(b, a)?, c32(b, base)?);
            b.bfi(x, y, pos, len)
        })
    };
    assert_eq!(bfi(0x5, 0xFFFF_0000, 8, 4), 0xFFFF_0500);
    assert_eq!(bfi(0xABCD, 0x1111_1111, 4, 8), 0x1111_1CD1);
    assert_eq!(bfi(0xFF, 0, 28, 8), 0xF000_0000); // clipped at bit 31
    assert_eq!(bfi(0xFF, 0x1234, 32, 8), 0x1234); // nothing inserted
    assert_eq!(bfi(0xFF, 0x1234, 4, 0), 0x1234);
    assert_eq!(bfi(0xFFFF_FFFF, 0, 0, 32), 0xFFFF_FFFF);
    assert_eq!(bfi(0xFFFF_FFFF, 0, 0, 255), 0xFFFF_FFFF);
}

#[test]
fn prmt_default_mode() {
    let prmt = |a: u32, bb: u32, sel: u32| {
        eval1(|b| {
            let (x, y) = (c32(b, a)?, c32(b, bb)?);
            b.prmt(x, y, sel)
        })
    };
    let (a, bb) = (0x3322_1100, 0x7766_5544);
    assert_eq!(prmt(a, bb, 0x3210), 0x3322_1100);
    assert_eq!(prmt(a, bb, 0x7654), 0x7766_5544);
    assert_eq!(prmt(a, bb, 0x5410), 0x5544_1100); // misc90: low halves of a and b
    assert_eq!(prmt(a, bb, 0x0123), 0x0011_2233);
    assert_eq!(prmt(0x0000_8000, 0, 0x9999), 0xFFFF_FFFF); // sign of byte 1 replicated
    assert_eq!(prmt(0x0000_7F00, 0, 0x9999), 0);
    // Only the low 16 bits of the selector are used.
    assert_eq!(prmt(a, bb, 0xFFFF_3210), 0x3322_1100);
}

#[test]
fn shifts_clamp_at_the_width() {
    let sh = |op: &dyn Fn(&mut Builder, Reg, Reg) -> Result<Reg, codegen::ptx::PtxError>,
              v: u64,
              amount: u32,
              wide: bool| {
        eval1(|b| {
            let x = if wide {
                b.mov(RegType::B64, v)?
            } else {
                b.mov(RegType::B32, v as u32)?
            };
            let n = c32(b, amount)?;
            op(b, x, n)
        })
    };
    let shl32 = |b: &mut Builder, x: Reg, n: Reg| b.shl(Width::B32, x, n);
    let shr_u32 = |b: &mut Builder, x: Reg, n: Reg| b.shr(IntType::U32, x, n);
    let shr_s32 = |b: &mut Builder, x: Reg, n: Reg| b.shr(IntType::S32, x, n);
    let shl64 = |b: &mut Builder, x: Reg, n: Reg| b.shl(Width::B64, x, n);
    let shr_s64 = |b: &mut Builder, x: Reg, n: Reg| b.shr(IntType::S64, x, n);
    let shr_u64 = |b: &mut Builder, x: Reg, n: Reg| b.shr(IntType::U64, x, n);
    assert_eq!(sh(&shl32, 1, 31, false), 0x8000_0000);
    assert_eq!(sh(&shl32, 1, 32, false), 0);
    assert_eq!(sh(&shl32, 1, 33, false), 0);
    assert_eq!(sh(&shl32, 1, u32::MAX, false), 0);
    assert_eq!(sh(&shl32, 0xFFFF_FFFF, 4, false), 0xFFFF_FFF0);
    assert_eq!(sh(&shr_u32, 0x8000_0000, 31, false), 1);
    assert_eq!(sh(&shr_u32, 0x8000_0000, 32, false), 0);
    assert_eq!(sh(&shr_u32, 0x8000_0000, 1000, false), 0);
    assert_eq!(sh(&shr_s32, 0x8000_0000, 4, false), 0xF800_0000);
    assert_eq!(sh(&shr_s32, 0x8000_0000, 32, false), 0xFFFF_FFFF);
    assert_eq!(sh(&shr_s32, 0x7000_0000, 40, false), 0);
    assert_eq!(sh(&shl64, 1, 63, true), 1 << 63);
    assert_eq!(sh(&shl64, 1, 64, true), 0);
    assert_eq!(sh(&shl64, 1, 40, true), 1 << 40);
    assert_eq!(sh(&shr_u64, 1 << 63, 64, true), 0);
    assert_eq!(sh(&shr_s64, 1 << 63, 100, true), u64::MAX);
}

#[test]
fn wraparound_and_arithmetic() {
    let bin = |op: ArithOp, ty: IntType, x: u64, y: i64| {
        eval1(|b| {
            let a = b.mov(ty.reg_type(), x)?;
            b.arith(op, ty, a, y)
        })
    };
    assert_eq!(bin(ArithOp::Add, IntType::U32, 0xFFFF_FFFF, 1), 0);
    assert_eq!(bin(ArithOp::Add, IntType::U32, 5, -4), 1);
    assert_eq!(bin(ArithOp::Sub, IntType::U32, 0, 1), 0xFFFF_FFFF);
    assert_eq!(
        bin(ArithOp::MulLo, IntType::U32, 0x1_0001, 0x1_0001),
        0x2_0001
    );
    assert_eq!(
        bin(ArithOp::MulLo, IntType::S32, 0xFFFF_FFFF, 3),
        0xFFFF_FFFD
    ); // -1·3
    assert_eq!(bin(ArithOp::Div, IntType::U32, 0xFFFF_FFF9, 2), 0x7FFF_FFFC);
    assert_eq!(bin(ArithOp::Div, IntType::S32, 0xFFFF_FFF9, 2), 0xFFFF_FFFD); // -7/2 = -3
    assert_eq!(bin(ArithOp::Rem, IntType::S32, 0xFFFF_FFF9, 2), 0xFFFF_FFFF); // -7%2 = -1
    assert_eq!(
        bin(ArithOp::Div, IntType::S32, 0x8000_0000, -1),
        0x8000_0000
    ); // MIN / -1 wraps
    assert_eq!(bin(ArithOp::Rem, IntType::U32, 100, 7), 2);
    assert_eq!(bin(ArithOp::Add, IntType::U64, u64::MAX, 1), 0);
    assert_eq!(
        bin(ArithOp::Rem, IntType::U64, 1 << 40, 3),
        (1u64 << 40) % 3
    );
    let mad = eval1(|b| {
        let a = c32(b, 0x1_0000)?;
        b.mad_lo(IntType::U32, a, 0x1_0000, 7)
    });
    assert_eq!(mad, 7);
    let wide = eval1(|b| {
        let a = c32(b, 0xFFFF_FFFF)?;
        b.mul_wide_u32(a, a)
    });
    assert_eq!(wide, 0xFFFF_FFFE_0000_0001);
    let not = eval1(|b| {
        let a = c32(b, 0x0F0F_0000)?;
        b.not(Width::B32, a)
    });
    assert_eq!(not, 0xF0F0_FFFF);
    let cvt = eval1(|b| {
        let a = b.mov(RegType::B64, 0x1234_5678_9ABC_DEF0u64)?;
        b.cvt_u32_u64(a)
    });
    assert_eq!(cvt, 0x9ABC_DEF0);
    let up = eval1(|b| {
        let a = c32(b, 0xFFFF_FFFF)?;
        b.cvt_u64_u32(a)
    });
    assert_eq!(up, 0xFFFF_FFFF);
    let setp = |cmp: CmpOp, ty: IntType, x: u32, y: i64| {
        eval1(|b| {
            let a = c32(b, x)?;
            b.setp(cmp, ty, a, y)
        })
    };
    assert_eq!(setp(CmpOp::Lt, IntType::S32, 0xFFFF_FFFF, 0), 1);
    assert_eq!(setp(CmpOp::Lt, IntType::U32, 0xFFFF_FFFF, 0), 0);
    assert_eq!(setp(CmpOp::Ge, IntType::U32, 7, 7), 1);
    assert_eq!(setp(CmpOp::Ne, IntType::U32, 7, 7), 0);
}

#[test]
fn division_by_zero_is_an_error() {
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    let t = b.special(SpecialReg::TidX).unwrap();
    b.rem(IntType::U32, 7, t).unwrap(); // thread 0 divides by zero
    let k = b.finish().unwrap();
    assert_eq!(
        run(&k, &Config::new(32), &[]).unwrap_err(),
        InterpError::DivisionByZero { thread: 0, stmt: 1 }
    );
}

#[test]
fn division_by_zero_is_an_error_for_div_and_rem_of_every_type() {
    // Every division and remainder by zero is refused, signed or not (PTX leaves the result
    // unspecified; the interpreter never guesses one).
    for op in [ArithOp::Div, ArithOp::Rem] {
        for ty in [IntType::U32, IntType::S32, IntType::U64, IntType::S64] {
            assert_eq!(alu::arith(op, ty, 7, 0), None, "{op:?} {ty:?}");
            // Only the operand's low bits count: 2^32 is zero as a 32-bit divisor.
            if ty.bits() == 32 {
                assert_eq!(alu::arith(op, ty, 7, 1 << 32), None, "{op:?} {ty:?}");
            }
        }
    }
    assert_eq!(alu::arith(ArithOp::Div, IntType::U32, 7, 2), Some(3));
}

/// `bfe.s32` by the PTX ISA's definition: `msb = min(pos + len - 1, 31)`, `sbit = a[msb]`
/// (0 for `len` 0), `d[i] = a[pos + i]` for `i < len` and `pos + i ≤ msb`, else `sbit` — as a
/// field shifted down and sign-extended from its top real bit.
fn bfe_s32_reference(a: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    if len == 0 {
        return 0;
    }
    let msb = (pos + len - 1).min(31);
    let sbit = (a >> msb) & 1;
    // The real bits of the field: pos..=msb (none when pos > 31).
    let width = if pos > 31 { 0 } else { msb - pos + 1 };
    let field = if width == 0 {
        0
    } else {
        (u64::from(a) >> pos) & ((1u64 << width) - 1)
    };
    let extended = if sbit == 1 {
        field | (u64::MAX << width)
    } else {
        field
    };
    extended as u32
}

#[test]
fn bfe_s32_exact() {
    use alu::bfe_s32;
    assert_eq!(bfe_s32(0b1000, 3, 1), u32::MAX); // a set 1-bit field is -1
    assert_eq!(bfe_s32(0b0100, 3, 1), 0);
    assert_eq!(bfe_s32(0b0110, 1, 3), 0b011); // positive field: zero-extended
    assert_eq!(bfe_s32(0b1010, 1, 3), 0xFFFF_FFFD); // 0b101 = -3
    assert_eq!(bfe_s32(0x8000_0000, 30, 8), u32::MAX - 1); // 0b10 past bit 31: sign of bit 31
    assert_eq!(bfe_s32(0x4000_0000, 30, 8), 1); // 0b01, sign 0
    assert_eq!(bfe_s32(0xABCD_1234, 4, 8), 0x23);
    assert_eq!(bfe_s32(0xABCD_1234, 0, 32), 0xABCD_1234);
    assert_eq!(bfe_s32(0xFFFF_FFFF, 4, 0), 0); // len 0 is 0, not the sign
    assert_eq!(bfe_s32(0x8000_0000, 40, 4), u32::MAX); // pos past 31: every bit the sign (bit 31)
    assert_eq!(bfe_s32(0x7FFF_FFFF, 40, 4), 0);
    assert_eq!(bfe_s32(0x0000_00F0, 0x104, 0x204), u32::MAX); // pos 4, len 4: 0xF = -1
}

fn lut_reference(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    // Build F(0xF0, 0xCC, 0xAA) back from the LUT's minterms.
    let mut d = 0;
    for m in 0..8u32 {
        if lut >> m & 1 == 1 {
            let pa = if m & 4 != 0 { a } else { !a };
            let pb = if m & 2 != 0 { b } else { !b };
            let pc = if m & 1 != 0 { c } else { !c };
            d |= pa & pb & pc;
        }
    }
    d
}

proptest! {
    #[test]
    fn lop3_matches_minterm_expansion(a: u32, b: u32, c: u32, lut: u8) {
        prop_assert_eq!(alu::lop3(a, b, c, lut), lut_reference(a, b, c, lut));
    }

    #[test]
    fn bfe_bfi_match_shift_and_mask(a: u32, b: u32, pos in 0u32..32, len in 0u32..=32) {
        let len = len.min(32 - pos);
        let mask = if len == 32 { u32::MAX } else { (1u32 << len) - 1 };
        prop_assert_eq!(alu::bfe_u32(a, pos, len), (a >> pos) & mask);
        prop_assert_eq!(alu::bfi_b32(a, b, pos, len), (b & !(mask << pos)) | ((a & mask) << pos));
    }

    #[test]
    fn bfe_s32_matches_the_isa(a: u32, pos in 0u32..300, len in 0u32..300) {
        prop_assert_eq!(alu::bfe_s32(a, pos, len), bfe_s32_reference(a, pos, len));
        // Within the word, the field is (a << (32 - pos - len)) >> (32 - len) as i32.
        if len > 0 && pos + len <= 32 {
            let shifted = ((a << (32 - pos - len)) as i32) >> (32 - len);
            prop_assert_eq!(alu::bfe_s32(a, pos, len), shifted as u32);
        }
    }

    #[test]
    fn unsigned_division_and_logic_match_rust(a: u32, b: u32, hi: u32) {
        // Operands may carry bits above the instruction's width (a wider register): only the
        // low bits count.
        let (a64, b64) = (u64::from(a) | (u64::from(hi) << 32), u64::from(b) | (u64::from(hi) << 32));
        if let (Some(q), Some(r)) = (a.checked_div(b), a.checked_rem(b)) {
            prop_assert_eq!(alu::arith(ArithOp::Div, IntType::U32, a64, b64), Some(u64::from(q)));
            prop_assert_eq!(alu::arith(ArithOp::Rem, IntType::U32, a64, b64), Some(u64::from(r)));
            prop_assert_eq!(alu::arith(ArithOp::Rem, IntType::S32, a64, b64), Some(u64::from((a as i32).wrapping_rem(b as i32) as u32)));
        }
        prop_assert_eq!(alu::logic(LogicOp::Or, Width::B32, a64, b64), u64::from(a | b));
        prop_assert_eq!(alu::logic(LogicOp::And, Width::B32, a64, b64), u64::from(a & b));
        prop_assert_eq!(alu::logic(LogicOp::Xor, Width::B32, a64, b64), u64::from(a ^ b));
    }

    #[test]
    fn comparisons_match_rust(a: u32, b: u32, hi: u32) {
        let (a64, b64) = (u64::from(a) | (u64::from(hi) << 32), u64::from(b));
        let (sa, sb) = (a as i32, b as i32);
        for (cmp, u, s) in [
            (CmpOp::Eq, a == b, sa == sb),
            (CmpOp::Ne, a != b, sa != sb),
            (CmpOp::Lt, a < b, sa < sb),
            (CmpOp::Le, a <= b, sa <= sb),
            (CmpOp::Gt, a > b, sa > sb),
            (CmpOp::Ge, a >= b, sa >= sb),
        ] {
            prop_assert_eq!(alu::compare(cmp, IntType::U32, a64, b64), u, "{:?} u32", cmp);
            prop_assert_eq!(alu::compare(cmp, IntType::S32, a64, b64), s, "{:?} s32", cmp);
        }
    }

    #[test]
    fn prmt_byte_selection(a: u32, b: u32, sel in 0u32..0x10000) {
        let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
        let d = alu::prmt(a, b, sel).to_le_bytes();
        for (i, got) in d.iter().enumerate() {
            let s = (sel >> (4 * i)) & 0xF;
            let byte = bytes[(s & 7) as usize];
            let want = if s & 8 != 0 { if byte & 0x80 != 0 { 0xFF } else { 0 } } else { byte };
            prop_assert_eq!(*got, want);
        }
    }

    #[test]
    fn arithmetic_wraps_like_rust(a: u32, b: u32) {
        let (a64, b64) = (u64::from(a), u64::from(b));
        prop_assert_eq!(alu::arith(ArithOp::Add, IntType::U32, a64, b64), Some(u64::from(a.wrapping_add(b))));
        prop_assert_eq!(alu::arith(ArithOp::MulLo, IntType::S32, a64, b64), Some(u64::from(a.wrapping_mul(b))));
        prop_assert_eq!(alu::logic(LogicOp::Shl, Width::B32, a64, b64), u64::from(a.checked_shl(b).unwrap_or(0)));
        prop_assert_eq!(alu::shr(a64, b, IntType::U32), u64::from(a.checked_shr(b).unwrap_or(0)));
        let s = (a as i32).checked_shr(b).unwrap_or(if (a as i32) < 0 { -1 } else { 0 });
        prop_assert_eq!(alu::shr(a64, b, IntType::S32), u64::from(s as u32));
        if b != 0 {
            prop_assert_eq!(alu::arith(ArithOp::Div, IntType::S32, a64, b64), Some(u64::from((a as i32).wrapping_div(b as i32) as u32)));
        }
    }
}

#[test]
fn immediate_operands_truncate_to_the_width() {
    // `add.u32 %r, %r, -1` and `add.u32 %r, %r, 0xFFFFFFFF` are the same instruction.
    let v = eval1(|b| {
        let a = c32(b, 10)?;
        let x = b.add(IntType::U32, a, -1)?;
        b.add(IntType::U32, x, Operand::Imm(0xFFFF_FFFF))
    });
    assert_eq!(v, 8);
}

/// `mov.b32 {lo, hi}, a` splits a word into its 16-bit halves and `mov.b32 d, {lo, hi}` joins
/// two halves, the first in the low half: swapping them rotates the word by 16.
#[test]
fn pack_and_unpack_move_16_bit_halves() {
    let v = eval1(|b| {
        let x = c32(b, 0x1234_5678)?;
        let (lo, hi) = (b.reg(RegType::B16), b.reg(RegType::B16));
        b.push(codegen::ptx::Op::Unpack {
            halves: [Some(lo), Some(hi)],
            a: x,
        })?;
        let d = b.reg(RegType::B32);
        b.push(codegen::ptx::Op::Pack {
            d,
            halves: [hi, lo],
        })?;
        Ok(d)
    });
    assert_eq!(v, 0x5678_1234);
}

/// 64-bit arithmetic reads its second operand at 64 bits (only a shift amount is 32-bit):
/// a second operand past 2^32 counts in full.
#[test]
fn wide_arithmetic_reads_its_second_operand_whole() {
    let (a, bb) = (3u64 << 40 | 7, 1u64 << 40 | 5);
    let op = |f: &dyn Fn(&mut Builder, Reg, Reg) -> Result<Reg, codegen::ptx::PtxError>| {
        eval1(|b| {
            let (x, y) = (b.mov(RegType::B64, a)?, b.mov(RegType::B64, bb)?);
            f(b, x, y)
        })
    };
    assert_eq!(op(&|b, x, y| b.add(IntType::U64, x, y)), a + bb);
    assert_eq!(op(&|b, x, y| b.sub(IntType::U64, x, y)), a - bb);
    assert_eq!(
        op(&|b, x, y| b.mul_lo(IntType::U64, x, y)),
        a.wrapping_mul(bb)
    );
    assert_eq!(op(&|b, x, y| b.div(IntType::U64, x, y)), a / bb);
    assert_eq!(op(&|b, x, y| b.rem(IntType::U64, x, y)), a % bb);
    assert_eq!(op(&|b, x, y| b.and(Width::B64, x, y)), a & bb);
    assert_eq!(op(&|b, x, y| b.xor(Width::B64, x, y)), a ^ bb);
}
