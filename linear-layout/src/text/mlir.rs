//! The MLIR attribute `#ttg.linear<{register = [[0, 1], …], lane = […], warp = […], block = []}>`
//! as Triton prints it in TTGIR. Out-dims are `dim0…dimN-1` with sizes inferred from the bases
//! (so the layout is surjective), exactly as Triton's attribute parser builds it.

use crate::dims::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::{DimBases, LinearLayout};

const PREFIX: &str = "#ttg.linear";

fn err(pos: usize, msg: impl std::fmt::Display) -> LayoutError {
    LayoutError::Parse(format!("{PREFIX} attribute, at byte {pos}: {msg}"))
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }
    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }
    fn eat(&mut self, tok: &str) -> Result<()> {
        self.skip_ws();
        if self.text[self.pos..].starts_with(tok) {
            self.pos += tok.len();
            Ok(())
        } else {
            Err(err(
                self.pos,
                format!(
                    "expected '{tok}', found {:?}",
                    self.text[self.pos..].chars().take(12).collect::<String>()
                ),
            ))
        }
    }
    fn ident(&mut self) -> Result<&'a str> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(err(self.pos, "expected a dim name"));
        }
        self.pos += len;
        Ok(&rest[..len])
    }
    fn int(&mut self) -> Result<u64> {
        self.skip_ws();
        let start = self.pos;
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        self.pos += len;
        let tok = &rest[..len];
        if tok.starts_with('-') {
            return Err(err(start, format!("negative basis component {tok}")));
        }
        tok.parse::<u64>()
            .map_err(|_| err(start, format!("expected an integer, found {tok:?}")))
    }
    /// `[a, b, …]` of items parsed by `item`.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        self.eat("[")?;
        let mut out = Vec::new();
        if self.peek() == Some(']') {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => return Err(err(self.pos, "expected ',' or ']'")),
            }
        }
    }
}

impl LinearLayout {
    /// Parses `#ttg.linear<{…}>`.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_mlir("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>")?;
    /// assert_eq!(l.out_dims(), vec![("dim0".into(), 32), ("dim1".into(), 16)]);
    /// assert_eq!(LinearLayout::from_mlir(&l.to_mlir()?)?, l);
    /// assert!(LinearLayout::from_mlir("#ttg.linear<{register = [[0, -1]]}>").is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn from_mlir(text: &str) -> Result<LinearLayout> {
        let mut c = Cursor { text, pos: 0 };
        c.eat(PREFIX)?;
        c.eat("<")?;
        c.eat("{")?;
        let mut bases: Vec<(&str, DimBases)> = Vec::new();
        if c.peek() == Some('}') {
            c.pos += 1;
        } else {
            loop {
                let name = c.ident()?;
                c.eat("=")?;
                let list = c.list(|c| c.list(Cursor::int))?;
                bases.push((name, list));
                match c.peek() {
                    Some(',') => c.pos += 1,
                    Some('}') => {
                        c.pos += 1;
                        break;
                    }
                    _ => return Err(err(c.pos, "expected ',' or '}'")),
                }
            }
        }
        c.eat(">")?;
        c.skip_ws();
        if c.pos != text.len() {
            return Err(err(c.pos, "unexpected text after the attribute"));
        }
        let rank = bases
            .iter()
            .flat_map(|(_, b)| b.first())
            .map(Vec::len)
            .next()
            .unwrap_or(0);
        let outs: Vec<Dim> = (0..rank).map(Dim::standard).collect();
        LinearLayout::from_bases_inferred(&bases, &outs)
    }

    /// Prints `#ttg.linear<{…}>`. The out-dims must be `dim0…dimN-1` in order and the layout
    /// surjective (the attribute infers sizes); otherwise [`LayoutError::Invalid`].
    pub fn to_mlir(&self) -> Result<String> {
        let standard = self
            .outs
            .iter()
            .enumerate()
            .all(|(i, o)| o.dim == Dim::standard(i));
        if !standard || !self.is_surjective() {
            return Err(LayoutError::Invalid {
                op: "to_mlir",
                what: "#ttg.linear needs out-dims dim0..dimN-1 in order and a surjective layout"
                    .into(),
            });
        }
        let dims: Vec<String> = self
            .bases()
            .iter()
            .map(|(d, b)| {
                let bs: Vec<String> = b
                    .iter()
                    .map(|v| {
                        format!(
                            "[{}]",
                            v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                        )
                    })
                    .collect();
                format!("{d} = [{}]", bs.join(", "))
            })
            .collect();
        Ok(format!("{PREFIX}<{{{}}}>", dims.join(", ")))
    }
}
