//! Seams between two features, probed as an adversary with push access
//! would, on a real bare server with the pre-receive hook installed: a
//! name git's lookup rules (DWIM) resolve to something other than the ref
//! meant, and two fan-out paths of one note in one notes tree.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;
use support::*;

/// `git push -q --no-verify` from `cwd`: Ok, or Err(git's output).
fn push(f: &Fixture, cwd: &Path, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git_in(cwd, &all).map(|_| ()).map_err(|e| e.to_string())
}

/// A plain git command in `cwd` with `GIT_INDEX_FILE` set to `index`:
/// the notes trees below are built by hand, as anyone with git can.
fn git_with_index(cwd: &Path, index: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .env("GIT_INDEX_FILE", index)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A new notes commit on top of `refs/notes/probity` in `cwd` whose tree
/// holds exactly `entries` (path, blob id), and the notes ref moved to it:
/// a fast-forward of the notes, built with git's plumbing.
fn notes_commit(cwd: &Path, scratch: &Path, entries: &[(String, String)]) -> String {
    let index = scratch.join("notes-index");
    let _ = std::fs::remove_file(&index);
    git_with_index(cwd, &index, &["read-tree", "--empty"]);
    for (path, blob) in entries {
        git_with_index(
            cwd,
            &index,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("100644,{blob},{path}"),
            ],
        );
    }
    let tree = git_with_index(cwd, &index, &["write-tree"]);
    let parent = git_with_index(cwd, &index, &["rev-parse", "refs/notes/probity"]);
    let commit = git_with_index(
        cwd,
        &index,
        &["commit-tree", &tree, "-p", &parent, "-m", "Notes"],
    );
    git_with_index(
        cwd,
        &index,
        &["update-ref", "refs/notes/probity", &commit, &parent],
    );
    commit
}

/// A published commit's note moved to a fan-out path (as git itself lays
/// notes out once a notes tree grows), and then a second, flat path for
/// the same commit added beside it holding one junk line: git reads both
/// (it concatenates them), so the junk only adds a line. The server must
/// read the note as git does: the added path may neither hide the genuine
/// bundle (denying a reviewed delivery: a jam) nor escape the grow-only
/// rule (a flat path replacing what a reader sees).
/// A teammate's clone (`mallory`) of `server` pushes the tag `tag` (the
/// full name `refs/tags/<tag>`) on its `HEAD`.
fn pushes_tag_as_mallory(f: &Fixture, server: &Path, tag: &str) {
    let (_t, mallory) = clone_as(f, server, "mallory");
    push(f, &mallory, &["origin", &format!("HEAD:refs/tags/{tag}")]).unwrap();
}

/// CI's clone of `server` (tags included), with the notes fetched.
fn ci_clone(f: &Fixture, server: &Path) -> (tempfile::TempDir, PathBuf) {
    let (dir, ci) = clone_as(f, server, "ci");
    fetch_notes(f, &ci);
    (dir, ci)
}

#[test]
fn a_second_fan_out_path_for_one_note_neither_hides_its_bundle_nor_escapes_the_grow_only_rule() {
    let (f, _dir, server, inputs) = served();
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let c = commit_all(&f, "reviewed");
    probity_ok(f.root(), &["publish"]);
    // The reviewed commit and its note reach the server, the commit on an
    // unprotected tag only: it is not delivered yet.
    push(
        &f,
        f.root(),
        &[
            "origin",
            &format!("{c}:refs/tags/wip"),
            "refs/notes/probity",
        ],
    )
    .unwrap();
    let genuine = rev(&f, f.root(), &format!("refs/notes/probity:{c}")).unwrap();

    // The note moved to a fan-out path: the same blob, a legitimate layout.
    let fanned = format!("{}/{}", &c[..2], &c[2..]);
    notes_commit(
        f.root(),
        inputs.path(),
        &[(fanned.clone(), genuine.clone())],
    );
    push(&f, f.root(), &["origin", "refs/notes/probity"]).unwrap();

    // The attacker's notes commit: a flat path for the same commit beside
    // the fan-out one, holding a line that is no bundle.
    let junk = {
        let p = inputs.path().join("junk");
        std::fs::write(&p, "not a bundle\n").unwrap();
        String::from_utf8(f.git(&["hash-object", "-w", p.to_str().unwrap()]).unwrap())
            .unwrap()
            .trim()
            .to_string()
    };
    notes_commit(
        f.root(),
        inputs.path(),
        &[(fanned.clone(), genuine.clone()), (c.clone(), junk.clone())],
    );
    // git's own reader sees both blobs of the note.
    let shown = String::from_utf8(f.git(&["notes", "--ref=probity", "show", &c]).unwrap()).unwrap();
    assert!(shown.contains("not a bundle"), "{shown}");
    assert!(shown.contains("\"digest\""), "{shown}");
    // Since D-R126 the second path is refused by name, with the path the
    // note holds (git and the gates read two paths differently, which
    // jammed a teammate's push: red team round 4).
    let held = rev(&f, &server, "refs/notes/probity");
    let err = push(&f, f.root(), &["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("note_path_invalid"), "{err}");
    assert!(
        err.contains(&format!("{c} (the same commit's note is at {fanned})")),
        "{err}"
    );
    assert_eq!(rev(&f, &server, "refs/notes/probity"), held);

    // The reviewed commit is delivered to the protected branch: the
    // genuine bundle at the fan-out path proves it.
    let delivered = push(&f, f.root(), &["origin", &format!("{c}:refs/heads/main")]);
    assert!(
        delivered.is_ok(),
        "a junk note path beside the bundle jammed a reviewed delivery: {delivered:?}"
    );
    assert_eq!(rev(&f, &server, "refs/heads/main"), Some(c.clone()));

    // The flat path alone, the fan-out bundle dropped: what a reader sees
    // of the note loses its bundle line, and the grow-only rule refuses it.
    let before = rev(&f, &server, "refs/notes/probity").unwrap();
    notes_commit(f.root(), inputs.path(), &[(c.clone(), junk)]);
    let err = push(&f, f.root(), &["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_line_removed"), "{err}");
    assert_eq!(rev(&f, &server, "refs/notes/probity"), Some(before));
}

/// A tag named `HEAD` (an unprotected ref anyone may push) makes git's
/// `rev-parse HEAD` ambiguous in the bare repository. The server reads the
/// policy for a new protected branch from the default branch that `HEAD`
/// names: it must read `HEAD` itself, so the tag neither denies every
/// later branch creation nor stands in for the default branch.
#[test]
fn a_tag_named_head_neither_jams_nor_stands_in_for_the_default_branch() {
    let (f, _dir, server, inputs) = served();
    // A teammate pushes a tag spelled `HEAD`, on the published base.
    pushes_tag_as_mallory(&f, &server, "HEAD");
    assert!(rev(&f, &server, "refs/tags/HEAD").is_some());

    // A reviewed change pushed to a new protected branch.
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let c = commit_all(&f, "reviewed");
    probity_ok(f.root(), &["publish"]);
    let created = push(
        &f,
        f.root(),
        &[
            "--atomic",
            "origin",
            "HEAD:refs/heads/feature",
            "refs/notes/probity",
        ],
    );
    assert!(
        created.is_ok(),
        "a tag named HEAD denied a reviewed branch's creation: {created:?}"
    );
    assert_eq!(rev(&f, &server, "refs/heads/feature"), Some(c));

    // An unreviewed commit on another new branch is still judged.
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn unreviewed() {}\n",
    )
    .unwrap();
    commit_all(&f, "unreviewed");
    let err = push(&f, f.root(), &["origin", "HEAD:refs/heads/other"]).unwrap_err();
    assert!(err.contains("pre-receive hook declined"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/other"), None);
}

/// A tag spelled `refs/remotes/origin/HEAD` that a clone fetches makes
/// `rev-parse refs/remotes/origin/HEAD` ambiguous there: the client's
/// pre-push gate reads the remote's default branch by its full name, so
/// a new reviewed branch is still allowed.
#[test]
fn a_tag_spelled_like_the_remotes_head_does_not_jam_the_client_gate() {
    let (f, _dir, server, inputs) = served();
    pushes_tag_as_mallory(&f, &server, "refs/remotes/origin/HEAD");
    let (_v, victim) = clone_as(&f, &server, "victim");
    f.git_in(&victim, &["fetch", "-q", "--tags", "origin"])
        .unwrap();
    assert!(rev(&f, &victim, "refs/remotes/origin/HEAD").is_some());
    assert!(rev(&f, &victim, "refs/tags/refs/remotes/origin/HEAD").is_some());
    f.git_in(&victim, &["checkout", "-q", "-b", "feature"])
        .unwrap();
    std::fs::write(
        victim.join("src/parser.rs"),
        "// parser\nfn parse() {}\nfn more() {}\n",
    )
    .unwrap();
    std::fs::write(victim.join("src/parser_test.rs"), "#[test]\nfn t() {}\n").unwrap();
    approve_live(&victim, inputs.path());
    f.git_in(&victim, &["add", "-A"]).unwrap();
    f.git_in(&victim, &["commit", "-q", "-m", "reviewed"])
        .unwrap();
    let c = rev(&f, &victim, "HEAD").unwrap();
    // The pre-push gate told the remote by its name (as `--remote` allows),
    // judging the new branch against the remote's default branch.
    let line = format!(
        "refs/heads/feature {c} refs/heads/feature {}\n",
        "0".repeat(40)
    );
    let v = probity_stdin(&victim, &PRE_PUSH_HOOK_ARGS, line.as_bytes());
    assert_eq!(
        v.code, 0,
        "a fetched tag jammed the client's gate: {}{}",
        v.stdout, v.stderr
    );
    assert_eq!(v.json["decision"], "allow", "{}", v.stdout);
}

/// A server whose `HEAD` names a branch nobody pushed (`git init --bare`
/// without `-b` names `master`, while the team pushes `main`): a new
/// protected ref has no default branch to read its policy from. A new
/// protected branch holding a self-reviewed, unsigned change must still be
/// judged under the policy the protected history holds (here: a
/// reviewer's signature for medium risk), not under none; the same holds
/// once a server that allows it deleted its default branch.
/// `parser_base()` with a policy that asks a reviewer's (CI's) signature
/// at medium and high risk, served by a bare remote with the hook; the
/// commit before the policy is `main~1`. Returns (fixture, the server's
/// directory, the server, the keys' directory, CI's key).
fn reviewer_policy_team() -> (
    Fixture,
    tempfile::TempDir,
    PathBuf,
    tempfile::TempDir,
    PathBuf,
) {
    let f = parser_base();
    let keys = tempfile::tempdir().unwrap();
    let ci = keygen(keys.path(), "ci");
    f.write(
        ".probity/allowed_signers",
        format!("ci@example.invalid {}\n", public(&ci)),
    )
    .unwrap();
    f.write(
        ".probity/policy.json",
        r#"{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["ci@example.invalid"]},"signatures":{"medium":["reviewer"],"high":["reviewer"]}}"#,
    )
    .unwrap();
    commit_all(&f, "the team's policy");
    let (dir, server) = gated_origin(&f);
    (f, dir, server, keys, ci)
}

#[test]
fn a_new_protected_branch_under_an_unborn_head_is_judged_under_the_protected_policy() {
    let (f, _dir, server, _keys, _ci) = reviewer_policy_team();
    f.git_in(&server, &["symbolic-ref", "HEAD", "refs/heads/master"])
        .unwrap();
    let inputs = tempfile::tempdir().unwrap();

    // The agent's own, unsigned review of a medium change, pushed as a new
    // protected branch.
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    commit_all(&f, "self-reviewed");
    probity_ok(f.root(), &["publish"]);
    let err = push(
        &f,
        f.root(),
        &[
            "--atomic",
            "origin",
            "HEAD:refs/heads/feature",
            "refs/notes/probity",
        ],
    )
    .unwrap_err();
    assert!(err.contains("roles_unmet"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/feature"), None);

    // The default branch deleted (a server that allows both): a push
    // cannot recreate it (it would choose the governing policy, D-R117);
    // recreated by the administrator, the same change is judged the same
    // way.
    f.git_in(&server, &["symbolic-ref", "HEAD", "refs/heads/main"])
        .unwrap();
    for (k, v) in [
        ("probity.allowProtectedDeletion", "true"),
        ("receive.denyDeleteCurrent", "ignore"),
    ] {
        f.git_in(&server, &["config", k, v]).unwrap();
    }
    push(&f, f.root(), &["origin", "HEAD~1:refs/heads/keep"]).unwrap();
    let kept = rev(&f, &server, "refs/heads/main").unwrap();
    push(&f, f.root(), &["origin", ":refs/heads/main"]).unwrap();
    assert_eq!(rev(&f, &server, "refs/heads/main"), None);
    let err = push(
        &f,
        f.root(),
        &["--atomic", "origin", "main", "refs/notes/probity"],
    )
    .unwrap_err();
    assert!(err.contains("default_branch_unborn"), "{err}");
    assert!(err.contains("git update-ref"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/main"), None);
    f.git_in(&server, &["update-ref", "refs/heads/main", &kept])
        .unwrap();
    let err = push(
        &f,
        f.root(),
        &["--atomic", "origin", "main", "refs/notes/probity"],
    )
    .unwrap_err();
    assert!(err.contains("roles_unmet"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/main"), Some(kept));
}

/// The policy may keep its allowed-signers file anywhere in the tree
/// (`allowed_signers: "keys/allowed_signers"`), but only `.probity/` was
/// rated high. An agent that holds the reviewer role adds its own key for
/// the maintainer's principal to that file: the change edits the trust
/// material the policy names, so it is high risk and needs the maintainer's
/// signature too, at start and at the server.
#[test]
fn editing_the_allowed_signers_file_the_policy_names_is_high_risk_wherever_it_is() {
    const AGENT: &str = "agent@example.invalid";
    const ALICE: &str = "alice@example.invalid";
    let f = parser_base();
    let keys = tempfile::tempdir().unwrap();
    let agent = keygen(keys.path(), "agent");
    let alice = keygen(keys.path(), "alice");
    f.write(
        "keys/allowed_signers",
        format!("{AGENT} {}\n{ALICE} {}\n", public(&agent), public(&alice)),
    )
    .unwrap();
    f.write(
        ".probity/policy.json",
        format!(
            r#"{{"schema":"probity-policy/v1","allowed_signers":"keys/allowed_signers","roles":{{"reviewer":["{AGENT}"],"maintainer":["{ALICE}"]}},"signatures":{{"low":["reviewer"],"medium":["reviewer"],"high":["reviewer","maintainer"]}},"authorize":["maintainer"]}}"#
        ),
    )
    .unwrap();
    commit_all(&f, "the team's policy");
    let (_dir, server) = gated_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    let before = rev(&f, &server, "refs/heads/main");

    // The agent's key, listed for the maintainer's principal.
    f.write(
        "keys/allowed_signers",
        format!(
            "{AGENT} {}\n{ALICE} {}\n{ALICE} {}\n",
            public(&agent),
            public(&alice),
            public(&agent)
        ),
    )
    .unwrap();
    let st = probity_ok(f.root(), &["start"]);
    assert_eq!(st.json["risk_level"], "high", "{}", st.stdout);
    let done = approve_started(f.root(), inputs.path(), &st.json);
    let lineage = done["lineage_id"].as_str().unwrap().to_string();
    commit_all(&f, "add a key");
    sign_with(f.root(), &agent, keys.path(), &lineage);
    let err = push_past_client(&f).unwrap_err();
    assert!(err.contains("roles_unmet"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/main"), before);
}

/// A tag spelled as the commit id CI is handed (`BEFORE`, the protected
/// branch's old tip, which anyone can read before the next push) makes
/// git's `rev-parse <id>` warn that the name is ambiguous: the CI forms of
/// the gate take a full object id as that object, so such a tag cannot
/// fail every CI run of the next push.
#[test]
fn a_tag_spelled_as_a_commit_id_does_not_jam_the_ci_gates() {
    let (f, _dir, server, inputs) = served();
    let before = rev(&f, f.root(), "HEAD").unwrap();
    pushes_tag_as_mallory(&f, &server, &before);
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let after = commit_all(&f, "reviewed");
    probity_ok(f.root(), &["push", "origin", "main"]);

    // CI: a fresh clone (tags included) with the notes fetched.
    let (_c, ci) = ci_clone(&f, &server);
    assert!(rev(&f, &ci, &format!("refs/tags/{before}")).is_some());
    let range = probity_ok(
        &ci,
        &pre_receive_args(&format!("{before}..{after}"), "refs/heads/main"),
    );
    assert_eq!(range.json["decision"], "allow", "{}", range.stdout);
    let pr = probity_ok(&ci, &notes_pre_pr_args(&before, &["--head", &after]));
    assert_eq!(pr.json["decision"], "allow", "{}", pr.stdout);
}

/// The same tag `HEAD`, fetched by every clone (git follows a tag that
/// points into fetched history): `rev-parse HEAD` is ambiguous in each
/// clone too. Probity reads a clone's `HEAD` as itself, so reviewing,
/// publishing and pushing keep working there.
#[test]
fn a_fetched_tag_named_head_does_not_jam_a_clones_review_and_push() {
    let (f, _dir, server, inputs) = served();
    pushes_tag_as_mallory(&f, &server, "HEAD");
    let (_v, victim) = clone_as(&f, &server, "victim");
    assert!(rev(&f, &victim, "refs/tags/HEAD").is_some());
    std::fs::write(
        victim.join("src/parser.rs"),
        "// parser\nfn parse() {}\nfn more() {}\n",
    )
    .unwrap();
    std::fs::write(victim.join("src/parser_test.rs"), "#[test]\nfn t() {}\n").unwrap();
    f.git_in(&victim, &["add", "-A"]).unwrap();
    f.git_in(&victim, &["commit", "-q", "--no-verify", "-m", "change"])
        .unwrap();
    let c = rev(&f, &victim, "refs/heads/main").unwrap();
    let st = probity_ok(&victim, &["start", "--commit", "HEAD"]);
    approve_started(&victim, inputs.path(), &st.json);
    probity_ok(&victim, &["validate", "--gate", "pre-push"]);
    probity_ok(&victim, &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "refs/heads/main"), Some(c));
}

/// CI's pre-pr gate is handed the target branch by its full name
/// (`--base refs/remotes/origin/main`, docs/ci.md). A tag spelled
/// `refs/remotes/origin/main`, which the CI clone fetches with the history
/// it points into, makes git's `rev-parse` of that name ambiguous: a full
/// ref name is read as exactly that ref.
#[test]
fn a_tag_spelled_as_cis_base_ref_does_not_jam_the_pre_pr_gate() {
    let (f, _dir, server, inputs) = served();
    pushes_tag_as_mallory(&f, &server, "refs/remotes/origin/main");
    // The proposal: a reviewed commit on a branch, with its notes.
    f.git(&["checkout", "-q", "-b", "topic"]).unwrap();
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let head = commit_all(&f, "reviewed");
    probity_ok(f.root(), &["push", "origin", "topic"]);

    let (_c, ci) = ci_clone(&f, &server);
    assert!(rev(&f, &ci, "refs/tags/refs/remotes/origin/main").is_some());
    let pr = probity_ok(
        &ci,
        &notes_pre_pr_args("refs/remotes/origin/main", &["--head", &head]),
    );
    assert_eq!(pr.json["decision"], "allow", "{}", pr.stdout);
}

/// The medium change, approved by the agent alone (no signature),
/// committed and published: (its lineage, the commit).
fn self_reviewed_medium(f: &Fixture) -> (String, String) {
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(f);
    let lineage = approve_live(f.root(), inputs.path())["lineage_id"]
        .as_str()
        .unwrap()
        .to_string();
    let c = commit_all(f, "self-reviewed");
    probity_ok(f.root(), &["publish"]);
    (lineage, c)
}

/// Signs `lineage` with `key` (the reviewer's) and publishes it again.
fn signed_and_published(f: &Fixture, key: &Path, keys: &Path, lineage: &str) {
    sign_with(f.root(), key, keys, lineage);
    probity_ok(f.root(), &["publish"]);
}

/// Red team round 2 (attempt 34): the server's `HEAD` names `master`,
/// unborn (git's default for `git init --bare`), while the team pushes
/// `main`. An agent creates `master` at the commit before the policy (a
/// creation delivers nothing, so it is allowed): `HEAD` then names a
/// commit without a policy, and every protected push was judged under
/// that default branch's policy, none. A default branch that holds no
/// policy counts as no default branch: every protected tip's policy
/// applies, as under an unborn `HEAD`.
///
/// Red team round 3 (attempt 90): made at a commit holding an older,
/// weaker policy, the same `master` governed every push under that
/// policy. So a push cannot create the branch an unborn `HEAD` names
/// while protected refs exist (`default_branch_unborn`: the administrator
/// points `HEAD` at the team's branch); a `HEAD` an administrator left on
/// a stale branch without a policy still governs nothing.
#[test]
fn an_agent_that_makes_the_default_branch_does_not_choose_its_policy() {
    let (f, _dir, server, keys, ci) = reviewer_policy_team();
    f.git_in(&server, &["symbolic-ref", "HEAD", "refs/heads/master"])
        .unwrap();
    for at in ["HEAD~1", "HEAD"] {
        let spec = format!("{at}:refs/heads/master");
        let err = push(&f, f.root(), &["origin", &spec]).unwrap_err();
        assert!(err.contains("default_branch_unborn"), "{err}");
        assert!(
            err.contains("git symbolic-ref HEAD refs/heads/main"),
            "{err}"
        );
    }
    assert_eq!(rev(&f, &server, "refs/heads/master"), None);
    // An administrator's stale branch at the commit before the policy.
    let stale = rev(&f, f.root(), "HEAD~1").unwrap();
    f.git_in(&server, &["update-ref", "refs/heads/master", &stale])
        .unwrap();
    let (lineage, c) = self_reviewed_medium(&f);
    for target in ["refs/heads/feature", "refs/heads/main"] {
        let spec = format!("HEAD:{target}");
        let err = push(
            &f,
            f.root(),
            &["--atomic", "origin", &spec, "refs/notes/probity"],
        )
        .unwrap_err();
        assert!(err.contains("roles_unmet"), "{target}: {err}");
    }
    assert_eq!(rev(&f, &server, "refs/heads/feature"), None);
    assert_ne!(rev(&f, &server, "refs/heads/main"), Some(c.clone()));
    // Signed by the reviewer, the same push lands.
    signed_and_published(&f, &ci, keys.path(), &lineage);
    push(
        &f,
        f.root(),
        &[
            "--atomic",
            "origin",
            "HEAD:refs/heads/feature",
            "refs/notes/probity",
        ],
    )
    .unwrap();
    assert_eq!(rev(&f, &server, "refs/heads/feature"), Some(c));
}

/// Red team round 2 (attempts 25, 25b, 25c): a symbolic ref on the server
/// (`refs/tags/latest` or `refs/stable/main` naming `refs/heads/main`, as
/// an administrator may keep for an old name) was judged by its own name,
/// which `probity.protectedRefs` does not cover, while git moved or
/// deleted the branch it names. A push through a symbolic ref is judged
/// as the ref it names.
#[test]
fn a_push_through_a_symbolic_ref_is_judged_as_the_ref_it_names() {
    let (f, _dir, server, keys, ci) = reviewer_policy_team();
    for alias in ["refs/tags/latest", "refs/stable/main"] {
        f.git_in(&server, &["symbolic-ref", alias, "refs/heads/main"])
            .unwrap();
    }
    let before = rev(&f, &server, "refs/heads/main");
    let (lineage, c) = self_reviewed_medium(&f);
    for alias in ["refs/tags/latest", "refs/stable/main"] {
        let spec = format!("+HEAD:{alias}");
        let err = push(
            &f,
            f.root(),
            &["--atomic", "origin", &spec, "refs/notes/probity"],
        )
        .unwrap_err();
        assert!(err.contains("roles_unmet"), "{alias}: {err}");
        assert_eq!(rev(&f, &server, "refs/heads/main"), before, "{alias}");
    }
    let err = push(&f, f.root(), &["origin", ":refs/stable/main"]).unwrap_err();
    assert!(err.contains("protected_ref_deleted"), "{err}");
    assert_eq!(rev(&f, &server, "refs/heads/main"), before);
    // Red team round 3 (attempt 91): a protected name that is a symbolic
    // ref to an unprotected one is judged by the protected name.
    f.git_in(
        &server,
        &["update-ref", "refs/release/stable", "refs/heads/main"],
    )
    .unwrap();
    f.git_in(
        &server,
        &["symbolic-ref", "refs/heads/stable", "refs/release/stable"],
    )
    .unwrap();
    for glob in ["refs/heads/main", "refs/heads/stable"] {
        f.git_in(&server, &["config", "--add", "probity.protectedRefs", glob])
            .unwrap();
    }
    let err = push(
        &f,
        f.root(),
        &["origin", "+HEAD:refs/heads/stable", "refs/notes/probity"],
    )
    .unwrap_err();
    assert!(err.contains("roles_unmet"), "{err}");
    assert_eq!(rev(&f, &server, "refs/release/stable"), before);
    // Signed by the reviewer, the push through the alias lands on main.
    signed_and_published(&f, &ci, keys.path(), &lineage);
    push(
        &f,
        f.root(),
        &[
            "--atomic",
            "origin",
            "+HEAD:refs/tags/latest",
            "refs/notes/probity",
        ],
    )
    .unwrap();
    assert_eq!(rev(&f, &server, "refs/heads/main"), Some(c));
}

/// A run's stdout and stderr, together.
fn said_of(r: &Run) -> String {
    format!("{}{}", r.stdout, r.stderr)
}

/// A review of `f`'s live medium change whose lens finds a blocker and
/// whose correction writes `corrected` as `src/parser.rs`, a line that
/// makes the change high risk: the validation escalates it
/// (`risk_raised_by_correction`, D-R132), telling the reason and the way
/// on (a person's `probity recover`). Returns the lineage.
fn escalated_by_its_correction(f: &Fixture, inputs: &Path, corrected: &str) -> String {
    let doc = |name: &str, text: &str| input(inputs, name, text);
    write_medium_change(f);
    let st = probity_ok(f.root(), &["start"]);
    assert_eq!(st.json["risk_level"], "medium", "{}", st.stdout);
    let l = string_at(&st.json, "lineage_id");
    let lens = st.json["selected_lenses"][0].as_str().unwrap().to_string();
    let blocker = format!("{lens}={}", doc("b.json", PARSER_BLOCKER));
    let f1 = probity_ok(
        f.root(),
        &["finalize", "--lineage", &l, "--result", &blocker],
    );
    assert_eq!(f1.json["state"], "correction_required", "{}", f1.stdout);
    probity_ok(
        f.root(),
        &["finalize", "--lineage", &l, "--correction-lines", "2"],
    );
    f.write("src/parser.rs", corrected).unwrap();
    let v = doc("v.json", VALIDATION_PASS);
    let validated = probity(f.root(), &["finalize", "--lineage", &l, "--validation", &v]);
    assert_eq!(
        validated.json["state"],
        "escalated",
        "{}",
        said_of(&validated)
    );
    assert_eq!(
        validated.json["escalation_reason"], "risk_raised_by_correction",
        "{}",
        validated.stdout
    );
    let text = probity_in(f.root())
        .args(["status", "--lineage", &l])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("risk_raised_by_correction"), "{text}");
    assert!(text.contains("probity recover"), "{text}");
    // Evidence for it approves nothing: the escalation is final.
    let ev = doc("ev.txt", "tests passed\n");
    let late = probity(f.root(), &["finalize", "--lineage", &l, "--evidence", &ev]);
    assert_ne!(late.json["state"], "approved", "{}", said_of(&late));
    l
}

/// The way on from [`escalated_by_its_correction`]: a person's
/// authorized recovery re-freezes the corrected candidate at high, and
/// once reviewed at that tier its commit lands on `server`'s main.
fn reviewed_at_its_tier_it_lands(f: &Fixture, server: &Path, inputs: &Path, l: &str) {
    let st = probity_ok(f.root(), &["status", "--lineage", l]);
    let revision = string_at(&st.json, "store_revision");
    let successor = probity_ok(
        f.root(),
        &[
            "recover",
            "--predecessor-lineage",
            l,
            "--expected-predecessor-revision",
            &revision,
            "--disposition",
            "escalation_authorized",
            "--reason",
            "the correction made the change high risk",
            "--actor",
            "maintainer",
            "--authorization",
            "maintainer approved a review at high",
        ],
    );
    assert_eq!(successor.json["risk_level"], "high", "{}", successor.stdout);
    approve_started(f.root(), inputs, &successor.json);
    let head = commit_all(f, "corrected");
    probity_ok(f.root(), &["push", "origin", "HEAD:main"]);
    assert_eq!(rev(f, server, "main"), Some(head));
}

/// What an agent's older or patched Probity could still write for `l`:
/// the record [`escalated_by_its_correction`] escalated, approved as if
/// the correction had kept the tier. The server refuses its push by name
/// (`risk_raised_by_correction`, D-R127) and main does not move.
fn a_forged_approval_is_refused_at_the_server(f: &Fixture, server: &Path, inputs: &Path, l: &str) {
    use probity_core::review::{Bundle, ReviewState};
    let out = inputs.join("escalated.json");
    probity_ok(
        f.root(),
        &[
            "bundle",
            "export",
            "--lineage",
            l,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let bundle = Bundle::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let mut wire = serde_json::to_value(bundle.records[0].state()).unwrap();
    wire["stage"]["state"] = "validating".into();
    wire["stage"].as_object_mut().unwrap().remove("reason");
    let validating: ReviewState = serde_json::from_value(wire).unwrap();
    let approved = validating.accept_evidence(b"tests passed\n").unwrap();
    let forged = Bundle::build(vec![approved.record().unwrap()], Vec::new()).unwrap();
    std::fs::write(inputs.join("forged.json"), forged.to_bytes().unwrap()).unwrap();
    // The reviewed (uncorrected) tree reaches the server as anyone can
    // send a tree: on an unprotected branch.
    f.git_in(
        server,
        &["config", "probity.protectedRefs", "refs/heads/main"],
    )
    .unwrap();
    let reviewed = approved.snapshot().candidate_tree.to_string();
    let wip = String::from_utf8(f.git(&["commit-tree", &reviewed, "-m", "wip"]).unwrap()).unwrap();
    push(
        f,
        f.root(),
        &["origin", &format!("{}:refs/heads/wip", wip.trim())],
    )
    .unwrap();
    let base = rev(f, server, "main");
    let head = commit_all(f, "corrected");
    force_note(
        f,
        &head,
        &String::from_utf8(forged.to_bytes().unwrap()).unwrap(),
    );
    let err = push_main_and_notes(f).unwrap_err();
    assert!(err.contains("risk_raised_by_correction"), "{err}");
    assert!(err.contains("probity recover"), "{err}");
    assert_eq!(rev(f, server, "main"), base, "main moved");
    f.git(&["reset", "-q", "--soft", "HEAD~1"]).unwrap();
}

/// A second clone of `f` refuses to import the forged approval
/// [`a_forged_approval_is_refused_at_the_server`] wrote, by name and with
/// the way on the server names, and writes nothing (D-R127).
fn import_elsewhere_is_refused(f: &Fixture, inputs: &Path) {
    let bundle = inputs.join("forged.json");
    let other = tempfile::tempdir().unwrap();
    let b = other.path().join("b");
    f.git(&[
        "clone",
        "-q",
        f.root().to_str().unwrap(),
        b.to_str().unwrap(),
    ])
    .unwrap();
    let before_import = store_snapshot_at(&b);
    let imported = probity(&b, &["bundle", "import", bundle.to_str().unwrap()]);
    assert_eq!(
        imported.json["error"]["code"], "risk_raised_by_correction",
        "{}{}",
        imported.stdout, imported.stderr
    );
    assert!(
        said_of(&imported).contains("probity recover"),
        "{}",
        said_of(&imported)
    );
    assert_eq!(store_snapshot_at(&b), before_import, "the refusal wrote");
}

/// A correction may not raise the tier its review ran at (red team round
/// 4, D-R127, D-R132): a medium review whose correction turns a line into
/// a process spawn (high: four lenses; under a policy, the maintainer's
/// signature too) delivered a high-risk tree on a medium approval. The
/// validation escalates it now; the server refuses an approval of it
/// written anyway; the successor reviewed at high lands.
#[test]
fn a_correction_that_raises_the_risk_lands_only_after_a_review_at_its_tier() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let l = escalated_by_its_correction(
        &f,
        inputs.path(),
        "// parser\nfn parse() {}\nfn more() { let _ = std::process::Command::new(\"sh\").status(); }\n",
    );
    a_forged_approval_is_refused_at_the_server(&f, &server, inputs.path(), &l);
    import_elsewhere_is_refused(&f, inputs.path());
    reviewed_at_its_tier_it_lands(&f, &server, inputs.path(), &l);
}

/// The same for the policy's floors: a correction that writes the
/// policy's high-risk literal into the tree (D-R127, D-R132).
#[test]
fn a_correction_under_a_policy_floor_lands_only_after_a_review_at_its_tier() {
    let f = parser_base();
    std::fs::create_dir_all(f.root().join(".probity")).unwrap();
    f.write(
        ".probity/policy.json",
        r#"{"schema":"probity-policy/v1","high_risk":{"content":["AKIA"]}}"#,
    )
    .unwrap();
    commit_all(&f, "policy");
    let (_dir, server) = gated_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    let l = escalated_by_its_correction(
        &f,
        inputs.path(),
        "// parser\nfn parse() {}\nfn more() { let _key = \"AKIA0000\"; }\n",
    );
    a_forged_approval_is_refused_at_the_server(&f, &server, inputs.path(), &l);
    reviewed_at_its_tier_it_lands(&f, &server, inputs.path(), &l);
}

/// A commit the server already holds on an unprotected branch, reviewed
/// afterwards (`start --commit`) and then pushed to the protected branch
/// with `probity push origin C:refs/heads/main` (red team round 4): the
/// push published nothing for it, since the remote held it, and the
/// server denied `receipt_missing` naming the very command just run. The
/// push publishes what the destination does not hold yet (D-R129).
#[test]
fn a_commit_the_server_holds_elsewhere_is_published_when_pushed_to_a_protected_branch() {
    let (f, _dir, server) = hooked_origin();
    f.git_in(
        &server,
        &["config", "probity.protectedRefs", "refs/heads/main"],
    )
    .unwrap();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    let c = commit_all(&f, "unreviewed yet");
    push(&f, f.root(), &["origin", "HEAD:refs/heads/pr"]).unwrap();
    f.git(&["fetch", "-q", "origin"]).unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", &c]);
    approve_started(f.root(), inputs.path(), &st.json);
    let before = rev(&f, &server, "main");
    let dest = format!("{c}:refs/heads/main");
    let pushed = probity(f.root(), &["push", "origin", &dest]);
    assert_eq!(pushed.code, 0, "{}{}", pushed.stdout, pushed.stderr);
    assert_ne!(rev(&f, &server, "main"), before);
    assert_eq!(rev(&f, &server, "main"), Some(c));
}
