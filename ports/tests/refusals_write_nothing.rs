//! "Drivers parse every input before the first write" (docs/
//! ARCHITECTURE.md, "ports"), as a rule over every driver: each exported
//! driver that can write (it reaches a write of a store or of Git, by
//! ports' call graph) has a test here, on the testkit's adapters, that
//! calls it (itself or through the tests' helpers) and compares the
//! store's `dump()` before and after a refusal.
//! A new writing driver fails here until such a test exists.

use std::collections::BTreeSet;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../core/tests/common/sources.rs"]
mod sources;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

/// The port methods that write (the store's records, indexes, receipts,
/// results, transcripts, attestations and repairs; Git's notes and kept
/// trees).
const WRITES: &[&str] = &[
    ".create",
    ".replace",
    ".create_successor",
    ".index_delta",
    ".ensure_projections",
    ".submit_result",
    ".keep_transcript",
    ".add_attestations",
    ".add_evidence",
    ".quarantine",
    ".consume",
    ".write_notes",
    ".keep_trees",
];

/// The exported drivers that reach a write.
fn writers() -> BTreeSet<String> {
    callgraph::drivers_reaching(WRITES)
}

/// The drivers each test function of ports' tests checks against the
/// store (see `callgraph::test_bodies`), for every `#[test]` function
/// that compares the store's `dump()` with one taken before (two dumps) or
/// with an empty one (a fresh store's `.dump().is_empty()`).
fn dump_tests() -> Vec<(String, BTreeSet<String>)> {
    callgraph::test_files()
        .iter()
        .flat_map(|t| checked_bodies(t))
        .collect()
}

/// (test, the names its body calls, itself or through the file's free
/// functions) for every `#[test]` function of `text` that compares a dump
/// of the store.
fn checked_bodies(text: &str) -> Vec<(String, BTreeSet<String>)> {
    callgraph::test_bodies(text)
        .into_iter()
        .filter(|(_, body, _)| {
            body.matches(".dump()").count() >= 2 || body.contains(".dump().is_empty()")
        })
        .map(|(name, _, called)| (name, called))
        .collect()
}

#[test]
fn every_writing_driver_has_a_refusal_that_writes_nothing() {
    let writers = writers();
    assert!(
        writers.len() >= 10,
        "found only {} writing drivers: {writers:?}",
        writers.len()
    );
    let missing = callgraph::uncalled(&writers, &dump_tests());
    assert!(
        missing.is_empty(),
        "writing drivers no test here refuses with the store's dump compared: {missing:?}"
    );
}

#[test]
fn only_a_test_that_compares_the_store_names_its_driver() {
    let planted = "#[test]\nfn t() {\n    let w = world();\n    let held = store.dump();\n    \
                   assert!(drivers::finalize(bad).is_err());\n    assert_eq!(store.dump(), held);\n}\n\
                   #[test]\nfn fresh() {\n    assert!(drivers::import_notes(x).is_err());\n    \
                   assert!(scratch.dump().is_empty());\n}\n\
                   #[test]\nfn once() {\n    let held = store.dump();\n    publish();\n}\n\
                   fn validate(w: &W) { drivers::validate_correction(w) }\n\
                   #[test]\nfn helped() {\n    let held = w.dump();\n    w.start();\n    \
                   validate(&w);\n    assert_eq!(w.dump(), held);\n}\n";
    let checked = checked_bodies(planted);
    let names: Vec<&str> = checked.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["t", "fresh", "helped"]);
    assert!(checked[0].1.contains("finalize") && !checked[0].1.contains("start"));
    assert!(checked[1].1.contains("import_notes"));
    assert!(
        checked[2].1.contains("validate_correction"),
        "a local helper is followed"
    );
    assert!(
        !checked[2].1.contains("start"),
        "a method of the world is not"
    );
}
