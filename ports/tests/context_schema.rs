//! The normative v1 bundle behind core's schema port: the assembler's
//! output validates against it, and the verifier refuses a tree whose
//! document breaks it (the bundle and its engine live in probity-ports so
//! core stays pure).

use probity_core::context::ContextInput;
use probity_core::context::HexDigest;
use probity_core::context::{VerifyError, observe};
use probity_ports::context::{assemble, verify};
use serde_json::{Value, json};

const WORK_ITEM: &str = include_str!("../../examples/context/work-item.json");

#[test]
fn a_tree_whose_document_breaks_the_bundle_is_refused() {
    let input: ContextInput = serde_json::from_str(WORK_ITEM).unwrap();
    let a = assemble(&input).unwrap();
    verify(&observe(a.tree.files()), &a.index_digest).unwrap();
    let mut files = a.tree.files().clone();
    let bad = br#"{"actors":[],"extra":true}"#.to_vec();
    files.insert("state/actors.json".into(), bad.clone());
    let mut idx: Value = serde_json::from_slice(&files["index.json"]).unwrap();
    for f in idx["files"].as_array_mut().unwrap() {
        if f["path"] == "state/actors.json" {
            f["bytes"] = json!(bad.len());
            f["sha256"] = json!(HexDigest::of(&bad).hex());
        }
    }
    let idx_bytes = probity_core::canonical::canonical_value_bytes(&idx).unwrap();
    let d = HexDigest::of(&idx_bytes);
    files.insert("index.json".into(), idx_bytes);
    assert!(matches!(
        verify(&observe(&files), &d),
        Err(VerifyError::Schema { ref path, .. }) if path == "state/actors.json"
    ));
}
