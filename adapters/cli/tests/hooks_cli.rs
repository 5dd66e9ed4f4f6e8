//! `probity hooks install | uninstall` on real repositories.

mod support;

use std::os::unix::fs::PermissionsExt;

use probity_git::fixture::Fixture;
use support::*;

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_managed_hook_gates_commits_and_uninstall_removes_it() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let i = probity(f.root(), &["hooks", "install"]);
    assert_eq!(
        (i.code, i.json["changed"].as_bool()),
        (0, Some(true)),
        "{}",
        i.stdout
    );
    let hook = f.root().join(".git/hooks/pre-commit");
    assert_eq!(mode(&hook), 0o755);
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("# probity-managed-hook v1")
    );
    // Installing again changes nothing.
    assert_eq!(
        probity(f.root(), &["hooks", "install"]).json["changed"],
        false
    );

    f.git(&["add", "-A"]).unwrap();
    let err = f.git(&["commit", "-q", "-m", "unreviewed"]).unwrap_err();
    assert!(err.to_string().contains("receipt_missing"), "{err}");
    probity(f.root(), &["start"]);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let ev = input(tmp.path(), "ev.txt", "ok\n");
    assert_eq!(
        probity(f.root(), &["finalize", "--result", &r, "--evidence", &ev]).code,
        0
    );
    f.git(&["commit", "-q", "-m", "reviewed"]).unwrap();

    let u = probity(f.root(), &["hooks", "uninstall"]);
    assert_eq!(u.json["action"], "removed", "{}", u.stdout);
    assert!(!hook.exists());
    assert_eq!(
        probity(f.root(), &["hooks", "uninstall"]).json["action"],
        "nothing"
    );
}

#[test]
fn a_previous_hook_is_kept_run_and_restored_byte_for_byte() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let hook = f.root().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let mine = "#!/bin/sh\ntouch \"$(git rev-parse --git-dir)/user-hook-ran\"\n";
    std::fs::write(&hook, mine).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();

    let i = probity(f.root(), &["hooks", "install"]);
    assert!(i.json["kept_previous_hook"].is_string(), "{}", i.stdout);
    probity(f.root(), &["start"]);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let ev = input(tmp.path(), "ev.txt", "ok\n");
    probity(f.root(), &["finalize", "--result", &r, "--evidence", &ev]);
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "-m", "reviewed"]).unwrap();
    assert!(
        f.root().join(".git/user-hook-ran").exists(),
        "the user's hook ran after the gate allowed"
    );

    let u = probity(f.root(), &["hooks", "uninstall"]);
    assert_eq!(u.json["action"], "restored", "{}", u.stdout);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), mine);
    assert_eq!(mode(&hook), 0o750);
}

#[test]
fn edits_made_after_install_are_preserved() {
    let f = Fixture::new().unwrap();
    f.write("a", "a").unwrap();
    f.commit_all("a").unwrap();
    probity(f.root(), &["hooks", "install"]);
    let hook = f.root().join(".git/hooks/pre-commit");
    let edited = format!(
        "{}\necho my addition\n",
        std::fs::read_to_string(&hook).unwrap()
    );
    std::fs::write(&hook, &edited).unwrap();
    let again = probity(f.root(), &["hooks", "install"]);
    assert_eq!(
        (again.code, again.json["error"]["code"].as_str()),
        (4, Some("hook_changed"))
    );
    let u = probity(f.root(), &["hooks", "uninstall"]);
    assert_eq!(u.json["action"], "preserved_user_edits", "{}", u.stdout);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), edited);
}

#[test]
fn core_hooks_path_is_honoured() {
    let f = Fixture::new().unwrap();
    f.write("a", "a").unwrap();
    f.commit_all("a").unwrap();
    f.git(&["config", "core.hooksPath", "tools/hooks"]).unwrap();
    let i = probity(f.root(), &["hooks", "install"]);
    assert_eq!(i.code, 0, "{}", i.stdout);
    assert!(f.root().join("tools/hooks/pre-commit").exists());
    assert!(!f.root().join(".git/hooks/pre-commit").exists());
}
