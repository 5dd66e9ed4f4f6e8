//! `probity --version` names the version, the commit the binary was built
//! from and whether that tree was dirty (issue 22 §1).

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
