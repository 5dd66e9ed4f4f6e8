//! Symbolic links of the trees a change goes between (v4, D-R131): a
//! changed path a link resolves to is also rated as if it sat at the
//! link's path. Up to v7 a target is resolved lexically; v8 (D-R167)
//! walks it as a checkout does, and rates a changed link or submodule at
//! every link whose target passes through it. Pure: the links are an
//! input, observed from the trees by an adapter.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::checkout;
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

/// At most this many ways one link's target is walked (v8: each link met
/// before a `..` is both followed and taken for a directory); beyond it
/// the links are `unresolved`.
const MAX_WALKS: usize = 64;

/// The links that point inside the repository, by their targets resolved
/// against the links' directories and ASCII-lowercased for comparing (as
/// the path rules compare): a path is looked up once per directory it is
/// in, whatever the number of links.
pub(super) struct Links {
    /// Resolved target (`""`: the repository's root) → the links' paths,
    /// sorted.
    by_target: BTreeMap<String, Vec<String>>,
    /// v8: every path a link's target is walked through (each directory
    /// it enters, and where it ends) → the links' paths, sorted.
    passes: BTreeMap<String, Vec<String>>,
    /// v8: a link's target could not be walked within the bounds (more
    /// links followed than the policy's hops, or more than
    /// [`MAX_WALKS`] ways): it could lead anywhere.
    pub(super) unresolved: bool,
    /// v9: paths compared as a case-insensitive file system compares them
    /// ([`checkout::folded`]), not by ASCII case alone.
    fold: bool,
    /// v8: each link (by its path's key) → where its target's walks end,
    /// and whether an absolute target was met on the way (v10 reads that).
    forward: BTreeMap<String, (Vec<String>, bool)>,
}

/// How [`Links::as_checked_out`] walks targets: v8's way, and v9's.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WalkRules {
    /// v9: a target leaving the repository (absolute, or `..` above the
    /// root) may come back in: the names after a climb above the root may
    /// be the way back down to it (`../<clone>/tools`, the clone's own
    /// directory name), and any tail of an absolute target may be a path
    /// from the root (`/proc/self/cwd/tools`, `/home/u/src/repo/tools`).
    pub(super) reenter: bool,
    /// v9: paths compared as a case-insensitive file system compares them.
    pub(super) fold: bool,
}

/// The key a path is compared by: ASCII-lowercased, or under `fold` as a
/// case-insensitive file system reads it (a possible short name,
/// [`checkout::folded`]'s `None`, keeps its ASCII-lowercased form: the
/// rating of the changed file itself says it cannot be shown free).
fn key(fold: bool, path: &str) -> String {
    if fold && let Some(f) = checkout::folded(path) {
        return f;
    }
    path.to_ascii_lowercase()
}

/// What [`Links::read_through`] finds.
#[derive(Debug, Default)]
struct ReadThrough {
    paths: Vec<String>,
    absolute: bool,
    beyond_bound: bool,
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
    /// No link.
    pub(super) const fn none() -> Self {
        Self {
            by_target: BTreeMap::new(),
            passes: BTreeMap::new(),
            unresolved: false,
            fold: false,
            forward: BTreeMap::new(),
        }
    }

    /// The links of `links` whose targets stay inside the repository:
    /// relative, UTF-8, not climbing above the root; `.` and empty
    /// components skipped and `..` taken lexically.
    pub(super) fn of(links: &[Symlink]) -> Self {
        let mut by_target: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for l in links {
            let link = l.path.as_str();
            if let Some(target) = resolve(link, &l.target) {
                add(&mut by_target, target.to_ascii_lowercase(), link);
            }
        }
        Self::sorted(by_target, BTreeMap::new(), false, false)
    }

    /// The links of `links` with their targets walked as a checkout walks
    /// them (v8, D-R167), one component at a time from the link's
    /// directory: `.` and empty components skipped, `..` leaving the
    /// directory reached. A link of either tree met before a `..` (where
    /// the lexical reading and the kernel's differ) is both followed, at
    /// most `hops` deep, and taken for a directory, so the targets found
    /// hold what either tree resolves the link to. A walk climbing above
    /// the root, or whose target is absolute, empty or not UTF-8, leads
    /// outside the repository and is dropped.
    pub(super) fn as_checked_out(links: &[Symlink], hops: u64, rules: WalkRules) -> Self {
        let mut targets: BTreeMap<String, Vec<&[u8]>> = BTreeMap::new();
        for l in links {
            targets
                .entry(key(rules.fold, l.path.as_str()))
                .or_default()
                .push(&l.target);
        }
        let (mut by_target, mut passes) = (BTreeMap::new(), BTreeMap::new());
        let mut forward: BTreeMap<String, (Vec<String>, bool)> = BTreeMap::new();
        let mut unresolved = false;
        for l in links {
            let link = l.path.as_str();
            let Some(walked) = walk(link, &l.target, &targets, hops, rules) else {
                unresolved = true;
                continue;
            };
            for end in &walked.ends {
                add(&mut by_target, key(rules.fold, end), link);
            }
            for passed in &walked.passed {
                add(&mut passes, key(rules.fold, passed), link);
            }
            let entry = forward.entry(key(rules.fold, link)).or_default();
            entry.0.extend(walked.ends);
            entry.1 |= walked.absolute;
        }
        let mut out = Self::sorted(by_target, passes, unresolved, rules.fold);
        out.forward = forward;
        out
    }

    /// Whether reading `path` through the links (a link on its way
    /// replaced by where its target's walks end, at most `hops` deep)
    /// meets a link with an absolute target, or more ways than can be
    /// followed: what is there cannot be read from the trees (v10).
    pub(super) fn meets_absolute(&self, path: &str, hops: u64) -> bool {
        let read = self.read_through(path, hops);
        read.absolute || read.beyond_bound
    }

    /// Where `path` is when read through the links, as a kernel resolves
    /// it (a script's real path: Python puts its directory first on
    /// `sys.path`, Node resolves its imports from there; red team round
    /// 33's 33psl): `path` itself and every path met replacing a link on
    /// its way by where its target's walks end, at most `hops` deep
    /// (v12). `None` beyond the bound: it could be anywhere.
    pub(super) fn real_paths(&self, path: &str, hops: u64) -> Option<Vec<String>> {
        let read = self.read_through(path, hops);
        (!read.beyond_bound).then_some(read.paths)
    }

    /// `path` read through the links ([`Links::meets_absolute`],
    /// [`Links::real_paths`]): each path met, whether a link with an
    /// absolute target was, and whether more ways were left than can be
    /// followed (more than `hops` rounds, or more than [`MAX_ALIASES`]
    /// paths at one: at most `hops + 1` times that many paths).
    fn read_through(&self, path: &str, hops: u64) -> ReadThrough {
        let mut out = ReadThrough {
            paths: vec![path.to_string()],
            ..ReadThrough::default()
        };
        if self.forward.is_empty() {
            return out;
        }
        let mut frontier = vec![path.to_string()];
        for _ in 0..=hops {
            let mut next = Vec::new();
            for q in &frontier {
                let ends = q
                    .match_indices('/')
                    .map(|(i, _)| i)
                    .chain(std::iter::once(q.len()));
                for end in ends {
                    let Some((targets, absolute)) = self.forward.get(&key(self.fold, &q[..end]))
                    else {
                        continue;
                    };
                    out.absolute |= *absolute;
                    for t in targets {
                        let rest = q[end..].trim_start_matches('/');
                        next.push(match (t.as_str(), rest) {
                            ("", r) | (r, "") => r.to_string(),
                            (t, r) => format!("{t}/{r}"),
                        });
                    }
                }
            }
            if next.is_empty() {
                return out;
            }
            if next.len() > MAX_ALIASES {
                out.beyond_bound = true;
                return out;
            }
            out.paths.extend(next.iter().cloned());
            frontier = next;
        }
        out.beyond_bound = true;
        out
    }

    fn sorted(
        mut by_target: BTreeMap<String, Vec<String>>,
        mut passes: BTreeMap<String, Vec<String>>,
        unresolved: bool,
        fold: bool,
    ) -> Self {
        for paths in by_target.values_mut().chain(passes.values_mut()) {
            paths.sort();
            paths.dedup();
        }
        Self {
            by_target,
            passes,
            unresolved,
            fold,
            ..Self::none()
        }
    }

    /// Whether no link points inside the repository.
    pub(super) fn is_empty(&self) -> bool {
        self.by_target.is_empty() && self.passes.is_empty()
    }

    /// `q` seen through each link whose target is `q` or a directory
    /// holding it: the link's path, joined with the rest under a directory.
    fn through(&self, q: &str) -> Vec<String> {
        let ends = std::iter::once(0)
            .chain(q.match_indices('/').map(|(i, _)| i))
            .chain(std::iter::once(q.len()));
        let mut out = Vec::new();
        for end in ends {
            let Some(links) = self.by_target.get(&key(self.fold, &q[..end])) else {
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

    /// The links whose target is walked through `q` (v8).
    fn passing(&self, q: &str) -> &[String] {
        self.passes
            .get(&key(self.fold, q))
            .map_or(&[], Vec::as_slice)
    }

    /// The paths `path` is also reached at: a link whose target is `path`
    /// gives the link's own path, a link whose target is a directory
    /// holding `path` gives the link's path joined with the rest; each
    /// such path is followed again (a chain of links, or a link inside a
    /// linked directory), at most `hops` links deep. `moved`: what is at
    /// `path` is a link or submodule that changes (v8), so every link
    /// whose target passes through it (or through a path it is reached
    /// at) changes what it points at too, and is one of the paths.
    pub(super) fn aliases(&self, path: &str, hops: u64, moved: bool) -> Aliases {
        let mut out = Aliases::default();
        if hops == 0 || self.is_empty() {
            return out;
        }
        let mut frontier = vec![path.to_string()];
        for depth in 0..=hops {
            let mut next = Vec::new();
            for q in &frontier {
                let passing = if moved { self.passing(q) } else { &[] };
                for alias in self.through(q).into_iter().chain(passing.iter().cloned()) {
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

fn add(map: &mut BTreeMap<String, Vec<String>>, key: String, link: &str) {
    map.entry(key).or_default().push(link.to_string());
}

/// A target's components, or `None` for an absolute, empty or non-UTF-8
/// target or one holding a NUL byte (none leads inside the repository).
fn components(target: &[u8]) -> Option<Vec<&str>> {
    let target = std::str::from_utf8(target).ok()?;
    if target.is_empty() || target.starts_with('/') || target.contains('\0') {
        return None;
    }
    Some(target.split('/').collect())
}

/// The ways a walk of `target` from the directory `at` starts: one for a
/// relative target; under `reenter`, one from the root for each tail of
/// an absolute target's components; none for a target that cannot lead
/// inside.
fn starts<'a>(target: &'a [u8], at: Vec<&'a str>, followed: u64, reenter: bool) -> Vec<Way<'a>> {
    if let Some(parts) = components(target) {
        return vec![Way {
            at,
            rest: parts.into_iter().rev().collect(),
            followed,
            outside: 0,
        }];
    }
    let absolute = std::str::from_utf8(target)
        .ok()
        .filter(|t| reenter && t.starts_with('/') && !t.contains('\0'));
    let Some(absolute) = absolute else {
        return Vec::new();
    };
    let parts: Vec<&str> = absolute.split('/').filter(|c| !c.is_empty()).collect();
    (0..parts.len())
        .map(|i| Way {
            at: Vec::new(),
            rest: parts[i..].iter().rev().copied().collect(),
            followed,
            outside: 0,
        })
        .collect()
}

/// Where one link's target is walked to (v8): each end inside the
/// repository, and each path the walks pass.
#[derive(Debug, Default, PartialEq, Eq)]
struct Walked {
    ends: Vec<String>,
    passed: Vec<String>,
    /// An absolute target was met (the link's own or one it followed).
    absolute: bool,
}

/// One way of walking a target: the directory reached, the components
/// still to walk (the next last), the links followed so far, and (v9) how
/// many levels above the root the walk is.
struct Way<'a> {
    at: Vec<&'a str>,
    rest: Vec<&'a str>,
    followed: u64,
    outside: usize,
}

/// The target of the link at `link` walked as a checkout walks it
/// ([`Links::as_checked_out`]), following the links of `links` (lowercased
/// path → targets); `None` beyond the bounds.
fn walk<'a>(
    link: &'a str,
    target: &'a [u8],
    links: &BTreeMap<String, Vec<&'a [u8]>>,
    hops: u64,
    rules: WalkRules,
) -> Option<Walked> {
    let mut out = Walked::default();
    let mut at: Vec<&str> = link.split('/').collect();
    at.pop();
    out.absolute = target.starts_with(b"/");
    let mut ways = starts(target, at, 0, rules.reenter);
    let mut started = ways.len();
    if started > MAX_WALKS {
        return None;
    }
    'ways: while let Some(mut way) = ways.pop() {
        while let Some(c) = way.rest.pop() {
            match c {
                "" | "." => continue,
                ".." => {
                    if way.at.pop().is_none() {
                        if !rules.reenter {
                            continue 'ways;
                        }
                        way.outside += 1;
                    }
                    continue;
                }
                // Above the root, a name may be the way back down.
                _ if way.outside > 0 => {
                    way.outside -= 1;
                    continue;
                }
                name => way.at.push(name),
            }
            let here = way.at.join("/");
            // A link met before a `..` is left by the `..` as the kernel
            // leaves it: from where its own target leads.
            let followed = if way.rest.contains(&"..") {
                links.get(&key(rules.fold, &here))
            } else {
                None
            };
            out.passed.push(here);
            for t in followed.into_iter().flatten() {
                if way.followed == hops {
                    return None;
                }
                let mut from = way.at.clone();
                from.pop();
                out.absolute |= t.starts_with(b"/");
                for mut next in starts(t, from, way.followed + 1, rules.reenter) {
                    next.rest.splice(0..0, way.rest.iter().copied());
                    ways.push(next);
                    started += 1;
                    if started > MAX_WALKS {
                        return None;
                    }
                }
            }
        }
        if way.outside == 0 {
            out.ends.push(way.at.join("/"));
        }
    }
    Some(out)
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
        Links::of(links).aliases(path, 8, false)
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

    /// Where a script is when read through the links (33psl): the file
    /// link's target, a linked directory on the way, a chain; a loop is
    /// beyond the bound; without links, the path itself.
    #[test]
    fn a_path_is_read_where_its_links_resolve() {
        let links = [
            link("tools/check.py", "../scripts/check.py"),
            link("scripts", "real/scripts"),
            link("a", "b"),
            link("b", "a"),
        ];
        let links = Links::as_checked_out(&links, 8, WalkRules::default());
        let mut real = links.real_paths("tools/check.py", 8).unwrap();
        real.sort();
        assert_eq!(
            real,
            [
                "real/scripts/check.py",
                "scripts/check.py",
                "tools/check.py"
            ]
        );
        assert_eq!(links.real_paths("docs/x.py", 8).unwrap(), ["docs/x.py"]);
        assert_eq!(links.real_paths("a/x.py", 8), None);
        assert_eq!(
            Links::none().real_paths("tools/check.py", 8).unwrap(),
            ["tools/check.py"]
        );
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
        let a = Links::of(&chain).aliases("guide.md", 8, false);
        assert!(a.beyond_bound);
        assert!(
            !Links::of(&chain)
                .aliases("guide.md", 10, false)
                .beyond_bound
        );
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

    fn checked_out(links: &[Symlink], path: &str, moved: bool) -> Vec<String> {
        let links = Links::as_checked_out(links, 8, WalkRules::default());
        assert!(!links.unresolved);
        links.aliases(path, 8, moved).paths
    }

    /// Red team round 13, 01 (D-R167): `tools/cur/../vscode` is
    /// `tools/vscode` while `tools/cur` is a directory, and `tools/deep`
    /// once it is a link `deep/er`: the kernel leaves the link's target.
    #[test]
    fn a_link_met_before_a_dot_dot_is_followed_and_taken_for_a_directory() {
        let vscode = link(".vscode", "tools/cur/../vscode");
        let both = [vscode.clone(), link("tools/cur", "deep/er")];
        for at in ["tools/vscode/tasks.json", "tools/deep/vscode/tasks.json"] {
            assert_eq!(
                checked_out(&both, at, false),
                [".vscode/tasks.json"],
                "{at}"
            );
        }
        // Without the link `tools/cur`, only the lexical reading; and v4
        // to v7 read it lexically whatever the trees hold.
        assert!(checked_out(&[vscode], "tools/deep/vscode/tasks.json", false).is_empty());
        assert!(
            aliases(&both, "tools/deep/vscode/tasks.json")
                .paths
                .is_empty()
        );
        // No `..` after it: the link is not followed in the walk (a chain
        // of aliases finds it), yet it is passed.
        let plain = [
            link(".vscode", "tools/cur/vscode"),
            link("tools/cur", "deep"),
        ];
        assert_eq!(
            checked_out(&plain, "tools/deep/vscode/tasks.json", false),
            ["tools/cur/vscode/tasks.json", ".vscode/tasks.json"]
        );
    }

    /// A link or submodule that changes moves every link walked through
    /// it, transitively; an unchanged one moves nothing.
    #[test]
    fn a_changed_link_moves_every_link_passing_through_it() {
        let links = [
            link(".vscode", "tools/cur/vscode"),
            link(".husky", "tools/cur/../hooks"),
            link("tools/cur", "deep"),
            link("AGENTS.md", "docs/guide.md"),
        ];
        assert_eq!(
            checked_out(&links, "tools/cur", true),
            [".husky", ".vscode"]
        );
        // `tools/deep` is passed by the link `tools/cur`, which `.vscode`
        // passes: both move.
        assert_eq!(
            checked_out(&links, "tools/deep", true),
            ["tools/cur", ".husky", ".vscode"]
        );
        assert!(checked_out(&links, "tools/cur", false).is_empty());
        assert!(checked_out(&links, "docs", true).contains(&"AGENTS.md".to_string()));
    }

    /// A walk that follows more links than the bound, or loops, leaves the
    /// links unresolved; a target leading outside leads nowhere.
    #[test]
    fn a_walk_beyond_the_bounds_is_unresolved() {
        let looped = [link("a", "a/../x")];
        assert!(Links::as_checked_out(&looped, 8, WalkRules::default()).unresolved);
        let out = [link("a", "../x"), link("b", "/etc"), link("c", "")];
        let links = Links::as_checked_out(&out, 8, WalkRules::default());
        assert!(!links.unresolved && links.is_empty());
        // Sixteen links, each met before a `..`: more ways than allowed.
        let mut wide: Vec<Symlink> = (0..16).map(|i| link("d", &format!("e{i}"))).collect();
        wide.push(link("x", "d/../d/../d/../y"));
        assert!(Links::as_checked_out(&wide, 8, WalkRules::default()).unresolved);
    }

    /// Red team round 14, 02 (D-R168): `../<clone>/tools/vscode` climbs
    /// out of the repository and comes back in through the clone's own
    /// directory name; an absolute target may end inside it. v9 takes
    /// the names after a climb as the way back, and any tail of an
    /// absolute target as a path from the root.
    #[test]
    fn a_target_leaving_the_repository_may_come_back_in() {
        let v9 = WalkRules {
            reenter: true,
            fold: true,
        };
        let at = |links: &[Symlink], path: &str, rules: WalkRules| {
            Links::as_checked_out(links, 8, rules)
                .aliases(path, 8, false)
                .paths
        };
        let climbing = [link(".vscode", "../server/tools/vscode")];
        assert_eq!(
            at(&climbing, "tools/vscode/tasks.json", v9),
            [".vscode/tasks.json"]
        );
        assert!(at(&climbing, "tools/vscode/tasks.json", WalkRules::default()).is_empty());
        let deep = [link("a/b", "../../../x/y/tools")];
        assert_eq!(at(&deep, "tools/t.json", v9), ["a/b/t.json"]);
        let absolute = [link(".vscode", "/proc/self/cwd/tools/vscode")];
        assert_eq!(
            at(&absolute, "tools/vscode/tasks.json", v9),
            [".vscode/tasks.json"]
        );
        // Climbing out for good: no way back in names nothing.
        assert!(at(&[link("l", "../..")], "x", v9).is_empty());
        // Folded: `toolſ` is `tools` on a case-insensitive file system.
        let folded = [link(".vscode", "toolſ/vscode")];
        assert_eq!(
            at(&folded, "tools/vscode/tasks.json", v9),
            [".vscode/tasks.json"]
        );
    }
}
