//! Managed Git hooks (R8.10): the scripts Probity installs, and what
//! uninstall does with whatever is there now. Two hooks are managed, each on
//! its own: `pre-commit` runs `probity validate --gate pre-commit`, and
//! `pre-push` runs `probity validate --gate pre-push --remote "$2"
//! --stdin-updates` over the ref updates git gives the hook on stdin. A hook
//! that was there before install is saved and runs after the gate allows,
//! with the same arguments (and, for pre-push, the same stdin). Ownership is
//! by content: a file is Probity's only while it is byte-for-byte what
//! Probity wrote.

use crate::digest::{Domain, Sha256Digest};

/// What `probity init` names to push: the work (`HEAD`) and the review
/// notes a server-side gate and CI read (`probity push <remote>` pushes
/// both).
pub const PUSH_REFSPECS: [&str; 2] = ["HEAD", crate::review::gate::NOTES_REF];

/// Domain of a managed hook's content identity.
pub(crate) const HOOK_DOMAIN: Domain = Domain::new("probity/managed-hook/v1");

/// The marker line every managed hook carries (followed by `: <hook name>`).
pub(crate) const MARKER: &str = "# probity-managed-hook v1";

/// The second line of every managed hook.
const INSTALLED_BY: &str =
    "# Installed by `probity hooks install`; `probity hooks uninstall` restores what was here.";

/// A hook Probity manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookKind {
    /// `pre-commit`: the gate over what the commit delivers.
    PreCommit,
    /// `pre-push`: the gate over the ref updates a push publishes.
    PrePush,
}

impl HookKind {
    /// Every managed hook, in the order Probity reports them.
    pub const ALL: [HookKind; 2] = [HookKind::PreCommit, HookKind::PrePush];

    /// Git's name for the hook (also its file name in the hooks directory).
    pub fn name(self) -> &'static str {
        match self {
            HookKind::PreCommit => "pre-commit",
            HookKind::PrePush => "pre-push",
        }
    }

    /// The managed script: run the gate with `probity`, then the hook saved
    /// at `before`, if any.
    pub fn script(self, probity: &str, before: Option<&str>) -> String {
        match self {
            HookKind::PreCommit => pre_commit_script(probity, before),
            HookKind::PrePush => pre_push_script(probity, before),
        }
    }
}

/// Quotes a string for POSIX sh (single quotes; embedded quotes escaped).
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn header(hook: HookKind) -> String {
    format!("#!/bin/sh\n{MARKER}: {}\n{INSTALLED_BY}\n", hook.name())
}

/// Finds the probity to run: `probity` on `PATH` first (an upgrade or a
/// move of the binary keeps working), else the path install recorded; when
/// neither exists the hook fails with one line saying how to reinstall,
/// rather than `probity: not found`. Sets `$probity`.
fn locate(hook: HookKind, probity: &str) -> String {
    let missing = format!(
        "probity {} hook: no probity on PATH and {probity} is gone; install probity, then run `probity hooks install` again",
        hook.name()
    );
    format!(
        "probity=$(command -v probity 2>/dev/null) || probity={}\n\
         [ -x \"$probity\" ] || {{ echo {} >&2; exit 1; }}\n",
        sh_quote(probity),
        sh_quote(&missing)
    )
}

/// The pre-commit hook: run the gate; if it allows and the user had a hook
/// before, run that too (it was saved at `before`).
pub(crate) fn pre_commit_script(probity: &str, before: Option<&str>) -> String {
    let mut s = header(HookKind::PreCommit);
    s.push_str(&locate(HookKind::PreCommit, probity));
    s.push_str("\"$probity\" validate --gate pre-commit || exit $?\n");
    if let Some(b) = before {
        s.push_str(&format!("exec {} \"$@\"\n", sh_quote(b)));
    }
    s
}

/// The pre-push hook: git passes the remote's name and URL as arguments and
/// one line per ref update on stdin (`<local ref> <local oid> <remote ref>
/// <remote oid>`). Stdin can be read only once, so the script captures it
/// first, byte for byte (the trailing `x` keeps command substitution from
/// dropping trailing newlines), and gives each consumer its own copy: the
/// gate, then, if it allows and the user had a hook before (saved at
/// `before`), that hook with the same arguments.
pub(crate) fn pre_push_script(probity: &str, before: Option<&str>) -> String {
    let mut s = header(HookKind::PrePush);
    s.push_str(&locate(HookKind::PrePush, probity));
    s.push_str("input=$(cat; printf x)\ninput=${input%x}\n");
    s.push_str(
        "printf '%s' \"$input\" | \"$probity\" validate --gate pre-push --remote \"$2\" --stdin-updates || exit $?\n",
    );
    if let Some(b) = before {
        s.push_str(&format!(
            "printf '%s' \"$input\" | {} \"$@\"\n",
            sh_quote(b)
        ));
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

/// What install does with a hook, given what install recorded (the installed
/// identity, when a record exists) and the file there now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    /// No record: write the managed hook, keeping whatever is there.
    Write,
    /// The file is still exactly what Probity installed: nothing to do.
    AlreadyInstalled,
    /// A record exists but the file is not what Probity wrote (edited or
    /// removed): refuse; uninstall first (it keeps the edits).
    Changed,
}

/// Decides install from the recorded identity and the current content.
pub fn install_action(installed: Option<&Sha256Digest>, current: Option<&[u8]>) -> Install {
    match (installed, current) {
        (None, _) => Install::Write,
        (Some(id), Some(bytes)) if content_id(bytes) == *id => Install::AlreadyInstalled,
        (Some(_), _) => Install::Changed,
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
        assert!(s.contains(r"|| probity='/opt/it'\''s here/probity'"));
        assert!(s.contains("\"$probity\" validate --gate pre-commit || exit $?"));
        assert!(s.ends_with("exec '/repo/.git/probity/hooks/v1/pre-commit.before' \"$@\"\n"));
        assert!(!pre_commit_script("p", None).contains("exec"));
    }

    #[test]
    fn the_pre_commit_script_is_pinned() {
        // Ownership is by the digest install recorded, not by this text: a
        // hook an earlier build wrote stays owned (its record holds its own
        // digest) and `hooks install` rewrites it with this script. A change
        // here is deliberate (D-R31).
        assert_eq!(
            pre_commit_script(
                "/bin/probity",
                Some("/g/probity/hooks/v1/pre-commit.before")
            ),
            "#!/bin/sh\n\
             # probity-managed-hook v1: pre-commit\n\
             # Installed by `probity hooks install`; `probity hooks uninstall` restores what was here.\n\
             probity=$(command -v probity 2>/dev/null) || probity='/bin/probity'\n\
             [ -x \"$probity\" ] || { echo 'probity pre-commit hook: no probity on PATH and /bin/probity is gone; install probity, then run `probity hooks install` again' >&2; exit 1; }\n\
             \"$probity\" validate --gate pre-commit || exit $?\n\
             exec '/g/probity/hooks/v1/pre-commit.before' \"$@\"\n"
        );
    }

    #[test]
    fn the_pre_push_script_feeds_one_captured_stdin_to_the_gate_and_the_previous_hook() {
        let s = pre_push_script(
            "/opt/it's here/probity",
            Some("/repo/.git/it's/probity/hooks/v1/pre-push.before"),
        );
        assert_eq!(
            s,
            "#!/bin/sh\n\
             # probity-managed-hook v1: pre-push\n\
             # Installed by `probity hooks install`; `probity hooks uninstall` restores what was here.\n\
             probity=$(command -v probity 2>/dev/null) || probity='/opt/it'\\''s here/probity'\n\
             [ -x \"$probity\" ] || { echo 'probity pre-push hook: no probity on PATH and /opt/it'\\''s here/probity is gone; install probity, then run `probity hooks install` again' >&2; exit 1; }\n\
             input=$(cat; printf x)\n\
             input=${input%x}\n\
             printf '%s' \"$input\" | \"$probity\" validate --gate pre-push --remote \"$2\" --stdin-updates || exit $?\n\
             printf '%s' \"$input\" | '/repo/.git/it'\\''s/probity/hooks/v1/pre-push.before' \"$@\"\n"
        );
        // Stdin is read exactly once, before either consumer.
        assert_eq!(s.matches("$(cat").count(), 1);
        assert!(s.find("input=$(cat").unwrap() < s.find("validate").unwrap());
        // The gate's denial stops the script before the previous hook.
        let gate = s.find("--stdin-updates || exit $?").unwrap();
        assert!(gate < s.find("pre-push.before").unwrap());
    }

    #[test]
    fn the_pre_push_script_without_a_previous_hook_ends_at_the_gate() {
        let s = pre_push_script("/bin/probity", None);
        assert!(s.ends_with(
            "printf '%s' \"$input\" | \"$probity\" validate --gate pre-push --remote \"$2\" --stdin-updates || exit $?\n"
        ));
        assert_eq!(s.matches("printf '%s'").count(), 1);
        assert!(!s.contains("$@"));
    }

    #[test]
    fn each_kind_names_its_hook_and_builds_its_script() {
        assert_eq!(
            HookKind::ALL.map(HookKind::name),
            ["pre-commit", "pre-push"]
        );
        for k in HookKind::ALL {
            let s = k.script("/p", None);
            assert!(s.starts_with(&format!("#!/bin/sh\n{MARKER}: {}\n", k.name())));
            assert!(s.contains(&format!("validate --gate {}", k.name())));
        }
        assert_eq!(
            HookKind::PrePush.script("/p", Some("/b")),
            pre_push_script("/p", Some("/b"))
        );
        assert_eq!(
            HookKind::PreCommit.script("/p", Some("/b")),
            pre_commit_script("/p", Some("/b"))
        );
        // Different hooks never share a content identity.
        assert_ne!(
            content_id(HookKind::PreCommit.script("/p", None).as_bytes()),
            content_id(HookKind::PrePush.script("/p", None).as_bytes())
        );
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

    #[test]
    fn install_writes_only_without_a_record_and_refuses_over_a_changed_hook() {
        let ours = pre_push_script("p", None);
        let id = content_id(ours.as_bytes());
        assert_eq!(install_action(None, None), Install::Write);
        assert_eq!(install_action(None, Some(b"mine")), Install::Write);
        assert_eq!(
            install_action(Some(&id), Some(ours.as_bytes())),
            Install::AlreadyInstalled
        );
        assert_eq!(
            install_action(Some(&id), Some(b"#!/bin/sh\necho mine\n")),
            Install::Changed
        );
        assert_eq!(install_action(Some(&id), None), Install::Changed);
    }
}
