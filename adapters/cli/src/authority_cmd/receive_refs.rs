//! The refs a server-hook push is judged by: the policy bases of each
//! protected update (its old tip and the default branch, D-R110, D-R115,
//! D-R117), the creation of an unborn `HEAD`'s branch (D-R121), and the
//! ref git writes through a symbolic ref (D-R117, D-R121).

use probity_core::review::{CommitId, DefaultBranch, NOTES_REF, ReceiveUpdate};
use probity_git::Repo;
use probity_ports::review::ReceiveDenial;

use super::pre_receive::repo_err;
use crate::output::{CliError, ErrorKind};

/// Where an update's policy bases come from besides its old tip.
pub(super) enum PolicyBases<'a> {
    /// The hook: the repository's default branch ([`default_branch`]).
    Hook(&'a [CommitId]),
    /// The CI range form, whose checkout's `HEAD` is the pushed commit,
    /// never the default branch: the commits `--policy-base` names.
    Given(&'a [CommitId]),
}

/// The bases the repository policy is read from for the judged updates
/// ([`probity_core::review::protected_update_policy_bases`]): each judged
/// ref's old tip and, always, the default branch ([`PolicyBases`]);
/// deletions deliver nothing. The hook judges only protected refs; the CI
/// range form judges every update it is given, a tag included.
pub(super) fn policy_bases(
    repo: &Repo,
    updates: &[ReceiveUpdate],
    from: PolicyBases<'_>,
) -> Result<Vec<CommitId>, CliError> {
    let globs = repo.protected_refs().map_err(repo_err)?;
    let every = matches!(from, PolicyBases::Given(_));
    let judged: Vec<&ReceiveUpdate> = updates
        .iter()
        .filter(|u| {
            u.new.is_some() && (every || probity_core::review::is_protected(&globs, &u.refname))
        })
        .collect();
    let default_branch = match from {
        PolicyBases::Given(bases) | PolicyBases::Hook(bases) => bases,
    };
    let mut bases = Vec::new();
    for u in judged {
        for b in probity_core::review::protected_update_policy_bases(u.old.as_ref(), default_branch)
        {
            if !bases.contains(&b) {
                bases.push(b);
            }
        }
    }
    Ok(bases)
}

/// The repository's default branch at the hook
/// ([`probity_core::review::default_branch`]: `HEAD`'s commit, read
/// exactly, when `HEAD` names a protected ref whose commit holds the
/// repository policy) as two lists: the commits each protected update's
/// policy is read from (that commit; else every protected tip,
/// [`probity_core::review::new_ref_policy_bases`]), and the commits whose
/// history a new protected ref is measured against (that commit; else
/// the common ancestors of every protected tip that holds a policy,
/// which each of them holds: red team rounds 36 and 38; with no policy
/// anywhere, every protected tip). Nothing is read for a push
/// that updates no protected ref (`judged`: whether one does).
pub(super) fn default_branch(
    repo: &Repo,
    globs: &[String],
    judged: bool,
) -> Result<DefaultBranchTips, CliError> {
    if !judged {
        return Ok(DefaultBranchTips::default());
    }
    // `HEAD` itself, never a pushed tag or branch spelled `HEAD` that
    // git's lookup rules would also match (or take for an unborn `HEAD`).
    let head = match repo.exact_commit("HEAD").map_err(repo_err)? {
        Some(h) => {
            let holds = super::policy_gate::holds_policy(repo, &h)?;
            Some((h, holds))
        }
        None => None,
    };
    let target = repo.symbolic_target("HEAD").map_err(repo_err)?;
    let head = probity_core::review::default_branch(head, target.as_deref(), globs);
    let tips = if head == DefaultBranch::Ungoverned {
        repo.own_tips().map_err(repo_err)?
    } else {
        Vec::new()
    };
    let policy = probity_core::review::new_ref_policy_bases(head.clone(), &tips, globs);
    let vouching = match head {
        DefaultBranch::Governed(_) => policy.clone(),
        DefaultBranch::Ungoverned => {
            // What every protected tip holding a policy holds: a stale
            // branch from before the policy (which the others hold) does
            // not narrow it; with no policy anywhere, every protected
            // tip's history, as before.
            let mut holding = Vec::new();
            for tip in &policy {
                if super::policy_gate::holds_policy(repo, tip)? {
                    holding.push(tip.clone());
                }
            }
            if holding.is_empty() {
                policy.clone()
            } else {
                repo.common_ancestors(&holding).map_err(repo_err)?
            }
        }
    };
    Ok(DefaultBranchTips { policy, vouching })
}

/// What [`default_branch`] answers.
#[derive(Debug, Default)]
pub(super) struct DefaultBranchTips {
    /// The commits the policy of every protected update is read from.
    pub(super) policy: Vec<CommitId>,
    /// The commits whose history a new protected ref is measured against.
    pub(super) vouching: Vec<CommitId>,
}

/// The hook's refusal of a push that creates the branch an unborn `HEAD`
/// names while protected refs exist
/// ([`probity_core::review::check_default_branch_creation`]). Read only
/// when a push creates a branch and `HEAD` names no commit.
pub(super) fn unborn_head_creation(
    repo: &Repo,
    updates: &[ReceiveUpdate],
) -> Result<Option<ReceiveDenial>, CliError> {
    if !updates.iter().any(|u| u.old.is_none() && u.new.is_some())
        || repo.exact_commit("HEAD").map_err(repo_err)?.is_some()
    {
        return Ok(None);
    }
    let head_names = repo.symbolic_target("HEAD").map_err(repo_err)?;
    let globs = repo.protected_refs().map_err(repo_err)?;
    let protected = repo
        .own_tips()
        .map_err(repo_err)?
        .iter()
        .any(|(name, _)| probity_core::review::is_protected(&globs, name));
    for u in updates {
        if let Err(e) =
            probity_core::review::check_default_branch_creation(u, head_names.as_deref(), protected)
        {
            return Ok(Some(ReceiveDenial {
                reason_code: e.code().into(),
                refname: u.refname.clone(),
                commit: u.new.clone(),
                message: e.to_string(),
                next_action: "ask_administrator",
            }));
        }
    }
    Ok(None)
}

/// How deep git follows symbolic refs (its `SYMREF_MAXDEPTH`).
const SYMREF_DEPTH: usize = 5;

/// The ref an update of `refname` moves: a push to a symbolic ref on the
/// server (`refs/tags/latest` naming `refs/heads/main`, kept by an
/// administrator for an old name) moves, or deletes, the ref it names,
/// so it is judged as that ref (red team round 2); a protected name that
/// writes an unprotected ref is judged by the protected name.
pub(super) fn judged_name(
    repo: &Repo,
    refname: &str,
    globs: &[String],
) -> Result<String, CliError> {
    let mut name = refname.to_owned();
    for _ in 0..SYMREF_DEPTH {
        match repo.symbolic_target(&name).map_err(repo_err)? {
            Some(target) => name = target,
            None => {
                // A protected name through which git writes an unprotected
                // ref is judged by the protected name (red team round 3):
                // protection follows either name, never neither.
                let by_alias = name != NOTES_REF
                    && probity_core::review::is_protected(globs, refname)
                    && !probity_core::review::is_protected(globs, &name);
                return Ok(if by_alias { refname.to_owned() } else { name });
            }
        }
    }
    Err(CliError::new(
        ErrorKind::Repository,
        "repository_error",
        format!("{refname} is a symbolic ref more than {SYMREF_DEPTH} levels deep (or a loop)"),
        "fix the server's symbolic refs",
    ))
}

/// Splits `BASE..TIP` (two dots: commits reachable from TIP, not BASE).
pub(super) fn parse_range(spec: &str) -> Result<(String, String), CliError> {
    let bad = || {
        CliError::new(
            ErrorKind::Usage,
            "bad_range",
            format!("`{spec}` is not BASE..TIP"),
            "name two revisions joined by two dots, e.g. --range origin/main..HEAD",
        )
    };
    if spec.contains("...") {
        return Err(bad());
    }
    match spec.split_once("..") {
        Some((base, tip)) if !base.is_empty() && !tip.is_empty() && !tip.contains("..") => {
            Ok((base.to_string(), tip.to_string()))
        }
        _ => Err(bad()),
    }
}
