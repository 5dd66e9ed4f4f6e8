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
    assembled_under(s, None)
}

/// Assembled under the filter `version` the input may ask for (D-R73), or
/// the current one (`None`).
fn assembled_under(s: &str, version: Option<&str>) -> Assembly {
    let mut input: ContextInput = serde_json::from_str(s).unwrap();
    input.filter_version = version.map(str::to_owned);
    assemble(&input).unwrap()
}

/// The filter versions the trees are pinned under: the version the input
/// asks for (`None`: the current one), the version the index names, and
/// the suffix of its snapshots. The bytes pinned under each version before
/// the next existed stay unchanged.
const VERSIONS: [(Option<&str>, &str, &str); 3] = [
    (Some("probity-filter/4"), "probity-filter/4", ""),
    (Some("probity-filter/5"), "probity-filter/5", "_v5"),
    (None, "probity-filter/6", "_v6"),
];

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

/// Each example's tree under each filter version, byte for byte.
#[test]
fn trees_are_byte_pinned() {
    for (tree, ex) in [
        ("change_proposal_tree", CHANGE_PROPOSAL),
        ("work_item_tree", WORK_ITEM),
    ] {
        for (version, _, suffix) in VERSIONS {
            let a = assembled_under(ex, version);
            insta::assert_snapshot!(format!("{tree}{suffix}"), render(&a));
        }
    }
}

/// A tree of every supported version verifies (D-R73), and the index
/// names the version it was assembled under.
#[test]
fn trees_of_every_filter_version_verify() {
    for ex in [CHANGE_PROPOSAL, WORK_ITEM] {
        for (version, want, _) in VERSIONS {
            let a = assembled_under(ex, version);
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
        .flat_map(|ex| [assembled(ex), assembled_under(ex, VERSIONS[0].0)])
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
