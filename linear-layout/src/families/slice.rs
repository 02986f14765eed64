//! [`Slice`]: `#ttg.slice`, a parent layout with one dim removed (the layout of a reduction's
//! result, or of the operand of an `expand_dims`).

use super::attribute::Attribute;
use super::checks::check_shape;
use super::encoding::parse_parent;
use super::DistributedEncoding;
use crate::text::attr::AttrParser;
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "slice";

/// `#ttg.slice<{dim, parent}>`: the parent layout on the shape with a 1 inserted at `dim`,
/// projected onto the other dims. Registers that the projection makes redundant (zero bases)
/// are dropped; lanes and warps that become zero stay, as broadcast — after a reduction along
/// `dim` every thread of the reduced group holds the result.
///
/// Preconditions: the parent has rank ≥ 2 and `dim < parent rank`
/// ([`LayoutError::InvalidParameter`] on `dim` / `parent`); the shape has rank `parent rank − 1`
/// and power-of-two sizes ([`LayoutError::InvalidShape`]); the parent's own preconditions.
///
/// ```
/// use linear_layout::families::{Blocked, DistributedEncoding, Slice};
/// let parent = Blocked {
///     size_per_thread: vec![1, 4],
///     threads_per_warp: vec![8, 4],
///     warps_per_cta: vec![2, 2],
///     order: vec![1, 0],
///     cga_layout: vec![],
/// };
/// let s = Slice { dim: 1, parent: Box::new(DistributedEncoding::Blocked(parent)) };
/// let l = s.to_linear_layout(&[64])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![16], vec![32]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0], vec![0], vec![1], vec![2], vec![4]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0], vec![8]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The removed dim of the parent.
    pub dim: usize,
    /// The parent layout.
    pub parent: Box<crate::families::DistributedEncoding>,
}

impl Slice {
    /// The layout `register, lane, warp, block → dim0..` for a tensor of `shape` (Triton's
    /// `SliceEncodingAttr::toLinearLayout`); errors: see [`Slice`].
    ///
    /// ```
    /// use linear_layout::families::{DistributedEncoding, NvmmaDistributed, Slice};
    /// let mma = NvmmaDistributed {
    ///     version_major: 2,
    ///     version_minor: 0,
    ///     warps_per_cta: vec![2, 2],
    ///     instr_shape: vec![16, 8],
    ///     cga_layout: vec![],
    /// };
    /// // Row sums of a 32×16 accumulator: the 4 lanes of a quad (and the 2 warps along N) share
    /// // each row's result.
    /// let rows = Slice { dim: 1, parent: Box::new(DistributedEncoding::NvmmaDistributed(mma)) };
    /// let l = rows.to_linear_layout(&[32])?;
    /// assert_eq!(l.bases_of("register")?, vec![vec![8]]);
    /// assert_eq!(l.bases_of("lane")?, vec![vec![0], vec![0], vec![1], vec![2], vec![4]]);
    /// assert_eq!(l.bases_of("warp")?, vec![vec![0], vec![16]]);
    /// assert!(Slice { dim: 2, ..rows }.to_linear_layout(&[32]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let parent_rank = self.check()?;
        check_shape(FAMILY, shape, parent_rank - 1)?;
        let mut parent_shape = shape.to_vec();
        parent_shape.insert(self.dim, 1);
        let parent = self.parent.to_linear_layout(&parent_shape)?;
        project_out(&parent, self.dim, shape)
    }

    /// A slice of `parent` along `dim`, checked: the parent has rank ≥ 2 and `dim` is one of
    /// its dims ([`LayoutError::InvalidParameter`] otherwise; the parent's own parameters are
    /// checked when it is built on a shape).
    ///
    /// ```
    /// use linear_layout::families::{Blocked, DistributedEncoding, Slice};
    /// let parent = DistributedEncoding::Blocked(Blocked::new(&[1, 4], &[8, 4], &[4, 1], &[1, 0])?);
    /// let rows = Slice::new(1, parent.clone())?;
    /// assert_eq!(rows.to_linear_layout(&[32])?.out_dims()[0].1, 32);
    /// assert!(Slice::new(2, parent).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(dim: usize, parent: crate::families::DistributedEncoding) -> Result<Slice> {
        let s = Slice {
            dim,
            parent: Box::new(parent),
        };
        s.check()?;
        Ok(s)
    }

    /// The parent's rank, once `dim` is checked against it.
    fn check(&self) -> Result<usize> {
        let parent_rank = distributed_rank(&self.parent)?;
        if parent_rank < 2 {
            return Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "parent",
                value: format!("a rank {parent_rank} layout"),
                reason: "slicing must leave at least one dim".into(),
            });
        }
        if self.dim >= parent_rank {
            return Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "dim",
                value: self.dim.to_string(),
                reason: format!("the parent has rank {parent_rank}"),
            });
        }
        Ok(parent_rank)
    }
}

/// Triton's slice projection: drop out-dim `dim{dim}` of a distributed layout (renaming the later
/// `dimK` to `dim{K-1}`), then delete the `register` bases that became zero.
fn project_out(parent: &LinearLayout, dim: usize, shape: &[u64]) -> Result<LinearLayout> {
    let parent_outs = parent.out_dims();
    let expected: Vec<Dim> = (0..=shape.len()).map(Dim::standard).collect();
    if parent_outs
        .iter()
        .map(|&(d, _)| d)
        .ne(expected.iter().copied())
    {
        return Err(LayoutError::InvalidParameter {
            family: FAMILY,
            param: "parent",
            value: format!("{:?}", parent.out_dim_names()),
            reason: format!("out-dims must be {expected:?}"),
        });
    }
    let outs: Vec<(Dim, u64)> = parent_outs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != dim)
        .map(|(i, &(_, size))| (Dim::standard(if i < dim { i } else { i - 1 }), size))
        .collect();
    if outs.iter().map(|&(_, s)| s).ne(shape.iter().copied()) {
        return Err(LayoutError::InvalidShape {
            family: FAMILY,
            shape: shape.to_vec(),
            reason: format!("the parent layout covers {parent_outs:?}"),
        });
    }
    let register = Dim::new("register");
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = parent
        .bases()
        .into_iter()
        .map(|(d, bs)| {
            let projected = bs.into_iter().map(|b| {
                b.into_iter()
                    .enumerate()
                    .filter(|&(i, _)| i != dim)
                    .map(|(_, v)| v)
                    .collect::<Vec<u64>>()
            });
            let kept = projected
                .filter(|b| d != register || b.iter().any(|&v| v != 0))
                .collect();
            (d, kept)
        })
        .collect();
    LinearLayout::from_bases(&bases, &outs, false)
}

/// The tensor rank a distributed encoding lays out, after checking the parameters that fix it.
///
/// ```
/// use linear_layout::families::{slice::distributed_rank, Blocked, DistributedEncoding, Slice};
/// let b = DistributedEncoding::Blocked(Blocked {
///     size_per_thread: vec![1, 1, 1],
///     threads_per_warp: vec![1, 4, 8],
///     warps_per_cta: vec![4, 1, 1],
///     order: vec![2, 1, 0],
///     cga_layout: vec![],
/// });
/// assert_eq!(distributed_rank(&b)?, 3);
/// let s = DistributedEncoding::Slice(Slice { dim: 0, parent: Box::new(b) });
/// assert_eq!(distributed_rank(&s)?, 2);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn distributed_rank(enc: &DistributedEncoding) -> Result<usize> {
    match enc {
        DistributedEncoding::Blocked(b) => Ok(b.order.len()),
        DistributedEncoding::Slice(s) => {
            let parent = distributed_rank(&s.parent)?;
            parent.checked_sub(1).ok_or(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "parent",
                value: "a rank 0 layout".into(),
                reason: "slicing must leave at least one dim".into(),
            })
        }
        DistributedEncoding::NvmmaDistributed(m) => m.rank(),
        DistributedEncoding::DotOperand(d) => distributed_rank(&d.parent),
        DistributedEncoding::Linear(l) => Ok(l.num_out_dims()),
        DistributedEncoding::AmdMfma(m) => m.rank(),
        DistributedEncoding::AmdWmma(w) => w.rank(),
    }
}

impl Attribute for Slice {
    const NAME: &'static str = "#ttg.slice";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = Slice::NAME;
        let (mut dim, mut parent) = (None, None);
        p.open_dict(A)?;
        p.fields(A, Some(&["dim", "parent"]), '}', |p, key| {
            match key {
                "dim" => dim = Some(p.int(A, key)?),
                _ => parent = Some(parse_parent(p, A)?),
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        Ok(Slice {
            dim: p.required(A, start, "dim", dim)?,
            parent: p.required(A, start, "parent", parent)?,
        })
    }

    fn print(&self, rank: usize) -> String {
        format!(
            "{}<{{dim = {}, parent = {}}}>",
            Self::NAME,
            self.dim,
            self.parent.attribute().text(rank)
        )
    }
}
