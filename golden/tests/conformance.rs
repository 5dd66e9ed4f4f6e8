//! The conformance vectors in `conformance/` are exactly what the code
//! emits: a changed byte fails here (a changed document needs a new domain
//! version, and new vector files). To write the files after an intended
//! change: `PROBITY_CONFORMANCE=write cargo test -p probity-golden --test
//! conformance`.

use std::path::PathBuf;

use probity_core::conformance::{VERSION, jsonl, refusals, vectors};
use probity_core::context::ContextInput;
use probity_ports::context::assemble;

const CHANGE_PROPOSAL: &str = include_str!("../../examples/context/change-proposal.json");
const WORK_ITEM: &str = include_str!("../../examples/context/work-item.json");

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

fn emitted() -> Vec<(String, String)> {
    // The vectors were pinned under `probity-filter/4`; the input keeps
    // asking for it, so they stay byte-identical (D-R73).
    let parse = |s: &str| -> ContextInput {
        let mut input: ContextInput = serde_json::from_str(s).unwrap();
        input.filter_version = Some("probity-filter/4".to_owned());
        input
    };
    let cp = assemble(&parse(CHANGE_PROPOSAL)).unwrap();
    let wi = assemble(&parse(WORK_ITEM)).unwrap();
    let v = vectors(&[("change-proposal-example", &cp), ("work-item-example", &wi)]).unwrap();
    let r = refusals().unwrap();
    vec![
        (format!("vectors-{VERSION}.jsonl"), jsonl(&v).unwrap()),
        (format!("refusals-{VERSION}.jsonl"), jsonl(&r).unwrap()),
    ]
}

#[test]
fn vector_files_are_what_the_code_emits() {
    let write = std::env::var("PROBITY_CONFORMANCE").as_deref() == Ok("write");
    for (name, text) in emitted() {
        let path = dir().join(&name);
        if write {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (emit with PROBITY_CONFORMANCE=write)",
                path.display()
            )
        });
        for (i, (a, b)) in committed.lines().zip(text.lines()).enumerate() {
            assert_eq!(
                a,
                b,
                "{name} line {} differs from what the code emits",
                i + 1
            );
        }
        assert_eq!(
            committed.lines().count(),
            text.lines().count(),
            "{name}: line count differs"
        );
        assert_eq!(committed, text, "{name}");
    }
}

#[test]
fn every_hashed_kind_has_a_vector() {
    let (_, text) = &emitted()[0];
    for kind in [
        "state_revision",
        "receipt",
        "lens_binding",
        "paths_digest",
        "evidence_hash",
        "fix_delta_hash",
        "policy_hash",
        "lineage_id",
        "accepted_results",
        "target_identity",
        "candidate_manifest",
        "intoto_statement",
        "record_key",
        "context_root_index",
        "dsse_pae",
        "lens_binding_token",
        "command_evidence",
        "delta_identity",
        "delta_entry",
        "bundle_digest",
    ] {
        assert!(
            text.contains(&format!("\"kind\":\"{kind}\"")),
            "no vector of kind {kind}"
        );
    }
}

fn readme() -> String {
    std::fs::read_to_string(dir().join("README.md")).unwrap()
}

/// `conformance/README.md` is enough to check the vectors without reading
/// Rust (issue 23 §5): it names every kind the vector file holds, the
/// any-language outline handles every encoding (`dsse_pae` included), the
/// refusals section names every error code and the refusals `-0` and the
/// nesting limit, and its lens table gives each lens's order and prefix as
/// the code has them.
#[test]
fn the_readme_names_every_kind_encoding_refusal_and_the_lens_table() {
    use probity_core::review::Lens;
    let readme = readme();
    let (_, vectors) = &emitted()[0];
    let (_, refusals) = &emitted()[1];
    let mut kinds = std::collections::BTreeSet::new();
    let mut encodings = std::collections::BTreeSet::new();
    for line in vectors.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        kinds.insert(v["kind"].as_str().unwrap().to_string());
        encodings.insert(v["encoding"].as_str().unwrap().to_string());
    }
    for kind in &kinds {
        assert!(
            readme.contains(&format!("`{kind}`")),
            "README: no kind `{kind}`"
        );
    }
    let outline = readme
        .split("Any language, in outline:")
        .nth(1)
        .expect("README: the any-language outline");
    for enc in &encodings {
        assert!(
            outline.contains(enc.as_str()),
            "the outline does not handle `{enc}`"
        );
    }
    let refusal_section = readme
        .split("## Refusals")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README: a Refusals section");
    for line in refusals.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let code = r["error"].as_str().unwrap();
        assert!(
            refusal_section.contains(&format!("`{code}`")),
            "README: no refusal code `{code}`"
        );
    }
    for named in ["`-0`", "128"] {
        assert!(
            refusal_section.contains(named),
            "README's refusals do not name {named}"
        );
    }
    // The lens table: one row per lens, `| lens | order | prefix |`.
    for (i, lens) in Lens::CANONICAL.iter().enumerate() {
        let row = format!("| `{}` | {} | `{}` |", lens.name(), i + 1, lens.prefix());
        assert!(readme.contains(&row), "README: no lens row {row}");
    }
}
