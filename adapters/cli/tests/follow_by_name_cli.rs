//! What risk policy v12 lists by name (red team round 27), on a real
//! bare remote with the server hook: `find` from the root with a name
//! test, a test runner's discovery and `npm --workspaces` find files by
//! their names; the files found are read in turn, so an edit to what they
//! run is high and refused by the client and the server. The listing is
//! bounded by its matches, not by every file of the tree: the legitimate
//! flows beside them, in a tree larger than a listing's bound, stay
//! medium and land.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;

/// Pages no name test matches: with them the root holds more files than
/// one listing may (128).
fn pages() -> Vec<(String, String)> {
    (0..150)
        .map(|i| (format!("docs/page{i}.md"), "text\n".to_string()))
        .collect()
}

/// The file the agent alone edits, two steps from the task.
const X: (&str, &str) = ("lib/x.py", "print(1)\n");

/// `files` and `more`, as the team's helpers take them.
fn with<'a>(files: &[(&'a str, &'a str)], more: &'a [(String, String)]) -> Vec<(&'a str, &'a str)> {
    let mut all = files.to_vec();
    all.extend(more.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    all
}

/// 27fa: a `find` from the root whose name test bounds what it runs, in
/// a loop, in a tree of more files than one listing holds; the script it
/// finds runs `lib/x.py`, which the agent alone then edits.
#[test]
fn what_a_find_from_the_root_runs_in_a_loop_needs_the_maintainer() {
    let pages = pages();
    an_edit_the_task_runs_needs_the_maintainer(
        "find . -type f -name '*_check.sh' | sort | while read -r f; do sh \"$f\"; done",
        &with(&[("tools/lint_check.sh", "python3 lib/x.py\n"), X], &pages),
        "lib/x.py",
    );
}

/// 27fa2 (26la2's shape): the same by `-exec`.
#[test]
fn what_a_find_from_the_root_runs_by_exec_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "find . -name '*_test.sh' -exec bash {} \\\\;",
        &[("tests/cli_test.sh", "python3 lib/x.py\n"), X],
        "lib/x.py",
    );
}

/// 27ua: unittest's discovery runs a test that imports a helper, by its
/// default pattern or one the task gives.
#[test]
fn what_a_discovered_test_imports_needs_the_maintainer() {
    let test = "import unittest\nfrom tests.helpers import make\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(make(), 1)\n";
    for (command, found) in [
        ("python3 -m unittest", "tests/test_api.py"),
        (
            "python3 -m unittest discover -p '*_check.py'",
            "tests/api_check.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            command,
            &[
                ("tests/__init__.py", ""),
                ("tests/helpers.py", "def make():\n    return 1\n"),
                (found, test),
            ],
            "tests/helpers.py",
        );
    }
}

/// 27na: `npm run build --workspaces` runs a workspace's own script.
#[test]
fn what_a_workspace_runs_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "npm run build --workspaces",
        &[
            (
                "package.json",
                "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n",
            ),
            (
                "packages/a/package.json",
                "{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"node ../../lib/x.js\"}}\n",
            ),
            ("lib/x.js", "1;\n"),
        ],
        "lib/x.js",
    );
}

/// Beside them (26la2, 27ld, 27lh), in a tree of more files than one
/// listing holds: a test run found by name, a discovery under `tests`
/// and the workspaces' tests name what their files run and no other
/// file; an edit outside is medium and lands.
#[test]
fn listings_by_name_leave_other_edits_medium() {
    let pages = pages();
    for command in [
        "find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\\\;",
        "python3 -m unittest discover -s tests",
        "npm test --workspaces",
    ] {
        let tasks = folder_open_task(command);
        edits_the_configuration_does_not_run_stay_medium(
            &with(
                &[
                    (".vscode/tasks.json", &tasks),
                    ("tests/cli_test.sh", "echo ok\n"),
                    (
                        "tests/test_ok.py",
                        "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n",
                    ),
                    (
                        "package.json",
                        "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n",
                    ),
                    (
                        "packages/a/package.json",
                        "{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node --check index.js\"}}\n",
                    ),
                    ("packages/a/index.js", "1;\n"),
                    ("scripts/release.py", "print('release')\n"),
                    ("src/server.py", "print('serve')\n"),
                ],
                &pages,
            ),
            &["src/server.py", "scripts/release.py"],
        );
    }
}

/// Red team round 28's 28pi, 28ui: the package a discovered test is
/// imported as runs first; its `__init__.py` edited alone.
#[test]
fn a_discovered_tests_package_needs_the_maintainer() {
    let test_ok = "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n";
    for command in ["python3 -m pytest -q", "python3 -m unittest"] {
        an_edit_the_task_runs_needs_the_maintainer(
            command,
            &[("tests/__init__.py", ""), ("tests/test_ok.py", test_ok)],
            "tests/__init__.py",
        );
    }
}

/// 28pa, 28pa4, 28pa3, 28pa2, 28pa6: pytest's configuration is read in
/// turn: the discovery patterns it sets, a plugin in `addopts`, and
/// `--doctest-modules` there or on the command line.
#[test]
fn what_pytests_configuration_runs_needs_the_maintainer() {
    let check = ("tests/check_api.py", "def test_api():\n    assert True\n");
    for config in [
        ("pytest.ini", "[pytest]\npython_files = check_*.py\n"),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            "python3 -m pytest -q",
            &[config, check],
            "tests/check_api.py",
        );
    }
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q",
        &[
            ("pytest.ini", "[pytest]\naddopts = -p tools.plug\n"),
            ("tools/plug.py", "def pytest_configure(config):\n    pass\n"),
        ],
        "tools/plug.py",
    );
    let x = ("lib/x.py", "def f():\n    return 1\n");
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q",
        &[("pytest.ini", "[pytest]\naddopts = --doctest-modules\n"), x],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q --doctest-modules",
        &[x],
        "lib/x.py",
    );
}

/// 28fn: a name test without a dot is a file's name; 28fc: after GNU
/// find's `,` the action is on a list no name test bounds.
#[test]
fn what_a_find_runs_past_its_name_test_needs_the_maintainer() {
    an_edit_the_task_runs_needs_the_maintainer(
        "find . -type f -name run_checks -exec sh {} \\\\;",
        &[("tools/run_checks", "python3 lib/x.py\n"), X],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "find . -name '*_check.sh' , -type f -perm -u+x ! -path './.git/*' -exec sh {} \\\\;",
        &[("lib/x", "#!/bin/sh\necho ok\n")],
        "lib/x",
    );
}

/// 28na2, 28na3, 28na4: npm's workspaces chosen by a parent directory,
/// by the environment, or by the project's `.npmrc`.
#[test]
fn what_workspaces_chosen_otherwise_run_needs_the_maintainer() {
    let root = (
        "package.json",
        "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n",
    );
    let a = (
        "packages/a/package.json",
        "{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"node ../../lib/x.js\"}}\n",
    );
    let x = ("lib/x.js", "1;\n");
    for command in [
        "npm run build --workspace=packages",
        "npm_config_workspaces=true npm run build",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &[root, a, x], "lib/x.js");
    }
    an_edit_the_task_runs_needs_the_maintainer(
        "npm run build",
        &[root, a, x, (".npmrc", "workspaces=true\n")],
        "lib/x.js",
    );
}

/// Beside round 28's fixes (28lb, 28lh, and pytest's configuration read
/// in turn): a test that puts the root on `sys.path`, a suite that names
/// no source directory, and a configuration with test paths and plain
/// options leave an edit outside what they run medium, and it lands.
#[test]
fn round_28s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"t","type":"shell","command":"python3 -m pytest -q","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\naddopts = -q -ra\n",
            ),
            ("app/__init__.py", ""),
            ("app/api.py", "def get():\n    return 1\n"),
            (
                "tests/test_api.py",
                "import os, sys\nsys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), \"..\")))\nfrom app import api\ndef test_get():\n    assert api.get() == 1\n",
            ),
            ("tests/test_ok.py", "def test_ok():\n    assert True\n"),
            ("web/main.js", "console.log(1)\n"),
            ("src/app/server.py", "def serve():\n    return 1\n"),
        ],
        &["web/main.js", "src/app/server.py"],
    );
}

/// Red team round 29: pytest 9's `pytest.toml` (29pt),
/// `--doctest-modules` in a TOML array (29pdt), pytest's default doctest
/// files (29pdg), a `conftest.py`'s `pytest_plugins` (29pcp), and a
/// script `find -execdir` runs beside what it finds (29fe).
#[test]
fn what_round_29_found_needs_the_maintainer() {
    let pytest = "python3 -m pytest -q";
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            ("pytest.toml", "[pytest]\npython_files = [\"check_*.py\"]\n"),
            ("tests/check_api.py", "def test_api():\n    assert True\n"),
        ],
        "tests/check_api.py",
    );
    let x = ("lib/x.py", "def f():\n    return 1\n");
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pyproject.toml",
                "[tool.pytest]\naddopts = [\"--doctest-modules\"]\n",
            ),
            x,
        ],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[("docs/test_usage.txt", "Usage\n\n>>> 1 + 1\n2\n")],
        "docs/test_usage.txt",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            ("conftest.py", "pytest_plugins = [\"tools.plug\"]\n"),
            ("tools/plug.py", "def pytest_configure(config):\n    pass\n"),
        ],
        "tools/plug.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "find . -type f -name x.spec -execdir python3 run.py \\\\;",
        &[("lib/x.spec", "spec\n"), ("lib/run.py", "print(1)\n")],
        "lib/run.py",
    );
}

/// Round 29's false positives, ended: pytest's configuration is read for
/// pytest's keys only (29la, 29lb, 29lc: other tools' sections name
/// nothing), what it discovers is listed below its `testpaths` (29ld,
/// 29le), and an `.npmrc`'s `workspaces-update` turns no workspace on
/// (29lg): an edit outside what runs is medium and lands.
#[test]
fn round_29s_legitimate_flows_stay_medium_and_land() {
    let tasks = folder_open_task;
    let pytest = tasks("python3 -m pytest -q");
    for (config, text, edited) in [
        (
            "pyproject.toml",
            "[project]\nname = \"w\"\nversion = \"1\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n[tool.mypy]\nfiles = [\"src\", \"scripts\"]\n",
            "scripts/release.py",
        ),
        (
            "setup.cfg",
            "[metadata]\nname = w\n\n[flake8]\nexclude = docs,build\n\n[tool:pytest]\ntestpaths = tests\n",
            "docs/conf.py",
        ),
        (
            "tox.ini",
            "[tox]\nenvlist = py3, docs\n\n[testenv]\ncommands = pytest\n\n[testenv:docs]\ncommands = sphinx-build docs docs/_build\n\n[pytest]\ntestpaths = tests\n",
            "docs/conf.py",
        ),
        (
            "pytest.ini",
            "[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n",
            "tools/check_format.py",
        ),
        (
            "pytest.ini",
            "[pytest]\ntestpaths = src\naddopts = --doctest-modules\n",
            "scripts/release.py",
        ),
    ] {
        edits_the_configuration_does_not_run_stay_medium(
            &[
                (".vscode/tasks.json", &pytest),
                (config, text),
                ("tests/test_ok.py", "def test_ok():\n    assert True\n"),
                ("src/w/core.py", "def f():\n    return 1\n"),
                (edited, "print(1)\n"),
            ],
            &[edited],
        );
    }
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (".vscode/tasks.json", &tasks("npm test")),
            (
                "package.json",
                "{\"name\":\"w\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node -e 1\"}}\n",
            ),
            (".npmrc", "workspaces-update=false\n"),
            (
                "test/fixtures/proj/package.json",
                "{\"name\":\"proj\",\"scripts\":{\"release\":\"python3 scripts/release.py\"}}\n",
            ),
            ("scripts/release.py", "print(1)\n"),
        ],
        &["scripts/release.py"],
    );
}

/// Red team round 30: a path in pytest's `addopts` (30pao), `-o
/// python_files=...` there (30poi), `pythonpath` (30ppp), a TOML
/// multi-line string (30pml), a quoted or dotted TOML key (30pqk,
/// 30pdk), and `import_module("tools." + n)` in a `conftest.py` (30pil).
#[test]
fn what_round_30_found_needs_the_maintainer() {
    let pytest = "python3 -m pytest -q";
    let check = "def test_api():\n    assert True\n";
    for (config, text, edited) in [
        (
            "pytest.ini",
            "[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\naddopts = -q checks\n",
            "checks/check_api.py",
        ),
        (
            "pytest.ini",
            "[pytest]\naddopts = -o python_files=check_*.py\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n\"python_files\" = [\"check_*.py\"]\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool]\npytest.ini_options.python_files = [\"check_*.py\"]\n",
            "tests/check_api.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            pytest,
            &[(config, text), (edited, check)],
            edited,
        );
    }
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"\"\"\n--doctest-modules\n\"\"\"\n",
            ),
            ("lib/x.py", "def f():\n    return 1\n"),
        ],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            ("pytest.ini", "[pytest]\npythonpath = lib\n"),
            ("lib/helper.py", "def h():\n    return 1\n"),
            (
                "tests/test_h.py",
                "import helper\ndef test_h():\n    assert helper.h() == 1\n",
            ),
        ],
        "lib/helper.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "conftest.py",
                "import importlib\nfor n in [\"plug\"]:\n    importlib.import_module(\"tools.\" + n)\n",
            ),
            ("tools/plug.py", "X = 1\n"),
        ],
        "tools/plug.py",
    );
}

/// Beside round 30's fixes (30li, 30la, 30lb, 30ld): an option's value
/// after `-execdir`, a full pytest configuration (markers, warnings,
/// coverage), `--doctest-modules` with continued `testpaths`, and
/// `pythonpath` name nothing outside what runs: medium, and it lands.
#[test]
fn round_30s_legitimate_flows_stay_medium_and_land() {
    let tasks = folder_open_task;
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                &tasks("find hooks -name '*.sh' -execdir shellcheck --severity style {} +"),
            ),
            ("hooks/a.sh", "echo a\n"),
            ("docs/style", "notes\n"),
        ],
        &["docs/style"],
    );
    let pytest = tasks("python3 -m pytest -q");
    for config in [
        (
            "pyproject.toml",
            "[project]\nname = \"w\"\nversion = \"1\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-ra --strict-markers\"\nmarkers = [\n  \"slow: marks tests as slow\",\n]\nfilterwarnings = [\"error\", \"ignore::DeprecationWarning:scripts.*\"]\n\n[tool.coverage.run]\nsource = [\"src\", \"scripts\"]\n",
        ),
        (
            "setup.cfg",
            "[metadata]\nname = w\n\n[options]\npackage_dir =\n    = src\n\n[tool:pytest]\ntestpaths =\n    src\n    tests\naddopts =\n    --doctest-modules\n    -p no:cacheprovider\n",
        ),
        (
            "pytest.ini",
            "[pytest]\npythonpath = src\ntestpaths = tests\n",
        ),
    ] {
        edits_the_configuration_does_not_run_stay_medium(
            &[
                (".vscode/tasks.json", &pytest),
                config,
                ("src/w/__init__.py", "X = 1\n"),
                ("tests/test_ok.py", "def test_ok():\n    assert True\n"),
                ("scripts/release.py", "print(1)\n"),
                ("docs/conf.py", "project = 'w'\n"),
            ],
            &["scripts/release.py", "docs/conf.py"],
        );
    }
}

/// Red team round 31's 31lb and 31lc (made by round 30's reading of the
/// paths `addopts` gives): a quoted option value and an option's value
/// written apart are no paths to collect; an edit there is medium and
/// lands.
#[test]
fn addopts_values_stay_medium_and_land() {
    let pytest = folder_open_task("python3 -m pytest -q");
    for (config, edited) in [
        (
            "[pytest]\naddopts = -ra -m \"not e2e\"\n",
            "e2e/login.spec.js",
        ),
        (
            "[pytest]\naddopts = --ignore docs --ignore scripts\n",
            "docs/conf.py",
        ),
    ] {
        edits_the_configuration_does_not_run_stay_medium(
            &[
                (".vscode/tasks.json", &pytest),
                ("pytest.ini", config),
                ("tests/test_ok.py", "def test_ok():\n    assert True\n"),
                (edited, "x\n"),
            ],
            &[edited],
        );
    }
}

/// A test module.
const CHECK: &str = "def test_api():\n    assert True\n";

/// Red team round 31's 31pti, 31pue, 31puk, 31pit, 31phs, 31phi, 31pbs:
/// TOML and INI that round 30's reading did not parse as pytest's
/// parsers do (an indented key, escapes, an inline table, ` #` in a
/// string and in an INI value, a line-ending backslash).
#[test]
fn what_pytests_parsers_read_needs_the_maintainer() {
    let pytest = "python3 -m pytest -q";
    for (config, text) in [
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n  python_files = [\"check_*.py\"]\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"check\\u005f*.py\"]\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n\"python\\u005ffiles\" = [\"check_*.py\"]\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest]\nini_options = { python_files = [\"check_*.py\"] }\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"test_*.py #1\", \"check_*.py\"]\n",
        ),
        (
            "pytest.ini",
            "[pytest]\npython_files = test_*.py #1 check_*.py\n",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            pytest,
            &[(config, text), ("tests/check_api.py", CHECK)],
            "tests/check_api.py",
        );
    }
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"\"\"--doctest-\\\nmodules\"\"\"\n",
            ),
            ("lib/x.py", "def f():\n    return 1\n"),
        ],
        "lib/x.py",
    );
}

/// 31pta, 31pra, 31pya: pytest collects where it runs, with the
/// configuration's patterns, when no `testpaths` entry exists or
/// `PYTEST_ADDOPTS` moves its root directory; under `--pyargs` a
/// `testpaths` entry is a module.
#[test]
fn where_pytest_starts_without_testpaths_needs_the_maintainer() {
    let pytest = "python3 -m pytest -q";
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = testing\npython_files = check_*.py\n",
            ),
            ("checks/check_api.py", CHECK),
        ],
        "checks/check_api.py",
    );
    let env = r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 -m pytest -q","options":{"env":{"PYTEST_ADDOPTS":"--rootdir=tests"}},"runOptions":{"runOn":"folderOpen"}}]}"#;
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (".vscode/tasks.json", env),
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n",
            ),
            ("tests/test_ok.py", CHECK),
            ("checks/check_api.py", CHECK),
        ],
        "checks/check_api.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\naddopts = --pyargs\ntestpaths = w.checks\npython_files = check_*.py\n",
            ),
            ("w/__init__.py", ""),
            ("w/checks/__init__.py", ""),
            ("w/checks/check_api.py", CHECK),
        ],
        "w/checks/check_api.py",
    );
}

/// Found on the way: `-o python_files=...` on pytest's command line named
/// the tests it discovers by their glob only, and a path given there was
/// collected with the configuration's patterns unread: what those tests
/// import was not named.
#[test]
fn what_pytests_command_line_discovers_needs_the_maintainer() {
    let helper = [("tools/__init__.py", ""), ("tools/helper.py", "X = 1\n")];
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q -o python_files=check_*.py",
        &[
            ("tests/check_api.py", "import tools.helper\n"),
            helper[0],
            helper[1],
        ],
        "tools/helper.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q checks",
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\npython_files = check_*.py\n",
            ),
            ("tests/check_ok.py", CHECK),
            ("checks/check_api.py", "import tools.helper\n"),
            helper[0],
            helper[1],
        ],
        "tools/helper.py",
    );
}

/// 31ntt, 31ntd, 31ntn: node's own test runner, run by the task or by an
/// npm script, imports its default patterns and a `test` directory's
/// files.
#[test]
fn what_nodes_test_runner_finds_needs_the_maintainer() {
    let pkg = (
        "package.json",
        "{\"name\":\"w\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node --test\"}}\n",
    );
    for (command, edited) in [
        ("node --test", "lib/a.test.js"),
        ("node --test", "test/helper.js"),
        ("npm test", "lib/a.test.js"),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            command,
            &[pkg, (edited, "require('fs')\n")],
            edited,
        );
    }
}

/// Beside round 31's fixes (31la, 31lf, and round 29's 29ld in TOML): a
/// configuration with comments and other tools' tables whose `testpaths`
/// exist, the root on `sys.path`, and `node --test` given a directory
/// name no file outside what runs: medium, and it lands.
#[test]
fn round_31s_legitimate_flows_stay_medium_and_land() {
    let pytest = folder_open_task("python3 -m pytest -q");
    for config in [
        (
            "pyproject.toml",
            "[project]\nname = \"w\" # the name\nversion = \"1\"\n\n[tool.pytest.ini_options]\n# where the tests are\ntestpaths = [\"tests\"] # here\npython_files = [\n  \"test_*.py\", # ours\n  \"check_*.py\",\n]\n\n[tool.ruff.lint]\nselect = [\"E\", \"F\"]\n",
        ),
        (
            "pytest.ini",
            "[pytest]\npythonpath = .\ntestpaths = tests\n",
        ),
    ] {
        edits_the_configuration_does_not_run_stay_medium(
            &[
                (".vscode/tasks.json", &pytest),
                config,
                ("tests/test_ok.py", CHECK),
                ("tools/check_format.py", "print(1)\n"),
                ("scripts/release.py", "print(1)\n"),
            ],
            &["tools/check_format.py", "scripts/release.py"],
        );
    }
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (".vscode/tasks.json", &folder_open_task("node --test test/")),
            ("test/a.test.js", "require('node:test')\n"),
            ("scripts/release.js", "console.log(1)\n"),
        ],
        &["scripts/release.js"],
    );
}

/// A warning category (its module imports nothing else).
const WARN: &str = "class W(Warning):\n    pass\n";

/// Red team round 32: a warning filter's category is imported (pytest's
/// `filterwarnings` and `-W`: 32pfw, 32pft, 32pwa, 32pwc); a
/// `--doctest-glob` file's `>>>` lines run (32pdg); `testpaths` is matched
/// in its own case (32pcs); a root module shadows the standard library
/// module pytest imports (32pgl); `nodejs` is node (32ntj).
#[test]
fn what_round_32_found_needs_the_maintainer() {
    let pytest = "python3 -m pytest -q";
    let ok = ("tests/test_ok.py", CHECK);
    for (config, text) in [
        (
            "pytest.ini",
            "[pytest]\ntestpaths = tests\nfilterwarnings =\n    error\n    ignore::tools.warn.W\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\nfilterwarnings = [\"error\", \"ignore::tools.warn.W\"]\n",
        ),
        (
            "pytest.ini",
            "[pytest]\ntestpaths = tests\naddopts = -W ignore::tools.warn.W\n",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            pytest,
            &[
                (config, text),
                ok,
                ("tools/__init__.py", ""),
                ("tools/warn.py", WARN),
            ],
            "tools/warn.py",
        );
    }
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m pytest -q -W ignore::tools.warn.W",
        &[ok, ("tools/__init__.py", ""), ("tools/warn.py", WARN)],
        "tools/warn.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            ("pytest.ini", "[pytest]\naddopts = --doctest-glob=*.md\n"),
            ok,
            ("README.md", "# w\n"),
        ],
        "README.md",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = Tests\npython_files = check_*.py\n",
            ),
            ("tests/check_ok.py", CHECK),
            ("checks/check_api.py", CHECK),
        ],
        "checks/check_api.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(pytest, &[ok, ("glob.py", "X = 1\n")], "glob.py");
    an_edit_the_task_runs_needs_the_maintainer(
        "nodejs --test",
        &[("lib/a.test.js", "require('node:test')\n")],
        "lib/a.test.js",
    );
}

/// Beside round 32's fixes (32la, 32lb, 32lc): `passenv =
/// PYTEST_ADDOPTS` in `tox.ini`, a path after `-o KEY=VALUE`, and a
/// plugin option's value written apart name nothing outside what runs;
/// nor do a flat layout's own modules: medium, and it lands.
#[test]
fn round_32s_legitimate_flows_stay_medium_and_land() {
    let pytest = folder_open_task("python3 -m pytest -q");
    let ok = ("tests/test_ok.py", CHECK);
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (".vscode/tasks.json", &pytest),
            (
                "pytest.ini",
                "[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n",
            ),
            (
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[testenv]\npassenv = PYTEST_ADDOPTS\ncommands = pytest\n",
            ),
            ok,
            ("src/w/core.py", "X = 1\n"),
            ("scripts/release.py", "print(1)\n"),
        ],
        &["scripts/release.py"],
    );
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                &folder_open_task("python3 -m pytest -q -o python_files=check_*.py tests/unit"),
            ),
            ("tests/unit/check_a.py", CHECK),
            ("scripts/release.py", "print(1)\n"),
        ],
        &["scripts/release.py"],
    );
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (".vscode/tasks.json", &pytest),
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\naddopts = --hypothesis-profile ci\n",
            ),
            ok,
            ("ci/deploy.py", "print(1)\n"),
            ("app.py", "X = 1\n"),
        ],
        &["ci/deploy.py", "app.py"],
    );
}
