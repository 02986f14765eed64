//! Property tests of the shared-memory emitter: for random register layouts (Blocked and
//! general GF(2) bijections of 1–4 warps) × shared layouts (swizzled_shared, nvmma_shared 0/32/
//! 64/128 B, 8-, 16- and 32-bit elements, 8..128 × 8..128) × buffer maps (1–3 modes, constant and
//! run-time index), the printed and re-parsed kernels run in the interpreter and every shared
//! address of every (thread, register, buffer index) must be `AddressMap::address`; TLX's
//! reindexing must touch the same addresses as the explicit map of the same placement, with
//! no fewer instructions. One case in 20 is also assembled by ptxas.

#![allow(clippy::restriction)] // test code: a failed check panics

use std::sync::atomic::{AtomicUsize, Ordering};

use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::interp::Config;
use codegen::ptx::{parse, Builder, SpecialReg, Target};
use codegen::smem::kernels::{address_dump, round_trip, tile_load, tile_round_trip, tile_store};
use codegen::smem::TidLinear;
use linear_layout::families::{Blocked, DistributedEncoding, DotOperand, NvmmaDistributed};
use linear_layout::{BufferMap, LinearLayout};
use proptest::prelude::*;
use test_support::smem::{assemble, check_run, random_gf2_layout, random_layout, SharedSpec};

static CASES: AtomicUsize = AtomicUsize::new(0);

/// Assemble one case in 20 (the first one included).
fn maybe_assemble(k: &codegen::ptx::Kernel) {
    if CASES.fetch_add(1, Ordering::Relaxed) % 20 == 0 {
        assemble(k);
    }
}

#[derive(Debug, Clone)]
enum RegSpec {
    Blocked {
        spt: [u32; 2],
        tpw0: u32,
        wpc0_log2: u32,
        row_major: bool,
    },
    Gf2 {
        seed: u64,
        mix: usize,
    },
    /// An mma v2 accumulator (0), A (1) or B (2) operand: the `ldmatrix`/`stmatrix` shapes.
    Mma {
        operand: u32,
        wpc0_log2: u32,
    },
}

impl RegSpec {
    fn layout(&self, shape: [u64; 2], warps: u32, bits: u32) -> Option<LinearLayout> {
        match *self {
            RegSpec::Blocked {
                spt,
                tpw0,
                wpc0_log2,
                row_major,
            } => {
                let w0 = 1u32 << wpc0_log2.min(warps.trailing_zeros());
                Blocked {
                    size_per_thread: spt.to_vec(),
                    threads_per_warp: vec![tpw0, 32 / tpw0],
                    warps_per_cta: vec![w0, warps / w0],
                    order: if row_major { vec![1, 0] } else { vec![0, 1] },
                    cga_layout: vec![],
                }
                .to_linear_layout(&shape)
                .ok()
            }
            RegSpec::Gf2 { seed, mix } => Some(random_gf2_layout(shape, warps, seed, mix)),
            RegSpec::Mma { operand, wpc0_log2 } => {
                let w0 = 1u32 << wpc0_log2.min(warps.trailing_zeros());
                let mma = NvmmaDistributed {
                    version_major: 2,
                    version_minor: 0,
                    warps_per_cta: vec![w0, warps / w0],
                    instr_shape: vec![16, 8],
                    cga_layout: vec![],
                };
                if operand == 0 {
                    return mma.to_linear_layout(&shape).ok();
                }
                DotOperand {
                    operand_index: operand - 1,
                    parent: Box::new(DistributedEncoding::NvmmaDistributed(mma)),
                    k_width: 32 / bits,
                }
                .to_linear_layout(&shape)
                .ok()
            }
        }
    }
}

fn reg_spec() -> impl Strategy<Value = RegSpec> {
    let pow2 = |max: u32| (0..=max).prop_map(|k| 1u32 << k);
    prop_oneof![
        (pow2(3), pow2(3), pow2(5), 0u32..3, any::<bool>()).prop_map(
            |(a, b, tpw0, wpc0_log2, row_major)| RegSpec::Blocked {
                spt: [a, b.min(16 / a)],
                tpw0,
                wpc0_log2,
                row_major,
            }
        ),
        (any::<u64>(), 0usize..6).prop_map(|(seed, mix)| RegSpec::Gf2 { seed, mix }),
        (0u32..3, 0u32..3).prop_map(|(operand, wpc0_log2)| RegSpec::Mma { operand, wpc0_log2 }),
    ]
}

fn shared_spec() -> impl Strategy<Value = SharedSpec> {
    let pow2 = |max: u32| (0..=max).prop_map(|k| 1u32 << k);
    prop_oneof![
        (pow2(3), pow2(2), pow2(3), any::<bool>()).prop_map(
            |(vec, per_phase, max_phase, row_major)| {
                SharedSpec::Swizzled {
                    vec,
                    per_phase,
                    max_phase,
                    row_major,
                }
            }
        ),
        (prop::sample::select(vec![0u32, 32, 64, 128]), any::<bool>()).prop_map(
            |(swizzle, transposed)| SharedSpec::Nvmma {
                swizzle,
                transposed
            }
        ),
    ]
}

/// A buffer mode: size, and its stride as `span·m + extra`.
fn modes() -> impl Strategy<Value = (u64, Vec<(u64, u64, u64)>)> {
    (
        prop::sample::select(vec![0u64, 16, 1024, 6]),
        prop::collection::vec(
            (
                1u64..=4,
                0u64..3,
                prop::sample::select(vec![0u64, 16, 128, 1024, 4]),
            ),
            1..=3,
        ),
    )
}

#[derive(Debug, Clone)]
struct Case {
    bits: u32,
    shape: [u64; 2],
    warps: u32,
    store: RegSpec,
    load: RegSpec,
    shared: SharedSpec,
    base: u64,
    modes: Vec<(u64, u64, u64)>,
    runtime: bool,
    picks: Vec<u64>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![8u32, 16, 16, 32]),
        (3u32..=7, 3u32..=7),
        0u32..3,
        reg_spec(),
        reg_spec(),
        shared_spec(),
        modes(),
        any::<bool>(),
        prop::collection::vec(any::<u64>(), 3),
    )
        .prop_map(
            |(bits, (m, n), w, store, load, shared, (base, modes), runtime, picks)| Case {
                bits,
                shape: [1 << m, 1 << n],
                warps: 1 << w,
                store,
                load,
                shared,
                base,
                modes,
                runtime,
                picks,
            },
        )
}

/// Everything the case describes, or `None` where a family refuses it or memory overflows.
struct Built {
    map: linear_layout::AddressMap,
    store: LinearLayout,
    load: LinearLayout,
    index: IndexSource,
    runs: Vec<Option<u64>>,
}

fn build(c: &Case) -> Option<Built> {
    let probe = c
        .shared
        .map(c.bits, &c.shape, BufferMap::new(0, &[]).ok()?)?;
    let span = probe.element_span();
    let bytes = u64::from(c.bits / 8);
    // Offsets must be multiples of the element (else the elements themselves are misaligned).
    let fix = |v: u64| v / bytes * bytes;
    let modes: Vec<(u64, u64)> = c
        .modes
        .iter()
        .map(|&(size, m, extra)| (size, fix(span * m + extra)))
        .collect();
    let buffer = BufferMap::new(fix(c.base), &modes).ok()?;
    let map = probe.with_buffer(buffer);
    let count = map.buffer().num_buffers();
    let end = map.buffer().offsets().max()? + span;
    if end > 200 * 1024 {
        return None;
    }
    let (index, runs) = if c.runtime {
        let mut runs: Vec<u64> = if count <= 4 {
            (0..count).collect()
        } else {
            vec![0, count - 1, c.picks[0] % count]
        };
        runs.dedup();
        (IndexSource::Param, runs.into_iter().map(Some).collect())
    } else {
        let picks: Vec<u64> = c.picks.iter().take(2).map(|p| p % count).collect();
        (IndexSource::Const(picks), vec![None])
    };
    Some(Built {
        map,
        store: c.store.layout(c.shape, c.warps, c.bits)?,
        load: c.load.layout(c.shape, c.warps, c.bits)?,
        index,
        runs,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Round trips: store through one layout, reload through another; every address is the
    /// map's and every loaded register holds its element.
    #[test]
    fn round_trips_match_the_address_map(c in case()) {
        let Some(b) = build(&c) else { return Err(TestCaseError::reject("refused by a family")) };
        let k = round_trip("rt", &b.map, &b.store, &b.load, &b.index, BufferLowering::Explicit)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        for i in &b.runs {
            check_run(&k, *i).map_err(TestCaseError::fail)?;
        }
        maybe_assemble(&k.kernel);
    }

    /// Tile kernels (Triton's benchmark form, data from and to global memory, kept packed):
    /// every shared address is the map's, every stored element is the one `in_ptr` holds there,
    /// and a round trip's `out_ptr` ends equal to `in_ptr`.
    #[test]
    fn tile_kernels_move_the_tensor(c in case()) {
        let Some(b) = build(&c) else { return Err(TestCaseError::reject("refused by a family")) };
        let Some(map) = c.shared.map(c.bits, &c.shape, BufferMap::new(0, &[]).unwrap()) else {
            return Err(TestCaseError::reject("refused by a family"));
        };
        let fail = |e: codegen::smem::SmemError| TestCaseError::fail(format!("{e}"));
        for k in [
            tile_round_trip("rt", &map, &b.store, &b.load).map_err(fail)?,
            tile_store("st", &map, &b.store).map_err(fail)?,
            tile_load("ld", &map, &b.load).map_err(fail)?,
        ] {
            check_run(&k, None).map_err(TestCaseError::fail)?;
            maybe_assemble(&k.kernel);
        }
    }

    /// Address dumps (stores and loads, bijective and arbitrary layouts): the addresses
    /// written to global memory are the map's.
    #[test]
    fn address_dumps_match_the_address_map(
        c in case(),
        store in any::<bool>(),
        arbitrary in prop::option::weighted(0.3, (0u32..5, any::<u64>())),
    ) {
        let Some(b) = build(&c) else { return Err(TestCaseError::reject("refused by a family")) };
        let op = if store { MemoryOp::Store } else { MemoryOp::Load };
        // Sometimes a layout with arbitrary (repeated, dependent, zero) bases.
        let regs = match arbitrary {
            Some((registers_log2, seed)) => random_layout(c.shape, c.warps, registers_log2, seed),
            None => b.store.clone(),
        };
        let k = address_dump("dump", &b.map, &regs, op, &b.index, BufferLowering::Explicit)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        for i in &b.runs {
            check_run(&k, *i).map_err(TestCaseError::fail)?;
        }
        maybe_assemble(&k.kernel);
    }

    /// The thread-base code computes its function for every thread, in at most two
    /// instructions per bit-diagonal.
    #[test]
    fn thread_bases_compute_their_function(bases in prop::collection::vec(
        prop_oneof![Just(0u32), (0u32..16).prop_map(|k| 1 << k), any::<u32>().prop_map(|v| v & 0xFFFF)], 5..=7)
    ) {
        let f = TidLinear::new(bases);
        let mut b = Builder::new("k", Target::Sm90a).unwrap();
        let tid = b.special(SpecialReg::TidX).unwrap();
        let out = f.emit(&mut b, tid).unwrap();
        b.ret().unwrap();
        let k = parse(&b.finish().unwrap().to_string()).unwrap();
        let run = codegen::interp::run(&k, &Config::new(f.threads()), &[]).unwrap();
        for t in 0..f.threads() {
            let got = out.map_or(0, |r| run.register(t, r).unwrap() as u32);
            prop_assert_eq!(got, f.eval(t));
        }
        prop_assert!(f.cost() <= 2 * f.diagonals().len());
    }

    /// TLX's reindexing and the explicit map of TLX's placement `o + U·i + unit·(i mod gs)`,
    /// modes `(gs, U + unit), (n/gs, gs·U)`, touch the same addresses for every index, and
    /// the explicit form never needs more instructions.
    #[test]
    fn tlx_reindex_and_explicit_placement_agree(
        c in case(),
        scale in 1u64..=3,
        offset in 0u64..=2,
        gs in 1u64..=3,
        groups in 1u64..=2,
        pad in prop::sample::select(vec![0u64, 16, 1024]),
    ) {
        let Some(b) = build(&Case { runtime: false, ..c.clone() }) else {
            return Err(TestCaseError::reject("refused by a family"));
        };
        let bytes = u64::from(c.bits / 8);
        let unit = (b.map.element_span() + pad).div_ceil(bytes) * bytes;
        let tlx = TlxReindex::new(scale, offset, gs, unit);
        let n = gs * groups;
        let explicit = b.map.with_buffer(tlx.buffer_map(n).map_err(|e| TestCaseError::fail(e.to_string()))?);
        if (scale * (n - 1) + offset + gs) * unit > 200 * 1024 {
            return Err(TestCaseError::reject("too large"));
        }
        let e = address_dump("explicit", &explicit, &b.store, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let t = address_dump("tlx", &explicit, &b.store, MemoryOp::Store, &IndexSource::Param, BufferLowering::TlxReindex(tlx))
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        for i in 0..n {
            let by_map = check_run(&e, Some(i)).map_err(TestCaseError::fail)?;
            let by_tlx = check_run(&t, Some(i)).map_err(TestCaseError::fail)?;
            prop_assert_eq!(by_map.addresses, by_tlx.addresses);
        }
        let (ea, ta) = (e.emissions[0].emitted.address_alu, t.emissions[0].emitted.address_alu);
        prop_assert!(ea <= ta, "explicit {} > TLX {}", ea, ta);
        maybe_assemble(&t.kernel);
    }
}
