//! One instruction's opcode and operands as an [`Op`]: the grammar of each instruction of the
//! subset (its dotted suffixes, its operand kinds), naming the operand in every error.

use super::{Arg, ParseError};
use crate::ptx::error::PtxError;
use crate::ptx::inst::Op;
use crate::ptx::operands::{Address, ArithOp, LogicOp, MovSource};
use crate::ptx::reg::{Operand, Reg};
use crate::ptx::types::{
    CmpOp, CpShape, DataType, IntType, MatrixCount, StateSpace, TmemShape, Width,
};

/// Operand accessors that name the operand in their errors.
struct Args<'a> {
    args: &'a [Arg],
    line: usize,
    opcode: &'a str,
}

impl Args<'_> {
    fn expect_len(&self, n: usize) -> Result<(), ParseError> {
        if self.args.len() == n {
            Ok(())
        } else {
            Err(ParseError::Expected {
                line: self.line,
                expected: format!("{n} operands for {}", self.opcode),
                found: self.args.len().to_string(),
            })
        }
    }

    fn wrong<T>(&self, i: usize, expected: &str) -> Result<T, ParseError> {
        Err(ParseError::Expected {
            line: self.line,
            expected: format!("{expected} as operand {} of {}", i + 1, self.opcode),
            found: self
                .args
                .get(i)
                .map_or("nothing".into(), |a| format!("{a:?}")),
        })
    }

    fn reg(&self, i: usize) -> Result<Reg, ParseError> {
        match self.args.get(i) {
            Some(Arg::Reg(r)) => Ok(*r),
            _ => self.wrong(i, "a register"),
        }
    }

    fn src(&self, i: usize) -> Result<Operand, ParseError> {
        match self.args.get(i) {
            Some(Arg::Reg(r)) => Ok(Operand::Reg(*r)),
            Some(Arg::Imm(v)) => Ok(Operand::Imm(*v)),
            _ => self.wrong(i, "a register or immediate"),
        }
    }

    fn imm(&self, i: usize) -> Result<i64, ParseError> {
        match self.args.get(i) {
            Some(Arg::Imm(v)) => Ok(*v),
            _ => self.wrong(i, "an immediate"),
        }
    }

    fn addr(&self, i: usize) -> Result<Address, ParseError> {
        match self.args.get(i) {
            Some(Arg::Addr(base, offset)) => Ok(Address::new(*base, *offset)),
            _ => self.wrong(i, "an address [reg+imm]"),
        }
    }

    fn vector(&self, i: usize) -> Result<Vec<Reg>, ParseError> {
        match self.args.get(i) {
            Some(Arg::Vector(v)) => Ok(v.clone()),
            _ => self.wrong(i, "a register vector"),
        }
    }

    /// One register or a `{…}` vector.
    fn elements(&self, i: usize) -> Result<Vec<Reg>, ParseError> {
        match self.args.get(i) {
            Some(Arg::Reg(r)) => Ok(vec![*r]),
            // `{ %r1 }`: LLVM's inline-asm spelling of one register.
            Some(Arg::Vector(v)) if !v.is_empty() => Ok(v.clone()),
            _ => self.wrong(i, "a register or a vector of 2 or 4"),
        }
    }
}

fn width_matches(d: Reg, suffix: &str) -> bool {
    let bits = match suffix {
        "pred" => 1,
        "b16" | "u16" | "s16" => 16,
        "b32" | "u32" | "s32" => 32,
        "b64" | "u64" | "s64" => 64,
        _ => 0,
    };
    d.ty().bits() == bits
}

fn space(name: &str) -> Option<StateSpace> {
    match name {
        "shared::cta" | "shared" => Some(StateSpace::Shared),
        "global" => Some(StateSpace::Global),
        _ => None,
    }
}

fn repeat(name: &str) -> Option<u32> {
    name.strip_prefix('x')?.parse().ok()
}

/// The [`Op`] for `opcode` and its operands on `line`.
pub(super) fn build_op(opcode: &str, args: &[Arg], line: usize) -> Result<Op, ParseError> {
    let a = Args { args, line, opcode };
    let parts: Vec<&str> = opcode.split('.').collect();
    let unknown = || ParseError::UnknownInstruction {
        line,
        opcode: opcode.to_string(),
    };
    let op = match parts.as_slice() {
        ["mov", "b32"] if matches!(args.first(), Some(Arg::Vector(_) | Arg::Sinks(_))) => {
            a.expect_len(2)?;
            let halves = match args.first() {
                Some(Arg::Vector(v)) => v.iter().copied().map(Some).collect::<Vec<_>>(),
                Some(Arg::Sinks(v)) => v.clone(),
                _ => Vec::new(),
            };
            match halves.as_slice() {
                [lo, hi] if lo.is_some() || hi.is_some() => Op::Unpack {
                    halves: [*lo, *hi],
                    a: a.reg(1)?,
                },
                _ => return a.wrong(0, "{lo, hi}: two .b16 registers, or _ for one"),
            }
        }
        ["mov", "b32"] if matches!(args.get(1), Some(Arg::Vector(_))) => {
            a.expect_len(2)?;
            match a.vector(1)?.as_slice() {
                [lo, hi] => Op::Pack {
                    d: a.reg(0)?,
                    halves: [*lo, *hi],
                },
                _ => return a.wrong(1, "{lo, hi}: two .b16 registers"),
            }
        }
        ["mov", ty] => {
            a.expect_len(2)?;
            let d = a.reg(0)?;
            if !width_matches(d, ty) {
                return a.wrong(0, &format!("a register of type .{ty}"));
            }
            let src = match args.get(1) {
                Some(Arg::Special(s)) => MovSource::Special(*s),
                Some(Arg::Sym(name)) => MovSource::Shared(name.clone()),
                _ => MovSource::Operand(a.src(1)?),
            };
            Op::Mov { d, src }
        }
        [name @ ("add" | "sub" | "div" | "rem" | "shr"), ty] | [name @ "mul", "lo", ty] => {
            let op = match *name {
                "add" => ArithOp::Add,
                "sub" => ArithOp::Sub,
                "div" => ArithOp::Div,
                "rem" => ArithOp::Rem,
                "shr" => ArithOp::Shr,
                _ => ArithOp::MulLo,
            };
            let ty = IntType::parse(ty).ok_or_else(unknown)?;
            a.expect_len(3)?;
            Op::Arith {
                op,
                ty,
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
            }
        }
        // `neg.sN d, a` is `sub.sN d, 0, a` (two's complement), and prints so.
        ["neg", ty @ ("s32" | "s64")] => {
            let ty = IntType::parse(ty).ok_or_else(unknown)?;
            a.expect_len(2)?;
            Op::Arith {
                op: ArithOp::Sub,
                ty,
                d: a.reg(0)?,
                a: Operand::Imm(0),
                b: a.src(1)?,
            }
        }
        [name @ ("and" | "or" | "xor" | "shl"), w] => {
            let op = match *name {
                "and" => LogicOp::And,
                "or" => LogicOp::Or,
                "xor" => LogicOp::Xor,
                _ => LogicOp::Shl,
            };
            let width = Width::parse(w).ok_or_else(unknown)?;
            a.expect_len(3)?;
            Op::Logic {
                op,
                width,
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
            }
        }
        ["not", w] => {
            let width = Width::parse(w).ok_or_else(unknown)?;
            a.expect_len(2)?;
            Op::Not {
                width,
                d: a.reg(0)?,
                a: a.src(1)?,
            }
        }
        ["mad", "lo", ty] => {
            let ty = IntType::parse(ty).ok_or_else(unknown)?;
            a.expect_len(4)?;
            Op::MadLo {
                ty,
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
                c: a.src(3)?,
            }
        }
        ["mad", "wide", "u32"] => {
            a.expect_len(4)?;
            Op::MadWide {
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
                c: a.src(3)?,
            }
        }
        ["mul", "wide", "u32"] => {
            a.expect_len(3)?;
            Op::MulWide {
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
            }
        }
        ["lop3", "b32"] => {
            a.expect_len(5)?;
            let lut = a.imm(4)?;
            let lut = u8::try_from(lut).or_else(|_| a.wrong(4, "a LUT byte 0..=255"))?;
            Op::Lop3 {
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
                c: a.src(3)?,
                lut,
            }
        }
        ["bfe", ty @ ("u32" | "s32")] => {
            a.expect_len(4)?;
            Op::Bfe {
                d: a.reg(0)?,
                a: a.src(1)?,
                pos: a.src(2)?,
                len: a.src(3)?,
                signed: *ty == "s32",
            }
        }
        ["bfi", "b32"] => {
            a.expect_len(5)?;
            Op::Bfi {
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
                pos: a.src(3)?,
                len: a.src(4)?,
            }
        }
        ["prmt", "b32"] => {
            a.expect_len(4)?;
            Op::Prmt {
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
                sel: a.src(3)?,
            }
        }
        ["cvt", to, from] => {
            a.expect_len(2)?;
            let (d, src) = (a.reg(0)?, a.reg(1)?);
            let ok = matches!(
                (*to, *from),
                ("u64", "u32") | ("u32", "u64") | ("u16", "u32") | ("u32", "u16")
            );
            if !ok {
                return Err(unknown());
            }
            if !width_matches(d, to) {
                return a.wrong(0, &format!("a register of type .{to}"));
            }
            Op::Cvt { d, a: src }
        }
        ["setp", cmp, ty] => {
            let cmp = CmpOp::parse(cmp).ok_or_else(unknown)?;
            // `.b32`/`.b64` compare bits: only (in)equality, where signedness does not matter.
            let ty = match (*ty, cmp) {
                ("b32", CmpOp::Eq | CmpOp::Ne) => IntType::U32,
                ("b64", CmpOp::Eq | CmpOp::Ne) => IntType::U64,
                _ => IntType::parse(ty).ok_or_else(unknown)?,
            };
            a.expect_len(3)?;
            Op::Setp {
                cmp,
                ty,
                d: a.reg(0)?,
                a: a.src(1)?,
                b: a.src(2)?,
            }
        }
        ["bra"] => {
            a.expect_len(1)?;
            match args.first() {
                Some(Arg::Sym(target)) => Op::Bra {
                    target: target.clone(),
                },
                _ => return a.wrong(0, "a label"),
            }
        }
        ["ld", "param", ty @ ("u32" | "u64" | "b32" | "b64")] => {
            a.expect_len(2)?;
            let d = a.reg(0)?;
            if !width_matches(d, ty) {
                return a.wrong(0, &format!("a register of type .{ty}"));
            }
            match args.get(1) {
                Some(Arg::SymAddr(param)) => Op::LdParam {
                    d,
                    param: param.clone(),
                },
                _ => return a.wrong(1, "[param]"),
            }
        }
        ["cvta", "to", "global", "u64"] => {
            a.expect_len(2)?;
            Op::CvtaGlobal {
                d: a.reg(0)?,
                a: a.reg(1)?,
            }
        }
        ["ld" | "st", sp, rest @ ..] => {
            let space = space(sp).ok_or_else(unknown)?;
            let (vec, ty) = match rest {
                [ty] => (1, *ty),
                ["v2", ty] => (2, *ty),
                ["v4", ty] => (4, *ty),
                _ => return Err(unknown()),
            };
            let ty = DataType::parse(ty).ok_or_else(unknown)?;
            a.expect_len(2)?;
            let is_load = parts.first() == Some(&"ld");
            let regs = if is_load {
                a.elements(0)?
            } else {
                a.elements(1)?
            };
            if regs.len() != vec {
                return Err(ParseError::Invalid {
                    line,
                    source: PtxError::VectorLength {
                        inst: opcode.to_string(),
                        expected: vec.to_string(),
                        found: regs.len(),
                    },
                });
            }
            if is_load {
                Op::Ld {
                    space,
                    ty,
                    d: regs,
                    addr: a.addr(1)?,
                }
            } else {
                Op::St {
                    space,
                    ty,
                    addr: a.addr(0)?,
                    src: regs,
                }
            }
        }
        [name @ ("ldmatrix" | "stmatrix"), "sync", "aligned", "m8n8", x, rest @ ..] => {
            let count = repeat(x)
                .and_then(MatrixCount::from_count)
                .ok_or_else(unknown)?;
            let trans = match rest {
                [sp, "b16"] if space(sp) == Some(StateSpace::Shared) => false,
                ["trans", sp, "b16"] if space(sp) == Some(StateSpace::Shared) => true,
                _ => return Err(unknown()),
            };
            a.expect_len(2)?;
            if *name == "ldmatrix" {
                Op::Ldmatrix {
                    count,
                    trans,
                    d: a.vector(0)?,
                    addr: a.addr(1)?,
                }
            } else {
                Op::Stmatrix {
                    count,
                    trans,
                    addr: a.addr(0)?,
                    src: a.vector(1)?,
                }
            }
        }
        ["tcgen05", "alloc", "cta_group::1", "sync", "aligned", "shared::cta", "b32"] => {
            a.expect_len(2)?;
            Op::TmemAlloc {
                dst: a.addr(0)?,
                ncols: a.src(1)?,
            }
        }
        ["tcgen05", "dealloc", "cta_group::1", "sync", "aligned", "b32"] => {
            a.expect_len(2)?;
            Op::TmemDealloc {
                taddr: a.src(0)?,
                ncols: a.src(1)?,
            }
        }
        ["tcgen05", "relinquish_alloc_permit", "cta_group::1", "sync", "aligned"] => {
            a.expect_len(0)?;
            Op::TmemRelinquish
        }
        ["tcgen05", dir @ ("ld" | "st"), "sync", "aligned", shape, x, rest @ ..]
            if matches!(
                (*dir, rest),
                (_, ["b32"]) | ("ld", ["pack::16b", "b32"]) | ("st", ["unpack::16b", "b32"])
            ) =>
        {
            let halves = rest.len() == 2;
            let shape = TmemShape::parse(shape).ok_or_else(unknown)?;
            let num = repeat(x).ok_or_else(unknown)?;
            // `.16x32bx2` takes its split offset after the address (`st`) or the
            // destinations (`ld`).
            let split = matches!(shape, TmemShape::S16x32bx2(_));
            a.expect_len(if split { 3 } else { 2 })?;
            let split_at = |i: usize| -> Result<TmemShape, ParseError> {
                let off = a.imm(i)?;
                u32::try_from(off)
                    .map(TmemShape::S16x32bx2)
                    .or_else(|_| a.wrong(i, "a 32-bit immHalfSplitoff"))
            };
            if *dir == "ld" {
                Op::TmemLd {
                    shape: if split { split_at(2)? } else { shape },
                    num,
                    pack: halves,
                    d: a.vector(0)?,
                    taddr: a.addr(1)?,
                }
            } else {
                Op::TmemSt {
                    shape: if split { split_at(1)? } else { shape },
                    num,
                    unpack: halves,
                    taddr: a.addr(0)?,
                    src: a.vector(if split { 2 } else { 1 })?,
                }
            }
        }
        // Triton prints the multicast before the shape (`.warpx4.32x128b`); the ISA after it.
        ["tcgen05", "cp", "cta_group::1", rest @ ..] => {
            let shape = match rest {
                [shape] => CpShape::parse(shape, None),
                [a, b] => CpShape::parse(a, Some(b)).or_else(|| CpShape::parse(b, Some(a))),
                _ => None,
            }
            .ok_or_else(unknown)?;
            a.expect_len(2)?;
            Op::TmemCp {
                shape,
                taddr: a.addr(0)?,
                desc: a.reg(1)?,
            }
        }
        ["tcgen05", "commit", "cta_group::1", "mbarrier::arrive::one", "shared::cluster", "b64"] => {
            a.expect_len(1)?;
            Op::TmemCommit { mbar: a.addr(0)? }
        }
        ["mbarrier", "init", "shared::cta", "b64"] => {
            a.expect_len(2)?;
            Op::MbarrierInit {
                addr: a.addr(0)?,
                count: a.src(1)?,
            }
        }
        ["mbarrier", "try_wait", "parity", "shared::cta", "b64"] => {
            a.expect_len(3)?;
            Op::MbarrierTryWait {
                d: a.reg(0)?,
                addr: a.addr(1)?,
                parity: a.src(2)?,
            }
        }
        ["fence", "proxy", "async", "shared::cta"] => {
            a.expect_len(0)?;
            Op::FenceProxyAsync
        }
        ["tcgen05", "wait::ld", "sync", "aligned"] => {
            a.expect_len(0)?;
            Op::TmemWaitLd
        }
        ["tcgen05", "wait::st", "sync", "aligned"] => {
            a.expect_len(0)?;
            Op::TmemWaitSt
        }
        ["tcgen05", "fence::before_thread_sync"] => {
            a.expect_len(0)?;
            Op::TmemFenceBefore
        }
        ["tcgen05", "fence::after_thread_sync"] => {
            a.expect_len(0)?;
            Op::TmemFenceAfter
        }
        ["bar", "sync"] => {
            a.expect_len(1)?;
            let id = a.imm(0)?;
            let id = u32::try_from(id).or_else(|_| a.wrong(0, "a barrier id"))?;
            Op::BarSync { id }
        }
        ["ret"] => {
            a.expect_len(0)?;
            Op::Ret
        }
        _ => return Err(unknown()),
    };
    Ok(op)
}
