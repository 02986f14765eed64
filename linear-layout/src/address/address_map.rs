//! [`AddressMap`]: `addr(i, x) = base + B(i) + E(x)`, what the allocator hands to codegen.

use std::fmt;

use super::element::{bit_shift, memory_inverse, to_bytes};
use super::space::{Address, MemorySpace};
use super::swizzle::HardwareSwizzle;
use super::BufferMap;
use crate::families::{SharedEncoding, TensorMemory};
use crate::{Dim, Evaluator, LayoutError, LinearLayout, Result};

const FAMILY: &str = "address_map";

/// Largest TMEM column an [`Address::Tensor`] can hold: the 16-bit column field of `taddr`.
const MAX_TMEM_COLUMN: u64 = 0xFFFF;

/// The address of element `x` (tensor coordinates) of buffer `i` of an allocation:
/// `addr(i, x) = base + B(i) + E(x)`, with `base + B(i)` a [`BufferMap`] (integer, any radix)
/// and `E` a GF(2) [`LinearLayout`] from the coordinates to a memory position.
///
/// * **Shared memory** ([`AddressMap::shared`], [`AddressMap::from_shared_encoding`]): `E` maps
///   the coordinates to an element offset; byte `base + B(i) + (element_bits · E(x)) / 8`
///   (sub-byte elements share a byte). For a swizzled [`NvmmaShared`](crate::families::NvmmaShared)
///   the map also knows the [`HardwareSwizzle`], and [`address_outside`](Self::address_outside)
///   gives the address the hardware computes, `Sw(base + B(i) + element_bytes · Lin(x))`.
/// * **Tensor memory** ([`AddressMap::tensor_memory`]): `E` maps the coordinates to a lane and
///   a 32-bit column; the buffer part moves columns only: `(lane, base + B(i) + column)`.
///
/// ```
/// use linear_layout::{Address, AddressMap, BufferMap, families::{NvmmaShared, SharedEncoding}};
/// // A 3-stage ring of bf16 128 × 64 tiles (16 KiB each) with 128-byte swizzling.
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let ring = AddressMap::from_shared_encoding(BufferMap::new(0, &[(3, 16384)])?, 16, &enc, &[128, 64])?;
/// // Element (1, 8) of stage 1: row 1 swaps 16-byte chunks 0 and 1, so it sits at byte 128.
/// assert_eq!(ring.address(1, &[1, 8])?, Address::Shared { byte: 16384 + 128 });
/// assert_eq!(ring.address_outside(1, &[1, 8])?, ring.address(1, &[1, 8])?);
/// assert_eq!(ring.required_alignment(), 1024);
/// assert!(ring.check_alignment().is_ok());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AddressMap {
    space: MemorySpace,
    buffer: BufferMap,
    element_bits: u32,
    /// `E`: coordinates → `offset` (elements) or `lane, column`.
    element: LinearLayout,
    eval: Evaluator,
    hardware: Option<HardwareSwizzle>,
    /// The encoding's own alignment (1 when built from a plain layout).
    encoding_alignment: u64,
}

impl PartialEq for AddressMap {
    fn eq(&self, other: &Self) -> bool {
        self.space == other.space
            && self.buffer == other.buffer
            && self.element_bits == other.element_bits
            && self.element == other.element
            && self.hardware == other.hardware
            && self.encoding_alignment == other.encoding_alignment
    }
}

impl Eq for AddressMap {}

impl AddressMap {
    /// A shared-memory map from a shared layout as the families return it: in-dim `offset`
    /// (elements) and optionally a size-1 `block`, out-dims the tile coordinates (`dim0`,
    /// `dim1`, …). `E` is its inverse; a layout with padding offsets (zero bases) is inverted
    /// on the other offsets. `address` takes the coordinates in the layout's out-dim order.
    ///
    /// Errors ([`LayoutError::InvalidParameter`]): `element_bits` not a power of two in
    /// `1..=64`; other in-dims, or a `block` with more than one CTA. A layout that is not
    /// invertible (up to padding): [`LayoutError::NotInjective`] / [`LayoutError::NotSurjective`].
    ///
    /// ```
    /// use linear_layout::{Address, AddressMap, BufferMap, LinearLayout, LayoutError};
    /// // 4 × 4 f32, rows XOR-swizzled by the row index.
    /// let l = LinearLayout::from_bases(
    ///     &[("offset", vec![vec![0, 1], vec![0, 2], vec![1, 1], vec![2, 2]])],
    ///     &[("dim0", 4), ("dim1", 4)], true)?;
    /// let map = AddressMap::shared(BufferMap::new(256, &[(2, 64)])?, 32, &l)?;
    /// // (1, 1): row 1 flips column bit 0, so it is element 4 — byte 16 of buffer 1 (at 320).
    /// assert_eq!(map.address(1, &[1, 1])?, Address::Shared { byte: 336 });
    /// assert_eq!(map.to_string(), "smem 256 + (2):(64) + 4·E(x); E: [dim0 4, dim1 4] → [offset 16]");
    /// let not_inv = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![0, 1]])], &[("dim0", 1), ("dim1", 2)], false)?;
    /// assert!(AddressMap::shared(BufferMap::new(0, &[])?, 32, &not_inv).is_err());
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn shared(buffer: BufferMap, element_bits: u32, layout: &LinearLayout) -> Result<Self> {
        if !element_bits.is_power_of_two() || element_bits > 64 {
            return Err(LayoutError::invalid_parameter(
                FAMILY,
                "element_bits",
                &element_bits,
                "shared-memory elements are 1, 2, 4, 8, 16, 32 or 64 bits",
            ));
        }
        let element = memory_inverse(layout, &["offset"])?;
        AddressMap::build(MemorySpace::Shared, buffer, element_bits, element, None, 1)
    }

    /// The map of `buffers` buffers of a shared `layout` (in-dim `offset`), each starting on the
    /// layout's alignment: built from its `encoding` where that is an NVMMA or swizzled
    /// attribute (which know the hardware's swizzle), else from the layout alone. What
    /// `linalias ptx --mem` and the Python `linalias.ptx` address.
    ///
    /// # Errors
    /// `buffers` of 0 ([`LayoutError::InvalidParameter`]); what [`AddressMap::shared`] and
    /// [`AddressMap::from_shared_encoding`] refuse.
    ///
    /// ```
    /// use linear_layout::families::Encoding;
    /// use linear_layout::AddressMap;
    /// let enc = Encoding::from_mlir("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>")?;
    /// let layout = enc.to_linear_layout(&[64, 64])?;
    /// let map = AddressMap::of_shared_buffers(&layout, Some(&enc), 16, 2)?;
    /// assert_eq!(map.element_span(), 8192);
    /// assert!(AddressMap::of_shared_buffers(&layout, Some(&enc), 16, 0).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn of_shared_buffers(
        layout: &LinearLayout,
        encoding: Option<&crate::families::Encoding>,
        element_bits: u32,
        buffers: u64,
    ) -> Result<Self> {
        use crate::families::{Encoding, SharedEncoding};
        if buffers == 0 {
            return Err(LayoutError::invalid_parameter(
                FAMILY,
                "buffers",
                &buffers,
                "at least 1",
            ));
        }
        let one = BufferMap::new(0, &[])?;
        let map = match encoding {
            Some(Encoding::Shared(
                enc @ (SharedEncoding::Nvmma(_) | SharedEncoding::Swizzled(_)),
            )) => {
                let shape: Vec<u64> = layout.out_dims().iter().map(|&(_, s)| s).collect();
                AddressMap::from_shared_encoding(one, element_bits, enc, &shape)?
            }
            _ => AddressMap::shared(one, element_bits, layout)?,
        };
        let align = map.required_alignment().max(1);
        let stride = map.element_span().div_ceil(align).saturating_mul(align);
        Ok(map.with_buffer(BufferMap::new(0, &[(buffers, stride)])?))
    }

    /// A shared-memory map for an allocation of `shape` (one buffer) in `enc`, as
    /// [`shared`](Self::shared) with `enc.to_linear_layout(shape)`, which also records the
    /// encoding's alignment and, for a swizzled [`NvmmaShared`](crate::families::NvmmaShared),
    /// the [`HardwareSwizzle`] (where it agrees with the layout; see there for the parameter
    /// sets where it does not).
    ///
    /// Errors: those of [`shared`](Self::shared) and of the encoding's `to_linear_layout`;
    /// [`LayoutError::InvalidParameter`] when `element_bits` differs from an NVMMA encoding's.
    ///
    /// ```
    /// use linear_layout::{Address, AddressMap, BufferMap, LayoutError, families::{NvmmaShared, SharedEncoding}};
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(64, 16, false, false, vec![])?);
    /// // Two fp16 16 × 64 tiles (2 KiB each), the second at byte 2048 + 64: off the 512-byte
    /// // swizzle repeat.
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(2, 2112)])?, 16, &enc, &[16, 64])?;
    /// assert_eq!(map.to_string(),
    ///     "smem (2):(2112) + 2·E(x) = Sw<2,4,3>((2):(2112) + 2·Lin(x)) where aligned to 512; E: [dim0 16, dim1 64] → [offset 1024]");
    /// assert_eq!(map.check_alignment(),
    ///     Err(LayoutError::Misaligned { buffer: 1, offset: 2112, alignment: 512, unit: "byte" }));
    /// // Row 1 of buffer 1: the layout leaves row 1 unswizzled (byte 64 of the tile), but in
    /// // hardware 2112 + 64 = 2176 is an odd 128-byte line, whose 16-byte chunks are swapped.
    /// assert_eq!(map.address(1, &[1, 0])?, Address::Shared { byte: 2112 + 64 });
    /// assert_eq!(map.address_outside(1, &[1, 0])?, Address::Shared { byte: 2112 + 64 + 16 });
    /// assert!(AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 8, &enc, &[16, 64]).is_err());
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn from_shared_encoding(
        buffer: BufferMap,
        element_bits: u32,
        enc: &SharedEncoding,
        shape: &[u64],
    ) -> Result<Self> {
        if let SharedEncoding::Nvmma(n) = enc {
            if n.element_bitwidth != element_bits {
                return Err(LayoutError::invalid_parameter(
                    FAMILY,
                    "element_bits",
                    &element_bits,
                    format!(
                        "the nvmma_shared encoding has {}-bit elements",
                        n.element_bitwidth
                    ),
                ));
            }
        }
        let mut map = AddressMap::shared(buffer, element_bits, &enc.to_linear_layout(shape)?)?;
        if let SharedEncoding::Nvmma(n) = enc {
            map.hardware = HardwareSwizzle::for_nvmma(n, shape, &map.element)?;
        }
        map.encoding_alignment = enc.alignment();
        Ok(map)
    }

    /// A tensor-memory map: `buffer` in 32-bit columns, one `[M, N]` tile of `element_bits`
    /// elements per buffer in `tmem`. `E` maps the coordinates to `lane` (the layout's `row`)
    /// and `column`, the 32-bit column of the layout's `col` (which counts element slots:
    /// `32 / element_bits` share a column; with `col_stride > 1` its low bits are padding).
    /// Element `x` of buffer `i` is at lane `E(x).lane`, column `base + B(i) + E(x).column`;
    /// the largest column + 1 is [`TensorMemory::alloc_columns`] of `[M, N]`.
    ///
    /// Errors: those of [`TensorMemory::to_linear_layout`] (shape not `[M, N]`, parameters)
    /// and of [`TensorMemory::alloc_columns`] (`element_bits ∉ {8, 16, 32}`,
    /// `element_bits · col_stride > 32`); [`LayoutError::InvalidParameter`] for a
    /// multi-CTA `cga_layout` (an `AddressMap` addresses one CTA's TMEM).
    ///
    /// ```
    /// use linear_layout::{Address, AddressMap, BufferMap, families::TensorMemory};
    /// // Flash attention's S/P: two f32 128 × 128 accumulators, 128 columns apart.
    /// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let s = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &acc, &[128, 128])?;
    /// assert_eq!(s.address(1, &[5, 7])?, Address::Tensor { lane: 5, column: 135 });
    /// assert_eq!(s.address(1, &[5, 7])?.taddr(), Some(5 << 16 | 135));
    /// // bf16 packs two elements per 32-bit column.
    /// let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 16, &acc, &[128, 128])?;
    /// assert_eq!(p.address(0, &[5, 7])?, Address::Tensor { lane: 5, column: 3 });
    /// assert_eq!(p.element_span(), 64);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn tensor_memory(
        buffer: BufferMap,
        element_bits: u32,
        tmem: &TensorMemory,
        shape: &[u64],
    ) -> Result<Self> {
        let layout = tmem.to_linear_layout(shape)?;
        tmem.check_element_bits(element_bits)?;
        if layout.has_in_dim("block") {
            return Err(LayoutError::invalid_parameter(
                FAMILY,
                "cga_layout",
                &tmem.cga_layout,
                "an AddressMap addresses one CTA's tensor memory",
            ));
        }
        let inverse = memory_inverse(&layout, &["row", "col"])?;
        // col counts element slots; 2^s of them share a 32-bit column.
        let s = (32 / element_bits).trailing_zeros();
        let (row, col) = (Dim::new("row"), Dim::new("col"));
        let rows = layout.in_dim_size_log2(row)?;
        let cols = layout.in_dim_size_log2(col)?;
        let lane = bit_shift(row, rows, Dim::new("lane"), 0, 0)?;
        let column = bit_shift(col, cols, Dim::new("column"), 0, s)?;
        let element = inverse.compose(&lane.product(&column)?)?;
        AddressMap::build(
            MemorySpace::TensorMemory,
            buffer,
            element_bits,
            element,
            None,
            1,
        )
    }

    fn build(
        space: MemorySpace,
        buffer: BufferMap,
        element_bits: u32,
        element: LinearLayout,
        hardware: Option<HardwareSwizzle>,
        encoding_alignment: u64,
    ) -> Result<Self> {
        let eval = element.evaluator()?;
        Ok(AddressMap {
            space,
            buffer,
            element_bits,
            element,
            eval,
            hardware,
            encoding_alignment,
        })
    }

    // ----- accessors ---------------------------------------------------------------------

    /// Shared memory or tensor memory.
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, LinearLayout, address::MemorySpace};
    /// let l = LinearLayout::identity_1d(64, "offset", "dim0")?;
    /// let map = AddressMap::shared(BufferMap::new(0, &[(2, 256)])?, 32, &l)?;
    /// assert_eq!(map.space(), MemorySpace::Shared);
    /// assert_eq!(map.buffer().num_buffers(), 2);
    /// assert_eq!(map.element_bits(), 32);
    /// assert_eq!(map.element().bases_of("dim0")?[5], vec![32]);
    /// assert!(map.hardware_swizzle().is_none()); // a plain layout has no hardware swizzle
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn space(&self) -> MemorySpace {
        self.space
    }

    /// The buffer part `base + B(i)` (bytes or 32-bit columns).
    pub fn buffer(&self) -> &BufferMap {
        &self.buffer
    }

    /// `E`: coordinates → `offset` (elements; shared) or `lane, column` (tensor memory).
    pub fn element(&self) -> &LinearLayout {
        &self.element
    }

    /// The element width in bits.
    pub fn element_bits(&self) -> u32 {
        self.element_bits
    }

    /// The same element layout with another buffer part: how a planner that places many
    /// allocations of one layout builds their maps without re-inverting the layout.
    ///
    /// ```
    /// use linear_layout::{Address, AddressMap, BufferMap, families::TensorMemory};
    /// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let a = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &acc, &[128, 128])?;
    /// let b = a.with_buffer(BufferMap::new(256, &[])?);
    /// assert_eq!(b.address(0, &[3, 5])?, Address::Tensor { lane: 3, column: 261 });
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn with_buffer(&self, buffer: BufferMap) -> AddressMap {
        // Field by field: the old buffer map is not cloned only to be dropped.
        AddressMap {
            space: self.space,
            buffer,
            element_bits: self.element_bits,
            element: self.element.clone(),
            eval: self.eval.clone(),
            hardware: self.hardware.clone(),
            encoding_alignment: self.encoding_alignment,
        }
    }

    /// The swizzle the hardware applies to absolute addresses, when the map knows one (a
    /// swizzled NVMMA encoding where it agrees with the layout).
    pub fn hardware_swizzle(&self) -> Option<&HardwareSwizzle> {
        self.hardware.as_ref()
    }

    /// The extent `E` spans in one buffer: bytes (shared: `⌈offsets · element_bits / 8⌉`,
    /// padding included) or 32-bit columns (tensor memory: `alloc_columns` of the tile).
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, families::{NvmmaShared, SharedEncoding}};
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[128, 64])?;
    /// assert_eq!(map.element_span(), 16384);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn element_span(&self) -> u64 {
        match self.space {
            MemorySpace::Shared => {
                let offsets = self.element.out_dim_size("offset").unwrap_or(1);
                (u128::from(offsets) * u128::from(self.element_bits))
                    .div_ceil(8)
                    .try_into()
                    .unwrap_or(u64::MAX)
            }
            MemorySpace::TensorMemory => self.element.out_dim_size("column").unwrap_or(1),
        }
    }

    // ----- addresses ---------------------------------------------------------------------

    /// `E(x)` of the coordinates `coords` (in `E`'s in-dim order), flattened for the evaluator.
    fn flatten(&self, op: &'static str, coords: &[u64]) -> Result<u64> {
        let dims = &self.element.ins;
        if coords.len() != dims.len() {
            return Err(LayoutError::Invalid {
                op,
                what: format!(
                    "expected {} coordinates ({}), got {coords:?}",
                    dims.len(),
                    dims.iter()
                        .map(|d| d.dim.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let mut flat = 0u64;
        let mut shift = 0u32;
        for (&c, d) in coords.iter().zip(dims.iter()) {
            if c >> d.log2 != 0 {
                return Err(LayoutError::InputOutOfRange {
                    dim: d.dim.to_string(),
                    value: c,
                    size: d.size() as u128,
                });
            }
            // The evaluator holds at most 64 input bits, so this never shifts past 63.
            flat |= c.checked_shl(shift).unwrap_or(0);
            shift += d.log2;
        }
        Ok(flat)
    }

    /// `base + B(i) + (element_bits · offset) / 8` for shared memory.
    fn shared_byte(&self, op: &'static str, start: u64, offset: u64) -> Result<u64> {
        let bytes = u128::from(offset) * u128::from(self.element_bits) / 8;
        u64::try_from(u128::from(start) + bytes).map_err(|_| LayoutError::AddressOverflow {
            op,
            what: format!("buffer start {start} + {bytes} bytes"),
        })
    }

    /// The address of element `coords` (in the order of [`element`](Self::element)'s in-dims:
    /// the layout's out-dims, `dim0, dim1, …`) of buffer `i`, with the swizzle inside:
    /// `base + B(i) + (element_bits · E(x)) / 8` bytes, or lane `E(x).lane`, column
    /// `base + B(i) + E(x).column`.
    ///
    /// Errors: [`LayoutError::BufferIndexOutOfRange`]; [`LayoutError::Invalid`] (wrong number
    /// of coordinates); [`LayoutError::InputOutOfRange`] (a coordinate outside the tile);
    /// [`LayoutError::AddressOverflow`] (past `u64::MAX`, or a TMEM column past 65535).
    ///
    /// ```
    /// use linear_layout::{Address, AddressMap, BufferMap, LayoutError, families::TensorMemory};
    /// let acc = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32), (2, 128)])?, 16, &acc, &[128, 64])?;
    /// assert_eq!(p.address(3, &[17, 9])?, Address::Tensor { lane: 17, column: 160 + 4 });
    /// assert_eq!(p.address(4, &[0, 0]), Err(LayoutError::BufferIndexOutOfRange { index: 4, count: 4 }));
    /// assert!(p.address(0, &[128, 0]).is_err());
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn address(&self, i: u64, coords: &[u64]) -> Result<Address> {
        let start = self.buffer.offset(i)?;
        let flat = self.eval.apply(self.flatten("address", coords)?);
        self.place(start, flat)
    }

    /// Every element's address in buffer `i`, without allocating: `out[x]` for the flattened
    /// coordinates `x` (the in-dims of [`element`](Self::element) concatenated, the first
    /// lowest) is the byte (shared memory) or the TMEM address `lane << 16 | column`
    /// ([`Address::taddr`]). `out` must hold one entry per element.
    ///
    /// Errors: as [`address`](Self::address); [`LayoutError::Invalid`] for an `out` of another
    /// length.
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, families::{NvmmaShared, SharedEncoding}};
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(1024, &[(2, 8192)])?, 16, &enc, &[64, 64])?;
    /// let mut out = vec![0u64; 64 * 64];
    /// map.addresses_of(1, &mut out)?;
    /// // Element (row 3, col 5) is flattened as 3 + 5 · 64 (dim0 lowest).
    /// assert_eq!(Some(out[3 + 5 * 64]), map.address(1, &[3, 5])?.byte());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn addresses_of(&self, i: u64, out: &mut [u64]) -> Result<()> {
        let start = self.buffer.offset(i)?;
        let bits = self.element.total_in_dim_size_log2();
        if out.len() as u128 != 1u128 << bits {
            return Err(LayoutError::Invalid {
                op: "addresses_of",
                what: format!(
                    "{} addresses asked for a tile of {} elements",
                    out.len(),
                    1u128 << bits
                ),
            });
        }
        match self.space {
            MemorySpace::Shared => {
                // The largest offset the dim holds bounds every address: checked once.
                let top = self.element.total_out_dim_size_log2();
                self.place(start, u64::MAX.checked_shr(64 - top).unwrap_or(0))?;
                let (bits, mask) = (
                    u64::from(self.element_bits),
                    u64::MAX
                        .checked_shr(64 - self.element.outs.first().map_or(0, |d| d.log2))
                        .unwrap_or(0),
                );
                self.eval.apply_range(0, out);
                for o in out.iter_mut() {
                    *o = start.wrapping_add((*o & mask).wrapping_mul(bits) / 8);
                }
            }
            MemorySpace::TensorMemory => {
                let bits = |k: usize| self.element.outs.get(k).map_or(0, |d| d.log2);
                let (lane_bits, col_bits) = (bits(0), bits(1));
                let col_max = u64::MAX.checked_shr(64 - col_bits).unwrap_or(0);
                if start
                    .checked_add(col_max)
                    .is_some_and(|c| c <= MAX_TMEM_COLUMN)
                {
                    // Every column fits: `lane << 16 | (start + column)` straight.
                    let lane_mask = u64::MAX.checked_shr(64 - lane_bits).unwrap_or(0);
                    self.eval.apply_range(0, out);
                    for o in out.iter_mut() {
                        let flat = *o;
                        let column = flat.checked_shr(lane_bits).unwrap_or(0) & col_max;
                        *o = (flat & lane_mask) << 16 | (start + column);
                    }
                } else {
                    for (x, o) in (0u64..).zip(out.iter_mut()) {
                        let a = self.place(start, self.eval.apply(x))?;
                        *o = u64::from(a.taddr().unwrap_or(0));
                    }
                }
            }
        }
        Ok(())
    }

    /// The address of the element whose flattened offset (the evaluator's packed output) is
    /// `flat`, in the buffer starting at `start`: no allocation.
    fn place(&self, start: u64, flat: u64) -> Result<Address> {
        let bits = |k: usize| self.element.outs.get(k).map_or(0, |d| d.log2);
        let low = |x: u64, n: u32| x & u64::MAX.checked_shr(64 - n).unwrap_or(0);
        match self.space {
            MemorySpace::Shared => Ok(Address::Shared {
                byte: self.shared_byte("address", start, low(flat, bits(0)))?,
            }),
            MemorySpace::TensorMemory => {
                // Out-dims lane, column: the lane in the low bits.
                let lane = low(flat, bits(0));
                let column = low(flat.checked_shr(bits(0)).unwrap_or(0), bits(1));
                let column = start
                    .checked_add(column)
                    .filter(|&c| c <= MAX_TMEM_COLUMN)
                    .ok_or_else(|| LayoutError::AddressOverflow {
                        op: "address",
                        what: format!(
                            "column {start} + {column} does not fit the 16-bit TMEM column field"
                        ),
                    })?;
                Ok(Address::Tensor {
                    lane: u32::try_from(lane).unwrap_or(u32::MAX),
                    column: u32::try_from(column).unwrap_or(u32::MAX),
                })
            }
        }
    }

    /// The address the hardware (TMA, wgmma/tcgen05 descriptors) computes for the element:
    /// `Sw(base + B(i) + element_bytes · Lin(x))` with the [`HardwareSwizzle`], else the same
    /// as [`address`](Self::address). It equals `address` for every element iff `base + B(i)`
    /// is a multiple of the swizzle repeat ([`check_alignment`](Self::check_alignment)).
    /// Errors: as [`address`](Self::address).
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, families::{NvmmaShared, SharedEncoding}};
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(32, 8, false, false, vec![])?);
    /// let at = |base| AddressMap::from_shared_encoding(BufferMap::new(base, &[])?, 8, &enc, &[8, 32]);
    /// // 32B swizzle, rows 4..8 flip the 16-byte chunk: row 4, byte 0 is at 4 · 32 + 16.
    /// assert_eq!(at(256)?.address_outside(0, &[4, 0])?.byte(), Some(256 + 144));
    /// assert_eq!(at(256)?.address(0, &[4, 0])?.byte(), Some(256 + 144));
    /// // A base of 128 flips the chunk once more in hardware: rows 0..4 are now swapped instead.
    /// assert_eq!(at(128)?.address_outside(0, &[4, 0])?.byte(), Some(128 + 128));
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn address_outside(&self, i: u64, coords: &[u64]) -> Result<Address> {
        let Some(hw) = &self.hardware else {
            return self.address(i, coords);
        };
        let start = self.buffer.offset(i)?;
        let lin = hw.unswizzled_offset(self.flatten("address_outside", coords)?);
        let byte = self.shared_byte("address_outside", start, lin)?;
        Ok(Address::Shared {
            byte: hw.swizzle().apply(byte),
        })
    }

    // ----- alignment ---------------------------------------------------------------------

    /// The alignment every buffer start `base + B(i)` needs, in bytes or columns: for shared
    /// memory the largest of the swizzle repeat (with a hardware swizzle), the encoding's
    /// alignment (from [`from_shared_encoding`](Self::from_shared_encoding)) and the element
    /// size in bytes (at least 1); for tensor memory 1 column.
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, families::{SharedEncoding, SwizzledShared}};
    /// let enc = SharedEncoding::Swizzled(SwizzledShared::new(8, 1, 8, vec![1, 0], vec![])?);
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 64, &enc, &[8, 8])?;
    /// assert_eq!(map.required_alignment(), 16);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn required_alignment(&self) -> u64 {
        match self.space {
            MemorySpace::Shared => {
                let repeat = self.hardware.as_ref().map_or(1, HardwareSwizzle::repeat);
                let element_bytes = u64::from(self.element_bits / 8).max(1);
                repeat.max(self.encoding_alignment).max(element_bytes)
            }
            MemorySpace::TensorMemory => 1,
        }
    }

    /// Checks that every buffer start `base + B(i)` is a multiple of
    /// [`required_alignment`](Self::required_alignment) (in `O(modes)`: the base and every
    /// stride of a mode with more than one buffer must be). Errors: [`LayoutError::Misaligned`]
    /// naming the first misaligned buffer, its start and the alignment.
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, LayoutError, families::{NvmmaShared, SharedEncoding}};
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
    /// let map = |b| AddressMap::from_shared_encoding(b, 16, &enc, &[64, 64]);
    /// assert!(map(BufferMap::new(1024, &[(2, 8192)])?)?.check_alignment().is_ok());
    /// let err = map(BufferMap::new(0, &[(2, 8192), (2, 8704)])?)?.check_alignment();
    /// assert_eq!(err, Err(LayoutError::Misaligned { buffer: 2, offset: 8704, alignment: 1024, unit: "byte" }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn check_alignment(&self) -> Result<()> {
        let alignment = self.required_alignment();
        match self.buffer.first_misaligned(alignment) {
            None => Ok(()),
            Some((buffer, offset)) => Err(LayoutError::Misaligned {
                buffer,
                offset,
                alignment,
                unit: self.space.unit(),
            }),
        }
    }

    // ----- one linear layout -------------------------------------------------------------

    /// The whole map as one [`LinearLayout`] relative to the base, when it is one: in-dims the
    /// coordinates and `buffer`, out-dim `offset` (bytes; sub-byte elements share them) or
    /// `lane, column` (tensor memory), with `addr(i, x) = base + L(x, i)` (`base` has none of
    /// `L`'s bits, so `+` and `⊕` agree). That needs the buffer map to be GF(2)
    /// ([`BufferMap::to_linear_layout`]) and every `base + B(i)` to be a multiple of `E`'s span
    /// rounded up to a power of two, so that the buffer bits and the element bits are disjoint.
    /// `Ok(None)` otherwise. The swizzle is the inside one.
    ///
    /// Errors: [`LayoutError::AddressOverflow`] if the layout would need more than 63 bits.
    ///
    /// ```
    /// use linear_layout::{AddressMap, BufferMap, families::TensorMemory};
    /// let acc = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32), (2, 128)])?, 16, &acc, &[128, 64])?;
    /// let l = p.to_linear_layout()?.ok_or(linear_layout::LayoutError::Invalid { op: "doc", what: "not GF(2)".into() })?;
    /// assert_eq!(l.bases_of("buffer")?, vec![vec![0, 32], vec![0, 128]]);
    /// assert_eq!(l.out_dims(), vec![("lane".into(), 128), ("column".into(), 256)]);
    /// // 3 buffers are not a power of two.
    /// let q = AddressMap::tensor_memory(BufferMap::new(0, &[(3, 32)])?, 16, &acc, &[128, 64])?;
    /// assert_eq!(q.to_linear_layout()?, None);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self) -> Result<Option<LinearLayout>> {
        let Some(buffer_bases) = self.buffer.gf2_bases() else {
            return Ok(None);
        };
        let (element, span_dim) = match self.space {
            MemorySpace::Shared => (to_bytes(&self.element, self.element_bits)?, "offset"),
            MemorySpace::TensorMemory => (self.element.clone(), "column"),
        };
        let span_dim = Dim::new(span_dim);
        let span = element.out_dim_size(span_dim)?;
        if self.buffer.first_misaligned(span).is_some() {
            return Ok(None);
        }
        let size = self
            .buffer
            .max_relative()
            .checked_add(span)
            .and_then(u64::checked_next_power_of_two)
            .filter(|s| s.trailing_zeros() <= crate::layout::MAX_DIM_LOG2)
            .ok_or_else(|| LayoutError::AddressOverflow {
                op: "to_linear_layout",
                what: format!("{} plus a {span}-{} tile", self.buffer, self.space.unit()),
            })?;
        let outs: Vec<(Dim, u64)> = element
            .out_dims()
            .into_iter()
            .map(|(d, s)| (d, if d == span_dim { size } else { s }))
            .collect();
        let buffer_row = |b: u64| -> Vec<u64> {
            outs.iter()
                .map(|&(d, _)| if d == span_dim { b } else { 0 })
                .collect()
        };
        let mut bases = element.bases();
        bases.push((
            Dim::new("buffer"),
            buffer_bases.into_iter().map(buffer_row).collect(),
        ));
        LinearLayout::from_bases(&bases, &outs, false).map(Some)
    }
}

/// One line: `smem 64 + (2,2):(32,128) + 2·E(x) = Sw<3,4,3>(64 + (2,2):(32,128) + 2·Lin(x))
/// where aligned to 1024; E: [dim0 64, dim1 64] → [offset 4096]` (shared; the `= Sw…` part only
/// with a hardware swizzle; `4·E(x)/8` for sub-byte elements), or `tmem lane = E(x).lane,
/// column = (2):(128) + E(x).column; E: [dim0 128, dim1 128] → [lane 128, column 128]`.
///
/// ```
/// use linear_layout::{AddressMap, BufferMap, families::TensorMemory};
/// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let s = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &acc, &[128, 128])?;
/// assert_eq!(s.to_string(),
///     "tmem lane = E(x).lane, column = (2):(128) + E(x).column; E: [dim0 128, dim1 128] → [lane 128, column 128]");
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
impl fmt::Display for AddressMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.buffer;
        match self.space {
            MemorySpace::Shared => {
                let scaled = |name: &str| match self.element_bits {
                    bits if bits % 8 == 0 => format!("{}·{name}(x)", bits / 8),
                    bits => format!("{bits}·{name}(x)/8"),
                };
                write!(f, "smem {b} + {}", scaled("E"))?;
                if let Some(hw) = &self.hardware {
                    write!(
                        f,
                        " = {}({b} + {}) where aligned to {}",
                        hw.swizzle(),
                        scaled("Lin"),
                        hw.repeat()
                    )?;
                }
            }
            MemorySpace::TensorMemory => {
                write!(f, "tmem lane = E(x).lane, column = {b} + E(x).column")?;
            }
        }
        let dims = |v: Vec<(Dim, u64)>| {
            v.iter()
                .map(|(d, s)| format!("{d} {s}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "; E: [{}] → [{}]",
            dims(self.element.in_dims()),
            dims(self.element.out_dims())
        )
    }
}
