//! Golden trees of the two committed entity-context-snapshot examples,
//! byte-pinned, plus schema validation of every emitted JSON document
//! against the project's bundle and (when `PROBITY_UPSTREAM_SCHEMAS` names
//! a directory) against the upstream draft with the seed deltas applied,
//! through the check `support/upstream_draft.rs` shares with the CLI's
//! fetch tests.

#[path = "support/upstream_draft.rs"]
mod upstream_draft;

use std::collections::BTreeMap;

use probity_core::context::Assembly;
use probity_core::context::ContextInput;
use probity_core::context::DocSchema;
use probity_core::context::observe;
use probity_core::context::record_key_raw;
use probity_ports::context::{assemble, verify};
use probity_ports::schemas as schema;
use serde_json::Value;
use upstream_draft::Upstream;

const CHANGE_PROPOSAL: &str = include_str!("../../examples/context/change-proposal.json");
const WORK_ITEM: &str = include_str!("../../examples/context/work-item.json");

/// Assembled under the current filter version (`probity-filter/6`).
fn assembled(s: &str) -> Assembly {
    let input: ContextInput = serde_json::from_str(s).unwrap();
    assemble(&input).unwrap()
}

/// Assembled under `probity-filter/5`, as the input may ask (D-R73): the
/// bytes pinned before version 6 existed, unchanged.
fn assembled_v5(s: &str) -> Assembly {
    let mut input: ContextInput = serde_json::from_str(s).unwrap();
    input.filter_version = Some("probity-filter/5".to_owned());
    assemble(&input).unwrap()
}

/// Assembled under `probity-filter/4`, as the input may ask (D-R73): the
/// bytes pinned before version 5 existed, unchanged.
fn assembled_v4(s: &str) -> Assembly {
    let mut input: ContextInput = serde_json::from_str(s).unwrap();
    input.filter_version = Some("probity-filter/4".to_owned());
    assemble(&input).unwrap()
}

/// Every file with its size and digest, then its exact text.
fn render(a: &Assembly) -> String {
    let mut out = format!("index_digest: {}\n", a.index_digest.hex());
    for (path, bytes) in a.tree.files() {
        let text = String::from_utf8(bytes.clone()).unwrap();
        out.push_str(&format!(
            "=== {path} ({} bytes, sha256 {})\n{text}\n",
            bytes.len(),
            probity_core::context::HexDigest::of(bytes).hex()
        ));
    }
    out
}

#[test]
fn seed_record_key_vector() {
    assert_eq!(
        record_key_raw(
            "github://github.com",
            "R_kgDOExample",
            "comment",
            "IC_kwDOExample"
        )
        .hex(),
        "c73645a72a9c5de28d71e3e1efe235b9a5d02ee6dfe7dc0ef06cf3d0e5ee3421"
    );
}

#[test]
fn change_proposal_tree_is_byte_pinned() {
    let a = assembled_v4(CHANGE_PROPOSAL);
    insta::assert_snapshot!("change_proposal_tree", render(&a));
}

#[test]
fn work_item_tree_is_byte_pinned() {
    let a = assembled_v4(WORK_ITEM);
    insta::assert_snapshot!("work_item_tree", render(&a));
}

#[test]
fn change_proposal_tree_v5_is_byte_pinned() {
    let a = assembled_v5(CHANGE_PROPOSAL);
    insta::assert_snapshot!("change_proposal_tree_v5", render(&a));
}

#[test]
fn work_item_tree_v5_is_byte_pinned() {
    let a = assembled_v5(WORK_ITEM);
    insta::assert_snapshot!("work_item_tree_v5", render(&a));
}

#[test]
fn change_proposal_tree_v6_is_byte_pinned() {
    let a = assembled(CHANGE_PROPOSAL);
    insta::assert_snapshot!("change_proposal_tree_v6", render(&a));
}

#[test]
fn work_item_tree_v6_is_byte_pinned() {
    let a = assembled(WORK_ITEM);
    insta::assert_snapshot!("work_item_tree_v6", render(&a));
}

/// A tree of every supported version verifies (D-R73), and the index
/// names the version it was assembled under.
#[test]
fn trees_of_every_filter_version_verify() {
    for ex in [CHANGE_PROPOSAL, WORK_ITEM] {
        for (a, want) in [
            (assembled_v4(ex), "probity-filter/4"),
            (assembled_v5(ex), "probity-filter/5"),
            (assembled(ex), "probity-filter/6"),
        ] {
            let index: Value = serde_json::from_slice(a.tree.get("index.json").unwrap()).unwrap();
            assert_eq!(index["filter_version"], want);
            verify(&observe(a.tree.files()), &a.index_digest).unwrap();
        }
    }
}

/// Every file of an assembled tree, by path.
fn files(a: &Assembly) -> BTreeMap<String, Vec<u8>> {
    a.tree.files().clone()
}

#[test]
fn every_emitted_document_validates_against_the_bundle() {
    let set = schema::bundle().unwrap();
    for a in [CHANGE_PROPOSAL, WORK_ITEM]
        .into_iter()
        .flat_map(|ex| [assembled(ex), assembled_v4(ex)])
    {
        let docs = upstream_draft::documents(&files(&a));
        assert_eq!(docs.iter().filter(|d| d.0 == DocSchema::Index).count(), 1);
        for (schema, path, doc) in docs {
            set.validate(schema, &doc)
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        }
        verify(&observe(a.tree.files()), &a.index_digest).unwrap();
    }
}

/// The upstream draft with the documented deltas (the shared check in
/// `support/upstream_draft.rs`, which the CLI's fetch tests run on every
/// fetched tree too): without the deltas our `collection.json` is refused;
/// with them every emitted document of both examples validates.
#[test]
fn emitted_documents_validate_against_the_upstream_draft() {
    let Some(upstream) = Upstream::from_env() else {
        upstream_draft::report_skip("the two examples");
        return;
    };
    let a = assembled(WORK_ITEM);
    let collection: Value = serde_json::from_slice(a.tree.get("collection.json").unwrap()).unwrap();
    assert!(
        upstream
            .raw
            .validate(DocSchema::Collection, &collection)
            .is_err()
    );
    let mut checked = 0;
    for (name, ex) in [
        ("change-proposal", CHANGE_PROPOSAL),
        ("work-item", WORK_ITEM),
    ] {
        checked += upstream.check_tree(name, &files(&assembled(ex)));
        let both = upstream_draft::validate_tree(name, &files(&assembled(ex)));
        assert_eq!(both.upstream, Some(both.bundle));
    }
    println!(
        "validated {checked} documents against the upstream draft in {}",
        upstream.dir.display()
    );
}
