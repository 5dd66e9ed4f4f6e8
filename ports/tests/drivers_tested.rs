//! "Each review driver family has its test file under `ports/tests/` on
//! the testkit's in-memory adapters (the forge and snapshot drivers are
//! tested in their modules, over scripted ports)" (docs/ARCHITECTURE.md,
//! "ports"), read from the sources: every module of `ports::review` that
//! exports a driver (a function, in `src/review/mod.rs`'s `pub use`) has
//! drivers called by a test file here that runs on `probity_testkit`; each
//! exported driver is called there, bar [`THROUGH_THE_BINARY`], exactly;
//! and the forge and snapshot modules hold their own tests.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../core/tests/common/sources.rs"]
mod sources;

#[allow(dead_code)] // each test file uses part of it
#[path = "callgraph/mod.rs"]
mod callgraph;

/// Exported drivers no file here calls: the command-line tests reach them
/// through the binary (`evidence_tree`: `evidence_tree_cli.rs`; the amend
/// gate inside `git commit --amend`; the signature and statement helpers through the server gate's
/// policy). A new driver belongs in a test here, not in this list.
const THROUGH_THE_BINARY: &[&str] = &[
    "evidence_tree",
    "validate_pre_commit_amend",
    "verified_keys",
    "record_statement",
    "statements_to_vouch_for",
];

/// Whether `source` calls `name` (`name(` or `name::<..>(`, as a word).
fn calls(source: &str, name: &str) -> bool {
    source.match_indices(name).any(|(at, _)| {
        let before = source[..at].chars().next_back();
        let after = &source[at + name.len()..];
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && (after.starts_with('(') || after.starts_with("::<"))
    })
}

#[test]
fn every_driver_family_is_tested_here_on_the_testkit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mod_rs = std::fs::read_to_string(root.join("src/review/mod.rs")).unwrap();
    let drivers = callgraph::exported_functions(&mod_rs);
    assert!(drivers.len() > 30, "found only {} drivers", drivers.len());
    let common = std::fs::read_to_string(root.join("tests/common/mod.rs")).unwrap();
    let mut tests = Vec::new();
    for e in std::fs::read_dir(root.join("tests")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            // On the testkit: directly, or through the shared scenario.
            let on_testkit = text.contains("probity_testkit")
                || (text.contains("mod common;") && common.contains("probity_testkit"));
            if on_testkit {
                tests.push(text);
            }
        }
    }
    // The shared scenario's helpers call drivers for the tests using them.
    if common.contains("probity_testkit") {
        tests.push(common.clone());
    }
    let called = |name: &str| tests.iter().any(|t| calls(t, name));
    let families: BTreeSet<&str> = drivers.iter().map(|(m, _)| m.as_str()).collect();
    let untested_families: Vec<&&str> = families
        .iter()
        .filter(|m| !drivers.iter().any(|(dm, f)| dm == *m && called(f)))
        .collect();
    assert!(
        untested_families.is_empty(),
        "driver families no test under ports/tests calls: {untested_families:?}"
    );
    let uncalled: Vec<&str> = drivers
        .iter()
        .map(|(_, f)| f.as_str())
        .filter(|f| !called(f))
        .collect();
    assert_eq!(
        uncalled, THROUGH_THE_BINARY,
        "the drivers no test here calls are not the listed ones"
    );
    // The forge and snapshot drivers: tested in their modules.
    let forge = std::fs::read_to_string(root.join("src/forge/tests.rs")).unwrap();
    let snapshot = std::fs::read_to_string(root.join("src/snapshot.rs")).unwrap();
    assert!(forge.matches("#[test]").count() >= 3);
    assert!(snapshot.contains("#[cfg(test)]\nmod tests") && snapshot.contains("#[test]"));
}

#[test]
fn the_reader_sees_groups_and_calls() {
    let mod_rs =
        "pub use a::{Kind, one, two};\npub use b::three;\npub use probity_core::review::x;\n";
    assert_eq!(
        callgraph::exported_functions(mod_rs),
        [
            ("a".to_string(), "one".to_string()),
            ("a".to_string(), "two".to_string()),
            ("b".to_string(), "three".to_string()),
        ]
    );
    assert!(calls("drivers::one(&g)", "one"));
    assert!(calls("x = one::<G>(g)", "one"));
    assert!(!calls("someone(g)", "one"));
    assert!(!calls("let one = 1;", "one"));
}
