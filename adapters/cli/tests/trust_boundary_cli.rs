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
        let alice = keygen(keys.path(), "alice");
        let signers = allowed(keys.path(), &[("alice@example.invalid", &alice)]);
        for (k, v) in [
            ("probity.requireSignature", "true"),
            ("probity.allowedSignersFile", signers.to_str().unwrap()),
        ] {
            f.git_in(&server, &["config", k, v]).unwrap();
        }
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

fn recover_scope_changed(f: &Fixture, lineage: &str) -> String {
    let st = probity(f.root(), &["status", "--lineage", lineage]);
    let revision = string_at(&st.json, "store_revision");
    let rec = probity_ok(
        f.root(),
        &recover_args(
            lineage,
            &revision,
            "scope_changed",
            "a one-line follow-up",
            "agent",
        ),
    );
    rec.json["lineage_id"].as_str().unwrap().to_string()
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
    let l2 = recover_scope_changed(&s.f, &l1);
    let st = probity(s.f.root(), &["status", "--lineage", &l2]);
    approve_started(s.f.root(), s.inputs.path(), &st.json);
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
    let st = probity(s.f.root(), &["status", "--lineage", &l2]);
    approve_started(s.f.root(), s.inputs.path(), &st.json);
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

fn push_no_verify(f: &Fixture, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git(&all).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn an_approval_replayed_onto_a_revert_of_its_revert_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    approve_live(f.root(), inputs.path());
    let c1 = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The maintainer reverts it, reviewed as committed.
    f.git(&["revert", "--no-edit", "--no-commit", "HEAD"])
        .unwrap();
    let revert = commit_all(&f, "revert the change");
    let st = probity_ok(f.root(), &["start", "--commit", &revert]);
    approve_started(f.root(), inputs.path(), &st.json);
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The agent reverts the revert and copies the old note onto it: the
    // same (parent tree, tree) the old approval bound.
    f.git(&["revert", "--no-edit", "--no-commit", "HEAD"])
        .unwrap();
    let replay = commit_all(&f, "bring it back");
    f.git(&["notes", "--ref=probity", "copy", &c1, &replay])
        .unwrap();
    let err =
        push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(&c1), "{err}");
    assert!(
        err.contains("probity start --commit <sha>") && err.contains("cannot be reviewed again"),
        "{err}"
    );
    assert_eq!(rev(&f, &server, "main"), Some(revert));
    // The next step the denial names: the change amended together with
    // other bytes, reviewed as committed, then pushed.
    f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--amend", "--no-edit", "--no-verify"])
        .unwrap();
    let amended = rev(&f, f.root(), "HEAD").unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", &amended]);
    approve_started(f.root(), inputs.path(), &st.json);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(amended));
}

#[test]
fn a_reverted_approval_carried_onto_a_new_base_by_its_rebase_proof_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    approve_live(f.root(), inputs.path());
    let c1 = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    f.git(&["revert", "--no-edit", "--no-commit", "HEAD"])
        .unwrap();
    let revert = commit_all(&f, "revert the change");
    let st = probity_ok(f.root(), &["start", "--commit", &revert]);
    approve_started(f.root(), inputs.path(), &st.json);
    // Other reviewed work moves the base on.
    f.write("docs/notes.md", "unrelated\n").unwrap();
    approve_live(f.root(), inputs.path());
    let other = commit_all(&f, "other work");
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The agent re-applies the reverted change on the new base and copies
    // its old note: a clean rebase proof of an approval already spent.
    f.git(&["cherry-pick", "--no-commit", &c1]).unwrap();
    let replay = commit_all(&f, "bring it back, rebased");
    f.git(&["notes", "--ref=probity", "copy", &c1, &replay])
        .unwrap();
    let err =
        push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(&c1), "{err}");
    assert_eq!(rev(&f, &server, "main"), Some(other));
}

#[test]
fn the_same_reviewed_commit_reaches_another_protected_branch_and_is_pushed_again() {
    let (f, _dir, server, inputs) = plain_server();
    approve_live(f.root(), inputs.path());
    let c1 = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The same commit to a release branch cut from the base: its approval
    // has not delivered there yet.
    push_no_verify(&f, &["origin", "HEAD~1:refs/heads/release"]).unwrap();
    push_no_verify(&f, &["origin", "HEAD:refs/heads/release"]).unwrap();
    assert_eq!(rev(&f, &server, "release"), Some(c1.clone()));
    // Pushed again (nothing new): allowed.
    push_no_verify(&f, &["origin", "main"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(c1));
}
