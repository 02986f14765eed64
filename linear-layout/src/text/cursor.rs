//! [`Cursor`]: the character-level cursor of the attribute grammar — layout attributes
//! (`#ttg.blocked<{…}>`) and `#ttg.linear` layouts. Modules are tokenized by
//! [`crate::mlir::lexer`]; both follow MLIR's LangRef identifier rules
//! ([`is_bare_id_start`], [`is_bare_id_char`]), so a name reads the same in both.
//!
//! It moves over the text token by token (blanks skipped), says what it found in the words an
//! error message needs (`'foo'`, `'{'`, `end of input`), and places every error at a 1-based
//! line and column counted in characters: `column 15` on the first line, `line 3, column 7`
//! after it. Grammars are built on it: the attribute grammar every layout family shares
//! (`text/attr.rs`), each family's keys beside the family.
//!
//! Every slice goes through `get`, and the cursor only ever moves past ASCII characters or
//! whole `trim_start` runs, so it stays on a char boundary and never panics.
//!
//! ```
//! use linear_layout::text::cursor::Cursor;
//! let mut c = Cursor::new("#blocked = #ttg.blocked<{order = [1, 0]}>");
//! assert_eq!(c.hash_name(), "#blocked");
//! assert!(c.eat('='));
//! assert_eq!(c.hash_name(), "#ttg.blocked");
//! assert!(c.eat('<') && c.eat('{'));
//! assert_eq!(c.word(), "order");
//! assert_eq!(c.peek(), Some('='));
//! assert_eq!(c.found(), "'='");
//! let e = c.error_at("#ttg.blocked", c.pos(), "expected a list");
//! assert_eq!(e.to_string(), "parse error: #ttg.blocked, column 32: expected a list");
//! ```

use std::fmt;

use crate::error::LayoutError;
use crate::mlir::lexer::{is_bare_id_char, is_bare_id_start};

/// A position in MLIR text, moved token by token. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0 }
    }

    /// The whole text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The byte offset of the cursor (for [`Cursor::reset`] and error positions).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves back (or forward) to a position [`Cursor::pos`] returned.
    pub fn reset(&mut self, pos: usize) {
        self.pos = pos.min(self.text.len());
    }

    /// The text from the cursor on.
    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// Skips blanks.
    pub fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next non-blank character, without consuming it (the cursor moves to it).
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// Whether only blanks are left.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Consumes `c` (after blanks) if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// An identifier `[A-Za-z0-9_]*` after blanks (empty when there is none).
    pub fn word(&mut self) -> &'a str {
        self.skip_ws();
        self.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// The decimal digits after blanks (empty when there are none).
    pub fn digits(&mut self) -> &'a str {
        self.skip_ws();
        self.take_while(|c| c.is_ascii_digit())
    }

    /// `#` and a bare identifier (`#ttg.blocked`, `#blocked`: LangRef's `bare-id`, dots
    /// included) after blanks, or `""` when no `#` is next.
    pub fn hash_name(&mut self) -> &'a str {
        self.skip_ws();
        let rest = self.rest();
        if !rest.starts_with('#')
            || !rest
                .get(1..)
                .is_some_and(|r| r.starts_with(is_bare_id_start))
        {
            return "";
        }
        let start = self.pos;
        self.pos += 1;
        self.take_while(is_bare_id_char);
        self.text.get(start..self.pos).unwrap_or("")
    }

    /// Consumes the longest run of ASCII characters satisfying `keep`.
    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii() && keep(c)))
            .unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// The token at the cursor, quoted, for error messages: `'sizePerThreads'`, `'{'`, or
    /// `end of input`.
    pub fn found(&self) -> String {
        let rest = self.rest();
        let word: String = rest
            .chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || "_.#-".contains(c))
            .take(32)
            .collect();
        match rest.chars().next() {
            None => "end of input".into(),
            Some(c) if word.is_empty() => format!("'{c}'"),
            Some(_) => format!("'{word}'"),
        }
    }

    /// Where byte offset `pos` is: `column C` on the first line, `line L, column C` after it
    /// (1-based, in characters).
    pub fn location(&self, pos: usize) -> String {
        let before = self.text.get(..pos).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        if line == 1 {
            format!("column {col}")
        } else {
            format!("line {line}, column {col}")
        }
    }

    /// A [`LayoutError::Parse`]: `"{what}, {location of pos}: {msg}"`, where `what` names the
    /// attribute (or construct) being read.
    pub fn error_at(&self, what: &str, pos: usize, msg: impl fmt::Display) -> LayoutError {
        LayoutError::Parse(format!("{what}, {}: {msg}", self.location(pos)))
    }

    /// [`Cursor::error_at`] the cursor.
    pub fn error(&self, what: &str, msg: impl fmt::Display) -> LayoutError {
        self.error_at(what, self.pos, msg)
    }

    /// Consumes `c` or says what was there instead: `expected '{c}'{context}, found …`.
    pub fn require(&mut self, what: &str, c: char, context: &str) -> Result<(), LayoutError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(
                what,
                format!("expected '{c}'{context}, found {}", self.found()),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    #[test]
    fn locations_count_characters_and_lines() {
        let c = Cursor::new("ab\n  été\nx");
        // Line 1 reads `column C` even in multi-line text.
        assert_eq!(c.location(0), "column 1");
        assert_eq!(c.location(1), "column 2");
        assert_eq!(c.location(5), "line 2, column 3");
        assert_eq!(c.location(c.text().len()), "line 3, column 2");
        assert_eq!(Cursor::new("abc").location(2), "column 3");
    }

    #[test]
    fn tokens_stop_at_non_ascii_and_never_split_a_char() {
        let mut c = Cursor::new("  abé9 #x.y_z= 012");
        assert_eq!(c.word(), "ab");
        assert_eq!(c.found(), "'é'");
        c.reset(c.pos() + 'é'.len_utf8());
        assert_eq!(c.word(), "9");
        assert_eq!(c.hash_name(), "#x.y_z");
        assert!(!c.eat('<'));
        assert!(c.eat('='));
        assert_eq!(c.digits(), "012");
        assert!(c.at_end());
        assert_eq!(c.found(), "end of input");
        c.reset(usize::MAX);
        assert_eq!(c.rest(), "");
    }
}
