//! `probity validate --gate pre-receive` (the server-side gate, R11), and
//! `--gate pre-pr --authority notes` (CI without a review store).
//!
//! Two input forms of one gate:
//! - in a bare repository's `pre-receive` hook: git's `<old> <new> <ref>`
//!   lines on stdin; the protected refs (`probity.protectedRefs`, default
//!   `refs/heads/*`) are judged, and `refs/notes/probity` may only
//!   fast-forward;
//! - in CI over a pushed range: `--range OLD..NEW --ref REF`, with the
//!   notes fetched (`git fetch origin refs/notes/probity:refs/notes/probity`).
//!
//! Authority comes only from the notes, re-verified from their bytes and
//! the repository's objects, imported into a scratch store that is removed
//! on every exit; the repository's own store is never read. Git runs with
//! `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES` kept, so
//! the pushed objects in git's quarantine directory are readable.

use std::borrow::Cow;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use probity_core::review::BaseAdvance;
use probity_core::review::CommitId;
use probity_core::review::RefusedBundle;
use probity_core::review::{Decision, GateDecision, GateStage, ReasonCode};
use probity_core::review::{
    MAX_RECEIVE_BYTES, NOTES_REF, ReceiveInputError, ReceiveUpdate, parse_receive_updates,
};
use probity_git::Repo;

use super::policy_judge::signature_policy;
use super::receive_refs::{
    PolicyBases, default_branch, judged_name, policy_bases, unborn_head_creation,
};
use probity_ports::review::{
    self as drivers, BundlePolicy, PreReceive, ReceiveDenial, ReceiveScope,
};

use super::next_steps::{Judged, denial_next, next_hint};
use super::{scratch_store, transport_error};
use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output, wire_name};

use super::validate::{DecisionView, PrePrArgs, PreReceiveArgs};

/// Where a publication gate takes its authority from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthorityArg {
    /// This clone's review store (default).
    Store,
    /// `refs/notes/probity`, every bundle re-verified (CI, servers).
    Notes,
}

/// The flags of the transport gates, flattened into `validate`.
#[derive(Debug, Args)]
pub struct TransportArgs {
    /// pre-receive in CI: the ref the `--range OLD..NEW` updates (e.g.
    /// refs/heads/main).
    #[arg(long = "ref", value_name = "REF")]
    pub refname: Option<String>,
    /// The CI forms (pre-receive `--range --ref`, pre-pr `--authority
    /// notes`): a commit whose repository policy the update or proposal
    /// answers to besides its old tip's or base's (repeatable; the CI
    /// script names the default branch, e.g. refs/remotes/origin/main), as
    /// the server hook's update answers to the default branch's.
    #[arg(long = "policy-base", value_name = "REV")]
    pub policy_base: Vec<String>,
    /// pre-pr: take authority from `notes` (refs/notes/probity, verified)
    /// instead of this clone's `store`.
    #[arg(long, value_enum, value_name = "store|notes")]
    pub authority: Option<AuthorityArg>,
}

fn usage(code: &str, msg: &str, next: &str) -> CliError {
    CliError::new(ErrorKind::Usage, code, msg, next)
}

/// The repository policy at a client's pre-push (issue 20 §3: roles,
/// floors and required checks are verified at every gate): the policy and
/// checks are read from what the remote holds for each updated ref (its old
/// tip; a new ref: the commit the remote's `HEAD` names, asked of the
/// remote), and every approval an allowing
/// `decision` rests on is exported from the local store and put through the
/// same checks the server makes. `None` when no base has a policy or
/// checks (nothing printed then), or when every approval passes; the first
/// refusal otherwise, which the server would give too.
pub fn local_policy_denial(
    repo: &Repo,
    store: &probity_store::FileStore,
    remote: &str,
    updates: &[probity_core::review::RefUpdate],
    decision: &probity_core::review::GateDecision,
) -> Result<Option<ReceiveDenial>, CliError> {
    if !decision.allows() {
        return Ok(None);
    }
    let mut bases = Vec::new();
    // Asked once, and only when a ref is created.
    let mut default_branch = None;
    for u in updates {
        if u.local_oid.is_none() {
            continue;
        }
        let found = match &u.remote_oid {
            Some(old) => std::slice::from_ref(old),
            None => default_branch
                .get_or_insert_with(|| remote_default_branch(repo, remote))
                .as_slice(),
        };
        for b in found {
            if !bases.contains(b) {
                bases.push(b.clone());
            }
        }
    }
    // A base with neither document (or one this clone lacks: the server
    // judges it) asks for nothing: read through the object reader already
    // running, so a repository without a policy starts no process here.
    // A base that cannot be read is not judged here, and the person is
    // told so: the server still judges it.
    let mut in_force = Vec::new();
    for b in &bases {
        let has = |path: &str| match repo.read_path(b.as_str(), path, 0) {
            Ok(found) => found.is_some(),
            Err(e) => {
                eprintln!(
                    "warning: {path} at {b} (what {remote} holds) could not be read here ({e}); its rules are not checked before the push, and {remote}'s gate still applies them"
                );
                false
            }
        };
        if has(probity_core::review::POLICY_PATH) || has(probity_core::review::CHECKS_PATH) {
            in_force.push(b.clone());
        }
    }
    if in_force.is_empty() {
        return Ok(None);
    }
    let bases = in_force;
    let faults = ServerFaults::new(false, repo.git_dir().to_path_buf());
    let check = signature_policy(repo, &faults, &bases)?;
    // The notes this clone pushes: a delivery's note may hold signatures
    // its store lacks (a teammate signed in her own clone and her notes
    // were merged here), and the server counts them (red team round 11,
    // 04a). A note that cannot be read or parsed adds none.
    let notes = repo.notes_tip().ok().flatten();
    // Each approval under the bases' rules, and a commit whose parent the
    // push brings under that parent's too (D-R172).
    let under = probity_core::review::over_pushed_parents(decision)
        .into_iter()
        .map(|(p, d)| (Some(p), d));
    let all = probity_core::review::approved_deliveries(decision)
        .into_iter()
        .map(|d| (None, d));
    for (parent, delivery) in all.chain(under) {
        let note: Vec<probity_core::review::Bundle> = notes
            .as_ref()
            .and_then(|n| {
                repo.read_note(n, &delivery.commit, probity_core::review::MAX_NOTE_BYTES)
                    .ok()
                    .flatten()
            })
            .and_then(|bytes| probity_core::review::parse_note(&bytes).ok())
            .unwrap_or_default();
        let note: Vec<&probity_core::review::Bundle> = note.iter().collect();
        for lineage in delivery.approvals() {
            let bundle = drivers::export_bundle(store, lineage).map_err(transport_error)?;
            let bundle = probity_core::review::with_note_attestations(&bundle, &note);
            let judged = match &parent {
                None => check.judge(&bundle),
                Some(p) => check.judge_under(p, &bundle),
            };
            if let Err(mut d) = judged {
                d.refname = delivery.refs.first().cloned().unwrap_or(d.refname);
                d.commit = Some(delivery.commit.clone());
                return Ok(Some(d));
            }
        }
    }
    Ok(None)
}

/// [`local_policy_denial`] for a range `base..tip` judged by the pre-push
/// gate (CI's form, or by hand): the repository policy of `base`, as the
/// server applies an updated ref's old tip's (red team round 18, 06).
pub fn range_policy_denial(
    repo: &Repo,
    store: &probity_store::FileStore,
    base: &str,
    tip: &str,
    decision: &probity_core::review::GateDecision,
) -> Result<Option<ReceiveDenial>, CliError> {
    let commit = |rev: &str| repo.resolve_commit(rev).map_err(super::repo_error);
    let update = probity_core::review::RefUpdate {
        local_ref: tip.to_owned(),
        local_oid: Some(commit(tip)?),
        remote_ref: tip.to_owned(),
        remote_oid: Some(commit(base)?),
    };
    local_policy_denial(repo, store, "", &[update], decision)
}

/// The commit a new ref's policy is read from at the client: what the
/// remote's own `HEAD` names now, asked of the remote (the server judges a
/// new ref under its `HEAD`), so neither the name git hands a hook (the
/// remote's URL, in a managed pre-push hook's `$2`) nor a clone that never
/// recorded `refs/remotes/<remote>/HEAD` (`git remote add` and a push
/// record none) lets the check pass unasked. `None`, and the person told
/// why, when the remote cannot be asked, its `HEAD` is unborn or this
/// clone lacks the commit: the server's gate still applies the policy.
/// A remote whose `HEAD` is unborn is read as the server reads it
/// ([`probity_core::review::new_ref_policy_bases`]): every branch tip it
/// advertises that this clone has.
fn remote_default_branch(repo: &Repo, remote: &str) -> Vec<CommitId> {
    let skipped = "the repository policy for the new ref is not checked before the push, and the server's gate still applies it";
    let head = match repo.advertised_head(remote) {
        Ok(head) => head,
        Err(e) => {
            eprintln!(
                "warning: {remote} could not be asked for its default branch ({e}): {skipped}"
            );
            return Vec::new();
        }
    };
    let Some(head) = head else {
        return match repo.remote_tips(remote) {
            Ok(tips) => tips
                .into_iter()
                .filter(|(name, _)| name.starts_with("refs/heads/"))
                .map(|(_, c)| c)
                .collect(),
            Err(e) => {
                eprintln!("warning: {remote}'s branches could not be listed ({e}): {skipped}");
                Vec::new()
            }
        };
    };
    match repo.peel_commit(&head) {
        Ok(Some(c)) => vec![c],
        Ok(None) => {
            eprintln!(
                "warning: {remote}'s default branch is at {head}, which this clone has not fetched: {skipped}; run `git fetch {remote}` to check it here"
            );
            Vec::new()
        }
        Err(e) => {
            eprintln!("warning: {head} could not be read here ({e}): {skipped}");
            Vec::new()
        }
    }
}

/// The code a pusher is answered when the server, not the push, is at
/// fault.
pub const SERVER_MISCONFIGURED: &str = "server_misconfigured";

/// The file, in the repository's git directory, where the hook form keeps
/// the detail of a server fault for its administrator.
pub const SERVER_LOG: &str = "probity-server.log";

/// The most bytes [`SERVER_LOG`] grows to before it is rotated (to
/// `probity-server.log.old`, replacing the previous one).
const SERVER_LOG_BYTES: u64 = 1024 * 1024;

/// What the server gate answers when the server is at fault (a repository
/// git refuses to open, an unreadable allowed-signers file, bad
/// configuration, no temporary directory). In a `pre-receive` hook (git's
/// lines on stdin) every word the gate prints reaches the pusher as a
/// `remote:` line: the pusher is told that the server's Probity
/// configuration is broken and to ask its administrator, with no server
/// path, and the detail is appended to [`SERVER_LOG`] for the
/// administrator. Run by hand (`--range --ref`, or `pre-pr --authority
/// notes` in CI) the detail is the answer.
pub struct ServerFaults {
    pub(super) hook: bool,
    /// Where [`SERVER_LOG`] goes: the repository's git directory once it
    /// is known, the hook's working directory (git runs it there) before.
    dir: std::cell::RefCell<std::path::PathBuf>,
}

impl ServerFaults {
    pub(super) fn new(hook: bool, dir: std::path::PathBuf) -> Self {
        Self {
            hook,
            dir: std::cell::RefCell::new(dir),
        }
    }

    fn found(&self, repo: &Repo) {
        *self.dir.borrow_mut() = repo.git_dir().to_path_buf();
    }

    /// The pusher's words for a server fault.
    const MESSAGE: &str = "the server's Probity configuration is broken; ask its administrator (the detail is in the repository's probity-server.log); nothing was accepted";
    pub(super) const NEXT: &str = "ask the server's administrator to fix its Probity configuration: nothing you push can fix this";

    /// `e` as the caller sees it: unchanged by hand, the pusher's
    /// `server_misconfigured` in a hook (the detail logged).
    pub(super) fn error(&self, e: CliError) -> CliError {
        if !self.hook {
            return e;
        }
        self.log(&format!(
            "{}: {} (next: {})",
            e.code, e.message, e.next_action
        ));
        CliError::new(
            ErrorKind::Repository,
            SERVER_MISCONFIGURED,
            Self::MESSAGE,
            Self::NEXT,
        )
    }

    /// A server fault met while judging a bundle, as a denial.
    pub(super) fn denial(&self, code: &str, detail: String) -> ReceiveDenial {
        let (reason_code, message) = if self.hook {
            self.log(&format!("{code}: {detail}"));
            (SERVER_MISCONFIGURED.to_string(), Self::MESSAGE.to_string())
        } else {
            (code.to_string(), detail)
        };
        ReceiveDenial {
            reason_code,
            refname: NOTES_REF.into(),
            commit: None,
            message,
            next_action: "ask_administrator",
        }
    }

    /// Appends one line to [`SERVER_LOG`] (best effort: a log that cannot
    /// be written changes no answer).
    fn log(&self, detail: &str) {
        use std::io::Write as _;
        let path = self.dir.borrow().join(SERVER_LOG);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > SERVER_LOG_BYTES) {
            let _ = std::fs::rename(&path, path.with_extension("log.old"));
        }
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let line = format!(
            "{secs} probity pre-receive: {}\n",
            detail.replace('\n', " | ")
        );
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// The repository the gate runs in. The server gate (`receive`: the
/// `pre-receive` forms) also keeps git's configuration from the
/// environment, as the receiving git read it
/// ([`probity_git::GitCli::with_receive_config`]).
/// A directory in no repository is the caller's mistake (git runs a hook
/// in its repository) and answers as such; any other refusal of git's is
/// the server's fault in a hook (`faults`).
fn open_repo(
    global: &GlobalArgs,
    receive: bool,
    faults: Option<&ServerFaults>,
) -> Result<Repo, CliError> {
    let cwd = super::discovery_dir(global.cwd.clone())?;
    let mut git = super::git_cli().with_receive_quarantine();
    if receive {
        git = git.with_receive_config();
    }
    Repo::discover_allow_bare(git, &cwd).map_err(|e| {
        let not_repo = matches!(e, probity_git::GitError::NotARepository { .. });
        let next = match e {
            probity_git::GitError::NotARepository { .. } => {
                "run in the repository (a bare repository's hook runs there), or pass --cwd"
            }
            _ => {
                "fix what git says (for a repository another user owns: safe.directory, in the configuration of the user the server runs git as, or GIT_CONFIG_COUNT/GIT_CONFIG_KEY_0/GIT_CONFIG_VALUE_0 in its environment), then retry"
            }
        };
        let e = CliError::new(ErrorKind::Repository, "repository_error", e.to_string(), next);
        match faults {
            Some(f) if !not_repo => f.error(e),
            _ => e,
        }
    })
}

pub(super) fn repo_err(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "fix the repository error above and retry; nothing was changed",
    )
}

fn finish(
    out: Output,
    answer: &impl Serialize,
    allow: bool,
    text: String,
) -> Result<ExitCode, CliError> {
    // Text goes to stderr: a hook's output reaches the pusher as
    // `remote:` lines either way, and stdout stays for --json.
    if out.json {
        out.answer(answer, String::new);
    } else {
        eprint!("{text}");
    }
    Ok(if allow {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A transport refusal (a note, bundle, scope or signature code) as the
/// server-side gates answer it.
#[derive(Debug, Serialize)]
struct DenialAnswer<'a> {
    gate: &'a str,
    decision: Decision,
    reason_code: &'a str,
    stage: GateStage,
    #[serde(rename = "ref")]
    refname: &'a str,
    commit: Option<&'a CommitId>,
    /// The routing token (issue 26 §6); `next_action` is its alias, kept
    /// for one version.
    action: &'a str,
    next_action: &'a str,
    next_step: Cow<'static, str>,
    message: &'a str,
}

pub fn denial_answer(
    out: Output,
    gate: &str,
    d: &ReceiveDenial,
    judged: Judged<'_>,
) -> Result<ExitCode, CliError> {
    let next = judged.step(&d.reason_code, next_hint(&d.reason_code));
    let answer = DenialAnswer {
        gate,
        decision: Decision::Deny,
        reason_code: &d.reason_code,
        stage: GateStage::Authority,
        refname: &d.refname,
        commit: d.commit.as_ref(),
        action: d.next_action,
        next_action: d.next_action,
        next_step: next.clone(),
        message: &d.message,
    };
    let text = format!(
        "probity {gate} DENY: {}\n  {}\n  next: {next}\n",
        d.reason_code, d.message,
    );
    finish(out, &answer, false, text)
}

/// A judged decision of a gate whose authority came from
/// `refs/notes/probity`: the decision, `authority: "notes"`, the next step
/// for the pusher, and the form's own fields.
#[derive(Debug, Serialize)]
struct NotesAnswer<'a> {
    #[serde(flatten)]
    decision: DecisionView<'a>,
    authority: &'static str,
    next_step: Cow<'static, str>,
    /// Every note line that gave no authority (stale, conflicting, forged,
    /// unsigned, not a bundle): reported, never fatal while the judgment
    /// stands on other bundles.
    refused_bundles: &'a [RefusedBundle],
    #[serde(flatten)]
    form: NotesForm<'a>,
}

/// What the notes form adds: pre-receive names its input, pre-pr its
/// base and head.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum NotesForm<'a> {
    Receive {
        /// `hook` (git's lines on stdin) or `range` (`--range --ref`).
        input: &'static str,
    },
    PrePr {
        base: &'a str,
        head: &'a str,
        base_advance: Option<&'a BaseAdvance>,
    },
}

fn decision_answer(
    out: Output,
    gate: &str,
    d: &GateDecision,
    refused: &[RefusedBundle],
    form: NotesForm<'_>,
    notes_pushed: Option<bool>,
    judged: Judged<'_>,
) -> Result<ExitCode, CliError> {
    let code = wire_name(d.reason_code());
    let allow = d.decision() == Decision::Allow;
    let next = if allow {
        Cow::Borrowed("none")
    } else {
        judged.step(&code, denial_next(&code, notes_pushed))
    };
    let answer = NotesAnswer {
        decision: DecisionView::named(d, gate),
        authority: "notes",
        next_step: next.clone(),
        refused_bundles: refused,
        form,
    };
    let mut text = format!(
        "probity {gate} {}: {code}\n  {}\n",
        if allow { "ALLOW" } else { "DENY" },
        d.message()
    );
    for r in d.deliveries() {
        text.push_str(&format!("  {}\n", crate::output::delivery_summary(r)));
    }
    for r in refused {
        text.push_str(&format!(
            "  warning: {} on {} line {} gives no authority: {}\n",
            r.reason_code, r.commit, r.line, r.message
        ));
    }
    if !allow {
        text.push_str(&format!("  next: {next}\n"));
    }
    finish(out, &answer, allow, text)
}

fn split_range(spec: &str) -> Result<(&str, &str), CliError> {
    match spec.split_once("..") {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.starts_with('.') => Ok((a, b)),
        _ => Err(usage(
            "bad_range",
            &format!("`{spec}` is not OLD..NEW"),
            "name the ref's old and new commits joined by two dots, e.g. --range \"$BEFORE..$AFTER\"",
        )),
    }
}

/// `validate pre-receive` (or `--gate pre-receive`): git's lines on
/// stdin, or one ref's update `--range OLD..NEW --ref REF`.
pub(super) fn pre_receive(
    global: &GlobalArgs,
    out: Output,
    args: &PreReceiveArgs,
) -> Result<ExitCode, CliError> {
    // git's lines on stdin: a hook, whose every word reaches the pusher.
    let hook = args.range.is_none() && args.refname.is_none();
    let faults = ServerFaults::new(hook, super::discovery_dir(global.cwd.clone())?);
    let repo = open_repo(global, true, Some(&faults))?;
    faults.found(&repo);
    let mut given = Vec::new();
    // The hook form's protected-ref globs, for what it records (D-R149).
    let mut hook_globs = None;
    // The hook form's default branch, each protected update's policy bases.
    let mut hook_policy_bases = Vec::new();
    let (updates, scope) = match (&args.range, &args.refname) {
        (Some(spec), Some(refname)) => {
            if !refname.starts_with("refs/") {
                return Err(usage(
                    "bad_ref",
                    &format!("`{refname}` is not a full ref name"),
                    "name the ref in full, e.g. --ref refs/heads/main",
                ));
            }
            let (old, new) = split_range(spec)?;
            if old.bytes().all(|b| b == b'0') {
                // A forge reports a new branch's "before" as zeros: there is
                // no old tip to measure the delivery from.
                return Err(usage(
                    "bad_range",
                    "OLD is the all-zero id (a new ref): there is no old tip to measure from",
                    "pass the commit the new ref was branched from as OLD (e.g. `git merge-base origin/main \"$AFTER\"`)",
                ));
            }
            let old = repo.resolve_commit(old).map_err(repo_err)?;
            let new = repo.resolve_commit(new).map_err(repo_err)?;
            for rev in &args.policy_base {
                given.push(repo.resolve_commit(rev).map_err(repo_err)?);
            }
            if given.is_empty() {
                eprintln!(
                    "warning: no --policy-base: {refname} answers to its old tip's policy alone, which a branch made before the policy does not hold; pass the default branch, e.g. --policy-base refs/remotes/origin/main (ci/probity-gate.sh does)"
                );
            }
            (
                vec![ReceiveUpdate {
                    old: Some(old),
                    new: Some(new),
                    refname: refname.clone(),
                }],
                ReceiveScope::Range,
            )
        }
        (Some(_), None) | (None, Some(_)) => {
            return Err(usage(
                "ref_required",
                "--range and --ref go together: the CI form judges one ref's update OLD..NEW",
                "pass both, e.g. --range \"$BEFORE..$AFTER\" --ref refs/heads/main",
            ));
        }
        (None, None) => {
            // The shared bounded reader, as for pre-push: over the bound is
            // input_too_large, before anything is parsed.
            let input =
                super::read_input(std::path::Path::new("-"), MAX_RECEIVE_BYTES as u64)?.bytes;
            let text = String::from_utf8(input).map_err(|_| {
                CliError::new(
                    ErrorKind::RejectedInput,
                    "bad_receive_input",
                    "the pre-receive input is not UTF-8",
                    "pipe git's pre-receive input unchanged",
                )
            })?;
            let updates = parse_receive_updates(&text).map_err(|e| {
                let next = match e {
                    ReceiveInputError::RepeatedRef { .. } => {
                        "push each ref once, as git's own client does (`probity push`, or `git push --atomic`); nothing of this push was applied"
                    }
                    _ => "pipe git's pre-receive input unchanged",
                };
                CliError::new(
                    ErrorKind::RejectedInput,
                    "bad_receive_input",
                    e.to_string(),
                    next,
                )
            })?;
            let mut updates = updates;
            let globs = repo.protected_refs().map_err(repo_err)?;
            for u in &mut updates {
                u.refname = judged_name(&repo, &u.refname, &globs)?;
            }
            let remote = repo.git_dir().to_string_lossy().into_owned();
            let judged = updates
                .iter()
                .any(|u| u.new.is_some() && probity_core::review::is_protected(&globs, &u.refname));
            let tips = default_branch(&repo, &globs, judged)?;
            hook_policy_bases = tips.policy;
            hook_globs = Some(globs);
            (
                updates,
                ReceiveScope::Hook {
                    remote,
                    default_branch: tips.vouching,
                },
            )
        }
    };
    if hook && let Some(d) = unborn_head_creation(&repo, &updates)? {
        return denial_answer(out, "pre-receive", &d, Judged::Pushing);
    }
    let notes_pushed = hook.then(|| updates.iter().any(|u| u.refname == NOTES_REF));
    let scratch = scratch_store();
    let from = match scope {
        ReceiveScope::Range => PolicyBases::Given(&given),
        ReceiveScope::Hook { .. } => PolicyBases::Hook(&hook_policy_bases),
    };
    let bases = policy_bases(&repo, &updates, from)?;
    let answer = drivers::pre_receive(
        &repo,
        &scratch,
        &updates,
        &scope,
        signature_policy(&repo, &faults, &bases)?,
    )
    .map_err(transport_error)?;
    let judged = match &args.range {
        Some(range) if !hook => Judged::OnRemote(range),
        _ => Judged::Pushing,
    };
    let form = NotesForm::Receive {
        input: match scope {
            ReceiveScope::Hook { .. } => "hook",
            ReceiveScope::Range => "range",
        },
    };
    match answer {
        PreReceive::Denied(d) => denial_answer(out, "pre-receive", &d, judged),
        PreReceive::Judged(d, refused) => {
            let held = match &hook_globs {
                Some(globs) if d.allows() => hold_to_notes(&repo, &faults, &updates, globs)?,
                _ => None,
            };
            let code =
                decision_answer(out, "pre-receive", &d, &refused, form, notes_pushed, judged)?;
            if let Some(line) = held
                && !out.json
            {
                eprintln!("  {line}");
            }
            Ok(code)
        }
    }
}

/// D-R149: an allowed push that brings its notes beside a protected update
/// records them for its own ref transactions, where the managed
/// `reference-transaction` hook holds each judged update to them (git
/// applies each ref of a push without `--atomic` on its own). Returns the
/// line the pusher is told (`None` when nothing is held). A record that
/// cannot be written refuses the push (the server's fault); with no
/// `receive-pack` found (no `/proc`) or the hook not installed, the
/// administrator is told in [`SERVER_LOG`] and the push is judged as before.
fn hold_to_notes(
    repo: &Repo,
    faults: &ServerFaults,
    updates: &[ReceiveUpdate],
    globs: &[String],
) -> Result<Option<String>, CliError> {
    use super::ref_transaction::{receiving_push, record_judged};
    use probity_core::review::{JudgedNotes, ServerHook, ServerHookOwner};
    let Some(judged) = JudgedNotes::of_push(updates, globs) else {
        return Ok(None);
    };
    // Where `hooks install --server` puts it; a `core.hooksPath` elsewhere
    // is asked of git only when it is not there.
    let hook = ServerHook::ReferenceTransaction;
    let ours = |d: &std::path::Path| {
        std::fs::read(d.join(hook.name())).is_ok_and(|b| hook.owner(&b) != ServerHookOwner::Foreign)
    };
    let installed = ours(&repo.git_dir().join("hooks")) || repo.hooks_dir().is_ok_and(|d| ours(&d));
    if !installed {
        faults.log("the reference-transaction hook is not installed: a push without --atomic whose notes update fails after this gate allowed it lands its protected refs without their notes; run `probity hooks install --server`");
    }
    let Some(key) = receiving_push() else {
        faults.log("no receive-pack process found above the hook (no /proc?): this push's protected refs are not held to the notes it brings");
        return Ok(None);
    };
    record_judged(repo.git_dir(), &key, &judged).map_err(|e| {
        faults.error(CliError::new(
            ErrorKind::Io,
            "hook_io",
            format!(
                "{}: {e}",
                repo.git_dir()
                    .join(super::ref_transaction::JUDGED_DIR)
                    .display()
            ),
            "let the user git runs as write the repository's git directory",
        ))
    })?;
    Ok(Some(format!(
        "note: lands only with {NOTES_REF} at {} in place: a push without --atomic may stop at its first protected ref (push with `probity push`, or `git push --atomic`)",
        judged.notes()
    )))
}

/// `validate pre-pr --authority notes`: the proposal judged by the
/// verified notes (`--authority store` is the ordinary gate).
pub(super) fn pre_pr_notes(
    global: &GlobalArgs,
    out: Output,
    args: &PrePrArgs,
) -> Result<ExitCode, CliError> {
    let base = args.base.as_str();
    let head = args.head.as_deref().unwrap_or("HEAD");
    let repo = open_repo(global, false, None)?;
    let faults = ServerFaults::new(false, repo.git_dir().to_path_buf());
    let scratch = scratch_store();
    // The base's policy, and each named base's (the default branch's, for
    // a proposal to a branch made before the policy).
    let mut bases: Vec<CommitId> = repo
        .find_commit(base)
        .map_err(repo_err)?
        .into_iter()
        .collect();
    // The range a denial's next step publishes, by commit id: the
    // remote-tracking names are this clone's, not the reader's.
    let range = format!(
        "{}..{}",
        bases.first().map_or(base, CommitId::as_str),
        repo.find_commit(head)
            .map_err(repo_err)?
            .as_ref()
            .map_or(head, CommitId::as_str)
    );
    for rev in &args.policy_base {
        bases.push(repo.resolve_commit(rev).map_err(repo_err)?);
    }
    let answer = drivers::pre_pr_from_notes(
        &repo,
        &scratch,
        base,
        head,
        signature_policy(&repo, &faults, &bases)?,
    )
    .map_err(transport_error)?;
    match answer {
        Err(d) => denial_answer(out, "pre-pr", &d, Judged::OnRemote(&range)),
        Ok((pr, refused)) => decision_answer(
            out,
            "pre-pr",
            &pr.decision,
            &refused,
            NotesForm::PrePr {
                base,
                head,
                base_advance: pr.base_advance.as_ref(),
            },
            None,
            Judged::OnRemote(&range),
        ),
    }
}

pub use probity_core::review::split_notes_updates;

/// The pre-push hook's reminder (a warning, never a denial): a push that
/// delivers reviewed commits without `refs/notes/probity` leaves a
/// server-side gate without their authority. `notes_pushed` is `None`
/// outside a hook (nothing is being pushed).
pub fn warn_notes_not_pushed(notes_pushed: Option<bool>, remote: &str, d: &GateDecision) {
    if notes_pushed != Some(false) {
        return;
    }
    // Every range a review allowed (a stack's report names no single
    // lineage; a range that changes nothing needs no note).
    let reviewed: Vec<&str> = d
        .deliveries()
        .iter()
        .filter(|r| r.decision == Decision::Allow && r.reason_code == ReasonCode::ReceiptValid)
        .map(|r| r.tip.as_str())
        .collect();
    if !reviewed.is_empty() {
        eprintln!(
            "probity: warning: {NOTES_REF} is not pushed with the reviewed commit(s) {}; a server-side gate needs their review bundles (and, for a rebased commit, the trees its review froze): push with `probity push {remote}`",
            reviewed.join(", ")
        );
    }
}
