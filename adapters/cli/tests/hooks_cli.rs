//! `probity hooks install | uninstall` on real repositories: the managed
//! pre-commit and pre-push hooks.

mod support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;
use support::*;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn write_script(p: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every file under `dir` (recursively), path → (mode, bytes).
fn tree(dir: &Path) -> BTreeMap<PathBuf, (u32, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|(rel, p)| (rel, (mode(&p), std::fs::read(&p).unwrap())))
        .collect()
}

/// The per-hook objects of a `hooks` answer, in order.
fn hooks_of(r: &Run) -> &Vec<serde_json::Value> {
    r.json["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("no hooks array: {}{}", r.stdout, r.stderr))
}

/// `field` of every per-hook object, as (hook, value) pairs.
fn per_hook(r: &Run, field: &str) -> Vec<(String, serde_json::Value)> {
    hooks_of(r)
        .iter()
        .map(|h| (h["hook"].as_str().unwrap().to_string(), h[field].clone()))
        .collect()
}

fn pairs(v: &[(&str, serde_json::Value)]) -> Vec<(String, serde_json::Value)> {
    v.iter().map(|(h, x)| (h.to_string(), x.clone())).collect()
}

/// Asserts what `run` did to each hook: `pre_commit` and `pre_push`.
fn assert_actions(run: &Run, pre_commit: &str, pre_push: &str) {
    assert_eq!(
        per_hook(run, "action"),
        pairs(&[
            ("pre-commit", pre_commit.into()),
            ("pre-push", pre_push.into())
        ]),
        "{}",
        run.stdout
    );
}

/// Asserts that `run` touched the one `hook`, with `action`.
fn assert_action(run: &Run, hook: &str, action: &str) {
    assert_eq!(
        per_hook(run, "action"),
        pairs(&[(hook, action.into())]),
        "{}",
        run.stdout
    );
}

fn committed() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("a", "a").unwrap();
    f.commit_all("a").unwrap();
    f
}

/// The sh-quoted absolute path install writes into the hooks.
fn quoted_probity() -> String {
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_probity")).unwrap();
    let s = exe.to_str().unwrap();
    assert!(!s.contains('\''));
    format!("'{s}'")
}

/// A stand-in for probity in a copy of the installed hook: records its
/// arguments and stdin under `dir`, then exits with `code`.
fn fake_gate(dir: &Path, code: i32) -> PathBuf {
    let p = dir.join(format!("fake-probity-{code}"));
    write_script(
        &p,
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{d}/gate-args'\ncat > '{d}/gate-stdin'\nexit {code}\n",
            d = dir.display()
        ),
        0o755,
    );
    p
}

/// A user's pre-push hook that records its arguments and stdin under `dir`.
fn recording_user_hook(dir: &Path) -> String {
    format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{d}/user-args'\ncat > '{d}/user-stdin'\n",
        d = dir.display()
    )
}

/// The installed pre-push hook with probity's path replaced by `gate`
/// (everything else byte for byte as install wrote it).
fn with_gate(installed: &str, gate: &Path) -> String {
    let q = quoted_probity();
    assert_eq!(installed.matches(&q).count(), 1, "{installed}");
    installed.replace(&q, &format!("'{}'", gate.display()))
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

/// Runs a hook script with `sh`, as git would, feeding `stdin`.
fn run_hook(script: &Path, args: &[&str], stdin: &str) -> i32 {
    let out = output_with_stdin(Command::new("sh").arg(script).args(args), stdin.as_bytes());
    out.status.code().unwrap_or(-1)
}

#[test]
fn the_managed_hooks_gate_commits_and_uninstall_removes_them() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let i = probity(f.root(), &["hooks", "install"]);
    assert_eq!(i.code, 0, "{}", i.stdout);
    assert_eq!(
        per_hook(&i, "changed"),
        pairs(&[("pre-commit", true.into()), ("pre-push", true.into())]),
        "{}",
        i.stdout
    );
    for name in ["pre-commit", "pre-push"] {
        let hook = f.root().join(".git/hooks").join(name);
        assert_eq!(mode(&hook), 0o755);
        let text = std::fs::read_to_string(&hook).unwrap();
        assert!(
            text.contains(&format!("# probity-managed-hook v1: {name}\n")),
            "{text}"
        );
        assert!(text.contains(&format!("validate --gate {name}")), "{text}");
        assert!(
            f.root()
                .join(format!(".git/probity/hooks/v1/{name}.json"))
                .exists()
        );
    }
    // Installing again changes nothing.
    let again = probity(f.root(), &["hooks", "install"]);
    assert_eq!(
        per_hook(&again, "changed"),
        pairs(&[("pre-commit", false.into()), ("pre-push", false.into())]),
        "{}",
        again.stdout
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
    assert_actions(&u, "removed", "removed");
    assert!(!f.root().join(".git/hooks/pre-commit").exists());
    assert!(!f.root().join(".git/hooks/pre-push").exists());
    assert_eq!(tree(&f.root().join(".git/probity/hooks")), BTreeMap::new());
    let nothing = probity(f.root(), &["hooks", "uninstall"]);
    assert_actions(&nothing, "nothing", "nothing");
}

#[test]
fn previous_hooks_are_kept_run_and_restored_byte_for_byte() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let hooks = f.root().join(".git/hooks");
    let mine = "#!/bin/sh\ntouch \"$(git rev-parse --git-dir)/user-hook-ran\"\n";
    let my_push = "#!/bin/sh\n# my pre-push\nexit 0\n";
    write_script(&hooks.join("pre-commit"), mine, 0o750);
    write_script(&hooks.join("pre-push"), my_push, 0o700);

    let i = probity(f.root(), &["hooks", "install"]);
    let kept = per_hook(&i, "kept_previous_hook");
    let common = f.root().join(".git/probity/hooks/v1");
    assert_eq!(
        kept,
        pairs(&[
            (
                "pre-commit",
                common
                    .join("pre-commit.before")
                    .display()
                    .to_string()
                    .into()
            ),
            (
                "pre-push",
                common.join("pre-push.before").display().to_string().into()
            ),
        ]),
        "{}",
        i.stdout
    );
    assert_eq!(read(&common.join("pre-push.before")).unwrap(), my_push);
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
    assert_actions(&u, "restored", "restored");
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        mine
    );
    assert_eq!(mode(&hooks.join("pre-commit")), 0o750);
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-push")).unwrap(),
        my_push
    );
    assert_eq!(mode(&hooks.join("pre-push")), 0o700);
    assert_eq!(tree(&f.root().join(".git/probity/hooks")), BTreeMap::new());
}

#[test]
fn hook_selects_which_hooks_are_touched() {
    let f = committed();
    let hooks = f.root().join(".git/hooks");
    let mine = "#!/bin/sh\necho my pre-commit\n";
    write_script(&hooks.join("pre-commit"), mine, 0o755);
    let before = tree(&f.root().join(".git"));

    let i = probity(f.root(), &["hooks", "install", "--hook", "pre-push"]);
    assert_eq!(
        per_hook(&i, "changed"),
        pairs(&[("pre-push", true.into())]),
        "{}",
        i.stdout
    );
    let after = tree(&f.root().join(".git"));
    let touched: Vec<&PathBuf> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(*v))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        touched,
        [
            Path::new("hooks/pre-push"),
            Path::new("probity/hooks/v1/pre-push.json")
        ],
        "only pre-push and its record were written"
    );
    assert!(before.keys().all(|p| after.contains_key(p)));

    // Uninstalling pre-commit leaves the managed pre-push and the user's pre-commit.
    let u = probity(f.root(), &["hooks", "uninstall", "--hook", "pre-commit"]);
    assert_action(&u, "pre-commit", "nothing");
    assert_eq!(tree(&f.root().join(".git")), after);

    // Repeated and reordered flags: each hook once, pre-commit first.
    let both = probity(
        f.root(),
        &[
            "hooks",
            "install",
            "--hook",
            "pre-push",
            "--hook",
            "pre-commit",
            "--hook",
            "pre-push",
        ],
    );
    assert_eq!(
        per_hook(&both, "changed"),
        pairs(&[("pre-commit", true.into()), ("pre-push", false.into())]),
        "{}",
        both.stdout
    );

    let u = probity(f.root(), &["hooks", "uninstall", "--hook", "pre-push"]);
    assert_action(&u, "pre-push", "removed");
    assert!(!hooks.join("pre-push").exists());
    assert!(
        std::fs::read_to_string(hooks.join("pre-commit"))
            .unwrap()
            .contains("# probity-managed-hook v1: pre-commit")
    );
    let u = probity(f.root(), &["hooks", "uninstall"]);
    assert_actions(&u, "restored", "nothing");
    assert_eq!(tree(&f.root().join(".git")), before);

    let bad = probity(f.root(), &["hooks", "install", "--hook", "post-merge"]);
    assert_eq!(bad.code, 2, "{}", bad.stdout);
    assert_eq!(tree(&f.root().join(".git")), before);
}

#[test]
fn the_pre_push_hook_gives_the_gate_and_the_previous_hook_the_same_stdin_and_arguments() {
    let f = committed();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let hook = f.root().join(".git/hooks/pre-push");
    write_script(&hook, &recording_user_hook(d), 0o755);
    let i = probity(f.root(), &["hooks", "install", "--hook", "pre-push"]);
    assert_eq!(i.code, 0, "{}", i.stdout);
    let installed = std::fs::read_to_string(&hook).unwrap();

    let updates = "refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 0000000000000000000000000000000000000000\n\
                   refs/tags/v1 2222222222222222222222222222222222222222 refs/tags/v1 0000000000000000000000000000000000000000\n";
    let args = ["origin", "https://example.invalid/it's a repo.git"];
    // The gate is given the URL git pushes to ($2), not the remote's name.
    let expected_gate_args = format!(
        "validate\n--gate\npre-push\n--remote\n{}\n--stdin-updates\n",
        args[1]
    );
    let expected_user_args = format!("{}\n{}\n", args[0], args[1]);

    // The gate allows: both see the same stdin; the user's hook the same arguments.
    let allowing = d.join("allowing-pre-push");
    write_script(&allowing, &with_gate(&installed, &fake_gate(d, 0)), 0o755);
    assert_eq!(run_hook(&allowing, &args, updates), 0);
    assert_eq!(read(&d.join("gate-args")), Some(expected_gate_args.clone()));
    assert_eq!(read(&d.join("gate-stdin")).as_deref(), Some(updates));
    assert_eq!(read(&d.join("user-args")), Some(expected_user_args.clone()));
    assert_eq!(read(&d.join("user-stdin")).as_deref(), Some(updates));

    // An empty push: both get the same (empty) stdin.
    for f in ["gate-args", "gate-stdin", "user-args", "user-stdin"] {
        std::fs::remove_file(d.join(f)).unwrap();
    }
    assert_eq!(run_hook(&allowing, &args, ""), 0);
    assert_eq!(read(&d.join("gate-stdin")).as_deref(), Some(""));
    assert_eq!(read(&d.join("user-stdin")).as_deref(), Some(""));
    assert_eq!(read(&d.join("user-args")), Some(expected_user_args));

    // The gate denies: its status is the hook's, and the user's hook never runs.
    for f in ["gate-args", "gate-stdin", "user-args", "user-stdin"] {
        std::fs::remove_file(d.join(f)).unwrap();
    }
    let denying = d.join("denying-pre-push");
    write_script(&denying, &with_gate(&installed, &fake_gate(d, 1)), 0o755);
    assert_eq!(run_hook(&denying, &args, updates), 1);
    assert_eq!(read(&d.join("gate-args")), Some(expected_gate_args));
    assert_eq!(read(&d.join("gate-stdin")).as_deref(), Some(updates));
    assert_eq!(read(&d.join("user-args")), None);
    assert_eq!(read(&d.join("user-stdin")), None);
}

#[test]
fn a_real_push_runs_the_gate_and_then_the_previous_hook_with_gits_stdin() {
    let f = committed();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let remote = d.join("remote.git");
    f.git(&["init", "-q", "--bare", remote.to_str().unwrap()])
        .unwrap();
    f.git(&["remote", "add", "origin", remote.to_str().unwrap()])
        .unwrap();
    let hook = f.root().join(".git/hooks/pre-push");
    write_script(&hook, &recording_user_hook(d), 0o755);
    probity(f.root(), &["hooks", "install", "--hook", "pre-push"]);
    let installed = std::fs::read_to_string(&hook).unwrap();
    let head = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();

    // Denied: nothing is pushed and the user's hook does not run.
    write_script(&hook, &with_gate(&installed, &fake_gate(d, 1)), 0o755);
    assert!(f.git(&["push", "-q", "origin", "main"]).is_err());
    let stdin = read(&d.join("gate-stdin")).unwrap();
    assert!(
        stdin.starts_with("refs/heads/main ") && stdin.contains(head.trim()),
        "{stdin}"
    );
    assert_eq!(read(&d.join("user-stdin")), None);
    assert!(
        f.git_in(&remote, &["rev-parse", "--verify", "-q", "refs/heads/main"])
            .is_err()
    );

    // Allowed: the user's hook sees what the gate saw, and the push lands.
    write_script(&hook, &with_gate(&installed, &fake_gate(d, 0)), 0o755);
    f.git(&["push", "-q", "origin", "main"]).unwrap();
    assert_eq!(read(&d.join("gate-stdin")), Some(stdin.clone()));
    assert_eq!(read(&d.join("user-stdin")), Some(stdin));
    assert_eq!(
        read(&d.join("gate-args")),
        Some(format!(
            "validate\n--gate\npre-push\n--remote\n{}\n--stdin-updates\n",
            remote.display()
        ))
    );
    assert_eq!(
        read(&d.join("user-args")),
        Some(format!("origin\n{}\n", remote.display()))
    );
}

#[test]
fn edits_made_after_install_are_preserved() {
    let f = committed();
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
    assert_actions(&u, "preserved_user_edits", "removed");
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), edited);
    assert!(!f.root().join(".git/hooks/pre-push").exists());
}

#[test]
fn refusing_over_an_edited_hook_writes_nothing_at_all() {
    for edited_hook in ["pre-commit", "pre-push"] {
        let f = committed();
        let hooks = f.root().join(".git/hooks");
        // The other hook is a user's hook install would otherwise take over.
        let other = if edited_hook == "pre-commit" {
            "pre-push"
        } else {
            "pre-commit"
        };
        write_script(&hooks.join(other), "#!/bin/sh\necho mine\n", 0o700);
        let i = probity(f.root(), &["hooks", "install", "--hook", edited_hook]);
        assert_eq!(i.code, 0, "{}", i.stdout);
        let path = hooks.join(edited_hook);
        let edited = format!("{}echo my addition\n", read(&path).unwrap());
        std::fs::write(&path, edited).unwrap();
        let before = tree(&f.root().join(".git"));

        let again = probity(f.root(), &["hooks", "install"]);
        again.assert_refused(4, "hook_changed");
        let next = again.next_action();
        assert!(
            next.contains(&format!("probity hooks uninstall --hook {edited_hook}`")),
            "{next}"
        );
        assert_eq!(
            tree(&f.root().join(".git")),
            before,
            "refusing over an edited {edited_hook} left every file byte-identical"
        );
    }
}

#[test]
fn core_hooks_path_is_honoured() {
    let f = committed();
    f.git(&["config", "core.hooksPath", "tools/hooks"]).unwrap();
    let i = probity(f.root(), &["hooks", "install"]);
    assert_eq!(i.code, 0, "{}", i.stdout);
    for name in ["pre-commit", "pre-push"] {
        assert!(f.root().join("tools/hooks").join(name).exists());
        assert!(!f.root().join(".git/hooks").join(name).exists());
    }
}
