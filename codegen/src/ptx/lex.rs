//! The tokenizer behind [`parse`](super::parse::parse): words (opcodes with their dotted
//! suffixes, directives, names), registers, numbers, punctuation and `//` comments, each with
//! its line.

use thiserror::Error;

/// A character no token starts with.
///
/// ```
/// use codegen::ptx::parse::{parse, ParseError};
/// let err = parse(".version 8.7\n.target sm_90a ~\n").unwrap_err();
/// assert!(matches!(err, ParseError::Lex(e) if e.line == 2 && e.ch == '~'));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: unexpected character {ch:?}")]
pub struct LexError {
    /// Where (1-based).
    pub line: usize,
    /// The character.
    pub ch: char,
}

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An opcode, directive or name: `ld.shared::cta.v4.b32`, `.version`, `smem`.
    Word(String),
    /// `%r12`, `%tid.x`, or a bare prefix `%r` in a `.reg` declaration.
    Reg(String),
    /// A number as written: `-16`, `0x78`, `8.7`.
    Num(String),
    /// One of `, ; : [ ] { } ( ) + @ ! < >`.
    Punct(char),
    /// A `//` comment's text (after the slashes, up to the end of the line).
    Comment(String),
}

/// A token, its line (1-based) and whether it is the first token on that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: usize,
    pub first_on_line: bool,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'
}

/// Splits `text` into tokens; an unknown character is a [`LexError`].
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut first_on_line = true;
    let at = |k: usize| chars.get(k).copied();
    while let Some(c) = at(i) {
        if c == '\n' {
            line += 1;
            first_on_line = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start_line = line;
        let tok = if c == '/' && at(i + 1) == Some('/') {
            let start = i + 2;
            let mut end = start;
            while at(end).is_some_and(|c| c != '\n') {
                end += 1;
            }
            i = end;
            let text: String = chars.get(start..end).unwrap_or_default().iter().collect();
            Tok::Comment(text.trim_end_matches('\r').to_string())
        } else if c == '/' && at(i + 1) == Some('*') {
            i += 2;
            loop {
                match at(i) {
                    None => break,
                    Some('*') if at(i + 1) == Some('/') => {
                        i += 2;
                        break;
                    }
                    Some('\n') => {
                        line += 1;
                        i += 1;
                    }
                    Some(_) => i += 1,
                }
            }
            continue;
        } else if c == '%' {
            let start = i;
            i += 1;
            while at(i).is_some_and(is_word_char) {
                i += 1;
            }
            Tok::Reg(chars.get(start..i).unwrap_or_default().iter().collect())
        } else if c.is_ascii_digit() || (c == '-' && at(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            i += 1;
            while at(i).is_some_and(is_word_char) {
                i += 1;
            }
            Tok::Num(chars.get(start..i).unwrap_or_default().iter().collect())
        } else if c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$' {
            let start = i;
            loop {
                match at(i) {
                    Some(ch) if is_word_char(ch) => i += 1,
                    Some(':') if at(i + 1) == Some(':') => i += 2,
                    _ => break,
                }
            }
            Tok::Word(chars.get(start..i).unwrap_or_default().iter().collect())
        } else if ",;:[]{}()+@!<>".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(LexError { line, ch: c });
        };
        out.push(Token {
            tok,
            line: start_line,
            first_on_line,
        });
        first_on_line = false;
    }
    Ok(out)
}
