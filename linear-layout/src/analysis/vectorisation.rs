//! Register permutations and the widest `ld/st.shared` vector: Triton's `ColumnAction`,
//! `actionRemoveBroadcastedRegs`, `regPermForDivide` (left) and `largestVectorisation`
//! (`lib/Tools/LayoutUtils.cpp`).
//!
//! A vector of `v` elements can be moved by one instruction when `v` consecutive registers hold
//! `v` consecutive shared-memory offsets. Registers may be renumbered freely (the lowering owns
//! the register order), so the question is whether some permutation of the register bases makes
//! the registers→offsets map left-divisible by `identity_1d(v, register, offset)`.
//!
//! ```
//! use linear_layout::analysis::vectorisation::{action_remove_broadcasted_regs, largest_vectorisation};
//! use linear_layout::LinearLayout;
//! // registers → offsets with a broadcast register: 0, then 1, 2 contiguous
//! let cvt = LinearLayout::from_bases(&[("register", vec![vec![0], vec![1], vec![2]])], &[("offset", 4)], false)?;
//! let cvt = action_remove_broadcasted_regs(&cvt)?.apply(&cvt)?;
//! assert_eq!(largest_vectorisation(&cvt, 32, None)?.0, 4);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use crate::dims::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::{DimBases, LinearLayout};
use crate::ops::divide::divide_left;

/// Widest vector Triton moves in one shared-memory instruction, in bits (`ld.shared.v4.b32`).
///
/// ```
/// use linear_layout::analysis::MAX_VECTOR_BITS;
/// assert_eq!(MAX_VECTOR_BITS / 16, 8); // 8 f16 per access at most
/// ```
pub const MAX_VECTOR_BITS: u32 = 128;

/// Triton's `ColumnAction`: a permutation (or, with fewer indices, a selection) of the bases of
/// one in-dim. Applying it makes basis `i` of the result basis `order[i]` of the input.
///
/// ```
/// use linear_layout::analysis::ColumnAction;
/// use linear_layout::LinearLayout;
/// let l = LinearLayout::from_bases(&[("register", vec![vec![0], vec![1], vec![2]])], &[("offset", 4)], true)?;
/// let drop_broadcast = ColumnAction::new("register", vec![1, 2], 3)?;
/// assert_eq!(drop_broadcast.apply(&l)?.bases_of("register")?, vec![vec![1], vec![2]]);
/// assert!(!drop_broadcast.is_identity());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnAction {
    dim: Dim,
    order: Vec<usize>,
    in_size_log2: u32,
}

impl ColumnAction {
    /// The action taking basis `order[i]` of `dim` (which has `in_size_log2` bases) to position
    /// `i`. Errors: [`LayoutError::Invalid`] if an index is out of range or repeated.
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// assert!(ColumnAction::new("register", vec![1, 0], 2).is_ok());
    /// assert!(ColumnAction::new("register", vec![2], 2).is_err());
    /// ```
    pub fn new(dim: impl Into<Dim>, order: Vec<usize>, in_size_log2: u32) -> Result<Self> {
        let dim = dim.into();
        for (i, &o) in order.iter().enumerate() {
            if o >= in_size_log2 as usize || order.iter().take(i).any(|&p| p == o) {
                return Err(LayoutError::Invalid {
                    op: "ColumnAction",
                    what: format!(
                        "index {o} of {order:?} is repeated or past the {in_size_log2} bases of '{dim}'"
                    ),
                });
            }
        }
        Ok(ColumnAction {
            dim,
            order,
            in_size_log2,
        })
    }

    /// The identity on `in_size_log2` bases of `dim`.
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// assert!(ColumnAction::identity("register", 3).is_identity());
    /// ```
    pub fn identity(dim: impl Into<Dim>, in_size_log2: u32) -> Self {
        ColumnAction {
            dim: dim.into(),
            order: (0..in_size_log2 as usize).collect(),
            in_size_log2,
        }
    }

    /// The in-dim it acts on.
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// assert_eq!(ColumnAction::identity("register", 2).dim().name(), "register");
    /// ```
    pub fn dim(&self) -> Dim {
        self.dim
    }

    /// Source index of every basis of the result.
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// assert_eq!(ColumnAction::new("register", vec![2, 0, 1], 3)?.order(), &[2, 0, 1]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Whether applying it changes nothing (every basis kept, in place).
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// assert!(!ColumnAction::new("register", vec![0], 2)?.is_identity());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn is_identity(&self) -> bool {
        self.order.len() == self.in_size_log2 as usize
            && self.order.iter().enumerate().all(|(i, &o)| i == o)
    }

    /// The layout with the bases of [`dim`](Self::dim) permuted or selected. Errors:
    /// [`LayoutError::UnknownDim`], or [`LayoutError::SizeMismatch`] if the dim does not have the
    /// number of bases the action was built for.
    ///
    /// ```
    /// use linear_layout::analysis::ColumnAction;
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("register", vec![vec![2], vec![1]])], &[("offset", 4)], true)?;
    /// let swapped = ColumnAction::new("register", vec![1, 0], 2)?.apply(&l)?;
    /// assert_eq!(swapped.bases_of("register")?, vec![vec![1], vec![2]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn apply(&self, layout: &LinearLayout) -> Result<LinearLayout> {
        let log2 = layout.in_dim_size_log2(self.dim)?;
        if log2 != self.in_size_log2 {
            return Err(LayoutError::SizeMismatch {
                op: "ColumnAction::apply",
                dim: self.dim.to_string(),
                left: 1u128 << log2,
                right: 1u128 << self.in_size_log2,
                rule: "the action was built for another number of bases",
            });
        }
        let bases: Vec<(Dim, DimBases)> = layout
            .bases()
            .into_iter()
            .map(|(d, b)| {
                if d == self.dim {
                    let picked = self.order.iter().filter_map(|&i| b.get(i).cloned());
                    (d, picked.collect())
                } else {
                    (d, b)
                }
            })
            .collect();
        LinearLayout::from_bases(&bases, &layout.out_dims(), false)
    }
}

/// Triton's `actionRemoveBroadcastedRegs`: the selection of the non-zero `register` bases, in
/// order. Applying it removes register broadcast (registers holding a copy of another one).
/// Errors: [`LayoutError::UnknownDim`] without a `register` in-dim.
///
/// ```
/// use linear_layout::analysis::action_remove_broadcasted_regs;
/// use linear_layout::LinearLayout;
/// let l = LinearLayout::from_bases(&[("register", vec![vec![1], vec![0], vec![2]])], &[("dim0", 4)], true)?;
/// let action = action_remove_broadcasted_regs(&l)?;
/// assert_eq!(action.order(), &[0, 2]);
/// assert_eq!(action.apply(&l)?.bases_of("register")?, vec![vec![1], vec![2]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn action_remove_broadcasted_regs(layout: &LinearLayout) -> Result<ColumnAction> {
    let reg = Dim::new("register");
    let bases = layout.bases_of(reg)?;
    let order = bases
        .iter()
        .enumerate()
        .filter(|(_, b)| b.iter().any(|&c| c != 0))
        .map(|(i, _)| i)
        .collect();
    ColumnAction::new(reg, order, bases.len() as u32)
}

/// Triton's `regPermForDivide(a, b, /*left=*/true)`: a permutation of `a`'s register bases that
/// puts, for each register basis of `b` in order, the first unused equal basis of `a` in front
/// (the rest keep their order). `b`'s bases are compared over `a`'s out-dims, missing dims
/// reading 0. `None` when some basis of `b` has no equal in `a`. If any permutation makes `a`
/// left-divisible by `b`, this one does.
///
/// ```
/// use linear_layout::analysis::reg_perm_for_divide_left;
/// use linear_layout::LinearLayout;
/// let cvt = LinearLayout::from_bases(&[("register", vec![vec![4], vec![1], vec![2]])], &[("offset", 8)], true)?;
/// let tile = LinearLayout::identity_1d(4, "register", "offset")?;
/// let perm = reg_perm_for_divide_left(&cvt, &tile)?;
/// assert_eq!(perm.map(|p| p.order().to_vec()), Some(vec![1, 2, 0]));
/// // no register holds offset 8: a 16-vector cannot be formed
/// let tile16 = LinearLayout::identity_1d(16, "register", "offset")?;
/// assert_eq!(reg_perm_for_divide_left(&cvt, &tile16)?, None);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn reg_perm_for_divide_left(
    a: &LinearLayout,
    b: &LinearLayout,
) -> Result<Option<ColumnAction>> {
    let reg = Dim::new("register");
    let a_bases = a.bases_of(reg)?;
    let b_bases = if b.has_in_dim(reg) {
        b.bases_of(reg)?
    } else {
        Vec::new()
    };
    let a_outs = a.out_dim_names();
    let b_outs = b.out_dim_names();
    let mut used = vec![false; a_bases.len()];
    let mut front = Vec::new();
    for bb in &b_bases {
        // b's basis over a's out-dims; a non-zero component in a dim `a` lacks never matches.
        let mut widened = vec![0u64; a_outs.len()];
        let mut representable = true;
        for (d, &c) in b_outs.iter().zip(bb) {
            match a_outs.iter().position(|o| o == d) {
                Some(j) => {
                    if let Some(slot) = widened.get_mut(j) {
                        *slot = c;
                    }
                }
                None => representable &= c == 0,
            }
        }
        let is_free = |j: usize| !used.get(j).copied().unwrap_or(true);
        let found = (0..a_bases.len())
            .find(|&j| representable && is_free(j) && a_bases.get(j) == Some(&widened));
        match found {
            Some(j) => {
                if let Some(u) = used.get_mut(j) {
                    *u = true;
                }
                front.push(j);
            }
            None => return Ok(None),
        }
    }
    front.extend((0..a_bases.len()).filter(|&j| !used.get(j).copied().unwrap_or(true)));
    ColumnAction::new(reg, front, a_bases.len() as u32).map(Some)
}

/// Triton's `largestVectorisation`: the largest `v ≤ 128 / element_bits` (and `≤
/// max_vec_elems` when given) such that, after [`reg_perm_for_divide_left`], `cvt` (registers
/// → `offset`) is left-divisible by `identity_1d(v, register, offset)`: `v` consecutive
/// registers land on `v` consecutive offsets. With `max_vec_elems` no permutation other than
/// the identity is allowed (Triton's rule for padded layouts). Returns `v` and the permutation.
///
/// Errors: [`LayoutError::NotPowerOfTwo`] for `element_bits`,
/// [`LayoutError::InvalidParameter`] for `element_bits > 128`, [`LayoutError::UnknownDim`]
/// without a `register` in-dim.
///
/// ```
/// use linear_layout::analysis::largest_vectorisation;
/// use linear_layout::LinearLayout;
/// // registers 1, 2 hit offsets 2, 1; register 4 hits offset 16: a vector of 4 after a swap.
/// let cvt = LinearLayout::from_bases(
///     &[("register", vec![vec![2], vec![1], vec![16]]), ("lane", vec![vec![4], vec![8]])],
///     &[("offset", 32)], true)?;
/// let (v, perm) = largest_vectorisation(&cvt, 16, None)?;
/// assert_eq!(v, 4);
/// assert_eq!(perm.order(), &[1, 0, 2]);
/// // fp32: at most 4 elements per 128-bit access, fp64: 2
/// assert_eq!(largest_vectorisation(&cvt, 64, None)?.0, 2);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn largest_vectorisation(
    cvt: &LinearLayout,
    element_bits: u32,
    max_vec_elems: Option<u64>,
) -> Result<(u64, ColumnAction)> {
    check_element_bits(element_bits)?;
    let reg = Dim::new("register");
    let reg_log2 = cvt.in_dim_size_log2(reg)?;
    let allow_perm = max_vec_elems.is_none();
    let cap = u64::from(MAX_VECTOR_BITS / element_bits);
    let mut v = max_vec_elems.map_or(cap, |m| m.min(cap));
    // largest power of two not above the cap
    if v > 0 {
        v = 1u64 << (63 - v.leading_zeros());
    }
    while v > 1 {
        let tile = LinearLayout::identity_1d(v, reg, "offset")?;
        if let Some(perm) = reg_perm_for_divide_left(cvt, &tile)? {
            if allow_perm || perm.is_identity() {
                let permuted = perm.apply(cvt)?;
                if divide_left(&permuted, &tile).is_ok() {
                    return Ok((v, perm));
                }
            }
        }
        v /= 2;
    }
    Ok((1, ColumnAction::identity(reg, reg_log2)))
}

/// Element widths Triton's shared-memory lowering accepts: a power of two up to 128 bits.
pub(crate) fn check_element_bits(element_bits: u32) -> Result<()> {
    if !element_bits.is_power_of_two() {
        return Err(LayoutError::NotPowerOfTwo {
            what: "element bit width".into(),
            value: u128::from(element_bits),
        });
    }
    if element_bits > MAX_VECTOR_BITS {
        return Err(LayoutError::InvalidParameter {
            family: "shared-memory access",
            param: "element_bits",
            value: element_bits.to_string(),
            reason: format!("at most {MAX_VECTOR_BITS} bits move in one ld/st.shared"),
        });
    }
    Ok(())
}
