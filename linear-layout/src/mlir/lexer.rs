//! [`lex`]: MLIR text → [`Token`]s, with MLIR's LangRef identifier rules — the one tokenizer
//! of the workspace's module reader (the attribute grammar's [`Cursor`] uses the same rules,
//! [`is_bare_id_start`] / [`is_bare_id_char`] / [`is_suffix_id_char`]).
//!
//! ```text
//! bare-id   ::= (letter|[_]) (letter|digit|[_$.])*
//! suffix-id ::= digit+ | (letter|[$._-]) (letter|digit|[$._-])*
//! value-id  ::= `%` suffix-id (`#` digit+)?      caret-id ::= `^` suffix-id
//! `#` bare-id (attribute alias or dialect attribute)   `!` bare-id (type)   `@` suffix-id | string
//! ```
//!
//! Blanks and `//` comments are trivia: a token keeps only its span, and the text between two
//! tokens is printed back as it was. Errors are [`MlirError`]s at a line and column.
//!
//! [`Cursor`]: crate::text::cursor::Cursor
//!
//! ```
//! use linear_layout::mlir::lexer::{lex, TokenKind};
//! let tokens = lex("%a:2 = ttg.memdesc_index %b#1[%c0_i32] : !ttg.memdesc<2xi64, #smem>")?;
//! let kinds: Vec<TokenKind> = tokens.iter().map(|t| t.kind).collect();
//! assert_eq!(kinds[..6], [TokenKind::Value, TokenKind::Punct(b':'), TokenKind::Integer,
//!     TokenKind::Punct(b'='), TokenKind::Bare, TokenKind::Value]);
//! assert_eq!(tokens[5].text("%a:2 = ttg.memdesc_index %b#1[%c0_i32] : …"), "%b#1");
//! # Ok::<(), linear_layout::mlir::MlirError>(())
//! ```

use super::error::{MlirError, MlirErrorKind};

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// `%name` or `%name#3` (a value and, for a multi-result op, which of its results).
    Value,
    /// `^bb0`: a block label.
    Caret,
    /// `#name`: an attribute alias (`#blocked`) or a dialect attribute (`#ttg.blocked`).
    Hash,
    /// `!name`: a type alias or a dialect type (`!ttg.memdesc`).
    Bang,
    /// `@name` or `@"name"`: a symbol.
    At,
    /// A bare identifier or keyword (`tt.func`, `mutable`, `x128xbf16`).
    Bare,
    /// A decimal or hexadecimal integer.
    Integer,
    /// A float literal (`1.000000e+00`).
    Float,
    /// A string literal, quotes included.
    String,
    /// `->`.
    Arrow,
    /// `{-#`: opens the file metadata dictionary (`dialect_resources`).
    MetadataOpen,
    /// `#-}`: closes it.
    MetadataClose,
    /// One punctuation byte: `( ) [ ] { } < > , : = * ? + - |`.
    Punct(u8),
}

/// A token: its kind, its byte span, and whether a line break precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
    /// Whether the trivia before it holds a line break (or it is the first token).
    pub line_start: bool,
}

impl Token {
    /// Its text in `source` (the text it was lexed from).
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.start..self.end).unwrap_or("")
    }

    /// Whether it is the punctuation byte `c`.
    pub fn is(&self, c: u8) -> bool {
        self.kind == TokenKind::Punct(c)
    }
}

/// `letter | _`: the first character of a bare identifier.
pub fn is_bare_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// `letter | digit | [_$.]`: the rest of a bare identifier.
pub fn is_bare_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')
}

/// `letter | digit | [$._-]`: a character of a suffix identifier (`%c-1_i32`, `^bb0`).
pub fn is_suffix_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '$' | '.' | '_' | '-')
}

/// The tokens of `text`. Errors: a string not closed on its line, a character no token starts
/// with, a `%`/`^`/`#`/`!`/`@` with no name after it.
pub fn lex(text: &str) -> Result<Vec<Token>, MlirError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::with_capacity(text.len() / 4);
    let mut i = 0;
    let mut line_start = true;
    let at = |b: usize| bytes.get(b).copied().unwrap_or(0);
    while i < bytes.len() {
        let c = at(i);
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if at(i + 1) == b'/' => {
                while i < bytes.len() && at(i) != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        let start = i;
        let kind = match c {
            b'%' | b'^' => {
                let len = suffix_len(text, i + 1);
                if len == 0 {
                    return Err(MlirError::at(
                        text,
                        i,
                        MlirErrorKind::NameExpected(c as char),
                    ));
                }
                i += 1 + len;
                if c == b'%' && at(i) == b'#' && at(i + 1).is_ascii_digit() {
                    i += 1;
                    while at(i).is_ascii_digit() {
                        i += 1;
                    }
                }
                if c == b'%' {
                    TokenKind::Value
                } else {
                    TokenKind::Caret
                }
            }
            b'#' if at(i + 1) == b'-' && at(i + 2) == b'}' => {
                i += 3;
                TokenKind::MetadataClose
            }
            b'#' | b'!' => {
                let len = bare_len(text, i + 1);
                if len == 0 {
                    return Err(MlirError::at(
                        text,
                        i,
                        MlirErrorKind::NameExpected(c as char),
                    ));
                }
                i += 1 + len;
                if c == b'#' {
                    TokenKind::Hash
                } else {
                    TokenKind::Bang
                }
            }
            b'@' => {
                if at(i + 1) == b'"' {
                    i = string_end(text, i + 1)?;
                } else {
                    let len = suffix_len(text, i + 1);
                    if len == 0 {
                        return Err(MlirError::at(text, i, MlirErrorKind::NameExpected('@')));
                    }
                    i += 1 + len;
                }
                TokenKind::At
            }
            b'"' => {
                i = string_end(text, i)?;
                TokenKind::String
            }
            b'{' if at(i + 1) == b'-' && at(i + 2) == b'#' => {
                i += 3;
                TokenKind::MetadataOpen
            }
            b'-' if at(i + 1) == b'>' => {
                i += 2;
                TokenKind::Arrow
            }
            b'0'..=b'9' => {
                let (len, float) = number_len(text, i);
                i += len;
                if float {
                    TokenKind::Float
                } else {
                    TokenKind::Integer
                }
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b',' | b':' | b'=' | b'*'
            | b'?' | b'+' | b'-' | b'|' => {
                i += 1;
                TokenKind::Punct(c)
            }
            _ if is_bare_id_start(c as char) => {
                i += bare_len(text, i);
                TokenKind::Bare
            }
            _ => {
                let found = text.get(i..).and_then(|r| r.chars().next()).unwrap_or('?');
                return Err(MlirError::at(text, i, MlirErrorKind::UnexpectedChar(found)));
            }
        };
        tokens.push(Token {
            kind,
            start,
            end: i,
            line_start,
        });
        line_start = false;
    }
    Ok(tokens)
}

/// `text` split at its commas outside brackets, each part trimmed (a type's parameters:
/// `2x64xf16, #shared, #smem, mutable`).
///
/// ```
/// use linear_layout::mlir::lexer::split_top_level;
/// assert_eq!(split_top_level("4x8xf16, #ttg.x<{a = [1, 2]}>, mutable")?, ["4x8xf16", "#ttg.x<{a = [1, 2]}>", "mutable"]);
/// # Ok::<(), linear_layout::mlir::MlirError>(())
/// ```
pub fn split_top_level(text: &str) -> Result<Vec<&str>, MlirError> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for t in lex(text)? {
        match t.kind {
            TokenKind::Punct(b'(' | b'[' | b'{' | b'<') => depth += 1,
            TokenKind::Punct(b')' | b']' | b'}' | b'>') => depth = depth.saturating_sub(1),
            TokenKind::Punct(b',') if depth == 0 => {
                parts.push(text.get(start..t.start).unwrap_or("").trim());
                start = t.end;
            }
            _ => {}
        }
    }
    parts.push(text.get(start..).unwrap_or("").trim());
    Ok(parts)
}

/// Bytes of the bare identifier at `from` (0 when none starts there).
fn bare_len(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or("");
    if !rest.starts_with(is_bare_id_start) {
        return 0;
    }
    rest.find(|c: char| !is_bare_id_char(c))
        .unwrap_or(rest.len())
}

/// Bytes of the suffix identifier at `from` (0 when none starts there).
fn suffix_len(text: &str, from: usize) -> usize {
    let rest = text.get(from..).unwrap_or("");
    if rest.starts_with(|c: char| c.is_ascii_digit()) {
        return rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
    }
    rest.find(|c: char| !is_suffix_id_char(c))
        .unwrap_or(rest.len())
}

/// The offset past the string literal opening at `open`. Escapes (`\"`, `\\`, `\0A`) are
/// skipped; a line break or the end of the text before the closing quote is an error.
fn string_end(text: &str, open: usize) -> Result<usize, MlirError> {
    let bytes = text.as_bytes();
    let mut i = open + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => return Ok(i + 1),
            b'\\' => i += 2,
            b'\n' => break,
            _ => i += 1,
        }
    }
    Err(MlirError::at(text, open, MlirErrorKind::UnclosedString))
}

/// Bytes of the number at `from` and whether it is a float: `0x…`, digits, `digits.digits`,
/// with an exponent.
fn number_len(text: &str, from: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let at = |b: usize| bytes.get(b).copied().unwrap_or(0);
    let mut i = from;
    if at(i) == b'0' && at(i + 1) == b'x' && at(i + 2).is_ascii_hexdigit() {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
        return (i - from, false);
    }
    while at(i).is_ascii_digit() {
        i += 1;
    }
    let mut float = false;
    if at(i) == b'.' {
        float = true;
        i += 1;
        while at(i).is_ascii_digit() {
            i += 1;
        }
        if matches!(at(i), b'e' | b'E')
            && (at(i + 1).is_ascii_digit()
                || (matches!(at(i + 1), b'+' | b'-') && at(i + 2).is_ascii_digit()))
        {
            i += 2;
            while at(i).is_ascii_digit() {
                i += 1;
            }
        }
    }
    (i - from, float)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex(text).unwrap().iter().map(|t| t.kind).collect()
    }

    #[test]
    fn identifiers_follow_the_langref() {
        let text =
            "%c-1_i32 %0#2 ^bb0 #ttg.blocked !tt.ptr<f32> @\"a b\" @k x128xbf16 0x1F 1.5e+00 2";
        let t = lex(text).unwrap();
        let texts: Vec<&str> = t.iter().map(|t| t.text(text)).collect();
        assert_eq!(
            texts,
            vec![
                "%c-1_i32",
                "%0#2",
                "^bb0",
                "#ttg.blocked",
                "!tt.ptr",
                "<",
                "f32",
                ">",
                "@\"a b\"",
                "@k",
                "x128xbf16",
                "0x1F",
                "1.5e+00",
                "2"
            ]
        );
        assert_eq!(kinds("a -> b")[1], TokenKind::Arrow);
        assert_eq!(kinds("{-# x #-}")[0], TokenKind::MetadataOpen);
        assert_eq!(kinds("- 1")[0], TokenKind::Punct(b'-'));
    }

    #[test]
    fn trivia_and_line_starts() {
        let text = "a // b c\n  d \"x\\\"y\" e";
        let t = lex(text).unwrap();
        assert_eq!(t.len(), 4);
        assert!(t[0].line_start && t[1].line_start && !t[2].line_start);
        assert_eq!(t[2].text(text), "\"x\\\"y\"");
    }

    #[test]
    fn errors_are_placed() {
        let e = lex("a\n  \"open").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert_eq!(e.kind, MlirErrorKind::UnclosedString);
        let e = lex("ok é").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.kind),
            (1, 4, MlirErrorKind::UnexpectedChar('é'))
        );
        assert_eq!(
            lex("% x").unwrap_err().kind,
            MlirErrorKind::NameExpected('%')
        );
    }
}
