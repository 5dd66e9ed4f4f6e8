//! Authority that travels (R11): bundles between clones, notes under
//! refs/notes/probity, and the server-side gate in a real bare
//! repository's pre-receive hook, all through the real `probity` binary
//! and real `git push`.

mod support;

use std::path::{Path, PathBuf};

use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::bundle::{BUNDLE_DOMAIN, Bundle};
use probity_git::fixture::Fixture;
use serde_json::{Value, json};
use support::*;

/// A developer clone `f` whose `main` is on a bare `server` (pushed before
/// the server hook was installed), with the server's pre-receive hook
/// installed, and a reviewed change in the worktree (not committed).
struct Setup {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    inputs: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let f = parser_base();
        let (dir, server) = bare_origin(&f, "server.git");
        let r = probity(&server, &["hooks", "install", "--server"]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        assert_eq!(r.json["hooks"][0]["action"], "installed");
        let s = Self {
            f,
            _dir: dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        };
        write_medium_change(&s.f);
        s
    }

    fn approve(&self) -> String {
        approve_live(self.f.root(), self.inputs.path())["lineage_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn rev(&self, r: &str) -> String {
        rev_in(&self.f, self.f.root(), r).unwrap()
    }

    fn server_rev(&self, r: &str) -> Option<String> {
        rev_in(&self.f, &self.server, r)
    }

    /// `git push --no-verify` (no client hook): Ok, or Err(stderr).
    fn push(&self, args: &[&str]) -> Result<(), String> {
        push_in(&self.f, self.f.root(), args)
    }

    /// A second clone of the server, with the fixture's identity.
    fn clone_server(&self) -> (tempfile::TempDir, PathBuf) {
        clone_as(&self.f, &self.server, "b")
    }
}

fn rev_in(f: &Fixture, cwd: &Path, r: &str) -> Option<String> {
    f.git_in(cwd, &["rev-parse", "-q", "--verify", r])
        .ok()
        .map(|b| String::from_utf8(b).unwrap().trim().to_string())
}

fn push_in(f: &Fixture, cwd: &Path, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git_in(cwd, &all).map(|_| ()).map_err(|e| e.to_string())
}

/// The raw note of a commit in refs/notes/probity.
fn note(f: &Fixture, cwd: &Path, commit: &str) -> Option<Vec<u8>> {
    f.git_in(cwd, &["notes", "--ref=probity", "show", commit])
        .ok()
}

/// Replaces a commit's note with `bytes` (as a forger with git would).
fn set_note(f: &Fixture, cwd: &Path, commit: &str, bytes: &[u8], dir: &Path) {
    let p = dir.join("note.txt");
    std::fs::write(&p, bytes).unwrap();
    f.git_in(
        cwd,
        &[
            "notes",
            "--ref=probity",
            "add",
            "-f",
            "-F",
            p.to_str().unwrap(),
            commit,
        ],
    )
    .unwrap();
}

/// A bundle whose first record's finding claim was edited, with the
/// bundle digest recomputed over the edited content.
fn forge(bundle_line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(bundle_line.to_vec()).unwrap();
    let edited = text.replacen("read the whole diff", "read nothing at all", 1);
    assert_ne!(edited, text);
    let mut v: Value = serde_json::from_str(edited.trim_end()).unwrap();
    let body = {
        let mut b = v.clone();
        b.as_object_mut().unwrap().remove("digest");
        b
    };
    let digest = Sha256Digest::of(BUNDLE_DOMAIN, &canonical_bytes(&body).unwrap());
    v["digest"] = json!(digest);
    canonical_bytes(&v).unwrap()
}

fn snapshot_dir(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_bundle_moves_a_review_to_another_clone_idempotently() {
    let s = Setup::new();
    let lineage = s.approve();
    s.f.commit_all("reviewed change").unwrap();
    let file = s.inputs.path().join("b.json");
    let e = probity(
        s.f.root(),
        &[
            "bundle",
            "export",
            "--lineage",
            &lineage,
            "--out",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(e.code, 0, "{}{}", e.stdout, e.stderr);
    assert_eq!(e.json["records"], 1);
    assert_eq!(e.json["state"], "approved");
    let bytes = std::fs::read(&file).unwrap();
    // Canonical, one LF, nothing of this machine in it.
    let parsed = Bundle::from_bytes(&bytes).unwrap();
    assert_eq!([parsed.to_bytes().unwrap(), b"\n".to_vec()].concat(), bytes);
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(!text.contains(s.f.root().to_str().unwrap()));
    // Stdout export is the same bytes.
    let out = probity(s.f.root(), &["bundle", "export", "--lineage", &lineage]);
    assert_eq!(out.stdout.as_bytes(), &bytes[..]);

    // Another clone that has the objects (pushed to a plain bare repo).
    let (_d, b) = s.clone_server();
    let plain = s.inputs.path().join("plain.git");
    s.f.git(&["init", "-q", "--bare", plain.to_str().unwrap()])
        .unwrap();
    s.push(&[plain.to_str().unwrap(), "main"]).unwrap();
    s.f.git_in(&b, &["fetch", "-q", plain.to_str().unwrap(), "main"])
        .unwrap();
    s.f.git_in(&b, &["reset", "-q", "--hard", "FETCH_HEAD"])
        .unwrap();
    let i = probity(&b, &["bundle", "import", file.to_str().unwrap()]);
    assert_eq!(i.code, 0, "{}{}", i.stdout, i.stderr);
    assert_eq!(i.json["written"], 1);
    let again = probity(&b, &["bundle", "import", file.to_str().unwrap()]);
    assert_eq!(again.code, 0);
    assert_eq!(again.json["written"], 0, "idempotent");
    let gate = probity(
        &b,
        &["validate", "--gate", "pre-push", "--range", "HEAD~1..HEAD"],
    );
    assert_eq!(
        gate.json["decision"], "allow",
        "{}{}",
        gate.stdout, gate.stderr
    );
    assert_eq!(gate.json["lineage_id"], lineage.as_str());
    // Re-exported from the importing clone: the same bytes.
    let re = probity(&b, &["bundle", "export", "--lineage", &lineage]);
    assert_eq!(re.stdout.as_bytes(), &bytes[..]);
}

#[test]
fn bad_bundles_are_typed_errors_and_write_nothing() {
    let s = Setup::new();
    let lineage = s.approve();
    let out = probity(s.f.root(), &["bundle", "export", "--lineage", &lineage]);
    let good = out.stdout.into_bytes();
    // The importing clone: same base, has the trees (its own candidate is
    // the same), but its own review of the same candidate owns the target.
    let other = medium_change();
    let store_before = store_snapshot(&other);
    let dir = s.inputs.path();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            good[..good.len() / 2].to_vec(),
            "bundle_invalid",
        ),
        (
            "oversized",
            vec![b' '; 4 * 1024 * 1024 + 1],
            "input_too_large",
        ),
        (
            "non-canonical",
            serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(&good).unwrap()).unwrap(),
            "bundle_not_canonical",
        ),
        (
            "schema-invalid",
            String::from_utf8(good.clone())
                .unwrap()
                .replacen('{', "{\"extra\":1,", 1)
                .into_bytes(),
            "bundle_invalid",
        ),
        ("forged", forge(&good), "bundle_record_invalid"),
    ];
    for (name, bytes, code) in cases {
        let p = dir.join(format!("{name}.json"));
        std::fs::write(&p, &bytes).unwrap();
        let r = probity(other.root(), &["bundle", "import", p.to_str().unwrap()]);
        assert_eq!(
            r.json["error"]["code"], code,
            "{name}: {}{}",
            r.stdout, r.stderr
        );
        assert_eq!(r.code, 3, "{name}");
        assert!(
            store_snapshot(&other) == store_before,
            "{name}: nothing written"
        );
    }
    // A repository without the objects: objects_missing.
    let empty = Fixture::new().unwrap();
    empty.write("x", "x\n").unwrap();
    empty.commit_all("unrelated").unwrap();
    let p = dir.join("good.json");
    std::fs::write(&p, &good).unwrap();
    let before = store_snapshot(&empty);
    let r = probity(empty.root(), &["bundle", "import", p.to_str().unwrap()]);
    assert_eq!(r.json["error"]["code"], "objects_missing", "{}", r.stdout);
    assert_eq!(r.code, 5);
    assert!(store_snapshot(&empty) == before);
    // A conflicting record: the importing store reviewed the same
    // candidate under another lineage. Refused, never merged.
    let st = probity(other.root(), &["start"]);
    assert_eq!(st.code, 0, "{}{}", st.stdout, st.stderr);
    let before = store_snapshot(&other);
    let r = probity(other.root(), &["bundle", "import", p.to_str().unwrap()]);
    assert_eq!(
        r.json["error"]["code"], "import_conflict",
        "{}{}",
        r.stdout, r.stderr
    );
    assert_eq!(r.code, 4);
    assert!(store_snapshot(&other) == before);
}

#[test]
fn the_server_denies_an_unreviewed_push_and_allows_the_reviewed_one_with_its_notes() {
    let s = Setup::new();
    let before = s.server_rev("main");
    // Unreviewed, pushed around every client hook.
    s.f.commit_all("unreviewed").unwrap();
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(err.contains("next:"), "{err}");
    assert_eq!(s.server_rev("main"), before);
    s.f.git(&["reset", "-q", "--soft", "HEAD~1"]).unwrap();

    // Reviewed, but the notes are not pushed with it: still denied.
    let lineage = s.approve();
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev("HEAD");
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");

    // `probity push`: publishes the note and pushes it atomically.
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["published"][0]["written"][0]["commit"], tip.as_str());
    assert_eq!(
        p.json["published"][0]["written"][0]["lineage_id"],
        lineage.as_str()
    );
    assert_eq!(s.server_rev("main").as_deref(), Some(tip.as_str()));
    assert!(s.server_rev("refs/notes/probity").is_some());
    // Git's own output reaches the user (the `remote:` lines), but not the
    // advice the hermetic environment provokes (the graft-file hint).
    assert!(p.stderr.contains("remote:"), "{}", p.stderr);
    assert!(!p.stderr.contains("hint:"), "{}", p.stderr);
    // The text answer names what people pushed (nothing new to publish
    // this time, so no review-tree refs travel).
    let again = isolated(&mut std::process::Command::new(env!(
        "CARGO_BIN_EXE_probity"
    )))
    .arg("--cwd")
    .arg(s.f.root())
    .args(["push", "origin", "main"])
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{text}");
    assert!(
        text.contains("pushed main refs/notes/probity to origin"),
        "{text}"
    );
    // Ordinary git shows it.
    let log =
        s.f.git(&["log", "-1", "--notes=probity", "--format=%N"])
            .unwrap();
    assert!(String::from_utf8_lossy(&log).contains(&lineage));
}

#[test]
fn the_notes_ref_is_append_only_on_the_server() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    let notes = s.server_rev("refs/notes/probity");
    assert!(notes.is_some());
    // Deleted.
    let err = s.push(&["origin", ":refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_ref_deleted"), "{err}");
    // Rewritten: an unrelated notes history, forced.
    s.f.git(&["notes", "--ref=probity-other", "add", "-m", "x", "HEAD"])
        .unwrap();
    let err = s
        .push(&["origin", "+refs/notes/probity-other:refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("notes_ref_rewritten"), "{err}");
    assert_eq!(s.server_rev("refs/notes/probity"), notes);
}

#[test]
fn forged_and_misplaced_notes_are_denied() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev("HEAD");
    let pb = probity(s.f.root(), &["publish"]);
    assert_eq!(pb.code, 0, "{}{}", pb.stdout, pb.stderr);
    let good = note(&s.f, s.f.root(), &tip).unwrap();
    assert!(Bundle::from_bytes(good.strip_suffix(b"\n").unwrap()).is_ok());

    // Forged: edited bytes, recomputed bundle digest.
    let mut forged = forge(good.strip_suffix(b"\n").unwrap());
    forged.push(b'\n');
    set_note(&s.f, s.f.root(), &tip, &forged, s.inputs.path());
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("bundle_record_invalid"), "{err}");
    // Not canonical (a hand edit that keeps the content).
    let pretty =
        serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(&good).unwrap()).unwrap();
    set_note(&s.f, s.f.root(), &tip, &pretty, s.inputs.path());
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(
        err.contains("note_invalid") || err.contains("bundle_"),
        "{err}"
    );

    // Truncated.
    set_note(
        &s.f,
        s.f.root(),
        &tip,
        &good[..good.len() / 2],
        s.inputs.path(),
    );
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("bundle_invalid"), "{err}");
    assert!(
        s.server_rev("refs/notes/probity").is_none(),
        "nothing accepted"
    );

    // The genuine bundle on another commit (another tree): denied.
    s.f.git(&["notes", "--ref=probity", "remove", &tip])
        .unwrap();
    s.f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { 1 }\n",
    )
    .unwrap();
    s.f.git(&["commit", "-q", "--amend", "-a", "-m", "edited after review"])
        .unwrap();
    let other = s.rev("HEAD");
    set_note(&s.f, s.f.root(), &other, &good, s.inputs.path());
    // The reviewed trees travel inside the notes history (anchored when
    // `publish` wrote the note), so the bundle verifies, but it approves
    // another tree: denied by the delivery judgment.
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("receipt_scope_changed"), "{err}");
    assert_ne!(s.server_rev("main").as_deref(), Some(other.as_str()));
}

#[test]
fn a_range_with_an_unreviewed_commit_is_denied() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    s.f.write("README.md", "# more\n").unwrap();
    s.f.commit_all("unreviewed on top").unwrap();
    let pb = probity(s.f.root(), &["publish"]);
    assert_eq!(
        pb.json["written"].as_array().unwrap().len(),
        1,
        "{}",
        pb.stdout
    );
    assert_eq!(pb.json["unreviewed"].as_array().unwrap().len(), 1);
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    // Judged commit by commit: the reviewed one passes, the one on top is
    // named, with the command that reviews it.
    assert!(err.contains("receipt_unrelated"), "{err}");
    assert!(err.contains("(2 of 2)"), "{err}");
    assert!(err.contains("probity start --commit"), "{err}");
}

#[test]
fn two_clones_publish_concurrently_and_their_notes_merge() {
    let s = Setup::new();
    let (_d, b) = s.clone_server();
    // Clone A: a reviewed change on main.
    s.approve();
    s.f.commit_all("reviewed in A").unwrap();
    // Clone B: a reviewed change on a feature branch.
    s.f.git_in(&b, &["checkout", "-q", "-b", "feature"])
        .unwrap();
    std::fs::write(b.join("src/lexer.rs"), "fn lex() {}\n").unwrap();
    approve_live(&b, s.inputs.path());
    s.f.git_in(&b, &["add", "-A"]).unwrap();
    s.f.git_in(&b, &["commit", "-q", "-m", "reviewed in B"])
        .unwrap();
    let pb = probity(&b, &["publish"]);
    assert_eq!(
        pb.json["written"].as_array().unwrap().len(),
        1,
        "{}{}",
        pb.stdout,
        pb.stderr
    );
    // A pushes first.
    let pa = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(pa.code, 0, "{}{}", pa.stdout, pa.stderr);
    // B's notes no longer fast-forward: a plain push is refused by git, a
    // forced one by the server gate.
    assert!(push_in(&s.f, &b, &["origin", "feature", "refs/notes/probity"]).is_err());
    let err = push_in(&s.f, &b, &["origin", "feature", "+refs/notes/probity"]).unwrap_err();
    assert!(err.contains("notes_ref_rewritten"), "{err}");
    // `probity push` judges the push first, as the pre-push hook does: a
    // new branch is measured against the server's tips this clone has, so
    // B fetches A's main first (without it, the base commit under A's tip
    // cannot be told published, and the gate refuses, as the hook would;
    // remote-tracking refs never vouch: a branch deleted on the remote
    // would). It then merges the server's notes (cat_sort_uniq) and pushes.
    s.f.git_in(&b, &["fetch", "-q", "origin"]).unwrap();
    let pushed = probity(&b, &["push", "origin", "feature"]);
    assert_eq!(pushed.code, 0, "{}{}", pushed.stdout, pushed.stderr);
    assert_eq!(pushed.json["notes_merged_from_remote"], true);
    let a_tip = s.rev("HEAD");
    let b_tip = rev_in(&s.f, &b, "HEAD").unwrap();
    // Both notes are on the server, each exactly what its clone wrote.
    assert_eq!(
        note(&s.f, &s.server, &a_tip),
        note(&s.f, s.f.root(), &a_tip)
    );
    assert_eq!(note(&s.f, &s.server, &b_tip), note(&s.f, &b, &b_tip));
    // The same merge by hand, with plain git, is conflict-free and exact.
    s.f.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/notes/probity:refs/notes/probity-remote",
    ])
    .unwrap();
    s.f.git(&[
        "notes",
        "--ref=probity",
        "merge",
        "-q",
        "-s",
        "cat_sort_uniq",
        "refs/notes/probity-remote",
    ])
    .unwrap();
    assert_eq!(note(&s.f, s.f.root(), &b_tip), note(&s.f, &b, &b_tip));
}

#[test]
fn the_ci_form_judges_a_pushed_range_from_fetched_notes() {
    let s = Setup::new();
    let base = s.rev("HEAD");
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    // A CI checkout: a fresh clone, no store, notes fetched.
    let (_d, ci) = s.clone_server();
    s.f.git_in(
        &ci,
        &[
            "fetch",
            "-q",
            "origin",
            "refs/notes/probity:refs/notes/probity",
        ],
    )
    .unwrap();
    let range = format!("{base}..HEAD");
    let r = probity(
        &ci,
        &[
            "validate",
            "--gate",
            "pre-receive",
            "--range",
            &range,
            "--ref",
            "refs/heads/main",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["gate"], "pre-receive");
    assert_eq!(r.json["decision"], "allow");
    assert_eq!(r.json["input"], "range");
    assert!(
        !ci.join(".git/probity").exists(),
        "the clone's store is never written"
    );
    // pre-pr from the notes.
    let pr = probity(
        &ci,
        &[
            "validate",
            "--gate",
            "pre-pr",
            "--authority",
            "notes",
            "--base",
            &base,
        ],
    );
    assert_eq!(pr.json["decision"], "allow", "{}{}", pr.stdout, pr.stderr);
    // Without the notes: denied.
    s.f.git_in(&ci, &["update-ref", "-d", "refs/notes/probity"])
        .unwrap();
    let r = probity(
        &ci,
        &[
            "validate",
            "--gate",
            "pre-receive",
            "--range",
            &range,
            "--ref",
            "refs/heads/main",
        ],
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.json["reason_code"], "receipt_missing");
    // A new ref's zero "before" is not a range.
    let zeros = format!("{}..HEAD", "0".repeat(40));
    let z = probity(
        &ci,
        &[
            "validate",
            "--gate",
            "pre-receive",
            "--range",
            &zeros,
            "--ref",
            "refs/heads/x",
        ],
    );
    assert_eq!(z.json["error"]["code"], "bad_range");
    assert_eq!(z.code, 2);
    // Usage: --range without --ref.
    let u = probity(
        &ci,
        &["validate", "--gate", "pre-receive", "--range", &range],
    );
    assert_eq!(u.json["error"]["code"], "ref_required");
}

#[test]
fn protected_refs_are_configurable_and_the_server_store_is_never_read() {
    let s = Setup::new();
    s.f.git_in(
        &s.server,
        &[
            "config",
            "--add",
            "probity.protectedRefs",
            "refs/heads/main",
        ],
    )
    .unwrap();
    // An unprotected branch takes unreviewed work.
    s.f.commit_all("unreviewed").unwrap();
    s.push(&["origin", "HEAD:refs/heads/scratch"]).unwrap();
    assert!(s.server_rev("refs/heads/scratch").is_some());
    s.f.git(&["reset", "-q", "--soft", "HEAD~1"]).unwrap();
    // A reviewed commit whose authority sits in a store on the server
    // (copied there whole, valid) but not in the notes: denied. The
    // server's own store is never authority.
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    copy_dir(&s.f.root().join(".git/probity"), &s.server.join("probity"));
    let before = snapshot_dir(&s.server.join("probity"));
    assert!(!before.is_empty());
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert_eq!(snapshot_dir(&s.server.join("probity")), before);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

#[test]
fn the_pre_push_hook_warns_when_the_notes_stay_behind() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let r = probity(s.f.root(), &["hooks", "install", "--hook", "pre-push"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out =
        s.f.git(&["push", "-q", "origin", "main"])
            .map(|_| String::new())
            .unwrap_or_else(|e| e.to_string());
    // The client hook allows (reviewed) and warns; the server denies
    // (no notes). Git's error names both.
    assert!(out.contains("refs/notes/probity is not pushed"), "{out}");
    // The gate as the hook runs it: with the notes in the same push, no
    // warning; without them, the warning and still an allow.
    let p = probity(s.f.root(), &["publish"]);
    assert_eq!(p.code, 0);
    let tip = s.rev("HEAD");
    let base = s.rev("HEAD~1");
    let notes = s.rev("refs/notes/probity");
    let zero = "0".repeat(40);
    let main_line = format!("refs/heads/main {tip} refs/heads/main {base}\n");
    let notes_line = format!("refs/notes/probity {notes} refs/notes/probity {zero}\n");
    let with = hook_gate(s.f.root(), &format!("{main_line}{notes_line}"));
    assert_eq!(with.0, 0, "{}", with.1);
    assert!(!with.1.contains("is not pushed"), "{}", with.1);
    let without = hook_gate(s.f.root(), &main_line);
    assert_eq!(without.0, 0, "{}", without.1);
    assert!(without.1.contains("is not pushed"), "{}", without.1);
    // The warning names the command that pushes both, for the remote git named.
    assert!(without.1.contains("`probity push origin`"), "{}", without.1);
    // The notes ref is authority, not a delivery: `probity push` passes
    // the client hook and the server gate together.
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(s.server_rev("main"), Some(tip));
}

#[test]
fn schema_bundle_is_printed() {
    let s = Setup::new();
    let r = probity(s.f.root(), &["schema", "bundle"]);
    assert_eq!(r.code, 0);
    // v2 reads v1: the same document, plus the evidence a v2 carries.
    assert_eq!(
        r.json["$id"],
        "https://probity.dev/schemas/review-bundle/v2"
    );
    assert_eq!(r.json["properties"]["records"]["minItems"], 1);
    assert!(r.json["properties"]["evidence"].is_object(), "{}", r.stdout);
}

#[test]
fn a_recovered_chain_travels_whole_and_the_server_allows_its_leaf() {
    let s = Setup::new();
    let first = approve_live(s.f.root(), s.inputs.path());
    let l1 = first["lineage_id"].as_str().unwrap().to_string();
    let rev = first["store_revision"].as_str().unwrap().to_string();
    // The candidate changes after approval: an audited successor.
    s.f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { 2 }\n",
    )
    .unwrap();
    let rec = probity(
        s.f.root(),
        &[
            "recover",
            "--predecessor-lineage",
            &l1,
            "--expected-predecessor-revision",
            &rev,
            "--disposition",
            "scope_changed",
            "--reason",
            "edited after approval",
            "--actor",
            "maintainer",
        ],
    );
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let l2 = approve_live(s.f.root(), s.inputs.path())["lineage_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(l1, l2);
    // Exporting either lineage gives the whole chain, ending at the leaf.
    let e1 = probity(s.f.root(), &["bundle", "export", "--lineage", &l1]);
    let e2 = probity(s.f.root(), &["bundle", "export", "--lineage", &l2]);
    assert_eq!(e1.stdout, e2.stdout);
    let b = Bundle::from_bytes(e2.stdout.as_bytes()).unwrap();
    assert_eq!(b.records.len(), 2);
    assert_eq!(b.lineage_id.as_str(), l2);
    assert_eq!(b.receipts.len(), 2);
    s.f.commit_all("reviewed twice").unwrap();
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(
        p.json["published"][0]["written"][0]["lineage_id"],
        l2.as_str()
    );
    // Imported into another clone: both records, chain intact.
    let (_d, other) = s.clone_server();
    let file = s.inputs.path().join("chain.json");
    std::fs::write(&file, &e2.stdout).unwrap();
    let i = probity(&other, &["bundle", "import", file.to_str().unwrap()]);
    assert_eq!(i.code, 0, "{}{}", i.stdout, i.stderr);
    assert_eq!(i.json["written"], 2);
    let marker = other.join(format!(".git/probity/reviews/v1/{l1}/superseded-by"));
    assert_eq!(std::fs::read_to_string(marker).unwrap(), format!("{l2}\n"));
    let gate = probity(
        &other,
        &["validate", "--gate", "pre-push", "--range", "HEAD~1..HEAD"],
    );
    assert_eq!(gate.json["decision"], "allow", "{}", gate.stdout);
}

#[test]
fn a_new_protected_branch_is_measured_against_the_servers_own_refs() {
    let s = Setup::new();
    // Unreviewed, on a new branch: denied.
    s.f.commit_all("unreviewed").unwrap();
    let err = s.push(&["origin", "HEAD:refs/heads/feature"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(s.server_rev("refs/heads/feature").is_none());
    s.f.git(&["reset", "-q", "--soft", "HEAD~1"]).unwrap();
    // Reviewed, with its notes: allowed; only the one new commit counts
    // (main's history is already on the server).
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let p = probity(s.f.root(), &["push", "origin", "HEAD:refs/heads/feature"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(s.server_rev("refs/heads/feature"), Some(s.rev("HEAD")));
    // A second new branch at the same commit: judged as that commit.
    s.push(&["origin", "HEAD:refs/heads/copy"]).unwrap();
}

#[test]
fn attestations_are_carried_unchanged_through_import_and_notes() {
    use probity_core::review::bundle::{DsseEnvelope, DsseSignature};
    let s = Setup::new();
    let lineage = s.approve();
    s.f.commit_all("reviewed").unwrap();
    let out = probity(s.f.root(), &["bundle", "export", "--lineage", &lineage]);
    let plain = Bundle::from_bytes(out.stdout.as_bytes()).unwrap();
    assert!(plain.attestations.is_empty());
    let env = DsseEnvelope {
        payload_type: "application/vnd.in-toto+json".into(),
        payload: "eyJfdHlwZSI6InRlc3QifQ==".into(),
        signatures: vec![DsseSignature {
            keyid: Some("SHA256:test".into()),
            sig: "c2lnbmF0dXJl".into(),
        }],
    };
    let signed = Bundle::build(plain.records.clone(), vec![env.clone()]).unwrap();
    let mut bytes = signed.to_bytes().unwrap();
    bytes.push(b'\n');
    // Into another clone that has the commit.
    let plain_remote = s.inputs.path().join("plain.git");
    s.f.git(&["init", "-q", "--bare", plain_remote.to_str().unwrap()])
        .unwrap();
    s.push(&[plain_remote.to_str().unwrap(), "main"]).unwrap();
    let (_d, b) = s.clone_server();
    s.f.git_in(&b, &["fetch", "-q", plain_remote.to_str().unwrap(), "main"])
        .unwrap();
    let file = s.inputs.path().join("signed.json");
    std::fs::write(&file, &bytes).unwrap();
    let i = probity(&b, &["bundle", "import", file.to_str().unwrap()]);
    assert_eq!(i.code, 0, "{}{}", i.stdout, i.stderr);
    assert_eq!(i.json["attestations"], 1);
    let re = probity(&b, &["bundle", "export", "--lineage", &lineage]);
    assert_eq!(re.stdout.as_bytes(), &bytes[..], "carried unchanged");
    // And through a note to the server, where the gate verifies it.
    s.f.git_in(&b, &["reset", "-q", "--hard", "FETCH_HEAD"])
        .unwrap();
    let p = probity(&b, &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    let tip = rev_in(&s.f, &b, "HEAD").unwrap();
    let on_server = note(&s.f, &s.server, &tip).unwrap();
    assert_eq!(on_server, bytes);
}

#[test]
fn malformed_hook_input_is_a_typed_error() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let s = Setup::new();
    let mut child = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .args(["--json", "--cwd"])
        .arg(&s.server)
        .args(["validate", "--gate", "pre-receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"not three fields\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(v["error"]["code"], "bad_receive_input");
}

/// Regression (issue 12): pre-receive input over its 4 MiB bound
/// (`MAX_RECEIVE_BYTES`) is `input_too_large`, as the pre-push hook's
/// input and every other bounded input are (it was `bad_receive_input`).
#[test]
fn oversized_pre_receive_input_is_input_too_large() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let s = Setup::new();
    let mut child = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .args(["--json", "--cwd"])
        .arg(&s.server)
        .args(["validate", "--gate", "pre-receive"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let line = format!("{} {} refs/heads/a\n", "1".repeat(40), "0".repeat(40));
    let flood = line.repeat(probity_core::review::server::MAX_RECEIVE_BYTES / line.len() + 1);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(flood.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(3), "{v}");
    assert_eq!(v["error"]["code"], "input_too_large", "{v}");
}

/// `probity validate --gate pre-push --remote origin --stdin-updates` with
/// `stdin`: (exit code, stderr).
fn hook_gate(cwd: &Path, stdin: &str) -> (i32, String) {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .arg("--cwd")
        .arg(cwd)
        .args([
            "validate",
            "--gate",
            "pre-push",
            "--remote",
            "origin",
            "--stdin-updates",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_server_hook_install_is_idempotent_and_never_overwrites_a_foreign_hook() {
    let s = Setup::new();
    let again = probity(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert_eq!(again.json["hooks"][0]["action"], "unchanged");
    let hook = s.server.join("hooks/pre-receive");
    let text = std::fs::read_to_string(&hook).unwrap();
    assert!(text.contains("validate --gate pre-receive"), "{text}");
    // The client hooks are not touched.
    assert!(!s.server.join("hooks/pre-push").exists());
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let r = probity(&s.server, &["hooks", "install", "--server"]);
    assert_eq!(r.code, 4);
    assert_eq!(r.json["error"]["code"], "hook_exists");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

/// `hooks uninstall --server` (R8.10): removes only Probity's own, unedited
/// pre-receive hook; an edited one and another's are kept byte for byte.
#[test]
fn the_server_hook_uninstall_removes_only_its_own_unedited_hook() {
    let s = Setup::new();
    let hook = s.server.join("hooks/pre-receive");
    // Edited after install: kept.
    let installed = std::fs::read_to_string(&hook).unwrap();
    let edited = installed.replace("exec ", "echo audit >&2\nexec ");
    std::fs::write(&hook, &edited).unwrap();
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["hooks"][0]["action"], "preserved_user_edits");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), edited);
    // Another's: kept.
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "not_ours");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
    // Probity's, unedited: removed, and a second uninstall has nothing to do.
    std::fs::write(&hook, &installed).unwrap();
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "removed", "{}", r.stdout);
    assert!(!hook.exists());
    let r = probity(&s.server, &["hooks", "uninstall", "--server"]);
    assert_eq!(r.json["hooks"][0]["action"], "nothing");
}

#[test]
fn concurrent_unreviewed_pushes_from_two_clones_are_each_denied() {
    let s = Setup::new();
    let (_da, a) = s.clone_server();
    let (_db, b) = s.clone_server();
    for (clone, name) in [(&a, "a.rs"), (&b, "b.rs")] {
        std::fs::write(clone.join(name), "fn x() {}\n").unwrap();
        s.f.git_in(clone, &["add", "-A"]).unwrap();
        s.f.git_in(clone, &["commit", "-q", "-m", "unreviewed"])
            .unwrap();
    }
    let before = s.server_rev("main");
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let ha = scope.spawn(|| push_in(&s.f, &a, &["origin", "main"]));
        let hb = scope.spawn(|| push_in(&s.f, &b, &["origin", "main"]));
        vec![ha.join().unwrap(), hb.join().unwrap()]
    });
    for r in results {
        let err = r.unwrap_err();
        assert!(err.contains("receipt_missing"), "{err}");
    }
    assert_eq!(s.server_rev("main"), before);
}

/// `probity.requireSignature` on the server: an unsigned review is no
/// authority (`signature_missing`), a review signed by a key the server's
/// allowed-signers file does not list is `signer_not_allowed`, and once
/// `probity attest --sign` by a listed key has added its envelope to the
/// lineage, `probity push` carries it in the note and the server allows
/// (the unsigned bundle published before it stays in the append-only
/// notes, and is simply no authority).
#[test]
fn a_server_that_requires_signatures_allows_only_a_listed_signer() {
    let s = Setup::new();
    let keys = tempfile::tempdir().unwrap();
    let alice = keygen(keys.path(), "alice");
    let mallory = keygen(keys.path(), "mallory");
    let signers = allowed(keys.path(), &[("alice@example.invalid", &alice)]);
    for (k, v) in [
        ("probity.requireSignature", "true"),
        ("probity.allowedSignersFile", signers.to_str().unwrap()),
    ] {
        s.f.git_in(&s.server, &["config", k, v]).unwrap();
    }
    let lineage = s.approve();
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev("HEAD");
    let published = probity(s.f.root(), &["publish"]);
    assert_eq!(
        published.code, 0,
        "{}{}",
        published.stdout, published.stderr
    );
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("signature_missing"), "{err}");
    assert!(
        err.contains(&format!("probity attest --lineage {lineage} --sign")),
        "{err}"
    );
    assert_ne!(s.server_rev("main"), Some(tip.clone()));

    // Signed, but by a key the server does not list.
    let sign = |key: &std::path::Path| {
        s.f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
            .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
            .args(["--cwd", s.f.root().to_str().unwrap()])
            .args(["attest", "--lineage", &lineage, "--sign"])
            .env("HOME", keys.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let p = probity(s.f.root(), &["publish"]);
        assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    };
    sign(&mallory);
    let err = s
        .push(&["origin", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("signer_not_allowed"), "{err}");
    // The pusher is not shown the server's allowed-signers path.
    assert!(!err.contains(signers.to_str().unwrap()), "{err}");
    assert_ne!(s.server_rev("main"), Some(tip.clone()));

    // Signed by alice too: allowed, with the two older bundles (unsigned,
    // and carrying mallory's envelope only) still in the note.
    sign(&alice);
    let lines = note(&s.f, s.f.root(), &tip).unwrap();
    assert_eq!(
        lines
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        3
    );
    s.push(&["origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(s.server_rev("main"), Some(tip));
}

/// Reviewed work the server allows, as the local gates judge it: a stack
/// of two reviewed commits pushed at once, each with its note.
#[test]
fn the_server_allows_a_reviewed_stack() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("first reviewed slice").unwrap();
    s.f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    s.approve();
    s.f.commit_all("second reviewed slice").unwrap();
    let tip = s.rev("HEAD");
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(s.server_rev("main"), Some(tip));
}

/// A commit rebased onto reviewed upstream work that touches none of its
/// paths: the server allows it by the rebase proof, checked against the
/// trees the review froze (they travel inside the notes history, anchored
/// by publish, since the rebased commit no longer contains them; no other
/// ref is pushed).
#[test]
fn the_server_allows_a_delivery_rebased_onto_reviewed_upstream_work() {
    let s = Setup::new();
    let lineage = s.approve();
    s.f.commit_all("reviewed here").unwrap();
    // The tree the review froze: after the rebase no commit holds it.
    let frozen = s.rev("HEAD^{tree}");
    // Meanwhile another clone lands reviewed work on another path.
    let (_d, b) = s.clone_server();
    std::fs::create_dir_all(b.join("docs")).unwrap();
    std::fs::write(b.join("docs/notes.md"), "# notes\n").unwrap();
    approve_live(&b, s.inputs.path());
    s.f.git_in(&b, &["add", "-A"]).unwrap();
    s.f.git_in(&b, &["commit", "-q", "-m", "upstream, reviewed"])
        .unwrap();
    let pb = probity(&b, &["push", "origin", "main"]);
    assert_eq!(pb.code, 0, "{}{}", pb.stdout, pb.stderr);
    // Here: rebase onto it, then push with the review's notes and trees.
    s.f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    let tip = s.rev("HEAD");
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(s.server_rev("main"), Some(tip.clone()));
    // The note on the rebased commit names the review; the server holds
    // the trees it froze.
    let n = note(&s.f, &s.server, &tip).unwrap();
    assert!(String::from_utf8_lossy(&n).contains(&lineage));
    let objects = s.server.to_str().unwrap();
    assert!(
        s.f.git(&[
            "--git-dir",
            objects,
            "cat-file",
            "-e",
            &format!("{frozen}^{{tree}}")
        ])
        .is_ok(),
        "the server holds the review's candidate tree {frozen}"
    );
    let refs =
        s.f.git(&["--git-dir", objects, "for-each-ref", "refs/probity/"])
            .unwrap();
    assert!(refs.is_empty(), "{}", String::from_utf8_lossy(&refs));
}

/// A FIFO or a device given as a bundle or an envelope is refused at once
/// (a FIFO used to block the import forever), nothing written.
#[test]
fn a_non_regular_bundle_or_envelope_is_refused_at_once() {
    let s = Setup::new();
    let fifo = s.inputs.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let before = store_snapshot(&s.f);
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let i = probity(s.f.root(), &["bundle", "import", path]);
        assert_eq!(i.code, 3, "{}{}", i.stdout, i.stderr);
        assert_eq!(i.json["error"]["code"], "input_not_regular");
        let v = probity(s.f.root(), &["attest", "verify", "--envelope", path]);
        assert_eq!(v.code, 3, "{}{}", v.stdout, v.stderr);
        assert_eq!(v.json["error"]["code"], "input_not_regular");
    }
    assert!(store_snapshot(&s.f) == before, "the store changed");
}

/// Regression (issue 12): an allowed-signers file (`--allowed-signers` or
/// `probity.allowedSignersFile`) that is a FIFO blocked `attest verify`
/// forever, a directory or a device answered a misleading "does not allow"
/// denial, and an oversized one went to `ssh-keygen` whole. Each is now a
/// typed error (exit 3) before `ssh-keygen` runs at all.
#[test]
fn a_non_regular_or_oversized_allowed_signers_file_is_refused_before_ssh_keygen() {
    let s = Setup::new();
    let lineage = s.approve();
    let key = keygen(s.inputs.path(), "alice");
    s.f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
        .unwrap();
    let signed = probity(s.f.root(), &["attest", "--lineage", &lineage, "--sign"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let envelope = input(s.inputs.path(), "envelope.json", &signed.stdout);
    // A real file of this key verifies (the path the refusals leave).
    let good = allowed(s.inputs.path(), &[("alice@example.com", &key)]);
    let ok = probity(
        s.f.root(),
        &[
            "attest",
            "verify",
            "--envelope",
            &envelope,
            "--allowed-signers",
            good.to_str().unwrap(),
        ],
    );
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);

    let fifo = s.inputs.path().join("signers.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let dir = s.inputs.path().join("signers.d");
    std::fs::create_dir(&dir).unwrap();
    let big = s.inputs.path().join("big_signers");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(probity_git::sign::MAX_ALLOWED_SIGNERS_BYTES + 1)
        .unwrap();
    // A stand-in ssh-keygen that leaves a mark: it must never run.
    let shim = s.inputs.path().join("ssh-keygen-shim");
    let ran = s.inputs.path().join("ssh-keygen-ran");
    probity_testkit::write_executable(
        &shim,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", ran.display()).as_bytes(),
    )
    .unwrap();
    let env = [("PROBITY_SSH_KEYGEN", shim.to_str().unwrap())];
    for (path, code) in [
        (fifo.as_path(), "input_not_regular"),
        (dir.as_path(), "input_not_regular"),
        (Path::new("/dev/null"), "input_not_regular"),
        (big.as_path(), "input_too_large"),
    ] {
        let p = path.to_str().unwrap();
        // The flag, then the configuration.
        let by_flag = probity_bounded(
            s.f.root(),
            &[
                "attest",
                "verify",
                "--envelope",
                &envelope,
                "--allowed-signers",
                p,
            ],
            &env,
            30,
        );
        s.f.git(&["config", "probity.allowedSignersFile", p])
            .unwrap();
        let by_config = probity_bounded(
            s.f.root(),
            &["attest", "verify", "--envelope", &envelope],
            &env,
            30,
        );
        for r in [by_flag, by_config] {
            assert_eq!(r.code, 3, "{p}: {}{}", r.stdout, r.stderr);
            assert_eq!(r.json["error"]["code"], code, "{p}: {}", r.stdout);
            assert!(!ran.exists(), "{p}: ssh-keygen ran");
        }
    }
}

/// `ssh-keygen` reads the allowed-signers file as it was checked, from a
/// private scratch copy: the user's path is opened once, by the bounded
/// reader, so swapping it for a FIFO after the check cannot make the run
/// block (found by audit: ssh-keygen opened the user's path itself). A
/// recording stand-in shows what each run was handed, then runs the real
/// ssh-keygen, and verification still succeeds.
#[test]
fn ssh_keygen_reads_a_checked_copy_of_the_allowed_signers_file() {
    let s = Setup::new();
    let lineage = s.approve();
    let key = keygen(s.inputs.path(), "alice");
    s.f.git(&["config", "probity.signingKey", key.to_str().unwrap()])
        .unwrap();
    let signed = probity(s.f.root(), &["attest", "--lineage", &lineage, "--sign"]);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    let envelope = input(s.inputs.path(), "envelope.json", &signed.stdout);
    let good = allowed(s.inputs.path(), &[("alice@example.com", &key)]);
    let log = s.inputs.path().join("handed");
    let shim = s.inputs.path().join("ssh-keygen-recorder");
    probity_testkit::write_executable(
        &shim,
        format!(
            "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n  if [ \"$prev\" = -f ] && [ -f \"$a\" ] && grep -q alice@example.com \"$a\"; then\n    printf '%s\\n' \"$a\" >> '{log}'\n    cat \"$a\" >> '{log}.bytes'\n  fi\n  prev=$a\ndone\nexec ssh-keygen \"$@\"\n",
            log = log.display()
        )
        .as_bytes(),
    )
    .unwrap();
    let env = [("PROBITY_SSH_KEYGEN", shim.to_str().unwrap())];
    let ok = probity_bounded(
        s.f.root(),
        &[
            "attest",
            "verify",
            "--envelope",
            &envelope,
            "--allowed-signers",
            good.to_str().unwrap(),
        ],
        &env,
        60,
    );
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let handed = std::fs::read_to_string(&log).unwrap();
    let paths: Vec<&str> = handed.lines().collect();
    assert!(!paths.is_empty(), "ssh-keygen was handed the file");
    for p in &paths {
        assert_ne!(*p, good.to_str().unwrap(), "the user's own path");
        assert!(
            Path::new(p)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("probity-allowed-")),
            "{p}"
        );
        assert!(!Path::new(p).exists(), "{p} is removed after the run");
    }
    let original = std::fs::read_to_string(&good).unwrap();
    assert_eq!(
        std::fs::read_to_string(format!("{}.bytes", log.display())).unwrap(),
        original.repeat(paths.len()),
        "each copy holds the checked bytes"
    );
}

/// A reviewed stack pushed without its notes is warned about too (a
/// stack's report names no single lineage, which used to hide it).
#[test]
fn the_pre_push_hook_warns_for_a_stack_pushed_without_its_notes() {
    let s = Setup::new();
    s.approve();
    s.f.commit_all("first slice").unwrap();
    s.f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    s.approve();
    s.f.commit_all("second slice").unwrap();
    let tip = s.rev("HEAD");
    let base = s.rev("HEAD~2");
    let line = format!("refs/heads/main {tip} refs/heads/main {base}\n");
    let (code, err) = hook_gate(s.f.root(), &line);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("is not pushed"), "{err}");
    assert!(err.contains(&tip), "{err}");
}

/// The server judges a stack with the same bound as every other gate
/// (1,000 commits): 300 commits that change no bytes are a delivery, not
/// "too large" (the server once stopped at 256 with a dead-end next step).
#[test]
fn the_server_judges_long_stacks_with_the_gate_bound() {
    let s = Setup::new();
    let head = s.rev("HEAD");
    let tree = s.rev("HEAD^{tree}");
    let mut tip = head;
    for i in 0..300 {
        let out =
            s.f.git(&["commit-tree", &tree, "-p", &tip, "-m", &format!("e{i}")])
                .unwrap();
        tip = String::from_utf8(out).unwrap().trim().to_string();
    }
    s.f.git(&["update-ref", "refs/heads/main", &tip]).unwrap();
    s.push(&["origin", "main"]).unwrap();
    assert_eq!(s.server_rev("main").as_deref(), Some(tip.as_str()));

    // Past the bound: the gate's own denial and a next step that fits it.
    for i in 0..1001 {
        let out =
            s.f.git(&["commit-tree", &tree, "-p", &tip, "-m", &format!("f{i}")])
                .unwrap();
        tip = String::from_utf8(out).unwrap().trim().to_string();
    }
    s.f.git(&["update-ref", "refs/heads/main", &tip]).unwrap();
    let err = s.push(&["origin", "main"]).unwrap_err();
    assert!(err.contains("DENY: delivery_too_large"), "{err}");
    assert!(err.contains("push the stack in parts"), "{err}");
    assert!(!err.contains("republish"), "{err}");
}
