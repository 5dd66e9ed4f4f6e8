//! The release gate (R8.5) through the real binary: the exact revision is a
//! reviewed delivery, and the release artifacts match their checksums.

mod support;

use probity_core::digest::Sha256Digest;
use probity_git::fixture::Fixture;
use support::fifo::mkfifo;
use support::*;

/// A reviewed commit tagged `v1`, and a `dist/` with two artifacts and
/// their `SHA256SUMS`.
fn released() -> (Fixture, tempfile::TempDir) {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    f.commit_all("release").unwrap();
    f.git(&["tag", "-a", "-m", "v1", "v1"]).unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    let mut sums = String::new();
    for (name, bytes) in [("app.tar.gz", &b"tarball"[..]), ("app.zip", &b"zip"[..])] {
        std::fs::write(dist.join(name), bytes).unwrap();
        sums.push_str(&format!("{}  {name}\n", Sha256Digest::plain(bytes).hex()));
    }
    std::fs::write(dist.join("SHA256SUMS"), sums).unwrap();
    (f, dir)
}

fn release(f: &Fixture, extra: &[&str]) -> Run {
    let mut args = vec!["validate", "--gate", "release"];
    args.extend_from_slice(extra);
    probity(f.root(), &args)
}

#[test]
fn a_reviewed_revision_with_matching_artifacts_is_released() {
    let (f, dir) = released();
    let before = store_snapshot(&f);
    let plain = release(&f, &["--revision", "v1"]);
    assert_eq!(plain.code, 0, "{}{}", plain.stdout, plain.stderr);
    assert_eq!(plain.json["gate"], "release");
    assert_eq!(plain.json["reason_code"], "receipt_valid");
    assert!(plain.json["evidence"].is_null());

    let sums = dir.path().join("dist/SHA256SUMS");
    let d = release(
        &f,
        &["--revision", "v1", "--checksums", sums.to_str().unwrap()],
    );
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["evidence"]["artifacts"].as_array().unwrap().len(), 2);
    assert!(
        d.json["message"]
            .as_str()
            .unwrap()
            .contains("2 release artifact(s)")
    );
    assert_eq!(
        d.json["evidence"]["checksums_sha256"],
        Sha256Digest::plain(&std::fs::read(&sums).unwrap())
            .to_string()
            .as_str()
    );
    assert!(store_snapshot(&f) == before, "a gate wrote to the store");
}

#[test]
fn changed_or_missing_artifacts_deny() {
    let (f, dir) = released();
    let sums = dir.path().join("dist/SHA256SUMS");
    let sums = sums.to_str().unwrap();
    std::fs::write(dir.path().join("dist/app.zip"), b"tampered").unwrap();
    let d = release(&f, &["--revision", "v1", "--checksums", sums]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "release_evidence_mismatch");
    assert!(
        d.json["message"]
            .as_str()
            .unwrap()
            .contains("digest differs: app.zip")
    );
    std::fs::remove_file(dir.path().join("dist/app.tar.gz")).unwrap();
    let d = release(&f, &["--revision", "v1", "--checksums", sums]);
    assert!(
        d.json["message"]
            .as_str()
            .unwrap()
            .contains("missing: app.tar.gz")
    );
    // --artifacts points elsewhere: nothing there.
    let empty = tempfile::tempdir().unwrap();
    let d = release(
        &f,
        &[
            "--revision",
            "v1",
            "--checksums",
            sums,
            "--artifacts",
            empty.path().to_str().unwrap(),
        ],
    );
    assert_eq!(d.json["reason_code"], "release_evidence_mismatch");
}

#[test]
fn only_the_exact_reviewed_revision_is_released() {
    let (f, _dir) = released();
    let base = release(&f, &["--revision", "v1~1"]);
    assert_eq!(base.code, 1, "{}", base.stdout);
    assert_eq!(base.json["reason_code"], "receipt_missing");
    f.write("docs/after.md", "after\n").unwrap();
    f.commit_all("after the release").unwrap();
    // A later commit is the next slice on top of the released one (R8.6):
    // unrelated to what was reviewed, and not released on that review.
    let later = release(&f, &["--revision", "HEAD"]);
    assert_eq!(later.code, 1, "{}", later.stdout);
    assert_eq!(later.json["reason_code"], "receipt_unrelated");
    assert_eq!(later.json["next_action"], "start_commit_review");
    assert_eq!(
        release(&f, &["--revision", "v1"]).json["reason_code"],
        "receipt_valid"
    );
}

#[test]
fn bad_release_inputs_are_typed_errors_and_change_nothing() {
    let (f, dir) = released();
    let before = store_snapshot(&f);
    let none = release(&f, &[]);
    assert_eq!(
        (none.code, none.json["error"]["code"].as_str()),
        (2, Some("revision_required"))
    );
    let unknown = release(&f, &["--revision", "v9"]);
    assert_eq!(unknown.code, 5, "{}", unknown.stdout);
    for (name, text) in [
        ("bad1", "not a checksum line\n"),
        (
            "bad2",
            &format!("{}  ../escape\n", Sha256Digest::plain(b"x").hex())[..],
        ),
        ("bad3", ""),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let r = release(
            &f,
            &["--revision", "v1", "--checksums", p.to_str().unwrap()],
        );
        assert_eq!(r.code, 3, "{name}: {}", r.stdout);
        assert_eq!(r.json["error"]["code"], "bad_checksums", "{name}");
    }
    let mixed = release(&f, &["--revision", "v1", "--base", "main"]);
    assert_eq!(mixed.json["error"]["code"], "flag_not_for_gate");
    // A checksums file is a bounded regular file: a device, a FIFO or a
    // directory is refused at once (it used to be read to its end:
    // `/dev/zero` never ended), and so is one over 4 MiB.
    let fifo = dir.path().join("sums.fifo");
    mkfifo(&fifo);
    for p in [
        "/dev/zero",
        fifo.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ] {
        let r = release(&f, &["--revision", "v1", "--checksums", p]);
        assert_eq!(r.code, 3, "{p}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], "input_not_regular", "{p}");
    }
    let big = dir.path().join("big.sums");
    std::fs::write(&big, vec![b'0'; 4 * 1024 * 1024 + 1]).unwrap();
    let r = release(
        &f,
        &["--revision", "v1", "--checksums", big.to_str().unwrap()],
    );
    assert_eq!(r.json["error"]["code"], "input_too_large", "{}", r.stdout);
    assert!(store_snapshot(&f) == before, "the store changed");
}

#[test]
fn only_regular_files_are_artifacts() {
    let (f, dir) = released();
    let dist = dir.path().join("dist");
    // A symlink (here to a file outside DIR) and a directory are not
    // artifacts, whatever they hold.
    let outside = dir.path().join("outside.bin");
    std::fs::write(&outside, b"tarball").unwrap();
    std::fs::remove_file(dist.join("app.tar.gz")).unwrap();
    std::os::unix::fs::symlink(&outside, dist.join("app.tar.gz")).unwrap();
    std::fs::remove_file(dist.join("app.zip")).unwrap();
    std::fs::create_dir(dist.join("app.zip")).unwrap();
    let sums = dist.join("SHA256SUMS");
    let d = release(
        &f,
        &["--revision", "v1", "--checksums", sums.to_str().unwrap()],
    );
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "release_evidence_mismatch");
    let msg = d.json["message"].as_str().unwrap();
    assert!(
        msg.contains("app.tar.gz") && msg.contains("app.zip"),
        "{msg}"
    );
    // A FIFO is not opened (it would block): missing.
    std::fs::remove_dir(dist.join("app.zip")).unwrap();
    mkfifo(&dist.join("app.zip"));
    let d = release(
        &f,
        &["--revision", "v1", "--checksums", sums.to_str().unwrap()],
    );
    assert_eq!(d.json["reason_code"], "release_evidence_mismatch");
}

#[test]
fn checksums_as_sha256sum_writes_them_and_the_commit_released() {
    let (f, dir) = released();
    let sums = dir.path().join("dist/SHA256SUMS");
    let text = std::fs::read_to_string(&sums)
        .unwrap()
        .replace("  app", "  ./app");
    std::fs::write(&sums, text).unwrap();
    let d = release(
        &f,
        &["--revision", "v1", "--checksums", sums.to_str().unwrap()],
    );
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    let head = String::from_utf8(f.git(&["rev-parse", "v1^{commit}"]).unwrap()).unwrap();
    assert_eq!(d.json["revision_commit"], head.trim());
    std::fs::write(&sums, b"\xff\xfe not utf-8\n").unwrap();
    let bad = release(
        &f,
        &["--revision", "v1", "--checksums", sums.to_str().unwrap()],
    );
    assert_eq!(bad.json["error"]["code"], "bad_checksums");
}
