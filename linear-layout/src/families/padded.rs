//! [`PaddedShared`]: `#ttg.padded_shared`, a shared-memory layout that inserts padding
//! elements every `interval` elements, over a linear remapping of the tensor.

use super::attribute::Attribute;
use super::tiling::{combine_cta_cga, identity_standard_nd, standard_out_dims};
use crate::text::attr::{layout_dims_text, list_text, AttrParser};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "padded_shared";

/// `#ttg.padded_shared<[interval:+padding, …] {offset = […], block = […]}>` (or the short form
/// `{order = […], shape = […]}` for an identity remapping): Triton 3.9's
/// `PaddedSharedEncodingAttr`, common in AMD kernels.
///
/// Two parts, as Triton keeps them:
/// * the **linear component** (`offset, block → dim0..`): which tensor element the `i`-th
///   unpadded slot of a CTA's buffer holds. Its own shape is the allocation's; Triton's
///   `paddedLinearLayout` returns it as is. It is not a layout of the padded buffer, so
///   [`PaddedShared::to_linear_layout`] refuses, as Triton's `toLinearLayout` does.
/// * the **padding**: after every `interval` elements, `padding` more slots; the slot of
///   unpadded offset `x` is `x + Σ (x >> log2 interval) << log2 padding`
///   ([`PaddedShared::padded_offset`], Triton's `applyPadding`). Not linear over GF(2).
///
/// Preconditions (Triton's verifier; [`LayoutError::InvalidParameter`]): at least one pair;
/// intervals and paddings powers of two, intervals distinct; the linear component with in-dims
/// `offset, block` and out-dims `dim0..`, injective on `offset`, every basis moving at most one
/// dim by a power of two.
///
/// ```
/// use linear_layout::families::PaddedShared;
/// // Gluon's example: 8 × 4, one padding slot after every 8 elements, rows 0,2,4,6,1,3,5,7.
/// let offset = vec![vec![0, 1], vec![0, 2], vec![2, 0], vec![4, 0], vec![1, 0]];
/// let p = PaddedShared::new(&[(8, 1)], &offset, &[], &[8, 4])?;
/// assert_eq!(p.padded_offset(8), 9); // x2y0 sits after one padding slot
/// assert_eq!(p.padded_size(32), 35); // no padding after the last element
/// assert_eq!(p.linear_component().bases_of("offset")?[2], vec![2, 0]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaddedShared {
    /// `(interval, padding)` pairs, in elements.
    pub intervals_paddings: Vec<(u64, u64)>,
    /// `offset, block → dim0..`: the tensor element of each unpadded slot.
    pub linear: LinearLayout,
}

impl PaddedShared {
    /// A padded layout from Gluon's `PaddedSharedLayout(interval_padding_pairs, offset_bases,
    /// cga_layout, shape)`, checked (see [`PaddedShared`]). The out sizes are `shape`.
    pub fn new(
        pairs: &[(u64, u64)],
        offset_bases: &[Vec<u64>],
        block_bases: &[Vec<u64>],
        shape: &[u64],
    ) -> Result<PaddedShared> {
        let outs: Vec<(Dim, u64)> = standard_out_dims(shape.len())
            .into_iter()
            .zip(shape.iter().copied())
            .collect();
        let linear = LinearLayout::from_bases(
            &[
                ("offset", offset_bases.to_vec()),
                ("block", block_bases.to_vec()),
            ],
            &outs,
            false,
        )
        .map_err(|e| invalid("offset_bases", &offset_bases, e.to_string()))?;
        let p = PaddedShared {
            intervals_paddings: pairs.to_vec(),
            linear,
        };
        p.validate()?;
        Ok(p)
    }

    /// Gluon's `PaddedSharedLayout.with_identity_for(pairs, shape, order)` (one CTA): the
    /// linear component is the identity over `shape`, `order[0]` fastest.
    ///
    /// ```
    /// use linear_layout::families::PaddedShared;
    /// let p = PaddedShared::with_identity(&[(256, 8)], &[16, 32], &[1, 0])?;
    /// assert_eq!(p.to_string(), "#ttg.padded_shared<[256:+8] {order = [1, 0], shape = [16, 32]}>");
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn with_identity(pairs: &[(u64, u64)], shape: &[u64], order: &[usize]) -> Result<Self> {
        if let Some(s) = shape.iter().find(|s| !s.is_power_of_two()) {
            return Err(invalid(
                "shape",
                &shape,
                format!("{s} is not a power of two"),
            ));
        }
        if order.len() != shape.len() {
            return Err(invalid(
                "order",
                &order,
                format!("needs {} entries, one per dim of the shape", shape.len()),
            ));
        }
        let identity = identity_standard_nd("offset", shape, order)?;
        let p = PaddedShared {
            intervals_paddings: pairs.to_vec(),
            linear: combine_cta_cga(&identity, &[], shape, true)?,
        };
        p.validate()?;
        Ok(p)
    }

    /// The linear component (Triton's `paddedLinearLayout`): `offset, block → dim0..`.
    pub fn linear_component(&self) -> &LinearLayout {
        &self.linear
    }

    /// The buffer slot of unpadded offset `offset` (Triton's `applyPadding`, in elements).
    pub fn padded_offset(&self, offset: u64) -> u64 {
        let pad: u64 = self
            .intervals_paddings
            .iter()
            .map(|&(i, p)| (offset >> i.trailing_zeros()) << p.trailing_zeros())
            .sum();
        offset + pad
    }

    /// Slots an allocation of `elements` elements takes, padding included but none after the
    /// last element (Triton's `getPaddedSize`).
    pub fn padded_size(&self, elements: u64) -> u64 {
        let pad: u64 = self
            .intervals_paddings
            .iter()
            .map(|&(i, p)| {
                let all = (elements >> i.trailing_zeros()) << p.trailing_zeros();
                if elements.is_multiple_of(i) {
                    all.saturating_sub(p)
                } else {
                    all
                }
            })
            .sum();
        elements + pad
    }

    /// Always an error, as in Triton 3.9: a padded buffer is not a linear layout. Use
    /// [`PaddedShared::linear_component`] and [`PaddedShared::padded_offset`].
    ///
    /// ```
    /// use linear_layout::families::PaddedShared;
    /// let p = PaddedShared::with_identity(&[(32, 4)], &[8, 32], &[1, 0])?;
    /// assert!(p.to_linear_layout(&[8, 32]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.validate()?;
        Err(invalid(
            "layout",
            &shape,
            "a padded shared layout has no linear layout (Triton: use paddedLinearLayout): \
             take PaddedShared::linear_component and PaddedShared::padded_offset"
                .into(),
        ))
    }

    /// Triton's `getOrder()`: each dim in the order an `offset` basis first moves it, then the
    /// rest from the last dim down.
    pub fn order(&self) -> Vec<usize> {
        let rank = self.linear.num_out_dims();
        let mut order = Vec::with_capacity(rank);
        let moved: Vec<usize> = self
            .linear
            .bases_of("offset")
            .unwrap_or_default()
            .iter()
            .filter_map(|b| b.iter().position(|&v| v != 0))
            .collect();
        for d in moved.into_iter().chain((0..rank).rev()) {
            if !order.contains(&d) {
                order.push(d);
            }
        }
        order
    }

    fn validate(&self) -> Result<()> {
        let pairs = &self.intervals_paddings;
        if pairs.is_empty() {
            return Err(invalid(
                "intervals_paddings",
                pairs,
                "needs at least one interval-padding pair".into(),
            ));
        }
        if pairs
            .iter()
            .any(|&(i, p)| !i.is_power_of_two() || !p.is_power_of_two() || i > 1 << 31)
        {
            return Err(invalid(
                "intervals_paddings",
                pairs,
                "intervals and paddings must be powers of two".into(),
            ));
        }
        if pairs
            .iter()
            .enumerate()
            .any(|(k, a)| pairs.iter().skip(k + 1).any(|b| b.0 == a.0))
        {
            return Err(invalid(
                "intervals_paddings",
                pairs,
                "an interval appears twice".into(),
            ));
        }
        let l = &self.linear;
        let ins: Vec<String> = l
            .in_dim_names()
            .iter()
            .map(|d| d.name().to_string())
            .collect();
        if ins != ["offset", "block"] || l.out_dim_names() != standard_out_dims(l.num_out_dims()) {
            return Err(invalid(
                "linear",
                &ins,
                "the linear component maps offset, block to dim0..".into(),
            ));
        }
        let offsets = l.sublayout(&["offset"], &l.out_dim_names())?;
        if !offsets.is_injective() {
            return Err(invalid(
                "offset_bases",
                &l.bases_of("offset")?,
                "two offsets hold the same element (Triton: no broadcasting in the offset dim)"
                    .into(),
            ));
        }
        for (dim, bases) in l.bases() {
            for b in &bases {
                let moved: Vec<&u64> = b.iter().filter(|&&v| v != 0).collect();
                if moved.len() > 1 || moved.iter().any(|v| !v.is_power_of_two()) {
                    return Err(invalid(
                        "offset_bases",
                        b,
                        format!(
                            "a {dim} basis must move at most one dim, by a power of two (padding \
                             rearranges whole rows, it does not swizzle)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn invalid<T: std::fmt::Debug + ?Sized>(
    param: &'static str,
    value: &T,
    reason: String,
) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

impl Attribute for PaddedShared {
    const NAME: &'static str = "#ttg.padded_shared";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = PaddedShared::NAME;
        p.cursor.require(A, '<', "")?;
        p.cursor.require(A, '[', "")?;
        let mut pairs = Vec::new();
        loop {
            let interval = p.uint(A, "interval")?;
            p.cursor.require(A, ':', " after an interval")?;
            p.cursor.require(A, '+', " before a padding")?;
            let padding = p.uint(A, "padding")?;
            pairs.push((interval, padding));
            if p.cursor.eat(',') {
                continue;
            }
            p.cursor
                .require(A, ']', " after the interval:+padding pairs")?;
            break;
        }
        p.cursor.require(A, '{', "")?;
        let (mut offset, mut block, mut order, mut shape) = (None, None, None, None);
        p.fields(
            A,
            Some(&["offset", "block", "order", "shape"]),
            '}',
            |p, key| {
                match key {
                    "offset" => offset = Some(p.bases(A, key)?),
                    "block" => block = Some(p.bases(A, key)?),
                    "order" => order = Some(p.ints::<usize>(A, key)?),
                    _ => shape = Some(p.ints::<u64>(A, key)?),
                }
                Ok(())
            },
        )?;
        p.close_dict(A)?;
        let bad = |p: &AttrParser<'_>, msg: &str| p.err_at(A, start, msg);
        let padded = if offset.is_some() || block.is_some() {
            if order.is_some() || shape.is_some() {
                return Err(bad(p, "give either offset/block bases or order and shape"));
            }
            let dims = [
                ("offset", p.required(A, start, "offset", offset)?),
                ("block", p.required(A, start, "block", block)?),
            ];
            PaddedShared {
                intervals_paddings: pairs,
                linear: p.layout(A, start, &dims)?,
            }
        } else {
            let order = p.required(A, start, "order", order)?;
            let shape = p.required(A, start, "shape", shape)?;
            if order.len() != shape.len() {
                return Err(bad(p, "order and shape must have the same rank"));
            }
            PaddedShared::with_identity(&pairs, &shape, &order)
                .map_err(|e| p.err_at(A, start, e))?
        };
        padded.validate().map_err(|e| p.err_at(A, start, e))?;
        Ok(padded)
    }

    fn print(&self, _rank: usize) -> String {
        let pairs: Vec<String> = self
            .intervals_paddings
            .iter()
            .map(|(i, p)| format!("{i}:+{p}"))
            .collect();
        let shape: Vec<u64> = self.linear.out_dims().iter().map(|&(_, s)| s).collect();
        let order = self.order();
        let block_empty = self.linear.in_dim_size_log2("block").unwrap_or(0) == 0;
        let identity = identity_standard_nd("offset", &shape, &order)
            .and_then(|l| l.transpose_outs(&self.linear.out_dim_names()));
        let offsets = self
            .linear
            .sublayout(&["offset"], &self.linear.out_dim_names());
        let body = match (identity, offsets) {
            (Ok(i), Ok(o)) if block_empty && i == o => format!(
                "order = {}, shape = {}",
                list_text(&order),
                list_text(&shape)
            ),
            _ => layout_dims_text(&self.linear, &["offset", "block"], &[]),
        };
        format!("{}<[{}] {{{body}}}>", Self::NAME, pairs.join(", "))
    }
}

impl std::fmt::Display for PaddedShared {
    /// The attribute text (`#ttg.padded_shared<[…] {…}>`), as Triton prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.print(0))
    }
}
