//! Tests of `loose.rs`: every in-process answer is `git cat-file`'s, on
//! real repositories; what this reader is not sure of is left to git.

use std::io::Write as _;

use super::*;
use crate::candidate::CONTENT_CAP;
use crate::fixture::Fixture;

/// The blob ids of `paths` in the index.
fn ids(f: &Fixture, paths: &[&str]) -> Vec<String> {
    paths
        .iter()
        .map(|p| {
            let out = f.git(&["rev-parse", &format!(":{p}")]).unwrap();
            String::from_utf8(out).unwrap().trim().to_string()
        })
        .collect()
}

/// What git's reader answers for `ids` (size, head, complete).
fn gits(repo: &Repo, ids: &[&str]) -> Vec<(u64, Vec<u8>, bool)> {
    repo.object_heads_sized(ids, CONTENT_CAP).unwrap()
}

fn loose_file(f: &Fixture, dir: &Path, id: &str) -> PathBuf {
    let _ = f;
    dir.join(".git/objects").join(&id[..2]).join(&id[2..])
}

/// Files of every shape the reader meets: empty, text, binary, without a
/// final newline, exactly the cap, one byte over it.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty.txt", Vec::new()),
        ("src/lib.rs", b"fn a() -> u32 { 1 }\n".to_vec()),
        ("data.bin", (0..=255u8).cycle().take(70_000).collect()),
        ("tail.txt", b"no newline".to_vec()),
        ("cap.txt", vec![b'x'; CONTENT_CAP]),
        ("over.txt", vec![b'y'; CONTENT_CAP + 1]),
        ("prose.md", "é ".repeat(40_000).into_bytes()),
    ]
}

fn fixture_with(files: &[(&'static str, Vec<u8>)]) -> Fixture {
    let f = Fixture::new().unwrap();
    for (p, bytes) in files {
        f.write(p, bytes).unwrap();
    }
    f.git(&["add", "-A"]).unwrap();
    f
}

#[test]
fn loose_blobs_are_read_as_git_reads_them_and_packed_ones_are_left_to_git() {
    let files = files();
    let f = fixture_with(&files);
    let repo = f.repo().unwrap();
    assert_eq!(repo.object_format().unwrap(), "sha1");
    let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let ids = ids(&f, &paths);
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let found = repo.loose_blobs(&refs, CONTENT_CAP);
    let git = gits(&repo, &refs);
    for ((path, bytes), (mine, theirs)) in files.iter().zip(found.iter().zip(&git)) {
        if *path == "over.txt" {
            // Over the cap: only its head would be read, so git answers.
            assert!(mine.is_none(), "{path}");
            assert!(!theirs.2);
            continue;
        }
        let mine = mine.as_ref().unwrap_or_else(|| panic!("{path} not read"));
        assert_eq!(mine, bytes, "{path}");
        assert_eq!(
            (mine.len() as u64, mine, true),
            (theirs.0, &theirs.1, theirs.2)
        );
    }
    // The merged answer is git's, in order, for every id.
    assert_eq!(repo.blob_heads_sized(&refs, CONTENT_CAP).unwrap(), git);
    // A smaller cap: what is over it is left to git, whose head is cut.
    let small = repo.loose_blobs(&refs, 10);
    assert!(small[0].is_some() && small[3].is_some() && small[1].is_none());
    assert_eq!(
        repo.blob_heads_sized(&refs, 10).unwrap(),
        repo.object_heads_sized(&refs, 10).unwrap()
    );

    // Packed: nothing loose is left, git answers every one, the same.
    f.git(&["commit", "-qm", "all"]).unwrap();
    f.git(&["repack", "-q", "-a", "-d"]).unwrap();
    f.git(&["prune-packed"]).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    assert!(
        repo.loose_blobs(&refs, CONTENT_CAP)
            .iter()
            .all(Option::is_none)
    );
    assert_eq!(repo.blob_heads_sized(&refs, CONTENT_CAP).unwrap(), git);
}

#[test]
fn many_blobs_are_read_on_several_threads_in_order() {
    let files: Vec<(String, Vec<u8>)> = (0..300)
        .map(|i| {
            (
                format!("d{}/f{i}.rs", i % 7),
                format!("fn f() -> u32 {{ {i} }}\n").into_bytes(),
            )
        })
        .collect();
    let f = Fixture::new().unwrap();
    for (p, bytes) in &files {
        f.write(p, bytes).unwrap();
    }
    f.git(&["add", "-A"]).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let ids = ids(&f, &paths);
    // Each twice, in a shuffled order.
    let mut refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    refs.extend(ids.iter().rev().map(String::as_str));
    let found = repo.loose_blobs(&refs, CONTENT_CAP);
    assert!(found.iter().all(Option::is_some));
    assert_eq!(
        repo.blob_heads_sized(&refs, CONTENT_CAP).unwrap(),
        gits(&repo, &refs)
    );
}

#[test]
fn a_sha256_repositorys_loose_blobs_are_read_as_git_reads_them() {
    let f = Fixture::new().unwrap();
    let dir = f.sha256_repo("s256").unwrap();
    std::fs::write(dir.join("x"), "x\n").unwrap();
    std::fs::write(dir.join("e"), "").unwrap();
    f.git_in(&dir, &["add", "x", "e"]).unwrap();
    let id = |p: &str| {
        let out = f.git_in(&dir, &["rev-parse", &format!(":{p}")]).unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    };
    let (x, e) = (id("x"), id("e"));
    assert_eq!(x.len(), 64);
    let repo = Repo::discover(f.repo().unwrap().git().clone(), &dir).unwrap();
    assert_eq!(repo.object_format().unwrap(), "sha256");
    let refs = [x.as_str(), e.as_str()];
    assert_eq!(
        repo.loose_blobs(&refs, CONTENT_CAP),
        vec![Some(b"x\n".to_vec()), Some(Vec::new())]
    );
    assert_eq!(
        repo.blob_heads_sized(&refs, CONTENT_CAP).unwrap(),
        gits(&repo, &refs)
    );
}

#[test]
fn what_the_reader_is_not_sure_of_is_left_to_git() {
    let f = fixture_with(&[
        ("a.txt", b"alpha\n".to_vec()),
        ("b.txt", b"beta\n".to_vec()),
        ("c.txt", b"gamma\n".to_vec()),
        ("d.txt", b"delta\n".to_vec()),
        ("e.txt", b"epsilon\n".to_vec()),
        ("g.txt", b"zeta\n".to_vec()),
    ]);
    f.git(&["commit", "-qm", "one"]).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let ids = ids(&f, &["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "g.txt"]);
    let root = f.root().to_path_buf();
    let path = |id: &str| loose_file(&f, &root, id);
    let git_before = gits(&repo, &ids.iter().map(String::as_str).collect::<Vec<_>>());
    // Keep every object packed too, so git still answers each one whatever
    // is done to its loose file below (a fresh reader sees the pack).
    f.git(&["repack", "-q", "-a"]).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();

    let make_writable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644)).unwrap();
    };
    // a: another object's bytes under its name (the hash does not match).
    make_writable(&path(&ids[0]));
    std::fs::copy(path(&ids[1]), path(&ids[0])).unwrap();
    // b: trailing garbage after the zlib stream.
    make_writable(&path(&ids[1]));
    std::fs::OpenOptions::new()
        .append(true)
        .open(path(&ids[1]))
        .unwrap()
        .write_all(b"junk")
        .unwrap();
    // c: truncated.
    let c = std::fs::read(path(&ids[2])).unwrap();
    make_writable(&path(&ids[2]));
    std::fs::write(path(&ids[2]), &c[..c.len() - 3]).unwrap();
    // d: a symbolic link to a good copy of itself.
    let good = root.join("good-d");
    std::fs::rename(path(&ids[3]), &good).unwrap();
    std::os::unix::fs::symlink(&good, path(&ids[3])).unwrap();
    // e: a socket where the object was (not a regular file: never
    // opened, as a FIFO would not be).
    std::fs::remove_file(path(&ids[4])).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(path(&ids[4])).unwrap();
    // g: a non-canonical header (`blob 05`) whose file is named by its
    // own hash: not an object git writes or reads as a blob.
    let odd = b"blob 05\0zeta\n".to_vec();
    let odd_id = crate::index::hex(&Format::Sha1.id_of(&odd).unwrap());
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&odd).unwrap();
    let odd_path = path(&odd_id);
    std::fs::create_dir_all(odd_path.parent().unwrap()).unwrap();
    std::fs::write(&odd_path, z.finish().unwrap()).unwrap();

    let mut refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    // While the pack lists them, git reads its copies first: no loose
    // file is answered for them (D-R155's review).
    assert!(
        repo.loose_blobs(&refs, CONTENT_CAP)
            .iter()
            .all(Option::is_none)
    );
    // The pack set aside, each loose file is judged by itself (in a new
    // run: a run reads the store's pack indexes once).
    let packs = root.join(".git/objects/pack");
    let aside = root.join(".git/objects/pack-aside");
    std::fs::rename(&packs, &aside).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    let found = repo.loose_blobs(&refs, CONTENT_CAP);
    assert_eq!(found[..5], [None, None, None, None, None]);
    // g's own file is sound.
    assert_eq!(found[5].as_deref(), Some(&b"zeta\n"[..]));
    assert_eq!(repo.loose_blobs(&[&odd_id], CONTENT_CAP), vec![None]);
    std::fs::rename(&aside, &packs).unwrap();
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    // The merged answers are git's, from its pack.
    assert_eq!(
        repo.blob_heads_sized(&refs, CONTENT_CAP).unwrap(),
        git_before
    );

    // A tree, a commit, a missing id, an abbreviation, upper case: git's.
    let tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
    let commit = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    let upper = ids[5].to_uppercase();
    refs = vec![tree.trim(), commit.trim(), &ids[5][..12], &upper];
    assert!(
        repo.loose_blobs(&refs, CONTENT_CAP)
            .iter()
            .all(Option::is_none)
    );
    let missing = "0123456789012345678901234567890123456789";
    assert_eq!(repo.loose_blobs(&[missing], CONTENT_CAP), vec![None]);
    assert!(repo.blob_heads_sized(&[missing], CONTENT_CAP).is_err());
}

#[test]
fn canonical_sizes_only() {
    assert_eq!(canonical_blob_size(b"blob 0"), Some(0));
    assert_eq!(canonical_blob_size(b"blob 120"), Some(120));
    for bad in [
        &b"blob 00"[..],
        b"blob 012",
        b"blob ",
        b"blob +1",
        b"blob 1 ",
        b"tree 1",
        b"blob 99999999999999999999",
    ] {
        assert_eq!(
            canonical_blob_size(bad),
            None,
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn inflation_wants_one_whole_stream_of_the_size_it_says() {
    let deflate = |bytes: &[u8]| {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(bytes).unwrap();
        z.finish().unwrap()
    };
    // One inflater for every case, as a reading thread uses it: a stream
    // refused half-way leaves nothing behind for the next.
    let mut z = Decompress::new(true);
    let mut inflate = |bytes: &[u8], cap: usize| inflate_blob(bytes, cap, &mut z);
    assert_eq!(
        inflate(&deflate(b"blob 3\0abc"), 10).as_deref(),
        Some(&b"blob 3\0abc"[..])
    );
    // Longer or shorter than it says, over the cap, no header's end.
    assert_eq!(inflate(&deflate(b"blob 3\0abcd"), 10), None);
    assert_eq!(inflate(&deflate(b"blob 3\0ab"), 10), None);
    assert_eq!(inflate(&deflate(b"blob 11\0abcdefghijk"), 10), None);
    assert_eq!(inflate(&deflate(&[b'b'; 100]), 1000), None);
    assert_eq!(inflate(b"", 10), None);
    assert_eq!(inflate(b"not zlib at all", 10), None);
    let big: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let mut object = format!("blob {}\0", big.len()).into_bytes();
    object.extend_from_slice(&big);
    let deflated = deflate(&object);
    assert_eq!(inflate(&deflated[..deflated.len() / 2], 100_000), None);
    assert_eq!(inflate(&deflated, 100_000), Some(object.clone()));
    assert_eq!(inflate(&deflated, 69_999), None);
    assert_eq!(
        inflate(&deflate(b"blob 0\0"), 0).as_deref(),
        Some(&b"blob 0\0"[..])
    );
}
