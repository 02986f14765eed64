//! Instructions: [`Op`] (what an instruction does, with its operands) and its [`OpClass`],
//! [`Inst`] (an op with its guard predicate and [`Role`]) and [`Stmt`] (an instruction, a label
//! or a comment).
//!
//! The set is exactly what address code and its test kernels need. Each op's operand rules are
//! in `validate.rs`, its text in `display.rs` (printing) and `parse.rs` (reading), its
//! semantics in the [interpreter](crate::interp).

use super::error::PtxError;
use super::operands::{Address, ArithOp, Guard, LogicOp, MovSource};
use super::reg::{Operand, Reg, RegType};
use super::types::{
    CmpOp, CpShape, DataType, IntType, MatrixCount, Role, StateSpace, Target, TmemShape, Width,
};

/// One instruction of the subset, with its operands. Destinations are named `d`, sources
/// `a`, `b`, `c` as in the PTX ISA.
///
/// ```
/// use codegen::ptx::{Op, Operand, Reg, RegType};
/// let op = Op::Lop3 {
///     d: Reg::new(RegType::B32, 4),
///     a: Reg::new(RegType::B32, 2).into(),
///     b: Reg::new(RegType::B32, 3).into(),
///     c: Operand::Imm(0x70),
///     lut: 0x78,
/// };
/// op.validate()?;
/// assert_eq!(op.to_string(), "lop3.b32 %r4, %r2, %r3, 112, 0x78");
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `mov.{pred,b16,u32,u64} d, src`.
    Mov {
        /// Destination.
        d: Reg,
        /// Source.
        src: MovSource,
    },
    /// `add/sub/mul.lo/div/rem/shr.<ty> d, a, b`.
    Arith {
        /// Which op.
        op: ArithOp,
        /// Its type.
        ty: IntType,
        /// Destination.
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source (a `.b32` amount for `shr`).
        b: Operand,
    },
    /// `and/or/xor/shl.<width> d, a, b`.
    Logic {
        /// Which op.
        op: LogicOp,
        /// Its width.
        width: Width,
        /// Destination.
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source (a `.b32` amount for `shl`).
        b: Operand,
    },
    /// `not.<width> d, a`.
    Not {
        /// Its width.
        width: Width,
        /// Destination.
        d: Reg,
        /// Source.
        a: Operand,
    },
    /// `mad.lo.<ty> d, a, b, c`: the low half of `a·b + c`.
    MadLo {
        /// Its type.
        ty: IntType,
        /// Destination.
        d: Reg,
        /// Multiplicand.
        a: Operand,
        /// Multiplier.
        b: Operand,
        /// Addend.
        c: Operand,
    },
    /// `mul.wide.u32 d, a, b`: the 64-bit product of two 32-bit values.
    MulWide {
        /// Destination (`.b64`).
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source.
        b: Operand,
    },
    /// `mov.b32 d, {lo, hi}`: two `.b16` packed into one `.b32`, `lo` in the low half.
    Pack {
        /// Destination (`.b32`).
        d: Reg,
        /// The halves, low first (`.b16`).
        halves: [Reg; 2],
    },
    /// `mov.b32 {lo, hi}, a`: a `.b32` split into two `.b16`, the low half first; `None` (`_`
    /// in PTX) drops that half.
    Unpack {
        /// The halves' destinations, low first (`.b16`).
        halves: [Option<Reg>; 2],
        /// Source (`.b32`).
        a: Reg,
    },
    /// `mad.wide.u32 d, a, b, c`: the 64-bit product of two 32-bit values plus a 64-bit addend
    /// (how LLVM, and so Triton, forms `pointer + index · size`).
    MadWide {
        /// Destination (`.b64`).
        d: Reg,
        /// First factor (`.b32`).
        a: Operand,
        /// Second factor (`.b32`).
        b: Operand,
        /// Addend (`.b64`).
        c: Operand,
    },
    /// `lop3.b32 d, a, b, c, lut`: bit `i` of `d` is bit `4a_i + 2b_i + c_i` of `lut`.
    Lop3 {
        /// Destination.
        d: Reg,
        /// Source selecting bit 2 of the LUT index (0xF0).
        a: Operand,
        /// Source selecting bit 1 (0xCC).
        b: Operand,
        /// Source selecting bit 0 (0xAA).
        c: Operand,
        /// The truth table.
        lut: u8,
    },
    /// `bfe.u32`/`bfe.s32 d, a, pos, len`: `len` bits of `a` from `pos`, zero- or sign-extended. Immediate
    /// `pos`/`len` must be in 0..=255 (ptxas' range).
    Bfe {
        /// Destination.
        d: Reg,
        /// Source.
        a: Operand,
        /// Start bit (low 8 bits used).
        pos: Operand,
        /// Length (low 8 bits used).
        len: Operand,
        /// `bfe.s32`: the field sign-extended (else `bfe.u32`, zero-extended).
        signed: bool,
    },
    /// `bfi.b32 d, a, b, pos, len`: `b` with `len` low bits of `a` inserted at `pos`.
    /// Immediate `pos`/`len` must be in 0..=255.
    Bfi {
        /// Destination.
        d: Reg,
        /// The field.
        a: Operand,
        /// The base.
        b: Operand,
        /// Start bit (low 8 bits used).
        pos: Operand,
        /// Length (low 8 bits used).
        len: Operand,
    },
    /// `prmt.b32 d, a, b, sel`: byte permute, default mode.
    Prmt {
        /// Destination.
        d: Reg,
        /// Bytes 0–3.
        a: Operand,
        /// Bytes 4–7.
        b: Operand,
        /// Four selector nibbles.
        sel: Operand,
    },
    /// `cvt.u64.u32 d, a` (zero-extend) or `cvt.u32.u64 d, a` (truncate), by register classes.
    Cvt {
        /// Destination.
        d: Reg,
        /// Source, of the other width.
        a: Reg,
    },
    /// `setp.<cmp>.<ty> d, a, b`.
    Setp {
        /// The comparison.
        cmp: CmpOp,
        /// The operand type.
        ty: IntType,
        /// Destination (`.pred`).
        d: Reg,
        /// Left side.
        a: Operand,
        /// Right side.
        b: Operand,
    },
    /// `bra target` (guard it for a conditional branch).
    Bra {
        /// The label.
        target: String,
    },
    /// `ld.param.{u32,u64} d, [param]`.
    LdParam {
        /// Destination, of the parameter's width.
        d: Reg,
        /// The parameter.
        param: String,
    },
    /// `cvta.to.global.u64 d, a`.
    CvtaGlobal {
        /// Destination.
        d: Reg,
        /// Generic address.
        a: Reg,
    },
    /// `ld.<space>{.v2,.v4}.<ty> d, [addr]`; the vector length is `d.len()`.
    Ld {
        /// Shared or global.
        space: StateSpace,
        /// Element type.
        ty: DataType,
        /// One register per element.
        d: Vec<Reg>,
        /// The address.
        addr: Address,
    },
    /// `st.<space>{.v2,.v4}.<ty> [addr], src`; the vector length is `src.len()`.
    St {
        /// Shared or global.
        space: StateSpace,
        /// Element type.
        ty: DataType,
        /// The address.
        addr: Address,
        /// One register per element.
        src: Vec<Reg>,
    },
    /// `ldmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16 d, [addr]`.
    Ldmatrix {
        /// `.x1`, `.x2`, `.x4`.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
        /// One `.b32` register per matrix.
        d: Vec<Reg>,
        /// This thread's row address (used by threads `0..8·count`).
        addr: Address,
    },
    /// `stmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16 [addr], src`.
    Stmatrix {
        /// `.x1`, `.x2`, `.x4`.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
        /// This thread's row address.
        addr: Address,
        /// One `.b32` register per matrix.
        src: Vec<Reg>,
    },
    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`.
    TmemAlloc {
        /// Where the allocated TMEM address is written.
        dst: Address,
        /// Column count: a power of two in 32..=512.
        ncols: Operand,
    },
    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
    TmemDealloc {
        /// The address `alloc` returned.
        taddr: Operand,
        /// The column count allocated.
        ncols: Operand,
    },
    /// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
    TmemRelinquish,
    /// `tcgen05.ld.sync.aligned.<shape>.x<num>[.pack::16b].b32 d, [taddr]`.
    TmemLd {
        /// The shape.
        shape: TmemShape,
        /// The `.xN`.
        num: u32,
        /// `.pack::16b`: each register takes the low 16 bits of two adjacent columns.
        pack: bool,
        /// `shape.registers(num)` `.b32` registers.
        d: Vec<Reg>,
        /// The warp-uniform TMEM address.
        taddr: Address,
    },
    /// `tcgen05.st.sync.aligned.<shape>.x<num>[.unpack::16b].b32 [taddr], src`.
    TmemSt {
        /// The shape.
        shape: TmemShape,
        /// The `.xN`.
        num: u32,
        /// `.unpack::16b`: each register's halves go to the low 16 bits of two adjacent
        /// columns.
        unpack: bool,
        /// The warp-uniform TMEM address.
        taddr: Address,
        /// `shape.registers(num)` `.b32` registers.
        src: Vec<Reg>,
    },
    /// `tcgen05.cp.cta_group::1.<shape>[.<multicast>] [taddr], desc`: one thread starts an
    /// asynchronous copy of the shared-memory matrix the 64-bit descriptor `desc` names into
    /// tensor memory (completion: [`Op::TmemCommit`] and an mbarrier wait).
    TmemCp {
        /// The shape and multicast.
        shape: CpShape,
        /// The TMEM address (`lane << 16 | column`).
        taddr: Address,
        /// The shared-memory descriptor (`.b64`).
        desc: Reg,
    },
    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar]`: the
    /// mbarrier at `mbar` receives one arrival when every `tcgen05.cp` this thread started
    /// before it has completed.
    TmemCommit {
        /// The mbarrier's shared address.
        mbar: Address,
    },
    /// `mbarrier.init.shared::cta.b64 [addr], count`.
    MbarrierInit {
        /// The mbarrier's shared address (8-byte aligned).
        addr: Address,
        /// Arrivals that complete a phase.
        count: Operand,
    },
    /// `mbarrier.try_wait.parity.shared::cta.b64 d, [addr], parity`: `d` is true once the
    /// phase of parity `parity` has completed.
    MbarrierTryWait {
        /// Destination (`.pred`).
        d: Reg,
        /// The mbarrier's shared address.
        addr: Address,
        /// The parity waited for (0 or 1).
        parity: Operand,
    },
    /// `fence.proxy.async.shared::cta`: makes this thread's generic-proxy shared-memory writes
    /// visible to the async proxy (`tcgen05.cp`, TMA, wgmma).
    FenceProxyAsync,
    /// `tcgen05.wait::ld.sync.aligned`.
    TmemWaitLd,
    /// `tcgen05.wait::st.sync.aligned`.
    TmemWaitSt,
    /// `tcgen05.fence::before_thread_sync`.
    TmemFenceBefore,
    /// `tcgen05.fence::after_thread_sync`.
    TmemFenceAfter,
    /// `bar.sync id`.
    BarSync {
        /// The barrier, 0..16.
        id: u32,
    },
    /// `ret`.
    Ret,
}

impl Op {
    /// Every register the op names (destinations and sources, in operand order).
    ///
    /// ```
    /// use codegen::ptx::{Op, Reg, RegType};
    /// let (d, a) = (Reg::new(RegType::B64, 0), Reg::new(RegType::B32, 5));
    /// assert_eq!(Op::Cvt { d, a }.registers(), vec![d, a]);
    /// ```
    pub fn registers(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        let mut op = |o: &Operand| {
            if let Operand::Reg(r) = o {
                Some(*r)
            } else {
                None
            }
        };
        match self {
            Op::Mov { d, src } => {
                out.push(*d);
                if let MovSource::Operand(o) = src {
                    out.extend(op(o));
                }
            }
            Op::Arith { d, a, b, .. } | Op::Logic { d, a, b, .. } | Op::MulWide { d, a, b } => {
                out.push(*d);
                out.extend(op(a));
                out.extend(op(b));
            }
            Op::Setp { d, a, b, .. } => {
                out.push(*d);
                out.extend(op(a));
                out.extend(op(b));
            }
            Op::Not { d, a, .. } => {
                out.push(*d);
                out.extend(op(a));
            }
            Op::MadLo { d, a, b, c, .. }
            | Op::MadWide { d, a, b, c }
            | Op::Lop3 { d, a, b, c, .. } => {
                out.push(*d);
                out.extend([a, b, c].into_iter().filter_map(&mut op));
            }
            Op::Bfe { d, a, pos, len, .. } => {
                out.push(*d);
                out.extend([a, pos, len].into_iter().filter_map(&mut op));
            }
            Op::Bfi { d, a, b, pos, len } => {
                out.push(*d);
                out.extend([a, b, pos, len].into_iter().filter_map(&mut op));
            }
            Op::Prmt { d, a, b, sel } => {
                out.push(*d);
                out.extend([a, b, sel].into_iter().filter_map(&mut op));
            }
            Op::Cvt { d, a } | Op::CvtaGlobal { d, a } => out.extend([*d, *a]),
            Op::Pack { d, halves } => {
                out.push(*d);
                out.extend(halves);
            }
            Op::Unpack { halves, a } => {
                out.extend(halves.iter().flatten());
                out.push(*a);
            }
            Op::LdParam { d, .. } => out.push(*d),
            Op::Ld { d, addr, .. }
            | Op::Ldmatrix { d, addr, .. }
            | Op::TmemLd { d, taddr: addr, .. } => {
                out.extend(d.iter().copied());
                out.push(addr.base);
            }
            Op::St { addr, src, .. }
            | Op::Stmatrix { addr, src, .. }
            | Op::TmemSt {
                taddr: addr, src, ..
            } => {
                out.push(addr.base);
                out.extend(src.iter().copied());
            }
            Op::TmemAlloc { dst, ncols } => {
                out.push(dst.base);
                out.extend(op(ncols));
            }
            Op::TmemDealloc { taddr, ncols } => {
                out.extend([taddr, ncols].into_iter().filter_map(&mut op));
            }
            Op::TmemCp { taddr, desc, .. } => out.extend([taddr.base, *desc]),
            Op::TmemCommit { mbar: addr } => out.push(addr.base),
            Op::MbarrierInit { addr, count } => {
                out.push(addr.base);
                out.extend(op(count));
            }
            Op::MbarrierTryWait { d, addr, parity } => {
                out.extend([*d, addr.base]);
                out.extend(op(parity));
            }
            Op::FenceProxyAsync
            | Op::Bra { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::BarSync { .. }
            | Op::Ret => {}
        }
        out
    }

    /// The registers the op writes (a prefix of [`Op::registers`]).
    ///
    /// ```
    /// use codegen::ptx::{Op, Reg, RegType};
    /// let (d, a) = (Reg::new(RegType::B64, 0), Reg::new(RegType::B32, 5));
    /// assert_eq!(Op::Cvt { d, a }.destinations(), vec![d]);
    /// assert!(Op::Ret.destinations().is_empty());
    /// ```
    pub fn destinations(&self) -> Vec<Reg> {
        match self {
            Op::Mov { d, .. }
            | Op::Arith { d, .. }
            | Op::Logic { d, .. }
            | Op::MulWide { d, .. }
            | Op::MadWide { d, .. }
            | Op::Setp { d, .. }
            | Op::Not { d, .. }
            | Op::MadLo { d, .. }
            | Op::Lop3 { d, .. }
            | Op::Bfe { d, .. }
            | Op::Bfi { d, .. }
            | Op::Prmt { d, .. }
            | Op::Cvt { d, .. }
            | Op::CvtaGlobal { d, .. }
            | Op::LdParam { d, .. }
            | Op::Pack { d, .. }
            | Op::MbarrierTryWait { d, .. } => vec![*d],
            Op::Ld { d, .. } | Op::Ldmatrix { d, .. } | Op::TmemLd { d, .. } => d.clone(),
            Op::Unpack { halves, .. } => halves.iter().flatten().copied().collect(),
            Op::St { .. }
            | Op::Stmatrix { .. }
            | Op::TmemSt { .. }
            | Op::TmemAlloc { .. }
            | Op::TmemDealloc { .. }
            | Op::TmemCp { .. }
            | Op::TmemCommit { .. }
            | Op::MbarrierInit { .. }
            | Op::FenceProxyAsync
            | Op::Bra { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::BarSync { .. }
            | Op::Ret => Vec::new(),
        }
    }

    /// What kind of instruction the op is — the one classification every counter, the
    /// builder's default roles and the interpreter's warp scheduling read. Exhaustive: a new op
    /// does not compile until it has a class.
    ///
    /// ```
    /// use codegen::ptx::{Op, OpClass, Reg, RegType};
    /// let r = Reg::new(RegType::B32, 0);
    /// assert_eq!(Op::Bfe { d: r, a: r.into(), pos: 0.into(), len: 4.into(), signed: false }.class(), OpClass::Alu);
    /// assert_eq!(Op::BarSync { id: 0 }.class(), OpClass::Collective);
    /// assert!(Op::TmemWaitLd.class().is_collective() && !Op::TmemWaitLd.class().is_memory());
    /// ```
    pub fn class(&self) -> OpClass {
        match self {
            Op::Mov { .. }
            | Op::Arith { .. }
            | Op::Logic { .. }
            | Op::Not { .. }
            | Op::MadLo { .. }
            | Op::MulWide { .. }
            | Op::MadWide { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Lop3 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Cvt { .. }
            | Op::Setp { .. }
            | Op::CvtaGlobal { .. } => OpClass::Alu,
            Op::Ld { .. } | Op::St { .. } | Op::TmemCp { .. } => OpClass::Memory,
            Op::Ldmatrix { .. } | Op::Stmatrix { .. } | Op::TmemLd { .. } | Op::TmemSt { .. } => {
                OpClass::WarpMemory
            }
            Op::TmemAlloc { .. }
            | Op::TmemDealloc { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::BarSync { .. } => OpClass::Collective,
            Op::Bra { .. }
            | Op::LdParam { .. }
            | Op::TmemCommit { .. }
            | Op::MbarrierInit { .. }
            | Op::MbarrierTryWait { .. }
            | Op::FenceProxyAsync
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::Ret => OpClass::Control,
        }
    }

    /// The role an instruction has unless its builder says otherwise: ALU → `Address`,
    /// memory → `Data`, everything else (including `setp`) → `Control`.
    ///
    /// ```
    /// use codegen::ptx::{Op, Role};
    /// assert_eq!(Op::Ret.default_role(), Role::Control);
    /// ```
    pub fn default_role(&self) -> Role {
        match self.class() {
            OpClass::Memory | OpClass::WarpMemory => Role::Data,
            OpClass::Alu if !matches!(self, Op::Setp { .. }) => Role::Address,
            OpClass::Alu | OpClass::Collective | OpClass::Control => Role::Control,
        }
    }

    /// The oldest target that has the op: sm_100a for every `tcgen05` instruction, sm_90a for
    /// the rest. Exhaustive, like [`Op::class`].
    ///
    /// ```
    /// use codegen::ptx::{Op, Target};
    /// assert_eq!(Op::TmemRelinquish.min_target(), Target::Sm100a);
    /// assert_eq!(Op::Ret.min_target(), Target::Sm90a);
    /// ```
    pub fn min_target(&self) -> Target {
        match self {
            Op::TmemAlloc { .. }
            | Op::TmemDealloc { .. }
            | Op::TmemRelinquish
            | Op::TmemLd { .. }
            | Op::TmemSt { .. }
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::TmemCp { .. }
            | Op::TmemCommit { .. } => Target::Sm100a,
            Op::Mov { .. }
            | Op::Arith { .. }
            | Op::Logic { .. }
            | Op::Not { .. }
            | Op::MadLo { .. }
            | Op::MulWide { .. }
            | Op::MadWide { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Lop3 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Cvt { .. }
            | Op::Setp { .. }
            | Op::Bra { .. }
            | Op::LdParam { .. }
            | Op::CvtaGlobal { .. }
            | Op::Ld { .. }
            | Op::St { .. }
            | Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::BarSync { .. }
            | Op::MbarrierInit { .. }
            | Op::MbarrierTryWait { .. }
            | Op::FenceProxyAsync
            | Op::Ret => Target::Sm90a,
        }
    }
}

/// What kind of instruction an [`Op`] is ([`Op::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Register arithmetic, moves, conversions and comparisons (`mov`, `add`, `lop3`, `bfe`,
    /// `cvt`, `cvta`, `setp`…): what "ALU instructions per access" counts.
    Alu,
    /// A memory access each thread makes on its own: `ld`, `st`, `tcgen05.cp` (issued by one
    /// thread).
    Memory,
    /// A memory access the warp makes together (`.sync.aligned`): `ldmatrix`, `stmatrix`,
    /// `tcgen05.ld/st`.
    WarpMemory,
    /// A warp- or CTA-wide instruction that moves no data of its own: `tcgen05.alloc`,
    /// `dealloc`, `relinquish_alloc_permit`, `wait::ld/st`, `bar.sync`.
    Collective,
    /// Everything else: `bra`, `ret`, `ld.param`, `tcgen05.fence`, `tcgen05.commit`, the
    /// mbarrier operations, `fence.proxy.async`.
    Control,
}

impl OpClass {
    /// Whether the op reads or writes shared, global or tensor memory.
    ///
    /// ```
    /// use codegen::ptx::OpClass;
    /// assert!(OpClass::WarpMemory.is_memory() && !OpClass::Collective.is_memory());
    /// ```
    pub fn is_memory(self) -> bool {
        matches!(self, OpClass::Memory | OpClass::WarpMemory)
    }

    /// Whether the warp executes the op together (the interpreter runs it once per warp).
    ///
    /// ```
    /// use codegen::ptx::OpClass;
    /// assert!(OpClass::WarpMemory.is_collective() && !OpClass::Memory.is_collective());
    /// ```
    pub fn is_collective(self) -> bool {
        matches!(self, OpClass::WarpMemory | OpClass::Collective)
    }
}

/// An op with its guard and role: one line of the body.
///
/// ```
/// use codegen::ptx::{Guard, Inst, Op, Reg, RegType, Role};
/// let p = Reg::new(RegType::Pred, 1);
/// let i = Inst { guard: Some(Guard::unless(p)), op: Op::Bra { target: "DONE".into() }, role: Role::Control };
/// assert_eq!(i.to_string(), "@!%p1 bra DONE;");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Inst {
    /// Runs the op only where the predicate allows.
    pub guard: Option<Guard>,
    /// What it does.
    pub op: Op,
    /// What it is for.
    pub role: Role,
}

impl Inst {
    /// An unguarded instruction with the op's default role.
    ///
    /// ```
    /// use codegen::ptx::{Inst, Op, Role};
    /// assert_eq!(Inst::new(Op::Ret).role, Role::Control);
    /// ```
    pub fn new(op: Op) -> Inst {
        let role = op.default_role();
        Inst {
            guard: None,
            op,
            role,
        }
    }

    /// [`Op::validate`] plus a `.pred` check of the guard.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Inst, Op, Reg, RegType};
    /// let mut i = Inst::new(Op::Ret);
    /// i.guard = Some(Guard::when(Reg::new(RegType::B32, 0)));
    /// assert!(i.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), PtxError> {
        if let Some(g) = self.guard {
            if g.pred.ty() != RegType::Pred {
                return Err(PtxError::OperandType {
                    inst: self.op.opcode(),
                    operand: "guard",
                    expected: "a .pred register".into(),
                    found: g.pred.to_string(),
                });
            }
        }
        self.op.validate()
    }

    /// Registers of the op plus the guard's predicate.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Inst, Op, Reg, RegType};
    /// let p = Reg::new(RegType::Pred, 0);
    /// let mut i = Inst::new(Op::Ret);
    /// i.guard = Some(Guard::when(p));
    /// assert_eq!(i.registers(), vec![p]);
    /// ```
    pub fn registers(&self) -> Vec<Reg> {
        let mut regs = self.op.registers();
        if let Some(g) = self.guard {
            regs.insert(0, g.pred);
        }
        regs
    }
}

/// One statement of a kernel body.
///
/// ```
/// use codegen::ptx::{Inst, Op, Stmt};
/// assert_eq!(Stmt::Label("DONE".into()).to_string(), "DONE:");
/// assert_eq!(Stmt::Comment("lane = tid & 31".into()).to_string(), "// lane = tid & 31");
/// assert_eq!(Stmt::Inst(Inst::new(Op::Ret)).to_string(), "ret;");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// An instruction.
    Inst(Inst),
    /// A branch target.
    Label(String),
    /// A comment line (no line breaks).
    Comment(String),
}
