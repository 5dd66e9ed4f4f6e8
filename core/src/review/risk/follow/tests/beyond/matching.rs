//! Red team round 27's name tests and discoveries (27fa, 27fa2, 27na,
//! 27ua): what a `find` from the root with a name test, a test runner's
//! discovery or `--workspaces` finds is listed by its name (a listing
//! bounded by its matches, not by every file of the tree) and read in
//! turn, so what those files run is named too.

use super::*;

/// A directory of `n` files no name test matches, beside the files of a
/// case: the root holds more files than a listing's bound.
fn filler(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("docs/page{i}.md"), "text\n".to_string()))
        .collect()
}

/// `tree` and `filler`, as [`named`] takes them.
fn named_with(tree: &[(&str, &str)], filler: &[(String, String)]) -> References {
    let mut all: Vec<(&str, &str)> = tree.to_vec();
    all.extend(filler.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    named(&all)
}

#[test]
fn what_a_name_test_from_the_root_finds_is_read() {
    let many = filler(300);
    // 27fa: the files found are run through a loop; 27fa2: by `-exec`.
    for (command, hook) in [
        (
            "find . -type f -name '*_check.sh' | sort | while read -r f; do sh \\\"$f\\\"; done",
            "tools/lint_check.sh",
        ),
        (
            "find . -name '*_test.sh' -exec bash {} \\\\;",
            "tests/cli_test.sh",
        ),
    ] {
        let task = tasks(command);
        for filler in [&[][..], &many[..]] {
            let r = named_with(
                &with_task(&task, &[(hook, "python3 lib/x.py\n"), X]),
                filler,
            );
            assert!(r.names(hook), "{command}");
            assert!(
                r.names("lib/x.py"),
                "{command}, {} more files",
                filler.len()
            );
            assert!(!r.names("docs/page1.md"), "{command}");
        }
    }
}

#[test]
fn what_a_discovery_or_the_workspaces_find_is_read() {
    // 27ua: unittest's discovery imports a helper.
    let test_api = "import unittest\nfrom tests.helpers import make\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(make(), 1)\n";
    let r = named(&with_task(
        &tasks("python3 -m unittest"),
        &[
            ("tests/__init__.py", ""),
            ("tests/helpers.py", "def make():\n    return 1\n"),
            ("tests/test_api.py", test_api),
        ],
    ));
    assert!(r.names("tests/helpers.py"), "python3 -m unittest");
    // A pattern given to the discovery: what it matches is read.
    let api_check = test_api.replace("test_ok", "test_check");
    for command in [
        "python3 -m unittest discover -p '*_check.py'",
        "python3 -m unittest discover --pattern=*_check.py",
    ] {
        let r = named(&with_task(
            &tasks(command),
            &[
                ("tests/__init__.py", ""),
                ("tests/helpers.py", "def make():\n    return 1\n"),
                ("tests/api_check.py", &api_check),
            ],
        ));
        assert!(r.names("tests/helpers.py"), "{command}");
    }
    // 27na: a workspace's own scripts.
    let r = named(&with_task(
        &tasks("npm run build --workspaces"),
        &[
            (
                "package.json",
                "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n",
            ),
            (
                "packages/a/package.json",
                "{\"name\":\"a\",\"scripts\":{\"build\":\"node ../../lib/x.js\"}}\n",
            ),
            ("lib/x.js", "1;\n"),
        ],
    ));
    assert!(r.names("lib/x.js"), "npm run build --workspaces");
}

/// Beside them, as round 26 and 27 found them: a test run, a discovery
/// and the workspaces name what their files run, and no other file; more
/// matches than a listing's bound name every file.
#[test]
fn a_name_test_names_only_what_its_files_run() {
    let server = ("src/server.py", "print(1)\n");
    let test_ok = "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n";
    let workspace = (
        "packages/a/package.json",
        "{\"name\":\"a\",\"scripts\":{\"test\":\"node --check index.js\"}}\n",
    );
    for command in [
        "find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\\\;",
        "python3 -m unittest discover -s tests",
        "npm test --workspaces",
    ] {
        let r = named(&with_task(
            &tasks(command),
            &[
                ("tests/cli_test.sh", "echo ok\n"),
                ("tests/test_ok.py", test_ok),
                ("package.json", "{\"workspaces\":[\"packages/*\"]}\n"),
                workspace,
                ("scripts/release.py", "print(1)\n"),
                server,
            ],
        ));
        assert!(!r.names("src/server.py"), "{command}");
        assert!(!r.names("scripts/release.py"), "{command}");
    }
    // More test scripts than a listing holds: any of them may run anything.
    let tests: Vec<(String, String)> = (0..200)
        .map(|i| (format!("tests/t{i}_test.sh"), "echo ok\n".to_string()))
        .collect();
    let r = named_with(
        &with_task(
            &tasks("find . -name '*_test.sh' -exec bash {} \\\\;"),
            &[server],
        ),
        &tests,
    );
    assert!(r.names("src/server.py"), "past the bound");
}

/// Red team round 28 (against the listings by name): the package a
/// discovered test is imported as (28pi, 28ui); pytest's own
/// configuration, read in turn (`python_files` in `pytest.ini` or
/// `pyproject.toml`, a plugin in `addopts`, `--doctest-modules` there or
/// on the command line: 28pa, 28pa4, 28pa3, 28pa2, 28pa6); a `find` name
/// test without a dot, a file's name (28fn); GNU find's `,` (28fc); npm's
/// workspaces chosen by a parent directory, the environment or `.npmrc`
/// (28na2, 28na3, 28na4). Each names the file the agent edited.
#[test]
fn v12_names_what_round_28_found() {
    let test_ok = "import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n";
    for command in ["python3 -m pytest -q", "python3 -m unittest"] {
        let r = named(&with_task(
            &tasks(command),
            &[("tests/__init__.py", ""), ("tests/test_ok.py", test_ok)],
        ));
        assert!(r.names("tests/__init__.py"), "{command}");
    }
    let check = ("tests/check_api.py", "def test_api():\n    assert True\n");
    for (config, text) in [
        ("pytest.ini", "[pytest]\npython_files = check_*.py\n"),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
        ),
    ] {
        let r = named(&with_task(
            &tasks("python3 -m pytest -q"),
            &[(config, text), check],
        ));
        assert!(r.names("tests/check_api.py"), "{config}");
    }
    let r = named(&with_task(
        &tasks("python3 -m pytest -q"),
        &[
            ("pytest.ini", "[pytest]\naddopts = -p tools.plug\n"),
            ("tools/plug.py", "def pytest_configure(config):\n    pass\n"),
        ],
    ));
    assert!(r.names("tools/plug.py"), "addopts -p");
    let x = ("lib/x.py", "def f():\n    return 1\n");
    for (command, files) in [
        (
            "python3 -m pytest -q",
            vec![("pytest.ini", "[pytest]\naddopts = --doctest-modules\n"), x],
        ),
        ("python3 -m pytest -q --doctest-modules", vec![x]),
    ] {
        let r = named(&with_task(&tasks(command), &files));
        assert!(r.names("lib/x.py"), "{command}: {files:?}");
    }
    // 28fn: a name test without a dot is a file's name.
    let r = named(&with_task(
        &tasks("find . -type f -name run_checks -exec sh {} \\\\;"),
        &[("tools/run_checks", "python3 lib/x.py\n"), X],
    ));
    assert!(r.names("lib/x.py"), "find -name run_checks");
    // 28fc: after `,` the action is on another list.
    let r = named(&with_task(
        &tasks(
            "find . -name '*_check.sh' , -type f -perm -u+x ! -path './.git/*' -exec sh {} \\\\;",
        ),
        &[X],
    ));
    assert!(r.names("lib/x"), "find with ,");
    // 28na2, 28na3, 28na4: workspaces chosen otherwise.
    let root = (
        "package.json",
        "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n",
    );
    let a = (
        "packages/a/package.json",
        "{\"name\":\"a\",\"scripts\":{\"build\":\"node ../../lib/x.js\"}}\n",
    );
    let xjs = ("lib/x.js", "1;\n");
    for (command, more) in [
        ("npm run build --workspace=packages", None),
        ("npm run build -w packages", None),
        ("npm_config_workspaces=true npm run build", None),
        ("npm run build", Some((".npmrc", "workspaces=true\n"))),
    ] {
        let mut files = vec![root, a, xjs];
        files.extend(more);
        let r = named(&with_task(&tasks(command), &files));
        assert!(r.names("lib/x.js"), "{command}: {more:?}");
    }
}

/// Red team round 29 (against round 28's fixes): pytest 9's own
/// `pytest.toml` (29pt), `--doctest-modules` in a TOML array (29pdt),
/// pytest's default doctest files (29pdg), a `conftest.py`'s
/// `pytest_plugins` (29pcp), and a script `find -execdir` runs beside
/// what it finds (29fe): each names the file the agent edited.
#[test]
fn v12_names_what_round_29_found() {
    let pytest = tasks("python3 -m pytest -q");
    let check = ("tests/check_api.py", "def test_api():\n    assert True\n");
    let r = named(&with_task(
        &pytest,
        &[
            ("pytest.toml", "[pytest]\npython_files = [\"check_*.py\"]\n"),
            check,
        ],
    ));
    assert!(r.names("tests/check_api.py"), "pytest.toml");
    let x = ("lib/x.py", "def f():\n    return 1\n");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pyproject.toml",
                "[tool.pytest]\naddopts = [\"--doctest-modules\"]\n",
            ),
            x,
        ],
    ));
    assert!(r.names("lib/x.py"), "addopts as a TOML array");
    let r = named(&with_task(
        &pytest,
        &[("docs/test_usage.txt", "Usage\n\n>>> 1 + 1\n2\n")],
    ));
    assert!(r.names("docs/test_usage.txt"), "a doctest file");
    let r = named(&with_task(
        &pytest,
        &[
            ("conftest.py", "pytest_plugins = [\"tools.plug\"]\n"),
            ("tools/plug.py", "def pytest_configure(config):\n    pass\n"),
        ],
    ));
    assert!(r.names("tools/plug.py"), "pytest_plugins");
    let r = named(&with_task(
        &tasks("find . -type f -name x.spec -execdir python3 run.py \\\\;"),
        &[("lib/x.spec", "spec\n"), ("lib/run.py", "print(1)\n")],
    ));
    assert!(r.names("lib/run.py"), "-execdir");
}

/// Round 29's false positives: pytest's configuration files are read for
/// pytest's own keys, not as scripts (other tools' sections name nothing:
/// 29la, 29lb, 29lc); what it discovers is listed below its `testpaths`
/// (29ld, 29le); an `.npmrc` key that only begins with `workspace` turns
/// no workspace on (29lg). The file the agent edited is not named.
#[test]
fn round_29s_legitimate_flows_name_only_what_they_run() {
    let pytest = tasks("python3 -m pytest -q");
    let test_ok = ("tests/test_ok.py", "def test_ok():\n    assert True\n");
    for (config, text, edited) in [
        (
            "pyproject.toml",
            "[project]\nname = \"w\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n[tool.mypy]\nfiles = [\"src\", \"scripts\"]\n",
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
        let r = named(&with_task(
            &pytest,
            &[
                (config, text),
                test_ok,
                ("src/w/core.py", "def f():\n    return 1\n"),
                (edited, "print(1)\n"),
            ],
        ));
        assert!(!r.names(edited), "{config}: {text}");
        assert!(r.names(config), "{config} itself");
    }
    let r = named(&with_task(
        &tasks("npm test"),
        &[
            (
                "package.json",
                "{\"name\":\"w\",\"scripts\":{\"test\":\"node -e 1\"}}\n",
            ),
            (".npmrc", "workspaces-update=false\n"),
            (
                "test/fixtures/proj/package.json",
                "{\"name\":\"proj\",\"scripts\":{\"release\":\"python3 scripts/release.py\"}}\n",
            ),
            ("scripts/release.py", "print(1)\n"),
        ],
    ));
    assert!(!r.names("scripts/release.py"), ".npmrc workspaces-update");
}

/// Red team round 30 (against round 29's reading of pytest's keys): a
/// path in `addopts` (30pao), `-o python_files=...` there (30poi),
/// `pythonpath` (30ppp), a TOML multi-line string (30pml), a quoted or a
/// dotted TOML key (30pqk, 30pdk), and `import_module("tools." + n)`
/// (30pil): each names the file the agent edited. Beside them, a name
/// after `-execdir` that is an option's value names nothing (30li).
#[test]
fn v12_names_what_round_30_found() {
    let pytest = tasks("python3 -m pytest -q");
    let check = |at: &'static str| (at, "def test_api():\n    assert True\n");
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
        let r = named(&with_task(&pytest, &[(config, text), check(edited)]));
        assert!(r.names(edited), "{text}");
    }
    let x = ("lib/x.py", "def f():\n    return 1\n");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"\"\"\n--doctest-modules\n\"\"\"\n",
            ),
            x,
        ],
    ));
    assert!(r.names("lib/x.py"), "a multi-line string");
    let r = named(&with_task(
        &pytest,
        &[
            ("pytest.ini", "[pytest]\npythonpath = lib\n"),
            ("lib/helper.py", "def h():\n    return 1\n"),
            (
                "tests/test_h.py",
                "import helper\ndef test_h():\n    assert helper.h() == 1\n",
            ),
        ],
    ));
    assert!(r.names("lib/helper.py"), "pythonpath");
    let r = named(&with_task(
        &pytest,
        &[
            (
                "conftest.py",
                "import importlib\nfor n in [\"plug\"]:\n    importlib.import_module(\"tools.\" + n)\n",
            ),
            ("tools/plug.py", "X = 1\n"),
        ],
    ));
    assert!(r.names("tools/plug.py"), "import_module(\"tools.\" + n)");
    let r = named(&with_task(
        &tasks("find hooks -name '*.sh' -execdir shellcheck --severity style {} +"),
        &[("hooks/a.sh", "echo a\n"), ("docs/style", "text\n")],
    ));
    assert!(!r.names("docs/style"), "an option's value after -execdir");
}

/// Red team round 31's false positives made by round 30's reading of
/// `addopts`' paths: a quoted option value (`-m "not e2e"`, 31lb) and an
/// option whose value is written apart (`--ignore docs`, 31lc) are no
/// paths to collect.
#[test]
fn addopts_values_are_no_paths() {
    let pytest = tasks("python3 -m pytest -q");
    for (text, edited) in [
        (
            "[pytest]\naddopts = -ra -m \"not e2e\"\n",
            "e2e/login.spec.js",
        ),
        (
            "[pytest]\naddopts = --ignore docs --ignore scripts\n",
            "docs/conf.py",
        ),
        (
            "[tool.pytest.ini_options]\naddopts = [\"-m\", \"not e2e\", \"--tb\", \"short\"]\n",
            "e2e/login.spec.js",
        ),
    ] {
        let config = if text.starts_with("[tool") {
            "pyproject.toml"
        } else {
            "pytest.ini"
        };
        let r = named(&with_task(
            &pytest,
            &[
                (config, text),
                ("tests/test_ok.py", "def test_ok():\n    assert True\n"),
                (edited, "x\n"),
            ],
        ));
        assert!(!r.names(edited), "{text}");
    }
}
