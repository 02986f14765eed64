//! [`NvmmaDistributed`]: `#ttg.nvidia_mma` accumulators of mma.sync (v2) and wgmma (v3), and the
//! register/lane tile ([`nvidia_mma_tile`]) that their dot operands share.

use super::attribute::Attribute;
use super::blocked::{check_pow2_list, widen};
use super::checks::{check_cga, check_shape};
use super::tiling::{combine_cta_cga, identity_standard_nd};
use crate::text::attr::{cga_suffix, list_text, AttrParser, LegacyCta, LEGACY_CTA_KEYS};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "nvidia_mma";

/// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>`: the accumulator
/// of `mma.sync` (v2, Ampere and later) or `wgmma` (v3, Hopper).
///
/// One warp's tile is `instr_shape` (v2 `16×8`; v3 `16×N`, the first two of `[16, N, K]`): two
/// registers along N, 4 lanes along N, 8 lanes along M, 2 registers along M, then `N/8`
/// registers along N ([`nvidia_mma_tile`] with `k_width = 2`). Warps tile the CTA row-major
/// (N fastest) for v2 and column-major (M fastest, so 4 consecutive warps form a warp group
/// along M) for v3. A rank-3 v2 layout has a batch dim 0 with tile size 1.
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter otherwise):
/// `version_major` is 2 or 3 and `version_minor` is 0; `warps_per_cta` has one power of two per
/// dim (rank 2 or 3 for v2, rank 2 for v3); `instr_shape` is `[16, 8]` (or `[1, 16, 8]` at rank 3)
/// for v2 and `[16, N, K]` with N a multiple of 8 up to 256 and K ∈ {8, 16, 32} for v3 (any
/// `warps_per_cta`, as Triton 3.9: a v3 layout of fewer than 4 warps along M is not a wgmma
/// accumulator, but real TTGIR uses it for layout conversions); `cga_layout` as for
/// [`Blocked`](super::Blocked). Shape: same rank, powers of two
/// ([`LayoutError::InvalidShape`]).
///
/// ```
/// use linear_layout::families::NvmmaDistributed;
/// let v2 = NvmmaDistributed {
///     version_major: 2,
///     version_minor: 0,
///     warps_per_cta: vec![2, 2],
///     instr_shape: vec![16, 8],
///     cga_layout: vec![],
/// };
/// let l = v2.to_linear_layout(&[32, 16])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![8, 0]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 8], vec![16, 0]]); // row-major
///
/// let v3 = NvmmaDistributed { version_major: 3, warps_per_cta: vec![4, 1], instr_shape: vec![16, 64, 16], ..v2 };
/// let l = v3.to_linear_layout(&[64, 64])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![8, 0], vec![0, 8], vec![0, 16], vec![0, 32]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![16, 0], vec![32, 0]]); // one warp group along M
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmmaDistributed {
    /// 2 (Ampere mma.sync) or 3 (Hopper wgmma).
    pub version_major: u32,
    /// Minor version (0).
    pub version_minor: u32,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u32>,
    /// Instruction shape: v2 `[16, 8]` (or `[1, 16, 8]`), v3 `[16, N, K]`.
    pub instr_shape: Vec<u32>,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl NvmmaDistributed {
    /// An MMA accumulator layout with no CGA split, checked (see [`NvmmaDistributed`] for the
    /// preconditions; [`LayoutError::InvalidParameter`] names the parameter).
    ///
    /// ```
    /// use linear_layout::families::NvmmaDistributed;
    /// let wgmma = NvmmaDistributed::new(3, &[4, 1], &[16, 64, 16])?;
    /// assert_eq!(wgmma.to_linear_layout(&[64, 64])?.in_dim_size("warp")?, 4);
    /// assert!(NvmmaDistributed::new(3, &[4, 1], &[16, 8]).is_err()); // wgmma needs [16, N, K]
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(
        version_major: u32,
        warps_per_cta: &[u32],
        instr_shape: &[u32],
    ) -> Result<NvmmaDistributed> {
        let m = NvmmaDistributed {
            version_major,
            version_minor: 0,
            warps_per_cta: warps_per_cta.to_vec(),
            instr_shape: instr_shape.to_vec(),
            cga_layout: Vec::new(),
        };
        m.validate()?;
        Ok(m)
    }

    /// The layout `register, lane, warp, block → dim0..` for a tensor of `shape` (Triton's
    /// `NvidiaMmaEncodingAttr::toLinearLayout`); errors: see [`NvmmaDistributed`].
    ///
    /// ```
    /// use linear_layout::families::NvmmaDistributed;
    /// let v3 = NvmmaDistributed {
    ///     version_major: 3,
    ///     version_minor: 0,
    ///     warps_per_cta: vec![4, 1],
    ///     instr_shape: vec![16, 32, 16],
    ///     cga_layout: vec![],
    /// };
    /// // 128 rows: the 64-row warp-group tile is repeated once more over registers.
    /// let l = v3.to_linear_layout(&[128, 64])?;
    /// assert_eq!(
    ///     l.bases_of("register")?,
    ///     vec![vec![0, 1], vec![8, 0], vec![0, 8], vec![0, 16], vec![0, 32], vec![64, 0]]
    /// );
    /// assert!(NvmmaDistributed { instr_shape: vec![16, 12, 16], ..v3 }.to_linear_layout(&[64, 64]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let rank = self.validate()?;
        check_shape(FAMILY, shape, rank)?;
        // mma.sync (v2): an `m × 8` tile whatever N the instruction shape gives (Triton 3.9
        // reads only its M); wgmma (v3): `16 × N`.
        let tile_shape: Vec<u32> = match self.version_major {
            2 => {
                let mut t = self.instr_shape.clone();
                if let Some(n) = t.last_mut() {
                    *n = 8;
                }
                t
            }
            _ => self.instr_shape.iter().take(2).copied().collect(),
        };
        let order = matrix_order(rank, true);
        let tile = nvidia_mma_tile(&tile_shape, 2, &order, &self.rep_order())?;
        let warps = identity_standard_nd("warp", &widen(&self.warps_per_cta), &self.warp_order())?
            .transpose_outs(&tile.out_dim_names())?;
        combine_cta_cga(&tile.product(&warps)?, &self.cga_layout, shape, true)
    }

    /// The tensor rank (`warps_per_cta.len()`), after checking every parameter.
    ///
    /// ```
    /// use linear_layout::families::NvmmaDistributed;
    /// let v2 = NvmmaDistributed {
    ///     version_major: 2,
    ///     version_minor: 0,
    ///     warps_per_cta: vec![1, 2, 2],
    ///     instr_shape: vec![1, 16, 8],
    ///     cga_layout: vec![],
    /// };
    /// assert_eq!(v2.rank()?, 3);
    /// assert!(NvmmaDistributed { instr_shape: vec![16, 8], ..v2 }.rank().is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn rank(&self) -> Result<usize> {
        self.validate()
    }

    /// Whether this is Hopper's wgmma accumulator (v3).
    pub fn is_hopper(&self) -> bool {
        self.version_major == 3
    }

    /// Triton's warp order: row-major (`[rank-1, …, 0]`) for v2, column-major for v3.
    pub(crate) fn warp_order(&self) -> Vec<usize> {
        matrix_order(self.warps_per_cta.len(), !self.is_hopper())
    }

    /// Triton's `getRepOrder()`: row-major.
    fn rep_order(&self) -> Vec<usize> {
        matrix_order(self.warps_per_cta.len(), true)
    }

    fn validate(&self) -> Result<usize> {
        let rank = self.warps_per_cta.len();
        match (self.version_major, self.version_minor) {
            (2 | 3, 0) => {}
            (2 | 3, minor) => {
                return Err(invalid(
                    "version_minor",
                    &minor,
                    "only minor version 0 exists for mma v2/v3".into(),
                ))
            }
            (major, _) => {
                return Err(invalid(
                    "version_major",
                    &major,
                    "must be 2 (mma.sync) or 3 (wgmma); Blackwell tcgen05 accumulators live \
                     in tensor memory"
                        .into(),
                ))
            }
        }
        let ranks: &[usize] = if self.is_hopper() { &[2] } else { &[2, 3] };
        if !ranks.contains(&rank) {
            return Err(invalid(
                "warps_per_cta",
                &self.warps_per_cta,
                format!(
                    "has rank {rank}; mma v{} layouts have rank {}",
                    self.version_major,
                    if self.is_hopper() { "2" } else { "2 or 3" }
                ),
            ));
        }
        check_pow2_list(FAMILY, "warps_per_cta", &self.warps_per_cta, rank)?;
        if self.is_hopper() {
            let ok = match self.instr_shape.as_slice() {
                &[16, n, k] => n % 8 == 0 && (8..=256).contains(&n) && matches!(k, 8 | 16 | 32),
                _ => false,
            };
            if !ok {
                return Err(invalid(
                    "instr_shape",
                    &self.instr_shape,
                    "wgmma (v3) needs [16, N, K] with N a multiple of 8 in 8..=256 and K 8, 16 \
                     or 32"
                        .into(),
                ));
            }
        } else {
            let n_ok = |n: u32| n.is_power_of_two() && n >= 8;
            let ok = match *self.instr_shape.as_slice() {
                [16 | 8, n] => rank == 2 && n_ok(n),
                [1, 16 | 8, n] => rank == 3 && n_ok(n),
                _ => false,
            };
            if !ok {
                return Err(invalid(
                    "instr_shape",
                    &self.instr_shape,
                    format!(
                        "mma.sync (v2) at rank {rank} needs [M, N] (rank 2) or [1, M, N] \
                         (rank 3), M 16 or fp64's 8, N a power of two ≥ 8"
                    ),
                ));
            }
        }
        check_cga(FAMILY, &self.cga_layout, rank)?;
        Ok(rank)
    }
}

fn invalid<T: std::fmt::Debug>(param: &'static str, value: &T, reason: String) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

/// Triton's `getMatrixOrder(rank, rowMajor)`: dims most minor first for a batch of matrices
/// `[*, m, n]` — `[rank-1, rank-2, …, 0]` row-major, with the first two swapped column-major.
///
/// ```
/// use linear_layout::families::mma::matrix_order;
/// assert_eq!(matrix_order(3, true), [2, 1, 0]);
/// assert_eq!(matrix_order(3, false), [1, 2, 0]);
/// ```
pub fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rank).rev().collect();
    if !row_major && rank >= 2 {
        order.swap(0, 1);
    }
    order
}

/// Triton's `nvidiaMmaTile`: the `register, lane → dim*` tile of one warp for an NVIDIA MMA
/// fragment of `tile_shape` (per dim; `order[0]` the inner dim of size n, `order[1]` the outer
/// of size m): `k_width` registers along inner, 4 lanes along inner, 8 lanes along outer, `m/8`
/// registers along outer, `n/(4·k_width)` registers along inner. Out-dims come in `rep_order`.
///
/// Errors ([`LayoutError::InvalidParameter`]): fewer than 2 dims, `tile_shape`/`order`/
/// `rep_order` of different ranks, `m` not a multiple of 8, `n` not a multiple of `4·k_width`,
/// sizes not powers of two.
///
/// ```
/// use linear_layout::families::mma::nvidia_mma_tile;
/// // The A operand of mma.sync m16n8k16 (f16): 16 × 16, K (dim1) contiguous, k_width 2.
/// let t = nvidia_mma_tile(&[16, 16], 2, &[1, 0], &[1, 0])?;
/// assert_eq!(t.bases_of("register")?, vec![vec![1, 0], vec![0, 8], vec![8, 0]]); // (dim1, dim0)
/// assert_eq!(t.bases_of("lane")?, vec![vec![2, 0], vec![4, 0], vec![0, 1], vec![0, 2], vec![0, 4]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn nvidia_mma_tile(
    tile_shape: &[u32],
    k_width: u32,
    order: &[usize],
    rep_order: &[usize],
) -> Result<LinearLayout> {
    let rank = rep_order.len();
    let bad = |param: &'static str, value: String, reason: String| LayoutError::InvalidParameter {
        family: FAMILY,
        param,
        value,
        reason,
    };
    if rank < 2 || tile_shape.len() != rank || order.len() != rank {
        return Err(bad(
            "tile_shape",
            format!("{tile_shape:?}"),
            format!(
                "an MMA tile needs rank ≥ 2 and matching order {order:?} / rep order {rep_order:?}"
            ),
        ));
    }
    let (Some(&inner), Some(&outer)) = (order.first(), order.get(1)) else {
        return Err(bad("order", format!("{order:?}"), "needs two dims".into()));
    };
    let (Some(&n), Some(&m)) = (tile_shape.get(inner), tile_shape.get(outer)) else {
        return Err(bad(
            "order",
            format!("{order:?}"),
            format!("out of range for rank {rank}"),
        ));
    };
    let (m, n, kw) = (u64::from(m), u64::from(n), u64::from(k_width));
    let pow2 = m.is_power_of_two() && n.is_power_of_two() && kw.is_power_of_two();
    if !pow2 || m % 8 != 0 || n % (4 * kw) != 0 {
        return Err(bad(
            "tile_shape",
            format!("{tile_shape:?}"),
            format!(
                "needs m = {m} a multiple of 8 and n = {n} a multiple of 4 · k_width = {}",
                4 * kw
            ),
        ));
    }
    let (din, dout) = (Dim::standard(inner), Dim::standard(outer));
    // Out-dims in rep order, each of size 1, before any bases.
    let trivial = identity_standard_nd("register", &vec![1; rank], rep_order)?;
    let parts = [
        LinearLayout::identity_1d(kw, "register", din)?,
        LinearLayout::identity_1d(4, "lane", din)?,
        LinearLayout::identity_1d(8, "lane", dout)?,
        LinearLayout::identity_1d(m / 8, "register", dout)?,
        LinearLayout::identity_1d(n / (4 * kw), "register", din)?,
    ];
    parts.iter().try_fold(trivial, |acc, p| acc.product(p))
}

impl Attribute for NvmmaDistributed {
    const NAME: &'static str = "#ttg.nvidia_mma";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = NvmmaDistributed::NAME;
        const KEYS: [&str; 8] = [
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "CGALayout",
            LEGACY_CTA_KEYS[0],
            LEGACY_CTA_KEYS[1],
            LEGACY_CTA_KEYS[2],
        ];
        let (mut major, mut minor, mut wpc, mut instr, mut cga) = (None, 0, None, None, Vec::new());
        let mut legacy = LegacyCta::default();
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "versionMajor" => major = Some(p.int(A, key)?),
                "versionMinor" => minor = p.int(A, key)?,
                "warpsPerCTA" => wpc = Some(p.ints(A, key)?),
                "instrShape" => instr = Some(p.ints(A, key)?),
                "CGALayout" => cga = p.bases(A, key)?,
                _ => p.legacy_cta_key(A, key, &mut legacy)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        p.check_legacy_cta(A, start, &legacy, &cga)?;
        let m = NvmmaDistributed {
            version_major: p.required(A, start, "versionMajor", major)?,
            version_minor: minor,
            warps_per_cta: p.required(A, start, "warpsPerCTA", wpc)?,
            instr_shape: p.required(A, start, "instrShape", instr)?,
            cga_layout: cga,
        };
        p.check_cga(A, start, &m.cga_layout, Some(m.warps_per_cta.len()))?;
        Ok(m)
    }

    fn print(&self, _rank: usize) -> String {
        format!(
            "{}<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}}}>",
            Self::NAME,
            self.version_major,
            self.version_minor,
            list_text(&self.warps_per_cta),
            cga_suffix(&self.cga_layout),
            list_text(&self.instr_shape),
        )
    }
}
