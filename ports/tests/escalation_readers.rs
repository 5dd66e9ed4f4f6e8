//! "A gate walks no lineage of the user's store" (docs/ARCHITECTURE.md,
//! "store"): the one listing a gate could reach is the escalation index
//! (`IndexStore::lookup_escalations`, which names lineages to read). Read
//! from ports' shipped sources as a call graph by name: the exported
//! drivers that reach that listing are exactly [`READERS`], each with why.
//! A new caller fails here until it is argued; a listed one that no longer
//! reaches it fails too, so the list stays the truth. The binary and the
//! MCP server call the listing only through those drivers.
//!
//! The graph is by function name (same-named functions merged), so it
//! over-approximates: a driver it does not list cannot reach the listing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../core/tests/common/sources.rs"]
mod sources;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

use callgraph::{call_graph, exported_drivers, ports_graph, reaching, rust_files};

/// The exported drivers that read the escalation index, and why.
const READERS: &[(&str, &str)] = &[
    (
        "start",
        "the escalation guard: a new candidate may not side-step an escalated change",
    ),
    ("start_commit", "the same guard for `start --commit`"),
    ("start_history", "the same guard for `start --history`"),
    (
        "start_range",
        "the same guard for each commit of `start --range`",
    ),
    (
        "validate_pre_commit",
        "a denial names the authorized recovery of an escalated change it covers (advice after the decision, never an allow)",
    ),
    (
        "validate_pre_commit_amend",
        "the same advice for `git commit --amend`",
    ),
    (
        "validate_pre_commit_between",
        "the same advice; the pre-commit gate with a test's seam",
    ),
];

/// Calls that do not pass the listing on: the index's own delegating
/// impls, and the recheck's replay, which re-asks only what the decision
/// it checks asked (so it reaches the listing only through a caller that
/// already does).
const NOT_EDGES: &[&str] = &[".lookup_escalations", ".ask"];

#[test]
fn only_the_argued_drivers_reach_the_escalation_listing() {
    let reach = reaching(&ports_graph(), ".lookup_escalations", NOT_EDGES);
    let drivers = exported_drivers();
    let found: BTreeSet<&str> = drivers
        .iter()
        .filter(|d| reach.contains(*d))
        .map(String::as_str)
        .collect();
    let listed: BTreeSet<&str> = READERS.iter().map(|(d, _)| *d).collect();
    assert_eq!(
        found, listed,
        "the exported drivers that reach `lookup_escalations` (left) must be exactly the argued ones (right)"
    );
}

#[test]
fn the_graph_follows_helpers_and_ignores_declarations_and_tests() {
    let planted = "trait T { fn lookup_escalations(&self) -> R; }\n\
                   fn helper<S: T>(s: &S) { for l in s.lookup_escalations() {} }\n\
                   pub fn gate<S: T>(s: &S) { let x = helper::<S>(s); }\n\
                   pub fn other<S: T>(s: &S) { s.get(); }\n\
                   pub fn ranged(r: R) { r.gate(); Walk::gate(r); }\n\
                   #[cfg(test)]\nmod tests { fn sneaky() { other(); s.lookup_escalations(); } }\n";
    let mut graph = BTreeMap::new();
    call_graph(&shipped::shipped_code(planted), &mut graph);
    let reach = reaching(&graph, ".lookup_escalations", NOT_EDGES);
    assert!(
        reach.contains("helper") && reach.contains("gate"),
        "{reach:?}"
    );
    assert!(
        !reach.contains("other") && !reach.contains("sneaky") && !reach.contains("ranged"),
        "a method call of the same name is not a call of the function: {reach:?}"
    );
}

#[test]
fn the_binary_and_the_mcp_server_reach_the_listing_only_through_the_drivers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in ["adapters/cli/src", "adapters/mcp/src"] {
        let mut files = Vec::new();
        rust_files(&root.join(dir), &mut files);
        assert!(!files.is_empty(), "no sources under {dir}");
        for f in files {
            let code = shipped::shipped_code(&std::fs::read_to_string(&f).unwrap());
            let mut graph = BTreeMap::new();
            call_graph(&code, &mut graph);
            let direct: Vec<&String> = graph
                .iter()
                .filter(|(_, called)| called.contains(".lookup_escalations"))
                .map(|(name, _)| name)
                .collect();
            assert!(
                direct.is_empty(),
                "{}: {direct:?} list the escalation index",
                f.display()
            );
        }
    }
}
