use super::*;
use crate::review::ids::{CommitId, TreeId};

const A: &str = "1111111111111111111111111111111111111111";
const B: &str = "2222222222222222222222222222222222222222";
const T: &str = "3333333333333333333333333333333333333333";
const Z: &str = "0000000000000000000000000000000000000000";

fn c(s: &str) -> CommitId {
    CommitId::parse(s).unwrap()
}

fn commit(id: &str, parents: &[&str]) -> RangeCommit {
    RangeCommit {
        commit: c(id),
        tree: TreeId::parse(T).unwrap(),
        parents: parents.iter().map(|p| c(p)).collect(),
    }
}

fn range(r: &str, tip: &str, commits: Vec<RangeCommit>) -> DeliveredRange {
    DeliveredRange {
        refs: vec![r.to_string()],
        tip: c(tip),
        count: commits.len(),
        commits,
        problem: None,
    }
}

#[test]
fn push_lines_parse_with_zeros_as_absent_and_blank_lines_ignored() {
    let input = format!(
        "refs/heads/main {A} refs/heads/main {B}\n\n(delete) {Z} refs/heads/old {A}\r\nrefs/heads/new {B} refs/heads/new {Z}\n"
    );
    let u = parse_push_updates(&input).unwrap();
    assert_eq!(u.len(), 3);
    assert_eq!(u[0].local_oid, Some(c(A)));
    assert_eq!(u[0].remote_oid, Some(c(B)));
    assert_eq!(u[1].local_ref, "(delete)");
    assert_eq!(u[1].local_oid, None);
    assert_eq!(u[2].remote_oid, None);
    assert_eq!(parse_push_updates("\n").unwrap(), vec![]);
}

#[test]
fn a_local_ref_may_hold_spaces() {
    let u = parse_push_updates(&format!("HEAD^{{/fix the bug}} {A} refs/heads/x {Z}\n")).unwrap();
    assert_eq!(u[0].local_ref, "HEAD^{/fix the bug}");
    assert_eq!(u[0].remote_ref, "refs/heads/x");
}

#[test]
fn malformed_push_lines_are_typed_errors() {
    assert_eq!(
        parse_push_updates(&format!("refs/heads/main {A} refs/heads/main\n")),
        Err(PushInputError::Fields { line: 1, fields: 3 })
    );
    assert_eq!(
        parse_push_updates(&format!(
            "\nrefs/heads/main --upload-pack=x refs/heads/main {B}"
        )),
        Err(PushInputError::ObjectId {
            line: 2,
            value: "--upload-pack=x".into()
        })
    );
    // Only a whole all-zero id of either hash means "absent".
    assert!(matches!(
        parse_push_updates("a 0 b 0\n"),
        Err(PushInputError::ObjectId { line: 1, .. })
    ));
    // Upper-case hex is not what git writes.
    assert!(
        parse_push_updates(&format!("a {} b {B}", A.to_uppercase().replace('1', "A"))).is_err()
    );
}

#[test]
fn range_shapes() {
    let shape = |commits: Vec<RangeCommit>| {
        let r = range("r", A, commits);
        match range_shape(&r) {
            RangeShape::Empty => "empty".to_string(),
            RangeShape::One(c) => format!("one {} {}", c.commit, c.parents.len()),
            RangeShape::Several(n) => format!("several {n}"),
            RangeShape::Merge(c) => format!("merge {}", c.parents.len()),
            RangeShape::NotFastForward(old) => format!("rewind of {old}"),
            RangeShape::NotCommit => "not a commit".into(),
        }
    };
    assert_eq!(shape(vec![]), "empty");
    assert_eq!(shape(vec![commit(A, &[B])]), format!("one {A} 1"));
    assert_eq!(shape(vec![commit(A, &[])]), format!("one {A} 0"));
    assert_eq!(shape(vec![commit(A, &[B, B])]), "merge 2");
    assert_eq!(shape(vec![commit(A, &[B]), commit(B, &[])]), "several 2");
    // Only the first commits are listed; the count decides.
    let mut long = range("r", A, vec![commit(A, &[B]), commit(B, &[])]);
    long.count = 40;
    assert_eq!(range_shape(&long), RangeShape::Several(40));
}

#[test]
fn empty_several_and_merge_ranges_deny_at_the_boundary() {
    for (commits, code, next) in [
        (vec![], ReasonCode::DeliveryEmpty, NextAction::CheckRange),
        (
            vec![commit(A, &[B]), commit(B, &[])],
            ReasonCode::DeliveryPartial,
            NextAction::Squash,
        ),
        (
            vec![commit(A, &[B, B])],
            ReasonCode::DeliveryPartial,
            NextAction::Squash,
        ),
    ] {
        let d = delivery_commit(Gate::PrePush, &range("refs/heads/x", A, commits)).unwrap_err();
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, code);
        assert_eq!(d.next_action, next);
        assert_eq!(d.stage, GateStage::Boundary);
        assert!(d.message.contains("refs/heads/x"), "{}", d.message);
    }
    let r = range("r", A, vec![commit(A, &[B])]);
    assert_eq!(
        delivery_commit(Gate::PrePush, &r).map(|c| &c.commit),
        Ok(&c(A))
    );
}

#[test]
fn rewinds_and_non_commits_deny_whatever_their_commits() {
    let mut forced = range("refs/heads/main", A, vec![commit(A, &[B])]);
    forced.problem = Some(RangeProblem::NotFastForward { old: c(B) });
    let d = delivery_commit(Gate::PrePush, &forced).unwrap_err();
    assert_eq!(d.reason_code, ReasonCode::DeliveryNotFastForward);
    assert!(d.message.contains(B), "{}", d.message);
    let mut tree = range("refs/tags/t", A, vec![]);
    tree.problem = Some(RangeProblem::NotCommit);
    let d = delivery_commit(Gate::PrePush, &tree).unwrap_err();
    assert_eq!(d.reason_code, ReasonCode::DeliveryNotCommit);
    // A rewind is not merged with a clean delivery of the same tip.
    let clean = range("refs/heads/feature", A, vec![commit(A, &[B])]);
    assert_eq!(dedupe_ranges(vec![forced, clean]).len(), 2);
}

#[test]
fn one_delivery_through_several_refs_is_judged_once() {
    let r = dedupe_ranges(vec![
        range("refs/heads/main", A, vec![commit(A, &[B])]),
        range("refs/heads/feature", A, vec![commit(A, &[B])]),
        range("refs/heads/main", A, vec![commit(A, &[B])]),
        range("refs/heads/other", B, vec![commit(B, &[])]),
    ]);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].refs, vec!["refs/heads/main", "refs/heads/feature"]);
    assert_eq!(r[1].refs, vec!["refs/heads/other"]);
}

fn allow(lineage: &str) -> GateDecision {
    GateDecision::allowed_for_tests(Gate::PrePush, lineage, "")
}

#[test]
fn a_push_allows_only_when_every_range_allows() {
    assert_eq!(
        combine_deliveries(Gate::PrePush, vec![]).reason_code,
        ReasonCode::NothingDelivered
    );
    let ok = combine_deliveries(
        Gate::PrePush,
        vec![(
            range("refs/heads/a", A, vec![commit(A, &[B])]),
            allow("review-0123456789abcdef"),
        )],
    );
    assert_eq!(ok.decision, Decision::Allow);
    assert_eq!(
        ok.lineage_id.as_ref().map(|l| l.as_str()),
        Some("review-0123456789abcdef")
    );
    assert_eq!(ok.deliveries.len(), 1);

    let empty = range("refs/heads/b", B, vec![]);
    let denial = delivery_commit(Gate::PrePush, &empty).unwrap_err();
    let both = combine_deliveries(
        Gate::PrePush,
        vec![
            (
                range("refs/heads/a", A, vec![commit(A, &[B])]),
                allow("review-0123456789abcdef"),
            ),
            (empty, denial),
        ],
    );
    assert_eq!(both.decision, Decision::Deny);
    assert_eq!(both.reason_code, ReasonCode::DeliveryEmpty);
    assert_eq!(both.deliveries.len(), 2);
    assert_eq!(both.deliveries[0].decision, Decision::Allow);
    assert_eq!(both.deliveries[1].decision, Decision::Deny);
}

// -- stacks (D-R25) and no-change deliveries (D-R26) --

const C1: &str = "4444444444444444444444444444444444444444";
const C2: &str = "5555555555555555555555555555555555555555";
const C3: &str = "6666666666666666666666666666666666666666";
const T1: &str = "7777777777777777777777777777777777777777";
const T2: &str = "8888888888888888888888888888888888888888";

/// A three-commit stack on B, newest first as git lists it.
fn stack3() -> DeliveredRange {
    range(
        "refs/heads/main",
        C3,
        vec![commit(C3, &[C2]), commit(C2, &[C1]), commit(C1, &[B])],
    )
}

fn judged(lineage: Option<&str>, code: ReasonCode) -> GateDecision {
    let mut d = allow(lineage.unwrap_or("review-0123456789abcdef"));
    d.lineage_id = lineage.map(|l| LineageId::parse(l).unwrap());
    d.reason_code = code;
    if !matches!(code, ReasonCode::ReceiptValid | ReasonCode::NoChange) {
        d.decision = Decision::Deny;
        d.next_action = NextAction::StartReview;
        d.message = "run `probity start`".into();
    }
    d
}

#[test]
fn a_stack_is_ordered_oldest_first_along_its_parents() {
    let r = stack3();
    let order: Vec<&str> = stack_order(&r.tip, &r.commits, r.count)
        .unwrap()
        .iter()
        .map(|c| c.commit.as_str())
        .collect();
    assert_eq!(order, [C1, C2, C3]);
    // Whatever order git listed them in.
    let mut shuffled = r.commits.clone();
    shuffled.rotate_left(1);
    let order: Vec<&str> = stack_order(&r.tip, &shuffled, 3)
        .unwrap()
        .iter()
        .map(|c| c.commit.as_str())
        .collect();
    assert_eq!(order, [C1, C2, C3]);
    // A root commit at the bottom is a stack too.
    let rooted = vec![commit(C2, &[C1]), commit(C1, &[])];
    assert_eq!(stack_order(&c(C2), &rooted, 2).unwrap().len(), 2);
}

#[test]
fn merges_gaps_and_oversized_ranges_are_no_stack() {
    let merge = vec![commit(C3, &[C2]), commit(C2, &[C1, B])];
    assert_eq!(
        stack_order(&c(C3), &merge, 2),
        Err(StackError::Merge {
            commit: c(C2),
            parents: 2
        })
    );
    // A commit that is not on the chain from the tip.
    let gap = vec![commit(C3, &[C2]), commit(C1, &[B])];
    assert!(matches!(
        stack_order(&c(C3), &gap, 2),
        Err(StackError::NotLinear { chained: 1, .. })
    ));
    // Fewer listed than counted.
    assert!(matches!(
        stack_order(&c(C3), &[commit(C3, &[C2])], 2),
        Err(StackError::NotLinear { .. })
    ));
    assert_eq!(stack_order(&c(C3), &[], 0), Err(StackError::Empty));
    assert_eq!(
        stack_order(&c(C3), &[commit(C3, &[C2])], MAX_RANGE_COMMITS + 1),
        Err(StackError::TooLarge {
            count: MAX_RANGE_COMMITS + 1,
            limit: MAX_RANGE_COMMITS
        })
    );
}

#[test]
fn delivery_commits_deny_merges_and_oversized_ranges_at_the_boundary() {
    let mut long = stack3();
    long.count = MAX_RANGE_COMMITS + 1;
    let d = delivery_commits(Gate::PrePush, &long).unwrap_err();
    assert_eq!(d.reason_code, ReasonCode::DeliveryTooLarge);
    assert_eq!(d.stage, GateStage::Boundary);
    assert!(d.message.contains("1001 commits"), "{}", d.message);

    let merge = range(
        "refs/heads/main",
        C3,
        vec![commit(C3, &[C2]), commit(C2, &[C1, B])],
    );
    let d = delivery_commits(Gate::PrePush, &merge).unwrap_err();
    assert_eq!(d.reason_code, ReasonCode::DeliveryPartial);
    assert_eq!(d.next_action, NextAction::Squash);
    assert!(d.message.contains(C2), "{}", d.message);
    assert!(d.message.contains("git rebase"), "{}", d.message);

    // The single-commit shapes answer as before.
    let empty = delivery_commits(Gate::PrePush, &range("r", A, vec![])).unwrap_err();
    assert_eq!(empty.reason_code, ReasonCode::DeliveryEmpty);
    assert_eq!(delivery_commits(Gate::PrePush, &stack3()).unwrap().len(), 3);
}

#[test]
fn a_stack_allows_only_when_every_commit_does() {
    let r = stack3();
    let commits = delivery_commits(Gate::PrePush, &r).unwrap();
    // The stack with its first and last commits reviewed, the middle one
    // judged `middle`.
    let around = |r: &DeliveredRange, middle: GateDecision| {
        judge_stack(
            Gate::PrePush,
            r,
            vec![
                (
                    commits[0],
                    judged(Some("review-0000000000000001"), ReasonCode::ReceiptValid),
                ),
                (commits[1], middle),
                (
                    commits[2],
                    judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
                ),
            ],
        )
    };
    let all = around(&r, judged(None, ReasonCode::NoChange));
    assert_eq!(all.decision.decision, Decision::Allow);
    assert_eq!(all.decision.reason_code, ReasonCode::ReceiptValid);
    assert_eq!(all.stack.len(), 3);
    assert_eq!(all.stack[1].reason_code, ReasonCode::NoChange);
    assert!(all.decision.message.contains("1 changing no bytes"));

    // The first failing commit answers, named, with the command that
    // reviews it as committed.
    let one = around(&r, judged(None, ReasonCode::ReceiptMissing));
    let d = &one.decision;
    assert_eq!(d.decision, Decision::Deny);
    assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
    assert_eq!(d.next_action, NextAction::StartCommitReview);
    assert!(
        d.message.contains(&format!("commit {C2} (2 of 3)")),
        "{}",
        d.message
    );
    assert!(
        d.message.contains(&format!("probity start --commit {C2}")),
        "{}",
        d.message
    );
    assert!(!d.message.contains("run `probity start`"), "{}", d.message);

    // Several unreviewed commits: one `--range` from the oldest's parent.
    let many = judge_stack(
        Gate::PrePush,
        &r,
        vec![
            (commits[0], judged(None, ReasonCode::ReceiptMissing)),
            (
                commits[1],
                judged(
                    Some("review-0000000000000002"),
                    ReasonCode::ReceiptScopeChanged,
                ),
            ),
            (
                commits[2],
                judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
            ),
        ],
    );
    assert!(
        many.decision
            .message
            .contains(&format!("probity start --range {B}..{C2}")),
        "{}",
        many.decision.message
    );

    // A denial that is not about missing review keeps its own advice.
    let mut incomplete = judged(
        Some("review-0000000000000002"),
        ReasonCode::ReviewIncomplete,
    );
    incomplete.next_action = NextAction::Finalize;
    let waiting = around(&r, incomplete);
    assert_eq!(waiting.decision.next_action, NextAction::Finalize);
    assert!(
        waiting
            .decision
            .message
            .starts_with(&format!("commit {C2} (2 of 3)"))
    );
}

#[test]
fn a_one_commit_range_answers_as_its_commit_with_a_commit_review_next() {
    let r = range("refs/heads/x", A, vec![commit(A, &[B])]);
    let ok = allow("review-0123456789abcdef");
    let j = judge_stack(Gate::PrePush, &r, vec![(&r.commits[0], ok.clone())]);
    assert_eq!(j.decision, ok);
    assert!(j.stack.is_empty(), "a one-commit range reports no stack");
    // At pre-commit nothing is committed yet: the advice stays start.
    let missing = judged(None, ReasonCode::ReceiptMissing);
    let pre_commit = judge_stack(Gate::PreCommit, &r, vec![(&r.commits[0], missing.clone())]);
    assert_eq!(pre_commit.decision.next_action, NextAction::StartReview);
    let root = range("refs/heads/x", A, vec![commit(A, &[])]);
    let j = judge_stack(Gate::Release, &root, vec![(&root.commits[0], missing)]);
    assert_eq!(j.decision.next_action, NextAction::StartCommitReview);
    assert!(
        j.decision
            .message
            .contains(&format!("probity start --commit {A}"))
    );
}

#[test]
fn a_tree_equal_to_its_base_is_no_change_at_every_gate() {
    let t = TreeId::parse(T1).unwrap();
    let same = LiveTarget::new(t.clone(), t.clone());
    for gate in [Gate::PreCommit, Gate::PrePush, Gate::PrePr, Gate::Release] {
        let d = decide_target(gate, &same, Authority::None { changed_paths: &[] });
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.reason_code, ReasonCode::NoChange);
        assert_eq!(d.next_action, NextAction::None);
        assert_eq!(d.stage, GateStage::Complete);
    }
    let other = LiveTarget::new(t, TreeId::parse(T2).unwrap());
    assert!(no_change(Gate::PrePush, &other).is_none());
    let d = decide_target(
        Gate::PreCommit,
        &other,
        Authority::None { changed_paths: &[] },
    );
    assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
}

#[test]
fn ranges_that_change_nothing_combine_to_no_change() {
    let r = range("refs/heads/a", A, vec![commit(A, &[B])]);
    let nothing = no_change(
        Gate::PrePush,
        &LiveTarget::new(TreeId::parse(T1).unwrap(), TreeId::parse(T1).unwrap()),
    )
    .unwrap();
    let d = combine_deliveries(Gate::PrePush, vec![(r.clone(), nothing.clone())]);
    assert_eq!(d.reason_code, ReasonCode::NoChange);
    let mut other = r;
    other.refs = vec!["refs/heads/b".into()];
    other.tip = c(B);
    let both = combine_deliveries(
        Gate::PrePush,
        vec![
            (other.clone(), nothing),
            (other, allow("review-0123456789abcdef")),
        ],
    );
    assert_eq!(both.reason_code, ReasonCode::ReceiptValid);
}

#[test]
fn a_hook_lines_shape_decides_the_range_to_list() {
    let update = |remote: Option<&str>| RefUpdate {
        local_ref: "refs/heads/main".into(),
        local_oid: Some(c(A)),
        remote_ref: "refs/heads/main".into(),
        remote_oid: remote.map(c),
    };
    // Not a commit, whatever else.
    assert_eq!(
        update_shape(&update(Some(B)), None, Some(&c(B)), true),
        UpdateShape::NotCommit
    );
    // A new ref: what the remote does not advertise.
    assert_eq!(
        update_shape(&update(None), Some(&c(A)), None, false),
        UpdateShape::NewRef
    );
    // An existing ref fast-forwarded from its tip.
    assert_eq!(
        update_shape(&update(Some(B)), Some(&c(A)), Some(&c(B)), true),
        UpdateShape::FastForward { from: c(B) }
    );
    // Not fast-forwarded, or a remote tip this clone never saw: a rewind.
    for (old, ff) in [(Some(&c(B)), false), (None, false), (None, true)] {
        assert_eq!(
            update_shape(&update(Some(B)), Some(&c(A)), old, ff),
            UpdateShape::Rewind { old: c(B) }
        );
    }
}

#[test]
fn deletions_and_rewinds_stop_vouching_for_what_the_remote_held() {
    let update = |local: Option<&str>, remote: Option<&str>| RefUpdate {
        local_ref: "refs/heads/main".into(),
        local_oid: local.map(c),
        remote_ref: "refs/heads/main".into(),
        remote_oid: remote.map(c),
    };
    // A deletion, whatever else.
    assert!(stops_vouching(&update(None, Some(B)), true));
    // An existing ref rewound (or forced).
    assert!(stops_vouching(&update(Some(A), Some(B)), false));
    // A fast-forward keeps the old tip reachable; a new ref held nothing.
    assert!(!stops_vouching(&update(Some(A), Some(B)), true));
    assert!(!stops_vouching(&update(Some(A), None), false));
    // New refs build on every advertised tip but the touched ones.
    let advertised = vec![
        ("refs/heads/main".to_string(), c(A)),
        ("refs/heads/old".to_string(), c(B)),
    ];
    let every = Vouching::Advertised;
    assert_eq!(
        published_tips(advertised.clone(), &[], &every),
        vec![c(A), c(B)]
    );
    assert_eq!(
        published_tips(advertised, &["refs/heads/old"], &every),
        vec![c(A)]
    );
}

#[test]
fn at_the_server_only_protected_refs_vouch_for_published_history() {
    let advertised = vec![
        ("refs/heads/main".to_string(), c(A)),
        ("refs/heads/wip".to_string(), c(B)),
        ("refs/tags/park".to_string(), c(C1)),
    ];
    // The default protects every branch, no tag.
    let default = Vouching::Protected(Vec::new());
    assert_eq!(
        published_tips(advertised.clone(), &[], &default),
        vec![c(A), c(B)]
    );
    // Configured globs: an unprotected branch and a tag vouch for nothing.
    let main_only = Vouching::Protected(vec!["refs/heads/main".into()]);
    assert_eq!(
        published_tips(advertised.clone(), &[], &main_only),
        vec![c(A)]
    );
    let with_tags = Vouching::Protected(vec!["refs/heads/main".into(), "refs/tags/*".into()]);
    assert_eq!(
        published_tips(advertised.clone(), &[], &with_tags),
        vec![c(A), c(C1)]
    );
    // A protected ref this push deletes or rewinds stops vouching too.
    assert_eq!(
        published_tips(advertised, &["refs/heads/main"], &main_only),
        Vec::<CommitId>::new()
    );
    // The notes ref and review-object refs never vouch, protected or not.
    assert!(!Vouching::Protected(vec!["refs/*".into()]).vouches(NOTES_REF));
    assert!(!Vouching::Protected(vec!["refs/*".into()]).vouches("refs/probity/trees/x/final"));
    assert!(Vouching::Advertised.vouches("refs/tags/anything"));
}

/// Red team rounds 36 and 38: at the server only the history of the
/// given commits is published (the default branch's tip, or the common
/// ancestors of every protected tip), whatever other protected branch or
/// tag holds more.
#[test]
fn at_the_server_only_the_default_branch_vouches_for_published_history() {
    let advertised = vec![
        ("refs/heads/main".to_string(), c(A)),
        ("refs/heads/feature".to_string(), c(B)),
        ("refs/tags/v1".to_string(), c(C1)),
    ];
    let governed = Vouching::Governed { tips: vec![c(A)] };
    assert_eq!(
        published_tips(advertised.clone(), &[], &governed),
        vec![c(A)]
    );
    // The default branch rewound or deleted by this push vouches for
    // nothing.
    assert!(published_tips(advertised.clone(), &["refs/heads/main"], &governed).is_empty());
    // A common ancestor no ref points at vouches.
    let ancestors = Vouching::Governed { tips: vec![c(C1)] };
    assert_eq!(
        published_tips(advertised[..2].to_vec(), &["refs/heads/main"], &ancestors),
        vec![c(C1)]
    );
    let empty = range("refs/tags/v2", A, Vec::new());
    assert_eq!(
        new_ref_delivery(&empty, &governed),
        NewRefDelivery::AlreadyPublished
    );
}

#[test]
fn a_new_ref_at_a_commit_the_remote_holds_delivers_that_commit_or_nothing_at_the_server() {
    let every = Vouching::Advertised;
    let protected = Vouching::Protected(Vec::new());
    let empty = range("refs/tags/v1", A, Vec::new());
    assert_eq!(new_ref_delivery(&empty, &every), NewRefDelivery::OwnTip);
    assert_eq!(
        new_ref_delivery(&empty, &protected),
        NewRefDelivery::AlreadyPublished
    );
    let listed = range("refs/tags/v1", A, vec![commit(A, &[B])]);
    assert_eq!(new_ref_delivery(&listed, &every), NewRefDelivery::Listed);
    assert_eq!(
        new_ref_delivery(&listed, &protected),
        NewRefDelivery::Listed
    );
    let refused = DeliveredRange {
        problem: Some(RangeProblem::NotCommit),
        ..empty
    };
    assert_eq!(new_ref_delivery(&refused, &every), NewRefDelivery::Listed);
    assert_eq!(
        new_ref_delivery(&refused, &protected),
        NewRefDelivery::Listed
    );
}

#[test]
fn only_an_allow_by_a_proof_names_the_lineage_it_carries() {
    let lineage = "review-0123456789abcdef";
    let exact = allow(lineage);
    assert!(exact.allows());
    assert_eq!(exact.proven_by(), None, "an exact allow carries no proof");
    let proven = GateDecision {
        proof: Some(Box::new(GateProof {
            kind: crate::review::rebase::ProofKind::RebasedOnto,
            receipt_base: TreeId::parse(T).unwrap(),
            live_base: TreeId::parse(T).unwrap(),
            chain: Vec::new(),
        })),
        ..allow(lineage)
    };
    assert_eq!(proven.proven_by().map(|l| l.as_str()), Some(lineage));
    let denied = GateDecision {
        decision: Decision::Deny,
        ..proven
    };
    assert!(!denied.allows());
    assert_eq!(denied.proven_by(), None);
}
