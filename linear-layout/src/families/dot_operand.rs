//! [`DotOperand`]: `#ttg.dot_op`, the A/B operand layout of a parent MMA or blocked layout.

use super::amd_mfma::{operand_order, AMD_WAVE_SIZE};
use super::attribute::Attribute;
use super::blocked::widen;
use super::checks::check_shape;
use super::encoding::parse_parent;
use super::linear::check_permutation;
use super::mma::{matrix_order, nvidia_mma_tile};
use super::tiling::{combine_cta_cga, identity_standard_nd, standard_out_dims};
use super::{AmdMfma, AmdWmma, Blocked, DistributedEncoding, NvmmaDistributed};
use crate::text::attr::AttrParser;
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "dot_operand";

/// `#ttg.dot_op<{opIdx, parent, kWidth}>`: the registers holding operand A (`operand_index` 0, shape
/// `[*, M, K]`) or B (`operand_index` 1, `[*, K, N]`) of a dot whose accumulator has layout `parent`.
///
/// * NVIDIA MMA parent (Triton's `nvidiaDotToLinearLayout`): one warp holds a `16 × 8·k_width`
///   tile of A or an `8·k_width × 8` tile of B, `k_width` consecutive K elements per register
///   group ([`nvidia_mma_tile`] with K contiguous); warps are the parent's, with the ones along
///   the other operand's dim broadcast (zero bases: every warp along N needs the same A rows).
///   Hopper (v3) takes B from shared memory, so only A exists there.
/// * Blocked parent (FMA dot, Triton's `fmaDotToLinearLayout`): each thread holds the whole K
///   extent of its `size_per_thread` rows (or columns); lanes and warps along K broadcast.
///
/// The CGA layout is the parent's with K never split across CTAs.
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter otherwise): `operand_index`
/// 0 or 1 (0 for a v3 parent); `k_width` a power of two from 1 to 16 for an MMA parent, 0 for a
/// blocked parent; the parent of rank 2 or 3, itself valid; a slice, dot-operand or linear
/// parent is refused. Shape: the parent's rank, powers of two ([`LayoutError::InvalidShape`]).
///
/// ```
/// use linear_layout::families::{DistributedEncoding, DotOperand, NvmmaDistributed};
/// let mma = NvmmaDistributed {
///     version_major: 2,
///     version_minor: 0,
///     warps_per_cta: vec![2, 2],
///     instr_shape: vec![16, 8],
///     cga_layout: vec![],
/// };
/// let a = DotOperand { operand_index: 0, parent: Box::new(DistributedEncoding::NvmmaDistributed(mma)), k_width: 2 };
/// let l = a.to_linear_layout(&[32, 16])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![8, 0], vec![0, 8]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 0], vec![16, 0]]); // warps along N share A
///
/// let b = DotOperand { operand_index: 1, ..a };
/// let l = b.to_linear_layout(&[16, 32])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![1, 0], vec![8, 0], vec![0, 16]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![2, 0], vec![4, 0], vec![0, 1], vec![0, 2], vec![0, 4]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 8], vec![0, 0]]); // warps along M share B
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotOperand {
    /// 0 for A, 1 for B.
    pub operand_index: u32,
    /// The parent (accumulator) layout.
    pub parent: Box<crate::families::DistributedEncoding>,
    /// Consecutive K elements per thread (0 for a blocked parent).
    pub k_width: u32,
}

impl DotOperand {
    /// The layout `register, lane, warp, block → dim0..` for an operand tensor of `shape`
    /// (Triton's `DotOperandEncodingAttr::toLinearLayout`); errors: see [`DotOperand`].
    ///
    /// ```
    /// use linear_layout::families::{Blocked, DistributedEncoding, DotOperand};
    /// let acc = Blocked {
    ///     size_per_thread: vec![2, 2],
    ///     threads_per_warp: vec![4, 8],
    ///     warps_per_cta: vec![2, 1],
    ///     order: vec![1, 0],
    ///     cga_layout: vec![],
    /// };
    /// let a = DotOperand { operand_index: 0, parent: Box::new(DistributedEncoding::Blocked(acc)), k_width: 0 };
    /// // A is 16 × 4: each thread holds all 4 K elements of its 2 rows; lanes along K broadcast.
    /// let l = a.to_linear_layout(&[16, 4])?;
    /// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![0, 2], vec![1, 0]]);
    /// assert_eq!(l.bases_of("lane")?, vec![vec![0, 0], vec![0, 0], vec![0, 0], vec![2, 0], vec![4, 0]]);
    /// assert_eq!(l.bases_of("warp")?, vec![vec![8, 0]]);
    /// assert!(DotOperand { k_width: 2, ..a }.to_linear_layout(&[16, 4]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.check()?;
        match self.parent.as_ref() {
            DistributedEncoding::NvmmaDistributed(mma) => self.mma_operand(mma, shape),
            DistributedEncoding::Blocked(blocked) => self.fma_operand(blocked, shape),
            DistributedEncoding::AmdMfma(mfma) => self.mfma_operand(mfma, shape),
            DistributedEncoding::AmdWmma(wmma) => self.wmma_operand(wmma, shape),
            other => Err(invalid("parent", &kind(other), PARENTS.into())),
        }
    }

    /// Operand `operand_index` (0: A, 1: B) of an MMA or FMA dot whose accumulator is `parent`,
    /// checked (see [`DotOperand`]; the parent's own parameters are checked when it is built on
    /// a shape).
    ///
    /// ```
    /// use linear_layout::families::{DistributedEncoding, DotOperand, NvmmaDistributed};
    /// let acc = DistributedEncoding::NvmmaDistributed(NvmmaDistributed::new(2, &[2, 2], &[16, 8])?);
    /// let a = DotOperand::new(0, acc.clone(), 2)?;
    /// assert_eq!(a.to_linear_layout(&[32, 16])?.in_dim_size("lane")?, 32);
    /// assert!(DotOperand::new(0, acc, 3).is_err()); // k_width must be a power of two
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(
        operand_index: u32,
        parent: DistributedEncoding,
        k_width: u32,
    ) -> Result<DotOperand> {
        let d = DotOperand {
            operand_index,
            parent: Box::new(parent),
            k_width,
        };
        d.check()?;
        Ok(d)
    }

    /// The operand index, the parent's kind and `k_width` for that kind.
    fn check(&self) -> Result<()> {
        if self.operand_index > 1 {
            return Err(invalid(
                "op_idx",
                &self.operand_index,
                "must be 0 (A) or 1 (B)".into(),
            ));
        }
        match self.parent.as_ref() {
            DistributedEncoding::NvmmaDistributed(mma) => {
                if !self.k_width.is_power_of_two() || self.k_width > 16 {
                    return Err(invalid(
                        "k_width",
                        &self.k_width,
                        "an NVIDIA MMA operand needs a power of two from 1 to 16 (32 bits / \
                         element bits for 16- to 2-bit elements, up to 4 after upcasts)"
                            .into(),
                    ));
                }
                if mma.is_hopper() && self.operand_index != 0 {
                    return Err(invalid(
                        "op_idx",
                        &self.operand_index,
                        "wgmma (v3) reads B from shared memory; only A (0) has a register layout"
                            .into(),
                    ));
                }
                Ok(())
            }
            DistributedEncoding::Blocked(_) if self.k_width != 0 => Err(invalid(
                "k_width",
                &self.k_width,
                "must be 0 when the parent is a blocked layout".into(),
            )),
            DistributedEncoding::Blocked(_) => Ok(()),
            DistributedEncoding::AmdMfma(_) => self.check_amd_k_width(&[]),
            DistributedEncoding::AmdWmma(w) => match w.version {
                1 => self.check_amd_k_width(&[8, 16]),
                2 => self.check_amd_k_width(&[4, 8, 16]),
                _ => self.check_amd_k_width(&[]),
            },
            other => Err(invalid("parent", &kind(other), PARENTS.into())),
        }
    }

    /// An AMD operand's `k_width`: a power of two (one of `allowed` when given).
    fn check_amd_k_width(&self, allowed: &[u32]) -> Result<()> {
        let ok = self.k_width.is_power_of_two()
            && self.k_width <= 1 << 10
            && (allowed.is_empty() || allowed.contains(&self.k_width));
        if ok {
            return Ok(());
        }
        let reason = if allowed.is_empty() {
            "an AMD MFMA / WMMA v3 operand needs a power of two (Triton: mandatory, non-zero)"
                .to_string()
        } else {
            format!("this WMMA version takes k_width {allowed:?}")
        };
        Err(invalid("k_width", &self.k_width, reason))
    }

    /// The K dim of this operand for a tensor of rank `rank`: the last for A, the second to last
    /// for B.
    fn k_dim(&self, rank: usize) -> usize {
        if self.operand_index == 0 {
            rank - 1
        } else {
            rank - 2
        }
    }

    fn mma_operand(&self, mma: &NvmmaDistributed, shape: &[u64]) -> Result<LinearLayout> {
        let rank = mma.rank()?;
        check_shape(FAMILY, shape, rank)?;
        let is_a = self.operand_index == 0;
        let mut tile = vec![1u32; rank];
        // One warp's operand tile: `m × k` of A, `k × 8` of B, `k = 4·k_width` per 8 rows of the
        // instruction's M (m16n8 instructions: 2 groups of K; fp64's m8n8k4: 1).
        let m = if mma.is_hopper() {
            16
        } else {
            mma.instr_shape.iter().rev().nth(1).copied().unwrap_or(16)
        };
        let k = self.k_width * 4 * (m / 8);
        let (rows, cols) = if is_a { (m, k) } else { (k, 8) };
        if let [.., r, c] = tile.as_mut_slice() {
            (*r, *c) = (rows, cols);
        }
        // K contiguous: A row-major, B column-major; the rep order is the same.
        let order = matrix_order(rank, is_a);
        let cta = nvidia_mma_tile(&tile, self.k_width, &order, &order)?;
        let warps = broadcasted_dot_operand_layout(
            &mma.warps_per_cta,
            &mma.warp_order(),
            self.k_dim(rank),
            "warp",
        )?
        .transpose_outs(&cta.out_dim_names())?;
        let cga = self.operand_cga(&mma.cga_layout, rank);
        combine_cta_cga(&cta.product(&warps)?, &cga, shape, true)
    }

    fn fma_operand(&self, blocked: &Blocked, shape: &[u64]) -> Result<LinearLayout> {
        // Checks the parent's parameters (and shape rank / sizes below).
        blocked.cta_layout()?;
        let rank = blocked.order.len();
        if !(2..=3).contains(&rank) {
            return Err(invalid(
                "parent",
                &blocked.order,
                format!("a dot operand has rank 2 or 3, the blocked parent has rank {rank}"),
            ));
        }
        check_shape(FAMILY, shape, rank)?;
        let k_dim = self.k_dim(rank);
        let order = &blocked.order;
        let mut per_thread: Vec<u64> = blocked
            .size_per_thread
            .iter()
            .map(|&s| u64::from(s))
            .collect();
        if let (Some(p), Some(&k)) = (per_thread.get_mut(k_dim), shape.get(k_dim)) {
            *p = k;
        }
        let regs = identity_standard_nd("register", &per_thread, order)?;
        let lanes =
            broadcasted_dot_operand_layout(&blocked.threads_per_warp, order, k_dim, "lane")?;
        let warps = broadcasted_dot_operand_layout(&blocked.warps_per_cta, order, k_dim, "warp")?;
        let cga = self.operand_cga(&blocked.cga_layout, rank);
        combine_cta_cga(&regs.product(&lanes)?.product(&warps)?, &cga, shape, true)
    }

    /// Triton's `mfmaDotToLinearLayout`: `k_width` K elements per lane, lanes along the
    /// instruction's non-K dim then along K (64-lane waves), K tiles repeated over registers to
    /// the tensor's K, `tiles_per_warp` along the non-K dim, then the parent's waves (not
    /// broadcast: waves along K fall off when the layout is fitted to the shape).
    fn mfma_operand(&self, mfma: &AmdMfma, shape: &[u64]) -> Result<LinearLayout> {
        let rank = mfma.rank()?;
        check_shape(FAMILY, shape, rank)?;
        let (m, n) = mfma.mn();
        let is_a = self.operand_index == 0;
        let non_k = if is_a { m } else { n };
        let (k_idx, non_k_idx) = if is_a {
            (rank - 1, rank - 2)
        } else {
            (rank - 2, rank - 1)
        };
        let (dk, dn) = (Dim::standard(k_idx), Dim::standard(non_k_idx));
        let kw = u64::from(self.k_width);
        let mut k_tile = AMD_WAVE_SIZE / non_k * kw;
        let mut parts = vec![
            LinearLayout::identity_1d(kw, "register", dk)?,
            LinearLayout::identity_1d(non_k, "lane", dn)?,
            LinearLayout::identity_1d(AMD_WAVE_SIZE / non_k, "lane", dk)?,
        ];
        // The 64×64 operand of a 64×4 / 4×64 MFMA: 16 K tiles.
        if (m, n, is_a) == (64, 4, true) || (m, n, is_a) == (4, 64, false) {
            parts.push(LinearLayout::identity_1d(16, "register", dk)?);
            k_tile *= 16;
        }
        let k_size = shape.get(k_idx).copied().unwrap_or(1);
        if k_size > k_tile {
            parts.push(LinearLayout::identity_1d(k_size / k_tile, "register", dk)?);
        }
        let tiles = u64::from(mfma.tiles_per_warp.get(non_k_idx).copied().unwrap_or(1));
        parts.push(LinearLayout::identity_1d(tiles, "register", dn)?);
        let mut tile = parts
            .iter()
            .try_fold(LinearLayout::empty(), |acc, p| acc.product(p))?
            .transpose_outs(&[dk, dn])?;
        if rank == 3 {
            let b = Dim::standard(0);
            tile = tile
                .product(&LinearLayout::identity_1d(1, "register", b)?)?
                .product(&LinearLayout::identity_1d(1, "lane", b)?)?;
        }
        let warps = identity_standard_nd(
            "warp",
            &widen(&mfma.warps_per_cta),
            &matrix_order(rank, true),
        )?;
        combine_cta_cga(
            &tile.product_any_out_order(&warps)?,
            &mfma.cga_layout,
            shape,
            true,
        )
    }

    /// Triton's `wmmaDotOperandToLinearLayout`: `k_width` K elements per lane, 16 lanes along
    /// the non-K dim, the two half-waves along K (duplicated for v1), K tiles over registers to
    /// the instruction's K, a second 16-row block for a 32-row operand; then the parent's CTA
    /// layout with its K component dropped and its broadcast registers removed.
    fn wmma_operand(&self, wmma: &AmdWmma, shape: &[u64]) -> Result<LinearLayout> {
        let rank = wmma.rank()?;
        check_shape(FAMILY, shape, rank)?;
        let order = operand_order(self.operand_index, rank);
        let (Some(&k_idx), Some(&non_k_idx)) = (order.first(), order.get(1)) else {
            return Err(invalid("parent", &rank, "needs rank 2 or 3".into()));
        };
        let (dk, dn) = (Dim::standard(k_idx), Dim::standard(non_k_idx));
        const TILE: u64 = 16;
        const DEPTH: u64 = 2;
        let kw = u64::from(self.k_width);
        // Triton's identity1D(0) is empty: a K tile wider than the instruction is not repeated.
        let k_repeat = (wmma.k() / (DEPTH * kw)).max(1);
        let half_waves = if wmma.version == 1 {
            LinearLayout::zeros_1d(DEPTH, "lane", dk, 1)?
        } else {
            LinearLayout::identity_1d(DEPTH, "lane", dk)?
        };
        let parts = [
            LinearLayout::identity_1d(kw, "register", dk)?,
            LinearLayout::identity_1d(TILE, "lane", dn)?,
            half_waves,
            LinearLayout::identity_1d(k_repeat, "register", dk)?,
            LinearLayout::identity_1d(
                wmma.operand_non_k(self.operand_index) / TILE,
                "register",
                dn,
            )?,
        ];
        let tile = parts
            .iter()
            .try_fold(LinearLayout::empty(), |acc, p| acc.product(p))?;
        let cta = operand_cta(&wmma.cta_layout, k_idx, rank)?;
        let rep_dims: Vec<Dim> = order.iter().map(|&d| Dim::standard(d)).collect();
        let layout = tile
            .product_any_out_order(&cta)?
            .transpose_outs(&rep_dims)?;
        let cga = self.operand_cga(&wmma.cga_layout, rank);
        let layout = combine_cta_cga(&layout, &cga, shape, true)?;
        check_permutation(FAMILY, &layout)?;
        Ok(layout)
    }

    /// The parent's `cga_layout` with the K component zeroed: K is never split across CTAs.
    fn operand_cga(&self, parent: &[Vec<u64>], rank: usize) -> Vec<Vec<u64>> {
        let k = self.k_dim(rank);
        parent
            .iter()
            .map(|b| {
                b.iter()
                    .enumerate()
                    .map(|(i, &v)| if i == k { 0 } else { v })
                    .collect()
            })
            .collect()
    }
}

fn invalid<T: std::fmt::Debug>(param: &'static str, value: &T, reason: String) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

const PARENTS: &str = "must be an nvidia_mma, amd_mfma, amd_wmma or blocked layout";

/// A WMMA parent's `register, warp` layout for an operand: the K component of every basis
/// dropped (`projectAwayOutDim`, out sizes inferred again) and the register bases left all
/// zero removed (`actionRemoveBroadcastedRegs`).
fn operand_cta(cta: &LinearLayout, k_idx: usize, rank: usize) -> Result<LinearLayout> {
    let zero_k = |bases: Vec<Vec<u64>>| -> Vec<Vec<u64>> {
        bases
            .into_iter()
            .map(|b| {
                b.into_iter()
                    .enumerate()
                    .map(|(i, v)| if i == k_idx { 0 } else { v })
                    .collect()
            })
            .collect()
    };
    let regs: Vec<Vec<u64>> = zero_k(cta.bases_of("register")?)
        .into_iter()
        .filter(|b| b.iter().any(|&v| v != 0))
        .collect();
    let warps = zero_k(cta.bases_of("warp")?);
    LinearLayout::from_bases_inferred(
        &[("register", regs), ("warp", warps)],
        &standard_out_dims(rank),
    )
}

fn kind(enc: &DistributedEncoding) -> &'static str {
    match enc {
        DistributedEncoding::Blocked(_) => "blocked",
        DistributedEncoding::Slice(_) => "slice",
        DistributedEncoding::NvmmaDistributed(_) => "nvidia_mma",
        DistributedEncoding::DotOperand(_) => "dot_operand",
        DistributedEncoding::AmdMfma(_) => "amd_mfma",
        DistributedEncoding::AmdWmma(_) => "amd_wmma",
        DistributedEncoding::Linear(_) => "linear",
    }
}

/// Triton's `broadcastedDotOperandLayout`: `in_dim` (`lane` or `warp`) spread over `sizes` in
/// `order` like `identityStandardND`, except along `k_dim`, where it broadcasts (zero bases).
/// Out-dims come in `order`.
///
/// Errors: [`LayoutError::InvalidParameter`] if `order` does not index `sizes` or `k_dim` is out
/// of range, [`LayoutError::NotPowerOfTwo`] for a size that is not a power of two.
///
/// ```
/// use linear_layout::families::dot_operand::broadcasted_dot_operand_layout;
/// // Warps [2, 2] (row-major) for operand A: the warps along N (dim1 = K of A) share data.
/// let w = broadcasted_dot_operand_layout(&[2, 2], &[1, 0], 1, "warp")?;
/// assert_eq!(w.bases_of("warp")?, vec![vec![0, 0], vec![0, 1]]); // (dim1, dim0)
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn broadcasted_dot_operand_layout(
    sizes: &[u32],
    order: &[usize],
    k_dim: usize,
    in_dim: &str,
) -> Result<LinearLayout> {
    if k_dim >= sizes.len() || order.len() != sizes.len() {
        return Err(invalid(
            "order",
            &order,
            format!("must order {} dims, one of them K = {k_dim}", sizes.len()),
        ));
    }
    let mut layout = LinearLayout::empty();
    for &d in order {
        let size = sizes.get(d).map(|&s| u64::from(s)).ok_or_else(|| {
            invalid(
                "order",
                &order,
                format!("entry {d} is out of range for rank {}", sizes.len()),
            )
        })?;
        let part = if d == k_dim {
            LinearLayout::zeros_1d(size, in_dim, Dim::standard(d), 1)?
        } else {
            LinearLayout::identity_1d(size, in_dim, Dim::standard(d))?
        };
        layout = layout.product(&part)?;
    }
    Ok(layout)
}

impl Attribute for DotOperand {
    const NAME: &'static str = "#ttg.dot_op";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = DotOperand::NAME;
        let (mut operand_index, mut parent, mut k_width) = (None, None, 0);
        p.open_dict(A)?;
        p.fields(A, Some(&["opIdx", "parent", "kWidth"]), '}', |p, key| {
            match key {
                "opIdx" => operand_index = Some(p.int(A, key)?),
                "parent" => parent = Some(parse_parent(p, A)?),
                _ => k_width = p.int(A, key)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        Ok(DotOperand {
            operand_index: p.required(A, start, "opIdx", operand_index)?,
            parent: p.required(A, start, "parent", parent)?,
            k_width,
        })
    }

    fn print(&self, rank: usize) -> String {
        let k_width = if self.k_width == 0 {
            String::new()
        } else {
            format!(", kWidth = {}", self.k_width)
        };
        format!(
            "{}<{{opIdx = {}, parent = {}{k_width}}}>",
            Self::NAME,
            self.operand_index,
            self.parent.attribute().text(rank)
        )
    }
}
