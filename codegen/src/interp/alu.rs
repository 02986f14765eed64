//! The interpreter's integer semantics, per the PTX ISA, as pure functions: wrapping
//! arithmetic at the instruction's width, clamped shifts, `lop3` by truth table, exact
//! `bfe`/`bfi`, `prmt` in its default mode.
//!
//! Values travel as `u64` holding the instruction's width in the low bits.

use crate::ptx::{ArithOp, CmpOp, IntType, LogicOp, Width};

/// `lop3.b32`: bit `i` of the result is bit `4·a_i + 2·b_i + c_i` of `lut`.
///
/// ```
/// use codegen::interp::alu::lop3;
/// assert_eq!(lop3(0b1100, 0b1010, 0b0110, 0x96), 0b1100 ^ 0b1010 ^ 0b0110);
/// assert_eq!(lop3(0x0F, 0xFF, 0x70, 0x78), 0x0F ^ (0xFF & 0x70));
/// assert_eq!(lop3(0x0F, 0x3C, 0x40, 0xEA), (0x0F & 0x3C) | 0x40);
/// ```
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let lut = u32::from(lut);
    (0..32).fold(0, |d, i| {
        let index = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
        d | (((lut >> index) & 1) << i)
    })
}

/// `bfe.u32 d, a, pos, len`: `len` bits of `a` from bit `pos`, zero-extended; only the low
/// 8 bits of `pos` and `len` count; bits beyond bit 31 read as 0.
///
/// ```
/// use codegen::interp::alu::bfe_u32;
/// assert_eq!(bfe_u32(0xABCD_1234, 4, 8), 0x23);
/// assert_eq!(bfe_u32(0xF000_0000, 28, 8), 0xF);
/// assert_eq!(bfe_u32(0xFFFF_FFFF, 0, 0), 0);
/// assert_eq!(bfe_u32(0xFFFF_FFFF, 0x104, 0x204), 0xF); // pos 4, len 4
/// ```
pub fn bfe_u32(a: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    (0..len.min(32)).fold(0, |d, i| {
        let bit = if pos + i < 32 {
            (a >> (pos + i)) & 1
        } else {
            0
        };
        d | (bit << i)
    })
}

/// `bfe.s32 d, a, pos, len`: as [`bfe_u32`], but every bit past the field (and every bit
/// of the field past bit 31) is the field's last bit within the word; 0 when `len` is 0.
///
/// ```
/// use codegen::interp::alu::bfe_s32;
/// assert_eq!(bfe_s32(0b1000, 3, 1), u32::MAX); // a set 1-bit field: -1
/// assert_eq!(bfe_s32(0b0100, 3, 1), 0);
/// assert_eq!(bfe_s32(0x8000_0000, 30, 8), u32::MAX - 1); // 0b10, then the sign
/// assert_eq!(bfe_s32(0xFFFF_FFFF, 4, 0), 0);
/// ```
pub fn bfe_s32(a: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    if len == 0 {
        return 0;
    }
    let last = (pos + len - 1).min(31);
    let sign = (a >> last) & 1;
    (0..32).fold(0, |d, i| {
        let bit = if i < len && pos + i <= 31 {
            (a >> (pos + i)) & 1
        } else {
            sign
        };
        d | (bit << i)
    })
}

/// `bfi.b32 f, a, b, pos, len`: `b` with its bits `pos..pos+len` replaced by the low `len`
/// bits of `a`; only the low 8 bits of `pos` and `len` count; bits beyond bit 31 are dropped.
///
/// ```
/// use codegen::interp::alu::bfi_b32;
/// assert_eq!(bfi_b32(0x5, 0xFFFF_0000, 8, 4), 0xFFFF_0500);
/// assert_eq!(bfi_b32(0xFF, 0, 28, 8), 0xF000_0000);
/// assert_eq!(bfi_b32(0xFF, 0x1234, 40, 8), 0x1234);
/// ```
pub fn bfi_b32(a: u32, b: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    (0..len).take_while(|i| pos + i < 32).fold(b, |f, i| {
        let bit = (a >> i) & 1;
        (f & !(1 << (pos + i))) | (bit << (pos + i))
    })
}

/// `prmt.b32 d, a, b, sel` (default mode): byte `i` of `d` is byte `sel_i & 7` of the
/// 8-byte value `{b, a}` (a = bytes 0–3), or that byte's sign replicated when `sel_i & 8`.
///
/// ```
/// use codegen::interp::alu::prmt;
/// assert_eq!(prmt(0x3322_1100, 0x7766_5544, 0x5410), 0x5544_1100);
/// assert_eq!(prmt(0x0000_0080, 0, 0x8888), 0xFFFF_FFFF);
/// assert_eq!(prmt(0x1234_5678, 0, 0x0123), 0x7856_3412);
/// ```
pub fn prmt(a: u32, b: u32, sel: u32) -> u32 {
    let bytes = (u64::from(b) << 32) | u64::from(a);
    (0..4).fold(0, |d, i| {
        let s = (sel >> (4 * i)) & 0xF;
        let byte = ((bytes >> (8 * (s & 7))) & 0xFF) as u32;
        let byte = if s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        } else {
            byte
        };
        d | (byte << (8 * i))
    })
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` of `v` to `i64`.
fn signed(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// `shl` at `bits` width: amounts of at least the width give 0.
///
/// ```
/// use codegen::interp::alu::shl;
/// assert_eq!(shl(1, 31, 32), 0x8000_0000);
/// assert_eq!(shl(1, 32, 32), 0);
/// assert_eq!(shl(1, 40, 64), 1 << 40);
/// ```
pub fn shl(v: u64, amount: u32, bits: u32) -> u64 {
    if amount >= bits {
        0
    } else {
        (v << amount) & mask(bits)
    }
}

/// `shr` typed by `ty`: logical for unsigned, arithmetic for signed; amounts of at least the
/// width give 0 (unsigned) or the sign (signed).
///
/// ```
/// use codegen::interp::alu::shr;
/// use codegen::ptx::IntType;
/// assert_eq!(shr(0x8000_0000, 31, IntType::U32), 1);
/// assert_eq!(shr(0x8000_0000, 33, IntType::U32), 0);
/// assert_eq!(shr(0x8000_0000, 4, IntType::S32), 0xF800_0000);
/// assert_eq!(shr(0x8000_0000, 99, IntType::S32), 0xFFFF_FFFF);
/// ```
pub fn shr(v: u64, amount: u32, ty: IntType) -> u64 {
    let bits = ty.bits();
    let v = v & mask(bits);
    let amount = amount.min(bits);
    let out = if ty.is_signed() {
        let s = signed(v, bits);
        (if amount >= 64 { s >> 63 } else { s >> amount }) as u64
    } else if amount >= 64 {
        0
    } else {
        v >> amount
    };
    out & mask(bits)
}

/// An [`ArithOp`] at `ty`'s width, operands given as their low bits. `None` for division or
/// remainder by zero, whose result PTX leaves unspecified. For `shr`, `b` is the amount.
///
/// ```
/// use codegen::interp::alu::arith;
/// use codegen::ptx::{ArithOp, IntType};
/// assert_eq!(arith(ArithOp::Add, IntType::U32, 0xFFFF_FFFF, 2), Some(1));
/// assert_eq!(arith(ArithOp::Sub, IntType::U32, 0, 1), Some(0xFFFF_FFFF));
/// assert_eq!(arith(ArithOp::Div, IntType::S32, (-7i32) as u32 as u64, 2), Some((-3i32) as u32 as u64));
/// assert_eq!(arith(ArithOp::Rem, IntType::S32, (-7i32) as u32 as u64, 2), Some((-1i32) as u32 as u64));
/// assert_eq!(arith(ArithOp::Rem, IntType::U32, 7, 0), None);
/// ```
pub fn arith(op: ArithOp, ty: IntType, a: u64, b: u64) -> Option<u64> {
    let bits = ty.bits();
    let m = mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (signed(a, bits), signed(b, bits));
    let out = match op {
        ArithOp::Add => a.wrapping_add(b),
        ArithOp::Sub => a.wrapping_sub(b),
        ArithOp::MulLo => a.wrapping_mul(b),
        ArithOp::Div if b == 0 => return None,
        ArithOp::Rem if b == 0 => return None,
        // i64 arithmetic on sign-extended operands wraps like the narrow type (MIN / -1 = MIN).
        ArithOp::Div if ty.is_signed() => sa.wrapping_div(sb) as u64,
        ArithOp::Rem if ty.is_signed() => sa.wrapping_rem(sb) as u64,
        ArithOp::Div => a / b,
        ArithOp::Rem => a % b,
        ArithOp::Shr => return Some(shr(a, u32::try_from(b).unwrap_or(u32::MAX), ty)),
    };
    Some(out & m)
}

/// A [`LogicOp`] at `width`; for `shl`, `b` is the amount.
///
/// ```
/// use codegen::interp::alu::logic;
/// use codegen::ptx::{LogicOp, Width};
/// assert_eq!(logic(LogicOp::Xor, Width::B32, 0xF0, 0xFF), 0x0F);
/// assert_eq!(logic(LogicOp::Shl, Width::B32, 3, 4), 48);
/// ```
pub fn logic(op: LogicOp, width: Width, a: u64, b: u64) -> u64 {
    let bits = width.bits();
    let m = mask(bits);
    match op {
        LogicOp::And => a & b & m,
        LogicOp::Or => (a | b) & m,
        LogicOp::Xor => (a ^ b) & m,
        LogicOp::Shl => shl(a & m, u32::try_from(b).unwrap_or(u32::MAX), bits),
    }
}

/// `mad.lo`: the low half of `a·b + c` at `ty`'s width.
///
/// ```
/// use codegen::interp::alu::mad_lo;
/// use codegen::ptx::IntType;
/// assert_eq!(mad_lo(IntType::U32, 5, 128, 16), 656);
/// assert_eq!(mad_lo(IntType::U32, 0x1_0000, 0x1_0000, 7), 7);
/// ```
pub fn mad_lo(ty: IntType, a: u64, b: u64, c: u64) -> u64 {
    let m = mask(ty.bits());
    (a & m).wrapping_mul(b & m).wrapping_add(c & m) & m
}

/// `setp`: compares as `ty` (signed or unsigned).
///
/// ```
/// use codegen::interp::alu::compare;
/// use codegen::ptx::{CmpOp, IntType};
/// assert!(compare(CmpOp::Lt, IntType::S32, 0xFFFF_FFFF, 0)); // -1 < 0
/// assert!(!compare(CmpOp::Lt, IntType::U32, 0xFFFF_FFFF, 0));
/// ```
pub fn compare(cmp: CmpOp, ty: IntType, a: u64, b: u64) -> bool {
    let bits = ty.bits();
    let m = mask(bits);
    let ord = if ty.is_signed() {
        signed(a & m, bits).cmp(&signed(b & m, bits))
    } else {
        (a & m).cmp(&(b & m))
    };
    match cmp {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::Ne => ord.is_ne(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    }
}
