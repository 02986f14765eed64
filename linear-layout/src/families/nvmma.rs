//! [`NvmmaShared`]: the wgmma/tcgen05/TMA shared layout `#ttg.nvmma_shared`.
//!
//! The layout is built from one *atom* (core matrix): 8 rows of `max(16, swizzle_byte_width)`
//! contiguous bytes, whose 16-byte chunks are XOR-swizzled by the row (CuTe's
//! `Swizzle<log2(swizzle_byte_width / 16), 4, 3>` on byte addresses, see
//! [`NvmmaShared::cute_swizzle`]). Atoms tile one TMA block (all leading dims collapsed into
//! rows; more rows first, then more column atoms), blocks tile the per-CTA shape, and CTAs tile
//! the tensor. Offsets count elements.

use super::attribute::Attribute;
use super::checks::check_shape;
use super::cute::CuteSwizzle;
use super::swizzled::{require_offset_bits, shape_per_cta};
use super::tiling::{combine_cta_cga, ensure_not_smaller_than, standard_out_dims};
use crate::text::attr::{cga_suffix, AttrParser};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "nvmma_shared";

/// Largest TMA box extent along any dim, in elements.
const TMA_MAX_BOX: u64 = 256;

/// `#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth, fp4Padded, rank}>`.
/// Built with [`NvmmaShared::new`] it takes its rank from the shape; an attribute read from
/// MLIR has the rank its text gives (`rank = N`, the `CGALayout`'s, or Triton's default 2) and
/// refuses a shape of another rank, where Triton 3.9 asserts (`combineCtaCgaWithShape`).
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter otherwise):
/// `swizzle_byte_width` ∈ {0, 32, 64, 128}, `element_bits` ∈ {8, 16, 32, 64}, `fp4_padded` only with
/// 8-bit elements and 128-byte swizzling. Shapes ([`LayoutError::InvalidShape`]): powers of two,
/// at least rank 2 when swizzled, and per CTA at least one TMA block (the contiguous dim holds
/// a whole swizzle row of `swizzle_byte_width`) of at least one atom (8 rows after collapsing the
/// leading dims) — where Triton 3.9 aborts the process.
///
/// ```
/// use linear_layout::families::NvmmaShared;
/// // 128-byte swizzle, fp16, 16 × 64 (verified against Triton 3.9): the row bits XOR the
/// // 8-element (16-byte) chunk index.
/// let n = NvmmaShared::new(128, 16, false, false, vec![])?;
/// let l = n.to_linear_layout(&[16, 64])?;
/// assert_eq!(
///     l.bases_of("offset")?,
///     vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16], vec![0, 32],
///          vec![1, 8], vec![2, 16], vec![4, 32], vec![8, 0]]
/// );
/// assert_eq!(n.alignment(), 1024);
/// assert!(n.to_linear_layout(&[4, 64]).is_err()); // fewer than 8 rows: no whole atom
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmmaShared {
    /// Swizzle width in bytes: 0, 32, 64 or 128.
    pub swizzle_byte_width: u32,
    /// Element width in bits: 8, 16, 32 or 64.
    pub element_bitwidth: u32,
    /// Whether dim0 (not the last dim) is contiguous.
    pub transposed: bool,
    /// fp4 padded: each 16-byte group holds 8 real bytes (8-bit elements, 128B swizzle only).
    pub fp4_padded: bool,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
    /// The attribute's rank: `None` follows the shape; `Some(n)` refuses a shape of another rank.
    pub rank: Option<usize>,
}

impl NvmmaShared {
    /// A checked `NvmmaShared`; errors as listed on [`NvmmaShared`].
    ///
    /// ```
    /// use linear_layout::{families::NvmmaShared, LayoutError};
    /// assert!(NvmmaShared::new(64, 16, false, false, vec![]).is_ok());
    /// let err = NvmmaShared::new(48, 16, false, false, vec![]);
    /// assert!(matches!(err, Err(LayoutError::InvalidParameter { param: "swizzle_bytes", .. })));
    /// let err = NvmmaShared::new(64, 8, false, true, vec![]);
    /// assert!(matches!(err, Err(LayoutError::InvalidParameter { param: "fp4_padded", .. })));
    /// ```
    pub fn new(
        swizzle_byte_width: u32,
        element_bitwidth: u32,
        transposed: bool,
        fp4_padded: bool,
        cga_layout: Vec<Vec<u64>>,
    ) -> Result<Self> {
        let n = NvmmaShared {
            swizzle_byte_width,
            element_bitwidth,
            transposed,
            fp4_padded,
            cga_layout,
            rank: None,
        };
        n.validate()?;
        Ok(n)
    }

    /// Shared-memory alignment of an allocation in this layout, in bytes: the swizzle pattern
    /// repeats every 8 rows of `swizzle_byte_width`, so 1024 (128B), 512 (64B), 256 (32B); 128 (one
    /// TMA line) without swizzling.
    ///
    /// ```
    /// use linear_layout::families::NvmmaShared;
    /// let align = |sw| NvmmaShared::new(sw, 16, false, false, vec![]).map(|n| n.alignment());
    /// assert_eq!([align(0)?, align(32)?, align(64)?, align(128)?], [128, 256, 512, 1024]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alignment(&self) -> u64 {
        match self.swizzle_byte_width {
            128 => 1024,
            64 => 512,
            32 => 256,
            _ => 128,
        }
    }

    /// The swizzle as CuTe writes it, on *byte* addresses within one atom laid out row-major
    /// (`row · swizzle_byte_width + byte`): `Swizzle<3,4,3>` for 128B, `<2,4,3>` for 64B, `<1,4,3>`
    /// for 32B — the 16-byte chunk index (bits 4..) is XOR-ed with the row bits above
    /// `log2(per_phase)`. `None` without swizzling (or for an invalid width).
    ///
    /// ```
    /// use linear_layout::families::NvmmaShared;
    /// let n = NvmmaShared::new(128, 16, false, false, vec![])?;
    /// assert_eq!(n.cute_swizzle().map(|s| s.to_string()).as_deref(), Some("Sw<3,4,3>"));
    /// assert_eq!(NvmmaShared::new(0, 16, false, false, vec![])?.cute_swizzle(), None);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn cute_swizzle(&self) -> Option<CuteSwizzle> {
        let bits = match self.swizzle_byte_width {
            32 => 1,
            64 => 2,
            128 => 3,
            _ => return None,
        };
        Some(CuteSwizzle {
            bits,
            base: 4,
            shift: 3,
        })
    }

    /// One atom (core matrix) `offset → dim0 (row), dim1 (column)` in elements: 8 rows of
    /// `8 · max(16, swizzle_byte_width) / element_bits` columns; column bases `(0, 2^i)`, row `ρ`
    /// XOR-ing the column by `vec · ((ρ / per_phase) mod max_phase)` with `vec` = 16 bytes,
    /// `per_phase = 128 / swizzle_byte_width`, `max_phase = swizzle_byte_width / 16` (Triton's
    /// `getCoreMatrixLinearLayout`). With `fp4_padded`, column `c` of the padded atom holds
    /// element `c / 16 · 8 + c mod 8`: offset bit 3 maps to nothing (padding).
    /// Errors: see [`NvmmaShared`].
    ///
    /// ```
    /// use linear_layout::families::NvmmaShared;
    /// let atom = NvmmaShared::new(64, 32, false, false, vec![])?.atom()?;
    /// assert_eq!(
    ///     atom.bases_of("offset")?,
    ///     vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 4], vec![4, 8]]
    /// );
    /// let fp4 = NvmmaShared::new(128, 8, false, true, vec![])?.atom()?;
    /// assert_eq!(fp4.bases_of("offset")?[3], vec![0, 0]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn atom(&self) -> Result<LinearLayout> {
        self.validate()?;
        let bits = u64::from(self.element_bitwidth);
        let sw = u64::from(self.swizzle_byte_width);
        let cols = 8 * sw.max(16) / bits;
        let (vec, per_phase, max_phase) = match 128u64.checked_div(sw) {
            None => (1, 1, 1),
            Some(per_phase) => (128 / bits, per_phase, sw / 16),
        };
        let pack = |c: u64| {
            if self.fp4_padded {
                c / 16 * 8 + c % 8
            } else {
                c
            }
        };
        let mut bases: Vec<Vec<u64>> = Vec::new();
        bases.extend((0..cols.trailing_zeros()).map(|i| vec![0, pack(1 << i)]));
        for j in 0..3 {
            let row = 1u64 << j;
            bases.push(vec![row, pack(vec * ((row / per_phase) % max_phase))]);
        }
        LinearLayout::from_bases_inferred(&[("offset", bases)], &["dim0", "dim1"])
    }

    /// The layout `offset, block → dim0..` for an allocation of `shape` (Triton's
    /// `nvmmaSharedToLinearLayout`): atoms fill one TMA block — the leading dims collapsed into
    /// rows, more rows first, then more column atoms — reshaped back to N-d row-major, blocks
    /// repeat over the per-CTA shape (dim0 first), then `cga_layout` splits the tensor over CTAs.
    /// Without swizzling a block is the plain row-major identity. `transposed` makes dim0 the
    /// contiguous dim.
    ///
    /// Two Triton 3.9 quirks are kept: with `transposed` and rank ≥ 3, the collapsed rows are
    /// the *last* dim and the columns all the others; and without swizzling the transposed
    /// block is relabelled with its dims rotated the wrong way (`dim_k` of the rotated block
    /// becomes `dim_{k-1}`), so a rank ≥ 3 transposed unswizzled layout may repeat elements.
    /// Errors: see [`NvmmaShared`].
    ///
    /// ```
    /// use linear_layout::families::NvmmaShared;
    /// // 64-byte swizzle, fp16, 16 × 64: one block is 16 × 32; the second column block comes last.
    /// let l = NvmmaShared::new(64, 16, false, false, vec![])?.to_linear_layout(&[16, 64])?;
    /// assert_eq!(
    ///     l.bases_of("offset")?,
    ///     vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16],
    ///          vec![1, 0], vec![2, 8], vec![4, 16], vec![8, 0], vec![0, 32]]
    /// );
    /// // Transposed: dim0 is contiguous.
    /// let t = NvmmaShared::new(128, 16, true, false, vec![])?.to_linear_layout(&[64, 16])?;
    /// assert_eq!(t.bases_of("offset")?[6..], [vec![8, 1], vec![16, 2], vec![32, 4], vec![0, 8]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.build(shape, self.swizzle_byte_width != 0)
    }

    /// The layout TMA and the MMA descriptors address *before* the hardware applies
    /// [`cute_swizzle`](Self::cute_swizzle) to the byte address: the same TMA blocks as
    /// [`to_linear_layout`](Self::to_linear_layout) (the contiguous dim cut to one swizzle row),
    /// each plain row-major. Without swizzling it is `to_linear_layout` itself. Note that
    /// `NvmmaShared { swizzle_byte_width: 0, .. }` is *not* this layout once the contiguous dim is
    /// wider than one swizzle row: unswizzled, Triton does not cut the TMA block.
    ///
    /// Where `Sw ∘ (element_bytes · unswizzled) = element_bytes · swizzled` holds (checked by
    /// [`AddressMap::from_shared_encoding`](crate::AddressMap::from_shared_encoding), which only
    /// records a hardware swizzle then) the XOR can be moved inside the address. Errors: see
    /// [`NvmmaShared`].
    ///
    /// ```
    /// use linear_layout::families::NvmmaShared;
    /// // 64-byte swizzle, fp16, 16 × 64: two 16 × 32 blocks, each row-major.
    /// let n = NvmmaShared::new(64, 16, false, false, vec![])?;
    /// let l = n.unswizzled_layout(&[16, 64])?;
    /// assert_eq!(
    ///     l.bases_of("offset")?,
    ///     vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16],
    ///          vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 32]]
    /// );
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn unswizzled_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.build(shape, false)
    }

    /// [`to_linear_layout`](Self::to_linear_layout) with (`xor`) or without the swizzle inside
    /// each TMA block; the blocks are cut as `swizzle_byte_width` says either way.
    fn build(&self, shape: &[u64], xor: bool) -> Result<LinearLayout> {
        self.validate()?;
        let rank = shape.len();
        if rank == 0 {
            return Err(bad_shape(
                shape,
                "a shared layout needs at least one dim".into(),
            ));
        }
        if let Some(own) = self.rank.filter(|&r| r != rank) {
            return Err(bad_shape(
                shape,
                format!(
                    "the attribute has rank {own} (`rank = N`, its CGALayout, or the default 2) \
                     and the shape rank {rank}; Triton 3.9 asserts"
                ),
            ));
        }
        check_shape(FAMILY, shape, rank)?;
        let per_cta = shape_per_cta(&self.cga_layout, shape)?;
        let block = self.tma_block_shape(shape, &per_cta)?;
        let rotated = if self.transposed {
            rotate_left(&block)
        } else {
            block.clone()
        };
        let outs = standard_out_dims(rank);
        let mut l = if !xor {
            // Row-major identity over the (rotated) block, out-dims last to first.
            let mut l = LinearLayout::empty();
            for (d, &size) in outs.iter().zip(&rotated).rev() {
                l = l.product(&LinearLayout::identity_1d(size, "offset", *d)?)?;
            }
            if self.swizzle_byte_width != 0 {
                // As `swizzled_block` leaves it, so that further blocks repeat in the same order.
                l = l.transpose_outs(&outs)?;
            }
            l
        } else {
            self.swizzled_block(shape, &block, &rotated)?
        };
        if self.transposed {
            // Triton's transposeLinearLayout: component i ← component order[i], by position.
            let mut order = vec![rank - 1];
            order.extend(0..rank - 1);
            l = transpose_by_position(&l, &order)?;
        }
        let labeled: Vec<(&str, u64)> = outs
            .iter()
            .map(|d| d.name())
            .zip(per_cta.iter().copied())
            .collect();
        let l = ensure_not_smaller_than(&l, &labeled)?;
        let l = combine_cta_cga(&l, &self.cga_layout, shape, true)?;
        require_offset_bits(FAMILY, &l, shape)?;
        Ok(l)
    }

    /// One swizzled TMA block: atoms over the collapsed 2-D block (rows first), reshaped
    /// row-major to `rotated` (the block with the contiguous dim last).
    fn swizzled_block(
        &self,
        shape: &[u64],
        block: &[u64],
        rotated: &[u64],
    ) -> Result<LinearLayout> {
        let rank = block.len();
        if rank < 2 {
            return Err(bad_shape(
                shape,
                "a swizzled NVMMA layout needs at least 2 dims".into(),
            ));
        }
        let (lead, last) = block.split_at(rank - 1);
        let mut rows = 1u64;
        for &b in lead {
            rows = rows
                .checked_mul(b)
                .ok_or_else(|| bad_shape(shape, "TMA block too large".into()))?;
        }
        let mut collapsed = [rows, last.iter().product()];
        if self.transposed {
            collapsed.swap(0, 1);
        }
        let atom = self.atom()?;
        let atom_rows = atom.out_dim_size("dim0")?;
        let atom_cols = atom.out_dim_size("dim1")?;
        let packing = if self.fp4_padded { 2 } else { 1 };
        if collapsed[1] * packing < atom_cols || collapsed[0] < atom_rows {
            return Err(bad_shape(
                shape,
                format!(
                    "the TMA block collapses to {collapsed:?} per CTA, smaller than one {}×{} atom",
                    atom_rows,
                    atom_cols / packing
                ),
            ));
        }
        let l = ensure_not_smaller_than(&atom, &[("dim0", collapsed[0]), ("dim1", collapsed[1])])?;
        let outs = standard_out_dims(rank);
        let row_major: Vec<(Dim, u64)> = outs
            .iter()
            .copied()
            .zip(rotated.iter().copied())
            .rev()
            .collect();
        l.transpose_outs(&["dim1", "dim0"])?
            .reshape_outs(&row_major)?
            .transpose_outs(&outs)
    }

    /// Triton's `getTMABlockShape` (packed sizes): the per-CTA shape with every dim capped at
    /// 256 and, when swizzled, the contiguous dim cut to one swizzle row (`8 · swizzle_byte_width /
    /// element_bits` elements), which it must reach.
    fn tma_block_shape(&self, shape: &[u64], per_cta: &[u64]) -> Result<Vec<u64>> {
        let rank = per_cta.len();
        let contig = if self.transposed { 0 } else { rank - 1 };
        let mut block = per_cta.to_vec();
        let fp4 = if self.fp4_padded { 2 } else { 1 };
        if let Some(c) = block.get_mut(contig) {
            *c *= fp4;
        }
        for b in &mut block {
            *b = (*b).min(TMA_MAX_BOX);
        }
        if self.swizzle_byte_width != 0 {
            let row = 8 * u64::from(self.swizzle_byte_width) / u64::from(self.element_bitwidth);
            let c = block
                .get_mut(contig)
                .ok_or_else(|| bad_shape(shape, "no dims".into()))?;
            if *c < row {
                return Err(bad_shape(
                    shape,
                    format!(
                        "the contiguous dim{contig} has {} elements per TMA block, fewer than one {}-byte swizzle row ({row})",
                        *c / fp4,
                        self.swizzle_byte_width
                    ),
                ));
            }
            *c = row;
        }
        if let Some(c) = block.get_mut(contig) {
            *c /= fp4;
        }
        Ok(block)
    }

    /// Checks every parameter (see [`NvmmaShared`]).
    fn validate(&self) -> Result<()> {
        let bad =
            |param: &'static str, value: String, reason: &str| LayoutError::InvalidParameter {
                family: FAMILY,
                param,
                value,
                reason: reason.into(),
            };
        if ![0, 32, 64, 128].contains(&self.swizzle_byte_width) {
            return Err(bad(
                "swizzle_bytes",
                self.swizzle_byte_width.to_string(),
                "must be 0, 32, 64 or 128",
            ));
        }
        if ![8, 16, 32, 64].contains(&self.element_bitwidth) {
            return Err(bad(
                "element_bits",
                self.element_bitwidth.to_string(),
                "must be 8, 16, 32 or 64",
            ));
        }
        if self.fp4_padded && (self.element_bitwidth != 8 || self.swizzle_byte_width != 128) {
            return Err(bad(
                "fp4_padded",
                "true".into(),
                "fp4 padding needs 8-bit elements and 128-byte swizzling",
            ));
        }
        Ok(())
    }
}

fn bad_shape(shape: &[u64], reason: String) -> LayoutError {
    LayoutError::InvalidShape {
        family: FAMILY,
        shape: shape.to_vec(),
        reason,
    }
}

fn rotate_left(v: &[u64]) -> Vec<u64> {
    let mut r = v.to_vec();
    if !r.is_empty() {
        r.rotate_left(1);
    }
    r
}

/// Triton's `transposeLinearLayout(layout, order)`: out-dim *position* `i` takes the component
/// and size of position `order[i]`, keeping the names in their positions. On a layout whose
/// out-dims are in standard order this relabels `dim_{order[i]}` as `dim_i`.
fn transpose_by_position(l: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let outs = l.out_dims();
    let pick = |i: usize| -> Result<(usize, u64)> {
        order
            .get(i)
            .and_then(|&o| Some((o, outs.get(o)?.1)))
            .ok_or_else(|| LayoutError::Invalid {
                op: "transpose_by_position",
                what: format!("order {order:?} does not match {} out-dims", outs.len()),
            })
    };
    let mut new_outs = Vec::with_capacity(outs.len());
    for (i, &(name, _)) in outs.iter().enumerate() {
        new_outs.push((name, pick(i)?.1));
    }
    let mut bases = Vec::new();
    for (dim, dim_bases) in l.bases() {
        let mut moved = Vec::with_capacity(dim_bases.len());
        for b in dim_bases {
            let mut nb = Vec::with_capacity(b.len());
            for i in 0..b.len() {
                nb.push(
                    b.get(pick(i)?.0)
                        .copied()
                        .ok_or_else(|| LayoutError::Invalid {
                            op: "transpose_by_position",
                            what: format!("basis {b:?} has fewer components than out-dims"),
                        })?,
                );
            }
            moved.push(nb);
        }
        bases.push((dim, moved));
    }
    LinearLayout::from_bases(&bases, &new_outs, false)
}

/// Triton's default `rank` of `#ttg.nvmma_shared`, the one it does not print.
pub(crate) const DEFAULT_RANK: usize = 2;

impl Attribute for NvmmaShared {
    const NAME: &'static str = "#ttg.nvmma_shared";

    /// The rank is `rank = N`, else the `CGALayout`'s, else Triton's default 2.
    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = NvmmaShared::NAME;
        const KEYS: [&str; 6] = [
            "swizzlingByteWidth",
            "transposed",
            "elementBitWidth",
            "fp4Padded",
            "rank",
            "CGALayout",
        ];
        let (mut swizzle, mut transposed, mut bits, mut fp4) = (None, false, None, false);
        let (mut rank, mut cga) = (None, Vec::new());
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "swizzlingByteWidth" => swizzle = Some(p.int(A, key)?),
                "transposed" => transposed = p.boolean(A, key)?,
                "elementBitWidth" => bits = Some(p.int(A, key)?),
                "fp4Padded" => fp4 = p.boolean(A, key)?,
                "rank" => rank = Some(p.int::<usize>(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        if rank == Some(0) {
            return Err(p.err_at(A, start, "rank = 0: the rank must be at least 1"));
        }
        p.check_cga(A, start, &cga, rank)?;
        let rank = rank
            .or_else(|| cga.first().map(Vec::len))
            .unwrap_or(DEFAULT_RANK);
        Ok(NvmmaShared {
            swizzle_byte_width: p.required(A, start, "swizzlingByteWidth", swizzle)?,
            element_bitwidth: p.required(A, start, "elementBitWidth", bits)?,
            transposed,
            fp4_padded: fp4,
            cga_layout: cga,
            rank: Some(rank),
        })
    }

    /// The CGA layout carries the rank when there is one; otherwise `rank = N` unless it is 2.
    /// An attribute with its own rank prints that one.
    fn print(&self, rank: usize) -> String {
        let rank = self.rank.unwrap_or(rank);
        let fp4 = if self.fp4_padded {
            ", fp4Padded = true"
        } else {
            ""
        };
        let rank_or_cga = if self.cga_layout.is_empty() && rank != DEFAULT_RANK {
            format!(", rank = {rank}")
        } else {
            cga_suffix(&self.cga_layout)
        };
        format!(
            "{}<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}{fp4}{rank_or_cga}}}>",
            Self::NAME,
            self.swizzle_byte_width,
            self.transposed,
            self.element_bitwidth,
        )
    }
}
