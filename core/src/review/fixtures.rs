//! Fixed scenarios built from plain values, for tests, golden files and
//! documentation. Nothing here observes the world.

use crate::review::finding::ReviewerResult;
use crate::review::ids::{Nonce, RepoPath, Timestamp, TreeId};
use crate::review::lens::{Lens, select_lenses};
use crate::review::risk::RiskPolicy;
use crate::review::snapshot::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount, Snapshot,
    authored_lines,
};
use crate::review::state::{ReviewState, StartInput, StateError};

/// The fixed clock reading of every fixture.
pub const FIXED_TIME: &str = "2026-11-29T12:00:00Z";
/// The fixed nonce of every fixture.
pub const FIXED_NONCE: &str = "00112233445566778899aabbccddeeff";

fn path(s: &str) -> RepoPath {
    RepoPath::parse(s).unwrap_or_else(|e| panic!("fixture path {s:?}: {e}"))
}

fn tree(hex: &str) -> TreeId {
    TreeId::parse(hex).unwrap_or_else(|e| panic!("fixture tree {hex:?}: {e}"))
}

/// A text file change with `added` lines and a modified mode-less content.
pub fn text_change(p: &str, added: u64, removed: u64, content: &str) -> ChangedFile {
    ChangedFile {
        path: path(p),
        old_mode: Some(FileMode::Regular),
        new_mode: Some(FileMode::Regular),
        lines: LineCount::Text { added, removed },
        content: CandidateContent::Bytes {
            bytes: content.as_bytes().to_vec(),
            complete: true,
        },
    }
}

/// The parser scenario: a medium-risk change of two files (one untracked).
pub fn parser_observation() -> CandidateObservation {
    let mut added = text_change("src/parser_test.rs", 8, 0, "#[test]\nfn trims() {}\n");
    added.old_mode = None;
    CandidateObservation {
        base_tree: tree("b4ffa93cdbcb161f9005528d69dc3cc646506c3f"),
        candidate_tree: tree("ea87f48da7c3ea941866d92c1795b7dacf2f4ded"),
        unborn_head: false,
        changed: vec![
            text_change("src/parser.rs", 30, 22, "pub fn parse() {}\n"),
            added,
        ],
        intended_untracked: vec![path("src/parser_test.rs")],
    }
}

/// Starts a review of `obs` at the fixed time and nonce.
pub fn start(obs: &CandidateObservation, focus: Lens) -> Result<ReviewState, StateError> {
    let snapshot = Snapshot::freeze(obs)?;
    let policy = RiskPolicy::v1();
    let lines = authored_lines(policy, &obs.changed);
    let assessment = policy.classify(&obs.changed, lines);
    let lenses = select_lenses(assessment.level(), focus);
    ReviewState::start(StartInput {
        snapshot,
        assessment,
        lenses,
        authored_lines: lines,
        created_at: Timestamp::parse(FIXED_TIME)?,
        nonce: Nonce::parse(FIXED_NONCE)?,
    })
}

/// A clean reviewer result with one suggestion.
pub fn clean_result() -> ReviewerResult {
    ReviewerResult::parse(
        br#"{"findings":[{"location":"src/parser.rs:4","severity":"SUGGESTION","claim":"reserve capacity","proof_refs":["src/parser.rs:4"]}],"evidence":["read the whole candidate diff"]}"#,
    )
    .unwrap_or_else(|e| panic!("fixture result: {e}"))
}
