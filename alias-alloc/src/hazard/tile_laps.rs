//! [`tile_laps`]: a persistent kernel's trace cut into the laps of its K loop across its tiles
//! — every K lap of every tile in turn, each tile's prologue with its first K lap and its
//! epilogue with its last — so that tiles of different lengths (a causal kernel's, whose K loop
//! runs to its tile's diagonal) are one sequence of laps of a few kinds (`docs/hazard-check.md`,
//! *Tiles of every length*).

use std::collections::{BTreeMap, BTreeSet};

use super::error::HazardError;
use super::looped::Run;
use super::read::KernelTrace;
use super::sweep::gcd;
use super::trace::{EventKind, TimelineId, TimelineKind, Trace};

/// Where a K lap lies in its tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TilePlace {
    /// The tile's only K lap: its prologue, its one lap and its epilogue.
    Only,
    /// The first of two or more: the tile's prologue and its first lap.
    First,
    /// The second of three or more (where a partition that did the first lap before its K
    /// loop starts it).
    Second,
    /// Neither first, second nor last.
    Middle,
    /// The last of three or more: the tile's last lap and its epilogue.
    Last,
    /// The second and last of two: the tile's last lap and its epilogue where a partition
    /// that did the first lap before its K loop runs its loop's only lap.
    LastOfTwo,
}

/// A persistent kernel's trace cut into K laps across its tiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileLaps {
    /// Per event, its lap: the K laps of tile 0, then tile 1's, …; what runs before a
    /// partition's tile loop in lap 0, what runs after it in lap `trip_count`.
    pub laps: Vec<u32>,
    /// Per tile, its K laps.
    pub tiles: Vec<u32>,
    /// Every tile's K laps together.
    pub trip_count: u32,
}

impl TileLaps {
    /// The cut as a run of [`super::Looped::runs`], on `trace` (the one it was cut from).
    pub fn run<'a>(&'a self, trace: &'a Trace) -> Run<'a> {
        Run {
            trace,
            laps: &self.laps,
            trip_count: self.trip_count,
        }
    }

    /// The tile lap `lap` belongs to and its place there (`None`: the epilogue or past it).
    pub fn place(&self, lap: u32) -> Option<(usize, TilePlace)> {
        let mut first = 0u32;
        for (t, &n) in self.tiles.iter().enumerate() {
            if lap < first.saturating_add(n) {
                let k = lap - first;
                let place = match (k, n) {
                    (_, 1) => TilePlace::Only,
                    (0, _) => TilePlace::First,
                    (1, 2) => TilePlace::LastOfTwo,
                    (k, n) if k + 1 == n => TilePlace::Last,
                    (1, _) => TilePlace::Second,
                    _ => TilePlace::Middle,
                };
                return Some((t, place));
            }
            first = first.saturating_add(n);
        }
        None
    }

    /// Per K lap, what the kernel's arithmetic says it does ([`LapKey`]): its place in its
    /// tile, the lap modulo `k_period` (the K counters': the rings' slots and phases), its
    /// tile modulo `tile_period` (the tile counters'), and whether its tile is the CTA's
    /// first or last. Where laps of one key are laps of one kind, across reads
    /// ([`LapKinds`]), which kind follows which is the keys' arithmetic: a tile of *n* K
    /// laps advances the lap's residue by *n*, the tile's by one.
    ///
    /// ```
    /// use alias_alloc::hazard::{read_kernel, tile_laps, ReadOptions, TilePlace};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_clc_rescale/before.mlir");
    /// # let text = std::fs::read_to_string(path)
    /// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let cut = tile_laps(&read_kernel(&text, &ReadOptions::default())?)?; // tiles of 2, 4, 6
    /// let keys = cut.keys(6, 2);
    /// assert_eq!(keys.len(), 12);
    /// // Lap 3: the second of tile 1 (laps 2 … 5), K lap 3 of the ring's 6, tile 1 of 2.
    /// assert_eq!(keys[3].place, TilePlace::Second);
    /// assert_eq!((keys[3].k_residue, keys[3].tile_residue), (3, 1));
    /// assert!(!keys[3].first_tile && !keys[3].last_tile && keys[11].last_tile);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn keys(&self, k_period: u32, tile_period: u32) -> Vec<LapKey> {
        let last = self.tiles.len().saturating_sub(1);
        (0..self.trip_count)
            .filter_map(|lap| {
                let (tile, place) = self.place(lap)?;
                Some(LapKey {
                    place,
                    k_residue: lap % k_period.max(1),
                    tile_residue: u32::try_from(tile).unwrap_or(u32::MAX) % tile_period.max(1),
                    first_tile: tile == 0,
                    last_tile: tile == last,
                })
            })
            .collect()
    }
}

/// What sets a K lap's kind by the kernel's arithmetic ([`TileLaps::keys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LapKey {
    /// Its place in its tile.
    pub place: TilePlace,
    /// Its K lap modulo the K counters' period.
    pub k_residue: u32,
    /// Its tile modulo the tile counters' period.
    pub tile_residue: u32,
    /// Whether its tile is the CTA's first (the kernel's prologue runs in it).
    pub first_tile: bool,
    /// Whether its tile is the CTA's last (CLC answers none).
    pub last_tile: bool,
}

impl LapKey {
    /// The keys a lap of this key may be followed by, by the counters' arithmetic alone: the
    /// next lap of its tile (the K residue one on), or after its tile's last lap the first of
    /// the next tile (the tile residue one on, that tile the last or not) unless this tile was
    /// the CTA's last. `even`: every tile runs an even number of K laps (a causal kernel's, 2
    /// (*m* + 1)); its tiles then start at even K laps where `k_period` is even, so a lap's
    /// place in its tile has the parity of its K residue.
    ///
    /// ```
    /// use alias_alloc::hazard::{LapKey, TilePlace};
    /// let first = LapKey { place: TilePlace::First, k_residue: 4, tile_residue: 1, first_tile: false, last_tile: false };
    /// let next = first.successors(6, 2, true);
    /// // A tile of 2 laps, or of 4 or more.
    /// assert_eq!(next.iter().map(|k| (k.place, k.k_residue)).collect::<Vec<_>>(),
    ///            [(TilePlace::Second, 5), (TilePlace::LastOfTwo, 5)]);
    /// ```
    pub fn successors(&self, k_period: u32, tile_period: u32, even: bool) -> Vec<LapKey> {
        let k = (self.k_residue + 1) % k_period.max(1);
        let within = |place| LapKey {
            place,
            k_residue: k,
            ..*self
        };
        // (with even tiles, a lap at an odd place in its tile has an odd K residue)
        let odd_next = k % 2 == 1;
        match self.place {
            TilePlace::First => vec![within(TilePlace::Second), within(TilePlace::LastOfTwo)],
            TilePlace::Second if even => vec![within(TilePlace::Middle)],
            TilePlace::Second | TilePlace::Middle if !even => {
                vec![within(TilePlace::Middle), within(TilePlace::Last)]
            }
            TilePlace::Middle if odd_next => {
                vec![within(TilePlace::Middle), within(TilePlace::Last)]
            }
            TilePlace::Middle => vec![within(TilePlace::Middle)],
            _ if self.last_tile => Vec::new(),
            _ => Self::tile_starts(k, (self.tile_residue + 1) % tile_period.max(1), false, even),
        }
    }

    /// The keys a tile's first K lap may have, at K residue `k_residue` and tile residue
    /// `tile_residue`: its first lap (its only one where tiles may run one K lap), the tile
    /// the CTA's last or not.
    ///
    /// ```
    /// use alias_alloc::hazard::{LapKey, TilePlace};
    /// let starts = LapKey::tile_starts(0, 0, true, false);
    /// assert_eq!(starts.len(), 4); // first or only, last tile or not
    /// assert!(starts.iter().all(|k| k.first_tile && k.k_residue == 0));
    /// assert!(starts.iter().any(|k| k.place == TilePlace::Only && k.last_tile));
    /// ```
    pub fn tile_starts(
        k_residue: u32,
        tile_residue: u32,
        first_tile: bool,
        even: bool,
    ) -> Vec<LapKey> {
        let places: &[TilePlace] = if even {
            &[TilePlace::First]
        } else {
            &[TilePlace::First, TilePlace::Only]
        };
        places
            .iter()
            .flat_map(|&place| {
                [false, true].map(|last_tile| LapKey {
                    place,
                    k_residue,
                    tile_residue,
                    first_tile,
                    last_tile,
                })
            })
            .collect()
    }
}

/// What a lap does, as [`TileLaps::kinds`] compares laps: per event in trace order, its
/// timeline (by name; one that lives in this lap alone, a TMA copy's, by where it first shows
/// here) and what it does (barrier by name, parity, cells, counts) — names, not ids, which
/// differ between reads where a timeline or a barrier is made as it is first met.
type Shape = Vec<(Result<String, usize>, String)>;

/// What event `kind` of `trace` does, as [`Shape`] holds it.
fn describe(trace: &Trace, kind: &EventKind) -> String {
    match kind {
        EventKind::Access { cells, write } => {
            format!("{} {cells}", if *write { "write" } else { "read" })
        }
        EventKind::Arrive { barrier, count, tx } => {
            format!("arrive {} {count} {tx}", trace.barrier_name(*barrier))
        }
        EventKind::CompleteTx { barrier, bytes, .. } => {
            format!("complete_tx {} {bytes}", trace.barrier_name(*barrier))
        }
        EventKind::Wait { barrier, parity } => {
            format!("wait {} {parity}", trace.barrier_name(*barrier))
        }
        EventKind::Sync { group } => {
            let threads = trace.syncs.get(*group).map_or(0, |g| g.threads);
            format!("sync {threads}")
        }
    }
}

impl TileLaps {
    /// Per lap (the epilogue last), its kind: laps of one kind do the same — the same ops in
    /// the same order on the same timelines, the same barriers, parities and cells — and
    /// kinds are numbered as they first occur. How few kinds a kernel's laps take, whatever
    /// its tiles' lengths, is what a proof of every length rests on (`docs/hazard-check.md`,
    /// *Tiles of every length*).
    ///
    /// ```
    /// use alias_alloc::hazard::{read_kernel, tile_laps, ReadOptions};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_clc/before.mlir");
    /// # let text = std::fs::read_to_string(path)
    /// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// // 13 tiles of 8 K laps: the CTA's own, then 12 that CLC hands out.
    /// let mut opts = ReadOptions { clc_tiles: 12, ..ReadOptions::default() };
    /// opts.params.insert("N_CTX".into(), 1024);
    /// let kt = read_kernel(&text, &opts)?;
    /// let cut = tile_laps(&kt)?;
    /// let kinds = cut.kinds(&kt.trace);
    /// assert_eq!((cut.trip_count, kinds.len()), (104, 105)); // and the epilogue
    /// // 24 kinds: a tile starts at K lap 8t, on the ring of 3 slots and 2 phases at 8t mod 6;
    /// // its barriers of two slots alternate tile by tile: the tiles repeat every 6.
    /// assert_eq!(kinds.iter().max(), Some(&23));
    /// assert_eq!(kinds[48..56], kinds[0..8]);
    /// assert_eq!(kinds[56..64], kinds[8..16]);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn kinds(&self, trace: &Trace) -> Vec<usize> {
        LapKinds::new().add(trace, self)
    }

    /// Per lap (the epilogue last), what it does.
    fn shapes(&self, trace: &Trace) -> Vec<Shape> {
        let laps = self.trip_count as usize + 1;
        let mut shapes: Vec<Shape> = vec![Vec::new(); laps];
        // A timeline's laps: one that lives in one lap alone is named by where it first shows.
        let mut spans: BTreeMap<TimelineId, (u32, u32)> = BTreeMap::new();
        for (e, event) in trace.events.iter().enumerate() {
            let lap = self.laps.get(e).copied().unwrap_or(0);
            let span = spans.entry(event.timeline).or_insert((lap, lap));
            span.0 = span.0.min(lap);
            span.1 = span.1.max(lap);
        }
        // Per lap, its one-lap timelines in the order they show.
        let mut anonymous: Vec<BTreeMap<TimelineId, usize>> = vec![BTreeMap::new(); laps];
        for (e, event) in trace.events.iter().enumerate() {
            let lap = self.laps.get(e).copied().unwrap_or(0) as usize;
            let (Some(shape_of_lap), Some(names)) = (shapes.get_mut(lap), anonymous.get_mut(lap))
            else {
                continue;
            };
            let one_lap = spans.get(&event.timeline).is_some_and(|s| s.0 == s.1);
            let timeline = if one_lap {
                let next = names.len();
                Err(*names.entry(event.timeline).or_insert(next))
            } else {
                Ok(trace
                    .timelines
                    .get(event.timeline.0)
                    .map_or_else(String::new, |t| t.name.clone()))
            };
            shape_of_lap.push((timeline, describe(trace, &event.kind)));
        }
        shapes
    }
}

/// The kinds of the laps of several reads of one kernel ([`TileLaps::kinds`] across their
/// cuts): each kind once, numbered as it first occurs, and which kind a lap of which kind
/// was followed by. The reads of one kernel name its partitions, barriers and cells alike,
/// so their laps compare.
///
/// ```
/// use alias_alloc::hazard::{read_kernel, tile_laps, LapKinds, ReadOptions};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_clc_rescale/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// let read = |program_id: i64, num_programs: i64| {
///     let mut opts = ReadOptions { program_id, num_programs, ..ReadOptions::default() };
///     opts.params.insert("N_CTX".into(), 2048);
///     read_kernel(&text, &opts)
/// };
/// // Causal: tiles of 2 (m + 1) K laps at rows m. One launch's CTA runs rows 0, 1, 2,
/// // another's rows 0, 2, 3 (CLC hands out tiles 2 and 3 of a launch of 2).
/// let (one, two) = (read(0, 1)?, read(0, 2)?);
/// let (cut_one, cut_two) = (tile_laps(&one)?, tile_laps(&two)?);
/// assert_eq!((&cut_one.tiles[..], &cut_two.tiles[..]), (&[2, 4, 6][..], &[2, 6, 8][..]));
/// let mut kinds = LapKinds::new();
/// let a = kinds.add(&one.trace, &cut_one);
/// let b = kinds.add(&two.trace, &cut_two);
/// assert_eq!(a[..2], b[..2]); // row 0's two laps, the same in both
/// assert!(kinds.len() < a.len() + b.len());
/// assert!(kinds.follows().contains(&(a[0], a[1])));
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct LapKinds {
    shapes: Vec<Shape>,
    follows: BTreeSet<(usize, usize)>,
}

impl LapKinds {
    /// No kinds yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the laps of `cut`, a cut of `trace`; returns each lap's kind (the epilogue last).
    pub fn add(&mut self, trace: &Trace, cut: &TileLaps) -> Vec<usize> {
        let kinds: Vec<usize> = cut
            .shapes(trace)
            .into_iter()
            .map(|s| match self.shapes.iter().position(|d| *d == s) {
                Some(k) => k,
                None => {
                    self.shapes.push(s);
                    self.shapes.len() - 1
                }
            })
            .collect();
        self.follows.extend(
            kinds
                .windows(2)
                .filter_map(|w| Some((*w.first()?, *w.last()?))),
        );
        kinds
    }

    /// The number of kinds.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether no lap was added.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Which kind a lap of which kind was followed by: `(before, after)`.
    pub fn follows(&self) -> &BTreeSet<(usize, usize)> {
        &self.follows
    }
}

/// Cuts a persistent kernel's trace into the K laps of its tiles. Each partition runs a tile
/// loop (`scf.while`, or `scf.for`) and, in it, K loops one after another on one grid (a
/// causal kernel's off-diagonal and diagonal loops); a K iteration is in the lap its
/// induction variable gives within its tile — its value less the least any K loop starts at,
/// over the greatest common divisor of their steps, so a partition that does a tile's first
/// lap before its loop (the loop starting a step later) lines up with the others. A tile runs
/// as many K laps as its longest K loop reaches, the same in every partition whose K loop
/// runs in it; what a partition does in the tile before its K loop goes with the tile's first
/// lap, what it does after with the tile's last; a partition whose tile loop holds no K loop
/// (the CLC scheduler's) does each tile's work in the tile's first lap. A TMA copy, an MMA or
/// a CLC query is in the lap of the op that issues it. Refuses
/// ([`HazardError::Unsupported`], naming the op) a kernel without a tile loop around a K loop,
/// loops nested deeper, a K loop off the grid or with a gap, partitions that disagree on a
/// tile's laps or on the number of tiles.
///
/// ```
/// use alias_alloc::hazard::{read_kernel, tile_laps, ReadOptions, TilePlace};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_clc_rescale/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// // Causal: the tile at row m runs 2 (m + 1) K laps. This CTA runs rows 0, 1 and 2 (its
/// // own tile, then two CLC hands it); N_CTX sets the rows' length, not their laps.
/// let mut opts = ReadOptions::default();
/// opts.params.insert("N_CTX".into(), 2048);
/// let cut = tile_laps(&read_kernel(&text, &opts)?)?;
/// assert_eq!(cut.tiles, [2, 4, 6]);
/// assert_eq!(cut.trip_count, 12);
/// assert_eq!(cut.place(1), Some((0, TilePlace::LastOfTwo)));
/// assert_eq!(cut.place(2), Some((1, TilePlace::First)));
/// assert_eq!(cut.place(3), Some((1, TilePlace::Second)));
/// assert_eq!(cut.place(4), Some((1, TilePlace::Middle)));
/// assert_eq!(cut.place(12), None); // what runs after the tiles
/// // The events of each K lap: a tile's first lap holds its prologue too, its last the
/// // tile's epilogue.
/// let mut per_lap = vec![0; 13];
/// for &l in &cut.laps {
///     per_lap[l as usize] += 1;
/// }
/// assert_eq!(per_lap, [88, 134, 88, 75, 76, 135, 87, 75, 76, 76, 76, 130, 0]);
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn tile_laps(kt: &KernelTrace) -> Result<TileLaps, HazardError> {
    let trace = &kt.trace;
    let refuse = |e: usize, reason: &str| kt.refuse(e, reason);
    let induction = |e: usize| kt.induction(e);
    let is_partition =
        |t: usize| trace.timelines.get(t).map(|x| x.kind) == Some(TimelineKind::Partition);
    // A tile is its tile loop's iteration (counted from 0, whatever the loop's bounds).
    let tile_of = |e: usize| -> i64 {
        kt.origins
            .get(e)
            .and_then(|o| o.iteration.first())
            .copied()
            .unwrap_or(0)
    };
    // The K grid: the least start and the steps' gcd.
    let (mut unit, mut start) = (0i64, i64::MAX);
    for (e, event) in trace.events.iter().enumerate() {
        match induction(e) {
            [] | [_] => {}
            [_, (v, step)] if is_partition(event.timeline.0) => {
                unit = gcd(unit, *step);
                start = start.min(*v);
            }
            [_, _] => {}
            _ => return Err(refuse(
                e,
                "loops nested three deep: a tile loop around K loops is what the tile laps model",
            )),
        }
    }
    if unit == 0 {
        return Err(HazardError::Unsupported {
            op: "scf.for".to_string(),
            line: 0,
            reason: "no tile loop around a K loop: --every-trip-count proves a loop's laps"
                .to_string(),
        });
    }
    let k_lap = |e: usize, v: i64| -> Result<u32, HazardError> {
        let past = v.checked_sub(start).unwrap_or(-1);
        if past < 0 || past.rem_euclid(unit) != 0 {
            return Err(refuse(e, "a K loop off the others' lap grid (its start is no multiple of their steps past theirs)"));
        }
        u32::try_from(past / unit).map_err(|_| refuse(e, "a lap past u32"))
    };
    // Per partition and tile: its K laps' first and last, and the program order checked
    // (K laps in order, no gap, every K event of a tile together).
    let mut spans: BTreeMap<(usize, i64), (u32, u32)> = BTreeMap::new();
    let mut tiles_of: BTreeMap<usize, i64> = BTreeMap::new();
    let mut last_seen: BTreeMap<usize, (i64, Option<u32>, bool)> = BTreeMap::new();
    for (e, event) in trace.events.iter().enumerate() {
        let t = event.timeline.0;
        if !is_partition(t) {
            continue;
        }
        let (tile, k) = match induction(e) {
            [] => continue,
            [_] => (tile_of(e), None),
            [_, (v, _), ..] => (tile_of(e), Some(k_lap(e, *v)?)),
        };
        let n = tiles_of.entry(t).or_insert(0);
        *n = (*n).max(tile.saturating_add(1));
        let seen = last_seen.entry(t).or_insert((tile, None, false));
        if seen.0 != tile {
            *seen = (tile, None, false);
        }
        match (k, seen.1) {
            (Some(k), Some(p)) if seen.2 || (k != p && k != p.saturating_add(1)) => {
                return Err(refuse(e, "a tile's K loops with a gap, or work between them: K loops one after another on one grid is what the tile laps model"));
            }
            (None, Some(_)) => seen.2 = true,
            _ => {}
        }
        if let Some(k) = k {
            seen.1 = Some(k);
            let span = spans.entry((t, tile)).or_insert((k, k));
            span.1 = span.1.max(k);
        }
    }
    let tiles = tiles_of.values().copied().max().unwrap_or(0);
    if let Some((&t, _)) = tiles_of.iter().find(|&(_, &n)| n != tiles) {
        let e = trace
            .events
            .iter()
            .position(|x| x.timeline.0 == t)
            .unwrap_or(0);
        return Err(refuse(e, "partitions that run different numbers of tiles"));
    }
    // Per tile, its K laps: the longest K loop's reach, the same in every partition.
    let mut lengths = vec![0u32; usize::try_from(tiles).unwrap_or(0)];
    for (&(_, tile), &(_, last)) in &spans {
        if let Some(n) = usize::try_from(tile).ok().and_then(|i| lengths.get_mut(i)) {
            *n = (*n).max(last.saturating_add(1));
        }
    }
    for (&(t, tile), &(_, last)) in &spans {
        let n = usize::try_from(tile)
            .ok()
            .and_then(|i| lengths.get(i))
            .copied()
            .unwrap_or(0);
        if last.saturating_add(1) != n {
            let e = trace
                .events
                .iter()
                .enumerate()
                .position(|(e, x)| {
                    x.timeline.0 == t && !induction(e).is_empty() && tile_of(e) == tile
                })
                .unwrap_or(0);
            return Err(refuse(
                e,
                "partitions whose K loops run different laps in one tile",
            ));
        }
    }
    let mut firsts = Vec::with_capacity(lengths.len());
    let mut total = 0u32;
    for (i, &n) in lengths.iter().enumerate() {
        if n == 0 {
            return Err(HazardError::Unsupported {
                op: "scf.for".to_string(),
                line: 0,
                reason: format!("tile {i} runs no K lap"),
            });
        }
        firsts.push(total);
        total = total.saturating_add(n);
    }
    // Per partition: its first event in a tile; per partition and tile: its last K event.
    let mut first_in_tile: BTreeMap<usize, usize> = BTreeMap::new();
    let mut last_k: BTreeMap<(usize, i64), usize> = BTreeMap::new();
    for (e, event) in trace.events.iter().enumerate() {
        let t = event.timeline.0;
        match induction(e) {
            [] => {}
            [_, rest @ ..] => {
                first_in_tile.entry(t).or_insert(e);
                if !rest.is_empty() {
                    last_k.insert((t, tile_of(e)), e);
                }
            }
        }
    }
    let mut laps = vec![0u32; trace.events.len()];
    for (e, event) in trace.events.iter().enumerate() {
        let t = event.timeline.0;
        let lap = if is_partition(t) {
            match induction(e) {
                // Before the tile loop or after it.
                [] if first_in_tile.get(&t).is_some_and(|&f| f < e) => total,
                [] => 0,
                [_, rest @ ..] => {
                    let tile = tile_of(e);
                    let i = usize::try_from(tile).unwrap_or(usize::MAX);
                    let first = firsts.get(i).copied().unwrap_or(0);
                    let n = lengths.get(i).copied().unwrap_or(1);
                    let within = match rest.first() {
                        Some((v, _)) => k_lap(e, *v)?,
                        // After the tile's K loop: its last lap; before it, or no K loop:
                        // its first.
                        None if last_k.get(&(t, tile)).is_some_and(|&k| k < e) => {
                            n.saturating_sub(1)
                        }
                        None => 0,
                    };
                    first.saturating_add(within.min(n.saturating_sub(1)))
                }
            }
        } else {
            // A copy, an MMA, a query: after what issued it.
            event
                .after
                .iter()
                .filter_map(|p| laps.get(p.0).copied())
                .max()
                .unwrap_or(0)
        };
        if let Some(slot) = laps.get_mut(e) {
            *slot = lap;
        }
    }
    Ok(TileLaps {
        laps,
        tiles: lengths,
        trip_count: total,
    })
}
