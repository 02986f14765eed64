//! Explicit buffer lowering: each allocation's buffer map composed with its element layout,
//! an [`AddressMap`] — no index rewrite, no expanded alias.

use linear_layout::{AddressMap, BufferMap};

use crate::tlx::materialize::map_err;
use crate::{AllocError, AllocLayout, Allocation};

/// The address map of `alloc` whose buffers start at `buffers` (plan units). `Ok(None)` when
/// the element layout has no GF(2) form (a tile TLX accepts that is not a power of two).
///
/// ```
/// use alias_alloc::{lowering::explicit::address_map, DType, Program, Storage};
/// use linear_layout::{Address, BufferMap};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
/// let id = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
/// let buffers = BufferMap::new(0, &[(2, 32), (2, 128)]).map_err(|e| alias_alloc::AllocError::Input(e.to_string()))?;
/// let map = address_map(p.allocation(id)?, buffers)?.expect("a power-of-two tile");
/// // Buffer 3 (group 1, subtile 1) starts at column 160; element (5, 10) is in lane 5.
/// assert_eq!(map.address(3, &[5, 10]).ok(), Some(Address::Tensor { lane: 5, column: 165 }));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn address_map(
    alloc: &Allocation,
    buffers: BufferMap,
) -> Result<Option<AddressMap>, AllocError> {
    if !alloc.shape.iter().all(|d| d.is_power_of_two()) {
        return Ok(None);
    }
    let bits = alloc.dtype.bits();
    match alloc.resolved_layout()? {
        AllocLayout::Shared(enc) => map_err(AddressMap::from_shared_encoding(
            buffers,
            bits,
            &enc,
            &alloc.shape,
        ))
        .map(Some),
        AllocLayout::Tmem(tm, crate::CtaMode::Default) => {
            map_err(AddressMap::tensor_memory(buffers, bits, &tm, &alloc.shape)).map(Some)
        }
        _ => Ok(None),
    }
}
