//! Explicit buffer lowering: each allocation's buffer map composed with its element layout,
//! an [`AddressMap`] — no index rewrite, no expanded alias.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use linear_layout::{AddressMap, BufferMap, Dim, LinearLayout};

use crate::error::map_err;
use crate::{AllocError, AllocLayout, Allocation};

/// A cache bucket's key: the hash of storage, element type and shape, computed from an
/// allocation without copying its shape (a bucket's entries keep their full keys).
fn bucket(a: &Allocation) -> u64 {
    let mut h = FxHasher::default();
    (a.storage, a.dtype, a.shape.as_slice()).hash(&mut h);
    h.finish()
}

/// Element layouts the explicit lowering has built, kept by whoever plans: inverting a layout
/// and compiling its evaluator is most of the cost of lowering a plan, and compilers re-plan
/// the same allocations (autotuning, re-specialisation). The most recent
/// [`LoweringCache::CAPACITY`] layouts are kept; [`Program::plan`](crate::Program::plan) uses a
/// fresh cache, [`Program::plan_with`](crate::Program::plan_with) the caller's.
///
/// ```
/// use alias_alloc::lowering::explicit::LoweringCache;
/// use alias_alloc::{DType, Mode, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// p.local_alloc("a", &[64, 64], DType::F16, 2, s)?;
/// let mut cache = LoweringCache::new();
/// let first = p.plan_with(&PlanOptions::new(Mode::Intended), &mut cache)?;
/// assert_eq!(cache.len(), 1);
/// let again = p.plan_with(&PlanOptions::new(Mode::Intended), &mut cache)?; // no layout rebuilt
/// assert_eq!((first, cache.len()), (again, 1));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LoweringCache {
    /// By [`bucket`], the layouts built for it, each with its full key and insertion stamp.
    entries: FxHashMap<u64, Vec<(Key, AddressMap, u64)>>,
    /// Layouts held.
    count: usize,
    /// The next insertion stamp (the oldest entry has the smallest).
    stamp: u64,
}

impl LoweringCache {
    /// Layouts kept; when full, the oldest goes first.
    pub const CAPACITY: usize = 4096;

    /// An empty cache.
    pub fn new() -> LoweringCache {
        LoweringCache::default()
    }

    /// Layouts held.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Forgets every layout (to measure cold lowering).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.count = 0;
    }

    fn get(&self, alloc: &Allocation) -> Option<&AddressMap> {
        self.entries
            .get(&bucket(alloc))?
            .iter()
            .find(|(key, _, _)| key.is(alloc))
            .map(|(_, m, _)| m)
    }

    fn insert(&mut self, alloc: &Allocation, map: AddressMap) {
        if self.count >= Self::CAPACITY {
            // Drop the oldest entry (a linear scan, once per CAPACITY insertions at most).
            let oldest = self
                .entries
                .iter()
                .flat_map(|(k, v)| v.iter().map(move |(_, _, s)| (*s, *k)))
                .min_by_key(|(s, _)| *s);
            if let Some((stamp, k)) = oldest {
                if let Some(entries) = self.entries.get_mut(&k) {
                    entries.retain(|(_, _, s)| *s != stamp);
                    if entries.is_empty() {
                        self.entries.remove(&k);
                    }
                    self.count -= 1;
                }
            }
        }
        self.stamp += 1;
        self.count += 1;
        self.entries
            .entry(bucket(alloc))
            .or_default()
            .push((Key::of(alloc), map, self.stamp));
    }
}

/// The address map of `alloc` whose buffers start at `buffers` (plan units), its element
/// layout taken from `cache` or built and kept there. `Ok(None)` when the element layout has no
/// GF(2) form (a tile TLX accepts that is not a power of two).
///
/// ```
/// use alias_alloc::lowering::explicit::{address_map, LoweringCache};
/// use alias_alloc::{DType, Program, Storage};
/// use linear_layout::{Address, BufferMap};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
/// let id = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
/// let buffers = BufferMap::new(0, &[(2, 32), (2, 128)]).map_err(|e| alias_alloc::AllocError::Input(e.to_string()))?;
/// let map = address_map(p.allocation(id)?, buffers, &mut LoweringCache::new())?
///     .ok_or(alias_alloc::AllocError::Input("no GF(2) form".into()))?;
/// // Buffer 3 (group 1, subtile 1) starts at column 160; element (5, 10) is in lane 5.
/// assert_eq!(map.address(3, &[5, 10]).ok(), Some(Address::Tensor { lane: 5, column: 165 }));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn address_map(
    alloc: &Allocation,
    buffers: BufferMap,
    cache: &mut LoweringCache,
) -> Result<Option<AddressMap>, AllocError> {
    if !alloc.shape.iter().all(|d| d.is_power_of_two()) {
        return Ok(None);
    }
    if let Some(m) = cache.get(alloc) {
        return Ok(Some(m.with_buffer(buffers)));
    }
    let map = build(alloc, buffers)?;
    if let Some(m) = &map {
        cache.insert(alloc, m.clone());
    }
    Ok(map)
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
    /// Whether `a` has this key (no copy of its layout or shape).
    fn is(&self, a: &Allocation) -> bool {
        self.storage == a.storage
            && self.dtype == a.dtype
            && self.shape == a.shape
            && self.layout == a.layout
    }

    fn of(a: &Allocation) -> Self {
        Key {
            storage: a.storage,
            layout: a.layout.clone(),
            shape: a.shape.clone(),
            dtype: a.dtype,
        }
    }
}

fn build(alloc: &Allocation, buffers: BufferMap) -> Result<Option<AddressMap>, AllocError> {
    let bits = alloc.dtype.bits();
    if alloc.storage != crate::Storage::Tmem && bits > 64 {
        // A 128-bit element (a `ui128` cluster-launch-control response) is one unit for
        // `ld/st.shared.v2.b64`; no element layout addresses it.
        return Ok(None);
    }
    if alloc.storage != crate::Storage::Tmem && bits < 8 {
        // Two sub-byte elements (i4, f4E2M1FN) share a byte: no element layout addresses one
        // (Triton 3.9 has no 4-bit NVMMA layout; TLX's 4-bit attribute is planned by size).
        return Ok(None);
    }
    if alloc.storage != crate::Storage::Tmem && alloc.elements() == 1 {
        // One element per buffer (an mbarrier): no offset bits for a layout to map — Gluon
        // refuses such a shared layout — and nothing to map: the element is the buffer start.
        let dims: Vec<(Dim, u64)> = (0..alloc.shape.len())
            .map(|d| (Dim::from(format!("dim{d}").as_str()), 1))
            .collect();
        let none: [(&str, Vec<Vec<u64>>); 1] = [("offset", vec![])];
        let element = map_err(LinearLayout::from_bases(&none, &dims, true))?;
        return map_err(AddressMap::shared(buffers, bits, &element)).map(Some);
    }
    match &*alloc.resolved_layout()? {
        AllocLayout::Shared(enc) => {
            AddressMap::from_shared_encoding(buffers, bits, enc, &alloc.shape)
                .map(Some)
                .map_err(|e| alloc.layout_error(e))
        }
        AllocLayout::Tmem(tm, crate::CtaMode::Default) => {
            AddressMap::tensor_memory(buffers, bits, tm, &alloc.shape)
                .map(Some)
                .map_err(|e| alloc.layout_error(e))
        }
        _ => Ok(None),
    }
}
