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
    let raw: Vec<u8> = (0..20)
        .map(|i| u8::from_str_radix(&oid[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    bytes[at + 6..at + 26].copy_from_slice(&raw);
    let body = bytes.len() - 20;
    let mut h = sha1_checked::Sha1::new();
    sha1_checked::digest::Update::update(&mut h, &bytes[..body]);
    let sum = h.try_finalize().hash().to_vec();
    bytes[body..].copy_from_slice(&sum);
    std::fs::write(f.root().join(".git/index"), &bytes).unwrap();
    bytes
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
