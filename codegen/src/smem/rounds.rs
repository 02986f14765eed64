//! [`Rounds`]: a layout conversion through a bounded scratch, in rounds.
//!
//! Triton converts a large tile through a small scratch: the tensor bits that both register
//! layouts hold in registers and the scratch holds in its highest offsets are done one value
//! at a time, with a `bar.sync` between rounds, so the scratch needs only the rest. Here a
//! round bit is the top bit of a tensor dim that is exactly one `register` basis of the store
//! layout, one of the load layout and one `offset` basis of the scratch layout, and that no
//! other basis of the three touches. Removing it halves that dim in all three: round `ρ`
//! converts the sub-tile whose round bits are `ρ`, through the same scratch addresses (a
//! buffer map of `2^k` buffers at stride 0, one per round).
//!
//! A round may also be any tensor vector `v` (not only a unit one) that is the scratch's top
//! `offset` basis and a `register` basis of both layouts — what Triton's `buildReps` leaves
//! there. Then the three layouts are seen in the quotient of the tensor by `v`: the pivot bit
//! of `v` (its highest) is cleared from every basis that has it by XORing `v`, and removed
//! from its dim.

use linear_layout::{Dim, LayoutError, LinearLayout};

/// The layouts of one round of a conversion and the number of rounds.
///
/// ```
/// use codegen::smem::Rounds;
/// use linear_layout::LinearLayout;
/// // 8 rows of 4: registers hold rows 4 (and 2), lanes the rest; the scratch is row-major.
/// let regs = LinearLayout::from_bases(
///     &[("register", vec![vec![4, 0], vec![2, 0]]), ("lane", vec![vec![0, 1], vec![0, 2], vec![1, 0], vec![0, 0], vec![0, 0]])],
///     &[("dim0", 8), ("dim1", 4)], true)?;
/// let scratch = LinearLayout::from_bases(
///     &[("offset", vec![vec![0, 1], vec![0, 2], vec![1, 0], vec![2, 0], vec![4, 0]])],
///     &[("dim0", 8), ("dim1", 4)], true)?;
/// // At most 16 elements of scratch: row 4 becomes a round.
/// let r = Rounds::split(&regs, &regs, &scratch, 16)?;
/// assert_eq!(r.rounds_log2, 1);
/// assert_eq!(r.scratch.out_dims()[0].1, 4);
/// assert_eq!(r.store.bases_of("register")?, vec![vec![2, 0]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rounds {
    /// `log2` of the number of rounds.
    pub rounds_log2: u32,
    /// The store layout of one round.
    pub store: LinearLayout,
    /// The load layout of one round.
    pub load: LinearLayout,
    /// The scratch layout of one round.
    pub scratch: LinearLayout,
    /// Per round bit `j` (bit `j` of the round number), the bit of the *full* store layout's
    /// `register` index it takes: round `ρ`'s register `r` is the full register with bits
    /// `store_registers` equal to `ρ`'s and the others, in order, `r`'s.
    pub store_registers: Vec<u32>,
    /// The same for the load layout.
    pub load_registers: Vec<u32>,
}

impl Rounds {
    /// The full layout's register of round `round`'s register `r`, for the round bits at
    /// `positions` (`store_registers` or `load_registers`).
    ///
    /// ```
    /// use codegen::smem::Rounds;
    /// // Round bit 0 at full register bit 2, round bit 1 at bit 0; the register's bits fill
    /// // the others: round 0b01, register 0b1 → 0b110.
    /// assert_eq!(Rounds::full_register(&[2, 0], 0b01, 0b1), 0b110);
    /// assert_eq!(Rounds::full_register(&[3], 1, 0), 0b1000);
    /// ```
    pub fn full_register(positions: &[u32], round: u64, r: u64) -> u64 {
        let mut full = 0u64;
        let mut rest = r;
        let top = positions.iter().map(|&p| p + 1).max().unwrap_or(0);
        let total = top.max(positions.len() as u32 + (64 - r.leading_zeros()));
        for bit in 0..total.min(64) {
            match positions.iter().position(|&p| p == bit) {
                Some(j) => full |= (round >> j & 1) << bit,
                None => {
                    full |= (rest & 1) << bit;
                    rest >>= 1;
                }
            }
        }
        full
    }
}

impl Rounds {
    /// Splits the conversion `store → scratch → load` into rounds until the scratch holds at
    /// most `max_elements` elements (or no round bit is left). Errors: the layouts' own (a
    /// layout that does not rebuild without the bit).
    pub fn split(
        store: &LinearLayout,
        load: &LinearLayout,
        scratch: &LinearLayout,
        max_elements: u64,
    ) -> Result<Rounds, LayoutError> {
        let mut r = Rounds {
            rounds_log2: 0,
            store: store.clone(),
            load: load.clone(),
            scratch: scratch.clone(),
            store_registers: Vec::new(),
            load_registers: Vec::new(),
        };
        let alive = |l: &LinearLayout| -> Result<Vec<u32>, LayoutError> {
            Ok((0..l.bases_of("register")?.len() as u32).collect())
        };
        let (mut store_alive, mut load_alive) = (alive(store)?, alive(load)?);
        while total(&r.scratch) > max_elements {
            if let Some(v) = top_round_vector(&r)? {
                take(&r.store, &v, &mut store_alive, &mut r.store_registers)?;
                take(&r.load, &v, &mut load_alive, &mut r.load_registers)?;
                r.store = project(&r.store, "register", &v)?;
                r.load = project(&r.load, "register", &v)?;
                r.scratch = project(&r.scratch, "offset", &v)?;
                r.rounds_log2 += 1;
                continue;
            }
            let Some((d, bit)) = round_bit(&r) else {
                break;
            };
            // A clean top bit: the quotient by its unit vector just drops it.
            let unit: Vec<u64> = (0..r.scratch.out_dims().len())
                .map(|k| if k == d { bit } else { 0 })
                .collect();
            take(&r.store, &unit, &mut store_alive, &mut r.store_registers)?;
            take(&r.load, &unit, &mut load_alive, &mut r.load_registers)?;
            r.store = project(&r.store, "register", &unit)?;
            r.load = project(&r.load, "register", &unit)?;
            r.scratch = project(&r.scratch, "offset", &unit)?;
            r.rounds_log2 += 1;
        }
        Ok(r)
    }
}

/// Records the full register bit of the `register` basis of `l` equal to `v` (the one
/// [`project`] drops) and removes it from `alive` (the full bits of `l`'s registers).
fn take(
    l: &LinearLayout,
    v: &[u64],
    alive: &mut Vec<u32>,
    taken: &mut Vec<u32>,
) -> Result<(), LayoutError> {
    let bases = l.bases_of("register")?;
    if let Some(k) = bases.iter().position(|b| b.as_slice() == v) {
        if k < alive.len() {
            taken.push(alive.remove(k));
        }
    }
    Ok(())
}

/// The scratch's top `offset` basis when it is also a `register` basis of both register
/// layouts (any vector, not only a unit one: what [`optimal_scratch`](super::optimal_scratch)
/// puts there).
fn top_round_vector(r: &Rounds) -> Result<Option<Vec<u64>>, LayoutError> {
    let Some(v) = r.scratch.bases_of("offset")?.pop() else {
        return Ok(None);
    };
    if v.iter().all(|&x| x == 0) {
        return Ok(None);
    }
    let held = |l: &LinearLayout| -> Result<bool, LayoutError> {
        Ok(l.bases_of("register")?.contains(&v))
    };
    Ok((held(&r.store)? && held(&r.load)?).then_some(v))
}

/// `l` seen in the quotient of the tensor by `v`: one basis of `in_dim` equal to `v` dropped,
/// every basis with `v`'s pivot bit (its highest set bit, in dim `d`) XORed with `v`, and that
/// bit removed from dim `d` (the bits above it move down; the dim halves).
fn project(l: &LinearLayout, in_dim: &str, v: &[u64]) -> Result<LinearLayout, LayoutError> {
    let Some((d, &c)) = v.iter().enumerate().rev().find(|(_, &c)| c != 0) else {
        return Ok(l.clone());
    };
    let q = 63 - c.leading_zeros();
    let squeeze = |x: u64| (x & ((1u64 << q) - 1)) | ((x >> (q + 1)) << q);
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = l
        .bases()
        .into_iter()
        .map(|(name, bs)| {
            let mut dropped = name.name() != in_dim;
            let kept = bs
                .into_iter()
                .filter(|b| {
                    if !dropped && b.as_slice() == v {
                        dropped = true;
                        false
                    } else {
                        true
                    }
                })
                .map(|b| {
                    let hit = b.get(d).is_some_and(|&x| x >> q & 1 == 1);
                    b.iter()
                        .zip(v)
                        .enumerate()
                        .map(|(k, (&x, &y))| {
                            let x = if hit { x ^ y } else { x };
                            if k == d {
                                squeeze(x)
                            } else {
                                x
                            }
                        })
                        .collect()
                })
                .collect();
            (name, kept)
        })
        .collect();
    let outs: Vec<(Dim, u64)> = l
        .out_dims()
        .into_iter()
        .enumerate()
        .map(|(k, (name, size))| (name, if k == d { size / 2 } else { size }))
        .collect();
    LinearLayout::from_bases(&bases, &outs, true)
}

fn total(l: &LinearLayout) -> u64 {
    l.out_dims().iter().map(|&(_, s)| s).product()
}

/// The first dim (highest first) whose top bit is a clean round bit.
fn round_bit(r: &Rounds) -> Option<(usize, u64)> {
    let dims = r.scratch.out_dims();
    (0..dims.len()).rev().find_map(|d| {
        let size = dims.get(d)?.1;
        let bit = size / 2;
        if bit == 0 {
            return None;
        }
        let unit: Vec<u64> = (0..dims.len())
            .map(|k| if k == d { bit } else { 0 })
            .collect();
        let clean = |l: &LinearLayout, dim: &str| -> bool {
            let mut hits = 0;
            for (in_dim, bases) in l.bases() {
                for b in &bases {
                    if b == &unit && in_dim.name() == dim {
                        hits += 1;
                    } else if b.get(d).is_some_and(|&v| v & bit != 0) {
                        return false;
                    }
                }
            }
            hits == 1
        };
        (clean(&r.store, "register") && clean(&r.load, "register") && clean(&r.scratch, "offset"))
            .then_some((d, bit))
    })
}
