//! `probity --version` names the version, the commit the binary was built
//! from and whether that tree was dirty (issue 22 §1).

mod support;

use std::process::Command;

#[test]
fn version_names_the_commit_it_was_built_from() {
    let out = Command::new(env!("CARGO_BIN_EXE_probity"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rest = text
        .strip_prefix(&format!("probity {} (commit ", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{text}"));
    let inside = rest
        .trim_end()
        .strip_suffix(')')
        .unwrap_or_else(|| panic!("{text}"));
    let (commit, dirty) = match inside.split_once(", ") {
        Some((c, flag)) => (c, Some(flag)),
        None => (inside, None),
    };
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{text}"
    );
    assert!(dirty.is_none() || dirty == Some("dirty"), "{text}");
    // Built from this checkout: the commit is the one HEAD had (or one
    // before it, when a commit landed since the build), never a guess.
    if commit != "unknown" {
        let known = Command::new("git")
            .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .map(|s| s.success())
            .unwrap_or(true);
        assert!(known, "{commit} is a commit of this repository");
    }
}

/// Discovery runs in-process, so a git older than Probity needs is met
/// first by a command that passes it a newer flag: git 2.39 exits 129 on
/// `diff-tree --attr-source`, with nothing on stderr. The error names the
/// old version and the way out, and the store is left as it was.
#[test]
fn a_git_too_old_is_named_when_a_command_fails_on_it() {
    use std::os::unix::fs::PermissionsExt;
    let f = probity_git::fixture::Fixture::new().unwrap();
    f.write("a.rs", "fn a() {}\n").unwrap();
    let before = support::store_snapshot(&f);
    // An old git, as far as Probity can tell: it says 2.39.5 and refuses
    // the flag git 2.39 did not know; anything else goes to the real git.
    let tools = tempfile::tempdir().unwrap();
    let old = tools.path().join("git");
    std::fs::write(
        &old,
        "#!/bin/sh\n\
         case \"$*\" in\n\
         version|*\" version\") echo 'git version 2.39.5'; exit 0 ;;\n\
         *--attr-source=*) exit 129 ;;\n\
         esac\n\
         exec git \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = support::probity_env(
        f.root(),
        &["start"],
        &[("PROBITY_GIT", old.to_str().unwrap())],
    );
    assert_eq!(r.code, 5, "{}", r.stdout);
    let e = &r.json["error"];
    assert_eq!(e["code"], "repository_error", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.starts_with("git 2.39.5 is too old"), "{message}");
    assert!(
        e["next_action"]
            .as_str()
            .unwrap()
            .contains("install git 2.41 or newer"),
        "{e}"
    );
    assert_eq!(support::store_snapshot(&f), before);
    // With a git new enough, the same start works.
    support::probity_ok(f.root(), &["start"]);
}
