//! "Drivers commit each valid intermediate state" (docs/ARCHITECTURE.md,
//! "ports"), as a rule over every driver: each exported driver that
//! replaces a lineage's state (it reaches `ReviewStore::replace`, by
//! ports' call graph) has a test here that runs it on the testkit's
//! `Faulty` store, which crashes a chosen `replace`, and so shows what a
//! crash mid-way leaves; or it is one of [`ELSEWHERE`], with the test that
//! does. A new replacing driver fails here until such a test exists.

use std::collections::BTreeSet;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

use callgraph::{exported_drivers, ports_graph, reached_from, test_bodies, test_files};

/// Replacing drivers whose crash tests run elsewhere: (driver, where, why).
const ELSEWHERE: &[(&str, &str, &str)] = &[];

/// The exported drivers that reach a `replace`.
fn replacers() -> BTreeSet<String> {
    let graph = ports_graph();
    exported_drivers()
        .into_iter()
        .filter(|d| reached_from(&graph, d).contains(".replace"))
        .collect()
}

/// The names each `#[test]` function that crashes a store calls.
fn crash_tests() -> Vec<(String, BTreeSet<String>)> {
    test_files()
        .iter()
        .flat_map(|t| test_bodies(t))
        .filter(|(_, body, _)| body.contains("Faulty::new("))
        .map(|(name, _, called)| (name, called))
        .collect()
}

#[test]
fn every_replacing_driver_is_crashed_mid_way_by_a_test() {
    let replacers = replacers();
    assert!(replacers.len() >= 5, "found only {replacers:?}");
    let tests = crash_tests();
    let elsewhere: BTreeSet<&str> = ELSEWHERE.iter().map(|(d, _, _)| *d).collect();
    let missing: Vec<&String> = replacers
        .iter()
        .filter(|d| !elsewhere.contains(d.as_str()))
        .filter(|d| !tests.iter().any(|(_, called)| called.contains(*d)))
        .collect();
    assert!(
        missing.is_empty(),
        "replacing drivers no test here runs on a crashing store: {missing:?}"
    );
}
