//! `probity init` (issue 22 §6) through the real binary on real
//! repositories: one step installs the hooks and names the refspecs to
//! push, says what it did and how to undo it; a second run changes no
//! byte; nothing is written into the worktree unless `--policy` asks for
//! the default policy file; bad input writes nothing.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use support::*;

/// Every file under `.git/hooks`, `.git/probity/hooks` and `.git/config`,
/// with its bytes.
fn setup_bytes(f: &Fixture) -> BTreeMap<PathBuf, Vec<u8>> {
    let git = f.root().join(".git");
    let mut out = BTreeMap::new();
    out.insert(
        PathBuf::from("config"),
        std::fs::read(git.join("config")).unwrap(),
    );
    for dir in ["hooks", "probity/hooks"] {
        for (rel, p) in files_under(&git.join(dir)) {
            out.insert(Path::new(dir).join(rel), std::fs::read(&p).unwrap());
        }
    }
    out
}

fn porcelain(f: &Fixture) -> String {
    String::from_utf8(f.git(&["status", "--porcelain", "--ignored"]).unwrap()).unwrap()
}

#[test]
fn init_installs_the_hooks_names_the_refspecs_and_a_rerun_changes_nothing() {
    let f = parser_base();
    let (_dir, _origin) = bare_origin(&f, "origin.git");
    // A hook of the user's own, kept and run after the gate.
    let own = f.root().join(".git/hooks/pre-commit");
    std::fs::write(&own, "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o755)).unwrap();
    let worktree = porcelain(&f);
    let first = probity_ok(f.root(), &["init"]);
    let j = &first.json;
    assert_eq!(j["changed"], true);
    let hooks: Vec<&str> = j["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hook"].as_str().unwrap())
        .collect();
    assert_eq!(hooks, ["pre-commit", "pre-push"]);
    assert_eq!(j["remote"], "origin");
    assert_eq!(
        j["push_refspecs"],
        serde_json::json!(["HEAD", "refs/notes/probity"])
    );
    assert_eq!(j["push_command"], "probity push origin");
    assert_eq!(j["policy"]["state"], "not_asked");
    assert!(
        j["undo"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u == "probity hooks uninstall")
    );
    // Nothing in the worktree.
    assert_eq!(porcelain(&f), worktree);
    let after = setup_bytes(&f);
    assert!(
        after.keys().any(|k| k.ends_with("pre-commit.before")),
        "{:?}",
        after.keys()
    );
    // The second run: byte-identical hooks and config, and it says so.
    let second = probity(f.root(), &["init"]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert_eq!(second.json["changed"], false, "{}", second.stdout);
    assert_eq!(setup_bytes(&f), after);
    assert_eq!(porcelain(&f), worktree);
    // The text answer says what it did and how to undo it.
    let text = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
            .arg("--cwd")
            .arg(f.root())
            .arg("init")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(text.contains("probity push origin"), "{text}");
    assert!(text.contains("undo: probity hooks uninstall"), "{text}");
    // The hooks are live: an unreviewed commit is refused.
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    f.git(&["add", "-A"]).unwrap();
    assert!(f.git(&["commit", "-q", "-m", "unreviewed"]).is_err());
}

#[test]
fn init_policy_writes_the_default_policy_once_and_never_over_the_users() {
    let f = parser_base();
    let r = probity_ok(f.root(), &["init", "--policy"]);
    assert_eq!(r.json["policy"]["state"], "written");
    assert_eq!(r.json["remote"], serde_json::Value::Null);
    let path = f.root().join(".probity/policy.json");
    let written = std::fs::read(&path).unwrap();
    // It is a policy `probity policy check` accepts.
    probity_ok(f.root(), &["policy", "check", path.to_str().unwrap()]);
    let undo: Vec<&str> = r.json["undo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert!(
        undo.iter().any(|u| u.contains(".probity/policy.json")),
        "{undo:?}"
    );
    let before = setup_bytes(&f);
    let again = probity(f.root(), &["init", "--policy"]);
    assert_eq!(again.json["policy"]["state"], "unchanged");
    assert_eq!(again.json["changed"], false);
    assert_eq!(std::fs::read(&path).unwrap(), written);
    assert_eq!(setup_bytes(&f), before);
    // A policy of the user's own is kept as it is.
    std::fs::write(&path, "{\"schema\":\"probity-policy/v1\"}\n").unwrap();
    let kept = probity(f.root(), &["init", "--policy"]);
    assert_eq!(kept.code, 0, "{}", kept.stdout);
    assert_eq!(kept.json["policy"]["state"], "kept_existing");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"schema\":\"probity-policy/v1\"}\n"
    );
}

#[test]
fn bad_input_is_a_typed_error_and_writes_nothing() {
    let f = parser_base();
    let before = setup_bytes(&f);
    let worktree = porcelain(&f);
    let r = probity(f.root(), &["init", "--remote", "upstream"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "remote_not_configured");
    assert!(!r.json["error"]["next_action"].as_str().unwrap().is_empty());
    // A directory where the policy file goes: refused before any hook.
    std::fs::create_dir_all(f.root().join(".probity/policy.json")).unwrap();
    let r = probity(f.root(), &["init", "--policy"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["error"]["code"], "policy_path_taken");
    assert_eq!(setup_bytes(&f), before);
    std::fs::remove_dir(f.root().join(".probity/policy.json")).unwrap();
    std::fs::remove_dir(f.root().join(".probity")).unwrap();
    assert_eq!(porcelain(&f), worktree);
    let outside = tempfile::tempdir().unwrap();
    let r = probity(outside.path(), &["init"]);
    assert_eq!(r.json["error"]["code"], "repository_error", "{}", r.stdout);
}
