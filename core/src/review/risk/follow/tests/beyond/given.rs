//! Red team round 34 (against D-R176's second addendum): what pytest
//! and unittest do with what they are given. pytest looks for its
//! configuration from the paths it is given upward (34suf, 34sud) and
//! puts a test given whole in its directory first on `sys.path` (34tpf,
//! 34aof, 34pca); unittest's discovery imports every package below where
//! it starts (34uti, 34utn). And a root file is a module Python imports
//! only with the suffixes Python imports (34lf, 34lg, 34li, 34lj).

use super::*;

/// A test module importing `sqlite3` (whose `dbapi2` imports `_sqlite3`).
const DB_CHECK: &str = "import sqlite3\n\ndef test_db():\n    assert sqlite3\n";

/// 34suf, 34sud: a configuration beside (or above) a path pytest is given
/// on its command line or in `PYTEST_ADDOPTS` is the one pytest reads:
/// it is named, and what it loads is read.
#[test]
fn pytests_configuration_is_looked_for_from_the_paths_it_is_given() {
    for (command, test, config) in [
        (
            "python3 -m pytest -q tests/test_ok.py",
            "tests/test_ok.py",
            "tests/pytest.ini",
        ),
        (
            "python3 -m pytest -q tests/unit/test_a.py",
            "tests/unit/test_a.py",
            "tests/tox.ini",
        ),
        (
            "python3 -m pytest -q tests/unit/test_a.py",
            "tests/unit/test_a.py",
            "tests/unit/setup.cfg",
        ),
    ] {
        let task = tasks(command);
        let r = named(&with_task(&task, &[check(test)]));
        assert!(r.names(config), "{command}: {config}");
        let r = named(&with_task(
            &task,
            &[
                check(test),
                (config, "[pytest]\naddopts = -p tools.ev\n"),
                ("tools/ev.py", "X = 1\n"),
            ],
        ));
        assert!(r.names("tools/ev.py"), "{command}: {config}");
    }
    let env = task_with_env(
        "python3 -m pytest -q",
        r#""PYTEST_ADDOPTS":"tests/test_ok.py""#,
    );
    let r = named(&with_task(&env, &[check("tests/test_ok.py")]));
    assert!(r.names("tests/pytest.ini"), "PYTEST_ADDOPTS");
}

/// 34tpf, 34aof, 34pca: a test file given whole (in `testpaths`, in
/// `addopts`, on the command line) is imported from its directory, put
/// first on `sys.path`: a module there shadows the standard library.
#[test]
fn a_test_given_whole_has_its_directory_checked_for_shadowing() {
    for (task, config) in [
        (
            "python3 -m pytest -q",
            "[pytest]\ntestpaths = checks/check.py\n",
        ),
        (
            "python3 -m pytest -q",
            "[pytest]\naddopts = checks/check.py\n",
        ),
        ("python3 -m pytest -q checks/check.py", "[pytest]\n"),
    ] {
        let task = tasks(task);
        let r = named(&with_task(
            &task,
            &[
                ("pytest.ini", config),
                ("checks/check.py", DB_CHECK),
                ("checks/_sqlite3.py", "X = 1\n"),
                ("checks/helpers.py", "X = 1\n"),
            ],
        ));
        assert!(r.names("checks/_sqlite3.py"), "{}: {config}", task.1);
        assert!(!r.names("checks/helpers.py"), "{}: {config}", task.1);
    }
}

/// 34uti, 34utn: unittest's discovery imports every package below where
/// it starts, whether or not a test is in it.
#[test]
fn unittest_imports_every_package_below_its_start() {
    for command in ["python3 -m unittest", "python3 -m unittest discover"] {
        let task = tasks(command);
        let r = named(&with_task(
            &task,
            &[
                ("tests/__init__.py", ""),
                ("tests/test_ok.py", "import unittest\n"),
                ("app/__init__.py", "X = 1\n"),
                ("app/sub/__init__.py", "X = 1\n"),
                ("app/sub/core.py", "X = 1\n"),
            ],
        ));
        for edited in ["app/__init__.py", "app/sub/__init__.py"] {
            assert!(r.names(edited), "{command}: {edited}");
        }
        assert!(!r.names("app/sub/core.py"), "{command}");
    }
}

/// 34lf, 34lg, 34li, 34lj: a root data file whose stem is a
/// standard-library module's name is no module (Python imports `.py`,
/// `.pyc`, `.pyw`, `.pyd` and `.so`, and extension modules with a tag);
/// those still shadow.
#[test]
fn only_what_python_imports_shadows_the_standard_library() {
    let task = tasks("python3 -m pytest -q");
    let data = [
        "logging.yaml",
        "site.yml",
        "types.ts",
        "token.txt",
        "glob.py.bak",
    ];
    let modules = [
        "logging.py",
        "site.pyc",
        "types.pyw",
        "token.pyd",
        "glob.cp311-win_amd64.pyd",
        "glob.cpython-311-x86_64-linux-gnu.so",
        "glob/__init__.py",
        "glob/__init__.abi3.so",
    ];
    let mut tree = vec![check("tests/test_ok.py")];
    tree.extend(data.iter().chain(&modules).map(|p| (*p, "x\n")));
    let r = named(&with_task(&task, &tree));
    for path in data {
        assert!(!r.names(path), "{path}");
    }
    for path in modules {
        assert!(r.names(path), "{path}");
    }
    assert!(!r.names("glob/__init__.txt"));
}
