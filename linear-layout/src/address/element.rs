//! The element part `E` of an [`AddressMap`](crate::AddressMap): a memory layout (memory
//! position → tensor coordinates, as the families build it) turned around into
//! coordinates → memory position, plus the bit shifts that change its units.

use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "address_map";

/// `coords → memory dims` from a memory layout `memory dims (, block) → coords`.
///
/// `memory_dims` are the in-dims the layout must have (`offset`; `row, col`); a `block` in-dim
/// must have size 1 (an `AddressMap` addresses one CTA's memory) and is dropped; anything else
/// is refused ([`LayoutError::InvalidParameter`]). The inverse is exact when the layout is
/// invertible. A layout whose memory bits include *padding* — zero bases (NVMMA `fp4_padded`,
/// TMEM lanes 16–31 of a 64-row block, the unpacked columns of `col_stride > 1`) — is accepted
/// when it is surjective and its other bases are independent: every element then has exactly
/// one position with the padding bits 0, which the pseudo-inverse returns. Otherwise the errors
/// of [`LinearLayout::invert`] ([`LayoutError::NotInjective`], [`LayoutError::NotSurjective`]).
pub(crate) fn memory_inverse(layout: &LinearLayout, memory_dims: &[&str]) -> Result<LinearLayout> {
    let block = Dim::new("block");
    let expected: Vec<Dim> = memory_dims.iter().map(|&d| Dim::new(d)).collect();
    let mut l = layout.clone();
    if layout.has_in_dim(block) {
        let size = layout.in_dim_size(block)?;
        if size != 1 {
            return Err(LayoutError::invalid_parameter(
                FAMILY,
                "layout",
                &format!("block of size {size}"),
                "an AddressMap addresses one CTA's memory; the layout must have a trivial block",
            ));
        }
        l = l.squeeze_ins(block)?;
    }
    let ins = l.in_dim_names();
    if ins.len() != expected.len() || expected.iter().any(|d| !ins.contains(d)) {
        return Err(LayoutError::invalid_parameter(
            FAMILY,
            "layout",
            &layout.in_dim_names(),
            format!("a memory layout has in-dims {memory_dims:?} and optionally a trivial block"),
        ));
    }
    l = l.transpose_ins(&expected)?;
    match l.invert() {
        Ok(inverse) => Ok(inverse),
        Err(_) if l.is_surjective() && nonzero_bases(&l) == l.rank() => l.pseudoinvert(),
        Err(e) => Err(e),
    }
}

/// The number of non-zero bases over all in-dims.
fn nonzero_bases(l: &LinearLayout) -> u32 {
    l.bases()
        .iter()
        .flat_map(|(_, bases)| bases.iter())
        .filter(|b| b.iter().any(|&c| c != 0))
        .count() as u32
}

/// `v ↦ (v << left) >> right` on an in-dim of `2^in_log2` values, as a layout
/// `in_dim → out_dim` of size `max(1, 2^(in_log2 + left − right))`: elements → bytes
/// (`left = log2(bytes)`), sub-byte elements → bytes or TMEM element slots → 32-bit columns
/// (`right`). Dropping low bits is GF(2)-linear. Errors: [`LayoutError::DimTooLarge`] past 63
/// bits.
pub(crate) fn bit_shift(
    in_dim: Dim,
    in_log2: u32,
    out_dim: Dim,
    left: u32,
    right: u32,
) -> Result<LinearLayout> {
    let out_log2 = (in_log2 + left).saturating_sub(right);
    if out_log2 > crate::layout::MAX_DIM_LOG2 {
        return Err(LayoutError::DimTooLarge {
            role: "out",
            dim: out_dim.to_string(),
            log2: out_log2,
        });
    }
    let bases = (0..in_log2)
        .map(|k| {
            let shifted = (k + left)
                .checked_sub(right)
                .map_or(0, |b| 1u64.checked_shl(b).unwrap_or(0));
            vec![shifted]
        })
        .collect();
    LinearLayout::from_bases(&[(in_dim, bases)], &[(out_dim, 1u64 << out_log2)], false)
}

/// `E` in shared-memory bytes: `coords → offset` in elements, composed with the shift by
/// `element_bits / 8` (a power of two; sub-byte elements share bytes).
pub(crate) fn to_bytes(element: &LinearLayout, element_bits: u32) -> Result<LinearLayout> {
    let offset = Dim::new("offset");
    let log2 = element_bits.trailing_zeros();
    let (left, right) = if log2 >= 3 {
        (log2 - 3, 0)
    } else {
        (0, 3 - log2)
    };
    let shift = bit_shift(
        offset,
        element.out_dim_size_log2(offset)?,
        offset,
        left,
        right,
    )?;
    element.compose(&shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_bits_are_zero_in_the_inverse() -> Result<()> {
        // offset bit 1 is padding: offsets 2, 3 hold nothing.
        let l = LinearLayout::from_bases(
            &[("offset", vec![vec![1], vec![0], vec![2]])],
            &[("dim0", 4)],
            true,
        )?;
        let e = memory_inverse(&l, &["offset"])?;
        assert_eq!(e.bases_of("dim0")?, vec![vec![1], vec![4]]);
        // A repeated (non-zero) basis is ambiguous: refused.
        let dup = LinearLayout::from_bases(
            &[("offset", vec![vec![1], vec![1], vec![2]])],
            &[("dim0", 4)],
            true,
        )?;
        assert!(matches!(
            memory_inverse(&dup, &["offset"]),
            Err(LayoutError::NotInjective { .. })
        ));
        Ok(())
    }

    #[test]
    fn shifts_scale_and_drop_bits() -> Result<()> {
        let d = Dim::new("offset");
        assert_eq!(
            bit_shift(d, 3, d, 1, 0)?.bases_of(d)?,
            vec![vec![2], vec![4], vec![8]]
        );
        assert_eq!(
            bit_shift(d, 3, d, 0, 1)?.bases_of(d)?,
            vec![vec![0], vec![1], vec![2]]
        );
        assert_eq!(bit_shift(d, 1, d, 0, 2)?.out_dim_size(d)?, 1);
        Ok(())
    }
}
