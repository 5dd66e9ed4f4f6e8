//! What the ports read of a tree held in memory, for tests
//! ([`ports_read`]; `fixtures::ports_read` outside the crate).

use std::collections::{BTreeMap, BTreeSet};

use super::{Listed, RiskPolicy, RunConfig, Symlink};
use crate::review::ids::RepoPath;
use crate::review::snapshot::CandidateContent;

/// What the ports pass the classification for a tree held in memory
/// (paths and bytes), as `probity-ports`' `run_configs` reads a real one:
/// the newest policy's configurations, then each step's listings (a
/// directory's own files, every file below it, or those a listing by
/// name matches; more than the policy's bound is unknown) and reads, as [`RiskPolicy::reference_step`] asks,
/// until a step asks nothing. A file is among the configurations only
/// once asked for. For core's tests, the property tests and the fuzz
/// target; `None` if the steps have not ended after 256 (past the
/// policy's last step every step is empty, so they always should).
pub fn ports_read(tree: &BTreeMap<String, Vec<u8>>) -> Option<Vec<RunConfig>> {
    ports_read_linked(tree, &[])
}

/// [`ports_read`] for a tree that also holds `links` (each step asked
/// with [`RiskPolicy::reference_step_linked`]). `tree` holds what the
/// ports read at each path, a linked one's too (through the link).
pub fn ports_read_linked(
    tree: &BTreeMap<String, Vec<u8>>,
    links: &[Symlink],
) -> Option<Vec<RunConfig>> {
    let policy = RiskPolicy::newest();
    let read_of = |paths: &[String]| -> Vec<RunConfig> {
        paths
            .iter()
            .filter_map(|p| {
                let bytes = tree.get(p)?;
                Some(RunConfig {
                    path: RepoPath::parse(p).ok()?,
                    content: CandidateContent::Bytes {
                        bytes: bytes.clone(),
                        complete: true,
                    },
                })
            })
            .collect()
    };
    let mut read = read_of(policy.reference_configs());
    for done in 0..=u8::MAX {
        let mut step = policy.reference_step_linked(&read, done, links);
        let listed =
            !step.list.is_empty() || !step.list_below.is_empty() || !step.list_matching.is_empty();
        for (dirs, below) in [(&step.list, false), (&step.list_below, true)] {
            for d in dirs {
                let prefix = format!("{d}/");
                let found: Vec<String> = tree
                    .keys()
                    .filter(|p| {
                        p.strip_prefix(prefix.as_str())
                            .is_some_and(|rest| below || !rest.contains('/'))
                    })
                    .cloned()
                    .collect();
                let answer = if found.len() > policy.reference_list_bound() {
                    Listed::Unknown
                } else if found.is_empty() {
                    Listed::NotADirectory
                } else {
                    Listed::Files(found)
                };
                read.extend(read_of(answer.files()));
                if let Ok(at) = RepoPath::parse(d) {
                    read.push(answer.marker(at, below));
                }
            }
        }
        for m in &step.list_matching {
            let prefix = format!("{}/", m.dir());
            let found: Vec<String> = tree
                .keys()
                .filter(|p| (m.dir().is_empty() || p.starts_with(prefix.as_str())) && m.keeps(p))
                .cloned()
                .collect();
            let answer = if found.len() > policy.reference_list_bound() {
                Listed::Unknown
            } else {
                Listed::Files(found)
            };
            read.extend(read_of(answer.files()));
            read.extend(m.marker(&answer));
        }
        if listed {
            step = policy.reference_step_linked(&read, done, links);
        }
        let held: BTreeSet<&str> = read
            .iter()
            .filter(|c| matches!(c.content, CandidateContent::Bytes { complete: true, .. }))
            .map(|c| c.path.as_str())
            .collect();
        let next: Vec<String> = step
            .read
            .into_iter()
            .filter(|p| !held.contains(p.as_str()))
            .collect();
        if next.is_empty() && !listed {
            return Some(read);
        }
        let more = read_of(&next);
        read.extend(more);
    }
    None
}
