//! The scratch a conversion goes through, chosen by the hardware's figure: each scratch
//! Triton's `optimalSwizzling` weighs ([`scratch_candidates`]) is emitted as the conversion's
//! round trip ([`round_trip_in_rounds`]), run by the interpreter and costed by the H100's rules
//! ([`run_cost`]); the one with the fewest shared wavefronts wins (ties: the smaller scratch,
//! then Triton's own pick). Triton ranks the same candidates by its formula, which miscounts
//! 1- and 2-byte accesses and wide loads whose lanes share addresses (`docs/gpu-counters.md`);
//! [`optimal_scratch`] keeps its choice, for parity.

use super::counters::SharedCounters;
use super::kernel::{run_cost, CostError};
use crate::smem::kernels::round_trip_in_rounds;
use crate::smem::{optimal_scratch, scratch_candidates, Scratch};
use linear_layout::LinearLayout;

/// The hardware's choice of scratch beside Triton's, with what each costs.
///
/// ```
/// use codegen::cost::fewest_wavefronts_scratch;
/// use linear_layout::LinearLayout;
/// let l = |reg: &str, lane: &str| LinearLayout::from_bases(
///     &[("register", (0..5).map(|b| if reg == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("lane", (0..5).map(|b| if lane == "c" { vec![0, 1 << b] } else { vec![1 << b, 0] }).collect()),
///       ("warp", vec![])],
///     &[("dim0", 32), ("dim1", 32)], true);
/// let c = fewest_wavefronts_scratch(&l("c", "r")?, &l("r", "c")?, 32)?;
/// assert!(c.counters.wavefronts() <= c.triton_counters.wavefronts());
/// assert_eq!(c.candidates, codegen::smem::scratch_candidates(&l("c", "r")?, &l("r", "c")?, 32)?.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScratchChoice {
    /// The scratch with the fewest wavefronts.
    pub scratch: Scratch,
    /// What its round trip costs.
    pub counters: SharedCounters,
    /// Triton's pick ([`optimal_scratch`]).
    pub triton: Scratch,
    /// What Triton's pick's round trip costs.
    pub triton_counters: SharedCounters,
    /// Candidates weighed.
    pub candidates: usize,
}

impl ScratchChoice {
    /// Whether the hardware's choice is Triton's.
    ///
    /// ```
    /// # use codegen::cost::fewest_wavefronts_scratch;
    /// # use linear_layout::LinearLayout;
    /// # let l = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]),
    /// #     ("lane", vec![vec![4], vec![8], vec![16], vec![32], vec![64]]), ("warp", vec![])], &[("dim0", 128)], true)?;
    /// // Nothing to choose between for a conversion to itself.
    /// assert!(fewest_wavefronts_scratch(&l, &l, 32)?.is_tritons());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_tritons(&self) -> bool {
        self.scratch.layout == self.triton.layout
    }
}

/// The scratch among [`scratch_candidates`] whose conversion `src → scratch → dst` (of
/// `bits`-bit elements, in the scratch's rounds) takes the fewest shared wavefronts on an
/// H100, by the cost model. A candidate the emitter or the model cannot handle is passed
/// over; Triton's own pick must be costed.
///
/// Errors: [`CostError::Emit`] (the candidates, or Triton's pick's kernel), and those of
/// [`run_cost`] for Triton's pick.
pub fn fewest_wavefronts_scratch(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
) -> Result<ScratchChoice, CostError> {
    let cost = |s: &Scratch| -> Result<SharedCounters, CostError> {
        let k = round_trip_in_rounds("scratch", &s.layout, bits, src, dst, s.bytes)?;
        Ok(run_cost(&k.kernel, &k.config(), &k.params(None))?.counters)
    };
    let triton = optimal_scratch(src, dst, bits)?;
    let triton_counters = cost(&triton)?;
    let candidates = scratch_candidates(src, dst, bits)?;
    let mut best = (triton.clone(), triton_counters);
    for s in &candidates {
        let Ok(counters) = cost(s) else {
            continue;
        };
        let key = |s: &Scratch, c: &SharedCounters| (c.wavefronts(), s.bytes);
        if key(s, &counters) < key(&best.0, &best.1) {
            best = (s.clone(), counters);
        }
    }
    Ok(ScratchChoice {
        scratch: best.0,
        counters: best.1,
        triton,
        triton_counters,
        candidates: candidates.len(),
    })
}
