//! What a test kernel must do, predicted from the layouts alone: the address of every element
//! (through the map and the lowering, not the emitter), which element each thread's registers
//! hold, and the words the kernel writes out ([`TestKernel`]'s checks).

use super::*;

impl TestKernel {
    /// An interpreter configuration: the kernel's threads and shared memory.
    ///
    /// ```
    /// # use codegen::access::{BufferLowering, MemoryOp};
    /// # use codegen::smem::kernels::address_dump;
    /// # use codegen::access::IndexSource;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
    /// assert_eq!(k.config().threads, 32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn config(&self) -> Config {
        Config::new(self.threads).dynamic_shared(self.dynamic_shared_bytes)
    }

    /// Parameter values: a zeroed `out`, and `index` (0 when `None`) for a run-time index; for
    /// a tile kernel, `in_ptr` holding the tensor (each element its row-major linear index,
    /// truncated to the element width, little-endian), a zeroed `out_ptr` of the same size and
    /// two empty scratch buffers.
    ///
    /// ```
    /// # use codegen::access::{BufferLowering, MemoryOp};
    /// # use codegen::smem::kernels::address_dump;
    /// # use codegen::access::IndexSource;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
    /// assert_eq!(k.params(Some(1))[1], codegen::interp::ParamValue::U32(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn params(&self, index: Option<u32>) -> Vec<ParamValue> {
        if let TestKind::Tile { .. } = self.kind {
            let bytes = self.tile_bytes();
            return vec![
                ParamValue::Buffer(self.tile_input()),
                ParamValue::Buffer(vec![0; bytes]),
                ParamValue::Buffer(Vec::new()),
                ParamValue::Buffer(Vec::new()),
            ];
        }
        let words = self.words_per_thread * self.threads as usize;
        let mut p = vec![ParamValue::Buffer(vec![0; words * 4])];
        if self.index == IndexSource::Param {
            p.push(ParamValue::U32(index.unwrap_or(0)));
        }
        p
    }

    /// The byte (relative to [`SMEM`]) of element `coords` of buffer `i` under the kernel's
    /// lowering: the map's address, or TLX's `unit·slot(i)` plus the element part.
    ///
    /// Errors: those of [`AddressMap::address`].
    ///
    /// ```
    /// # use codegen::access::{BufferLowering, MemoryOp};
    /// # use codegen::smem::kernels::address_dump;
    /// # use codegen::access::IndexSource;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
    /// assert_eq!(k.expected_address(1, &[5])?, 512 + 20);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expected_address(&self, i: u64, coords: &[u64]) -> Result<u64, SmemError> {
        expected_address(&self.map, &self.lowering, i, coords)
    }

    /// What `out` must hold after a run with buffer index `index` (the run-time value, or
    /// `None` for constant indices), computed from the map and the layouts: for a round trip,
    /// each loaded register's element's linear index; for an address dump, each access's
    /// address (the element of its first slot; for `ldmatrix`/`stmatrix`, the first element of
    /// the row the thread supplies). Values are truncated to the element width;
    /// a tile kernel's `out_ptr` (as `u32` words) ends equal to `in_ptr` after a round trip
    /// and zero otherwise (a store does not write it; a load reads a zeroed buffer);
    /// an [`access_kernel`] leaves `out` as it is for a store (all zeros here) and its loads
    /// return what shared memory held (zeros).
    ///
    /// Errors: the map's ([`SmemError::Layout`]) for an index out of range.
    ///
    /// ```
    /// # use codegen::access::{BufferLowering, MemoryOp};
    /// # use codegen::smem::kernels::address_dump;
    /// # use codegen::access::IndexSource;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
    /// // Thread 3 writes its one access: elements 12..16 of buffer 1.
    /// assert_eq!(k.expected_out(Some(1))?[3], 512 + 48);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expected_out(&self, index: Option<u64>) -> Result<Vec<u32>, SmemError> {
        if let TestKind::Tile { reload, .. } = &self.kind {
            let bytes = match reload {
                Some(_) => self.tile_input(),
                _ => vec![0; self.tile_bytes()],
            };
            return Ok(bytes
                .chunks(4)
                .map(|c| c.iter().rev().fold(0u32, |w, &b| w << 8 | u32::from(b)))
                .collect());
        }
        let indices: Vec<u64> = match &self.index {
            IndexSource::Const(v) => v.clone(),
            IndexSource::Param => vec![index.unwrap_or(0)],
        };
        let mut out = vec![0u32; self.words_per_thread * self.threads as usize];
        let dims = self.map.element().in_dims();
        let mask = u64::MAX >> (64 - self.map.element_bits().clamp(1, 64));
        for t in 0..self.threads {
            let row = t as usize * self.words_per_thread;
            let mut word = 0usize;
            match &self.kind {
                TestKind::RoundTrip { load, .. } => {
                    let registers = register_count(load)?;
                    let at = Coordinates::new(load, &dims)?;
                    for _ in &indices {
                        for r in 0..registers {
                            let coords = at.at(r, t);
                            if let Some(w) = out.get_mut(row + word) {
                                *w = (linear_index(&dims, &coords) & mask) as u32;
                            }
                            word += 1;
                        }
                    }
                }
                TestKind::Access { .. } | TestKind::Tile { .. } => {}
                TestKind::AddressDump { regs, .. } => {
                    let at = Coordinates::new(regs, &dims)?;
                    for (e, &i) in self.emissions.iter().zip(&indices) {
                        for access in &e.emitted.accesses {
                            let (slot, holder) =
                                supplied_element(access.matrix, self.map.element_bits() / 8, t);
                            let r = access
                                .slots
                                .get(slot)
                                .and_then(|s| s.first())
                                .copied()
                                .unwrap_or(0);
                            let coords = at.at(r, holder);
                            if let Some(w) = out.get_mut(row + word) {
                                *w = self.expected_address(i, &coords)? as u32;
                            }
                            word += 1;
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// The parameter `out` is: 1 (`out_ptr`) for a tile kernel, else 0.
    ///
    /// ```
    /// # use codegen::access::{BufferLowering, MemoryOp, IndexSource};
    /// # use codegen::smem::kernels::address_dump;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
    /// assert_eq!(k.out_param(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn out_param(&self) -> usize {
        match self.kind {
            TestKind::Tile { .. } => 1,
            _ => 0,
        }
    }

    /// A tile kernel's tensor bytes (0 for other kernels).
    fn tile_bytes(&self) -> usize {
        let bytes = u64::from(self.map.element_bits() / 8);
        match self.kind {
            TestKind::Tile { elements, .. } => {
                usize::try_from(elements.saturating_mul(bytes)).unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// A tile kernel's input tensor: element `i` (row-major) holds `i` truncated to the
    /// element width, little-endian.
    fn tile_input(&self) -> Vec<u8> {
        let bytes = (self.map.element_bits() / 8).max(1) as usize;
        let elements = self.tile_bytes() / bytes;
        (0..elements)
            .flat_map(|i| (i as u64).to_le_bytes().into_iter().take(bytes))
            .collect()
    }
}

/// Which element's address thread `t` computes for an access: its own first element for a
/// vector, `(slot 0, t)`; for `ldmatrix`/`stmatrix`, the first element of the row it supplies
/// (lane `l` supplies row `l % 8` of matrix `(l / 8) % count`), held by another lane. Matrix
/// `j`'s word holds slots `j·w ..` for `w = 4 / element_bytes`.
pub(super) fn supplied_element(
    matrix: Option<(crate::ptx::MatrixCount, bool)>,
    element_bytes: u32,
    t: u32,
) -> (usize, u32) {
    let Some((count, trans)) = matrix else {
        return (0, t);
    };
    let per_word = 4 / element_bytes.clamp(1, 4);
    let per_half = (2 / element_bytes.clamp(1, 2)).max(1);
    let (warp, lane) = (t & !31, t & 31);
    let (j, row) = ((lane >> 3) % count.count(), lane & 7);
    if trans {
        // Row ρ holds half ρ % 2 of lanes 4q + ρ/2; column 0 is lane ρ/2's.
        (
            (j * per_word + (row & 1) * per_half) as usize,
            warp + (row >> 1),
        )
    } else {
        // Row ρ is lanes 4ρ..4ρ+3; column 0 is the first element of lane 4ρ's word.
        ((j * per_word) as usize, warp + 4 * row)
    }
}

/// The address of element `coords` of buffer `i` under `lowering`, relative to the shared
/// array.
///
/// ```
/// use codegen::access::{BufferLowering, TlxReindex};
/// use codegen::smem::kernels::expected_address;
/// use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// let l = LinearLayout::identity_1d(16, "offset", "dim0")?;
/// let map = AddressMap::shared(BufferMap::new(0, &[(4, 64)])?, 32, &l)?;
/// let tlx = BufferLowering::TlxReindex(TlxReindex::new(2, 1, 2, 64));
/// assert_eq!(expected_address(&map, &BufferLowering::Explicit, 3, &[5])?, 3 * 64 + 20);
/// assert_eq!(expected_address(&map, &tlx, 3, &[5])?, 64 * (6 + 1 + 1) + 20);
/// # Ok::<(), codegen::smem::SmemError>(())
/// ```
pub fn expected_address(
    map: &AddressMap,
    lowering: &BufferLowering,
    i: u64,
    coords: &[u64],
) -> Result<u64, SmemError> {
    let byte = |a: linear_layout::Address| a.byte().unwrap_or(0);
    match lowering {
        BufferLowering::Explicit => Ok(byte(map.address(i, coords)?)),
        BufferLowering::TlxReindex(t) => {
            let count = map.buffer().num_buffers();
            if i >= count {
                return Err(
                    linear_layout::LayoutError::BufferIndexOutOfRange { index: i, count }.into(),
                );
            }
            // Buffer 0 starts at the map's base: what is left is the element part.
            let element = byte(map.address(0, coords)?).wrapping_sub(map.buffer().base());
            Ok(element.wrapping_add(tlx_offset(t, i)?))
        }
    }
}

/// The row-major linear index of `coords` in a tile of `dims` (the last dim fastest).
///
/// ```
/// use linear_layout::Dim;
/// use codegen::smem::kernels::linear_index;
/// let dims = [(Dim::new("dim0"), 8), (Dim::new("dim1"), 16)];
/// assert_eq!(linear_index(&dims, &[2, 5]), 2 * 16 + 5);
/// ```
pub fn linear_index(dims: &[(Dim, u64)], coords: &[u64]) -> u64 {
    dims.iter().zip(coords).fold(0u64, |acc, (&(_, size), &c)| {
        acc.wrapping_mul(size).wrapping_add(c)
    })
}

/// The coordinates (in the order of `dims`, the map's tile dims) of register `r` of thread
/// `t` under `layout`.
///
/// ```
/// use linear_layout::{Dim, LinearLayout};
/// use codegen::smem::kernels::coordinates;
/// let l = LinearLayout::from_bases(&[("register", vec![vec![0, 1]]), ("lane", vec![])],
///     &[("dim0", 1), ("dim1", 2)], true)?;
/// let dims = [(Dim::new("dim1"), 2), (Dim::new("dim0"), 1)];
/// assert_eq!(coordinates(&l, &dims, 1, 0)?, vec![1, 0]);
/// # Ok::<(), codegen::smem::SmemError>(())
/// ```
pub fn coordinates(
    layout: &LinearLayout,
    dims: &[(Dim, u64)],
    r: usize,
    t: u32,
) -> Result<Vec<u64>, SmemError> {
    let mut inputs: Vec<(Dim, u64)> = Vec::new();
    for (dim, size) in layout.in_dims() {
        let value = match dim.name() {
            "register" => r as u64,
            "lane" => u64::from(t & 31),
            "warp" => u64::from(t >> 5),
            _ => 0,
        };
        inputs.push((dim, value & (size - 1)));
    }
    let out = layout.apply(&inputs)?;
    Ok(dims
        .iter()
        .map(|(d, _)| out.iter().find(|(o, _)| o == d).map_or(0, |&(_, v)| v))
        .collect())
}

/// [`coordinates`] for many (register, thread) pairs: the layout compiled once.
///
/// ```
/// use linear_layout::families::Blocked;
/// use linear_layout::Dim;
/// use codegen::smem::kernels::{coordinates, Coordinates};
/// let l = Blocked { size_per_thread: vec![1, 4], threads_per_warp: vec![8, 4],
///     warps_per_cta: vec![2, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[32, 16])?;
/// let dims = [(Dim::new("dim0"), 32), (Dim::new("dim1"), 16)];
/// let c = Coordinates::new(&l, &dims)?;
/// assert_eq!(c.at(3, 45), coordinates(&l, &dims, 3, 45)?);
/// # Ok::<(), codegen::smem::SmemError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Coordinates {
    eval: linear_layout::Evaluator,
    /// Per in-dim: (register | lane | warp | other, bit offset in the flat input, size − 1).
    inputs: Vec<(u8, u32, u64)>,
    /// For each requested dim, its index among the layout's out-dims.
    order: Vec<Option<usize>>,
}

impl Coordinates {
    /// Compiles `layout` for coordinates in the order of `dims`. Errors: the layout's
    /// evaluator ([`SmemError::Layout`]: more than 64 input or output bits).
    ///
    /// ```
    /// use linear_layout::{Dim, LinearLayout};
    /// use codegen::smem::kernels::Coordinates;
    /// let l = LinearLayout::identity_1d(32, "lane", "dim0")?;
    /// assert_eq!(Coordinates::new(&l, &[(Dim::new("dim0"), 32)])?.at(0, 37), vec![5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(layout: &LinearLayout, dims: &[(Dim, u64)]) -> Result<Coordinates, SmemError> {
        let mut inputs = Vec::new();
        let mut offset = 0u32;
        for (dim, size) in layout.in_dims() {
            let which = match dim.name() {
                "register" => 0,
                "lane" => 1,
                "warp" => 2,
                _ => 3,
            };
            inputs.push((which, offset, size - 1));
            offset += size.trailing_zeros();
        }
        let outs = layout.out_dim_names();
        Ok(Coordinates {
            eval: layout.evaluator()?,
            inputs,
            order: dims
                .iter()
                .map(|(d, _)| outs.iter().position(|o| o == d))
                .collect(),
        })
    }

    /// The coordinates of register `r` of thread `t`.
    ///
    /// ```
    /// use linear_layout::{Dim, LinearLayout};
    /// use codegen::smem::kernels::Coordinates;
    /// let l = LinearLayout::identity_1d(4, "register", "dim0")?;
    /// assert_eq!(Coordinates::new(&l, &[(Dim::new("dim0"), 4)])?.at(3, 0), vec![3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at(&self, r: usize, t: u32) -> Vec<u64> {
        let flat = self
            .inputs
            .iter()
            .fold(0u64, |acc, &(which, offset, mask)| {
                let v = match which {
                    0 => r as u64,
                    1 => u64::from(t & 31),
                    2 => u64::from(t >> 5),
                    _ => 0,
                };
                acc | (v & mask).checked_shl(offset).unwrap_or(0)
            });
        let out = self.eval.split(self.eval.apply(flat));
        self.order
            .iter()
            .map(|k| k.and_then(|k| out.get(k).copied()).unwrap_or(0))
            .collect()
    }
}

pub(super) fn register_count(layout: &LinearLayout) -> Result<usize, SmemError> {
    if !layout.has_in_dim("register") {
        return Ok(1);
    }
    Ok(layout.in_dim_size("register")? as usize)
}

/// `coords → row-major linear index` as a GF(2) layout (every dim a power of two, so the index
/// is the concatenation of the coordinates' bits).
pub(super) fn linear_index_layout(map: &AddressMap) -> Result<LinearLayout, SmemError> {
    let dims = map.element().in_dims();
    let total: u64 = dims.iter().map(|(_, s)| s).product();
    let mut stride = total;
    let mut bases = Vec::new();
    for &(dim, size) in &dims {
        stride /= size.max(1);
        let b: Vec<Vec<u64>> = (0..size.trailing_zeros())
            .map(|k| vec![stride << k])
            .collect();
        bases.push((dim, b));
    }
    Ok(LinearLayout::from_bases(
        &bases,
        &[("index", total.max(1))],
        false,
    )?)
}
