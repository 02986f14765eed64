//! JSON in Triton's `from_bases` shape:
//! `{"bases": [["register", [[0,1],[0,2]]], …], "out_dims": [["dim0", 16], …]}`.
//!
//! `out_dims` may also be a list of bare names, in which case sizes are inferred as Triton's
//! inferring constructor does. Values are read as integers of any sign so that a negative or
//! oversized component is reported as a typed error, not a parse failure.

use serde_json::{json, Value};

use crate::error::{LayoutError, Result};
use crate::layout::{DimBases, LinearLayout};

fn parse_err(msg: impl Into<String>) -> LayoutError {
    LayoutError::Parse(msg.into())
}

fn as_u64(v: &Value, what: &dyn Fn() -> String) -> Result<u64> {
    if let Some(u) = v.as_u64() {
        return Ok(u);
    }
    match v.as_i64() {
        Some(i) => Err(parse_err(format!("{} is negative ({i})", what()))),
        None => Err(parse_err(format!(
            "{} is not a non-negative integer: {v}",
            what()
        ))),
    }
}

/// The two items of a JSON list `[a, b]`.
fn pair(v: &Value) -> Option<[&Value; 2]> {
    match v.as_array()?.as_slice() {
        [a, b] => Some([a, b]),
        _ => None,
    }
}

impl LinearLayout {
    /// The layout as a JSON value in Triton's `from_bases` shape.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "lane", "dim0")?;
    /// assert_eq!(l.to_json().to_string(), r#"{"bases":[["lane",[[1],[2]]]],"out_dims":[["dim0",4]]}"#);
    /// assert_eq!(LinearLayout::from_json(&l.to_json())?, l);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let bases: Vec<Value> = self
            .bases()
            .into_iter()
            .map(|(d, b)| json!([d.name(), b]))
            .collect();
        let outs: Vec<Value> = self
            .outs
            .iter()
            .map(|o| json!([o.dim.name(), o.size()]))
            .collect();
        json!({"bases": bases, "out_dims": outs})
    }

    /// Reads a layout from Triton's `from_bases` JSON shape (see the module docs). A layout
    /// with explicit sizes may be non-surjective; one with inferred sizes must be surjective.
    pub fn from_json(v: &Value) -> Result<LinearLayout> {
        let obj = v.as_object().ok_or_else(|| {
            parse_err("a layout must be a JSON object with \"bases\" and \"out_dims\"")
        })?;
        let bases_v = obj
            .get("bases")
            .and_then(Value::as_array)
            .ok_or_else(|| parse_err("missing \"bases\" list"))?;
        let mut bases: Vec<(String, DimBases)> = Vec::with_capacity(bases_v.len());
        for entry in bases_v {
            let [name, list] = pair(entry).ok_or_else(|| {
                parse_err(format!(
                    "each \"bases\" entry must be [name, [[...], ...]], got {entry}"
                ))
            })?;
            let name = name
                .as_str()
                .ok_or_else(|| parse_err(format!("in-dim name must be a string, got {name}")))?;
            let list = list
                .as_array()
                .ok_or_else(|| parse_err(format!("bases of in-dim '{name}' must be a list")))?;
            let mut dim_bases = Vec::with_capacity(list.len());
            for (i, b) in list.iter().enumerate() {
                let comps = b.as_array().ok_or_else(|| {
                    parse_err(format!(
                        "basis {i} of in-dim '{name}' must be a list of integers"
                    ))
                })?;
                let values = comps
                    .iter()
                    .enumerate()
                    .map(|(j, c)| {
                        as_u64(c, &|| {
                            format!("component {j} of basis {i} of in-dim '{name}'")
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                dim_bases.push(values);
            }
            bases.push((name.to_owned(), dim_bases));
        }
        let outs_v = obj
            .get("out_dims")
            .and_then(Value::as_array)
            .ok_or_else(|| parse_err("missing \"out_dims\" list"))?;
        let named: Vec<(&str, DimBases)> =
            bases.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
        if outs_v.iter().all(Value::is_string) {
            let names: Vec<&str> = outs_v.iter().filter_map(Value::as_str).collect();
            return LinearLayout::from_bases_inferred(&named, &names);
        }
        let mut outs = Vec::with_capacity(outs_v.len());
        for o in outs_v {
            let [name, size] = pair(o).ok_or_else(|| {
                parse_err(format!(
                    "each \"out_dims\" entry must be [name, size], got {o}"
                ))
            })?;
            let name = name
                .as_str()
                .ok_or_else(|| parse_err(format!("out-dim name must be a string, got {name}")))?;
            outs.push((name, as_u64(size, &|| format!("size of out-dim '{name}'"))?));
        }
        LinearLayout::from_bases(&named, &outs, false)
    }

    /// Parses JSON text; see [`LinearLayout::from_json`].
    pub fn from_json_str(text: &str) -> Result<LinearLayout> {
        // A byte-order mark, as some editors write one, is not part of the JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Strict(v) =
            serde_json::from_str(text).map_err(|e| parse_err(format!("invalid JSON: {e}")))?;
        LinearLayout::from_json(&v)
    }
}

/// A JSON value read with every object key at most once: `serde_json::Value` keeps the last of
/// a repeated key, which would silently drop the first `bases`.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some((key, Strict(v))) = map.next_entry::<String, Strict>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "key \"{key}\" appears twice"
                )));
            }
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

impl serde::Serialize for LinearLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for LinearLayout {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        LinearLayout::from_json(&v).map_err(serde::de::Error::custom)
    }
}
