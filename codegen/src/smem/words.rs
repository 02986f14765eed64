//! Elements in `.b32` words: where a register's element sits ([`Element`]), and the
//! instructions that gather the elements of one vector slot into the words an access moves
//! ([`pack`]) or name them inside the words it moved ([`unpack`]).
//!
//! A value loaded from memory stays packed: its elements are [`Element`]s inside the loaded
//! words, and a later access that moves them in the same order reuses the words with no
//! instruction. Otherwise elements alone in the low bits of their registers are inserted
//! with `bfi` (one per element after the first), byte-sized elements inside packed words are
//! gathered with `prmt` (one per source word after the first), and sub-byte ones are
//! extracted (`bfe`) before they are inserted.

use super::error::SmemError;
use crate::ptx::{Builder, Reg, RegType, Role};

/// A register's element: bits `pos .. pos + element bits` of the `.b32` register `word`.
///
/// ```
/// use codegen::ptx::{Reg, RegType};
/// use codegen::smem::Element;
/// let e = Element::alone(Reg::new(RegType::B32, 3));
/// assert_eq!((e.word.to_string(), e.pos), ("%r3".to_string(), 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Element {
    /// The register.
    pub word: Reg,
    /// The element's lowest bit in it.
    pub pos: u32,
}

impl Element {
    /// The element in the low bits of `word`.
    ///
    /// ```
    /// use codegen::ptx::{Reg, RegType};
    /// assert_eq!(codegen::smem::Element::alone(Reg::new(RegType::B32, 0)).pos, 0);
    /// ```
    pub fn alone(word: Reg) -> Element {
        Element { word, pos: 0 }
    }
}

/// Checks that every element is a `.b32` register's whole `bits`-bit field.
pub(super) fn check_elements(elements: &[Element], bits: u32) -> Result<(), SmemError> {
    for e in elements {
        if e.word.ty() != RegType::B32 {
            return Err(SmemError::RegisterClass {
                what: "a stored value",
                reg: e.word.to_string(),
            });
        }
        if bits == 0 || e.pos % bits != 0 || e.pos.saturating_add(bits) > 32 {
            return Err(SmemError::RegisterLayout {
                reason: format!(
                    "an element at bit {} of {} is not a whole {bits}-bit field of the word",
                    e.pos, e.word
                ),
            });
        }
    }
    Ok(())
}

/// The words of `word_bytes` (at most 4) that hold `slots` in order, lowest bits first,
/// `max(1, word_bytes / element bytes)` elements each, from `stored` (one [`Element`] per
/// layout register; a slot's first register is the one moved).
pub(super) fn pack(
    b: &mut Builder,
    bits: u32,
    slots: &[Vec<usize>],
    word_bytes: u32,
    stored: &[Element],
) -> Result<Vec<Reg>, SmemError> {
    let per_word = (word_bytes * 8 / bits.max(1)).max(1) as usize;
    let mut words = Vec::with_capacity(slots.len().div_ceil(per_word));
    for chunk in slots.chunks(per_word) {
        let elements = chunk
            .iter()
            .map(|slot| stored_element(slot, stored))
            .collect::<Result<Vec<_>, _>>()?;
        words.push(pack_word(b, bits, &elements)?);
    }
    Ok(words)
}

/// One word holding `elements` at bits `0, bits, 2·bits, …`.
fn pack_word(b: &mut Builder, bits: u32, elements: &[Element]) -> Result<Reg, SmemError> {
    let Some(first) = elements.first() else {
        return Err(SmemError::RegisterLayout {
            reason: "an access word with no element".into(),
        });
    };
    let in_place = elements
        .iter()
        .enumerate()
        .all(|(k, e)| e.word == first.word && e.pos == k as u32 * bits);
    if in_place {
        return Ok(first.word);
    }
    if bits % 8 == 0 && elements.iter().any(|e| e.pos != 0) {
        return gather_bytes(b, bits, elements);
    }
    let alone = |b: &mut Builder, e: &Element| -> Result<Reg, SmemError> {
        match e.pos {
            0 => Ok(e.word),
            pos => Ok(b.with_role(Role::Data, |b| b.bfe(e.word, pos, bits))?),
        }
    };
    let mut word = alone(b, first)?;
    for (k, e) in elements.iter().enumerate().skip(1) {
        let v = alone(b, e)?;
        let pos = k as u32 * bits;
        word = b.with_role(Role::Data, |b| b.bfi(v, word, pos, bits))?;
    }
    Ok(word)
}

/// `prmt` of byte-sized elements: the first two source words in one, each further one onto
/// the result.
fn gather_bytes(b: &mut Builder, bits: u32, elements: &[Element]) -> Result<Reg, SmemError> {
    let per = bits / 8;
    // Per target byte, (source word, its byte).
    let mut bytes: Vec<(Reg, u32)> = Vec::new();
    for e in elements {
        for k in 0..per {
            bytes.push((e.word, e.pos / 8 + k));
        }
    }
    let mut sources: Vec<Reg> = Vec::new();
    for &(w, _) in &bytes {
        if !sources.contains(&w) {
            sources.push(w);
        }
    }
    let selector = |pick: &dyn Fn(usize, Reg, u32) -> u32| -> u32 {
        (0..4usize).fold(0u32, |sel, j| {
            let nibble = bytes.get(j).map_or(j as u32, |&(w, s)| pick(j, w, s));
            sel | (nibble & 7) << (4 * j)
        })
    };
    let mut sources = sources.into_iter();
    let (Some(a), second) = (sources.next(), sources.next()) else {
        return Err(SmemError::RegisterLayout {
            reason: "an access word with no element".into(),
        });
    };
    let other = second.unwrap_or(a);
    let sel = selector(&|j, w, s| match w {
        w if w == a => s,
        w if w == other => 4 + s,
        _ => j as u32,
    });
    let mut word = b.with_role(Role::Data, |b| b.prmt(a, other, sel))?;
    for w in sources {
        let sel = selector(&|j, x, s| if x == w { 4 + s } else { j as u32 });
        word = b.with_role(Role::Data, |b| b.prmt(word, w, sel))?;
    }
    Ok(word)
}

/// Each element of `words` (`max(1, word_bytes / element bytes)` per word, lowest bits
/// first) to the registers of its slot in `loaded`: extracted into the low bits of a fresh
/// register (`bfe`) when `extract`, else named where it sits.
pub(super) fn unpack(
    b: &mut Builder,
    bits: u32,
    words: &[Reg],
    slots: &[Vec<usize>],
    word_bytes: u32,
    extract: bool,
    loaded: &mut [Option<Element>],
) -> Result<(), SmemError> {
    let per_word = (word_bytes * 8 / bits.max(1)).max(1) as usize;
    for (j, slot) in slots.iter().enumerate() {
        let word = words
            .get(j / per_word)
            .copied()
            .ok_or_else(|| SmemError::RegisterLayout {
                reason: "a slot past the moved words".into(),
            })?;
        let pos = (j % per_word) as u32 * bits;
        let element = match (per_word, extract) {
            (1, _) => Element::alone(word),
            (_, true) => Element::alone(b.with_role(Role::Data, |b| b.bfe(word, pos, bits))?),
            (_, false) => Element { word, pos },
        };
        for &r in slot {
            if let Some(v) = loaded.get_mut(r) {
                *v = Some(element);
            }
        }
    }
    Ok(())
}

/// The element of `slot` (its first register) among `stored`.
fn stored_element(slot: &[usize], stored: &[Element]) -> Result<Element, SmemError> {
    slot.first()
        .and_then(|&r| stored.get(r))
        .copied()
        .ok_or_else(|| SmemError::RegisterLayout {
            reason: "an element held by no register".into(),
        })
}
