//! [`TripCountProof`]: a kernel at every trip count at once (`linalias check
//! --every-trip-count`): its trace cut into laps ([`kernel_laps`]), read as the loop run
//! forever ([`Looped`]) from one run per residue and checked against it at every trip count up
//! to a period past those, explored over every trip count from the least it decides, and the
//! trip counts below explored one by one (`docs/hazard-check.md`, *Every trip count*); a
//! persistent kernel the same way at every tile count, one lap a tile
//! ([`TripCountProof::tiles`], `--every-tile-count`; *Every tile count*).

use std::cell::RefCell;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::every_trip_count::EveryTripCount;
use super::explore::{explore_reduced, Exploration};
use super::kernel_laps::kernel_laps;
use super::ledger::open_phases;
use super::looped::{Looped, Run};
use super::read::{KernelReader, KernelTrace, ReadOptions};
use super::sweep::{lcm, TripCounts};
use super::tile_laps::tile_laps;
use super::trace::EventId;
use super::HazardError;

/// The states [`TripCountProof::new`] lets the explorer visit, over every trip count and at
/// each trip count below the least.
pub const PROOF_BUDGET: usize = 2_000_000;

/// A kernel at every trip count of its loops.
#[derive(Debug, Clone)]
pub struct TripCountProof {
    /// What is counted (laps or tiles), what sets the count, what is held fixed.
    pub counted: Counted,
    /// The laps after which the kernel's ring slots and phases repeat.
    pub period: u32,
    /// The laps taken as they are: prologues and the first lap every partition loops in.
    pub head: u32,
    /// The kernel's trip counts the model is read from, first and last.
    pub model: (u32, u32),
    /// The trip counts checked against the model, lap by lap, first and last.
    pub checked: (u32, u32),
    /// The least trip count decided at once.
    pub least: u32,
    /// What every trip count from `least` on does ([`Looped::refute`]: every interleaving, or
    /// up to the first that goes wrong; its trip counts are the kernel's less one: the loop's
    /// last lap goes with the epilogue).
    pub every: EveryTripCount,
    /// `every`'s races, arrivals past a phase and the ops a hang leaves waiting, each op named
    /// by its line in the kernel (`race: ttng.tc_gen5_mma line 350 p_tiles[0] and
    /// ttng.tmem_store line 203 p_tiles[0], 1 lap later`).
    pub findings: Vec<String>,
    /// Each trip count below `least` with what every interleaving of it does
    /// ([`explore_reduced`]), or why it was not explored to the end.
    pub below: Vec<(u32, Result<Exploration, HazardError>)>,
    /// The least trip count read (every one below the least, and from it to a period past the
    /// model's) whose arrivals leave a waited barrier in the middle of a phase
    /// ([`open_phases`]), with each such barrier (`mp_join_0[0]: 1 of 4 arrivals past its
    /// last whole phase`).
    pub open: Option<(u32, Vec<String>)>,
}

impl TripCountProof {
    /// Proves or refutes `text` at every trip count of the loops its parameters bound, as read
    /// under `opts` (`opts.params` may not fix a loop bound: [`HazardError::PinnedBound`]). A
    /// lap is the shortest step of the loops a bound bounds; a loop stepping a multiple of it
    /// runs every few laps. Refuses ([`HazardError::Unsupported`]) a kernel with no
    /// parameter-bounded loop or with a step no multiple of the shortest, and what
    /// [`kernel_laps`] and [`Looped::runs`] refuse.
    ///
    /// ```
    /// use alias_alloc::hazard::{ReadOptions, TripCountProof, PROOF_BUDGET};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_ws_pipelined_fp8/before.mlir");
    /// # let text = std::fs::read_to_string(path)
    /// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let proof = TripCountProof::new(&text, &ReadOptions::default(), PROOF_BUDGET)?;
    /// assert_eq!((proof.period, proof.head, proof.least), (6, 2, 4));
    /// assert_eq!(proof.exit_code(), 1); // it hangs: its copies bring half the bytes expected
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(text: &str, opts: &ReadOptions, budget: usize) -> Result<Self, HazardError> {
        let trips = TripCounts::new(text, opts)?;
        if let Some(name) = trips.pinned.first() {
            return Err(HazardError::PinnedBound { name: name.clone() });
        }
        let steps: Vec<_> = trips.swept.values().chain(trips.seq.iter()).collect();
        if steps.is_empty() {
            return Err(refuse(
                "no loop a parameter bounds: one trip count is all there is",
            ));
        }
        // A lap is a shortest step; a loop stepping r times as far runs every r-th lap (two
        // partitions taking turns), so the laps repeat r times as slowly.
        let mut ratio = 1i64;
        for s in &steps {
            if s.shortest <= 0 || s.longest % s.shortest != 0 {
                return Err(refuse(
                    "loops of one bound step unalike, one step no multiple of another: their trip counts are not one lap count",
                ));
            }
            ratio = lcm(ratio, s.longest / s.shortest);
        }
        let period = u32::try_from(trips.period.saturating_mul(ratio))
            .map_err(|_| refuse("a period past u32"))?;
        let first = u32::try_from(trips.first.saturating_mul(ratio))
            .map_err(|_| refuse("a trip count past u32"))?;
        let bounds = trips
            .swept
            .iter()
            .map(|(n, s)| (n.clone(), s.shortest))
            .chain(trips.seq.map(|s| ("seq_stride".to_string(), s.shortest)))
            .collect();
        let counted = Counted {
            tiles: false,
            bounds,
            offset: 0,
            fixed: Vec::new(),
        };
        let reader = KernelReader::new(text, opts.mode)?;
        prove(
            &|laps| reader.read(&trips.at_laps(opts, laps)),
            counted,
            (period, first),
            budget,
        )
    }

    /// Proves or refutes `text` at every tile count: a persistent kernel, whose partitions loop
    /// over tiles around their K loop, with its K loop's bound as `opts` gives it (or at the
    /// first trip count [`TripCounts`] sweeps) and every number of tiles a CTA runs. A lap is
    /// a tile ([`kernel_laps`]: the K loop's iterations in it); the ring counters it carries
    /// from tile to tile repeat every [`TripCounts::period`] tiles. The tiles come from the
    /// kernel's own arithmetic, set by the first of `clc_tiles` and the integer parameters left
    /// free (`Z`, `H`) that adds a constant number *a* of tiles a step; on *a* programs the
    /// first then runs one more tile a step. Every read is checked to run the tiles it is
    /// taken for; a CTA's tiles differ in their coordinates alone, which no barrier reads.
    /// `opts.num_programs`, `opts.clc_tiles` and the knob's value are the proof's to set
    /// ([`Counted`] says what it set). Refuses ([`HazardError::Unsupported`]) a kernel without
    /// a tile loop, or whose tiles nothing free sets one at a time, and what [`kernel_laps`]
    /// and [`Looped::runs`] refuse.
    ///
    /// ```
    /// use alias_alloc::hazard::{ReadOptions, TripCountProof, PROOF_BUDGET};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_ws_persistent/before.mlir");
    /// # let text = std::fs::read_to_string(path)
    /// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let mut opts = ReadOptions::default();
    /// opts.params.insert("N_CTX".into(), 128); // one K lap a tile
    /// let proof = TripCountProof::tiles(&text, &opts, 1_000)?;
    /// assert_eq!(proof.counted.bounds, [("H".to_string(), 1)]); // H tiles a CTA
    /// // Its ring counters repeat every 6 tiles; from 3 tiles on every tile count at once.
    /// assert_eq!((proof.period, proof.head, proof.least), (6, 1, 3));
    /// // 1,000 states are too few (PROOF_BUDGET verifies it in 3,802: `exit_code() == 0`).
    /// assert_eq!(proof.exit_code(), 3);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn tiles(text: &str, opts: &ReadOptions, budget: usize) -> Result<Self, HazardError> {
        let trips = TripCounts::new(text, opts)?;
        let base = trips
            .options(opts)
            .into_iter()
            .next()
            .unwrap_or_else(|| opts.clone());
        let fixed: Vec<(String, i64)> = trips
            .swept
            .keys()
            .chain(trips.pinned.iter())
            .filter_map(|n| base.params.get(n).map(|&v| (n.clone(), v)))
            .collect();
        // What stopped a read of the knob's values (a trace past the reader's cap): said where
        // no knob is found.
        let failed: RefCell<Option<HazardError>> = RefCell::new(None);
        let reader = KernelReader::new(text, opts.mode)?;
        let tiles_at = |o: &ReadOptions| -> Option<u32> {
            let cut = reader.read(o).and_then(|kt| kernel_laps(&kt));
            match cut {
                Ok(cut) => cut.nested.then_some(cut.trip_count + 1),
                Err(e) => {
                    failed.borrow_mut().get_or_insert(e);
                    None
                }
            }
        };
        let period = u32::try_from(trips.period).map_err(|_| refuse("a period past u32"))?;
        let kt = reader.read(&base)?;
        if !kernel_laps(&kt)?.nested {
            return Err(refuse(
                "no tile loop: no partition's loop holds a loop (--every-trip-count proves its laps)",
            ));
        }
        // A tile is one lap here: tiles that run different K laps (a causal kernel's, to their
        // diagonal) do not repeat as laps.
        if let Ok(cut) = tile_laps(&kt) {
            if cut.tiles.windows(2).any(|w| w.first() != w.last()) {
                let laps: Vec<String> = cut.tiles.iter().map(u32::to_string).collect();
                return Err(refuse(&format!(
                    "its tiles run {} K laps: the tile proof takes a tile as one lap, so every tile must run the same K laps, and a causal kernel's run to their diagonal (docs/hazard-check.md, Tiles of every length); --program-id and --num-programs check one launch's tiles",
                    laps.join(", ")
                )));
            }
        }
        let free: Vec<String> = kt
            .params
            .into_keys()
            .filter(|n| !base.params.contains_key(n))
            .collect();
        // The knob: the first that sets the tiles one by one (x, x + 1, x + 2 tiles plus a
        // constant), and the least value it takes.
        let knobs = std::iter::once(("clc_tiles".to_string(), 0i64))
            .chain(free.iter().map(|n| (n.clone(), 1)));
        for (knob, least) in knobs {
            let set = |programs: i64, x: i64| {
                let mut o = base.clone();
                o.num_programs = programs;
                if knob == "clc_tiles" {
                    o.clc_tiles = x;
                } else {
                    o.params.insert(knob.clone(), x);
                }
                o
            };
            // The tiles at three consecutive values, one program: a constant step `a` (more
            // than one where a value sets `a` tiles: `H` at `N_CTX` = 384 is 2 tiles), then
            // `a` programs, the first of which runs one tile a step.
            let slope = |programs: i64| -> Option<(i64, i64)> {
                let t: Vec<Option<u32>> = (least..least + 3)
                    .map(|x| tiles_at(&set(programs, x)))
                    .collect();
                let [Some(a), Some(b), Some(c)] = t[..] else {
                    return None;
                };
                let step = i64::from(b) - i64::from(a);
                (step >= 1 && i64::from(c) - i64::from(b) == step).then_some((step, i64::from(a)))
            };
            let Some((step, _)) = slope(1) else { continue };
            let programs = step;
            let Some((1, first)) = slope(programs) else {
                continue;
            };
            // x = tiles − offset; 1 tile must be reached.
            let offset = first - least;
            if offset + least > 1 {
                continue;
            }
            let mut fixed = fixed.clone();
            if programs != 1 {
                fixed.push(("num_programs".to_string(), programs));
            }
            let counted = Counted {
                tiles: true,
                bounds: vec![(knob.clone(), 1)],
                offset,
                fixed,
            };
            let at = |tiles: u32| set(programs, i64::from(tiles) - offset);
            return prove(
                &|tiles| reader.read(&at(tiles)),
                counted,
                (period, 2),
                budget,
            );
        }
        let why = "no free parameter nor clc_tiles sets its tiles one at a time";
        Err(match failed.into_inner() {
            Some(e) => refuse(&format!("{why} (a read to find out: {e})")),
            None => refuse(why),
        })
    }

    /// Whether some trip count races, hangs, arrives past a phase or leaves a waited barrier
    /// in the middle of one.
    pub fn goes_wrong(&self) -> bool {
        self.every.goes_wrong()
            || self.below.iter().any(|(_, r)| r.as_ref().is_ok_and(wrong))
            || self.open.is_some()
    }

    /// Whether every trip count is decided: every state followed, every trip count below
    /// explored to the end.
    pub fn decided(&self) -> bool {
        self.every.complete && self.below.iter().all(|(_, r)| r.is_ok())
    }

    /// 0 when every trip count is verified, 1 when one goes wrong, 3 when not decided.
    pub fn exit_code(&self) -> u8 {
        if self.goes_wrong() {
            1
        } else if self.decided() {
            0
        } else {
            3
        }
    }

    /// The verdict in one line.
    pub fn summary(&self) -> String {
        let what = if self.counted.tiles {
            "tile count"
        } else {
            "trip count"
        };
        match self.exit_code() {
            0 => format!("verified at every {what}"),
            1 => format!("some {what} races, hangs, arrives past a phase or leaves one open"),
            _ => "not decided: the explorer stopped before the end (see above)".to_string(),
        }
    }

    /// The report: how the laps were read, what every trip count from the least does, each
    /// one below, the summary.
    pub fn text(&self, file: &str) -> String {
        let mut out = self.body(file);
        let _ = writeln!(out, "summary: {}", self.summary());
        out
    }

    /// [`TripCountProof::text`] without its summary line.
    pub(super) fn body(&self, file: &str) -> String {
        let mut out = String::new();
        let c = &self.counted;
        let (what, one, units) = if c.tiles {
            ("tile count", "tile", "tiles")
        } else {
            ("trip count", "lap", "laps")
        };
        let unit = |n: u32| if n == 1 { one } else { units };
        let bounds: Vec<String> = c
            .bounds
            .iter()
            .map(|(n, step)| match (c.tiles, c.offset) {
                (false, _) => format!("{n} = {step} · laps"),
                (true, 0) => format!("{n} = tiles"),
                (true, o) if o > 0 => format!("{n} = tiles − {o}"),
                (true, o) => format!("{n} = tiles + {}", -o),
            })
            .collect();
        let fixed: Vec<String> = c.fixed.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let fixed = if fixed.is_empty() {
            String::new()
        } else {
            format!("; {}", fixed.join(", "))
        };
        let _ = writeln!(
            out,
            "{file}: every {what} at once ({}{fixed}): {units} repeat every {} past a head of {}; model read at {} … {} {units}, checked at {} … {}",
            bounds.join(", "),
            self.period,
            self.head,
            self.model.0,
            self.model.1,
            self.checked.0,
            self.checked.1
        );
        let e = &self.every;
        let kernel = |n: Option<u32>| n.map(|n| n.saturating_add(1));
        let mut found = Vec::new();
        if let Some(n) = kernel(e.race_at) {
            found.push(format!("a race at {n} {}", unit(n)));
        }
        if let Some(n) = kernel(e.stuck_at) {
            found.push(format!("a hang at {n} {}", unit(n)));
        }
        if let Some(n) = kernel(e.fault_at) {
            found.push(format!("an arrival past its phase at {n} {}", unit(n)));
        }
        let found = if !found.is_empty() {
            found.join(", ")
        } else if e.complete {
            "no race, hang or fault in any interleaving".to_string()
        } else {
            "nothing found before the explorer stopped (a thread far ahead, or its budget)"
                .to_string()
        };
        let _ = writeln!(
            out,
            "from {} {units}: {found} ({} states)",
            self.least, e.states
        );
        for f in &self.findings {
            let _ = writeln!(out, "  {f}");
        }
        if let Some((n, barriers)) = &self.open {
            let _ = writeln!(
                out,
                "an open phase at {n} {}: {}",
                unit(*n),
                barriers.join("; ")
            );
        }
        for (laps, r) in &self.below {
            let line = match r {
                Ok(f) if wrong(f) => format!(
                    "{} races, {} stuck events, {} faults ({} states)",
                    f.races.len(),
                    f.stuck.len(),
                    f.faults.len(),
                    f.states
                ),
                Ok(f) => format!(
                    "no race, hang or fault in any interleaving ({} states)",
                    f.states
                ),
                Err(err) => format!("not decided: {err}"),
            };
            let _ = writeln!(out, "{laps} {}: {line}", unit(*laps));
        }
        out
    }

    /// The proof as JSON: what [`TripCountProof::text`] says, trip counts as the kernel's.
    pub fn json(&self, file: &str) -> Value {
        let kernel = |n: Option<u32>| n.map(|n| n.saturating_add(1));
        let below: Vec<Value> = self
            .below
            .iter()
            .map(|(laps, r)| match r {
                Ok(f) => json!({
                    "laps": laps,
                    "states": f.states,
                    "races": f.races.len(),
                    "stuck": f.stuck.len(),
                    "faults": f.faults.len(),
                }),
                Err(e) => json!({"laps": laps, "not_decided": e.to_string()}),
            })
            .collect();
        json!({
            "kernel": file,
            "counts": if self.counted.tiles { "tiles" } else { "laps" },
            "bounds": self.counted.bounds.iter().map(|(n, s)| json!({"name": n, "step": s})).collect::<Vec<_>>(),
            "offset": self.counted.offset,
            "fixed": self.counted.fixed.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            "period": self.period,
            "head": self.head,
            "model": [self.model.0, self.model.1],
            "checked": [self.checked.0, self.checked.1],
            "least": self.least,
            "every": {
                "states": self.every.states,
                "complete": self.every.complete,
                "race_at": kernel(self.every.race_at),
                "stuck_at": kernel(self.every.stuck_at),
                "fault_at": kernel(self.every.fault_at),
                "findings": self.findings,
            },
            "below": below,
            "open": self.open.as_ref().map(|(n, b)| json!({"at": n, "barriers": b})),
            "summary": {"exit_code": self.exit_code(), "verdict": self.summary()},
        })
    }
}

/// `every`'s races and faults, each op named by where it was read from.
fn name_findings(
    every: &EveryTripCount,
    looped: &Looped,
    built: &[(KernelTrace, super::KernelLaps)],
) -> Vec<String> {
    let name = |id: EventId| -> String {
        looped
            .origin(id)
            .and_then(|(run, e)| built.get(run).and_then(|(kt, _)| kt.origins.get(e.0)))
            .map_or_else(
                || format!("op {}", id.0),
                |o| {
                    let buffer = o
                        .buffer
                        .as_ref()
                        .map_or_else(String::new, |b| format!(" {b}"));
                    format!("{} line {}{buffer}", o.op, o.line)
                },
            )
    };
    let races = every.races.iter().map(|&(a, b, d)| {
        let apart = match d {
            0 => "in one lap".to_string(),
            1 => "1 lap later".to_string(),
            u32::MAX => format!("more than {} laps later", looped.max_back),
            d => format!("{d} laps later"),
        };
        format!("race: {} and {}, {apart}", name(a), name(b))
    });
    let faults = every
        .faults
        .iter()
        .map(|&f| format!("arrival past its phase: {}", name(f)));
    let blocked = every
        .blocked
        .iter()
        .map(|&b| format!("hang: {} waits forever", name(b)));
    races.chain(faults).chain(blocked).collect()
}

/// What is counted and how: laps of a loop a parameter bounds, or tiles of a persistent kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// Whether a lap is a tile (the outer loop's iteration, its K loop in it).
    pub tiles: bool,
    /// What sets the count: each parameter (or `seq_stride`, `clc_tiles`) and its step —
    /// `n` laps set it to `n` steps less `offset`.
    pub bounds: Vec<(String, i64)>,
    /// What the count runs past the bound's value (a CLC kernel runs a tile before it asks
    /// for one).
    pub offset: i64,
    /// What is held at one value over every count (a tile proof's K-loop bound,
    /// `num_programs`).
    pub fixed: Vec<(String, i64)>,
}

/// The proof at every count, `read_at` reading the kernel at a count; `period` and `first` as
/// counted.
pub(super) fn prove(
    read_at: &dyn Fn(u32) -> Result<KernelTrace, HazardError>,
    counted: Counted,
    (period, first): (u32, u32),
    budget: usize,
) -> Result<TripCountProof, HazardError> {
    let read = |laps: u32| -> Result<(KernelTrace, super::KernelLaps), HazardError> {
        let kt = read_at(laps)?;
        let cut = kernel_laps(&kt)?;
        if cut.nested != counted.tiles {
            return Err(refuse(if cut.nested {
                "a loop in a loop (a tile loop around a K loop): a lap is a tile; --every-tile-count proves every tile count at one K"
            } else {
                "no loop in a loop: its laps are the trip count's (--every-trip-count)"
            }));
        }
        if cut.trip_count + 1 != laps {
            return Err(refuse(&format!(
                "at {laps} laps of the bound its loops run {} laps: the loops do not step by the bound's lap",
                cut.trip_count + 1
            )));
        }
        Ok((kt, cut))
    };
    let head = read(first)?.1.head;
    let model = (head + 2 * period + 1, head + 3 * period);
    let built = (model.0..=model.1)
        .map(read)
        .collect::<Result<Vec<_>, _>>()?;
    let least = Looped::runs(&as_runs(&built), period, head)?.least_trip_count() + 1;
    // Every trip count from the least to a period past the model's, checked against it.
    let checked = (least, model.1 + period);
    let mut all = built;
    for laps in (checked.0..model.0).chain(model.1 + 1..=checked.1) {
        all.push(read(laps)?);
    }
    let looped = Looped::runs(&as_runs(&all), period, head)?;
    let every = looped.refute(budget);
    let findings = name_findings(&every, &looped, &all);
    // The arrival ledger at every trip count read: a fraction of a phase left over shows at
    // one of every two consecutive trip counts (`docs/hazard-check.md`, *Loops*).
    let mut open: Option<(u32, Vec<String>)> = None;
    let mut ledger = |laps: u32, kt: &KernelTrace| {
        let found: Vec<String> = open_phases(&kt.trace)
            .iter()
            .map(|o| {
                let name = kt.trace.barrier_name(o.barrier);
                format!(
                    "{name}: {} of {} arrivals past its last whole phase",
                    o.left_over(),
                    o.count
                )
            })
            .collect();
        if !found.is_empty() && open.as_ref().is_none_or(|(n, _)| laps < *n) {
            open = Some((laps, found));
        }
    };
    for (kt, cut) in &all {
        ledger(cut.trip_count + 1, kt);
    }
    let below = (1..least)
        .map(|laps| {
            let kt = read_at(laps)?;
            ledger(laps, &kt);
            Ok((laps, explore_reduced(&kt.trace, budget)))
        })
        .collect::<Result<Vec<_>, HazardError>>()?;
    Ok(TripCountProof {
        counted,
        period,
        head,
        model,
        checked,
        least,
        every,
        findings,
        below,
        open,
    })
}

/// What the proof refuses: the loops, not one op, are outside its model.
pub(super) fn refuse(reason: &str) -> HazardError {
    HazardError::Unsupported {
        op: "scf.for".to_string(),
        line: 0,
        reason: reason.to_string(),
    }
}

/// Whether an exploration found a race, a stuck execution or a fault.
fn wrong(f: &Exploration) -> bool {
    !f.races.is_empty() || !f.stuck.is_empty() || !f.faults.is_empty()
}

/// The cuts as runs of [`Looped::runs`].
fn as_runs(built: &[(KernelTrace, super::KernelLaps)]) -> Vec<Run<'_>> {
    built.iter().map(|(kt, cut)| cut.run(&kt.trace)).collect()
}
