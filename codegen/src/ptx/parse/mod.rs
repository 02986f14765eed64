//! [`parse`]: PTX text → [`Kernel`], for exactly the subset [`Kernel`]'s `Display` prints,
//! so that `parse(&kernel.to_string()) == Ok(kernel)` and the interpreter can run emitted
//! *text*, not only the IR.
//!
//! Whitespace and line breaks are free; `//` comments on their own line in the body become
//! [`Stmt::Comment`], a trailing `// @data`-style comment sets the instruction's [`Role`],
//! other trailing comments and comments outside the body are ignored. Beyond the printed
//! forms it accepts `.shared` for `.shared::cta` and `mov.b32`/`mov.b64` for
//! `mov.u32`/`mov.u64`. Every instruction is checked with [`Op::validate`](crate::ptx::Op::validate), every register
//! against its `.reg` declaration, and the whole kernel with [`Kernel::validate`].
//!
//! ```
//! use codegen::ptx::{parse::parse, Builder, SpecialReg, Target, Width};
//! let mut b = Builder::new("k", Target::Sm90a)?;
//! let t = b.special(SpecialReg::TidX)?;
//! b.and(Width::B32, t, 31)?;
//! b.ret()?;
//! let k = b.finish()?;
//! assert_eq!(parse(&k.to_string()), Ok(k));
//! # Ok::<(), codegen::ptx::PtxError>(())
//! ```

mod op;

use std::collections::BTreeMap;

use thiserror::Error;

use super::error::PtxError;
use super::inst::{Inst, Stmt};
use super::kernel::{Kernel, Param, ParamType, SharedVar};
pub use super::lex::LexError;
use super::lex::{tokenize, Tok, Token};
use super::operands::Guard;
use super::reg::{Reg, RegType, SpecialReg};
use super::types::{PtxVersion, Role, Target};

/// Why [`parse`] refused its input. Lines are 1-based.
///
/// ```
/// use codegen::ptx::parse::{parse, ParseError};
/// let err = parse(".version 8.7\n.target sm_75\n").unwrap_err();
/// assert!(matches!(err, ParseError::Expected { line: 2, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// A character no token starts with.
    #[error(transparent)]
    Lex(#[from] LexError),
    /// The wrong token.
    #[error("line {line}: expected {expected}, found {found}")]
    Expected {
        /// Where.
        line: usize,
        /// What the grammar wanted.
        expected: String,
        /// What was there.
        found: String,
    },
    /// The input ended early.
    #[error("unexpected end of input; expected {expected}")]
    Eof {
        /// What the grammar wanted.
        expected: String,
    },
    /// An opcode outside the subset.
    #[error("line {line}: unknown instruction '{opcode}'")]
    UnknownInstruction {
        /// Where.
        line: usize,
        /// The opcode.
        opcode: String,
    },
    /// A register used but not declared by a `.reg` line (or beyond its `<N>`).
    #[error("line {line}: register {reg} is not declared")]
    UndeclaredRegister {
        /// Where.
        line: usize,
        /// The register.
        reg: String,
    },
    /// An instruction that parses but is not valid (wrong register class, bad `.xN`…).
    #[error("line {line}: {source}")]
    Invalid {
        /// Where.
        line: usize,
        /// Why.
        source: PtxError,
    },
    /// A kernel-level check failed (unknown label, duplicate name…).
    #[error("{0}")]
    Kernel(PtxError),
}

/// Parses one kernel printed by [`Kernel`]'s `Display` (see the [module docs](self)).
///
/// ```
/// use codegen::ptx::parse::parse;
/// let k = parse("
///     .version 8.7
///     .target sm_100a
///     .address_size 64
///     .visible .entry k() .reqntid 32 {
///         .reg .b32 %r<2>;
///         mov.u32 %r0, %tid.x;
///         add.u32 %r1, %r0, 8; // @data
///         ret;
///     }")?;
/// assert_eq!(k.instruction_count(), 3);
/// assert_eq!(k.reqntid, Some(32));
/// # Ok::<(), codegen::ptx::parse::ParseError>(())
/// ```
pub fn parse(text: &str) -> Result<Kernel, ParseError> {
    let tokens = tokenize(text)?;
    let mut p = Parser { tokens, pos: 0 };
    p.kernel()
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

/// A parsed operand, before the instruction says what it must be.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Reg(Reg),
    Special(SpecialReg),
    Imm(i64),
    Sym(String),
    Addr(Reg, i32),
    SymAddr(String),
    Vector(Vec<Reg>),
    /// A `{…}` vector with `_` (a discarded element) among its registers.
    Sinks(Vec<Option<Reg>>),
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Word(w) => format!("'{w}'"),
        Tok::Reg(r) => format!("'{r}'"),
        Tok::Num(n) => format!("'{n}'"),
        Tok::Punct(c) => format!("'{c}'"),
        Tok::Comment(_) => "a comment".into(),
    }
}

fn parse_int(text: &str) -> Option<i64> {
    // PTX's unsigned suffix (`0x7632U`, as LLVM prints `prmt` selectors).
    let text = text.strip_suffix('U').unwrap_or(text);
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude: i128 = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from(u64::from_str_radix(hex, 16).ok()?)
    } else {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        i128::from(digits.parse::<u64>().ok()?)
    };
    let value = if neg { -magnitude } else { magnitude };
    if value > i128::from(u64::MAX) || value < i128::from(i64::MIN) {
        None
    } else if value > i128::from(i64::MAX) {
        // A hex or decimal literal of 64 set-top bits: same bits as the negative i64.
        Some(value as u64 as i64)
    } else {
        Some(value as i64)
    }
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn line(&self) -> usize {
        self.peek()
            .or_else(|| self.tokens.last())
            .map_or(0, |t| t.line)
    }

    fn next(&mut self, expected: &str) -> Result<Token, ParseError> {
        let t = self
            .tokens
            .get(self.pos)
            .cloned()
            .ok_or_else(|| ParseError::Eof {
                expected: expected.to_string(),
            })?;
        self.pos += 1;
        Ok(t)
    }

    fn error<T>(&self, expected: &str, found: &Token) -> Result<T, ParseError> {
        Err(ParseError::Expected {
            line: found.line,
            expected: expected.to_string(),
            found: describe(&found.tok),
        })
    }

    /// Skips comments outside the body.
    fn skip_comments(&mut self) {
        while matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Comment(_),
                ..
            })
        ) {
            self.pos += 1;
        }
    }

    fn word(&mut self, expected: &str) -> Result<(String, usize), ParseError> {
        self.skip_comments();
        let t = self.next(expected)?;
        match t.tok {
            Tok::Word(w) => Ok((w, t.line)),
            _ => self.error(expected, &t),
        }
    }

    fn keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        self.skip_comments();
        let t = self.next(kw)?;
        match &t.tok {
            Tok::Word(w) if w == kw => Ok(()),
            _ => self.error(&format!("'{kw}'"), &t),
        }
    }

    fn punct(&mut self, c: char) -> Result<(), ParseError> {
        self.skip_comments();
        let t = self.next(&format!("'{c}'"))?;
        match t.tok {
            Tok::Punct(p) if p == c => Ok(()),
            _ => self.error(&format!("'{c}'"), &t),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
    }

    fn is_word(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Word(w), .. }) if w == kw)
    }

    fn number(&mut self, expected: &str) -> Result<(String, usize), ParseError> {
        self.skip_comments();
        let t = self.next(expected)?;
        match t.tok {
            Tok::Num(n) => Ok((n, t.line)),
            _ => self.error(expected, &t),
        }
    }

    fn u32_number(&mut self, expected: &str) -> Result<u32, ParseError> {
        let (text, line) = self.number(expected)?;
        parse_int(&text)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or(ParseError::Expected {
                line,
                expected: expected.to_string(),
                found: format!("'{text}'"),
            })
    }

    fn kernel(&mut self) -> Result<Kernel, ParseError> {
        self.keyword(".version")?;
        let (v, line) = self.number("a PTX ISA version")?;
        let version = v
            .split_once('.')
            .and_then(|(a, b)| Some(PtxVersion::new(a.parse().ok()?, b.parse().ok()?)))
            .ok_or(ParseError::Expected {
                line,
                expected: "a version like 8.7".into(),
                found: format!("'{v}'"),
            })?;
        self.keyword(".target")?;
        let (t, line) = self.word("a target")?;
        let target = Target::parse(&t).ok_or(ParseError::Expected {
            line,
            expected: "sm_90a or sm_100a".into(),
            found: format!("'{t}'"),
        })?;
        self.keyword(".address_size")?;
        let size = self.u32_number("64")?;
        if size != 64 {
            return Err(ParseError::Expected {
                line: self.line(),
                expected: ".address_size 64".into(),
                found: size.to_string(),
            });
        }
        let mut shared = Vec::new();
        loop {
            self.skip_comments();
            if self.is_word(".extern") || self.is_word(".shared") {
                shared.push(self.shared_decl()?);
            } else {
                break;
            }
        }
        self.keyword(".visible")?;
        self.keyword(".entry")?;
        let (name, _) = self.word("the kernel name")?;
        self.punct('(')?;
        let mut params = Vec::new();
        self.skip_comments();
        if !self.is_punct(')') {
            loop {
                self.keyword(".param")?;
                let (ty, line) = self.word(".u32 or .u64")?;
                let ty = match ty.as_str() {
                    ".u32" => ParamType::U32,
                    ".u64" => ParamType::U64,
                    _ => {
                        return Err(ParseError::Expected {
                            line,
                            expected: ".u32 or .u64".into(),
                            found: format!("'{ty}'"),
                        })
                    }
                };
                // What LLVM adds to a pointer parameter: `.ptr`, its state space, `.align N`.
                if self.is_word(".ptr") {
                    self.pos += 1;
                    for space in [".global", ".shared", ".const", ".local"] {
                        if self.is_word(space) {
                            self.pos += 1;
                        }
                    }
                    if self.is_word(".align") {
                        self.pos += 1;
                        self.u32_number("an alignment")?;
                    }
                }
                let (pname, _) = self.word("a parameter name")?;
                params.push(Param { name: pname, ty });
                self.skip_comments();
                if self.is_punct(',') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        self.punct(')')?;
        let (mut reqntid, mut maxntid) = (None, None);
        loop {
            self.skip_comments();
            if self.is_word(".reqntid") {
                self.pos += 1;
                reqntid = Some(self.u32_number("a thread count")?);
            } else if self.is_word(".maxntid") {
                self.pos += 1;
                maxntid = Some(self.u32_number("a thread count")?);
            } else {
                break;
            }
        }
        self.punct('{')?;
        let (body, lines, declared) = self.body()?;
        self.skip_comments();
        if let Some(t) = self.peek() {
            let t = t.clone();
            return self.error("the end of the input", &t);
        }
        for (stmt, line) in body.iter().zip(&lines) {
            if let Stmt::Inst(inst) = stmt {
                for r in inst.registers() {
                    if r.index() >= declared.get(&r.ty()).copied().unwrap_or(0) {
                        return Err(ParseError::UndeclaredRegister {
                            line: *line,
                            reg: r.to_string(),
                        });
                    }
                }
            }
        }
        let kernel = Kernel {
            version,
            target,
            name,
            params,
            shared,
            reqntid,
            maxntid,
            body,
        };
        kernel.validate().map_err(ParseError::Kernel)?;
        Ok(kernel)
    }

    fn shared_decl(&mut self) -> Result<SharedVar, ParseError> {
        let is_extern = self.is_word(".extern");
        if is_extern {
            self.pos += 1;
        }
        self.keyword(".shared")?;
        self.keyword(".align")?;
        let align = self.u32_number("an alignment")?;
        self.keyword(".b8")?;
        let (name, _) = self.word("a variable name")?;
        self.punct('[')?;
        let size = if is_extern {
            None
        } else {
            Some(self.u32_number("a size in bytes")?)
        };
        self.punct(']')?;
        self.punct(';')?;
        Ok(SharedVar { name, align, size })
    }

    #[allow(clippy::type_complexity)]
    fn body(&mut self) -> Result<(Vec<Stmt>, Vec<usize>, BTreeMap<RegType, u32>), ParseError> {
        let mut body = Vec::new();
        let mut lines = Vec::new();
        let mut declared = BTreeMap::new();
        loop {
            let t = self.next("'}'")?;
            match t.tok {
                Tok::Punct('}') => break,
                Tok::Comment(text) => {
                    let text = text.strip_prefix(' ').unwrap_or(&text).to_string();
                    body.push(Stmt::Comment(text));
                    lines.push(t.line);
                }
                Tok::Word(w) if w == ".reg" => {
                    let (ty, line) = self.word("a register type")?;
                    let class = RegType::ALL
                        .into_iter()
                        .find(|c| c.ptx_type() == ty)
                        .ok_or(ParseError::Expected {
                            line,
                            expected: ".pred, .b16, .b32 or .b64".into(),
                            found: format!("'{ty}'"),
                        })?;
                    let p = self.next("a register prefix")?;
                    match &p.tok {
                        Tok::Reg(prefix) if RegType::from_prefix(prefix) == Some(class) => {}
                        _ => return self.error(class.prefix(), &p),
                    }
                    self.punct('<')?;
                    let n = self.u32_number("a register count")?;
                    self.punct('>')?;
                    self.punct(';')?;
                    let entry = declared.entry(class).or_insert(0);
                    *entry = n.max(*entry);
                }
                Tok::Word(w) if self.is_punct(':') => {
                    self.pos += 1;
                    body.push(Stmt::Label(w));
                    lines.push(t.line);
                }
                _ => {
                    self.pos -= 1;
                    let line = t.line;
                    body.push(Stmt::Inst(self.instruction()?));
                    lines.push(line);
                }
            }
        }
        Ok((body, lines, declared))
    }

    fn instruction(&mut self) -> Result<Inst, ParseError> {
        let mut guard = None;
        if self.is_punct('@') {
            self.pos += 1;
            let negated = self.is_punct('!');
            if negated {
                self.pos += 1;
            }
            let t = self.next("a predicate")?;
            let pred = match &t.tok {
                Tok::Reg(r) => Reg::parse(r),
                _ => None,
            };
            match pred {
                Some(pred) => guard = Some(Guard { pred, negated }),
                None => return self.error("a predicate register", &t),
            }
        }
        let (opcode, line) = self.word("an instruction")?;
        let mut args = Vec::new();
        if !self.is_punct(';') {
            loop {
                args.push(self.arg()?);
                if self.is_punct(',') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        let semi = self.next("';'")?;
        if semi.tok != Tok::Punct(';') {
            return self.error("';'", &semi);
        }
        let op = op::build_op(&opcode, &args, line)?;
        let mut role = op.default_role();
        if let Some(Token {
            tok: Tok::Comment(text),
            first_on_line: false,
            line: l,
        }) = self.peek()
        {
            if *l == semi.line {
                if let Some(r) = Role::from_tag(text.trim()) {
                    role = r;
                }
                self.pos += 1;
            }
        }
        let inst = Inst { guard, op, role };
        inst.validate()
            .map_err(|source| ParseError::Invalid { line, source })?;
        Ok(inst)
    }

    fn arg(&mut self) -> Result<Arg, ParseError> {
        let t = self.next("an operand")?;
        match t.tok {
            Tok::Reg(ref name) => {
                if let Some(r) = Reg::parse(name) {
                    Ok(Arg::Reg(r))
                } else if let Some(s) = SpecialReg::parse(name) {
                    Ok(Arg::Special(s))
                } else {
                    self.error("a register", &t)
                }
            }
            Tok::Num(ref n) => match parse_int(n) {
                Some(v) => Ok(Arg::Imm(v)),
                None => self.error("an integer", &t),
            },
            Tok::Word(w) => Ok(Arg::Sym(w)),
            Tok::Punct('[') => {
                let b = self.next("an address")?;
                let arg = match b.tok {
                    Tok::Reg(ref name) => match Reg::parse(name) {
                        Some(r) => {
                            let mut offset = 0;
                            if self.is_punct('+') {
                                self.pos += 1;
                                let (n, line) = self.number("an offset")?;
                                offset = parse_int(&n).and_then(|v| i32::try_from(v).ok()).ok_or(
                                    ParseError::Expected {
                                        line,
                                        expected: "a 32-bit offset".into(),
                                        found: format!("'{n}'"),
                                    },
                                )?;
                            }
                            Arg::Addr(r, offset)
                        }
                        None => return self.error("a register", &b),
                    },
                    Tok::Word(w) => Arg::SymAddr(w),
                    _ => return self.error("a register or name", &b),
                };
                self.punct(']')?;
                Ok(arg)
            }
            Tok::Punct('{') => {
                let mut regs = Vec::new();
                loop {
                    let r = self.next("a register")?;
                    match &r.tok {
                        Tok::Reg(name) => match Reg::parse(name) {
                            Some(reg) => regs.push(Some(reg)),
                            None => return self.error("a register", &r),
                        },
                        Tok::Word(w) if w == "_" => regs.push(None),
                        _ => return self.error("a register", &r),
                    }
                    let sep = self.next("',' or '}'")?;
                    match sep.tok {
                        Tok::Punct(',') => {}
                        Tok::Punct('}') => break,
                        _ => return self.error("',' or '}'", &sep),
                    }
                }
                Ok(match regs.iter().copied().collect::<Option<Vec<Reg>>>() {
                    Some(all) => Arg::Vector(all),
                    None => Arg::Sinks(regs),
                })
            }
            _ => self.error("an operand", &t),
        }
    }
}
