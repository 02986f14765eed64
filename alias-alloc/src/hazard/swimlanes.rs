//! [`swimlanes`]: an execution drawn as swimlanes — one lane per partition and engine, events
//! left to right in the order they ran, the two racing accesses in red, and the missing edge as
//! a dashed arrow — the picture `linalias check --svg` writes for a hazard's witness or a hang.

use std::fmt::Write as _;

use super::trace::{EventId, EventKind, TimelineId, TimelineKind, Trace};

/// What to draw: an execution's schedule, the events to mark, and the edge that is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture<'a> {
    /// The title line.
    pub title: &'a str,
    /// The events in the order they ran.
    pub schedule: &'a [EventId],
    /// The events to draw in red (the racing accesses, or where a hang blocks).
    pub marked: &'a [EventId],
    /// An arrow from an event to a timeline at the end of the window: the wait that is
    /// missing (from the arrival it should wait for, to the partition that should wait).
    pub missing: Option<(EventId, TimelineId)>,
}

/// At most this many events of the schedule are drawn: those just before the last one.
pub const WINDOW: usize = 48;

const LANE: usize = 30;
const STEP: usize = 16;
const LEFT: usize = 230;
const TOP: usize = 50;
/// Characters of a title line before it wraps.
const TITLE_CHARS: usize = 110;
/// Pixels per character (monospace, 0.6 em) at the title's and the labels' font sizes.
const TITLE_CHAR_PX: f64 = 7.8;
const LABEL_CHAR_PX: f64 = 6.6;
const LEGEND: &str = "■ write  □ read  ▼ wait  ▲ arrive / tx  ● named barrier   (hover for the op)";

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// Pixels `text` takes at `per_char` pixels a character.
fn text_px(text: &str, per_char: f64) -> usize {
    (text.chars().count() as f64 * per_char).ceil() as usize
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG of `p` over `trace`: the last [`WINDOW`] events of the schedule (a marked event
/// before them is drawn first, at the left edge), lanes for the timelines they run on.
///
/// ```
/// use alias_alloc::hazard::{check, swimlanes, Cells, Picture, Space, TraceBuilder, Verdict};
/// let mut t = TraceBuilder::new();
/// let (p, c) = (t.partition("producer"), t.partition("consumer"));
/// let tile = Cells::range(Space::Smem, 0, 64);
/// t.access(p, "local_store", tile.clone(), true)?;
/// t.access(c, "local_load", tile, false)?;
/// let trace = t.build()?;
/// let report = check(&trace);
/// let w = report.pairs.iter().find_map(|(_, v)| match v {
///     Verdict::Hazard(w) => Some(w),
///     _ => None,
/// });
/// let w = w.ok_or(alias_alloc::hazard::HazardError::NoSuchEvent { event: 0 })?;
/// let marked = [w.first, w.second];
/// let svg = swimlanes(&trace, &Picture { title: "hazard", schedule: &w.schedule, marked: &marked, missing: None });
/// assert!(svg.starts_with("<svg") && svg.contains("producer") && svg.contains("local_load"));
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn swimlanes(trace: &Trace, p: &Picture<'_>) -> String {
    let start = p.schedule.len().saturating_sub(WINDOW);
    let mut shown: Vec<EventId> = p
        .schedule
        .iter()
        .take(start)
        .filter(|e| p.marked.contains(e))
        .copied()
        .collect();
    shown.extend(p.schedule.iter().skip(start).copied());
    let timeline_of = |e: EventId| trace.events.get(e.0).map(|x| x.timeline);
    // Lanes: partitions in order, each followed by its engines that appear (the TMA copies of
    // one partition share a lane).
    let mut lanes: Vec<&str> = Vec::new();
    let used = |t: TimelineId| {
        shown.iter().any(|&e| timeline_of(e) == Some(t)) || p.missing.is_some_and(|(_, to)| to == t)
    };
    for (i, tl) in trace.timelines.iter().enumerate() {
        if tl.kind != TimelineKind::Partition {
            continue;
        }
        let t = TimelineId(i);
        if used(t) {
            lanes.push(trace.timeline_name(t));
        }
        for (j, engine) in trace.timelines.iter().enumerate() {
            let issued = matches!(engine.kind,
                TimelineKind::TensorCore { issuer } | TimelineKind::Tma { issuer } if issuer == t);
            let name = trace.timeline_name(TimelineId(j));
            if issued && used(TimelineId(j)) && !lanes.contains(&name) {
                lanes.push(name);
            }
        }
    }
    // The title wraps; the lanes start below it.
    let title = wrap(p.title, TITLE_CHARS);
    let top = TOP + 16 * title.len().saturating_sub(1);
    let lane_y = |t: TimelineId| {
        let name = trace.timeline_name(t);
        top + LANE * lanes.iter().position(|&l| l == name).unwrap_or(0) + LANE / 2
    };
    // The labels of the marked events, under the lanes at their event's x.
    let label = |e: EventId| {
        trace
            .events
            .get(e.0)
            .map(|ev| format!("{}: {}", trace.timeline_name(ev.timeline), ev.label))
    };
    // Wide enough for every text: the lanes, the title lines, the labels, the legend.
    let width = [
        LEFT + STEP * (shown.len() + 4) + 40,
        20 + title
            .iter()
            .map(|l| text_px(l, TITLE_CHAR_PX))
            .max()
            .unwrap_or(0),
        20 + text_px(LEGEND, LABEL_CHAR_PX),
    ]
    .into_iter()
    .chain(
        shown
            .iter()
            .enumerate()
            .filter(|(_, e)| p.marked.contains(e))
            .map(|(i, &e)| {
                LEFT + STEP * i + 10 + label(e).map_or(0, |l| text_px(&l, LABEL_CHAR_PX))
            }),
    )
    .max()
    .unwrap_or(0);
    let height = top + LANE * lanes.len() + 90;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">"##
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="white"/>"##);
    for (k, line) in title.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="10" y="{}" font-size="13">{}</text>"##,
            20 + 16 * k,
            escape(line)
        );
    }
    for (k, name) in lanes.iter().enumerate() {
        let y = top + LANE * k;
        let fill = if k % 2 == 0 { "#f4f4f4" } else { "#ffffff" };
        let _ = writeln!(
            s,
            r##"<rect x="0" y="{y}" width="{width}" height="{LANE}" fill="{fill}"/><text x="8" y="{}">{}</text>"##,
            y + LANE / 2 + 4,
            escape(name)
        );
    }
    for (i, &e) in shown.iter().enumerate() {
        let Some(ev) = trace.events.get(e.0) else {
            continue;
        };
        let x = LEFT + STEP * i;
        let y = lane_y(ev.timeline);
        let red = p.marked.contains(&e);
        let color = if red { "#d62728" } else { "#444444" };
        let title = format!("<title>{}</title>", escape(&ev.label));
        let _ = match &ev.kind {
            EventKind::Access { write, .. } => writeln!(
                s,
                r##"<rect x="{}" y="{}" width="10" height="14" fill="{}" stroke="{color}">{title}</rect>"##,
                x - 5,
                y - 7,
                if *write { color } else { "white" }
            ),
            EventKind::Wait { .. } => writeln!(
                s,
                r##"<polygon points="{},{} {},{} {},{}" fill="#1f77b4">{title}</polygon>"##,
                x - 5,
                y - 6,
                x + 5,
                y - 6,
                x,
                y + 6
            ),
            EventKind::Arrive { .. } | EventKind::CompleteTx { .. } => writeln!(
                s,
                r##"<polygon points="{},{} {},{} {},{}" fill="#2ca02c">{title}</polygon>"##,
                x - 5,
                y + 6,
                x + 5,
                y + 6,
                x,
                y - 6
            ),
            EventKind::Sync { .. } => writeln!(
                s,
                r##"<circle cx="{x}" cy="{y}" r="5" fill="#9467bd">{title}</circle>"##
            ),
        };
        if red {
            let _ = writeln!(
                s,
                r##"<text x="{x}" y="{}" fill="{color}">{}</text>"##,
                height - 60 + 14 * p.marked.iter().position(|&m| m == e).unwrap_or(0),
                escape(&label(e).unwrap_or_default())
            );
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="{color}" stroke-dasharray="2,2"/>"##,
                y + 8,
                height - 72 + 14 * p.marked.iter().position(|&m| m == e).unwrap_or(0)
            );
        }
    }
    if let Some((from, to)) = p.missing {
        let x2 = LEFT + STEP * shown.len().saturating_sub(1);
        let y2 = lane_y(to);
        let (x1, y1) = match (shown.iter().position(|&e| e == from), timeline_of(from)) {
            (Some(i), Some(t)) => (LEFT + STEP * i, lane_y(t)),
            _ => (LEFT - 20, y2),
        };
        let _ = writeln!(
            s,
            r##"<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#d62728"/></marker></defs>"##
        );
        let _ = writeln!(
            s,
            r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6,3" marker-end="url(#arrow)"><title>the missing wait</title></line>"##
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="10" y="{}" fill="#666">{LEGEND}</text>"##,
        height - 12
    );
    s.push_str("</svg>\n");
    s
}
