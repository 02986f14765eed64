//! Small random producer/consumer pipelines with aliased buffers, unrolled into hazard-check
//! [`Trace`]s: the generator the oracle tests hold the static check against the explorer with
//! (`alias-alloc/tests/hazard_oracle.rs`).
//!
//! A [`Pipeline`] is a few threads, each one loop body run `iterations` times; ring slots are
//! `(i + shift) mod slots` and phases `((i + shift) / slots + flip) & 1`, as TLX kernels compute
//! them from their accumulated counters. [`generate`] draws one of seven correct shapes (an SMEM
//! ring, a TMA producer, an MMA consumer, three threads over two barriers, two consumers
//! arriving on one barrier, named barriers) with
//! 1–3 slots and 2–4 iterations, where a second buffer aliases the ring's bytes as a `shared`
//! reuse group makes it; then, more often than not, one seeded bug ([`Mutation`]).

use alias_alloc::hazard::{
    BarrierId, Cells, EventId, HazardError, Space, TimelineId, Trace, TraceBuilder,
};

use crate::random_tree::Source;

/// A wait's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `((i + shift) / slots + flip) & 1`.
    Lap {
        /// 0 for a consumer's "full" wait, 1 for a producer's "empty" wait.
        flip: u32,
    },
    /// A constant parity.
    Const(u8),
}

/// One op of a loop body; `shift` offsets the slot index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `wait_barrier bar[s], phase`.
    Wait {
        /// The barrier ring.
        bar: usize,
        /// The slot offset.
        shift: u32,
        /// The phase.
        phase: Phase,
    },
    /// `arrive_barrier bar[s], 1`.
    Arrive {
        /// The barrier ring.
        bar: usize,
        /// The slot offset.
        shift: u32,
    },
    /// A read or write of `buf[s]`.
    Access {
        /// The buffer ring.
        buf: usize,
        /// The slot offset.
        shift: u32,
        /// Whether it writes.
        write: bool,
    },
    /// `barrier_expect bar[s], bytes of buf`.
    Expect {
        /// The barrier ring.
        bar: usize,
        /// The buffer whose slot bytes are expected.
        buf: usize,
        /// The slot offset.
        shift: u32,
    },
    /// `async_tma_copy_global_to_local` into `buf[s]`, completing on `bar[s]`.
    Tma {
        /// The buffer ring.
        buf: usize,
        /// The barrier ring.
        bar: usize,
        /// The slot offset.
        shift: u32,
    },
    /// `tc_gen5_mma` reading `read[s]`, accumulating into `acc` (one slot), arriving on
    /// `bars[s]` when done.
    Mma {
        /// The operand ring.
        read: usize,
        /// The accumulator.
        acc: usize,
        /// The slot offset.
        shift: u32,
        /// Barrier rings the MMA arrives on.
        bars: Vec<usize>,
    },
    /// `tc_gen5_commit bar[s]`.
    Commit {
        /// The barrier ring.
        bar: usize,
        /// The slot offset.
        shift: u32,
    },
    /// `bar.sync id` among `threads` threads.
    Named {
        /// The named barrier.
        id: u32,
        /// The threads taking part.
        threads: u32,
    },
}

/// A ring of mbarriers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ring {
    /// Its name.
    pub name: &'static str,
    /// Its slots.
    pub slots: u32,
    /// Arrivals per phase.
    pub count: u32,
}

/// A ring of buffers: slot `s` is `base + s · slot_bytes … + slot_bytes` of `space`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    /// Its name.
    pub name: &'static str,
    /// Its memory.
    pub space: Space,
    /// Its first cell.
    pub base: u64,
    /// Cells per slot.
    pub slot_bytes: u64,
    /// Its slots.
    pub slots: u32,
}

/// A pipeline: threads looping over one body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// Loop trip count.
    pub iterations: u32,
    /// Barrier rings.
    pub barriers: Vec<Ring>,
    /// Buffer rings.
    pub buffers: Vec<Buffer>,
    /// Threads: name and body.
    pub threads: Vec<(&'static str, Vec<Op>)>,
    /// Ops after the loop: the thread (an index in `threads`) and the op, evaluated at
    /// `i = iterations` (the counters carried past the loop, as TLX kernels carry theirs).
    pub epilogue: Vec<(usize, Op)>,
}

/// A seeded bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// Delete a wait.
    DeleteWait,
    /// Delete an arrive, commit or named barrier.
    DeleteArrive,
    /// Flip a wait's phase.
    FlipPhase,
    /// Make a wait's phase constant.
    ConstPhase,
    /// Take the next slot in one op.
    SlotPlusOne,
    /// Move an arrive one op earlier.
    ArriveEarlier,
    /// Shrink the buffer rings by one slot (the barriers keep theirs).
    ShrinkRing,
    /// Replace a commit by a plain arrive (it no longer waits for the MMAs).
    CommitToArrive,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: [Mutation; 8] = [
        Mutation::DeleteWait,
        Mutation::DeleteArrive,
        Mutation::FlipPhase,
        Mutation::ConstPhase,
        Mutation::SlotPlusOne,
        Mutation::ArriveEarlier,
        Mutation::ShrinkRing,
        Mutation::CommitToArrive,
    ];
}

impl Pipeline {
    fn slot(slots: u32, i: u32, shift: u32) -> u32 {
        (i + shift) % slots.max(1)
    }

    /// The trace of every thread running its body `iterations` times.
    pub fn trace(&self) -> Result<Trace, HazardError> {
        Ok(self.unrolled()?.0)
    }

    /// The laps after which every slot and phase comes round: lcm(2, 2 · barrier slots, buffer
    /// slots).
    pub fn period(&self) -> u32 {
        let gcd = |mut a: u32, mut b: u32| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let lcm = |a: u32, b: u32| a / gcd(a, b) * b;
        let rings = self.barriers.iter().map(|r| 2 * r.slots.max(1));
        let buffers = self.buffers.iter().map(|b| b.slots.max(1));
        rings.chain(buffers).fold(2, lcm)
    }

    /// Gives the first thread (the producer of shapes 0–5) an epilogue that reuses the ring's
    /// bytes, as a kernel's epilogue reuses its mainloop's shared memory: after the loop it waits
    /// for the consumers to free slot `iterations mod R` (the wait lap `iterations` would take)
    /// and writes the alias `b` there. Returns false where there is no `empty` ring.
    pub fn drain_and_reuse(&mut self) -> bool {
        if self.barriers.get(1).map(|r| r.name) != Some("empty") || self.buffers.len() < 2 {
            return false;
        }
        self.epilogue = vec![
            (
                0,
                Op::Wait {
                    bar: 1,
                    shift: 0,
                    phase: Phase::Lap { flip: 1 },
                },
            ),
            (
                0,
                Op::Access {
                    buf: 1,
                    shift: 0,
                    write: true,
                },
            ),
        ];
        true
    }

    /// The trace and each event's lap, the epilogue's lap `iterations` (for
    /// [`alias_alloc::hazard::Looped`]).
    pub fn unrolled(&self) -> Result<(Trace, Vec<u32>), HazardError> {
        let mut laps = Vec::new();
        let mut t = TraceBuilder::new();
        let threads: Vec<TimelineId> = self.threads.iter().map(|(n, _)| t.partition(n)).collect();
        let mut bars = Vec::new();
        for r in &self.barriers {
            let ids: Vec<_> = (0..r.slots)
                .map(|s| t.barrier(&format!("{}[{s}]", r.name), r.count))
                .collect::<Result<_, _>>()?;
            bars.push(ids);
        }
        let cells = |buf: usize, i: u32, shift: u32| {
            let b = &self.buffers[buf];
            let s = u64::from(Self::slot(b.slots, i, shift));
            Cells::range(b.space, b.base + s * b.slot_bytes, b.slot_bytes)
        };
        let bar = |ring: usize, i: u32, shift: u32| {
            let r = &self.barriers[ring];
            bars[ring][Self::slot(r.slots, i, shift) as usize]
        };
        for (k, (name, body)) in self.threads.iter().enumerate() {
            let th = threads[k];
            let epilogue = self
                .epilogue
                .iter()
                .filter(|(t, _)| *t == k)
                .map(|(_, op)| (self.iterations, op));
            let laps_ops = (0..self.iterations).flat_map(|i| body.iter().map(move |op| (i, op)));
            for (i, op) in laps_ops.chain(epilogue) {
                let label = format!("{name} it{i} {op:?}");
                match op {
                    Op::Wait {
                        bar: r,
                        shift,
                        phase,
                    } => {
                        let slots = self.barriers[*r].slots;
                        let parity = match phase {
                            Phase::Lap { flip } => (((i + shift) / slots + flip) & 1) as u8,
                            Phase::Const(p) => *p,
                        };
                        t.wait(th, &label, bar(*r, i, *shift), parity)?;
                    }
                    Op::Arrive { bar: r, shift } => {
                        t.arrive(th, &label, bar(*r, i, *shift), 1)?;
                    }
                    Op::Access { buf, shift, write } => {
                        t.access(th, &label, cells(*buf, i, *shift), *write)?;
                    }
                    Op::Expect { bar: r, buf, shift } => {
                        let bytes = self.buffers[*buf].slot_bytes;
                        t.barrier_expect(th, &label, bar(*r, i, *shift), bytes)?;
                    }
                    Op::Tma { buf, bar: r, shift } => {
                        let bytes = self.buffers[*buf].slot_bytes;
                        t.tma_load(
                            th,
                            &label,
                            cells(*buf, i, *shift),
                            bar(*r, i, *shift),
                            bytes,
                        )?;
                    }
                    Op::Mma {
                        read,
                        acc,
                        shift,
                        bars: rs,
                    } => {
                        let arrive: Vec<_> = rs.iter().map(|&r| bar(r, i, *shift)).collect();
                        let d = cells(*acc, 0, 0);
                        t.mma(
                            th,
                            &label,
                            &[cells(*read, i, *shift), d.clone()],
                            &[d],
                            &arrive,
                        )?;
                    }
                    Op::Commit { bar: r, shift } => {
                        t.commit(th, &label, bar(*r, i, *shift))?;
                    }
                    Op::Named { id, threads } => {
                        t.named_barrier(th, &label, *id, *threads)?;
                    }
                }
                laps.resize(t.len(), i);
            }
        }
        Ok((t.build()?, laps))
    }

    /// Applies `m` at the `at`-th place it fits (counted over every thread's ops, wrapping);
    /// returns whether anything changed.
    pub fn mutate(&mut self, m: Mutation, at: u32) -> bool {
        if m == Mutation::ShrinkRing {
            let mut changed = false;
            for b in self.buffers.iter_mut().filter(|b| b.slots > 1) {
                b.slots -= 1;
                changed = true;
            }
            return changed;
        }
        let fits = |op: &Op| match m {
            Mutation::DeleteWait | Mutation::FlipPhase | Mutation::ConstPhase => {
                matches!(op, Op::Wait { .. })
            }
            Mutation::DeleteArrive => {
                matches!(op, Op::Arrive { .. } | Op::Commit { .. } | Op::Named { .. })
            }
            Mutation::SlotPlusOne => matches!(
                op,
                Op::Wait { .. } | Op::Arrive { .. } | Op::Access { .. } | Op::Commit { .. }
            ),
            Mutation::ArriveEarlier => matches!(op, Op::Arrive { .. } | Op::Commit { .. }),
            Mutation::CommitToArrive => matches!(op, Op::Commit { .. }),
            Mutation::ShrinkRing => false,
        };
        let places: Vec<(usize, usize)> = self
            .threads
            .iter()
            .enumerate()
            .flat_map(|(k, (_, body))| {
                body.iter()
                    .enumerate()
                    .filter(|(_, op)| fits(op))
                    .map(move |(j, _)| (k, j))
            })
            .filter(|&(_, j)| m != Mutation::ArriveEarlier || j > 0)
            .collect();
        if places.is_empty() {
            return false;
        }
        let (k, j) = places[at as usize % places.len()];
        let body = &mut self.threads[k].1;
        match (m, &mut body[j]) {
            (Mutation::DeleteWait | Mutation::DeleteArrive, _) => {
                body.remove(j);
            }
            (Mutation::FlipPhase, Op::Wait { phase, .. }) => {
                *phase = match *phase {
                    Phase::Lap { flip } => Phase::Lap { flip: flip ^ 1 },
                    Phase::Const(p) => Phase::Const(p ^ 1),
                };
            }
            (Mutation::ConstPhase, Op::Wait { phase, .. }) => {
                *phase = match *phase {
                    Phase::Lap { flip } => Phase::Const(flip as u8),
                    Phase::Const(p) => Phase::Const(p ^ 1),
                };
            }
            (
                Mutation::SlotPlusOne,
                Op::Wait { shift, .. }
                | Op::Arrive { shift, .. }
                | Op::Access { shift, .. }
                | Op::Commit { shift, .. },
            ) => *shift += 1,
            (Mutation::ArriveEarlier, _) => body.swap(j - 1, j),
            (Mutation::CommitToArrive, Op::Commit { bar, shift }) => {
                body[j] = Op::Arrive {
                    bar: *bar,
                    shift: *shift,
                };
            }
            _ => return false,
        }
        true
    }
}

const A: usize = 0;
const B: usize = 1;
const D: usize = 2;

fn lap(flip: u32) -> Phase {
    Phase::Lap { flip }
}

/// A correct pipeline of the given shape (0–6), ring and trip count.
pub fn shape(kind: u32, slots: u32, iterations: u32, aliased: bool) -> Pipeline {
    let ring = |name, count| Ring { name, slots, count };
    // A: the ring; B: A's reuse-group partner (the same bytes) or its own bytes; D: a TMEM
    // accumulator.
    let buffers = vec![
        Buffer {
            name: "a",
            space: Space::Smem,
            base: 0,
            slot_bytes: 64,
            slots,
        },
        Buffer {
            name: "b",
            space: Space::Smem,
            base: if aliased { 0 } else { 1024 },
            slot_bytes: 64,
            slots,
        },
        Buffer {
            name: "d",
            space: Space::Tmem,
            base: 0,
            slot_bytes: 128 * 32,
            slots: 1,
        },
    ];
    let (full, empty, mid) = (0, 1, 2);
    let wait = |bar, flip| Op::Wait {
        bar,
        shift: 0,
        phase: lap(flip),
    };
    let arrive = |bar| Op::Arrive { bar, shift: 0 };
    let access = |buf, write| Op::Access {
        buf,
        shift: 0,
        write,
    };
    // The consumer of shapes 0 and 1: read the slot, write its alias, free the slot.
    let consumer = vec![
        wait(full, 0),
        access(A, false),
        access(B, true),
        arrive(empty),
    ];
    let (barriers, threads) = match kind % 7 {
        0 => (
            vec![ring("full", 1), ring("empty", 1)],
            vec![
                (
                    "producer",
                    vec![wait(empty, 1), access(A, true), arrive(full)],
                ),
                ("consumer", consumer.clone()),
            ],
        ),
        1 => (
            vec![ring("full", 1), ring("empty", 1)],
            vec![
                (
                    "producer",
                    vec![
                        wait(empty, 1),
                        Op::Expect {
                            bar: full,
                            buf: A,
                            shift: 0,
                        },
                        Op::Tma {
                            buf: A,
                            bar: full,
                            shift: 0,
                        },
                    ],
                ),
                ("consumer", consumer.clone()),
            ],
        ),
        2 => (
            vec![ring("full", 1), ring("empty", 1)],
            vec![
                (
                    "producer",
                    vec![
                        wait(empty, 1),
                        access(B, true),
                        access(A, true),
                        arrive(full),
                    ],
                ),
                (
                    "mma",
                    vec![
                        wait(full, 0),
                        Op::Mma {
                            read: A,
                            acc: D,
                            shift: 0,
                            bars: vec![],
                        },
                        Op::Commit {
                            bar: empty,
                            shift: 0,
                        },
                    ],
                ),
            ],
        ),
        3 => (
            vec![ring("full", 1), ring("empty", 1), ring("mid", 1)],
            vec![
                (
                    "producer",
                    vec![wait(empty, 1), access(A, true), arrive(full)],
                ),
                (
                    "consumer1",
                    vec![wait(full, 0), access(A, false), arrive(mid)],
                ),
                (
                    "consumer2",
                    vec![wait(mid, 0), access(B, true), arrive(empty)],
                ),
            ],
        ),
        5 => (
            // Two consumers free each slot together: `empty` counts two arrivals a phase.
            vec![ring("full", 2), ring("empty", 2)],
            vec![
                (
                    "producer",
                    vec![wait(empty, 1), access(A, true), arrive(full), arrive(full)],
                ),
                (
                    "consumer1",
                    vec![wait(full, 0), access(A, false), arrive(empty)],
                ),
                (
                    "consumer2",
                    vec![wait(full, 0), access(B, false), arrive(empty)],
                ),
            ],
        ),
        _ => (
            vec![],
            vec![
                (
                    "producer",
                    vec![
                        access(A, true),
                        Op::Named { id: 1, threads: 2 },
                        Op::Named { id: 2, threads: 2 },
                    ],
                ),
                (
                    "consumer",
                    vec![
                        Op::Named { id: 1, threads: 2 },
                        access(B, false),
                        Op::Named { id: 2, threads: 2 },
                    ],
                ),
            ],
        ),
    };
    Pipeline {
        iterations,
        barriers,
        buffers,
        threads,
        epilogue: vec![],
    }
}

/// A CLC-like hand-off: a producer waits for `empty` (count `k`), expects the response's bytes
/// on `full` and copies it in by TMA; `k` consumers wait for `full`, read the response and
/// arrive on `empty` — and two of them pass a tile between them on a ring of their own: the
/// arrivals of many threads on one barrier, which a persistent set may take one at a time
/// (`alias-alloc/src/hazard/outside.rs`). Two laps; up to four consumers.
pub fn fan_in(k: usize, slots: u32, count: u32) -> Pipeline {
    let buffer = |name, base, slots| Buffer {
        name,
        space: Space::Smem,
        base,
        slot_bytes: 16,
        slots,
    };
    let ring = |name, count| Ring { name, slots, count };
    let wait = |bar, flip| Op::Wait {
        bar,
        shift: 0,
        phase: Phase::Lap { flip },
    };
    let arrive = |bar| Op::Arrive { bar, shift: 0 };
    let access = |buf, write| Op::Access {
        buf,
        shift: 0,
        write,
    };
    let (full, empty, handed, taken) = (0, 1, 2, 3);
    let mut threads = vec![(
        "producer",
        vec![
            wait(empty, 1),
            Op::Expect {
                bar: full,
                buf: 0,
                shift: 0,
            },
            Op::Tma {
                buf: 0,
                bar: full,
                shift: 0,
            },
        ],
    )];
    let names = ["consumer0", "consumer1", "consumer2", "consumer3"];
    for (c, name) in names.into_iter().take(k).enumerate() {
        let mut body = vec![wait(full, 0), access(0, false)];
        match c {
            0 => body.extend([wait(taken, 1), access(1, true), arrive(handed)]),
            1 => body.extend([wait(handed, 0), access(1, false), arrive(taken)]),
            _ => {}
        }
        body.push(arrive(empty));
        threads.push((name, body));
    }
    Pipeline {
        iterations: 2,
        barriers: vec![
            ring("full", 1),
            ring("empty", count),
            ring("handed", 1),
            ring("taken", 1),
        ],
        buffers: vec![buffer("response", 0, slots), buffer("tile", 4096, slots)],
        threads,
        epilogue: vec![],
    }
}

/// A random pipeline: a correct shape, then (three times in five) one seeded bug.
pub fn generate(src: &mut impl Source) -> (Pipeline, Option<Mutation>) {
    let kind = src.below(7);
    let slots = 1 + src.below(3);
    let iterations = 2 + src.below(3);
    let aliased = !src.chance(20);
    let mut p = shape(kind, slots, iterations, aliased);
    if src.chance(40) {
        return (p, None);
    }
    let m = src.pick(&Mutation::ALL);
    let at = src.below(16);
    let changed = p.mutate(m, at);
    (p, changed.then_some(m))
}

/// The smallest correct hand-off: the producer stores a tile and arrives on `full` (count 1);
/// the consumer waits for phase 0 and loads the tile. Returns the trace and
/// `[store, arrive, wait, load]`.
pub fn handoff() -> Result<(Trace, [EventId; 4]), HazardError> {
    let mut t = TraceBuilder::new();
    let (p, c) = (t.partition("producer"), t.partition("consumer"));
    let full = t.barrier("full", 1)?;
    let tile = Cells::range(Space::Smem, 0, 64);
    let store = t.access(p, "local_store", tile.clone(), true)?;
    let arrive = t.arrive(p, "arrive_barrier", full, 1)?;
    let wait = t.wait(c, "wait_barrier", full, 0)?;
    let load = t.access(c, "local_load", tile, false)?;
    Ok((t.build()?, [store, arrive, wait, load]))
}

/// A wait that passes or hangs by schedule: the producer arrives twice on `full` (count 1), the
/// consumer waits for phase 0 — it passes between the arrives, and never after both (the
/// parity is back at 0). Returns the trace, `full` and `[first arrive, second arrive, wait]`.
pub fn arrived_twice() -> Result<(Trace, BarrierId, [EventId; 3]), HazardError> {
    let mut t = TraceBuilder::new();
    let (p, c) = (t.partition("producer"), t.partition("consumer"));
    let full = t.barrier("full", 1)?;
    let first = t.arrive(p, "arrive 0", full, 1)?;
    let second = t.arrive(p, "arrive 1", full, 1)?;
    let wait = t.wait(c, "wait_barrier", full, 0)?;
    Ok((t.build()?, full, [first, second, wait]))
}
