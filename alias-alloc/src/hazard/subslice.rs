//! The bytes of a shared-memory buffer a `ttg.memdesc_subslice` view covers
//! ([`subslice_bytes`]): through the buffer's shared layout, exactly, so that two halves of one
//! tile (the `kv` halves of the forward attention kernels) do not overlap.

use linear_layout::families::Encoding;
use linear_layout::{DType, Dim};

/// The most elements a subslice may have for the check to compute its bytes one by one.
const MAX_ELEMENTS: u64 = 1 << 20;

/// The byte ranges, relative to the buffer's first byte and sorted, that the view `sub` at
/// `offsets` of a shared-memory buffer of `shape` with `element`s laid out by `encoding` (MLIR
/// text, aliases resolved) covers: each element's offset through the inverse of the layout,
/// times its size. `None` where the check cannot say (a layout it does not read or that is not
/// a bijection, sub-byte elements, a view past the buffer, more than 2^20 elements): the
/// caller then keeps the whole buffer, a superset.
///
/// ```
/// use alias_alloc::hazard::subslice_bytes;
/// let enc = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
/// // A 128x128 bf16 tile with a 128-byte NVMMA swizzle is stored as two 128x64 column blocks
/// // of 16 KiB. Rows 64..128 are the second half of each:
/// let rows = subslice_bytes(&[128, 128], "bf16", enc, &[64, 0], &[64, 128]).ok_or("no layout")?;
/// assert_eq!(rows, vec![(8192, 16384), (24576, 32768)]);
/// // Columns 64..128 are the second block.
/// let cols = subslice_bytes(&[128, 128], "bf16", enc, &[0, 64], &[128, 64]).ok_or("no layout")?;
/// assert_eq!(cols, vec![(16384, 32768)]);
/// # Ok::<(), &str>(())
/// ```
pub fn subslice_bytes(
    shape: &[u64],
    element: &str,
    encoding: &str,
    offsets: &[u64],
    sub: &[u64],
) -> Option<Vec<(u64, u64)>> {
    let enc: Encoding = encoding.parse().ok()?;
    let dtype: DType = element.parse().ok()?;
    let bits = u64::from(dtype.bits());
    if !bits.is_multiple_of(8) || offsets.len() != shape.len() || sub.len() != shape.len() {
        return None;
    }
    let size = bits / 8;
    let inside = offsets
        .iter()
        .zip(sub)
        .zip(shape)
        .all(|((&o, &s), &n)| o.checked_add(s).is_some_and(|end| end <= n));
    let total = sub
        .iter()
        .try_fold(1u64, |p, &s| p.checked_mul(s))
        .filter(|&t| t <= MAX_ELEMENTS)?;
    if !inside {
        return None;
    }
    let inverse = enc.to_linear_layout(shape).ok()?.invert().ok()?;
    let dims: Vec<Dim> = (0..shape.len()).map(Dim::standard).collect();
    let offset = Dim::new("offset");
    let mut out = Vec::new();
    let mut coords = vec![0u64; shape.len()];
    for k in 0..total {
        let mut rest = k;
        for ((c, &o), &s) in coords.iter_mut().zip(offsets).zip(sub).rev() {
            *c = o + rest % s;
            rest /= s;
        }
        let inputs: Vec<(Dim, u64)> = dims.iter().copied().zip(coords.iter().copied()).collect();
        let at = inverse
            .apply(&inputs)
            .ok()?
            .into_iter()
            .find(|(d, _)| *d == offset)?
            .1;
        let first = at.checked_mul(size)?;
        out.push((first, first.checked_add(size)?));
    }
    out.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(out.len());
    for (a, b) in out {
        match merged.last_mut() {
            Some(last) if last.1 >= a => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    Some(merged)
}
