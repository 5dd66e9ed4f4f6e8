//! Red team round 6: a delivery the server holds with no note naming its
//! approval, on a real bare remote with the server hook. Its approval was
//! still spent by it: a replay of the same change is refused, whichever way
//! the note went missing, and the legitimate flows beside it land.

mod support;

use std::path::Path;

use probity_git::fixture::Fixture;
use support::*;

fn note_of(f: &Fixture, cwd: &Path, commit: &str) -> Option<Vec<u8>> {
    f.git_in(cwd, &["notes", "--ref=probity", "show", commit])
        .ok()
}

/// The maintainer reverts the delivered change (reviewed, pushed), and the
/// agent brings it back by reverting the revert, with `note_from`'s note
/// (the bundle that approved the change): the server refuses it
/// `approval_spent` naming `delivered`; the next step the denial names,
/// the change with other bytes reviewed as committed, lands.
fn revert_then_replay_is_refused(
    f: &Fixture,
    server: &Path,
    inputs: &Path,
    delivered: &str,
    note_from: &str,
) {
    f.git(&["revert", "--no-edit", "--no-commit", delivered])
        .unwrap();
    let revert = commit_all(f, "revert the change");
    let st = probity_ok(f.root(), &["start", "--commit", &revert]);
    approve_started(f.root(), inputs, &st.json);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(f, server, "main").as_deref(), Some(revert.as_str()));
    let replay = revert_head(f, "bring it back");
    assert_eq!(
        rev(f, f.root(), &format!("{replay}^{{tree}}")),
        rev(f, f.root(), &format!("{delivered}^{{tree}}"))
    );
    f.git(&["notes", "--ref=probity", "copy", "-f", note_from, &replay])
        .unwrap();
    let err = push_no_verify(f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(delivered), "{err}");
    assert_eq!(rev(f, server, "main"), Some(revert));
    amend_with_other_bytes_and_land(f, server, inputs);
}

/// Round 6's finding 1, closed by binding (red team round 7, finding 01;
/// D-R146): the agent pushes its reviewed commit with the bundle moved to
/// the note of an empty commit on top, so that no note names the approval
/// on the delivering commit and only the ref's history window (1,000
/// commits) held the delivery. The bundle must sit on the note of the
/// commit it delivers: the push is refused `approval_not_on_commit`, at
/// the hook and in the CI range form, nothing moves; the next step the
/// denial names (`probity publish`, which writes it there) lands, and the
/// notes then find the delivery whatever the window holds.
#[test]
fn a_delivery_whose_bundle_sits_on_a_siblings_note_is_refused() {
    let (f, _dir, server) = hooked_origin();
    write_medium_change(&f);
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let delivered = commit_all(&f, "the reviewed change");
    f.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "--no-verify",
        "-m",
        "empty",
    ])
    .unwrap();
    let sibling = rev(&f, f.root(), "HEAD").unwrap();
    probity_ok(f.root(), &["publish"]);
    f.git(&["notes", "--ref=probity", "copy", "-f", &delivered, &sibling])
        .unwrap();
    f.git(&["notes", "--ref=probity", "remove", &delivered])
        .unwrap();
    let (main_before, notes_before) = (
        rev(&f, &server, "main"),
        rev(&f, &server, "refs/notes/probity"),
    );
    // The CI form over the same range answers as the hook does.
    let ci = probity(
        f.root(),
        &pre_receive_args("origin/main..HEAD", "refs/heads/main"),
    );
    assert_ne!(ci.code, 0, "{}", ci.stdout);
    assert_eq!(
        ci.json["reason_code"], "approval_not_on_commit",
        "{}",
        ci.stdout
    );
    assert_eq!(ci.json["commit"].as_str(), Some(delivered.as_str()));
    let pr = probity(f.root(), &notes_pre_pr_args("origin/main", &[]));
    assert_ne!(pr.code, 0, "{}", pr.stdout);
    assert_eq!(
        pr.json["reason_code"], "approval_not_on_commit",
        "{}",
        pr.stdout
    );
    let err =
        push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_not_on_commit"), "{err}");
    assert!(
        err.contains(&delivered) && err.contains("probity publish"),
        "{err}"
    );
    assert_eq!(rev(&f, &server, "main"), main_before);
    assert_eq!(rev(&f, &server, "refs/notes/probity"), notes_before);
    // The next step: publish writes the approval on its own commit.
    probity_ok(f.root(), &["publish"]);
    push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap();
    assert_eq!(rev(&f, &server, "main"), Some(sibling.clone()));
    assert!(note_of(&f, &server, &delivered).is_some());
    revert_then_replay_is_refused(&f, &server, inputs.path(), &delivered, &sibling);
}

/// Red team round 7, finding 02: an agent that sees a teammate's pending,
/// approved change (its bytes on the teammate's branch) lands the same
/// bytes on main under its own review, then reverts them under another.
/// Its copy delivered its own approval, which its note carries, not the
/// teammate's: the teammate's push of the same trees lands. A note-less
/// copy (a lost race) still spends by its trees, as the test above shows.
#[test]
fn a_copy_delivered_under_its_own_review_leaves_a_teammates_approval_unspent() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let (_tdir, teammate) = clone_as(&f, &server, "teammate");
    let changed = "// parser\nfn parse() { /* handle empty input */ }\n";
    std::fs::write(teammate.join("src/parser.rs"), changed).unwrap();
    approve_live(&teammate, inputs.path());
    f.git_in(
        &teammate,
        &["commit", "-qam", "handle empty input", "--no-verify"],
    )
    .unwrap();
    let theirs = rev(&f, &teammate, "HEAD").unwrap();
    // The agent: the same bytes, its own review, then its reviewed revert.
    f.write("src/parser.rs", changed).unwrap();
    approve_live(f.root(), inputs.path());
    let copy = commit_all(&f, "the same change");
    let revert = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(revert.clone()));
    assert_eq!(
        rev(&f, f.root(), &format!("{copy}^{{tree}}")),
        rev(&f, &teammate, &format!("{theirs}^{{tree}}"))
    );
    // The teammate rebases onto it (the same trees; git's rebase would
    // drop the commit as already applied upstream) and pushes.
    for args in [
        &["fetch", "-q", "origin"][..],
        &["reset", "-q", "--hard", "origin/main"],
        &["cherry-pick", &theirs],
    ] {
        f.git_in(&teammate, args).unwrap();
    }
    let rebased = rev(&f, &teammate, "HEAD").unwrap();
    assert_ne!(rebased, theirs);
    assert_eq!(
        rev(&f, &teammate, &format!("{rebased}~1^{{tree}}")),
        rev(&f, &teammate, &format!("{theirs}~1^{{tree}}"))
    );
    probity_ok(&teammate, &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(rebased));
}

/// Finding 2: a push without `--atomic` whose notes update lost a race
/// after the hook allowed it (git updates each ref on its own): the
/// protected branch moved, the note never reached the server. Shown here
/// by putting the server's notes back as the race left them. The agent,
/// who kept the note, replays the change after its revert.
#[test]
fn a_delivery_whose_note_never_reached_the_server_still_spends_its_approval() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let (delivered, kept) = delivered_with_its_note_lost(&f, &server, inputs.path());
    replay_with_the_kept_note_is_refused(&f, &server, inputs.path(), &delivered, kept);
}

/// A reviewed medium change `probity push`ed to `server`, then what a lost
/// race leaves (round 6's finding 2): the server's notes put back as they
/// were, and the agent's adopted (as its next fetch would), the delivery's
/// note kept aside. Returns (the delivery, its note).
fn delivered_with_its_note_lost(f: &Fixture, server: &Path, inputs: &Path) -> (String, Vec<u8>) {
    write_medium_change(f);
    let notes_before = rev(f, server, "refs/notes/probity");
    let delivered = deliver_reviewed(f, inputs);
    assert_eq!(rev(f, server, "main"), Some(delivered.clone()));
    let kept = note_of(f, f.root(), &delivered).unwrap();
    match &notes_before {
        Some(old) => f.git_in(server, &["update-ref", "refs/notes/probity", old]),
        None => f.git_in(server, &["update-ref", "-d", "refs/notes/probity"]),
    }
    .unwrap();
    assert_eq!(note_of(f, server, &delivered), None);
    f.git(&[
        "fetch",
        "-q",
        "origin",
        "+refs/notes/probity:refs/notes/probity",
    ])
    .or_else(|_| f.git(&["update-ref", "-d", "refs/notes/probity"]))
    .unwrap();
    (delivered, kept)
}

/// The maintainer's reviewed revert lands, then the agent's revert of it
/// with the delivery's `kept` note: refused `approval_spent` naming
/// `delivered`; the next step, the change with other bytes, lands.
fn replay_with_the_kept_note_is_refused(
    f: &Fixture,
    server: &Path,
    inputs: &Path,
    delivered: &str,
    kept: Vec<u8>,
) {
    let revert = reviewed_revert(f, inputs);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(f, server, "main"), Some(revert));
    let replay = revert_head(f, "bring it back");
    force_note(f, &replay, &String::from_utf8(kept).unwrap());
    let err = push_no_verify(f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(delivered), "{err}");
    amend_with_other_bytes_and_land(f, server, inputs);
}

/// D-R146's exemption with round 6's race: the delivery's note never
/// reached the server, and the agent later adds to the delivering commit a
/// note holding a hand-written approval of the same trees rated below their
/// tier (every hash right; `low`, no lens, for a code change). That
/// approval would not import (`derivation_mismatch`), so it is no other
/// approval the commit delivered: the commit still spends the real one, and
/// the replay after a reviewed revert is refused `approval_spent`.
#[test]
fn a_forged_lower_tier_note_added_later_does_not_unspend_a_lost_delivery() {
    use probity_core::review::{RiskAssessment, RiskLevel, RiskReason};
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    let (delivered, kept) = delivered_with_its_note_lost(&f, &server, inputs.path());
    // The hand-written approval, on the delivering commit's note, pushed
    // alone (a notes-only push is judged by the notes' own rules).
    let forged = support::forged::low_v1_bundle(&f, &delivered, |_, _| {
        RiskAssessment::new(RiskLevel::Low, vec![RiskReason::DocsOnly]).unwrap()
    });
    force_note(
        &f,
        &delivered,
        String::from_utf8(forged).unwrap().trim_end(),
    );
    push_no_verify(&f, &["origin", "refs/notes/probity"]).unwrap();
    assert!(note_of(&f, &server, &delivered).is_some());
    replay_with_the_kept_note_is_refused(&f, &server, inputs.path(), &delivered, kept);
}

/// `count` commits on `main` in `f`'s clone, each changing `filler.md`,
/// the last removing it (so the tip's tree is where they started), made
/// by one `git fast-import`, and pushed to `server` with its hook set
/// aside: history the server holds, as a long-lived repository has it.
fn history_on_the_server(f: &Fixture, server: &Path, count: usize) {
    let mut script = String::new();
    let from = rev(f, f.root(), "HEAD").unwrap();
    for i in 1..=count {
        script.push_str("commit refs/heads/main\n");
        script.push_str("committer Filler <filler@probity.invalid> 1767225600 +0000\n");
        script.push_str("data 6\nfiller\n");
        if i == 1 {
            script.push_str(&format!("from {from}\n"));
        }
        if i == count {
            script.push_str("D filler.md\n\n");
        } else {
            let text = format!("entry {i}\n");
            script.push_str(&format!(
                "M 100644 inline filler.md\ndata {}\n{text}\n",
                text.len()
            ));
        }
    }
    git_out(
        f.root(),
        &["fast-import", "--quiet"],
        script.as_bytes(),
        &[],
    );
    f.git(&["reset", "-q", "--hard", "main"]).unwrap();
    let hook = server.join("hooks/pre-receive");
    let aside = server.join("hooks/pre-receive.aside");
    std::fs::rename(&hook, &aside).unwrap();
    let pushed = push_no_verify(f, &["origin", "main"]);
    std::fs::rename(&aside, &hook).unwrap();
    pushed.unwrap();
}

/// Red team round 8 (finding 01): the notes search reads at most 64 names
/// of an approval in path order, and D-R137's flood search used the rest
/// only to mark commits of the history window. So 64 junk notes naming the
/// approval on ids that sort first hid its delivery, once 1,000 changing
/// commits had pushed that delivery out of the window: the replay of its
/// revert's revert landed. A flooded approval's named commits are now all
/// read (those this repository holds, one batch): refused `approval_spent`,
/// as without the flood.
#[test]
fn a_flood_of_junk_names_does_not_hide_a_delivery_past_the_window() {
    let (f, _dir, server) = hooked_origin();
    write_medium_change(&f);
    let inputs = tempfile::tempdir().unwrap();
    let approved = approve_live(f.root(), inputs.path());
    let lineage = approved["lineage_id"].as_str().unwrap().to_string();
    let delivered = commit_all(&f, "the reviewed change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    let revert = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(revert.clone()));
    history_on_the_server(&f, &server, 1_001);
    f.git(&["checkout", &delivered, "--", "src"]).unwrap();
    let replay = commit_all(&f, "bring it back");
    assert_eq!(
        rev(&f, f.root(), &format!("{replay}~1^{{tree}}")),
        rev(&f, f.root(), &format!("{revert}^{{tree}}"))
    );
    f.git(&["notes", "--ref=probity", "copy", "-f", &delivered, &replay])
        .unwrap();
    for i in 1..=64u32 {
        force_note(&f, &format!("{i:040x}"), &lineage);
    }
    let err =
        push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(&delivered), "{err}");
}
