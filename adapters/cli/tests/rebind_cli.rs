//! R8.9, chained recovery rebind, through the real binary on real
//! repositories. The dead end it removes: approve and commit c1, edit,
//! `recover --disposition scope_changed`, approve the successor, commit c2;
//! then c1 alone was `receipt_superseded`, c1 + c2 too, and the squash of
//! both `receipt_scope_changed`: nothing reviewed could be published. A
//! publication gate now composes the approved chain, leaf to root, when its
//! segments are stitched (each successor's base is its predecessor's final
//! candidate) and the delivery covers a contiguous run of them exactly.

mod support;

use probity_git::fixture::Fixture;
use support::*;

fn commit_all(f: &Fixture, message: &str) -> String {
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", message])
        .unwrap();
    rev_parse(f, "HEAD")
}

fn push_gate(f: &Fixture, range: &str) -> Run {
    probity(
        f.root(),
        &["validate", "--gate", "pre-push", "--range", range],
    )
}

/// The scope-changed recovery of `lineage` for more work on the same file.
fn recover_scope_changed(f: &Fixture, lineage: &str) -> String {
    support::recover_scope_changed(f, lineage, "more work on the same file", "dev")
}

/// `git commit-tree TREE -p PARENT -m MESSAGE`: the new commit's id.
fn commit_tree(f: &Fixture, tree: &str, parent: &str, message: &str) -> String {
    let id = f
        .git(&["commit-tree", tree, "-p", parent, "-m", message])
        .unwrap();
    String::from_utf8(id).unwrap().trim().to_string()
}

/// Changes the reviewed file once more and recovers `l2` into L3, left in
/// review; returns L3.
fn third_in_review(f: &Fixture, l2: &str) -> String {
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\nfn still_more() {}\n",
    )
    .unwrap();
    let l3 = recover_scope_changed(f, l2);
    let st = probity(f.root(), &["status", "--lineage", &l3]);
    assert_eq!(st.json["state"], "reviewing", "{}", st.stdout);
    l3
}

/// The server's `main`.
fn server_main(f: &Fixture, server: &std::path::Path) -> String {
    let main = f.git_in(server, &["rev-parse", "refs/heads/main"]).unwrap();
    String::from_utf8(main).unwrap().trim().to_string()
}

/// [`chain_of_two`] over the medium change in `f` (a clone of a hooked
/// origin): the inputs dir and the chain.
#[allow(clippy::type_complexity)]
fn hooked_chain_of_two(
    f: &Fixture,
) -> (tempfile::TempDir, (String, String, String, String, String)) {
    write_medium_change(f);
    let inputs = tempfile::tempdir().unwrap();
    let chain = chain_of_two(f, inputs.path());
    (inputs, chain)
}

/// `probity push origin main` lands `tip` on the server's `main`.
fn push_lands(f: &Fixture, server: &std::path::Path, tip: &str) {
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(server_main(f, server), tip);
}

/// Asserts the gate's decision, its stdout the failure message.
fn assert_decision(gate: &Run, decision: &str) {
    assert_eq!(gate.json["decision"], decision, "{}", gate.stdout);
}

/// Approve and commit c1 (L1), then change the reviewed file again, recover
/// L1 (scope changed) into L2 over the committed c1, approve L2 and commit
/// c2. Returns (base commit, c1, c2, L1, L2).
fn chain_of_two(f: &Fixture, dir: &std::path::Path) -> (String, String, String, String, String) {
    let base = rev_parse(f, "HEAD");
    let l1 = string_at(&approve_live(f.root(), dir), "lineage_id");
    let c1 = commit_all(f, "c1");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\n",
    )
    .unwrap();
    let l2 = recover_scope_changed(f, &l1);
    approve_lineage(f.root(), dir, &l2);
    let c2 = commit_all(f, "c2");
    (base, c1, c2, l1, l2)
}

#[test]
fn a_stitched_recovery_chain_publishes_each_commit_the_stack_and_the_squash() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let (base, c1, c2, l1, l2) = chain_of_two(&f, dir.path());
    let before = store_snapshot(&f);

    // c1 alone: what L1 approved, a segment of the chain L2 leads.
    let one = push_gate(&f, &format!("{base}..{c1}"));
    assert_decision(&one, "allow");
    assert_eq!(one.json["lineage_id"], l1.as_str());
    assert_eq!(
        one.json["proof"]["kind"], "recovery_chain",
        "{}",
        one.stdout
    );
    assert_eq!(one.json["proof"]["chain"], serde_json::json!([l1]));

    // c1 + c2 pushed at once.
    let both = push_gate(&f, &format!("{base}..{c2}"));
    assert_decision(&both, "allow");

    // The squash of c1 and c2: the whole chain, root to leaf.
    let tree = rev_parse(&f, &format!("{c2}^{{tree}}"));
    let squash = commit_tree(&f, &tree, &base, "squashed");
    let squashed = push_gate(&f, &format!("{base}..{squash}"));
    assert_decision(&squashed, "allow");
    assert_eq!(squashed.json["lineage_id"], l2.as_str());
    assert_eq!(
        squashed.json["proof"]["chain"],
        serde_json::json!([l1, l2]),
        "{}",
        squashed.stdout
    );
    // A gate writes nothing.
    assert_eq!(store_snapshot(&f), before);
}

/// Pushing what is done while the next change is reviewed: after c2, the
/// reviewed file changes again and L2 is recovered into L3, still in
/// review. c1, c2 and both together were approved segment by segment, so
/// they publish (found by audit: every one was `receipt_superseded` until
/// L3 was approved, a dead end for "keep working, push what's done"); the
/// chain with L3's unreviewed change in it still denies.
#[test]
fn approved_commits_publish_while_the_chain_leaf_is_still_in_review() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let (base, c1, c2, l1, l2) = chain_of_two(&f, dir.path());
    third_in_review(&f, &l2);
    let before = store_snapshot(&f);
    for (range, lineage) in [
        (format!("{base}..{c1}"), Some(&l1)),
        (format!("{c1}..{c2}"), Some(&l2)),
        // Two commits: each judged on its own, as above.
        (format!("{base}..{c2}"), None),
    ] {
        let gate = push_gate(&f, &range);
        assert_eq!(gate.json["decision"], "allow", "{range}: {}", gate.stdout);
        if let Some(lineage) = lineage {
            assert_eq!(gate.json["lineage_id"], lineage.as_str(), "{range}");
        }
    }
    // L3's change committed unreviewed: its commit is denied.
    let c3 = commit_all(&f, "c3");
    let unreviewed = push_gate(&f, &format!("{base}..{c3}"));
    assert_decision(&unreviewed, "deny");
    assert_eq!(store_snapshot(&f), before, "a gate wrote to the store");
}

/// The rebind composes only what was approved, stitched and delivered
/// exactly: a squash that adds an unreviewed byte keeps its denial, and so
/// does a chain whose successor was recovered before its predecessor was
/// committed (the successor reviews the whole change again, so the
/// predecessor's candidate is history).
#[test]
fn the_rebind_keeps_every_other_denial() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let (base, _c1, c2, _l1, _l2) = chain_of_two(&f, dir.path());
    // The squash plus one unreviewed change.
    f.git(&["checkout", "-q", "--detach", &c2]).unwrap();
    f.write("src/parser_test.rs", "#[test]\nfn t() { assert!(true) }\n")
        .unwrap();
    let extra = commit_all(&f, "extra");
    let tree = rev_parse(&f, &format!("{extra}^{{tree}}"));
    let squash = commit_tree(&f, &tree, &base, "squashed");
    let before = store_snapshot(&f);
    let denied = push_gate(&f, &format!("{base}..{squash}"));
    assert_decision(&denied, "deny");
    // The direct binding's own denial, kept whole: the squash touches the
    // reviewed paths beyond what the chain approved.
    assert_eq!(
        denied.json["reason_code"], "receipt_scope_changed",
        "{}",
        denied.stdout
    );
    assert!(denied.json["proof"].is_null(), "{}", denied.stdout);
    assert!(store_snapshot(&f) == before, "a gate wrote to the store");

    // Recovered before committing: L2 reviews base -> C2 itself.
    let g = medium_change();
    let base = rev_parse(&g, "HEAD");
    let l1 = string_at(&approve_live(g.root(), dir.path()), "lineage_id");
    let c1_tree = {
        g.git(&["add", "-A"]).unwrap();
        String::from_utf8(g.git(&["write-tree"]).unwrap())
            .unwrap()
            .trim()
            .to_string()
    };
    g.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\n",
    )
    .unwrap();
    let l2 = recover_scope_changed(&g, &l1);
    approve_lineage(g.root(), dir.path(), &l2);
    let c1 = commit_tree(&g, &c1_tree, &base, "c1");
    let old = push_gate(&g, &format!("{base}..{c1}"));
    assert_decision(&old, "deny");
    assert_eq!(old.json["reason_code"], "receipt_superseded");
}

/// The server-side gate composes the same chain from the notes `probity
/// push` publishes: c1 and c2 pushed at once into a bare repository whose
/// pre-receive hook is `probity hooks install --server`.
#[test]
fn the_server_gate_rebinds_the_chain_it_receives_in_notes() {
    let (f, _dir, server) = hooked_origin();
    let (_inputs, (_base, _c1, c2, _l1, _l2)) = hooked_chain_of_two(&f);
    push_lands(&f, &server, &c2);
}

/// A chain longer than `MAX_REBIND_CHAIN` keeps the direct denial: the
/// composition reads at most one lineage past the bound, so the chain is
/// never cut short and judged as if its last read lineage were the leaf
/// (found by audit: the walk stopped at 64 lineages and the 65-lineage
/// chain rebound). Driven in-process (65 approvals, each committed), and
/// the gate writes nothing.
#[test]
fn a_chain_longer_than_the_bound_keeps_its_denial() {
    use probity_core::review::Lens;
    use probity_core::review::NonBlank;
    use probity_core::review::{Decision, MAX_REBIND_CHAIN, ReasonCode};
    use probity_core::review::{Disposition, RecoverRequest};
    use probity_ports::review::{
        self as drivers, EvidenceInput, FinalizeInput, LensResultInput, NamedInput, PushBoundary,
    };
    use probity_store::FileStore;
    use probity_testkit::FixedClock;

    let clock = FixedClock::fixture();
    let f = parser_base();
    let base = rev_parse(&f, "HEAD");
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let named = |name: &str, text: &str| NamedInput {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    };
    let mut commits = Vec::new();
    let mut previous: Option<probity_core::review::StateRecord> = None;
    let mut body = String::from("// parser\nfn parse() {}\n");
    for i in 0..=MAX_REBIND_CHAIN {
        body.push_str(&format!("fn step_{i}() {{}}\n"));
        f.write("src/parser.rs", &body).unwrap();
        let started = match &previous {
            None => drivers::start(&repo, &store, &clock, Lens::Reliability).unwrap(),
            Some(p) => drivers::recover(
                &repo,
                &store,
                &clock,
                Lens::Reliability,
                p.state().lineage_id(),
                RecoverRequest {
                    expected_revision: p.revision(),
                    disposition: Disposition::ScopeChanged,
                    reason: NonBlank::parse("more work on the same file").unwrap(),
                    actor: NonBlank::parse("dev").unwrap(),
                    authorization: None,
                },
            )
            .unwrap(),
        };
        let done = drivers::finalize(
            &repo,
            &store,
            FinalizeInput {
                lineage: Some(started.record.state().lineage_id().clone()),
                results: started
                    .record
                    .state()
                    .frozen()
                    .selected_lenses
                    .iter()
                    .map(|l| LensResultInput::named(*l, named("r.json", CLEAN_RESULT)))
                    .collect(),
                evidence: Some(EvidenceInput::Bytes(named("ev.txt", "tests passed\n"))),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(done.record.state().stage().name(), "approved");
        commits.push(commit_all(&f, &format!("c{i}")));
        previous = Some(done.record);
    }
    assert_eq!(commits.len(), MAX_REBIND_CHAIN + 1);
    let before = store_snapshot(&f);
    let gate = |from: &str, to: &str| {
        drivers::validate_pre_push(
            &repo,
            &store,
            &PushBoundary::Range {
                base: from.to_string(),
                tip: to.to_string(),
            },
        )
        .unwrap()
    };
    // c0 alone: its lineage leads a chain of 65, one past the bound.
    let first = gate(&base, &commits[0]);
    assert_eq!(first.decision(), Decision::Deny, "{}", first.message());
    assert_eq!(
        first.reason_code(),
        ReasonCode::ReceiptSuperseded,
        "{}",
        first.message()
    );
    // c1 alone: a chain of exactly 64 from there is composed.
    let second = gate(&commits[0], &commits[1]);
    assert_eq!(second.decision(), Decision::Allow, "{}", second.message());
    assert!(store_snapshot(&f) == before, "a gate wrote to the store");
}

/// A burned leaf (R10.5) still supersedes its chain: the ancestors' gates
/// and status answer with a decision naming it, never a `lineage_consumed`
/// error (found by audit: the chain walk failed on the burned lineage).
#[test]
fn a_burned_leaf_still_supersedes_and_its_ancestors_answer() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let (base, c1, _c2, l1, l2) = chain_of_two(&f, dir.path());
    probity_ok(
        f.root(),
        &[
            "burn",
            "--lineage",
            &l2,
            "--reason",
            "delivered",
            "--actor",
            "release bot",
        ],
    );
    let before = store_snapshot(&f);
    let gate = push_gate(&f, &format!("{base}..{c1}"));
    assert_eq!(gate.code, 1, "{}{}", gate.stdout, gate.stderr);
    assert_decision(&gate, "deny");
    assert_eq!(
        gate.json["reason_code"], "receipt_superseded",
        "{}",
        gate.stdout
    );
    // Its advice does not send the user to a recovery the consumed leaf
    // refuses without saying so (found by audit).
    let message = gate.json["message"].as_str().unwrap();
    assert!(message.contains("lineage_consumed"), "{message}");
    let st = probity_ok(f.root(), &["status", "--lineage", &l1]);
    assert_eq!(st.json["superseded_by"], l2.as_str(), "{}", st.stdout);
    assert!(store_snapshot(&f) == before, "a read wrote to the store");
}

/// R8.9 at the server (issue 21 §3): the approved links of a chain publish
/// through the server hook while the leaf is still in review, as they do
/// at the local gates.
#[test]
fn the_server_allows_approved_links_while_the_chain_leaf_is_in_review() {
    let (f, _dir, server) = hooked_origin();
    let (_inputs, (_base, _c1, c2, _l1, l2)) = hooked_chain_of_two(&f);
    third_in_review(&f, &l2);
    push_lands(&f, &server, &c2);
    // A fresh clone's CI gate over the pushed range agrees.
    let ci = tempfile::tempdir().unwrap();
    let clone = ci.path().join("ci");
    f.git(&[
        "clone",
        "-q",
        // Over file:// (a local path would copy the whole object store):
        // the clone holds only what the refs it fetches reach.
        &format!("file://{}", server.display()),
        clone.to_str().unwrap(),
    ])
    .unwrap();
    f.git_in(
        &clone,
        // What docs/ci.md and ci/probity-gate.sh fetch: the notes, whose
        // history carries the review trees a rebased or chained delivery
        // is checked against.
        &[
            "fetch",
            "-q",
            "origin",
            "refs/notes/probity:refs/notes/probity",
        ],
    )
    .unwrap();
    let base = String::from_utf8(f.git_in(&clone, &["rev-parse", "HEAD~2"]).unwrap()).unwrap();
    let range = format!("{}..HEAD", base.trim());
    let gate = probity(&clone, &pre_receive_args(&range, "refs/heads/main"));
    assert_eq!(
        gate.json["decision"], "allow",
        "{}{}",
        gate.stdout, gate.stderr
    );
}
