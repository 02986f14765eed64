//! [`PartitionedShared`]: `#ttg.partitioned_shared`, a tensor split along one dim into pieces
//! spread over several physical shared-memory buffers (gfx1250).

use super::attribute::Attribute;
use super::checks::check_shape;
use super::encoding::{parse_attribute, SharedEncoding};
use super::tiling::standard_out_dims;
use super::Encoding;
use crate::text::attr::AttrParser;
use crate::{LayoutError, LinearLayout, Result};

const FAMILY: &str = "partitioned_shared";

/// `#ttg.partitioned_shared<{numPartitions, numGroups, partitionDim, partitionLayout}>`:
/// Triton 3.9's `PartitionedSharedEncodingAttr`. The tensor is cut along `partition_dim` into
/// `num_partitions · num_groups` equal pieces, each laid out by `partition_layout`; piece `k`
/// lives in buffer `k mod num_partitions`, at group `k / num_partitions` of it.
///
/// The layout has in-dims `offset, block, partition` (`partition` picks the buffer): the
/// piece's layout, then `partition` and more `offset` bases along `partition_dim`
/// (`partitionedSharedToLinearLayout`).
///
/// Preconditions (Triton's verifier; [`LayoutError::InvalidParameter`]): `num_partitions` a
/// power of two ≥ 2, `num_groups` a power of two; `partition_dim` a dim of the shape; the
/// shape cut into at least one element per piece ([`LayoutError::InvalidShape`]). A padded
/// `partition_layout` has no linear layout (Triton asserts): use
/// [`PartitionedShared::padded_linear_layout`].
///
/// ```
/// use linear_layout::families::{PartitionedShared, SharedEncoding, SwizzledShared};
/// let piece = SwizzledShared::new(2, 2, 4, vec![1, 0], vec![])?;
/// let p = PartitionedShared::new(2, 4, 0, SharedEncoding::Swizzled(piece))?;
/// let l = p.to_linear_layout(&[64, 32])?;
/// assert_eq!(l.bases_of("partition")?, vec![vec![8, 0]]); // the odd 8-row pieces
/// assert_eq!(l.bases_of("offset")?[8..], [vec![16, 0], vec![32, 0]]); // groups
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionedShared {
    /// Physical buffers.
    pub num_partitions: u32,
    /// Pieces per buffer.
    pub num_groups: u32,
    /// The dim that is cut.
    pub partition_dim: usize,
    /// The layout of one piece.
    pub partition_layout: Box<SharedEncoding>,
}

impl PartitionedShared {
    /// A partitioned layout, checked (see [`PartitionedShared`]).
    pub fn new(
        num_partitions: u32,
        num_groups: u32,
        partition_dim: usize,
        partition_layout: SharedEncoding,
    ) -> Result<PartitionedShared> {
        let p = PartitionedShared {
            num_partitions,
            num_groups,
            partition_dim,
            partition_layout: Box::new(partition_layout),
        };
        p.validate()?;
        Ok(p)
    }

    /// The layout `offset, block, partition → dim0..` for an allocation of `shape`; errors:
    /// see [`PartitionedShared`].
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        if let SharedEncoding::Padded(_) = self.partition_layout.as_ref() {
            return Err(invalid(
                "partition_layout",
                &"padded_shared",
                "a partitioned layout of padded pieces has no linear layout (Triton: use \
                 paddedLinearLayout): take PartitionedShared::padded_linear_layout"
                    .into(),
            ));
        }
        let piece = self.piece_shape(shape)?;
        let base = self.partition_layout.to_linear_layout(&piece)?;
        self.extend(base, shape.len())
    }

    /// Triton's `paddedLinearLayout` for padded pieces: the pieces' linear component (the
    /// `offset, block` slots before padding), extended by `partition` and group bases. Errors
    /// when the pieces are not padded, or as [`PartitionedShared::to_linear_layout`].
    pub fn padded_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let SharedEncoding::Padded(padded) = self.partition_layout.as_ref() else {
            return Err(invalid(
                "partition_layout",
                &"not padded",
                "only padded pieces have a padded linear layout: use to_linear_layout".into(),
            ));
        };
        self.piece_shape(shape)?;
        self.extend(padded.linear_component().clone(), shape.len())
    }

    /// One piece's shape: `shape` with `partition_dim` cut `num_partitions · num_groups` ways.
    fn piece_shape(&self, shape: &[u64]) -> Result<Vec<u64>> {
        self.validate()?;
        check_shape(FAMILY, shape, shape.len())?;
        let pieces = u64::from(self.num_partitions) * u64::from(self.num_groups);
        let mut piece = shape.to_vec();
        match piece.get_mut(self.partition_dim) {
            Some(s) if *s >= pieces => *s /= pieces,
            Some(s) => {
                return Err(LayoutError::InvalidShape {
                    family: FAMILY,
                    shape: shape.to_vec(),
                    reason: format!(
                        "dim{} = {s} cannot be cut into {pieces} pieces",
                        self.partition_dim
                    ),
                })
            }
            None => {
                return Err(invalid(
                    "partition_dim",
                    &self.partition_dim,
                    format!("not a dim of a rank-{} allocation", shape.len()),
                ))
            }
        }
        Ok(piece)
    }

    /// `base * partition * groups`, both along `partition_dim`.
    fn extend(&self, base: LinearLayout, rank: usize) -> Result<LinearLayout> {
        let outs = standard_out_dims(rank);
        let dim = outs
            .get(self.partition_dim)
            .copied()
            .ok_or_else(|| invalid("partition_dim", &self.partition_dim, "out of range".into()))?;
        let part = LinearLayout::identity_1d(u64::from(self.num_partitions), "partition", dim)?;
        let groups = LinearLayout::identity_1d(u64::from(self.num_groups), "offset", dim)?;
        base.product(&part)?.product(&groups)
    }

    fn validate(&self) -> Result<()> {
        if self.num_partitions < 2 || !self.num_partitions.is_power_of_two() {
            return Err(invalid(
                "num_partitions",
                &self.num_partitions,
                "must be a power of two and at least 2 (one partition is the piece layout \
                 itself)"
                    .into(),
            ));
        }
        if !self.num_groups.is_power_of_two() {
            return Err(invalid(
                "num_groups",
                &self.num_groups,
                "must be a power of two".into(),
            ));
        }
        if let SharedEncoding::Partitioned(_) = self.partition_layout.as_ref() {
            return Err(invalid(
                "partition_layout",
                &"partitioned_shared",
                "pieces cannot themselves be partitioned".into(),
            ));
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

impl Attribute for PartitionedShared {
    const NAME: &'static str = "#ttg.partitioned_shared";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = PartitionedShared::NAME;
        const KEYS: [&str; 4] = [
            "numPartitions",
            "numGroups",
            "partitionDim",
            "partitionLayout",
        ];
        let (mut parts, mut groups, mut dim, mut layout) = (None, None, None, None);
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "numPartitions" => parts = Some(p.int(A, key)?),
                "numGroups" => groups = Some(p.int(A, key)?),
                "partitionDim" => dim = Some(p.int(A, key)?),
                _ => {
                    p.cursor.skip_ws();
                    let at = p.cursor.pos();
                    match parse_attribute(p)? {
                        Encoding::Shared(s) => layout = Some(Box::new(s)),
                        _ => {
                            return Err(p.err_at(
                                A,
                                at,
                                "partitionLayout must be a shared-memory layout",
                            ))
                        }
                    }
                }
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        Ok(PartitionedShared {
            num_partitions: p.required(A, start, "numPartitions", parts)?,
            num_groups: p.required(A, start, "numGroups", groups)?,
            partition_dim: p.required(A, start, "partitionDim", dim)?,
            partition_layout: p.required(A, start, "partitionLayout", layout)?,
        })
    }

    fn print(&self, rank: usize) -> String {
        format!(
            "{}<{{numPartitions = {}, numGroups = {}, partitionDim = {}, partitionLayout = {}}}>",
            Self::NAME,
            self.num_partitions,
            self.num_groups,
            self.partition_dim,
            self.partition_layout.attribute().text(rank)
        )
    }
}
