//! Reading a module: tokens ([`lex`]) → the [`Module`] model.
//!
//! MLIR's printer puts one op per line and opens a region with a `{` that ends its line; the
//! reader relies on exactly that to know where an op ends (a line break outside its brackets,
//! unless the next line goes on with a keyword such as `default` or `partition0`) and which
//! `{` opens a region rather than an attribute dictionary. Within an op: `%x` followed by `:`
//! (no blank) or `=` declares a block argument of the op's next region (`partition0(%arg25:
//! i32)`, `iter_args(%acc = %init)`); any other `%x` is a use, resolved in the scopes of the
//! enclosing regions (a use before its definition is an error). The types after the op's last
//! top-level `:` are linked to its operands and results where [`OpKind::signature`] (or the
//! generic form) says whose they are.

use std::collections::HashMap;

use super::error::{MlirError, MlirErrorKind};
use super::lexer::{lex, Token, TokenKind};
use super::model::{
    Alias, AliasKind, Block, BlockId, Module, OpId, Operation, Piece, Region, RegionId, TopItem,
    TypeOf, Value, ValueDef, ValueId,
};
use super::op_kind::{OpKind, Slot};

/// Parses `text` into a [`Module`].
pub(crate) fn parse(text: &str) -> Result<Module, MlirError> {
    let tokens = lex(text)?;
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let ascii_lines = line_starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let end = line_starts.get(i + 1).copied().unwrap_or(text.len());
            text.get(s..end).is_some_and(str::is_ascii)
        })
        .collect();
    let mut p = Parser {
        text,
        line_starts,
        ascii_lines,
        tokens,
        i: 0,
        last_end: 0,
        m: Module::default(),
        scopes: vec![HashMap::new()],
    };
    if let Err(e) = p.top() {
        // A text cut short fails wherever the cut lands (a name half written, a type left
        // open); say what happened — the module is not closed — rather than that symptom.
        return Err(p.unclosed_at_end().unwrap_or(e));
    }
    p.m.trailing = text.get(p.last_end..).unwrap_or("").to_string();
    Ok(p.m)
}

/// A span of an op's text that the model links.
#[derive(Debug, Clone)]
struct Special {
    start: usize,
    end: usize,
    piece: Piece,
}

struct Parser<'a> {
    text: &'a str,
    /// Byte offset where each line starts: positions in O(log lines), not O(text).
    line_starts: Vec<usize>,
    /// Whether each line is ASCII (its columns are byte offsets).
    ascii_lines: Vec<bool>,
    tokens: Vec<Token>,
    i: usize,
    last_end: usize,
    m: Module,
    scopes: Vec<HashMap<String, ValueId>>,
}

/// Whether a token at the start of a line goes on with the op before it (`default {`,
/// `partition0(…)`): a bare word without a dot that names no op.
fn continues(tok: &Token, text: &str) -> bool {
    let t = tok.text(text);
    tok.kind == TokenKind::Bare && !t.contains('.') && t != "module" && t != "return"
}

/// The bracket that `close` closes.
fn opener(close: u8) -> u8 {
    match close {
        b')' => b'(',
        b']' => b'[',
        b'}' => b'{',
        _ => b'<',
    }
}

/// The bracket that closes `open`.
fn closer(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => b'>',
    }
}

impl<'a> Parser<'a> {
    /// `(line, column)` of byte offset `pos`, 1-based, columns in characters.
    fn position(&self, pos: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= pos).max(1);
        let start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        let column = if self.ascii_lines.get(line - 1).copied().unwrap_or(false) {
            pos.saturating_sub(start) + 1
        } else {
            self.text
                .get(start..pos)
                .map_or(1, |t| t.chars().count() + 1)
        };
        (line, column)
    }

    fn tok(&self, i: usize) -> Option<Token> {
        self.tokens.get(i).copied()
    }

    fn slice(&self, start: usize, end: usize) -> String {
        self.text.get(start..end).unwrap_or("").to_string()
    }

    fn error(&self, pos: usize, kind: MlirErrorKind) -> MlirError {
        MlirError::at(self.text, pos, kind)
    }

    fn found(&self, i: usize) -> String {
        match self.tok(i) {
            Some(t) => format!("'{}'", t.text(self.text)),
            None => "end of input".into(),
        }
    }

    fn expected(&self, i: usize, expected: &'static str) -> MlirError {
        let pos = self.tok(i).map_or(self.text.len(), |t| t.start);
        self.error(
            pos,
            MlirErrorKind::Expected {
                expected,
                found: self.found(i),
            },
        )
    }

    fn unclosed(&self, open: Token, at: Option<Token>) -> MlirError {
        let (line, column) = self.position(open.start);
        let hint = match at {
            Some(t) => format!(" (found '{}')", t.text(self.text)),
            None => " before the end of the text".into(),
        };
        let pos = at.map_or(open.start, |t| t.start);
        self.error(
            pos,
            MlirErrorKind::Unclosed {
                open: open.text(self.text).chars().next().unwrap_or('{'),
                line,
                column,
                hint,
            },
        )
    }

    /// The innermost bracket the whole text leaves open (where a cut text stops), as an
    /// [`MlirErrorKind::Unclosed`] error, or `None` when every bracket closes.
    fn unclosed_at_end(&self) -> Option<MlirError> {
        let mut stack: Vec<Token> = Vec::new();
        for t in &self.tokens {
            match t.kind {
                TokenKind::Punct(b'(' | b'[' | b'{' | b'<') => stack.push(*t),
                TokenKind::Punct(c @ (b')' | b']' | b'}' | b'>')) => {
                    if stack
                        .last()
                        .is_some_and(|o| o.kind == TokenKind::Punct(opener(c)))
                    {
                        stack.pop();
                    } else {
                        return None; // mismatched: the parser's own error says where
                    }
                }
                _ => {}
            }
        }
        stack.last().map(|open| self.unclosed(*open, None))
    }

    fn top(&mut self) -> Result<(), MlirError> {
        while let Some(tok) = self.tok(self.i) {
            let lead = self.slice(self.last_end, tok.start);
            let next_is_eq = self.tok(self.i + 1).is_some_and(|t| t.is(b'='));
            match tok.kind {
                TokenKind::Hash | TokenKind::Bang if next_is_eq => {
                    let item = self.alias(lead)?;
                    self.m.top.push(TopItem::Alias(item));
                }
                TokenKind::Hash | TokenKind::Bang => {
                    return Err(self.expected(self.i + 1, "'=' after an alias name"));
                }
                TokenKind::MetadataOpen => {
                    let close = (self.i..self.tokens.len())
                        .find(|&j| {
                            self.tok(j)
                                .is_some_and(|t| t.kind == TokenKind::MetadataClose)
                        })
                        .ok_or_else(|| self.unclosed(tok, None))?;
                    let end = self.tok(close).map_or(self.text.len(), |t| t.end);
                    self.m.top.push(TopItem::Metadata(format!(
                        "{lead}{}",
                        self.slice(tok.start, end)
                    )));
                    self.i = close + 1;
                    self.last_end = end;
                }
                _ => {
                    let op = self.op(None)?;
                    self.m.top.push(TopItem::Op(op));
                }
            }
        }
        Ok(())
    }

    /// `#name = value` / `!name = type`: the value runs to the end of its line, brackets
    /// balanced (it may go on over lines inside brackets).
    fn alias(&mut self, lead: String) -> Result<Alias, MlirError> {
        let Some(name_tok) = self.tok(self.i) else {
            return Err(self.expected(self.i, "an alias"));
        };
        let first = self.i + 2;
        let Some(value_start) = self.tok(first) else {
            return Err(self.expected(first, "the value of an alias"));
        };
        let end = self.balanced_run(first, |_, t| t.line_start)?;
        let last = self.tok(end - 1).unwrap_or(value_start);
        let value = self.slice(value_start.start, last.end);
        let kind = if name_tok.kind == TokenKind::Bang {
            AliasKind::Type
        } else if value.starts_with("loc(") {
            AliasKind::Location
        } else {
            AliasKind::Attribute
        };
        self.i = end;
        self.last_end = last.end;
        Ok(Alias {
            kind,
            name: name_tok.text(self.text).to_string(),
            value,
            line: self.position(name_tok.start).0,
            lead,
            text: self.slice(name_tok.start, last.end),
        })
    }

    /// The index past a run of tokens from `from` with balanced brackets, ending before the first
    /// token outside brackets for which `stop(index, token)` holds (or at the end of the text).
    fn balanced_run(
        &self,
        from: usize,
        stop: impl Fn(usize, &Token) -> bool,
    ) -> Result<usize, MlirError> {
        let mut stack: Vec<Token> = Vec::new();
        let mut j = from;
        while let Some(t) = self.tok(j) {
            if stack.is_empty() && j > from && stop(j, &t) {
                break;
            }
            match t.kind {
                TokenKind::Punct(b'(' | b'[' | b'{' | b'<') => stack.push(t),
                TokenKind::Punct(c @ (b')' | b']' | b'}' | b'>')) => match stack.pop() {
                    Some(open) if open.kind == TokenKind::Punct(opener(c)) => {}
                    Some(open) => return Err(self.unclosed(open, Some(t))),
                    None => break, // closes a bracket opened before the run
                },
                _ => {}
            }
            j += 1;
        }
        if let Some(open) = stack.pop() {
            return Err(self.unclosed(open, None));
        }
        Ok(j)
    }

    fn lookup(&self, tok: &Token) -> Result<ValueId, MlirError> {
        let name = tok.text(self.text).get(1..).unwrap_or("");
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
            .ok_or_else(|| self.error(tok.start, MlirErrorKind::UndefinedValue(name.to_string())))
    }

    fn define(&mut self, key: String, v: ValueId, pos: usize) -> Result<(), MlirError> {
        let scope = self.scopes.len() - 1;
        let Some(s) = self.scopes.get_mut(scope) else {
            return Ok(());
        };
        if s.insert(key.clone(), v).is_some() {
            return Err(self.error(pos, MlirErrorKind::Redefined(key)));
        }
        Ok(())
    }

    fn new_value(
        &mut self,
        name: &str,
        index: Option<usize>,
        def: ValueDef,
        pos: usize,
    ) -> ValueId {
        let (line, column) = self.position(pos);
        let id = ValueId(self.m.values.len() as u32);
        self.m.values.push(Value {
            name: name.to_string(),
            index,
            ty: None,
            retyped: false,
            def,
            line,
            column,
        });
        id
    }

    fn set_def(&mut self, v: ValueId, def: ValueDef) {
        if let Some(value) = self.m.values.get_mut(v.0 as usize) {
            value.def = def;
        }
    }

    fn set_type_if_unknown(&mut self, v: ValueId, ty: &str) {
        if let Some(value) = self.m.values.get_mut(v.0 as usize) {
            if value.ty.is_none() {
                value.ty = Some(ty.to_string());
            }
        }
    }

    /// A block argument declared at token `at` (`%x: T` or `%x = …`): its value, its `Def`
    /// piece and, for `%x: T`, its type's piece; returns the index past what it read.
    fn declaration(
        &mut self,
        at: usize,
        owner: OpId,
        specials: &mut Vec<Special>,
        declared: &mut Vec<ValueId>,
    ) -> Result<usize, MlirError> {
        let Some(tok) = self.tok(at) else {
            return Err(self.expected(at, "a value"));
        };
        let name = tok.text(self.text).get(1..).unwrap_or("").to_string();
        let v = self.new_value(&name, None, ValueDef::Header { op: owner }, tok.start);
        declared.push(v);
        specials.push(Special {
            start: tok.start,
            end: tok.end,
            piece: Piece::Def(v),
        });
        let colon = self
            .tok(at + 1)
            .filter(|c| c.is(b':') && c.start == tok.end);
        if colon.is_none() {
            return Ok(at + 1);
        }
        let first = at + 2;
        let end = self.balanced_run(first, |_, t| {
            t.is(b',')
                || t.is(b')')
                || t.is(b'=')
                || t.line_start
                || (t.kind == TokenKind::Bare && t.text(self.text) == "loc")
                || t.is(b'{')
        })?;
        if end == first {
            return Err(self.expected(first, "a type"));
        }
        let (Some(a), Some(b)) = (self.tok(first), self.tok(end - 1)) else {
            return Err(self.expected(first, "a type"));
        };
        let written = self.slice(a.start, b.end);
        self.set_type_if_unknown(v, &written);
        specials.push(Special {
            start: a.start,
            end: b.end,
            piece: Piece::Type {
                of: TypeOf::Value(v),
                written,
            },
        });
        Ok(end)
    }

    /// One op, from its first token to its last (regions included).
    fn op(&mut self, parent: Option<BlockId>) -> Result<OpId, MlirError> {
        let first = self
            .tok(self.i)
            .ok_or_else(|| self.expected(self.i, "an op"))?;
        let lead = self.slice(self.last_end, first.start);
        let id = OpId(self.m.ops.len() as u32);
        self.m.ops.push(Operation {
            name: String::new(),
            kind: None,
            generic: false,
            results: Vec::new(),
            operands: Vec::new(),
            regions: Vec::new(),
            attributes: Vec::new(),
            location: None,
            parent,
            line: 0,
            column: 0,
            lead,
            pieces: Vec::new(),
        });
        let mut specials: Vec<Special> = Vec::new();
        // Results: `%a, %b:2 =`.
        let mut results: Vec<ValueId> = Vec::new();
        let mut keys: Vec<(String, ValueId, usize)> = Vec::new();
        if first.kind == TokenKind::Value {
            loop {
                let Some(t) = self.tok(self.i).filter(|t| t.kind == TokenKind::Value) else {
                    return Err(self.expected(self.i, "a result name"));
                };
                let name = t.text(self.text).get(1..).unwrap_or("").to_string();
                let mut count = None;
                if self.tok(self.i + 1).is_some_and(|c| c.is(b':')) {
                    let n = self
                        .tok(self.i + 2)
                        .filter(|n| n.kind == TokenKind::Integer);
                    let n = n
                        .and_then(|n| n.text(self.text).parse::<usize>().ok())
                        .ok_or_else(|| self.expected(self.i + 2, "a result count"))?;
                    count = Some(n);
                }
                let group_start = results.len();
                match count {
                    None => {
                        let v = self.new_value(
                            &name,
                            None,
                            ValueDef::Result {
                                op: id,
                                index: group_start,
                            },
                            t.start,
                        );
                        results.push(v);
                        keys.push((name.clone(), v, t.start));
                    }
                    Some(n) => {
                        for k in 0..n {
                            let v = self.new_value(
                                &name,
                                Some(k),
                                ValueDef::Result {
                                    op: id,
                                    index: group_start + k,
                                },
                                t.start,
                            );
                            results.push(v);
                            keys.push((format!("{name}#{k}"), v, t.start));
                            // `%x` alone names the only result of a group of one; a group of
                            // several is used as `%x#k` (what MLIR prints).
                            if k == 0 && n == 1 {
                                keys.push((name.clone(), v, t.start));
                            }
                        }
                    }
                }
                if let Some(&v) = results.get(group_start) {
                    specials.push(Special {
                        start: t.start,
                        end: t.end,
                        piece: Piece::Def(v),
                    });
                }
                self.i += if count.is_some() { 3 } else { 1 };
                match self.tok(self.i) {
                    Some(c) if c.is(b',') => self.i += 1,
                    Some(e) if e.is(b'=') => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.expected(self.i, "',' or '=' after the results")),
                }
            }
        }
        let name_tok = self
            .tok(self.i)
            .ok_or_else(|| self.expected(self.i, "an op name"))?;
        let (name, generic) = match name_tok.kind {
            TokenKind::String => {
                let t = name_tok.text(self.text);
                (
                    t.get(1..t.len().saturating_sub(1))
                        .unwrap_or("")
                        .to_string(),
                    true,
                )
            }
            TokenKind::Bare => (name_tok.text(self.text).to_string(), false),
            _ => return Err(self.expected(self.i, "an op name")),
        };
        let kind = OpKind::from_name(&name);
        let name_index = self.i;
        self.i += 1;
        // The body, to the op's end.
        let mut stack: Vec<Token> = Vec::new();
        let mut operands: Vec<ValueId> = Vec::new();
        let mut regions: Vec<RegionId> = Vec::new();
        let mut declared: Vec<ValueId> = Vec::new();
        let mut pending: Vec<ValueId> = Vec::new();
        let mut last_colon = None;
        // `scf.for … -> (T…) : I {` / `scf.if %c -> (T…) {`: the result types in the header,
        // from the first top-level `->` before a region to the `:` or `{` that ends them.
        let mut header_arrow: Option<usize> = None;
        let mut header_types_end: Option<usize> = None;
        let mut location_at = None;
        let mut location = None;
        let mut dicts: Vec<(usize, usize)> = Vec::new();
        let mut words: Vec<usize> = Vec::new();
        let mut end = name_tok.end;
        loop {
            let Some(tok) = self.tok(self.i) else {
                if let Some(open) = stack.pop() {
                    return Err(self.unclosed(open, None));
                }
                break;
            };
            if stack.is_empty() && tok.line_start && !continues(&tok, self.text) {
                break;
            }
            match tok.kind {
                TokenKind::Punct(b'(' | b'[' | b'<') => {
                    stack.push(tok);
                    self.i += 1;
                }
                TokenKind::Punct(b'{') => {
                    let region_open = self.tok(self.i + 1).is_some_and(|n| n.line_start);
                    if region_open
                        && header_arrow.is_some()
                        && header_types_end.is_none()
                        && regions.is_empty()
                    {
                        header_types_end = Some(self.i);
                    }
                    if region_open {
                        self.i += 1;
                        self.last_end = tok.end;
                        let args = std::mem::take(&mut pending);
                        let r = self.region(id, tok, args)?;
                        specials.push(Special {
                            start: tok.end,
                            end: self.last_end,
                            piece: Piece::Region(regions.len()),
                        });
                        regions.push(r);
                        end = self.last_end;
                        continue;
                    }
                    let in_props = stack.len() == 1 && stack.last().is_some_and(|t| t.is(b'<'));
                    if stack.is_empty() || in_props {
                        dicts.push((self.i, 0));
                    }
                    stack.push(tok);
                    self.i += 1;
                }
                TokenKind::Punct(c @ (b')' | b']' | b'}' | b'>')) => {
                    let Some(open) = stack.pop() else {
                        if c == b'}' {
                            break; // the enclosing region's end
                        }
                        return Err(self.error(tok.start, MlirErrorKind::Unopened(c as char)));
                    };
                    let want = match open.kind {
                        TokenKind::Punct(o) => closer(o),
                        _ => 0,
                    };
                    if want != c {
                        return Err(self.unclosed(open, Some(tok)));
                    }
                    if c == b'}' {
                        if let Some(d) = dicts
                            .iter_mut()
                            .rev()
                            .find(|d| self.tok(d.0).is_some_and(|t| t.start == open.start))
                        {
                            d.1 = self.i;
                        }
                    }
                    self.i += 1;
                }
                TokenKind::Value => {
                    let next = self.tok(self.i + 1);
                    // `%x: T` declares a block argument only inside brackets (`partition0(%a:
                    // i32)`, `tt.func @k(%a: f32)`); `%x = …` in the op (`iter_args(%a = %i)`,
                    // `scf.for %iv = …`).
                    let declares = next.is_some_and(|n| {
                        (n.is(b':') && n.start == tok.end && !stack.is_empty()) || n.is(b'=')
                    });
                    if declares {
                        let before = declared.len();
                        self.i = self.declaration(self.i, id, &mut specials, &mut declared)?;
                        pending.extend(declared.get(before..).unwrap_or_default());
                    } else {
                        let v = self.lookup(&tok)?;
                        specials.push(Special {
                            start: tok.start,
                            end: tok.end,
                            piece: Piece::Use(operands.len()),
                        });
                        operands.push(v);
                        self.i += 1;
                    }
                }
                TokenKind::Bare
                    if stack.is_empty()
                        && tok.text(self.text) == "loc"
                        && self.tok(self.i + 1).is_some_and(|n| n.is(b'(')) =>
                {
                    let after = self.balanced_run(self.i + 1, |j, _| j > self.i + 1)?;
                    let close = self.tok(after - 1).unwrap_or(tok);
                    // The op's location is the `loc(…)` that ends it; one anywhere else is
                    // text of the op (and no location of it).
                    let ends_op = match self.tok(after) {
                        None => true,
                        Some(n) => (n.line_start && !continues(&n, self.text)) || n.is(b'}'),
                    };
                    if ends_op {
                        location = Some(self.slice(tok.start, close.end));
                        location_at = Some(self.i);
                        specials.push(Special {
                            start: tok.start,
                            end: close.end,
                            piece: Piece::Location,
                        });
                    }
                    self.i = after;
                }
                TokenKind::Bare
                    if stack.is_empty() && self.tok(self.i + 1).is_some_and(|n| n.is(b'=')) =>
                {
                    words.push(self.i);
                    self.i += 1;
                }
                TokenKind::Punct(b':') if stack.is_empty() => {
                    if header_arrow.is_some() && header_types_end.is_none() && regions.is_empty() {
                        header_types_end = Some(self.i);
                    }
                    last_colon = Some(self.i);
                    self.i += 1;
                }
                TokenKind::Arrow if stack.is_empty() && regions.is_empty() => {
                    header_arrow.get_or_insert(self.i);
                    self.i += 1;
                }
                _ => self.i += 1,
            }
            if let Some(t) = self.tok(self.i.saturating_sub(1)) {
                end = end.max(t.end);
            }
        }
        self.last_end = end;
        for v in pending {
            self.set_def(v, ValueDef::Header { op: id });
        }
        // The signature: the types after the last top-level `:`.
        let sig_end = location_at.unwrap_or(self.i);
        let slots: Option<&[Slot]> = if generic {
            Some(&[Slot::Operands, Slot::Results])
        } else {
            kind.and_then(OpKind::signature)
        };
        if let (Some(c), Some(slots)) = (last_colon, slots) {
            let types = self.type_list(c + 1, sig_end)?;
            let mut owners: Vec<TypeOf> = Vec::new();
            for s in slots {
                match *s {
                    Slot::Operand(k) => owners.push(TypeOf::Operand(k)),
                    Slot::Result(k) => owners.push(TypeOf::Result(k)),
                    Slot::Operands => owners.extend((0..operands.len()).map(TypeOf::Operand)),
                    Slot::Results => owners.extend((0..results.len()).map(TypeOf::Result)),
                }
            }
            if owners.len() == types.len() {
                for (of, (start, stop)) in owners.into_iter().zip(types) {
                    let written = self.slice(start, stop);
                    let v = match of {
                        TypeOf::Operand(k) => operands.get(k).copied(),
                        TypeOf::Result(k) => results.get(k).copied(),
                        TypeOf::Value(v) => Some(v),
                    };
                    if let Some(v) = v {
                        self.set_type_if_unknown(v, &written);
                    }
                    specials.push(Special {
                        start,
                        end: stop,
                        piece: Piece::Type { of, written },
                    });
                }
            }
        }
        // Loops and conditionals print their result types in the header: link them.
        if let (Some(OpKind::For | OpKind::If), Some(arrow), Some(end)) =
            (kind, header_arrow, header_types_end)
        {
            let types = self.type_list(arrow + 1, end)?;
            if types.len() == results.len() {
                for (k, (start, stop)) in types.into_iter().enumerate() {
                    let written = self.slice(start, stop);
                    if let Some(&v) = results.get(k) {
                        self.set_type_if_unknown(v, &written);
                    }
                    specials.push(Special {
                        start,
                        end: stop,
                        piece: Piece::Type {
                            of: TypeOf::Result(k),
                            written,
                        },
                    });
                }
            }
        }
        // Attributes: dictionaries, and `key = value` words before the signature.
        let mut attributes = Vec::new();
        for &(open, close) in &dicts {
            if close > open {
                self.dictionary(open + 1, close, &mut attributes);
            }
        }
        for &w in words.iter().filter(|&&w| last_colon.is_none_or(|c| w < c)) {
            let value_end = self.balanced_run(w + 2, |j, t| {
                t.is(b',') || t.is(b':') || t.line_start || Some(j) == location_at
            })?;
            if let (Some(k), Some(a), Some(b)) = (
                self.tok(w),
                self.tok(w + 2),
                self.tok(value_end.saturating_sub(1)),
            ) {
                attributes.push((k.text(self.text).to_string(), self.slice(a.start, b.end)));
            }
        }
        // A constant's value: the text between its name and its type (`128`, `true`,
        // `dense<0.0>`), as an attribute for readers of the model.
        if kind == Some(OpKind::Constant) && !generic {
            let value_end = last_colon.or(location_at).unwrap_or(self.i);
            let first_value = name_index + 1;
            if let (Some(a), Some(b)) =
                (self.tok(first_value), self.tok(value_end.saturating_sub(1)))
            {
                if value_end > first_value {
                    attributes.push(("value".to_string(), self.slice(a.start, b.end)));
                }
            }
        }
        // Pieces: the linked spans, and the text between them.
        let pieces = self.pieces(specials, first.start, end)?;
        for (key, v, pos) in keys {
            self.define(key, v, pos)?;
        }
        let (line, column) = self.position(name_tok.start);
        if let Some(op) = self.m.ops.get_mut(id.0 as usize) {
            op.name = name;
            op.kind = kind;
            op.generic = generic;
            op.results = results;
            op.operands = operands;
            op.regions = regions;
            op.attributes = attributes;
            op.location = location;
            op.line = line;
            op.column = column;
            op.pieces = pieces;
        }
        Ok(id)
    }

    /// The pieces of the text `[start, end)`: the linked `specials` and the text between them.
    /// Errors: two linked spans that overlap — a value named inside a type
    /// (`!ttg.memdesc<%x, …>`), which no printer could print back.
    fn pieces(
        &self,
        mut specials: Vec<Special>,
        start: usize,
        end: usize,
    ) -> Result<Vec<Piece>, MlirError> {
        specials.sort_by_key(|s| s.start);
        let mut pieces = Vec::with_capacity(specials.len() * 2 + 1);
        let mut at = start;
        for s in specials {
            if s.start < at {
                return Err(self.error(
                    s.start,
                    MlirErrorKind::Expected {
                        expected: "a type (types name no SSA values)",
                        found: format!("'{}'", self.slice(s.start, s.end)),
                    },
                ));
            }
            if s.start > at {
                pieces.push(Piece::Text(self.slice(at, s.start)));
            }
            at = s.end;
            pieces.push(s.piece);
        }
        if end > at {
            pieces.push(Piece::Text(self.slice(at, end)));
        }
        Ok(pieces)
    }

    /// The spans of the types between tokens `from` and `to`: runs of balanced tokens split at
    /// top-level `,`, `(`, `)` and `->`.
    fn type_list(&self, from: usize, to: usize) -> Result<Vec<(usize, usize)>, MlirError> {
        let mut spans = Vec::new();
        let mut j = from;
        while j < to {
            let Some(t) = self.tok(j) else { break };
            if t.is(b',') || t.is(b'(') || t.is(b')') || t.kind == TokenKind::Arrow {
                j += 1;
                continue;
            }
            let end = self.balanced_run(j, |k, t| {
                k >= to || t.is(b',') || t.is(b')') || t.kind == TokenKind::Arrow
            })?;
            let end = end.min(to);
            if let (Some(a), Some(b)) = (self.tok(j), self.tok(end.saturating_sub(1))) {
                spans.push((a.start, b.end));
            }
            j = end.max(j + 1);
        }
        Ok(spans)
    }

    /// The entries of the dictionary between tokens `from` and `to` (its braces excluded).
    fn dictionary(&self, from: usize, to: usize, out: &mut Vec<(String, String)>) {
        let mut j = from;
        while j < to {
            let Some(key) = self.tok(j) else { break };
            let key_text = key.text(self.text);
            let key_text = key_text.trim_matches('"').to_string();
            let Ok(end) = self.balanced_run(j, |k, t| k >= to || t.is(b',')) else {
                break;
            };
            let end = end.min(to);
            let value = match self.tok(j + 1) {
                Some(eq) if eq.is(b'=') && j + 2 < end => {
                    let (a, b) = (self.tok(j + 2), self.tok(end - 1));
                    match (a, b) {
                        (Some(a), Some(b)) => self.slice(a.start, b.end),
                        _ => String::new(),
                    }
                }
                _ => String::new(),
            };
            out.push((key_text, value));
            j = end + 1;
        }
    }

    /// A region whose `{` is `open` (already consumed), its entry block's arguments `args`
    /// declared by the op's header; to its `}` (consumed).
    fn region(&mut self, op: OpId, open: Token, args: Vec<ValueId>) -> Result<RegionId, MlirError> {
        let rid = RegionId(self.m.regions.len() as u32);
        self.m.regions.push(Region {
            blocks: Vec::new(),
            parent: op,
            close: String::new(),
        });
        self.scopes.push(HashMap::new());
        let mut block = self.new_block(rid, args)?;
        loop {
            let Some(tok) = self.tok(self.i) else {
                return Err(self.unclosed(open, None));
            };
            if tok.is(b'}') {
                let close = self.slice(self.last_end, tok.end);
                if let Some(r) = self.m.regions.get_mut(rid.0 as usize) {
                    r.close = close;
                }
                self.i += 1;
                self.last_end = tok.end;
                break;
            }
            if tok.kind == TokenKind::Caret && tok.line_start {
                let reuse = self.m.blocks.get(block.0 as usize).is_some_and(|b| {
                    b.ops.is_empty() && b.arguments.is_empty() && b.label.is_empty()
                });
                if !reuse {
                    block = self.new_block(rid, Vec::new())?;
                }
                self.label(block)?;
                continue;
            }
            let o = self.op(Some(block))?;
            if let Some(b) = self.m.blocks.get_mut(block.0 as usize) {
                b.ops.push(o);
            }
        }
        self.scopes.pop();
        Ok(rid)
    }

    fn new_block(&mut self, region: RegionId, args: Vec<ValueId>) -> Result<BlockId, MlirError> {
        let id = BlockId(self.m.blocks.len() as u32);
        for (index, &v) in args.iter().enumerate() {
            self.set_def(v, ValueDef::BlockArgument { block: id, index });
            let Some(name) = self.m.values.get(v.0 as usize).map(|x| x.name.clone()) else {
                continue;
            };
            let at = self.tok(self.i).map_or(self.text.len(), |t| t.start);
            self.define(name, v, at)?;
        }
        self.m.blocks.push(Block {
            arguments: args,
            ops: Vec::new(),
            parent: region,
            lead: String::new(),
            label: Vec::new(),
        });
        if let Some(r) = self.m.regions.get_mut(region.0 as usize) {
            r.blocks.push(id);
        }
        Ok(id)
    }

    /// `^bb0(%a: T loc(…), …):` — the label of `block`.
    fn label(&mut self, block: BlockId) -> Result<(), MlirError> {
        let Some(caret) = self.tok(self.i) else {
            return Err(self.expected(self.i, "a block label"));
        };
        let lead = self.slice(self.last_end, caret.start);
        let owner = self
            .m
            .regions
            .get(
                self.m
                    .blocks
                    .get(block.0 as usize)
                    .map_or(0, |b| b.parent.0) as usize,
            )
            .map_or(OpId(0), |r| r.parent);
        let mut specials = Vec::new();
        let mut declared = Vec::new();
        self.i += 1;
        if self.tok(self.i).is_some_and(|t| t.is(b'(')) {
            self.i += 1;
            loop {
                let Some(t) = self.tok(self.i) else {
                    return Err(self.unclosed(caret, None));
                };
                match t.kind {
                    TokenKind::Punct(b')') => {
                        self.i += 1;
                        break;
                    }
                    TokenKind::Value => {
                        self.i = self.declaration(self.i, owner, &mut specials, &mut declared)?;
                    }
                    TokenKind::Bare if t.text(self.text) == "loc" => {
                        self.i = self.balanced_run(self.i + 1, |j, _| j > self.i + 1)?;
                    }
                    _ => self.i += 1,
                }
            }
        }
        let colon = self
            .tok(self.i)
            .filter(|t| t.is(b':'))
            .ok_or_else(|| self.expected(self.i, "':' after a block label"))?;
        self.i += 1;
        let pieces = self.pieces(specials, caret.start, colon.end)?;
        self.last_end = colon.end;
        for (index, &v) in declared.iter().enumerate() {
            self.set_def(v, ValueDef::BlockArgument { block, index });
            let name = self
                .m
                .values
                .get(v.0 as usize)
                .map(|x| x.name.clone())
                .unwrap_or_default();
            self.define(name, v, caret.start)?;
        }
        if let Some(b) = self.m.blocks.get_mut(block.0 as usize) {
            b.arguments = declared;
            b.lead = lead;
            b.label = pieces;
        }
        Ok(())
    }
}
