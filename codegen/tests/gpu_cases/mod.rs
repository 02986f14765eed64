//! The kernels of the GPU tier, in the order it launches them — shared by `gpu.rs` (run on a
//! device, and the manifest the recorder reads) and `smem_counters.rs` (the recorded
//! hardware counters replayed against the cost model): the named pairs' round trips and
//! address dumps, deterministic random layouts, and the single-access probes.
#![allow(dead_code)]

use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::interp::{Config, ParamValue};
use codegen::ptx::{DataType, Kernel, MatrixCount};
use codegen::smem::kernels::{address_dump, round_trip, Probe, ProbeAccess, TestKernel};
use linear_layout::BufferMap;
use test_support::smem::{random_gf2_layout, random_layout, Rng, SharedSpec};

use crate::smem_cases::{cases, Named};

/// The run-time indices to run (every buffer, at most 8 of them), or `None` once for
/// constant indices.
pub fn indices(k: &TestKernel) -> Vec<Option<u32>> {
    match k.index {
        IndexSource::Param => {
            let n = k.map.buffer().num_buffers();
            let mut v: Vec<u64> = (0..n.min(8)).collect();
            if n > 8 {
                v.push(n - 1);
            }
            v.into_iter().map(|i| Some(i as u32)).collect()
        }
        IndexSource::Const(_) => vec![None],
    }
}

/// The two round-trip layouts of a named case: (store, load).
pub fn round_trip_of(n: &Named) -> TestKernel {
    let (store, load) = match n.op {
        MemoryOp::Store => (&n.regs, &n.partner),
        MemoryOp::Load => (&n.partner, &n.regs),
    };
    round_trip(n.name, &n.map, store, load, &n.index, n.lowering).unwrap()
}

/// The named pairs' round trips and address dumps.
pub fn named_kernels() -> Vec<(String, TestKernel)> {
    let mut out = Vec::new();
    for n in cases() {
        out.push((format!("{} round trip", n.name), round_trip_of(&n)));
        let dump = address_dump(n.name, &n.map, &n.regs, n.op, &n.index, n.lowering).unwrap();
        out.push((format!("{} address dump", n.name), dump));
    }
    out
}

pub const SPECS: [SharedSpec; 8] = [
    SharedSpec::Nvmma {
        swizzle: 128,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 64,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 32,
        transposed: true,
    },
    SharedSpec::Nvmma {
        swizzle: 0,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 128,
        transposed: true,
    },
    SharedSpec::Swizzled {
        vec: 8,
        per_phase: 1,
        max_phase: 8,
        row_major: true,
    },
    SharedSpec::Swizzled {
        vec: 4,
        per_phase: 2,
        max_phase: 4,
        row_major: false,
    },
    SharedSpec::Swizzled {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        row_major: true,
    },
];

/// Deterministic random cases: GF(2) register layouts over random shared layouts, round
/// trips through a 3-stage ring (constant and run-time stage), and address dumps of TLX's
/// placement through its reindexing and as an explicit map (stores of the bijection, loads of
/// an arbitrary layout).
pub fn random_kernels() -> Vec<(String, TestKernel)> {
    let mut rng = Rng(0x5EED_0C0D_E6E0_0005);
    let mut out = Vec::new();
    for seed in 0..RANDOM_CASES {
        let spec = SPECS[rng.below(SPECS.len())];
        let bits = [8u32, 16, 16, 32][rng.below(4)];
        let shape = [[64u64, 64], [32, 64], [64, 32], [128, 64], [16, 128]][rng.below(5)];
        let warps = 1u32 << rng.below(3);
        let store = random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6));
        let load = random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6));
        let arbitrary = random_layout(shape, warps, rng.below(5) as u32, rng.next_u64());
        let Some(probe) = spec.map(bits, &shape, BufferMap::new(0, &[]).unwrap()) else {
            continue;
        };
        let span = probe.element_span();
        let name = format!("random{seed}");
        let what = format!("{name} ({spec:?}, {bits}-bit {shape:?}, {warps} warps)");
        let ring = probe.with_buffer(BufferMap::new(0, &[(3, span)]).unwrap());
        for index in [IndexSource::Const(vec![0, 2]), IndexSource::Param] {
            let k = round_trip(
                &name,
                &ring,
                &store,
                &load,
                &index,
                BufferLowering::Explicit,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            out.push((format!("{what} round trip {index:?}"), k));
        }
        let tlx = TlxReindex::new(2, 1, 2, span);
        if (2 * 3 + 1 + 2) * span > 200 * 1024 {
            continue;
        }
        let placed = probe.with_buffer(tlx.buffer_map(4).unwrap());
        for lowering in [BufferLowering::Explicit, BufferLowering::TlxReindex(tlx)] {
            for (regs, op) in [(&store, MemoryOp::Store), (&arbitrary, MemoryOp::Load)] {
                let k = address_dump(&name, &placed, regs, op, &IndexSource::Param, lowering)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                out.push((format!("{what} {op:?} dump {lowering:?}"), k));
            }
        }
    }
    out
}

const RANDOM_CASES: u64 = 48;

/// One kernel of the tier with what it is for: a checked test kernel or a probe.
pub enum Case {
    /// A round trip or address dump, checked against `expected_out`.
    Test(Box<TestKernel>),
    /// A single-access probe, checked against the interpreter.
    Probe(Probe, Kernel),
}

impl Case {
    pub fn kernel(&self) -> &Kernel {
        match self {
            Case::Test(k) => &k.kernel,
            Case::Probe(_, k) => k,
        }
    }

    pub fn config(&self) -> Config {
        match self {
            Case::Test(k) => k.config(),
            Case::Probe(p, _) => p.config(),
        }
    }

    /// The run-time indices launched, `None` once for a constant index.
    pub fn indices(&self) -> Vec<Option<u32>> {
        match self {
            Case::Test(k) => indices(k),
            Case::Probe(..) => vec![None],
        }
    }

    pub fn params(&self, index: Option<u32>) -> Vec<ParamValue> {
        match self {
            Case::Test(k) => k.params(index),
            Case::Probe(p, _) => p.params(),
        }
    }
}

/// The tests of the tier in launch order, each with its kernels: `named_pairs`,
/// `random_layouts`, `probes` (the names the recorder filters by).
pub fn tiers() -> Vec<(&'static str, Vec<(String, Case)>)> {
    let test = |v: Vec<(String, TestKernel)>| {
        v.into_iter()
            .map(|(w, k)| (w, Case::Test(Box::new(k))))
            .collect()
    };
    vec![
        ("named_pairs", test(named_kernels())),
        ("random_layouts", test(random_kernels())),
        (
            "probes",
            probes()
                .into_iter()
                .map(|(w, p)| {
                    let name = format!("probe{}", w.0);
                    let k = p
                        .kernel(&name)
                        .unwrap_or_else(|e| panic!("probe {}: {e}", w.1));
                    (w.1, Case::Probe(p, k))
                })
                .collect(),
        ),
    ]
}

/// Lane-bit offsets: `stride` bytes apart, lane bits listed in `zero` contributing nothing.
fn strided(stride: u32, zero: &[usize]) -> [u32; 5] {
    let mut c = [0; 5];
    for (i, v) in c.iter_mut().enumerate() {
        if !zero.contains(&i) {
            *v = stride << i;
        }
    }
    c
}

/// `st.shared` (`store`) or `ld.shared` of `vec` elements of `ty`.
fn ld_st(store: bool, ty: DataType, vec: u32) -> ProbeAccess {
    if store {
        ProbeAccess::Store { ty, vec }
    } else {
        ProbeAccess::Load { ty, vec }
    }
}

/// `st` or `ld`.
fn op_name(store: bool) -> &'static str {
    if store {
        "st"
    } else {
        "ld"
    }
}

/// A probe of the whole warp at offset 0.
fn warp_probe(access: ProbeAccess, lane_bytes: [u32; 5]) -> Probe {
    Probe {
        access,
        lane_bytes,
        base: 0,
        lanes: 32,
        scale: None,
    }
}

/// The probes: one warp-level access each, covering every width and matrix instruction the
/// emitter uses (and `.trans`, `.x1`/`.x2`), with ideal, conflicting, broadcast, partly
/// shared and partial-warp address patterns. Each comes with a number (its kernel's name)
/// and a description. New probes go last, so that the recorded ones keep their names.
pub fn probes() -> Vec<((usize, String), Probe)> {
    let mut out = Vec::new();
    let mut add = |what: String, p: Probe| {
        let n = out.len();
        out.push(((n, what), p));
    };
    let widths = [
        (DataType::B8, 1),
        (DataType::B16, 1),
        (DataType::B32, 1),
        (DataType::B32, 2),
        (DataType::B32, 4),
        (DataType::B16, 2),
        (DataType::B16, 4),
    ];
    for store in [false, true] {
        for &(ty, vec) in &widths {
            let access = ld_st(store, ty, vec);
            let b = access.lane_bytes();
            let patterns: Vec<(&str, [u32; 5], u32, u32)> = vec![
                ("contiguous", strided(b, &[]), 0, 32),
                ("stride 2 words", strided(b.max(4) * 2, &[]), 0, 32),
                ("stride 128 B (one bank)", strided(128, &[]), 0, 32),
                ("stride 32 B", strided(32.max(b), &[]), 0, 32),
                ("all lanes one address", [0; 5], 0, 32),
                (
                    "half-warps alike (lane bit 4 adds 0)",
                    strided(b, &[4]),
                    0,
                    32,
                ),
                (
                    "quarter-warps alike (lane bits 3, 4 add 0)",
                    strided(b, &[3, 4]),
                    0,
                    32,
                ),
                (
                    "lane pairs alike (lane bit 0 adds 0)",
                    strided(b, &[0]),
                    0,
                    32,
                ),
                ("8 lanes, contiguous", strided(b, &[]), 0, 8),
                ("16 lanes, stride 128 B", strided(128, &[]), 0, 16),
                ("1 lane", [0; 5], 0, 1),
                ("contiguous at 140 KiB", strided(b, &[]), 140 * 1024, 32),
            ];
            for (name, lane_bytes, base, lanes) in patterns {
                let what = format!("{} {}x{} {name}", op_name(store), ty.bytes() * 8, vec);
                add(
                    what,
                    Probe {
                        base,
                        lanes,
                        ..warp_probe(access, lane_bytes)
                    },
                );
            }
        }
    }
    // Sub-word lanes whose bytes differ inside the word and in the bank row at once: the
    // hardware conflicts (two words of one bank), Triton's formula sees no conflict.
    for store in [false, true] {
        for (ty, other) in [(DataType::B8, 129), (DataType::B16, 130)] {
            let what = format!(
                "{} {}x1 lane bit 0 moves to another word of the same bank and another byte of it",
                op_name(store),
                ty.bytes() * 8
            );
            add(what, warp_probe(ld_st(store, ty, 1), [other, 4, 8, 16, 32]));
        }
    }
    // ptxas gives an address it can prove warp-uniform a uniform register (`LDS.64 R, [UR4]`);
    // the same single address computed through a run-time zero is per-lane.
    for store in [false, true] {
        for vec in [1, 2, 4] {
            let what = format!(
                "{} 32x{vec} all lanes one address, per-lane register (offsets × run-time 0)",
                op_name(store)
            );
            let access = ld_st(store, DataType::B32, vec);
            add(
                what,
                Probe {
                    scale: Some(0),
                    ..warp_probe(access, strided(4 * vec, &[]))
                },
            );
        }
    }
    // Which lanes a load's broadcast reaches: groups of lanes that share one address each.
    for store in [false, true] {
        for (ty, vec) in [
            (DataType::B32, 1),
            (DataType::B32, 2),
            (DataType::B16, 4),
            (DataType::B32, 4),
        ] {
            let access = ld_st(store, ty, vec);
            let b = access.lane_bytes();
            for (name, lane_bytes) in [
                ("half-warps one address each, adjacent", [0, 0, 0, 0, b]),
                (
                    "half-warps one address each, 128 B apart",
                    [0, 0, 0, 0, 128],
                ),
                (
                    "quarter-warps one address each, adjacent",
                    [0, 0, 0, b, 2 * b],
                ),
                (
                    "lane quads one address each, adjacent",
                    [0, 0, b, 2 * b, 4 * b],
                ),
                (
                    "even and odd lanes two addresses, adjacent",
                    [b, 0, 0, 0, 0],
                ),
                (
                    "lanes l and l^4 alike, others distinct",
                    [b, 2 * b, 0, 4 * b, 8 * b],
                ),
                (
                    "lanes l and l^2 alike, others distinct",
                    [b, 0, 2 * b, 4 * b, 8 * b],
                ),
                (
                    "lanes l, l^1, l^8 alike, others distinct",
                    [0, b, 2 * b, 0, 4 * b],
                ),
            ] {
                let what = format!("{} {}x{vec} {name}", op_name(store), ty.bytes() * 8);
                add(what, warp_probe(access, lane_bytes));
            }
        }
    }
    for ld in [true, false] {
        for count in [MatrixCount::X1, MatrixCount::X2, MatrixCount::X4] {
            for trans in [false, true] {
                let access = if ld {
                    ProbeAccess::Ldmatrix { count, trans }
                } else {
                    ProbeAccess::Stmatrix { count, trans }
                };
                for (name, lane_bytes) in [
                    ("rows contiguous", strided(16, &[])),
                    ("rows 128 B apart", strided(128, &[])),
                    ("rows 64 B apart", strided(64, &[])),
                    ("all rows one address", [0; 5]),
                    (
                        "matrices alike (lane bits 3, 4 add 0)",
                        strided(16, &[3, 4]),
                    ),
                ] {
                    let what = format!(
                        "{}.x{}{} {name}",
                        if ld { "ldmatrix" } else { "stmatrix" },
                        count.count(),
                        if trans { ".trans" } else { "" }
                    );
                    add(what, warp_probe(access, lane_bytes));
                }
            }
        }
    }
    // A warp that runs a shared access with every lane predicated off.
    for store in [false, true] {
        for vec in [1, 4] {
            let what = format!("{} 32x{vec} no lane active", op_name(store));
            let access = ld_st(store, DataType::B32, vec);
            add(
                what,
                Probe {
                    lanes: 0,
                    ..warp_probe(access, strided(4 * vec, &[]))
                },
            );
        }
    }
    out
}
