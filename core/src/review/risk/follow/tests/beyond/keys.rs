//! Red team round 31 (against round 30's reading of pytest's keys): the
//! configuration read as pytest's own parsers read it (TOML as TOML,
//! INI as iniconfig), where pytest starts when `testpaths` is not used,
//! `--pyargs`, pytest's options given on the command line or in
//! `PYTEST_ADDOPTS`, and node's own test runner.

use super::*;

/// 31pti, 31pue, 31puk, 31pit, 31phs, 31phi, 31pbs: TOML and INI that
/// round 30's reading did not parse as `tomllib` and iniconfig do (an
/// indented key, escapes in a value and a key, an inline table, ` #` in
/// a string and in an INI value, a line-ending backslash): each names
/// the file the agent edited.
#[test]
fn pytests_configuration_is_read_as_its_parsers_read_it() {
    let pytest = tasks("python3 -m pytest -q");
    for (config, text, edited) in [
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n  python_files = [\"check_*.py\"]\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"check\\u005f*.py\"]\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\n\"python\\u005ffiles\" = [\"check_*.py\"]\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest]\nini_options = { python_files = [\"check_*.py\"] }\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool]\npytest = { ini_options = { python_files = [\"check_*.py\"] } }\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"test_*.py #1\", \"check_*.py\"]\n",
            "tests/check_api.py",
        ),
        (
            "pytest.ini",
            "[pytest]\npython_files = test_*.py #1 check_*.py\n",
            "tests/check_api.py",
        ),
        (
            "pytest.ini",
            "[pytest]\npython_files = test_*.py\n\n  check_*.py\n",
            "tests/check_api.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"\"\"--doctest-\\\nmodules\"\"\"\n",
            "lib/x.py",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-p tools.plu\\u0067\"\n",
            "tools/plug.py",
        ),
    ] {
        let r = named(&with_task(&pytest, &[(config, text), check(edited)]));
        assert!(r.names(edited), "{config}: {text}");
        assert!(!r.unread, "{config} is read: {text}");
    }
}

/// A configuration pytest's parser may read but this reading cannot (not
/// TOML at all, or past what it parses) names every file, as a file cut
/// short does.
#[test]
fn a_configuration_that_does_not_parse_names_every_file() {
    let pytest = tasks("python3 -m pytest -q");
    for text in [
        "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"\n",
        "[tool.pytest.ini_options]\npython_files = 'a'\npython_files = 'b'\n",
    ] {
        let r = named(&with_task(
            &pytest,
            &[("pyproject.toml", text), check("tests/check_api.py")],
        ));
        assert!(r.names("docs/anything.md"), "{text}");
    }
}

/// 31pta, 31pra, 31pya: pytest collects from where it runs, with the
/// configuration's patterns, when no `testpaths` entry exists, when the
/// root directory is moved (`--rootdir` in `PYTEST_ADDOPTS` or on the
/// command line), and under `--pyargs` a `testpaths` entry is a module.
#[test]
fn pytest_starts_where_it_runs_when_testpaths_is_not_used() {
    let pytest = tasks("python3 -m pytest -q");
    let ok = check("tests/test_ok.py");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = testing\npython_files = check_*.py\n",
            ),
            check("checks/check_api.py"),
        ],
    ));
    assert!(r.names("checks/check_api.py"), "31pta");
    let config = (
        "pytest.ini",
        "[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n",
    );
    let env = task_with_env(
        "python3 -m pytest -q",
        r#""PYTEST_ADDOPTS":"--rootdir=tests""#,
    );
    let r = named(&with_task(
        &env,
        &[config, ok, check("checks/check_api.py")],
    ));
    assert!(r.names("checks/check_api.py"), "31pra");
    let moved = tasks("python3 -m pytest -q --rootdir=tests");
    let r = named(&with_task(
        &moved,
        &[config, ok, check("checks/check_api.py")],
    ));
    assert!(
        r.names("checks/check_api.py"),
        "--rootdir on the command line"
    );
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\naddopts = --pyargs\ntestpaths = w.checks\npython_files = check_*.py\n",
            ),
            ("w/__init__.py", ""),
            ("w/checks/__init__.py", ""),
            check("w/checks/check_api.py"),
        ],
    ));
    assert!(r.names("w/checks/check_api.py"), "31pya");
}

/// pytest's options on its command line or in `PYTEST_ADDOPTS` (and
/// `PYTEST_PLUGINS`) are read as `addopts` is: a key set by `-o` (what
/// the tests it discovers import is named too: before, a command line's
/// `-o python_files=check_*.py` named the tests by their glob only), a
/// plugin by `-p`.
#[test]
fn pytests_options_from_the_command_and_the_environment_are_read() {
    let plug = ("tools/plug.py", "X = 1\n");
    let helper = ("tools/helper.py", "X = 1\n");
    let check = ("tests/check_api.py", "import tools.helper\n");
    for (task, edited) in [
        (
            tasks("python3 -m pytest -q -o python_files=check_*.py"),
            "tools/helper.py",
        ),
        (
            tasks("python3 -m pytest -q --override-ini=python_files=check_*.py"),
            "tools/helper.py",
        ),
        (tasks("python3 -m pytest -p tools.plug"), "tools/plug.py"),
        (
            task_with_env("pytest", r#""PYTEST_ADDOPTS":"-o python_files=check_*.py""#),
            "tools/helper.py",
        ),
        (
            task_with_env("pytest", r#""PYTEST_ADDOPTS":"-p tools.plug""#),
            "tools/plug.py",
        ),
        (
            task_with_env("pytest", r#""PYTEST_PLUGINS":"tools.plug""#),
            "tools/plug.py",
        ),
    ] {
        let r = named(&with_task(&task, &[plug, helper, check]));
        assert!(r.names(edited), "{}", task.1);
        assert!(!r.unread, "{}", task.1);
    }
    let r = named(&with_task(&tasks("python3 -m pytest -q"), &[helper, check]));
    assert!(!r.names("tools/helper.py"), "no check_*.py discovered");
}

/// 31ntt, 31ntd, 31ntn: node's own test runner (`node --test`, also run
/// by an npm script) imports, below where it runs, its default patterns
/// and every file in a `test` directory.
#[test]
fn nodes_test_runner_discovers_by_its_patterns() {
    let pkg = (
        "package.json",
        "{\"name\":\"w\",\"scripts\":{\"test\":\"node --test\"}}\n",
    );
    for (task, edited) in [
        ("node --test", "lib/a.test.js"),
        ("node --test", "test/helper.js"),
        ("node --test", "lib/a-test.mjs"),
        ("node --test", "lib/test-a.cjs"),
        ("node --test --test-reporter=spec", "lib/a_test.js"),
        ("npm test", "lib/a.test.js"),
    ] {
        let task = tasks(task);
        let r = named(&with_task(
            &task,
            &[pkg, (edited, "require('fs')\n"), ("lib/x.js", "1\n")],
        ));
        assert!(r.names(edited), "{}: {edited}", task.1);
        assert!(!r.names("lib/x.js"), "{}: lib/x.js", task.1);
    }
}

/// Beside them (round 31's 31la, 31lf and what round 29 ended): a
/// configuration with comments, other tools' tables and `testpaths`
/// that exist, and `node --test` given a directory, name no file outside
/// what runs.
#[test]
fn round_31s_legitimate_flows_name_only_what_they_run() {
    let pytest = tasks("python3 -m pytest -q");
    for (config, text, edited) in [
        (
            "pyproject.toml",
            "[project]\nname = \"w\" # the name\n\n[tool.pytest.ini_options]\n# where the tests are\ntestpaths = [\"tests\"] # here\npython_files = [\n  \"test_*.py\", # ours\n  \"check_*.py\",\n]\n\n[tool.ruff.lint]\nselect = [\"E\", \"F\"]\n",
            "tools/check_format.py",
        ),
        (
            "pytest.ini",
            "# pytest\n[pytest]\n; the suite\ntestpaths = tests\npython_files = test_*.py check_*.py\n",
            "tools/check_format.py",
        ),
        (
            "pytest.ini",
            "[pytest]\npythonpath = .\n",
            "scripts/release.py",
        ),
    ] {
        let r = named(&with_task(
            &pytest,
            &[
                (config, text),
                check("tests/test_ok.py"),
                (edited, "print(1)\n"),
            ],
        ));
        assert!(!r.names(edited), "{config}: {text}");
        assert!(!r.unread, "{config}: {text}");
    }
    let r = named(&with_task(
        &tasks("node --test test/"),
        &[("test/a.test.js", "1\n"), ("scripts/release.js", "1\n")],
    ));
    assert!(!r.names("scripts/release.js"), "node --test test/");
}

/// Found on the way: a path given on pytest's command line is collected
/// with the configuration's patterns (not its `testpaths`): what a test
/// found there imports is named.
#[test]
fn what_pytest_collects_from_its_arguments_is_read() {
    let r = named(&with_task(
        &tasks("python3 -m pytest -q checks"),
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\npython_files = check_*.py\n",
            ),
            check("tests/check_ok.py"),
            ("checks/check_api.py", "import tools.helper\n"),
            ("tools/helper.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("tools/helper.py"));
}

/// A warning category's module.
const WARN: (&str, &str) = ("tools/warn.py", "class W(Warning):\n    pass\n");

/// Red team round 32 (against D-R176): a warning filter's category is
/// imported (pytest's `filterwarnings` and `-W`, Python's `-W` and
/// `PYTHONWARNINGS`: 32pfw, 32pft, 32pwa, 32pwc); `--doctest-glob`'s files
/// are collected (32pdg); `testpaths` is matched in its own case (32pcs);
/// a module on `sys.path` first shadows the standard library module a
/// tool imports (32pgl); node's test runner by another name, and bun's
/// and deno's (32ntj). Each names the file the agent edited.
#[test]
fn v12_names_what_round_32_found() {
    let pytest = tasks("python3 -m pytest -q");
    let ok = check("tests/test_ok.py");
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
        let r = named(&with_task(&pytest, &[(config, text), ok, WARN]));
        assert!(r.names("tools/warn.py"), "{config}: {text}");
    }
    for task in [
        tasks("python3 -m pytest -q -W ignore::tools.warn.W"),
        tasks("python3 -m pytest -q --pythonwarnings=ignore::tools.warn.W"),
        tasks("python3 -W ignore::tools.warn.W tools/run.py"),
        task_with_env(
            "python3 tools/run.py",
            r#""PYTHONWARNINGS":"ignore::tools.warn.W""#,
        ),
        task_with_env("pytest", r#""PYTEST_ADDOPTS":"-W error::tools.warn.W""#),
    ] {
        let r = named(&with_task(
            &task,
            &[ok, WARN, ("tools/run.py", "print(1)\n")],
        ));
        assert!(r.names("tools/warn.py"), "{}", task.1);
    }
    for (text, edited) in [
        ("[pytest]\naddopts = --doctest-glob=*.md\n", "README.md"),
        (
            "[pytest]\naddopts = --doctest-glob '*.rst'\n",
            "docs/guide.rst",
        ),
    ] {
        let r = named(&with_task(
            &pytest,
            &[("pytest.ini", text), ok, (edited, ">>> 1\n")],
        ));
        assert!(r.names(edited), "{text}");
    }
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = Tests\npython_files = check_*.py\n",
            ),
            check("tests/check_ok.py"),
            check("checks/check_api.py"),
        ],
    ));
    assert!(r.names("checks/check_api.py"), "32pcs");
    for (task, edited) in [
        ("python3 -m pytest -q", "glob.py"),
        ("python3 -m pytest -q", "json/__init__.py"),
        ("python3 -c 'import tools'", "shlex.py"),
        ("python3 tools/build.py", "tools/re.py"),
    ] {
        let task = tasks(task);
        let r = named(&with_task(
            &task,
            &[
                ok,
                ("tools/build.py", "import json\n"),
                (edited, "open('/tmp/x', 'w')\n"),
            ],
        ));
        assert!(r.names(edited), "{}: {edited}", task.1);
    }
    for (task, edited) in [
        ("nodejs --test", "lib/a.test.js"),
        ("bun test", "lib/a.spec.ts"),
        ("deno test", "lib/a_test.ts"),
    ] {
        let task = tasks(task);
        let r = named(&with_task(&task, &[(edited, "1\n"), ("lib/x.js", "1\n")]));
        assert!(r.names(edited), "{}: {edited}", task.1);
        assert!(!r.names("lib/x.js"), "{}", task.1);
    }
}

/// Round 32's false positives: `passenv = PYTEST_ADDOPTS` moves no root
/// directory (32la); a command line's path after `-o KEY=VALUE` is no
/// pattern (32lb); a plugin's option value written apart is listed as a
/// path might be, not named whole (32lc); and a flat layout's own modules
/// shadow nothing pytest imports.
#[test]
fn round_32s_legitimate_flows_name_only_what_they_run() {
    let pytest = tasks("python3 -m pytest -q");
    let ok = check("tests/test_ok.py");
    let release = ("scripts/release.py", "print(1)\n");
    let r = named(&with_task(
        &pytest,
        &[
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
            release,
        ],
    ));
    assert!(!r.names("scripts/release.py"), "32la");
    let r = named(&with_task(
        &tasks("python3 -m pytest -q -o python_files=check_*.py tests/unit"),
        &[check("tests/unit/check_a.py"), release],
    ));
    assert!(!r.names("scripts/release.py"), "32lb");
    assert!(r.names("tests/unit/check_a.py"), "32lb: its tests");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = tests\naddopts = --hypothesis-profile ci\n",
            ),
            ok,
            ("ci/deploy.py", "print(1)\n"),
        ],
    ));
    assert!(!r.names("ci/deploy.py"), "32lc");
    let r = named(&with_task(
        &pytest,
        &[ok, ("app.py", "X = 1\n"), ("models.py", "X = 1\n")],
    ));
    assert!(!r.names("app.py") && !r.names("models.py"), "a flat layout");
}

/// Red team round 33 (against round 32's fixes): a standard-library
/// module shadowed by any importable file (`.pyc` package, extension
/// modules: 33gpc, 33gso); the script's directory past an option's value
/// (`-X dev`, `-W error`, `--check-hash-based-pycs default`: 33pxd,
/// 33pwe, 33phb); package metadata on `sys.path` registering a pytest
/// plugin (33pep, 33peg, 33pei); `--pyargs` in `addopts` (33ppa); a glob
/// in `testpaths` (33ptg); npm's `node_modules/.bin` (33nbin); bun's
/// `bunfig.toml` preload (33bpl, 33bcf). Each names the file the agent
/// edited.
#[test]
fn v12_names_what_round_33_found() {
    let pytest = tasks("python3 -m pytest -q");
    let ok = check("tests/test_ok.py");
    for edited in [
        "glob/__init__.pyc",
        "glob.cpython-311-x86_64-linux-gnu.so",
        "glob.abi3.so",
        "glob.so",
        "glob/__init__.so",
        "ev.dist-info/entry_points.txt",
        "ev.egg-info/entry_points.txt",
    ] {
        let r = named(&with_task(&pytest, &[ok, (edited, "x\n")]));
        assert!(r.names(edited), "{edited}");
    }
    for task in [
        "python3 -X dev tools/check.py",
        "python3 -W error tools/check.py",
        "python3 --check-hash-based-pycs default tools/check.py",
    ] {
        let task = tasks(task);
        let r = named(&with_task(
            &task,
            &[
                ("tools/check.py", "import subprocess\n"),
                ("tools/selectors.py", "x = 1\n"),
            ],
        ));
        assert!(r.names("tools/selectors.py"), "{}", task.1);
    }
    let r = named(&with_task(
        &pytest,
        &[
            ok,
            (
                "ev.egg-info/entry_points.txt",
                "[pytest11]\nev = tools.ev\n",
            ),
            ("tools/ev.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("tools/ev.py"), "33pei");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pytest.ini",
                "[pytest]\naddopts = --pyargs tools.selfcheck\n",
            ),
            ok,
            ("tools/selfcheck.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("tools/selfcheck.py"), "33ppa");
    let r = named(&with_task(
        &pytest,
        &[
            ("pytest.ini", "[pytest]\ntestpaths = */tests\n"),
            ("pkg/tests/test_db.py", "import sqlite3\n"),
            ("pkg/tests/_sqlite3.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("pkg/tests/_sqlite3.py"), "33ptg");
    let r = named(&with_task(
        &tasks("npm test"),
        &[
            (
                "package.json",
                "{\"name\":\"w\",\"scripts\":{\"test\":\"mytool\"}}\n",
            ),
            ("node_modules/.bin/mytool", "#!/bin/sh\n"),
        ],
    ));
    assert!(r.names("node_modules/.bin/mytool"), "33nbin");
    let r = named(&with_task(
        &tasks("bun test"),
        &[
            ("bunfig.toml", "[test]\npreload = [\"./tools/setup.ts\"]\n"),
            ("tools/setup.ts", "export {}\n"),
        ],
    ));
    assert!(r.names("tools/setup.ts"), "33bpl");
}

/// Round 33's false positives: `setenv = PYTEST_ADDOPTS = --color=yes`
/// moves no root (33lc); bun's and deno's test runners take JavaScript
/// and TypeScript files only (33ld, 33le, 33lg, 33lf).
#[test]
fn round_33s_legitimate_flows_name_only_what_they_run() {
    let r = named(&with_task(
        &tasks("python3 -m pytest -q"),
        &[
            (
                "pytest.ini",
                "[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n",
            ),
            (
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[testenv]\nsetenv =\n    PYTEST_ADDOPTS = --color=yes\ncommands = pytest\n",
            ),
            check("tests/test_ok.py"),
            ("src/w/core.py", "X = 1\n"),
            ("scripts/release.py", "print(1)\n"),
        ],
    ));
    assert!(!r.names("scripts/release.py"), "33lc");
    for task in ["bun test", "deno test"] {
        let task = tasks(task);
        let r = named(&with_task(
            &task,
            &[
                ("lib/a.test.ts", "1\n"),
                ("svc/handler_test.go", "package svc\n"),
                ("svc/handler.go", "package svc\n"),
                ("scripts/test.sh", "echo\n"),
            ],
        ));
        for edited in ["svc/handler_test.go", "svc/handler.go", "scripts/test.sh"] {
            assert!(!r.names(edited), "{}: {edited}", task.1);
        }
        assert!(r.names("lib/a.test.ts"), "{}", task.1);
    }
}

/// 33ptd (declared open by round 32): without `testpaths`, pytest puts a
/// discovered test's root directory first on `sys.path`, where a module
/// shadows the standard library module the test imports.
#[test]
fn a_discovered_tests_directory_is_checked_for_shadowing() {
    let r = named(&with_task(
        &tasks("python3 -m pytest -q"),
        &[
            ("pkg/tests/test_db.py", "import sqlite3\n"),
            ("pkg/tests/_sqlite3.py", "X = 1\n"),
            ("pkg/tests/helpers.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("pkg/tests/_sqlite3.py"));
    assert!(!r.names("pkg/tests/helpers.py"));
}
