//! Where the names risk policy v11 and v12 read go ([`Sink`]): the
//! references, the files to read next, the directories to walk and list
//! (by name too), and the files read for a tool's keys only.

use std::collections::BTreeSet;

use super::{References, RunConfig, Vars, Walk, refs};
use crate::review::snapshot::CandidateContent;

/// Where names go: `out`'s paths and suffixes (lowercased, as v5's
/// references are) and, for a file to read, `next`.
pub(super) struct Sink<'a> {
    pub(super) out: &'a mut References,
    pub(super) next: &'a mut BTreeSet<String>,
    /// The directories the commands walk (v12).
    pub(super) walks: &'a mut Vec<Walk>,
    /// Under v12.
    pub(super) v12: bool,
    /// Whether what is added now also names what is below it and its
    /// stem (v12, a piece that is not a file only).
    pub(super) below: bool,
    /// What the files followed assign each variable (v12).
    pub(super) vars: &'a Vars,
    /// The files to read for a tool's own keys only (v12: pytest's
    /// configuration).
    pub(super) keyed: &'a mut BTreeSet<String>,
    /// Those of them read as pytest's configuration where pytest may run
    /// elsewhere than its root directory (`-c FILE`: red team round 31).
    pub(super) moved: &'a mut BTreeSet<String>,
    /// What the ports have read (to tell what a listing found).
    pub(super) configs: &'a [RunConfig],
    /// The trees' links (v12: a script's real directory).
    pub(super) reach: Reach<'a>,
}

impl Sink<'_> {
    pub(super) fn add(&mut self, path: String, read: bool) {
        let lower = path.to_ascii_lowercase();
        if self.below {
            self.out.below.push(lower.clone());
        }
        self.out.paths.push(lower);
        if read {
            self.next.insert(path);
        }
    }

    /// v12: the glob `piece` from each of `dirs` (and, after a variable,
    /// at any depth).
    pub(super) fn glob(&mut self, dirs: &[String], piece: &str, anywhere: bool) {
        let mut patterns = joined(dirs, piece);
        // A glob in its last component only walks the directory before
        // it: its files are read in turn (red team round 19's 01b).
        // A wildcard in a middle component walks every file below the
        // directory before it (round 20's 01d: `tools/*/run.sh`).
        for p in &patterns {
            let parts: Vec<&str> = p.split('/').collect();
            let Some(first) = parts.iter().position(|c| c.contains(['*', '?', '['])) else {
                continue;
            };
            if first == 0 {
                continue;
            }
            if let Ok(Some(glob)) =
                crate::snapshot_tools::Glob::parse(p.to_ascii_lowercase().as_bytes())
            {
                self.walks.push(Walk {
                    dir: parts[..first].join("/"),
                    glob: Some(glob),
                    recursive: first + 1 < parts.len(),
                    matching: None,
                });
            }
        }
        if anywhere {
            patterns.push(format!("**/{}", piece.trim_start_matches('/')));
        }
        for p in patterns {
            self.out.add_glob(&p);
        }
    }

    /// v12: globs matched at any depth (`test_*.py`, `__tests__`).
    pub(super) fn anywhere_globs(&mut self, globs: &[&str]) {
        for g in globs {
            self.out.add_glob(&format!("**/{g}"));
        }
    }

    /// v12: the files below each of `dirs` (the root too) whose name one
    /// of `names` matches are listed by name and read in turn (red team
    /// round 27's 27fa, 27na, 27ua: `find . -name '*_check.sh'`, `npm
    /// --workspaces`, a test runner's discovery).
    pub(super) fn matching(&mut self, dirs: &[String], names: &[&str]) {
        for d in dirs {
            for name in names {
                if let Some(m) = refs::Matching::new(d, name) {
                    // What it finds is named, and read in turn.
                    self.out.add_glob(m.pattern());
                    self.walks.push(Walk {
                        dir: d.clone(),
                        glob: None,
                        recursive: true,
                        matching: Some(m),
                    });
                }
            }
        }
    }

    /// `files` in each of `dirs`, named, and read for their keys only
    /// ([`runners::read_pytest_config`]); `moved`: where pytest may run
    /// elsewhere than its root directory.
    pub(super) fn keys(&mut self, dirs: &[String], files: &[&str], moved: bool) {
        for d in dirs {
            for f in files {
                if let Some(p) = refs::normalise_cased(&format!("{d}/{f}")) {
                    self.add(p.clone(), false);
                    if moved {
                        self.moved.insert(p.clone());
                    }
                    self.keyed.insert(p);
                }
            }
        }
    }

    /// The texts of the file at `path` the ports have read whole (each
    /// tree's).
    pub(super) fn texts(&self, path: &str) -> Vec<String> {
        self.configs
            .iter()
            .filter_map(|c| match &c.content {
                CandidateContent::Bytes {
                    bytes,
                    complete: true,
                } if c.path.as_str() == path => Some(String::from_utf8_lossy(bytes).into_owned()),
                CandidateContent::Absent | CandidateContent::Bytes { .. } => None,
            })
            .collect()
    }

    /// Whether the listing `m` found a file in either tree below its
    /// directory as written, in its own case (pytest globs `testpaths` in
    /// their case: red team round 32's 32pcs): `None` while the ports
    /// have not listed it.
    pub(super) fn found(&self, m: &refs::Matching) -> Option<bool> {
        let mut listed = false;
        let mut found = false;
        for c in self.configs {
            let path = c.path.as_str();
            let below = m.dir().is_empty()
                || path
                    .strip_prefix(m.dir())
                    .is_some_and(|rest| rest.starts_with('/'));
            if path == m.pattern() {
                listed = true;
            } else if below && matches!(c.content, CandidateContent::Bytes { .. }) && m.keeps(path)
            {
                found = true;
            }
        }
        listed.then_some(found)
    }

    /// `files` in each of `dirs`.
    pub(super) fn each(&mut self, dirs: &[String], files: &[&str], read: bool) {
        for d in dirs {
            for f in files {
                if let Some(p) = refs::normalise_cased(&format!("{d}/{f}")) {
                    self.add(p, read);
                }
            }
        }
    }

    /// `tail` at any depth: the file itself, or under any directory.
    pub(super) fn anywhere(&mut self, tail: &str) {
        if let Some(t) = refs::normalise(tail) {
            self.out.suffixes.push(t);
        }
    }
}

/// `piece` from each of `dirs` (a piece starting with `/` from the root
/// only), normalised, case kept.
pub(super) fn joined(dirs: &[String], piece: &str) -> Vec<String> {
    if piece.starts_with('/') {
        return refs::normalise_cased(piece).into_iter().collect();
    }
    dirs.iter()
        .filter_map(|d| refs::normalise_cased(&format!("{d}/{piece}")))
        .collect()
}

/// The trees' links as the policy follows them, and how deep: v12 reads
/// a file reached through a link from where the link resolves too (red
/// team round 33's 33psl: Python puts a linked script's real directory
/// first on `sys.path`, Node resolves its imports from there).
#[derive(Clone, Copy)]
pub(in crate::review::risk) struct Reach<'a> {
    pub(in crate::review::risk) links: &'a crate::review::risk::links::Links,
    pub(in crate::review::risk) hops: u64,
}

#[cfg(test)]
impl Reach<'static> {
    /// No link.
    pub(in crate::review::risk) fn none() -> Self {
        static NONE: crate::review::risk::links::Links = crate::review::risk::links::Links::none();
        Reach {
            links: &NONE,
            hops: 0,
        }
    }
}

impl Reach<'_> {
    /// The directories `path` is in when read through the links, its
    /// own first; `None` beyond the policy's bound (it could be anywhere).
    pub(in crate::review::risk) fn real_dirs(self, path: &str) -> Option<Vec<String>> {
        let mut dirs: Vec<String> = self
            .links
            .real_paths(path, self.hops)?
            .into_iter()
            .map(|p| {
                p.rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_string())
            })
            .collect();
        let own = dirs.first().cloned();
        dirs.sort();
        dirs.dedup();
        if let Some(own) = own {
            dirs.retain(|d| *d != own);
            dirs.insert(0, own);
        }
        Some(dirs)
    }
}
