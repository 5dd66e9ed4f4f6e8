//! Escalation cannot be side-stepped (issue 8 §5): after any escalation, a
//! new `start` over the paths it reviewed is refused with the recovery a
//! maintainer must authorize, and that printed command works.

mod support;

use support::*;

impl Flow {
    /// Started and judged with `result`.
    fn judged(result: &str) -> Flow {
        let (flow, s) = Flow::start(change());
        assert_eq!(s.code, 0, "{}", s.stdout);
        let r = flow.doc("r.json", result);
        flow.run(&["--result", &r]);
        flow
    }

    fn state(&self) -> Run {
        probity(self.f.root(), &["status", "--lineage", &self.lineage])
    }

    /// A new `start` is refused `lineage_escalated` with nothing written;
    /// returns its next action and the store it left.
    fn start_refused(&self) -> (String, Snapshot) {
        let before = store_snapshot(&self.f);
        let refused = probity(self.f.root(), &["start"]);
        refused.assert_refused(4, "lineage_escalated");
        assert_eq!(store_snapshot(&self.f), before, "a refused start wrote");
        let next = refused.next_action();
        assert!(next.contains(&self.lineage), "{next}");
        (next.to_owned(), before)
    }

    /// The pre-commit gate denies, asking a person to decide; returns its
    /// answer.
    fn gate_asks_a_person(&self) -> Run {
        let g = probity(self.f.root(), &["validate", "--gate", "pre-commit"]);
        assert_eq!(
            (g.json["decision"].as_str(), g.json["next_action"].as_str()),
            (Some("deny"), Some("human_decision")),
            "{}",
            g.stdout
        );
        g
    }

    /// Runs the recovery `next` prints: the successor is generation 2 of
    /// this lineage, and `start` then gives it; returns the recovery's and
    /// the start's answers.
    fn recover_as_printed(&self, next: &str) -> (Run, Run) {
        let args = printed_recover(next);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let rec = probity_ok(self.f.root(), &args);
        assert_eq!(rec.json["generation"], 2);
        assert_eq!(rec.json["predecessor"]["lineage_id"], self.lineage.as_str());
        let again = probity(self.f.root(), &["start"]);
        assert_eq!(again.code, 0, "{}", again.stdout);
        assert_eq!(again.json["lineage_id"], rec.json["lineage_id"]);
        (rec, again)
    }

    /// Commits an unrelated file, moving the base.
    fn commit_unrelated(&self) {
        self.f.write("notes/unrelated.md", "elsewhere\n").unwrap();
        self.f.git(&["add", "notes/unrelated.md"]).unwrap();
        self.f
            .git(&["commit", "--no-verify", "-q", "-m", "unrelated"])
            .unwrap();
    }

    /// Work on another path starts a new lineage.
    fn other_path_starts_anew(&self) {
        self.f
            .write("src/other.rs", "fn o() {}\nfn p() {}\n")
            .unwrap();
        let s = probity(self.f.root(), &["start"]);
        assert_eq!(s.code, 0, "{}", s.stdout);
        assert_ne!(s.json["lineage_id"], self.lineage.as_str());
    }

    /// The run escalated for `reason`; then a side-step is refused and the
    /// printed advice works.
    fn escalated_for(self, v: &Run, reason: &str) {
        assert_eq!(v.json["escalation_reason"], reason, "{}", v.stdout);
        side_step_is_refused_and_the_advice_works(self);
    }
}

type Snapshot = std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>;

/// The recover command in a `lineage_escalated` answer, with the values a
/// person gives filled in, as arguments after `probity`.
fn printed_recover(next: &str) -> Vec<String> {
    printed_recover_filled(
        next,
        "the maintainer reviewed the escalation",
        "decision #7",
    )
}

/// After the escalation in `flow`: an edit of the reviewed path and a new
/// start are refused with nothing written; the printed recovery works, and
/// `start` then resumes its successor.
fn side_step_is_refused_and_the_advice_works(flow: Flow) {
    let st = flow.state();
    assert_eq!(st.json["state"], "escalated", "{}", st.stdout);
    flow.f.write("src/parser.rs", body(9)).unwrap();
    let (next, _) = flow.start_refused();
    let next = next.as_str();
    assert!(
        next.contains(st.json["store_revision"].as_str().unwrap()),
        "{next}"
    );
    assert!(!next.contains("<id>") && !next.contains("<rev>"), "{next}");
    // The gate over the edited candidate gives the same way on, not a start.
    let g = flow.gate_asks_a_person();
    assert_eq!(
        printed_recover(g.json["message"].as_str().unwrap()),
        printed_recover(next)
    );
    // The authorized successor is the authority now: start resumes it.
    let (rec, again) = flow.recover_as_printed(next);
    assert_eq!(rec.json["predecessor"]["authorization"], "decision #7");
    assert_eq!(again.json["resumed"], true);
}

#[test]
fn an_escalated_finding_cannot_be_side_stepped() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    side_step_is_refused_and_the_advice_works(flow);
}

#[test]
fn a_no_edit_attempt_cannot_be_side_stepped() {
    let flow = Flow::judged(PARSER_BLOCKER);
    flow.run(&["--correction-lines", "1"]);
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    flow.escalated_for(&v, "no_edit_attempt");
}

#[test]
fn a_forecast_over_budget_cannot_be_side_stepped() {
    let flow = Flow::judged(PARSER_BLOCKER);
    let v = flow.run(&["--correction-lines", "9"]);
    flow.escalated_for(&v, "forecast_over_budget");
}

#[test]
fn an_exceeded_budget_cannot_be_side_stepped() {
    let flow = Flow::judged(PARSER_BLOCKER);
    flow.run(&["--correction-lines", "2"]);
    let mut body = body(0);
    for i in 0..20 {
        body.push_str(&format!("fn extra{i}() {{}}\n"));
    }
    flow.f.write("src/parser.rs", body).unwrap();
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    flow.escalated_for(&v, "budget_exceeded");
}

#[test]
fn exhausted_attempts_cannot_be_side_stepped() {
    let flow = Flow::judged(PARSER_BLOCKER);
    let fail = flow.doc("fail.json", VALIDATION_FAIL);
    let mut last = None;
    for n in 2..=4 {
        flow.run(&["--correction-lines", "2"]);
        flow.f.write("src/parser.rs", body(n)).unwrap();
        last = Some(flow.run(&["--validation", &fail]));
    }
    let v = last.unwrap();
    flow.escalated_for(&v, "attempts_exhausted");
}

#[test]
fn work_outside_an_escalated_lineage_paths_starts_normally() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    assert_eq!(flow.state().json["state"], "escalated");
    // The escalated paths back to the base; unrelated work elsewhere.
    flow.f.write("src/parser.rs", "fn a() {}\n").unwrap();
    flow.other_path_starts_anew();
}

#[test]
fn the_unchanged_escalated_candidate_still_resumes_its_lineage() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    let s = probity(flow.f.root(), &["start"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    assert_eq!(s.json["lineage_id"], flow.lineage.as_str());
    assert_eq!(s.json["state"], "escalated");
}

/// Issue 21 §8: the guard keys on the escalated change itself, not only on
/// its base. Stashing the escalated change, committing something else and
/// popping it back moves the base; a fresh start of the same change on the
/// moved base is still refused, naming the escalated lineage, with a store
/// left as it was; the printed authorized recovery then works.
#[test]
fn moving_the_base_does_not_side_step_an_escalation() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    let st = flow.state();
    assert_eq!(st.json["state"], "escalated", "{}", st.stdout);
    flow.f.git(&["stash"]).unwrap();
    flow.commit_unrelated();
    flow.f.git(&["stash", "pop"]).unwrap();
    let (next, before) = flow.start_refused();
    let next = next.as_str();
    // Edited further on the moved base: still the escalated change's
    // starting point on that path, still refused.
    flow.f.write("src/parser.rs", body(5)).unwrap();
    let edited = probity(flow.f.root(), &["start"]);
    edited.assert_error("lineage_escalated");
    assert_eq!(store_snapshot(&flow.f), before, "a refused start wrote");
    // The gate names the escalation's recovery too, not a fresh review.
    flow.gate_asks_a_person();
    // Status agrees: no lineage is current, and its way on is the
    // escalation's recovery, not a start that would be refused.
    let st = probity(flow.f.root(), &["status"]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    assert_eq!(
        (st.json["action"].as_str(), st.json["lineage_id"].as_str()),
        (Some("human_decision"), Some(flow.lineage.as_str())),
        "{}",
        st.stdout
    );
    assert_eq!(
        printed_recover(st.json["message"].as_str().unwrap()),
        printed_recover(next)
    );
    // The way on is the authorized recovery it printed.
    flow.recover_as_printed(next);
}

/// Unrelated work on a moved base (the escalated change dropped) starts
/// normally: the guard blocks only the escalated change's own paths.
#[test]
fn a_change_on_another_path_of_a_moved_base_starts_normally() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    flow.f.git(&["stash"]).unwrap();
    flow.commit_unrelated();
    flow.f.git(&["stash", "drop"]).unwrap();
    flow.other_path_starts_anew();
}

/// An escalation whose trees were pruned (its change dropped, the objects
/// collected) cannot be derived any more: it still guards its own base's
/// paths, and it never makes every other start in the repository fail.
#[test]
fn a_pruned_escalation_does_not_break_other_starts() {
    let flow = Flow::judged(PARSER_UNKNOWN);
    flow.f.git(&["checkout", "--", "src/parser.rs"]).unwrap();
    flow.commit_unrelated();
    flow.f
        .git(&["reflog", "expire", "--expire=now", "--all"])
        .unwrap();
    flow.f.git(&["gc", "-q", "--prune=now"]).unwrap();
    let escalated = flow
        .f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&flow.lineage);
    assert!(escalated.join("state.json").is_file());
    flow.f
        .write("src/other.rs", "fn o() {}\nfn p() {}\n")
        .unwrap();
    probity_ok(flow.f.root(), &["start"]);
    let g = probity(flow.f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(g.json["reason_code"], "review_incomplete", "{}", g.stdout);
}
