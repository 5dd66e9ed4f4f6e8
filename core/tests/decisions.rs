//! Decisions the drivers used to make themselves, now core's pure
//! functions (issue 14 §2): applicability, the fix charging rule, the
//! live candidate a stage expects, the open-correction rules, the
//! start-overlap and resume rules and the recovery-retry equality.

use probity_core::review::Applicability;
use probity_core::review::FixMeasurement;
use probity_core::review::Forecast;
use probity_core::review::Lens;
use probity_core::review::fixtures::{self, fix, text_change, validation};
use probity_core::review::{Disposition, Predecessor, RecoverRequest};
use probity_core::review::{NonBlank, RepoPath, ReviewState, TreeId};
use probity_core::review::{RiskLevel, RiskReason};

fn p(s: &str) -> RepoPath {
    RepoPath::parse(s).unwrap()
}

/// `r0` judged clean and approved on `evidence`.
fn approved_on(r0: &ReviewState, evidence: &[u8]) -> ReviewState {
    r0.accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(evidence)
        .unwrap()
}

#[test]
fn applicability_is_scope_changed_only_inside_the_reviewed_paths() {
    let reviewed = vec![p("src/a.rs"), p("src/b.rs")];
    assert_eq!(
        Applicability::of_difference(&reviewed, &[p("docs/x.md")]),
        Applicability::Unrelated
    );
    assert_eq!(
        Applicability::of_difference(&reviewed, &[p("docs/x.md"), p("src/b.rs")]),
        Applicability::ScopeChanged
    );
    assert_eq!(
        Applicability::of_difference(&reviewed, &[]),
        Applicability::Unrelated
    );
}

#[test]
fn a_fix_is_charged_every_changed_line_and_a_mode_change_one() {
    let to = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    let mut chmod = text_change("run.sh", 0, 0, "#!/bin/sh\n");
    chmod.new_mode = Some(probity_core::review::FileMode::Executable);
    let files = vec![text_change("src/a.rs", 3, 2, "x"), chmod];
    let m = FixMeasurement::of(files.clone(), to.clone(), &files, &[], Vec::new());
    assert_eq!(m.actual_lines, 6);
    assert_eq!(m.paths, vec![p("src/a.rs"), p("run.sh")]);
    assert_eq!(m.to_tree, to);
    assert_eq!(
        FixMeasurement::of(Vec::new(), to, &files, &[], Vec::new()).actual_lines,
        0
    );
}

/// A fix's tier is the whole change's, base to the fixed tree, with the
/// base policy's floors (D-R132): a fix of one line that spawns a process
/// leaves a high-risk change, and a floor raises a medium one.
#[test]
fn a_fix_measures_the_tier_of_the_change_it_leaves() {
    let to = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    let fix = vec![text_change("src/a.rs", 1, 0, "x")];
    let plain = vec![text_change("src/a.rs", 3, 0, "fn a() {}\n")];
    let spawning = vec![text_change(
        "src/a.rs",
        3,
        0,
        "fn a() { std::process::Command::new(\"sh\"); }\n",
    )];
    let tier =
        |whole: &[_], floor| FixMeasurement::of(fix.clone(), to.clone(), whole, &[], floor).tier;
    assert_eq!(tier(&plain, Vec::new()), RiskLevel::Medium);
    assert_eq!(tier(&spawning, Vec::new()), RiskLevel::High);
    let floor = vec![RiskReason::PolicyFloor("secrets".into())];
    assert_eq!(tier(&plain, floor), RiskLevel::High);
}

#[test]
fn each_stage_expects_its_own_live_candidate() {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    assert_eq!(
        r0.expected_live(),
        Some((r0.snapshot().target, &r0.snapshot().candidate_tree))
    );
    // In correction: none (the fix is measured), from the frozen tree
    // until an attempt lands, then from its tree.
    let c0 = fixtures::budget_scenario().unwrap();
    assert_eq!(c0.expected_live(), None);
    assert_eq!(c0.correction_from_tree(), &c0.snapshot().candidate_tree);
    assert!(c0.is_open_correction_on(&c0.snapshot().base_tree));
    assert!(!c0.is_open_correction_on(&c0.snapshot().candidate_tree));
    let c1 = c0.accept_forecast(Forecast::new(5).unwrap()).unwrap();
    let failed = c1.accept_validation(fix(7, 3), validation(false)).unwrap();
    assert_eq!(failed.correction_from_tree(), &fix(7, 3).to_tree);
    // Validating after a passing attempt: the corrected candidate.
    let c2 = failed
        .accept_forecast(Forecast::new(4).unwrap())
        .unwrap()
        .accept_validation(fix(8, 2), validation(true))
        .unwrap();
    assert_eq!(
        c2.expected_live(),
        Some((c2.final_target(), c2.final_candidate_tree()))
    );
    assert!(!c2.is_open_correction_on(&c2.snapshot().base_tree));
    // A fix may touch only the genesis paths.
    assert!(c0.takes_fix_of(&c0.snapshot().paths[..1]));
    assert!(c0.takes_fix_of(&[]));
    assert!(!c0.takes_fix_of(&[p("elsewhere.rs")]));
}

#[test]
fn a_recovery_retry_is_exactly_the_recorded_request() {
    let nb = |s: &str| NonBlank::parse(s).unwrap();
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    let request = RecoverRequest {
        expected_revision: r0.revision(),
        disposition: Disposition::Invalidated,
        reason: nb("wrong branch"),
        actor: nb("dev"),
        authorization: None,
    };
    let link = Predecessor {
        lineage_id: r0.state().lineage_id().clone(),
        revision: r0.revision(),
        disposition: Disposition::Invalidated,
        reason: nb("wrong branch"),
        actor: nb("dev"),
        authorization: None,
    };
    assert!(link.records(r0.state().lineage_id(), &request));
    let mut other = request.clone();
    other.reason = nb("another reason");
    assert!(!link.records(r0.state().lineage_id(), &other));
    let mut authorized = request.clone();
    authorized.authorization = Some(nb("the lead"));
    assert!(!link.records(r0.state().lineage_id(), &authorized));
    let elsewhere = fixtures::budget_scenario().unwrap().lineage_id().clone();
    assert!(!link.records(&elsewhere, &request));
}

#[test]
fn a_start_over_an_open_corrections_paths_is_refused_and_resumes_only_its_own_candidate() {
    use probity_core::review::FrozenCandidate;
    use probity_core::review::Resumable;
    let c0 = fixtures::budget_scenario().unwrap();
    // The same base and one of its paths: blocked while in correction.
    let same = c0.snapshot().clone();
    assert!(c0.correction_blocks_start(&same));
    // Other paths on the same base, or the same paths on another base: not.
    let mut elsewhere = fixtures::parser_observation();
    elsewhere.base_tree = c0.snapshot().base_tree.clone();
    let elsewhere = FrozenCandidate::freeze(&elsewhere).unwrap();
    assert!(
        elsewhere
            .paths
            .iter()
            .all(|q| c0.snapshot().paths.binary_search(q).is_err())
    );
    assert!(!c0.correction_blocks_start(&elsewhere));
    let mut moved = same.clone();
    moved.base_tree = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    assert!(!c0.correction_blocks_start(&moved));
    // Out of correction (validating after a passing attempt): not.
    let c2 = c0
        .accept_forecast(Forecast::new(4).unwrap())
        .unwrap()
        .accept_validation(fix(8, 2), validation(true))
        .unwrap();
    assert!(!c2.correction_blocks_start(&same));

    // Resume: the lineage's own final candidate, yes; the candidate it
    // corrected into another tree, no; an invalidated one, no.
    assert_eq!(c2.resumable_for(&c2.final_target()), Resumable::Yes);
    assert_eq!(
        c2.resumable_for(&c2.snapshot().target),
        Resumable::CorrectedElsewhere
    );
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    assert_eq!(r0.resumable_for(&r0.snapshot().target), Resumable::Yes);
    let gone = r0
        .invalidate(NonBlank::parse("wrong branch").unwrap())
        .unwrap();
    assert_eq!(
        gone.resumable_for(&r0.snapshot().target),
        Resumable::Invalidated
    );
}

#[test]
fn status_offers_a_recovery_only_from_a_leaf_and_from_an_approval_only_when_its_scope_changed() {
    use probity_core::review::{Applicability, offered_recovery};
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    // Not final: nothing to recover.
    assert_eq!(
        offered_recovery(&r0.record().unwrap(), false, Applicability::Current),
        None
    );
    let approved = approved_on(&r0, b"tests passed\n").record().unwrap();
    let command = offered_recovery(&approved, false, Applicability::ScopeChanged).unwrap();
    assert!(command.contains("--disposition scope_changed"), "{command}");
    for unchanged in [
        Applicability::Current,
        Applicability::Unrelated,
        Applicability::Rebased,
    ] {
        assert_eq!(offered_recovery(&approved, false, unchanged), None);
    }
    // History is recovered from its leaf, never from itself.
    assert_eq!(
        offered_recovery(&approved, true, Applicability::ScopeChanged),
        None
    );
    // An invalidated lineage is offered its successor whatever the live
    // candidate is.
    let gone = r0
        .invalidate(NonBlank::parse("wrong branch").unwrap())
        .unwrap()
        .record()
        .unwrap();
    let command = offered_recovery(&gone, false, Applicability::Unrelated).unwrap();
    assert!(command.contains("--disposition invalidated"), "{command}");
}

#[test]
fn lens_results_are_due_when_given_when_every_selected_lens_submitted_or_when_none_is_selected() {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let selected = r0.frozen().selected_lenses.clone();
    assert!(!selected.is_empty());
    assert!(!r0.results_due(0, &[]), "nothing given, nothing kept");
    assert!(r0.results_due(1, &[]), "given on the command line");
    assert!(r0.results_due(0, &selected), "every selected lens kept one");
    if selected.len() > 1 {
        assert!(!r0.results_due(0, &selected[..1]), "one lens still out");
    }
    // Once judged, kept results are history; only a given one is an input
    // (which the transition then refuses).
    let judged = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap();
    assert!(!judged.results_due(0, &selected));
    assert!(judged.results_due(1, &[]));
    // No lens selected: the empty set is the input, once.
    let mut docs = fixtures::parser_observation();
    docs.changed = vec![text_change("docs/notes.md", 3, 1, "notes\n")];
    docs.intended_untracked = Vec::new();
    let z0 = fixtures::start(&docs, Lens::Reliability).unwrap();
    assert!(z0.frozen().selected_lenses.is_empty());
    assert!(z0.results_due(0, &[]));
    let z1 = z0.accept_results(Vec::new(), &Default::default()).unwrap();
    assert!(!z1.results_due(0, &[]));
}

#[test]
fn only_an_approved_lineage_covers_exactly_its_final_target() {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let target = r0.snapshot().target;
    assert!(!r0.delivers_target(&target), "not approved yet");
    let approved = approved_on(&r0, b"ok");
    assert!(approved.delivers_target(&target));
    let other = fixtures::budget_scenario().unwrap().snapshot().target;
    assert!(!approved.delivers_target(&other));
}

#[test]
fn a_lineage_relates_to_a_live_target_as_core_classifies_it() {
    use probity_core::review::RebaseCheck;
    use probity_core::review::{Applicability, Relation};
    assert_eq!(Relation::current().applicability, Applicability::Current);
    let reviewed = vec![p("src/a.rs"), p("src/b.rs")];
    let inside = Relation::of_difference(&reviewed, vec![p("src/b.rs")]);
    assert_eq!(inside.applicability, Applicability::ScopeChanged);
    assert_eq!(inside.differing_paths, vec![p("src/b.rs")]);
    let outside = Relation::of_difference(&reviewed, vec![p("docs/x.md")]);
    assert_eq!(outside.applicability, Applicability::Unrelated);
    let differs = Relation::of_rebase(RebaseCheck::Differs(vec![p("src/a.rs")]));
    assert_eq!(differs.applicability, Applicability::ScopeChanged);
    assert_eq!(differs.proof, None);
    // Only an approved change reviewed on another base may be carried.
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let other = r0.snapshot().candidate_tree.clone();
    assert!(!r0.may_carry_onto(&other), "not approved");
    let approved = approved_on(&r0, b"ok");
    assert!(approved.may_carry_onto(&other));
    assert!(!approved.may_carry_onto(&approved.snapshot().base_tree.clone()));
}
