//! Authority that travels with the commits (R11) on in-memory adapters:
//! bundles exported, verified and imported, published as notes on the
//! delivery commits, and the server-side gate that judges a push against
//! the authority its notes carry, in a scratch store, never its own.

mod common;

use common::*;
use probity_core::review::Disposition;
use probity_core::review::Lens;
use probity_core::review::{Bundle, RefusedBundle, note_with};
use probity_core::review::{CommitId, LineageId, NonBlank};
use probity_core::review::{NOTES_REF, ReceiveUpdate};
use probity_ports::review::{
    self as drivers, ChainStore, Delivery, NotesGit, PreReceive, ReceiptStore, ReceiveDenial,
    ReceiveScope, RecordStore, RemoteScope, ReviewError, StoreError, TransportError,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, WithAttestations, WithNotes, verdict};
use serde_json::Value;

const MAIN: &str = "refs/heads/main";

fn accept_all(_: &Bundle) -> Result<(), ReceiveDenial> {
    Ok(())
}

fn update(old: Option<&CommitId>, new: Option<&CommitId>, refname: &str) -> ReceiveUpdate {
    ReceiveUpdate {
        old: old.cloned(),
        new: new.cloned(),
        refname: refname.into(),
    }
}

fn hook() -> ReceiveScope {
    hook_at(&[])
}

/// The server hook whose default branch is at `default_branch` (what a
/// new protected ref is measured against).
fn hook_at(default_branch: &[CommitId]) -> ReceiveScope {
    ReceiveScope::Hook {
        remote: "/srv/repo.git".into(),
        default_branch: default_branch.to_vec(),
    }
}

/// The approved change committed on the base, seen through a git with
/// notes: (that git, base, delivery, lineage).
fn reviewed_commit(w: &World) -> (Git<'_>, CommitId, CommitId, LineageId) {
    let base = w.git.head().unwrap();
    let l = w.approve().state().lineage_id().clone();
    let tip = w.git.commit("the reviewed change").unwrap();
    (WithNotes::new(&w.git), base, tip, l)
}

/// [`reviewed_commit`] with its notes pushed (not yet accepted): (git,
/// base, delivery, lineage, the pushed notes commit).
fn reviewed_and_pushed(w: &World) -> (Git<'_>, CommitId, CommitId, LineageId, CommitId) {
    let (git, base, tip, l) = reviewed_commit(w);
    let pushed = push_notes(&git, &WithAttestations::new(&w.store), &base, &tip);
    (git, base, tip, l, pushed)
}

/// A change committed on the base without review, seen through a git with
/// notes: (that git, base, the commit).
fn unreviewed_commit(w: &World) -> (Git<'_>, CommitId, CommitId) {
    let base = w.git.head().unwrap();
    let tip = w.git.commit("not reviewed").unwrap();
    (WithNotes::new(&w.git), base, tip)
}

/// [`reviewed_commit`] with its notes published and held by the server:
/// (git, base, delivery, the notes commit held, the delivery's note).
fn published_and_held(w: &World) -> (Git<'_>, CommitId, CommitId, CommitId, Vec<u8>) {
    let (git, base, tip, _) = reviewed_commit(w);
    publish_range(&git, &WithAttestations::new(&w.store), &base, &tip);
    let held = git.notes_ref().unwrap();
    let note = git.note(&tip).unwrap();
    (git, base, tip, held, note)
}

/// Publishes the notes for `base..tip`, then leaves the server's notes ref
/// where it was before the push (absent): the pushed notes commit is only
/// an object until the push is accepted. Returns it.
fn push_notes(git: &Git<'_>, store: &Store<'_>, base: &CommitId, tip: &CommitId) -> CommitId {
    publish_range(git, store, base, tip);
    let pushed = git.notes_ref().unwrap();
    git.set_notes_ref(None);
    pushed
}

fn judged(answer: PreReceive) -> (String, String, Value) {
    match answer {
        PreReceive::Judged(d, _) => {
            let (decision, reason) = verdict(&d);
            (decision, reason, serde_json::to_value(&d).unwrap())
        }
        PreReceive::Denied(d) => panic!("expected a judgment, got the denial {d:?}"),
    }
}

/// The judgment's (decision, reason code), which must be `expected`;
/// returns its JSON.
#[track_caller]
fn judged_as(answer: PreReceive, expected: (&str, &str)) -> Value {
    let (decision, reason, json) = judged(answer);
    assert_eq!((decision.as_str(), reason.as_str()), expected, "{json}");
    json
}

/// `tip` pushed onto `base` at `main`, with the notes commit `notes`.
fn with_notes(base: &CommitId, tip: &CommitId, notes: &CommitId) -> [ReceiveUpdate; 2] {
    [
        update(Some(base), Some(tip), MAIN),
        update(None, Some(notes), NOTES_REF),
    ]
}

fn denied(answer: PreReceive) -> ReceiveDenial {
    match answer {
        PreReceive::Denied(d) => d,
        PreReceive::Judged(d, _) => panic!("expected a denial, got {:?}", verdict(&d)),
    }
}

/// The server-side gate at the hook over `updates`, into `scratch` (the
/// scratch store the gate imports authority into), every bundle's
/// signatures accepted.
fn at_hook(git: &Git<'_>, scratch: &InMemoryStore, updates: &[ReceiveUpdate]) -> PreReceive {
    drivers::pre_receive(
        git,
        &WithAttestations::new(scratch),
        updates,
        &hook(),
        accept_all,
    )
    .unwrap()
}

/// A bundle approved in another repository: none of its trees are here.
fn foreign_bundle() -> Bundle {
    let other = FakeGit::with_base(&[("src/a.rs", "fn other() {}\n")]).unwrap();
    other
        .write(
            "src/a.rs",
            "fn other() {}\nfn x() {}\nfn y() {}\nfn z() {}\n",
        )
        .unwrap();
    let w = World {
        git: other,
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    };
    let l = w.approve().state().lineage_id().clone();
    drivers::export_bundle(&WithAttestations::new(&w.store), &l).unwrap()
}

/// `tip` pushed onto `base` with a notes commit holding `note` for it, at
/// the hook into a scratch store: allowed, with exactly one line reported
/// as no authority, which is returned.
fn allowed_refusing_one(
    w: &World,
    base: &CommitId,
    tip: &CommitId,
    note: Vec<u8>,
) -> RefusedBundle {
    let git = WithNotes::new(&w.git);
    let pushed = git.notes_commit(None, &[(tip.clone(), note)]).unwrap();
    let scratch = InMemoryStore::new();
    let answer = at_hook(&git, &scratch, &with_notes(base, tip, &pushed));
    let PreReceive::Judged(d, refused) = answer else {
        panic!("denied: {answer:?}");
    };
    assert_eq!(verdict(&d), says("allow", "receipt_valid"));
    assert_eq!(refused.len(), 1, "{refused:?}");
    refused.into_iter().next().unwrap()
}

/// `bytes` with its first `from` replaced by `to` (which must differ).
fn edited(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(text.contains(from), "`{from}` is not in the bytes");
    let out = text.replacen(from, to, 1);
    assert_ne!(out, text);
    out.into_bytes()
}

#[test]
fn an_exported_bundle_verifies_and_imports_into_an_empty_store_once() {
    let (w, approved, l) = approved();
    let store = WithAttestations::new(&w.store);
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    assert_eq!(bundle.lineage_id, l);
    assert_eq!(bundle.records, vec![approved.clone()]);
    assert_eq!(bundle.receipts.len(), 1, "the approval's receipt travels");
    assert!(bundle.attestations.is_empty());
    let bytes = bundle.to_bytes().unwrap();
    assert_eq!(drivers::verify_bundle(&w.git, &bytes).unwrap(), bundle);
    drivers::check_repo(&w.git, &bundle).unwrap();

    let other = InMemoryStore::new();
    let imported = drivers::import_bundle(&WithAttestations::new(&other), &bundle).unwrap();
    assert_eq!(
        (
            imported.lineage_id.clone(),
            imported.written,
            imported.records
        ),
        (l.clone(), 1, 1)
    );
    assert_eq!(other.load(&l).unwrap(), Some(approved));
    assert_eq!(
        other.read_receipt(&l).unwrap(),
        w.store.read_receipt(&l).unwrap()
    );
    // The imported store is the authority the gate needs: it allows the
    // candidate as the exporting store does.
    let gate = drivers::validate_pre_commit(&w.git, &other, &Delivery::Worktree).unwrap();
    assert_eq!(verdict(&gate), says("allow", "receipt_valid"));
    // Idempotent: the same bundle again writes nothing.
    let held = other.dump();
    let again = drivers::import_bundle(&WithAttestations::new(&other), &bundle).unwrap();
    assert_eq!((again.written, again.records), (0, 1));
    assert_eq!(other.dump(), held);
}

#[test]
fn a_recovered_chain_travels_whole_from_generation_one_to_its_leaf() {
    let w = world();
    let first = w.start().state().lineage_id().clone();
    let text = |s: &str| NonBlank::parse(s).unwrap();
    let invalidated = drivers::invalidate(&w.store, &first, text("wrong lens")).unwrap();
    let successor = w
        .recover(
            &first,
            recover_request(
                &invalidated,
                Disposition::Invalidated,
                "again",
                "maintainer",
            ),
        )
        .unwrap()
        .record;
    let leaf = successor.state().lineage_id().clone();
    let approved = w
        .finalize_with(&leaf, |i| {
            i.results = vec![probity_testkit::documents::result(
                probity_testkit::documents::CLEAN,
            )];
            i.evidence = Some(probity_testkit::documents::passing_check());
        })
        .unwrap()
        .record;
    let store = WithAttestations::new(&w.store);
    // Named by any generation, the bundle is the whole chain.
    let bundle = drivers::export_bundle(&store, &first).unwrap();
    assert_eq!(drivers::export_bundle(&store, &leaf).unwrap(), bundle);
    assert_eq!(bundle.lineage_id, leaf);
    assert_eq!(bundle.records, vec![invalidated, approved]);
    let other = InMemoryStore::new();
    let imported = drivers::import_bundle(&WithAttestations::new(&other), &bundle).unwrap();
    assert_eq!((imported.written, imported.records), (2, 2));
    assert_eq!(other.successor_of(&first).unwrap(), Some(leaf));
}

#[test]
fn export_of_an_unknown_lineage_is_not_found() {
    let w = world();
    w.approve();
    let store = WithAttestations::new(&w.store);
    let held = store.dump();
    let unknown = LineageId::parse("review-0000000000000000").unwrap();
    let err = drivers::export_bundle(&store, &unknown).unwrap_err();
    assert_err!(err, TransportError::Review(ReviewError::Store(StoreError::NotFound(l))) if *l == unknown);
    assert_eq!(err.code(), None, "a driver error keeps its own mapping");
    assert_eq!(store.dump(), held);
}

#[test]
fn verification_refuses_edited_bytes_and_a_bundle_of_other_objects() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let bundle = drivers::export_bundle(&WithAttestations::new(&w.store), &l).unwrap();
    let bytes = bundle.to_bytes().unwrap();
    // One byte of authority edited: the digest no longer holds.
    let err = drivers::verify_bundle(&w.git, &edited(&bytes, "read the diff", "read the code"))
        .unwrap_err();
    assert_err!(err, TransportError::Bundle(_));
    assert_eq!(err.code(), Some("bundle_digest_mismatch"), "{err}");
    // Not a bundle at all.
    let err = drivers::verify_bundle(&w.git, b"{}").unwrap_err();
    assert_eq!(err.code(), Some("bundle_invalid"), "{err}");
    // A valid bundle from another repository: its trees are not here.
    let foreign = foreign_bundle();
    let err = drivers::verify_bundle(&w.git, &foreign.to_bytes().unwrap()).unwrap_err();
    match &err {
        TransportError::ObjectsMissing { objects } => {
            let trees: Vec<String> = foreign.trees().iter().map(|t| t.to_string()).collect();
            assert_eq!(*objects, trees);
        }
        other => panic!("expected objects_missing, got {other}"),
    }
    assert_eq!(err.code(), Some("objects_missing"));
}

#[test]
fn an_import_that_conflicts_with_the_store_is_refused_before_any_write() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let bundle = drivers::export_bundle(&WithAttestations::new(&w.store), &l).unwrap();
    // A store holding only a start of the candidate on `clock`, and the
    // import of the bundle into it, which is refused with nothing written.
    let started_in = |clock: &FixedClock| {
        let store = InMemoryStore::new();
        let started = drivers::start(&w.git, &store, clock, Lens::Reliability)
            .unwrap()
            .record;
        let held = store.dump();
        let err = drivers::import_bundle(&WithAttestations::new(&store), &bundle).unwrap_err();
        assert_eq!(store.dump(), held, "a refused import wrote to the store");
        (started, err)
    };
    // The same lineage (same clock, same candidate), only started here.
    let (started, err) = started_in(&w.clock);
    assert_eq!(started.state().lineage_id(), &l);
    match &err {
        TransportError::Conflict { lineage, detail } => {
            assert_eq!(lineage, &l);
            assert!(detail.contains("revision"), "{detail}");
        }
        e => panic!("expected import_conflict, got {e}"),
    }
    assert_eq!(err.code(), Some("import_conflict"));
    // Another lineage owns the candidate: never merged either.
    let clock = FixedClock::fixture()
        .with_nonce("0123456789abcdef0123456789abcdef")
        .unwrap();
    let (owner, err) = started_in(&clock);
    assert_ne!(owner.state().lineage_id(), &l);
    match &err {
        TransportError::Conflict { detail, .. } => {
            assert!(
                detail.contains(owner.state().lineage_id().as_str()),
                "{detail}"
            );
        }
        e => panic!("expected import_conflict, got {e}"),
    }
}

#[test]
fn publish_notes_each_reviewed_delivery_once_and_names_the_unreviewed() {
    let w = world();
    let (git, base, reviewed, l) = reviewed_commit(&w);
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    let unreviewed = w.git.commit("not reviewed").unwrap();
    let store = WithAttestations::new(&w.store);
    let held = store.dump();
    let out = publish_range(&git, &store, &base, &unreviewed);
    assert_eq!(out.written, vec![(reviewed.clone(), l.clone())]);
    assert!(out.unchanged.is_empty());
    assert_eq!(out.unreviewed, vec![unreviewed.clone()]);
    // The note is the bundle, one canonical line.
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    assert_eq!(
        git.note(&reviewed),
        Some(note_with(&[], &[bundle]).unwrap())
    );
    assert_eq!(git.note(&unreviewed), None);
    assert_eq!(git.notes_writes(), 1);
    // Again: nothing new to write, the ref not moved.
    let notes = git.all_notes();
    let again = drivers::publish(&git, &store, &unreviewed, &[base], &RemoteScope::None).unwrap();
    assert!(again.written.is_empty());
    assert_eq!(again.unchanged, vec![(reviewed, l)]);
    assert_eq!(git.notes_writes(), 1);
    assert_eq!(git.all_notes(), notes);
    assert_eq!(store.dump(), held, "publish wrote to the store");
}

#[test]
fn publish_keeps_a_line_that_is_no_bundle_and_refuses_only_a_note_too_large_to_read() {
    let w = world();
    let (git, base, reviewed, l) = reviewed_commit(&w);
    let store = WithAttestations::new(&w.store);
    // A line that is no bundle (stale, foreign, garbage): kept byte for
    // byte, since the notes ref only grows, and the bundle added beside it.
    git.write_notes(None, &[(reviewed.clone(), b"not a bundle\n".to_vec())], &[])
        .unwrap();
    let out = publish_range(&git, &store, &base, &reviewed);
    assert_eq!(out.written, vec![(reviewed.clone(), l.clone())]);
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    let mut line = bundle.to_bytes().unwrap();
    line.push(b'\n');
    let mut want = [line, b"not a bundle\n".to_vec()];
    want.sort();
    assert_eq!(git.note(&reviewed), Some(want.concat()));
    // A note over the size bound cannot be read whole: refused, nothing
    // moved.
    let big = vec![b'x'; probity_core::review::MAX_NOTE_BYTES + 1];
    let tip = git.notes_ref();
    git.write_notes(tip.as_ref(), &[(reviewed.clone(), big)], &[])
        .unwrap();
    let notes = (git.notes_ref(), git.all_notes());
    let err = drivers::publish(&git, &store, &reviewed, &[base], &RemoteScope::None).unwrap_err();
    match &err {
        TransportError::Note { commit, .. } => assert_eq!(commit, &reviewed),
        e => panic!("expected the note's refusal, got {e}"),
    }
    assert_eq!(err.code(), Some("input_too_large"), "{err}");
    assert_eq!((git.notes_ref(), git.all_notes()), notes);
}

#[test]
fn the_server_gate_accepts_a_reviewed_push_on_the_authority_its_notes_carry() {
    let w = world();
    let (git, base, tip, l, pushed) = reviewed_and_pushed(&w);
    git.advertise(&[(MAIN, base.clone())]);
    // The server's own store is never read: a scratch store, empty.
    let scratch = InMemoryStore::new();
    let updates = with_notes(&base, &tip, &pushed);
    let answer = at_hook(&git, &scratch, &updates);
    judged_as(answer, ("allow", "receipt_valid"));
    // What the gate imported is the lineage the notes carried, nothing of
    // the notes ref changed.
    assert_eq!(scratch.load(&l).unwrap(), w.store.load(&l).unwrap());
    assert_eq!(git.notes_ref(), None);
    // A new branch is measured from what the server advertises (its own
    // refs): the same reviewed commit, the same answer.
    let fresh = InMemoryStore::new();
    let answer = drivers::pre_receive(
        &git,
        &WithAttestations::new(&fresh),
        &[
            update(None, Some(&tip), "refs/heads/topic"),
            update(None, Some(&pushed), NOTES_REF),
        ],
        &hook_at(std::slice::from_ref(&base)),
        accept_all,
    )
    .unwrap();
    judged_as(answer, ("allow", "receipt_valid"));
}

#[test]
fn the_server_gate_denies_an_unreviewed_push_with_its_next_step() {
    let w = world();
    let (git, base, tip) = unreviewed_commit(&w);
    let scratch = InMemoryStore::new();
    let answer = at_hook(&git, &scratch, &[update(Some(&base), Some(&tip), MAIN)]);
    let json = judged_as(answer, ("deny", "receipt_missing"));
    assert_eq!(json["next_action"], "start_commit_review", "{json}");
    assert!(
        json["message"].as_str().unwrap().contains(tip.as_str()),
        "{json}"
    );
    assert!(scratch.dump().is_empty(), "no authority, nothing imported");
}

#[test]
fn a_tampered_note_is_refused_before_any_delivery_is_judged() {
    let w = world();
    let (git, base, tip, _, pushed) = reviewed_and_pushed(&w);
    let note = git.read_note(&pushed, &tip, usize::MAX).unwrap().unwrap();
    let forged = git
        .notes_commit(
            None,
            &[(tip.clone(), edited(&note, "read the diff", "read the code"))],
        )
        .unwrap();
    let scratch = InMemoryStore::new();
    let answer = at_hook(&git, &scratch, &with_notes(&base, &tip, &forged));
    let d = denied(answer);
    assert_eq!(d.reason_code, "bundle_digest_mismatch", "{d:?}");
    assert_eq!(
        (d.refname.as_str(), d.commit.as_ref()),
        (NOTES_REF, Some(&tip))
    );
    assert_eq!(d.next_action, "repair");
    assert!(
        scratch.dump().is_empty(),
        "a refused note imported authority"
    );
}

#[test]
fn a_foreign_bundle_in_the_notes_is_refused_objects_missing() {
    let w = world();
    let (git, base, tip, _) = reviewed_commit(&w);
    let note = note_with(&[], &[foreign_bundle()]).unwrap();
    let pushed = git.notes_commit(None, &[(tip.clone(), note)]).unwrap();
    let scratch = InMemoryStore::new();
    let answer = at_hook(&git, &scratch, &with_notes(&base, &tip, &pushed));
    let d = denied(answer);
    assert_eq!(d.reason_code, "objects_missing", "{d:?}");
    assert_eq!(d.commit.as_ref(), Some(&tip));
    assert!(scratch.dump().is_empty());
}

#[test]
fn the_notes_ref_may_only_fast_forward() {
    let w = world();
    let (git, base, tip, held, note) = published_and_held(&w);
    let scratch = InMemoryStore::new();
    let gate = |updates: &[ReceiveUpdate]| at_hook(&git, &scratch, updates);
    // The same note on a history that drops the server's: a rewrite.
    let rewritten = git.notes_commit(None, &[(base.clone(), note)]).unwrap();
    assert_ne!(rewritten, held);
    let d = denied(gate(&[update(Some(&held), Some(&rewritten), NOTES_REF)]));
    assert_eq!(
        (d.reason_code.as_str(), d.commit),
        ("notes_ref_rewritten", None)
    );
    assert_eq!(d.refname, NOTES_REF);
    let d = denied(gate(&[update(Some(&held), None, NOTES_REF)]));
    assert_eq!(d.reason_code, "notes_ref_deleted");
    assert!(scratch.dump().is_empty());
    // A fast-forward on top of the server's notes is accepted.
    let next = git.notes_commit(Some(&held), &[]).unwrap();
    judged_as(
        gate(&[
            update(Some(&base), Some(&tip), MAIN),
            update(Some(&held), Some(&next), NOTES_REF),
        ]),
        ("allow", "receipt_valid"),
    );
}

#[test]
fn a_fast_forward_may_add_lines_to_a_held_note_but_never_drop_one() {
    let w = world();
    let (git, base, tip, held, note) = published_and_held(&w);
    let scratch = InMemoryStore::new();
    let gate = |updates: &[ReceiveUpdate]| at_hook(&git, &scratch, updates);
    // The note replaced by another line: a fast-forward that drops one.
    let dropped = git
        .notes_commit(Some(&held), &[(tip.clone(), b"another line\n".to_vec())])
        .unwrap();
    let d = denied(gate(&[update(Some(&held), Some(&dropped), NOTES_REF)]));
    assert_eq!(
        (d.reason_code.as_str(), d.commit.as_ref()),
        ("notes_line_removed", Some(&tip))
    );
    assert!(scratch.dump().is_empty());
    // A line added: allowed, and the delivery still proven.
    let grown = git
        .notes_commit(
            Some(&held),
            &[(tip.clone(), [note, b"another line\n".to_vec()].concat())],
        )
        .unwrap();
    judged_as(
        gate(&[
            update(Some(&base), Some(&tip), MAIN),
            update(Some(&held), Some(&grown), NOTES_REF),
        ]),
        ("allow", "receipt_valid"),
    );
}

#[test]
fn two_reviews_of_one_commit_in_one_note_prove_it_and_the_second_is_reported() {
    let mut w = world();
    let base = w.git.head().unwrap();
    let first = w.approve().state().lineage_id().clone();
    // Another clone's store reviews the same candidate on its own.
    let other = std::mem::replace(&mut w.store, InMemoryStore::new());
    w.clock = FixedClock::fixture()
        .with_nonce("0123456789abcdef0123456789abcdef")
        .unwrap();
    let second = w.approve().state().lineage_id().clone();
    assert_ne!(second, first, "two reviews");
    let tip = w.git.commit("the reviewed change").unwrap();
    let one = drivers::export_bundle(&WithAttestations::new(&other), &first).unwrap();
    let two = drivers::export_bundle(&WithAttestations::new(&w.store), &second).unwrap();
    let note = note_with(&[], &[one, two]).unwrap();
    let refused = allowed_refusing_one(&w, &base, &tip, note);
    assert_eq!(
        (refused.reason_code.as_str(), &refused.commit),
        ("import_conflict", &tip)
    );
}

#[test]
fn an_unfinished_review_of_the_same_candidate_put_first_cannot_jam_the_approved_one() {
    let mut w = world();
    let base = w.git.head().unwrap();
    // Mallory's store starts a review of the same candidate and never
    // finishes it; its bundle verifies (a bundle may carry any state).
    let started = w.start().state().lineage_id().clone();
    let mallory = drivers::export_bundle(&WithAttestations::new(&w.store), &started).unwrap();
    // The genuine review, in another store.
    w.store = InMemoryStore::new();
    w.clock = FixedClock::fixture()
        .with_nonce("0123456789abcdef0123456789abcdef")
        .unwrap();
    let l = w.approve().state().lineage_id().clone();
    let tip = w.git.commit("the reviewed change").unwrap();
    let genuine = drivers::export_bundle(&WithAttestations::new(&w.store), &l).unwrap();
    // A note is read in any order: Mallory's line first.
    let note = [
        mallory.to_bytes().unwrap(),
        b"\n".to_vec(),
        genuine.to_bytes().unwrap(),
        b"\n".to_vec(),
    ]
    .concat();
    // The bundle that approves the commit is imported first: it proves
    // the delivery, and the unfinished one is reported.
    let refused = allowed_refusing_one(&w, &base, &tip, note);
    assert_eq!(
        (refused.reason_code.as_str(), refused.line),
        ("import_conflict", 1)
    );
}

#[test]
fn only_protected_refs_are_judged_at_the_hook_and_every_update_in_ci() {
    let w = world();
    let (git, base, tip) = unreviewed_commit(&w);
    let scratch = InMemoryStore::new();
    let store = WithAttestations::new(&scratch);
    let gate = |refname: &str, scope: &ReceiveScope| {
        let answer = drivers::pre_receive(
            &git,
            &store,
            &[update(Some(&base), Some(&tip), refname)],
            scope,
            accept_all,
        )
        .unwrap();
        let (decision, reason, _) = judged(answer);
        (decision, reason)
    };
    // The default protects every branch, and no tag.
    assert_eq!(gate(MAIN, &hook()), says("deny", "receipt_missing"));
    assert_eq!(gate("refs/heads/topic", &hook()).0, "deny");
    assert_eq!(
        gate("refs/tags/v1", &hook()),
        says("allow", "nothing_delivered")
    );
    git.protect(&["refs/heads/main", "refs/heads/release/*"]);
    assert_eq!(gate(MAIN, &hook()).0, "deny");
    assert_eq!(gate("refs/heads/release/1.0", &hook()).0, "deny");
    assert_eq!(
        gate("refs/heads/topic", &hook()),
        says("allow", "nothing_delivered")
    );
    // CI names the update it judges: protected or not, it is judged.
    assert_eq!(gate("refs/heads/topic", &ReceiveScope::Range).0, "deny");
    assert!(scratch.dump().is_empty());
}

#[test]
fn a_new_protected_ref_is_measured_against_the_default_branch_and_deletions_are_judged() {
    let w = world();
    let (git, base, parked) = unreviewed_commit(&w);
    // The server holds `main` at the base and a tag at the unreviewed
    // commit (tags are not protected by default).
    git.advertise(&[(MAIN, base.clone()), ("refs/tags/park", parked.clone())]);
    let scratch = InMemoryStore::new();
    let store = WithAttestations::new(&scratch);
    let scope = hook_at(std::slice::from_ref(&base));
    let gate = |updates: &[ReceiveUpdate]| {
        drivers::pre_receive(&git, &store, updates, &scope, accept_all).unwrap()
    };
    // A new protected branch at the parked commit delivers it: the tag
    // vouches for nothing.
    judged_as(
        gate(&[update(None, Some(&parked), "refs/heads/release")]),
        ("deny", "receipt_missing"),
    );
    // A new protected branch at what `main` holds delivers nothing new.
    judged_as(
        gate(&[update(None, Some(&base), "refs/heads/copy")]),
        ("allow", "nothing_delivered"),
    );
    // Deleting a protected ref is refused, naming it, before anything is
    // imported; an unprotected one may go; the server may allow it.
    let d = denied(gate(&[update(Some(&base), None, MAIN)]));
    assert_eq!(
        (
            d.reason_code.as_str(),
            d.refname.as_str(),
            d.commit.as_ref()
        ),
        ("protected_ref_deleted", MAIN, Some(&base))
    );
    judged_as(
        gate(&[update(Some(&parked), None, "refs/tags/park")]),
        ("allow", "nothing_delivered"),
    );
    git.allow_protected_deletion(true);
    let (decision, _, _) = judged(gate(&[update(Some(&base), None, MAIN)]));
    assert_eq!(decision, "allow");
    git.allow_protected_deletion(false);
    // Protected tags: a new tag's push is judged, and a protected tag
    // vouches for nothing beyond the default branch (red team round 36:
    // what it alone holds was judged under the signers of then), so a
    // new branch at what only the tag holds is judged too.
    git.protect(&["refs/heads/*", "refs/tags/*"]);
    judged_as(
        gate(&[update(None, Some(&parked), "refs/heads/release")]),
        ("deny", "receipt_missing"),
    );
    git.advertise(&[(MAIN, base.clone())]);
    judged_as(
        gate(&[update(None, Some(&parked), "refs/tags/v1")]),
        ("deny", "receipt_missing"),
    );
    git.advertise(&[(MAIN, base.clone()), ("refs/tags/park", parked.clone())]);
    let d = denied(gate(&[update(Some(&parked), None, "refs/tags/park")]));
    assert_eq!(d.reason_code, "protected_ref_deleted");
    assert!(scratch.dump().is_empty());
}

#[test]
fn a_bundle_the_signature_policy_refuses_is_no_authority() {
    let w = world();
    let (git, base, tip, l, pushed) = reviewed_and_pushed(&w);
    let scratch = InMemoryStore::new();
    let asked = std::cell::RefCell::new(Vec::new());
    let unsigned = |b: &Bundle| {
        asked.borrow_mut().push(b.lineage_id.clone());
        Err(ReceiveDenial {
            reason_code: "signature_missing".into(),
            refname: NOTES_REF.into(),
            commit: None,
            message: "not signed".into(),
            next_action: "sign",
        })
    };
    let answer = drivers::pre_receive(
        &git,
        &WithAttestations::new(&scratch),
        &with_notes(&base, &tip, &pushed),
        &hook(),
        unsigned,
    )
    .unwrap();
    let d = denied(answer);
    assert_eq!(asked.into_inner(), vec![l], "the policy saw the bundle");
    assert_eq!(
        (d.reason_code.as_str(), d.next_action),
        ("signature_missing", "sign")
    );
    assert_eq!(d.commit.as_ref(), Some(&tip), "the gate names the commit");
    assert!(scratch.dump().is_empty(), "refused authority was imported");
}

#[test]
fn the_pre_pr_gate_judges_a_proposal_on_the_notes_alone() {
    let w = world();
    let (git, base, tip, _) = reviewed_commit(&w);
    // The gate on the proposal `base..tip`, into a fresh scratch store:
    // its answer, and that store.
    let pr_gate = || {
        let scratch = InMemoryStore::new();
        let answer = drivers::pre_pr_from_notes(
            &git,
            &WithAttestations::new(&scratch),
            base.as_str(),
            tip.as_str(),
            accept_all,
        )
        .unwrap();
        (answer, scratch)
    };
    // No notes: nothing vouches for the proposal.
    let (answer, scratch) = pr_gate();
    let (pr, refused) = answer.unwrap();
    assert_eq!(verdict(&pr.decision), says("deny", "receipt_missing"));
    assert!(refused.is_empty());
    assert!(scratch.dump().is_empty());
    // Published: allowed on what the notes carry.
    publish_range(&git, &WithAttestations::new(&w.store), &base, &tip);
    let (pr, refused) = pr_gate().0.unwrap();
    assert_eq!(verdict(&pr.decision), says("allow", "receipt_valid"));
    assert!(refused.is_empty());
    assert!(pr.base_advance.is_none());
    // A note edited after publication is the answer, before any judgment.
    let note = git.note(&tip).unwrap();
    let forged = git
        .notes_commit(
            None,
            &[(tip.clone(), edited(&note, "read the diff", "read the code"))],
        )
        .unwrap();
    git.set_notes_ref(Some(forged));
    let (answer, scratch) = pr_gate();
    let d = answer.unwrap_err();
    assert_eq!(
        (d.reason_code.as_str(), d.commit.as_ref()),
        ("bundle_digest_mismatch", Some(&tip))
    );
    assert!(scratch.dump().is_empty());
}

#[test]
fn import_notes_reads_only_the_commits_it_is_given() {
    let w = world();
    let (git, base, tip, l) = reviewed_commit(&w);
    publish_range(&git, &WithAttestations::new(&w.store), &base, &tip);
    let notes = git.notes_ref().unwrap();
    let scratch = InMemoryStore::new();
    let store = WithAttestations::new(&scratch);
    // No notes commit, or a commit without a note: nothing to import.
    let tips = [tip.clone()];
    assert!(
        drivers::import_notes(&git, &store, None, &tips, &accept_all)
            .unwrap()
            .is_empty()
    );
    assert!(
        drivers::import_notes(
            &git,
            &store,
            Some(&notes),
            std::slice::from_ref(&base),
            &accept_all
        )
        .unwrap()
        .is_empty()
    );
    assert!(scratch.dump().is_empty());
    let read = drivers::import_notes(&git, &store, Some(&notes), &tips, &accept_all).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].commit(), &tip);
    assert!(read[0].counts() && read[0].refused().is_empty());
    assert_eq!(scratch.load(&l).unwrap(), w.store.load(&l).unwrap());
    // A notes commit this repository lacks is the repository's error.
    let err = drivers::import_notes(&git, &store, Some(&base), &tips, &accept_all).unwrap_err();
    assert_err!(err, TransportError::Review(ReviewError::Repository(_)));
}

#[test]
fn the_leaf_statement_is_what_attest_derives_and_only_for_a_terminal_leaf() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let store = WithAttestations::new(&w.store);
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    let statement = drivers::leaf_statement(&w.git, &bundle).unwrap();
    assert_eq!(
        statement,
        drivers::attest(&w.git, &w.store, &l).unwrap().statement
    );
    // A review still in progress vouches for nothing.
    let w = world();
    let started = w.start().state().lineage_id().clone();
    let bundle = drivers::export_bundle(&WithAttestations::new(&w.store), &started).unwrap();
    let err = drivers::leaf_statement(&w.git, &bundle).unwrap_err();
    assert_err!(err, TransportError::Review(ReviewError::NotTerminal { lineage, .. }) if *lineage == started);
}

/// Red team round 5 (attempt 21): one note's bytes on many commits of a
/// push (a 7.9 MiB note on each cost the hook about 50 ms a commit, up to
/// 1,000 commits a push) are parsed, checked against the repository and
/// judged by the signature policy once for all of them; each commit's
/// reading is its own, and a line that is no bundle is refused on each.
#[test]
fn a_note_shared_by_many_commits_is_judged_once() {
    let w = world();
    let (git, _base, tip, held, note) = published_and_held(&w);
    let mut shared = note.clone();
    shared.extend_from_slice(b"not a bundle\n");
    let mut commits = vec![tip.clone()];
    let mut notes = vec![(tip.clone(), shared.clone())];
    for i in 0..5 {
        let c = w.git.commit(&format!("more {i}")).unwrap();
        notes.push((c.clone(), shared.clone()));
        commits.push(c);
    }
    git.write_notes(Some(&held), &notes, &[]).unwrap();
    let tip_notes = git.notes_ref().unwrap();
    let asked = std::cell::Cell::new(0usize);
    let counting = |_: &Bundle| -> Result<(), ReceiveDenial> {
        asked.set(asked.get() + 1);
        Ok(())
    };
    let scratch = InMemoryStore::new();
    let read = drivers::import_notes(
        &git,
        &WithAttestations::new(&scratch),
        Some(&tip_notes),
        &commits,
        &counting,
    )
    .unwrap();
    assert_eq!(
        asked.get(),
        1,
        "the policy is asked once per note's lineage and records"
    );
    assert_eq!(read.len(), commits.len());
    for (r, c) in read.iter().zip(&commits) {
        assert_eq!(r.commit(), c);
        assert!(r.counts(), "{c}: {:?}", r.refused());
        let refused: Vec<(&str, &str)> = r
            .refused()
            .iter()
            .map(|b| (b.reason_code.as_str(), b.message.as_str()))
            .collect();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(refused[0].1.contains(c.as_str()), "{refused:?}");
    }
}
