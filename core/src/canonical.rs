//! Canonical bytes: RFC 8785 (JSON Canonicalization Scheme) over documents
//! that contain no floating-point numbers.
//!
//! Every hashed document in Probity goes through [`canonical_bytes`]. Hashes
//! therefore never depend on an encoder's incidental output (key order,
//! whitespace, escaping or number formatting).
//!
//! Empty and absent collections are one meaning: the document types in this
//! crate always serialize their collections (an empty one as `[]`) and accept
//! a missing collection as empty, so both spellings parse to one value with
//! one canonical form.

use serde::Serialize;
use serde_json::Value;

use crate::digest::{Domain, Sha256Digest};

/// The largest integer magnitude hashed documents carry: 2^53 − 1, the
/// range every I-JSON (RFC 7493) implementation represents exactly. Beyond
/// it, RFC 8785's number serialization (via IEEE 754 doubles) would round
/// two different integers to the same bytes.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why a value has no canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// Hashed documents never carry floats: their rendering is not stable
    /// across encoders.
    #[error("hashed documents must not contain floating-point numbers (at {path})")]
    Float {
        /// Where the float sits, JSONPath-like from the root `$` (object
        /// keys after `.`, array indexes in brackets, e.g. `$.a[1].b`).
        path: String,
    },
    /// An integer outside ±(2^53 − 1): I-JSON refuses it, and canonical
    /// bytes would round it.
    #[error(
        "integers in hashed documents must lie within ±(2^53 − 1) = ±9007199254740991 (at {path})"
    )]
    IntegerOutOfRange {
        /// Where the integer sits: JSONPath-like from `$` (e.g. `$.a[1]`),
        /// or `line L, column C` of the text when the strict reader met a
        /// literal too large for 64 bits.
        path: String,
    },
    /// An object names the same key twice: which value counts would depend
    /// on the parser.
    #[error("the key `{key}` appears twice in one object")]
    DuplicateKey {
        /// The repeated key, as it appears in the object (unescaped).
        key: String,
    },
    /// The text is not JSON (syntax, invalid UTF-8, a lone surrogate,
    /// trailing data).
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    /// The value could not be represented as JSON at all.
    #[error("value is not representable as JSON: {0}")]
    NotJson(String),
}

impl CanonicalError {
    /// The stable machine-readable code of this refusal (conformance
    /// vectors name it).
    pub fn code(&self) -> &'static str {
        match self {
            CanonicalError::Float { .. } => "float",
            CanonicalError::IntegerOutOfRange { .. } => "integer_out_of_range",
            CanonicalError::DuplicateKey { .. } => "duplicate_key",
            CanonicalError::InvalidJson(_) => "invalid_json",
            CanonicalError::NotJson(_) => "not_json",
        }
    }
}

/// Serializes `value` to RFC 8785 canonical JSON bytes.
///
/// Keys sorted by their UTF-16 code units, no insignificant whitespace,
/// strings in their shortest escape; a float anywhere is refused (every
/// hashed document holds integers only), as is an integer JSON cannot
/// carry exactly.
///
/// ```
/// use probity_core::canonical::canonical_bytes;
///
/// let v = serde_json::json!({"b": 1, "a": [true, null, "x\u{00e9}"], "A": {}});
/// assert_eq!(
///     canonical_bytes(&v)?,
///     "{\"A\":{},\"a\":[true,null,\"x\u{00e9}\"],\"b\":1}".as_bytes()
/// );
/// // The same value always has the same bytes, whatever order it was built in.
/// let w = serde_json::json!({"A": {}, "b": 1, "a": [true, null, "x\u{00e9}"]});
/// assert_eq!(canonical_bytes(&v)?, canonical_bytes(&w)?);
/// // A float is refused, with a stable code.
/// let e = canonical_bytes(&serde_json::json!({"cost": 0.5})).unwrap_err();
/// assert_eq!(e.code(), "float");
/// # Ok::<(), probity_core::canonical::CanonicalError>(())
/// ```
pub fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CanonicalError> {
    let v = serde_json::to_value(value).map_err(|e| CanonicalError::NotJson(e.to_string()))?;
    canonical_value_bytes(&v)
}

/// RFC 8785 bytes of an already-built JSON value.
pub fn canonical_value_bytes(v: &Value) -> Result<Vec<u8>, CanonicalError> {
    check_numbers(v, &mut String::from("$"))?;
    let mut out = Vec::new();
    if write_plain(v, &mut out) {
        return Ok(out);
    }
    serde_json_canonicalizer::to_vec(v).map_err(|e| CanonicalError::NotJson(e.to_string()))
}

/// Writes `v` in RFC 8785's form where that needs no reordering (issue 24:
/// the general canonicalizer buffers and sorts every object, a fifth of
/// the server hook's own time): integers in decimal, strings with the
/// RFC's escapes, and objects whose keys are ASCII (so their byte order
/// is their UTF-16 order) and met in strictly ascending order (as
/// `serde_json`'s ordered map yields them). `false`, with `out` left
/// partial, for anything else (a float, a key beyond ASCII, a map in
/// another order), which the general canonicalizer then writes whole.
/// The two agree on every value (`canonical::tests`, and the property
/// in `proptests/tests/canonical.rs`).
fn write_plain(v: &Value, out: &mut Vec<u8>) -> bool {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.extend_from_slice(i.to_string().as_bytes());
            } else if let Some(u) = n.as_u64() {
                out.extend_from_slice(u.to_string().as_bytes());
            } else {
                return false;
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if !write_plain(item, out) {
                    return false;
                }
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            let mut previous: Option<&str> = None;
            for (i, (key, item)) in map.iter().enumerate() {
                if !key.is_ascii() || previous.is_some_and(|p| p >= key.as_str()) {
                    return false;
                }
                previous = Some(key);
                if i > 0 {
                    out.push(b',');
                }
                write_string(key, out);
                out.push(b':');
                if !write_plain(item, out) {
                    return false;
                }
            }
            out.push(b'}');
        }
    }
    true
}

/// A string as RFC 8785 writes it (section 3.2.2.2): `"` and `\`
/// escaped, the five control characters with a short escape written so,
/// every other one below U+0020 as `\u00hh` in lowercase hexadecimal, and
/// everything else as is.
fn write_string(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x09 => b"\\t",
            0x0a => b"\\n",
            0x0c => b"\\f",
            0x0d => b"\\r",
            0x00..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Canonical bytes hashed under a domain.
pub fn canonical_digest<T: Serialize + ?Sized>(
    domain: Domain,
    value: &T,
) -> Result<Sha256Digest, CanonicalError> {
    Ok(Sha256Digest::of(domain, &canonical_bytes(value)?))
}

/// Parses JSON text strictly, as every hashed or typed input is read: one
/// value and nothing after it, no duplicate keys, no floats, integers within
/// ±(2^53 − 1). The answer has canonical bytes.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, CanonicalError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let v = match serde::Deserialize::deserialize(&mut de) {
        Ok(StrictValue(v)) => v,
        Err(e) => return Err(strict_error(&e)),
    };
    de.end().map_err(|e| strict_error(&e))?;
    check_numbers(&v, &mut String::from("$"))?;
    Ok(v)
}

/// Parses JSON text strictly ([`parse_strict`]) into a typed document.
pub fn from_slice_strict<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, StrictError> {
    let v = parse_strict(bytes).map_err(StrictError::Text)?;
    serde_json::from_value(v).map_err(|e| StrictError::Shape(e.to_string()))
}

/// Why strict parsing into a typed document failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictError {
    /// The text itself was refused.
    #[error(transparent)]
    Text(CanonicalError),
    /// The JSON does not have the document's shape.
    #[error("{0}")]
    Shape(String),
}

/// Marks the message of a duplicate-key refusal inside serde_json's error,
/// so [`strict_error`] can type it.
const DUPLICATE_MARK: &str = "\u{1}probity-duplicate-key:";

fn strict_error(e: &serde_json::Error) -> CanonicalError {
    let msg = e.to_string();
    if let Some(rest) = msg.strip_prefix(DUPLICATE_MARK) {
        let key = rest.split('\u{1}').next().unwrap_or_default();
        return CanonicalError::DuplicateKey {
            key: key.to_string(),
        };
    }
    if msg.starts_with(OUT_OF_RANGE_MARK) {
        return CanonicalError::IntegerOutOfRange {
            path: format!("line {}, column {}", e.line(), e.column()),
        };
    }
    CanonicalError::InvalidJson(msg)
}

/// Marks an integer literal beyond 64 bits (which serde_json reads as a
/// double) so it is refused as out of range, not as a float.
const OUT_OF_RANGE_MARK: &str = "\u{1}probity-integer-out-of-range";

/// A JSON value read with duplicate keys refused.
struct StrictValue(Value);

impl<'de> serde::Deserialize<'de> for StrictValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        // An integral literal too large for 64 bits arrives as a double.
        if v.fract() == 0.0 && v.abs() > MAX_SAFE_INTEGER as f64 {
            return Err(E::custom(OUT_OF_RANGE_MARK));
        }
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(d).map(|StrictValue(v)| v)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "{DUPLICATE_MARK}{key}\u{1}"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

fn check_numbers(v: &Value, path: &mut String) -> Result<(), CanonicalError> {
    match v {
        Value::Number(n) if n.is_f64() => Err(CanonicalError::Float { path: path.clone() }),
        Value::Number(n) => {
            let in_range = match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.unsigned_abs() <= MAX_SAFE_INTEGER,
                (None, Some(u)) => u <= MAX_SAFE_INTEGER,
                (None, None) => false,
            };
            if in_range {
                Ok(())
            } else {
                Err(CanonicalError::IntegerOutOfRange { path: path.clone() })
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_numbers(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (k, item) in map {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                check_numbers(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_and_strips_whitespace() {
        let v = json!({"b": 1, "a": [true, null, "x"]});
        assert_eq!(
            canonical_value_bytes(&v).unwrap(),
            br#"{"a":[true,null,"x"],"b":1}"#
        );
    }

    #[test]
    fn the_plain_writer_agrees_with_the_canonicalizer_at_the_edges() {
        let every_low: String = (0u8..0x20).map(char::from).collect();
        for v in [
            json!({"s": every_low, "q": "\"\\/\u{7f}\u{2028}\u{e9}\u{1F600}"}),
            json!({"\u{e9}": 1, "z": 2, "a": {"\u{1F600}": [], "\u{ff61}": {}}}),
            json!({"\n\u{0}": [9007199254740991_i64, -9007199254740991_i64, 0, -1]}),
            json!([[], {}, "", null, true, false]),
            json!({"": {"": ""}}),
        ] {
            assert_eq!(
                canonical_value_bytes(&v).unwrap(),
                serde_json_canonicalizer::to_vec(&v).unwrap(),
                "{v}"
            );
        }
        // Only ASCII keys in order are written without the canonicalizer.
        let mut out = Vec::new();
        assert!(!write_plain(&json!({"\u{e9}": 1}), &mut out));
        let mut out = Vec::new();
        assert!(write_plain(&json!({"b": "\u{1F600}", "a": 1}), &mut out));
        assert_eq!(out, "{\"a\":1,\"b\":\"\u{1F600}\"}".as_bytes());
    }

    #[test]
    fn rejects_floats_with_their_path() {
        let v = json!({"a": [1, {"b": 0.5}]});
        assert_eq!(
            canonical_value_bytes(&v),
            Err(CanonicalError::Float {
                path: "$.a[1].b".into()
            })
        );
    }

    #[test]
    fn escapes_per_rfc8785() {
        let v = json!({"s": "\u{7f}é\u{1}\"\\/"});
        assert_eq!(
            String::from_utf8(canonical_value_bytes(&v).unwrap()).unwrap(),
            "{\"s\":\"\u{7f}é\\u0001\\\"\\\\/\"}"
        );
    }

    /// `arbitrary_precision` changes how serde_json represents numbers (and so
    /// what a hash covers). It is a feature any crate in the graph could turn
    /// on; this test fails if one does.
    #[test]
    fn arbitrary_precision_is_off() {
        let v: Value = serde_json::from_str("1e2").unwrap();
        assert_eq!(v.to_string(), "100.0");
        let big: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert!(
            big.is_f64(),
            "integers beyond u64 must not keep their digits"
        );
    }

    #[test]
    fn integers_beyond_the_safe_range_are_refused() {
        // Regression: 2^53 and 2^53 + 1 used to be rounded to one value.
        for bad in [
            json!({"a": 9007199254740992u64}),
            json!({"a": 9007199254740993u64}),
            json!({"a": [-9007199254740992i64]}),
            json!({"a": u64::MAX}),
        ] {
            assert!(
                matches!(
                    canonical_value_bytes(&bad),
                    Err(CanonicalError::IntegerOutOfRange { .. })
                ),
                "{bad}"
            );
        }
        assert_eq!(
            canonical_value_bytes(&json!([9007199254740991u64, -9007199254740991i64])).unwrap(),
            b"[9007199254740991,-9007199254740991]"
        );
    }

    #[test]
    fn strict_parsing_refuses_duplicates_floats_and_big_integers() {
        let code = |t: &str| parse_strict(t.as_bytes()).map_err(|e| e.code());
        assert_eq!(code(r#"{"a":1,"a":1}"#), Err("duplicate_key"));
        assert_eq!(
            code(r#"{"x":{"a":1,"b":{"a":2,"a":3}}}"#),
            Err("duplicate_key")
        );
        assert_eq!(code(r#"{"a":1.5}"#), Err("float"));
        assert_eq!(code(r#"{"a":1.0}"#), Err("float"));
        assert_eq!(code("9007199254740992"), Err("integer_out_of_range"));
        assert_eq!(code("-9007199254740992"), Err("integer_out_of_range"));
        assert_eq!(code("18446744073709551616"), Err("integer_out_of_range"));
        assert_eq!(code("1e300"), Err("integer_out_of_range"));
        assert_eq!(code(r#""\ud800""#), Err("invalid_json"));
        assert_eq!(code("{} {}"), Err("invalid_json"));
        assert_eq!(code("[1,]"), Err("invalid_json"));
        assert!(matches!(
            parse_strict(br#"{"a":1,"a":2}"#),
            Err(CanonicalError::DuplicateKey { key }) if key == "a"
        ));
        assert_eq!(
            parse_strict(br#"{"b":[9007199254740991],"a":"\u00e9"}"#).unwrap(),
            json!({"a": "é", "b": [9007199254740991u64]})
        );
        // The same key in sibling objects is no duplicate.
        assert!(parse_strict(br#"[{"a":1},{"a":2}]"#).is_ok());
    }
}
