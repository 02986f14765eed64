//! `Display` for [`Op`], [`Inst`], [`Stmt`] and [`Kernel`]: the PTX text ptxas reads and
//! [`parse`](super::parse::parse) reads back.
//!
//! Immediates print in decimal except `lop3`'s truth table (`0x78`); a role that differs from
//! the op's default prints as a trailing `// @data`-style comment.

use std::fmt;

use super::inst::{Inst, Op, Stmt};
use super::kernel::Kernel;
use super::reg::{Reg, RegType};
use super::types::{PtxVersion, Target, TmemShape};

/// `{%r1, %r2}`.
struct Vector<'a>(&'a [Reg]);

impl fmt::Display for Vector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, r) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{r}")?;
        }
        f.write_str("}")
    }
}

/// A scalar register for one element, braces for two or four.
struct Elements<'a>(&'a [Reg]);

impl fmt::Display for Elements<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [one] => write!(f, "{one}"),
            many => write!(f, "{}", Vector(many)),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_opcode(f)?;
        match self {
            Op::Mov { d, src } => write!(f, " {d}, {src}"),
            Op::Pack {
                d,
                halves: [lo, hi],
            } => write!(f, " {d}, {{{lo}, {hi}}}"),
            Op::Unpack { halves, a } => {
                let name = |h: &Option<Reg>| h.map_or("_".to_string(), |r| r.to_string());
                let [lo, hi] = halves;
                write!(f, " {{{}, {}}}, {a}", name(lo), name(hi))
            }
            Op::Arith { d, a, b, .. } | Op::Logic { d, a, b, .. } | Op::MulWide { d, a, b } => {
                write!(f, " {d}, {a}, {b}")
            }
            Op::Setp { d, a, b, .. } => write!(f, " {d}, {a}, {b}"),
            Op::Not { d, a, .. } => write!(f, " {d}, {a}"),
            Op::MadLo { d, a, b, c, .. } | Op::MadWide { d, a, b, c } => {
                write!(f, " {d}, {a}, {b}, {c}")
            }
            Op::Lop3 { d, a, b, c, lut } => write!(f, " {d}, {a}, {b}, {c}, 0x{lut:02x}"),
            Op::Bfe { d, a, pos, len, .. } => write!(f, " {d}, {a}, {pos}, {len}"),
            Op::Bfi { d, a, b, pos, len } => write!(f, " {d}, {a}, {b}, {pos}, {len}"),
            Op::Prmt { d, a, b, sel } => write!(f, " {d}, {a}, {b}, {sel}"),
            Op::Cvt { d, a } | Op::CvtaGlobal { d, a } => write!(f, " {d}, {a}"),
            Op::Bra { target } => write!(f, " {target}"),
            Op::LdParam { d, param } => write!(f, " {d}, [{param}]"),
            Op::Ld { d, addr, .. } => write!(f, " {}, {addr}", Elements(d)),
            Op::St { addr, src, .. } => write!(f, " {addr}, {}", Elements(src)),
            Op::Ldmatrix { d, addr, .. } => write!(f, " {}, {addr}", Vector(d)),
            Op::TmemLd {
                d, taddr, shape, ..
            } => {
                write!(f, " {}, {taddr}", Vector(d))?;
                split(f, *shape)
            }
            Op::Stmatrix { addr, src, .. } => write!(f, " {addr}, {}", Vector(src)),
            // `tcgen05.st.16x32bx2 [taddr], immHalfSplitoff, r`: the offset before the data.
            Op::TmemSt {
                taddr, src, shape, ..
            } => match shape.split() {
                Some(off) => write!(f, " {taddr}, {off}, {}", Vector(src)),
                None => write!(f, " {taddr}, {}", Vector(src)),
            },
            Op::TmemAlloc { dst, ncols } => write!(f, " {dst}, {ncols}"),
            Op::TmemDealloc { taddr, ncols } => write!(f, " {taddr}, {ncols}"),
            Op::BarSync { id } => write!(f, " {id}"),
            Op::TmemCp { taddr, desc, .. } => write!(f, " {taddr}, {desc}"),
            Op::TmemCommit { mbar } => write!(f, " {mbar}"),
            Op::MbarrierInit { addr, count } => write!(f, " {addr}, {count}"),
            Op::MbarrierTryWait { d, addr, parity } => write!(f, " {d}, {addr}, {parity}"),
            Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::FenceProxyAsync
            | Op::Ret => Ok(()),
        }
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = self.guard {
            write!(f, "{g} ")?;
        }
        write!(f, "{};", self.op)?;
        if self.role != self.op.default_role() {
            write!(f, " // {}", self.role.tag())?;
        }
        Ok(())
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stmt::Inst(i) => write!(f, "{i}"),
            Stmt::Label(l) => write!(f, "{l}:"),
            Stmt::Comment(c) => write!(f, "// {c}"),
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        header(f, self.version, self.target)?;
        if !self.shared.is_empty() {
            for s in &self.shared {
                writeln!(f, "{s}")?;
            }
            writeln!(f)?;
        }
        entry(f, self)
    }
}

/// `.version`, `.target`, `.address_size 64` and a blank line.
pub(crate) fn header(
    f: &mut fmt::Formatter<'_>,
    version: PtxVersion,
    target: Target,
) -> fmt::Result {
    writeln!(f, ".version {version}")?;
    writeln!(f, ".target {target}")?;
    writeln!(f, ".address_size 64")?;
    writeln!(f)
}

/// The `.visible .entry` of `k`: signature, launch bounds, register declarations and body.
pub(crate) fn entry(f: &mut fmt::Formatter<'_>, k: &Kernel) -> fmt::Result {
    if k.params.is_empty() {
        writeln!(f, ".visible .entry {}()", k.name)?;
    } else {
        writeln!(f, ".visible .entry {}(", k.name)?;
        for (i, p) in k.params.iter().enumerate() {
            let sep = if i + 1 < k.params.len() { "," } else { "" };
            writeln!(f, "\t{p}{sep}")?;
        }
        writeln!(f, ")")?;
    }
    if let Some(n) = k.reqntid {
        writeln!(f, ".reqntid {n}")?;
    }
    if let Some(n) = k.maxntid {
        writeln!(f, ".maxntid {n}")?;
    }
    writeln!(f, "{{")?;
    let counts = k.register_counts();
    for (ty, n) in &counts {
        writeln!(f, "\t.reg {} {}<{n}>;", ty.ptx_type(), ty.prefix())?;
    }
    if !counts.is_empty() {
        writeln!(f)?;
    }
    for s in &k.body {
        match s {
            Stmt::Label(_) => writeln!(f, "{s}")?,
            _ => writeln!(f, "\t{s}")?,
        }
    }
    writeln!(f, "}}")
}

impl Op {
    /// The printed opcode with all its suffixes, e.g. `ld.shared::cta.v4.b32`.
    ///
    /// ```
    /// use codegen::ptx::{ArithOp, IntType, Op, Reg, RegType};
    /// let r = Reg::new(RegType::B32, 0);
    /// let op = Op::Arith { op: ArithOp::MulLo, ty: IntType::S32, d: r, a: r.into(), b: 3.into() };
    /// assert_eq!(op.opcode(), "mul.lo.s32");
    /// ```
    pub fn opcode(&self) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_opcode(&mut s);
        s
    }

    /// Writes [`opcode`](Self::opcode) to `f` (what `Display` prints, without allocating).
    ///
    /// ```
    /// use codegen::ptx::Op;
    /// let mut s = String::new();
    /// Op::Ret.write_opcode(&mut s)?;
    /// assert_eq!(s, "ret");
    /// # Ok::<(), std::fmt::Error>(())
    /// ```
    pub fn write_opcode(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            Op::Mov { d, .. } => {
                let suffix = match d.ty() {
                    RegType::Pred => ".pred",
                    RegType::B16 => ".b16",
                    RegType::B32 => ".u32",
                    RegType::B64 => ".u64",
                };
                write!(f, "mov{suffix}")
            }
            Op::Arith { op, ty, .. } => write!(f, "{}{ty}", op.name()),
            Op::Logic { op, width, .. } => write!(f, "{}{}", op.name(), width.suffix()),
            Op::Not { width, .. } => write!(f, "not{}", width.suffix()),
            Op::MadLo { ty, .. } => write!(f, "mad.lo{ty}"),
            Op::MulWide { .. } => f.write_str("mul.wide.u32"),
            Op::Pack { .. } | Op::Unpack { .. } => f.write_str("mov.b32"),
            Op::MadWide { .. } => f.write_str("mad.wide.u32"),
            Op::Lop3 { .. } => f.write_str("lop3.b32"),
            Op::Bfe { signed: false, .. } => f.write_str("bfe.u32"),
            Op::Bfe { signed: true, .. } => f.write_str("bfe.s32"),
            Op::Bfi { .. } => f.write_str("bfi.b32"),
            Op::Prmt { .. } => f.write_str("prmt.b32"),
            Op::Cvt { d, a } => write!(f, "cvt.u{}.u{}", d.ty().bits(), a.ty().bits()),
            Op::Setp { cmp, ty, .. } => write!(f, "setp{}{ty}", cmp.suffix()),
            Op::Bra { .. } => f.write_str("bra"),
            Op::LdParam { d, .. } => {
                if d.ty() == RegType::B64 {
                    f.write_str("ld.param.u64")
                } else {
                    f.write_str("ld.param.u32")
                }
            }
            Op::CvtaGlobal { .. } => f.write_str("cvta.to.global.u64"),
            Op::Ld { space, ty, d, .. } => {
                write!(
                    f,
                    "ld{}{}{}",
                    space.suffix(),
                    vec_suffix(d.len()),
                    ty.suffix()
                )
            }
            Op::St { space, ty, src, .. } => {
                write!(
                    f,
                    "st{}{}{}",
                    space.suffix(),
                    vec_suffix(src.len()),
                    ty.suffix()
                )
            }
            Op::Ldmatrix { count, trans, .. } => write!(
                f,
                "ldmatrix.sync.aligned.m8n8.x{}{}.shared::cta.b16",
                count.count(),
                if *trans { ".trans" } else { "" }
            ),
            Op::Stmatrix { count, trans, .. } => write!(
                f,
                "stmatrix.sync.aligned.m8n8.x{}{}.shared::cta.b16",
                count.count(),
                if *trans { ".trans" } else { "" }
            ),
            Op::TmemAlloc { .. } => {
                f.write_str("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32")
            }
            Op::TmemDealloc { .. } => f.write_str("tcgen05.dealloc.cta_group::1.sync.aligned.b32"),
            Op::TmemRelinquish => {
                f.write_str("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")
            }
            Op::TmemLd {
                shape, num, pack, ..
            } => {
                let pack = if *pack { ".pack::16b" } else { "" };
                write!(f, "tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32")
            }
            Op::TmemSt {
                shape, num, unpack, ..
            } => {
                let unpack = if *unpack { ".unpack::16b" } else { "" };
                write!(f, "tcgen05.st.sync.aligned.{shape}.x{num}{unpack}.b32")
            }
            Op::TmemWaitLd => f.write_str("tcgen05.wait::ld.sync.aligned"),
            Op::TmemWaitSt => f.write_str("tcgen05.wait::st.sync.aligned"),
            Op::TmemFenceBefore => f.write_str("tcgen05.fence::before_thread_sync"),
            Op::TmemFenceAfter => f.write_str("tcgen05.fence::after_thread_sync"),
            Op::BarSync { .. } => f.write_str("bar.sync"),
            Op::TmemCp { shape, .. } => write!(f, "tcgen05.cp.cta_group::1.{shape}"),
            Op::TmemCommit { .. } => {
                f.write_str("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64")
            }
            Op::MbarrierInit { .. } => f.write_str("mbarrier.init.shared::cta.b64"),
            Op::MbarrierTryWait { .. } => f.write_str("mbarrier.try_wait.parity.shared::cta.b64"),
            Op::FenceProxyAsync => f.write_str("fence.proxy.async.shared::cta"),
            Op::Ret => f.write_str("ret"),
        }
    }
}

fn vec_suffix(n: usize) -> &'static str {
    match n {
        2 => ".v2",
        4 => ".v4",
        _ => "",
    }
}

/// `, immHalfSplitoff` after a `.16x32bx2` instruction's operands.
fn split(f: &mut fmt::Formatter<'_>, shape: TmemShape) -> fmt::Result {
    match shape.split() {
        Some(off) => write!(f, ", {off}"),
        None => Ok(()),
    }
}
