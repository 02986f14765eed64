//! [`GluonLayout`]: a layout as Gluon's constructor takes it — the class's fields by Gluon's
//! names (Triton 3.9.0, `triton/experimental/gluon/language/_layouts.py` and its
//! `nvidia/blackwell`, `amd` modules) — and the [`Encoding`] it stands for.
//!
//! The JSON form is `{"kind": K, …fields}`, one `kind` per Gluon class:
//!
//! | `kind` | Gluon class |
//! |---|---|
//! | `blocked` | `BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order, cga_layout=[])` |
//! | `slice` | `SliceLayout(dim, parent)` |
//! | `nvidia_mma` | `NVMMADistributedLayout(version, warps_per_cta, instr_shape, cga_layout=[])` |
//! | `dot_operand` | `DotOperandLayout(operand_index, parent, k_width)` |
//! | `linear` | `DistributedLinearLayout(reg_bases, lane_bases, warp_bases, block_bases, shape)` |
//! | `swizzled_shared` | `SwizzledSharedLayout(vec, per_phase, max_phase, order, cga_layout=[])` |
//! | `nvmma_shared` | `NVMMASharedLayout(swizzle_byte_width, element_bitwidth, rank=2, transposed=False, fp4_padded=False, cga_layout=[])` |
//! | `shared_linear` | `SharedLinearLayout(offset_bases, block_bases=[], alignment=16)` |
//! | `padded_shared` | `PaddedSharedLayout(interval_padding_pairs, offset_bases, cga_layout, shape)` |
//! | `partitioned_shared` | `PartitionedSharedLayout(num_partitions, num_groups, partition_dim, partition_layout)` (`amd.cdna5`) |
//! | `tensor_memory` | `TensorMemoryLayout(block, col_stride, cga_layout=[], two_ctas=False, fp4_padded=False)` (`nvidia.blackwell`) |
//! | `tensor_memory_scales` | `TensorMemoryScalesLayout(cga_layout=[])` (`nvidia.blackwell`) |
//! | `amd_mfma` | `AMDMFMALayout(version, instr_shape, transposed, warps_per_cta, element_bitwidth=None, tiles_per_warp=None, cga_layout=[])` (`amd`) |
//! | `amd_wmma` | `AMDWMMALayout(version, transposed, warp_bases, reg_bases=None, instr_shape=None, cga_layout=[], rank=None)` (`amd`) |
//!
//! Defaults are Gluon's (`element_bitwidth` 32 and one tile per warp for MFMA, no register
//! bases, a 16×16×16 instruction and rank 2 for WMMA). The golden files of
//! `tools/gen_family_goldens.py` name a few fields shorter (`register`, `lane`, `warp`, `block`
//! of a linear layout; `offset`, `block` of a shared linear one); both spellings are read.
//!
//! ```
//! use linear_layout::families::{Encoding, GluonLayout};
//! let spec: GluonLayout = serde_json::from_str(
//!     r#"{"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4],
//!         "warps_per_cta": [2, 2], "order": [1, 0]}"#,
//! )?;
//! let enc = spec.to_encoding()?;
//! assert_eq!(
//!     enc.to_mlir(),
//!     "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::families::{
    AmdMfma, AmdWmma, Blocked, DistributedEncoding, DotOperand, Encoding, NvmmaDistributed,
    NvmmaShared, PaddedShared, PartitionedShared, SharedEncoding, SharedLinear, Slice,
    SwizzledShared, TensorMemory, TensorMemoryScales,
};
use crate::{Dim, LayoutError, LinearLayout, Result};

/// One Gluon layout object, by its class's fields (see the module docs for the table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)] // the fields are Gluon's, documented in the module's table
pub enum GluonLayout {
    /// `BlockedLayout`.
    Blocked {
        size_per_thread: Vec<u32>,
        threads_per_warp: Vec<u32>,
        warps_per_cta: Vec<u32>,
        order: Vec<usize>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `SliceLayout`.
    Slice {
        dim: usize,
        parent: Box<GluonLayout>,
    },
    /// `NVMMADistributedLayout`: `version` is `[major, minor]`.
    #[serde(rename = "nvidia_mma")]
    NvmmaDistributed {
        version: Vec<u32>,
        warps_per_cta: Vec<u32>,
        instr_shape: Vec<u32>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `DotOperandLayout`.
    DotOperand {
        operand_index: u32,
        parent: Box<GluonLayout>,
        k_width: u32,
    },
    /// `DistributedLinearLayout`: bases of `register, lane, warp, block` over `dim0…` sized
    /// by `shape`.
    Linear {
        #[serde(alias = "register")]
        reg_bases: Vec<Vec<u64>>,
        #[serde(alias = "lane")]
        lane_bases: Vec<Vec<u64>>,
        #[serde(alias = "warp")]
        warp_bases: Vec<Vec<u64>>,
        #[serde(alias = "block")]
        block_bases: Vec<Vec<u64>>,
        shape: Vec<u64>,
    },
    /// `SwizzledSharedLayout`.
    SwizzledShared {
        vec: u32,
        per_phase: u32,
        max_phase: u32,
        order: Vec<usize>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `NVMMASharedLayout`.
    NvmmaShared {
        swizzle_byte_width: u32,
        element_bitwidth: u32,
        #[serde(default = "two")]
        rank: usize,
        #[serde(default)]
        transposed: bool,
        #[serde(default)]
        fp4_padded: bool,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `SharedLinearLayout`: bases of `offset, block`; each `dimK` as large as its bases reach.
    SharedLinear {
        #[serde(alias = "offset")]
        offset_bases: Vec<Vec<u64>>,
        #[serde(default, alias = "block")]
        block_bases: Vec<Vec<u64>>,
        #[serde(default = "sixteen")]
        alignment: u64,
    },
    /// `PaddedSharedLayout`: `[interval, padding]` pairs over a linear component of
    /// `offset, block` (`cga_layout`) bases sized by `shape`, checked as Gluon's constructor
    /// checks it ([`PaddedShared::new`]).
    PaddedShared {
        interval_padding_pairs: Vec<Vec<u64>>,
        offset_bases: Vec<Vec<u64>>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
        shape: Vec<u64>,
    },
    /// `PartitionedSharedLayout` (`amd.cdna5`).
    PartitionedShared {
        num_partitions: u32,
        num_groups: u32,
        partition_dim: usize,
        partition_layout: Box<GluonLayout>,
    },
    /// `TensorMemoryLayout` (`nvidia.blackwell`): `block` is `(M, N)`.
    TensorMemory {
        block: Vec<u32>,
        col_stride: u32,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
        #[serde(default)]
        two_ctas: bool,
        #[serde(default)]
        fp4_padded: bool,
    },
    /// `TensorMemoryScalesLayout` (`nvidia.blackwell`).
    TensorMemoryScales {
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `AMDMFMALayout` (`amd`).
    AmdMfma {
        version: u32,
        instr_shape: Vec<u32>,
        transposed: bool,
        warps_per_cta: Vec<u32>,
        #[serde(default)]
        element_bitwidth: Option<u32>,
        #[serde(default)]
        tiles_per_warp: Option<Vec<u32>>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
    },
    /// `AMDWMMALayout` (`amd`).
    AmdWmma {
        version: u32,
        transposed: bool,
        warp_bases: Vec<Vec<u64>>,
        #[serde(default)]
        reg_bases: Option<Vec<Vec<u64>>>,
        #[serde(default)]
        instr_shape: Option<Vec<u32>>,
        #[serde(default)]
        cga_layout: Vec<Vec<u64>>,
        #[serde(default)]
        rank: Option<usize>,
    },
}

fn two() -> usize {
    2
}

fn sixteen() -> u64 {
    16
}

/// `dim0…` sized by `shape`.
fn standard_dims(shape: &[u64]) -> Vec<(Dim, u64)> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (Dim::standard(i), s))
        .collect()
}

impl GluonLayout {
    /// The Gluon class this spec stands for (`BlockedLayout`, …).
    ///
    /// ```
    /// use linear_layout::families::GluonLayout;
    /// let l = GluonLayout::TensorMemoryScales { cga_layout: vec![] };
    /// assert_eq!(l.class_name(), "TensorMemoryScalesLayout");
    /// ```
    pub fn class_name(&self) -> &'static str {
        match self {
            GluonLayout::Blocked { .. } => "BlockedLayout",
            GluonLayout::Slice { .. } => "SliceLayout",
            GluonLayout::NvmmaDistributed { .. } => "NVMMADistributedLayout",
            GluonLayout::DotOperand { .. } => "DotOperandLayout",
            GluonLayout::Linear { .. } => "DistributedLinearLayout",
            GluonLayout::SwizzledShared { .. } => "SwizzledSharedLayout",
            GluonLayout::NvmmaShared { .. } => "NVMMASharedLayout",
            GluonLayout::SharedLinear { .. } => "SharedLinearLayout",
            GluonLayout::PaddedShared { .. } => "PaddedSharedLayout",
            GluonLayout::PartitionedShared { .. } => "PartitionedSharedLayout",
            GluonLayout::TensorMemory { .. } => "TensorMemoryLayout",
            GluonLayout::TensorMemoryScales { .. } => "TensorMemoryScalesLayout",
            GluonLayout::AmdMfma { .. } => "AMDMFMALayout",
            GluonLayout::AmdWmma { .. } => "AMDWMMALayout",
        }
    }

    /// The encoding this Gluon object builds. Checks what the fields' shapes need (a
    /// `version` of one or two numbers, a `block` of two, pairs of two, a distributed parent
    /// and a shared partition layout); whether the parameters make a layout is
    /// [`Encoding::to_linear_layout`]'s job, as it is Triton's.
    ///
    /// # Errors
    /// [`LayoutError::InvalidParameter`] naming the class and the field; the errors of
    /// [`LinearLayout::from_bases`] for the bases of a linear or WMMA layout, and of
    /// [`PaddedShared::new`].
    ///
    /// ```
    /// use linear_layout::families::GluonLayout;
    /// let huge = GluonLayout::SharedLinear { offset_bases: vec![vec![1 << 63]], block_bases: vec![], alignment: 16 };
    /// assert!(huge.to_encoding().is_err());
    /// let bad = GluonLayout::TensorMemory {
    ///     block: vec![128], col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false,
    /// };
    /// let err = bad.to_encoding().unwrap_err().to_string();
    /// assert!(err.contains("TensorMemoryLayout") && err.contains("block"), "{err}");
    /// ```
    pub fn to_encoding(&self) -> Result<Encoding> {
        let kind = self.class_name();
        Ok(match self {
            GluonLayout::Blocked {
                size_per_thread,
                threads_per_warp,
                warps_per_cta,
                order,
                cga_layout,
            } => Encoding::Distributed(DistributedEncoding::Blocked(Blocked {
                size_per_thread: size_per_thread.clone(),
                threads_per_warp: threads_per_warp.clone(),
                warps_per_cta: warps_per_cta.clone(),
                order: order.clone(),
                cga_layout: cga_layout.clone(),
            })),
            GluonLayout::Slice { dim, parent } => {
                Encoding::Distributed(DistributedEncoding::Slice(Slice {
                    dim: *dim,
                    parent: Box::new(parent.distributed(kind)?),
                }))
            }
            GluonLayout::NvmmaDistributed {
                version,
                warps_per_cta,
                instr_shape,
                cga_layout,
            } => {
                let (major, minor) = match version.as_slice() {
                    [major] => (*major, 0),
                    [major, minor] => (*major, *minor),
                    _ => {
                        return Err(LayoutError::invalid_parameter(
                            kind,
                            "version",
                            version,
                            "must be [major, minor]",
                        ))
                    }
                };
                Encoding::Distributed(DistributedEncoding::NvmmaDistributed(NvmmaDistributed {
                    version_major: major,
                    version_minor: minor,
                    warps_per_cta: warps_per_cta.clone(),
                    instr_shape: instr_shape.clone(),
                    cga_layout: cga_layout.clone(),
                }))
            }
            GluonLayout::DotOperand {
                operand_index,
                parent,
                k_width,
            } => Encoding::Distributed(DistributedEncoding::DotOperand(DotOperand {
                operand_index: *operand_index,
                parent: Box::new(parent.distributed(kind)?),
                k_width: *k_width,
            })),
            GluonLayout::Linear {
                reg_bases,
                lane_bases,
                warp_bases,
                block_bases,
                shape,
            } => Encoding::Distributed(DistributedEncoding::Linear(LinearLayout::from_bases(
                &[
                    ("register", reg_bases.clone()),
                    ("lane", lane_bases.clone()),
                    ("warp", warp_bases.clone()),
                    ("block", block_bases.clone()),
                ],
                &standard_dims(shape),
                false,
            )?)),
            GluonLayout::SwizzledShared {
                vec,
                per_phase,
                max_phase,
                order,
                cga_layout,
            } => Encoding::Shared(SharedEncoding::Swizzled(SwizzledShared {
                vec: *vec,
                per_phase: *per_phase,
                max_phase: *max_phase,
                order: order.clone(),
                cga_layout: cga_layout.clone(),
            })),
            GluonLayout::NvmmaShared {
                swizzle_byte_width,
                element_bitwidth,
                rank,
                transposed,
                fp4_padded,
                cga_layout,
            } => Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared {
                swizzle_byte_width: *swizzle_byte_width,
                element_bitwidth: *element_bitwidth,
                transposed: *transposed,
                fp4_padded: *fp4_padded,
                cga_layout: cga_layout.clone(),
                rank: Some(*rank),
            })),
            GluonLayout::SharedLinear {
                offset_bases,
                block_bases,
                alignment,
            } => {
                // The attribute's sizes are what its bases reach (it is surjective).
                let rank = offset_bases.first().map_or(0, Vec::len);
                let outs = (0..rank)
                    .map(|d| {
                        let reach = offset_bases
                            .iter()
                            .chain(block_bases)
                            .fold(0, |a, b| a | b.get(d).copied().unwrap_or(0));
                        let size = reach
                            .checked_add(1)
                            .and_then(u64::checked_next_power_of_two);
                        size.map(|s| (Dim::standard(d), s)).ok_or_else(|| {
                            LayoutError::invalid_parameter(
                                kind,
                                "offset_bases",
                                &reach,
                                "a basis reaches past the largest dimension (2^63)",
                            )
                        })
                    })
                    .collect::<Result<Vec<(Dim, u64)>>>()?;
                let layout = LinearLayout::from_bases(
                    &[
                        ("offset", offset_bases.clone()),
                        ("block", block_bases.clone()),
                    ],
                    &outs,
                    false,
                )?;
                Encoding::Shared(SharedEncoding::Linear(SharedLinear {
                    layout,
                    alignment: *alignment,
                }))
            }
            GluonLayout::PaddedShared {
                interval_padding_pairs,
                offset_bases,
                cga_layout,
                shape,
            } => {
                let pairs = interval_padding_pairs
                    .iter()
                    .map(|p| match p.as_slice() {
                        [interval, padding] => Ok((*interval, *padding)),
                        _ => Err(LayoutError::invalid_parameter(
                            kind,
                            "interval_padding_pairs",
                            p,
                            "each entry must be [interval, padding]",
                        )),
                    })
                    .collect::<Result<Vec<_>>>()?;
                Encoding::Shared(SharedEncoding::Padded(PaddedShared::new(
                    &pairs,
                    offset_bases,
                    cga_layout,
                    shape,
                )?))
            }
            GluonLayout::PartitionedShared {
                num_partitions,
                num_groups,
                partition_dim,
                partition_layout,
            } => {
                let Encoding::Shared(inner) = partition_layout.to_encoding()? else {
                    return Err(LayoutError::invalid_parameter(
                        kind,
                        "partition_layout",
                        partition_layout.class_name(),
                        "must be a shared layout",
                    ));
                };
                Encoding::Shared(SharedEncoding::Partitioned(PartitionedShared {
                    num_partitions: *num_partitions,
                    num_groups: *num_groups,
                    partition_dim: *partition_dim,
                    partition_layout: Box::new(inner),
                }))
            }
            GluonLayout::TensorMemory {
                block,
                col_stride,
                cga_layout,
                two_ctas,
                fp4_padded,
            } => {
                let [block_m, block_n] = block.as_slice() else {
                    return Err(LayoutError::invalid_parameter(
                        kind,
                        "block",
                        block,
                        "must be (M, N)",
                    ));
                };
                Encoding::TensorMemory(TensorMemory {
                    block_m: *block_m,
                    block_n: *block_n,
                    col_stride: *col_stride,
                    cga_layout: cga_layout.clone(),
                    two_ctas: *two_ctas,
                    fp4_padded: *fp4_padded,
                })
            }
            GluonLayout::TensorMemoryScales { cga_layout } => {
                Encoding::TensorMemoryScales(TensorMemoryScales {
                    cga_layout: cga_layout.clone(),
                    k_then_mn: false,
                })
            }
            GluonLayout::AmdMfma {
                version,
                instr_shape,
                transposed,
                warps_per_cta,
                element_bitwidth,
                tiles_per_warp,
                cga_layout,
            } => Encoding::Distributed(DistributedEncoding::AmdMfma(AmdMfma {
                version: *version,
                warps_per_cta: warps_per_cta.clone(),
                instr_shape: instr_shape.clone(),
                transposed: *transposed,
                tiles_per_warp: tiles_per_warp
                    .clone()
                    .unwrap_or_else(|| vec![1; warps_per_cta.len()]),
                element_bitwidth: element_bitwidth.unwrap_or(32),
                cga_layout: cga_layout.clone(),
            })),
            GluonLayout::AmdWmma {
                version,
                transposed,
                warp_bases,
                reg_bases,
                instr_shape,
                cga_layout,
                rank,
            } => {
                let outs: Vec<Dim> = (0..rank.unwrap_or(2)).map(Dim::standard).collect();
                let cta_layout = LinearLayout::from_bases_inferred(
                    &[
                        ("register", reg_bases.clone().unwrap_or_default()),
                        ("warp", warp_bases.clone()),
                    ],
                    &outs,
                )?;
                Encoding::Distributed(DistributedEncoding::AmdWmma(AmdWmma {
                    version: *version,
                    transposed: *transposed,
                    cta_layout,
                    instr_shape: instr_shape.clone().unwrap_or_else(|| vec![16, 16, 16]),
                    cga_layout: cga_layout.clone(),
                }))
            }
        })
    }

    /// This layout as the distributed parent of `child` (a slice or a dot operand).
    fn distributed(&self, child: &'static str) -> Result<DistributedEncoding> {
        match self.to_encoding()? {
            Encoding::Distributed(d) => Ok(d),
            _ => Err(LayoutError::invalid_parameter(
                child,
                "parent",
                self.class_name(),
                "must be a distributed layout",
            )),
        }
    }
}
