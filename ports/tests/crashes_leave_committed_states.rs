//! "Drivers commit each valid intermediate state" (docs/ARCHITECTURE.md,
//! "ports"), as a rule over every driver: each exported driver that
//! replaces a lineage's state (it reaches `ReviewStore::replace`, by
//! ports' call graph) has a test here that runs it on the testkit's
//! `Faulty` store, which crashes a chosen `replace`, and so shows what a
//! crash mid-way leaves. A new replacing driver fails here until such a
//! test exists.

use std::collections::BTreeSet;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../core/tests/common/sources.rs"]
mod sources;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

use callgraph::{test_bodies, test_files};

/// The exported drivers that reach a `replace`.
fn replacers() -> BTreeSet<String> {
    callgraph::drivers_reaching(&[".replace"])
}

/// The names each `#[test]` function that crashes a store calls: one
/// that makes the crashing store itself, or calls a helper of its file
/// that does.
fn crash_tests() -> Vec<(String, BTreeSet<String>)> {
    const CRASHING: &str = "Faulty::new(";
    let mut out = Vec::new();
    for text in test_files() {
        let helpers: BTreeSet<String> = callgraph::free_fn_bodies(&text)
            .into_iter()
            .filter(|(_, body)| body.contains(CRASHING))
            .map(|(name, _)| name)
            .collect();
        out.extend(
            test_bodies(&text)
                .into_iter()
                .filter(|(_, body, called)| {
                    body.contains(CRASHING) || !called.is_disjoint(&helpers)
                })
                .map(|(name, _, called)| (name, called)),
        );
    }
    out
}

#[test]
fn every_replacing_driver_is_crashed_mid_way_by_a_test() {
    let replacers = replacers();
    assert!(replacers.len() >= 5, "found only {replacers:?}");
    let missing = callgraph::uncalled(&replacers, &crash_tests());
    assert!(
        missing.is_empty(),
        "replacing drivers no test here runs on a crashing store: {missing:?}"
    );
}
