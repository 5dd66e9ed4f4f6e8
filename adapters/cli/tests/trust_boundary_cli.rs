//! Authority no party grants itself (issue 20), on a real bare remote with
//! the server hook: the attacks an agent under review tried, each pushed
//! past every client hook, and the legitimate flows beside them.

mod support;

use std::path::PathBuf;

use probity_git::fixture::Fixture;
use support::*;

/// A server that requires signatures by the maintainer's key (`alice`),
/// and a clone with a reviewable change in its worktree.
struct Signed {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    keys: tempfile::TempDir,
    alice: PathBuf,
    inputs: tempfile::TempDir,
}

impl Signed {
    fn new() -> Self {
        let (f, dir, server) = hooked_origin();
        let keys = tempfile::tempdir().unwrap();
        let alice = require_alice(&f, &server, keys.path());
        write_medium_change(&f);
        Self {
            f,
            _dir: dir,
            server,
            keys,
            alice,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    /// The maintainer signs `lineage` with her key.
    fn sign(&self, lineage: &str) {
        sign_with(self.f.root(), &self.alice, self.keys.path(), lineage);
    }

    fn server_rev(&self, r: &str) -> Option<String> {
        rev(&self.f, &self.server, r)
    }
}

/// The agent approves its own change and commits it (c1, lineage L1),
/// then a one-line follow-up reviewed as L1's successor (c2, L2): the
/// recovery chain whose later link a maintainer is asked to sign.
fn self_approved_chain(s: &Signed) -> (String, String, String) {
    let l1 = string_at(&approve_live(s.f.root(), s.inputs.path()), "lineage_id");
    commit_all(&s.f, "c1: self-approved");
    s.f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\n",
    )
    .unwrap();
    let l2 = recover_scope_changed(&s.f, &l1, "a one-line follow-up", "agent");
    approve_lineage(s.f.root(), s.inputs.path(), &l2);
    let c2 = commit_all(&s.f, "c2: one-line follow-up");
    (l1, l2, c2)
}

#[test]
fn a_signature_on_a_later_link_does_not_cover_an_unsigned_earlier_one() {
    let s = Signed::new();
    let before = s.server_rev("main");
    let (l1, l2, c2) = self_approved_chain(&s);
    // The maintainer signs only the follow-up.
    s.sign(&l2);
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    // Her envelope vouches for L2's statement, not L1's: for L1 it is a
    // signature over another statement.
    assert!(p.stderr.contains("DENY: signature_invalid"), "{}", p.stderr);
    assert!(
        p.stderr
            .contains(&format!("probity attest --lineage {l1} --sign")),
        "{}",
        p.stderr
    );
    assert_eq!(s.server_rev("main"), before);
    // Once she signs the earlier link too, the chain lands.
    s.sign(&l1);
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(c2));
}

#[test]
fn a_maintainer_signed_recovery_after_an_escalation_lands() {
    let s = Signed::new();
    // The lens escalates (unknown causality); the maintainer recovers the
    // escalated lineage with her authorization and signs the successor.
    let l2 = escalate_and_recover(
        s.f.root(),
        s.inputs.path(),
        "read the callers: none breaks",
        "alice approves after reading the callers",
    );
    approve_lineage(s.f.root(), s.inputs.path(), &l2);
    let c = commit_all(&s.f, "reviewed after escalation");
    s.sign(&l2);
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(c));
}

/// A server hook with no signature policy, and a clone whose reviewed
/// change sits in its worktree.
fn plain_server() -> (Fixture, tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let (f, dir, server) = hooked_origin();
    write_medium_change(&f);
    (f, dir, server, tempfile::tempdir().unwrap())
}

/// `c1`'s note copied onto `replay`, pushed past the client's gates: the
/// server refuses it `approval_spent`, naming `c1`; returns what it said.
fn replay_refused(f: &Fixture, c1: &str, replay: &str) -> String {
    f.git(&["notes", "--ref=probity", "copy", c1, replay])
        .unwrap();
    let err = push_no_verify(f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(c1), "{err}");
    err
}

#[test]
fn an_approval_replayed_onto_a_revert_of_its_revert_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    // The maintainer reverts it, reviewed as committed.
    let revert = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The agent reverts the revert and copies the old note onto it: the
    // same (parent tree, tree) the old approval bound.
    let replay = revert_head(&f, "bring it back");
    let err = replay_refused(&f, &c1, &replay);
    assert!(
        err.contains("probity start --commit <sha>") && err.contains("cannot be reviewed again"),
        "{err}"
    );
    assert_eq!(rev(&f, &server, "main"), Some(revert));
    // The next step the denial names: the change amended together with
    // other bytes, reviewed as committed, then pushed.
    amend_with_other_bytes_and_land(&f, &server, inputs.path());
}

#[test]
fn a_reverted_approval_carried_onto_a_new_base_by_its_rebase_proof_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    reviewed_revert(&f, inputs.path());
    reapplied_on_a_new_base_is_refused(&f, &server, inputs.path(), &c1);
}

/// Other reviewed work moves the base on and is pushed; then the agent
/// re-applies `spent` (a delivered, since reverted change) on the new base
/// with its old note: a clean rebase proof of an approval already spent.
/// The push is refused naming `spent` and the server keeps the other work.
fn reapplied_on_a_new_base_is_refused(
    f: &Fixture,
    server: &std::path::Path,
    inputs: &std::path::Path,
    spent: &str,
) {
    f.write("docs/more.md", "more\n").unwrap();
    approve_live(f.root(), inputs);
    let other = commit_all(f, "other work");
    probity_ok(f.root(), &["push", "origin", "main"]);
    f.git(&["cherry-pick", "--no-commit", spent]).unwrap();
    let replay = commit_all(f, "bring it back, rebased");
    replay_refused(f, spent, &replay);
    assert_eq!(rev(f, server, "main"), Some(other));
}

#[test]
fn the_same_reviewed_commit_reaches_another_protected_branch_and_is_pushed_again() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    // The same commit to a release branch cut from the base: its approval
    // has not delivered there yet.
    push_no_verify(&f, &["origin", "HEAD~1:refs/heads/release"]).unwrap();
    push_no_verify(&f, &["origin", "HEAD:refs/heads/release"]).unwrap();
    assert_eq!(rev(&f, &server, "release"), Some(c1.clone()));
    // Pushed again (nothing new): allowed.
    push_no_verify(&f, &["origin", "main"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(c1));
}

/// Red team round 4, finding 1: C1 (reviewed), C2 (its revert, reviewed)
/// and C3 (the revert of C2, carrying C1's note) committed and published
/// locally, nothing pushed yet. Returns (c1, c2, c3).
fn replay_chain(f: &Fixture, inputs: &std::path::Path) -> (String, String, String) {
    approve_live(f.root(), inputs);
    let c1 = commit_all(f, "the reviewed change");
    let c2 = reviewed_revert(f, inputs);
    probity_ok(f.root(), &["publish"]);
    let c3 = revert_head(f, "bring it back");
    f.git(&["notes", "--ref=probity", "copy", &c1, &c3])
        .unwrap();
    (c1, c2, c3)
}

/// `args` pushed past the client's gates is refused `approval_spent`,
/// naming `c1` as the earlier delivery.
fn spent_naming(f: &Fixture, c1: &str, args: &[&str]) {
    let err = push_no_verify(f, args).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(c1), "{err}");
}

/// Red team round 4, finding 1 (a): the earlier delivery in the same push
/// counts. C1, C2 and C3 in one push: C3 replays C1's approval, which C1
/// spends in that very push (D-R125).
#[test]
fn an_approval_replayed_within_one_push_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    let before = rev(&f, &server, "main");
    let (c1, c2, _) = replay_chain(&f, inputs.path());
    spent_naming(
        &f,
        &c1,
        &["--atomic", "origin", "main", "refs/notes/probity"],
    );
    assert_eq!(rev(&f, &server, "main"), before);
    // C1 and C2 alone, with the same notes (C3's among them, on a commit
    // the server does not hold): they land.
    push_no_verify(
        &f,
        &[
            "--atomic",
            "origin",
            &format!("{c2}:refs/heads/main"),
            "refs/notes/probity",
        ],
    )
    .unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(c2));
}

/// Red team round 4, finding 1 (b): a ref the update creates, or an
/// existing one it fast-forwards from before C1, gets C1 in its history
/// with C3: C3 is a replay there too (D-R125). The legitimate flows beside
/// it: C1 and C2 reach that branch (their first delivery there), and the
/// same commit is on two branches.
#[test]
fn an_approval_replayed_onto_a_new_or_an_older_protected_ref_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    let seed = rev(&f, f.root(), "HEAD").unwrap();
    push_no_verify(&f, &["origin", &format!("{seed}:refs/heads/rel2")]).unwrap();
    f.git_in(
        &server,
        &["config", "--add", "probity.protectedRefs", "refs/heads/*"],
    )
    .unwrap();
    f.git_in(
        &server,
        &["config", "--add", "probity.protectedRefs", "refs/tags/*"],
    )
    .unwrap();
    approve_live(f.root(), inputs.path());
    let c1 = commit_all(&f, "the reviewed change");
    let c2 = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(c2.clone()));
    f.git(&["checkout", "-q", "-b", "again"]).unwrap();
    let c3 = revert_head(&f, "bring it back");
    f.git(&["notes", "--ref=probity", "copy", &c1, &c3])
        .unwrap();
    // A new protected branch, a new protected tag, an existing protected
    // branch from before C1: each at C3, whose history holds C1.
    for target in ["refs/heads/rel", "refs/tags/v9", "refs/heads/rel2"] {
        let spec = format!("{c3}:{target}");
        spent_naming(
            &f,
            &c1,
            &["--atomic", "origin", &spec, "refs/notes/probity"],
        );
        assert_ne!(rev(&f, &server, target), Some(c3.clone()), "{target}");
    }
    assert_eq!(rev(&f, &server, "rel2"), Some(seed));
    // C1 and C2 reach the older branch: their first delivery there.
    push_no_verify(
        &f,
        &[
            "--atomic",
            "origin",
            &format!("{c2}:refs/heads/rel2"),
            "refs/notes/probity",
        ],
    )
    .unwrap();
    // The same commit on a new branch: lands.
    push_no_verify(&f, &["origin", &format!("{c2}:refs/heads/rel")]).unwrap();
    assert_eq!(rev(&f, &server, "rel"), Some(c2.clone()));
    // And main fast-forwarded to C3: spent, as before.
    spent_naming(
        &f,
        &c1,
        &[
            "--atomic",
            "origin",
            "again:refs/heads/main",
            "refs/notes/probity",
        ],
    );
    assert_eq!(rev(&f, &server, "main"), Some(c2));
}

/// Red team round 4, findings 4 and 5: a note naming an approval on a
/// commit this repository does not hold names no delivery (no ref's
/// history can hold it). Anyone may push such a note (the notes only
/// grow): it must not fail a later legitimate delivery of that approval.
#[test]
fn a_note_naming_an_approval_on_a_commit_the_server_lacks_does_not_jam_its_delivery() {
    let (f, _dir, server, inputs) = plain_server();
    f.git_in(
        &server,
        &["config", "probity.protectedRefs", "refs/heads/main"],
    )
    .unwrap();
    let lineage = string_at(&approve_live(f.root(), inputs.path()), "lineage_id");
    let c = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["publish"]);
    push_no_verify(
        &f,
        &[
            "--atomic",
            "origin",
            "HEAD:refs/heads/pr",
            "refs/notes/probity",
        ],
    )
    .unwrap();
    // The lineage id as a note on an absent commit id and on a blob.
    let blob = rev(&f, f.root(), "HEAD:src/parser.rs").unwrap();
    for absent in ["0000000000000000000000000000000000000001", blob.as_str()] {
        force_note(&f, absent, &lineage);
    }
    push_no_verify(&f, &["origin", "refs/notes/probity"]).unwrap();
    // The legitimate merge of C into main lands.
    push_no_verify(&f, &["origin", &format!("{c}:refs/heads/main")]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(c));
}

/// Red team round 4, finding 4: the everyday race. A teammate lands first;
/// the reviewed, published commit is rebased with `git pull --rebase`, and
/// its old note (on a commit the server never got) stays in the notes
/// `probity push` sends. The push lands.
#[test]
fn a_reviewed_commit_rebased_after_losing_the_push_race_lands() {
    let (f, _dir, server, inputs) = plain_server();
    let (_b_dir, b) = clone_as(&f, &server, "b");
    let theirs = teammate_commits_docs(&f, &b, inputs.path());
    approve_live(f.root(), inputs.path());
    let mine = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["publish"]);
    probity_ok(&b, &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(theirs.clone()));
    let lost = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(lost.code, 0, "{}{}", lost.stdout, lost.stderr);
    f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    let rebased = rev(&f, f.root(), "HEAD").unwrap();
    assert_ne!(rebased, mine);
    assert!(f.git(&["notes", "--ref=probity", "show", &mine]).is_ok());
    probity_ok(f.root(), &["push", "origin", "HEAD"]);
    assert_eq!(rev(&f, &server, "main"), Some(rebased));
}

/// Red team round 5 (attempt 22): the approval's first delivery was
/// itself carried onto a new base (a `pull --rebase` after a teammate
/// landed first), then reverted; main moves on, and the agent re-applies
/// the rebased commit with its note. That first delivery spent the
/// approval, whatever trees it delivered: the replay is refused naming
/// it, and the legitimate rebase flow before it still lands.
#[test]
fn an_approval_first_delivered_on_a_new_base_is_spent_by_that_delivery() {
    first_delivered_on_a_new_base_then_replayed(false);
}

/// The same, with 64 notes naming the approval on ids that sort first
/// pushed before the replay: the hook's notes search reaches its bound,
/// and the rebased delivery, which only its note ties to the approval,
/// is found among the ref's history commits whose notes name it (D-R137).
#[test]
fn a_flood_of_notes_does_not_hide_a_delivery_through_a_rebase_proof() {
    first_delivered_on_a_new_base_then_replayed(true);
}

/// A reviewed change that lost the push race, delivered through its
/// rebase proof after `git pull --rebase`, then reverted (reviewed, pushed).
/// Returns the rebased delivery.
fn delivered_on_a_new_base_then_reverted(
    f: &Fixture,
    server: &std::path::Path,
    inputs: &std::path::Path,
) -> String {
    let (_b_dir, b) = clone_as(f, server, "b");
    teammate_commits_docs(f, &b, inputs);
    approve_live(f.root(), inputs);
    commit_all(f, "the reviewed change");
    probity_ok(f.root(), &["publish"]);
    probity_ok(&b, &["push", "origin", "main"]);
    f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    probity_ok(f.root(), &["push", "origin", "HEAD"]);
    let rebased = rev(f, f.root(), "HEAD").unwrap();
    assert_eq!(rev(f, server, "main"), Some(rebased.clone()));
    reviewed_revert(f, inputs);
    probity_ok(f.root(), &["push", "origin", "main"]);
    rebased
}

/// In a CI form the notes ref is any pusher's to rewrite (a forge runs
/// no hook guarding it): the rebased delivery's note dropped from it, the
/// delivery is still found in the base's history by what it changed (the
/// approval's paths with its final bytes), and the replay is refused
/// (D-R141).
#[test]
fn a_ci_form_finds_a_rebase_proof_delivery_whose_note_was_dropped() {
    ci_form_refuses_a_replay_whose_delivery_lost_its_note(None);
}

/// The same with the delivery's note replaced by junk (a line that is no
/// bundle): a note that holds no approval the commit delivered ties it to
/// none, as no note does.
#[test]
fn a_ci_form_finds_a_rebase_proof_delivery_whose_note_was_replaced_by_junk() {
    ci_form_refuses_a_replay_whose_delivery_lost_its_note(Some("junk"));
}

fn ci_form_refuses_a_replay_whose_delivery_lost_its_note(junk: Option<&str>) {
    let (f, _dir, server, inputs) = plain_server();
    let rebased = delivered_on_a_new_base_then_reverted(&f, &server, inputs.path());
    f.write("docs/more.md", "more\n").unwrap();
    approve_live(f.root(), inputs.path());
    let other = commit_all(&f, "other work");
    probity_ok(f.root(), &["push", "origin", "main"]);
    f.git(&["cherry-pick", "--no-commit", &rebased]).unwrap();
    let replay = commit_all(&f, "bring it back");
    f.git(&["notes", "--ref=probity", "copy", &rebased, &replay])
        .unwrap();
    match junk {
        None => f.git(&["notes", "--ref=probity", "remove", &rebased]),
        Some(text) => f.git(&["notes", "--ref=probity", "add", "-f", "-m", text, &rebased]),
    }
    .unwrap();
    let ci = probity(
        f.root(),
        &notes_pre_pr_args(&other, &["--head", &replay, "--json"]),
    );
    let said = format!("{}{}", ci.stdout, ci.stderr);
    assert_ne!(ci.code, 0, "{said}");
    assert!(said.contains("approval_spent"), "{said}");
    assert!(said.contains(&rebased), "{said}");
}

fn first_delivered_on_a_new_base_then_replayed(flood: bool) {
    let (f, _dir, server, inputs) = plain_server();
    let rebased = delivered_on_a_new_base_then_reverted(&f, &server, inputs.path());
    if flood {
        flood_notes_naming(&f, &rebased, 64);
        push_no_verify(&f, &["origin", "refs/notes/probity"]).unwrap();
    }
    reapplied_on_a_new_base_is_refused(&f, &server, inputs.path(), &rebased);
}

/// `count` notes on ids no commit has, each a copy of `noted`'s note (so
/// each names its approval), all sorting before any real commit's id,
/// committed on top of `f`'s `refs/notes/probity` as anyone with git can.
fn flood_notes_naming(f: &Fixture, noted: &str, count: usize) {
    let git = |args: &[&str], stdin: &[u8]| git_out(f.root(), args, stdin, &[]);
    let note = f.git(&["notes", "--ref=probity", "show", noted]).unwrap();
    let blob = git(&["hash-object", "-w", "--stdin"], &note);
    let mut listing = git(&["ls-tree", "refs/notes/probity"], b"");
    for i in 1..=count {
        listing.push_str(&format!("\n100644 blob {blob}\t{i:040x}"));
    }
    listing.push('\n');
    let tree = git(&["mktree"], listing.as_bytes());
    let flood = git(
        &[
            "commit-tree",
            &tree,
            "-p",
            "refs/notes/probity",
            "-m",
            "flood",
        ],
        b"",
    );
    git(&["update-ref", "refs/notes/probity", &flood], b"");
}

/// Red team round 5 (the limit the threat model named): the replay
/// check's notes search reads at most 64 commits naming an approval, in
/// path order. 64 notes naming it on ids that sort first (no commit has
/// them), pushed ahead of a replay, hid its earlier delivery. A search
/// that reaches that bound reads the ref's own history too, as a CI form
/// does (D-R137): the replay is refused, and the flood itself (notes on
/// no commit) still lands, jamming nothing.
#[test]
fn a_flood_of_notes_naming_an_approval_does_not_hide_its_earlier_delivery() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    let revert = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    flood_notes_naming(&f, &c1, 64);
    push_no_verify(&f, &["origin", "refs/notes/probity"]).unwrap();
    let replay = revert_head(&f, "bring it back");
    replay_refused(&f, &c1, &replay);
    assert_eq!(rev(&f, &server, "main"), Some(revert));
    amend_with_other_bytes_and_land(&f, &server, inputs.path());
}

/// D-R141's question is asked in a CI form only of a history commit whose
/// note is gone: a change delivered (noted with its own review), reverted,
/// then made again through a fresh review on a new base (a flag toggled
/// back) is another approval's delivery, and passes the CI form, as it
/// passes the hook.
#[test]
fn a_ci_form_passes_a_change_made_again_through_a_fresh_review() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    f.write("docs/more.md", "more\n").unwrap();
    approve_live(f.root(), inputs.path());
    let other = commit_all(&f, "other work");
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The same change again, reviewed afresh on the new base.
    f.git(&["cherry-pick", "--no-commit", &c1]).unwrap();
    approve_live(f.root(), inputs.path());
    let again = commit_all(&f, "the change again");
    probity_ok(f.root(), &["publish"]);
    let ci = probity(
        f.root(),
        &notes_pre_pr_args(&other, &["--head", &again, "--json"]),
    );
    assert_eq!(ci.code, 0, "{}{}", ci.stdout, ci.stderr);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(again));
}

/// `core.splitIndex=true` (D-R152's review): the stand-in index git wrote
/// for `add -A` was split with its shared part named by the null hash
/// (`index.skipHash`), which git then read as no entries at all, so every
/// live candidate was the empty tree, a start's and a gate's alike: an
/// approved empty candidate let any work tree pass. Stand-ins are never
/// split now.
#[test]
fn a_split_index_never_makes_the_live_candidate_empty() {
    let f = medium_change();
    f.git(&["config", "core.splitIndex", "true"]).unwrap();
    f.git(&["update-index", "--split-index"]).unwrap();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let r = probity(f.root(), &["status"]);
    assert!(
        r.stdout.contains("src/parser.rs"),
        "the candidate holds the change: {}{}",
        r.stdout,
        r.stderr
    );
    let r = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(r.json["decision"], "allow", "{}{}", r.stdout, r.stderr);
    f.write("src/parser.rs", "// never reviewed\n").unwrap();
    let r = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(r.json["decision"], "deny", "{}{}", r.stdout, r.stderr);
    // Nothing of git's split index is left behind by the stand-ins.
    let names: Vec<String> = std::fs::read_dir(f.root().join(".git"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("sharedindex.0000000")),
        "{names:?}"
    );
}

/// A `git` the agent plants in its work tree, with a relative or empty
/// entry in `PATH` (D-R153): the child searched `PATH` after changing
/// into the repository, so the planted program was the git every
/// observation ran. Git is now looked up in `PATH`'s absolute
/// directories only, before the child starts.
#[test]
fn a_git_planted_in_the_work_tree_never_runs_through_a_relative_path_entry() {
    use std::os::unix::fs::PermissionsExt;
    let f = medium_change();
    let marks = tempfile::tempdir().unwrap();
    let mark = marks.path().join("planted-ran");
    let planted = f.root().join("git");
    std::fs::write(
        &planted,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var("PATH").unwrap();
    for relative in [format!(":{path}"), format!(".:{path}")] {
        let out = probity_in(f.root())
            .args(["--json", "start"])
            .env("PATH", &relative)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!mark.exists(), "the planted git ran with PATH={relative}");
    }
}
