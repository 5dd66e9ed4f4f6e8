//! Risk policy v12's modules one step beyond the reads (red team round
//! 22's 22a, 22a2). A module a file read in turn imports, found one step
//! past [`super::FollowRule::reads`], names its directory whole (a
//! package's modules import each other: round 21's 03b, 03c). That holds
//! only while the module stays home: its own words and imports are read
//! here, and what they name outside its directory is asked of the ports
//! one request later (the files, and the directories it walks, listed).
//! When the trees hold any of it, the chain cannot be bounded: every
//! changed file may be one it runs.

use std::collections::BTreeSet;

use super::{Sink, Walk, bases_of, file_words, name_all, name_imports};
use crate::review::risk::RunConfig;
use crate::review::risk::refs::References;
use crate::review::snapshot::CandidateContent;

/// What the modules beyond the reads reach outside their directories.
#[derive(Debug, Default)]
pub(in crate::review::risk) struct Reach {
    /// Files to read, to learn whether the trees hold them.
    pub(in crate::review::risk) read: Vec<String>,
    /// Directories to list (their own files).
    pub(in crate::review::risk) list: Vec<String>,
    /// Directories to list with every file below them.
    pub(in crate::review::risk) list_below: Vec<String>,
    /// Whether every changed file may be one they run: a file outside
    /// held, a walked directory outside holding files (or not listed), a
    /// module not read whole, more names than the bound.
    pub(in crate::review::risk) anything: bool,
}

/// What `modules` (each one step beyond the reads, in `dirs`) name
/// outside `dirs`, read from the bases a step reads them from (`more`:
/// the tasks' and the commands' directories) with the environment's
/// values `env`; `configs` tells what the ports read and listed.
pub(super) fn reach(
    configs: &[RunConfig],
    modules: &[&RunConfig],
    dirs: &[String],
    (more, env): (&[&[String]], &[String]),
    bound: usize,
) -> Reach {
    let mut out = Reach::default();
    let mut scratch = References::default();
    let mut named = BTreeSet::new();
    let mut walks: Vec<Walk> = Vec::new();
    for c in modules {
        let path = c.path.as_str();
        let CandidateContent::Bytes {
            bytes,
            complete: true,
        } = &c.content
        else {
            out.anything = true;
            continue;
        };
        let text = String::from_utf8_lossy(bytes);
        let words = file_words(path, &text, false, true);
        let bases = bases_of(path, false, more);
        let mut sink = Sink {
            out: &mut scratch,
            next: &mut named,
            walks: &mut walks,
            v12: true,
            below: false,
            env,
        };
        name_all(&bases, &words, &mut sink);
        name_imports(path, &text, &bases, &mut sink);
    }
    out.anything |= scratch.unread;
    let inside = |p: &str| {
        let lower = p.to_ascii_lowercase();
        dirs.iter().any(|d| {
            lower
                .strip_prefix(d.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
    };
    let held: BTreeSet<&str> = configs
        .iter()
        .filter(|c| matches!(c.content, CandidateContent::Bytes { complete: true, .. }))
        .map(|c| c.path.as_str())
        .collect();
    let outside: Vec<String> = named.into_iter().filter(|p| !inside(p)).collect();
    if outside.len() > bound {
        out.anything = true;
        return out;
    }
    for p in outside {
        if held.contains(p.as_str()) {
            out.anything = true;
        } else {
            out.read.push(p);
        }
    }
    for w in walks {
        let marked = configs.iter().any(|c| {
            c.path.as_str() == w.dir
                && (!w.recursive || matches!(c.content, CandidateContent::Bytes { .. }))
        });
        if !marked {
            // Not listed yet: asked for, and until then anything.
            out.anything = true;
            if w.recursive {
                out.list_below.push(w.dir);
            } else {
                out.list.push(w.dir);
            }
            continue;
        }
        // Listed: a file the walk may run there is past every read.
        let holds = configs.iter().any(|c| {
            matches!(c.content, CandidateContent::Bytes { .. })
                && c.path
                    .as_str()
                    .strip_prefix(w.dir.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| w.recursive || !rest.contains('/'))
        });
        out.anything |= holds;
    }
    for l in [&mut out.list, &mut out.list_below] {
        l.sort();
        l.dedup();
    }
    out
}
