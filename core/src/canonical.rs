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

/// Why a value has no canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// Hashed documents never carry floats: their rendering is not stable
    /// across encoders.
    #[error("hashed documents must not contain floating-point numbers (at {path})")]
    Float { path: String },
    /// The value could not be represented as JSON at all.
    #[error("value is not representable as JSON: {0}")]
    NotJson(String),
}

/// Serializes `value` to RFC 8785 canonical JSON bytes.
pub fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CanonicalError> {
    let v = serde_json::to_value(value).map_err(|e| CanonicalError::NotJson(e.to_string()))?;
    canonical_value_bytes(&v)
}

/// RFC 8785 bytes of an already-built JSON value.
pub fn canonical_value_bytes(v: &Value) -> Result<Vec<u8>, CanonicalError> {
    reject_floats(v, &mut String::from("$"))?;
    serde_json_canonicalizer::to_vec(v).map_err(|e| CanonicalError::NotJson(e.to_string()))
}

/// Canonical bytes hashed under a domain.
pub fn canonical_digest<T: Serialize + ?Sized>(
    domain: Domain,
    value: &T,
) -> Result<Sha256Digest, CanonicalError> {
    Ok(Sha256Digest::of(domain, &canonical_bytes(value)?))
}

fn reject_floats(v: &Value, path: &mut String) -> Result<(), CanonicalError> {
    match v {
        Value::Number(n) if n.is_f64() => Err(CanonicalError::Float { path: path.clone() }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                reject_floats(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (k, item) in map {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                reject_floats(item, path)?;
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
}
