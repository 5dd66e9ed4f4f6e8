//! Authority that travels (R11): bundles between clones, notes under
//! refs/notes/probity, and the server-side gate in a real bare
//! repository's pre-receive hook, all through the real `probity` binary
//! and real `git push`.

mod support;

use std::path::Path;

use probity_core::review::Bundle;
use probity_git::fixture::Fixture;
use serde_json::Value;
use support::transport::*;
use support::*;

#[test]
fn a_bundle_moves_a_review_to_another_clone_idempotently() {
    let s = Setup::new();
    let lineage = s.approve();
    s.f.commit_all("reviewed change").unwrap();
    let file = s.inputs.path().join("b.json");
    let e = probity_ok(
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
    let i = probity_ok(&b, &["bundle", "import", file.to_str().unwrap()]);
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
    probity_ok(other.root(), &["start"]);
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
    let p = probity_ok(s.f.root(), &["push", "origin", "main"]);
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
    let again = probity_in(s.f.root())
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
    probity_ok(s.f.root(), &["push", "origin", "main"]);
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
    probity_ok(s.f.root(), &["publish"]);
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
    // Clone A: a reviewed change on main; clone B: a reviewed change on a
    // feature branch.
    let (_d, b) = s.reviewed_in_a_and_b();
    let pb = probity(&b, &["publish"]);
    assert_eq!(
        pb.json["written"].as_array().unwrap().len(),
        1,
        "{}{}",
        pb.stdout,
        pb.stderr
    );
    // A pushes first.
    probity_ok(s.f.root(), &["push", "origin", "main"]);
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
    let pushed = probity_ok(&b, &["push", "origin", "feature"]);
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
    merge_notes(&s.f, "refs/notes/probity-remote");
    assert_eq!(note(&s.f, s.f.root(), &b_tip), note(&s.f, &b, &b_tip));
}

#[test]
fn the_ci_form_judges_a_pushed_range_from_fetched_notes() {
    let s = Setup::new();
    let base = s.rev("HEAD");
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    // A CI checkout: a fresh clone, no store, notes fetched.
    let (_d, ci) = s.clone_server();
    fetch_notes(&s.f, &ci);
    let range = format!("{base}..HEAD");
    let r = probity_ok(&ci, &pre_receive_args(&range, "refs/heads/main"));
    assert_eq!(r.json["gate"], "pre-receive");
    assert_eq!(r.json["decision"], "allow");
    assert_eq!(r.json["input"], "range");
    assert!(
        !ci.join(".git/probity").exists(),
        "the clone's store is never written"
    );
    // pre-pr from the notes.
    let pr = probity(&ci, &notes_pre_pr_args(&base, &[]));
    assert_eq!(pr.json["decision"], "allow", "{}{}", pr.stdout, pr.stderr);
    // Without the notes: denied.
    s.f.git_in(&ci, &["update-ref", "-d", "refs/notes/probity"])
        .unwrap();
    let r = probity(&ci, &pre_receive_args(&range, "refs/heads/main"));
    assert_eq!(r.code, 1);
    assert_eq!(r.json["reason_code"], "receipt_missing");
    // A new ref's zero "before" is not a range.
    let zeros = format!("{}..HEAD", "0".repeat(40));
    let z = probity(&ci, &pre_receive_args(&zeros, "refs/heads/x"));
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
    probity_ok(s.f.root(), &["hooks", "install", "--hook", "pre-push"]);
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
    probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(s.server_rev("main"), Some(tip));
}

#[test]
fn schema_bundle_is_printed() {
    let s = Setup::new();
    let r = probity(s.f.root(), &["schema", "bundle"]);
    assert_eq!(r.code, 0);
    // v2 reads v1: the same document, plus the evidence a v2 carries;
    // printed in the schema's newest revision (every risk reason, D-R128;
    // every escalation reason, D-R132), the earlier ones still printed by
    // their own names.
    assert_eq!(
        r.json["$id"],
        "https://probity.dev/schemas/review-bundle/v2/r3"
    );
    let second = probity(s.f.root(), &["schema", "bundle-r2"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(
        second.json["$id"],
        "https://probity.dev/schemas/review-bundle/v2/r2"
    );
    let first = probity(s.f.root(), &["schema", "bundle-r1"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.json["$id"],
        "https://probity.dev/schemas/review-bundle/v2"
    );
    assert_eq!(r.json["properties"]["records"]["minItems"], 1);
    assert!(r.json["properties"]["evidence"].is_object(), "{}", r.stdout);
}

#[test]
fn a_recovered_chain_travels_whole_and_the_server_allows_its_leaf() {
    let s = Setup::new();
    let first = approve_live(s.f.root(), s.inputs.path());
    let l1 = string_at(&first, "lineage_id");
    let rev = string_at(&first, "store_revision");
    // The candidate changes after approval: an audited successor.
    s.f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { 2 }\n",
    )
    .unwrap();
    recover_scope_changed_at(&s.f, &l1, &rev, "edited after approval", "maintainer");
    let l2 = string_at(&approve_live(s.f.root(), s.inputs.path()), "lineage_id");
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
    let p = probity_ok(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(
        p.json["published"][0]["written"][0]["lineage_id"],
        l2.as_str()
    );
    // Imported into another clone: both records, chain intact.
    let (_d, other) = s.clone_server();
    let file = s.inputs.path().join("chain.json");
    std::fs::write(&file, &e2.stdout).unwrap();
    let i = probity_ok(&other, &["bundle", "import", file.to_str().unwrap()]);
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
    probity_ok(s.f.root(), &["push", "origin", "HEAD:refs/heads/feature"]);
    assert_eq!(s.server_rev("refs/heads/feature"), Some(s.rev("HEAD")));
    // A second new branch at the same commit: judged as that commit.
    s.push(&["origin", "HEAD:refs/heads/copy"]).unwrap();
}

#[test]
fn attestations_are_carried_unchanged_through_import_and_notes() {
    use probity_core::review::{DsseEnvelope, DsseSignature};
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
    let i = probity_ok(&b, &["bundle", "import", file.to_str().unwrap()]);
    assert_eq!(i.json["attestations"], 1);
    let re = probity(&b, &["bundle", "export", "--lineage", &lineage]);
    assert_eq!(re.stdout.as_bytes(), &bytes[..], "carried unchanged");
    // And through a note to the server, where the gate verifies it.
    s.f.git_in(&b, &["reset", "-q", "--hard", "FETCH_HEAD"])
        .unwrap();
    probity_ok(&b, &["push", "origin", "main"]);
    let tip = rev_in(&s.f, &b, "HEAD").unwrap();
    let on_server = note(&s.f, &s.server, &tip).unwrap();
    assert_eq!(on_server, bytes);
}
