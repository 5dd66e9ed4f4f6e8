//! Tests of `packed.rs`: every in-process answer is `git cat-file`'s, on
//! real repositories packed with deltas (by offset and by id); what this
//! reader is not sure of is left to git.

use std::path::Path;

use super::*;
use crate::candidate::CONTENT_CAP;
use crate::fixture::Fixture;

/// A history of similar files over several commits in `dir`, so that
/// packing stores most blobs as deltas of others.
fn history(f: &Fixture, dir: &Path) {
    let write = |p: &str, bytes: Vec<u8>| {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    for round in 0..4 {
        for i in 0..30 {
            let mut body: String = (0..40)
                .map(|l| format!("// line {l} of every module, the same in each\n"))
                .collect();
            body.push_str(&format!("fn f{i}() -> u32 {{ {round} }}\n"));
            write(&format!("src/m{i}.rs"), body.into_bytes());
        }
        write(
            "bin/data.bin",
            (0..=255u8).cycle().take(5_000 + round * 7).collect(),
        );
        write("big.txt", vec![b'z'; CONTENT_CAP + 1 + round]);
        f.git_in(dir, &["add", "-A"]).unwrap();
        f.git_in(dir, &["commit", "-qm", &format!("round {round}")])
            .unwrap();
    }
}

/// Every blob of the repository, by id.
fn all_blobs(f: &Fixture, dir: &Path) -> Vec<String> {
    let out = f
        .git_in(
            dir,
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objectname) %(objecttype)",
            ],
        )
        .unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_suffix(" blob").map(str::to_string))
        .collect()
}

/// How many entries of the repository's packs are deltas.
fn deltas(f: &Fixture, dir: &Path) -> usize {
    let pack_dir = dir.join(".git/objects/pack");
    let mut n = 0;
    for e in std::fs::read_dir(pack_dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "idx") {
            let out = f
                .git_in(dir, &["verify-pack", "-v", p.to_str().unwrap()])
                .unwrap();
            n += String::from_utf8(out)
                .unwrap()
                .lines()
                .filter(|l| l.split_whitespace().count() >= 7)
                .count();
        }
    }
    n
}

/// How many entries of each type (git's pack type, 1 to 7) the packs of
/// `dir` hold, by their headers.
fn kinds(dir: &Path, format: Format) -> [usize; 8] {
    let packs = Packs::open(&dir.join(".git/objects"), format, usize::MAX / 2048).unwrap();
    let mut kinds = [0usize; 8];
    for (i, p) in packs.packs.iter().enumerate() {
        for o in &p.sorted {
            kinds[usize::from(packs.head((i, *o)).unwrap().kind)] += 1;
        }
    }
    kinds
}

/// Reads every blob in-process and compares each answer with git's; how
/// many were answered in-process.
fn read_as_git(f: &Fixture, dir: &Path, format: Format) -> usize {
    let ids = all_blobs(f, dir);
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let packs =
        Packs::open(&dir.join(".git/objects"), format, refs.len().max(16)).expect("the packs open");
    let read = packs.read_blobs(&refs, CONTENT_CAP);
    let mut answered = 0;
    for (id, mine) in refs.iter().zip(&read) {
        let git = f.git_in(dir, &["cat-file", "blob", id]).unwrap();
        match mine {
            Some(bytes) => {
                assert_eq!(bytes, &git, "{id}");
                answered += 1;
            }
            None => assert!(
                git.len() > CONTENT_CAP,
                "{id} ({} bytes) left to git",
                git.len()
            ),
        }
    }
    answered
}

#[test]
fn offset_deltas_resolve_to_gits_bytes() {
    let f = Fixture::new().unwrap();
    history(&f, f.root());
    f.git(&["repack", "-adfq", "--depth=50", "--window=50"])
        .unwrap();
    assert!(deltas(&f, f.root()) > 50, "the pack holds deltas");
    let k = kinds(f.root(), Format::Sha1);
    assert!(k[6] > 50 && k[7] == 0, "offset deltas: {k:?}");
    let answered = read_as_git(&f, f.root(), Format::Sha1);
    // Every blob within the cap: 30 files × 4 rounds, 4 binaries.
    assert!(answered >= 124, "{answered}");
}

#[test]
fn deltas_by_id_resolve_to_gits_bytes() {
    let f = Fixture::new().unwrap();
    history(&f, f.root());
    f.git(&[
        "-c",
        "repack.useDeltaBaseOffset=false",
        "repack",
        "-adfq",
        "--depth=50",
        "--window=50",
    ])
    .unwrap();
    assert!(deltas(&f, f.root()) > 50, "the pack holds deltas");
    let k = kinds(f.root(), Format::Sha1);
    assert!(k[7] > 50 && k[6] == 0, "deltas by id: {k:?}");
    assert!(read_as_git(&f, f.root(), Format::Sha1) >= 124);
}

#[test]
fn a_sha256_repositorys_packed_blobs_resolve_to_gits_bytes() {
    let f = Fixture::new().unwrap();
    let dir = f.sha256_repo("s256").unwrap();
    history(&f, &dir);
    f.git_in(&dir, &["repack", "-adfq"]).unwrap();
    assert!(deltas(&f, &dir) > 50, "the pack holds deltas");
    assert!(read_as_git(&f, &dir, Format::Sha256) >= 124);
}

#[test]
fn a_corrupt_or_replaced_pack_is_left_to_git() {
    let f = Fixture::new().unwrap();
    history(&f, f.root());
    f.git(&["repack", "-adfq"]).unwrap();
    let ids = all_blobs(&f, f.root());
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let pack = std::fs::read_dir(f.root().join(".git/objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "pack"))
        .unwrap();
    let objects = f.root().join(".git/objects");
    // Every byte after the header flipped: nothing resolves to its id.
    let mut bytes = std::fs::read(&pack).unwrap();
    let end = bytes.len() - 20;
    for b in &mut bytes[12..end] {
        *b ^= 0x5a;
    }
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&pack, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(&pack, &bytes).unwrap();
    let packs = Packs::open(&objects, Format::Sha1, refs.len()).unwrap();
    assert!(
        packs
            .read_blobs(&refs, CONTENT_CAP)
            .iter()
            .all(Option::is_none)
    );
    // Truncated to its header: the index's offsets lie past its end.
    std::fs::write(&pack, &bytes[..12]).unwrap();
    assert!(Packs::open(&objects, Format::Sha1, refs.len()).is_none());
    // Not a pack.
    std::fs::write(&pack, vec![0u8; bytes.len()]).unwrap();
    assert!(Packs::open(&objects, Format::Sha1, refs.len()).is_none());
}

#[test]
fn the_packs_are_read_only_when_that_pays_and_never_for_an_alternate() {
    assert!(!worth_opening(15, 10));
    assert!(worth_opening(16, 16 * 1024));
    assert!(!worth_opening(16, 16 * 1024 + 1));
    let f = Fixture::new().unwrap();
    history(&f, f.root());
    f.git(&["repack", "-adfq"]).unwrap();
    let repo = f.repo().unwrap();
    assert_eq!(repo.object_format().unwrap(), "sha1");
    let ids = all_blobs(&f, f.root());
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut few: Vec<Option<Vec<u8>>> = vec![None; 15];
    repo.fill_from_packs(&refs[..15], &mut few, CONTENT_CAP);
    assert!(
        few.iter().all(Option::is_none),
        "15 blobs are git's to read"
    );
    let mut all: Vec<Option<Vec<u8>>> = vec![None; refs.len()];
    repo.fill_from_packs(&refs, &mut all, CONTENT_CAP);
    assert!(all.iter().filter(|a| a.is_some()).count() >= 124);
    // What is already answered is kept as it is.
    let mut kept: Vec<Option<Vec<u8>>> = vec![Some(b"mine".to_vec()); refs.len()];
    repo.fill_from_packs(&refs, &mut kept, CONTENT_CAP);
    assert!(kept.iter().all(|k| k.as_deref() == Some(&b"mine"[..])));
    // With an alternate store, git decides where an object is.
    let alt = f.root().join(".git/objects/info/alternates");
    std::fs::write(&alt, "/nonexistent\n").unwrap();
    let mut none: Vec<Option<Vec<u8>>> = vec![None; refs.len()];
    repo.fill_from_packs(&refs, &mut none, CONTENT_CAP);
    assert!(none.iter().all(Option::is_none));
}

#[test]
fn a_delta_applies_exactly_or_not_at_all() {
    let base = b"hello, world\n".to_vec();
    // source 13, target 6: copy 5 bytes at 0, insert "!".
    let good = [13u8, 6, 0x90, 5, 1, b'!'];
    assert_eq!(apply_delta(&base, &good, 100), Some(b"hello!".to_vec()));
    // The wrong source size.
    assert_eq!(apply_delta(&base, &[12u8, 6, 0x90, 5, 1, b'!'], 100), None);
    // A copy past the base's end.
    assert_eq!(apply_delta(&base, &[13u8, 20, 0x91, 10, 20], 100), None);
    // The reserved op 0.
    assert_eq!(apply_delta(&base, &[13u8, 1, 0], 100), None);
    // Shorter than announced, longer than announced, over the limit.
    assert_eq!(apply_delta(&base, &[13u8, 7, 0x90, 5, 1, b'!'], 100), None);
    assert_eq!(apply_delta(&base, &[13u8, 5, 0x90, 5, 1, b'!'], 100), None);
    assert_eq!(apply_delta(&base, &good, 5), None);
    // An insert running past the delta's end.
    assert_eq!(apply_delta(&base, &[13u8, 3, 3, b'a'], 100), None);
    // Headers and offsets: a size field that never ends.
    assert_eq!(entry_header(&[0xb5, 0x80]), None);
    assert_eq!(entry_header(&[0x35, 9]), Some((3, 5, 1)));
    assert_eq!(ofs_delta(&[0x81, 0x00]), Some((256, 2)));
    assert_eq!(ofs_delta(&[0x81]), None);
}

#[test]
fn a_run_reads_the_stores_packs_once_and_never_keeps_a_decline() {
    let f = Fixture::new().unwrap();
    history(&f, f.root());
    f.git(&["repack", "-adfq"]).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let ids = all_blobs(&f, f.root());
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let kept = |repo: &crate::Repo| {
        let c = repo.shared().packs.lock().unwrap();
        (c.listed.is_some(), c.packs.is_some())
    };
    // Too few blobs to pay for the packs: declined, nothing kept.
    let mut few: Vec<Option<Vec<u8>>> = vec![None; 3];
    repo.fill_from_packs(&refs[..3], &mut few, CONTENT_CAP);
    assert_eq!(kept(&repo), (false, false));
    // A batch that pays opens them once for the run.
    let mut all: Vec<Option<Vec<u8>>> = vec![None; refs.len()];
    repo.fill_from_packs(&refs, &mut all, CONTENT_CAP);
    repo.loose_blobs(&refs, CONTENT_CAP);
    assert_eq!(kept(&repo), (true, true));
    // Then even a small batch reads from what the run kept.
    let i = all.iter().position(Option::is_some).unwrap();
    let mut small: Vec<Option<Vec<u8>>> = vec![None; 1];
    repo.fill_from_packs(&refs[i..=i], &mut small, CONTENT_CAP);
    assert!(small[0].is_some() && small[0] == all[i]);
    repo.forget_packs();
    assert_eq!(kept(&repo), (false, false));
}
