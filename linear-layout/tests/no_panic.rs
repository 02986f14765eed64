//! Fuzz-style robustness: random (often invalid) input to every public API must give `Ok` or
//! `Err`, never a panic. In debug builds this also checks the internal layout invariants, which
//! the library asserts whenever an operation builds a layout.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::*;
use linear_layout::{divide_left, divide_right, lstsq, Dim, LinearLayout};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::Value;

/// Names shared by in- and out-dims (so that roles overlap), plus odd ones.
const FUZZ_NAMES: [&str; 12] = [
    "register", "lane", "warp", "block", "offset", "dim0", "dim1", "dim2", "m0", "", "x y", "é",
];

/// Interesting `u64`s: small, powers of two and their neighbours, extremes.
fn fuzz_u64() -> BoxedStrategy<u64> {
    prop_oneof![
        4 => 0u64..=9,
        2 => (0u32..64).prop_map(|k| 1u64 << k),
        1 => (0u32..64).prop_map(|k| (1u64 << k).wrapping_sub(1)),
        1 => (0u32..64).prop_map(|k| (1u64 << k) + 1),
        1 => Just(u64::MAX),
        1 => any::<u64>(),
    ]
    .boxed()
}

fn fuzz_name() -> BoxedStrategy<&'static str> {
    select(FUZZ_NAMES.to_vec()).boxed()
}

/// A name argument: an in-dim of the layout, an out-dim, or any name.
#[derive(Clone, Debug)]
struct NameArg(u8, Index, &'static str);

fn name_arg() -> impl Strategy<Value = NameArg> {
    (0u8..3, any::<Index>(), fuzz_name()).prop_map(|(k, i, n)| NameArg(k, i, n))
}

impl NameArg {
    fn get(&self, l: &LinearLayout) -> Dim {
        let pick = |v: Vec<Dim>| {
            if v.is_empty() {
                None
            } else {
                Some(*self.1.get(&v))
            }
        };
        match self.0 {
            0 => pick(l.in_dim_names()),
            1 => pick(l.out_dim_names()),
            _ => None,
        }
        .unwrap_or_else(|| Dim::new(self.2))
    }
}

/// Valid layouts with any names, 0–4 in-dims and 0–3 out-dims, sizes up to 2^63.
fn fuzz_layout() -> BoxedStrategy<LinearLayout> {
    let log2 = || prop_oneof![12 => 0u32..=4, 1 => 5u32..=63];
    let shape = |max: usize| {
        (
            proptest::sample::subsequence(FUZZ_NAMES.to_vec(), 0..=max).prop_shuffle(),
            prop::collection::vec(log2(), max),
        )
            .prop_map(|(ns, ls)| ns.into_iter().map(Dim::new).zip(ls).collect::<Shape>())
    };
    (shape(4), shape(3))
        .prop_flat_map(|(i, o)| layout_on(i, o))
        .boxed()
}

/// `shape` shuffled, each size moved by at most one bit, maybe one dim dropped or added.
fn perturb(shape: Shape) -> BoxedStrategy<Shape> {
    let n = shape.len();
    (
        Just(shape).prop_shuffle(),
        prop::collection::vec(prop_oneof![4 => Just(0i32), 1 => Just(-1), 1 => Just(1)], n),
        0u8..6,
        any::<Index>(),
        fuzz_name(),
    )
        .prop_map(|(s, deltas, sel, at, extra)| {
            let mut s: Shape = s
                .into_iter()
                .zip(deltas)
                .map(|((d, l), e)| (d, (l as i32 + e).clamp(0, 63) as u32))
                .collect();
            if sel == 0 && !s.is_empty() {
                s.remove(at.index(s.len()));
            } else if sel == 1 && !s.iter().any(|(d, _)| d.name() == extra) {
                s.insert(at.index(s.len() + 1), (Dim::new(extra), 1));
            }
            s
        })
        .boxed()
}

fn fuzz_shape() -> BoxedStrategy<Shape> {
    (
        proptest::sample::subsequence(FUZZ_NAMES.to_vec(), 0..=3).prop_shuffle(),
        prop::collection::vec(0u32..=4, 3),
    )
        .prop_map(|(ns, ls)| ns.into_iter().map(Dim::new).zip(ls).collect())
        .boxed()
}

/// A second layout whose dims nearly line up with `a`'s in one of the ways a binary
/// operation cares about, or an unrelated one.
fn related(a: LinearLayout) -> BoxedStrategy<LinearLayout> {
    let (ins, outs) = (shape_of(&a, true), shape_of(&a, false));
    let chain = {
        let outs = outs.clone();
        (perturb(outs), fuzz_shape()).prop_flat_map(|(i, o)| layout_on(i, o))
    };
    let same_outs = {
        let outs = outs.clone();
        (fuzz_shape(), perturb(outs)).prop_flat_map(|(i, o)| layout_on(i, o))
    };
    let both =
        (perturb(ins.clone()), perturb(outs.clone())).prop_flat_map(|(i, o)| layout_on(i, o));
    let exact_ins = fuzz_shape().prop_flat_map(move |o| layout_on(ins.clone(), o));
    let exact_outs = fuzz_shape().prop_flat_map(move |i| layout_on(i, outs.clone()));
    prop_oneof![
        chain,
        same_outs,
        both,
        exact_ins,
        exact_outs,
        fuzz_layout(),
        Just(a),
    ]
    .boxed()
}

/// Arguments for the unary operations.
#[derive(Clone, Debug)]
struct Args {
    names: Vec<NameArg>,
    sized: Vec<(NameArg, u64)>,
    values: Vec<u64>,
    order: Vec<Index>,
    flag: bool,
}

fn args() -> impl Strategy<Value = Args> {
    (
        prop::collection::vec(name_arg(), 0..=5),
        prop::collection::vec((name_arg(), fuzz_u64()), 0..=4),
        prop::collection::vec(fuzz_u64(), 6),
        prop::collection::vec(any::<Index>(), 0..=5),
        any::<bool>(),
    )
        .prop_map(|(names, sized, values, order, flag)| Args {
            names,
            sized,
            values,
            order,
            flag,
        })
}

/// Calls every unary API with arguments derived from `args`; any panic fails the test.
fn exercise(l: &LinearLayout, a: &Args) {
    let names: Vec<Dim> = a.names.iter().map(|n| n.get(l)).collect();
    let sized: Vec<(Dim, u64)> = a.sized.iter().map(|(n, s)| (n.get(l), *s)).collect();
    let name = names.first().copied().unwrap_or_else(|| Dim::new("lane"));
    let name2 = names.get(1).copied().unwrap_or(name);
    let v = |i: usize| a.values[i % a.values.len()];

    // Introspection.
    let _ = (l.in_dims(), l.out_dims(), l.num_in_dims(), l.num_out_dims());
    let _ = (l.has_in_dim(name), l.has_out_dim(name));
    let _ = (l.in_dim_size(name), l.in_dim_size_log2(name));
    let _ = (l.out_dim_size(name), l.out_dim_size_log2(name));
    let _ = (l.total_in_dim_size_log2(), l.total_out_dim_size_log2());
    let _ = l.basis(name, v(0) as u32);
    let _ = l.basis(name, (v(1) % 8) as u32);
    let _ = (l.bases_of(name), l.bases());
    let _ = (
        l.rank(),
        l.is_surjective(),
        l.is_injective(),
        l.is_invertible(),
    );
    if l.total_in_dim_size_log2() <= 64 && l.total_out_dim_size_log2() <= 64 {
        let _ = l.matrix_view();
    }
    let _ = (l.free_variable_masks(), l.num_consecutive_in_out());
    let _ = (l.to_string(), format!("{l:?}"), l.to_json(), l.to_mlir());
    {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        l.hash(&mut h);
        let _ = h.finish();
    }

    // Evaluation: random dims and values, and valid dims with random values.
    let _ = l.apply(&sized);
    let in_names = l.in_dim_names();
    let valid: Vec<(Dim, u64)> = in_names
        .iter()
        .enumerate()
        .map(|(i, &d)| (d, v(i)))
        .collect();
    let _ = l.apply(&valid);
    let masked: Vec<(Dim, u64)> = l
        .in_dims()
        .into_iter()
        .enumerate()
        .map(|(i, (d, s))| (d, v(i) & (s - 1)))
        .collect();
    let _ = l.apply(&masked);
    if let Ok(e) = l.evaluator() {
        let _ = e.split(e.apply(v(2)));
        let _ = e.split(v(3));
    }

    // Reshaping with random arguments.
    let _ = l.reshape_ins(&sized);
    let _ = l.reshape_outs(&sized);
    let _ = (l.flatten_ins(), l.flatten_outs());
    let _ = l.resize_in_dim(name, v(4));
    let _ = l.resize_out_dim(name, v(5));
    let _ = l.resize_in_dim(name, v(4) & 0xff);
    let _ = l.resize_out_dim(name, v(5) & 0xff);
    let _ = (l.squeeze_ins(name), l.squeeze_outs(name));
    let _ = l.rename_in_dim(name, name2);
    let _ = l.transpose_ins(&names);
    let _ = l.transpose_outs(&names);
    let permuted = |dims: Vec<Dim>| -> Vec<Dim> {
        let mut d = dims;
        for (i, idx) in a.order.iter().enumerate() {
            if !d.is_empty() {
                let n = d.len();
                d.swap(i % n, idx.index(n));
            }
        }
        d
    };
    let _ = l.transpose_ins(&permuted(l.in_dim_names()));
    let _ = l.transpose_outs(&permuted(l.out_dim_names()));
    let _ = l.sublayout(&names, &names);
    let _ = l.sublayout(&permuted(l.in_dim_names()), &names);
    let _ = l.sublayout_is_zero(&names, &permuted(l.out_dim_names()));
    let _ = l.quotient(&names);
    let _ = l.quotient(&names[..names.len().min(1)]);

    // Inverses.
    let _ = (l.pseudoinvert(), l.invert());
    if a.flag {
        let _ = l.invert_and_compose_preferring(l, &names);
        let _ = lstsq(l, l);
        let _ = l.invert_and_compose(l);
        let _ = l.compose(l);
        let _ = divide_left(l, l);
        let _ = divide_right(l, l);
        let _ = l.product(l);
    }
}

/// Every binary operation, both ways round.
fn binary(a: &LinearLayout, b: &LinearLayout, preferred: &[Dim]) {
    for (x, y) in [(a, b), (b, a)] {
        let _ = x.compose(y);
        let _ = x.invert_and_compose(y);
        let _ = x.invert_and_compose_preferring(y, preferred);
        let _ = x.invert_and_compose_preferring::<&str>(y, &[]);
        let _ = lstsq(x, y);
        let _ = x.product(y);
        let _ = x * y;
        let _ = divide_left(x, y);
        let _ = divide_right(x, y);
        let _ = x.concat_ins(y);
        let _ = x.concat_outs(y);
        let _ = x == y;
    }
}

// ----- constructors ------------------------------------------------------------------------

/// Raw `from_bases` input: any names (duplicates included), tuples of any length, any values,
/// sometimes 60–70 bases in one dim.
fn raw_bases() -> impl Strategy<Value = Vec<(&'static str, Vec<Vec<u64>>)>> {
    let basis = prop::collection::vec(fuzz_u64(), 0..=4);
    let list = prop_oneof![
        8 => prop::collection::vec(basis.clone(), 0..=5),
        1 => prop::collection::vec(prop::collection::vec(0u64..4, 1), 60..=70),
        1 => prop::collection::vec(basis, 60..=66),
    ];
    prop::collection::vec((fuzz_name(), list), 0..=4)
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn from_bases_never_panics(
        bases in raw_bases(),
        outs in prop::collection::vec((fuzz_name(), fuzz_u64()), 0..=4),
        surjective in any::<bool>(),
        a in args(),
    ) {
        if let Ok(l) = LinearLayout::from_bases(&bases, &outs, surjective) {
            exercise(&l, &a);
        }
        let out_names: Vec<&str> = outs.iter().map(|o| o.0).collect();
        if let Ok(l) = LinearLayout::from_bases_inferred(&bases, &out_names) {
            exercise(&l, &a);
        }
    }

    #[test]
    fn from_bases_with_matching_tuples_never_panics(
        (n_out, bases) in (0usize..=3).prop_flat_map(|n| {
            let dim = (fuzz_name(), prop::collection::vec(prop::collection::vec(fuzz_u64(), n), 0..=6));
            (Just(n), prop::collection::vec(dim, 0..=4))
        }),
        sizes in prop::collection::vec(prop_oneof![3 => (0u32..=8).prop_map(|k| 1u64 << k), 1 => fuzz_u64()], 3),
        out_names in proptest::sample::subsequence(FUZZ_NAMES.to_vec(), 3).prop_shuffle(),
        surjective in any::<bool>(),
        a in args(),
    ) {
        // Tuples of the right length: mostly valid layouts, values maybe out of range.
        let outs: Vec<(&str, u64)> = out_names.iter().copied().zip(sizes).take(n_out).collect();
        let masked: Vec<(&str, Vec<Vec<u64>>)> = bases
            .iter()
            .map(|(d, bs)| (*d, bs.iter().map(|b| b.iter().zip(&outs).map(|(&c, &(_, s))| c & s.wrapping_sub(1)).collect()).collect()))
            .collect();
        for bs in [&bases, &masked] {
            if let Ok(l) = LinearLayout::from_bases(bs, &outs, surjective) {
                exercise(&l, &a);
            }
            let names: Vec<&str> = outs.iter().map(|o| o.0).collect();
            if let Ok(l) = LinearLayout::from_bases_inferred(bs, &names) {
                exercise(&l, &a);
            }
        }
    }

    #[test]
    fn simple_constructors_never_panic(
        size in fuzz_u64(),
        stride in fuzz_u64(),
        out_size in fuzz_u64(),
        i in fuzz_name(),
        o in fuzz_name(),
        a in args(),
    ) {
        for l in [
            LinearLayout::identity_1d(size, i, o),
            LinearLayout::strided_1d(size, stride, i, o),
            LinearLayout::zeros_1d(size, i, o, out_size),
        ]
        .into_iter()
        .flatten()
        {
            exercise(&l, &a);
        }
    }
}

// ----- unary and binary operations on valid layouts ----------------------------------------

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn unary_ops_never_panic(l in fuzz_layout(), a in args()) {
        exercise(&l, &a);
    }

    #[test]
    fn binary_ops_never_panic(
        (a, b) in fuzz_layout().prop_flat_map(|a| (Just(a.clone()), related(a))),
        preferred in prop::collection::vec(fuzz_name(), 0..=3),
    ) {
        let preferred: Vec<Dim> = preferred.into_iter().map(Dim::new).collect();
        binary(&a, &b, &preferred);
    }

    /// Binary operations on everyday layouts (small dims, standard names), where most
    /// preconditions hold and the operations run to the end.
    #[test]
    fn binary_ops_on_small_layouts_never_panic(
        (a, b) in arb_layout(SMALL).prop_flat_map(|a| (Just(a.clone()), related(a))),
        c in arb_layout(SMALL),
        x in args(),
    ) {
        let names = dims(&IN_NAMES);
        binary(&a, &b, &names[..2]);
        binary(&a, &c, &names[2..]);
        exercise(&a, &x);
    }
}

// ----- text parsers ------------------------------------------------------------------------

const JSON_TOKENS: [&str; 24] = [
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "-1",
    "1e999",
    "18446744073709551616",
    "null",
    "0",
    "1",
    "4",
    "1.5",
    " ",
    "\"bases\"",
    "\"out_dims\"",
    "\"dim0\"",
    "\"lane\"",
    "true",
    "\\u0000",
    "9223372036854775808",
    "é",
];

const MLIR_TOKENS: [&str; 24] = [
    "#ttg.linear",
    "<",
    ">",
    "{",
    "}",
    "[",
    "]",
    ",",
    "=",
    "-",
    "register",
    "lane",
    "0",
    "1",
    "2",
    "18446744073709551616",
    "9223372036854775808",
    " ",
    "\u{3000}",
    "é",
    "\n",
    "[[",
    "]]",
    "-0",
];

/// A string made of tokens.
fn soup(tokens: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(select(tokens.to_vec()), 0..=40).prop_map(|t| t.concat())
}

/// Character-level edits (insert a token, delete, replace, truncate) of `text`.
fn mutate_text(text: &str, edits: &[(u8, Index, &str)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(op, at, tok) in edits {
        let i = at.index(chars.len() + 1);
        match op % 4 {
            0 => {
                let t: Vec<char> = tok.chars().collect();
                chars.splice(i..i, t);
            }
            1 if i < chars.len() => {
                chars.remove(i);
            }
            2 if i < chars.len() => {
                chars[i] = tok.chars().next().unwrap_or(' ');
            }
            3 => chars.truncate(i),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn edits(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<(u8, Index, &'static str)>> {
    prop::collection::vec((0u8..8, any::<Index>(), select(tokens.to_vec())), 1..=4)
}

/// A random JSON value (shallow).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        fuzz_u64().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        fuzz_name().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..=4).prop_map(Value::Array),
            prop::collection::vec((select(vec!["bases", "out_dims", "x"]), inner), 0..=3).prop_map(
                |kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

/// Replaces, removes or duplicates the node reached by following `path` in `v`.
fn mutate_value(node: &mut Value, path: &[Index], op: u8, new: Value) {
    let Some((step, rest)) = path.split_first() else {
        *node = new;
        return;
    };
    let last = rest.is_empty();
    match node {
        Value::Array(items) if !items.is_empty() => {
            let i = step.index(items.len());
            if last && op == 1 {
                items.remove(i);
            } else if last && op == 2 {
                let dup = items[i].clone();
                items.insert(i, dup);
            } else {
                mutate_value(&mut items[i], rest, op, new);
            }
        }
        Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let k = step.get(&keys).clone();
            if last && op == 1 {
                map.remove(&k);
            } else if let Some(n) = map.get_mut(&k) {
                mutate_value(n, rest, op, new);
            }
        }
        _ => *node = new,
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn from_json_str_never_panics_on_random_text(
        s in prop_oneof![any::<String>(), soup(&JSON_TOKENS)],
        a in args(),
    ) {
        if let Ok(l) = LinearLayout::from_json_str(&s) {
            exercise(&l, &a);
        }
    }

    #[test]
    fn from_json_never_panics_on_mutated_layouts(
        l in fuzz_layout(),
        text_edits in edits(&JSON_TOKENS),
        path in prop::collection::vec(any::<Index>(), 0..=5),
        op in 0u8..4,
        new in json_value(),
        a in args(),
    ) {
        let text = l.to_json().to_string();
        if let Ok(m) = LinearLayout::from_json_str(&mutate_text(&text, &text_edits)) {
            exercise(&m, &a);
        }
        let mut v = l.to_json();
        mutate_value(&mut v, &path, op, new);
        if let Ok(m) = LinearLayout::from_json(&v) {
            exercise(&m, &a);
        }
        let _ = serde_json::from_value::<LinearLayout>(v);
    }

    #[test]
    fn from_json_never_panics_on_random_values(v in json_value()) {
        let _ = LinearLayout::from_json(&v);
        let wrapped = serde_json::json!({"bases": v.clone(), "out_dims": v.clone()});
        let _ = LinearLayout::from_json(&wrapped);
        let wrapped = serde_json::json!({"bases": [["lane", v.clone()]], "out_dims": [["dim0", v]]});
        let _ = LinearLayout::from_json(&wrapped);
    }

    #[test]
    fn from_mlir_never_panics_on_random_text(
        s in prop_oneof![any::<String>(), soup(&MLIR_TOKENS), soup(&MLIR_TOKENS).prop_map(|s| format!("#ttg.linear<{{{s}}}>"))],
        a in args(),
    ) {
        if let Ok(l) = LinearLayout::from_mlir(&s) {
            exercise(&l, &a);
        }
    }

    #[test]
    fn from_mlir_never_panics_on_mutated_layouts(
        l in prop_oneof![arb_mlir_layout(), arb_layout(CANONICAL)],
        text_edits in edits(&MLIR_TOKENS),
        a in args(),
    ) {
        // Printed the way to_mlir prints, also for layouts to_mlir refuses.
        let dims: Vec<String> = l.bases().iter().map(|(d, b)| format!("{d} = {b:?}")).collect();
        let text = format!("#ttg.linear<{{{}}}>", dims.join(", "));
        if let Ok(t) = l.to_mlir() {
            prop_assert_eq!(&t, &text);
        }
        if let Ok(m) = LinearLayout::from_mlir(&mutate_text(&text, &text_edits)) {
            exercise(&m, &a);
        }
    }
}
