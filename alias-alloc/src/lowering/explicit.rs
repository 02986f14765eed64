//! Explicit buffer lowering: each allocation's buffer map composed with its element layout,
//! an [`AddressMap`] — no index rewrite, no expanded alias.

use std::cell::RefCell;

use linear_layout::{AddressMap, BufferMap};

use crate::error::map_err;
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
/// let map = address_map(p.allocation(id)?, buffers)?.ok_or(alias_alloc::AllocError::Input("no GF(2) form".into()))?;
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
    let key = Key::of(alloc);
    let hit = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, m)| m.with_buffer(buffers.clone()))
    });
    if let Some(m) = hit {
        return Ok(Some(m));
    }
    let map = build(alloc, buffers)?;
    if let Some(m) = &map {
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= CACHE_ENTRIES {
                c.remove(0);
            }
            c.push((key, m.clone()));
        });
    }
    Ok(map)
}

/// Element layouts built recently on this thread. Inverting a layout and compiling its
/// evaluator is most of the cost of lowering a plan; compilers re-plan the same allocations
/// (autotuning, re-specialisation), so the last few are kept.
const CACHE_ENTRIES: usize = 64;

thread_local! {
    static CACHE: RefCell<Vec<(Key, AddressMap)>> = const { RefCell::new(Vec::new()) };
}

/// What an element layout depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    storage: crate::Storage,
    layout: AllocLayout,
    shape: Vec<u64>,
    dtype: crate::DType,
}

impl Key {
    fn of(a: &Allocation) -> Self {
        Key {
            storage: a.storage,
            layout: a.layout.clone(),
            shape: a.shape.clone(),
            dtype: a.dtype,
        }
    }
}

/// Empties this thread's cache of element layouts (to measure cold lowering).
pub fn clear_cache() {
    CACHE.with(|c| c.borrow_mut().clear());
}

fn build(alloc: &Allocation, buffers: BufferMap) -> Result<Option<AddressMap>, AllocError> {
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
