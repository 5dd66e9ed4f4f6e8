//! A cache-tree node git takes as it is (D-R159): git takes a valid node
//! whenever it finds the node's object, and then skips as many index
//! entries as the node counts, whatever those entries are. A node this
//! reader would rebuild from the entries instead (its count is not its
//! directory's, its object is not certainly there) leaves the tree to
//! git; and a tree's links are remembered from its index only when the
//! tree is the entries' own.

use super::*;
use crate::fixture::Fixture;
use probity_core::review::TreeId;

/// `d/x.txt` and `top.txt`, written as a tree, then `top.txt` changed:
/// the index's root node is invalid and `d`'s is valid (count 1).
fn cached_d() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("d/x.txt", "x\n").unwrap();
    f.write("top.txt", "t\n").unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["write-tree"]).unwrap();
    f.write("top.txt", "t2\n").unwrap();
    f.git(&["add", "top.txt"]).unwrap();
    f
}

fn out(f: &Fixture, args: &[&str], stdin: Option<&str>) -> String {
    let repo = f.repo().unwrap();
    let bytes = repo.run_with(args, &[], stdin.map(str::as_bytes)).unwrap();
    String::from_utf8(bytes).unwrap().trim().to_string()
}

/// A stored tree holding `entry` (an `ls-tree` line) alone.
fn stored_tree(f: &Fixture, entry: &str) -> String {
    out(f, &["mktree"], Some(&format!("{entry}\n")))
}

/// A stored tree M of other content than `d`'s.
fn other_tree(f: &Fixture) -> String {
    let blob = out(f, &["hash-object", "-w", "--stdin"], Some("other\n"));
    stored_tree(f, &format!("100644 blob {blob}\tother.txt"))
}

/// The index with `d`'s node rewritten to `count` and `oid`, and its
/// trailing checksum made again.
fn plant(f: &Fixture, count: u8, oid: &str) -> Vec<u8> {
    let mut bytes = std::fs::read(f.root().join(".git/index")).unwrap();
    let at = bytes
        .windows(5)
        .position(|w| w == b"d\x001 0")
        .expect("d's valid node");
    bytes[at + 2] = count;
    bytes[at + 6..at + 26].copy_from_slice(&raw(oid));
    bytes.truncate(bytes.len() - 20);
    written_with_checksum(f, bytes)
}

/// `body` with its trailing checksum, written as the index.
fn written_with_checksum(f: &Fixture, mut body: Vec<u8>) -> Vec<u8> {
    let mut h = sha1_checked::Sha1::new();
    sha1_checked::digest::Update::update(&mut h, &body);
    body.extend_from_slice(h.try_finalize().hash());
    std::fs::write(f.root().join(".git/index"), &body).unwrap();
    body
}

fn ours(f: &Fixture, bytes: &[u8]) -> Option<String> {
    let presence = crate::discover::Presence::of(&f.root().join(".git"), 20).unwrap();
    index_tree_id(bytes, 20, &mut |id| presence.has(id)).map(|id| hex(&id))
}

#[test]
fn a_node_whose_count_is_not_its_directorys_is_left_to_git() {
    let f = cached_d();
    let m = other_tree(&f);
    // Its count right: git takes M as it is, and so does this reader.
    let right = plant(&f, b'1', &m);
    let git = out(&f, &["write-tree"], None);
    assert!(
        out(&f, &["ls-tree", &git], None).contains(&m),
        "git takes the node"
    );
    assert_eq!(ours(&f, &right).as_deref(), Some(git.as_str()));
    // Its count 2: git takes M and skips `top.txt` with it, a tree
    // neither the entries nor M make; rebuilt from the entries, this
    // reader's answer differed. It is git's to answer. (A new index: git's
    // `write-tree` above made the root node valid.)
    let f = cached_d();
    let m = other_tree(&f);
    let wrong = plant(&f, b'2', &m);
    let git = out(&f, &["write-tree"], None);
    assert!(
        !out(&f, &["ls-tree", &git], None).contains("top.txt"),
        "git skipped the entry"
    );
    assert_eq!(ours(&f, &wrong), None);
}

#[test]
fn a_node_whose_object_is_not_certainly_there_is_left_to_git() {
    let f = cached_d();
    let m = other_tree(&f);
    // M's loose object moved aside and named by a symbolic link: git
    // finds it (it only asks whether the path exists) and takes it.
    let objects = f.root().join(".git/objects");
    let loose = objects.join(&m[..2]).join(&m[2..]);
    let aside = objects.join("aside");
    std::fs::rename(&loose, &aside).unwrap();
    std::os::unix::fs::symlink(&aside, &loose).unwrap();
    let planted = plant(&f, b'1', &m);
    let git = out(&f, &["write-tree"], None);
    assert!(out(&f, &["ls-tree", &git], None).contains(&m));
    assert_eq!(ours(&f, &planted), None);
}

#[test]
fn a_trees_links_are_remembered_from_its_index_only_when_it_is_the_entries_own() {
    let f = cached_d();
    // D's cached node planted with a tree of the same count whose one
    // entry is a link: git takes it, and the tree's link is no entry's.
    let target = out(&f, &["hash-object", "-w", "--stdin"], Some("../top.txt"));
    let linked = stored_tree(&f, &format!("120000 blob {target}\tx.txt"));
    plant(&f, b'1', &linked);
    let tree = out(&f, &["write-tree"], None);
    let repo = f.repo().unwrap();
    let tree = TreeId::parse(tree).unwrap();
    repo.remember_index_links(&f.root().join(".git/index"), &tree);
    let links = repo.symlinks(&[&tree]).unwrap();
    let paths: Vec<&str> = links[0].iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["d/x.txt"]);
}

/// The index with its cache-tree extension's data replaced by `data`
/// (the extension's size and the trailing checksum made again).
fn with_cache_tree(f: &Fixture, data: &[u8]) -> Vec<u8> {
    let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
    let at = bytes.windows(4).rposition(|w| w == b"TREE").unwrap();
    let size = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
    let mut out = bytes[..at + 4].to_vec();
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&bytes[at + 8 + size..bytes.len() - 20]);
    written_with_checksum(f, out)
}

fn raw(id: &str) -> Vec<u8> {
    crate::loose::raw_id(crate::loose::Format::Sha1, id).unwrap()
}

#[test]
fn a_cache_tree_whose_root_has_a_name_is_left_to_git() {
    let f = cached_d();
    let d = out(&f, &["rev-parse", ":d/x.txt"], None);
    let d_tree = stored_tree(&f, &format!("100644 blob {d}\tx.txt"));
    let m = other_tree(&f);
    // git ignores a cache tree whose root is named, and writes the
    // entries' tree; taken as it reads, the root would be M.
    let mut data = b"x\x002 1\n".to_vec();
    data.extend_from_slice(&raw(&m));
    data.extend_from_slice(b"d\x001 0\n");
    data.extend_from_slice(&raw(&d_tree));
    let named = with_cache_tree(&f, &data);
    let git = out(&f, &["write-tree"], None);
    assert_ne!(git, m);
    assert_eq!(ours(&f, &named), None);
    // The same with the root unnamed: git takes M, and so does this
    // reader.
    let f = cached_d();
    let m = other_tree(&f);
    let d_tree = stored_tree(&f, &format!("100644 blob {d}\tx.txt"));
    let mut data = b"\x002 1\n".to_vec();
    data.extend_from_slice(&raw(&m));
    data.extend_from_slice(b"d\x001 0\n");
    data.extend_from_slice(&raw(&d_tree));
    let unnamed = with_cache_tree(&f, &data);
    assert_eq!(out(&f, &["write-tree"], None), m);
    assert_eq!(ours(&f, &unnamed).as_deref(), Some(m.as_str()));
}

#[test]
fn a_count_past_an_int_is_left_to_git() {
    let f = cached_d();
    let m = other_tree(&f);
    // git reads counts into an `int`: `a`'s, past it, is negative there,
    // so git reads no id after it and takes the 20 bytes that follow for
    // the next node, an invalid `d`; the real `d` node (naming M) is left
    // over. Read as written, `d` would be M.
    let mut data = b"\x00-1 2\na\x002147483648 0\n".to_vec();
    let mut fake = b"d\x00-1 0\n".to_vec();
    fake.resize(20, b'z');
    data.extend_from_slice(&fake);
    data.extend_from_slice(b"d\x001 0\n");
    data.extend_from_slice(&raw(&m));
    let past = with_cache_tree(&f, &data);
    let git = out(&f, &["write-tree"], None);
    assert!(
        !out(&f, &["ls-tree", &git], None).contains(&m),
        "git rebuilt d"
    );
    assert_eq!(ours(&f, &past), None);
}

#[test]
fn an_index_with_an_end_of_entries_extension_is_left_to_git() {
    let f = cached_d();
    let before = std::fs::read(f.root().join(".git/index")).unwrap();
    assert!(ours(&f, &before).is_some());
    // With `index.threads`, git reads entries and extensions from where
    // EOIE and IEOT say.
    f.git(&["config", "index.recordEndOfIndexEntries", "true"])
        .unwrap();
    f.git(&["update-index", "--force-write-index", "--refresh"])
        .unwrap();
    let bytes = std::fs::read(f.root().join(".git/index")).unwrap();
    assert!(bytes.windows(4).any(|w| w == b"EOIE"), "git wrote EOIE");
    assert_eq!(ours(&f, &bytes), None);
}

#[test]
fn an_object_only_in_a_pack_git_would_not_read_is_not_present() {
    let f = cached_d();
    let m = other_tree(&f);
    // M packed, its loose copy gone, and the pack then broken: git finds
    // no M and builds `d` from the entries.
    let pack = f.root().join(".git/objects/pack/pack");
    f.repo()
        .unwrap()
        .run_with(
            ["pack-objects", "-q", pack.to_str().unwrap()],
            &[],
            Some(format!("{m}\n").as_bytes()),
        )
        .unwrap();
    std::fs::remove_file(f.root().join(".git/objects").join(&m[..2]).join(&m[2..])).unwrap();
    let planted = plant(&f, b'1', &m);
    // The pack whole: git takes M from it, and so does this reader.
    let git = out(&f, &["write-tree"], None);
    assert!(out(&f, &["ls-tree", &git], None).contains(&m));
    assert_eq!(ours(&f, &planted).as_deref(), Some(git.as_str()));
    std::fs::write(f.root().join(".git/index"), &planted).unwrap();
    for e in std::fs::read_dir(f.root().join(".git/objects/pack")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "pack") {
            std::fs::write(&p, b"junk").unwrap();
        }
    }
    let git = out(&f, &["write-tree"], None);
    assert!(
        !out(&f, &["ls-tree", &git], None).contains(&m),
        "git rebuilt d"
    );
    assert_eq!(ours(&f, &planted), None);
}
