//! "ports decides nothing" (docs/ARCHITECTURE.md), as a lint: the drivers
//! sequence port calls and core's decisions, so no shipped ports code names
//! a variant of what core decides with (a review stage, a gate's decision,
//! reason, stage or next action, an applicability, a recovery disposition,
//! a risk tier). Matching on one of those, or building one, is a rule; a
//! rule belongs in core, behind a function a driver calls. Unit tests
//! (items attributed `#[cfg(test)]`), comments and literals are not
//! shipped code; the code after a test item is.
//!
//! Nor may shipped ports code import one of those types under an alias,
//! or glob-import a module of core, so a variant cannot be named without
//! its path either.
//!
//! A decision is still read (`GateDecision::allows`, `proven_by`, …) and
//! rewritten only by core (`explained`, `prefaced` and `overruled_by` are
//! crate-private there), so this lint and the type system together keep
//! the rules in one place.

use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../core/tests/common/shipped.rs"]
mod shipped;

/// The variant paths of core's decision types.
const DECIDING: &[&str] = &[
    "Stage::",
    "Decision::",
    "ReasonCode::",
    "NextAction::",
    "GateStage::",
    "Applicability::",
    "Disposition::",
    "RiskLevel::",
    "EvidenceVerdict::",
    "NextInput::",
    "UpdateShape::",
    "RangeProblem::",
    "Resumable::",
    "RepairClass::",
    "TransitionError::",
];

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// Where shipped code names a deciding variant: `(line, token)` per hit.
fn deciding_names(src: &str) -> Vec<(usize, &'static str)> {
    let mut hits = Vec::new();
    // Comments, literals and `#[cfg(test)]` items blanked; the code after
    // a test item is read too.
    let shipped = shipped::shipped_code(src);
    for (i, line) in shipped.lines().enumerate() {
        let code = line.trim_start();
        for token in DECIDING {
            // `GateDecision::` or `PrDecision::` are types of the driver's
            // own answer, not core's `Decision`.
            // A variant is capitalised (`Stage::Approved`); an associated
            // function (`TransitionError::from`) is not one.
            let at = code.match_indices(token).any(|(at, _)| {
                !code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    && code[at + token.len()..].starts_with(|c: char| c.is_ascii_uppercase())
            });
            if at {
                hits.push((i + 1, *token));
            }
        }
    }
    hits
}

/// The names `DECIDING` paths start with.
fn deciding_types() -> Vec<&'static str> {
    DECIDING.iter().map(|t| t.trim_end_matches("::")).collect()
}

/// The `use` declarations of shipped code (before `#[cfg(test)]`) that
/// import a deciding type under another name, or glob-import a module of
/// core (either would let a variant be named without its type's path; a
/// plain import, to name the type in a signature, is fine: its variants
/// still carry the path the scan above looks for).
fn deciding_imports(src: &str) -> Vec<String> {
    let shipped = shipped::shipped_code(src);
    let mut hits = Vec::new();
    let mut statement = String::new();
    for line in shipped.lines() {
        let code = line.trim();
        if statement.is_empty() && !(code.starts_with("use ") || code.starts_with("pub use ")) {
            continue;
        }
        statement.push_str(code);
        statement.push(' ');
        if !code.ends_with(';') {
            continue;
        }
        let words: Vec<&str> = statement
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .collect();
        // A deciding type may be imported to name it in a signature; an
        // alias would hide its variants from the scan above.
        // `Decision as D` (not `GateDecision as G`): the word, then `as`.
        let words: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
        let aliased = words
            .windows(2)
            .any(|w| deciding_types().contains(&w[0]) && w[1] == "as");
        // A glob of core, or of a deciding type's variants (`Stage::*`).
        let glob = statement.contains('*')
            && (statement.contains("probity_core")
                || deciding_types()
                    .into_iter()
                    .any(|t| statement.contains(&format!("{t}::*"))));
        if aliased || glob {
            hits.push(statement.trim().to_string());
        }
        statement.clear();
    }
    hits
}

#[test]
fn the_import_check_sees_groups_aliases_and_globs() {
    let planted = "use probity_core::review::{\n    GateDecision,\n    Decision as D,\n};\nuse probity_core::review::*;\nuse probity_core::review::StateRecord;\n#[cfg(test)]\nuse probity_core::review::Stage;\n";
    assert_eq!(
        deciding_imports(planted),
        vec![
            "use probity_core::review::{ GateDecision, Decision as D, };".to_string(),
            "use probity_core::review::*;".to_string(),
        ]
    );
    // A variant glob of a plainly imported type is seen; another type's
    // alias is not taken for one.
    assert_eq!(
        deciding_imports("use Stage::*;\nuse crate::x::{Decision, GateDecision as G};\n"),
        vec!["use Stage::*;".to_string()]
    );
}

/// Every shipped source of the ports (under `src/`, of which there are
/// more than ten): its path relative to `src/`, and its text.
fn shipped_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "ports/src not found at {}", src.display());
    files
        .iter()
        .map(|file| {
            let path = file.strip_prefix(&src).unwrap().display().to_string();
            (path, fs::read_to_string(file).unwrap())
        })
        .collect()
}

#[test]
fn no_shipped_ports_code_imports_what_core_decides_with() {
    let mut found = Vec::new();
    for (path, text) in shipped_sources() {
        for statement in deciding_imports(&text) {
            found.push(format!("{path}: {statement}"));
        }
    }
    assert!(
        found.is_empty(),
        "ports aliases or glob-imports what core decides with (call core's rule instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_lint_finds_a_rule_written_in_a_driver_and_ignores_tests_and_comments() {
    let planted = "fn f(d: &GateDecision) -> bool {\n    // Stage::Approved is fine here\n    d.decision() == Decision::Allow\n        && matches!(s, probity_core::review::Stage::Reviewing)\n}\n#[cfg(test)]\nmod tests { const X: ReasonCode = ReasonCode::NoChange; }\n";
    assert_eq!(
        deciding_names(planted),
        vec![(3, "Decision::"), (4, "Stage::")]
    );
    assert!(deciding_names("let d = GateDecision::clone(&x); let s = SubStage::A;").is_empty());
    assert!(deciding_names("e.map_err(TransitionError::from)").is_empty());
    assert_eq!(
        deciding_names("let x = 1;\n#[cfg(test)]\nmod tests;\nlet n = NextInput::RunLenses;\n"),
        vec![(4, "NextInput::")]
    );
}

#[test]
fn no_shipped_ports_code_names_a_variant_core_decides_with() {
    let mut found = Vec::new();
    for (path, text) in shipped_sources() {
        for (line, token) in deciding_names(&text) {
            found.push(format!("{path}:{line}: `{token}`"));
        }
    }
    assert!(
        found.is_empty(),
        "a rule in ports (move it into core as a function the driver calls):\n{}",
        found.join("\n")
    );
}
