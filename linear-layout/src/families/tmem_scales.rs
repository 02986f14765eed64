//! [`TensorMemoryScales`]: Triton's `#ttng.tensor_memory_scales_encoding`, the TMEM layout of
//! the block-scale factors of `tcgen05.mma` with scales, built on the helpers of
//! [`tmem`](super::tmem).

use super::attribute::Attribute;
use super::checks::check_shape;
use super::tmem::{bad_shape, cga_parts, dim0_bases, dim1_bases, total_columns, TmemBases};
use crate::text::attr::{bases_text, AttrParser};
use crate::{LinearLayout, Result};

const SCALES: &str = "tensor_memory_scales";

/// `#ttng.tensor_memory_scales_encoding<>`: block-scale factors for `tcgen05.mma` with scales
/// (8-bit elements). Triton 3.9's `tensorMemoryScalesToLinearLayout`: rows
/// `[1,0]…[16,0]` then two zero row bases (the four warps' 32-lane slices hold copies), cols
/// `[0,1], [0,2]` (4 scales per 32-bit column), then `[32,0]` and further 64-row blocks, then
/// more scale columns; everything is clipped to the per-CTA shape
/// (`ensureLayoutNotLargerThan`), and CGA bases become `block` bases.
///
/// ```
/// use linear_layout::families::TensorMemoryScales;
/// let s = TensorMemoryScales::default().to_linear_layout(&[128, 8])?;
/// assert_eq!(s.bases_of("row")?, vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0], vec![0, 0], vec![0, 0]]);
/// assert_eq!(s.bases_of("col")?, vec![vec![0, 1], vec![0, 2], vec![32, 0], vec![64, 0], vec![0, 4]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorMemoryScales {
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
    /// `blockRepOrder = kThenMn` (default `mnThenK`): the order in which the MMA's scale
    /// blocks repeat. It does not change the layout: Triton 3.9 builds the same map for both
    /// (checked on 18 shapes); the attribute keeps it so that it prints back.
    pub k_then_mn: bool,
}

impl TensorMemoryScales {
    /// A scales layout over the CTAs `cga_layout` gives, checked (a permutation matrix once its
    /// zero bases are removed; [`LayoutError::InvalidParameter`](crate::LayoutError::InvalidParameter) otherwise).
    ///
    /// ```
    /// use linear_layout::families::TensorMemoryScales;
    /// let two = TensorMemoryScales::new(vec![vec![1, 0]])?;
    /// assert_eq!(two.to_linear_layout(&[256, 4])?.in_dim_size("block")?, 2);
    /// assert!(TensorMemoryScales::new(vec![vec![1, 1]]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(cga_layout: Vec<Vec<u64>>) -> Result<TensorMemoryScales> {
        cga_parts(&cga_layout)?;
        Ok(TensorMemoryScales {
            cga_layout,
            k_then_mn: false,
        })
    }

    /// The layout for an allocation of `shape` (rank 2); see the type docs.
    ///
    /// Errors: a bad `cga_layout` ([`LayoutError::InvalidParameter`](crate::LayoutError::InvalidParameter)); a shape that is not 2-D
    /// powers of two, or has fewer elements than CTAs along a dim ([`LayoutError::InvalidShape`](crate::LayoutError::InvalidShape);
    /// Triton builds a layout larger than the shape there).
    ///
    /// ```
    /// use linear_layout::families::TensorMemoryScales;
    /// // Two scales per row: the `col` bit that would pick scales 2, 3 is clipped to 0.
    /// let s = TensorMemoryScales::default().to_linear_layout(&[128, 2])?;
    /// assert_eq!(s.bases_of("col")?, vec![vec![0, 1], vec![0, 0], vec![32, 0], vec![64, 0]]);
    /// let two = TensorMemoryScales { cga_layout: vec![vec![1, 0]], k_then_mn: false }.to_linear_layout(&[256, 4])?;
    /// assert_eq!(two.bases_of("block")?, vec![vec![128, 0]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.bases(shape)?.to_layout()
    }

    pub(crate) fn bases(&self, shape: &[u64]) -> Result<TmemBases> {
        check_shape(SCALES, shape, 2)?;
        let &[m, n] = shape else {
            return Err(bad_shape(SCALES, shape, "expected rank 2"));
        };
        let (cga, split) = cga_parts(&self.cga_layout)?;
        if m < split[0] || n < split[1] {
            return Err(bad_shape(
                SCALES,
                shape,
                format!("fewer elements than CTAs ({}×{})", split[0], split[1]),
            ));
        }
        let cta = [m / split[0], n / split[1]];
        // 32 rows, replicated over the four warps' lane slices; 4 scales per 32-bit column;
        // two 32-row halves of a 64-row block side by side.
        let mut rows: Vec<[u64; 2]> = dim0_bases(32, 1).collect();
        rows.extend([[0, 0], [0, 0]]);
        let mut cols = vec![[0, 1], [0, 2], [32, 0]];
        cols.extend(dim0_bases(cta[0].div_ceil(64), 64));
        cols.extend(dim1_bases(cta[1].div_ceil(4), 4));
        // ensureLayoutNotLargerThan(cta): clip every component to the per-CTA shape.
        for b in rows.iter_mut().chain(cols.iter_mut()) {
            b[0] &= cta[0] - 1;
            b[1] &= cta[1] - 1;
        }
        Ok(TmemBases {
            rows,
            cols,
            cta_shape: cta,
            cga,
            split,
        })
    }

    /// 32-bit TMEM columns an allocation of `shape` occupies per CTA (Triton 3.9's
    /// `getTmemAllocSizes` for 8-bit scales: the `col` in-dim size / 4). Scales always use
    /// 128 lanes and cannot be multi-buffered (rank 2 only).
    ///
    /// ```
    /// use linear_layout::families::TensorMemoryScales;
    /// assert_eq!(TensorMemoryScales::default().alloc_columns(&[128, 4])?, 4);
    /// assert_eq!(TensorMemoryScales::default().alloc_columns(&[256, 16])?, 32);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alloc_columns(&self, shape: &[u64]) -> Result<u32> {
        let b = self.bases(shape)?;
        total_columns(SCALES, shape, (1u64 << b.col_bits()).div_ceil(4), 1)
    }
}

impl Attribute for TensorMemoryScales {
    const NAME: &'static str = "#ttng.tensor_memory_scales_encoding";

    /// `<>`, `<CGALayout = […]>`, `<blockRepOrder = kThenMn | mnThenK>` or both.
    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = TensorMemoryScales::NAME;
        let (mut cga, mut k_then_mn) = (Vec::new(), false);
        p.cursor.require(A, '<', "")?;
        p.fields(A, Some(&["CGALayout", "blockRepOrder"]), '>', |p, key| {
            if key == "CGALayout" {
                cga = p.bases(A, key)?;
                return Ok(());
            }
            p.cursor.skip_ws();
            let at = p.cursor.pos();
            k_then_mn = match p.cursor.word() {
                "kThenMn" => true,
                "mnThenK" => false,
                _ => {
                    p.cursor.reset(at);
                    return Err(p.err(
                        A,
                        format!(
                            "{key}: expected kThenMn or mnThenK, found {}",
                            p.cursor.found()
                        ),
                    ));
                }
            };
            Ok(())
        })?;
        p.check_cga(A, start, &cga, None)?;
        Ok(TensorMemoryScales {
            cga_layout: cga,
            k_then_mn,
        })
    }

    /// Keys in Triton's order; the defaults (no CGA layout, `mnThenK`) are not printed.
    fn print(&self, _rank: usize) -> String {
        let mut keys = Vec::new();
        if !self.cga_layout.is_empty() {
            keys.push(format!("CGALayout = {}", bases_text(&self.cga_layout)));
        }
        if self.k_then_mn {
            keys.push("blockRepOrder = kThenMn".to_string());
        }
        format!("{}<{}>", Self::NAME, keys.join(", "))
    }
}
