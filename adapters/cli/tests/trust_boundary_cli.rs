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

fn push_no_verify(f: &Fixture, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git(&all).map(|_| ()).map_err(|e| e.to_string())
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
    f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--amend", "--no-edit", "--no-verify"])
        .unwrap();
    let amended = rev(&f, f.root(), "HEAD").unwrap();
    land_reviewed_commit(&f, &server, inputs.path(), &amended);
}

#[test]
fn a_reverted_approval_carried_onto_a_new_base_by_its_rebase_proof_is_refused() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    reviewed_revert(&f, inputs.path());
    // Other reviewed work moves the base on.
    f.write("docs/notes.md", "unrelated\n").unwrap();
    approve_live(f.root(), inputs.path());
    let other = commit_all(&f, "other work");
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The agent re-applies the reverted change on the new base and copies
    // its old note: a clean rebase proof of an approval already spent.
    f.git(&["cherry-pick", "--no-commit", &c1]).unwrap();
    let replay = commit_all(&f, "bring it back, rebased");
    replay_refused(&f, &c1, &replay);
    assert_eq!(rev(&f, &server, "main"), Some(other));
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
