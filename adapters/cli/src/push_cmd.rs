//! `probity push`: the pre-push judgement, the notes published and
//! merged, and one `git push --atomic` of the refspecs with
//! `refs/notes/probity` (issue 21 §5).

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::review::CommitId;
use probity_core::review::NOTES_REF;
use probity_ports::review::{self as drivers, RemoteScope};

use crate::GlobalArgs;
use crate::authority_cmd::open;
use crate::authority_cmd::push_verdict::{
    VERDICT_ENV, VERDICT_REMOTE_ENV, gate_denied, policy_denied, read_verdict,
};
use crate::authority_cmd::transport_error;
use crate::bundle_cmd::{PublishAnswer, published_text, repo_error, resolve};
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct PushArgs {
    /// The remote (default `origin`).
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// The refspecs to push (default `HEAD`); `refs/notes/probity` is
    /// added.
    #[arg(value_name = "REFSPEC")]
    pub refspecs: Vec<String>,
}

/// The `push` answer.
#[derive(Debug, Serialize)]
struct PushAnswer<'a> {
    remote: &'a str,
    /// Everything pushed: the refspecs, the notes ref, the review-tree refs.
    refspecs: &'a [String],
    /// Whether the remote's notes were merged in before the push.
    notes_merged_from_remote: bool,
    published: Vec<PublishAnswer<'a>>,
}

pub fn push(global: &GlobalArgs, out: Output, args: &PushArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    ctx.repo.settle_scratch_notes();
    let remote = args.remote.clone().unwrap_or_else(|| "origin".into());
    let refspecs = if args.refspecs.is_empty() {
        vec!["HEAD".to_string()]
    } else {
        args.refspecs.clone()
    };
    // Where Probity's managed pre-push hook is in place, it judges this
    // push inside the push's own connection, against the tips the remote
    // advertises there: one connection, no dry run (issue 21 §5). Without
    // it, the gate runs first over a dry run (`git push --dry-run`), hook
    // or no hook: a denial refuses before anything is published or pushed.
    let hooked = crate::hooks_cmd::managed_pre_push_in_place(&ctx);
    let mut merged = false;
    if !hooked {
        // Another clone may have published meanwhile: take its notes first
        // (cat_sort_uniq: exact for one bundle per line), so the notes push
        // fast-forwards. When the dry run already showed the local notes
        // fast-forward the remote's (or the remote has none), that fetch,
        // one more connection to the remote, is skipped.
        let notes_current = gate_push(&ctx, &remote, &refspecs)?;
        if !notes_current {
            merged = merge_remote_notes(&ctx, &remote)?;
        }
    }
    // How git reaches the remote: whether it is a configured remote's
    // name, and whether its receiving end runs here (D-R124).
    let target = ctx.repo.push_target(&remote).map_err(repo_error)?;
    let receive_pack = if target.local {
        sheltered_receive_pack(target.receive_pack.as_deref())
    } else {
        None
    };
    // Published against the remote pushed to: a teammate's branch
    // fetched from elsewhere is still this push's delivery.
    let scope = if target.configured {
        RemoteScope::Of(remote.clone())
    } else {
        // A URL has no remote-tracking refs of its own: every one
        // stands for what has been published, as without a remote.
        RemoteScope::All
    };
    let mut publications = Vec::new();
    for spec in &refspecs {
        let spec = spec.trim_start_matches('+');
        let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
        if src.is_empty() || src == NOTES_REF {
            continue;
        }
        let tip = resolve(&ctx.repo, src)?;
        // What the destination holds, as this clone last saw it: the push
        // delivers every commit it does not, one the remote holds on
        // another branch included (D-R129). Without a view of the
        // destination, what the remote holds anywhere counts as
        // published, as before.
        let held = if target.configured {
            destination_tip(&ctx, &remote, dst)?
        } else {
            None
        };
        let p = match held {
            Some(old) => drivers::publish(&ctx.repo, &ctx.store, &tip, &[old], &RemoteScope::None),
            None => drivers::publish(&ctx.repo, &ctx.store, &tip, &[], &scope),
        }
        .map_err(transport_error)?;
        publications.push(p);
    }
    let mut all = refspecs.clone();
    let has_notes = ctx.repo.notes_tip().map_err(repo_error)?.is_some();
    if has_notes && !all.iter().any(|s| s.contains(NOTES_REF)) {
        all.push(NOTES_REF.to_string());
    }
    // The trees each published review froze travel inside the notes
    // history (anchored by publish: `NotesGit::write_notes`), so no other
    // ref is pushed (issue 21 §4).
    let pushed = all.join(" ");
    let mut outcome = push_once(&ctx, &remote, &all, receive_pack.as_deref(), hooked)?;
    // Hooked, the notes were not fetched first: refused only because the
    // remote's notes moved on, they are merged and the push made again.
    if hooked
        && !outcome.ok
        && outcome.verdict.is_none()
        && !merged
        && outcome.refused_as_stale(NOTES_REF)
    {
        merged = merge_remote_notes(&ctx, &remote)?;
        if merged {
            outcome = push_once(&ctx, &remote, &all, receive_pack.as_deref(), hooked)?;
        }
    }
    if !outcome.ok {
        let failure = push_failure(&remote, &pushed, &outcome);
        return Err(outcome.verdict.unwrap_or(failure));
    }
    let answer = PushAnswer {
        remote: &remote,
        refspecs: &all,
        notes_merged_from_remote: merged,
        published: publications.iter().map(PublishAnswer::of).collect(),
    };
    out.answer(&answer, || {
        let mut t = String::new();
        for p in &publications {
            t.push_str(&published_text(p));
        }
        t.push_str(&format!("pushed {pushed} to {remote}\n"));
        t
    });
    Ok(ExitCode::SUCCESS)
}

/// One push and what came of it: [`probity_git::push::PushOutcome`], and
/// the managed hook's denial, if it wrote one.
struct Pushed {
    outcome: probity_git::push::PushOutcome,
    verdict: Option<CliError>,
}

impl std::ops::Deref for Pushed {
    type Target = probity_git::push::PushOutcome;
    fn deref(&self) -> &Self::Target {
        &self.outcome
    }
}

/// The commit this clone's remote-tracking ref holds for the branch a
/// refspec's destination `dst` names on `remote` (`refs/heads/<b>` or a
/// plain `<b>`; `refs/remotes/<remote>/<b>`, git's default fetch mapping):
/// None for another destination (a tag, `HEAD`) or a branch this clone
/// has not seen there.
fn destination_tip(
    ctx: &crate::authority_cmd::Context,
    remote: &str,
    dst: &str,
) -> Result<Option<probity_core::review::CommitId>, CliError> {
    let branch = match dst.strip_prefix("refs/heads/") {
        Some(b) => b,
        None if dst.starts_with("refs/") || dst == "HEAD" || dst.contains(['^', '~', '@', ':']) => {
            return Ok(None);
        }
        None => dst,
    };
    if branch.is_empty() {
        return Ok(None);
    }
    ctx.repo
        .find_commit(&format!("refs/remotes/{remote}/{branch}"))
        .map_err(repo_error)
}

/// The receiving end of a push by git's local transport (D-R124): this
/// Probity's `shelter-exec` before the remote's own receiving program
/// (`remote.<name>.receivepack`, else `git-receive-pack`), so it runs with
/// the interrupting signals blocked (git starts it through the shell,
/// which unblocks them, in Probity's process group, where a terminal's
/// Ctrl-C reaches it). None, and git's own choice unsheltered as before,
/// when this executable cannot be named or the remote's program is more
/// than plain words (shell syntax that a prefix would change).
fn sheltered_receive_pack(configured: Option<&str>) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let program = configured.unwrap_or("git-receive-pack");
    let plain = |c: char| c.is_ascii_alphanumeric() || " /._-+=,:@%~".contains(c);
    if program.trim().is_empty() || !program.chars().all(plain) {
        return None;
    }
    // A binary replaced while it runs is named "<path> (deleted)" and is
    // no program to start.
    let exe = std::env::current_exe().ok().filter(|e| e.is_file())?;
    // git runs the command through `sh -c` with the path appended: the
    // executable single-quoted (a quote inside as '\'').
    let mut command = b"'".to_vec();
    for &b in exe.as_os_str().as_bytes() {
        if b == b'\'' {
            command.extend_from_slice(b"'\\''");
        } else {
            command.push(b);
        }
    }
    command.extend_from_slice(b"' shelter-exec ");
    command.extend_from_slice(program.as_bytes());
    Some(std::ffi::OsString::from_vec(command))
}

/// Fetches and merges `remote`'s notes, git's progress meter shown as it
/// arrives when stderr is a terminal (as the push's own, [`push_once`]);
/// never on a pipe, a file or a hook's stderr.
fn merge_remote_notes(ctx: &crate::authority_cmd::Context, remote: &str) -> Result<bool, CliError> {
    use std::io::IsTerminal;
    let progress = std::io::stderr().is_terminal();
    ctx.repo
        .merge_remote_notes(remote, progress, &mut std::io::stderr())
        .map_err(repo_error)
}

/// `git push --atomic` of `all`, git's stderr (progress, a local hook's
/// refusal, the remote's `remote:` lines) shown as it arrives. `hooked`:
/// the managed hook is given a file to write its denial to.
fn push_once(
    ctx: &crate::authority_cmd::Context,
    remote: &str,
    all: &[String],
    receive_pack: Option<&std::ffi::OsStr>,
    hooked: bool,
) -> Result<Pushed, CliError> {
    use std::io::IsTerminal;
    let progress = std::io::stderr().is_terminal();
    let verdict = if hooked {
        // An interrupted push removes it too (its drop does otherwise).
        Some(probity_scratch::RegisteredTemp::new().map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "push_failed",
                format!("a temporary file for the pre-push verdict could not be made: {e}"),
                "check $TMPDIR (free space, permissions), then `probity push` again; nothing was pushed",
            )
        })?)
    } else {
        None
    };
    let mut env: Vec<(&str, &std::ffi::OsStr)> = verdict
        .iter()
        .map(|f| (VERDICT_ENV, f.path().as_os_str()))
        .collect();
    if verdict.is_some() {
        env.push((VERDICT_REMOTE_ENV, std::ffi::OsStr::new(remote)));
    }
    let outcome = ctx
        .repo
        .push_atomic(
            remote,
            all,
            progress,
            receive_pack,
            &env,
            &mut std::io::stderr(),
        )
        .map_err(repo_error)?;
    let verdict = verdict.and_then(|f| read_verdict(f.path()));
    Ok(Pushed { outcome, verdict })
}

/// The pre-push judgement of what `git push <remote> <refspecs>` would
/// update (`git push --dry-run --porcelain`, full ids): the refs git would
/// refuse anyway (`!`), leave as they are (`=`) or delete deliver nothing
/// and are left to git; the notes ref and `refs/probity/*` are authority,
/// not deliveries. A denial is `push_denied`, nothing pushed.
///
/// When this clone has notes, the dry run asks about them too: the answer
/// is whether they fast-forward the remote's (or the remote has none), so
/// that no fetch of the remote's notes is needed.
fn gate_push(
    ctx: &crate::authority_cmd::Context,
    remote: &str,
    refspecs: &[String],
) -> Result<bool, CliError> {
    use probity_core::review::is_authority_ref;
    use probity_core::review::{Decision, RefUpdate};
    let mut asked = refspecs.to_vec();
    let local_notes = ctx.repo.notes_tip().map_err(repo_error)?.is_some();
    if local_notes && !asked.iter().any(|s| s.contains(NOTES_REF)) {
        asked.push(NOTES_REF.to_string());
    }
    let plan = ctx.repo.push_plan(remote, &asked).map_err(|e| {
        CliError::new(
            ErrorKind::Repository,
            "push_failed",
            e.to_string(),
            "fix what git says above (the remote's name or URL, your access to it, the refspec), then `probity push` again; nothing was pushed",
        )
    })?;
    let commit = |hex: &str| {
        CommitId::parse(hex).map_err(|_| {
            CliError::new(
                ErrorKind::Repository,
                "repository_error",
                format!("git push --dry-run reported `{hex}`, not an object id"),
                "report this: git's porcelain output changed",
            )
        })
    };
    let mut updates = Vec::new();
    for u in &plan {
        // Refused anyway, unchanged or deleted: nothing delivered. The
        // notes ref and review objects are authority, not deliveries (not
        // resolved here: `split_notes_updates` would drop them).
        if matches!(u.flag, '!' | '=' | '-') || is_authority_ref(&u.to) {
            continue;
        }
        let local = match &u.new {
            Some(new) => commit(new)?,
            None => resolve(&ctx.repo, &u.from)?,
        };
        updates.push(RefUpdate {
            local_ref: u.from.clone(),
            local_oid: Some(local),
            remote_ref: u.to.clone(),
            remote_oid: u.old.as_deref().map(commit).transpose()?,
        });
    }
    let notes_current = local_notes
        && plan
            .iter()
            .any(|u| u.to == NOTES_REF && matches!(u.flag, ' ' | '=' | '*'));
    if updates.is_empty() {
        return Ok(notes_current);
    }
    let boundary = drivers::PushBoundary::Updates {
        remote: remote.to_string(),
        updates,
        published: probity_core::review::Vouching::Advertised,
    };
    let d = drivers::validate_pre_push(&ctx.repo, &ctx.store, &boundary)
        .map_err(crate::authority_cmd::review_error)?;
    if d.decision() == Decision::Allow {
        // The repository policy of what the remote holds, as the server
        // will apply it (roles, floors, required checks): refused here,
        // before anything is published or pushed.
        let drivers::PushBoundary::Updates { updates, .. } = &boundary else {
            return Ok(notes_current);
        };
        if let Some(den) =
            crate::authority_cmd::local_policy_denial(&ctx.repo, &ctx.store, remote, updates, &d)?
        {
            return Err(policy_denied(remote, &den));
        }
        return Ok(notes_current);
    }
    Err(gate_denied(&ctx.repo, remote, &d))
}

/// A failed `git push --atomic`: a server without atomic push support is
/// named with what to do; anything else (a local hook's refusal, the
/// server gate's, a non-fast-forward) is what git printed, shown above as
/// it arrived and repeated here from its last line.
fn push_failure(remote: &str, pushed: &str, outcome: &probity_git::push::PushOutcome) -> CliError {
    let stderr = outcome.stderr.as_str();
    if stderr.contains("does not support --atomic") {
        return CliError::new(
            ErrorKind::Repository,
            "atomic_unsupported",
            format!(
                "{remote} does not accept atomic pushes (its git is older than 2.4, or receive.advertiseAtomic is off); nothing was pushed"
            ),
            format!(
                "ask the server's administrator to allow atomic pushes (git config receive.advertiseAtomic true), or push the authority first and the commits after: `git push {remote} refs/notes/probity`, then `git push {remote} <branch>`"
            ),
        );
    }
    // git's report per ref (`--porcelain`, on stdout): why each was refused.
    let refused: Vec<String> = outcome
        .updates
        .iter()
        .filter(|u| u.flag == '!')
        .map(|u| format!("{} {}", u.to, u.summary))
        .collect();
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("git printed nothing");
    let why = if refused.is_empty() {
        last.to_string()
    } else {
        format!("{}; {last}", refused.join("; "))
    };
    CliError::new(
        ErrorKind::Conflict,
        "push_rejected",
        format!("git push --atomic {remote} {pushed} was rejected (git's output is above): {why}"),
        "read the reason above (a local hook, the remote's gate, or git): review and publish the commit it names, or fetch and merge, then `probity push` again",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The receiving end is wrapped only where a prefix leaves its meaning
    /// alone: git's own program, or a remote's program of plain words; shell
    /// syntax is git's to run, unsheltered (D-R124).
    #[test]
    fn only_plain_receiving_programs_are_sheltered() {
        let wrapped =
            |p: Option<&str>| sheltered_receive_pack(p).map(|c| c.to_string_lossy().into_owned());
        let own = wrapped(None).expect("git's own program is wrapped");
        assert!(own.starts_with('\''), "{own}");
        assert!(own.ends_with("' shelter-exec git-receive-pack"), "{own}");
        let theirs = wrapped(Some("/opt/git/bin/git-receive-pack --x=1")).expect("plain words");
        assert!(
            theirs.ends_with("' shelter-exec /opt/git/bin/git-receive-pack --x=1"),
            "{theirs}"
        );
        for shell in [
            "cd /srv && git-receive-pack",
            "git-receive-pack; rm -rf x",
            "$(which git-receive-pack)",
            "'quoted'",
            "",
            "  ",
        ] {
            assert_eq!(wrapped(Some(shell)), None, "{shell:?}");
        }
    }
}
