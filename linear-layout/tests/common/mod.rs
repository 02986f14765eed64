//! Shared proptest generators for random linear layouts.
//!
//! Every generator builds layouts through the public constructors only. Bases are described by
//! [`RawBasis`] values (zero, copy of an earlier basis, XOR of two earlier ones, a single output
//! bit, or random components masked to the out-dim sizes) so that shrinking moves towards small,
//! readable layouts.

#![allow(dead_code)]

pub mod gluon_spec;
pub mod tally;

use linear_layout::{Dim, LinearLayout};
use proptest::prelude::*;
use proptest::sample::{subsequence, Index};

/// In-dim names, canonical (Triton) order first.
pub const IN_NAMES: [&str; 5] = ["register", "lane", "warp", "block", "offset"];
/// In-dim names in the order `#ttg.linear` and products expect.
pub const CANON_INS: [&str; 4] = ["register", "lane", "warp", "block"];
/// Out-dim names.
pub const OUT_NAMES: [&str; 3] = ["dim0", "dim1", "dim2"];
/// Names for intermediate dims (the out-dims of a middle layout in a composition chain).
pub const MID_NAMES: [&str; 4] = ["m0", "m1", "m2", "m3"];

/// A dimension with its `log2` size.
pub type Shape = Vec<(Dim, u32)>;

pub fn mask(log2: u32) -> u64 {
    if log2 >= 64 {
        u64::MAX
    } else {
        (1u64 << log2) - 1
    }
}

pub fn dims(names: &[&str]) -> Vec<Dim> {
    names.iter().map(|&n| Dim::new(n)).collect()
}

pub fn shape_of(l: &LinearLayout, ins: bool) -> Shape {
    let list = if ins { l.in_dims() } else { l.out_dims() };
    list.into_iter()
        .map(|(d, s)| (d, s.trailing_zeros()))
        .collect()
}

/// How one basis is made; see [`build_basis`].
#[derive(Clone, Debug)]
pub struct RawBasis {
    pub kind: u8,
    pub pick: Index,
    pub pick2: Index,
    pub comps: Vec<u64>,
}

pub fn raw_basis(n_out: usize) -> impl Strategy<Value = RawBasis> {
    (
        0u8..10,
        any::<Index>(),
        any::<Index>(),
        prop::collection::vec(any::<u64>(), n_out),
    )
        .prop_map(|(kind, pick, pick2, comps)| RawBasis {
            kind,
            pick,
            pick2,
            comps,
        })
}

/// One basis for out-dims `outs`, given the bases already made (`prev`).
pub fn build_basis(outs: &[(Dim, u32)], prev: &[Vec<u64>], raw: &RawBasis) -> Vec<u64> {
    let n = outs.len();
    let total: u32 = outs.iter().map(|o| o.1).sum();
    let zero = vec![0u64; n];
    match raw.kind {
        0 => zero,
        1 if !prev.is_empty() => raw.pick.get(prev).clone(),
        2 if !prev.is_empty() => {
            let (a, b) = (raw.pick.get(prev), raw.pick2.get(prev));
            a.iter().zip(b).map(|(x, y)| x ^ y).collect()
        }
        3..=6 if total > 0 => {
            // A single output bit, as in most hardware layouts.
            let mut bit = raw.pick.index(total as usize) as u32;
            let mut v = zero;
            for (j, &(_, l)) in outs.iter().enumerate() {
                if bit < l {
                    v[j] = 1u64 << bit;
                    break;
                }
                bit -= l;
            }
            v
        }
        _ => raw
            .comps
            .iter()
            .zip(outs)
            .map(|(&c, &(_, l))| c & mask(l))
            .collect(),
    }
}

/// Builds a layout from a shape and raw bases (one per input bit, in flattened order).
pub fn build(ins: &[(Dim, u32)], outs: &[(Dim, u32)], raws: &[RawBasis]) -> LinearLayout {
    let mut flat: Vec<Vec<u64>> = Vec::with_capacity(raws.len());
    for r in raws {
        let b = build_basis(outs, &flat, r);
        flat.push(b);
    }
    from_flat(ins, outs, flat)
}

/// Splits flattened bases into the in-dims and builds the (possibly non-surjective) layout.
pub fn from_flat(ins: &[(Dim, u32)], outs: &[(Dim, u32)], flat: Vec<Vec<u64>>) -> LinearLayout {
    let mut it = flat.into_iter();
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = ins
        .iter()
        .map(|&(d, l)| (d, it.by_ref().take(l as usize).collect()))
        .collect();
    let out_sizes: Vec<(Dim, u64)> = outs.iter().map(|&(d, l)| (d, 1u64 << l)).collect();
    LinearLayout::from_bases(&bases, &out_sizes, false).expect("generator builds valid layouts")
}

/// A layout with exactly these in- and out-dims and random bases.
pub fn layout_on(ins: Shape, outs: Shape) -> BoxedStrategy<LinearLayout> {
    let n_in: u32 = ins.iter().map(|d| d.1).sum();
    prop::collection::vec(raw_basis(outs.len()), n_in as usize)
        .prop_map(move |raws| build(&ins, &outs, &raws))
        .boxed()
}

/// Random dim names: a non-empty subsequence of `pool` with at most `max` names, shuffled
/// unless `canonical`.
pub fn names(
    pool: &'static [&'static str],
    min: usize,
    max: usize,
    canonical: bool,
) -> BoxedStrategy<Vec<Dim>> {
    let s = subsequence(pool.to_vec(), min..=max).prop_map(|v| dims(&v));
    if canonical {
        s.boxed()
    } else {
        s.prop_shuffle().boxed()
    }
}

/// Random sizes for the given names.
pub fn sized(
    names: impl Strategy<Value = Vec<Dim>> + 'static,
    log2: std::ops::RangeInclusive<u32>,
) -> BoxedStrategy<Shape> {
    names
        .prop_flat_map(move |ns| {
            let n = ns.len();
            (Just(ns), prop::collection::vec(log2.clone(), n))
        })
        .prop_map(|(ns, ls)| ns.into_iter().zip(ls).collect())
        .boxed()
}

/// Parameters of [`arb_layout`].
#[derive(Clone, Copy, Debug)]
pub struct Cfg {
    pub max_in_dims: usize,
    pub max_in_log2: u32,
    pub max_out_dims: usize,
    pub max_out_log2: u32,
    /// In-dims from `register < lane < warp < block` and outs `dim0 < dim1 < dim2` in that
    /// order (no `offset`), so that any two such layouts can be multiplied.
    pub canonical: bool,
}

pub const SMALL: Cfg = Cfg {
    max_in_dims: 4,
    max_in_log2: 4,
    max_out_dims: 3,
    max_out_log2: 10,
    canonical: false,
};

/// Small enough to enumerate every input.
pub const TINY: Cfg = Cfg {
    max_in_dims: 3,
    max_in_log2: 3,
    max_out_dims: 3,
    max_out_log2: 4,
    canonical: false,
};

pub const CANONICAL: Cfg = Cfg {
    max_in_dims: 4,
    max_in_log2: 3,
    max_out_dims: 3,
    max_out_log2: 4,
    canonical: true,
};

pub fn in_shape(cfg: Cfg) -> BoxedStrategy<Shape> {
    let pool: &'static [&'static str] = if cfg.canonical { &CANON_INS } else { &IN_NAMES };
    sized(
        names(pool, 1, cfg.max_in_dims, cfg.canonical),
        0..=cfg.max_in_log2,
    )
}

pub fn out_shape(cfg: Cfg) -> BoxedStrategy<Shape> {
    sized(
        names(&OUT_NAMES, 1, cfg.max_out_dims, cfg.canonical),
        0..=cfg.max_out_log2,
    )
}

/// A random valid layout: 1–4 in-dims, 1–3 out-dims, bases with zeros and duplicates.
pub fn arb_layout(cfg: Cfg) -> BoxedStrategy<LinearLayout> {
    (in_shape(cfg), out_shape(cfg))
        .prop_flat_map(|(ins, outs)| layout_on(ins, outs))
        .boxed()
}

/// A layout with the given in-dims and random out-dims named from `out_pool`.
pub fn layout_from(
    ins: Shape,
    out_pool: &'static [&'static str],
    max_outs: usize,
    out_log2: std::ops::RangeInclusive<u32>,
) -> BoxedStrategy<LinearLayout> {
    sized(names(out_pool, 1, max_outs, false), out_log2)
        .prop_flat_map(move |outs| layout_on(ins.clone(), outs))
        .boxed()
}

/// A unit vector for flattened output bit `bit`.
fn unit(outs: &[(Dim, u32)], mut bit: u32) -> Vec<u64> {
    let mut v = vec![0u64; outs.len()];
    for (j, &(_, l)) in outs.iter().enumerate() {
        if bit < l {
            v[j] = 1u64 << bit;
            return v;
        }
        bit -= l;
    }
    v
}

/// Splits `n` bits into `cuts.len() + 1` dims, each at most `cap` bits.
fn split(n: u32, cuts: &[Index], cap: u32) -> Vec<u32> {
    let mut points: Vec<u32> = cuts
        .iter()
        .map(|c| c.index(n as usize + 1) as u32)
        .collect();
    points.sort_unstable();
    let mut sizes = Vec::with_capacity(points.len() + 1);
    let mut last = 0;
    for p in points {
        sizes.push(p - last);
        last = p;
    }
    sizes.push(n - last);
    assert!(
        cap as usize * sizes.len() >= n as usize,
        "{n} bits do not fit {} dims",
        sizes.len()
    );
    while let Some(i) = sizes.iter().position(|&s| s > cap) {
        let j = (0..sizes.len()).min_by_key(|&j| sizes[j]).unwrap_or(0);
        sizes[i] -= 1;
        sizes[j] += 1;
    }
    sizes
}

/// A surjective layout onto `outs` with in-dims `ins`: a random invertible matrix (a
/// permutation of the output bits mixed by column XORs), plus `extra` random bases inserted
/// at random positions, split over the in-dims (each at most `cap` bits).
pub fn surjective_on(
    ins: Vec<Dim>,
    outs: Shape,
    extra: std::ops::RangeInclusive<usize>,
    cap: u32,
) -> BoxedStrategy<LinearLayout> {
    let m: u32 = outs.iter().map(|o| o.1).sum();
    let n_out = outs.len();
    let k = ins.len();
    (
        Just((0..m).collect::<Vec<u32>>()).prop_shuffle(),
        prop::collection::vec((any::<Index>(), any::<Index>()), 0..=2 * m as usize),
        prop::collection::vec((raw_basis(n_out), any::<Index>()), extra),
        prop::collection::vec(any::<Index>(), k.saturating_sub(1)),
    )
        .prop_map(move |(perm, ops, extras, cuts)| {
            let mut cols: Vec<Vec<u64>> = perm.iter().map(|&b| unit(&outs, b)).collect();
            let len = cols.len();
            for (a, b) in ops {
                let (i, j) = (a.index(len.max(1)), b.index(len.max(1)));
                if i != j && len > 0 {
                    let src = cols[j].clone();
                    for (x, y) in cols[i].iter_mut().zip(src) {
                        *x ^= y;
                    }
                }
            }
            for (raw, pos) in extras {
                let b = build_basis(&outs, &cols, &raw);
                let p = pos.index(cols.len() + 1);
                cols.insert(p, b);
            }
            let sizes = split(cols.len() as u32, &cuts, cap);
            let shape: Shape = ins.iter().copied().zip(sizes).collect();
            let l = from_flat(&shape, &outs, cols);
            assert!(l.is_surjective(), "surjective generator: {l:?}");
            l
        })
        .boxed()
}

/// A random surjective layout (small).
pub fn arb_surjective(
    cfg: Cfg,
    extra: std::ops::RangeInclusive<usize>,
) -> BoxedStrategy<LinearLayout> {
    let pool: &'static [&'static str] = if cfg.canonical { &CANON_INS } else { &IN_NAMES };
    (
        names(pool, 1, cfg.max_in_dims, cfg.canonical),
        out_shape(cfg),
    )
        .prop_flat_map(move |(ins, outs)| surjective_on(ins, outs, extra.clone(), 63))
        .boxed()
}

/// A random invertible layout (small).
pub fn arb_invertible(cfg: Cfg) -> BoxedStrategy<LinearLayout> {
    arb_surjective(cfg, 0..=0)
}

/// Wide out-dims: `dim0..dim2`, 40–45 bits each (120–135 output bits).
pub fn wide_outs() -> BoxedStrategy<Shape> {
    sized(Just(dims(&OUT_NAMES)), 40..=45)
}

/// A wide surjective layout: 3–4 canonical in-dims over 120–141 input bits.
pub fn arb_wide_surjective(extra: std::ops::RangeInclusive<usize>) -> BoxedStrategy<LinearLayout> {
    (names(&CANON_INS, 3, 4, true), wide_outs())
        .prop_flat_map(move |(ins, outs)| surjective_on(ins, outs, extra.clone(), 63))
        .boxed()
}

/// A wide layout with random bases (usually neither injective nor surjective).
pub fn arb_wide() -> BoxedStrategy<LinearLayout> {
    (sized(names(&IN_NAMES, 3, 4, false), 25..=45), wide_outs())
        .prop_flat_map(|(ins, outs)| layout_on(ins, outs))
        .boxed()
}

/// A random input: one value per in-dim, inside its size.
pub fn input_for(l: &LinearLayout, seeds: &[u64]) -> Vec<(Dim, u64)> {
    l.in_dims()
        .into_iter()
        .enumerate()
        .map(|(i, (d, size))| (d, seeds.get(i).copied().unwrap_or(0) & (size - 1)))
        .collect()
}

/// Output values of `l` at `x`, in out-dim order.
pub fn apply_vals(l: &LinearLayout, x: &[(Dim, u64)]) -> Vec<u64> {
    l.apply(x)
        .expect("apply on a valid input")
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// Every input of a small layout, as flattened integers (in-dims concatenated, minor first).
pub fn unflatten(l: &LinearLayout, mut flat: u64) -> Vec<(Dim, u64)> {
    l.in_dims()
        .into_iter()
        .map(|(d, size)| {
            let v = flat & (size - 1);
            flat >>= size.trailing_zeros();
            (d, v)
        })
        .collect()
}

/// The product of identities `d → d` over the given dims.
pub fn identity_on(shape: &[(Dim, u64)]) -> LinearLayout {
    shape.iter().fold(LinearLayout::empty(), |acc, &(d, size)| {
        acc.product(&LinearLayout::identity_1d(size, d, d).expect("identity"))
            .expect("product of identities")
    })
}

/// A proptest config with `cases` cases that writes no regression files into the source tree.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Reference GF(2) elimination, independent of the library: the flattened column of every
/// input bit (out-dims concatenated, LSB first) as 64-bit words.
pub fn columns(l: &LinearLayout) -> Vec<Vec<u64>> {
    let outs = shape_of(l, false);
    let total: u32 = outs.iter().map(|o| o.1).sum();
    let words = (total as usize).div_ceil(64).max(1);
    let mut cols = Vec::new();
    for (_, bases) in l.bases() {
        for b in bases {
            let mut col = vec![0u64; words];
            let mut off = 0usize;
            for (&c, &(_, lg)) in b.iter().zip(&outs) {
                for i in 0..lg as usize {
                    if c >> i & 1 == 1 {
                        let k = off + i;
                        col[k / 64] |= 1 << (k % 64);
                    }
                }
                off += lg as usize;
            }
            cols.push(col);
        }
    }
    cols
}

/// Echelon basis keyed by highest set bit; `insert` returns whether `v` was independent.
#[derive(Default)]
pub struct RefEchelon {
    rows: Vec<Vec<u64>>,
}

fn top_bit(v: &[u64]) -> Option<usize> {
    v.iter()
        .enumerate()
        .rev()
        .find(|(_, &w)| w != 0)
        .map(|(i, w)| i * 64 + 63 - w.leading_zeros() as usize)
}

impl RefEchelon {
    pub fn reduce(&self, mut v: Vec<u64>) -> Vec<u64> {
        loop {
            let Some(t) = top_bit(&v) else { return v };
            match self.rows.iter().find(|r| top_bit(r) == Some(t)) {
                Some(r) => {
                    for (a, b) in v.iter_mut().zip(r) {
                        *a ^= b;
                    }
                }
                None => return v,
            }
        }
    }
    pub fn insert(&mut self, v: Vec<u64>) -> bool {
        let r = self.reduce(v);
        if top_bit(&r).is_some() {
            self.rows.push(r);
            true
        } else {
            false
        }
    }
    pub fn rank(&self) -> usize {
        self.rows.len()
    }
}

/// The rank of a layout by the reference elimination.
pub fn ref_rank(l: &LinearLayout) -> u32 {
    let mut e = RefEchelon::default();
    for c in columns(l) {
        e.insert(c);
    }
    e.rank() as u32
}

/// A layout whose in-dims are a prefix of `register, lane, warp, block` and whose out-dims are a
/// prefix of `dim0, dim1, dim2`: any two such layouts multiply in the canonical dim order,
/// whatever the grouping (products merge dim lists by a supremum that cannot know the global
/// order when two lists leave a gap, e.g. `[lane, block] * [register, warp]`).
pub fn arb_prefix_layout(max_in_log2: u32, max_out_log2: u32) -> BoxedStrategy<LinearLayout> {
    let ins = sized(
        (1usize..=4).prop_map(|k| dims(&CANON_INS[..k])),
        0..=max_in_log2,
    );
    let outs = sized(
        (1usize..=3).prop_map(|k| dims(&OUT_NAMES[..k])),
        0..=max_out_log2,
    );
    (ins, outs).prop_flat_map(|(i, o)| layout_on(i, o)).boxed()
}

/// Surjective layouts in the `#ttg.linear` shape: in-dims register < lane < warp < block, out-dims
/// a prefix dim0..dimN-1.
pub fn arb_mlir_layout() -> BoxedStrategy<LinearLayout> {
    (
        names(&CANON_INS, 1, 4, true),
        (1usize..=3).prop_flat_map(|k| prop::collection::vec(0u32..=6, k)),
    )
        .prop_flat_map(|(ins, sizes)| {
            let outs: Shape = sizes
                .into_iter()
                .enumerate()
                .map(|(i, l)| (Dim::standard(i), l))
                .collect();
            surjective_on(ins, outs, 0..=4, 63)
        })
        .boxed()
}
