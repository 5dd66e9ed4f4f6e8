//! Where the git a [`GitCli`](crate::cmd::GitCli) starts lives, and the
//! `ssh-keygen` a signer starts (issue 24).
//!
//! A command whose environment is rewritten (every git's is: the
//! hermetic environment starts from `env_clear`) and whose program is a
//! bare name is started by the standard library with `fork` and a `PATH`
//! search in the child. `fork` copies the whole process's page tables:
//! about 0.3 ms each in a server hook's 15 gits, 4 ms of its 40. A program
//! named by a path is started with `posix_spawn` (`vfork` semantics), which
//! copies nothing. So the name is looked up once, here, in the same `PATH`
//! the child would search (the hermetic environment keeps it as received).
//!
//! Only absolute directories are searched: a relative `PATH` entry (or an
//! empty one, which means the current directory) would be resolved by the
//! child after it changed into the repository, so a `git` planted in the
//! repository could run. When no absolute directory holds an executable
//! of that name, the name is kept and the child searches as before (the
//! spawn's error names it, or a relative entry the user chose is used).
//! An executable is a regular file (after symbolic links) with an
//! execute bit; one the process may not execute (another user's `0700`)
//! fails to start instead of being skipped as `execvp` would skip it. A
//! file the kernel does not run itself (neither ELF nor `#!`: a script
//! `execvp` handed to `/bin/sh`) keeps the bare name, as before.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// `exe` as the program a `Command` is given: a bare name found in an
/// absolute directory of this process's `PATH` becomes that file's path;
/// a path, or a name not found, is kept.
pub(crate) fn resolve(exe: OsString) -> OsString {
    match on_path(&exe, std::env::var_os("PATH").as_deref()) {
        Some(found) => found.into_os_string(),
        None => exe,
    }
}

/// The first `dir/name` over the absolute directories of `path` that is
/// an executable file, for a bare `name` (one component); `None` for a
/// path, an empty name or nothing found.
pub(crate) fn on_path(name: &OsStr, path: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let bare = Path::new(name);
    let mut parts = bare.components();
    let one = matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    );
    if !one || name.as_encoded_bytes().contains(&b'/') {
        return None;
    }
    std::env::split_paths(path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(bare))
        .find(|c| {
            std::fs::metadata(c).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .filter(|c| spawnable(c))
}

/// Whether the kernel runs `path` itself: an ELF binary or a script with
/// a `#!` line. A script without one ran only through `execvp`'s fallback
/// to `/bin/sh` (the fork path); such a program keeps its bare name.
fn spawnable(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|f| f.take(4).read_exact(&mut head))
        .is_ok_and(|()| head.starts_with(b"#!") || head == *b"\x7fELF")
}

/// The glibc tunable a git that deflates one new object after another
/// runs with (D-R156): zlib sets up about 256 KiB of state for each object
/// and frees it, and glibc gives that memory back to the kernel at once
/// (its default trim threshold is 128 KiB), so every object faulted in
/// fresh zeroed pages again. Keeping up to 1 MiB at the heap's top made
/// `git add -A` of 5,000 new files 1.8 times faster on tmpfs. Other C
/// libraries ignore the variable.
const OBJECT_WRITER_TUNABLES: &str = "glibc.malloc.trim_threshold=1048576";

/// `GLIBC_TUNABLES` for a git that writes many objects
/// ([`OBJECT_WRITER_TUNABLES`]), given the caller's own value: ours first,
/// theirs after, so a setting of theirs for the same name wins (glibc
/// applies them in order).
pub(crate) fn object_writer_tunables(theirs: Option<&OsStr>) -> OsString {
    let mut value = OsString::from(OBJECT_WRITER_TUNABLES);
    if let Some(theirs) = theirs.filter(|t| !t.is_empty()) {
        value.push(":");
        value.push(theirs);
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(path: &Path, mode: u32) {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_name_is_found_in_the_first_absolute_directory_holding_an_executable() {
        let t = tempfile::tempdir().unwrap();
        let (a, b, c, d) = (
            t.path().join("a"),
            t.path().join("b"),
            t.path().join("c"),
            t.path().join("d"),
        );
        for dir in [&a, &b, &c, &d] {
            std::fs::create_dir(dir).unwrap();
        }
        // a: not executable; b: a directory of that name; c: the one.
        file(&a.join("git"), 0o644);
        std::fs::create_dir(b.join("git")).unwrap();
        file(&c.join("git"), 0o755);
        file(&d.join("git"), 0o755);
        let path = std::env::join_paths([&a, &b, &c, &d]).unwrap();
        assert_eq!(on_path(OsStr::new("git"), Some(&path)), Some(c.join("git")));
        // Through a symbolic link to an executable.
        std::os::unix::fs::symlink(c.join("git"), a.join("linked")).unwrap();
        assert_eq!(
            on_path(OsStr::new("linked"), Some(&path)),
            Some(a.join("linked"))
        );
    }

    #[test]
    fn a_script_without_an_interpreter_line_keeps_its_name() {
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("git"), "exec /usr/bin/git \"$@\"\n").unwrap();
        std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(on_path(OsStr::new("git"), Some(bin.as_os_str())), None);
        let elf = std::fs::read("/proc/self/exe").unwrap();
        std::fs::write(bin.join("git"), &elf[..64]).unwrap();
        assert_eq!(
            on_path(OsStr::new("git"), Some(bin.as_os_str())),
            Some(bin.join("git"))
        );
    }

    #[test]
    fn relative_and_empty_entries_are_never_searched() {
        let t = tempfile::tempdir().unwrap();
        let abs = t.path().join("bin");
        std::fs::create_dir(&abs).unwrap();
        file(&abs.join("git"), 0o755);
        // "" (the current directory) and "rel" come first and would be
        // the repository's after the child's chdir.
        let path = OsString::from(format!(":rel:.:{}", abs.display()));
        assert_eq!(
            on_path(OsStr::new("git"), Some(&path)),
            Some(abs.join("git"))
        );
        assert_eq!(on_path(OsStr::new("git"), Some(OsStr::new(":rel:."))), None);
    }

    #[test]
    fn a_path_an_odd_name_or_no_path_is_kept() {
        let bin = OsStr::new("/usr/bin");
        for kept in ["/usr/bin/git", "./git", "sub/git", "", ".", ".."] {
            assert_eq!(on_path(OsStr::new(kept), Some(bin)), None, "{kept}");
            assert_eq!(resolve(OsString::from(kept)), OsString::from(kept));
        }
        assert_eq!(on_path(OsStr::new("git"), None), None);
        assert_eq!(
            on_path(OsStr::new("no-such-program-probity"), Some(bin)),
            None
        );
    }

    #[test]
    fn the_object_writers_tunable_comes_first_and_the_callers_own_after() {
        assert_eq!(
            object_writer_tunables(None),
            OsString::from("glibc.malloc.trim_threshold=1048576")
        );
        assert_eq!(
            object_writer_tunables(Some(OsStr::new(""))),
            OsString::from("glibc.malloc.trim_threshold=1048576")
        );
        assert_eq!(
            object_writer_tunables(Some(OsStr::new("glibc.malloc.trim_threshold=0"))),
            OsString::from("glibc.malloc.trim_threshold=1048576:glibc.malloc.trim_threshold=0")
        );
    }
}
