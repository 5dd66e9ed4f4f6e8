//! The strict JSON reader behind every hashed document (`parse_strict`,
//! `from_slice_strict`) and RFC 8785 canonicalization. Beyond not
//! panicking: what the reader accepts has canonical bytes (it promises
//! so), those bytes read back to the same value, and canonicalizing them
//! again changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::{canonical_value_bytes, from_slice_strict, parse_strict};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let parsed = parse_strict(data);
    let typed = from_slice_strict::<Value>(data);
    assert_eq!(
        parsed.is_ok(),
        typed.is_ok(),
        "the two strict readers disagree"
    );
    let Ok(value) = parsed else {
        return;
    };
    let canonical =
        canonical_value_bytes(&value).expect("a strictly read value has canonical bytes");
    let again = parse_strict(&canonical).expect("canonical bytes read back");
    assert_eq!(again, value, "canonical bytes read back to another value");
    assert_eq!(
        canonical_value_bytes(&again).as_ref(),
        Ok(&canonical),
        "canonicalization is not idempotent"
    );
});
