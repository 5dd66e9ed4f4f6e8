//! Red team round 37's 37ck1: the protected base fixes a required check's
//! command (`python3 scripts/check.py`), but the file it names sits in
//! the tree under review. A change that rewrites it decides what its own
//! check says (and runs in the check's runner): it is high
//! (`policy_floor:required_check#0`), so the agent's signature alone is
//! refused, on a real bare remote with the server hook. An edit the
//! check only tests stays medium and lands on the agent's signature.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;
use support::*;

const CHECKS: &str = r#"{"schema":"probity-checks/v1","checks":[{"name":"tests","paths":["src/**","scripts/**"],"argv":["python3","scripts/check.py"]}]}"#;

/// The team's base with the required check and its script.
fn team_with_a_check() -> Team {
    Team::serve(
        &policy_json(),
        &[
            (".probity/checks.json", CHECKS),
            ("scripts/check.py", "import sys\nsys.exit(0)\n"),
        ],
        "the team's policy and its required check",
    )
}

/// Starts the live change and approves it on the required check; returns
/// (lineage, start answer, commit).
fn reviewed_on_the_check(t: &Team, message: &str) -> (String, serde_json::Value, String) {
    let st = probity_ok(t.f.root(), &["start"]);
    let argv = ["--evidence-cmd", "--", "python3", "scripts/check.py"];
    let done = approve_started_with(t.f.root(), t.inputs.path(), &st.json, &argv);
    let lineage = string_at(&done, "lineage_id");
    (lineage, st.json, commit_all(&t.f, message))
}

#[test]
fn a_change_to_the_program_a_required_check_runs_needs_the_maintainer() {
    let t = team_with_a_check();
    write_medium_change(&t.f);
    t.f.write(
        "scripts/check.py",
        "import sys\nprint('payload')\nsys.exit(0)\n",
    )
    .unwrap();
    let (lineage, started, c) = reviewed_on_the_check(&t, "the check says yes");
    assert_risk(&started, "high", "policy_floor:required_check#0");
    let landed = t.server_main();
    t.sign(&t.agent, &lineage);
    let p = t.push_denied("roles_unmet");
    assert!(said(&p).contains(ALICE), "{}", said(&p));
    assert_eq!(t.server_main(), landed);
    t.sign(&t.ci, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
}

#[test]
fn a_change_the_required_check_tests_stays_medium_and_lands() {
    let t = team_with_a_check();
    write_medium_change(&t.f);
    let (lineage, started, c) = reviewed_on_the_check(&t, "more parsing");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
}

/// The server holds the floor itself: a review started where the base
/// had no required check froze medium; pushed as a new protected branch
/// once `main` requires `python3 scripts/check.py`, its change to that
/// script understates its tier (`policy_floor_unmet`).
#[test]
fn the_server_holds_a_review_to_the_checks_of_the_default_branch() {
    let t = Team::serve(
        &policy_json(),
        &[("scripts/check.py", "import sys\nsys.exit(0)\n")],
        "the team's policy",
    );
    let base = t.server_main().unwrap();
    t.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    write_medium_change(&t.f);
    t.f.write(
        "scripts/check.py",
        "import sys\nprint('payload')\nsys.exit(0)\n",
    )
    .unwrap();
    let (lineage, started, staged) = t.review_commit("before the check");
    assert_risk(&started, "medium", "code_change");
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    // Meanwhile ci and alice require the check on `main`.
    t.f.git(&["checkout", "-q", "-B", "main", &base]).unwrap();
    t.f.write(".probity/checks.json", CHECKS).unwrap();
    let (l, _, c) = t.review_commit("require the check");
    t.sign(&t.ci, &l);
    t.signed_lands(&t.alice, &l, c);
    let to = format!("{staged}:refs/heads/feature");
    let err = push_no_verify(&t.f, &["--atomic", "origin", &to, "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("policy_floor_unmet"), "{err}");
    assert!(err.contains("required_check#0"), "{err}");
    assert_eq!(rev(&t.f, &t.server, "refs/heads/feature"), None);
}

/// Red team round 38's 38ckc, 38ckd, 38ckm: the program spelled another
/// way (a shell's `-c` string, a directory Python runs, a module): a
/// change to it is high all the same.
#[test]
fn a_check_program_spelled_another_way_is_its_definition_too() {
    for (argv, program) in [
        (
            r#"["sh","-c","python3 scripts/check.py"]"#,
            "scripts/check.py",
        ),
        (r#"["python3","scripts"]"#, "scripts/__main__.py"),
        (r#"["python3","-m","scripts.check"]"#, "scripts/check.py"),
    ] {
        let checks = format!(
            r#"{{"schema":"probity-checks/v1","checks":[{{"name":"tests","paths":["src/**","scripts/**"],"argv":{argv}}}]}}"#
        );
        let t = Team::serve(
            &policy_json(),
            &[
                (".probity/checks.json", checks.as_str()),
                (program, "import sys\nsys.exit(0)\n"),
            ],
            "the team's policy and its required check",
        );
        write_medium_change(&t.f);
        t.f.write(program, "import sys\nprint('payload')\nsys.exit(0)\n")
            .unwrap();
        let st = probity_ok(t.f.root(), &["start"]);
        assert_risk(&st.json, "high", "policy_floor:required_check#0");
    }
}

/// Red team round 38's 38ckl, 38ckf: the check's program reached
/// through a link the base holds (a linked `scripts` directory, a linked
/// `scripts/check.py`): a change to where the link leads is high too.
#[test]
fn a_check_program_behind_a_link_is_its_definition_too() {
    for (link, target, program) in [
        ("scripts", "tools", "tools/check.py"),
        (
            "scripts/check.py",
            "../tools/check_impl.py",
            "tools/check_impl.py",
        ),
    ] {
        let t = Team::serve(
            &policy_json(),
            &[
                (".probity/checks.json", CHECKS),
                (program, "import sys\nsys.exit(0)\n"),
            ],
            "the team's policy and its required check",
        );
        let at = t.f.root().join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &at).unwrap();
        t.f.commit_all("the check's program behind a link").unwrap();
        t.f.write(program, "import sys\nprint('payload')\nsys.exit(0)\n")
            .unwrap();
        let st = probity_ok(t.f.root(), &["start"]);
        assert_risk(&st.json, "high", "policy_floor:required_check#0");
    }
}
