//! [`Encoding`]: any family (or a plain linear layout) behind one `to_linear_layout(shape)`,
//! and the MLIR attribute text of every family, parsed and printed exactly as Triton 3.9
//! prints it in TTGIR:
//!
//! | attribute | [`Encoding`] |
//! |---|---|
//! | `#ttg.blocked<{sizePerThread = […], threadsPerWarp = […], warpsPerCTA = […], order = […]}>` | [`Blocked`] |
//! | `#ttg.slice<{dim = 1, parent = #ttg.blocked<{…}>}>` | [`Slice`] |
//! | `#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = […], instrShape = […]}>` | [`NvmmaDistributed`] |
//! | `#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{…}>, kWidth = 2}>` | [`DotOperand`] |
//! | `#ttg.linear<{register = […], lane = […], warp = […], block = […]}>` | [`DistributedEncoding::Linear`] |
//! | `#ttg.amd_mfma<{version = 3, warpsPerCTA = […], instrShape = [32, 32, 8], isTransposed = true}>` | [`AmdMfma`] |
//! | `#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = […]}}>` | [`AmdWmma`] |
//! | `#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>` | [`SwizzledShared`] |
//! | `#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>` | [`NvmmaShared`] |
//! | `#ttg.shared_linear<{offset = […], block = […]}, alignment = 16>` | [`SharedLinear`] |
//! | `#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>` | [`AmdRotatingShared`] |
//! | `#ttg.padded_shared<[256:+8] {order = [1, 0], shape = [16, 32]}>` | [`PaddedShared`] |
//! | `#ttg.partitioned_shared<{numPartitions = 2, numGroups = 4, partitionDim = 0, partitionLayout = #ttg.swizzled_shared<{…}>}>` | [`PartitionedShared`] |
//! | `#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>` | [`TensorMemory`] |
//! | `#ttng.tensor_memory_scales_encoding<>` | [`TensorMemoryScales`] |
//!
//! Each family's keys and printer sit beside its map (`impl Attribute for Blocked` in
//! `blocked.rs`, …). Printing follows Triton's printers key for key, defaults omitted as Triton
//! omits them: `CGALayout = [[…]]` only when a `cga_layout` is set (before `instrShape` in
//! `#ttg.nvidia_mma`, last elsewhere), `fp4Padded = true` and `twoCTAs = true` only when set,
//! `kWidth` only when non-zero, `block` of `#ttg.shared_linear` only when it has bases, and
//! `rank = N` of `#ttg.nvmma_shared` only when it is not 2 and there is no `CGALayout` to carry
//! it (see [`Encoding::to_mlir_for_rank`]).
//!
//! Parsing takes what a TTGIR dump holds: any whitespace, keys in any order, optional keys left
//! out (`versionMinor`, `transposed`, `fp4Padded`, `rank`, `kWidth`, `twoCTAs`, `CGALayout`,
//! `block` of `#ttg.shared_linear`), and an alias definition line `#blocked = #ttg.blocked<{…}>`.
//! It checks the text's structure (known keys, each once, lists of one rank) but not whether the
//! parameters make a layout: that is `to_linear_layout`'s job. A parent given by alias
//! (`parent = #blocked`) cannot be resolved from the attribute alone and is an error that says so.
//!
//! **Adding a family**: its file (the struct, its map, `impl Attribute` with its keys and
//! printer), then here a variant, its `to_linear_layout` and `attribute` arms, and one line of
//! `registry!` (which gives `Encoding::from` and the parser's entry); the compiler points at
//! each match that lacks it.
//!
//! ```
//! use linear_layout::families::{DistributedEncoding, Encoding};
//! let text = "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>";
//! let enc = Encoding::from_mlir(text)?;
//! assert!(matches!(&enc, Encoding::Distributed(DistributedEncoding::Slice(s)) if s.dim == 1));
//! assert_eq!(enc.to_mlir(), text);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use super::attribute::{Attribute, AttributeText};
use super::linear::{check_permutation, fit_linear, REGISTER_DIMS};
use super::nvmma::DEFAULT_RANK;
use super::{
    AmdMfma, AmdRotatingShared, AmdWmma, Blocked, DotOperand, NvmmaDistributed, NvmmaShared,
    PaddedShared, PartitionedShared, SharedLinear, Slice, SwizzledShared, TensorMemory,
    TensorMemoryScales,
};
use crate::text::attr::{AttrParser, ANY};
use crate::{LayoutError, LinearLayout, Result};

/// A register (distributed) layout: in-dims `register, lane, warp, block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistributedEncoding {
    /// `#ttg.blocked`.
    Blocked(Blocked),
    /// `#ttg.slice`.
    Slice(Slice),
    /// `#ttg.nvidia_mma` (v2 mma.sync, v3 wgmma).
    NvmmaDistributed(NvmmaDistributed),
    /// `#ttg.dot_op`.
    DotOperand(DotOperand),
    /// `#ttg.linear`: any layout with in-dims `register, lane, warp, block`.
    Linear(LinearLayout),
    /// `#ttg.amd_mfma` (CDNA matrix cores, 64-lane waves).
    AmdMfma(AmdMfma),
    /// `#ttg.amd_wmma` (RDNA / gfx1250 matrix cores, 32-lane waves).
    AmdWmma(AmdWmma),
}

/// A shared-memory layout: in-dims `offset, block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedEncoding {
    /// `#ttg.swizzled_shared`.
    Swizzled(SwizzledShared),
    /// `#ttg.nvmma_shared`.
    Nvmma(NvmmaShared),
    /// `#ttg.shared_linear`: any layout with in-dims `offset, block`, plus its alignment.
    Linear(SharedLinear),
    /// `#ttg.amd_rotating_shared`: swizzled, the phase rotating per block of rows.
    AmdRotating(AmdRotatingShared),
    /// `#ttg.padded_shared`: padding every `interval` elements over a linear component (no
    /// linear layout of its own, as in Triton).
    Padded(PaddedShared),
    /// `#ttg.partitioned_shared`: pieces over several buffers (in-dims `offset, block,
    /// partition`).
    Partitioned(PartitionedShared),
}

/// Any layout attribute a TTGIR dump can hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoding {
    /// Registers.
    Distributed(DistributedEncoding),
    /// Shared memory.
    Shared(SharedEncoding),
    /// `#ttng.tensor_memory_encoding`.
    TensorMemory(TensorMemory),
    /// `#ttng.tensor_memory_scales_encoding`.
    TensorMemoryScales(TensorMemoryScales),
}

impl DistributedEncoding {
    /// The layout for a tensor of `shape` (Triton's `toLinearLayout(shape, attr)`).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            DistributedEncoding::Blocked(b) => b.to_linear_layout(shape),
            DistributedEncoding::Slice(s) => s.to_linear_layout(shape),
            DistributedEncoding::NvmmaDistributed(m) => m.to_linear_layout(shape),
            DistributedEncoding::DotOperand(d) => d.to_linear_layout(shape),
            DistributedEncoding::Linear(l) => fit_linear(l, shape),
            DistributedEncoding::AmdMfma(m) => m.to_linear_layout(shape),
            DistributedEncoding::AmdWmma(w) => w.to_linear_layout(shape),
        }
    }
}

impl SharedEncoding {
    /// The layout for an allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            SharedEncoding::Swizzled(s) => s.to_linear_layout(shape),
            SharedEncoding::Nvmma(n) => n.to_linear_layout(shape),
            SharedEncoding::Linear(s) => s.to_linear_layout(shape),
            SharedEncoding::AmdRotating(r) => r.to_linear_layout(shape),
            SharedEncoding::Padded(p) => p.to_linear_layout(shape),
            SharedEncoding::Partitioned(p) => p.to_linear_layout(shape),
        }
    }

    /// Shared-memory alignment of an allocation in this layout, in bytes: 16 for
    /// [`SwizzledShared`], 1024 / 512 / 256 / 128 for [`NvmmaShared`] by swizzle width, the
    /// stored value for a `#ttg.shared_linear` layout (Gluon's `alignment`).
    ///
    /// ```
    /// use linear_layout::families::{NvmmaShared, SharedEncoding, SharedLinear, SwizzledShared};
    /// let nvmma = SharedEncoding::Nvmma(NvmmaShared::new(64, 16, false, false, vec![])?);
    /// assert_eq!(nvmma.alignment(), 512);
    /// let swizzled = SharedEncoding::Swizzled(SwizzledShared::new(8, 1, 8, vec![1, 0], vec![])?);
    /// assert_eq!(swizzled.alignment(), 16);
    /// let layout = swizzled.to_linear_layout(&[8, 8])?;
    /// let linear = SharedEncoding::Linear(SharedLinear { layout, alignment: 128 });
    /// assert_eq!(linear.alignment(), 128);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alignment(&self) -> u64 {
        match self {
            SharedEncoding::Swizzled(s) => s.alignment(),
            SharedEncoding::Nvmma(n) => n.alignment(),
            SharedEncoding::Linear(s) => s.alignment,
            SharedEncoding::AmdRotating(_) | SharedEncoding::Padded(_) => 16,
            // Triton's default for shared layouts: neither overrides `getAlignment`.
            SharedEncoding::Partitioned(_) => 16,
        }
    }
}

impl Encoding {
    /// The attribute Triton reads for a layout given by its bases: `#ttg.linear` for in-dims
    /// among `register, lane, warp, block` (a missing one printed empty), `#ttg.shared_linear`
    /// with `alignment` for `offset` and optionally `block` (Gluon's `SharedLinearLayout`
    /// defaults to 16). The out-dims must be `dim0…dimN-1` in order and the layout surjective
    /// (the attribute infers the sizes), and a `#ttg.linear` must pass Triton's verifier (a
    /// permutation once the broadcasts are removed). Errors: [`LayoutError::Invalid`] naming what
    /// has no attribute; [`LayoutError::InvalidParameter`] from the verifier.
    ///
    /// ```
    /// use linear_layout::{LinearLayout, families::Encoding};
    /// let offsets = LinearLayout::identity_1d(64, "offset", "dim0")?;
    /// assert_eq!(
    ///     Encoding::linear(&offsets, 16)?.to_mlir(),
    ///     "#ttg.shared_linear<{offset = [[1], [2], [4], [8], [16], [32]]}, alignment = 16>"
    /// );
    /// let lanes = LinearLayout::identity_1d(32, "lane", "dim0")?;
    /// assert_eq!(
    ///     Encoding::linear(&lanes, 16)?.to_mlir(),
    ///     "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = []}>"
    /// );
    /// let rows = LinearLayout::identity_1d(32, "row", "dim0")?;
    /// assert!(Encoding::linear(&rows, 16).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn linear(layout: &LinearLayout, alignment: u64) -> Result<Encoding> {
        let standard = layout
            .out_dims()
            .iter()
            .enumerate()
            .all(|(i, &(d, _))| d == crate::Dim::standard(i));
        let invalid = |what: String| LayoutError::Invalid {
            op: "to_mlir",
            what,
        };
        if !standard || !layout.is_surjective() {
            return Err(invalid(
                "a Triton layout attribute needs out-dims dim0..dimN-1 in order and a \
                 surjective layout"
                    .into(),
            ));
        }
        let names = layout.in_dim_names();
        let ins: Vec<&str> = names.iter().map(|d| d.name()).collect();
        if ins.iter().all(|d| REGISTER_DIMS.contains(d)) {
            check_permutation("linear", layout)?;
            return Ok(Encoding::Distributed(DistributedEncoding::Linear(
                layout.clone(),
            )));
        }
        if ins.first() == Some(&"offset") {
            let shared = SharedLinear::new(layout.clone(), alignment)?;
            return Ok(Encoding::Shared(SharedEncoding::Linear(shared)));
        }
        Err(invalid(format!(
            "no Triton attribute has in-dims {}: #ttg.linear takes register, lane, warp, \
             block and #ttg.shared_linear offset, block",
            ins.join(", ")
        )))
    }

    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            Encoding::Distributed(d) => d.to_linear_layout(shape),
            Encoding::Shared(s) => s.to_linear_layout(shape),
            Encoding::TensorMemory(t) => t.to_linear_layout(shape),
            Encoding::TensorMemoryScales(t) => t.to_linear_layout(shape),
        }
    }
}

// ----- attribute text ------------------------------------------------------------------------

/// One attribute the parser knows: its name and how to read the rest of it.
pub(crate) struct Registered {
    /// [`Attribute::NAME`].
    pub(crate) name: &'static str,
    /// [`Attribute::parse`], as an [`Encoding`].
    parse: fn(&mut AttrParser<'_>, usize) -> Result<Encoding>,
}

const fn registered<A: Attribute>() -> Registered
where
    Encoding: From<A>,
{
    Registered {
        name: A::NAME,
        parse: |p, start| A::parse(p, start).map(Encoding::from),
    }
}

/// `Encoding::from(family)` and the parser's entry for each family: one line per family, in the
/// order errors list them.
macro_rules! registry {
    ($($family:ty => $wrap:expr;)*) => {
        $(impl From<$family> for Encoding {
            fn from(family: $family) -> Encoding {
                let wrap: fn($family) -> Encoding = $wrap;
                wrap(family)
            }
        })*

        /// Every layout attribute the parser knows.
        pub(crate) const REGISTRY: &[Registered] = &[$(registered::<$family>()),*];
    };
}

registry! {
    Blocked => |f| Encoding::Distributed(DistributedEncoding::Blocked(f));
    Slice => |f| Encoding::Distributed(DistributedEncoding::Slice(f));
    NvmmaDistributed => |f| Encoding::Distributed(DistributedEncoding::NvmmaDistributed(f));
    DotOperand => |f| Encoding::Distributed(DistributedEncoding::DotOperand(f));
    LinearLayout => |f| Encoding::Distributed(DistributedEncoding::Linear(f));
    AmdMfma => |f| Encoding::Distributed(DistributedEncoding::AmdMfma(f));
    AmdWmma => |f| Encoding::Distributed(DistributedEncoding::AmdWmma(f));
    SwizzledShared => |f| Encoding::Shared(SharedEncoding::Swizzled(f));
    NvmmaShared => |f| Encoding::Shared(SharedEncoding::Nvmma(f));
    SharedLinear => |f| Encoding::Shared(SharedEncoding::Linear(f));
    AmdRotatingShared => |f| Encoding::Shared(SharedEncoding::AmdRotating(f));
    PaddedShared => |f| Encoding::Shared(SharedEncoding::Padded(f));
    PartitionedShared => |f| Encoding::Shared(SharedEncoding::Partitioned(f));
    TensorMemory => Encoding::TensorMemory;
    TensorMemoryScales => Encoding::TensorMemoryScales;
}

/// Any layout attribute, by the name it starts with.
pub(crate) fn parse_attribute(p: &mut AttrParser<'_>) -> Result<Encoding> {
    p.cursor.skip_ws();
    let start = p.cursor.pos();
    let name = p.cursor.hash_name();
    p.nested(start, |p| match REGISTRY.iter().find(|f| f.name == name) {
        Some(family) => (family.parse)(p, start),
        None => Err(unknown_attribute(p, name, start)),
    })
}

/// `parent = #ttg.…`: a register layout.
pub(crate) fn parse_parent(p: &mut AttrParser<'_>, attr: &str) -> Result<Box<DistributedEncoding>> {
    p.cursor.skip_ws();
    let start = p.cursor.pos();
    match parse_attribute(p)? {
        Encoding::Distributed(d) => Ok(Box::new(d)),
        other => Err(p.err_at(
            attr,
            start,
            format!(
                "parent must be a register layout, got {}",
                other.attribute().name()
            ),
        )),
    }
}

fn unknown_attribute(p: &AttrParser<'_>, name: &str, start: usize) -> LayoutError {
    match name {
        "" => p.err(
            ANY,
            format!(
                "expected a layout attribute such as #ttg.blocked<…>, found {}",
                p.cursor.found()
            ),
        ),
        alias if !alias.contains('.') => p.err_at(
            ANY,
            start,
            format!(
                "{alias} is an alias: give the attribute it names (the right-hand side of its \
                 '{alias} = …' line)"
            ),
        ),
        other => {
            let names: Vec<&str> = REGISTRY.iter().map(|f| f.name).collect();
            p.err_at(
                ANY,
                start,
                format!(
                    "unknown attribute '{other}' (expected one of {})",
                    names.join(", ")
                ),
            )
        }
    }
}

impl DistributedEncoding {
    /// The family behind the encoding, as attribute text.
    pub(crate) fn attribute(&self) -> &dyn AttributeText {
        match self {
            DistributedEncoding::Blocked(b) => b,
            DistributedEncoding::Slice(s) => s,
            DistributedEncoding::NvmmaDistributed(m) => m,
            DistributedEncoding::DotOperand(d) => d,
            DistributedEncoding::Linear(l) => l,
            DistributedEncoding::AmdMfma(m) => m,
            DistributedEncoding::AmdWmma(w) => w,
        }
    }
}

impl SharedEncoding {
    /// The family behind the encoding, as attribute text.
    pub(crate) fn attribute(&self) -> &dyn AttributeText {
        match self {
            SharedEncoding::Swizzled(s) => s,
            SharedEncoding::Nvmma(n) => n,
            SharedEncoding::Linear(l) => l,
            SharedEncoding::AmdRotating(r) => r,
            SharedEncoding::Padded(p) => p,
            SharedEncoding::Partitioned(p) => p,
        }
    }
}

impl Encoding {
    /// The family behind the encoding, as attribute text.
    fn attribute(&self) -> &dyn AttributeText {
        match self {
            Encoding::Distributed(d) => d.attribute(),
            Encoding::Shared(s) => s.attribute(),
            Encoding::TensorMemory(t) => t,
            Encoding::TensorMemoryScales(t) => t,
        }
    }

    /// Parses one layout attribute as Triton 3.9 prints it (see the [module docs](self) for
    /// the forms), or an alias definition line `#name = #ttg.…<…>` (its right-hand side).
    ///
    /// `#ttg.nvmma_shared`'s `rank = N` is checked and dropped: [`NvmmaShared`] takes its rank
    /// from the shape. `#ttg.linear` and `#ttg.shared_linear` give layouts with in-dims
    /// `register, lane, warp, block` and `offset, block` (in that order, whatever the text's
    /// order) and out-dims `dim0…` sized by their bases, as Triton builds them.
    ///
    /// Errors: [`LayoutError::Parse`] naming the attribute, the key, the column and the
    /// offending token — an unknown attribute or key, a key given twice, a missing key, a value
    /// of the wrong kind or out of range, lists of different ranks, a parent that is not a
    /// register layout (or is an alias), bases that do not make a surjective layout.
    ///
    /// ```
    /// use linear_layout::families::{Blocked, DistributedEncoding, Encoding};
    /// let enc = Encoding::from_mlir(
    ///     "#blocked = #ttg.blocked<{order = [1, 0], sizePerThread = [1, 4],\n  threadsPerWarp = [8, 4], warpsPerCTA = [2, 2]}>",
    /// )?;
    /// assert_eq!(
    ///     enc,
    ///     Encoding::Distributed(DistributedEncoding::Blocked(Blocked {
    ///         size_per_thread: vec![1, 4],
    ///         threads_per_warp: vec![8, 4],
    ///         warps_per_cta: vec![2, 2],
    ///         order: vec![1, 0],
    ///         cga_layout: vec![],
    ///     }))
    /// );
    /// let err = Encoding::from_mlir("#ttg.blocked<{sizePerThreads = [1, 4]}>").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "parse error: #ttg.blocked, column 15: unknown key 'sizePerThreads' (expected one of \
    ///      sizePerThread, threadsPerWarp, warpsPerCTA, order, CGALayout)"
    /// );
    /// let err = Encoding::from_mlir("#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4}>");
    /// assert!(err.unwrap_err().to_string().ends_with("missing key 'order'"));
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn from_mlir(text: &str) -> Result<Encoding> {
        AttrParser::whole(text, |p| {
            p.alias_definition();
            parse_attribute(p)
        })
    }

    /// The attribute exactly as Triton 3.9 prints it, for a rank-2 tensor or allocation (the
    /// only case where the rank matters is `#ttg.nvmma_shared` without a `CGALayout`; use
    /// [`Encoding::to_mlir_for_rank`] for other ranks).
    ///
    /// A linear layout Triton could not hold (in-dims other than `register, lane, warp, block`
    /// or `offset, block`, out-dims not `dim0…`, not surjective) prints its bases for those
    /// in-dims all the same; parsing that text gives the layout Triton would build from them.
    ///
    /// ```
    /// use linear_layout::families::{Encoding, SharedEncoding, SwizzledShared};
    /// let enc = Encoding::Shared(SharedEncoding::Swizzled(SwizzledShared {
    ///     vec: 8,
    ///     per_phase: 1,
    ///     max_phase: 4,
    ///     order: vec![1, 0],
    ///     cga_layout: vec![vec![0, 1]],
    /// }));
    /// assert_eq!(
    ///     enc.to_mlir(),
    ///     "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0], CGALayout = [[0, 1]]}>"
    /// );
    /// assert_eq!(Encoding::from_mlir(&enc.to_mlir())?, enc);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_mlir(&self) -> String {
        self.to_mlir_for_rank(DEFAULT_RANK)
    }

    /// The attribute exactly as Triton 3.9 prints it on a tensor or allocation of rank `rank`:
    /// `#ttg.nvmma_shared` without a `CGALayout` carries `rank = N` when `N` is not 2. Every other
    /// attribute holds its rank in its own lists and prints as [`Encoding::to_mlir`].
    ///
    /// ```
    /// use linear_layout::families::{Encoding, NvmmaShared, SharedEncoding};
    /// let enc = Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared {
    ///     swizzle_byte_width: 128,
    ///     element_bitwidth: 8,
    ///     transposed: false,
    ///     fp4_padded: true,
    ///     cga_layout: vec![],
    ///     rank: Some(3),
    /// }));
    /// assert_eq!(
    ///     enc.to_mlir_for_rank(3),
    ///     "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8, fp4Padded = true, rank = 3}>"
    /// );
    /// // An attribute with its own rank prints it whatever rank is asked for.
    /// assert_eq!(enc.to_mlir(), enc.to_mlir_for_rank(3));
    /// assert_eq!(Encoding::from_mlir(&enc.to_mlir_for_rank(3))?, enc);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_mlir_for_rank(&self, rank: usize) -> String {
        self.attribute().text(rank)
    }
}

impl FromStr for Encoding {
    type Err = LayoutError;

    /// [`Encoding::from_mlir`].
    ///
    /// ```
    /// use linear_layout::families::Encoding;
    /// let enc: Encoding = "#ttng.tensor_memory_scales_encoding<>".parse()?;
    /// assert!(matches!(enc, Encoding::TensorMemoryScales(_)));
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    fn from_str(text: &str) -> Result<Encoding> {
        Encoding::from_mlir(text)
    }
}

impl fmt::Display for Encoding {
    /// [`Encoding::to_mlir`].
    ///
    /// ```
    /// use linear_layout::families::{Encoding, TensorMemory};
    /// let enc = Encoding::TensorMemory(TensorMemory {
    ///     block_m: 128,
    ///     block_n: 64,
    ///     col_stride: 1,
    ///     cga_layout: vec![vec![1, 0]],
    ///     two_ctas: true,
    ///     fp4_padded: false,
    /// });
    /// assert_eq!(
    ///     enc.to_string(),
    ///     "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = [[1, 0]], twoCTAs = true>"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_mlir())
    }
}
