//! The repository policy at the server and CI gates (issue 20 §2–§3): read
//! from the base each protected update is judged against (the ref's old
//! tip; a new ref: the repository's default branch), never from the pushed
//! or proposed tree, together with the allowed-signers file it names in the
//! same base (unless the server's own `probity.allowedSignersFile` is set).
//!
//! Per bundle, for every policy in force: each record whose trees are here
//! must have frozen at least the tier the policy's floor gives its change
//! (`policy_floor_unmet`), and each approved review of the chain that
//! authorizes a delivery must carry signatures filling the roles its tier
//! names, each by a different key (`roles_unmet`); where the policy asks
//! for `transcripts` at its tier, its lens results must be model runs
//! bound to the frozen prompts (`transcripts_unmet`). The required checks
//! (`.probity/checks.json`, D-R69) of the same bases hold each such review
//! to the check its paths require, through the command evidence its
//! bundle carries (`checks_unmet`). The rules are core's
//! (`probity_core::review`: the policy and the required checks); this module reads and
//! sequences.

use std::path::{Path, PathBuf};

use probity_core::review::Bundle;
use probity_core::review::CommitId;
use probity_core::review::NOTES_REF;
use probity_core::review::TreeId;
use probity_core::review::check_transcripts;
use probity_core::review::{CHECKS_PATH, MAX_CHECKS_BYTES, RepoChecks};
use probity_core::review::{MAX_POLICY_BYTES, POLICY_PATH, RepoPolicy, check_floor};
use probity_git::Repo;
use probity_ports::review::{ReceiveDenial, SshSignatures, verified_keys};

use crate::output::{CliError, ErrorKind};

/// The most bytes an allowed-signers file read from a base may have (as
/// the adapter bounds a configured one).
const MAX_BASE_SIGNERS_BYTES: usize = 1024 * 1024;

/// A policy in force for this judgement, with the base it was read from.
pub struct BasePolicy {
    /// The commit the policy was read from.
    pub base: CommitId,
    /// The policy.
    pub policy: RepoPolicy,
    /// The allowed-signers file its signatures are checked against: the
    /// server's configured file, or the one the policy names in the base,
    /// copied to a temporary file that is removed with this value.
    signers: Option<Signers>,
}

enum Signers {
    Configured(PathBuf),
    FromBase(probity_scratch::RegisteredTemp),
}

impl BasePolicy {
    /// The allowed-signers file this policy's signatures are checked
    /// against, if any.
    pub fn signers_path(&self) -> Option<&Path> {
        self.signers.as_ref().map(Signers::path)
    }
}

impl Signers {
    fn path(&self) -> &Path {
        match self {
            Signers::Configured(p) => p,
            Signers::FromBase(t) => t.path(),
        }
    }
}

/// What the gate says of the protections when no base has a policy.
pub const NO_POLICY_NOTE: &str = "no repository policy (.probity/policy.json) in the protected base: role signatures and risk floors are off (single-developer mode); `probity policy show` says what is on";

fn invalid(base: &CommitId, why: String) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "policy_invalid",
        format!("the repository policy ({POLICY_PATH}) at the protected base {base}: {why}"),
        "fix .probity/policy.json on the protected branch (check it with `probity policy check`); an administrator updates the branch on the server when every push is refused",
    )
}

fn repo_error(e: probity_git::GitError) -> CliError {
    if let probity_git::GitError::TreeMalformed(_) = e {
        // A base whose policy cannot be read as git would read it: the
        // gate fails closed (D-R160).
        return CliError::new(
            ErrorKind::RejectedInput,
            "tree_malformed",
            e.to_string(),
            "the base's tree is not one git writes (`git fsck` names it): an administrator repairs the branch on the server (a commit whose tree git wrote, `git update-ref` in the server's repository), then push again",
        );
    }
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "check the repository and retry",
    )
}

/// Whether `base`'s tree holds the repository policy file (whatever it
/// says: a malformed one is the policy read's error to report).
pub fn holds_policy(repo: &Repo, base: &CommitId) -> Result<bool, CliError> {
    Ok(repo
        .read_path(base.as_str(), POLICY_PATH, MAX_POLICY_BYTES)
        .map_err(repo_error)?
        .is_some())
}

/// Reads the policy at each of `bases` (deduplicated; a base without a
/// policy contributes nothing). `configured`: the server's own
/// `probity.allowedSignersFile`, which takes precedence over the file a
/// policy names. A policy that does not parse, or names an allowed-signers
/// file its base does not hold while it asks for signatures, is refused
/// (`policy_invalid`): the gate fails closed.
pub fn read_policies(
    repo: &Repo,
    bases: &[CommitId],
    configured: Option<&Path>,
) -> Result<Vec<BasePolicy>, CliError> {
    let mut seen: Vec<&CommitId> = Vec::new();
    // The policies (and their signers) already in force, by content: many
    // bases holding one policy (every protected tip, under an ungoverned
    // default branch) apply it once (red team round 3).
    let mut in_force: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let mut out = Vec::new();
    for base in bases {
        if seen.contains(&base) {
            continue;
        }
        seen.push(base);
        let Some(bytes) = repo
            .read_path(base.as_str(), POLICY_PATH, MAX_POLICY_BYTES)
            .map_err(repo_error)?
        else {
            continue;
        };
        let policy = RepoPolicy::parse(&bytes).map_err(|e| invalid(base, e.to_string()))?;
        // The signers file's bytes when the base names one (the server's
        // own file, when configured, is the same for every base).
        let base_signers = match (configured, policy.allowed_signers()) {
            (None, Some(path)) => {
                let signers = repo
                    .read_path(base.as_str(), path, MAX_BASE_SIGNERS_BYTES)
                    .map_err(repo_error)?
                    .ok_or_else(|| {
                        invalid(
                            base,
                            format!(
                                "it names allowed signers `{path}`, which the base does not hold"
                            ),
                        )
                    })?;
                if signers.len() > MAX_BASE_SIGNERS_BYTES {
                    return Err(invalid(
                        base,
                        format!(
                            "its allowed signers `{path}` are over {MAX_BASE_SIGNERS_BYTES} bytes"
                        ),
                    ));
                }
                Some(signers)
            }
            _ => None,
        };
        let content = (bytes, base_signers);
        if in_force.contains(&content) {
            continue;
        }
        let signers = match (configured, &content.1) {
            (Some(p), _) => Some(Signers::Configured(p.to_path_buf())),
            (None, Some(signers)) => {
                let mut tmp =
                    probity_scratch::RegisteredTemp::new().map_err(|e| repo_error(e.into()))?;
                std::io::Write::write_all(&mut tmp, signers).map_err(|e| repo_error(e.into()))?;
                Some(Signers::FromBase(tmp))
            }
            (None, None) => None,
        };
        in_force.push(content);
        if policy.requires_signatures() && signers.is_none() {
            return Err(invalid(
                base,
                "it asks for signatures but names no allowed_signers, and the server configures none (probity.allowedSignersFile)".into(),
            ));
        }
        out.push(BasePolicy {
            base: base.clone(),
            policy,
            signers,
        });
    }
    Ok(out)
}

fn deny(code: &str, message: String, next_action: &'static str) -> ReceiveDenial {
    ReceiveDenial {
        reason_code: code.to_owned(),
        refname: NOTES_REF.into(),
        commit: None,
        message,
        next_action,
    }
}

/// Whether both trees of a record are here. A record whose trees are not
/// here authorizes nothing here (as `check_repo` reads it) and is
/// skipped; a failure to ask is a denial, never a skipped check.
fn trees_here(
    repo: &Repo,
    a: &probity_core::review::TreeId,
    b: &probity_core::review::TreeId,
) -> Result<bool, ReceiveDenial> {
    let pair = [a.to_string(), b.to_string()];
    let missing = probity_ports::review::ExportGit::missing_objects(repo, &pair).map_err(|e| {
        deny(
            "server_misconfigured",
            format!("the server could not read its objects: {e}"),
            "ask_administrator",
        )
    })?;
    Ok(missing.is_empty())
}

/// Required checks in force for this judgement, with the base they were
/// read from.
pub struct BaseChecks {
    /// The commit the checks were read from.
    pub base: CommitId,
    /// The checks.
    pub checks: RepoChecks,
}

/// Reads the required checks ([`CHECKS_PATH`]) at each of `bases`
/// (deduplicated; a base without them contributes nothing). A document
/// that does not parse is refused (`policy_invalid`): the gate fails
/// closed.
pub fn read_checks(repo: &Repo, bases: &[CommitId]) -> Result<Vec<BaseChecks>, CliError> {
    let mut out: Vec<BaseChecks> = Vec::new();
    for base in bases {
        if out.iter().any(|c| c.base == *base) {
            continue;
        }
        let Some(bytes) = repo
            .read_path(base.as_str(), CHECKS_PATH, MAX_CHECKS_BYTES)
            .map_err(repo_error)?
        else {
            continue;
        };
        let checks = RepoChecks::parse(&bytes).map_err(|e| {
            CliError::new(
                ErrorKind::RejectedInput,
                "policy_invalid",
                format!("the required checks ({CHECKS_PATH}) at the protected base {base}: {e}"),
                "fix .probity/checks.json on the protected branch (check it with `probity policy check --checks FILE`); an administrator updates the branch on the server when every push is refused",
            )
        })?;
        out.push(BaseChecks {
            base: base.clone(),
            checks,
        });
    }
    Ok(out)
}

/// The records of `bundle` that `statements` name, each with its
/// statement; a lineage the bundle does not hold is passed over.
fn stated_records<'a>(
    bundle: &'a Bundle,
    statements: &'a [(probity_core::review::LineageId, Vec<u8>)],
) -> impl Iterator<Item = (&'a probity_core::review::StateRecord, &'a Vec<u8>)> {
    statements.iter().filter_map(|(lineage, statement)| {
        bundle
            .records
            .iter()
            .find(|r| r.state().lineage_id() == lineage)
            .map(|record| (record, statement))
    })
}

/// Holds every approved review of `bundle` that could authorize a delivery
/// (`statements`' lineages) to the checks in force: the paths its change
/// touches (base tree to final candidate tree) name the checks, and the
/// command evidence the bundle carries for it must be exactly that check,
/// passed, on its final tree (`checks_unmet`). A review whose trees are
/// not here authorizes nothing here and is skipped, as the floors skip it.
pub fn check_required_checks(
    repo: &Repo,
    checks: &[BaseChecks],
    bundle: &Bundle,
    statements: &[(probity_core::review::LineageId, Vec<u8>)],
) -> Result<(), ReceiveDenial> {
    if checks.is_empty() {
        return Ok(());
    }
    for (record, _) in stated_records(bundle, statements) {
        let s = record.state();
        let (base, last) = (&s.snapshot().base_tree, s.final_candidate_tree());
        if !trees_here(repo, base, last)? {
            continue;
        }
        let paths = repo.changed_paths(base, last).map_err(|e| {
            deny(
                "authority_invalid",
                format!("bundle of {}: {e}", bundle.lineage_id),
                "start_commit_review",
            )
        })?;
        let paths: Vec<&str> = paths.iter().map(|p| p.as_str()).collect();
        let evidence = bundle.evidence_of(record);
        // A change to what a check's argv names is high (red team round
        // 37's 37ck1): a review that froze a lower tier understates it.
        let level = s.frozen().risk_level;
        let links: Vec<probity_core::review::Symlink> =
            probity_ports::review::GitPort::symlinks(repo, &[base, last])
                .map_err(|e| {
                    deny(
                        "authority_invalid",
                        format!("bundle of {}: {e}", bundle.lineage_id),
                        "start_commit_review",
                    )
                })?
                .into_iter()
                .flatten()
                .collect();
        for c in checks {
            let floor = c.checks.floor_reasons_linked(&paths, &links);
            if !floor.is_empty() && level != probity_core::review::RiskLevel::High {
                let reasons: Vec<String> = floor.iter().map(ToString::to_string).collect();
                return Err(deny(
                    "policy_floor_unmet",
                    format!(
                        "review {} froze {} risk, but its change touches what a required check runs ({}; the required checks at {}; bundle of {})",
                        s.lineage_id(),
                        level.name(),
                        reasons.join(", "),
                        c.base,
                        bundle.lineage_id
                    ),
                    "start_commit_review",
                ));
            }
        }
        for c in checks {
            c.checks
                .check_approval(s.lineage_id().as_str(), &paths, evidence)
                .map_err(|e| {
                    deny(
                        e.code(),
                        format!(
                            "{e} (the required checks at {}; bundle of {})",
                            c.base, bundle.lineage_id
                        ),
                        "start_commit_review",
                    )
                })?;
        }
    }
    Ok(())
}

/// Checks one bundle against every policy in force: floors first (a
/// record that understates its tier is refused whatever signed it), then
/// the roles each approved review's tier asks for. `envelopes`: the
/// bundle's attestations as canonical bytes. `statements`: the lineage
/// and statement of every approved review that must be vouched for
/// (`statements_to_vouch_for`).
pub fn check_bundle<P: SshSignatures>(
    repo: &Repo,
    port: &P,
    policies: &[BasePolicy],
    bundle: &Bundle,
    envelopes: &[&[u8]],
    statements: &[(probity_core::review::LineageId, Vec<u8>)],
) -> Result<(), ReceiveDenial> {
    if policies.is_empty() {
        return Ok(());
    }
    for record in &bundle.records {
        let s = record.state();
        let snap = s.snapshot();
        if !trees_here(repo, &snap.base_tree, &snap.candidate_tree)? {
            continue;
        }
        let floors = |to: &TreeId, code: &str, span: &str, next: &'static str| {
            let changed = repo.diff_files(&snap.base_tree, to).map_err(|e| {
                let (code, next) = match e {
                    probity_git::GitError::DiffTooLarge(_) => ("diff_too_large", "check_range"),
                    probity_git::GitError::TreeMalformed(_) => {
                        ("tree_malformed", "start_commit_review")
                    }
                    _ => ("authority_invalid", "start_commit_review"),
                };
                deny(code, format!("bundle of {}: {e}", bundle.lineage_id), next)
            })?;
            for p in policies {
                check_floor(
                    &p.policy,
                    s.lineage_id().as_str(),
                    s.frozen().risk_level,
                    &changed,
                )
                .map_err(|e| deny(code, format!("{e}{span} (the policy at {})", p.base), next))?;
            }
            Ok(())
        };
        floors(
            &snap.candidate_tree,
            "policy_floor_unmet",
            "",
            "start_commit_review",
        )?;
        // The leaf's correction tree is what its approval covers: the
        // floors hold for it too (D-R127).
        let last = s.final_candidate_tree();
        let leaf = bundle.leaf().is_some_and(|l| std::ptr::eq(l, record));
        if leaf && *last != snap.candidate_tree && trees_here(repo, &snap.base_tree, last)? {
            floors(
                last,
                "risk_raised_by_correction",
                ", in the tree its correction delivers",
                "recover",
            )?;
        }
    }
    for (record, statement) in stated_records(bundle, statements) {
        let lineage = record.state().lineage_id();
        let level = record.state().frozen().risk_level;
        // Its lens results must be model runs where the tier asks
        // (D-R103): a content rule, checked before any signature.
        let results = record
            .state()
            .stage()
            .judgment()
            .map(|j| j.results.as_slice())
            .unwrap_or_default();
        for p in policies {
            check_transcripts(
                &p.policy,
                record.state(),
                results.iter().map(|r| (r.lens, r.evidence.as_slice())),
            )
            .map_err(|e| {
                deny(
                    e.code(),
                    format!(
                        "{e} (the policy at {}; bundle of {})",
                        p.base, bundle.lineage_id
                    ),
                    "start_commit_review",
                )
            })?;
        }
        // A review resting on a maintainer's act (a recovery of an
        // escalation, a dispute) anywhere in its chain needs the policy's
        // `authorize` roles too (red team round 37's 37ei).
        let after_authorized_act = bundle.chain_rests_on_authorized_act(record);
        for p in policies {
            let roles = p.policy.roles_for(level, after_authorized_act);
            if roles.is_empty() {
                continue;
            }
            let Some(signers) = &p.signers else {
                continue;
            };
            let keys = verified_keys(port, envelopes, statement, signers.path()).map_err(|e| {
                deny(
                    "server_misconfigured",
                    format!("the server could not check signatures: {e}"),
                    "ask_administrator",
                )
            })?;
            p.policy.assign_roles(level, &roles, &keys).map_err(|e| {
                let holders: Vec<String> = e
                    .unmet
                    .iter()
                    .map(|r| format!("{r}: {}", p.policy.holders(r).join(", ")))
                    .collect();
                deny(
                    "roles_unmet",
                    format!(
                        "review {lineage} (in the chain of {}): {e}; the policy at {} names the holders ({}): each signs in their own clone with `probity attest --lineage {lineage} --sign` after `probity bundle import`, then publishes",
                        bundle.lineage_id,
                        p.base,
                        holders.join("; ")
                    ),
                    "sign",
                )
            })?;
        }
    }
    Ok(())
}
