//! What a folder-open task runs, followed by risk policy v12 (D-R174),
//! on a real bare remote with the server hook: for each shape a red team
//! round found (18 to 22), a maintainer approves a task and what it runs,
//! the agent alone then edits a file the task reaches: high, refused by
//! the client and the server; and the legitimate flows beside them stay
//! medium and land.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use policy_team::*;

/// Red team round 18 (D-R174, risk policy v12): with a folder-open task
/// a maintainer approved, the agent alone edited a file the task runs in
/// a shape v11 named no file for, each medium and landed at the server: a
/// directory run whole (`run-parts`), a glob (`include tools/*.mk`), a
/// variable inside a name, a `PATH` in the task's `options.env`, a list
/// `xargs -a` reads, a `pyproject.toml` script, a test `unittest`
/// discovers, and a new module beside the script shadowing the standard
/// library. v12 names each by its shape; each is high now and refused.
#[test]
fn what_a_task_runs_in_the_shapes_round_18_found_needs_the_maintainer() {
    for (command, files, edited) in [
        (
            "run-parts tools/hooks",
            vec![("tools/hooks/a", "echo a\n")],
            "tools/hooks/a",
        ),
        (
            "make",
            vec![
                ("Makefile", "include tools/*.mk\n"),
                ("tools/rules.mk", "all:\n\t@echo\n"),
            ],
            "tools/rules.mk",
        ),
        (
            "make",
            vec![
                ("Makefile", "N := step\nall:\n\tpython3 tools/$(N).py\n"),
                ("tools/step.py", "print(1)\n"),
            ],
            "tools/step.py",
        ),
        (
            "xargs -a tools/list.txt -n1 python3",
            vec![
                ("tools/list.txt", "tools/step.py\n"),
                ("tools/step.py", "print(1)\n"),
            ],
            "tools/step.py",
        ),
        (
            "poetry run dev",
            vec![
                (
                    "pyproject.toml",
                    "[tool.poetry.scripts]\ndev = \"pkg.cli:main\"\n",
                ),
                ("pkg/cli.py", "def main(): pass\n"),
            ],
            "pkg/cli.py",
        ),
        (
            "python3 -m unittest",
            vec![("tests/test_x.py", "import unittest\n")],
            "tests/test_x.py",
        ),
        (
            "python3 tools/build.py",
            vec![("tools/build.py", "import json\nprint(json.dumps({}))\n")],
            "tools/json.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
    // `PATH` in the task's environment: a command the task runs by name is
    // then a repository file.
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[(
            ".vscode/tasks.json",
            r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"make","options":{"env":{"PATH":"${workspaceFolder}/tools/bin:${env:PATH}"}},"runOptions":{"runOn":"folderOpen"}}]}"#,
        )],
        "tools/bin/make",
    );
}

/// Red team round 19 (against v12, D-R174's widening within its claim):
/// the agent alone edited a file an approved folder-open task runs, in a
/// shape v12 as first landed missed, each medium and landed at the
/// server: an import chain, a relative import, a `require` chain, a key
/// past a JSONC comment, brace expansion and a bracket expression; and
/// what an unchanged file in a directory the task walks runs (`run-parts
/// tools/hooks`, `include tools/*.mk`), which the git adapter now lists.
#[test]
fn what_a_task_runs_in_the_shapes_round_19_found_needs_the_maintainer() {
    for (command, files, edited) in [
        (
            "run-parts tools/hooks",
            vec![
                ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n"),
                ("lib/x.py", "print(1)\n"),
            ],
            "lib/x.py",
        ),
        (
            "make",
            vec![
                ("Makefile", "include tools/*.mk\n"),
                ("tools/rules.mk", "all:\n\tpython3 lib/gen.py\n"),
                ("lib/gen.py", "print(1)\n"),
            ],
            "lib/gen.py",
        ),
        (
            "python3 tools/a.py",
            vec![
                ("tools/a.py", "import b\n"),
                ("tools/b.py", "import c\n"),
                ("tools/c.py", "print(1)\n"),
            ],
            "tools/c.py",
        ),
        (
            "python3 -m tools.gen",
            vec![
                ("tools/gen.py", "from .helper import run\n"),
                ("tools/helper.py", "def run(): pass\n"),
            ],
            "tools/helper.py",
        ),
        (
            "node tools/a.js",
            vec![
                ("tools/a.js", "require('./b');\n"),
                ("tools/b.js", "require('./c');\n"),
                ("tools/c.js", "1;\n"),
            ],
            "tools/c.js",
        ),
        (
            "for s in tools/gen_{a,b}.py; do python3 $s; done",
            vec![("tools/gen_a.py", "print(1)\n")],
            "tools/gen_a.py",
        ),
        (
            "bash tools/run.sh",
            vec![
                (
                    "tools/run.sh",
                    "for f in lib/[[:alpha:]]*.py; do python3 \"$f\"; done\n",
                ),
                ("lib/gen.py", "print(1)\n"),
            ],
            "lib/gen.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
    // A key past a comment: the command is read as a command.
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command" /* every hook */ : "run-parts tools/hooks","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            ("tools/hooks/a", "echo a\n"),
        ],
        "tools/hooks/a",
    );
}

/// Red team round 20 (against v12 with listing): a walker's operand past
/// an option or through a variable, `find` with a name test or into a
/// subdirectory, a wildcard in a middle component, an import after `;`,
/// and a module found through `sys.path`: each medium and landed at the
/// server before; high and refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_20_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    for (command, files, edited) in [
        (
            "run-parts -a start tools/hooks",
            vec![("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "D=tools/hooks; run-parts \"$D\"",
            vec![("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "find tools -name '*.sh' -exec sh {} \\;",
            vec![("tools/a.sh", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "find tools -type f -exec sh {} \\;",
            vec![("tools/sub/run", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "for f in tools/*/run.sh; do sh \"$f\"; done",
            vec![("tools/a/run.sh", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "python3 tools/a.py",
            vec![
                ("tools/a.py", "import os; import b\n"),
                ("tools/b.py", "import c\n"),
                ("tools/c.py", "print(1)\n"),
            ],
            "tools/c.py",
        ),
        (
            "python3 tools/a.py",
            vec![
                (
                    "tools/a.py",
                    "import sys\nsys.path.insert(0, \"lib\")\nimport helper\n",
                ),
                (
                    "lib/helper.py",
                    "import runpy\nrunpy.run_path(\"scripts/x.py\")\n",
                ),
                ("scripts/x.py", "print(1)\n"),
            ],
            "scripts/x.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
}

/// Red team round 21 (against v12 after round 20): a default in a
/// variable's expansion, `find`'s output run in a loop, an environment
/// variable given to `run-parts`, `sys.path` built from `__file__`, and a
/// tool's configuration read in turn: each medium and landed at the
/// server before; high and refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_21_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n");
    for (command, files, edited) in [
        (
            "run-parts \"${HOOKS:-tools/hooks}\"",
            vec![hook, x],
            "lib/x.py",
        ),
        (
            "for c in $(find tools/checks -type f); do sh \"$c\"; done",
            vec![("tools/checks/a", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            "python3 tools/a.py",
            vec![
                (
                    "tools/a.py",
                    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \"lib\"))\nimport helper\n",
                ),
                (
                    "tools/lib/helper.py",
                    "import runpy\nrunpy.run_path(\"scripts/x.py\")\n",
                ),
                ("scripts/x.py", "print(1)\n"),
            ],
            "scripts/x.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"run-parts \"$HOOKS\"","options":{"env":{"HOOKS":"tools/hooks"}},"runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            hook,
            x,
        ],
        "lib/x.py",
    );
}

/// Round 21's false positives (03b, 03c): a Python package a task runs
/// with `python3 -m app`, whose modules import each other five deep, made
/// every change high (deeper than the reads). An edit outside the package
/// is medium and lands; one inside it needs the maintainer.
#[test]
fn a_package_deeper_than_the_reads_keeps_other_edits_medium() {
    let t = Team::new();
    t.f.write(
        ".vscode/tasks.json",
        r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 -m app","runOptions":{"runOn":"folderOpen"}}]}"#,
    )
    .unwrap();
    for (path, body) in [
        ("app/__main__.py", "from . import a\n"),
        ("app/a.py", "from . import b\n"),
        ("app/b.py", "from . import c\n"),
        ("app/c.py", "from . import d\n"),
        ("app/d.py", "x = 1\n"),
    ] {
        t.f.write(path, body).unwrap();
    }
    let (lineage, _, c) = t.review_commit("package");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("src/lib.rs", "pub fn f() { let _ = 1; }\n")
        .unwrap();
    let (lineage, started, c) = t.review_commit("ordinary");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
    t.f.write("app/d.py", "import os\n").unwrap();
    let (_, started, _) = t.review_commit("package edit");
    assert_eq!(started["risk_level"], "high", "{started}");
}

/// Red team round 19's 05p2 and 05p3: a pre-commit local hook whose
/// `entry` is written as a YAML complex key, or as an alias, runs
/// `run-parts tools/hooks` as a plain `entry:` does (pre-commit reads
/// its configuration with PyYAML). The agent alone edited a hook there:
/// medium and landed before; high and refused now.
#[test]
fn a_pre_commit_entry_behind_a_complex_key_or_an_alias_needs_the_maintainer() {
    for config in [
        "repos:\n- repo: local\n  hooks:\n  - id: a\n    name: a\n    ? entry\n    : run-parts tools/hooks\n    language: system\n",
        "x-defaults: &cmd run-parts tools/hooks\nrepos:\n- repo: local\n  hooks:\n  - id: a\n    name: a\n    entry: *cmd\n    language: system\n",
    ] {
        an_edit_the_configuration_runs_needs_the_maintainer(
            &[
                (".pre-commit-config.yaml", config),
                ("tools/hooks/a", "echo a\n"),
            ],
            "tools/hooks/a",
        );
    }
}

/// Round 19's false positive (04d): a `Makefile` whose `clean` rule runs
/// `find . -name "*.o" -exec rm`, and a long ordinary Python task script,
/// made every change high. An edit no task runs is medium and lands.
#[test]
fn a_clean_rule_and_a_long_task_script_leave_other_edits_medium() {
    let t = Team::new();
    let mut script = String::from("import os, subprocess\n");
    for i in 0..300 {
        script.push_str(&format!(
            "def step_{i}(path):\n    return os.path.join(path, 'build', 'out_{i}.txt')\n"
        ));
    }
    t.f.write(
        ".vscode/tasks.json",
        r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"make && python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}"#,
    )
    .unwrap();
    t.f.write(
        "Makefile",
        "all:\n\tcc -o app main.c\nclean:\n\tfind . -name \"*.o\" -exec rm -f {} +\n",
    )
    .unwrap();
    t.f.write("tools/build.py", script).unwrap();
    let (lineage, _, c) = t.review_commit("tasks");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("src/lib.rs", "pub fn f() { let _ = 1; }\n")
        .unwrap();
    let (lineage, started, c) = t.review_commit("ordinary");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
}

/// Round 18's legitimate flows under v12 (02a, 02b, 02c): with an
/// ordinary `make` task and a vite `package.json` of 300 scoped
/// dependencies (v11 counted their names against its bound, so every
/// change was high), an edit no task runs is medium and lands with the
/// agent's signature.
#[test]
fn under_v12_an_edit_no_task_runs_stays_medium_and_lands() {
    let t = Team::new();
    let deps: Vec<String> = (0..300)
        .map(|i| format!("\"@acme/pkg-{i}\":\"^1.0.0\""))
        .collect();
    t.f.write(
        ".vscode/tasks.json",
        r#"{"version":"2.0.0","tasks":[{"label":"web","type":"shell","command":"npm run dev","runOptions":{"runOn":"folderOpen"}},{"label":"build","type":"shell","command":"make","runOptions":{"runOn":"folderOpen"}}]}"#,
    )
    .unwrap();
    t.f.write(
        "package.json",
        format!(
            r#"{{"name":"web","scripts":{{"dev":"vite"}},"dependencies":{{{}}}}}"#,
            deps.join(",")
        ),
    )
    .unwrap();
    t.f.write(
        "Makefile",
        "PREFIX ?= /usr/local\nBUILD := target\nall:\n\tcargo build --release\n\tinstall $(BUILD)/parser $(PREFIX)/bin\n",
    )
    .unwrap();
    let (lineage, _, c) = t.review_commit("tasks");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write("src/lib.rs", "pub fn f() { let _ = 1; }\n")
        .unwrap();
    let (lineage, started, c) = t.review_commit("ordinary");
    assert_risk(&started, "medium", "code_change");
    t.signed_lands(&t.agent, &lineage, c);
}

/// Red team round 22's open holes (and round 21's 01b): a module one step
/// beyond the reads that runs or imports a file outside its package
/// (22a, 22a2), a directory listed for its own files and then walked
/// recursively (22b), a walker's variable `.envrc` exports (22d), and an
/// npm workspace listed by name (01b): each medium and landed at the
/// server before; high and refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_22_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    for (command, files, edited) in [
        (
            "python3 tools/gen.py",
            vec![
                ("tools/gen.py", "import a\n"),
                ("tools/a.py", "import b\n"),
                ("tools/b.py", "import c\n"),
                (
                    "tools/c.py",
                    "import subprocess, sys\nsubprocess.run([sys.executable, \"lib/x.py\"])\n",
                ),
                x,
            ],
            "lib/x.py",
        ),
        (
            "python3 -m app.main",
            vec![
                ("app/__init__.py", ""),
                ("app/main.py", "from .a import run\nrun()\n"),
                ("app/a.py", "from .b import run\n"),
                ("app/b.py", "from .c import run\n"),
                ("app/c.py", "from lib.x import run\n"),
                ("lib/x.py", "def run():\n    print(1)\n"),
            ],
            "lib/x.py",
        ),
        (
            "run-parts tools/hooks",
            vec![
                (
                    "tools/hooks/a",
                    "#!/bin/sh\nfind tools/hooks -name '*.sh' -exec sh {} \\;\n",
                ),
                ("tools/hooks/steps/gen.sh", "python3 lib/x.py\n"),
                x,
            ],
            "lib/x.py",
        ),
        (
            "npm install && npm run dev",
            vec![
                (
                    "package.json",
                    r#"{"name":"acme","private":true,"workspaces":["packages/utils","apps/web"],"scripts":{"dev":"node apps/web/server.js"}}"#,
                ),
                ("apps/web/server.js", "require(\"@acme/utils\");\n"),
                ("packages/utils/index.js", "module.exports = 1;\n"),
            ],
            "packages/utils/index.js",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, edited);
    }
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (".envrc", "export HOOKS=tools/hooks\n"),
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"run-parts \"$HOOKS\"","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n"),
            x,
        ],
        "lib/x.py",
    );
}

/// Round 22's legitimate flows beside those holes: a Python service run
/// as `python3 -m app.main` whose modules import each other five deep
/// (22la), and `.envrc`'s `HOOKS` given to `run-parts` (22lb). An edit
/// outside what they run is medium and lands with the agent's signature.
#[test]
fn round_22s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"s","type":"shell","command":"python3 -m app.main","runOptions":{"runOn":"folderOpen"}},{"label":"h","type":"shell","command":"run-parts \"$HOOKS\"","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            (".envrc", "export HOOKS=tools/hooks\n"),
            ("tools/hooks/a", "#!/bin/sh\necho hook\n"),
            ("app/__init__.py", ""),
            ("app/main.py", "from .a import run\nrun()\n"),
            ("app/a.py", "from .b import run\n"),
            ("app/b.py", "from .c import run\n"),
            ("app/c.py", "from .d import run\n"),
            ("app/d.py", "import os, json\nfrom .e import run\n"),
            ("app/e.py", "def run():\n    print('ok')\n"),
            ("web/app.js", "console.log(1);\n"),
        ],
        &["web/app.js", "src/server.py"],
    );
}

/// Red team round 23, against round 22's fixes: a module past the reads
/// importing a sibling that runs a file outside its package (23a), a
/// relative chain whose fifth module imports one (23a2), a directory a
/// module past the reads names as a word (23b2), a walker's variable given
/// by a sourced file while the task assigns another (23c) or computed
/// (23c3), and a directory's files run through `ls` (23d, 23d3): each
/// medium and landed at the server before; high and refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_23_found_needs_the_maintainer() {
    let x = ("lib/x.py", "def run():\n    print(1)\n");
    let hook = ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n");
    let chain = [
        ("tools/gen.py", "import a\na.main()\n"),
        ("tools/a.py", "import b\ndef main():\n    b.main()\n"),
        ("tools/b.py", "import c\ndef main():\n    c.main()\n"),
    ];
    let with_chain = |more: &[(&'static str, &'static str)]| {
        let mut files = chain.to_vec();
        files.extend_from_slice(more);
        files.push(x);
        files
    };
    for (command, files) in [
        (
            "python3 tools/gen.py",
            with_chain(&[
                ("tools/c.py", "import d\ndef main():\n    d.main()\n"),
                (
                    "tools/d.py",
                    "import subprocess, sys\ndef main():\n    subprocess.run([sys.executable, \"lib/x.py\"])\n",
                ),
            ]),
        ),
        (
            "python3 -m app.main",
            vec![
                ("app/__init__.py", ""),
                ("app/main.py", "from .a import run\nrun()\n"),
                ("app/a.py", "from .b import run\n"),
                ("app/b.py", "from .c import run\n"),
                ("app/c.py", "from .d import run\n"),
                ("app/d.py", "from lib.x import run\n"),
                x,
            ],
        ),
        (
            "python3 tools/gen.py",
            with_chain(&[(
                "tools/c.py",
                "import os, subprocess, sys\ndef main():\n    subprocess.run([sys.executable, os.path.join(\"lib\", \"x.py\")])\n",
            )]),
        ),
        (
            "MODE=ci; set -a; . tools/vars; set +a; run-parts \"$HOOKS\"",
            vec![("tools/vars", "HOOKS=tools/hooks\n"), hook, x],
        ),
        (
            "MODE=ci; HOOKS=$(cat tools/hooks.txt); run-parts \"$HOOKS\"",
            vec![("tools/hooks.txt", "tools/hooks\n"), hook, x],
        ),
        (
            "ls tools/hooks | xargs -I{} sh tools/hooks/{}",
            vec![hook, x],
        ),
        (
            "for f in $(ls tools/hooks); do sh tools/hooks/$f; done",
            vec![hook, x],
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &files, "lib/x.py");
    }
}

/// Round 23's false positives: a Python service whose fourth module
/// imports a shared package (23la), and a cleanup script that gives a
/// script's argument to `find` and runs nothing it finds (23lb): an edit
/// outside what they run is medium and lands with the agent's signature.
#[test]
fn round_23s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"s","type":"shell","command":"python3 -m app.main","runOptions":{"runOn":"folderOpen"}},{"label":"c","type":"shell","command":"sh tools/clean.sh build","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            ("app/__init__.py", ""),
            ("common/__init__.py", ""),
            ("app/main.py", "from .a import run\nrun()\n"),
            ("app/a.py", "from .b import run\n"),
            ("app/b.py", "from .c import run\n"),
            (
                "app/c.py",
                "from common.util import helper\ndef run():\n    helper()\n",
            ),
            ("common/util.py", "def helper():\n    print('ok')\n"),
            ("tools/clean.sh", "find \"$1\" -name '*.orig' -delete\n"),
            ("web/app.js", "console.log(1);\n"),
        ],
        &["web/app.js"],
    );
}

/// Red team round 24, against round 23's fixes: a variable given its value
/// by `read`, `printf -v` or `+=` beside a literal one, an expansion that
/// changes its value, a glob as a loop's value, and a directory's files
/// run through `$(basename ...)`, `xargs sh`, `cd` and `./*`, or by a
/// script that lists the directory: each medium and landed at the server
/// before; high and refused now, whether the agent edits what the hook
/// runs or the hook itself.
#[test]
fn what_a_task_runs_in_the_shapes_round_24_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n");
    let safe = ("tools/safe/a", "#!/bin/sh\necho safe\n");
    let text = ("tools/hooks.txt", "tools/hooks\n");
    for (command, edited) in [
        (
            "HOOKS=tools/safe; read -r HOOKS < tools/hooks.txt; run-parts \"$HOOKS\"",
            "lib/x.py",
        ),
        (
            "HOOKS=tools/safe; printf -v HOOKS %s tools/hooks; run-parts \"$HOOKS\"",
            "lib/x.py",
        ),
        (
            "HOOKS=tools; HOOKS+=/hooks; run-parts \"$HOOKS\"",
            "lib/x.py",
        ),
        (
            "HOOKS=tools/safe; run-parts \"${HOOKS/safe/hooks}\"",
            "tools/hooks/a",
        ),
        (
            "HOOKS=_tools/hooks; run-parts \"${HOOKS#_}\"",
            "tools/hooks/a",
        ),
        (
            "HOOKS=tools/hooksX; run-parts \"${HOOKS:0:11}\"",
            "tools/hooks/a",
        ),
        ("for D in tools/*; do run-parts \"$D\"; done", "lib/x.py"),
        (
            "for f in $(ls tools/hooks); do sh tools/hooks/$(basename $f); done",
            "lib/x.py",
        ),
        (
            "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 sh",
            "lib/x.py",
        ),
        (
            "cd tools/hooks && for f in *; do sh \"./$f\"; done",
            "lib/x.py",
        ),
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &[hook, safe, text, x], edited);
    }
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 tools/gen.py",
        &[
            (
                "tools/gen.py",
                "import os, subprocess\nfor n in os.listdir(\"tools/hooks\"):\n    subprocess.run([\"sh\", \"tools/hooks/\" + n])\n",
            ),
            hook,
            x,
        ],
        "lib/x.py",
    );
}

/// Round 24's false positive (24la2): a Python service whose `main`
/// imports 300 handlers at once made every change high (the per-step
/// bound); an edit outside it is medium and lands now.
#[test]
fn a_router_importing_300_handlers_keeps_other_edits_medium() {
    let main: String = (0..300)
        .map(|i| format!("from .handlers import h{i}\n"))
        .collect();
    let handlers: Vec<(String, String)> = (0..300)
        .map(|i| {
            (
                format!("app/handlers/h{i}.py"),
                format!("def run():\n    return {i}\n"),
            )
        })
        .collect();
    let mut files = vec![
        (
            ".vscode/tasks.json",
            r#"{"version":"2.0.0","tasks":[{"label":"s","type":"shell","command":"python3 -m app.main","runOptions":{"runOn":"folderOpen"}}]}"#,
        ),
        ("app/__init__.py", ""),
        ("app/handlers/__init__.py", ""),
        ("app/main.py", main.as_str()),
        ("web/app.js", "console.log(1);\n"),
    ];
    files.extend(handlers.iter().map(|(p, b)| (p.as_str(), b.as_str())));
    edits_the_configuration_does_not_run_stay_medium(&files, &["web/app.js"]);
}

/// Red team round 25, against round 24's fixes: a variable's name glued
/// to a redirection or an option, `xargs` with an option's value or a
/// wrapper before the shell, `find` tests that match a directory, exclude
/// or are a regex, and a script listing with `ls` or running with
/// `spawnv`: each medium and landed at the server before; high and
/// refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_25_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n");
    let safe = ("tools/safe/a", "#!/bin/sh\necho safe\n");
    let text = ("tools/hooks.txt", "tools/hooks\n");
    for command in [
        "HOOKS=tools/safe; read -r HOOKS<tools/hooks.txt; run-parts \"$HOOKS\"",
        "HOOKS=tools/safe; printf -vHOOKS %s tools/hooks; run-parts \"$HOOKS\"",
        "HOOKS=tools/safe; mapfile -t HOOKS<<<tools/hooks; run-parts \"$HOOKS\"",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n 1 sh",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 env sh",
        "find tools -name hooks -type d -exec run-parts {} \\;",
        "find tools/hooks -type f ! -name '*.md' -exec sh {} \\;",
        "find tools -regex '.*/hooks/.*' -exec sh {} \\;",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &[hook, safe, text, x], "lib/x.py");
    }
    for script in [
        "import os\nfor n in os.popen(\"ls tools/hooks\").read().split():\n    os.popen(\"sh tools/hooks/\" + n)\n",
        "import os\nfor n in os.listdir(\"tools/hooks\"):\n    os.spawnv(os.P_WAIT, \"/bin/sh\", [\"sh\", \"tools/hooks/\" + n])\n",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(
            "python3 tools/gen.py",
            &[("tools/gen.py", script), hook, x],
            "lib/x.py",
        );
    }
}

/// Round 25's false positives: a variable's name in an `echo` beside its
/// literal value (25la) and a syntax check given files by `xargs`
/// (25la6): an edit outside what they run is medium and lands.
#[test]
fn round_25s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"h","type":"shell","command":"sh tools/run.sh","runOptions":{"runOn":"folderOpen"}},{"label":"n","type":"shell","command":"git ls-files -z '*.sh' | xargs -0 bash -n","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            (
                "tools/run.sh",
                "hooks=tools/hooks\necho \"running hooks\"\nrun-parts \"$hooks\"\n",
            ),
            ("tools/hooks/a", "#!/bin/sh\necho hook\n"),
            ("src/server.py", "print('serve')\n"),
        ],
        &["src/server.py"],
    );
}

/// Red team round 26, against round 25's fixes: an array assignment and a
/// name given by a value beside a literal one, `xargs` options read as
/// written, wrappers' option values and `xargs run-parts`, `find` running
/// a directory a name test matches, a path test and a test after the
/// action, and `os.fwalk`: each medium and landed at the server before;
/// high and refused now.
#[test]
fn what_a_task_runs_in_the_shapes_round_26_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "#!/bin/sh\npython3 lib/x.py\n");
    let safe = ("tools/safe/a", "#!/bin/sh\necho safe\n");
    for command in [
        "HOOKS=tools/safe; HOOKS=(tools/hooks); run-parts \"$HOOKS\"",
        "HOOKS=tools/safe; N=HOOKS; printf -v \"$N\" %s tools/hooks; run-parts \"$HOOKS\"",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -l sh",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 env -u CI sh",
        "echo tools/hooks | xargs run-parts",
        "find tools -name hooks -exec run-parts {} \\;",
        "find tools -path '*/hooks/*' -exec sh {} \\;",
        "find tools/hooks -type f -exec sh {} \\; -name '*.md'",
        // Found in review: what `find` prints may run after it.
        "find . -name '*.sh' -exec cat {} + | sh",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &[hook, safe, x], "lib/x.py");
    }
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 tools/gen.py",
        &[
            (
                "tools/gen.py",
                "import os, subprocess\nfor d, _, fs, _ in os.fwalk(\"tools/hooks\"):\n    for f in fs:\n        subprocess.run([\"sh\", d + \"/\" + f])\n",
            ),
            hook,
            x,
        ],
        "lib/x.py",
    );
}

/// Round 26's false positives: `find` with a negated path test and with
/// alternatives running tests, `find` removing what it finds, and `xargs`
/// giving files to a linter module: an edit outside what they run is
/// medium and lands.
#[test]
fn round_26s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"t","type":"shell","command":"find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\;","runOptions":{"runOn":"folderOpen"}},{"label":"c","type":"shell","command":"find . \\( -name '*.pyc' -o -name __pycache__ \\) -prune -exec rm -rf {} + && git ls-files | xargs python3 -m flake8","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            ("tools/a_test.sh", "#!/bin/sh\necho ok\n"),
            ("src/server.py", "print('serve')\n"),
        ],
        &["src/server.py"],
    );
}

/// Red team round 27's holes closed within v12 (on a real bare remote
/// with the server hook): a glob after a variable walks each of its
/// literal values (27va, 27va3 in an `.envrc`), and one whose variable is
/// a function's argument names every file (27va2); a one-word `-m`
/// module is read in turn (27pa, 27pa2 from a pre-commit hook); each word
/// of a value holding several is a directory a recursive `make` may run
/// in (27ma, 27ma2). The edit the configuration runs one step further is
/// high and refused.
#[test]
fn what_a_task_runs_in_the_shapes_round_27_found_needs_the_maintainer() {
    let x = ("lib/x.py", "print(1)\n");
    let core = ("core/Makefile", "all:\n\techo core\n");
    let plugins = ("plugins/Makefile", "all:\n\tpython3 ../lib/x.py\n");
    an_edit_the_task_runs_needs_the_maintainer(
        "make",
        &[
            (
                "Makefile",
                "SUBDIRS = core plugins\nall:\n\tfor d in $(SUBDIRS); do $(MAKE) -C $$d; done\n",
            ),
            core,
            plugins,
            x,
        ],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "sh tools/build-all.sh",
        &[
            (
                "tools/build-all.sh",
                "DIRS=\"core plugins\"\nfor d in $DIRS; do make -C \"$d\"; done\n",
            ),
            core,
            plugins,
            x,
        ],
        "lib/x.py",
    );
    let hook = ("tools/hooks/a.sh", "#!/bin/sh\npython3 lib/x.py\n");
    for command in [
        "HOOKS=tools/hooks; for f in \"$HOOKS\"/*.sh; do sh \"$f\"; done",
        "run_all() { for f in \"$1\"/*.sh; do sh \"$f\"; done; }; run_all tools/hooks",
    ] {
        an_edit_the_task_runs_needs_the_maintainer(command, &[hook, x], "lib/x.py");
    }
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (
                ".envrc",
                "ENVD=tools/env.d\nfor f in \"$ENVD\"/*.sh; do . \"$f\"; done\n",
            ),
            ("tools/env.d/a.sh", "python3 lib/x.py\n"),
            x,
        ],
        "lib/x.py",
    );
    an_edit_the_task_runs_needs_the_maintainer(
        "python3 -m devtools",
        &[
            ("devtools.py", "from lib import x\n"),
            ("lib/__init__.py", ""),
            x,
        ],
        "lib/x.py",
    );
    an_edit_the_configuration_runs_needs_the_maintainer(
        &[
            (
                ".pre-commit-config.yaml",
                "repos:\n- repo: local\n  hooks:\n  - id: s\n    name: s\n    language: system\n    entry: python3 -m scripts\n",
            ),
            (
                "scripts/__main__.py",
                "import subprocess\nsubprocess.run([\"python3\", \"lib/x.py\"])\n",
            ),
            x,
        ],
        "lib/x.py",
    );
}

/// Beside round 27's fixes: a glob after the workspace's variable or the
/// environment's, one-word modules the tree does not hold, and a
/// recursive `make` over directories that run nothing else (27lf) name
/// no other file: an edit outside what they run is medium and lands.
#[test]
fn round_27s_legitimate_flows_stay_medium_and_land() {
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"l","type":"shell","command":"eslint \"${workspaceFolder}\"/web/*.js && python3 -m unittest discover -s tests && python3 -m black --check web","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            ("web/app.js", "console.log(1)\n"),
            ("tests/test_app.py", "import unittest\n"),
            ("src/server.py", "print('serve')\n"),
        ],
        &["src/server.py"],
    );
    // 27lf: a recursive `make` over directories that run nothing else.
    edits_the_configuration_does_not_run_stay_medium(
        &[
            (
                ".vscode/tasks.json",
                r#"{"version":"2.0.0","tasks":[{"label":"m","type":"shell","command":"make","runOptions":{"runOn":"folderOpen"}}]}"#,
            ),
            (
                "Makefile",
                "SUBDIRS = docs web\nall:\n\tfor d in $(SUBDIRS); do $(MAKE) -C $$d; done\n",
            ),
            ("docs/Makefile", "all:\n\t@echo docs\n"),
            ("web/Makefile", "all:\n\t@echo web\n"),
            ("src/server.py", "print('serve')\n"),
        ],
        &["src/server.py"],
    );
}
