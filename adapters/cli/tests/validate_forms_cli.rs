//! `probity validate <gate>` (issue 14 §7): each gate as a subcommand with
//! only its own flags answers exactly what `--gate <gate>` answers; the
//! other gates' flags are usage errors, and the two spellings do not mix.

mod support;

use support::*;

fn rev(f: &probity_git::fixture::Fixture, what: &str) -> String {
    rev_parse(f, what)
}

#[test]
fn each_gate_subcommand_answers_as_its_gate_flag() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    let same = |sub: &[&str], flag: &[&str]| {
        let a = probity(f.root(), sub);
        let b = probity(f.root(), flag);
        assert_eq!(a.code, b.code, "{sub:?}: {}{}", a.stdout, a.stderr);
        assert_eq!(a.json, b.json, "{sub:?}");
        a
    };
    let allow = same(
        &["validate", "pre-commit"],
        &["validate", "--gate", "pre-commit"],
    );
    assert_eq!(allow.json["decision"], "allow");
    let base = rev(&f, "HEAD");
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "reviewed"])
        .unwrap();
    f.git(&["tag", "v1"]).unwrap();
    let range = format!("{base}..HEAD");
    let pushed = same(
        &["validate", "pre-push", "--range", &range],
        &["validate", "--gate", "pre-push", "--range", &range],
    );
    assert_eq!(pushed.json["decision"], "allow", "{}", pushed.stdout);
    same(
        &["validate", "pre-pr", "--base", &base],
        &["validate", "--gate", "pre-pr", "--base", &base],
    );
    same(
        &["validate", "release", "--revision", "v1"],
        &["validate", "--gate", "release", "--revision", "v1"],
    );
    // A subcommand takes only its own flags, and never beside --gate.
    for bad in [
        &["validate", "pre-push", "--staged"][..],
        &["validate", "pre-commit", "--base", "HEAD"],
        &["validate", "release"],
        &["validate", "--gate", "pre-commit", "pre-push"],
        &["validate"],
    ] {
        let r = probity(f.root(), bad);
        assert_eq!(r.code, 2, "{bad:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], "usage", "{bad:?}");
    }
}

/// `validate` with no gate at all is a usage error whose next step names
/// both spellings of one (the subcommand and the flag), not the flag alone.
#[test]
fn validate_without_a_gate_names_both_spellings() {
    let f = medium_change();
    let r = probity(f.root(), &["validate"]);
    r.assert_refused(2, "usage");
    let next = r.next_action();
    assert!(
        next.contains("probity validate pre-commit|pre-push|pre-pr|release"),
        "{next}"
    );
    assert!(next.contains("--gate"), "{next}");
}

/// The global flags go anywhere (issue 23 §7): `validate --json
/// pre-receive` was a usage error ("cannot be used with '--json'") while
/// `--json validate pre-receive` and `validate pre-receive --json` worked.
/// Every order answers the same; `--gate` beside a gate subcommand is still
/// refused.
#[test]
fn global_flags_before_a_gate_subcommand_answer_as_every_other_order() {
    let f = medium_change();
    let root = f.root().display().to_string();
    let run = |args: &[&str]| {
        let out = isolated(&mut std::process::Command::new(env!(
            "CARGO_BIN_EXE_probity"
        )))
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
        run_of(&out)
    };
    for gate in ["pre-receive", "pre-commit"] {
        let orders: [Vec<&str>; 5] = [
            vec!["--json", "--cwd", &root, "validate", gate],
            vec!["validate", "--json", "--cwd", &root, gate],
            vec!["validate", "--cwd", &root, "--json", gate],
            vec!["validate", gate, "--json", "--cwd", &root],
            vec!["--cwd", &root, "validate", "--json", gate],
        ];
        let first = run(&orders[0]);
        assert!(
            first.json.is_object(),
            "{gate}: {}{}",
            first.stdout,
            first.stderr
        );
        assert_ne!(first.code, 2, "{gate}: {}", first.stdout);
        for args in &orders[1..] {
            let r = run(args);
            assert_eq!(r.code, first.code, "{args:?}: {}{}", r.stdout, r.stderr);
            assert_eq!(r.json, first.json, "{args:?}");
        }
    }
    let mixed = run(&[
        "validate",
        "--json",
        "--cwd",
        &root,
        "--gate",
        "pre-commit",
        "pre-push",
    ]);
    mixed.assert_refused(2, "usage");
}
