//! Properties that need a real repository: what Git measured is what is
//! charged, and malformed input never becomes an attempt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use probity_core::review::Lens;
use probity_git::Repo;
use probity_git::fixture::Fixture;
use probity_ports::review::{
    self as drivers, FinalizeInput, LensResultInput, NamedInput, ReviewError,
};
use probity_store::FileStore;
use probity_testkit::FixedClock;
use probity_testkit::documents::{BLOCKER, VALIDATOR_FAIL as FAIL};

fn named(text: &[u8]) -> NamedInput {
    NamedInput {
        name: "doc.json".into(),
        bytes: text.to_vec(),
    }
}

/// A repository whose 301-line change (budget 151) is in correction, with
/// the lineage forecast for its first attempt.
fn in_correction() -> (Fixture, Repo, FileStore, probity_core::review::LineageId) {
    let f = Fixture::new().unwrap();
    f.write("src/a.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    let body: String = (0..300).map(|i| format!("fn f{i}() {{}}\n")).collect();
    f.write("src/a.rs", body).unwrap();
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let lineage = drivers::start(&repo, &store, &FixedClock::fixture(), Lens::Reliability)
        .unwrap()
        .record
        .state()
        .lineage_id()
        .clone();
    let input = FinalizeInput {
        results: vec![LensResultInput::unnamed(named(BLOCKER.as_bytes()))],
        correction_lines: Some(1),
        ..Default::default()
    };
    drivers::finalize(&repo, &store, input).unwrap();
    (f, repo, store, lineage)
}

fn store_files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Each attempt is charged exactly the lines the edit changed: `k` lines
    /// rewritten in place is `2k` (one removed, one added each), measured by
    /// Git from the previous attempt's tree.
    #[test]
    fn charged_lines_are_what_git_measured(edits in prop::collection::vec(1usize..30, 1..3)) {
        let (f, repo, store, lineage) = in_correction();
        let mut lines: Vec<String> = (0..300).map(|i| format!("fn f{i}() {{}}")).collect();
        let mut expected = 0u64;
        for (attempt, k) in edits.iter().enumerate() {
            for line in lines.iter_mut().take(*k) {
                line.push_str(" // touched");
            }
            let mut body = lines.join("\n");
            body.push('\n');
            f.write("src/a.rs", body).unwrap();
            if attempt > 0 {
                let forecast = FinalizeInput { lineage: Some(lineage.clone()), correction_lines: Some(1), ..Default::default() };
                drivers::finalize(&repo, &store, forecast).unwrap();
            }
            let v = FinalizeInput { lineage: Some(lineage.clone()), validation: Some(named(FAIL.as_bytes())), ..Default::default() };
            let done = drivers::finalize(&repo, &store, v).unwrap();
            // Lines touched again in this attempt change once more.
            expected += 2 * *k as u64;
            let c = done.record.state().stage().correction().unwrap();
            prop_assert_eq!(c.charged_lines(), expected);
            prop_assert_eq!(c.attempts.len(), attempt + 1);
        }
    }

    /// Malformed validator documents are refused before anything is read
    /// or written: no attempt, no charge, the store byte-identical.
    #[test]
    fn malformed_validation_is_never_an_attempt(doc in prop_oneof![
        (1usize..130).prop_map(|cut| FAIL.as_bytes()[..cut.min(FAIL.len() - 1)].to_vec()),
        prop::collection::vec(any::<u8>(), 0..64),
        Just(br#"{"original_criteria":{"passed":false,"evidence":[]},"correction_regression":{"passed":true,"evidence":["x"]}}"#.to_vec()),
        Just(br#"{"original_criteria":{"passed":false,"evidence":["x"]},"correction_regression":{"passed":true,"evidence":["x"]},"extra":1}"#.to_vec()),
    ]) {
        let (_f, repo, store, lineage) = in_correction();
        let before = store_files(store.root());
        let v = FinalizeInput { lineage: Some(lineage), validation: Some(named(&doc)), ..Default::default() };
        let err = drivers::finalize(&repo, &store, v).unwrap_err();
        prop_assert!(matches!(err, ReviewError::MalformedInput { .. }), "{err}");
        prop_assert_eq!(store_files(store.root()), before);
    }
}
