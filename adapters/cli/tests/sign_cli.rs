//! Signed attestations: `probity attest --sign` and `probity attest verify`,
//! with ed25519 keys generated in the test, and envelopes checked by
//! `ssh-keygen -Y verify` itself (an independent implementation).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use probity_core::review::base64;
use probity_core::review::{MAX_ENVELOPE_BYTES, armor, dearmor, decode_base64};
use serde_json::Value;
use support::{
    allowed, approve_live, keygen, medium_change, output_ok, probity, probity_in, public,
    store_snapshot, string_at,
};

/// The store without the envelopes `attest --sign` keeps with a lineage
/// (its only write): the authority itself, byte for byte.
fn authority(f: &probity_git::fixture::Fixture) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut s = store_snapshot(f);
    s.retain(|p, _| !p.to_string_lossy().contains("/attestations/"));
    s
}

/// `ssh-keygen -Y verify` over `message` for `principal`.
fn ssh_verify(
    dir: &Path,
    allowed: &Path,
    principal: &str,
    sig_blob: &[u8],
    message: &[u8],
) -> bool {
    let sig = dir.join("check.sig");
    std::fs::write(&sig, armor(sig_blob)).unwrap();
    let msg = dir.join("check.msg");
    std::fs::write(&msg, message).unwrap();
    Command::new("ssh-keygen")
        .args(["-Y", "verify", "-n", "probity", "-I", principal, "-f"])
        .arg(allowed)
        .arg("-s")
        .arg(&sig)
        .stdin(std::fs::File::open(&msg).unwrap())
        .output()
        .unwrap()
        .status
        .success()
}

/// A fixture with one approved lineage; returns it and its id.
fn approved() -> (probity_git::fixture::Fixture, tempfile::TempDir, String) {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let done = approve_live(f.root(), tmp.path());
    let lineage = string_at(&done, "lineage_id");
    (f, tmp, lineage)
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn verify(f: &Path, envelope: &str, extra: &[&str]) -> support::Run {
    let mut args = vec!["attest", "verify", "--envelope", envelope];
    args.extend_from_slice(extra);
    probity(f, &args)
}

/// `git config KEY VALUE` in the fixture.
fn config(f: &probity_git::fixture::Fixture, key: &str, value: &Path) {
    f.git(&["config", key, value.to_str().unwrap()]).unwrap();
}

/// `probity attest --lineage LINEAGE --sign`.
fn sign(f: &probity_git::fixture::Fixture, lineage: &str) -> support::Run {
    probity(f.root(), &["attest", "--lineage", lineage, "--sign"])
}

/// Alice's key made in `dir`, the only allowed signer, configured as this
/// repository's signing key and allowed signers: (key, allowed signers).
fn alice_signs(f: &probity_git::fixture::Fixture, dir: &Path) -> (PathBuf, PathBuf) {
    let alice = keygen(dir, "alice");
    let list = allowed(dir, &[("alice", &alice)]);
    config(f, "probity.allowedSignersFile", &list);
    config(f, "probity.signingKey", &alice);
    (alice, list)
}

/// Asserts the run is the refusal `error` with exit `exit`.
fn assert_error(r: &support::Run, exit: i32, error: &str) {
    assert_eq!(r.code, exit, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], error, "{}", r.stdout);
}

/// The envelope `stdout` (written to `dir/env.json`) verifies against the
/// allowed signers `list` as signed by `principal`.
fn assert_verifies_as(
    f: &Path,
    dir: &Path,
    stdout: impl AsRef<[u8]>,
    list: &Path,
    principal: &str,
) {
    let file = write(dir, "env.json", stdout);
    let v = verify(f, &file, &["--allowed-signers", list.to_str().unwrap()]);
    assert_eq!(v.json["decision"], "allow", "{}", v.stdout);
    assert_eq!(v.json["signer"]["principal"], principal);
}

#[test]
fn a_signed_attestation_verifies_with_ssh_keygen_itself() {
    let (f, tmp, lineage) = approved();
    let key = keygen(tmp.path(), "alice");
    config(&f, "probity.signingKey", &key);
    let before = authority(&f);

    let statement = probity(f.root(), &["attest", "--lineage", &lineage]);
    assert_eq!(statement.code, 0, "{}", statement.stderr);
    let signed = sign(&f, &lineage);
    assert_eq!(signed.code, 0, "{}", signed.stderr);
    // The envelope is canonical JSON, no trailing newline.
    assert!(!signed.stdout.ends_with('\n'));
    let env = &signed.json;
    assert_eq!(env["payloadType"], "application/vnd.in-toto+json");
    let payload = decode_base64(env["payload"].as_str().unwrap()).unwrap();
    assert_eq!(
        payload,
        statement.stdout.as_bytes(),
        "exactly attest's bytes"
    );
    let sigs = env["signatures"].as_array().unwrap();
    assert_eq!(sigs.len(), 1);
    let blob = decode_base64(sigs[0]["sig"].as_str().unwrap()).unwrap();
    // keyid is the key's fingerprint as ssh-keygen -l prints it.
    let fp = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(key.with_extension("pub"))
        .output()
        .unwrap();
    let fp = String::from_utf8_lossy(&fp.stdout);
    assert_eq!(
        sigs[0]["keyid"].as_str().unwrap(),
        fp.split_whitespace().nth(1).unwrap()
    );

    // ssh-keygen verifies the signature over the PAE, and only over it.
    let list = allowed(tmp.path(), &[("alice@example.com", &key)]);
    let pae = [
        b"DSSEv1 28 application/vnd.in-toto+json ".as_slice(),
        payload.len().to_string().as_bytes(),
        b" ",
        &payload,
    ]
    .concat();
    assert!(ssh_verify(
        tmp.path(),
        &list,
        "alice@example.com",
        &blob,
        &pae
    ));
    assert!(!ssh_verify(
        tmp.path(),
        &list,
        "alice@example.com",
        &blob,
        &payload
    ));

    // probity attest verify agrees, with the lineage given or read from it.
    let file = write(tmp.path(), "env.json", &signed.stdout);
    config(&f, "probity.allowedSignersFile", &list);
    for extra in [vec![], vec!["--lineage", lineage.as_str()]] {
        let v = verify(f.root(), &file, &extra);
        assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
        assert_eq!(v.json["decision"], "allow");
        assert_eq!(v.json["reason_code"], "signature_valid");
        assert_eq!(v.json["signer"]["principal"], "alice@example.com");
        assert_eq!(v.json["signer"]["keyid"], sigs[0]["keyid"]);
        assert_eq!(v.json["lineage_id"], lineage.as_str());
    }
    assert_eq!(
        before,
        authority(&f),
        "signing and verifying change no authority"
    );
    // The envelope is kept with the lineage, for bundles and notes.
    let kept = store_snapshot(&f)
        .into_iter()
        .find(|(p, _)| p.to_string_lossy().contains("/attestations/"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .expect("the envelope is kept");
    assert!(
        kept.contains(signed.json["signatures"][0]["sig"].as_str().unwrap()),
        "{kept}"
    );
    // No temporary signature or key file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(f.root().join(".git"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("probity-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn git_s_ssh_signing_key_is_the_fallback() {
    let (f, tmp, lineage) = approved();
    let key = keygen(tmp.path(), "bob");
    // user.signingKey counts only when gpg.format=ssh.
    config(&f, "user.signingKey", &key);
    assert_error(&sign(&f, &lineage), 5, "signing_key_missing");
    f.git(&["config", "gpg.format", "ssh"]).unwrap();
    let signed = sign(&f, &lineage);
    assert_eq!(signed.code, 0, "{}", signed.stdout);
    let list = allowed(tmp.path(), &[("bob", &key)]);
    assert_verifies_as(f.root(), tmp.path(), &signed.stdout, &list, "bob");
}

#[test]
fn unsigned_wrongly_signed_unlisted_and_other_bytes_are_denied() {
    let (f, tmp, lineage) = approved();
    let mallory = keygen(tmp.path(), "mallory");
    let (alice, list) = alice_signs(&f, tmp.path());
    let good = sign(&f, &lineage);
    assert_eq!(good.code, 0, "{}", good.stdout);
    let env: Value = good.json.clone();
    let before = authority(&f);
    let deny = |name: &str, doc: &Value, code: &str| {
        let file = write(tmp.path(), name, doc.to_string());
        let v = verify(f.root(), &file, &["--lineage", &lineage]);
        assert_eq!(v.code, 1, "{name}: {}{}", v.stdout, v.stderr);
        assert_eq!(v.json["decision"], "deny", "{name}");
        assert_eq!(v.json["reason_code"], code, "{name}: {}", v.stdout);
        assert!(!v.json["next_action"].as_str().unwrap().is_empty());
    };

    // Unsigned.
    let mut unsigned = env.clone();
    unsigned["signatures"] = serde_json::json!([]);
    deny("unsigned.json", &unsigned, "signature_missing");

    // Alice's signature, in namespace `ns`, over other bytes (the allowed
    // signers file), put on this envelope.
    let resigned = |ns: &str| {
        let out = Command::new("ssh-keygen")
            .args(["-Y", "sign", "-n", ns, "-f"])
            .arg(&alice)
            .stdin(std::fs::File::open(list.as_path()).unwrap())
            .output()
            .unwrap();
        let sig = dearmor(&out.stdout).unwrap();
        let mut e = env.clone();
        e["signatures"][0]["sig"] = base64(&sig.blob).into();
        e
    };
    // Wrongly signed: alice's signature over other bytes, put on this one.
    deny("wrongly.json", &resigned("probity"), "signature_invalid");
    // A signature made in another namespace (e.g. git's own) never counts.
    deny("namespace.json", &resigned("git"), "signature_invalid");

    // Signed by a key the allowed signers do not list.
    config(&f, "probity.signingKey", &mallory);
    let by_mallory = sign(&f, &lineage);
    assert_eq!(by_mallory.code, 0);
    deny("mallory.json", &by_mallory.json, "signer_not_allowed");

    // Signed over other bytes: the payload edited, the signature kept.
    let payload = decode_base64(env["payload"].as_str().unwrap()).unwrap();
    let mut stmt: Value = serde_json::from_slice(&payload).unwrap();
    stmt["predicate"]["terminal_state"] = "approved ".into();
    let mut edited = env.clone();
    edited["payload"] = base64(stmt.to_string().as_bytes()).into();
    deny("edited.json", &edited, "signature_invalid");
    assert_eq!(before, authority(&f));
}

#[test]
fn an_envelope_for_another_lineage_is_denied() {
    let (f, tmp, first) = approved();
    alice_signs(&f, tmp.path());
    let signed = sign(&f, &first);
    assert_eq!(signed.code, 0);
    f.commit_all("reviewed").unwrap();
    f.write("src/other.rs", "fn other() {}\n").unwrap();
    let second = approve_live(f.root(), tmp.path());
    let second = second["lineage_id"].as_str().unwrap();
    let file = write(tmp.path(), "first.json", &signed.stdout);
    // Valid for the first lineage, signed over other bytes for the second.
    assert_eq!(verify(f.root(), &file, &["--lineage", &first]).code, 0);
    let v = verify(f.root(), &file, &["--lineage", second]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(v.json["reason_code"], "signature_invalid");
}

#[test]
fn bad_envelopes_and_signing_failures_are_typed_errors_that_write_nothing() {
    let (f, tmp, lineage) = approved();
    let key = keygen(tmp.path(), "alice");
    let list = allowed(tmp.path(), &[("alice", &key)]);
    let before = authority(&f);
    let manifest = tmp.path().join("manifest.json");
    let manifest_s = manifest.to_str().unwrap();

    let sign_with_manifest = || {
        let args = ["attest", "--lineage", &lineage, "--sign"];
        probity(
            f.root(),
            &[&args[..], &["--manifest-out", manifest_s]].concat(),
        )
    };
    // --sign without a key: nothing printed, no manifest written.
    assert_error(&sign_with_manifest(), 5, "signing_key_missing");
    assert!(!manifest.exists());

    // A key file that is not a key: ssh-keygen fails, a typed error.
    let not_key = write(tmp.path(), "not-a-key", "hello\n");
    f.git(&["config", "probity.signingKey", &not_key]).unwrap();
    assert_error(&sign_with_manifest(), 7, "signing_tool");
    assert!(!manifest.exists());

    config(&f, "probity.signingKey", &key);
    let good = sign(&f, &lineage);
    assert_eq!(good.code, 0);

    // No allowed signers configured.
    let file = write(tmp.path(), "good.json", &good.stdout);
    assert_error(&verify(f.root(), &file, &[]), 5, "allowed_signers_missing");
    config(&f, "probity.allowedSignersFile", &list);

    let bad = |name: &str, bytes: &[u8]| {
        let file = write(tmp.path(), name, bytes);
        let v = verify(f.root(), &file, &["--lineage", &lineage]);
        assert_eq!(v.code, 3, "{name}: {}", v.stdout);
        assert_eq!(
            v.json["error"]["code"], "bad_envelope",
            "{name}: {}",
            v.stdout
        );
    };
    let bytes = good.stdout.as_bytes();
    bad("truncated.json", &bytes[..bytes.len() - 10]);
    bad("empty.json", b"");
    let mut huge = bytes.to_vec();
    huge.resize(MAX_ENVELOPE_BYTES + 1, b' ');
    bad("huge.json", &huge);
    let mut not_sig = good.json.clone();
    not_sig["signatures"][0]["sig"] = base64(b"-----BEGIN PGP SIGNATURE-----").into();
    bad("not-sig.json", not_sig.to_string().as_bytes());
    let mut other_type = good.json.clone();
    other_type["payloadType"] = "application/json".into();
    bad("type.json", other_type.to_string().as_bytes());
    // Without --lineage, a payload that is not a Probity statement.
    let mut foreign = good.json.clone();
    foreign["payload"] = base64(b"{}").into();
    let file = write(tmp.path(), "foreign.json", foreign.to_string());
    assert_error(&verify(f.root(), &file, &[]), 3, "bad_envelope");
    // A missing envelope file: rejected input, as every input document.
    let missing = verify(f.root(), tmp.path().join("nope").to_str().unwrap(), &[]);
    assert_eq!(missing.code, 3);
    assert_eq!(missing.json["error"]["code"], "unreadable_input");

    assert_eq!(before, authority(&f), "the store is byte-identical");
}

/// An `ssh-agent` for one test, ended (by its pid) when dropped.
struct Agent {
    child: std::process::Child,
    sock: PathBuf,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent(dir: &Path) -> Agent {
    let sock = dir.join("agent.sock");
    let child = Command::new("ssh-agent")
        .arg("-D")
        .arg("-a")
        .arg(&sock)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run ssh-agent");
    let started = std::time::Instant::now();
    while !sock.exists() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "ssh-agent did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Agent { child, sock }
}

#[test]
fn a_literal_key_signs_through_the_agent() {
    let (f, tmp, lineage) = approved();
    let key = keygen(tmp.path(), "carol");
    let a = agent(tmp.path());
    output_ok(
        Command::new("ssh-add")
            .arg("-q")
            .arg(&key)
            .env("SSH_AUTH_SOCK", &a.sock),
    );
    // git's literal form: the public key; the agent holds the private half.
    std::fs::remove_file(&key).unwrap();
    f.git(&["config", "gpg.format", "ssh"]).unwrap();
    f.git(&[
        "config",
        "user.signingKey",
        &format!("key::{}", public(&key)),
    ])
    .unwrap();
    let out = output_ok(
        probity_in(f.root())
            .args(["attest", "--lineage", &lineage, "--sign"])
            .env("SSH_AUTH_SOCK", &a.sock),
    );
    let list = allowed(tmp.path(), &[("carol", &key)]);
    assert_verifies_as(f.root(), tmp.path(), &out.stdout, &list, "carol");
    // Without the agent, the same configuration cannot sign: a typed error.
    assert_error(&sign(&f, &lineage), 7, "signing_tool");
}

/// DSSE consumers must accept what the specification allows (issue 23
/// §5): unknown fields in the envelope and in a signature are ignored, and
/// an empty `keyid` is the same as none. Each verifies as the envelope
/// `attest --sign` printed.
#[test]
fn unknown_envelope_fields_and_an_empty_keyid_are_accepted() {
    let (f, tmp, lineage) = approved();
    alice_signs(&f, tmp.path());
    let good = sign(&f, &lineage);
    assert_eq!(good.code, 0, "{}", good.stdout);
    let env: Value = good.json.clone();
    let before = authority(&f);
    let mut extra = env.clone();
    extra["x-producer"] = "some other tool".into();
    extra["signatures"][0]["x-note"] = serde_json::json!({"any": [1, 2]});
    let mut empty_keyid = env.clone();
    empty_keyid["signatures"][0]["keyid"] = "".into();
    let mut both = extra.clone();
    both["signatures"][0]["keyid"] = "".into();
    for (name, doc) in [
        ("extra.json", &extra),
        ("empty-keyid.json", &empty_keyid),
        ("both.json", &both),
    ] {
        let file = write(tmp.path(), name, doc.to_string());
        let v = verify(f.root(), &file, &["--lineage", &lineage]);
        assert_eq!(v.code, 0, "{name}: {}{}", v.stdout, v.stderr);
        assert_eq!(v.json["decision"], "allow", "{name}");
        assert_eq!(v.json["signer"]["principal"], "alice", "{name}");
    }
    // A keyid that names another key is still refused.
    let mut other = env.clone();
    other["signatures"][0]["keyid"] = "SHA256:other".into();
    let file = write(tmp.path(), "other.json", other.to_string());
    let v = verify(f.root(), &file, &["--lineage", &lineage]);
    v.assert_refused(3, "bad_envelope");
    assert_eq!(before, authority(&f));
}

/// Issue 26 §4, at the server itself (past every client gate, as an agent
/// can push): a signed review with an unsigned one on top is refused
/// `signature_missing`, naming the unsigned review (never the signed one,
/// and never `receipt_unrelated`).
#[test]
fn the_server_names_the_unsigned_review_of_a_stack() {
    let (f, _dir, server) = support::hooked_origin();
    let tmp = tempfile::tempdir().unwrap();
    let alice = support::require_alice(&f, &server, tmp.path());
    support::write_medium_change(&f);
    let first = support::approve_live(f.root(), tmp.path());
    let l1 = string_at(&first, "lineage_id");
    support::sign_with(f.root(), &alice, tmp.path(), &l1);
    support::commit_all(&f, "first, signed");
    f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    let second = support::approve_live(f.root(), tmp.path());
    let l2 = string_at(&second, "lineage_id");
    support::commit_all(&f, "second, unsigned");
    let said = support::push_past_client(&f).unwrap_err();
    assert!(said.contains("DENY: signature_missing"), "{said}");
    assert!(!said.contains("receipt_unrelated"), "{said}");
    assert!(
        said.contains(&format!("probity attest --lineage {l2} --sign")),
        "{said}"
    );
    assert!(!said.contains(&l1), "{said}");
}
