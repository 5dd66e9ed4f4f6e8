//! The built-in risk policy v5 (D-R135) on a real repository: what
//! `probity start --json` rates high that v4 rated medium (red team round
//! 5, attempts 04, 05 and 13). The classifier's every rule is tested with
//! plain values in core (`risk::tests::v5_*`); here the observation the
//! git adapter gathers, and the configurations `start` reads from the
//! base and candidate trees, reach it.

mod support;

use support::*;

fn assert_high(started: &serde_json::Value, reason: &str) {
    let newest = probity_core::review::RiskPolicy::newest_hash().to_string();
    assert_eq!(started["policy_hash"], newest.as_str(), "{started}");
    assert_eq!(started["risk_level"], "high", "{started}");
    assert!(
        started["risk_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == reason),
        "{reason}: {started}"
    );
}

/// Attempt 04: the base's `.vscode/tasks.json` runs `scripts/setup.py` on
/// opening the folder; an edit to the script alone (a Python file, medium
/// by its own path) is `auto_run_config`, read from the base tree.
#[test]
fn a_script_a_folder_open_task_runs_is_rated_high() {
    let f = parser_base();
    f.write(
        ".vscode/tasks.json",
        r#"{"version": "2.0.0", "tasks": [{"label": "setup", "type": "shell",
            "command": "python", "args": ["scripts/setup.py"],
            "runOptions": {"runOn": "folderOpen"}}]}"#,
    )
    .unwrap();
    f.write("scripts/setup.py", "print('setting up')\n")
        .unwrap();
    f.commit_all("tasks").unwrap();
    f.write("scripts/setup.py", "print('setting up again')\n")
        .unwrap();
    let st = probity_ok(f.root(), &["start"]);
    assert_high(&st.json, "auto_run_config");
}

/// Attempt 13: a Rust raw identifier spelling of `std::process::Command`
/// is `process_spawn`.
#[test]
fn a_raw_identifier_spawn_is_rated_high() {
    let f = parser_base();
    f.write(
        "src/run.rs",
        "pub fn run() { let _ = std::r#process::r#Command::r#new(\"sh\").status(); }\n",
    )
    .unwrap();
    let st = probity_ok(f.root(), &["start"]);
    assert_high(&st.json, "process_spawn");
}

/// Attempt 05: a submodule (a gitlink, mode 160000) at `.husky`, a
/// directory of hooks that run by themselves, is rated as that directory
/// (`auto_run_config`) through the git adapter's real diff; a submodule
/// elsewhere is a dependency bump, not high.
#[test]
fn a_submodule_at_a_hook_directory_is_rated_as_that_directory() {
    // An embedded repository in a fresh worktree's `path`: the candidate
    // records it as a gitlink, as `git add` does.
    let nested = |path: &str| {
        let f = parser_base();
        let dir = f.root().join(path);
        std::fs::create_dir_all(&dir).unwrap();
        for args in [
            &["init", "-q"][..],
            &["commit", "-q", "--allow-empty", "-m", "hooks"][..],
        ] {
            let out = plain_git(&dir).args(args).output().unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
        }
        probity_ok(f.root(), &["start", "--json"]).json
    };
    let elsewhere = nested("vendor/lib");
    assert_ne!(elsewhere["risk_level"], "high", "{elsewhere}");
    assert_high(&nested(".husky"), "auto_run_config");
}
