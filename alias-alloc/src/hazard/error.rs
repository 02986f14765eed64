//! [`HazardError`]: what the hazard check refuses.

use thiserror::Error;

/// Why a trace could not be built or checked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HazardError {
    /// An event id past the trace.
    #[error("event {event} is not in the trace")]
    NoSuchEvent {
        /// The id.
        event: usize,
    },
    /// A barrier id past the trace.
    #[error("barrier {barrier} is not in the trace")]
    NoSuchBarrier {
        /// The id.
        barrier: usize,
    },
    /// A timeline id past the trace.
    #[error("timeline {timeline} is not in the trace")]
    NoSuchTimeline {
        /// The id.
        timeline: usize,
    },
    /// A sync group that is missing or does not list its member.
    #[error("named-barrier group {group} is not in the trace or does not list its member")]
    NoSuchSyncGroup {
        /// The group.
        group: usize,
    },
    /// An op that only a partition issues, given another timeline.
    #[error("timeline {timeline} is not a partition: only partitions issue ops")]
    NotAPartition {
        /// The timeline.
        timeline: usize,
    },
    /// A structural predecessor that does not come first.
    #[error("event {event} comes after {predecessor}, which is not earlier in the trace")]
    PredecessorAfter {
        /// The event.
        event: usize,
        /// Its predecessor.
        predecessor: usize,
    },
    /// `init_barrier b, 0`.
    #[error("barrier '{barrier}': an arrival count of 0 completes no phase")]
    ZeroCount {
        /// The barrier.
        barrier: String,
    },
    /// A wait's phase that is neither 0 nor 1.
    #[error("{label}: the phase parity must be 0 or 1, got {parity}")]
    BadParity {
        /// The op.
        label: String,
        /// The value.
        parity: u64,
    },
    /// One named barrier used with two thread counts.
    #[error("named barrier {id}: taken by {first} threads first, now by {now}")]
    SyncThreads {
        /// The barrier id.
        id: u32,
        /// The first count.
        first: u32,
        /// The count now.
        now: u32,
    },
    /// The explorer ran out of its state budget.
    #[error("the explorer visited {states} states without finishing (budget {budget})")]
    Budget {
        /// The states visited.
        states: usize,
        /// The budget.
        budget: usize,
    },
    /// The module could not be read or planned.
    #[error("the module: {message}")]
    Module {
        /// What the reader or the planner said.
        message: String,
    },
    /// An op the model does not have, or a value the synchronisation depends on that the
    /// check cannot compute.
    #[error("line {line}: {op}: {reason}")]
    Unsupported {
        /// The op.
        op: String,
        /// Its line.
        line: usize,
        /// Why.
        reason: String,
    },
    /// A `memdesc_index` past its buffers.
    #[error("line {line}: buffer index {index} of '{buffer}', which has {buffers} buffers")]
    IndexOutOfRange {
        /// The buffer.
        buffer: String,
        /// The index.
        index: i64,
        /// Its buffers.
        buffers: u64,
        /// The line.
        line: usize,
    },
    /// The trace grew past its limit.
    #[error("the trace passed {max} events with {params}: give smaller loop bounds with --param NAME=VALUE, or a larger --max-events")]
    TooManyEvents {
        /// The limit.
        max: usize,
        /// The parameters used.
        params: String,
    },
    /// A parameter the kernel does not have.
    #[error("no integer parameter '{name}' (the kernel's: {params})")]
    NoSuchParam {
        /// The name given.
        name: String,
        /// The kernel's.
        params: String,
    },
    /// A parameter given a value where every value of it is asked for (every trip count of
    /// the loops it bounds).
    #[error("'{name}' bounds a loop: every trip count needs it free (leave it out of the parameters given)")]
    PinnedBound {
        /// The parameter.
        name: String,
    },
    /// A barrier used (arrive, wait, expect, copy) where no `init_barrier` initialised it.
    #[error("line {line}: {op} uses barrier '{barrier}', which no init_barrier initialised")]
    Uninitialized {
        /// The barrier.
        barrier: String,
        /// The op.
        op: String,
        /// Its line.
        line: usize,
    },
    /// An `init_barrier` of a barrier already initialised (and not invalidated).
    #[error("line {line}: init_barrier of '{barrier}', which is already initialised")]
    Reinitialized {
        /// The barrier.
        barrier: String,
        /// The line.
        line: usize,
    },
    /// An unrolled loop whose laps do not repeat with the period given ([`super::Looped`]).
    #[error("event {event} (lap {lap}): {what}; the laps do not repeat every {period} laps")]
    NotPeriodic {
        /// The event.
        event: usize,
        /// Its lap.
        lap: u32,
        /// The period.
        period: u32,
        /// What differs.
        what: &'static str,
    },
    /// A read whose laps do not fit the laps of one kind per key read before
    /// ([`super::LapModel`]).
    #[error("event {event} (lap {lap}): {what}; the laps are not one kind per key")]
    LapKind {
        /// The event (of the read being added).
        event: usize,
        /// Its lap.
        lap: u32,
        /// What differs.
        what: &'static str,
    },
    /// Laps that do not fit the trace: not one per event, or a run too short (the first two
    /// periods past the head, a later one past the predecessors the head reaches).
    #[error("{laps} laps for {events} events, trip count {unrolled}, period {period}: give one lap per event, the first run two periods or more past the head")]
    Laps {
        /// The laps given.
        laps: usize,
        /// The trace's events.
        events: usize,
        /// The run's trip count.
        unrolled: u32,
        /// The period.
        period: u32,
    },
}

impl HazardError {
    /// The exit code `linalias check` gives this refusal: 2 for input it cannot read (the
    /// module, a parameter it does not have), 1 for a fault of the kernel the reader meets (a
    /// buffer index past its ring, a barrier used uninitialised or initialised twice), 3 for
    /// what the check cannot decide (an op outside the model, a trace past its limit).
    ///
    /// ```
    /// use alias_alloc::hazard::HazardError;
    /// assert_eq!(HazardError::Module { message: "no tt.func".into() }.exit_code(), 2);
    /// assert_eq!(HazardError::TooManyEvents { max: 20_000, params: String::new() }.exit_code(), 3);
    /// ```
    pub fn exit_code(&self) -> u8 {
        match self {
            HazardError::Module { .. }
            | HazardError::NoSuchParam { .. }
            | HazardError::PinnedBound { .. } => 2,
            HazardError::IndexOutOfRange { .. }
            | HazardError::Uninitialized { .. }
            | HazardError::Reinitialized { .. } => 1,
            _ => 3,
        }
    }
}
