//! Tests of `recovery`: links, successors, chains and the escalation guard.

use super::*;
use crate::review::causality::CausalFacts;
use crate::review::fixtures::{clean_result, parser_observation, start, start_input};
use crate::review::gate::point_at_escalation;
use crate::review::ids::TreeId;
use crate::review::lens::Lens;
use crate::review::state::check_successor;

fn nb(s: &str) -> NonBlank {
    NonBlank::parse(s).unwrap()
}

fn approved() -> StateRecord {
    let s = start(&parser_observation(), Lens::Reliability).unwrap();
    let s = s
        .accept_results(vec![clean_result()], &CausalFacts::default())
        .unwrap();
    s.accept_evidence(b"tests passed")
        .unwrap()
        .record()
        .unwrap()
}

/// The live candidate after an edit of a reviewed path.
fn changed_input() -> StartInput {
    let mut obs = parser_observation();
    obs.candidate_tree = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    start_input(&obs, Lens::Reliability).unwrap()
}

fn request(pred: &StateRecord, d: Disposition) -> RecoverRequest {
    RecoverRequest {
        expected_revision: pred.revision,
        disposition: d,
        reason: nb("the parser changed after approval"),
        actor: nb("maintainer"),
        authorization: None,
    }
}

fn scope(paths: &[RepoPath]) -> ScopeEvidence<'_> {
    ScopeEvidence {
        differing_paths: paths,
        owned_by_chain: false,
    }
}

fn reviewed_path() -> Vec<RepoPath> {
    vec![RepoPath::parse("src/parser.rs").unwrap()]
}

/// An approval and its scope-changed successor over the edited candidate.
fn chain() -> (StateRecord, ReviewState) {
    let pred = approved();
    let succ = successor(
        &pred,
        request(&pred, Disposition::ScopeChanged),
        scope(&reviewed_path()),
        changed_input(),
    )
    .unwrap();
    (pred, succ)
}

#[test]
fn a_scope_changed_successor_is_generation_two_and_names_its_predecessor() {
    let (pred, s) = chain();
    assert_eq!(s.generation, 2);
    assert_ne!(s.lineage_id, pred.state.lineage_id);
    let link = s.predecessor.as_ref().unwrap();
    assert_eq!(link.lineage_id, pred.state.lineage_id);
    assert_eq!(link.revision, pred.revision);
    assert_eq!(s.stage, Stage::Reviewing);
    // The record round-trips and validates.
    let rec = s.record().unwrap();
    assert_eq!(
        StateRecord::from_bytes(&rec.to_bytes().unwrap()).unwrap(),
        rec
    );
    // The link is frozen: no transition may change it.
    let mut forged = s.clone();
    forged.predecessor.as_mut().unwrap().actor = nb("someone else");
    assert!(check_successor(&s, &forged).is_err());
    // ...nor can it be swapped in a stored record: the id covers it.
    assert!(matches!(forged.validate(), Err(StateError::Lineage { .. })));
}

#[test]
fn ineligible_predecessors_are_refused() {
    let pred = approved();
    let mut stale = request(&pred, Disposition::ScopeChanged);
    stale.expected_revision = Sha256Digest::of(crate::review::state::EVIDENCE_DOMAIN, b"x");
    assert!(matches!(
        successor(&pred, stale, scope(&reviewed_path()), changed_input()),
        Err(RecoverError::RevisionMismatch { .. })
    ));
    // A candidate a lineage of the chain already froze is recovered
    // from the leaf even when its paths differ outside this scope.
    let owned = ScopeEvidence {
        differing_paths: &[],
        owned_by_chain: true,
    };
    assert!(
        successor(
            &pred,
            request(&pred, Disposition::ScopeChanged),
            owned,
            changed_input()
        )
        .is_ok()
    );
    // Unrelated new work is not a scope change.
    let other = vec![RepoPath::parse("docs/notes.md").unwrap()];
    assert!(matches!(
        successor(
            &pred,
            request(&pred, Disposition::ScopeChanged),
            scope(&other),
            changed_input()
        ),
        Err(RecoverError::ScopeUnchanged { .. })
    ));
    for d in [Disposition::Invalidated, Disposition::EscalationAuthorized] {
        assert!(matches!(
            successor(
                &pred,
                request(&pred, d),
                scope(&reviewed_path()),
                changed_input()
            ),
            Err(RecoverError::NotEligible {
                state: "approved",
                ..
            })
        ));
    }
    // A pristine review is invalidated first, never recovered directly.
    let pristine = start(&parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    assert!(matches!(
        successor(
            &pristine,
            request(&pristine, Disposition::Invalidated),
            scope(&[]),
            changed_input()
        ),
        Err(RecoverError::NotEligible {
            state: "reviewing",
            ..
        })
    ));
    let mut auth = request(&pred, Disposition::ScopeChanged);
    auth.authorization = Some(nb("ok"));
    assert_eq!(
        successor(&pred, auth, scope(&reviewed_path()), changed_input()),
        Err(RecoverError::AuthorizationNotApplicable)
    );
}

#[test]
fn invalidation_is_narrow_and_recovery_from_it_works() {
    let s = start(&parser_observation(), Lens::Reliability).unwrap();
    let inv = s.invalidate(nb("started on the wrong branch")).unwrap();
    assert_eq!(inv.stage.name(), "invalidated");
    assert!(inv.stage.is_final());
    assert!(!inv.stage.is_terminal(), "no receipt");
    assert_eq!(inv.snapshot, s.snapshot);
    // Exact retry; a different reason is a different retry.
    assert_eq!(
        inv.invalidate(nb("started on the wrong branch")).unwrap(),
        inv
    );
    assert!(inv.invalidate(nb("other")).is_err());
    // Not after judgment.
    let judged = s
        .accept_results(vec![clean_result()], &CausalFacts::default())
        .unwrap();
    assert!(judged.invalidate(nb("late")).is_err());
    // Recovery of the invalidated review, on the same candidate.
    let pred = inv.record().unwrap();
    let succ = successor(
        &pred,
        request(&pred, Disposition::Invalidated),
        scope(&[]),
        start_input(&parser_observation(), Lens::Reliability).unwrap(),
    )
    .unwrap();
    assert_eq!(succ.snapshot.target, pred.state.snapshot.target);
    assert_ne!(succ.lineage_id, pred.state.lineage_id);
}

#[test]
fn an_escalation_needs_an_authorization() {
    let pred = escalated_record();
    assert_eq!(
        successor(
            &pred,
            request(&pred, Disposition::EscalationAuthorized),
            scope(&[]),
            changed_input()
        ),
        Err(RecoverError::AuthorizationRequired)
    );
    let mut ok = request(&pred, Disposition::EscalationAuthorized);
    ok.authorization = Some(nb("maintainer decision #12"));
    let succ = successor(&pred, ok, scope(&[]), changed_input()).unwrap();
    assert_eq!(
        succ.predecessor
            .unwrap()
            .authorization
            .map(|a| a.to_string()),
        Some("maintainer decision #12".into())
    );
}

fn escalated_record() -> StateRecord {
    let s = start(&parser_observation(), Lens::Reliability).unwrap();
    let r = crate::review::finding::ReviewerResult::parse(
        br#"{"findings":[{"location":"src/parser.rs:1","severity":"BLOCKER","claim":"c","proof_refs":["p"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["e"]}"#,
    )
    .unwrap();
    let esc = s.accept_results(vec![r], &CausalFacts::default()).unwrap();
    assert_eq!(esc.stage.name(), "escalated");
    esc.record().unwrap()
}

fn paths(ps: &[&str]) -> Vec<RepoPath> {
    ps.iter().map(|p| RepoPath::parse(*p).unwrap()).collect()
}

#[test]
fn recover_commands_name_the_lineage_revision_and_disposition_its_state_allows() {
    let esc = escalated_record();
    let c = recover_command(&esc).unwrap();
    assert_eq!(
        c,
        format!(
            "probity recover --predecessor-lineage {} --expected-predecessor-revision {} --disposition escalation_authorized --reason R --actor A --authorization X",
            esc.state.lineage_id, esc.revision
        )
    );
    let ok = approved();
    assert!(
        recover_command(&ok)
            .unwrap()
            .ends_with("--disposition scope_changed --reason R --actor A")
    );
    let reviewing = start(&parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    assert_eq!(recover_command(&reviewing), None);
    let inv = reviewing
        .state
        .invalidate(nb("wrong candidate"))
        .unwrap()
        .record()
        .unwrap();
    assert!(
        recover_command(&inv)
            .unwrap()
            .contains("--disposition invalidated")
    );
}

#[test]
fn a_start_review_denial_over_an_escalation_names_its_recovery() {
    use crate::review::gate::{Authority, Gate, NextAction, ReasonCode, decide_target};
    use crate::review::snapshot::LiveTarget;
    let esc = escalated_record();
    let base = esc.state.snapshot.base_tree.clone();
    let live = LiveTarget::new(
        base.clone(),
        TreeId::parse("3333333333333333333333333333333333333333").unwrap(),
    );
    let deny = |paths: &[RepoPath]| {
        decide_target(
            Gate::PreCommit,
            &live,
            Authority::None {
                changed_paths: paths,
            },
        )
    };
    let d = point_at_escalation(
        deny(&esc.state.snapshot.paths),
        &base,
        &[(esc.clone(), false)],
    );
    assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
    assert_eq!(d.next_action, NextAction::HumanDecision);
    assert!(d.message.contains(&recover_command(&esc).unwrap()));
    // Unrelated paths, or an escalation already recovered: unchanged.
    let other = deny(&paths(&["docs/x.md"]));
    assert_eq!(
        point_at_escalation(other.clone(), &base, &[(esc.clone(), false)]),
        other
    );
    let same = deny(&esc.state.snapshot.paths);
    assert_eq!(
        point_at_escalation(same.clone(), &base, &[(esc, true)]),
        same
    );
}

#[test]
fn an_escalated_lineage_blocks_a_new_candidate_that_touches_its_paths() {
    let esc = escalated_record();
    let base = esc.state.snapshot.base_tree.clone();
    let reviewed = reviewed_paths(&esc.state);
    assert_eq!(reviewed, esc.state.snapshot.paths);
    let first = reviewed[0].as_str();
    let overlap = escalation_overlap(&esc.state, false, &base, &paths(&["a/other.rs", first]));
    assert_eq!(overlap, paths(&[first]));
}

#[test]
fn a_successor_freezes_the_live_work_else_the_predecessors_commit() {
    let live = parser_observation();
    let mut clean = live.clone();
    clean.changed.clear();
    let mut committed = live.clone();
    committed.candidate_tree = TreeId::parse("3333333333333333333333333333333333333333").unwrap();
    // Work in the worktree is what is recovered.
    assert_eq!(
        successor_observation(live.clone(), Some(committed.clone())),
        live
    );
    // A clean worktree: the commit that holds the predecessor's change.
    assert_eq!(
        successor_observation(clean.clone(), Some(committed.clone())),
        committed
    );
    // No such commit: the (empty) live candidate, refused later.
    assert_eq!(successor_observation(clean.clone(), None), clean);
}

fn side(o: &str) -> Option<crate::review::rebase::EntrySide> {
    Some(crate::review::rebase::EntrySide {
        mode: crate::review::snapshot::FileMode::Regular,
        object: crate::review::ids::ObjectId::parse(o.repeat(40)).unwrap(),
    })
}

fn entry(path: &str, base: &str, cand: &str) -> crate::review::rebase::DeltaEntry {
    crate::review::rebase::DeltaEntry {
        path: RepoPath::parse(path).unwrap(),
        base: side(base),
        candidate: side(cand),
    }
}

#[test]
fn the_escalated_change_is_covered_on_a_moved_base_by_its_own_sides() {
    let esc = escalated_record();
    let first = esc.state.snapshot.paths[0].as_str().to_owned();
    let change = EscalatedChange {
        record: esc.clone(),
        superseded: false,
        deltas: vec![crate::review::rebase::TreeDelta::new(vec![entry(&first, "a", "b")]).unwrap()],
    };
    let moved = TreeId::parse("2222222222222222222222222222222222222222").unwrap();
    // The same change carried onto a moved base.
    assert_eq!(
        escalation_covers(&change, &moved, &[entry(&first, "a", "b")]),
        paths(&[&first])
    );
    // Edited further from the same starting entry.
    assert_eq!(
        escalation_covers(&change, &moved, &[entry(&first, "a", "c")]),
        paths(&[&first])
    );
    // Its bytes reached from another starting entry.
    assert_eq!(
        escalation_covers(&change, &moved, &[entry(&first, "d", "b")]),
        paths(&[&first])
    );
    // The committed change reverted: another change.
    assert!(escalation_covers(&change, &moved, &[entry(&first, "b", "a")]).is_empty());
    // Unrelated paths, a superseded escalation, a lineage not escalated.
    assert!(escalation_covers(&change, &moved, &[entry("docs/x.md", "a", "b")]).is_empty());
    let superseded = EscalatedChange {
        superseded: true,
        ..change.clone()
    };
    assert!(escalation_covers(&superseded, &moved, &[entry(&first, "a", "b")]).is_empty());
    let not_escalated = EscalatedChange {
        record: approved(),
        ..change.clone()
    };
    assert!(escalation_covers(&not_escalated, &moved, &[entry(&first, "a", "b")]).is_empty());
    // On its own base every reviewed path is covered, whatever its sides.
    let base = esc.state.snapshot.base_tree.clone();
    assert_eq!(
        escalation_covers(&change, &base, &[entry(&first, "e", "f")]),
        paths(&[&first])
    );
}

#[test]
fn disjoint_paths_another_base_or_a_superseded_escalation_block_nothing() {
    let esc = escalated_record();
    let base = esc.state.snapshot.base_tree.clone();
    let first = esc.state.snapshot.paths[0].as_str().to_owned();
    // Unrelated work on the same base.
    assert!(
        escalation_overlap(&esc.state, false, &base, &paths(&["docs/unrelated.md"])).is_empty()
    );
    // The same paths on another base: another review.
    let other = TreeId::parse("2222222222222222222222222222222222222222").unwrap();
    assert!(escalation_overlap(&esc.state, false, &other, &paths(&[&first])).is_empty());
    // Superseded by an authorized successor: the successor is the authority.
    assert!(escalation_overlap(&esc.state, true, &base, &paths(&[&first])).is_empty());
    // A lineage that is not escalated blocks nothing here.
    let approved = approved();
    assert!(
        escalation_overlap(
            &approved.state,
            false,
            &approved.state.snapshot.base_tree,
            &approved.state.snapshot.paths
        )
        .is_empty()
    );
}

#[test]
fn chains_verify_and_fail_closed() {
    let (pred, succ) = chain();
    let good = Ancestor {
        record: pred.clone(),
        successor: Some(succ.lineage_id.clone()),
    };
    assert_eq!(check_chain(&succ, &[Some(good.clone())]), Ok(()));
    assert_eq!(check_chain(&pred.state, &[]), Ok(()));
    // Dangling.
    assert!(matches!(
        check_chain(&succ, &[None]),
        Err(ChainError::Dangling { .. })
    ));
    assert!(matches!(
        check_chain(&succ, &[]),
        Err(ChainError::Dangling { .. })
    ));
    // The predecessor moved after the successor was made.
    let mut moved = good.clone();
    moved.record.revision = Sha256Digest::of(crate::review::state::EVIDENCE_DOMAIN, b"y");
    assert!(matches!(
        check_chain(&succ, &[Some(moved)]),
        Err(ChainError::RevisionMismatch { .. })
    ));
    // The predecessor's marker names another successor (a fork), or none.
    for marker in [Some(pred.state.lineage_id.clone()), None] {
        let forked = Ancestor {
            record: pred.clone(),
            successor: marker,
        };
        assert!(matches!(
            check_chain(&succ, &[Some(forked)]),
            Err(ChainError::Fork { .. })
        ));
    }
}

#[test]
fn a_first_record_is_made_only_of_a_record_that_names_no_predecessor() {
    let (pred, succ) = chain();
    let succ = succ.record().unwrap();
    let first = FirstRecord::check(pred.clone()).unwrap();
    assert_eq!(first.record(), &pred);
    assert_eq!(first.into_record(), pred);
    // A successor made a first record would stand beside its predecessor
    // with no supersession marker: a chain no reader accepts.
    assert_eq!(
        FirstRecord::check(succ.clone()),
        Err(NewLineageError::Successor {
            lineage: succ.state.lineage_id.clone(),
            predecessor: pred.state.lineage_id.clone(),
        })
    );
}

#[test]
fn a_successor_is_made_only_on_the_record_its_link_names_one_generation_on() {
    let (pred, succ) = chain();
    let made = Successor::check(&pred, succ.record().unwrap()).unwrap();
    assert_eq!(made.predecessor(), &pred.state.lineage_id);
    assert_eq!(made.expected(), &pred.revision);
    assert_eq!(made.record().state, succ);
    assert_eq!(made.into_record().state, succ);
    // A first record is no successor.
    let e = Successor::check(&pred, pred.clone()).unwrap_err();
    assert_eq!(
        e,
        NewLineageError::NoPredecessor {
            lineage: pred.state.lineage_id.clone()
        }
    );
    assert_eq!(e.to_string(), "a successor must name its predecessor");
    // Another record than the one the link names.
    let other = crate::review::fixtures::budget_scenario()
        .unwrap()
        .record()
        .unwrap();
    assert!(matches!(
        Successor::check(&other, succ.record().unwrap()),
        Err(NewLineageError::Link(ChainError::Dangling { .. }))
    ));
    // The predecessor at another revision than the link recorded.
    let moved = StateRecord {
        revision: other.revision,
        ..pred.clone()
    };
    assert!(matches!(
        Successor::check(&moved, succ.record().unwrap()),
        Err(NewLineageError::Link(ChainError::RevisionMismatch { found, .. }))
            if found == other.revision
    ));
    // Not one generation on.
    let skipped = ReviewState::genesis(changed_input(), 3, succ.predecessor.clone())
        .unwrap()
        .record()
        .unwrap();
    assert!(matches!(
        Successor::check(&pred, skipped),
        Err(NewLineageError::Link(ChainError::Generation {
            generation: 3,
            ..
        }))
    ));
}
