//! Managed Git hooks (R8.10): the script Probity installs, and what
//! uninstall does with whatever is there now. Ownership is by content: a
//! file is Probity's only while it is byte-for-byte what Probity wrote.

use crate::digest::{Domain, Sha256Digest};

/// Domain of a managed hook's content identity.
pub const HOOK_DOMAIN: Domain = Domain::new("probity/managed-hook/v1");

/// The marker line every managed hook carries.
pub const MARKER: &str = "# probity-managed-hook v1";

/// Quotes a string for POSIX sh (single quotes; embedded quotes escaped).
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The pre-commit hook: run the gate; if it allows and the user had a hook
/// before, run that too (it was saved at `before`).
pub fn pre_commit_script(probity: &str, before: Option<&str>) -> String {
    let mut s = format!(
        "#!/bin/sh\n{MARKER}: pre-commit\n# Installed by `probity hooks install`; `probity hooks uninstall` restores what was here.\n{} validate --gate pre-commit || exit $?\n",
        sh_quote(probity)
    );
    if let Some(b) = before {
        s.push_str(&format!("exec {} \"$@\"\n", sh_quote(b)));
    }
    s
}

/// The identity of a hook's content.
pub fn content_id(bytes: &[u8]) -> Sha256Digest {
    Sha256Digest::of(HOOK_DOMAIN, bytes)
}

/// What uninstall does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uninstall {
    /// The file is still exactly Probity's: put back what was there (or
    /// remove it when nothing was).
    Restore,
    /// Someone changed the file after install: leave it, forget ownership.
    PreserveUserEdits,
    /// The file is gone already: forget ownership.
    AlreadyRemoved,
}

/// Decides uninstall from the installed identity and the current content.
pub fn uninstall_action(installed: &Sha256Digest, current: Option<&[u8]>) -> Uninstall {
    match current {
        None => Uninstall::AlreadyRemoved,
        Some(bytes) if content_id(bytes) == *installed => Uninstall::Restore,
        Some(_) => Uninstall::PreserveUserEdits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_quote_paths_and_chain_the_previous_hook() {
        let s = pre_commit_script(
            "/opt/it's here/probity",
            Some("/repo/.git/probity/hooks/v1/pre-commit.before"),
        );
        assert!(s.starts_with("#!/bin/sh\n# probity-managed-hook v1: pre-commit\n"));
        assert!(s.contains(r"'/opt/it'\''s here/probity' validate --gate pre-commit || exit $?"));
        assert!(s.ends_with("exec '/repo/.git/probity/hooks/v1/pre-commit.before' \"$@\"\n"));
        assert!(!pre_commit_script("p", None).contains("exec"));
    }

    #[test]
    fn ownership_is_by_content() {
        let ours = pre_commit_script("p", None);
        let id = content_id(ours.as_bytes());
        assert_eq!(
            uninstall_action(&id, Some(ours.as_bytes())),
            Uninstall::Restore
        );
        assert_eq!(
            uninstall_action(&id, Some(b"#!/bin/sh\necho mine\n")),
            Uninstall::PreserveUserEdits
        );
        assert_eq!(uninstall_action(&id, None), Uninstall::AlreadyRemoved);
    }
}
