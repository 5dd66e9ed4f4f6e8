//! First publication (R8.8) on plain values.

use super::*;
use crate::review::ids::{CommitId, ObjectId, TreeId};
use crate::review::rebase::{DeltaEntry, EntrySide, ProofKind};
use crate::review::snapshot::FileMode;

const EMPTY: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

fn c(n: u8) -> CommitId {
    CommitId::parse(format!("{:040x}", n)).unwrap()
}
fn t(n: u8) -> TreeId {
    TreeId::parse(format!("{:039x}f", n)).unwrap()
}

/// A linear history of `n` commits from a root, oldest first.
fn history(n: u8) -> Vec<RangeCommit> {
    (1..=n)
        .map(|i| RangeCommit {
            commit: c(i),
            tree: t(i),
            parents: if i == 1 { Vec::new() } else { vec![c(i - 1)] },
        })
        .collect()
}

fn range(commits: &[RangeCommit]) -> DeliveredRange {
    DeliveredRange {
        refs: vec!["refs/heads/main".into()],
        tip: commits.last().unwrap().commit.clone(),
        commits: commits.iter().rev().cloned().collect(),
        count: commits.len(),
        problem: None,
    }
}

fn stack_denied() -> RangeJudgment {
    RangeJudgment::boundary(GateDecision {
        next_action: NextAction::StartCommitReview,
        ..GateDecision::deny(
            Gate::PrePush,
            ReasonCode::ReceiptMissing,
            GateStage::Discovery,
            None,
            Vec::new(),
            NextAction::StartCommitReview,
            "commit 1 of 3 is not a reviewed delivery".into(),
        )
    })
}

fn whole_allowed() -> GateDecision {
    GateDecision::allowed_for_tests(Gate::PrePush, "review-0123456789abcdef", "exactly")
}

/// `commits` (oldest first), denied as a stack, judged at pre-push as a
/// first publication with `whole` the whole-history review's decision.
fn judge_history(
    commits: &[RangeCommit],
    whole: GateDecision,
    outside: Option<&BlobsOutside>,
) -> RangeJudgment {
    let refs: Vec<&RangeCommit> = commits.iter().collect();
    judge_first_publication(
        Gate::PrePush,
        &range(commits),
        &refs,
        stack_denied(),
        whole,
        &empty(),
        outside,
    )
}

fn empty() -> TreeId {
    TreeId::parse(EMPTY).unwrap()
}

#[test]
fn a_whole_history_review_covers_a_history_that_carries_only_reviewed_blobs() {
    let h = history(3);
    let j = judge_history(&h, whole_allowed(), Some(&BlobsOutside::default()));
    assert_eq!(
        j.decision.decision,
        Decision::Allow,
        "{}",
        j.decision.message
    );
    let proof = j.decision.proof.unwrap();
    assert_eq!(proof.kind, ProofKind::FirstPublication);
    assert_eq!(proof.receipt_base, empty());
    assert!(j.decision.message.contains("metadata are not covered"));
}

#[test]
fn an_overwritten_blob_in_history_fails_closed_with_the_squash() {
    let h = history(3);
    let secret = ObjectId::parse("d97c5eada5d8c52079031eef0107a4430a9617c5").unwrap();
    let outside = BlobsOutside {
        blobs: vec![(secret, "config/keys.txt".into())],
        more: false,
    };
    let j = judge_history(&h, whole_allowed(), Some(&outside));
    let d = j.decision;
    assert_eq!(d.decision, Decision::Deny);
    assert_eq!(d.reason_code, ReasonCode::HistoryNotReviewed);
    assert_eq!(d.next_action, NextAction::Squash);
    assert!(
        d.message.contains("config/keys.txt (blob d97c5eada5d8)"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains(&format!("git reset --soft {}", c(1))),
        "{}",
        d.message
    );
    // More than could be listed is said so.
    let many = BlobsOutside {
        blobs: Vec::new(),
        more: true,
    };
    let j = judge_history(&h, whole_allowed(), Some(&many));
    assert_eq!(j.decision.reason_code, ReasonCode::HistoryNotReviewed);
}

#[test]
fn without_a_whole_history_review_the_stack_denial_stands_and_names_one() {
    let h = history(2);
    let mut whole = whole_allowed();
    whole.decision = Decision::Deny;
    whole.reason_code = ReasonCode::ReceiptMissing;
    let j = judge_history(&h, whole, None);
    assert_eq!(j.decision.reason_code, ReasonCode::ReceiptMissing);
    assert!(
        j.decision
            .message
            .contains(&format!("probity start --history {}", c(2))),
        "{}",
        j.decision.message
    );
    // One sentence after another.
    assert!(
        j.decision
            .message
            .starts_with("commit 1 of 3 is not a reviewed delivery. Or, as this is"),
        "{}",
        j.decision.message
    );
}

#[test]
fn only_a_denied_range_from_a_root_is_a_first_publication() {
    // Not from a root: an ordinary range, left as judged.
    let h = history(3);
    let tail: Vec<&RangeCommit> = h[1..].iter().collect();
    let j = judge_history(&h[1..], whole_allowed(), Some(&BlobsOutside::default()));
    assert_eq!(j.decision.decision, Decision::Deny);
    assert_eq!(j.decision.reason_code, ReasonCode::ReceiptMissing);
    assert!(!delivers_history(&tail));
    let all: Vec<&RangeCommit> = h.iter().collect();
    assert!(delivers_history(&all));
}

/// The contract's scope, pinned (R8.8): commit and tag metadata is not
/// covered. Two histories with the same commits' trees and blobs judge the
/// same whatever their messages, authors or dates say, because the judgment
/// takes no metadata at all: `judge_first_publication` sees commit ids,
/// trees, parents and blobs only. Extending the contract to metadata means
/// changing this test on purpose, in a reviewable diff.
#[test]
fn commit_and_tag_metadata_are_out_of_scope() {
    let h = history(2);
    // Another history: other commit ids (other messages), the same trees.
    let other: Vec<RangeCommit> = h
        .iter()
        .enumerate()
        .map(|(i, rc)| RangeCommit {
            commit: c(100 + i as u8),
            tree: rc.tree.clone(),
            parents: if i == 0 { Vec::new() } else { vec![c(100)] },
        })
        .collect();
    let judge = |commits: &[RangeCommit]| {
        judge_history(commits, whole_allowed(), Some(&BlobsOutside::default()))
            .decision
            .decision
    };
    assert_eq!(judge(&h), Decision::Allow);
    assert_eq!(judge(&other), Decision::Allow);
}

#[test]
fn only_a_denied_whole_history_is_offered_to_the_first_publication_rule() {
    let h = history(3);
    let oldest_first: Vec<&RangeCommit> = h.iter().collect();
    assert!(first_publication_offered(&stack_denied(), &oldest_first));
    // Not from the root: the remote holds the history below it.
    assert!(!first_publication_offered(
        &stack_denied(),
        &oldest_first[1..]
    ));
    assert!(!first_publication_offered(&stack_denied(), &[]));
    // Allowed commit by commit: nothing to add.
    let allowed = RangeJudgment::boundary(whole_allowed());
    assert!(!first_publication_offered(&allowed, &oldest_first));
}

fn side(mode: FileMode, n: u8) -> Option<EntrySide> {
    Some(EntrySide {
        mode,
        object: ObjectId::parse(format!("{:040x}", n)).unwrap(),
    })
}

fn entry(path: &str, base: Option<EntrySide>, candidate: Option<EntrySide>) -> DeltaEntry {
    DeltaEntry {
        path: crate::review::RepoPath::parse(path).unwrap(),
        base,
        candidate,
    }
}

/// Red team, finding 2: what a commit holds counts at its path and mode.
/// A reviewed blob at another path (a document's bytes as a workflow), or
/// with another mode, is outside the reviewed tree; a path the commit
/// lacks is not; a gitlink carries no objects; an unreadable delta is
/// unread content.
#[test]
fn an_older_commits_entries_count_at_their_path_and_mode() {
    let mut o = BlobsOutside::default();
    let moved = entry(".github/workflows/ci.yml", None, side(FileMode::Regular, 1));
    let executable = entry(
        "run.sh",
        side(FileMode::Regular, 2),
        side(FileMode::Executable, 2),
    );
    let absent = entry("docs/a.md", side(FileMode::Regular, 3), None);
    let gitlink = entry("vendor/lib", None, side(FileMode::Gitlink, 4));
    let full = o.add_tree(Some(&[moved, executable, absent, gitlink]));
    assert!(!full);
    let listed: Vec<&str> = o.blobs.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(listed, [".github/workflows/ci.yml", "run.sh"]);
    assert!(!o.more && !o.is_empty());
    // The same entry in another commit is listed once.
    let again = entry(".github/workflows/ci.yml", None, side(FileMode::Regular, 1));
    assert!(!o.add_tree(Some(&[again])));
    assert_eq!(o.blobs.len(), 2);
    // An identical tree adds nothing; an unreadable one fills the listing.
    let mut clean = BlobsOutside::default();
    assert!(!clean.add_tree(Some(&[])));
    assert!(clean.is_empty());
    assert!(clean.add_tree(None));
    assert!(clean.more && !clean.is_empty());
}

#[test]
fn the_listing_stops_at_its_bound() {
    let mut o = BlobsOutside::default();
    let many: Vec<DeltaEntry> = (0..=MAX_LISTED_BLOBS)
        .map(|i| entry(&format!("f{i}"), None, side(FileMode::Regular, i as u8)))
        .collect();
    assert!(o.add_tree(Some(&many)));
    assert_eq!(o.blobs.len(), MAX_LISTED_BLOBS);
    assert!(o.more);
}
