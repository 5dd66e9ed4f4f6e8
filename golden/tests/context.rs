//! Golden trees of the two committed entity-context-snapshot examples,
//! byte-pinned, plus schema validation of every emitted JSON document
//! against the project's bundle and (when `PROBITY_UPSTREAM_SCHEMAS` names
//! a directory) against the upstream draft with the seed deltas applied.

use std::collections::BTreeMap;
use std::path::Path;

use probity_core::context::assemble::{Assembly, assemble};
use probity_core::context::input::ContextInput;
use probity_core::context::schema::{self, DocSchema, SchemaSet};
use probity_core::context::types::record_key_raw;
use probity_core::context::verify::{observe, role_for_path, verify};
use serde_json::{Value, json};

const CHANGE_PROPOSAL: &str = include_str!("../../examples/context/change-proposal.json");
const WORK_ITEM: &str = include_str!("../../examples/context/work-item.json");

fn assembled(s: &str) -> Assembly {
    let input: ContextInput = serde_json::from_str(s).unwrap();
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
            probity_core::context::types::HexDigest::of(bytes).hex()
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
    let a = assembled(CHANGE_PROPOSAL);
    insta::assert_snapshot!("change_proposal_tree", render(&a));
}

#[test]
fn work_item_tree_is_byte_pinned() {
    let a = assembled(WORK_ITEM);
    insta::assert_snapshot!("work_item_tree", render(&a));
}

/// (schema, document) for every JSON document of a tree.
fn documents(a: &Assembly) -> Vec<(DocSchema, String, Value)> {
    let mut docs = Vec::new();
    for (path, bytes) in a.tree.files() {
        let schema = match path.as_str() {
            "index.json" => DocSchema::Index,
            p => match role_for_path(p) {
                Some("collection") => DocSchema::Collection,
                Some("entity_metadata") => DocSchema::Entity,
                Some("reviews") => DocSchema::Reviews,
                Some("agent_runs") => DocSchema::AgentRuns,
                Some("check_metadata") => DocSchema::Check,
                Some("actor_state") => DocSchema::ActorState,
                Some("thread_state") => DocSchema::ThreadState,
                _ => continue,
            },
        };
        docs.push((schema, path.clone(), serde_json::from_slice(bytes).unwrap()));
    }
    docs
}

#[test]
fn every_emitted_document_validates_against_the_bundle() {
    let set = schema::bundle().unwrap();
    for ex in [CHANGE_PROPOSAL, WORK_ITEM] {
        let a = assembled(ex);
        let docs = documents(&a);
        assert_eq!(docs.iter().filter(|d| d.0 == DocSchema::Index).count(), 1);
        for (schema, path, doc) in docs {
            set.validate(schema, &doc)
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        }
        verify(&observe(a.tree.files()), &a.index_digest).unwrap();
    }
}

/// The documented seed deltas (docs/context.md, "Upstream draft"), applied
/// to the upstream draft bundle in memory:
/// 1. `collection.json` gains the required `admission.human_min_role`
///    (`triage` or `write`).
///
/// The other two seed changes (bots admitted only through a registered bot
/// role; the entity body passing the same authorization rule) change
/// producer behaviour, not any schema.
fn apply_seed_deltas(files: &mut BTreeMap<String, Value>) {
    let c = files
        .get_mut("collection.schema.json")
        .expect("upstream collection.schema.json");
    c["properties"]["admission"] = json!({
        "type": "object",
        "required": ["human_min_role"],
        "properties": {"human_min_role": {"enum": ["triage", "write"]}},
        "additionalProperties": false
    });
    c["required"]
        .as_array_mut()
        .expect("required array")
        .push(json!("admission"));
}

#[test]
fn emitted_documents_validate_against_the_upstream_draft() {
    let Some(dir) = std::env::var_os("PROBITY_UPSTREAM_SCHEMAS") else {
        println!("skipped: PROBITY_UPSTREAM_SCHEMAS is not set (upstream draft not checked)");
        return;
    };
    let dir = Path::new(&dir);
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".schema.json") {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            files.insert(name, v);
        }
    }
    assert_eq!(files.len(), 9, "the upstream draft has nine schema files");
    // Without the delta, our collection.json is (correctly) refused.
    let raw = SchemaSet::load(&files).unwrap();
    let a = assembled(WORK_ITEM);
    let collection: Value = serde_json::from_slice(a.tree.get("collection.json").unwrap()).unwrap();
    assert!(raw.validate(DocSchema::Collection, &collection).is_err());

    apply_seed_deltas(&mut files);
    let upstream = SchemaSet::load(&files).unwrap();
    let mut checked = 0;
    for ex in [CHANGE_PROPOSAL, WORK_ITEM] {
        for (schema, path, doc) in documents(&assembled(ex)) {
            upstream
                .validate(schema, &doc)
                .unwrap_or_else(|e| panic!("upstream {path}: {e}"));
            checked += 1;
        }
    }
    println!(
        "validated {checked} documents against the upstream draft in {}",
        dir.display()
    );
}
