//! The repository's Probity settings, read once per run: every
//! `probity.*` key, and `gpg.format` and `user.signingKey` (the signing
//! key's fallback), from one `git config -z --get-regexp`, so a server
//! hook that asked seven keys by seven `git config` runs asks git once
//! (issue 24). git reads the files, includes and environment as every
//! `--get` did; this module only picks the answer out, as `--get` (the
//! last value), `--get-all` (every value, in order) and `--type=bool`
//! would have given it. A boolean spelled other than git's plain words is
//! asked of git itself.

use std::ffi::OsString;

use crate::{GitError, Repo};

/// The keys read, as git canonicalizes them (section and name lowercased).
const PATTERN: &str = r"^(probity\..*|gpg\.format|user\.signingkey)$";

/// Every setting [`PATTERN`] matches, in git's order: `(key, value)`,
/// `None` for a key written with no `=`.
#[derive(Debug, Default)]
pub(crate) struct Settings {
    entries: Vec<(String, Option<String>)>,
}

impl Settings {
    /// The `-z` output of `git config --get-regexp`: each entry is `key`,
    /// then `\n` and its value when it has one, then NUL.
    fn parse(out: &[u8]) -> Self {
        let entries = out
            .split(|b| *b == 0)
            .filter(|e| !e.is_empty())
            .map(|e| match e.iter().position(|b| *b == b'\n') {
                Some(i) => (
                    String::from_utf8_lossy(&e[..i]).into_owned(),
                    Some(String::from_utf8_lossy(&e[i + 1..]).into_owned()),
                ),
                None => (String::from_utf8_lossy(e).into_owned(), None),
            })
            .collect();
        Self { entries }
    }

    fn values<'a>(&'a self, key: &'a str) -> impl DoubleEndedIterator<Item = Option<&'a str>> {
        self.entries
            .iter()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_deref())
    }

    /// What `git config --get key` prints: the last value (empty for a
    /// key with no `=`); `None` when unset.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.values(key)
            .next_back()
            .map(|v| v.unwrap_or("").to_string())
    }

    /// What `git config --get-all key` prints, one value per line, in
    /// order.
    pub(crate) fn get_all(&self, key: &str) -> Vec<String> {
        self.values(key)
            .map(|v| v.unwrap_or("").to_string())
            .collect()
    }

    /// The last value of `key` read as git's plain boolean words
    /// (`Ok(false)` when unset); `Err(())` when it is spelled otherwise
    /// (a number, a unit, a typo), for git to read.
    fn plain_bool(&self, key: &str) -> Result<bool, ()> {
        match self.values(key).next_back() {
            None => Ok(false),
            Some(v) => crate::config::plain_bool(v.map(str::as_bytes)).ok_or(()),
        }
    }
}

impl Repo {
    /// The settings, read by one `git config` on the first call of the run
    /// and kept: this `Repo` and its clones ask git no more.
    pub(crate) fn settings(&self) -> Result<std::sync::Arc<Settings>, GitError> {
        let mut kept = self
            .shared()
            .settings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(s) = kept.as_ref() {
            return Ok(s.clone());
        }
        let args: Vec<OsString> = ["config", "-z", "--get-regexp", PATTERN]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        let settings = match out.status.code() {
            Some(0) => Settings::parse(&out.stdout),
            // 1: no key matches.
            Some(1) => Settings::default(),
            _ => {
                return Err(GitError::Failed {
                    args: "config -z --get-regexp".into(),
                    status: out.status.to_string(),
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                });
            }
        };
        let settings = std::sync::Arc::new(settings);
        *kept = Some(settings.clone());
        Ok(settings)
    }

    /// A boolean setting as git reads it (`--type=bool`: `yes`, `on`, `1`
    /// are true); unset is `false`, a value git cannot read as a boolean
    /// an error. Read from [`Repo::settings`]; a value spelled other than
    /// git's plain words (`2`, `1k`) is asked of git.
    pub(crate) fn setting_bool(&self, key: &str) -> Result<bool, GitError> {
        if let Ok(b) = self.settings()?.plain_bool(key) {
            return Ok(b);
        }
        let args: Vec<OsString> = ["config", "--type=bool", "--get", key]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => Ok(out.stdout.trim_ascii() == b"true"),
            Some(1) => Ok(false),
            _ => Err(GitError::Failed {
                args: format!("config --type=bool --get {key}"),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_get_and_get_all_print_them() {
        let s = Settings::parse(
            b"probity.protectedrefs\nrefs/heads/*\0probity.requiresignature\0probity.protectedrefs\nrefs/tags/v*\0gpg.format\nssh\0probity.protectedrefs\n\0",
        );
        assert_eq!(
            s.get_all("probity.protectedRefs"),
            vec!["refs/heads/*", "refs/tags/v*", ""]
        );
        assert_eq!(s.get("probity.protectedRefs").as_deref(), Some(""));
        assert_eq!(s.get("gpg.format").as_deref(), Some("ssh"));
        assert_eq!(s.get("probity.signingKey"), None);
        // No `=`: true, as git reads it.
        assert_eq!(s.plain_bool("probity.requireSignature"), Ok(true));
        assert_eq!(s.plain_bool("probity.allowProtectedDeletion"), Ok(false));
        let odd = Settings::parse(b"probity.keeptrees\n2\0");
        assert_eq!(odd.plain_bool("probity.keepTrees"), Err(()));
        let multi = Settings::parse(b"probity.keeptrees\ntrue\0probity.keeptrees\noff\0");
        assert_eq!(multi.plain_bool("probity.keepTrees"), Ok(false));
    }
}
