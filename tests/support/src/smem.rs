//! The SMEM test kernels' checks, shared by the `smem_*` and `gpu` tests of `codegen` and the
//! root's `ptx_cli`: run a test kernel's *printed* text in the interpreter and check every
//! shared access against the `AddressMap`, assemble with ptxas, and build random layouts.

use std::collections::HashMap;

use codegen::interp::{run, AccessKind, Location};
use codegen::ptx::{parse, Kernel};
use codegen::smem::kernels::{linear_index, Coordinates, TestKernel, TestKind};
use linear_layout::families::{NvmmaShared, SharedEncoding, SwizzledShared};
use linear_layout::{AddressMap, BufferMap, LinearLayout};

/// What one checked run covered.
#[derive(Debug, Default, Clone)]
pub struct Checked {
    /// Shared `ld/st` instructions executed, one per thread.
    pub accesses: usize,
    /// Elements they moved.
    pub elements: usize,
    /// (thread, shared byte) of every shared access, in trace order.
    pub addresses: Vec<(u32, u32)>,
}

/// Runs the kernel's printed text (re-parsed) with buffer index `index` (for a run-time
/// index) and checks: every shared `ld/st` is one the emitter reported; each element of it is
/// at `expected_address` of the (thread, register) the plan assigns; every (thread, register)
/// of every emission is covered; stored values are the elements' linear indices (round trips
/// and dumps); `out` equals `expected_out`.
pub fn check_run(k: &TestKernel, index: Option<u64>) -> Result<Checked, String> {
    let text = k.kernel.to_string();
    let parsed = parse(&text).map_err(|e| format!("re-parse: {e}\n{text}"))?;
    if parsed != k.kernel {
        return Err("the printed kernel parses to a different kernel".into());
    }
    let out = run(&parsed, &k.config(), &k.params(index.map(|i| i as u32)))
        .map_err(|e| format!("interpreter: {e}\n{text}"))?;
    let origin = out.layout.dynamic_start;
    let dims = k.map.element().in_dims();
    let bits = k.map.element_bits();
    let bytes = u64::from(bits / 8);
    let mask = (1u128 << bits) - 1;
    let mut by_stmt: HashMap<usize, (usize, usize)> = HashMap::new();
    for (e, em) in k.emissions.iter().enumerate() {
        for (a, acc) in em.emitted.accesses.iter().enumerate() {
            by_stmt.insert(acc.stmt, (e, a));
        }
    }
    let layout_of = |role: &str| -> &LinearLayout {
        match &k.kind {
            TestKind::RoundTrip { store, load } => {
                if role == "store" {
                    store
                } else {
                    load
                }
            }
            TestKind::Access { regs, .. } | TestKind::AddressDump { regs, .. } => regs,
            TestKind::Tile { regs, reload, .. } => match (role, reload) {
                ("load", Some(load)) => load,
                _ => regs,
            },
        }
    };
    // A tile kernel in rounds stores each element's full-tensor index through a round's layout.
    let check_values = match k.kind {
        TestKind::Access { .. } => false,
        TestKind::Tile { rounds_log2, .. } => rounds_log2 == 0,
        _ => true,
    };
    let compiled: Vec<Coordinates> = k
        .emissions
        .iter()
        .map(|e| Coordinates::new(layout_of(e.role), &dims).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let mut covered: Vec<Vec<Vec<bool>>> = k
        .emissions
        .iter()
        .map(|e| vec![vec![false; e.plan.registers()]; k.threads as usize])
        .collect();
    let mut checked = Checked::default();
    for acc in out.trace.iter() {
        let Location::Shared(abs) = acc.location else {
            continue;
        };
        let &(e, a) = by_stmt
            .get(&acc.stmt)
            .ok_or_else(|| format!("shared access by unreported statement {}", acc.stmt))?;
        let em = &k.emissions[e];
        let i = em.index.or(index).unwrap_or(0);
        let start = u64::from(abs - origin);
        let emitted = &em.emitted.accesses[a];
        let slots = &emitted.slots;
        // (receiving thread, slot, byte offset from `start`, bit position in `value`)
        let mut elements: Vec<(u32, usize, u64, u32)> = Vec::new();
        match (acc.kind, emitted.matrix) {
            (AccessKind::Load | AccessKind::Store, None) => {
                if u64::from(acc.bytes) != bytes * slots.len() as u64 {
                    return Err(format!(
                        "access of {} bytes for {} elements",
                        acc.bytes,
                        slots.len()
                    ));
                }
                for j in 0..slots.len() {
                    elements.push((acc.thread, j, j as u64 * bytes, j as u32 * bits));
                }
            }
            (
                AccessKind::LdmatrixRow { matrix, row } | AccessKind::StmatrixRow { matrix, row },
                Some((_, trans)),
            ) => {
                let warp = acc.thread & !31;
                let (m, row) = (u32::from(matrix), u32::from(row));
                // Matrix m's word holds elements m·w .. of the slots, lowest bytes first; a
                // 16-bit unit holds `per_half` elements (8-bit pairs) or half of one (32-bit).
                let eb = bytes.clamp(1, 4) as u32;
                let per_word = 4 / eb;
                let per_half = (2 / eb.min(2)).max(1);
                if trans {
                    // Lanes 4q + row/2 receive half row%2 of column q.
                    for q in 0..8 {
                        for p in 0..per_half {
                            let t = warp + 4 * q + row / 2;
                            let slot = (m * per_word + (row % 2) * per_half + p) as usize;
                            let byte = 2 * q + p * eb;
                            elements.push((t, slot, u64::from(byte), 8 * byte));
                        }
                    }
                } else {
                    // Lanes 4·row + c receive the row's bytes 4c .. 4c + 3.
                    for c in 0..4 {
                        for e in 0..per_word {
                            let t = warp + 4 * row + c;
                            let byte = 4 * c + e * eb;
                            elements.push((
                                t,
                                (m * per_word + e) as usize,
                                u64::from(byte),
                                8 * byte,
                            ));
                        }
                    }
                }
            }
            _ => return Err(format!("unexpected shared access {acc:?}")),
        }
        let stores = matches!(acc.kind, AccessKind::Store | AccessKind::StmatrixRow { .. });
        for (thread, j, at, bit) in elements {
            let got = start + at;
            for &r in &slots[j] {
                let coords = compiled[e].at(r, thread);
                let want = k.expected_address(i, &coords).map_err(|e| e.to_string())?;
                if got != want {
                    return Err(format!(
                        "{} {}: thread {thread} register {r} ({coords:?}) of buffer {i}: address {got}, map says {want}\n{text}",
                        em.role, a
                    ));
                }
                covered[e][thread as usize][r] = true;
                checked.elements += 1;
                if check_values && stores {
                    let value = (acc.value >> bit) & mask;
                    let want = u128::from(linear_index(&dims, &coords)) & mask;
                    if value != want {
                        return Err(format!(
                            "thread {thread} register {r} stored {value}, element index is {want}"
                        ));
                    }
                }
            }
        }
        checked.accesses += 1;
        checked.addresses.push((acc.thread, abs));
    }
    for (e, per_thread) in covered.iter().enumerate() {
        for (t, regs) in per_thread.iter().enumerate() {
            if let Some(r) = regs.iter().position(|c| !c) {
                return Err(format!(
                    "emission {e} ({}): thread {t} register {r} was never accessed\n{text}",
                    k.emissions[e].role
                ));
            }
        }
    }
    let want = k.expected_out(index).map_err(|e| e.to_string())?;
    let got: Vec<u32> = out.buffers[k.out_param()]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if got != want {
        let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
        return Err(format!(
            "out differs at word {first} (thread {}): {} vs expected {}\n{text}",
            first / k.words_per_thread.max(1),
            got[first],
            want[first]
        ));
    }
    Ok(checked)
}

/// Assembles with ptxas for sm_90a when ptxas is there (see `require_ptxas`); `false` when
/// skipped.
pub fn assemble(kernel: &Kernel) -> bool {
    let Some(ptxas) = codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return false;
    };
    if let Err(e) = codegen::ptxas::assemble_with(&ptxas, &kernel.to_string(), "sm_90a") {
        panic!("ptxas rejected {}: {e}\n{kernel}", kernel.name);
    }
    true
}

/// A shared layout of the two families under test.
#[derive(Debug, Clone, Copy)]
pub enum SharedSpec {
    /// `#ttg.swizzled_shared`.
    Swizzled {
        /// `vec`.
        vec: u32,
        /// `perPhase`.
        per_phase: u32,
        /// `maxPhase`.
        max_phase: u32,
        /// `order = [1, 0]` (else `[0, 1]`).
        row_major: bool,
    },
    /// `#ttg.nvmma_shared`.
    Nvmma {
        /// `swizzlingByteWidth`.
        swizzle: u32,
        /// `transposed`.
        transposed: bool,
    },
}

impl SharedSpec {
    /// The encoding for `bits`-bit elements, or `None` where the family refuses the parameters.
    pub fn encoding(&self, bits: u32) -> Option<SharedEncoding> {
        Some(match *self {
            SharedSpec::Swizzled {
                vec,
                per_phase,
                max_phase,
                row_major,
            } => SharedEncoding::Swizzled(
                SwizzledShared::new(
                    vec,
                    per_phase,
                    max_phase,
                    if row_major { vec![1, 0] } else { vec![0, 1] },
                    vec![],
                )
                .ok()?,
            ),
            SharedSpec::Nvmma {
                swizzle,
                transposed,
            } => SharedEncoding::Nvmma(
                NvmmaShared::new(swizzle, bits, transposed, false, vec![]).ok()?,
            ),
        })
    }

    /// The map, or `None` where the family refuses the shape.
    pub fn map(&self, bits: u32, shape: &[u64], buffer: BufferMap) -> Option<AddressMap> {
        AddressMap::from_shared_encoding(buffer, bits, &self.encoding(bits)?, shape).ok()
    }
}

/// A tiny deterministic generator for shuffles driven by a proptest seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next value (xorshift64).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// A random bijective register layout for a `[m, n]` tile and `warps` warps: the tile's bits
/// (plus zero bases where 32·warps threads exceed the tile) shuffled over lane, warp and
/// register bits, then `mix` random XORs of one basis into another (still a bijection on the
/// non-zero bases: a general GF(2) layout, not only a permutation).
pub fn random_gf2_layout(shape: [u64; 2], warps: u32, seed: u64, mix: usize) -> LinearLayout {
    let mut rng = Rng(seed | 1);
    let (b0, b1) = (shape[0].trailing_zeros(), shape[1].trailing_zeros());
    let mut bases: Vec<Vec<u64>> = (0..b0)
        .map(|b| vec![1 << b, 0])
        .chain((0..b1).map(|b| vec![0, 1 << b]))
        .collect();
    let hw = 5 + warps.trailing_zeros() as usize;
    while bases.len() < hw {
        bases.push(vec![0, 0]);
    }
    for i in (1..bases.len()).rev() {
        let j = rng.below(i + 1);
        bases.swap(i, j);
    }
    for _ in 0..mix {
        let (i, j) = (rng.below(bases.len()), rng.below(bases.len()));
        if i != j && bases[i] != vec![0, 0] && bases[j] != vec![0, 0] {
            let x = bases[j].clone();
            bases[i] = vec![bases[i][0] ^ x[0], bases[i][1] ^ x[1]];
        }
    }
    let lane = bases[..5].to_vec();
    let warp = bases[5..hw].to_vec();
    let register = bases[hw..].to_vec();
    LinearLayout::from_bases(
        &[("register", register), ("lane", lane), ("warp", warp)],
        &[("dim0", shape[0]), ("dim1", shape[1])],
        true,
    )
    .expect("a bijection")
}

/// A random register layout with arbitrary bases for a `[m, n]` tile: registers, lanes and
/// warps may repeat, combine or broadcast (not a bijection; what a checker must still get
/// right for every register it has).
pub fn random_layout(shape: [u64; 2], warps: u32, registers_log2: u32, seed: u64) -> LinearLayout {
    let mut rng = Rng(seed | 1);
    let basis = |rng: &mut Rng| {
        let pick = rng.below(4);
        if pick == 0 {
            vec![0, 0]
        } else {
            vec![rng.next_u64() % shape[0], rng.next_u64() % shape[1]]
        }
    };
    let register: Vec<Vec<u64>> = (0..registers_log2).map(|_| basis(&mut rng)).collect();
    let lane: Vec<Vec<u64>> = (0..5).map(|_| basis(&mut rng)).collect();
    let warp: Vec<Vec<u64>> = (0..warps.trailing_zeros())
        .map(|_| basis(&mut rng))
        .collect();
    LinearLayout::from_bases(
        &[("register", register), ("lane", lane), ("warp", warp)],
        &[("dim0", shape[0]), ("dim1", shape[1])],
        false,
    )
    .expect("bases inside the tile")
}
