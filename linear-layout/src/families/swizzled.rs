//! [`SwizzledShared`]: Triton's `#ttg.swizzled_shared` layout, the XOR-swizzled shared-memory
//! layout `convert_layout` and `local_alloc` use when no MMA/TMA layout is required.
//!
//! Within one CTA, with `c = order[0]` the contiguous dim and `r = order[1]`:
//! the offset bits first walk `c` (`(0, 2^i)`), then each row bit `ρ = 2^j` of `r` moves one row
//! and XORs the column by `vec · ((ρ / per_phase) mod max_phase)`, truncated to the columns the
//! tensor has; the remaining dims `order[2..]` follow unswizzled. Offsets count elements.

use super::attribute::Attribute;
use super::checks::{check_order, check_pow2, check_shape};
use super::tiling::{cga_layout, combine_cta_cga, ensure_not_larger_than, standard_out_dims};
use crate::text::attr::{cga_suffix, list_text, AttrParser};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "swizzled_shared";

/// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`: element `(row, col)` of each
/// 2-D slice is stored at column `col ⊕ vec · ((row / per_phase) mod max_phase)` of its row,
/// rows along `order[1]`, columns along `order[0]` (the contiguous dim).
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter otherwise): `vec`,
/// `per_phase` and `max_phase` are powers of two between 1 and 2^30 (Triton 3.9 accepts any
/// value and silently builds a different, non-XOR map for e.g. `vec = 3`, and crashes on 0);
/// `order` is a permutation of the dims (at least one). The shape must have `order.len()` dims,
/// each a power of two ([`LayoutError::InvalidShape`]), and hold at least two elements per CTA
/// (Gluon refuses a shared layout without offset bits).
///
/// ```
/// use linear_layout::families::SwizzledShared;
/// // vec 2, per_phase 2, max_phase 4, row-major 32 × 16 (verified against Triton 3.9).
/// let s = SwizzledShared::new(2, 2, 4, vec![1, 0], vec![])?;
/// let l = s.to_linear_layout(&[32, 16])?;
/// assert_eq!(
///     l.bases_of("offset")?,
///     vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8],
///          vec![1, 0], vec![2, 2], vec![4, 4], vec![8, 0], vec![16, 0]]
/// );
/// // Element (3, 5): phase (3 / 2) mod 4 = 1, column 5 ⊕ 2 = 7, offset 3·16 + 7.
/// let p = l.pseudoinvert()?;
/// assert_eq!(p.apply(&[("dim0", 3), ("dim1", 5)])?, vec![("offset".into(), 55), ("block".into(), 0)]);
/// assert!(SwizzledShared::new(3, 1, 4, vec![1, 0], vec![]).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwizzledShared {
    /// Elements per swizzled vector.
    pub vec: u32,
    /// Rows sharing one phase.
    pub per_phase: u32,
    /// Number of distinct phases.
    pub max_phase: u32,
    /// Dims from most minor (contiguous) to most major.
    pub order: Vec<usize>,
    /// Gluon 3.9 `cga_layout`: block bases in units of one CTA tile (empty: one CTA).
    pub cga_layout: Vec<Vec<u64>>,
}

impl SwizzledShared {
    /// A checked `SwizzledShared`; errors as listed on [`SwizzledShared`].
    ///
    /// ```
    /// use linear_layout::{families::SwizzledShared, LayoutError};
    /// assert!(SwizzledShared::new(8, 1, 8, vec![1, 0], vec![]).is_ok());
    /// let err = SwizzledShared::new(8, 0, 8, vec![1, 0], vec![]);
    /// assert!(matches!(err, Err(LayoutError::InvalidParameter { param: "per_phase", .. })));
    /// assert!(SwizzledShared::new(8, 1, 8, vec![0, 0], vec![]).is_err());
    /// ```
    pub fn new(
        vec: u32,
        per_phase: u32,
        max_phase: u32,
        order: Vec<usize>,
        cga_layout: Vec<Vec<u64>>,
    ) -> Result<Self> {
        let s = SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order,
            cga_layout,
        };
        s.validate()?;
        Ok(s)
    }

    /// Shared-memory alignment of an allocation in this layout, in bytes (Gluon: 16, one
    /// 128-bit vector).
    ///
    /// ```
    /// use linear_layout::families::SwizzledShared;
    /// assert_eq!(SwizzledShared::new(4, 1, 8, vec![1, 0], vec![])?.alignment(), 16);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alignment(&self) -> u64 {
        16
    }

    /// The layout `offset, block → dim0..` for an allocation of `shape` (Triton's
    /// `swizzledSharedToLinearLayout` on the allocation shape): the swizzled 2-D slice of the
    /// per-CTA shape, the other dims stacked in `order`, then split over CTAs by `cga_layout`.
    /// The `mod` columns truncation means a swizzle wider than the tensor wraps around.
    /// Errors: see [`SwizzledShared`].
    ///
    /// ```
    /// use linear_layout::families::SwizzledShared;
    /// // vec 4, per_phase 1, max_phase 8, column-major 16 × 16.
    /// let l = SwizzledShared::new(4, 1, 8, vec![0, 1], vec![])?.to_linear_layout(&[16, 16])?;
    /// assert_eq!(
    ///     l.bases_of("offset")?,
    ///     vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0],
    ///          vec![4, 1], vec![8, 2], vec![0, 4], vec![0, 8]]
    /// );
    /// // vec 8, max_phase 8 on 16 columns: rows 2 and 4 would XOR 16 and 32, i.e. nothing.
    /// let w = SwizzledShared::new(8, 1, 8, vec![1, 0], vec![])?.to_linear_layout(&[64, 16])?;
    /// assert_eq!(w.bases_of("offset")?[4..7], [vec![1, 8], vec![2, 0], vec![4, 0]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.layout(FAMILY, shape, false)
    }

    /// The layout on `shape`, the phase of each row XORed with its block number when
    /// `rotating` ([`AmdRotatingShared`](super::AmdRotatingShared)).
    pub(crate) fn layout(
        &self,
        family: &'static str,
        shape: &[u64],
        rotating: bool,
    ) -> Result<LinearLayout> {
        let rank = self.validate()?;
        check_shape(family, shape, rank)?;
        let per_cta = shape_per_cta(&self.cga_layout, shape)?;
        let cta = self.cta_layout(&per_cta, rotating)?;
        let l = combine_cta_cga(&cta, &self.cga_layout, shape, true)?;
        require_offset_bits(family, &l, shape)?;
        Ok(l)
    }

    /// The per-CTA layout `offset → dims` on `per_cta` (out-dims `order[1], order[0],
    /// order[2..]`, as Triton builds it).
    fn cta_layout(&self, per_cta: &[u64], rotating: bool) -> Result<LinearLayout> {
        let dim = |i: usize| -> Result<(Dim, u64)> {
            let d = *self.order.get(i).ok_or_else(|| bad_order(&self.order))?;
            let size = *per_cta.get(d).ok_or_else(|| bad_order(&self.order))?;
            Ok((Dim::standard(d), size))
        };
        if self.order.len() == 1 {
            let (d, size) = dim(0)?;
            return LinearLayout::identity_1d(size, "offset", d);
        }
        let (col_dim, cols) = dim(0)?;
        let (row_dim, rows) = dim(1)?;
        let (vec, per_phase, max_phase) = (
            u64::from(self.vec),
            u64::from(self.per_phase),
            u64::from(self.max_phase),
        );
        let mut bases: Vec<Vec<u64>> = Vec::new();
        bases.extend((0..cols.trailing_zeros()).map(|i| vec![0, 1 << i]));
        for j in 0..rows.trailing_zeros() {
            let row = 1u64 << j;
            let mut phase = (row / per_phase) % max_phase;
            if rotating {
                // AMD rotating: each block of `per_phase · max_phase` rows shifts the phases.
                phase ^= (row / max_phase / per_phase) % max_phase;
            }
            // vec, max_phase ≤ 2^30 (validated), so the product fits.
            let col = (vec * phase) % cols;
            bases.push(vec![row, col]);
        }
        let mut l = LinearLayout::from_bases_inferred(&[("offset", bases)], &[row_dim, col_dim])?;
        for i in 2..self.order.len() {
            let (d, size) = dim(i)?;
            l = l.product(&LinearLayout::identity_1d(size, "offset", d)?)?;
        }
        Ok(l)
    }

    /// Checks every parameter (see [`SwizzledShared`]) and returns the rank.
    fn validate(&self) -> Result<usize> {
        check_pow2(FAMILY, "vec", u64::from(self.vec))?;
        check_pow2(FAMILY, "per_phase", u64::from(self.per_phase))?;
        check_pow2(FAMILY, "max_phase", u64::from(self.max_phase))?;
        let rank = self.order.len();
        if rank == 0 {
            return Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "order",
                value: "[]".into(),
                reason: "a shared layout needs at least one dim".into(),
            });
        }
        check_order(FAMILY, &self.order, rank)?;
        cga_layout(&self.cga_layout, rank)?;
        Ok(rank)
    }
}

fn bad_order(order: &[usize]) -> LayoutError {
    LayoutError::InvalidParameter {
        family: FAMILY,
        param: "order",
        value: format!("{order:?}"),
        reason: "must be a permutation of the tensor's dims".into(),
    }
}

/// Triton's `getShapePerCTA` for a Gluon 3.9 linear `cga_layout`: each dim of `shape` divided
/// by the number of CTA tiles the CGA layout (clipped to `shape`) spreads it over, at least 1 —
/// the same per-CTA shape [`combine_cta_cga`] fits the CTA layout to.
pub(crate) fn shape_per_cta(cga_bases: &[Vec<u64>], shape: &[u64]) -> Result<Vec<u64>> {
    let outs = standard_out_dims(shape.len());
    let labeled: Vec<(&str, u64)> = outs
        .iter()
        .map(|d| d.name())
        .zip(shape.iter().copied())
        .collect();
    let cga = cga_layout(cga_bases, shape.len())?;
    let cga = ensure_not_larger_than(&cga, &labeled, true)?;
    labeled
        .iter()
        .map(|&(name, size)| Ok((size / cga.out_dim_size(name)?).max(1)))
        .collect()
}

/// Gluon's `SharedLinearLayout` needs at least one offset basis: an allocation of one element
/// per CTA has none, and Gluon refuses it.
pub(crate) fn require_offset_bits(
    family: &'static str,
    layout: &LinearLayout,
    shape: &[u64],
) -> Result<()> {
    if layout.in_dim_size_log2("offset")? == 0 {
        return Err(LayoutError::InvalidShape {
            family,
            shape: shape.to_vec(),
            reason:
                "one element per CTA leaves no offset bits (Gluon refuses such a shared layout)"
                    .into(),
        });
    }
    Ok(())
}

impl Attribute for SwizzledShared {
    const NAME: &'static str = "#ttg.swizzled_shared";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        SwizzledShared::parse_named(p, start, Self::NAME)
    }

    fn print(&self, _rank: usize) -> String {
        self.print_named(Self::NAME)
    }
}

impl SwizzledShared {
    /// The keys of `#ttg.swizzled_shared` (and `#ttg.amd_rotating_shared`, which Triton parses
    /// the same way) after the attribute's name `A`.
    pub(crate) fn parse_named(p: &mut AttrParser<'_>, start: usize, name: &str) -> Result<Self> {
        const KEYS: [&str; 5] = ["vec", "perPhase", "maxPhase", "order", "CGALayout"];
        let (mut vec, mut per_phase, mut max_phase, mut order, mut cga) =
            (None, None, None, None, Vec::new());
        p.open_dict(name)?;
        p.fields(name, Some(&KEYS), '}', |p, key| {
            match key {
                "vec" => vec = Some(p.int(name, key)?),
                "perPhase" => per_phase = Some(p.int(name, key)?),
                "maxPhase" => max_phase = Some(p.int(name, key)?),
                "order" => order = Some(p.ints(name, key)?),
                _ => cga = p.bases(name, key)?,
            }
            Ok(())
        })?;
        p.close_dict(name)?;
        let s = SwizzledShared {
            vec: p.required(name, start, "vec", vec)?,
            per_phase: p.required(name, start, "perPhase", per_phase)?,
            max_phase: p.required(name, start, "maxPhase", max_phase)?,
            order: p.required(name, start, "order", order)?,
            cga_layout: cga,
        };
        p.check_cga(name, start, &s.cga_layout, Some(s.order.len()))?;
        Ok(s)
    }

    /// The attribute text under the name `name`.
    pub(crate) fn print_named(&self, name: &str) -> String {
        format!(
            "{}<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}{}}}>",
            name,
            self.vec,
            self.per_phase,
            self.max_phase,
            list_text(&self.order),
            cga_suffix(&self.cga_layout),
        )
    }
}
