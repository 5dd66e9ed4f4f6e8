//! Attestations on in-memory adapters: `attest` (the receipt as an in-toto
//! statement), `sign_statement`, `verify_envelope` and
//! `check_attestations` over the testkit's fake SSH port, and signed
//! envelopes kept by an `AttestationStore`, carried in bundles and checked
//! by the server-side gate's signature policy.

mod common;

use std::path::PathBuf;

use common::*;
use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::Receipt;
use probity_core::review::parse_envelope;
use probity_core::review::{Bundle, DsseEnvelope, parse_note};
use probity_core::review::{CommitId, LineageId};
use probity_core::review::{NAMESPACE, PAYLOAD_TYPE, SshSig, envelope_bytes, statement_pae};
use probity_core::review::{NOTES_REF, ReceiveUpdate};
use probity_core::review::{PREDICATE_TYPE, STATEMENT_TYPE};
use probity_ports::review::{
    self as drivers, AttestationStore, PreReceive, ReceiveDenial, ReceiveScope, RecordStore,
    ReviewError, SignatureError, SignaturePolicy, StoreError,
};
use probity_testkit::{
    AllowedFile, FAKE_KEY_TYPE, FakeGit, FakeKey, FakeSsh, InMemoryStore, WithAttestations,
    WithNotes, verdict,
};
use serde_json::Value;

const SIGNERS: &str = "/etc/probity/allowed_signers";

fn policy(required: bool) -> SignaturePolicy {
    SignaturePolicy {
        require_signature: required,
        allowed_signers: Some(PathBuf::from(SIGNERS)),
    }
}

fn alice() -> FakeKey {
    FakeKey::new("alice")
}

/// Signs with alice's key; the allowed-signers file lists her.
fn port() -> FakeSsh {
    FakeSsh::new()
        .signing_with(&alice())
        .allowing(SIGNERS, "alice@example.org", &alice())
}

/// An approved lineage and its statement.
fn attested(w: &World) -> (LineageId, Vec<u8>) {
    let l = w.approve().state().lineage_id().clone();
    let statement = drivers::attest(&w.git, &w.store, &l).unwrap().statement;
    (l, statement)
}

/// An envelope whose one signature is `sig`.
fn envelope_with(statement: &[u8], sig: &SshSig) -> Vec<u8> {
    envelope_bytes(statement, sig).unwrap()
}

#[test]
fn attest_states_the_receipt_over_the_candidate_manifest_and_writes_nothing() {
    let (w, approved, l) = approved();
    let held = w.store.dump();
    let a = drivers::attest(&w.git, &w.store, &l).unwrap();
    let s: Value = serde_json::from_slice(&a.statement).unwrap();
    assert_eq!(s["_type"], STATEMENT_TYPE);
    assert_eq!(s["predicateType"], PREDICATE_TYPE);
    let receipt = Receipt::derive(approved.state()).unwrap();
    assert_eq!(s["predicate"], serde_json::to_value(&receipt).unwrap());
    assert_eq!(
        s["subject"][0]["digest"]["sha256"],
        Sha256Digest::plain(&a.manifest).hex()
    );
    assert_eq!(
        s["subject"][1]["digest"]["gitTree"],
        approved.state().final_candidate_tree().as_str()
    );
    let m: Value = serde_json::from_slice(&a.manifest).unwrap();
    assert_eq!(m["entries"][0]["path"], "src/a.rs");
    assert_eq!(m["entries"].as_array().unwrap().len(), 1);
    // Canonical bytes: the statement is what a signer signs, byte for byte.
    assert_eq!(canonical_bytes(&s).unwrap(), a.statement);
    assert_eq!(w.store.dump(), held, "attest wrote to the store");
}

#[test]
fn attest_refuses_a_review_that_is_not_terminal_or_not_here() {
    let (w, l) = started();
    let held = w.store.dump();
    let err = drivers::attest(&w.git, &w.store, &l).unwrap_err();
    assert_err!(err, ReviewError::NotTerminal { lineage, state } if *lineage == l && *state == "reviewing");
    let unknown = LineageId::parse("review-0000000000000000").unwrap();
    let err = drivers::attest(&w.git, &w.store, &unknown).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::NotFound(_)));
    assert_eq!(w.store.dump(), held);
    // An approval made elsewhere, imported: its trees are not here.
    let elsewhere = elsewhere();
    let foreign = elsewhere.approve().state().lineage_id().clone();
    let bundle =
        drivers::export_bundle(&WithAttestations::new(&elsewhere.store), &foreign).unwrap();
    drivers::import_bundle(&WithAttestations::new(&w.store), &bundle).unwrap();
    let held = w.store.dump();
    let err = drivers::attest(&w.git, &w.store, &foreign).unwrap_err();
    assert_err!(err, ReviewError::ObjectsMissing { lineage, .. } if *lineage == foreign);
    assert_eq!(w.store.dump(), held);
}

#[test]
fn a_signed_statement_verifies_for_its_allowed_signer() {
    let w = world();
    let (_, statement) = attested(&w);
    let port = port();
    let envelope = drivers::sign_statement(&port, &statement).unwrap();
    let parsed = parse_envelope(&envelope).unwrap();
    assert_eq!(parsed.payload, statement);
    assert_eq!(parsed.signatures.len(), 1);
    assert_eq!(parsed.signatures[0].namespace, NAMESPACE);
    assert_eq!(parsed.signatures[0].fingerprint(), alice().fingerprint());
    let signer = drivers::verify_envelope(&port, &envelope, &statement, &policy(false)).unwrap();
    assert_eq!(signer.principal, "alice@example.org");
    assert_eq!(signer.keyid, alice().fingerprint());
    assert_eq!(signer.key_type, FAKE_KEY_TYPE);
    // A verifier that holds only the allowed-signers file, not the key.
    let verifier = FakeSsh::new().allowing(SIGNERS, "alice@example.org", &alice());
    let again = drivers::verify_envelope(&verifier, &envelope, &statement, &policy(true)).unwrap();
    assert_eq!(again, signer);
}

#[test]
fn signing_refuses_what_the_tool_printed_unless_it_is_a_probity_signature() {
    let statement = b"{\"s\":1}";
    // No key: the tool's failure, not a signature.
    let err = drivers::sign_statement(&FakeSsh::new(), statement).unwrap_err();
    assert_err!(err, SignatureError::Tool(_));
    assert_eq!(err.code(), "signing_tool");
    assert!(!err.is_denial());
    let err = drivers::sign_statement(&port().failing(), statement).unwrap_err();
    assert_eq!(err.code(), "signing_tool");
    // Something that is not an armored SSHSIG.
    let err =
        drivers::sign_statement(&port().printing(b"Signing file -\n"), statement).unwrap_err();
    assert_err!(err, SignatureError::BadSignerOutput(_));
    assert_eq!(err.code(), "bad_signature_output");
    // A signature, made in another namespace: never an attestation.
    let err = drivers::sign_statement(&port().signing_in("git"), statement).unwrap_err();
    match &err {
        SignatureError::BadSignerOutput(why) => assert!(why.contains("`git`"), "{why}"),
        e => panic!("expected bad_signature_output, got {e}"),
    }
}

#[test]
fn verification_answers_in_its_order_each_refusal_typed() {
    let w = world();
    let (_, statement) = attested(&w);
    let held = w.store.dump();
    let envelope = drivers::sign_statement(&port(), &statement).unwrap();
    let verify = |port: &FakeSsh, env: &[u8], stmt: &[u8], policy: &SignaturePolicy| {
        drivers::verify_envelope(port, env, stmt, policy).unwrap_err()
    };
    // 1. No allowed-signers file, or one that cannot be used: before any
    //    ssh-keygen run.
    let p = port();
    let none = SignaturePolicy::default();
    let err = verify(&p, &envelope, &statement, &none);
    assert_err!(err, SignatureError::NoAllowedSigners);
    for (file, code) in [
        (AllowedFile::NotRegular, "input_not_regular"),
        (AllowedFile::TooLarge, "input_too_large"),
        (AllowedFile::Unreadable, "unreadable_input"),
    ] {
        let p = FakeSsh::new().with_file(SIGNERS, file);
        let err = verify(&p, &envelope, &statement, &policy(false));
        assert_err!(err, SignatureError::AllowedSigners(_));
        assert_eq!(err.code(), code);
        assert_eq!(p.runs(), 0, "ssh-keygen ran before the file was checked");
    }
    // 2. Not an envelope.
    let err = verify(&p, b"{\"payload\":", &statement, &policy(false));
    assert_eq!(err.code(), "bad_envelope", "{err}");
    // 3. No signature.
    let unsigned = canonical_bytes(&DsseEnvelope {
        payload_type: PAYLOAD_TYPE.into(),
        payload: probity_core::review::base64(&statement),
        signatures: Vec::new(),
    })
    .unwrap();
    let err = verify(&p, &unsigned, &statement, &policy(false));
    assert_err!(err, SignatureError::Missing);
    // 4. Another statement than the one derived here.
    let err = verify(&p, &envelope, b"{\"s\":2}", &policy(false));
    assert_err!(err, SignatureError::Invalid(_));
    // 5. Per signature: another namespace, a signature over other bytes,
    //    a key the file does not list or no longer allows.
    let git_ns = envelope_with(
        &statement,
        &alice().signature("git", &statement_pae(&statement)),
    );
    let err = verify(&p, &git_ns, &statement, &policy(false));
    assert_eq!(err.code(), "signature_invalid", "{err}");
    let bare = envelope_with(&statement, &alice().signature("probity", &statement));
    let err = verify(&p, &bare, &statement, &policy(false));
    assert_eq!(err.code(), "signature_invalid", "{err}");
    let mallory = FakeKey::new("mallory");
    let by_mallory =
        drivers::sign_statement(&FakeSsh::new().signing_with(&mallory), &statement).unwrap();
    let err = verify(&p, &by_mallory, &statement, &policy(false));
    match &err {
        SignatureError::SignerNotAllowed {
            keyid,
            allowed_signers,
        } => {
            assert_eq!(keyid, &mallory.fingerprint());
            assert_eq!(allowed_signers, SIGNERS);
        }
        e => panic!("expected signer_not_allowed, got {e}"),
    }
    assert!(err.is_denial());
    let expired = FakeSsh::new().allowing_expired(SIGNERS, "alice@example.org", &alice());
    let err = verify(&expired, &envelope, &statement, &policy(false));
    assert_eq!(err.code(), "signer_not_allowed", "{err}");
    // A tool that cannot run is an error, never a denial.
    let err = verify(&port().failing(), &envelope, &statement, &policy(false));
    assert!(
        matches!(err, SignatureError::Tool(_)) && !err.is_denial(),
        "{err}"
    );
    assert_eq!(w.store.dump(), held, "verification wrote to the store");
}

#[test]
fn a_gate_checks_signatures_only_when_required_and_any_envelope_may_vouch() {
    let w = world();
    let (_, statement) = attested(&w);
    let p = port();
    let good = drivers::sign_statement(&p, &statement).unwrap();
    let other = drivers::sign_statement(
        &FakeSsh::new().signing_with(&FakeKey::new("mallory")),
        &statement,
    )
    .unwrap();
    let runs = p.runs();
    // Not required: nothing is checked, whatever is carried.
    let none = drivers::check_attestations(&p, &[b"junk"], &statement, &policy(false)).unwrap();
    assert_eq!(none, None);
    assert_eq!(p.runs(), runs, "an unrequired check ran ssh-keygen");
    // Required: none carried is missing; the first that vouches answers.
    let err = drivers::check_attestations(&p, &[], &statement, &policy(true)).unwrap_err();
    assert_eq!(err.code(), "signature_missing");
    let both: [&[u8]; 2] = [&other, &good];
    let signer = drivers::check_attestations(&p, &both, &statement, &policy(true))
        .unwrap()
        .unwrap();
    assert_eq!(signer.principal, "alice@example.org");
    // None vouches: the first envelope's refusal answers.
    let err = drivers::check_attestations(&p, &both[..1], &statement, &policy(true)).unwrap_err();
    assert_eq!(err.code(), "signer_not_allowed");
}

/// The gate's signature policy as `probity validate --gate pre-receive`
/// builds it: each bundle's envelopes checked against the leaf statement
/// this repository derives.
fn signature_policy<'a>(
    git: &'a WithNotes<'a, FakeGit>,
    port: &'a FakeSsh,
) -> impl Fn(&Bundle) -> Result<(), ReceiveDenial> + 'a {
    move |bundle: &Bundle| {
        let deny = |code: &str, message: String| ReceiveDenial {
            reason_code: code.into(),
            refname: NOTES_REF.into(),
            commit: None,
            message,
            next_action: "sign",
        };
        let statement = drivers::leaf_statement(git, bundle)
            .map_err(|e| deny("authority_invalid", e.to_string()))?;
        let envelopes: Vec<Vec<u8>> = bundle
            .attestations
            .iter()
            .map(|e| canonical_bytes(e).unwrap())
            .collect();
        let refs: Vec<&[u8]> = envelopes.iter().map(Vec::as_slice).collect();
        drivers::check_attestations(port, &refs, &statement, &policy(true))
            .map(|_| ())
            .map_err(|e| deny(e.code(), e.to_string()))
    }
}

fn push(
    git: &WithNotes<'_, FakeGit>,
    base: &CommitId,
    tip: &CommitId,
    notes: &CommitId,
    port: &FakeSsh,
) -> (PreReceive, InMemoryStore) {
    let scratch = InMemoryStore::new();
    let updates = [
        ReceiveUpdate {
            old: Some(base.clone()),
            new: Some(tip.clone()),
            refname: "refs/heads/main".into(),
        },
        ReceiveUpdate {
            old: None,
            new: Some(notes.clone()),
            refname: NOTES_REF.into(),
        },
    ];
    let answer = drivers::pre_receive(
        git,
        &WithAttestations::new(&scratch),
        &updates,
        &ReceiveScope::Hook {
            remote: "/srv/repo.git".into(),
            default_branch: Vec::new(),
        },
        signature_policy(git, port),
    )
    .unwrap();
    (answer, scratch)
}

#[test]
fn signed_envelopes_travel_with_the_bundle_and_satisfy_the_server_gate() {
    let w = world();
    let base = w.git.head().unwrap();
    let (l, statement) = attested(&w);
    let tip = w.git.commit("the reviewed change").unwrap();
    let git = WithNotes::new(&w.git);
    let store = WithAttestations::new(&w.store);
    let server = FakeSsh::new().allowing(SIGNERS, "alice@example.org", &alice());
    // Published unsigned first: the server requires a signature.
    publish_range(&git, &store, &base, &tip);
    let unsigned_notes = git.notes_ref().unwrap();
    let (answer, scratch) = push(&git, &base, &tip, &unsigned_notes, &server);
    match answer {
        PreReceive::Denied(d) => {
            assert_eq!(
                (d.reason_code.as_str(), d.next_action),
                ("signature_missing", "sign")
            );
            assert_eq!(d.commit, Some(tip.clone()));
        }
        PreReceive::Judged(d, _) => panic!("an unsigned review was judged: {:?}", verdict(&d)),
    }
    assert!(scratch.dump().is_empty(), "refused authority was imported");
    // Signed and kept with the lineage: the bundle carries the envelope.
    let envelope = drivers::sign_statement(&port(), &statement).unwrap();
    let env: DsseEnvelope = serde_json::from_slice(&envelope).unwrap();
    store
        .add_attestations(&l, std::slice::from_ref(&env))
        .unwrap();
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    assert_eq!(bundle.attestations, vec![env.clone()]);
    // Published again: the note holds the unsigned bundle and its signed
    // twin; the signed one is the authority.
    let out = publish_range(&git, &store, &base, &tip);
    assert_eq!(out.written, vec![(tip.clone(), l.clone())]);
    let note = parse_note(&git.note(&tip).unwrap()).unwrap();
    assert_eq!(note.len(), 2);
    assert!(note.contains(&bundle));
    let signed_notes = git.notes_ref().unwrap();
    git.set_notes_ref(None);
    let (answer, scratch) = push(&git, &base, &tip, &signed_notes, &server);
    match answer {
        PreReceive::Judged(d, _) => assert_eq!(verdict(&d), says("allow", "receipt_valid")),
        PreReceive::Denied(d) => panic!("a signed review was denied: {d:?}"),
    }
    // The scratch store kept the envelope with the imported lineage.
    let kept = WithAttestations::new(&scratch);
    drivers::import_bundle(&kept, &bundle).unwrap();
    assert_eq!(kept.attestations(&l).unwrap(), vec![env]);
    assert_eq!(scratch.load(&l).unwrap(), w.store.load(&l).unwrap());
    // Signed by a key the server does not allow: denied, nothing imported.
    let strict = FakeSsh::new().allowing(SIGNERS, "bob@example.org", &FakeKey::new("bob"));
    let (answer, scratch) = push(&git, &base, &tip, &signed_notes, &strict);
    match answer {
        PreReceive::Denied(d) => assert_eq!(d.reason_code, "signer_not_allowed"),
        PreReceive::Judged(d, _) => panic!("an unallowed signer was judged: {:?}", verdict(&d)),
    }
    assert!(scratch.dump().is_empty());
}

#[test]
fn an_imported_bundle_keeps_its_envelopes_for_the_next_export() {
    let w = world();
    let (l, statement) = attested(&w);
    let store = WithAttestations::new(&w.store);
    let env: DsseEnvelope =
        serde_json::from_slice(&drivers::sign_statement(&port(), &statement).unwrap()).unwrap();
    store
        .add_attestations(&l, &[env.clone(), env.clone()])
        .unwrap();
    assert_eq!(
        store.attestations(&l).unwrap(),
        vec![env.clone()],
        "de-duplicated"
    );
    let bundle = drivers::export_bundle(&store, &l).unwrap();
    let other = InMemoryStore::new();
    let imported = WithAttestations::new(&other);
    drivers::import_bundle(&imported, &bundle).unwrap();
    assert_eq!(imported.attestations(&l).unwrap(), vec![env]);
    // Re-exported from where it was imported: the same bytes.
    assert_eq!(
        drivers::export_bundle(&imported, &l)
            .unwrap()
            .to_bytes()
            .unwrap(),
        bundle.to_bytes().unwrap()
    );
    let held = imported.dump();
    drivers::import_bundle(&imported, &bundle).unwrap();
    assert_eq!(imported.dump(), held, "a repeated import wrote");
    // More envelopes than a lineage may keep: refused, nothing kept.
    let many: Vec<DsseEnvelope> = (0..probity_core::review::MAX_ATTESTATIONS)
        .map(|i| {
            let key = FakeKey::new(&format!("key-{i}"));
            serde_json::from_slice(
                &drivers::sign_statement(&FakeSsh::new().signing_with(&key), &statement).unwrap(),
            )
            .unwrap()
        })
        .collect();
    let err = imported.add_attestations(&l, &many).unwrap_err();
    assert_err!(err, StoreError::Malformed { .. });
    assert_eq!(imported.dump(), held);
}
