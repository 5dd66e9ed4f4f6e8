//! What Python and pytest load beyond the words of a configuration (risk
//! policy v12, red team round 33), on a real bare remote with the server
//! hook: a file that shadows a standard-library module in the directory
//! Python puts first on `sys.path`, package metadata registering a
//! pytest plugin, `--pyargs`, a glob in `testpaths`, npm's
//! `node_modules/.bin` and bun's `bunfig.toml`; a script reached through
//! a link, read from its real directory (round 33's 33psl); what pytest
//! and unittest are given (round 34). An edit to what runs is
//! high and refused by the client and the server; the legitimate flows
//! beside them stay medium and land.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;

/// A test module.
const CHECK: &str = "def test_api():\n    assert True\n";

/// 33gpc, 33gso, 33pep: under `python3 -m pytest`, a sourceless package,
/// an extension module named like a standard-library module, and package
/// metadata at the root.
#[test]
fn what_shadows_a_module_at_the_root_needs_the_maintainer() {
    for edited in [
        "glob/__init__.pyc",
        "glob.cpython-311-x86_64-linux-gnu.so",
        "ev.dist-info/entry_points.txt",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            "python3 -m pytest -q",
            &[("tests/test_ok.py", CHECK), (edited, "x\n")],
            edited,
        );
    }
}

/// 33pxd, 33pei, 33ppa, 33ptg: the script's directory past an option's
/// value; a plugin an approved `entry_points.txt` registers; `--pyargs`
/// in `addopts`; a glob in `testpaths`.
#[test]
fn what_python_and_pytest_load_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -X dev tools/check.py",
        &[
            ("tools/check.py", "import subprocess\n"),
            ("tools/selectors.py", "X = 1\n"),
        ],
        "tools/selectors.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q",
        &[
            ("tests/test_ok.py", CHECK),
            (
                "ev.egg-info/entry_points.txt",
                "[pytest11]\nev = tools.ev\n",
            ),
            ("tools/__init__.py", ""),
            ("tools/ev.py", "X = 1\n"),
        ],
        "tools/ev.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q",
        &[
            (
                "pytest.ini",
                "[pytest]\naddopts = --pyargs tools.selfcheck\n",
            ),
            ("tests/test_ok.py", CHECK),
            ("tools/__init__.py", ""),
            ("tools/selfcheck.py", CHECK),
        ],
        "tools/selfcheck.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q",
        &[
            ("pytest.ini", "[pytest]\ntestpaths = */tests\n"),
            ("pkg/tests/test_db.py", "import sqlite3\n"),
            ("pkg/tests/_sqlite3.py", "X = 1\n"),
        ],
        "pkg/tests/_sqlite3.py",
    );
}

/// 33nbin, 33bpl: a command an npm script names, found in
/// `node_modules/.bin`; what `bunfig.toml` preloads for `bun test`.
#[test]
fn what_npm_and_bun_load_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "npm test",
        &[
            (
                "package.json",
                "{\"name\":\"w\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"mytool\"}}\n",
            ),
            ("node_modules/.bin/mytool", "#!/bin/sh\necho ok\n"),
        ],
        "node_modules/.bin/mytool",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "bun test",
        &[
            ("bunfig.toml", "[test]\npreload = [\"./tools/setup.ts\"]\n"),
            ("tools/setup.ts", "export {}\n"),
        ],
        "tools/setup.ts",
    );
}

/// Beside them (33lc, 33ld, 33lf, and a flat layout): tox's `setenv =
/// PYTEST_ADDOPTS = --color=yes` moves no root; `bun test` takes no Go
/// test (nor, then, its package); a root module that shadows nothing:
/// medium, and it lands.
#[test]
fn round_33s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                &folder_open_task("python3 -m pytest -q"),
            ),
            (
                "pytest.ini",
                "[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n",
            ),
            (
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[testenv]\nsetenv =\n    PYTEST_ADDOPTS = --color=yes\ncommands = pytest\n",
            ),
            ("tests/test_ok.py", CHECK),
            ("src/w/core.py", "X = 1\n"),
            ("scripts/release.py", "print(1)\n"),
            ("app.py", "X = 1\n"),
        ],
        &["scripts/release.py", "app.py"],
    );
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (".vscode/tasks.json", &folder_open_task("bun test")),
            ("lib/a.test.ts", "export {}\n"),
            ("svc/handler_test.go", "package svc\n"),
            ("svc/handler.go", "package svc\n"),
        ],
        &["svc/handler_test.go", "svc/handler.go"],
    );
}

/// 33psl: a task's script reached through a link runs from the link's
/// real directory (Python puts it first on `sys.path`): a new file there
/// named like a standard-library module the script imports through
/// `subprocess`, and a module it imports.
#[test]
fn a_linked_scripts_real_directory_needs_the_maintainer() {
    for (script, edited) in [
        ("import subprocess\nprint(1)\n", "scripts/selectors.py"),
        ("import helper\n", "scripts/helper.py"),
    ] {
        let tasks = folder_open_task("python3 tools/check.py");
        an_edit_through_links_needs_the_maintainer(
            &[
                (".vscode/tasks.json", &tasks),
                ("scripts/check.py", script),
                ("scripts/helper.py", "X = 1\n"),
            ],
            &[("tools/check.py", "../scripts/check.py")],
            edited,
        );
    }
}

/// Round 35's 35abs, 35absn: a script behind a link whose target is
/// absolute (`/proc/self/cwd/...`, the checkout's own file): what it runs
/// cannot be read, so an edit anywhere needs the maintainer. Beside it
/// (35lf), a linked shell script reads its words from where it runs: a
/// file beside its target is code like any other.
#[test]
fn a_script_behind_an_absolute_link_needs_the_maintainer() {
    let tasks = folder_open_task("python3 tools/check.py");
    an_edit_through_links_needs_the_maintainer(
        &[
            (".vscode/tasks.json", &tasks),
            ("scripts/check.py", "import helper\n"),
            ("scripts/helper.py", "X = 1\n"),
        ],
        &[("tools/check.py", "/proc/self/cwd/scripts/check.py")],
        "scripts/helper.py",
    );
    edits_through_links_stay_medium(
        &[
            (".vscode/tasks.json", &folder_open_task("bash tools/run.sh")),
            ("scripts/run.sh", "cat conf/settings.txt\n"),
            ("conf/settings.txt", "x\n"),
            ("scripts/conf/settings.txt", "x\n"),
        ],
        &[("tools/run.sh", "../scripts/run.sh")],
        &["scripts/conf/settings.txt"],
    );
}

/// Red team round 34: a configuration beside a path pytest is given
/// (34suf), a test given whole, imported from its directory (34pca), a
/// package unittest's discovery imports untested (34uti).
#[test]
fn what_pytest_and_unittest_are_given_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q tests/test_ok.py",
        &[("tests/test_ok.py", CHECK), ("tools/ev.py", "X = 1\n")],
        "tests/pytest.ini",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q checks/check.py",
        &[("checks/check.py", "import sqlite3\n")],
        "checks/_sqlite3.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m unittest",
        &[
            ("tests/__init__.py", ""),
            ("tests/test_ok.py", "import unittest\n"),
            ("app/__init__.py", "X = 1\n"),
        ],
        "app/__init__.py",
    );
}

/// Round 34's false positives (34lf, 34li): a root data file named like
/// a standard-library module is no module: medium, and it lands.
#[test]
fn round_34s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                &folder_open_task("python3 -m pytest -q"),
            ),
            ("tests/test_ok.py", CHECK),
            ("logging.yaml", "version: 1\n"),
            ("types.ts", "export {}\n"),
        ],
        &["logging.yaml", "types.ts"],
    );
}
