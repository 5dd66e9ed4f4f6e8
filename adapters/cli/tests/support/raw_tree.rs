//! Git objects written as given, as anyone with git can write them
//! (`git hash-object --literally`): trees with entries in any order, any
//! mode, a name twice (red team rounds 11 and 12).

use std::path::Path;

use probity_git::fixture::Fixture;

use super::git_out;

/// A tree object written in `cwd` exactly as given: `entries` are (mode,
/// name, object id), in their order.
pub fn raw_tree_in(cwd: &Path, entries: &[(String, String, String)]) -> String {
    let mut bytes = Vec::new();
    for (mode, name, id) in entries {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        let raw: Vec<u8> = (0..id.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&id[i..i + 2], 16).unwrap())
            .collect();
        bytes.extend_from_slice(&raw);
    }
    let args = ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"];
    git_out(cwd, &args, &bytes, &[]).trim().to_string()
}

/// [`raw_tree_in`] in `f`'s root.
pub fn raw_tree(f: &Fixture, entries: &[(String, String, String)]) -> String {
    raw_tree_in(f.root(), entries)
}

/// The entries of `tree` (in `f`'s root) as (mode, name, id), modes as
/// trees store them (`40000`, not `040000`).
pub fn entries_of(f: &Fixture, tree: &str) -> Vec<(String, String, String)> {
    let out = git_out(f.root(), &["ls-tree", tree], b"", &[]);
    out.lines()
        .map(|l| {
            let (meta, name) = l.split_once('\t').unwrap();
            let mut m = meta.split(' ');
            let mode = m.next().unwrap().trim_start_matches('0').to_string();
            let id = m.nth(1).unwrap().to_string();
            (mode, name.to_string(), id)
        })
        .collect()
}
