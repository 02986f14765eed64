//! Printing a [`Module`]: the only way from the model back to text.
//!
//! Every piece prints what the model holds: names from the values, types as written until a
//! value changes type, regions from their blocks. An unedited module prints as it was read.

use std::fmt::{self, Write};

use super::model::{Module, OpId, Piece, RegionId, TopItem, TypeOf};

/// How names are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Names {
    /// As the values are named.
    Written,
    /// `%v0`, `%v1`, … in order of definition, locations left out (for comparing structure).
    Canonical,
}

pub(crate) struct Printer<'m> {
    pub(crate) m: &'m Module,
    pub(crate) names: Names,
    pub(crate) numbers: std::collections::HashMap<u32, usize>,
}

impl<'m> Printer<'m> {
    pub(crate) fn new(m: &'m Module, names: Names) -> Printer<'m> {
        Printer {
            m,
            names,
            numbers: std::collections::HashMap::new(),
        }
    }

    pub(crate) fn module(&mut self, out: &mut String) -> fmt::Result {
        for item in &self.m.top {
            match item {
                TopItem::Alias(a) => {
                    out.push_str(&a.lead);
                    out.push_str(&a.text);
                }
                TopItem::Op(op) => self.op(*op, out, true)?,
                TopItem::Metadata(t) => out.push_str(t),
            }
        }
        out.push_str(&self.m.trailing);
        Ok(())
    }

    fn value_name(&mut self, v: u32, def: bool) -> String {
        let Some(value) = self.m.values.get(v as usize) else {
            return "%<invalid>".into();
        };
        match self.names {
            Names::Written if def => format!("%{}", value.name),
            Names::Written => value.use_name(),
            Names::Canonical => {
                let next = self.numbers.len();
                let n = *self.numbers.entry(v).or_insert(next);
                format!("%v{n}")
            }
        }
    }

    /// `op`'s text; with `regions` false, its regions print as `{ }`.
    pub(crate) fn op(&mut self, id: OpId, out: &mut String, regions: bool) -> fmt::Result {
        let Some(op) = self.m.ops.get(id.0 as usize) else {
            return Ok(());
        };
        if regions || self.names == Names::Written {
            out.push_str(&op.lead);
        }
        for piece in &op.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Def(v) => {
                    let name = self.value_name(v.0, true);
                    out.push_str(&name);
                }
                Piece::Use(k) => {
                    let name = op
                        .operands
                        .get(*k)
                        .map_or_else(|| "%<invalid>".into(), |v| self.value_name(v.0, false));
                    out.push_str(&name);
                }
                Piece::Type { of, written } => {
                    let v = match of {
                        TypeOf::Operand(k) => op.operands.get(*k).copied(),
                        TypeOf::Result(k) => op.results.get(*k).copied(),
                        TypeOf::Value(v) => Some(*v),
                    };
                    let value = v.and_then(|v| self.m.values.get(v.0 as usize));
                    match value {
                        Some(x) if x.retyped => out.push_str(x.ty.as_deref().unwrap_or(written)),
                        _ => out.push_str(written),
                    }
                }
                Piece::Region(k) => {
                    if regions {
                        if let Some(r) = op.regions.get(*k) {
                            self.region(*r, out)?;
                        }
                    } else {
                        out.push_str(" }");
                    }
                }
                Piece::Location => {
                    if self.names == Names::Written {
                        out.push_str(op.location.as_deref().unwrap_or(""));
                    }
                }
            }
        }
        Ok(())
    }

    fn region(&mut self, id: RegionId, out: &mut String) -> fmt::Result {
        let Some(region) = self.m.regions.get(id.0 as usize) else {
            return Ok(());
        };
        for b in &region.blocks {
            let Some(block) = self.m.blocks.get(b.0 as usize) else {
                continue;
            };
            out.push_str(&block.lead);
            for piece in &block.label {
                match piece {
                    Piece::Def(v) => {
                        let name = self.value_name(v.0, true);
                        out.push_str(&name);
                    }
                    Piece::Type {
                        of: TypeOf::Value(v),
                        written,
                    } => match self.m.values.get(v.0 as usize) {
                        Some(x) if x.retyped => out.push_str(x.ty.as_deref().unwrap_or(written)),
                        _ => out.push_str(written),
                    },
                    Piece::Text(t) => out.write_str(t)?,
                    _ => {}
                }
            }
            for op in &block.ops {
                self.op(*op, out, true)?;
            }
        }
        out.push_str(&region.close);
        Ok(())
    }
}
