//! Tensor memory (Blackwell TMEM) layouts: [`TensorMemory`] here, and
//! [`TensorMemoryScales`](super::TensorMemoryScales) in `tmem_scales.rs` on the same helpers.
//!
//! TMEM is 128 lanes (`row`) × 512 32-bit columns per CTA. Triton 3.9 describes an allocation by
//! a layout `row, col → dim0, dim1` whose `col` counts *elements*: `32 / element_bits`
//! consecutive `col` values share one 32-bit column (packed), or each element sits in its own
//! 32-bit column and the first `log2(col_stride)` `col` bases are zero (unpacked). When the
//! CGA has more than one CTA the layout also has a `block` in-dim (Triton's
//! `TensorMemoryLinearEncodingAttr` convention: `row, col` and an optional `block`); Gluon's
//! Python view of the layout drops it.
//!
//! Allocation sizes follow Triton 3.9's `getTmemAllocSizes`: [`TensorMemory::alloc_rows`],
//! [`TensorMemory::alloc_columns`], [`TensorMemoryScales::alloc_columns`](super::TensorMemoryScales::alloc_columns); the module-level
//! `tcgen05.alloc` size is [`tcgen05_alloc_columns`].

use crate::families::attribute::Attribute;
use crate::families::checks::check_shape;
use crate::families::tiling::cga_layout;
use crate::text::attr::{cga_suffix, AttrParser};
use crate::{LayoutError, LinearLayout, Result};

/// TMEM lanes (rows) per CTA: the `row` in-dim of every TMEM layout has this size.
///
/// ```
/// use linear_layout::families::{tmem::TMEM_LANES, TensorMemoryScales};
/// let s = TensorMemoryScales::default().to_linear_layout(&[128, 4])?;
/// assert_eq!(s.in_dim_size("row")?, u64::from(TMEM_LANES));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const TMEM_LANES: u32 = 128;
/// 32-bit TMEM columns per CTA: the most one allocation (or a whole kernel) can use.
///
/// ```
/// use linear_layout::families::{tmem::TMEM_COLUMNS, TensorMemory};
/// let acc = TensorMemory { block_m: 128, block_n: 256, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// assert_eq!(acc.alloc_columns(&[2, 128, 256], 32)?, TMEM_COLUMNS); // two f32 accumulators fill it
/// assert!(acc.alloc_columns(&[3, 128, 256], 32).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const TMEM_COLUMNS: u32 = 512;

const FAMILY: &str = "tensor_memory";

/// `#ttng.tensor_memory_encoding<blockM, blockN, colStride>`: in-dims `row` (128 TMEM lanes),
/// `col` (columns in elements) and, with a multi-CTA `cga_layout`, `block` → `dim0, dim1`.
///
/// Triton 3.9's `tensorMemoryToLinearLayout`, per CTA (`shape / cga split`):
/// * the first `log2(col_stride)` `col` bases are zero (unpacked elements);
/// * `block_m = 128`: `row` is the identity on 128 rows, `col` on `min(block_n, N)` columns;
/// * `block_m = 64`: row bits 0–3 are rows 1, 2, 4, 8; **row bit 4 (lane 16)** holds the second
///   64-row block if the CTA has more than 64 rows, else the next `block_n` columns if it has
///   more, else nothing (zero basis: lanes 16–31 of each warp's 32-lane slice stay unused); row
///   bits 5, 6 are rows 16, 32. In two-CTA mode the 64 rows are instead stacked as in
///   `block_m = 128` with the last column bit moved to row bit 6;
/// * further tiles are more `col` bases, **M repetitions first, then N**;
/// * CGA: the `block` bases are the `cga_layout` bases scaled by the per-CTA shape.
///
/// Errors: [`LayoutError::InvalidParameter`] for `block_m ∉ {64, 128}`, `block_n` not a power of
/// two in `1..=512`, `col_stride ∉ {1, 2, 4}`, a bad or non-surjective `cga_layout`, `two_ctas`
/// without a first CGA basis `[1, 0]`; [`LayoutError::InvalidShape`] for a shape that is not
/// 2-D powers of two or is smaller than one block per CTA (Triton's memdesc verifier: at least
/// `block_m·splitM × min(block_n, N)·splitN`).
///
/// ```
/// use linear_layout::families::TensorMemory;
/// let acc = TensorMemory { block_m: 64, block_n: 8, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// // 128 × 8: the second 64-row block lives in lanes 16..32 of each warp's slice.
/// let l = acc.to_linear_layout(&[128, 8])?;
/// assert_eq!(l.bases_of("row")?, vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![64, 0], vec![16, 0], vec![32, 0]]);
/// assert_eq!(l.bases_of("col")?, vec![vec![0, 1], vec![0, 2], vec![0, 4]]);
/// // 64 × 8 leaves lane 16 unused: the allocation needs 64 rows only.
/// assert_eq!(acc.to_linear_layout(&[64, 8])?.basis("row", 4)?, &[0, 0]);
/// assert_eq!(acc.alloc_rows(&[64, 8])?, 64);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMemory {
    /// Rows per block: 64 or 128.
    pub block_m: u32,
    /// Columns per block (elements).
    pub block_n: u32,
    /// 32-bit columns per element slot: 1 (packed), 2 or 4.
    pub col_stride: u32,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
    /// Two-CTA (cta_group::2) MMA operand.
    pub two_ctas: bool,
    /// fp4 padded: each element slot is doubled, its upper half padding (a zero `col` basis
    /// first, as `col_stride = 2` gives); Triton requires `col_stride = 1` with it.
    pub fp4_padded: bool,
}

/// A TMEM layout taken apart: bases as `[dim0, dim1]` pairs, per CTA, plus the CGA.
#[derive(Debug, Clone)]
pub(crate) struct TmemBases {
    /// Bases of `row` (always 7: 128 lanes).
    pub(crate) rows: Vec<[u64; 2]>,
    /// Bases of `col`.
    pub(crate) cols: Vec<[u64; 2]>,
    /// Out-dim sizes of one CTA's layout.
    pub(crate) cta_shape: [u64; 2],
    /// `cga_layout` bases, in units of one CTA's shape.
    pub(crate) cga: Vec<[u64; 2]>,
    /// CTAs along `dim0, dim1` (the CGA layout's out sizes).
    pub(crate) split: [u64; 2],
}

impl TmemBases {
    /// `row, col (, block) → dim0, dim1`; `block` only with a non-empty CGA.
    pub(crate) fn to_layout(&self) -> Result<LinearLayout> {
        let pairs = |v: &[[u64; 2]]| v.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
        let mut bases = vec![("row", pairs(&self.rows)), ("col", pairs(&self.cols))];
        if !self.cga.is_empty() {
            let block = self
                .cga
                .iter()
                .map(|b| vec![b[0] * self.cta_shape[0], b[1] * self.cta_shape[1]])
                .collect();
            bases.push(("block", block));
        }
        let out_dims = [
            ("dim0", self.cta_shape[0] * self.split[0]),
            ("dim1", self.cta_shape[1] * self.split[1]),
        ];
        LinearLayout::from_bases(&bases, &out_dims, false)
    }

    /// `log2` of the `col` in-dim size.
    pub(crate) fn col_bits(&self) -> u32 {
        self.cols.len() as u32
    }

    /// Rows an allocation needs: 64 when row bit 4 (lane 16) is unused, else 128.
    fn rows_used(&self) -> u32 {
        if self.rows.get(4) == Some(&[0, 0]) {
            TMEM_LANES / 2
        } else {
            TMEM_LANES
        }
    }
}

/// Gluon's `cga_layout` bases as pairs with the CTA split (the CGA layout's out sizes).
pub(crate) fn cga_parts(bases: &[Vec<u64>]) -> Result<(Vec<[u64; 2]>, [u64; 2])> {
    if bases.is_empty() {
        // One CTA: nothing to check or split (what `cga_layout` of no bases gives).
        return Ok((Vec::new(), [1, 1]));
    }
    let cga = cga_layout(bases, 2).map_err(|e| match e {
        LayoutError::InvalidParameter { .. } => e,
        other => bad_param(
            "cga_layout",
            format!("{bases:?}"),
            format!("not a CGA layout: {other}"),
        ),
    })?;
    let sizes: Vec<u64> = cga.out_dims().iter().map(|d| d.1).collect();
    let split = pair("cga_layout", &sizes)?;
    let pairs = bases
        .iter()
        .map(|b| pair("cga_layout", b))
        .collect::<Result<Vec<_>>>()?;
    Ok((pairs, split))
}

fn pair(param: &'static str, v: &[u64]) -> Result<[u64; 2]> {
    match v {
        [a, b] => Ok([*a, *b]),
        _ => Err(LayoutError::InvalidParameter {
            family: FAMILY,
            param,
            value: format!("{v:?}"),
            reason: "expected two components (dim0, dim1)".into(),
        }),
    }
}

fn bad_param(param: &'static str, value: impl ToString, reason: impl Into<String>) -> LayoutError {
    LayoutError::InvalidParameter {
        family: FAMILY,
        param,
        value: value.to_string(),
        reason: reason.into(),
    }
}

pub(crate) fn bad_shape(
    family: &'static str,
    shape: &[u64],
    reason: impl Into<String>,
) -> LayoutError {
    LayoutError::InvalidShape {
        family,
        shape: shape.to_vec(),
        reason: reason.into(),
    }
}

/// Bases `[unit·2^i, 0]` for `i < log2(n)`: `identity1D(n, in, dim0)` scaled by `unit`.
pub(crate) fn dim0_bases(n: u64, unit: u64) -> impl Iterator<Item = [u64; 2]> {
    (0..n.max(1).trailing_zeros()).map(move |i| [unit << i, 0])
}

/// Bases `[0, unit·2^i]` for `i < log2(n)`.
pub(crate) fn dim1_bases(n: u64, unit: u64) -> impl Iterator<Item = [u64; 2]> {
    (0..n.max(1).trailing_zeros()).map(move |i| [0, unit << i])
}

/// Splits `[buffers…, M, N]` into the buffer count and the 2-D shape.
pub(crate) fn split_buffers(family: &'static str, shape: &[u64]) -> Result<(u64, [u64; 2])> {
    let Some((lead, &[m, n])) = shape.split_last_chunk::<2>() else {
        return Err(bad_shape(
            family,
            shape,
            "expected rank 2, or rank 3+ with leading buffer dims",
        ));
    };
    let mut buffers: u64 = 1;
    for &b in lead {
        if b == 0 {
            return Err(bad_shape(family, shape, "a buffer dim is 0"));
        }
        buffers = buffers
            .checked_mul(b)
            .ok_or_else(|| bad_shape(family, shape, "too many buffers"))?;
    }
    check_shape(family, &[m, n], 2)?;
    Ok((buffers, [m, n]))
}

impl TensorMemory {
    /// A one-CTA TMEM layout (no CGA split, not two-CTA, not fp4-padded), checked with
    /// [`TensorMemory::check`].
    ///
    /// ```
    /// use linear_layout::families::TensorMemory;
    /// let acc = TensorMemory::new(128, 128, 1)?;
    /// assert_eq!(acc.alloc_columns(&[128, 128], 32)?, 128);
    /// assert!(TensorMemory::new(96, 128, 1).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(block_m: u32, block_n: u32, col_stride: u32) -> Result<TensorMemory> {
        let t = TensorMemory {
            block_m,
            block_n,
            col_stride,
            cga_layout: Vec::new(),
            two_ctas: false,
            fp4_padded: false,
        };
        t.check()?;
        Ok(t)
    }

    /// Checks the parameters alone (Triton's `TensorMemoryEncodingAttr::verify` plus Gluon's
    /// checks); [`to_linear_layout`](Self::to_linear_layout) calls it.
    ///
    /// ```
    /// use linear_layout::{LayoutError, families::TensorMemory};
    /// let ok = TensorMemory { block_m: 128, block_n: 256, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// assert!(ok.check().is_ok());
    /// let bad = TensorMemory { block_m: 96, ..ok.clone() };
    /// assert!(matches!(bad.check(), Err(LayoutError::InvalidParameter { param: "block_m", .. })));
    /// let two = TensorMemory { two_ctas: true, cga_layout: vec![vec![0, 1]], ..ok };
    /// assert!(matches!(two.check(), Err(LayoutError::InvalidParameter { param: "two_ctas", .. })));
    /// ```
    pub fn check(&self) -> Result<()> {
        if self.block_m != 64 && self.block_m != 128 {
            return Err(bad_param("block_m", self.block_m, "must be 64 or 128"));
        }
        if !self.block_n.is_power_of_two() || self.block_n > TMEM_COLUMNS {
            return Err(bad_param(
                "block_n",
                self.block_n,
                "must be a power of two between 1 and 512",
            ));
        }
        if !matches!(self.col_stride, 1 | 2 | 4) {
            return Err(bad_param(
                "col_stride",
                self.col_stride,
                "must be 1 (packed), 2 or 4 (32-bit columns per element)",
            ));
        }
        if self.fp4_padded && self.col_stride != 1 {
            return Err(bad_param(
                "col_stride",
                self.col_stride,
                "fp4Padded tensor memory layout requires colStride 1",
            ));
        }
        let (cga, _) = cga_parts(&self.cga_layout)?;
        if self.two_ctas && cga.first() != Some(&[1, 0]) {
            return Err(bad_param(
                "two_ctas",
                format!("true with cga_layout {:?}", self.cga_layout),
                "two-CTA mode needs the first cga_layout basis to be [1, 0]",
            ));
        }
        Ok(())
    }

    /// The layout for an allocation of `shape` (rank 2); see the type docs for the rules and
    /// the errors.
    ///
    /// ```
    /// use linear_layout::families::TensorMemory;
    /// // f16 unpacked (one value per 32-bit column), two CTAs splitting M.
    /// let tm = TensorMemory { block_m: 128, block_n: 32, col_stride: 2, cga_layout: vec![vec![1, 0]], two_ctas: false, fp4_padded: false };
    /// let l = tm.to_linear_layout(&[512, 64])?;
    /// assert_eq!(l.bases_of("col")?, vec![vec![0, 0], vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8],
    ///                                     vec![0, 16], vec![128, 0], vec![0, 32]]); // M repeats first
    /// assert_eq!(l.bases_of("block")?, vec![vec![256, 0]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.bases(shape)?.to_layout()
    }

    /// Triton's `tensorMemoryToLinearLayout`, taken apart; also runs the memdesc verifier's
    /// "at least one block per CTA" check.
    pub(crate) fn bases(&self, shape: &[u64]) -> Result<TmemBases> {
        self.check()?;
        check_shape(FAMILY, shape, 2)?;
        let &[m, n] = shape else {
            return Err(bad_shape(FAMILY, shape, "expected rank 2"));
        };
        let (cga, split) = cga_parts(&self.cga_layout)?;
        let (block_m, block_n) = (u64::from(self.block_m), u64::from(self.block_n));
        let need = [block_m * split[0], block_n.min(n) * split[1]];
        if m < need[0] || n < need[1] {
            return Err(bad_shape(
                FAMILY,
                shape,
                format!(
                    "smaller than one {block_m}×{block_n} block per CTA: needs at least {}×{}",
                    need[0], need[1]
                ),
            ));
        }
        let cta = [m / split[0], n / split[1]];
        let block_n = block_n.min(cta[1]);
        let padding = self.col_stride.trailing_zeros() + u32::from(self.fp4_padded);
        // At most 9 column and 8 row bits, and a few for the tile repeats: one allocation
        // each.
        let mut cols = Vec::with_capacity(16);
        cols.extend(std::iter::repeat_n([0, 0], padding as usize));
        cols.extend(dim1_bases(block_n, 1));
        let (mut rows, tile) = if self.block_m == 64 && !self.two_ctas {
            let mut rows = Vec::with_capacity(8);
            rows.extend(dim0_bases(16, 1));
            let (lane16, tile) = if cta[0] > 64 {
                ([64, 0], [128, block_n])
            } else if cta[1] > block_n {
                ([0, block_n], [64, 2 * block_n])
            } else {
                ([0, 0], [64, block_n])
            };
            rows.extend([lane16, [16, 0], [32, 0]]);
            (rows, tile)
        } else {
            (dim0_bases(block_m, 1).collect(), [block_m, block_n])
        };
        if self.block_m == 64 && self.two_ctas {
            // Two-CTA M=64: the 64 rows of each CTA are stacked in 128 lanes, the last column
            // bit becoming row bit 6.
            let moved = cols.pop().ok_or_else(|| {
                bad_shape(
                    FAMILY,
                    shape,
                    "two-CTA block_m = 64 needs at least 2 columns per CTA",
                )
            })?;
            rows.push(moved);
        }
        cols.extend(dim0_bases(cta[0] / tile[0], tile[0]));
        cols.extend(dim1_bases(cta[1] / tile[1], tile[1]));
        Ok(TmemBases {
            rows,
            cols,
            cta_shape: cta,
            cga,
            split,
        })
    }

    /// TMEM lanes one allocation of `shape` (`[buffers…, M, N]`) occupies: 128, or 64 when row
    /// bit 4 (lane 16) of the layout is unused (`block_m = 64` with one 64-row block) — Triton
    /// 3.9's `getTmemAllocSizes().numRows`. Errors as [`to_linear_layout`](Self::to_linear_layout).
    ///
    /// ```
    /// use linear_layout::families::TensorMemory;
    /// let m64 = TensorMemory { block_m: 64, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// assert_eq!(m64.alloc_rows(&[64, 64])?, 64);
    /// assert_eq!(m64.alloc_rows(&[64, 128])?, 128); // the second N block uses lanes 16..32
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alloc_rows(&self, shape: &[u64]) -> Result<u32> {
        let (_, leaf) = split_buffers(FAMILY, shape)?;
        Ok(self.bases(&leaf)?.rows_used())
    }

    /// The size of the layout's `col` in-dim for one tile of `shape` (`[M, N]`): the element
    /// slots of a lane, what [`to_linear_layout`](Self::to_linear_layout)`(shape)
    /// .in_dim_size("col")` gives, without building the layout.
    ///
    /// ```
    /// use linear_layout::families::TensorMemory;
    /// let acc = TensorMemory { block_m: 64, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// assert_eq!(acc.col_slots(&[128, 128])?, acc.to_linear_layout(&[128, 128])?.in_dim_size("col")?);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn col_slots(&self, shape: &[u64]) -> Result<u64> {
        Ok(1u64 << self.bases(shape)?.col_bits())
    }

    /// 32-bit TMEM columns one allocation of `shape` (`[buffers…, M, N]`) occupies per CTA —
    /// Triton 3.9's `getTmemAllocSizes().numCols`: the `col` in-dim size divided by the
    /// elements per 32-bit column (`32 / element_bits`), times the number of buffers. The CGA
    /// does not count (each CTA allocates its own TMEM); the module's `tcgen05.alloc` size is
    /// this total rounded by [`tcgen05_alloc_columns`].
    ///
    /// Errors: `element_bits ∉ {8, 16, 32}` or `element_bits · col_stride > 32`
    /// ([`LayoutError::InvalidParameter`]); more than 512 columns, or a shape
    /// [`to_linear_layout`](Self::to_linear_layout) refuses ([`LayoutError::InvalidShape`]).
    /// Departure: where fewer elements than one 32-bit column holds are stored (e.g. 2 int8
    /// columns), Triton's integer division gives 0 columns; this rounds up to 1.
    ///
    /// ```
    /// use linear_layout::families::TensorMemory;
    /// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// assert_eq!(acc.alloc_columns(&[128, 128], 32)?, 128);
    /// assert_eq!(acc.alloc_columns(&[128, 128], 16)?, 64); // two f16 per column
    /// assert_eq!(acc.alloc_columns(&[2, 128, 128], 32)?, 256); // double-buffered
    /// let unpacked = TensorMemory { col_stride: 2, ..acc };
    /// assert_eq!(unpacked.alloc_columns(&[128, 128], 16)?, 128); // one f16 per column
    /// assert!(unpacked.alloc_columns(&[128, 128], 32).is_err()); // 32 · 2 > 32
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alloc_columns(&self, shape: &[u64], element_bits: u32) -> Result<u32> {
        self.check_element_bits(element_bits)?;
        let (buffers, leaf) = split_buffers(FAMILY, shape)?;
        let b = self.bases(&leaf)?;
        let per_column = u64::from(32 / element_bits);
        let cols = (1u64 << b.col_bits()).div_ceil(per_column);
        total_columns(FAMILY, shape, cols, buffers)
    }

    /// Gluon/Triton's element-type checks for a TMEM memdesc of this layout.
    pub(crate) fn check_element_bits(&self, element_bits: u32) -> Result<()> {
        if !matches!(element_bits, 8 | 16 | 32) {
            return Err(bad_param(
                "element_bits",
                element_bits,
                "TMEM holds 8-, 16- or 32-bit elements",
            ));
        }
        if element_bits * self.col_stride > 32 {
            return Err(bad_param(
                "col_stride",
                self.col_stride,
                format!(
                    "element_bits · col_stride must be at most 32, got {element_bits} · {}",
                    self.col_stride
                ),
            ));
        }
        Ok(())
    }
}

pub(crate) fn total_columns(
    family: &'static str,
    shape: &[u64],
    cols: u64,
    buffers: u64,
) -> Result<u32> {
    let total = cols.saturating_mul(buffers);
    if total > u64::from(TMEM_COLUMNS) {
        return Err(bad_shape(
            family,
            shape,
            format!("needs {total} TMEM columns per CTA, more than the {TMEM_COLUMNS} there are"),
        ));
    }
    // `total <= 512` was just checked.
    Ok(total as u32)
}

/// The `tcgen05.alloc` size for `columns` 32-bit columns: the smallest of 32, 64, 128, 256, 512
/// that holds them (0 stays 0: nothing to allocate) — Triton's rounding of the module's total
/// TMEM use. Errors: more than 512 columns ([`LayoutError::InvalidParameter`]).
///
/// ```
/// use linear_layout::families::tmem::tcgen05_alloc_columns;
/// assert_eq!(tcgen05_alloc_columns(16)?, 32);
/// assert_eq!(tcgen05_alloc_columns(129)?, 256);
/// assert!(tcgen05_alloc_columns(513).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn tcgen05_alloc_columns(columns: u32) -> Result<u32> {
    match columns {
        0 => Ok(0),
        1..=TMEM_COLUMNS => Ok(columns.next_power_of_two().max(32)),
        _ => Err(LayoutError::InvalidParameter {
            family: "tcgen05",
            param: "columns",
            value: columns.to_string(),
            reason: format!("a CTA has {TMEM_COLUMNS} TMEM columns"),
        }),
    }
}

impl Attribute for TensorMemory {
    const NAME: &'static str = "#ttng.tensor_memory_encoding";

    /// `<blockM = …, blockN = …, colStride = …>` (no braces).
    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = TensorMemory::NAME;
        const KEYS: [&str; 6] = [
            "blockM",
            "blockN",
            "colStride",
            "CGALayout",
            "twoCTAs",
            "fp4Padded",
        ];
        let (mut block_m, mut block_n, mut col_stride) = (None, None, None);
        let (mut cga, mut two_ctas, mut fp4_padded) = (Vec::new(), false, false);
        p.cursor.require(A, '<', "")?;
        p.fields(A, Some(&KEYS), '>', |p, key| {
            match key {
                "blockM" => block_m = Some(p.int(A, key)?),
                "blockN" => block_n = Some(p.int(A, key)?),
                "colStride" => col_stride = Some(p.int(A, key)?),
                "CGALayout" => cga = p.bases(A, key)?,
                "twoCTAs" => two_ctas = p.boolean(A, key)?,
                _ => fp4_padded = p.boolean(A, key)?,
            }
            Ok(())
        })?;
        p.check_cga(A, start, &cga, None)?;
        Ok(TensorMemory {
            block_m: p.required(A, start, "blockM", block_m)?,
            block_n: p.required(A, start, "blockN", block_n)?,
            col_stride: p.required(A, start, "colStride", col_stride)?,
            cga_layout: cga,
            two_ctas,
            fp4_padded,
        })
    }

    fn print(&self, _rank: usize) -> String {
        format!(
            "{}<blockM = {}, blockN = {}, colStride = {}{}{}{}>",
            Self::NAME,
            self.block_m,
            self.block_n,
            self.col_stride,
            cga_suffix(&self.cga_layout),
            if self.two_ctas {
                ", twoCTAs = true"
            } else {
                ""
            },
            if self.fp4_padded {
                ", fp4Padded = true"
            } else {
                ""
            },
        )
    }
}

#[cfg(test)]
mod col_slots_tests {
    #![allow(clippy::restriction)] // test code: a failed check panics
    use super::TensorMemory;

    /// `col_slots` is the built layout's `col` size, and refuses exactly what it refuses.
    #[test]
    fn col_slots_is_the_layouts_col_size() {
        let mut checked = 0;
        for block_m in [64u32, 128] {
            for block_n in [1u32, 8, 32, 64, 128, 256] {
                for col_stride in [1u32, 2, 4] {
                    for two_ctas in [false, true] {
                        for cga in [vec![], vec![vec![1, 0]], vec![vec![0, 1]]] {
                            let tm = TensorMemory {
                                block_m,
                                block_n,
                                col_stride,
                                cga_layout: cga,
                                two_ctas,
                                fp4_padded: false,
                            };
                            for shape in [[64u64, 64], [128, 128], [256, 32], [128, 8], [64, 512]] {
                                let built = tm
                                    .to_linear_layout(&shape)
                                    .and_then(|l| l.in_dim_size("col"));
                                match (tm.col_slots(&shape), built) {
                                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{tm:?} {shape:?}"),
                                    (Err(_), Err(_)) => {}
                                    (a, b) => panic!("{tm:?} {shape:?}: {a:?} vs {b:?}"),
                                }
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }
}
