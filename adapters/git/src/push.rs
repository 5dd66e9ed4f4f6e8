//! `git push` for `probity push`: the dry run that asks the remote what
//! a push would update ([`Repo::push_plan`]) and the atomic push itself
//! ([`Repo::push_atomic`]), with git's porcelain report parsed. Argument
//! arrays only; remote names and refspecs go after `--`.

use std::ffi::{OsStr, OsString};

use crate::cmd::GitError;
use crate::repo::Repo;

impl Repo {
    /// `git push --atomic --porcelain -- <remote> <refspecs...>` in one
    /// connection, with the user's transport settings and `env` added (it
    /// reaches a local hook): git's stderr (its progress, what a local hook
    /// and the remote said) is copied to `stderr` as it arrives. `progress`
    /// asks git for its progress meter (it shows none on a pipe otherwise).
    /// `receive_pack` is the command git starts for a local transport's
    /// receiving end instead of `git-receive-pack` (`--receive-pack`,
    /// D-R124); git runs it through the shell with the path appended.
    pub fn push_atomic(
        &self,
        remote: &str,
        refspecs: &[String],
        progress: bool,
        receive_pack: Option<&OsStr>,
        env: &[(&str, &OsStr)],
        stderr: &mut (dyn std::io::Write + Send),
    ) -> Result<PushOutcome, GitError> {
        let mut args: Vec<OsString> = vec![
            "-c".into(),
            "core.abbrev=no".into(),
            "push".into(),
            "--atomic".into(),
            "--porcelain".into(),
        ];
        if progress {
            args.push("--progress".into());
        }
        if let Some(command) = receive_pack {
            let mut flag = OsString::from("--receive-pack=");
            flag.push(command);
            args.push(flag);
        }
        args.push("--".into());
        args.push(remote.into());
        args.extend(refspecs.iter().map(OsString::from));
        // Sheltered (D-R113): a Ctrl-C to this process group waits for the
        // push. A path remote's `receive-pack` shares the group but not
        // the mask (git starts it through the shell, which unblocks every
        // signal): `receive_pack` shelters it (D-R124).
        let out =
            self.transport_git()
                .sheltered()
                .output_streaming(self.root(), &args, env, stderr)?;
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(PushOutcome {
            ok: out.status.success(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            updates: text.lines().filter_map(parse_porcelain).collect(),
        })
    }

    /// What `git push -- <remote> <refspecs...>` would update, asked of the
    /// remote without pushing anything (`--dry-run --porcelain`, no hook):
    /// one [`PlannedUpdate`] per ref git names, full object ids. A push git
    /// would refuse outright (no such remote, an unreachable server, a
    /// refspec matching nothing) is [`GitError::Failed`] with git's text.
    pub fn push_plan(
        &self,
        remote: &str,
        refspecs: &[String],
    ) -> Result<Vec<PlannedUpdate>, GitError> {
        let mut args: Vec<OsString> = [
            "-c",
            "core.abbrev=no",
            "push",
            "--dry-run",
            "--porcelain",
            "--no-verify",
            "--",
            remote,
        ]
        .iter()
        .map(OsString::from)
        .collect();
        args.extend(refspecs.iter().map(OsString::from));
        let out = self.transport_git().output(self.root(), &args, &[], None)?;
        let text = String::from_utf8_lossy(&out.stdout);
        let planned: Vec<PlannedUpdate> = text.lines().filter_map(parse_porcelain).collect();
        if !out.status.success() && planned.is_empty() {
            return Err(GitError::Failed {
                args: format!("push --dry-run {remote}"),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(planned)
    }
}

/// What [`Repo::push_atomic`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushOutcome {
    /// Whether git pushed (every ref: the push is atomic).
    pub ok: bool,
    /// Everything git wrote on stderr (already shown as it arrived).
    pub stderr: String,
    /// git's report, one entry per ref (`!` for a rejected one, with its
    /// reason in the summary).
    pub updates: Vec<PlannedUpdate>,
}

impl PushOutcome {
    /// Whether `refname` was refused for not fast-forwarding the remote's
    /// (`fetch first`, `non-fast-forward`): what a merge of the remote's
    /// side mends.
    pub fn refused_as_stale(&self, refname: &str) -> bool {
        self.updates.iter().any(|u| {
            u.to == refname
                && u.flag == '!'
                && (u.summary.contains("fetch first") || u.summary.contains("non-fast-forward"))
        })
    }
}

/// One ref update a push would make, as `git push --porcelain` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedUpdate {
    /// What the push sends, as the refspec named it (`refs/heads/main`,
    /// `HEAD`, an expression); empty for a deletion.
    pub from: String,
    /// The remote ref updated.
    pub to: String,
    /// The remote's tip now, when git reported it (`None`: a new ref).
    pub old: Option<String>,
    /// The tip pushed, when git reported it (`None`: a deletion, or a new
    /// ref, whose tip is `from`'s).
    pub new: Option<String>,
    /// git's flag: ` ` fast-forward, `+` forced, `-` deleted, `*` new,
    /// `=` up to date, `!` rejected.
    pub flag: char,
    /// git's summary (`old..new`, `[new branch]`, `[rejected] (reason)`).
    pub summary: String,
}

/// One `<flag>\t<from>:<to>\t<summary>` line of `git push --porcelain`.
fn parse_porcelain(line: &str) -> Option<PlannedUpdate> {
    let mut fields = line.splitn(3, '\t');
    let flag = fields.next()?;
    let refs = fields.next()?;
    let summary = fields.next().unwrap_or_default();
    let mut chars = flag.chars();
    let flag = chars.next()?;
    if chars.next().is_some() || !" +-*=!".contains(flag) {
        return None;
    }
    let (from, to) = refs.split_once(':')?;
    let word = summary.split(' ').next().unwrap_or_default();
    let (old, new) = match word.split_once("...").or_else(|| word.split_once("..")) {
        Some((a, b))
            if [a, b]
                .iter()
                .all(|h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit())) =>
        {
            (Some(a.to_string()), Some(b.to_string()))
        }
        _ => (None, None),
    };
    Some(PlannedUpdate {
        from: from.to_string(),
        to: to.to_string(),
        old,
        new,
        flag,
        summary: summary.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_push_lines_parse_with_full_ids_and_flags() {
        let a = "1".repeat(40);
        let b = "2".repeat(40);
        let ff = parse_porcelain(&format!(" \trefs/heads/main:refs/heads/main\t{a}..{b}")).unwrap();
        assert_eq!(
            (ff.flag, ff.old.as_deref(), ff.new.as_deref()),
            (' ', Some(a.as_str()), Some(b.as_str()))
        );
        let forced =
            parse_porcelain(&format!("+\tHEAD:refs/heads/x\t{a}...{b} (forced update)")).unwrap();
        assert_eq!(
            (forced.from.as_str(), forced.old.as_deref()),
            ("HEAD", Some(a.as_str()))
        );
        let new = parse_porcelain("*\tHEAD~1:refs/heads/new\t[new branch]").unwrap();
        assert_eq!(
            (new.to.as_str(), new.old, new.new),
            ("refs/heads/new", None, None)
        );
        let rejected =
            parse_porcelain("!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)")
                .unwrap();
        assert_eq!(rejected.flag, '!');
        assert_eq!(
            parse_porcelain("-\t:refs/heads/gone\t[deleted]")
                .unwrap()
                .from,
            ""
        );
        // Not ref lines: git's `To <url>` and `Done`.
        assert_eq!(parse_porcelain("To ../r.git"), None);
        assert_eq!(parse_porcelain("Done"), None);
    }
}
