//! [`SharedCounters`]: the six shared-memory counters Nsight Compute reports for a launch.

use std::ops::AddAssign;

use super::wavefront::{SharedAccessClass, WavefrontCost};

/// Shared-memory instructions, wavefronts and bank conflicts of a kernel launch, under the
/// names of Nsight Compute's metrics ([`SharedCounters::METRICS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SharedCounters {
    /// `smsp__inst_executed_op_shared_ld.sum`: warp-level `ld.shared` executed.
    pub load_instructions: u64,
    /// `smsp__inst_executed_op_shared_st.sum`: warp-level `st.shared` executed.
    pub store_instructions: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum` (`ldmatrix` included).
    pub load_wavefronts: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum` (`stmatrix` included).
    pub store_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`.
    pub load_bank_conflicts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum`.
    pub store_bank_conflicts: u64,
}

impl SharedCounters {
    /// The metric names, in the order of [`SharedCounters::values`].
    ///
    /// ```
    /// assert_eq!(codegen::cost::SharedCounters::METRICS[0], "smsp__inst_executed_op_shared_ld.sum");
    /// ```
    pub const METRICS: [&'static str; 6] = [
        "smsp__inst_executed_op_shared_ld.sum",
        "smsp__inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    ];

    /// The counts, in the order of [`SharedCounters::METRICS`].
    ///
    /// ```
    /// use codegen::cost::SharedCounters;
    /// let c = SharedCounters { store_wavefronts: 4, ..SharedCounters::default() };
    /// assert_eq!(c.values(), [0, 0, 0, 4, 0, 0]);
    /// ```
    pub fn values(&self) -> [u64; 6] {
        [
            self.load_instructions,
            self.store_instructions,
            self.load_wavefronts,
            self.store_wavefronts,
            self.load_bank_conflicts,
            self.store_bank_conflicts,
        ]
    }

    /// The counters from metric values in the order of [`SharedCounters::METRICS`].
    ///
    /// ```
    /// use codegen::cost::SharedCounters;
    /// let c = SharedCounters::from_values([1, 2, 3, 4, 5, 6]);
    /// assert_eq!(c.values(), [1, 2, 3, 4, 5, 6]);
    /// ```
    pub fn from_values(v: [u64; 6]) -> SharedCounters {
        let [load_instructions, store_instructions, load_wavefronts, store_wavefronts, load_bank_conflicts, store_bank_conflicts] =
            v;
        SharedCounters {
            load_instructions,
            store_instructions,
            load_wavefronts,
            store_wavefronts,
            load_bank_conflicts,
            store_bank_conflicts,
        }
    }

    /// The counters of one warp-level access of class `class` costing `cost`.
    ///
    /// ```
    /// use codegen::cost::{SharedAccessClass, SharedCounters, WavefrontCost};
    /// let c = SharedCounters::of_access(SharedAccessClass::Ldmatrix, WavefrontCost { wavefronts: 8, ideal: 4 });
    /// assert_eq!(c.values(), [0, 0, 8, 0, 4, 0]);
    /// ```
    pub fn of_access(class: SharedAccessClass, cost: WavefrontCost) -> SharedCounters {
        let counted = u64::from(class.is_counted());
        if class.is_load() {
            SharedCounters {
                load_instructions: counted,
                load_wavefronts: cost.wavefronts,
                load_bank_conflicts: cost.bank_conflicts(),
                ..SharedCounters::default()
            }
        } else {
            SharedCounters {
                store_instructions: counted,
                store_wavefronts: cost.wavefronts,
                store_bank_conflicts: cost.bank_conflicts(),
                ..SharedCounters::default()
            }
        }
    }

    /// Load plus store wavefronts.
    ///
    /// ```
    /// use codegen::cost::SharedCounters;
    /// assert_eq!(SharedCounters::from_values([0, 0, 3, 4, 0, 0]).wavefronts(), 7);
    /// ```
    pub fn wavefronts(&self) -> u64 {
        self.load_wavefronts + self.store_wavefronts
    }
}

impl AddAssign for SharedCounters {
    fn add_assign(&mut self, o: SharedCounters) {
        let (a, b) = (self.values(), o.values());
        *self = SharedCounters::from_values(std::array::from_fn(|i| {
            a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0)
        }));
    }
}
