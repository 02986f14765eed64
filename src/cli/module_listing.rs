//! `linalias layout show --module FILE`: every layout of a TTGIR module on every shape the file
//! uses it with ([`linear_layout::text::module::module_layouts`]), each built or refused on its
//! own, never aborting the listing.

use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::text::module::{module_layouts, LayoutUse, ModuleLayout, UseKind};
use linear_layout::{LayoutError, LinearLayout};
use serde_json::{json, Map, Value};

use crate::cli::args::Format;
use crate::cli::error::CliError;
use crate::cli::output;

/// What building one layout on one use gave.
struct Built {
    /// The layout on the use's shape, or why not.
    full: Result<LinearLayout, LayoutError>,
    /// For a memdesc refused on its whole shape: the layout of one buffer, the view
    /// `ttg.memdesc_index` gives (the leading dims dropped, as few as it takes), or why not.
    per_buffer: Option<(Vec<u64>, Result<LinearLayout, LayoutError>)>,
    /// For a padded layout (no linear layout, as in Triton): its padding and its linear
    /// component (Triton's `paddedLinearLayout`), or why not.
    padded: Option<(String, Result<LinearLayout, LayoutError>)>,
}

/// The padding text and linear component of a padded layout (alone or as the pieces of a
/// partitioned one) on the last dims of `shape`, as Triton's `paddedLinearLayout(memdesc)`.
fn padded(
    encoding: &Encoding,
    shape: &[u64],
) -> Option<(String, Result<LinearLayout, LayoutError>)> {
    let Encoding::Shared(shared) = encoding else {
        return None;
    };
    let (pieces, partitioned) = match shared {
        SharedEncoding::Padded(p) => (p, None),
        SharedEncoding::Partitioned(q) => match q.partition_layout.as_ref() {
            SharedEncoding::Padded(p) => (p, Some(q)),
            _ => return None,
        },
        _ => return None,
    };
    let pairs: Vec<String> = pieces
        .intervals_paddings
        .iter()
        .map(|(i, p)| format!("{i}:+{p}"))
        .collect();
    let rank = pieces.linear_component().num_out_dims();
    let tail = shape
        .get(shape.len().saturating_sub(rank)..)
        .unwrap_or(shape);
    let linear = match partitioned {
        Some(q) => q.padded_linear_layout(tail),
        None => Ok(pieces.linear_component().clone()),
    };
    Some((format!("[{}]", pairs.join(", ")), linear))
}

fn build(encoding: &Encoding, u: &LayoutUse) -> Built {
    let shape = u.layout_shape();
    let full = encoding.to_linear_layout(&shape);
    let padded = padded(encoding, &shape);
    let mut per_buffer = None;
    if full.is_err() && u.kind == UseKind::MemDesc && padded.is_none() {
        for k in 1..shape.len() {
            let view: Vec<u64> = shape.iter().skip(k).copied().collect();
            let built = encoding.to_linear_layout(&view);
            let ok = built.is_ok();
            if ok || per_buffer.is_none() {
                per_buffer = Some((view, built));
            }
            if ok {
                break;
            }
        }
    }
    Built {
        full,
        per_buffer,
        padded,
    }
}

fn type_text(u: &LayoutUse) -> String {
    let dims: Vec<String> = u.shape.iter().map(u64::to_string).collect();
    let alloc = u
        .alloc_shape
        .as_ref()
        .map(|a| {
            let a: Vec<String> = a.iter().map(u64::to_string).collect();
            format!(", {}", a.join("x"))
        })
        .unwrap_or_default();
    match u.kind {
        UseKind::Tensor => format!("tensor<{}x{}>", dims.join("x"), u.element),
        UseKind::MemDesc => format!("!ttg.memdesc<{}x{}{alloc}>", dims.join("x"), u.element),
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

fn heading(l: &ModuleLayout) -> String {
    match &l.name {
        Some(name) => format!("{name} = {} (line {})\n", l.attribute, l.line),
        None => format!("inline {} (line {})\n", l.attribute, l.line),
    }
}

/// The listing of `text` in `format`: text (a block per layout), JSON (an array), or MLIR.
pub fn render(text: &str, format: Format) -> Result<String, CliError> {
    let layouts = module_layouts(text);
    if format == Format::Json {
        let all: Vec<Value> = layouts.iter().map(json_entry).collect();
        return Ok(format!("{}\n", Value::Array(all)));
    }
    let (mut built, mut refused) = (0usize, 0usize);
    let mut out = String::new();
    for l in &layouts {
        out.push_str(&heading(l));
        let encoding = match Encoding::from_mlir(&l.attribute) {
            Ok(e) => e,
            Err(e) => {
                refused += l.uses.len().max(1);
                out.push_str(&format!("  refused: {e}\n"));
                continue;
            }
        };
        if l.uses.is_empty() {
            out.push_str("  (no type of the file uses it)\n");
        }
        for u in &l.uses {
            out.push_str(&format!("  {} (line {}):\n", type_text(u), u.line));
            let b = build(&encoding, u);
            match &b.full {
                Ok(layout) => {
                    built += 1;
                    out.push_str(&indent(&shown(layout, format, &encoding), "    "));
                }
                Err(_) if matches!(&b.padded, Some((_, Ok(_)))) => {
                    if let Some((pairs, Ok(layout))) = &b.padded {
                        built += 1;
                        out.push_str(&format!(
                            "    padded {pairs}: no linear layout (as in Triton); its linear \
                             component (paddedLinearLayout), padding on top:\n"
                        ));
                        out.push_str(&indent(&shown(layout, format, &encoding), "      "));
                    }
                }
                Err(e) => match &b.per_buffer {
                    // A multi-buffered allocation: its layout is per buffer, as TLX indexes it.
                    Some((shape, Ok(layout))) => {
                        built += 1;
                        out.push_str(&format!(
                            "    one buffer ({}, the ttg.memdesc_index view):\n",
                            shape_text(shape)
                        ));
                        out.push_str(&indent(&shown(layout, format, &encoding), "      "));
                    }
                    _ => {
                        refused += 1;
                        out.push_str(&format!("    no linear layout (as in Triton): {e}\n"));
                    }
                },
            }
        }
    }
    out.push_str(&format!(
        "{} layouts, {} uses: {built} built, {refused} without a layout\n",
        layouts.len(),
        layouts.iter().map(|l| l.uses.len()).sum::<usize>()
    ));
    Ok(out)
}

pub(crate) fn shape_text(shape: &[u64]) -> String {
    shape
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// One layout of `encoding` in `format` (a shared one's MLIR at the attribute's alignment); a
/// layout the format cannot print (MLIR needs standard out-dims) is said so instead.
fn shown(layout: &LinearLayout, format: Format, encoding: &Encoding) -> String {
    let alignment = match encoding {
        Encoding::Shared(shared) => shared.alignment(),
        _ => output::SHARED_LINEAR_ALIGNMENT,
    };
    output::layout_aligned(layout, format, alignment).unwrap_or_else(|e| format!("({e})\n"))
}

fn json_entry(l: &ModuleLayout) -> Value {
    let encoding = Encoding::from_mlir(&l.attribute);
    let uses: Vec<Value> = match &encoding {
        Err(_) => Vec::new(),
        Ok(enc) => l.uses.iter().map(|u| json_use(enc, u)).collect(),
    };
    let mut v = Map::new();
    v.insert("name".into(), json!(l.name));
    v.insert("attribute".into(), json!(l.attribute));
    v.insert("line".into(), json!(l.line));
    v.insert("uses".into(), Value::Array(uses));
    if let Err(e) = encoding {
        v.insert("error".into(), json!(e.to_string()));
    }
    Value::Object(v)
}

fn json_use(enc: &Encoding, u: &LayoutUse) -> Value {
    let b = build(enc, u);
    let mut v = Map::new();
    let kind = match u.kind {
        UseKind::Tensor => "tensor",
        UseKind::MemDesc => "memdesc",
    };
    v.insert("kind".into(), json!(kind));
    v.insert("shape".into(), json!(u.shape));
    v.insert("alloc_shape".into(), json!(u.alloc_shape));
    v.insert("element".into(), json!(u.element));
    v.insert("line".into(), json!(u.line));
    match &b.full {
        Ok(layout) => v.insert("layout".into(), json_layout(layout)),
        Err(e) => v.insert("error".into(), json!(e.to_string())),
    };
    if let Some((pairs, linear)) = &b.padded {
        let linear = match linear {
            Ok(layout) => json!({"padding": pairs, "linear_component": json_layout(layout)}),
            Err(e) => json!({"padding": pairs, "error": e.to_string()}),
        };
        v.insert("padded".into(), linear);
    }
    if let Some((shape, per)) = &b.per_buffer {
        let per = match per {
            Ok(layout) => json!({"shape": shape, "layout": json_layout(layout)}),
            Err(e) => json!({"shape": shape, "error": e.to_string()}),
        };
        v.insert("per_buffer".into(), per);
    }
    Value::Object(v)
}

fn json_layout(layout: &LinearLayout) -> Value {
    layout.to_json()
}
