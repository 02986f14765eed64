//! [`HardwareSwizzle`]: the swizzle TMA and the MMA descriptors apply to absolute shared-memory
//! byte addresses, and the unswizzled layout they apply it to.
//!
//! An [`NvmmaShared`] allocation is what the hardware sees as CuTe's
//! `ComposedLayout(Sw, offset, Lin)`: `addr = Sw(base + B(i) + element_bytes · Lin(x))` —
//! "swizzle outside". The layout family instead folds the XOR into the element layout,
//! `E = Sw ∘ (element_bytes · Lin)` — "swizzle inside", `addr = base + B(i) + element_bytes ·
//! E(x)`, which lets codegen fold the buffer offset into immediates after the XOR. The two
//! agree for every element iff `base + B(i)` is a multiple of the swizzle repeat
//! `2^(B+M+S)` bytes (1024 for 128B, 512 for 64B, 256 for 32B): `Sw` only reads and writes
//! bits below the repeat, and addition of a multiple of it never carries into them.

use super::element::{memory_inverse, to_bytes};
use crate::families::{CuteSwizzle, NvmmaShared};
use crate::{Evaluator, LinearLayout, Result};

/// The hardware swizzle of a swizzled [`NvmmaShared`] allocation: the [`CuteSwizzle`] on byte
/// addresses and the unswizzled layout `Lin: coords → offset` (elements) it is applied to, with
/// `Sw ∘ (element_bytes · Lin) = element_bytes · E` checked when it is built.
///
/// It is recorded by [`AddressMap::from_shared_encoding`](crate::AddressMap::from_shared_encoding)
/// for every swizzled NVMMA parameter set where that equality holds, which (see the test
/// `nvmma_hardware_swizzle_agrees_with_the_layout`) is every one except:
/// * `fp4_padded`: the layout's padding bytes are not part of a row-major `Lin`;
/// * `transposed` with rank ≥ 3: Triton 3.9 collapses the *last* dim into the rows there, so
///   `E` is not a row-major block under the swizzle (see [`NvmmaShared::to_linear_layout`]).
///
/// There the map has no hardware form ([`AddressMap::address_outside`](crate::AddressMap::address_outside)
/// returns the inside form).
///
/// ```
/// use linear_layout::{AddressMap, BufferMap, families::{NvmmaShared, SharedEncoding}};
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[64, 64])?;
/// let hw = map.hardware_swizzle().ok_or(linear_layout::LayoutError::Invalid { op: "doc", what: "no swizzle".into() })?;
/// assert_eq!(hw.swizzle().to_string(), "Sw<3,4,3>");
/// assert_eq!(hw.repeat(), 1024);
/// // Lin is row-major: element (1, 8) is element 72, byte 144; Sw(144) = 128 = 2 · E(1, 8).
/// assert_eq!(hw.unswizzled().apply(&[("dim0", 1), ("dim1", 8)])?, vec![("offset".into(), 72)]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HardwareSwizzle {
    swizzle: CuteSwizzle,
    unswizzled: LinearLayout,
    eval: Evaluator,
}

impl PartialEq for HardwareSwizzle {
    fn eq(&self, other: &Self) -> bool {
        self.swizzle == other.swizzle && self.unswizzled == other.unswizzled
    }
}

impl Eq for HardwareSwizzle {}

impl HardwareSwizzle {
    /// The swizzle on absolute byte addresses (`Sw<3,4,3>` for 128B).
    pub fn swizzle(&self) -> CuteSwizzle {
        self.swizzle
    }

    /// `Lin`: coordinates → element offset before the swizzle (one row-major TMA block after
    /// the other). In-dims as the element layout's, out-dim `offset`.
    pub fn unswizzled(&self) -> &LinearLayout {
        &self.unswizzled
    }

    /// The swizzle repeat `2^(B+M+S)` in bytes: the alignment under which swizzling the
    /// absolute address and swizzling inside the element layout agree.
    pub fn repeat(&self) -> u64 {
        // `CuteSwizzle::new` / `NvmmaShared::cute_swizzle` keep B+M+S ≤ 63.
        1u64.checked_shl(self.swizzle.address_bits()).unwrap_or(0)
    }

    /// `Lin(x)` on flattened coordinates (as the element layout's evaluator takes them).
    pub(crate) fn unswizzled_offset(&self, flat: u64) -> u64 {
        self.eval.apply(flat)
    }

    /// The hardware swizzle of `nvmma` for `shape`, when it is swizzled and
    /// `Sw ∘ (bytes · Lin) = bytes · element` holds; `element` is the map's `E` (coords →
    /// offset in elements).
    pub(crate) fn for_nvmma(
        nvmma: &NvmmaShared,
        shape: &[u64],
        element: &LinearLayout,
    ) -> Result<Option<HardwareSwizzle>> {
        let Some(swizzle) = nvmma.cute_swizzle() else {
            return Ok(None);
        };
        let Ok(unswizzled) = memory_inverse(&nvmma.unswizzled_layout(shape)?, &["offset"]) else {
            return Ok(None); // Triton's transposed rank ≥ 3 quirk can repeat elements
        };
        let lin_bytes = to_bytes(&unswizzled, nvmma.element_bitwidth)?;
        let e_bytes = to_bytes(element, nvmma.element_bitwidth)?;
        let size = lin_bytes.out_dim_size("offset")?.max(swizzle.size()?);
        let swizzled = lin_bytes.compose(&swizzle.to_linear_layout(size)?)?;
        if swizzled.bases() != e_bytes.bases() {
            return Ok(None);
        }
        let eval = unswizzled.evaluator()?;
        Ok(Some(HardwareSwizzle {
            swizzle,
            unswizzled,
            eval,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::families::{NvmmaShared, SharedEncoding};
    use crate::{AddressMap, BufferMap, Result};

    /// Every element of `map` (buffer 0): inside and outside agree.
    fn agree_everywhere(map: &AddressMap) -> Result<bool> {
        let dims = map.element().in_dims();
        let total: u64 = dims.iter().map(|d| d.1).product();
        for flat in 0..total {
            let mut rest = flat;
            let coords: Vec<u64> = dims
                .iter()
                .map(|&(_, s)| {
                    let c = rest % s;
                    rest /= s;
                    c
                })
                .collect();
            if map.address(0, &coords)? != map.address_outside(0, &coords)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    #[test]
    fn nvmma_hardware_swizzle_agrees_with_the_layout() -> Result<()> {
        let shapes: &[&[u64]] = &[
            &[8, 16],
            &[8, 128],
            &[16, 64],
            &[64, 64],
            &[128, 64],
            &[64, 128],
            &[32, 256],
            &[512, 32],
            &[256, 512],
            &[2, 8, 64],
            &[4, 4, 128],
            &[2, 2, 16, 64],
            &[64, 2, 16],
            &[64, 4, 32],
            &[128, 8, 8],
            &[32, 2, 2, 16],
        ];
        let (mut with, mut with_transposed, mut without, mut naive) = (0, 0, Vec::new(), 0);
        for sw in [32, 64, 128] {
            for bits in [8, 16, 32, 64] {
                for transposed in [false, true] {
                    for fp4 in [false, true] {
                        let Ok(n) = NvmmaShared::new(sw, bits, transposed, fp4, vec![]) else {
                            continue;
                        };
                        let enc = SharedEncoding::Nvmma(n.clone());
                        for &shape in shapes {
                            let Ok(map) = AddressMap::from_shared_encoding(
                                BufferMap::new(0, &[])?,
                                bits,
                                &enc,
                                shape,
                            ) else {
                                continue;
                            };
                            let Some(hw) = map.hardware_swizzle() else {
                                without.push((sw, bits, transposed, fp4, shape.to_vec()));
                                continue;
                            };
                            // Checked element by element, not by the layout equality.
                            assert!(agree_everywhere(&map)?, "{map}");
                            with += 1;
                            with_transposed += usize::from(transposed);
                            let zero = NvmmaShared::new(0, bits, transposed, fp4, vec![])?;
                            if zero.to_linear_layout(shape).ok().as_ref()
                                == n.unswizzled_layout(shape).ok().as_ref()
                            {
                                naive += 1;
                            }
                            assert_eq!(hw.repeat(), n.alignment());
                        }
                    }
                }
            }
        }
        // Every exception is fp4-padded or transposed with rank ≥ 3.
        for (sw, bits, transposed, fp4, shape) in &without {
            assert!(
                *fp4 || (*transposed && shape.len() >= 3),
                "no hardware swizzle for sw {sw}, {bits} bits, transposed {transposed}, shape {shape:?}"
            );
        }
        assert!(with > 150, "{with} parameter sets with a hardware swizzle");
        assert!(with_transposed > 30, "{with_transposed} transposed ones");
        assert!(without.iter().any(|w| w.3) && without.iter().any(|w| w.2 && !w.3));
        // `swizzle_byte_width: 0` is the unswizzled layout only where no TMA block is cut.
        assert!(naive > 0 && naive < with, "{naive} of {with}");
        Ok(())
    }
}
