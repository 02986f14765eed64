//! The hardware's rules for one warp-level shared-memory access (NVIDIA H100, sm_90), as the
//! Nsight Compute counters recorded in `codegen/tests/data/gpu/` show them; each rule is backed
//! by named launches there (`docs/gpu-counters.md`).
//!
//! Shared memory is 32 banks of 4-byte words; a *wavefront* serves at most one word per bank
//! (any number of lanes may read or write that one word).
//!
//! * **Stores** (`st.shared`, any width): the warp is split into phases of `128 / bytes` lanes
//!   (32 lanes up to 4 bytes, 16 for 8 bytes, 8 for 16 bytes). Each phase takes as many
//!   wavefronts as the largest number of distinct words any one bank holds among its lanes'
//!   bytes. The ideal is one wavefront per phase with an active lane; what exceeds it is
//!   counted as bank conflicts. Lanes writing the same address are not merged across phases.
//! * **Loads** (`ld.shared`): the unit is the warp (the half-warp for 16 bytes). Its requests
//!   are the distinct addresses in each aligned group of 4 lanes, summed; the unit needs at
//!   least `S = ⌈requests · bytes / 128⌉` wavefronts (the ideal). With `S = 1` the whole unit is
//!   served together (a broadcast of any shape): its wavefronts are its largest per-bank count
//!   of distinct words. Otherwise it is served in store-sized phases, each taking its own
//!   per-bank count, and never fewer than `S` in all. Bank conflicts are the wavefronts over `S`.
//! * **`ldmatrix` / `stmatrix`**: each 8 × 8 matrix (its 8 row addresses, 16 bytes each) is a
//!   phase: wavefronts are its per-bank count, the ideal one per matrix. Neither is counted
//!   as a shared load or store *instruction* by the hardware.

/// Banks of the shared memory these rules are for (each 4 bytes wide).
///
/// ```
/// assert_eq!(codegen::cost::SHARED_BANKS, 32);
/// ```
pub const SHARED_BANKS: u32 = 32;

/// What kind of shared-memory access (the instruction class the hardware counts it in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SharedAccessClass {
    /// `ld.shared` (counted as a shared load instruction).
    Load,
    /// `st.shared` (counted as a shared store instruction).
    Store,
    /// `ldmatrix` (load wavefronts, no instruction count).
    Ldmatrix,
    /// `stmatrix` (store wavefronts, no instruction count).
    Stmatrix,
}

impl SharedAccessClass {
    /// Whether its wavefronts count as loads.
    ///
    /// ```
    /// use codegen::cost::SharedAccessClass;
    /// assert!(SharedAccessClass::Ldmatrix.is_load() && !SharedAccessClass::Store.is_load());
    /// ```
    pub fn is_load(self) -> bool {
        matches!(self, SharedAccessClass::Load | SharedAccessClass::Ldmatrix)
    }

    /// Whether the hardware counts it as a shared load/store instruction.
    ///
    /// ```
    /// use codegen::cost::SharedAccessClass;
    /// assert!(SharedAccessClass::Load.is_counted() && !SharedAccessClass::Stmatrix.is_counted());
    /// ```
    pub fn is_counted(self) -> bool {
        matches!(self, SharedAccessClass::Load | SharedAccessClass::Store)
    }
}

/// One lane's part of an access: for `ld`/`st` the lane id (0..32), for the matrix
/// instructions the row it supplies (`8 · matrix + row`), and its shared-window byte address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaneAccess {
    /// The lane (or matrix row).
    pub slot: u32,
    /// The first byte.
    pub address: u32,
}

/// What one warp-level access costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct WavefrontCost {
    /// The wavefronts it takes.
    pub wavefronts: u64,
    /// The wavefronts it would take without bank conflicts.
    pub ideal: u64,
}

impl WavefrontCost {
    /// The wavefronts the hardware counts as bank conflicts: those over the ideal.
    ///
    /// ```
    /// use codegen::cost::WavefrontCost;
    /// assert_eq!(WavefrontCost { wavefronts: 4, ideal: 2 }.bank_conflicts(), 2);
    /// ```
    pub fn bank_conflicts(&self) -> u64 {
        self.wavefronts.saturating_sub(self.ideal)
    }
}

/// Why a set of lanes is not one hardware access.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// No shared access moves this many bytes per lane.
    #[error("{bytes} bytes per lane: a shared access moves 1, 2, 4, 8 or 16")]
    Width {
        /// Bytes per lane.
        bytes: u32,
    },
    /// A slot outside the warp's 32, or given twice.
    #[error("lane slot {slot} {reason}")]
    Slot {
        /// The slot.
        slot: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An address not aligned to the bytes it moves, or past the 32-bit shared window.
    #[error("lane slot {slot}: address {address} {reason}")]
    Address {
        /// The slot.
        slot: u32,
        /// Its address.
        address: u32,
        /// What is wrong with it.
        reason: String,
    },
}

/// The cost of one warp-level access of `bytes` per lane (a row's 16 for the matrix
/// instructions) at the given lanes' addresses, by the H100's rules (`docs/gpu-counters.md`):
/// stores in phases of `128 / bytes` lanes; loads served whole when the distinct addresses of
/// their 4-lane groups fit one wavefront, else in those phases; one phase per matrix.
///
/// Errors ([`AccessError`]): a width no shared access has (not 1, 2, 4, 8 or 16 bytes), a
/// slot past 31 or given twice, an address not a multiple of the bytes it moves or whose bytes
/// run past `u32::MAX`.
///
/// ```
/// use codegen::cost::{access_cost, LaneAccess, SharedAccessClass, WavefrontCost};
/// let lanes = |f: &dyn Fn(u32) -> u32| (0..32).map(|l| LaneAccess { slot: l, address: f(l) }).collect::<Vec<_>>();
/// // 32-bit, one bank: 32 wavefronts, 31 of them conflicts.
/// assert_eq!(access_cost(SharedAccessClass::Load, 4, &lanes(&|l| 128 * l))?, WavefrontCost { wavefronts: 32, ideal: 1 });
/// // 64-bit, every lane one address: a load is one wavefront, a store one per half-warp.
/// assert_eq!(access_cost(SharedAccessClass::Load, 8, &lanes(&|_| 0))?.wavefronts, 1);
/// assert_eq!(access_cost(SharedAccessClass::Store, 8, &lanes(&|_| 0))?.wavefronts, 2);
/// // 128-bit contiguous: 4 wavefronts, no conflict.
/// assert_eq!(access_cost(SharedAccessClass::Load, 16, &lanes(&|l| 16 * l))?, WavefrontCost { wavefronts: 4, ideal: 4 });
/// assert!(access_cost(SharedAccessClass::Load, 8, &lanes(&|l| 4 * l)).is_err()); // misaligned
/// # Ok::<(), codegen::cost::AccessError>(())
/// ```
pub fn access_cost(
    class: SharedAccessClass,
    bytes: u32,
    lanes: &[LaneAccess],
) -> Result<WavefrontCost, AccessError> {
    if !matches!(bytes, 1 | 2 | 4 | 8 | 16) {
        return Err(AccessError::Width { bytes });
    }
    let mut seen = 0u32;
    for l in lanes {
        let bit = 1u32
            .checked_shl(l.slot)
            .filter(|_| l.slot < 32)
            .ok_or(AccessError::Slot {
                slot: l.slot,
                reason: "is past the warp's 32",
            })?;
        if seen & bit != 0 {
            return Err(AccessError::Slot {
                slot: l.slot,
                reason: "is given twice",
            });
        }
        seen |= bit;
        if l.address % bytes != 0 {
            return Err(AccessError::Address {
                slot: l.slot,
                address: l.address,
                reason: format!("is not a multiple of the {bytes} bytes it moves"),
            });
        }
        if l.address.checked_add(bytes - 1).is_none() {
            return Err(AccessError::Address {
                slot: l.slot,
                address: l.address,
                reason: "runs past the 32-bit shared window".into(),
            });
        }
    }
    if lanes.is_empty() {
        return Ok(WavefrontCost::default());
    }
    let phase = if bytes <= 4 { 32 } else { 128 / bytes };
    Ok(match class {
        SharedAccessClass::Ldmatrix | SharedAccessClass::Stmatrix => phased(lanes, 16, 8),
        SharedAccessClass::Store => phased(lanes, bytes, phase),
        SharedAccessClass::Load => {
            let unit = if bytes == 16 { 16 } else { 32 };
            let mut cost = WavefrontCost::default();
            for group in &groups(lanes, unit) {
                let ideal = requests(group)
                    .saturating_mul(u64::from(bytes))
                    .div_ceil(128)
                    .max(1);
                let served = if ideal == 1 {
                    bank_depth(group, bytes)
                } else {
                    phased(group, bytes, phase).wavefronts
                };
                cost.wavefronts += served.max(ideal);
                cost.ideal += ideal;
            }
            cost
        }
    })
}

/// The lanes in groups of `size` consecutive slots, in slot order.
fn groups(lanes: &[LaneAccess], size: u32) -> Vec<Vec<LaneAccess>> {
    let mut ids: Vec<u32> = lanes.iter().map(|l| l.slot / size).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.iter()
        .map(|&g| {
            lanes
                .iter()
                .copied()
                .filter(|l| l.slot / size == g)
                .collect()
        })
        .collect()
}

/// Phases of `size` slots, each its own bank depth; the ideal is one per phase.
fn phased(lanes: &[LaneAccess], bytes: u32, size: u32) -> WavefrontCost {
    let phases = groups(lanes, size);
    WavefrontCost {
        wavefronts: phases.iter().map(|p| bank_depth(p, bytes)).sum(),
        ideal: phases.len() as u64,
    }
}

/// The distinct addresses of each aligned 4-lane group, summed.
fn requests(lanes: &[LaneAccess]) -> u64 {
    groups(lanes, 4)
        .iter()
        .map(|q| {
            let mut a: Vec<u32> = q.iter().map(|l| l.address).collect();
            a.sort_unstable();
            a.dedup();
            a.len() as u64
        })
        .sum()
}

/// The largest number of distinct 4-byte words any bank holds among the lanes' bytes.
fn bank_depth(lanes: &[LaneAccess], bytes: u32) -> u64 {
    let mut words: Vec<u32> = Vec::with_capacity(lanes.len() * 4);
    for l in lanes {
        let first = l.address / 4;
        let last = l.address.saturating_add(bytes - 1) / 4; // checked by access_cost
        words.extend(first..=last);
    }
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u64; SHARED_BANKS as usize];
    for w in words {
        if let Some(n) = per_bank.get_mut((w % SHARED_BANKS) as usize) {
            *n += 1;
        }
    }
    per_bank.into_iter().max().unwrap_or(0)
}
