//! What the risk policy reads of a change's trees besides the change
//! (D-R135, D-R168, D-R174, D-R175): the auto-run configurations, the
//! directories they walk, listed (by name too), and the files they run,
//! one request a step; and the `.gitattributes` files. Shared by start,
//! finalize and the transport's checks.

use probity_core::review::{
    CandidateContent, ChangedFile, Listed, Matching, RepoPath, RiskPolicy, RunConfig, Symlink,
    TreeId,
};

use super::*;

/// The `.gitattributes` files the newest risk policy reads (v9's
/// `checkout_transforms`, D-R168): in the root and in every directory
/// holding one of `changed`, of each of `trees`, read by git's own
/// lookup (git reads an attributes file as stored, never through a
/// link), in one request of the object reader, at most
/// [`RiskPolicy::MAX_CONFIG_BYTES`] of each (a longer one passed as not
/// complete, which may apply to every file below it).
pub(crate) fn attribute_files<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    changed: &[ChangedFile],
) -> Result<Vec<RunConfig>, ReviewError> {
    if RiskPolicy::newest().checkout_transforms.is_empty() {
        return Ok(Vec::new());
    }
    let mut dirs = std::collections::BTreeSet::from([""]);
    for f in changed {
        let mut path = f.path.as_str();
        // Each parent once: a directory already listed has its own.
        while let Some((dir, _)) = path.rsplit_once('/') {
            if !dirs.insert(dir) {
                break;
            }
            path = dir;
        }
    }
    let paths: Vec<RepoPath> = dirs
        .iter()
        .filter_map(|d| match *d {
            "" => RepoPath::parse(".gitattributes").ok(),
            d => RepoPath::parse(format!("{d}/.gitattributes")).ok(),
        })
        .collect();
    read_capped(git, trees, &paths, false)
}

/// Each of `paths` of each of `trees` (the trees' order, then the
/// paths'), in one request of [`GitPort::read_paths`] (or, with
/// `followed`, [`GitPort::read_paths_followed`]), at most
/// [`RiskPolicy::MAX_CONFIG_BYTES`] of each (a longer one not complete);
/// an absent one left out.
fn read_capped<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    paths: &[RepoPath],
    followed: bool,
) -> Result<Vec<RunConfig>, ReviewError> {
    let cap = RiskPolicy::MAX_CONFIG_BYTES;
    let reads: Vec<(&TreeId, &str)> = trees
        .iter()
        .flat_map(|tree| paths.iter().map(move |p| (*tree, p.as_str())))
        .collect();
    let read = if followed {
        git.read_paths_followed(&reads, cap)?
    } else {
        git.read_paths(&reads, cap)?
    };
    let each = trees.iter().flat_map(|_| paths.iter());
    let mut out = Vec::new();
    for (path, bytes) in each.zip(read) {
        let Some(mut bytes) = bytes else {
            continue;
        };
        let complete = bytes.len() <= cap;
        bytes.truncate(cap);
        out.push(RunConfig {
            path: path.clone(),
            content: CandidateContent::Bytes { bytes, complete },
        });
    }
    Ok(out)
}

/// The auto-run configurations of `trees` whose references the newest
/// risk policy reads (D-R135): each path
/// [`RiskPolicy::reference_configs`] names, read from each tree through
/// [`GitPort::read_paths`] (no process of its own: the object reader
/// already running, asked once for them all), at most [`RiskPolicy::MAX_CONFIG_BYTES`] of it (a
/// longer one passed as not complete, which names every changed file);
/// then the directories they walk and the files they run, as
/// [`RiskPolicy::reference_step`] names them,
/// one request a step.
///
/// `links`: the trees' symbolic links (v12 reads a file reached through
/// one from where it resolves too: [`RiskPolicy::reference_step_linked`]).
pub(crate) fn run_configs<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    links: &[Symlink],
) -> Result<Vec<RunConfig>, ReviewError> {
    // The policy's own paths, all valid repository paths.
    let paths: Vec<RepoPath> = RiskPolicy::newest()
        .reference_configs()
        .iter()
        .filter_map(|name| RepoPath::parse(name).ok())
        .collect();
    // As the tools that run them read them: through the trees' links.
    let mut read = read_capped(git, trees, &paths, true)?;
    let policy = RiskPolicy::newest();
    // What they run in turn (v11), one request a step; first the
    // directories the step's commands walk, listed (v12).
    for done in 0.. {
        let mut step = policy.reference_step_linked(&read, done, links);
        let listed =
            !step.list.is_empty() || !step.list_below.is_empty() || !step.list_matching.is_empty();
        if listed {
            let bound = policy.reference_list_bound();
            list_into(git, trees, (&step.list, false), bound, &mut read)?;
            list_into(git, trees, (&step.list_below, true), bound, &mut read)?;
            match_into(git, trees, &step.list_matching, bound, &mut read)?;
            step = policy.reference_step_linked(&read, done, links);
        }
        // Files read already (a listing's marker is no file).
        let held: std::collections::BTreeSet<&str> = read
            .iter()
            .filter(|c| matches!(c.content, CandidateContent::Bytes { complete: true, .. }))
            .map(|c| c.path.as_str())
            .collect();
        let next: Vec<RepoPath> = step
            .read
            .into_iter()
            .filter(|p| !held.contains(p.as_str()))
            .filter_map(|p| RepoPath::parse(p).ok())
            .collect();
        if next.is_empty() && !listed {
            break;
        }
        read.extend(read_capped(git, trees, &next, true)?);
    }
    Ok(read)
}

/// Lists each of `dirs` in `trees` (with `below`, every file below it; at
/// most `limit` files each), reads
/// the files listed into `read`, and marks each directory listed there
/// ([`Listed::marker`]). A directory that is no repository path stays
/// unlisted: the classification then takes it as holding anything.
fn list_into<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    (dirs, below): (&[String], bool),
    limit: usize,
    read: &mut Vec<RunConfig>,
) -> Result<(), ReviewError> {
    if dirs.is_empty() {
        return Ok(());
    }
    let dirs: Vec<RepoPath> = dirs
        .iter()
        .filter_map(|d| RepoPath::parse(d).ok())
        .collect();
    let asks: Vec<(&TreeId, &str)> = trees
        .iter()
        .flat_map(|t| dirs.iter().map(move |d| (*t, d.as_str())))
        .collect();
    let answers = git.list_followed(&asks, below, limit)?;
    for (i, dir) in dirs.iter().enumerate() {
        let listed = of_trees(&answers, trees.len(), dirs.len(), i);
        read.extend(read_listed(git, trees, &listed)?);
        read.push(listed.marker(dir.clone(), below));
    }
    Ok(())
}

/// The answers for the `i`th of `asked` listings in each of `trees`
/// trees, as one ([`Listed::of_trees`]); an answer an adapter left out
/// may hold anything.
fn of_trees(answers: &[Listed], trees: usize, asked: usize, i: usize) -> Listed {
    Listed::of_trees((0..trees).map(|t| {
        answers
            .get(t * asked + i)
            .cloned()
            .unwrap_or(Listed::Unknown)
    }))
}

/// The files `listed` found, read from `trees` as the configurations are.
fn read_listed<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    listed: &Listed,
) -> Result<Vec<RunConfig>, ReviewError> {
    let files: Vec<RepoPath> = listed
        .files()
        .iter()
        .filter_map(|f| RepoPath::parse(f).ok())
        .collect();
    read_capped(git, trees, &files, true)
}

/// Lists each of `asks` (a listing by name) in `trees`, at most `limit`
/// files each, reads the files found into `read`, and adds each
/// listing's marker ([`Matching::marker`]).
fn match_into<G: GitPort + ?Sized>(
    git: &G,
    trees: &[&TreeId],
    asks: &[Matching],
    limit: usize,
    read: &mut Vec<RunConfig>,
) -> Result<(), ReviewError> {
    if asks.is_empty() {
        return Ok(());
    }
    let each: Vec<(&TreeId, &Matching)> = trees
        .iter()
        .flat_map(|t| asks.iter().map(move |m| (*t, m)))
        .collect();
    let answers = git.list_matching(&each, limit)?;
    for (i, m) in asks.iter().enumerate() {
        let listed = of_trees(&answers, trees.len(), asks.len(), i);
        read.extend(read_listed(git, trees, &listed)?);
        read.extend(m.marker(&listed));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_an_adapter_left_out_may_hold_anything() {
        let files = Listed::Files(vec!["tools/a.sh".to_string()]);
        // Two trees, one listing: both answered, then the second left out.
        let both = [files.clone(), Listed::NotADirectory];
        assert_eq!(of_trees(&both, 2, 1, 0), files);
        assert_eq!(of_trees(&both[..1], 2, 1, 0), Listed::Unknown);
        assert_eq!(of_trees(&[], 1, 1, 0), Listed::Unknown);
    }
}
