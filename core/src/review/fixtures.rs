//! Fixed scenarios built from plain values, for tests, golden files and
//! documentation. Nothing here observes the world.
// The fixtures parse fixed literals of this file: a literal that does not
// parse is a defect here, which every test that uses it reports.
#![allow(clippy::panic)]

use crate::review::causality::{CausalFacts, Hunk};
use crate::review::correction::FixMeasurement;
use crate::review::export::{ChangeStatus, ManifestEntry};
use crate::review::finding::{ReviewerResult, ValidatorResult};
use crate::review::ids::{BlobId, Nonce, RepoPath, Timestamp, TreeId};
use crate::review::lens::Lens;
use crate::review::risk::RiskPolicy;
use crate::review::risk::{authored_lines, select_lenses};
use crate::review::snapshot::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, FrozenCandidate, LineCount,
};
use crate::review::state::{ReviewState, StartInput, StateError, TransitionError};

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
        text_lines: added + removed,
        base_content: CandidateContent::Absent,
        content: CandidateContent::Bytes {
            bytes: content.as_bytes().to_vec(),
            complete: true,
        },
    }
}

/// A root auto-run configuration of a tree (`.envrc`,
/// `.vscode/tasks.json`, ...) holding `text`, read whole.
pub fn run_config(p: &str, text: &str) -> crate::review::risk::RunConfig {
    crate::review::risk::RunConfig {
        path: path(p),
        content: CandidateContent::Bytes {
            bytes: text.as_bytes().to_vec(),
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

/// What start derives from `obs` at the fixed time and nonce, under the
/// built-in policy v1: every golden file and conformance vector made from
/// it was pinned under v1 and keeps its bytes (D-R114).
pub fn start_input(obs: &CandidateObservation, focus: Lens) -> Result<StartInput, StateError> {
    start_input_under(RiskPolicy::v1(), RiskPolicy::v1_hash(), obs, focus)
}

/// What start derives from `obs` at the fixed time and nonce under
/// `policy` (whose digest is `policy_hash`).
pub fn start_input_under(
    policy: &RiskPolicy,
    policy_hash: crate::digest::Sha256Digest,
    obs: &CandidateObservation,
    focus: Lens,
) -> Result<StartInput, StateError> {
    let snapshot = FrozenCandidate::freeze(obs)?;
    let lines = authored_lines(policy, &obs.changed);
    let assessment = policy.classify(&obs.changed, lines);
    let lenses = select_lenses(assessment.level(), focus);
    Ok(StartInput {
        snapshot,
        assessment,
        lenses,
        authored_lines: lines,
        created_at: Timestamp::parse(FIXED_TIME)?,
        nonce: Nonce::parse(FIXED_NONCE)?,
        prompts: None,
        policy_hash,
    })
}

/// Starts a review of `obs` at the fixed time and nonce under `policy`
/// (whose digest is `policy_hash`).
pub fn start_under(
    policy: &RiskPolicy,
    policy_hash: crate::digest::Sha256Digest,
    obs: &CandidateObservation,
    focus: Lens,
) -> Result<ReviewState, StateError> {
    ReviewState::start(start_input_under(policy, policy_hash, obs, focus)?)
}

/// Starts a review of `obs` at the fixed time and nonce.
pub fn start(obs: &CandidateObservation, focus: Lens) -> Result<ReviewState, StateError> {
    ReviewState::start(start_input(obs, focus)?)
}

/// A clean reviewer result with one suggestion.
pub fn clean_result() -> ReviewerResult {
    ReviewerResult::parse(
        br#"{"findings":[{"location":"src/parser.rs:4","severity":"SUGGESTION","claim":"reserve capacity","proof_refs":["src/parser.rs:4"]}],"evidence":["read the whole candidate diff"]}"#,
    )
    .unwrap_or_else(|e| panic!("fixture result: {e}"))
}

fn result(json: &str) -> ReviewerResult {
    ReviewerResult::parse(json.as_bytes()).unwrap_or_else(|e| panic!("fixture result: {e}"))
}

/// The R5.6 payments scenario: one diff, four findings (in the risk lens's
/// result) → one correction, one follow-up, one escalation, one info. The
/// three other lenses report no findings.
pub fn payments_scenario() -> Result<(ReviewState, Vec<ReviewerResult>, CausalFacts), StateError> {
    let obs = CandidateObservation {
        base_tree: tree("5d1c2a0e6f0b6a1e3b1f7a8c9d0e1f2a3b4c5d6e"),
        candidate_tree: tree("9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"),
        unborn_head: false,
        changed: vec![text_change(
            "src/payments/charge.rs",
            24,
            6,
            "pub fn charge(amount: i64) {}\n",
        )],
        intended_untracked: vec![],
    };
    let state = start(&obs, Lens::Reliability)?;
    let findings = result(
        r#"{"findings":[
          {"location":"src/payments/charge.rs:14","severity":"BLOCKER","claim":"the candidate accepts a negative amount","proof_refs":["TestNegativeAmount passes on base, fails on candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"},
          {"location":"src/payments/cache.rs:40","severity":"CRITICAL","claim":"the rate cache can race under concurrent refresh","proof_refs":["base has the same unsynchronized refresh"],"evidence_class":"inferential","causal_disposition":"pre_existing"},
          {"location":"src/payments/charge.rs:20","severity":"CRITICAL","claim":"a new timeout appears under load","proof_refs":["load test p99 over 2 s"],"evidence_class":"inferential","causal_disposition":"unknown"},
          {"location":"src/payments/charge.rs:3","severity":"SUGGESTION","claim":"name the amount type","proof_refs":["src/payments/charge.rs:3"]}
        ],"evidence":["read the whole payments diff and ran the differential test"]}"#,
    );
    let clean = || result(r#"{"findings":[],"evidence":["read the whole payments diff"]}"#);
    let mut facts = CausalFacts::default();
    facts.hunks.insert(
        path("src/payments/charge.rs"),
        vec![Hunk {
            start: 10,
            count: 12,
        }],
    );
    facts
        .candidate_lines
        .insert(path("src/payments/charge.rs"), 40);
    Ok((state, vec![findings, clean(), clean(), clean()], facts))
}

/// The R6.8 budget scenario: 120 authored lines (budget 60) and one
/// deterministic candidate-causal BLOCKER, in `correction_required`.
pub fn budget_scenario() -> Result<ReviewState, TransitionError> {
    let obs = CandidateObservation {
        base_tree: tree("1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"),
        candidate_tree: tree("0000000000000000000000000000000000000c00"),
        unborn_head: false,
        changed: vec![text_change(
            "src/token_cache.rs",
            80,
            40,
            "pub fn get() {}\n",
        )],
        intended_untracked: vec![],
    };
    let state = start(&obs, Lens::Reliability)?;
    let blocker = result(
        r#"{"findings":[{"location":"src/token_cache.rs:12","severity":"BLOCKER","claim":"expired entries are served","proof_refs":["TestExpiry fails on candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran TestExpiry on base and candidate"]}"#,
    );
    let mut facts = CausalFacts::default();
    facts.hunks.insert(
        path("src/token_cache.rs"),
        vec![Hunk {
            start: 1,
            count: 80,
        }],
    );
    state.accept_results(vec![blocker], &facts)
}

/// A measured fix of `lines` lines to a tree named by `n`.
pub fn fix(n: u32, lines: u64) -> FixMeasurement {
    FixMeasurement {
        to_tree: tree(&format!("{n:040x}")),
        paths: vec![path("src/token_cache.rs")],
        actual_lines: lines,
        tier: crate::review::RiskLevel::Low,
    }
}

/// The [`budget_scenario`] once a forecast of `lines` changed lines was
/// accepted: correcting within the budget, escalated over it.
pub fn budget_forecast(lines: u64) -> Result<ReviewState, TransitionError> {
    budget_scenario()?.accept_forecast(crate::review::state::Forecast::new(lines)?)
}

/// One correction attempt on `s`: the forecast of `forecast` lines, then
/// the validation (`passed` or not) of the measured fix `fix(n, lines)`.
pub fn attempt(
    s: &ReviewState,
    forecast: u64,
    (n, lines): (u32, u64),
    passed: bool,
) -> Result<ReviewState, TransitionError> {
    s.accept_forecast(crate::review::state::Forecast::new(forecast)?)?
        .accept_validation(fix(n, lines), validation(passed))
}

/// A targeted validator result.
pub fn validation(passed: bool) -> ValidatorResult {
    let v = if passed { "true" } else { "false" };
    ValidatorResult::parse(
        format!(
            r#"{{"original_criteria":{{"passed":{v},"evidence":["TestExpiry"]}},"correction_regression":{{"passed":true,"evidence":["cache suite"]}},"follow_ups":[]}}"#
        )
        .as_bytes(),
    )
    .unwrap_or_else(|e| panic!("fixture validation: {e}"))
}

/// The candidate manifest entries of the parser scenario: `src/parser.rs`
/// modified (blob `a…` → `b…`) and `src/parser_test.rs` added (blob `c…`).
pub fn parser_manifest_entries() -> Vec<ManifestEntry> {
    let blob = |c: &str| {
        Some(BlobId::parse(c.repeat(40)).unwrap_or_else(|e| panic!("fixture blob {c:?}: {e}")))
    };
    vec![
        ManifestEntry {
            path: path("src/parser.rs"),
            status: ChangeStatus::Modified,
            old_mode: Some(FileMode::Regular),
            new_mode: Some(FileMode::Regular),
            old_blob: blob("a"),
            new_blob: blob("b"),
        },
        ManifestEntry {
            path: path("src/parser_test.rs"),
            status: ChangeStatus::Added,
            old_mode: None,
            new_mode: Some(FileMode::Regular),
            old_blob: None,
            new_blob: blob("c"),
        },
    ]
}

/// A copy of `state` with its wire form (the JSON that is stored and
/// hashed) edited by `edit`, read back through the checked wire: how a
/// test models a hand-edited or hostile record. Outside core a state can
/// be changed no other way, and this way runs every check a stored record
/// passes ([`ReviewState::validate`] included), so the error is what a
/// reader of such a record gets.
pub fn forge(
    state: &ReviewState,
    edit: impl FnOnce(&mut serde_json::Value),
) -> Result<ReviewState, serde_json::Error> {
    let mut wire = serde_json::to_value(state)?;
    edit(&mut wire);
    serde_json::from_value(wire)
}

pub use crate::review::risk::{ports_read, ports_read_linked};

/// The newest risk policy's tier for `files`, given the configurations
/// `configs` the ports read ([`ports_read`]) and no links or attribute
/// files.
pub fn newest_tier(
    files: &[ChangedFile],
    configs: &[crate::review::risk::RunConfig],
) -> crate::review::risk::RiskLevel {
    let trees = crate::review::risk::TreeInputs {
        links: &[],
        configs,
        attributes: &[],
    };
    RiskPolicy::newest().classify_in(files, 1, trees).level()
}

/// The properties v12's following holds for `files` once the ports read
/// `read` (the property test and the fuzz target over its trees): the
/// configurations only raise the tier, the file at `cut` (modulo the
/// number read) taken as cut short never lowers it, and the order of the
/// files read does not change it. `Err` names the one that failed.
pub fn following_holds(
    files: &[ChangedFile],
    read: &[crate::review::risk::RunConfig],
    cut: usize,
) -> Result<(), String> {
    let with = newest_tier(files, read);
    let without = newest_tier(files, &[]);
    if with.rank() < without.rank() {
        return Err(format!("without the tree {without:?}, with it {with:?}"));
    }
    if !read.is_empty() {
        let mut short = read.to_vec();
        let at = cut % short.len();
        if let CandidateContent::Bytes { complete, .. } = &mut short[at].content {
            *complete = false;
        }
        let cut_short = newest_tier(files, &short);
        if cut_short.rank() < with.rank() {
            return Err(format!(
                "{} read whole {with:?}, cut short {cut_short:?}",
                short[at].path.as_str()
            ));
        }
    }
    let mut reversed = read.to_vec();
    reversed.reverse();
    let again = newest_tier(files, &reversed);
    if again != with {
        return Err(format!("{with:?}, the files in the other order {again:?}"));
    }
    Ok(())
}
