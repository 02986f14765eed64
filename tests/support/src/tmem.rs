//! The TMEM test kernels' checks, shared by the `tmem_*` tests of `codegen` and the root's
//! `ptx_cli`: build a round-trip case, run its printed text in the interpreter and check every
//! TMEM cell against the `AddressMap`, assemble it with ptxas.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use codegen::access::IndexSource;
use codegen::interp::{run, AccessKind, Config, Location, ParamValue};
use codegen::ptx::{parse, Kernel, Op, Stmt};
use codegen::tmem::{roundtrip_kernel, roundtrip_value, TmemError, TmemPlan};
use linear_layout::families::{Tcgen05Atom, TensorMemory};
use linear_layout::{Address, AddressMap, BufferMap, LinearLayout};

/// One allocation: a TMEM tile and its buffer map.
#[derive(Clone)]
pub struct Alloc {
    /// The TMEM encoding.
    pub tm: TensorMemory,
    /// The tile shape.
    pub shape: [u64; 2],
    /// Bits per element.
    pub bits: u32,
    /// Its address map (buffer part and element layout).
    pub map: AddressMap,
}

/// `#ttng.tensor_memory_encoding<blockM, blockN, colStride = 1>` on one CTA.
pub fn tmem(block_m: u32, block_n: u32) -> TensorMemory {
    TensorMemory {
        block_m,
        block_n,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    }
}

impl Alloc {
    /// The allocation of `shape` with `buffer` as its buffer part.
    pub fn new(tm: TensorMemory, shape: [u64; 2], bits: u32, buffer: BufferMap) -> Alloc {
        let map = AddressMap::tensor_memory(buffer, bits, &tm, &shape).unwrap();
        Alloc {
            tm,
            shape,
            bits,
            map,
        }
    }

    /// The same tile with another buffer map.
    pub fn with_buffer(&self, buffer: BufferMap) -> Alloc {
        Alloc::new(self.tm.clone(), self.shape, self.bits, buffer)
    }

    /// The tcgen05 message plan for `atom` and `warps` warps.
    pub fn plan(&self, atom: Tcgen05Atom, warps: u32) -> Result<TmemPlan, TmemError> {
        TmemPlan::for_tensor_memory(&self.map, &self.tm, &self.shape, atom, warps)
    }
}

/// What the plan's register `k` of thread `t` holds, at `[t * registers + k]`: the row-major
/// indices of its packed elements (from the register layout alone), and its value (element
/// `e` in bits `e · element_bits ..`).
struct Expect {
    pack: usize,
    elements: Vec<u64>,
    values: Vec<u32>,
}

impl Expect {
    fn new(plan: &TmemPlan) -> Expect {
        let layout: &LinearLayout = plan.layout();
        let eval = layout.evaluator().unwrap();
        let mut shift = HashMap::new();
        let mut at = 0u32;
        for (d, size) in layout.in_dims() {
            shift.insert(d.to_string(), at);
            at += size.trailing_zeros();
        }
        let sh = |d: &str| shift.get(d).copied().unwrap_or(0);
        let (reg_at, lane_at, warp_at) = (sh("register"), sh("lane"), sh("warp"));
        let sizes: Vec<u64> = layout.out_dims().iter().map(|(_, s)| *s).collect();
        let bits = plan.element_bits();
        let pack = 32 / bits;
        let threads = 32 * plan.num_warps();
        let n = (threads * plan.registers()) as usize;
        let (mut elements, mut values) =
            (Vec::with_capacity(n * pack as usize), Vec::with_capacity(n));
        for t in 0..threads {
            for k in 0..plan.registers() {
                let mut value = 0u64;
                for e in 0..pack {
                    let flat = u64::from(k * pack + e) << reg_at
                        | u64::from(t % 32) << lane_at
                        | u64::from(t / 32) << warp_at;
                    let coords = eval.split(eval.apply(flat));
                    let index = coords.iter().zip(&sizes).fold(0, |acc, (c, s)| acc * s + c);
                    elements.push(index);
                    value |= index << (e * bits);
                }
                values.push(value as u32);
            }
        }
        Expect {
            pack: pack as usize,
            elements,
            values,
        }
    }

    /// The elements of register `at` (`t * registers + k`).
    fn elements(&self, at: usize) -> &[u64] {
        &self.elements[at * self.pack..(at + 1) * self.pack]
    }
}

/// The TMEM `(lane, column)` of every element, by row-major index.
type Cells = Arc<Vec<(u32, u32)>>;

/// `map.address(i, coords)` of every element, by row-major index; cached per (map, i) for the
/// whole test binary (every atom and warp count of a tile asks for the same tables).
fn cells(map: &AddressMap, sizes: &[u64], i: u64) -> Cells {
    static CACHE: OnceLock<Mutex<HashMap<(String, u64), Cells>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (format!("{map:?}"), i);
    if let Some(c) = cache.lock().unwrap().get(&key) {
        return c.clone();
    }
    let total: u64 = sizes.iter().product();
    let table: Vec<(u32, u32)> = (0..total)
        .map(|mut x| {
            let mut coords = vec![0; sizes.len()];
            for (c, s) in coords.iter_mut().zip(sizes).rev() {
                *c = x % s;
                x /= s;
            }
            match map.address(i, &coords).unwrap() {
                Address::Tensor { lane, column } => (lane, column),
                a => panic!("not a TMEM address: {a}"),
            }
        })
        .collect();
    let table = Arc::new(table);
    cache.lock().unwrap().insert(key, table.clone());
    table
}

/// Statement indices of the `tcgen05.st` / `tcgen05.ld` instructions, in order.
fn tmem_stmts(k: &Kernel, store: bool) -> Vec<usize> {
    k.body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::Inst(inst) => match (&inst.op, store) {
                (Op::TmemSt { .. }, true) | (Op::TmemLd { .. }, false) => Some(i),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Runs the (re-parsed) kernel `k` for buffer `i`, checking: every stored and loaded cell of
/// thread `t`'s register `k` is `map.address(i, coords)` for the coordinates the plan's
/// register layout gives each of its packed elements, holding their row-major indices; the
/// store covers the tile once; `out` returns every value of the load plan (and
/// `roundtrip_value` agrees). Returns the number of cells checked.
#[allow(clippy::too_many_arguments)]
fn check_run(
    k: &Kernel,
    map: &AddressMap,
    (st, want_st): (&TmemPlan, &Expect),
    (ld, want_ld): (&TmemPlan, &Expect),
    index: &IndexSource,
    i: u64,
) -> usize {
    let threads = 32 * st.num_warps();
    let out_len = (threads * ld.registers() * 4) as usize;
    let mut params = vec![ParamValue::Buffer(vec![0xEE; out_len])];
    if *index == IndexSource::Param {
        params.push(ParamValue::U32(i as u32));
    }
    let out = run(k, &Config::new(threads), &params)
        .unwrap_or_else(|e| panic!("{}: interpreter: {e}\n{k}", k.name));
    let sizes: Vec<u64> = st.layout().out_dims().iter().map(|(_, s)| *s).collect();
    let cell = cells(map, &sizes, i);
    let (st_stmts, ld_stmts) = (tmem_stmts(k, true), tmem_stmts(k, false));
    let mut stored = vec![false; 128 * 512];
    let (mut n_st, mut n_ld) = (0usize, 0usize);
    // `.pack::16b` / `.unpack::16b` (unpacked 16-bit TMEM): one access per register half.
    let (mut st_halves, mut ld_halves) = (false, false);
    for a in out.trace.iter() {
        let (plan, want, stmts, reg, half, is_store) = match a.kind {
            AccessKind::TmemStore { reg, half } => (st, want_st, &st_stmts, reg, half, true),
            AccessKind::TmemLoad { reg, half } => (ld, want_ld, &ld_stmts, reg, half, false),
            _ => continue,
        };
        let Location::Tmem { lane, column } = a.location else {
            panic!("tcgen05 access outside TMEM: {a:?}")
        };
        let m = stmts.iter().position(|&s| s == a.stmt).unwrap();
        let k_reg = plan.messages()[m].first_register + u32::from(reg);
        let at = (a.thread * plan.registers() + k_reg) as usize;
        let (elements, value) = match half {
            Some(h) => {
                let h = usize::from(h);
                let e = &want.elements(at)[h..h + 1];
                (e, u128::from((want.values[at] >> (16 * h)) & 0xFFFF))
            }
            None => (want.elements(at), u128::from(want.values[at])),
        };
        if is_store {
            st_halves |= half.is_some();
        } else {
            ld_halves |= half.is_some();
        }
        for &e in elements {
            assert_eq!(
                (lane, column),
                cell[e as usize],
                "{}: buffer {i}, thread {}, register {k_reg}, element {e}",
                k.name,
                a.thread
            );
        }
        assert_eq!(a.value, value, "{}: value at ({lane}, {column})", k.name);
        if is_store {
            stored[(lane * 512 + column) as usize] = true;
            n_st += 1;
        } else {
            n_ld += 1;
        }
    }
    let per_reg = |halves: bool| if halves { 2 } else { 1 };
    assert_eq!(
        n_st,
        (threads * st.registers()) as usize * per_reg(st_halves),
        "{}: stores",
        k.name
    );
    assert_eq!(
        n_ld,
        (threads * ld.registers()) as usize * per_reg(ld_halves),
        "{}: loads",
        k.name
    );
    let covered = stored.iter().filter(|&&s| s).count();
    let per_cell = if st_halves { 1 } else { want_st.pack };
    assert_eq!(covered, cell.len() / per_cell, "{}: cells covered", k.name);
    let words = &out.buffers[0];
    for t in 0..threads {
        for r in 0..ld.registers() {
            let at = 4 * (r * threads + t) as usize;
            let got = u32::from_le_bytes(words[at..at + 4].try_into().unwrap());
            let want = want_ld.values[(t * ld.registers() + r) as usize];
            assert_eq!(got, want, "{}: out register {r} of thread {t}", k.name);
        }
    }
    // The library's value function agrees (spot check: first and last thread).
    for t in [0, threads - 1] {
        let r = ld.registers() - 1;
        let want = want_ld.values[(t * ld.registers() + r) as usize];
        assert_eq!(roundtrip_value(ld, r, t % 32, t / 32).unwrap(), want);
    }
    n_st + n_ld
}

/// Builds the round-trip kernel and checks it for `index`: with a run-time index, for every
/// buffer of small tiles and of maps with at most 2 buffers, else the first and the last
/// buffer (the index arithmetic is the same code for every tile; the small tiles sweep it).
pub fn check_roundtrip(
    name: &str,
    alloc: &Alloc,
    st: &TmemPlan,
    ld: &TmemPlan,
    index: IndexSource,
) -> (Kernel, usize) {
    let kernel = roundtrip_kernel(name, st, ld, index.clone()).unwrap();
    let k = parse(&kernel.to_string()).unwrap();
    assert_eq!(k, kernel, "the printed text parses back to the kernel");
    let want_st = Expect::new(st);
    let want_ld = if ld == st {
        None
    } else {
        Some(Expect::new(ld))
    };
    let want_ld = want_ld.as_ref().unwrap_or(&want_st);
    let indices: Vec<u64> = match &index {
        IndexSource::Const(v) => v.clone(),
        IndexSource::Param => {
            let n = alloc.map.buffer().num_buffers();
            let elements: u64 = alloc.shape.iter().product();
            if n <= 2 || elements <= 128 * 64 {
                (0..n).collect()
            } else {
                vec![0, n - 1]
            }
        }
    };
    let cells = indices
        .into_iter()
        .map(|i| check_run(&k, &alloc.map, (st, &want_st), (ld, want_ld), &index, i))
        .sum();
    (kernel, cells)
}

/// Assembles every kernel with ptxas for sm_100a (skipped without ptxas unless
/// `REQUIRE_PTXAS=1`); returns how many were assembled.
pub fn assemble_all(kernels: &[Kernel]) -> usize {
    let Some(ptxas) = codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return 0;
    };
    for k in kernels {
        let text = k.to_string();
        if let Err(e) = codegen::ptxas::assemble_with(&ptxas, &text, "sm_100a") {
            panic!("{}: ptxas: {e}\n{text}", k.name);
        }
    }
    kernels.len()
}
