//! Protected history at the server gate (issue 21 §1): only protected refs
//! count as published history, so a commit is judged when it first
//! becomes reachable from a protected ref, whatever other ref (a tag, an
//! unprotected branch) already held it; deleting a protected ref is
//! judged; tags can be protected. Every case runs a real bare remote with
//! the server hook installed and a real `git push --no-verify` (no client
//! hook helps).

mod support;

use std::path::PathBuf;

use probity_git::fixture::Fixture;
use support::*;

struct Server {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    inputs: tempfile::TempDir,
}

impl Server {
    /// A clone whose `main` is on a bare server with the server hook, and
    /// the server's `probity.protectedRefs` set to `globs` (none: the
    /// default, `refs/heads/*`).
    fn new(globs: &[&str]) -> Self {
        let (f, dir, server) = hooked_origin();
        for g in globs {
            f.git_in(&server, &["config", "--add", "probity.protectedRefs", g])
                .unwrap();
        }
        Self {
            f,
            _dir: dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    fn push(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["push", "-q", "--no-verify"];
        all.extend_from_slice(args);
        self.f.git(&all).map(|_| ()).map_err(|e| e.to_string())
    }

    fn server_rev(&self, r: &str) -> Option<String> {
        rev(&self.f, &self.server, r)
    }

    fn head(&self) -> String {
        rev(&self.f, self.f.root(), "HEAD").unwrap()
    }

    /// An unreviewed code change committed on HEAD.
    fn commit_unreviewed(&self) -> String {
        self.f
            .write("src/backdoor.rs", "fn backdoor() { run_anything() }\n")
            .unwrap();
        self.f.commit_all("unreviewed").unwrap();
        self.head()
    }

    /// An empty commit on HEAD: it changes no bytes, so alone it passes
    /// as `no_change`.
    fn commit_empty(&self) -> String {
        self.f
            .git(&["commit", "-q", "--allow-empty", "-m", "nothing"])
            .unwrap();
        self.head()
    }

    /// A reviewed change committed on HEAD, published with `probity push`
    /// to `dest`.
    fn reviewed_push(&self, dest: &str) -> String {
        write_medium_change(&self.f);
        approve_live(self.f.root(), self.inputs.path());
        self.f.commit_all("reviewed").unwrap();
        probity_ok(self.f.root(), &["push", "origin", dest]);
        self.head()
    }
}

#[test]
fn an_unreviewed_commit_parked_on_a_tag_is_judged_when_a_new_protected_branch_takes_it() {
    let s = Server::new(&[]);
    let parked = s.commit_unreviewed();
    // Tags are not protected by default: the tag is accepted.
    s.push(&["origin", "HEAD:refs/tags/park"]).unwrap();
    assert_eq!(s.server_rev("refs/tags/park").as_deref(), Some(&*parked));
    // An empty commit on top, pushed to a new protected branch: the
    // parked commit first becomes reachable from a protected ref here.
    let tip = s.commit_empty();
    let err = s.push(&["origin", "HEAD:refs/heads/release"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(
        err.contains(&parked[..12]) || err.contains(&parked),
        "{err}"
    );
    assert_eq!(s.server_rev("refs/heads/release"), None);
    // The same commit straight onto a new protected branch: denied too.
    let err = s
        .push(&["origin", &format!("{parked}:refs/heads/other")])
        .unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    let _ = tip;
}

#[test]
fn an_unreviewed_commit_on_an_unprotected_branch_is_judged_when_it_reaches_a_protected_one() {
    let s = Server::new(&["refs/heads/main", "refs/heads/release/*"]);
    let parked = s.commit_unreviewed();
    s.push(&["origin", "HEAD:refs/heads/wip"]).unwrap();
    assert_eq!(s.server_rev("refs/heads/wip").as_deref(), Some(&*parked));
    s.commit_empty();
    let err = s
        .push(&["origin", "HEAD:refs/heads/release/1"])
        .unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert_eq!(s.server_rev("refs/heads/release/1"), None);
}

#[test]
fn deleting_a_protected_branch_is_denied_unless_the_server_allows_it() {
    let s = Server::new(&["refs/heads/main", "refs/heads/release/*"]);
    // git itself refuses to delete a bare repository's HEAD branch; the
    // gate's rule is the subject here.
    s.f.git_in(
        &s.server,
        &["config", "receive.denyDeleteCurrent", "ignore"],
    )
    .unwrap();
    // A new protected branch at a commit protected history already holds
    // delivers nothing new: allowed.
    s.push(&["origin", "HEAD:refs/heads/release/1"]).unwrap();
    let before = s.server_rev("main");
    for r in ["refs/heads/main", "refs/heads/release/1"] {
        let err = s.push(&["origin", &format!(":{r}")]).unwrap_err();
        assert!(err.contains("protected_ref_deleted"), "{err}");
        assert!(err.contains("next:"), "{err}");
    }
    assert_eq!(s.server_rev("main"), before);
    assert_eq!(s.server_rev("refs/heads/release/1"), before);
    // An unprotected branch may be deleted.
    s.push(&["origin", "HEAD:refs/heads/wip"]).unwrap();
    s.push(&["origin", ":refs/heads/wip"]).unwrap();
    assert_eq!(s.server_rev("refs/heads/wip"), None);
    // The administrator allows deletions: then main may go. A push cannot
    // re-create the branch the server's HEAD names (its policy governs
    // every push, D-R121); the administrator re-creates it, and what a
    // push then delivers onto it is judged as ever.
    s.f.git_in(
        &s.server,
        &["config", "probity.allowProtectedDeletion", "true"],
    )
    .unwrap();
    let parked = s.commit_unreviewed();
    s.push(&["origin", "HEAD:refs/tags/park"]).unwrap();
    s.push(&["origin", ":refs/heads/main"]).unwrap();
    assert_eq!(s.server_rev("refs/heads/main"), None);
    s.commit_empty();
    let err = s.push(&["origin", "HEAD:refs/heads/main"]).unwrap_err();
    assert!(err.contains("default_branch_unborn"), "{err}");
    assert_eq!(s.server_rev("refs/heads/main"), None);
    let kept = before.clone().unwrap();
    s.f.git_in(&s.server, &["update-ref", "refs/heads/main", &kept])
        .unwrap();
    let err = s.push(&["origin", "HEAD:refs/heads/main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(
        err.contains(&parked[..12]) || err.contains(&parked),
        "{err}"
    );
    assert_eq!(s.server_rev("refs/heads/main"), Some(kept));
}

#[test]
fn protected_tags_are_judged_and_a_tag_on_reviewed_history_passes() {
    let s = Server::new(&["refs/heads/*", "refs/tags/*"]);
    // A reviewed commit on main, then a release tag (lightweight and
    // annotated) at it: allowed.
    let reviewed = s.reviewed_push("main");
    s.push(&["origin", "HEAD:refs/tags/v1"]).unwrap();
    s.f.git(&["tag", "-a", "-m", "release 2", "v2"]).unwrap();
    s.push(&["origin", "refs/tags/v2"]).unwrap();
    assert_eq!(
        s.server_rev("refs/tags/v2^{commit}").as_deref(),
        Some(&*reviewed)
    );
    // An unreviewed commit pushed straight as a tag: denied.
    s.commit_unreviewed();
    let err = s.push(&["origin", "HEAD:refs/tags/v3"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert_eq!(s.server_rev("refs/tags/v3"), None);
    // Moving a protected tag back is a rewind: denied.
    let older = rev(&s.f, s.f.root(), &format!("{reviewed}~1")).unwrap();
    let err = s
        .push(&["origin", &format!("+{older}:refs/tags/v1")])
        .unwrap_err();
    assert!(err.contains("delivery_not_fast_forward"), "{err}");
    assert_eq!(s.server_rev("refs/tags/v1").as_deref(), Some(&*reviewed));
}

#[test]
fn reviewed_work_first_pushed_to_an_unprotected_branch_reaches_a_new_protected_one() {
    let s = Server::new(&["refs/heads/main", "refs/heads/release/*"]);
    // Reviewed and published on an unprotected branch first (its notes
    // travel with it), then a new protected branch at it: the commit is
    // judged there, with the notes already on the server.
    let reviewed = s.reviewed_push("HEAD:refs/heads/wip");
    s.push(&["origin", "HEAD:refs/heads/release/1"]).unwrap();
    assert_eq!(s.server_rev("refs/heads/release/1"), Some(reviewed.clone()));
    // And main fast-forwards to it.
    s.push(&["origin", "HEAD:refs/heads/main"]).unwrap();
    assert_eq!(s.server_rev("refs/heads/main"), Some(reviewed));
}

/// A bundle written by hand with core's own API, every hash right: the
/// delivery commit's real trees, but frozen as `low` risk with no lens
/// (the change is code: medium, one lens), approved on a line of evidence.
fn hand_written_low_bundle(f: &Fixture, commit: &str) -> Vec<u8> {
    use probity_core::review::{RiskAssessment, RiskLevel, RiskReason};
    support::forged::low_v1_bundle(f, commit, |_, _| {
        RiskAssessment::new(RiskLevel::Low, vec![RiskReason::DocsOnly]).unwrap()
    })
}

#[test]
fn a_hand_written_low_risk_bundle_for_a_code_change_is_refused_at_the_server() {
    let s = Server::new(&[]);
    let tip = s.commit_unreviewed();
    let note = hand_written_low_bundle(&s.f, &tip);
    let path = s.inputs.path().join("note.txt");
    std::fs::write(&path, &note).unwrap();
    s.f.git(&[
        "notes",
        "--ref=probity",
        "add",
        "-F",
        path.to_str().unwrap(),
        &tip,
    ])
    .unwrap();
    let err = s
        .push(&[
            "--atomic",
            "origin",
            "HEAD:refs/heads/main",
            "refs/notes/probity",
        ])
        .unwrap_err();
    assert!(err.contains("derivation_mismatch"), "{err}");
    assert!(err.contains("claims risk `low`"), "{err}");
    assert_ne!(s.server_rev("main").as_deref(), Some(&*tip));
    // The same bundle is refused by a clone's import too, nothing written.
    let b = s.inputs.path().join("bundle.json");
    std::fs::write(&b, &note).unwrap();
    let before = store_snapshot(&s.f);
    let r = probity(s.f.root(), &["bundle", "import", b.to_str().unwrap()]);
    assert_eq!(
        r.json["error"]["code"], "derivation_mismatch",
        "{}{}",
        r.stdout, r.stderr
    );
    assert_ne!(r.code, 0);
    assert_eq!(store_snapshot(&s.f), before);
}
