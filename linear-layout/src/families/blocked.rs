//! [`Blocked`]: Triton's `#ttg.blocked` register layout, plus the parameter checks the other
//! distributed families share with it.

use super::attribute::Attribute;
use super::checks::{check_cga, check_order, check_shape};
use super::tiling::{combine_cta_cga, identity_standard_nd};
use crate::text::attr::{cga_suffix, list_text, AttrParser};
use crate::{LayoutError, LinearLayout, Result};

const FAMILY: &str = "blocked";

/// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`: each thread holds a
/// `size_per_thread` block of contiguous elements, `threads_per_warp` such blocks make a warp's
/// tile, `warps_per_cta` warp tiles make the CTA tile, each level laid out along `order` (most
/// minor dim first). The CTA tile is then repeated over registers where the tensor is larger,
/// and where it is smaller the warps, then lanes, that would run past it broadcast (zero bases)
/// while registers that would run past it are dropped (Triton 3.9); `cga_layout` splits the
/// tensor over CTAs.
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter otherwise):
/// `size_per_thread`, `threads_per_warp`, `warps_per_cta` and `order` all have one entry per
/// dim (at least one dim); their entries are powers of two; `order` is a permutation;
/// `threads_per_warp` may multiply to any warp size (32 on NVIDIA, 64 on an AMD wavefront, 16
/// where a test asks for it), as in Triton 3.9;
/// `cga_layout` is a permutation matrix once its zero (broadcast) bases are removed. The shape
/// must have the same rank and power-of-two sizes ([`LayoutError::InvalidShape`]).
///
/// ```
/// use linear_layout::families::Blocked;
/// let b = Blocked {
///     size_per_thread: vec![1, 4],
///     threads_per_warp: vec![8, 4],
///     warps_per_cta: vec![2, 2],
///     order: vec![1, 0],
///     cga_layout: vec![],
/// };
/// let l = b.to_linear_layout(&[64, 64])?;
/// // The 16×32 CTA tile is repeated twice along dim1 (register 2), then 4 times along dim0.
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![0, 2], vec![0, 32], vec![16, 0], vec![32, 0]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 16], vec![8, 0]]);
/// assert!(l.bases_of("block")?.is_empty());
/// // On 8×8 the tile is too big: lanes and warps broadcast (zero bases).
/// let s = b.to_linear_layout(&[8, 8])?;
/// assert_eq!(s.bases_of("lane")?, vec![vec![0, 4], vec![0, 0], vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(s.bases_of("warp")?, vec![vec![0, 0], vec![0, 0]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// Contiguous elements per thread, per dim.
    pub size_per_thread: Vec<u32>,
    /// Threads per warp, per dim (product 32).
    pub threads_per_warp: Vec<u32>,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u32>,
    /// Dims from fastest- to slowest-varying.
    pub order: Vec<usize>,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl Blocked {
    /// A blocked layout with no CGA split, checked (see [`Blocked`] for the preconditions;
    /// [`LayoutError::InvalidParameter`] names the first parameter that breaks one).
    ///
    /// ```
    /// use linear_layout::families::Blocked;
    /// let b = Blocked::new(&[1, 4], &[8, 4], &[4, 1], &[1, 0])?;
    /// assert_eq!(b.to_linear_layout(&[32, 16])?.in_dim_size("lane")?, 32);
    /// assert!(Blocked::new(&[1, 3], &[8, 4], &[4, 1], &[1, 0]).is_err()); // 3 is not a power of two
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(
        size_per_thread: &[u32],
        threads_per_warp: &[u32],
        warps_per_cta: &[u32],
        order: &[usize],
    ) -> Result<Blocked> {
        let b = Blocked {
            size_per_thread: size_per_thread.to_vec(),
            threads_per_warp: threads_per_warp.to_vec(),
            warps_per_cta: warps_per_cta.to_vec(),
            order: order.to_vec(),
            cga_layout: Vec::new(),
        };
        b.validate()?;
        Ok(b)
    }

    /// The layout `register, lane, warp, block → dim0..` for a tensor of `shape` (Triton's
    /// `BlockedEncodingAttr::toLinearLayout`): `identityStandardND(register, size_per_thread,
    /// order) * identityStandardND(lane, …) * identityStandardND(warp, …)`, fitted to `shape`
    /// and combined with the CGA layout. Errors: see [`Blocked`].
    ///
    /// ```
    /// use linear_layout::families::Blocked;
    /// let b = Blocked {
    ///     size_per_thread: vec![2],
    ///     threads_per_warp: vec![32],
    ///     warps_per_cta: vec![4],
    ///     order: vec![0],
    ///     cga_layout: vec![],
    /// };
    /// let l = b.to_linear_layout(&[32])?;
    /// assert_eq!(l.bases_of("register")?, vec![vec![1]]);
    /// assert_eq!(l.bases_of("lane")?, vec![vec![2], vec![4], vec![8], vec![16], vec![0]]);
    /// assert_eq!(l.bases_of("warp")?, vec![vec![0], vec![0]]);
    /// // 16 elements per thread would be 8 registers past the tensor: dropped, not broadcast.
    /// let r = Blocked { size_per_thread: vec![16], ..b.clone() }.to_linear_layout(&[2])?;
    /// assert_eq!(r.bases_of("register")?, vec![vec![1]]);
    /// assert!(b.to_linear_layout(&[32, 32]).is_err()); // rank 2 shape for a rank 1 layout
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let cta = self.cta_layout()?;
        check_shape(FAMILY, shape, self.order.len())?;
        combine_cta_cga(&cta, &self.cga_layout, shape, false)
    }

    /// The per-CTA tile `register, lane, warp → dim*` before it is fitted to a shape, out-dims
    /// in `order` (most minor first), as Triton builds it. Checks the parameters like
    /// [`Blocked::to_linear_layout`].
    ///
    /// ```
    /// use linear_layout::families::Blocked;
    /// let b = Blocked {
    ///     size_per_thread: vec![1, 4],
    ///     threads_per_warp: vec![8, 4],
    ///     warps_per_cta: vec![2, 2],
    ///     order: vec![1, 0],
    ///     cga_layout: vec![],
    /// };
    /// let t = b.cta_layout()?;
    /// assert_eq!(t.out_dims().iter().map(|(d, s)| (d.name(), *s)).collect::<Vec<_>>(), [("dim1", 32), ("dim0", 16)]);
    /// assert_eq!(t.bases_of("warp")?, vec![vec![16, 0], vec![0, 8]]); // (dim1, dim0)
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn cta_layout(&self) -> Result<LinearLayout> {
        self.validate()?;
        let reg = identity_standard_nd("register", &widen(&self.size_per_thread), &self.order)?;
        let lane = identity_standard_nd("lane", &widen(&self.threads_per_warp), &self.order)?;
        let warp = identity_standard_nd("warp", &widen(&self.warps_per_cta), &self.order)?;
        reg.product(&lane)?.product(&warp)
    }

    /// Checks every parameter (see [`Blocked`]) and returns the rank.
    fn validate(&self) -> Result<usize> {
        let rank = self.order.len();
        if rank == 0 {
            return Err(invalid(
                "order",
                &self.order,
                "a blocked layout needs at least one dim".into(),
            ));
        }
        for (param, values) in [
            ("size_per_thread", &self.size_per_thread),
            ("threads_per_warp", &self.threads_per_warp),
            ("warps_per_cta", &self.warps_per_cta),
        ] {
            check_pow2_list(FAMILY, param, values, rank)?;
        }
        check_order(FAMILY, &self.order, rank)?;
        check_cga(FAMILY, &self.cga_layout, rank)?;
        Ok(rank)
    }
}

fn invalid<T: std::fmt::Debug>(param: &'static str, value: &T, reason: String) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

pub(crate) fn widen(v: &[u32]) -> Vec<u64> {
    v.iter().map(|&x| u64::from(x)).collect()
}

/// Check a per-dim parameter list: `rank` entries, each a power of two (at most 2^30).
///
/// ```
/// use linear_layout::families::blocked::check_pow2_list;
/// assert!(check_pow2_list("blocked", "warps_per_cta", &[2, 2], 2).is_ok());
/// assert!(check_pow2_list("blocked", "warps_per_cta", &[2, 3], 2).is_err());
/// assert!(check_pow2_list("blocked", "warps_per_cta", &[4], 2).is_err());
/// ```
pub fn check_pow2_list(
    family: &'static str,
    param: &'static str,
    values: &[u32],
    rank: usize,
) -> Result<()> {
    let bad = |reason: String| LayoutError::InvalidParameter {
        family,
        param,
        value: format!("{values:?}"),
        reason,
    };
    if values.len() != rank {
        return Err(bad(format!(
            "has {} entries, expected one per dim ({rank})",
            values.len()
        )));
    }
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(_, &v)| !v.is_power_of_two() || v > 1 << 30)
    {
        return Err(bad(format!(
            "entry {i} = {v} is not a power of two between 1 and 2^30"
        )));
    }
    Ok(())
}

impl Attribute for Blocked {
    const NAME: &'static str = "#ttg.blocked";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = Blocked::NAME;
        const KEYS: [&str; 5] = [
            "sizePerThread",
            "threadsPerWarp",
            "warpsPerCTA",
            "order",
            "CGALayout",
        ];
        let (mut spt, mut tpw, mut wpc, mut order, mut cga) = (None, None, None, None, Vec::new());
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "sizePerThread" => spt = Some(p.ints(A, key)?),
                "threadsPerWarp" => tpw = Some(p.ints(A, key)?),
                "warpsPerCTA" => wpc = Some(p.ints(A, key)?),
                "order" => order = Some(p.ints(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        let b = Blocked {
            size_per_thread: p.required(A, start, "sizePerThread", spt)?,
            threads_per_warp: p.required(A, start, "threadsPerWarp", tpw)?,
            warps_per_cta: p.required(A, start, "warpsPerCTA", wpc)?,
            order: p.required(A, start, "order", order)?,
            cga_layout: cga,
        };
        let ranks = [
            b.size_per_thread.len(),
            b.threads_per_warp.len(),
            b.warps_per_cta.len(),
            b.order.len(),
        ];
        if ranks.iter().any(|&r| r != b.order.len()) {
            return Err(p.err_at(
                A,
                start,
                format!(
                    "sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same \
                     length, got {}",
                    list_text(&ranks)
                ),
            ));
        }
        p.check_cga(A, start, &b.cga_layout, Some(b.order.len()))?;
        Ok(b)
    }

    fn print(&self, _rank: usize) -> String {
        format!(
            "{}<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            Self::NAME,
            list_text(&self.size_per_thread),
            list_text(&self.threads_per_warp),
            list_text(&self.warps_per_cta),
            list_text(&self.order),
            cga_suffix(&self.cga_layout),
        )
    }
}
