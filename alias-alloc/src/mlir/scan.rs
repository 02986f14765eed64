//! [`Source`]: the text of a TTGIR module, read statement by statement — lines, balanced
//! brackets, SSA names, and errors placed at a line and column.
//!
//! MLIR prints one operation per line (a region's ops on the lines after it), attribute aliases
//! one per line at the top, and never breaks an attribute or type across lines. The reader
//! relies on the first point only to find where an operation starts: brackets are matched over
//! the whole text, so a type or attribute written across lines by hand still reads.

use crate::AllocError;

/// The module text, with positions turned into errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'a> {
    text: &'a str,
}

impl<'a> Source<'a> {
    pub(crate) fn new(text: &'a str) -> Source<'a> {
        Source { text }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// `(line, column)` of byte offset `pos`, 1-based, columns in characters.
    pub(crate) fn line_column(&self, pos: usize) -> (usize, usize) {
        let before = self.text.get(..pos).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, column)
    }

    /// [`AllocError::Mlir`] at byte offset `pos`.
    pub(crate) fn error(&self, pos: usize, message: impl Into<String>) -> AllocError {
        let (line, column) = self.line_column(pos);
        AllocError::Mlir {
            line,
            column,
            message: message.into(),
        }
    }

    /// The lines of the text with the byte offset each starts at.
    pub(crate) fn lines(&self) -> impl Iterator<Item = (usize, &'a str)> {
        let text = self.text;
        text.split_inclusive('\n').scan(0usize, |start, line| {
            let here = *start;
            *start += line.len();
            Some((here, line.trim_end_matches(['\n', '\r'])))
        })
    }

    /// The text from `from` to the end.
    pub(crate) fn rest(&self, from: usize) -> &'a str {
        self.text.get(from..).unwrap_or("")
    }

    /// The byte offset just past the bracket that closes the one at `open` (`(`, `[`, `{` or
    /// `<`), counting nested brackets of every kind, skipping string literals and the `>` of
    /// `->`. `None` when the text ends first or a closing bracket does not match.
    pub(crate) fn balanced_end(&self, open: usize) -> Option<usize> {
        let mut stack: Vec<char> = Vec::new();
        let mut chars = self.rest(open).char_indices().peekable();
        let mut prev = ' ';
        let mut in_string = false;
        while let Some((i, c)) = chars.next() {
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => in_string = false,
                    _ => {}
                }
                prev = c;
                continue;
            }
            match c {
                '"' => in_string = true,
                '(' | '[' | '{' | '<' => stack.push(c),
                '>' if prev == '-' => {}
                ')' | ']' | '}' | '>' => {
                    let want = match c {
                        ')' => '(',
                        ']' => '[',
                        '}' => '{',
                        _ => '<',
                    };
                    if stack.pop() != Some(want) {
                        return None;
                    }
                    if stack.is_empty() {
                        return Some(open + i + c.len_utf8());
                    }
                }
                _ => {}
            }
            prev = c;
        }
        None
    }

    /// The balanced text starting at `open` (brackets included), or an error naming `what`.
    pub(crate) fn bracketed(
        &self,
        open: usize,
        what: &str,
    ) -> Result<(&'a str, usize), AllocError> {
        let end = self
            .balanced_end(open)
            .ok_or_else(|| self.error(open, format!("{what} is not closed")))?;
        Ok((self.text.get(open..end).unwrap_or(""), end))
    }
}

/// Splits `text` at the commas outside brackets and strings, trimming each part.
pub(crate) fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut start = 0;
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            '>' if prev == '-' => {}
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text.get(start..i).unwrap_or("").trim());
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    parts.push(text.get(start..).unwrap_or("").trim());
    parts
}

/// An SSA name at the start of `text` (`%qk_tiles`, `%0`, `%arg3`), without the `%`, and the
/// bytes it took (the `%` included); `None` when `text` does not start with one.
pub(crate) fn ssa_name(text: &str) -> Option<(&str, usize)> {
    let body = text.strip_prefix('%')?;
    let len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.-".contains(c)))
        .unwrap_or(body.len());
    (len > 0).then(|| (body.get(..len).unwrap_or(""), len + 1))
}

/// A bare identifier with dots at the start of `text` (`tlx.reuse_group`, `group_kind`).
pub(crate) fn identifier(text: &str) -> &str {
    let len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.".contains(c)))
        .unwrap_or(text.len());
    text.get(..len).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_nest_and_skip_arrows_and_strings() {
        let s = Source::new("x <a<b>, \"]>\", (c) -> d> tail");
        assert_eq!(s.balanced_end(2), Some(24));
        assert_eq!(Source::new("<a>)").balanced_end(0), Some(3));
        assert_eq!(Source::new("<a)").balanced_end(0), None);
        assert_eq!(Source::new("<a").balanced_end(0), None);
    }

    #[test]
    fn top_level_commas_only() {
        assert_eq!(
            split_top_level("2x4xf32, #ttg.x<{a = [1, 2]}>, \"a,b\", mutable"),
            vec!["2x4xf32", "#ttg.x<{a = [1, 2]}>", "\"a,b\"", "mutable"]
        );
    }

    #[test]
    fn positions_are_one_based() {
        let s = Source::new("ab\ncdé f");
        assert_eq!(s.line_column(0), (1, 1));
        assert_eq!(s.line_column(3), (2, 1));
        assert_eq!(s.line_column(8), (2, 5));
        assert_eq!(ssa_name("%qk_tiles = x"), Some(("qk_tiles", 9)));
        assert_eq!(ssa_name("% x"), None);
        assert_eq!(identifier("tlx.reuse_group(%a)"), "tlx.reuse_group");
    }
}
