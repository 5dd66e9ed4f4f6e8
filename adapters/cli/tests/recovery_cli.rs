//! Invalidation and recovery (R9.1–R9.3) through the real binary on real
//! repositories: audited successors, never rewritten predecessors, and
//! discovery that trusts only the valid leaf.

mod support;

use probity_git::fixture::Fixture;
use support::*;

const ESCALATING: &str = r#"{"findings":[{"location":"src/parser.rs:2","severity":"BLOCKER","claim":"may panic","proof_refs":["reading"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["read it"]}"#;

fn state_file(f: &Fixture, lineage: &str) -> std::path::PathBuf {
    lineage_dir(f, lineage).join("state.json")
}

fn started(f: &Fixture) -> (String, String) {
    let s = probity_ok(f.root(), &["start"]);
    (
        s.json["lineage_id"].as_str().unwrap().to_string(),
        s.json["store_revision"].as_str().unwrap().to_string(),
    )
}

/// `finalize --lineage LINEAGE` with the clean result and evidence.
fn finalize_clean(f: &Fixture, dir: &std::path::Path, lineage: &str) -> Run {
    let r = input(dir, "r.json", CLEAN_RESULT);
    let ev = input(dir, "ev.txt", "tests passed\n");
    let args = ["finalize", "--lineage", lineage, "--result", &r];
    probity(f.root(), &[&args[..], &["--evidence", &ev]].concat())
}

fn approve(f: &Fixture, dir: &std::path::Path, lineage: &str) -> serde_json::Value {
    let done = finalize_clean(f, dir, lineage);
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
    done.json
}

/// Invalidates `lineage`; returns the store revision it answered.
fn invalidated(f: &Fixture, lineage: &str) -> String {
    string_at(&invalidate(f, lineage, "x").json, "store_revision")
}

/// `probity validate --gate pre-commit`.
fn pre_commit(f: &Fixture) -> Run {
    probity(f.root(), &["validate", "--gate", "pre-commit"])
}

/// Asserts the pre-commit gate allows, on `lineage`'s receipt.
fn assert_allowed_by(f: &Fixture, lineage: &str) {
    let ok = pre_commit(f);
    assert_eq!(ok.json["decision"], "allow", "{}", ok.stdout);
    assert_eq!(ok.json["lineage_id"], lineage, "{}", ok.stdout);
}

/// The recovery's successor, the recovery asserted to exit 0.
fn successor(rec: &Run) -> String {
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    string_at(&rec.json, "lineage_id")
}

/// The medium change, a directory for inputs, and the review started.
fn medium_started() -> (Fixture, tempfile::TempDir, String) {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (lineage, _) = started(&f);
    (f, tmp, lineage)
}

/// `finalize --result` of the lens `result`.
fn judged(f: &Fixture, dir: &std::path::Path, result: &str) -> Run {
    let r = input(dir, "r.json", result);
    probity(f.root(), &["finalize", "--result", &r])
}

fn recover(f: &Fixture, pred: &str, rev: &str, disposition: &str, extra: &[&str]) -> Run {
    recover_for(
        f,
        pred,
        rev,
        disposition,
        "the candidate changed after approval",
        extra,
    )
}

/// [`recover`] for `reason`.
fn recover_for(
    f: &Fixture,
    pred: &str,
    rev: &str,
    disposition: &str,
    reason: &str,
    extra: &[&str],
) -> Run {
    let args = recover_args(pred, rev, disposition, reason, "maintainer");
    probity(f.root(), &[&args[..], extra].concat())
}

#[test]
fn invalidation_is_narrow_and_its_successor_reviews_the_candidate_again() {
    let (f, tmp, lineage) = medium_started();

    // Bad inputs change nothing.
    let before = store_snapshot(&f);
    let blank = invalidate(&f, &lineage, "  ");
    assert_eq!(blank.code, 2, "{}", blank.stdout);
    let bad = invalidate(&f, "nope", "x");
    assert_eq!(bad.code, 3);
    assert!(store_snapshot(&f) == before, "the store changed");

    let inv = invalidate(&f, &lineage, "started on the wrong branch");
    assert_eq!(inv.code, 0, "{}{}", inv.stdout, inv.stderr);
    assert_eq!(inv.json["state"], "invalidated");
    assert_eq!(inv.json["action"], "recover");
    let inv_rev = string_at(&inv.json, "store_revision");
    // An exact retry answers the same.
    let again = invalidate(&f, &lineage, "started on the wrong branch");
    assert_eq!(again.json["store_revision"], inv_rev.as_str());

    // The candidate is not silently reviewed again, and the gate says why.
    let st = probity(f.root(), &["start"]);
    st.assert_refused(4, "lineage_invalidated");
    let gate = pre_commit(&f);
    assert_eq!(gate.code, 1);
    assert_eq!(gate.json["reason_code"], "review_invalidated");
    assert_eq!(gate.json["next_action"], "recover");

    // The successor: generation 2, the predecessor untouched on disk.
    let pred_bytes = std::fs::read(state_file(&f, &lineage)).unwrap();
    let rec = recover(&f, &lineage, &inv_rev, "invalidated", &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(rec.json["generation"], 2);
    assert_eq!(rec.json["resumed"], false);
    assert_eq!(rec.json["predecessor"]["lineage_id"], lineage.as_str());
    assert_eq!(rec.json["predecessor"]["revision"], inv_rev.as_str());
    assert_eq!(rec.json["predecessor"]["disposition"], "invalidated");
    let succ = string_at(&rec.json, "lineage_id");
    assert_ne!(succ, lineage);
    assert_eq!(std::fs::read(state_file(&f, &lineage)).unwrap(), pred_bytes);

    // A retry of the same request resumes it; another request would fork.
    let retry = recover(&f, &lineage, &inv_rev, "invalidated", &[]);
    assert_eq!(retry.json["lineage_id"], succ.as_str());
    assert_eq!(retry.json["resumed"], true);
    let before = store_snapshot(&f);
    let forked = recover_for(&f, &lineage, &inv_rev, "invalidated", "another reason", &[]);
    forked.assert_refused(4, "already_superseded");
    assert!(
        store_snapshot(&f) == before,
        "a refused fork wrote something"
    );

    // `start` finds the successor; it approves, and the gate allows.
    let resumed = probity(f.root(), &["start"]);
    assert_eq!(resumed.json["lineage_id"], succ.as_str());
    approve(&f, tmp.path(), &succ);
    assert_allowed_by(&f, &succ);
    let st = probity(f.root(), &["status", "--lineage", &lineage]);
    assert_eq!(st.json["superseded_by"], succ.as_str());
}

#[test]
fn invalidation_after_judgment_is_refused() {
    let (f, tmp, lineage) = medium_started();
    let fin = judged(&f, tmp.path(), CLEAN_RESULT);
    assert_eq!(fin.json["state"], "validating");
    let before = store_snapshot(&f);
    let inv = invalidate(&f, &lineage, "late");
    inv.assert_refused(3, "wrong_stage");
    assert!(store_snapshot(&f) == before, "the store changed");
}

#[test]
fn an_approved_review_whose_scope_changed_has_an_audited_successor() {
    let (f, tmp, lineage) = medium_started();
    let done = approve(&f, tmp.path(), &lineage);
    let rev = string_at(&done, "store_revision");
    let approved_parser = std::fs::read(f.root().join("src/parser.rs")).unwrap();

    // Unrelated new work is not a scope change.
    f.write("docs/notes.md", "notes\n").unwrap();
    let before = store_snapshot(&f);
    let unrelated = recover(&f, &lineage, &rev, "scope_changed", &[]);
    unrelated.assert_refused(3, "scope_unchanged");
    // A stale revision, a wrong disposition and a stray authorization are
    // refused too, and nothing is written.
    let stale = recover(
        &f,
        &lineage,
        "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        "scope_changed",
        &[],
    );
    stale.assert_error("revision_mismatch");
    let wrong = recover(&f, &lineage, &rev, "invalidated", &[]);
    assert_eq!(wrong.json["error"]["code"], "not_eligible");
    let bad_rev = recover(&f, &lineage, "abc", "scope_changed", &[]);
    assert_eq!(bad_rev.code, 2);
    assert!(store_snapshot(&f) == before, "the store changed");
    f.remove("docs/notes.md").unwrap();

    // The reviewed file changes: the gate denies, recovery is eligible.
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { todo() }\n",
    )
    .unwrap();
    let gate = pre_commit(&f);
    assert_eq!(gate.json["reason_code"], "receipt_scope_changed");
    let auth = recover(
        &f,
        &lineage,
        &rev,
        "scope_changed",
        &["--authorization", "x"],
    );
    assert_eq!(auth.json["error"]["code"], "authorization");
    let rec = recover(&f, &lineage, &rev, "scope_changed", &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let succ = string_at(&rec.json, "lineage_id");
    assert_eq!(rec.json["generation"], 2);
    approve(&f, tmp.path(), &succ);
    assert_allowed_by(&f, &succ);

    // Back to the old candidate: its approval is history now.
    std::fs::write(f.root().join("src/parser.rs"), approved_parser).unwrap();
    let old = pre_commit(&f);
    assert_eq!(old.code, 1, "{}", old.stdout);
    assert_eq!(old.json["reason_code"], "receipt_superseded");
    assert_eq!(old.json["lineage_id"], lineage.as_str());
}

#[test]
fn an_escalated_review_needs_an_authorization_to_go_on() {
    let (f, tmp, lineage) = medium_started();
    let esc = judged(&f, tmp.path(), ESCALATING);
    assert_eq!(esc.json["state"], "escalated", "{}", esc.stdout);
    let rev = string_at(&esc.json, "store_revision");
    let missing = recover(&f, &lineage, &rev, "escalation_authorized", &[]);
    assert_eq!(missing.code, 2, "{}", missing.stdout);
    let rec = recover(
        &f,
        &lineage,
        &rev,
        "escalation_authorized",
        &["--authorization", "maintainer decision in #12"],
    );
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(
        rec.json["predecessor"]["authorization"],
        "maintainer decision in #12"
    );
    // Same candidate: the successor took over its discovery.
    let st = probity(f.root(), &["status"]);
    assert_eq!(st.json["lineage_id"], rec.json["lineage_id"]);
}

#[test]
fn a_broken_chain_fails_closed() {
    let (f, tmp, lineage) = medium_started();
    let rev = invalidated(&f, &lineage);
    let rec = recover(&f, &lineage, &rev, "invalidated", &[]);
    let succ = string_at(&rec.json, "lineage_id");
    approve(&f, tmp.path(), &succ);
    assert_eq!(pre_commit(&f).json["decision"], "allow");
    // The predecessor's marker names someone else: a fork.
    let marker = state_file(&f, &lineage).with_file_name("superseded-by");
    std::fs::write(&marker, "review-0000000000000000\n").unwrap();
    let forked = pre_commit(&f);
    forked.assert_refused(6, "chain_broken");
    // The predecessor is gone: dangling.
    std::fs::remove_dir_all(state_file(&f, &lineage).parent().unwrap()).unwrap();
    let dangling = pre_commit(&f);
    dangling.assert_refused(6, "chain_broken");
}

fn approved_then_changed(f: &Fixture, dir: &std::path::Path) -> (String, String, Vec<u8>) {
    let (l1, _) = started(f);
    let done = approve(f, dir, &l1);
    let r1 = string_at(&done, "store_revision");
    let original = std::fs::read(f.root().join("src/parser.rs")).unwrap();
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { v2() }\n",
    )
    .unwrap();
    (l1, r1, original)
}

#[test]
fn a_candidate_an_ancestor_owned_is_recovered_from_the_leaf() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (l1, r1, original) = approved_then_changed(&f, tmp.path());
    let rec = recover(&f, &l1, &r1, "scope_changed", &[]);
    let l2 = string_at(&rec.json, "lineage_id");
    let r2 = string_at(&approve(&f, tmp.path(), &l2), "store_revision");
    let base_index = || {
        let dir = f.root().join(".git/probity/reviews/v1/index/base");
        let entry = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
        std::fs::read_to_string(entry.path()).unwrap()
    };
    assert_eq!(base_index(), format!("{l2}\n"));

    // Undo the edit: L1 froze this candidate, but L1 is history.
    std::fs::write(f.root().join("src/parser.rs"), &original).unwrap();
    let gate = pre_commit(&f);
    assert_eq!(gate.json["reason_code"], "receipt_superseded");
    assert_eq!(gate.json["next_action"], "recover");
    assert!(gate.json["message"].as_str().unwrap().contains(&l2));
    let st = probity(f.root(), &["start"]);
    st.assert_refused(4, "lineage_superseded");
    assert!(st.stdout.contains(&l2), "{}", st.stdout);

    // A finalize retry of L1 answers the same and leaves the base index.
    let retry = finalize_clean(&f, tmp.path(), &l1);
    assert_eq!(retry.code, 0, "{}", retry.stdout);
    assert_eq!(base_index(), format!("{l2}\n"));

    // Recovering from the leaf takes the candidate over from its ancestor.
    let rec3 = recover(&f, &l2, &r2, "scope_changed", &[]);
    assert_eq!(rec3.code, 0, "{}{}", rec3.stdout, rec3.stderr);
    assert_eq!(rec3.json["generation"], 3);
    let l3 = string_at(&rec3.json, "lineage_id");
    approve(&f, tmp.path(), &l3);
    assert_allowed_by(&f, &l3);

    // The first recovery, retried after the chain moved on, still answers
    // its own successor.
    let again = recover(&f, &l1, &r1, "scope_changed", &[]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert_eq!(again.json["lineage_id"], l2.as_str());
    assert_eq!(again.json["resumed"], true);
}

#[test]
fn a_recovery_interrupted_before_its_marker_is_completed_not_minted_again() {
    let f = medium_change();
    let (l1, _) = started(&f);
    let rev = invalidated(&f, &l1);
    let rec = recover(&f, &l1, &rev, "invalidated", &[]);
    let l2 = string_at(&rec.json, "lineage_id");
    // Rewind to the moment after the successor was written: its pending
    // record and state exist, the index and the marker do not yet.
    let store = f.root().join(".git/probity/reviews/v1");
    let state = std::fs::read(store.join(&l2).join("state.json")).unwrap();
    std::fs::write(store.join(&l1).join("successor.pending"), &state).unwrap();
    std::fs::remove_file(store.join(&l1).join("superseded-by")).unwrap();
    let target = st_target(&f, &l2);
    std::fs::write(store.join("index/target").join(&target), format!("{l1}\n")).unwrap();

    let retry = recover(&f, &l1, &rev, "invalidated", &[]);
    assert_eq!(retry.code, 0, "{}{}", retry.stdout, retry.stderr);
    assert_eq!(
        retry.json["lineage_id"],
        l2.as_str(),
        "a second lineage was minted"
    );
    assert_eq!(retry.json["resumed"], true);
    assert!(!store.join(&l1).join("successor.pending").exists());
    assert_eq!(
        std::fs::read_to_string(store.join(&l1).join("superseded-by")).unwrap(),
        format!("{l2}\n")
    );
    assert_eq!(
        probity(f.root(), &["status"]).json["lineage_id"],
        l2.as_str()
    );
}

/// The hex of a lineage's target identity, from its state file.
fn st_target(f: &Fixture, lineage: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state_file(f, lineage)).unwrap()).unwrap();
    v["state"]["snapshot"]["target"]
        .as_str()
        .unwrap()
        .trim_start_matches("sha256:")
        .to_string()
}

#[test]
fn identical_concurrent_recoveries_agree_on_one_successor() {
    let f = medium_change();
    let (l1, _) = started(&f);
    let rev = invalidated(&f, &l1);
    let answers: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| recover(&f, &l1, &rev, "invalidated", &[])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ids: Vec<_> = answers
        .iter()
        .map(|a| {
            assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
            a.json["lineage_id"].clone()
        })
        .collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
    let created = answers
        .iter()
        .filter(|a| a.json["resumed"] == false)
        .count();
    assert_eq!(created, 1);
}

#[test]
fn nothing_follows_or_finalizes_a_broken_chain() {
    let (f, tmp, l1) = medium_started();
    let rev = invalidated(&f, &l1);
    let l2 = successor(&recover(&f, &l1, &rev, "invalidated", &[]));
    // Break the chain: the predecessor's marker goes missing.
    std::fs::remove_file(state_file(&f, &l1).with_file_name("superseded-by")).unwrap();
    let before = store_snapshot(&f);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let fin = probity(f.root(), &["finalize", "--lineage", &l2, "--result", &r]);
    fin.assert_refused(6, "chain_broken");
    let st = probity(f.root(), &["status", "--lineage", &l2]);
    assert_eq!(st.json["error"]["code"], "chain_broken");
    assert!(store_snapshot(&f) == before, "a broken chain took input");
}

#[test]
fn a_candidate_an_ancestor_owned_is_recovered_even_outside_the_leafs_paths() {
    let (f, tmp, l1) = medium_started();
    let r1 = string_at(&approve(&f, tmp.path(), &l1), "store_revision");
    let c1_parser = std::fs::read(f.root().join("src/parser.rs")).unwrap();
    // C2: only the new test file; L2 reviews just that path.
    f.git(&["checkout", "-q", "src/parser.rs"]).unwrap();
    let l2 = successor(&recover(&f, &l1, &r1, "scope_changed", &[]));
    let r2 = string_at(&approve(&f, tmp.path(), &l2), "store_revision");
    // Back to C1, which L1 (L2's ancestor) owns: recover from the leaf.
    std::fs::write(f.root().join("src/parser.rs"), c1_parser).unwrap();
    let rec = recover(&f, &l2, &r2, "scope_changed", &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(rec.json["generation"], 3);
}

/// Recovers L1 (approved) over an edited candidate, then rewinds the store
/// to `step` of create_successor: 1 = only the pending record, 3 = pending,
/// record and index, no marker.
fn interrupted(f: &Fixture, tmp: &std::path::Path, step: u8) -> (String, String, String) {
    let (l1, _) = started(f);
    let r1 = string_at(&approve(f, tmp, &l1), "store_revision");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { v2() }\n",
    )
    .unwrap();
    let s = successor(&recover(f, &l1, &r1, "scope_changed", &[]));
    let state = std::fs::read(lineage_dir(f, &s).join("state.json")).unwrap();
    std::fs::write(lineage_dir(f, &l1).join("successor.pending"), &state).unwrap();
    std::fs::remove_file(lineage_dir(f, &l1).join("superseded-by")).unwrap();
    if step == 1 {
        let target = st_target(f, &s);
        std::fs::remove_file(
            f.root()
                .join(".git/probity/reviews/v1/index/target")
                .join(target),
        )
        .unwrap();
        std::fs::remove_dir_all(lineage_dir(f, &s)).unwrap();
    }
    (l1, r1, s)
}

#[test]
fn a_recovery_caught_mid_way_is_pending_not_broken() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (l1, r1, s) = interrupted(&f, tmp.path(), 3);
    let before = store_snapshot(&f);
    let st = probity(f.root(), &["start"]);
    st.assert_refused(4, "recovery_pending");
    let gate = pre_commit(&f);
    gate.assert_error("recovery_pending");
    // Another request does not fork it either.
    let other = probity(
        f.root(),
        &recover_args(&l1, &r1, "scope_changed", "another", "maintainer"),
    );
    assert_eq!(other.json["error"]["code"], "recovery_pending");
    assert!(store_snapshot(&f) == before, "a refusal wrote something");
    // The same request completes it.
    let done = recover(&f, &l1, &r1, "scope_changed", &[]);
    assert_eq!(done.json["lineage_id"], s.as_str(), "{}", done.stdout);
    assert_eq!(probity(f.root(), &["start"]).json["lineage_id"], s.as_str());
}

#[test]
fn an_interrupted_recovery_whose_candidate_went_elsewhere_is_dropped() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (l1, r1, _s) = interrupted(&f, tmp.path(), 1);
    // Meanwhile someone starts an ordinary review of the same candidate.
    let (x, _) = started(&f);
    let rec = recover(&f, &l1, &r1, "scope_changed", &[]);
    rec.assert_refused(4, "candidate_owned");
    assert!(!lineage_dir(&f, &l1).join("successor.pending").exists());
    // So L1 can be recovered again, over another candidate.
    invalidate(&f, &x, "dup");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { v3() }\n",
    )
    .unwrap();
    let again = recover(&f, &l1, &r1, "scope_changed", &[]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
}

#[test]
fn markers_are_checked_link_by_link_and_a_broken_chain_takes_no_input() {
    let f = medium_change();
    let (l1, _) = started(&f);
    let rev = invalidated(&f, &l1);
    // A marker naming a lineage that is not L1's successor: fail closed.
    let other = "review-0123456789abcdef";
    std::fs::write(
        lineage_dir(&f, &l1).join("superseded-by"),
        format!("{other}\n"),
    )
    .unwrap();
    let gate = pre_commit(&f);
    gate.assert_refused(6, "chain_broken");
    std::fs::remove_file(lineage_dir(&f, &l1).join("superseded-by")).unwrap();

    // A real successor whose predecessor lost its marker takes no input.
    let s = successor(&recover(&f, &l1, &rev, "invalidated", &[]));
    std::fs::remove_file(lineage_dir(&f, &l1).join("superseded-by")).unwrap();
    let before = store_snapshot(&f);
    let inv2 = invalidate(&f, &s, "y");
    inv2.assert_refused(6, "chain_broken");
    assert!(store_snapshot(&f) == before, "a broken chain took input");
}

/// The `recover` command a refusal printed, with `R` and `A` filled in, as
/// arguments after `probity`.
fn printed_recover_args(next: &str) -> Vec<String> {
    printed_recover_filled(next, "reviewed again", "decision #9")
}

/// Issue 21 §8: a review started with `start --commit` is recovered as the
/// review of that commit, not of the (clean) worktree: the printed recovery
/// of an invalidated `--commit` review creates a successor that freezes the
/// commit's (parent tree, tree), and `start --commit` then resumes it.
#[test]
fn a_commit_review_is_recovered_over_the_same_commit() {
    let f = medium_change();
    f.commit_all("the change").unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", "HEAD"]);
    let lineage = string_at(&st.json, "lineage_id");
    let inv = invalidate(&f, &lineage, "wrong lens");
    assert_eq!(inv.code, 0, "{}", inv.stdout);
    let again = probity(f.root(), &["start", "--commit", "HEAD"]);
    again.assert_error("lineage_invalidated");
    let args = printed_recover_args(again.json["error"]["next_action"].as_str().unwrap());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rec = probity_ok(f.root(), &args);
    assert_eq!(rec.json["generation"], 2);
    assert_eq!(rec.json["base_tree"], st.json["base_tree"]);
    assert_eq!(rec.json["candidate_tree"], st.json["candidate_tree"]);
    let resumed = probity(f.root(), &["start", "--commit", "HEAD"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stdout);
    assert_eq!(resumed.json["lineage_id"], rec.json["lineage_id"]);
    assert_eq!(resumed.json["resumed"], true);
}

/// The same for `start --range`: an escalated review of the first commit of
/// a two-commit range is recovered (authorized) over that first commit,
/// not over HEAD nor the clean worktree.
#[test]
fn a_range_review_is_recovered_over_its_own_commit() {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/parser.rs", "fn a() {}\nfn b() {}\n").unwrap();
    f.commit_all("first").unwrap();
    f.write("src/lib.rs", "pub fn c() {}\n").unwrap();
    f.commit_all("second").unwrap();
    let range = probity_ok(f.root(), &["start", "--range", "HEAD~2..HEAD"]);
    let first = &range.json["lineages"][0];
    let lineage = string_at(first, "lineage_id");
    let tmp = tempfile::tempdir().unwrap();
    let esc = finalize_result(f.root(), tmp.path(), &lineage, ESCALATING);
    assert_eq!(esc.json["state"], "escalated", "{}", esc.stdout);
    let st = probity(f.root(), &["status", "--lineage", &lineage]);
    let rev = string_at(&st.json, "store_revision");
    let rec = recover(
        &f,
        &lineage,
        &rev,
        "escalation_authorized",
        &["--authorization", "decision #9"],
    );
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(rec.json["generation"], 2);
    assert_eq!(rec.json["base_tree"], first["base_tree"]);
    assert_eq!(rec.json["candidate_tree"], first["candidate_tree"]);
}

/// An approved `start --commit` review whose commit was amended: nothing
/// holds its change any more, so `recover --commit REV` names the commit
/// the successor freezes (the amended one); a bad REV is a typed error with
/// nothing written.
#[test]
fn recover_commit_freezes_the_named_commit() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    f.commit_all("the change").unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", "HEAD"]);
    let lineage = string_at(&st.json, "lineage_id");
    let done = approve(&f, tmp.path(), &lineage);
    let rev = string_at(&done, "store_revision");
    // Amend the reviewed path.
    let mut body = std::fs::read_to_string(f.root().join("src/parser.rs")).unwrap();
    body.push_str("fn amended() {}\n");
    f.write("src/parser.rs", body).unwrap();
    f.git(&["commit", "-q", "--no-verify", "--amend", "-am", "amended"])
        .unwrap();
    let before = store_snapshot(&f);
    // Nothing uncommitted and no commit holds the reviewed change: the
    // answer names the flag that takes the amended commit.
    let none = recover(&f, &lineage, &rev, "scope_changed", &[]);
    none.assert_error("nothing_to_review");
    let next = none.next_action();
    assert!(next.contains("--commit"), "{next}");
    assert_eq!(store_snapshot(&f), before, "a refused recovery wrote");
    let bad = recover(
        &f,
        &lineage,
        &rev,
        "scope_changed",
        &["--commit", "no-such-rev"],
    );
    assert_ne!(bad.code, 0, "{}", bad.stdout);
    assert!(bad.json["error"]["code"].is_string(), "{}", bad.stdout);
    assert_eq!(store_snapshot(&f), before, "a refused recovery wrote");
    let rec = recover(&f, &lineage, &rev, "scope_changed", &["--commit", "HEAD"]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(rec.json["generation"], 2);
    assert_eq!(rec.json["base_tree"], st.json["base_tree"]);
    let head_tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
    assert_eq!(rec.json["candidate_tree"], head_tree.trim());
    let again = probity(f.root(), &["start", "--commit", "HEAD"]);
    assert_eq!(
        again.json["lineage_id"], rec.json["lineage_id"],
        "{}",
        again.stdout
    );
}
