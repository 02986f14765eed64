//! TLX step 1 (`StorageAliasSizeDefinition.cpp`): the backing size and shape of each spec.

use linear_layout::address::align_up_saturating;

use super::offsets::TlxTree;
use crate::{AllocError, AllocLayout, CtaMode, Program, SpecId, Storage};

/// A spec's backing as TLX sizes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlxBacking {
    /// `[bytes]` for SMEM, `[BM, BN]` (rows, 32-bit columns) for TMEM.
    pub shape: Vec<u64>,
    /// The `buffer_size_bytes` attribute after the step (explicit, or the computed total).
    pub buffer_size_bytes: u64,
    /// SMEM: the allocation whose buffer count sized the backing (the first user).
    pub first_user_count: Option<(String, u64)>,
}

/// Step 1 for one spec. `Ok(None)` for a spec without users (TLX warns, step 3 then fails).
pub fn backing(program: &Program, spec: SpecId) -> Result<Option<TlxBacking>, AllocError> {
    let s = program.spec(spec)?;
    let users = program.users(spec);
    let Some(first) = users.first() else {
        return Ok(None);
    };
    let mut first_user_count = None;
    let (total, mut shape) = match s.storage {
        Storage::Tmem => {
            let (bm, bn) = tmem_shape(program, &users)?;
            (bm.saturating_mul(bn).saturating_mul(4), vec![bm, bn])
        }
        _ => {
            let total = match program.last_tree(spec) {
                Some(tree) => {
                    let t = TlxTree::new(program, tree, false)?;
                    let first = program.allocation(*first)?;
                    first_user_count = Some((first.name.clone(), first.num));
                    let a = t.align_group(tree)?;
                    align_up_saturating(t.size_group(tree)?, a).saturating_mul(first.num)
                }
                None => {
                    let mut m = 0;
                    for u in &users {
                        let a = program.allocation(*u)?;
                        m = m.max(a.num.saturating_mul(a.tlx_tree_bytes()));
                    }
                    m
                }
            };
            (total, vec![total])
        }
    };
    let buffer_size_bytes = match s.size {
        Some(e) if e < total => {
            return Err(AllocError::ExplicitSizeTooSmall {
                spec: s.name.clone(),
                size: e,
                required: total,
            })
        }
        Some(e) => {
            match s.storage {
                Storage::Tmem => {
                    if let [bm, bn] = shape.as_mut_slice() {
                        *bn = (*bn).max(e / bm.saturating_mul(4).max(1));
                    }
                }
                _ => shape = vec![e],
            }
            e
        }
        None => total,
    };
    Ok(Some(TlxBacking {
        shape,
        buffer_size_bytes,
        first_user_count,
    }))
}

/// `[BM, BN]` of a TMEM spec: the largest user, ignoring the tree.
fn tmem_shape(program: &Program, users: &[crate::AllocId]) -> Result<(u64, u64), AllocError> {
    let (mut big_m, mut big_n) = (0u64, 0u64);
    for u in users {
        let a = program.allocation(*u)?;
        let (m, n) = a.tmem_tile()?;
        let mut bm = m;
        let mut bn = n.saturating_mul(a.num);
        let eb = a.dtype.bytes_ceil();
        if eb > 4 {
            bn = bn.saturating_mul(eb / 4);
        } else if eb < 4 {
            bn = bn.div_ceil(4 / eb);
        }
        if let AllocLayout::Tmem(_, mode) = &*a.resolved_layout()? {
            match mode {
                CtaMode::TwoCtaRhs => {
                    bn /= 2;
                    bm = bm.saturating_mul(2);
                }
                CtaMode::TwoCtaLhs => bm = bm.saturating_mul(2),
                CtaMode::Default => {}
            }
        }
        big_m = big_m.max(bm);
        big_n = big_n.max(bn);
    }
    if big_m != 64 && big_m != 128 {
        big_m = if big_m <= 64 { 64 } else { 128 };
    }
    Ok((big_m, big_n))
}
