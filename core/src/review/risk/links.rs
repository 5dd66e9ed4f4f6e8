//! Symbolic links of the trees a change goes between (v4, D-R131): a
//! changed path a link resolves to is also rated as if it sat at the
//! link's path. Pure: the links are an input, observed from the trees by
//! an adapter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::review::ids::RepoPath;

/// A symbolic link of a tree (git mode `120000`): its path and its
/// target, the link blob's bytes as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Symlink {
    /// Where the link is in the tree.
    pub path: RepoPath,
    /// What it points at: the blob's bytes (a relative or absolute path,
    /// not necessarily UTF-8 nor inside the repository).
    pub target: Vec<u8>,
}

/// At most this many paths a file is also rated at: beyond it, the file
/// cannot be shown free of a rule (`unscanned_content`).
pub(super) const MAX_ALIASES: usize = 256;

/// The links that point inside the repository, by their targets resolved
/// lexically against the links' directories and ASCII-lowercased for
/// comparing (as the path rules compare): a path is looked up once per
/// directory it is in, whatever the number of links.
pub(super) struct Links {
    /// Resolved target (`""`: the repository's root) → the links' paths,
    /// sorted.
    by_target: BTreeMap<String, Vec<String>>,
}

/// The other paths a changed path is reached at through links.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Aliases {
    /// Each path at most once, the changed path itself not among them.
    pub(super) paths: Vec<String>,
    /// Whether more links lead to the path than were followed (a chain
    /// longer than the policy's hops, or more than [`MAX_ALIASES`]).
    pub(super) beyond_bound: bool,
}

impl Links {
    /// The links of `links` whose targets stay inside the repository:
    /// relative, UTF-8, not climbing above the root; `.` and empty
    /// components skipped and `..` taken lexically.
    pub(super) fn of(links: &[Symlink]) -> Self {
        let mut by_target: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for l in links {
            let link = l.path.as_str();
            if let Some(target) = resolve(link, &l.target) {
                by_target
                    .entry(target.to_ascii_lowercase())
                    .or_default()
                    .push(link.to_string());
            }
        }
        for paths in by_target.values_mut() {
            paths.sort();
            paths.dedup();
        }
        Self { by_target }
    }

    /// Whether no link points inside the repository.
    pub(super) fn is_empty(&self) -> bool {
        self.by_target.is_empty()
    }

    /// `q` seen through each link whose target is `q` or a directory
    /// holding it: the link's path, joined with the rest under a directory.
    fn through(&self, q: &str) -> Vec<String> {
        let lower = q.to_ascii_lowercase();
        let ends = std::iter::once(0)
            .chain(lower.match_indices('/').map(|(i, _)| i))
            .chain(std::iter::once(lower.len()));
        let mut out = Vec::new();
        for end in ends {
            let Some(links) = self.by_target.get(&lower[..end]) else {
                continue;
            };
            for link in links {
                out.push(match (end, &q[end..]) {
                    (0, _) => format!("{link}/{q}"),
                    (_, rest) => format!("{link}{rest}"),
                });
            }
        }
        out
    }

    /// The paths `path` is also reached at: a link whose target is `path`
    /// gives the link's own path, a link whose target is a directory
    /// holding `path` gives the link's path joined with the rest; each
    /// such path is followed again (a chain of links, or a link inside a
    /// linked directory), at most `hops` links deep.
    pub(super) fn aliases(&self, path: &str, hops: u64) -> Aliases {
        let mut out = Aliases::default();
        if hops == 0 || self.by_target.is_empty() {
            return out;
        }
        let mut frontier = vec![path.to_string()];
        for depth in 0..=hops {
            let mut next = Vec::new();
            for q in &frontier {
                for alias in self.through(q) {
                    if depth == hops {
                        // A longer chain than the bound: not followed.
                        out.beyond_bound = true;
                        return out;
                    }
                    if alias.eq_ignore_ascii_case(path)
                        || out.paths.iter().any(|p| p.eq_ignore_ascii_case(&alias))
                    {
                        continue;
                    }
                    if out.paths.len() == MAX_ALIASES {
                        out.beyond_bound = true;
                        return out;
                    }
                    out.paths.push(alias.clone());
                    next.push(alias);
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        out
    }
}

/// The target of the link at `link`, resolved lexically against the
/// link's directory; `None` for an absolute, non-UTF-8 or empty target or
/// one climbing above the repository's root. `""` is the root itself.
fn resolve(link: &str, target: &[u8]) -> Option<String> {
    let target = std::str::from_utf8(target).ok()?;
    if target.is_empty() || target.starts_with('/') || target.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(path: &str, target: &str) -> Symlink {
        Symlink {
            path: RepoPath::parse(path).unwrap(),
            target: target.as_bytes().to_vec(),
        }
    }

    fn aliases(links: &[Symlink], path: &str) -> Aliases {
        Links::of(links).aliases(path, 8)
    }

    #[test]
    fn targets_resolve_lexically_inside_the_repository() {
        assert_eq!(
            resolve("AGENTS.md", b"docs/ai/guide.md").as_deref(),
            Some("docs/ai/guide.md")
        );
        assert_eq!(resolve("a/b/l", b"../c/./d/").as_deref(), Some("a/c/d"));
        assert_eq!(resolve("a/l", b"..").as_deref(), Some(""));
        assert_eq!(resolve("a/l", b"../.."), None);
        assert_eq!(resolve("l", b"/etc/passwd"), None);
        assert_eq!(resolve("l", b""), None);
        assert_eq!(resolve("l", b"\xff"), None);
    }

    #[test]
    fn a_path_is_reached_through_file_directory_and_chained_links() {
        let links = [
            link("AGENTS.md", "docs/ai/guide.md"),
            link(".claude", "tools/claude"),
            link("tools", "vendor/tools"),
            link("x.md", "AGENTS.md"),
        ];
        assert_eq!(
            aliases(&links, "docs/ai/guide.md").paths,
            ["AGENTS.md", "x.md"]
        );
        assert_eq!(
            aliases(&links, "tools/claude/settings.json").paths,
            [".claude/settings.json"]
        );
        assert_eq!(
            aliases(&links, "vendor/tools/claude/settings.json").paths,
            ["tools/claude/settings.json", ".claude/settings.json"]
        );
        // Not under the target: `tools/claudes` is another directory.
        assert!(aliases(&links, "tools/claudes/a.md").paths.is_empty());
        assert!(aliases(&links, "docs/ai/guide.md.bak").paths.is_empty());
        // Compared as the path rules compare: ASCII case-insensitively.
        assert_eq!(
            aliases(&links, "Docs/AI/guide.md").paths,
            ["AGENTS.md", "x.md"]
        );
        // A target outside the repository leads nowhere.
        let out = [link("AGENTS.md", "../elsewhere/guide.md")];
        assert_eq!(aliases(&out, "elsewhere/guide.md"), Aliases::default());
    }

    #[test]
    fn a_chain_longer_than_the_bound_or_a_cycle_is_bounded() {
        // l0 -> l1 -> ... -> l9 -> guide.md: nine hops are not followed to
        // the end under a bound of eight.
        let mut chain: Vec<Symlink> = (0..9)
            .map(|i| link(&format!("l{i}"), &format!("l{}", i + 1)))
            .collect();
        chain.push(link("l9", "guide.md"));
        let a = Links::of(&chain).aliases("guide.md", 8);
        assert!(a.beyond_bound);
        assert!(!Links::of(&chain).aliases("guide.md", 10).beyond_bound);
        // A link to the root makes every path reachable under it, again
        // and again: bounded, and said to be.
        let root = [link("a", ".")];
        let a = aliases(&root, "src/x.rs");
        assert_eq!(
            a.paths[..2],
            ["a/src/x.rs".to_string(), "a/a/src/x.rs".to_string()]
        );
        assert!(a.beyond_bound);
        // Two links to each other reach no path.
        let cycle = [link("p", "q"), link("q", "p")];
        assert_eq!(aliases(&cycle, "r"), Aliases::default());
        assert_eq!(aliases(&cycle, "p").paths, ["q"]);
    }
}
