//! [`CheckReport`]: what `linalias check` (and the Python `Kernel.check`) reports of one
//! kernel — the verdict of every pair of allocations whose accesses overlap, a witness and the
//! missing edge for each hazard, the protocol findings, warnings, optional random executions —
//! as text, JSON or swimlanes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{
    check, sample, swimlanes, EventId, EventKind, Exploration, Fault, KernelTrace, OpenPhase,
    Picture, ReadOptions, Report, TimelineId, TimelineKind, UnknownReason, Verdict, Witness,
};

/// The verdicts of one pair of allocations.
#[derive(Default)]
struct Group {
    verified: usize,
    hazards: Vec<Witness>,
    unknown: usize,
    first_unknown: Option<(EventId, EventId, UnknownReason)>,
}

/// The missing edge of a witness: which wait, in which partition, would order it. The order
/// it suggests is the witness's, except that a TMA copy's write is meant to come first (its
/// reader consumes it); the wait goes in the partition that runs or issues the later access.
fn missing_edge(k: &KernelTrace, r: &Report, w: &Witness) -> String {
    same_partition(k, w)
        .or_else(|| early_arrive(k, r, w))
        .unwrap_or_else(|| missing(k, r, w).2)
}

/// Two warp groups of one partition (`default`, `default.wg1`): what orders them is a
/// `bar.sync` of the partition between the two ops.
fn same_partition(k: &KernelTrace, w: &Witness) -> Option<String> {
    let name = |e: EventId| {
        let ev = k.trace.events.get(e.0)?;
        Some((k.trace.timeline_name(ev.timeline), ev.label.clone()))
    };
    let ((ta, la), (tb, lb)) = (name(w.first)?, name(w.second)?);
    let base = |t: &str| t.split(".wg").next().unwrap_or(t).to_string();
    (ta != tb && base(ta) == base(tb)).then(|| {
        format!(
            "missing: a bar.sync of {} between {la} and {lb} (a named barrier of all its warps, or tl.debug_barrier): its warp groups touch the same cells",
            base(ta)
        )
    })
}

/// An arrive released too early: an arrival on the timeline of one access, before it, that the
/// other access is ordered after — the order exists, from a point before the access (the bug of
/// facebookexperimental/triton#739: an empties arrive between the loads of two aliased
/// buffers).
fn early_arrive(k: &KernelTrace, r: &Report, w: &Witness) -> Option<String> {
    [(w.first, w.second), (w.second, w.first)]
        .into_iter()
        .find_map(|(x, y)| {
            let timeline = k.trace.events.get(x.0)?.timeline;
            // Only a partition's own arrives: an engine's arrivals follow its ops in order.
            if k.trace.timelines.get(timeline.0)?.kind != TimelineKind::Partition {
                return None;
            }
            let a = (0..x.0).rev().map(EventId).find(|&a| {
                k.trace.events.get(a.0).is_some_and(|e| {
                    e.timeline == timeline
                        && matches!(e.kind, EventKind::Arrive { barrier, .. }
                            if !k.trace.is_reader_sync(barrier))
                        && r.happens_before.ordered(a, y)
                })
            })?;
            let (ae, xe) = (k.trace.events.get(a.0)?, k.trace.events.get(x.0)?);
            Some(format!(
                "early arrive: {} releases the other access before {} ran — move the arrive after it",
                ae.label, xe.label
            ))
        })
}

/// The missing edge: the arrival to wait for (if any), the partition that should wait, and
/// the sentence.
fn missing(
    k: &KernelTrace,
    r: &Report,
    w: &Witness,
) -> (Option<EventId>, Option<TimelineId>, String) {
    let is_tma_write = |e: EventId| {
        k.trace.events.get(e.0).is_some_and(|x| {
            matches!(x.kind, EventKind::Access { write: true, .. })
                && k.trace
                    .timelines
                    .get(x.timeline.0)
                    .is_some_and(|t| matches!(t.kind, TimelineKind::Tma { .. }))
        })
    };
    let (from, to) = if is_tma_write(w.second) && !is_tma_write(w.first) {
        (w.second, w.first)
    } else {
        (w.first, w.second)
    };
    let flipped = Witness {
        first: from,
        second: to,
        schedule: vec![],
    };
    let partition = k.trace.events.get(to.0).map(|x| {
        match k.trace.timelines.get(x.timeline.0).map(|t| t.kind) {
            Some(TimelineKind::TensorCore { issuer } | TimelineKind::Tma { issuer }) => issuer,
            _ => x.timeline,
        }
    });
    let partition_id = partition;
    let partition = partition.map_or("?", |p| k.trace.timeline_name(p));
    let to_label = k.trace.events.get(to.0).map_or("?", |x| x.label.as_str());
    // The access's own thread's next arrival; for a warp group that issues none, the first
    // of the kernel's arrivals that every execution runs after it (its leader's).
    let arrival = flipped.releasing_arrival(&k.trace).or_else(|| {
        k.trace.ids().skip(from.0).find(|&a| {
            k.trace.events.get(a.0).is_some_and(|x| {
                matches!(x.kind, EventKind::Arrive { barrier, .. } if !k.trace.is_reader_sync(barrier))
                    && r.happens_before.ordered(from, a)
            })
        })
    });
    let text = match arrival.and_then(|a| k.trace.events.get(a.0)) {
        Some(a) => {
            let barrier = match a.kind {
                EventKind::Arrive { barrier, .. } | EventKind::CompleteTx { barrier, .. } => {
                    k.trace.barriers.get(barrier.0).map_or("?", |b| b.name.as_str())
                }
                _ => "?",
            };
            format!(
                "missing: {partition} waits on {barrier} for the phase {}: {} completes, before {to_label}",
                k.trace.timeline_name(a.timeline),
                a.label,
            )
        }
        None => format!(
            "missing: nothing after {} arrives on a barrier: arrive after it, and wait in {partition} before {to_label}",
            k.trace.events.get(from.0).map_or("?", |x| x.label.as_str())
        ),
    };
    (arrival, partition_id, text)
}

/// `--svg`: the first hazard's witness, else the hang, as swimlanes; else a line saying
/// nothing races.
fn picture(k: &KernelTrace, r: &Report, summary: &str) -> String {
    if let Some(w) = r.pairs.iter().find_map(|(_, v)| match v {
        Verdict::Hazard(w) => Some(w),
        _ => None,
    }) {
        let (arrival, partition, text) = missing(k, r, w);
        let title = format!(
            "hazard: {} / {} — {text}",
            describe(k, w.first),
            describe(k, w.second)
        );
        let marked = [w.first, w.second];
        return swimlanes(
            &k.trace,
            &Picture {
                title: &title,
                schedule: &w.schedule,
                marked: &marked,
                missing: arrival.zip(partition),
            },
        );
    }
    if let Some(h) = &r.hang {
        let title = format!("an execution hangs after {} events", h.schedule.len());
        return swimlanes(
            &k.trace,
            &Picture {
                title: &title,
                schedule: &h.schedule,
                marked: &h.blocked,
                missing: None,
            },
        );
    }
    swimlanes(
        &k.trace,
        &Picture {
            title: summary,
            schedule: &[],
            marked: &[],
            missing: None,
        },
    )
}

/// The allocation an event touches (`kv_tiles` of `kv_tiles[1]`).
fn alloc_of(k: &KernelTrace, e: EventId) -> String {
    k.origins
        .get(e.0)
        .and_then(|o| o.buffer.as_deref())
        .map(|b| b.split('[').next().unwrap_or(b).to_string())
        .unwrap_or_else(|| "?".into())
}

/// `partition2.tensor-core: ttng.tc_gen5_mma line 418 kv_tiles[0] iteration 3 (reads)`.
fn describe(k: &KernelTrace, e: EventId) -> String {
    let Some(ev) = k.trace.events.get(e.0) else {
        return format!("event {}", e.0);
    };
    let what = match &ev.kind {
        EventKind::Access { write: true, .. } => "writes",
        EventKind::Access { write: false, .. } => "reads",
        _ => "syncs",
    };
    format!(
        "{}: {} ({what})",
        k.trace.timeline_name(ev.timeline),
        ev.label
    )
}

/// How many iterations the first of two events runs ahead of the second, per loop level
/// (outermost first), where both sit in loops as deep.
fn distance(k: &KernelTrace, first: EventId, second: EventId) -> Option<Vec<i64>> {
    let (x, y) = (k.origins.get(first.0)?, k.origins.get(second.0)?);
    (!x.iteration.is_empty() && x.iteration.len() == y.iteration.len()).then(|| {
        x.iteration
            .iter()
            .zip(&y.iteration)
            .map(|(i, j)| i.saturating_sub(*j))
            .collect()
    })
}

/// The witness's order as a sentence, with the iteration distance.
fn order_line(k: &KernelTrace, w: &Witness) -> String {
    let apart = match distance(k, w.first, w.second).as_deref() {
        None => String::new(),
        Some(d) if d.iter().all(|&x| x == 0) => " (the same iteration)".into(),
        Some(&[d]) => {
            let n = d.unsigned_abs();
            let s = if n == 1 { "" } else { "s" };
            let way = if d > 0 { "ahead of" } else { "behind" };
            format!(" (the first {n} iteration{s} {way} the second)")
        }
        Some(d) => {
            let v: Vec<String> = d.iter().map(i64::to_string).collect();
            format!(" (iteration distance {})", v.join(","))
        }
    };
    format!("run in this order{apart} with nothing ordering the first before the second")
}

/// Why a pair is unknown, as a sentence.
fn unknown_reason(why: UnknownReason) -> &'static str {
    match why {
        UnknownReason::SearchBudget => {
            "nothing orders them in every execution, and no execution tried races them (the search of all of them is out of budget)"
        }
        UnknownReason::ReplayBudget => {
            "nothing orders them in every execution; too many such pairs to replay each"
        }
    }
}

fn groups(k: &KernelTrace, r: &Report) -> BTreeMap<(String, String), Group> {
    let mut out: BTreeMap<(String, String), Group> = BTreeMap::new();
    for &((a, b), ref v) in &r.pairs {
        let (x, y) = (alloc_of(k, a), alloc_of(k, b));
        let key = if x <= y { (x, y) } else { (y, x) };
        let g = out.entry(key).or_default();
        match v {
            Verdict::Verified(_) => g.verified += 1,
            Verdict::Hazard(w) => g.hazards.push(w.clone()),
            Verdict::Unknown(why) => {
                g.unknown += 1;
                g.first_unknown.get_or_insert((a, b, *why));
            }
        }
    }
    out
}

/// Protocol findings as lines, one per op (its iterations counted).
fn protocol(k: &KernelTrace, r: &Report) -> Vec<String> {
    // One line per op: iterations and ring slots folded (`kv_fulls[*]`), counted.
    let mut seen: Vec<(String, usize)> = Vec::new();
    for line in protocol_events(k, r) {
        let mut key = String::new();
        let mut rest = line.as_str();
        while let Some(i) = rest.find('[') {
            let (head, tail) = rest.split_at(i);
            key.push_str(head);
            match tail.find(']') {
                Some(j)
                    if tail
                        .get(1..j)
                        .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit())) =>
                {
                    key.push_str("[*]");
                    rest = tail.get(j + 1..).unwrap_or("");
                }
                _ => {
                    key.push('[');
                    rest = tail.get(1..).unwrap_or("");
                }
            }
        }
        key.push_str(rest);
        if let Some(i) = key.find(" iteration ") {
            let after = key.get(i + " iteration ".len()..).unwrap_or("");
            let tail = after
                .find(' ')
                .map_or(String::new(), |j| after.get(j..).unwrap_or("").to_string());
            key = format!("{}{tail}", key.get(..i).unwrap_or(""));
        }
        match seen.iter_mut().find(|(l, _)| *l == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    // A hang keeps its slots and iterations: it is one execution.
    let hang = r.hang.iter().map(|h| {
        let blocked: Vec<String> = h.blocked.iter().take(3).map(|&e| describe(k, e)).collect();
        format!(
            "an execution hangs after {} events, blocked at: {}",
            h.schedule.len(),
            blocked.join("; ")
        )
    });
    hang.chain(
        seen.into_iter()
            .map(|(l, n)| if n > 1 { format!("{l} (x{n})") } else { l }),
    )
    .collect()
}

/// Warnings: stale phases, one per pair of ops (slots and iterations folded, counted).
fn warnings(k: &KernelTrace, r: &Report) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for &(a, b) in &r.stale_waits {
        let label = |e: EventId| {
            k.trace.events.get(e.0).map_or("?".to_string(), |x| {
                x.label
                    .split(" iteration ")
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
        };
        let timeline = k
            .trace
            .events
            .get(b.0)
            .map_or("?", |x| k.trace.timeline_name(x.timeline));
        let line = format!(
            "stale phase: {timeline}: {} waits for the parity of its thread's last wait on that barrier ({}), with none on the other parity between: it passes on that phase again",
            label(b),
            label(a)
        );
        match seen.iter_mut().find(|(l, _)| *l == line) {
            Some((_, n)) => *n += 1,
            None => seen.push((line, 1)),
        }
    }
    seen.into_iter()
        .map(|(l, n)| if n > 1 { format!("{l} (x{n})") } else { l })
        .collect()
}

/// Protocol findings, one per event.
fn protocol_events(k: &KernelTrace, r: &Report) -> Vec<String> {
    let hb = &r.happens_before;
    let mut lines: Vec<String> = Vec::new();
    lines.extend(
        hb.never_complete
            .iter()
            .map(|&w| format!("never completes: {}", describe(k, w))),
    );
    for &e in &hb.tx_mismatch {
        let expected = match k.trace.events.get(e.0).map(|x| &x.kind) {
            Some(EventKind::Arrive { tx, .. }) => *tx,
            _ => 0,
        };
        let landed: u64 = k
            .trace
            .events
            .iter()
            .filter_map(|x| match x.kind {
                EventKind::CompleteTx {
                    bytes,
                    expect: Some(p),
                    ..
                } if p == e => Some(bytes),
                _ => None,
            })
            .sum();
        lines.push(format!(
            "tx bytes: {} expects {expected} bytes, its copies bring {landed}",
            describe(k, e)
        ));
    }
    for f in &r.faults {
        let Fault::TooManyArrivals { event, .. } = *f;
        lines.push(format!(
            "too many arrivals: {} arrives past the count of its barrier's current phase",
            describe(k, event)
        ));
    }
    for o in &r.open_phases {
        lines.push(open_phase_line(k, o));
    }
    lines
}

/// A barrier left in the middle of a phase, with the ops that arrive on it.
fn open_phase_line(k: &KernelTrace, o: &OpenPhase) -> String {
    let mut from: Vec<(String, usize)> = Vec::new();
    for ev in &k.trace.events {
        if matches!(ev.kind, EventKind::Arrive { barrier, .. } if barrier == o.barrier) {
            let op = format!(
                "{}: {}",
                k.trace.timeline_name(ev.timeline),
                ev.label.split(" iteration ").next().unwrap_or("")
            );
            match from.iter_mut().find(|(l, _)| *l == op) {
                Some((_, n)) => *n += 1,
                None => from.push((op, 1)),
            }
        }
    }
    let from: Vec<String> = from
        .into_iter()
        .map(|(l, n)| if n > 1 { format!("{l} (x{n})") } else { l })
        .collect();
    let name = k
        .trace
        .barriers
        .get(o.barrier.0)
        .map_or("?", |b| b.name.as_str());
    format!(
        "open phase: {name} (count {}) receives {} arrivals in all, {} past its last whole phase, from {}: arrivals that are not whole phases build up lap after lap until a wait passes a phase early or never passes",
        o.count,
        o.arrivals,
        o.left_over(),
        from.join("; ")
    )
}

/// The tiles a trace was read at, where not the default (`program_id=3 num_programs=6`,
/// `clc_tiles=5`).
pub(super) fn tiles_text(k: &KernelTrace) -> Vec<String> {
    let mut out = Vec::new();
    if k.tile != (0, 1) {
        out.push(format!("program_id={} num_programs={}", k.tile.0, k.tile.1));
    }
    if k.clc_tiles != ReadOptions::default().clc_tiles {
        out.push(format!("clc_tiles={}", k.clc_tiles));
    }
    out
}

fn params_text(k: &KernelTrace) -> String {
    let mut out: Vec<String> = k
        .params
        .iter()
        .filter(|(n, _)| !n.contains('.'))
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    out.extend(tiles_text(k));
    if let Some(stride) = k.seq_stride {
        out.push(format!("cu_seqlens[i]={stride}·i"));
    }
    out.join(" ")
}

/// A kernel checked: its trace, the verdicts, and what the report says of them.
pub struct CheckReport {
    /// The kernel's name in the report (its file).
    pub file: String,
    /// The kernel's trace.
    pub kernel: KernelTrace,
    /// The verdicts.
    pub report: Report,
    groups: BTreeMap<(String, String), Group>,
    /// The protocol findings, one line each.
    pub protocol: Vec<String>,
    samples: usize,
    sampled: Option<Exploration>,
    /// Verified pairs a random execution raced (a bug of the check).
    pub contradicted: usize,
}

impl CheckReport {
    /// Checks `kernel`; with `samples` > 0 also runs that many random executions (seed fixed),
    /// whose races are real and which must not race a verified pair.
    ///
    /// ```
    /// use alias_alloc::hazard::{read_kernel, CheckReport, ReadOptions};
    /// let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"),
    ///     "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir"))
    ///     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let kernel = read_kernel(&text, &ReadOptions::default())?;
    /// let report = CheckReport::new("fa_ws_pipelined", kernel, 0);
    /// assert_eq!(report.counts(), (383, 0, 0));
    /// assert_eq!(report.exit_code(), 0);
    /// assert_eq!(report.json()["summary"]["pairs"], 383);
    /// assert!(report.text().ends_with("summary: 383 pairs: 383 verified, 0 hazards, 0 unknown; 0 protocol findings\n"));
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(file: &str, kernel: KernelTrace, samples: usize) -> Self {
        let r = check(&kernel.trace);
        let groups = groups(&kernel, &r);
        let protocol = protocol(&kernel, &r);
        let sampled = (samples > 0).then(|| sample(&kernel.trace, samples, 0x5eed));
        let contradicted = sampled.as_ref().map_or(0, |s| {
            r.pairs
                .iter()
                .filter(|(p, v)| matches!(v, Verdict::Verified(_)) && s.races.contains(p))
                .count()
        });
        CheckReport {
            file: file.to_owned(),
            kernel,
            report: r,
            groups,
            protocol,
            samples,
            sampled,
            contradicted,
        }
    }

    /// Pairs checked, hazards, unknowns.
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.report.pairs.len(),
            self.report.hazards().count(),
            self.report.unknowns().count(),
        )
    }

    /// Whether a random execution hung.
    pub fn hangs(&self) -> bool {
        self.sampled.as_ref().is_some_and(|s| !s.stuck.is_empty())
    }

    /// The exit code of `linalias check`: 1 for a hazard, a protocol finding, a verified pair
    /// that raced or a hang; 3 for unknowns only; 0 when everything is verified.
    pub fn exit_code(&self) -> u8 {
        let (_, hazards, unknown) = self.counts();
        if hazards > 0 || !self.protocol.is_empty() || self.contradicted > 0 || self.hangs() {
            1
        } else if unknown > 0 {
            3
        } else {
            0
        }
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        let (pairs, hazards, unknown) = self.counts();
        let mut summary = format!(
            "{pairs} pairs: {} verified, {hazards} hazards, {unknown} unknown; {} protocol findings",
            pairs - hazards - unknown,
            self.protocol.len()
        );
        // Random executions: what they find is real; a race on a verified pair would be a bug
        // of the check, reported as such.
        if let Some(s) = &self.sampled {
            summary.push_str(&format!(
                "; {} random executions: {} racing pairs, {}",
                self.samples,
                s.races.len(),
                if s.stuck.is_empty() {
                    "none hangs"
                } else {
                    "one hangs"
                }
            ));
            if self.contradicted > 0 {
                summary.push_str(&format!(
                    "; {} verified pairs raced: a bug of the check, please report it",
                    self.contradicted
                ));
            }
        }
        summary
    }

    fn partitions(&self) -> usize {
        self.kernel
            .trace
            .timelines
            .iter()
            .filter(|t| t.kind == TimelineKind::Partition)
            .count()
    }

    /// The report as one JSON object (`linalias check --json`).
    pub fn json(&self) -> Value {
        let (k, r) = (&self.kernel, &self.report);
        let (pairs, hazards, unknown) = self.counts();
        let groups: Vec<Value> = self
            .groups
            .iter()
            .map(|((a, b), g)| {
                json!({
                    "buffers": [a, b],
                    "verified": g.verified,
                    "hazards": g.hazards.len(),
                    "unknown": g.unknown,
                    "witness": g.hazards.first().map(|w| json!({
                        "first": describe(k, w.first),
                        "second": describe(k, w.second),
                        "missing": missing_edge(k, r, w),
                        "distance": distance(k, w.first, w.second),
                    })),
                })
            })
            .collect();
        let params: BTreeMap<&String, &i64> =
            k.params.iter().filter(|(n, _)| !n.contains('.')).collect();
        json!({
            "kernel": self.file,
            "params": params,
            "seq_stride": k.seq_stride,
            "program_id": k.tile.0,
            "num_programs": k.tile.1,
            "clc_tiles": k.clc_tiles,
            "partitions": self.partitions(),
            "events": k.trace.events.len(),
            "pairs": groups,
            "protocol": self.protocol,
            "warnings": warnings(k, r),
            "summary": {"pairs": pairs, "hazards": hazards, "unknown": unknown},
            "sampled": self.sampled.as_ref().map(|s| json!({
                "executions": self.samples,
                "racing_pairs": s.races.len(),
                "stuck": !s.stuck.is_empty(),
                "verified_but_raced": self.contradicted,
            })),
        })
    }

    /// The report as text (`linalias check`).
    pub fn text(&self) -> String {
        let (k, r) = (&self.kernel, &self.report);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} threads, {} events; {}",
            self.file,
            self.partitions(),
            k.trace.events.len(),
            params_text(k)
        );
        for ((a, b), g) in &self.groups {
            let total = g.verified + g.hazards.len() + g.unknown;
            if let Some(w) = g.hazards.first() {
                let (x, y) = (w.first, w.second);
                let _ = writeln!(
                    out,
                    "hazard    {a} × {b}: {} of {total} pairs",
                    g.hazards.len()
                );
                let _ = writeln!(out, "  {}", describe(k, x));
                let _ = writeln!(out, "  {}", describe(k, y));
                let _ = writeln!(out, "  {}", order_line(k, w));
                let _ = writeln!(out, "  {}", missing_edge(k, r, w));
            } else if g.unknown > 0 {
                let _ = writeln!(out, "unknown   {a} × {b}: {} of {total} pairs", g.unknown);
                if let Some((x, y, why)) = g.first_unknown {
                    let _ = writeln!(out, "  {}", describe(k, x));
                    let _ = writeln!(out, "  {}", describe(k, y));
                    let _ = writeln!(out, "  {}", unknown_reason(why));
                }
            } else {
                let _ = writeln!(out, "verified  {a} × {b}: {total} pairs");
            }
        }
        for line in &self.protocol {
            let _ = writeln!(out, "protocol  {line}");
        }
        for line in warnings(k, r) {
            let _ = writeln!(out, "warning   {line}");
        }
        let _ = writeln!(out, "summary: {}", self.summary());
        out
    }

    /// The first hazard's witness, else the hang, as swimlanes; else a line saying nothing
    /// races (`linalias check --svg`).
    pub fn svg(&self) -> String {
        picture(&self.kernel, &self.report, &self.summary())
    }
}
