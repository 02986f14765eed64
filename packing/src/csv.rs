//! MiniMalloc's CSV format (google/minimalloc `src/converter.cc`): a header row naming the
//! columns, then one buffer per row. Columns: `id,lower,upper,size` (required), `alignment`
//! and `offset` (optional); MiniMalloc's aliases `buffer`/`buffer_id` (id), `start`/`begin`
//! (lower) and `end` (inclusive upper, so 1 is added) are accepted. Lifetimes are half-open.
//! [`write_csv`] emits the same columns plus `offset` for a placement, as MiniMalloc does.

use super::{Buffer, PackError, Placement, Problem};

/// Which column of a row holds which field.
#[derive(Default)]
struct Columns {
    id: Option<usize>,
    lower: Option<usize>,
    upper: Option<usize>,
    inclusive_end: bool,
    size: Option<usize>,
    alignment: Option<usize>,
    offset: Option<usize>,
    count: usize,
}

fn csv_error(line: usize, message: impl Into<String>) -> PackError {
    PackError::Csv {
        line,
        message: message.into(),
    }
}

impl Columns {
    fn from_header(header: &str) -> Result<Columns, PackError> {
        let mut c = Columns::default();
        for (i, name) in header.split(',').map(str::trim).enumerate() {
            let slot = match name {
                "id" | "buffer" | "buffer_id" => &mut c.id,
                "lower" | "start" | "begin" => &mut c.lower,
                "upper" => &mut c.upper,
                "end" => {
                    c.inclusive_end = true;
                    &mut c.upper
                }
                "size" => &mut c.size,
                "alignment" => &mut c.alignment,
                "offset" => &mut c.offset,
                // MiniMalloc's `hint` and `gaps` are not modelled; refuse rather than ignore.
                other => return Err(csv_error(1, format!("unknown column '{other}'"))),
            };
            if slot.replace(i).is_some() {
                return Err(csv_error(1, format!("duplicate column '{name}'")));
            }
            c.count = i + 1;
        }
        for (name, col) in [
            ("id", c.id),
            ("lower", c.lower),
            ("upper", c.upper),
            ("size", c.size),
        ] {
            if col.is_none() {
                return Err(csv_error(1, format!("required column '{name}' is missing")));
            }
        }
        Ok(c)
    }
}

fn field<'a>(fields: &[&'a str], col: Option<usize>) -> Option<&'a str> {
    col.and_then(|c| fields.get(c).copied())
}

fn integer(line: usize, name: &str, text: Option<&str>) -> Result<u64, PackError> {
    let text = text.ok_or_else(|| csv_error(line, format!("missing field '{name}'")))?;
    text.parse::<u64>().map_err(|_| {
        csv_error(
            line,
            format!("field '{name}' is not a non-negative integer: '{text}'"),
        )
    })
}

/// Reads a MiniMalloc CSV into a problem with the given capacity. Blank lines are skipped;
/// errors name the line (1-based) and the field, or the buffer for semantic errors.
///
/// ```
/// use packing::csv::read_csv;
/// let p = read_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", Some(12))?;
/// assert_eq!(p.len(), 2);
/// assert_eq!(p.buffers()[1].lower, 3);
/// let old = read_csv("buffer,start,end,size\nx,0,2,8\n", None)?; // inclusive end
/// assert_eq!(old.buffers()[0].upper, 3);
/// assert!(read_csv("id,lower,upper,size\na,0,x,1\n", None).is_err());
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn read_csv(text: &str, capacity: Option<u64>) -> Result<Problem, PackError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| csv_error(1, "empty file: no header row"))?;
    let cols = Columns::from_header(header)?;
    let mut buffers = Vec::new();
    // The line of each id, to name both lines of a repeated one.
    // Borrowed from the text, and one vector of fields for every row: no copy per row.
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut fields: Vec<&str> = Vec::with_capacity(cols.count);
    for (n, row) in lines {
        let line = n + 1;
        fields.clear();
        fields.extend(row.split(',').map(str::trim));
        if fields.len() != cols.count {
            return Err(csv_error(
                line,
                format!("{} fields, header has {}", fields.len(), cols.count),
            ));
        }
        let id = field(&fields, cols.id).unwrap_or_default();
        if let Some(first) = seen.insert(id, line) {
            return Err(csv_error(
                line,
                format!("buffer id '{id}' is used twice (first on line {first})"),
            ));
        }
        let lower = integer(line, "lower", field(&fields, cols.lower))?;
        let mut upper = integer(line, "upper", field(&fields, cols.upper))?;
        if cols.inclusive_end {
            upper = upper
                .checked_add(1)
                .ok_or_else(|| PackError::Overflow { id: id.to_owned() })?;
        }
        let size = integer(line, "size", field(&fields, cols.size))?;
        let mut b = Buffer::new(id, lower, upper, size)?;
        if cols.alignment.is_some() {
            b = b.aligned(integer(line, "alignment", field(&fields, cols.alignment))?)?;
        }
        // MiniMalloc writes -1 (or leaves it empty) for "no fixed offset".
        match field(&fields, cols.offset) {
            None | Some("") | Some("-1") => {}
            text => b = b.fixed_at(integer(line, "offset", text)?)?,
        }
        buffers.push(b);
    }
    Problem::new(buffers, capacity)
}

/// Writes the problem as MiniMalloc CSV (`id,lower,upper,size,alignment`), with an `offset`
/// column when a placement is given (or fixed offsets exist). [`read_csv`] reads it back.
///
/// ```
/// use packing::{csv::{read_csv, write_csv}, Placement};
/// let p = read_csv("id,lower,upper,size\na,0,2,4\nb,1,3,4\n", None)?;
/// let text = write_csv(&p, Some(&Placement { offsets: vec![0, 4] }))?;
/// assert_eq!(text, "id,lower,upper,size,alignment,offset\na,0,2,4,1,0\nb,1,3,4,1,4\n");
/// assert_eq!(read_csv(&text, None)?.buffers()[1].offset, Some(4));
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn write_csv(problem: &Problem, placement: Option<&Placement>) -> Result<String, PackError> {
    if let Some(pl) = placement {
        if pl.offsets.len() != problem.len() {
            return Err(PackError::PlacementLength {
                expected: problem.len(),
                got: pl.offsets.len(),
            });
        }
    }
    let with_offset = placement.is_some() || problem.buffers().iter().any(|b| b.offset.is_some());
    let mut out = String::from("id,lower,upper,size,alignment");
    out.push_str(if with_offset { ",offset\n" } else { "\n" });
    for (i, b) in problem.buffers().iter().enumerate() {
        if b.id.contains(',') || b.id.contains('\n') {
            return Err(PackError::Csv {
                line: i + 2,
                message: format!("buffer id '{}' cannot be written as CSV", b.id),
            });
        }
        out.push_str(&format!(
            "{},{},{},{},{}",
            b.id, b.lower, b.upper, b.size, b.alignment
        ));
        if with_offset {
            let offset = placement
                .and_then(|p| p.offsets.get(i).copied())
                .or(b.offset);
            match offset {
                Some(o) => out.push_str(&format!(",{o}\n")),
                None => out.push_str(",-1\n"),
            }
        } else {
            out.push('\n');
        }
    }
    Ok(out)
}
