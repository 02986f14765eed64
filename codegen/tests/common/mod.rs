//! Shared test helpers: proptest strategies for valid kernels of the subset.
#![allow(dead_code)]

use codegen::ptx::{
    Address, ArithOp, CmpOp, DataType, Guard, Inst, IntType, Kernel, LogicOp, MatrixCount,
    MovSource, Op, Operand, Param, ParamType, PtxVersion, Reg, RegType, Role, SharedVar,
    SpecialReg, StateSpace, Stmt, Target, TmemShape, Width,
};
use proptest::prelude::*;

pub const LABELS: [&str; 3] = ["L0", "L_mid", "DONE"];

pub fn reg(ty: RegType) -> impl Strategy<Value = Reg> {
    (0u32..6).prop_map(move |i| Reg::new(ty, i))
}

/// `n` distinct registers of class `ty` when `distinct`, else any `n`.
pub fn regs(ty: RegType, n: usize, distinct: bool) -> BoxedStrategy<Vec<Reg>> {
    if distinct {
        (0u32..6)
            .prop_map(move |s| (s..s + n as u32).map(|i| Reg::new(ty, i)).collect())
            .boxed()
    } else {
        prop::collection::vec(reg(ty), n).boxed()
    }
}

pub fn imm(bits: u32) -> BoxedStrategy<i64> {
    match bits {
        1 => (0i64..=1).boxed(),
        16 => prop_oneof![-32768i64..=65535, Just(-32768), Just(65535)].boxed(),
        32 => prop_oneof![
            -300i64..300,
            i64::from(i32::MIN)..=i64::from(u32::MAX),
            Just(i64::from(i32::MIN)),
            Just(i64::from(u32::MAX))
        ]
        .boxed(),
        _ => prop_oneof![-300i64..300, any::<i64>(), Just(i64::MIN), Just(i64::MAX)].boxed(),
    }
}

pub fn src(ty: RegType) -> BoxedStrategy<Operand> {
    prop_oneof![
        reg(ty).prop_map(Operand::Reg),
        imm(ty.bits()).prop_map(Operand::Imm)
    ]
    .boxed()
}

fn int_type() -> impl Strategy<Value = IntType> {
    prop::sample::select(IntType::ALL.to_vec())
}

fn width() -> impl Strategy<Value = Width> {
    prop::sample::select(vec![Width::B32, Width::B64])
}

fn reg_type() -> impl Strategy<Value = RegType> {
    prop::sample::select(RegType::ALL.to_vec())
}

fn offset() -> impl Strategy<Value = i32> {
    prop_oneof![Just(0), -4096i32..4096, 0i32..65536]
}

fn addr(ty: RegType) -> impl Strategy<Value = Address> {
    (reg(ty), offset()).prop_map(|(b, o)| Address::new(b, o))
}

fn b32() -> impl Strategy<Value = Reg> {
    reg(RegType::B32)
}

fn field() -> BoxedStrategy<Operand> {
    prop_oneof![
        b32().prop_map(Operand::Reg),
        (0i64..=255).prop_map(Operand::Imm)
    ]
    .boxed()
}

fn alu_op() -> BoxedStrategy<Op> {
    let b32s = || src(RegType::B32);
    prop_oneof![
        reg_type().prop_flat_map(|ty| (reg(ty), src(ty)).prop_map(|(d, o)| Op::Mov {
            d,
            src: MovSource::Operand(o)
        })),
        (b32(), prop::sample::select(SpecialReg::ALL.to_vec())).prop_map(|(d, s)| Op::Mov {
            d,
            src: MovSource::Special(s)
        }),
        (b32(), prop::sample::select(vec!["smem", "slot"])).prop_map(|(d, n)| Op::Mov {
            d,
            src: MovSource::Shared(n.into())
        }),
        (prop::sample::select(ArithOp::ALL.to_vec()), int_type()).prop_flat_map(|(op, ty)| {
            let b_ty = if op == ArithOp::Shr {
                RegType::B32
            } else {
                ty.reg_type()
            };
            (reg(ty.reg_type()), src(ty.reg_type()), src(b_ty))
                .prop_map(move |(d, a, b)| Op::Arith { op, ty, d, a, b })
        }),
        (prop::sample::select(LogicOp::ALL.to_vec()), width()).prop_flat_map(|(op, w)| {
            let b_ty = if op == LogicOp::Shl {
                RegType::B32
            } else {
                w.reg_type()
            };
            (reg(w.reg_type()), src(w.reg_type()), src(b_ty)).prop_map(move |(d, a, b)| Op::Logic {
                op,
                width: w,
                d,
                a,
                b,
            })
        }),
        width().prop_flat_map(|w| (reg(w.reg_type()), src(w.reg_type()))
            .prop_map(move |(d, a)| Op::Not { width: w, d, a })),
        int_type().prop_flat_map(|ty| {
            let t = ty.reg_type();
            (reg(t), src(t), src(t), src(t)).prop_map(move |(d, a, b, c)| Op::MadLo {
                ty,
                d,
                a,
                b,
                c,
            })
        }),
        (reg(RegType::B64), b32s(), b32s()).prop_map(|(d, a, b)| Op::MulWide { d, a, b }),
        (reg(RegType::B64), b32s(), b32s(), src(RegType::B64))
            .prop_map(|(d, a, b, c)| Op::MadWide { d, a, b, c }),
        (b32(), b32s(), b32s(), b32s(), any::<u8>()).prop_map(|(d, a, b, c, lut)| Op::Lop3 {
            d,
            a,
            b,
            c,
            lut
        }),
        (b32(), b32s(), field(), field(), any::<bool>()).prop_map(|(d, a, pos, len, signed)| {
            Op::Bfe {
                d,
                a,
                pos,
                len,
                signed,
            }
        }),
        (b32(), b32s(), b32s(), field(), field()).prop_map(|(d, a, b, pos, len)| Op::Bfi {
            d,
            a,
            b,
            pos,
            len
        }),
        (b32(), b32s(), b32s(), b32s()).prop_map(|(d, a, b, sel)| Op::Prmt { d, a, b, sel }),
        (reg(RegType::B64), b32()).prop_map(|(d, a)| Op::Cvt { d, a }),
        (b32(), reg(RegType::B64)).prop_map(|(d, a)| Op::Cvt { d, a }),
        (reg(RegType::B16), b32()).prop_map(|(d, a)| Op::Cvt { d, a }),
        (b32(), reg(RegType::B16), reg(RegType::B16)).prop_map(|(d, lo, hi)| Op::Pack {
            d,
            halves: [lo, hi]
        }),
        (
            proptest::option::of(reg(RegType::B16)),
            reg(RegType::B16),
            b32()
        )
            .prop_map(|(lo, hi, a)| Op::Unpack {
                halves: [lo, Some(hi)],
                a
            }),
        (b32(), reg(RegType::B16)).prop_map(|(d, a)| Op::Cvt { d, a }),
        (prop::sample::select(CmpOp::ALL.to_vec()), int_type()).prop_flat_map(|(cmp, ty)| {
            (reg(RegType::Pred), src(ty.reg_type()), src(ty.reg_type()))
                .prop_map(move |(d, a, b)| Op::Setp { cmp, ty, d, a, b })
        }),
        (reg(RegType::B64), reg(RegType::B64)).prop_map(|(d, a)| Op::CvtaGlobal { d, a }),
        reg(RegType::B64).prop_map(|d| Op::LdParam {
            d,
            param: "out".into()
        }),
        b32().prop_map(|d| Op::LdParam {
            d,
            param: "n".into()
        }),
    ]
    .boxed()
}

fn mem_op() -> BoxedStrategy<Op> {
    let combos: Vec<(DataType, usize, RegType)> = DataType::ALL
        .into_iter()
        .flat_map(|ty| {
            [1usize, 2, 4].into_iter().flat_map(move |n| {
                RegType::ALL
                    .into_iter()
                    .filter(move |r| ty.fits(*r) && ty.bytes() as usize * n <= 16)
                    .map(move |r| (ty, n, r))
            })
        })
        .collect();
    let space = prop::sample::select(vec![StateSpace::Shared, StateSpace::Global]);
    (prop::sample::select(combos), space, any::<bool>())
        .prop_flat_map(|((ty, n, class), space, load)| {
            (regs(class, n, load), addr(space.address_reg())).prop_map(move |(regs, addr)| {
                if load {
                    Op::Ld {
                        space,
                        ty,
                        d: regs,
                        addr,
                    }
                } else {
                    Op::St {
                        space,
                        ty,
                        addr,
                        src: regs,
                    }
                }
            })
        })
        .boxed()
}

fn matrix_op() -> BoxedStrategy<Op> {
    (
        prop::sample::select(vec![MatrixCount::X1, MatrixCount::X2, MatrixCount::X4]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(count, trans, load)| {
            (
                regs(RegType::B32, count.count() as usize, load),
                addr(RegType::B32),
            )
                .prop_map(move |(regs, addr)| {
                    if load {
                        Op::Ldmatrix {
                            count,
                            trans,
                            d: regs,
                            addr,
                        }
                    } else {
                        Op::Stmatrix {
                            count,
                            trans,
                            addr,
                            src: regs,
                        }
                    }
                })
        })
        .boxed()
}

fn ncols() -> BoxedStrategy<Operand> {
    prop_oneof![
        prop::sample::select(vec![32i64, 64, 128, 256, 512]).prop_map(Operand::Imm),
        b32().prop_map(Operand::Reg)
    ]
    .boxed()
}

fn tcgen05_op() -> BoxedStrategy<Op> {
    let ld_st = (
        prop::sample::select(
            TmemShape::ALL
                .into_iter()
                .chain([TmemShape::S16x32bx2(16), TmemShape::S16x32bx2(1 << 16 | 8)])
                .collect::<Vec<_>>(),
        ),
        0u32..4,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(shape, log, load, halves)| {
            let num = 1u32 << log;
            let n = shape.registers(num).unwrap_or(1) as usize;
            (regs(RegType::B32, n, load), addr(RegType::B32)).prop_map(move |(regs, taddr)| {
                if load {
                    Op::TmemLd {
                        shape,
                        num,
                        pack: halves,
                        d: regs,
                        taddr,
                    }
                } else {
                    Op::TmemSt {
                        shape,
                        num,
                        unpack: halves,
                        taddr,
                        src: regs,
                    }
                }
            })
        });
    prop_oneof![
        ld_st,
        (addr(RegType::B32), ncols()).prop_map(|(dst, ncols)| Op::TmemAlloc { dst, ncols }),
        (src(RegType::B32), ncols()).prop_map(|(taddr, ncols)| Op::TmemDealloc { taddr, ncols }),
        Just(Op::TmemRelinquish),
        Just(Op::TmemWaitLd),
        Just(Op::TmemWaitSt),
        Just(Op::TmemFenceBefore),
        Just(Op::TmemFenceAfter),
    ]
    .boxed()
}

pub fn op(target: Target) -> BoxedStrategy<Op> {
    let common = prop_oneof![
        6 => alu_op(),
        2 => mem_op(),
        1 => matrix_op(),
        1 => prop::sample::select(LABELS.to_vec()).prop_map(|l| Op::Bra { target: l.into() }),
        1 => (0u32..16).prop_map(|id| Op::BarSync { id }),
        1 => Just(Op::Ret),
    ];
    match target {
        Target::Sm90a => common.boxed(),
        Target::Sm100a => prop_oneof![4 => common, 1 => tcgen05_op()].boxed(),
    }
}

pub fn inst(target: Target) -> impl Strategy<Value = Inst> {
    let guard = prop::option::of(
        (reg(RegType::Pred), any::<bool>()).prop_map(|(pred, negated)| Guard { pred, negated }),
    );
    let role = prop::option::of(prop::sample::select(vec![
        Role::Address,
        Role::Data,
        Role::Control,
    ]));
    (guard, op(target), role).prop_map(|(guard, op, role)| {
        let role = role.unwrap_or_else(|| op.default_role());
        Inst { guard, op, role }
    })
}

/// A valid kernel with random instructions, the three labels placed somewhere, and comments.
pub fn kernel() -> impl Strategy<Value = Kernel> {
    let bounds = prop_oneof![
        Just((None, None)),
        (1u32..=1024).prop_map(|n| (Some(n), None)),
        (1u32..=1024).prop_map(|n| (None, Some(n))),
    ];
    (
        prop::sample::select(vec![Target::Sm90a, Target::Sm100a]),
        bounds,
    )
        .prop_flat_map(|(target, (reqntid, maxntid))| {
            let stmts = prop::collection::vec(
                prop_oneof![
                    8 => inst(target).prop_map(Stmt::Inst),
                    1 => "[ -~]{0,24}".prop_map(Stmt::Comment),
                ],
                0..40,
            );
            (stmts, prop::collection::vec(0usize..40, LABELS.len())).prop_map(
                move |(mut body, places)| {
                    for (label, at) in LABELS.iter().zip(places) {
                        let at = at.min(body.len());
                        body.insert(at, Stmt::Label((*label).into()));
                    }
                    Kernel {
                        version: PtxVersion::DEFAULT,
                        target,
                        name: "random_kernel".into(),
                        params: vec![
                            Param {
                                name: "out".into(),
                                ty: ParamType::U64,
                            },
                            Param {
                                name: "n".into(),
                                ty: ParamType::U32,
                            },
                        ],
                        shared: vec![
                            SharedVar {
                                name: "slot".into(),
                                align: 16,
                                size: Some(16),
                            },
                            SharedVar {
                                name: "smem".into(),
                                align: 1024,
                                size: None,
                            },
                        ],
                        reqntid,
                        maxntid,
                        body,
                    }
                },
            )
        })
}
