//! The grammar every layout attribute shares, built on the one [`Cursor`]: `key = value` fields
//! (any order, each once, unknown keys named), integers, booleans, lists, basis lists,
//! `CGALayout` checks, nesting, and the printing helpers the families' printers use.
//!
//! It knows no family: each family keeps its own keys and printer beside its map
//! (`impl Attribute for Blocked` in `families/blocked.rs`, …), and
//! [`families::encoding`](crate::families::encoding) registers them and dispatches on an
//! attribute's name.
//!
//! Parsing checks the text's structure (known keys, each once, lists of one rank) but not
//! whether the parameters make a layout: that is `to_linear_layout`'s job.

use std::fmt;

use super::cursor::Cursor;
use crate::{Dim, DimBases, LayoutError, LinearLayout, Result};

/// What errors not tied to one attribute are attributed to.
pub(crate) const ANY: &str = "MLIR attribute";
/// Nesting limit for parents (`#ttg.slice` of `#ttg.dot_op` of …): deep enough for any real
/// layout, shallow enough that hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 32;
/// Largest tensor rank a `#ttg.linear` basis may have (each out-dim gets an interned name).
const MAX_RANK: usize = 64;

/// The attribute grammar over a [`Cursor`], with the nesting depth of parents.
pub(crate) struct AttrParser<'a> {
    /// The tokens.
    pub(crate) cursor: Cursor<'a>,
    depth: usize,
}

impl<'a> AttrParser<'a> {
    pub(crate) fn new(text: &'a str) -> AttrParser<'a> {
        AttrParser {
            cursor: Cursor::new(text),
            depth: 0,
        }
    }

    /// `parse` on the whole text: nothing but blanks may follow what it reads.
    pub(crate) fn whole<T>(text: &'a str, parse: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let mut p = AttrParser::new(text);
        let out = parse(&mut p)?;
        if !p.cursor.at_end() {
            return Err(p.cursor.error(
                ANY,
                format!("unexpected text after the attribute: {}", p.cursor.found()),
            ));
        }
        Ok(out)
    }

    pub(crate) fn err_at(&self, attr: &str, pos: usize, msg: impl fmt::Display) -> LayoutError {
        self.cursor.error_at(attr, pos, msg)
    }

    pub(crate) fn err(&self, attr: &str, msg: impl fmt::Display) -> LayoutError {
        self.cursor.error(attr, msg)
    }

    /// Skips `#alias =` at the start of an alias definition line.
    pub(crate) fn alias_definition(&mut self) {
        let start = self.cursor.pos();
        let name = self.cursor.hash_name();
        if !(name.len() > 1 && !name.contains('.') && self.cursor.eat('=')) {
            self.cursor.reset(start);
        }
    }

    /// `parse` one level of nesting deeper (a parent attribute); `start` is where the nested
    /// attribute begins. Hostile input cannot nest deeper than [`MAX_DEPTH`].
    pub(crate) fn nested<T>(
        &mut self,
        start: usize,
        parse: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err_at(
                ANY,
                start,
                format!("parents nested more than {MAX_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        let out = parse(self);
        self.depth -= 1;
        out
    }

    /// `<{`, the opening of every `#ttg` attribute.
    pub(crate) fn open_dict(&mut self, attr: &str) -> Result<()> {
        self.cursor.require(attr, '<', "")?;
        self.cursor.require(attr, '{', "")
    }

    /// The `>` after the `}` that `fields` consumed.
    pub(crate) fn close_dict(&mut self, attr: &str) -> Result<()> {
        self.cursor.require(attr, '>', "")
    }

    /// `key = value, …` up to `close`, each key one of `keys` (or any identifier when `keys` is
    /// `None`) and given at most once; `field` parses the value of `key`.
    pub(crate) fn fields(
        &mut self,
        attr: &str,
        keys: Option<&[&'static str]>,
        close: char,
        mut field: impl FnMut(&mut Self, &'a str) -> Result<()>,
    ) -> Result<()> {
        let mut seen: Vec<&'a str> = Vec::new();
        if self.cursor.eat(close) {
            return Ok(());
        }
        loop {
            self.cursor.skip_ws();
            let start = self.cursor.pos();
            let name = self.cursor.word();
            let known = keys.is_none_or(|keys| keys.contains(&name));
            if name.is_empty() || !known {
                let msg = match keys {
                    Some(keys) if !name.is_empty() => {
                        format!("unknown key '{name}' (expected one of {})", keys.join(", "))
                    }
                    _ => format!("expected a key, found {}", self.cursor.found()),
                };
                return Err(self.err_at(attr, start, msg));
            }
            if seen.contains(&name) {
                return Err(self.err_at(attr, start, format!("key '{name}' given twice")));
            }
            seen.push(name);
            self.cursor
                .require(attr, '=', &format!(" after '{name}'"))?;
            field(self, name)?;
            if self.cursor.eat(',') {
                continue;
            }
            if self.cursor.eat(close) {
                return Ok(());
            }
            return Err(self.err(
                attr,
                format!(
                    "expected ',' or '{close}' after the value of '{name}', found {}",
                    self.cursor.found()
                ),
            ));
        }
    }

    /// A value that must be there.
    pub(crate) fn required<T>(
        &self,
        attr: &str,
        start: usize,
        key: &str,
        value: Option<T>,
    ) -> Result<T> {
        value.ok_or_else(|| self.err_at(attr, start, format!("missing key '{key}'")))
    }

    /// A non-negative integer of at most 64 bits.
    pub(crate) fn uint(&mut self, attr: &str, key: &str) -> Result<u64> {
        self.cursor.skip_ws();
        let start = self.cursor.pos();
        let digits = self.cursor.digits();
        match digits.parse::<u64>() {
            Ok(v) => Ok(v),
            Err(_) if digits.is_empty() => Err(self.err(
                attr,
                format!(
                    "{key}: expected a non-negative integer, found {}",
                    self.cursor.found()
                ),
            )),
            Err(_) => {
                self.cursor.reset(start);
                Err(self.err(attr, format!("{key}: {digits} does not fit in 64 bits")))
            }
        }
    }

    /// An integer that fits `T` (`u32` parameters, `usize` dims).
    pub(crate) fn int<T: TryFrom<u64>>(&mut self, attr: &str, key: &str) -> Result<T> {
        self.cursor.skip_ws();
        let start = self.cursor.pos();
        let value = self.uint(attr, key)?;
        T::try_from(value)
            .map_err(|_| self.err_at(attr, start, format!("{key}: {value} is out of range")))
    }

    /// `true` or `false`.
    pub(crate) fn boolean(&mut self, attr: &str, key: &str) -> Result<bool> {
        self.cursor.skip_ws();
        let start = self.cursor.pos();
        match self.cursor.word() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => {
                self.cursor.reset(start);
                Err(self.err(
                    attr,
                    format!(
                        "{key}: expected true or false, found {}",
                        self.cursor.found()
                    ),
                ))
            }
        }
    }

    /// `[item, …]`.
    pub(crate) fn list<T>(
        &mut self,
        attr: &str,
        key: &str,
        mut item: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.cursor
            .require(attr, '[', &format!(" to open the list of '{key}'"))?;
        let mut out = Vec::new();
        if self.cursor.eat(']') {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.cursor.eat(',') {
                continue;
            }
            if self.cursor.eat(']') {
                return Ok(out);
            }
            return Err(self.err(
                attr,
                format!("{key}: expected ',' or ']', found {}", self.cursor.found()),
            ));
        }
    }

    /// `[1, 2, 4]`.
    pub(crate) fn ints<T: TryFrom<u64>>(&mut self, attr: &str, key: &str) -> Result<Vec<T>> {
        self.list(attr, key, |p| p.int(attr, key))
    }

    /// `[[0, 1], [1, 0]]`.
    pub(crate) fn bases(&mut self, attr: &str, key: &str) -> Result<DimBases> {
        self.list(attr, key, |p| p.ints(attr, key))
    }

    /// One of the legacy keys `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` (Triton before the linear
    /// `CGALayout`), recorded in `legacy` for [`AttrParser::check_legacy_cta`].
    pub(crate) fn legacy_cta_key(
        &mut self,
        attr: &str,
        key: &str,
        legacy: &mut LegacyCta,
    ) -> Result<()> {
        let values: Vec<u64> = self.ints(attr, key)?;
        match key {
            "CTAsPerCGA" => legacy.ctas_per_cga = values,
            "CTASplitNum" => legacy.cta_split_num = values,
            _ => legacy.cta_order = values,
        }
        Ok(())
    }

    /// Legacy CTA keys are read as Triton 3.9 reads them in `#ttg.nvidia_mma`, `#ttg.amd_mfma`
    /// and `#ttg.amd_wmma`: not at all, which is one CTA. Keys that say one CTA are accepted
    /// (and not printed back, as Triton does not print them); keys describing more CTAs are an
    /// error, since Triton would silently lay the tensor out for one.
    pub(crate) fn check_legacy_cta(
        &self,
        attr: &str,
        start: usize,
        legacy: &LegacyCta,
        cga: &[Vec<u64>],
    ) -> Result<()> {
        let one = |v: &[u64]| v.iter().all(|&x| x == 1);
        if one(&legacy.ctas_per_cga) && one(&legacy.cta_split_num) {
            return Ok(());
        }
        let hint = if cga.is_empty() {
            "write the CTA split as CGALayout = [[…]] (one block basis per CTA bit)"
        } else {
            "drop them: the CGALayout already gives the CTA split"
        };
        Err(self.err_at(
            attr,
            start,
            format!(
                "legacy CTAsPerCGA = {}, CTASplitNum = {} describe more than one CTA, but Triton \
                 3.9 ignores these keys and lays the tensor out for one CTA; {hint}",
                list_text(&legacy.ctas_per_cga),
                list_text(&legacy.cta_split_num)
            ),
        ))
    }

    /// A `CGALayout` whose bases all have `rank` entries (or all the same number).
    pub(crate) fn check_cga(
        &self,
        attr: &str,
        start: usize,
        cga: &[Vec<u64>],
        rank: Option<usize>,
    ) -> Result<()> {
        let Some(rank) = rank.or_else(|| cga.first().map(Vec::len)) else {
            return Ok(());
        };
        match cga.iter().find(|b| b.len() != rank) {
            Some(b) => Err(self.err_at(
                attr,
                start,
                format!(
                    "CGALayout basis {} has {} entries, expected {rank} (the rank)",
                    list_text(b),
                    b.len()
                ),
            )),
            None => Ok(()),
        }
    }

    /// The layout Triton builds from `{in = bases, …}`: out-dims `dim0…` sized by the bases.
    pub(crate) fn layout(
        &self,
        attr: &str,
        start: usize,
        dims: &[(&str, DimBases)],
    ) -> Result<LinearLayout> {
        let rank = dims
            .iter()
            .flat_map(|(_, b)| b.first())
            .map(Vec::len)
            .next()
            .unwrap_or(0);
        if rank > MAX_RANK {
            return Err(self.err_at(
                attr,
                start,
                format!("bases have {rank} entries; at most {MAX_RANK} dims are supported"),
            ));
        }
        let outs: Vec<Dim> = (0..rank).map(Dim::standard).collect();
        LinearLayout::from_bases_inferred(dims, &outs).map_err(|e| self.err_at(attr, start, e))
    }
}

// ----- printing ----------------------------------------------------------------------------

/// `[1, 2, 4]`.
/// The legacy CTA keys of an attribute (empty when absent).
#[derive(Debug, Default)]
pub(crate) struct LegacyCta {
    pub(crate) ctas_per_cga: Vec<u64>,
    pub(crate) cta_split_num: Vec<u64>,
    pub(crate) cta_order: Vec<u64>,
}

/// The legacy CTA keys, for a family's key list.
pub(crate) const LEGACY_CTA_KEYS: [&str; 3] = ["CTAsPerCGA", "CTASplitNum", "CTAOrder"];

pub(crate) fn list_text<T: fmt::Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(T::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `[[0, 1], [1, 0]]`.
pub(crate) fn bases_text(bases: &[Vec<u64>]) -> String {
    let items: Vec<String> = bases.iter().map(|b| list_text(b)).collect();
    format!("[{}]", items.join(", "))
}

/// `, CGALayout = [[…]]`, or nothing for a single CTA.
pub(crate) fn cga_suffix(cga: &[Vec<u64>]) -> String {
    if cga.is_empty() {
        String::new()
    } else {
        format!(", CGALayout = {}", bases_text(cga))
    }
}

/// `dim = [[…]], …` for each of `dims` (one the layout lacks prints `[]`), leaving out those in
/// `omit_empty` that have no bases.
pub(crate) fn layout_dims_text(
    layout: &LinearLayout,
    dims: &[&str],
    omit_empty: &[&str],
) -> String {
    let items: Vec<String> = dims
        .iter()
        .filter_map(|&d| {
            let b = layout.bases_of(d).unwrap_or_default();
            (!(b.is_empty() && omit_empty.contains(&d)))
                .then(|| format!("{d} = {}", bases_text(&b)))
        })
        .collect();
    items.join(", ")
}
