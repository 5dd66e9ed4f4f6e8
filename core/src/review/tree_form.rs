//! Trees only as git itself writes them (D-R160, red team round 11).
//!
//! git reads one tree two ways: a diff walks two trees side by side in
//! their sort order, and a path lookup (`<tree>:<path>`) scans one tree's
//! entries until a name sorts past the one asked. On a tree git's own
//! commands never write (two entries of one name, entries out of order, a
//! name holding a slash) the two readings disagree: a tree listing a blob
//! `.probity` before the policy's own directory diffs as one added file,
//! while the lookup of `.probity/policy.json` meets the blob and answers
//! that there is no policy. Every tree a candidate brings, and every tree
//! a path lookup passes through, must pass [`tree_problem`], which checks
//! what `git fsck` reports as `duplicateEntries`, `treeNotSorted`,
//! `emptyName`, `fullPathname`, `hasDot` and `hasDotdot`.

use std::cmp::Ordering;

/// A tree that is not one git writes, refused where it was met: a diff
/// and a path lookup would read it differently, so it is neither reviewed
/// nor read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tree {tree} at `{path}` is not one git writes: {problem} (`git fsck` reports it); a diff and a path lookup would read it differently, so it is neither reviewed nor read (D-R160)"
)]
pub struct TreeMalformed {
    /// The tree's id.
    pub tree: String,
    /// Where it sits (`/`: the root).
    pub path: String,
    /// What is wrong with it ([`tree_problem`]).
    pub problem: String,
}

/// One entry of a tree as [`tree_problem`] reads it: whether it names a
/// directory (git mode `040000`), and its name's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeEntryName<'a> {
    /// A directory: it sorts as if its name ended in `/`.
    pub dir: bool,
    /// The entry's name.
    pub name: &'a [u8],
}

/// git's tree order (`base_name_compare`): names compared bytewise, a
/// directory's as if it ended in `/`.
fn tree_order(a: &TreeEntryName<'_>, b: &TreeEntryName<'_>) -> Ordering {
    let key = |e: &TreeEntryName<'_>| {
        e.name
            .iter()
            .copied()
            .chain(e.dir.then_some(b'/'))
            .collect::<Vec<u8>>()
    };
    key(a).cmp(&key(b))
}

/// What makes `entries` (in their tree's order) a tree git's own commands
/// never write, if anything: the first name that is empty, `.` or `..` or
/// holds a slash; then the first entry not sorting after the one before
/// it; then a name met twice whatever the two entries' types (a blob `n`
/// and a directory `n` are in order with `n.txt` between them).
pub fn tree_problem(entries: &[TreeEntryName<'_>]) -> Option<String> {
    let shown = |n: &[u8]| String::from_utf8_lossy(n).into_owned();
    for e in entries {
        match e.name {
            [] => return Some("an entry with an empty name".into()),
            b"." | b".." => return Some(format!("an entry named `{}`", shown(e.name))),
            n if n.contains(&b'/') => {
                return Some(format!("an entry named `{}`, holding a slash", shown(n)));
            }
            _ => {}
        }
    }
    for pair in entries.windows(2) {
        if let [a, b] = pair
            && tree_order(a, b) != Ordering::Less
        {
            return Some(if a.name == b.name {
                format!("two entries named `{}`", shown(a.name))
            } else {
                format!("`{}` listed after `{}`", shown(b.name), shown(a.name))
            });
        }
    }
    let mut names: Vec<&[u8]> = entries.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names
        .windows(2)
        .find(|w| w[0] == w[1])
        .map(|w| format!("two entries named `{}`", shown(w[0])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(list: &[(bool, &str)]) -> Option<String> {
        let entries: Vec<TreeEntryName<'_>> = list
            .iter()
            .map(|(dir, name)| TreeEntryName {
                dir: *dir,
                name: name.as_bytes(),
            })
            .collect();
        tree_problem(&entries)
    }

    #[test]
    fn trees_git_writes_pass() {
        assert_eq!(problem(&[]), None);
        // A blob `a`, then `a-b` and `a.c`, then the directory `a/`.
        let ok = [
            (false, "a"),
            (false, "a-b"),
            (false, "a.c"),
            (true, "a"),
            (false, "b0"),
        ];
        assert!(
            problem(&ok)
                .unwrap_or_default()
                .contains("two entries named `a`")
        );
        let ok = [(false, "a-b"), (false, "a.c"), (true, "a"), (false, "b0")];
        assert_eq!(problem(&ok), None);
        // Directories sort as if they ended in a slash.
        assert_eq!(problem(&[(false, "x.rs"), (true, "x")]), None);
    }

    #[test]
    fn trees_git_never_writes_are_named() {
        let cases: [(&[(bool, &str)], &str); 7] = [
            (
                &[(false, ".probity"), (true, ".probity")],
                "two entries named `.probity`",
            ),
            (
                &[(false, "a"), (false, "a.c"), (true, "a")],
                "two entries named `a`",
            ),
            (&[(false, "b"), (false, "a")], "`a` listed after `b`"),
            (&[(true, "x"), (false, "x.rs")], "`x.rs` listed after `x`"),
            (&[(false, "")], "an entry with an empty name"),
            (&[(false, "..")], "an entry named `..`"),
            (&[(false, "a/b")], "holding a slash"),
        ];
        for (list, want) in cases {
            let got = problem(list).unwrap_or_default();
            assert!(got.contains(want), "{list:?}: {got}");
        }
    }
}
