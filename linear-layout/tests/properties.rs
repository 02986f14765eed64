//! Algebraic properties of `LinearLayout`, checked on random layouts (see `common/mod.rs` for
//! the generators): small layouts, surjective and invertible ones, and wide ones with more than
//! 64 input and output bits.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::*;
use linear_layout::{divide_left, divide_right, lstsq, Dim, LayoutError, LinearLayout};
use proptest::prelude::*;
use proptest::sample::{subsequence, Index};

// ----- helpers -----------------------------------------------------------------------------

/// `shape` in a random order, each dim grown by 0 or 1 bit (a valid outer in-dim list).
fn shuffled_grown(shape: Shape, grow: bool) -> BoxedStrategy<Shape> {
    let n = shape.len();
    let extra = if grow { 0u32..=1 } else { 0u32..=0 };
    (Just(shape).prop_shuffle(), prop::collection::vec(extra, n))
        .prop_map(|(s, g)| s.into_iter().zip(g).map(|((d, l), e)| (d, l + e)).collect())
        .boxed()
}

/// `(A, B, C)` with `A`'s out-dims feeding `B`'s in-dims and `B`'s feeding `C`'s.
fn compose_chain(
    a: BoxedStrategy<LinearLayout>,
    mid_outs: usize,
    mid_log2: std::ops::RangeInclusive<u32>,
    out_log2: std::ops::RangeInclusive<u32>,
) -> BoxedStrategy<(LinearLayout, LinearLayout, LinearLayout)> {
    a.prop_flat_map(move |a| {
        let b = shuffled_grown(shape_of(&a, false), true).prop_flat_map({
            let mid_log2 = mid_log2.clone();
            move |ins| layout_from(ins, &MID_NAMES, mid_outs, mid_log2.clone())
        });
        (Just(a), b)
    })
    .prop_flat_map(move |(a, b)| {
        let out_log2 = out_log2.clone();
        let c = shuffled_grown(shape_of(&b, false), true)
            .prop_flat_map(move |ins| layout_from(ins, &OUT_NAMES, 3, out_log2.clone()));
        (Just(a), Just(b), c)
    })
    .boxed()
}

/// A layout whose every basis is an XOR of bases of `outer` (so its image is inside `outer`'s),
/// with the same out-dims in a random order. An in-dim that `outer` also has may copy `outer`'s
/// bases for it (Triton's identity-dims shortcut). With `noise`, some bases get a random vector
/// added, which usually leaves the image.
fn inner_for(outer: LinearLayout, noise: bool) -> BoxedStrategy<LinearLayout> {
    let basis = (
        prop::collection::vec(any::<Index>(), 0..=3),
        0u8..8,
        prop::collection::vec(any::<u64>(), outer.num_out_dims()),
    );
    (
        names(&IN_NAMES, 1, 3, false),
        prop::collection::vec((any::<bool>(), prop::collection::vec(basis, 0..=4)), 3),
        Just(outer.out_dim_names()).prop_shuffle(),
    )
        .prop_map(move |(ins, specs, out_order)| {
            let flat: Vec<Vec<u64>> = outer.bases().into_iter().flat_map(|(_, b)| b).collect();
            let outs = shape_of(&outer, false);
            let mut bases = Vec::new();
            for (d, (copy, list)) in ins.iter().zip(specs) {
                if copy && outer.has_in_dim(*d) {
                    bases.push((*d, outer.bases_of(*d).unwrap()));
                    continue;
                }
                let made = list
                    .into_iter()
                    .map(|(picks, kind, rand)| {
                        let mut v = vec![0u64; outs.len()];
                        if !flat.is_empty() {
                            for p in picks {
                                for (x, y) in v.iter_mut().zip(p.get(&flat)) {
                                    *x ^= y;
                                }
                            }
                        }
                        if noise && kind == 0 {
                            for ((x, r), &(_, l)) in v.iter_mut().zip(rand).zip(&outs) {
                                *x ^= r & mask(l);
                            }
                        }
                        v
                    })
                    .collect();
                bases.push((*d, made));
            }
            let sizes: Vec<(Dim, u64)> = outer.out_dims();
            LinearLayout::from_bases(&bases, &sizes, false)
                .unwrap()
                .transpose_outs(&out_order)
                .unwrap()
        })
        .boxed()
}

/// `A` with its out-dims in `B`'s out-dim order (what `C.compose(B)` produces).
fn in_order_of(a: &LinearLayout, b: &LinearLayout) -> LinearLayout {
    a.transpose_outs(&b.out_dim_names()).unwrap()
}

/// The same bases in out-dims enlarged by `grow[j]` bits.
fn enlarged(l: &LinearLayout, grow: &[u32]) -> LinearLayout {
    let sizes: Vec<(Dim, u64)> = l
        .out_dims()
        .into_iter()
        .zip(grow.iter().chain(std::iter::repeat(&0)))
        .map(|((d, s), &g)| (d, s << g))
        .collect();
    LinearLayout::from_bases(&l.bases(), &sizes, false).unwrap()
}

/// Checks `C.compose(outer) == inner` for a solution `C` of `outer ∘ C = inner`.
fn check_solution(
    c: &LinearLayout,
    inner: &LinearLayout,
    outer: &LinearLayout,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(c.in_dims(), inner.in_dims());
    prop_assert_eq!(c.out_dims(), outer.in_dims());
    prop_assert_eq!(c.compose(outer).unwrap(), in_order_of(inner, outer));
    Ok(())
}

/// Prefixes every in-dim name so two layouts can be concatenated.
fn prefixed(l: &LinearLayout, prefix: &str) -> LinearLayout {
    l.in_dim_names().into_iter().fold(l.clone(), |acc, d| {
        acc.rename_in_dim(d, format!("{prefix}{d}")).unwrap()
    })
}

/// Whether the image of `inner` lies in the image of `outer` (same out-dims and sizes).
fn image_contained(inner: &LinearLayout, outer: &LinearLayout) -> bool {
    let both = prefixed(outer, "o_")
        .concat_ins(&prefixed(&in_order_of(inner, outer), "i_"))
        .unwrap();
    ref_rank(&both) == ref_rank(outer)
}

/// A random split of `n` bits into dims `r0, r1, …` of at most 63 bits.
fn split_shape(n: u32, cuts: &[Index]) -> Vec<(Dim, u64)> {
    let mut points: Vec<u32> = cuts
        .iter()
        .map(|c| c.index(n as usize + 1) as u32)
        .collect();
    points.push(0);
    points.push(n);
    points.sort_unstable();
    let mut sizes: Vec<u32> = points.windows(2).map(|w| w[1] - w[0]).collect();
    while let Some(i) = sizes.iter().position(|&s| s > 63) {
        sizes[i] -= 1;
        sizes.push(1);
    }
    sizes
        .into_iter()
        .enumerate()
        .map(|(i, l)| (Dim::new(&format!("r{i}")), 1u64 << l))
        .collect()
}

fn xor(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// Flattened input of a layout with at most 64 input bits.
fn flatten_input(l: &LinearLayout, x: &[(Dim, u64)]) -> u64 {
    let mut flat = 0u64;
    let mut off = 0u32;
    for ((_, v), (_, size)) in x.iter().zip(l.in_dims()) {
        if *v != 0 {
            flat |= v << off;
        }
        off += size.trailing_zeros();
    }
    flat
}

// ----- 1, 2: associativity -----------------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    /// (A∘B)∘C == A∘(B∘C), with shuffled and enlarged intermediate dims.
    #[test]
    fn compose_is_associative(
        (a, b, c) in compose_chain(arb_layout(SMALL), 3, 0..=6, 0..=6)
    ) {
        let left = a.compose(&b).unwrap().compose(&c).unwrap();
        let right = a.compose(&b.compose(&c).unwrap()).unwrap();
        prop_assert_eq!(left, right);
    }

    /// compose agrees with applying the two layouts one after the other.
    #[test]
    fn compose_agrees_with_apply(
        (a, b, _c) in compose_chain(arb_layout(SMALL), 3, 0..=6, 0..=0),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let ab = a.compose(&b).unwrap();
        let x = input_for(&a, &seeds);
        let mid = a.apply(&x).unwrap();
        prop_assert_eq!(ab.apply(&x).unwrap(), b.apply(&mid).unwrap());
    }

    /// Composing with the identity on either side changes nothing.
    #[test]
    fn compose_with_identity(a in arb_layout(SMALL)) {
        prop_assert_eq!(a.compose(&identity_on(&a.out_dims())).unwrap(), a.clone());
        let id_in = identity_on(&a.in_dims());
        prop_assert_eq!(id_in.compose(&a).unwrap(), a.clone());
    }

    /// (A*B)*C == A*(B*C) for dim lists that are prefixes of one global order; the empty
    /// layout is neutral.
    #[test]
    fn product_is_associative(
        a in arb_prefix_layout(3, 4),
        b in arb_prefix_layout(3, 4),
        c in arb_prefix_layout(3, 4),
    ) {
        let left = (&(&a * &b).unwrap() * &c).unwrap();
        let right = (&a * &(&b * &c).unwrap()).unwrap();
        prop_assert_eq!(&left, &right);
        prop_assert_eq!(&(&LinearLayout::empty() * &a).unwrap(), &a);
        prop_assert_eq!(&(&a * &LinearLayout::empty()).unwrap(), &a);
        prop_assert_eq!(left.total_in_dim_size_log2(),
            a.total_in_dim_size_log2() + b.total_in_dim_size_log2() + c.total_in_dim_size_log2());
        prop_assert_eq!(left.rank(), a.rank() + b.rank() + c.rank());
    }

    /// A product evaluates each operand on its share of the input bits: on a shared in-dim the
    /// first operand reads the low bits, on a shared out-dim the second's value is shifted up.
    #[test]
    fn product_matches_apply(
        a in arb_layout(CANONICAL),
        b in arb_layout(CANONICAL),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let Ok(p) = a.product(&b) else {
            // Only a common-dim order conflict can make it fail here.
            let common = |x: Vec<Dim>, y: Vec<Dim>| -> Vec<Dim> { x.into_iter().filter(|d| y.contains(d)).collect() };
            prop_assert!(
                common(a.in_dim_names(), b.in_dim_names()) != common(b.in_dim_names(), a.in_dim_names())
                    || common(a.out_dim_names(), b.out_dim_names()) != common(b.out_dim_names(), a.out_dim_names())
            );
            return Ok(());
        };
        let log2 = |l: &LinearLayout, d: Dim, ins: bool| -> u32 {
            let r = if ins { l.in_dim_size_log2(d) } else { l.out_dim_size_log2(d) };
            r.unwrap_or(0)
        };
        let x = input_for(&p, &seeds);
        let xa: Vec<(Dim, u64)> = a.in_dim_names().into_iter()
            .map(|d| (d, x.iter().find(|e| e.0 == d).unwrap().1 & mask(log2(&a, d, true))))
            .collect();
        let xb: Vec<(Dim, u64)> = b.in_dim_names().into_iter()
            .map(|d| (d, x.iter().find(|e| e.0 == d).unwrap().1 >> log2(&a, d, true)))
            .collect();
        let (ya, yb) = (a.apply(&xa).unwrap(), b.apply(&xb).unwrap());
        let want: Vec<(Dim, u64)> = p.out_dim_names().into_iter().map(|o| {
            let va = ya.iter().find(|e| e.0 == o).map_or(0, |e| e.1);
            let vb = yb.iter().find(|e| e.0 == o).map_or(0, |e| e.1);
            (o, va ^ (vb << log2(&a, o, false)))
        }).collect();
        prop_assert_eq!(p.apply(&x).unwrap(), want);
    }

    /// identity_1d, strided_1d and zeros_1d compute what they say.
    #[test]
    fn one_dim_constructors(log2 in 0u32..=12, stride_log2 in 0u32..=12, out_log2 in 0u32..=12, x in any::<u64>()) {
        let size = 1u64 << log2;
        let x = x & (size - 1);
        let id = LinearLayout::identity_1d(size, "lane", "dim0").unwrap();
        prop_assert!(id.is_invertible());
        prop_assert_eq!(apply_vals(&id, &[(Dim::new("lane"), x)]), vec![x]);
        let st = LinearLayout::strided_1d(size, 1 << stride_log2, "lane", "dim0").unwrap();
        prop_assert_eq!(st.out_dim_size("dim0").unwrap(), size << stride_log2);
        prop_assert_eq!(apply_vals(&st, &[(Dim::new("lane"), x)]), vec![x << stride_log2]);
        prop_assert_eq!(st.is_surjective(), stride_log2 == 0);
        let z = LinearLayout::zeros_1d(size, "lane", "dim0", 1 << out_log2).unwrap();
        prop_assert_eq!(apply_vals(&z, &[(Dim::new("lane"), x)]), vec![0]);
        prop_assert_eq!(z.rank(), 0);
        prop_assert_eq!(LinearLayout::identity_1d(0, "lane", "dim0").unwrap(), LinearLayout::empty());
    }

    /// With arbitrary sub-lists of the global order a grouping may fail (the supremum of
    /// `[lane, block]` and `[register, warp]` is `[register, lane, block, warp]`, which then
    /// conflicts with `[register, lane, warp, block]`), but when both groupings succeed with
    /// the same dim orders they agree.
    #[test]
    fn product_groupings_agree_when_both_succeed(
        a in arb_layout(CANONICAL),
        b in arb_layout(CANONICAL),
        c in arb_layout(CANONICAL),
    ) {
        let left = (&a * &b).and_then(|ab| &ab * &c);
        let right = (&b * &c).and_then(|bc| &a * &bc);
        if let (Ok(l), Ok(r)) = (left, right) {
            if l.in_dim_names() == r.in_dim_names() && l.out_dim_names() == r.out_dim_names() {
                prop_assert_eq!(l, r);
            }
        }
    }
}

/// Dim names for layouts with more dims than `compose` keeps on the stack (8).
const MANY_MIDS: [&str; 12] = [
    "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11",
];
const MANY_OUTS: [&str; 12] = [
    "o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9", "o10", "o11",
];

/// `(A, B)` with `A`'s out-dims `mid` feeding `B`'s in-dims (shuffled, grown) and `B`'s out-dims
/// drawn from `outs`.
fn compose_pair(
    mid: BoxedStrategy<Shape>,
    outs: BoxedStrategy<Shape>,
) -> BoxedStrategy<(LinearLayout, LinearLayout)> {
    (in_shape(SMALL), mid, outs)
        .prop_flat_map(|(ins, mid, outs)| {
            let b = shuffled_grown(mid.clone(), true)
                .prop_flat_map(move |b_ins| layout_on(b_ins, outs.clone()));
            (layout_on(ins, mid), b)
        })
        .boxed()
}

/// Every basis of `A∘B` is `B` applied to `A`'s basis (the definition, one input bit at a time).
fn check_compose_bases(a: &LinearLayout, b: &LinearLayout) -> Result<(), TestCaseError> {
    let ab = a.compose(b).unwrap();
    prop_assert_eq!(ab.in_dims(), a.in_dims());
    prop_assert_eq!(ab.out_dims(), b.out_dims());
    let dims = a.in_dims();
    for (d, size) in &dims {
        for i in 0..size.trailing_zeros() {
            let x: Vec<(Dim, u64)> = dims
                .iter()
                .map(|&(e, _)| (e, if e == *d { 1u64 << i } else { 0 }))
                .collect();
            prop_assert_eq!(
                ab.apply(&x).unwrap(),
                b.apply(&a.apply(&x).unwrap()).unwrap(),
                "{}, bit {}",
                d,
                i
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    /// More than 8 dims between the two layouts (`compose` keeps 8 on the stack).
    #[test]
    fn compose_through_many_dims(
        (a, b) in compose_pair(sized(names(&MANY_MIDS, 9, 12, false), 0..=3), sized(names(&OUT_NAMES, 1, 3, false), 0..=6))
    ) {
        prop_assert!(a.num_out_dims() > 8);
        check_compose_bases(&a, &b)?;
    }

    /// An outer layout with more than 8 out-dims, within 64 output bits.
    #[test]
    fn compose_onto_many_dims(
        (a, b) in compose_pair(sized(names(&MID_NAMES, 1, 4, false), 0..=5), sized(names(&MANY_OUTS, 9, 12, false), 0..=4))
    ) {
        prop_assert!(b.num_out_dims() > 8 && b.total_out_dim_size_log2() <= 64);
        check_compose_bases(&a, &b)?;
    }

    /// An outer layout from at most 64 input bits onto more than 64 output bits (never
    /// surjective): narrow columns, wide results.
    #[test]
    fn compose_into_a_wide_codomain(
        (a, b) in compose_pair(sized(names(&MID_NAMES, 1, 3, false), 5..=15), sized(names(&OUT_NAMES, 2, 3, false), 33..=40))
    ) {
        prop_assert!(b.total_in_dim_size_log2() <= 64 && b.total_out_dim_size_log2() > 64);
        check_compose_bases(&a, &b)?;
    }

    /// An outer layout over more than 64 input bits onto at most 64 output bits (never
    /// injective): the wide path with narrow results.
    #[test]
    fn compose_from_a_wide_domain(
        (a, b) in compose_pair(sized(names(&MID_NAMES, 4, 4, false), 17..=25), sized(names(&OUT_NAMES, 1, 3, false), 0..=20))
    ) {
        prop_assert!(b.total_in_dim_size_log2() > 64 && b.total_out_dim_size_log2() <= 64);
        check_compose_bases(&a, &b)?;
    }

    /// Outer layouts of every input width from 0 to 64 bits onto at most 64 output bits: the
    /// nibble tables of `compose`'s fast path (one table per 4 outer input bits) and their
    /// edges.
    #[test]
    fn compose_across_outer_widths(
        (a, b) in compose_pair(sized(names(&MID_NAMES, 1, 4, false), 0..=15), sized(names(&OUT_NAMES, 1, 3, false), 0..=21))
    ) {
        prop_assert!(b.total_in_dim_size_log2() <= 64 && b.total_out_dim_size_log2() <= 64);
        check_compose_bases(&a, &b)?;
    }
}

// ----- 3, 5: inverses ----------------------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    /// A ∘ pseudoinvert(A) is the identity on A's out-dims.
    #[test]
    fn pseudoinvert_is_a_right_inverse(a in arb_surjective(SMALL, 0..=6)) {
        let p = a.pseudoinvert().unwrap();
        prop_assert_eq!(p.compose(&a).unwrap(), identity_on(&a.out_dims()));
    }

    /// pseudoinvert refuses exactly the non-surjective layouts.
    #[test]
    fn pseudoinvert_needs_surjective(a in arb_layout(SMALL)) {
        match a.pseudoinvert() {
            Ok(p) => {
                prop_assert!(a.is_surjective());
                prop_assert_eq!(p.compose(&a).unwrap(), identity_on(&a.out_dims()));
            }
            Err(e) => {
                prop_assert!(!a.is_surjective());
                let is_not_surjective = matches!(e, LayoutError::NotSurjective { .. });
                prop_assert!(is_not_surjective);
            }
        }
    }

    /// invert(invert(A)) == A, and both compositions are identities.
    #[test]
    fn invert_round_trips(a in arb_invertible(SMALL)) {
        prop_assert!(a.is_invertible());
        let inv = a.invert().unwrap();
        prop_assert_eq!(&inv.invert().unwrap(), &a);
        prop_assert_eq!(a.compose(&inv).unwrap(), identity_on(&a.in_dims()));
        prop_assert_eq!(inv.compose(&a).unwrap(), identity_on(&a.out_dims()));
        prop_assert_eq!(inv, a.pseudoinvert().unwrap());
    }

    /// invert succeeds exactly on invertible layouts.
    #[test]
    fn invert_needs_invertible(a in arb_layout(TINY)) {
        prop_assert_eq!(a.invert().is_ok(), a.is_invertible());
    }
}

// ----- 4: invert_and_compose, lstsq, preferring ------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    /// When Im(inner) ⊆ Im(outer), each solver returns C with outer ∘ C == inner.
    #[test]
    fn solvers_invert_the_outer_layout(
        (outer, inner) in arb_layout(SMALL).prop_flat_map(|b| (Just(b.clone()), inner_for(b, false)))
    ) {
        let c = inner.invert_and_compose(&outer).unwrap();
        check_solution(&c, &inner, &outer)?;
        let x = lstsq(&outer, &inner).unwrap();
        check_solution(&x, &inner, &outer)?;
        let p = inner.invert_and_compose_preferring(&outer, &["register", "lane"]).unwrap();
        check_solution(&p, &inner, &outer)?;
        // lstsq takes the smallest preimage: free variables of `outer` are never used.
        let free = outer.free_variable_masks();
        for (_, bases) in x.bases() {
            for b in bases {
                for (&c, &(_, m)) in b.iter().zip(&free) {
                    prop_assert_eq!(c & m, 0, "lstsq used a free variable: {:?}", x);
                }
            }
        }
        // preferring keeps a non-preferred dim in place where both layouts agree on a basis.
        let inner_b = in_order_of(&inner, &outer);
        for (d, bases) in inner_b.bases() {
            if ["register", "lane"].contains(&d.name()) || !outer.has_in_dim(d) {
                continue;
            }
            let k = outer.in_dim_names().iter().position(|&e| e == d).unwrap();
            for (i, b) in bases.iter().enumerate() {
                if outer.basis(d, i as u32).ok() == Some(b.as_slice()) {
                    let mut unit = vec![0u64; outer.num_in_dims()];
                    unit[k] = 1 << i;
                    prop_assert_eq!(p.basis(d, i as u32).unwrap(), unit.as_slice());
                }
            }
        }
        if outer.is_injective() {
            // The solution is unique.
            prop_assert_eq!(&c, &x);
            prop_assert_eq!(&c, &p);
        }
    }

    /// The outer layout may have a larger codomain than the inner one; any preferred dims.
    #[test]
    fn solvers_accept_a_larger_outer_codomain(
        (outer, inner) in arb_layout(SMALL).prop_flat_map(|b| (Just(b.clone()), inner_for(b, false))),
        grow in prop::collection::vec(0u32..=2, 3),
        preferred in subsequence(IN_NAMES.to_vec(), 0..=5).prop_shuffle(),
    ) {
        let big = enlarged(&outer, &grow);
        let want = enlarged(&in_order_of(&inner, &outer), &grow);
        let solutions = [
            inner.invert_and_compose(&big).unwrap(),
            lstsq(&big, &inner).unwrap(),
            inner.invert_and_compose_preferring(&big, &preferred).unwrap(),
        ];
        for c in solutions {
            prop_assert_eq!(c.out_dims(), big.in_dims());
            prop_assert_eq!(&c.compose(&big).unwrap(), &want);
        }
        // The other way round the inner layout's codomain is too large.
        if grow.iter().take(outer.num_out_dims()).any(|&g| g > 0) {
            let too_big = enlarged(&inner, &grow);
            let size_mismatch = matches!(
                too_big.invert_and_compose(&outer),
                Err(LayoutError::SizeMismatch { .. })
            );
            prop_assert!(size_mismatch);
        }
    }

    /// Each solver succeeds iff Im(inner) ⊆ Im(outer), and otherwise says NotInImage.
    #[test]
    fn solvers_fail_exactly_outside_the_image(
        (outer, inner) in arb_layout(SMALL).prop_flat_map(|b| (Just(b.clone()), inner_for(b, true)))
    ) {
        let contained = image_contained(&inner, &outer);
        let results = [
            inner.invert_and_compose(&outer),
            lstsq(&outer, &inner),
            inner.invert_and_compose_preferring(&outer, &["register", "lane"]),
            inner.invert_and_compose_preferring(&outer, &["warp"]),
        ];
        for r in results {
            match r {
                Ok(c) => {
                    prop_assert!(contained);
                    check_solution(&c, &inner, &outer)?;
                }
                Err(e) => {
                    prop_assert!(!contained, "unexpected error {:?}", e);
                    // The error names a basis of the inner layout (an in-dim and a power of
                    // two), where it maps, and that image is indeed outside the outer one's.
                    let LayoutError::NotInImage { in_dim, value, image, .. } = e else {
                        return Err(TestCaseError::fail(format!("wrong error {e:?}")));
                    };
                    prop_assert!(value.is_power_of_two());
                    let d = Dim::new(&in_dim);
                    let basis = inner.bases_of(d).unwrap()[value.trailing_zeros() as usize].clone();
                    let named: Vec<(String, u64)> =
                        inner.out_dim_names().iter().map(|o| o.to_string()).zip(basis.iter().copied()).collect();
                    prop_assert_eq!(image, named);
                    let alone = LinearLayout::from_bases(&[(d, vec![basis])], &inner.out_dims(), false).unwrap();
                    prop_assert!(!image_contained(&alone, &outer));
                }
            }
        }
    }

    /// A surjective layout covers everything: the solvers agree with pseudoinvert.
    #[test]
    fn invert_and_compose_of_identity_is_pseudoinverse(a in arb_surjective(SMALL, 0..=4)) {
        let id = identity_on(&a.out_dims());
        prop_assert_eq!(id.invert_and_compose(&a).unwrap(), a.pseudoinvert().unwrap());
        check_solution(&lstsq(&a, &id).unwrap(), &id, &a)?;
    }
}

// ----- 5: shape round trips ----------------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn reshape_round_trips(
        a in arb_layout(SMALL),
        in_cuts in prop::collection::vec(any::<Index>(), 0..=3),
        out_cuts in prop::collection::vec(any::<Index>(), 0..=3),
        flat in any::<u64>(),
    ) {
        let ri = a.reshape_ins(&split_shape(a.total_in_dim_size_log2(), &in_cuts)).unwrap();
        prop_assert_eq!(&ri.reshape_ins(&a.in_dims()).unwrap(), &a);
        let ro = a.reshape_outs(&split_shape(a.total_out_dim_size_log2(), &out_cuts)).unwrap();
        prop_assert_eq!(&ro.reshape_outs(&a.out_dims()).unwrap(), &a);
        // Reshapes keep the flattened map.
        let x = flat & mask(a.total_in_dim_size_log2());
        let e = a.evaluator().unwrap().apply(x);
        prop_assert_eq!(ri.evaluator().unwrap().apply(x), e);
        prop_assert_eq!(ro.evaluator().unwrap().apply(x), e);
        prop_assert_eq!(ri.rank(), a.rank());
        prop_assert_eq!(ro.rank(), a.rank());
    }

    #[test]
    fn flatten_round_trips(a in arb_layout(SMALL)) {
        let fo = a.flatten_outs().unwrap();
        prop_assert_eq!(fo.num_out_dims(), 1);
        prop_assert_eq!(&fo.reshape_outs(&a.out_dims()).unwrap(), &a);
        let fi = a.flatten_ins().unwrap();
        prop_assert_eq!(fi.num_in_dims(), 1);
        prop_assert_eq!(&fi.reshape_ins(&a.in_dims()).unwrap(), &a);
    }

    #[test]
    fn transpose_round_trips(
        (a, in_order, out_order) in arb_layout(SMALL).prop_flat_map(|a| {
            let ins = Just(a.in_dim_names()).prop_shuffle();
            let outs = Just(a.out_dim_names()).prop_shuffle();
            (Just(a), ins, outs)
        }),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let ti = a.transpose_ins(&in_order).unwrap();
        prop_assert_eq!(ti.in_dim_names(), in_order.clone());
        prop_assert_eq!(&ti.transpose_ins(&a.in_dim_names()).unwrap(), &a);
        let to = a.transpose_outs(&out_order).unwrap();
        prop_assert_eq!(to.out_dim_names(), out_order.clone());
        prop_assert_eq!(&to.transpose_outs(&a.out_dim_names()).unwrap(), &a);
        // Same map, dims reordered.
        let x = input_for(&a, &seeds);
        let mut want = a.apply(&x).unwrap();
        prop_assert_eq!(ti.apply(&x).unwrap(), want.clone());
        want.sort_by_key(|(d, _)| out_order.iter().position(|o| o == d));
        prop_assert_eq!(to.apply(&x).unwrap(), want);
    }

    #[test]
    fn resize_rename_squeeze_round_trips(
        a in arb_layout(SMALL),
        pick in any::<Index>(),
        pick_out in any::<Index>(),
        grow in 0u32..=3,
        shrink in 0u32..=10,
    ) {
        let (d, size) = *pick.get(&a.in_dims());
        let big = a.resize_in_dim(d, size << grow).unwrap();
        prop_assert_eq!(&big.resize_in_dim(d, size).unwrap(), &a);
        let new_bases = big.bases_of(d).unwrap();
        prop_assert!(new_bases[size.trailing_zeros() as usize..].iter().all(|b| b.iter().all(|&c| c == 0)));

        let cut = size >> grow.min(size.trailing_zeros());
        let shrunk = a.resize_in_dim(d, cut).unwrap().bases_of(d).unwrap();
        prop_assert_eq!(&shrunk[..], &a.bases_of(d).unwrap()[..cut.trailing_zeros() as usize]);

        let (o, osize) = *pick_out.get(&a.out_dims());
        prop_assert_eq!(&a.resize_out_dim(o, osize).unwrap(), &a);
        prop_assert!(a.resize_out_dim(o, osize * 2).is_err());
        let small = osize >> shrink.min(osize.trailing_zeros());
        let r = a.resize_out_dim(o, small).unwrap();
        let j = a.out_dim_names().iter().position(|&x| x == o).unwrap();
        for ((_, old), (_, new)) in a.bases().into_iter().zip(r.bases()) {
            for (ob, nb) in old.iter().zip(&new) {
                for (k, (&oc, &nc)) in ob.iter().zip(nb).enumerate() {
                    let want = if k == j && oc >= small { 0 } else { oc };
                    prop_assert_eq!(nc, want);
                }
            }
        }

        let renamed = a.rename_in_dim(d, "tmp_dim").unwrap();
        prop_assert!(renamed.has_in_dim("tmp_dim") && !renamed.has_in_dim(d));
        prop_assert_eq!(&renamed.rename_in_dim("tmp_dim", d).unwrap(), &a);

        let padded = a.product(&LinearLayout::identity_1d(1, "cta", "dimx").unwrap()).unwrap();
        prop_assert_eq!(padded.in_dim_size("cta").unwrap(), 1);
        let sq = padded.squeeze_ins("cta").unwrap().squeeze_outs("dimx").unwrap();
        prop_assert_eq!(&sq, &a);
    }

    /// concat_ins / concat_outs evaluate to the XOR / the pair, and sublayout takes them apart.
    #[test]
    fn concat_and_sublayout(
        (a, b_outs, b_ins) in arb_layout(SMALL).prop_flat_map(|a| {
            let same_ins = layout_from(shape_of(&a, true), &MID_NAMES, 3, 0..=6);
            let same_outs = sized(names(&MID_NAMES, 1, 3, false), 0..=3)
                .prop_flat_map({ let outs = shape_of(&a, false); move |ins| layout_on(ins, outs.clone()) });
            (Just(a), same_ins, same_outs)
        }),
        seeds in prop::collection::vec(any::<u64>(), 8),
    ) {
        let x = input_for(&a, &seeds);
        let co = a.concat_outs(&b_outs).unwrap();
        let mut want = apply_vals(&a, &x);
        want.extend(apply_vals(&b_outs, &x));
        prop_assert_eq!(apply_vals(&co, &x), want);
        prop_assert_eq!(&co.sublayout(&a.in_dim_names(), &a.out_dim_names()).unwrap(), &a);
        prop_assert_eq!(&co.sublayout(&a.in_dim_names(), &b_outs.out_dim_names()).unwrap(), &b_outs);

        let ci = a.concat_ins(&b_ins).unwrap();
        let y = input_for(&b_ins, &seeds[4..]);
        let mut xy = x.clone();
        xy.extend(y.iter().copied());
        prop_assert_eq!(apply_vals(&ci, &xy), xor(&apply_vals(&a, &x), &apply_vals(&b_ins, &y)));
        prop_assert_eq!(&ci.sublayout(&a.in_dim_names(), &a.out_dim_names()).unwrap(), &a);
        prop_assert_eq!(&ci.sublayout(&b_ins.in_dim_names(), &a.out_dim_names()).unwrap(), &b_ins);
    }

    /// sublayout restricts the map: other inputs read as 0, other outputs are dropped.
    #[test]
    fn sublayout_restricts(
        (a, ins, outs) in arb_layout(SMALL).prop_flat_map(|a| {
            let ins = subsequence(a.in_dim_names(), 0..=a.num_in_dims()).prop_shuffle();
            let outs = subsequence(a.out_dim_names(), 0..=a.num_out_dims()).prop_shuffle();
            (Just(a), ins, outs)
        }),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let s = a.sublayout(&ins, &outs).unwrap();
        let kept_ins: Vec<Dim> = a.in_dim_names().into_iter().filter(|d| ins.contains(d)).collect();
        let kept_outs: Vec<Dim> = a.out_dim_names().into_iter().filter(|d| outs.contains(d)).collect();
        prop_assert_eq!(s.in_dim_names(), kept_ins);
        prop_assert_eq!(s.out_dim_names(), kept_outs);
        let x: Vec<(Dim, u64)> = input_for(&a, &seeds)
            .into_iter()
            .map(|(d, v)| (d, if ins.contains(&d) { v } else { 0 }))
            .collect();
        let full = a.apply(&x).unwrap();
        let want: Vec<(Dim, u64)> = full.into_iter().filter(|(d, _)| outs.contains(d)).collect();
        let sx: Vec<(Dim, u64)> = x.iter().copied().filter(|(d, _)| ins.contains(d)).collect();
        prop_assert_eq!(s.apply(&sx).unwrap(), want);
        let zero = s.bases().iter().all(|(_, b)| b.iter().all(|v| v.iter().all(|&c| c == 0)));
        prop_assert_eq!(a.sublayout_is_zero(&ins, &outs).unwrap(), zero);
    }

    /// quotient removes an identity factor on a dim of its own.
    #[test]
    fn quotient_removes_identity_factor(a in arb_layout(SMALL), log2 in 0u32..=4) {
        let id = LinearLayout::identity_1d(1 << log2, "cta", "cta").unwrap();
        prop_assert_eq!(&a.product(&id).unwrap().quotient(&["cta"]).unwrap(), &a);
        prop_assert_eq!(&id.product(&a).unwrap().quotient(&["cta"]).unwrap(), &a);
        prop_assert_eq!(&a.quotient::<&str>(&[]).unwrap(), &a);
    }
}

// ----- 6: apply and evaluator --------------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn apply_is_linear(
        a in arb_layout(SMALL),
        xs in prop::collection::vec(any::<u64>(), 4),
        ys in prop::collection::vec(any::<u64>(), 4),
    ) {
        let x = input_for(&a, &xs);
        let y = input_for(&a, &ys);
        let xy: Vec<(Dim, u64)> = x.iter().zip(&y).map(|(&(d, u), &(_, v))| (d, u ^ v)).collect();
        prop_assert_eq!(apply_vals(&a, &xy), xor(&apply_vals(&a, &x), &apply_vals(&a, &y)));
        let zero: Vec<(Dim, u64)> = x.iter().map(|&(d, _)| (d, 0)).collect();
        prop_assert!(apply_vals(&a, &zero).iter().all(|&v| v == 0));
        // Inputs may be given in any order.
        let rev: Vec<(Dim, u64)> = x.iter().rev().copied().collect();
        prop_assert_eq!(a.apply(&rev).unwrap(), a.apply(&x).unwrap());
    }

    #[test]
    fn evaluator_agrees_with_apply(a in arb_layout(SMALL), xs in prop::collection::vec(any::<u64>(), 4)) {
        let e = a.evaluator().unwrap();
        let x = input_for(&a, &xs);
        let flat = flatten_input(&a, &x);
        prop_assert_eq!(e.split(e.apply(flat)), apply_vals(&a, &x));
        let mut out = [0u64; 2];
        e.apply_many(&[flat, 0], &mut out);
        prop_assert_eq!(out, [e.apply(flat), 0]);
    }

    /// A range of consecutive inputs (any start, across 256-blocks and past `u64::MAX`) gives
    /// what one `apply` per input gives.
    #[test]
    fn evaluator_range_agrees_with_apply(
        a in arb_layout(SMALL),
        start in prop_oneof![any::<u64>(), (u64::MAX - 600)..=u64::MAX, 0u64..1024],
        len in 0usize..700,
    ) {
        let e = a.evaluator().unwrap();
        let mut out = vec![0u64; len];
        e.apply_range(start, &mut out);
        for (k, &o) in (0u64..).zip(&out) {
            prop_assert_eq!(o, e.apply(start.wrapping_add(k)), "input {}", start.wrapping_add(k));
        }
    }

    /// The batch path (sixteen addresses per vector step where the CPU has AVX-512 and GFNI)
    /// gives what one `apply` per input gives, on every layout of up to 32 → 32 bits and any
    /// input (bits past the layout's width included), whatever the batch's length.
    #[test]
    fn evaluator_batch_agrees_with_apply(
        n_out in 1u32..=32,
        columns in prop::collection::vec(any::<u64>(), 1..=32),
        xs in prop::collection::vec(any::<u64>(), 0..100),
    ) {
        let mask = u64::MAX >> (64 - n_out);
        let bases: Vec<Vec<u64>> = columns.iter().map(|c| vec![c & mask]).collect();
        let l = LinearLayout::from_bases(&[("i", bases)], &[("o", 1u64 << n_out)], false).unwrap();
        let e = l.evaluator().unwrap();
        let (mut batch, mut scalar) = (vec![0u64; xs.len()], vec![0u64; xs.len()]);
        e.apply_many(&xs, &mut batch);
        e.apply_many_scalar(&xs, &mut scalar);
        let one: Vec<u64> = xs.iter().map(|&x| e.apply(x)).collect();
        prop_assert_eq!(&batch, &one);
        prop_assert_eq!(&scalar, &one);
        // Each column lands where its bit says.
        for (bit, c) in (0..).zip(&columns) {
            prop_assert_eq!(e.apply(1 << bit), c & mask);
        }
    }

    /// Every input of a tiny layout: apply == XOR of bases == evaluator.
    #[test]
    fn apply_matches_bases_exhaustively(a in arb_layout(TINY)) {
        let e = a.evaluator().unwrap();
        let flat_bases: Vec<Vec<u64>> = a.bases().into_iter().flat_map(|(_, b)| b).collect();
        for flat in 0..1u64 << a.total_in_dim_size_log2() {
            let x = unflatten(&a, flat);
            let mut want = vec![0u64; a.num_out_dims()];
            for (i, b) in flat_bases.iter().enumerate() {
                if flat >> i & 1 == 1 {
                    want = xor(&want, b);
                }
            }
            prop_assert_eq!(apply_vals(&a, &x), want.clone());
            prop_assert_eq!(e.split(e.apply(flat)), want);
        }
    }

    /// num_consecutive_in_out: the first V values of the first in-dim go to 0..V of dim 0.
    #[test]
    fn num_consecutive_in_out_is_consecutive(a in arb_layout(TINY)) {
        let v = a.num_consecutive_in_out();
        prop_assert!(v.is_power_of_two());
        let first = a.in_dims()[0].1;
        prop_assert!(v <= first.max(1));
        for i in 0..v.min(first) {
            let x: Vec<(Dim, u64)> = a.in_dims().iter().enumerate().map(|(k, &(d, _))| (d, if k == 0 { i } else { 0 })).collect();
            let out = apply_vals(&a, &x);
            prop_assert_eq!(out[0], i);
            prop_assert!(out[1..].iter().all(|&c| c == 0));
        }
    }
}

// ----- 7: text forms -----------------------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn json_round_trips(a in arb_layout(SMALL)) {
        prop_assert_eq!(&LinearLayout::from_json(&a.to_json()).unwrap(), &a);
        prop_assert_eq!(&LinearLayout::from_json_str(&a.to_json().to_string()).unwrap(), &a);
        let via_serde: LinearLayout = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        prop_assert_eq!(&via_serde, &a);
        let hash = |l: &LinearLayout| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            l.hash(&mut h);
            h.finish()
        };
        prop_assert_eq!(hash(&via_serde), hash(&a));
    }

    #[test]
    fn display_is_deterministic(a in arb_layout(SMALL)) {
        let s = a.to_string();
        prop_assert_eq!(&s, &a.clone().to_string());
        prop_assert_eq!(&s, &LinearLayout::from_json(&a.to_json()).unwrap().to_string());
        prop_assert!(s.contains("where out dims are: ["));
        // One line per basis (or per size-1 in-dim), after a leading newline.
        let lines: usize = a.in_dims().iter().map(|&(_, size)| (size.trailing_zeros() as usize).max(1)).sum();
        prop_assert_eq!(s.lines().count(), lines + 2);
        for (d, size) in a.out_dims() {
            let entry = format!("{d} (size {size})");
            prop_assert!(s.contains(&entry));
        }
    }

    #[test]
    fn mlir_round_trips(a in arb_mlir_layout()) {
        prop_assume!(a.total_in_dim_size_log2() > 0);
        let text = a.to_mlir().unwrap();
        prop_assert_eq!(&LinearLayout::from_mlir(&text).unwrap(), &a);
        // The JSON form with inferred sizes gives the same layout.
        let mut v = a.to_json();
        v["out_dims"] = serde_json::Value::Array(
            a.out_dim_names().iter().map(|d| serde_json::Value::from(d.name())).collect(),
        );
        prop_assert_eq!(&LinearLayout::from_json(&v).unwrap(), &a);
    }

    /// to_mlir refuses exactly what `#ttg.linear` cannot express.
    #[test]
    fn to_mlir_needs_surjective_standard_outs(a in arb_layout(CANONICAL)) {
        let standard = a.out_dim_names().iter().enumerate().all(|(i, &d)| d == Dim::standard(i));
        prop_assert_eq!(a.to_mlir().is_ok(), standard && a.is_surjective());
    }
}

// ----- 8: rank and free variables ----------------------------------------------------------

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn rank_and_free_variables(a in arb_layout(SMALL)) {
        check_rank(&a)?;
    }
}

fn check_rank(a: &LinearLayout) -> Result<(), TestCaseError> {
    let rank = a.rank();
    prop_assert_eq!(rank, ref_rank(a));
    let (n_in, n_out) = (a.total_in_dim_size_log2(), a.total_out_dim_size_log2());
    prop_assert!(rank <= n_in.min(n_out));
    prop_assert_eq!(a.is_injective(), rank == n_in);
    prop_assert_eq!(a.is_surjective(), rank == n_out);
    let masks = a.free_variable_masks();
    prop_assert_eq!(
        masks.iter().map(|(d, _)| *d).collect::<Vec<_>>(),
        a.in_dim_names()
    );
    prop_assert_eq!(masks.iter().all(|&(_, m)| m == 0), a.is_injective());
    let free: u32 = masks.iter().map(|&(_, m)| m.count_ones()).sum();
    prop_assert_eq!(free, n_in - rank);
    prop_assert_eq!(
        LinearLayout::from_bases(&a.bases(), &a.out_dims(), true).is_ok(),
        a.is_surjective()
    );
    if n_in <= 64 && n_out <= 64 {
        let m = a.matrix_view();
        prop_assert_eq!(m.len(), n_out as usize);
        for (c, col) in columns(a).iter().enumerate() {
            for (r, row) in m.iter().enumerate() {
                prop_assert_eq!(row[c] as u64, col[r / 64] >> (r % 64) & 1);
            }
        }
    }
    // Bit by bit: free iff dependent on the earlier bases.
    let mut e = RefEchelon::default();
    let mut cols = columns(a).into_iter();
    for ((_, m), (_, size)) in masks.iter().zip(a.in_dims()) {
        for i in 0..size.trailing_zeros() {
            let independent = e.insert(cols.next().unwrap());
            prop_assert_eq!(m >> i & 1 == 1, !independent);
        }
    }
    Ok(())
}

// ----- 9: division -------------------------------------------------------------------------

/// Canonical `(B, C)` where `C` has every dim of `B` (so `B * C` and `C * B` keep `C`'s dim
/// list) plus possibly more.
fn division_pair() -> BoxedStrategy<(LinearLayout, LinearLayout)> {
    arb_layout(CANONICAL)
        .prop_flat_map(|b| {
            let more_ins = subsequence(CANON_INS.to_vec(), 0..=4);
            let more_outs = subsequence(OUT_NAMES.to_vec(), 0..=3);
            (Just(b), more_ins, more_outs)
        })
        .prop_flat_map(|(b, more_ins, more_outs)| {
            let union = |pool: &[&str], have: Vec<Dim>, more: Vec<&str>| -> Vec<Dim> {
                pool.iter()
                    .map(|&n| Dim::new(n))
                    .filter(|d| have.contains(d) || more.iter().any(|&m| Dim::new(m) == *d))
                    .collect()
            };
            let ins = union(&CANON_INS, b.in_dim_names(), more_ins);
            let outs = union(&OUT_NAMES, b.out_dim_names(), more_outs);
            let c = (sized(Just(ins), 0..=3), sized(Just(outs), 0..=4))
                .prop_flat_map(|(i, o)| layout_on(i, o));
            (Just(b), c)
        })
        .boxed()
}

proptest! {
    #![proptest_config(config(768))]

    #[test]
    fn divide_undoes_product((b, c) in division_pair()) {
        let bc = (&b * &c).unwrap();
        prop_assert_eq!(&divide_left(&bc, &b).unwrap(), &c);
        let cb = (&c * &b).unwrap();
        prop_assert_eq!(&divide_right(&cb, &b).unwrap(), &c);
    }

    /// Whatever divide returns is a true quotient.
    #[test]
    fn divide_results_are_quotients(a in arb_layout(CANONICAL), b in arb_layout(CANONICAL)) {
        let covered = b.in_dim_names().iter().all(|&d| a.has_in_dim(d))
            && b.out_dim_names().iter().all(|&d| a.has_out_dim(d));
        if let Ok(c) = divide_left(&a, &b) {
            if covered { prop_assert_eq!(&b.product(&c).unwrap(), &a); }
        }
        if let Ok(c) = divide_right(&a, &b) {
            if covered { prop_assert_eq!(&c.product(&b).unwrap(), &a); }
        }
        // A layout divided by itself leaves the size-1 layout on its dims.
        let ones = divide_left(&a, &a).unwrap();
        prop_assert_eq!(ones.total_in_dim_size_log2() + ones.total_out_dim_size_log2(), 0);
    }
}

// ----- 10: wide layouts (more than 64 input and output bits) -------------------------------

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn wide_pseudoinvert_and_invert(a in arb_wide_surjective(0..=6), inv in arb_wide_surjective(0..=0)) {
        prop_assert!(a.total_out_dim_size_log2() > 64);
        let p = a.pseudoinvert().unwrap();
        prop_assert_eq!(p.compose(&a).unwrap(), identity_on(&a.out_dims()));
        let i = inv.invert().unwrap();
        prop_assert_eq!(&i.invert().unwrap(), &inv);
        prop_assert_eq!(inv.compose(&i).unwrap(), identity_on(&inv.in_dims()));
        prop_assert!(a.evaluator().is_err());
    }

    #[test]
    fn wide_solvers(
        (outer, inner) in prop_oneof![arb_wide(), arb_wide_surjective(0..=4)]
            .prop_flat_map(|b| (Just(b.clone()), inner_for(b, false)))
    ) {
        prop_assert!(outer.total_out_dim_size_log2() > 64);
        check_solution(&inner.invert_and_compose(&outer).unwrap(), &inner, &outer)?;
        check_solution(&lstsq(&outer, &inner).unwrap(), &inner, &outer)?;
        check_solution(&inner.invert_and_compose_preferring(&outer, &["register", "lane"]).unwrap(), &inner, &outer)?;
    }

    #[test]
    fn wide_solvers_fail_outside_the_image(
        (outer, inner) in arb_wide().prop_flat_map(|b| (Just(b.clone()), inner_for(b, true)))
    ) {
        let contained = image_contained(&inner, &outer);
        prop_assert_eq!(inner.invert_and_compose(&outer).is_ok(), contained);
        prop_assert_eq!(lstsq(&outer, &inner).is_ok(), contained);
    }

    #[test]
    fn wide_compose_is_associative(
        (a, b, c) in compose_chain(arb_wide(), 3, 30..=45, 20..=45),
        seeds in prop::collection::vec(any::<u64>(), 4),
    ) {
        let ab = a.compose(&b).unwrap();
        let left = ab.compose(&c).unwrap();
        let right = a.compose(&b.compose(&c).unwrap()).unwrap();
        prop_assert_eq!(&left, &right);
        let x = input_for(&a, &seeds);
        prop_assert_eq!(ab.apply(&x).unwrap(), b.apply(&a.apply(&x).unwrap()).unwrap());
    }

    #[test]
    fn wide_apply_rank_text(
        a in prop_oneof![arb_wide(), arb_wide_surjective(0..=6)],
        xs in prop::collection::vec(any::<u64>(), 4),
        ys in prop::collection::vec(any::<u64>(), 4),
        cuts in prop::collection::vec(any::<Index>(), 2..=4),
    ) {
        prop_assert!(a.total_in_dim_size_log2() > 64 && a.total_out_dim_size_log2() > 64);
        let x = input_for(&a, &xs);
        let y = input_for(&a, &ys);
        let xy: Vec<(Dim, u64)> = x.iter().zip(&y).map(|(&(d, u), &(_, v))| (d, u ^ v)).collect();
        prop_assert_eq!(apply_vals(&a, &xy), xor(&apply_vals(&a, &x), &apply_vals(&a, &y)));
        check_rank(&a)?;
        prop_assert_eq!(&LinearLayout::from_json_str(&a.to_json().to_string()).unwrap(), &a);
        if a.is_surjective() && a.in_dim_names().iter().all(|d| CANON_INS.contains(&d.name())) {
            prop_assert_eq!(&LinearLayout::from_mlir(&a.to_mlir().unwrap()).unwrap(), &a);
        }
        let ro = a.reshape_outs(&split_shape(a.total_out_dim_size_log2(), &cuts)).unwrap();
        prop_assert_eq!(ro.rank(), a.rank());
        prop_assert_eq!(&ro.reshape_outs(&a.out_dims()).unwrap(), &a);
        prop_assert!(a.flatten_outs().is_err());
    }

    #[test]
    fn wide_product_is_associative(
        a in (sized(names(&CANON_INS, 4, 4, true), 15..=20), sized(names(&OUT_NAMES, 3, 3, true), 18..=22))
            .prop_flat_map(|(i, o)| layout_on(i, o)),
        b in arb_prefix_layout(3, 4),
        c in arb_prefix_layout(3, 4),
    ) {
        prop_assert!(a.total_in_dim_size_log2() > 56);
        let left = (&(&a * &b).unwrap() * &c).unwrap();
        let right = (&a * &(&b * &c).unwrap()).unwrap();
        prop_assert_eq!(&left, &right);
        prop_assert_eq!(left.rank(), ref_rank(&left));
    }

    /// Dims of the maximal 63 bits: values up to 2^63 - 1 everywhere.
    #[test]
    fn widest_dims(
        a in (names(&CANON_INS, 3, 4, true), (0u32..=10))
            .prop_flat_map(|(ins, small)| {
                let outs: Shape = vec![(Dim::new("dim0"), 63), (Dim::new("dim1"), 63), (Dim::new("dim2"), small)];
                surjective_on(ins, outs, 0..=3, 63)
            }),
        xs in prop::collection::vec(any::<u64>(), 4),
        ys in prop::collection::vec(any::<u64>(), 4),
    ) {
        let p = a.pseudoinvert().unwrap();
        prop_assert_eq!(p.compose(&a).unwrap(), identity_on(&a.out_dims()));
        if a.is_invertible() {
            prop_assert_eq!(&a.invert().unwrap().invert().unwrap(), &a);
        }
        let x = input_for(&a, &xs);
        let y = input_for(&a, &ys);
        let xy: Vec<(Dim, u64)> = x.iter().zip(&y).map(|(&(d, u), &(_, v))| (d, u ^ v)).collect();
        prop_assert_eq!(apply_vals(&a, &xy), xor(&apply_vals(&a, &x), &apply_vals(&a, &y)));
        prop_assert_eq!(&LinearLayout::from_mlir(&a.to_mlir().unwrap()).unwrap(), &a);
        prop_assert_eq!(&LinearLayout::from_json_str(&a.to_json().to_string()).unwrap(), &a);
        check_rank(&a)?;
        // A 63-bit dim cannot grow.
        let one = LinearLayout::identity_1d(2, "register", "dim0").unwrap();
        prop_assert!(a.product(&one).is_err());
        prop_assert!(a.resize_out_dim("dim0", 1 << 63).is_ok());
        // Dividing by a trivial layout gives the layout back.
        let unit = LinearLayout::identity_1d(1, "register", "dim0").unwrap();
        prop_assert_eq!(&divide_left(&a, &unit).unwrap(), &a);
        prop_assert_eq!(&divide_right(&a, &unit).unwrap(), &a);
    }
}

/// Every outer input width from 0 to 64 bits (`compose` builds one table per 4 of them, with
/// its own loop length up to 32 bits), each with one, two and three dims on either side (the
/// kernels of one and two dims, and the general one): the bases of `A∘B` against `B(A(x))`.
#[test]
fn compose_at_every_outer_width() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = |bits: u32| {
        // xorshift64*
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        if bits >= 64 {
            v
        } else {
            v & ((1u64 << bits) - 1)
        }
    };
    // `total` bits over `n` dims, as evenly as may be.
    let split = |total: u32, n: u32| -> Vec<u32> {
        (0..n)
            .map(|k| total / n + u32::from(k < total % n))
            .collect()
    };
    for width in 0..=64u32 {
        for (mids, outs) in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (2, 3), (3, 3)] {
            if mids == 1 && width == 64 {
                continue; // one dim of 64 bits: past the size limit
            }
            let mid: Vec<(String, u32)> = split(width, mids)
                .into_iter()
                .enumerate()
                .map(|(k, b)| (format!("m{k}"), b))
                .collect();
            let out: Vec<(String, u32)> = split(if outs == 1 { 63 } else { 64 }, outs)
                .into_iter()
                .enumerate()
                .map(|(k, b)| (format!("o{k}"), b))
                .collect();
            let inner = LinearLayout::from_bases(
                &[(
                    "i",
                    (0..12)
                        .map(|_| mid.iter().map(|&(_, b)| random(b)).collect())
                        .collect(),
                )],
                &mid.iter()
                    .map(|(d, b)| (d.as_str(), 1u64 << b))
                    .collect::<Vec<_>>(),
                false,
            )
            .unwrap();
            let outer = LinearLayout::from_bases(
                &mid.iter()
                    .rev()
                    .map(|(d, b)| {
                        (
                            d.as_str(),
                            (0..*b)
                                .map(|_| out.iter().map(|&(_, o)| random(o)).collect())
                                .collect(),
                        )
                    })
                    .collect::<Vec<_>>(),
                &out.iter()
                    .map(|(d, b)| (d.as_str(), 1u64 << b))
                    .collect::<Vec<_>>(),
                false,
            )
            .unwrap();
            check_compose_bases(&inner, &outer)
                .unwrap_or_else(|e| panic!("outer width {width}, {mids} × {outs} dims: {e}"));
        }
    }
}
