//! Edits of the model. Each keeps the module printable: a value's new type must reach every
//! place its type is printed ([`Module::set_type`] refuses where the model cannot say where
//! that is), a new operand's type replaces the old one where the op prints it, an erased op
//! must have no uses left, a new or rewritten op's text is built from a template whose names,
//! types and location print from the model (and may name only what the op has).

use std::collections::HashSet;

use super::error::{MlirError, MlirErrorKind};
use super::model::{Module, OpId, Operation, Piece, TypeOf, Value, ValueDef, ValueId};
use super::op_kind::OpKind;

/// An op to build: its name, its text as a template, and what the template names.
///
/// The template is the op's text after its indentation, with `$r0`, `$r1`… for the result
/// names, `$o0`… for the operand names, `$Tr0`… / `$To0`… for their types and `$loc` for the
/// location (the anchor's, printed only when it has one):
/// `"$r0 = arith.muli $o0, $o1 : i32$loc"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOp {
    /// The op's name (`arith.muli`).
    pub name: String,
    /// Its text, with placeholders.
    pub template: String,
    /// Its operands.
    pub operands: Vec<ValueId>,
    /// Its results: a name to start from (made unique) and the type.
    pub results: Vec<(String, String)>,
    /// Its attributes, for readers of the model (`value` of an `arith.constant`).
    pub attributes: Vec<(String, String)>,
}

impl Module {
    /// Gives `value` the type `ty`: every piece that prints its type now prints `ty`.
    ///
    /// Errors: [`MlirErrorKind::StaleType`] at the op, when an op that uses or defines it prints
    /// types where the model does not link them to their values (an op whose signature the
    /// model does not know), so that its text would keep the old type.
    pub fn set_type(&mut self, value: ValueId, ty: &str) -> Result<(), MlirError> {
        let uses = self.uses().remove(&value).unwrap_or_default();
        self.set_type_with_uses(value, ty, &uses)
    }

    /// [`Module::set_type`] given the value's uses (as [`Module::uses`] lists them), for a caller
    /// that changes many types and computed the uses once.
    pub fn set_type_with_uses(
        &mut self,
        value: ValueId,
        ty: &str,
        uses: &[(OpId, usize)],
    ) -> Result<(), MlirError> {
        let Some(v) = self.value(value) else {
            return Ok(());
        };
        let name = v.name.clone();
        let def_linked = match v.def {
            ValueDef::Result { op, index } => self.op(op).map(|o| {
                (
                    o,
                    o.pieces.iter().any(
                        |p| matches!(p, Piece::Type { of: TypeOf::Result(k), .. } if *k == index),
                    ),
                )
            }),
            ValueDef::BlockArgument { block, index } => {
                let in_label = self.block(block).is_some_and(|b| {
                    b.label.iter().any(
                        |p| matches!(p, Piece::Type { of: TypeOf::Value(x), .. } if *x == value),
                    )
                });
                let owner = self
                    .block(block)
                    .and_then(|b| self.region(b.parent))
                    .and_then(|r| self.op(r.parent));
                owner.map(|o| {
                    let in_header = o.pieces.iter().any(
                        |p| matches!(p, Piece::Type { of: TypeOf::Value(x), .. } if *x == value),
                    );
                    // A loop-carried argument of an `scf.for` body (after the induction
                    // variable): its type is printed as the loop's result type, which the
                    // caller changes with it (`Module::loop_carried`).
                    let carried = o.kind == Some(OpKind::For)
                        && index >= 1
                        && o.pieces.iter().any(|p| {
                            matches!(p, Piece::Type { of: TypeOf::Result(k), .. } if *k + 1 == index)
                        });
                    (o, in_label || in_header || carried)
                })
            }
            ValueDef::Header { op } => self.op(op).map(|o| (o, true)),
        };
        if let Some((op, false)) = def_linked {
            return Err(stale(op, &name));
        }
        for &(o, k) in uses {
            let Some(op) = self.op(o) else { continue };
            // An `scf.for`'s initial `iter_args` values print no type of their own (the loop's
            // result types stand for them: see `Module::loop_carried`).
            let carried = op.kind == Some(OpKind::For) && k >= 3;
            if !carried && !op.prints_operand_type(k, value) && prints_types(op) {
                return Err(stale(op, &name));
            }
        }
        if let Some(v) = self.values.get_mut(value.0 as usize) {
            v.ty = Some(ty.to_string());
            v.retyped = true;
        }
        Ok(())
    }

    /// What carries operand `k` of the `scf.for` `op` around the loop, when `k` is an initial
    /// value of its `iter_args` (operands 3…): the body's block argument, the loop's result, and
    /// the value the body's `scf.yield` passes back. `None` for any other operand or op.
    ///
    /// ```
    /// use linear_layout::mlir::{Module, OpKind};
    /// let m = Module::parse("module {\n  %c = arith.constant 0 : i32\n  %r = scf.for %i = %c to %c step %c iter_args(%a = %c) -> (i32)  : i32 {\n    scf.yield %a : i32\n  }\n}\n")?;
    /// let for_op = m.walk().into_iter().find(|&o| m.op(o).and_then(|o| o.kind()) == Some(OpKind::For));
    /// let (arg, result, yielded) = for_op.and_then(|f| m.loop_carried(f, 3)).ok_or("a loop")?;
    /// let name = |v| m.value(v).map(|x| x.name());
    /// assert_eq!((name(arg), name(result)), (Some("a"), Some("r")));
    /// assert_eq!(yielded, arg);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loop_carried(&self, op: OpId, k: usize) -> Option<(ValueId, ValueId, ValueId)> {
        let o = self.op(op)?;
        if o.kind != Some(OpKind::For) || k < 3 {
            return None;
        }
        let j = k - 3;
        let body = self.block(*self.region(*o.regions.first()?)?.blocks.first()?)?;
        let arg = *body.arguments.get(j + 1)?;
        let result = *o.results.get(j)?;
        let yield_op = self.op(*body.ops.last()?)?;
        if yield_op.kind != Some(OpKind::Yield) {
            return None;
        }
        let yielded = *yield_op.operands.get(j)?;
        Some((arg, result, yielded))
    }

    /// Makes operand `k` of `op` the value `value`. Where the op prints operand `k`'s type, it
    /// prints `value`'s from now on.
    ///
    /// Errors: [`MlirErrorKind::StaleType`] when the op prints that type and `value`'s type is
    /// not known (nothing to print).
    pub fn set_operand(&mut self, op: OpId, k: usize, value: ValueId) -> Result<(), MlirError> {
        let ty = self.value(value).and_then(|v| v.ty.clone());
        let name = self
            .value(value)
            .map(|v| v.name.clone())
            .unwrap_or_default();
        let Some(o) = self.ops.get_mut(op.0 as usize) else {
            return Err(missing());
        };
        for p in &mut o.pieces {
            if let Piece::Type {
                of: TypeOf::Operand(j),
                written,
            } = p
            {
                if *j == k {
                    match &ty {
                        Some(t) => *written = t.clone(),
                        None => return Err(stale(o, &name)),
                    }
                }
            }
        }
        if let Some(slot) = o.operands.get_mut(k) {
            *slot = value;
        }
        Ok(())
    }

    /// A name no value of the module has, from `hint` (`hint`, or `hint_1`, `hint_2`, …).
    pub fn fresh_name(&self, hint: &str) -> String {
        let taken: HashSet<&str> = self.values.iter().map(|v| v.name.as_str()).collect();
        if !taken.contains(hint) {
            return hint.to_string();
        }
        (1..)
            .map(|n| format!("{hint}_{n}"))
            .find(|n| !taken.contains(n.as_str()))
            .unwrap_or_else(|| hint.to_string())
    }

    /// Builds `new` and inserts it before `anchor`, in `anchor`'s block, with `anchor`'s
    /// indentation and location. Returns the new op.
    pub fn insert_before(&mut self, anchor: OpId, new: NewOp) -> Result<OpId, MlirError> {
        let Some(a) = self.op(anchor) else {
            return Err(missing());
        };
        let (parent, lead, location) = (a.parent, a.lead.clone(), a.location.clone());
        let Some(block) = parent else {
            return Err(missing());
        };
        let id = OpId(self.ops.len() as u32);
        let results: Vec<ValueId> = new
            .results
            .iter()
            .enumerate()
            .map(|(index, (hint, ty))| {
                let name = self.fresh_name(hint);
                let v = ValueId(self.values.len() as u32);
                self.values.push(Value {
                    name,
                    index: None,
                    ty: Some(ty.clone()),
                    retyped: true,
                    def: ValueDef::Result { op: id, index },
                    line: 0,
                    column: 0,
                });
                v
            })
            .collect();
        let pieces = self.template_pieces(&new, &results, location.is_some())?;
        self.ops.push(Operation {
            kind: OpKind::from_name(&new.name),
            name: new.name,
            generic: false,
            results,
            operands: new.operands,
            regions: Vec::new(),
            attributes: new.attributes,
            location,
            parent: Some(block),
            line: 0,
            column: 0,
            lead: lead.clone(),
            pieces,
        });
        let leading_line = lead
            .rfind('\n')
            .map_or(lead.clone(), |i| lead.get(i..).unwrap_or("").to_string());
        if let Some(b) = self.blocks.get_mut(block.0 as usize) {
            let at = b
                .ops
                .iter()
                .position(|&o| o == anchor)
                .unwrap_or(b.ops.len());
            b.ops.insert(at, id);
        }
        // The anchor keeps what came before it (comments) on the new op; it starts its own line.
        if let Some(a) = self.ops.get_mut(anchor.0 as usize) {
            a.lead = leading_line;
        }
        Ok(id)
    }

    /// Rewrites `op` as `new` in place: its results keep their values and types (change a type
    /// with [`Module::set_type`], which checks every use), its operands become `new.operands`.
    ///
    /// Errors: an op with regions (its regions would stop printing), or a template that names
    /// a result or operand `new` does not have.
    pub fn rewrite(&mut self, op: OpId, new: NewOp) -> Result<(), MlirError> {
        let Some(o) = self.op(op) else {
            return Err(missing());
        };
        if !o.regions.is_empty() {
            return Err(malformed(o, "an op without regions to rewrite"));
        }
        let (results, has_loc) = (o.results.clone(), o.location.is_some());
        let pieces = self.template_pieces(&new, &results, has_loc)?;
        if let Some(o) = self.ops.get_mut(op.0 as usize) {
            o.kind = OpKind::from_name(&new.name);
            o.name = new.name;
            o.generic = false;
            o.operands = new.operands;
            o.attributes = new.attributes;
            o.pieces = pieces;
        }
        Ok(())
    }

    /// Removes `op` from its block.
    ///
    /// Errors: [`MlirErrorKind::UndefinedValue`] at the first op that still uses one of its
    /// results (erase the users first).
    pub fn erase(&mut self, op: OpId) -> Result<(), MlirError> {
        let Some(o) = self.op(op) else {
            return Err(missing());
        };
        let results = o.results.clone();
        let parent = o.parent;
        for user in self.walk() {
            if user == op {
                continue;
            }
            let Some(u) = self.op(user) else { continue };
            if let Some(v) = u.operands.iter().find(|v| results.contains(v)) {
                let name = self.value(*v).map(|x| x.name.clone()).unwrap_or_default();
                return Err(MlirError {
                    line: u.line,
                    column: u.column,
                    kind: MlirErrorKind::UndefinedValue(name),
                });
            }
        }
        match parent {
            Some(b) => {
                if let Some(block) = self.blocks.get_mut(b.0 as usize) {
                    block.ops.retain(|&x| x != op);
                }
            }
            None => self
                .top
                .retain(|t| !matches!(t, super::model::TopItem::Op(x) if *x == op)),
        }
        Ok(())
    }
}

/// Whether `op` prints any types at all where an operand's might hide (its signature text is
/// not linked): a custom op with a `:` the model did not link.
fn prints_types(op: &Operation) -> bool {
    // An op whose types are all linked has Type pieces for every printed type; an op without
    // a signature may print an operand's type anywhere in its text.
    let linked = op.pieces.iter().any(|p| {
        matches!(
            p,
            Piece::Type {
                of: TypeOf::Operand(_) | TypeOf::Result(_),
                ..
            }
        )
    });
    let text_has_colon = op
        .pieces
        .iter()
        .any(|p| matches!(p, Piece::Text(t) if t.contains(':')));
    !linked || text_has_colon
}

fn stale(op: &Operation, value: &str) -> MlirError {
    MlirError {
        line: op.line,
        column: op.column,
        kind: MlirErrorKind::StaleType {
            value: value.to_string(),
            op: op.name.clone(),
        },
    }
}

fn malformed(op: &Operation, expected: &'static str) -> MlirError {
    MlirError {
        line: op.line,
        column: op.column,
        kind: MlirErrorKind::Expected {
            expected,
            found: format!("'{}'", op.name),
        },
    }
}

fn missing() -> MlirError {
    MlirError {
        line: 0,
        column: 0,
        kind: MlirErrorKind::Expected {
            expected: "an op of this module",
            found: "an op id of another module".into(),
        },
    }
}

impl Module {
    /// The pieces of `new`'s template, for an op whose results are `results`. A type prints as
    /// the value's type now (and as its new type if it changes later).
    fn template_pieces(
        &self,
        new: &NewOp,
        results: &[ValueId],
        has_location: bool,
    ) -> Result<Vec<Piece>, MlirError> {
        let bad = |word: &str| MlirError {
            line: 0,
            column: 0,
            kind: MlirErrorKind::Expected {
                expected: "a placeholder of the op's results and operands",
                found: format!("'${word}' in '{}'", new.template),
            },
        };
        let type_of = |v: Option<&ValueId>| {
            v.and_then(|v| self.value(*v))
                .and_then(|x| x.ty.clone())
                .unwrap_or_default()
        };
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut rest = new.template.as_str();
        while let Some(at) = rest.find('$') {
            text.push_str(rest.get(..at).unwrap_or(""));
            let tail = rest.get(at + 1..).unwrap_or("");
            let word_len = tail
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tail.len());
            let word = tail.get(..word_len).unwrap_or("");
            let number = |prefix: &str| {
                word.strip_prefix(prefix)
                    .and_then(|n| n.parse::<usize>().ok())
            };
            let piece = if word == "loc" {
                Some(Piece::Location)
            } else if let Some(k) = number("Tr") {
                let v = results.get(k).ok_or_else(|| bad(word))?;
                let (of, written) = (TypeOf::Result(k), type_of(Some(v)));
                Some(Piece::Type { of, written })
            } else if let Some(k) = number("To") {
                let v = new.operands.get(k).ok_or_else(|| bad(word))?;
                let (of, written) = (TypeOf::Operand(k), type_of(Some(v)));
                Some(Piece::Type { of, written })
            } else if let Some(k) = number("r") {
                Some(Piece::Def(*results.get(k).ok_or_else(|| bad(word))?))
            } else if let Some(k) = number("o") {
                new.operands.get(k).ok_or_else(|| bad(word))?;
                Some(Piece::Use(k))
            } else {
                None
            };
            match piece {
                Some(p) => {
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    if p == Piece::Location {
                        if has_location {
                            pieces.push(Piece::Text(" ".into()));
                            pieces.push(p);
                        }
                    } else {
                        pieces.push(p);
                    }
                    rest = tail.get(word_len..).unwrap_or("");
                }
                None => {
                    text.push('$');
                    rest = tail;
                }
            }
        }
        text.push_str(rest);
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(pieces)
    }
}
