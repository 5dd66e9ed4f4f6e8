//! Red team round 22's open holes (and round 21's 01b): a module one
//! step beyond the reads that leaves its directory, a directory listed
//! for its own files and later walked recursively, a walker's variable
//! exported by `.envrc` (or given by a task's environment to the script
//! it runs), and npm workspaces listed by name.

use std::collections::BTreeMap;

use super::*;
use crate::review::risk::RiskPolicy;

/// What the ports read of `tree` (paths and texts), as `run_configs`
/// does ([`crate::review::risk::ports_read`]). Unlike [`ported`], a
/// file is among the configurations only once asked for.
fn ports_read(tree: &[(&str, &str)]) -> Vec<RunConfig> {
    let tree: BTreeMap<String, Vec<u8>> = tree
        .iter()
        .map(|(p, text)| ((*p).to_string(), text.as_bytes().to_vec()))
        .collect();
    crate::review::risk::ports_read(&tree).expect("the steps end")
}

/// What the newest policy names once the ports read `tree`.
fn named(tree: &[(&str, &str)]) -> References {
    let policy = RiskPolicy::newest();
    let rule = policy.references_followed.as_ref().unwrap();
    follow(
        &ports_read(tree),
        policy.reference_configs(),
        rule,
        rule.last_step(),
    )
    .0
}

/// A folder-open task running `command`, as the ports see it.
fn tasks(command: &str) -> (&'static str, String) {
    (".vscode/tasks.json", task_of(command))
}

/// `tree` with the task `command` at `.vscode/tasks.json`.
fn with_task<'a>(
    task: &'a (&'static str, String),
    tree: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut out = vec![(task.0, task.1.as_str())];
    out.extend_from_slice(tree);
    out
}

/// A test module at `at`.
fn check(at: &'static str) -> (&'static str, &'static str) {
    (at, "def test_api():\n    assert True\n")
}

/// `.vscode/tasks.json` with one task running `command` with the
/// environment `env` (a JSON object's members).
fn task_with_env(command: &str, env: &str) -> (&'static str, String) {
    (
        ".vscode/tasks.json",
        format!(r#"{{"tasks":[{{"command":"{command}","options":{{"env":{{{env}}}}}}}]}}"#),
    )
}

const X: (&str, &str) = ("lib/x.py", "print(1)\n");

/// 22a: the fourth module runs a file outside its package; 22a2: it
/// imports one. The chain can no longer be bounded: every file is named.
#[test]
fn a_module_beyond_the_reads_that_leaves_its_directory_names_every_file() {
    let task = tasks("python3 tools/gen.py");
    let r = named(&with_task(
        &task,
        &[
            ("tools/gen.py", "import a\n"),
            ("tools/a.py", "import b\n"),
            ("tools/b.py", "import c\n"),
            (
                "tools/c.py",
                "import subprocess, sys\nsubprocess.run([sys.executable, \"lib/x.py\"])\n",
            ),
            X,
        ],
    ));
    assert!(r.names("lib/x.py"));
    let task = tasks("python3 -m app.main");
    let r = named(&with_task(
        &task,
        &[
            ("app/__init__.py", ""),
            ("app/main.py", "from .a import run\nrun()\n"),
            ("app/a.py", "from .b import run\n"),
            ("app/b.py", "from .c import run\n"),
            ("app/c.py", "from lib.x import run\n"),
            X,
        ],
    ));
    assert!(r.names("lib/x.py"));
}

/// The ports read the modules past the reads in turn: at `reads + 1`,
/// the files the module beyond names are asked for.
/// A module beyond that names only its siblings and what the trees lack
/// (the standard library) names its directory, nothing else (22la).
#[test]
fn what_a_module_beyond_names_outside_its_directory_is_asked_for() {
    let policy = RiskPolicy::newest();
    let task = tasks("python3 tools/gen.py");
    let chain = [
        ("tools/gen.py", "import a\n"),
        ("tools/a.py", "import b\n"),
        ("tools/b.py", "import c\n"),
    ];
    let mut tree = with_task(&task, &chain);
    tree.extend([("tools/c.py", "from lib.x import run\n"), X]);
    let asked = policy
        .reference_step(&ports_read(&tree[..tree.len() - 1]), 4)
        .read;
    assert!(asked.iter().any(|p| p == "lib/x.py"), "{asked:?}");

    let mut home = with_task(&task, &chain);
    home.extend([
        (
            "tools/c.py",
            "import os, json\nimport d\nprint(os.getcwd())\n",
        ),
        ("tools/d.py", "x = 1\n"),
        X,
    ]);
    let r = named(&home);
    assert!(r.names("tools/d.py"));
    assert!(!r.names("lib/x.py"));
    assert!(!r.names("web/app.js"));
}

/// 22b: a directory listed for its own files (`run-parts tools/hooks`)
/// and then walked recursively by a hook there (`find tools/hooks`) is
/// listed again, with every file below it; the reverse order keeps its
/// one listing; and a file below a walked directory read by its name
/// does not stand for the listing.
#[test]
fn a_directory_is_listed_as_its_walks_need() {
    let steps = ("tools/hooks/steps/gen.sh", "python3 lib/x.py\n");
    for (command, hook) in [
        (
            "run-parts tools/hooks",
            "find tools/hooks -name '*.sh' -exec sh {} \\\\;\n",
        ),
        (
            "find tools/hooks -type f -exec sh {} ;",
            "run-parts tools/hooks\n",
        ),
    ] {
        let task = tasks(command);
        let r = named(&with_task(&task, &[("tools/hooks/a", hook), steps, X]));
        assert!(r.names("lib/x.py"), "{command}");
        assert!(!r.names("src/lib.rs"), "{command}: everything named");
    }
    let task = tasks("bash tools/hooks/a");
    let r = named(&with_task(
        &task,
        &[
            ("tools/hooks/a", "run-parts tools/hooks\n"),
            ("tools/hooks/b", "python3 lib/x.py\n"),
            X,
        ],
    ));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/lib.rs"));
}

/// 22d: a variable `.envrc` exports (or a `.env` it loads), and a task's
/// `options.env` given to the script it runs, are values of the walker
/// that uses it; a walker given a variable with no value anywhere (a
/// script's argument) names every file. 22lb (legitimate) stays bounded.
#[test]
fn an_exported_variable_is_a_value_of_every_walker() {
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    let task = tasks("run-parts \\\"$HOOKS\\\"");
    for env in [
        vec![(".envrc", "export HOOKS=tools/hooks\n")],
        vec![(".envrc", "dotenv\n"), (".env", "HOOKS=tools/hooks\n")],
    ] {
        let mut tree = with_task(&task, &[hook, X]);
        tree.extend(env);
        let r = named(&tree);
        assert!(r.names("lib/x.py"), "{tree:?}");
        assert!(!r.names("src/server.py"), "22lb: everything named");
    }
    let inherited =
        r#"{"tasks":[{"command":"bash tools/run.sh","options":{"env":{"HOOKS":"tools/hooks"}}}]}"#;
    let r = named(&[
        (".vscode/tasks.json", inherited),
        ("tools/run.sh", "run-parts \"$HOOKS\"\n"),
        hook,
        X,
    ]);
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));

    let task = tasks("bash tools/run.sh tools/hooks");
    for body in ["run-parts \"$1\"\necho done\n", "run-parts \"$HOOKS\"\n"] {
        let r = named(&with_task(&task, &[("tools/run.sh", body), hook, X]));
        assert!(r.names("lib/x.py"), "{body}");
    }
    // A variable that only leads a path is no walker's whole operand.
    let task = tasks("run-parts $PWD/tools/hooks");
    let r = named(&with_task(&task, &[hook, X]));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));
}

/// Round 21's 01b: a workspace named by its directory (not a glob) names
/// every file below it, as the glob does.
#[test]
fn a_workspace_listed_by_name_names_its_files() {
    let task = tasks("npm run dev");
    let r = named(&with_task(
        &task,
        &[
            (
                "package.json",
                r#"{"name":"acme","workspaces":["packages/utils","apps/web"],"scripts":{"dev":"node apps/web/server.js"}}"#,
            ),
            ("apps/web/server.js", "require(\"@acme/utils\");\n"),
            ("packages/utils/index.js", "module.exports = 1;\n"),
        ],
    ));
    assert!(r.names("packages/utils/index.js"));
    assert!(!r.names("src/lib.rs"));
}

/// A path inside a list literal (`subprocess.run(["python3",
/// "lib/x.py"])`) is a name: a bracket no bracket expression closes cuts
/// the word (round 22, found while closing 22a).
#[test]
fn a_path_in_a_list_literal_is_named() {
    let task = tasks("python3 tools/gen.py");
    let r = named(&with_task(
        &task,
        &[
            (
                "tools/gen.py",
                "import subprocess\nsubprocess.run([\"python3\", \"lib/x.py\"])\n",
            ),
            X,
        ],
    ));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/lib.rs"));
}

/// Red team round 23, against the fixes above: a module past the reads
/// that imports a sibling which runs a file outside (23a), a relative
/// chain whose fifth module imports a file outside (23a2), a directory a
/// module beyond names as a word (23b2), a walker's variable given by a
/// sourced file while the task assigns another (23c, 23c2), or computed
/// (23c3), and a directory's files run through `ls` (23d, 23d3): each
/// names the edited file now.
#[test]
fn v12_names_what_round_23_found() {
    let chain = [
        ("tools/gen.py", "import a\na.main()\n"),
        ("tools/a.py", "import b\ndef main():\n    b.main()\n"),
        ("tools/b.py", "import c\ndef main():\n    c.main()\n"),
    ];
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "python3 tools/gen.py",
            vec![
                ("tools/c.py", "import d\ndef main():\n    d.main()\n"),
                (
                    "tools/d.py",
                    "import subprocess, sys\ndef main():\n    subprocess.run([sys.executable, \"lib/x.py\"])\n",
                ),
            ],
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
            ],
        ),
        (
            "python3 tools/gen.py",
            vec![(
                "tools/c.py",
                "import os, subprocess, sys\ndef main():\n    subprocess.run([sys.executable, os.path.join(\\\"lib\\\", \\\"x.py\\\")])\n",
            )],
        ),
        (
            "MODE=ci; set -a; . tools/vars; set +a; run-parts \\\"$HOOKS\\\"",
            vec![("tools/vars", "HOOKS=tools/hooks\n"), hook],
        ),
        (
            "MODE=ci; HOOKS=$(cat tools/hooks.txt); run-parts \\\"$HOOKS\\\"",
            vec![("tools/hooks.txt", "tools/hooks\n"), hook],
        ),
        ("ls tools/hooks | xargs -I{} sh tools/hooks/{}", vec![hook]),
        (
            "for f in $(ls tools/hooks); do sh tools/hooks/$f; done",
            vec![hook],
        ),
    ];
    for (command, files) in cases {
        let task = tasks(command);
        let mut tree = with_task(&task, &chain);
        tree.extend(files);
        tree.push(X);
        assert!(named(&tree).names("lib/x.py"), "{command}");
    }
    let task = tasks("run-parts \\\"$HOOKS\\\"");
    let mut tree = with_task(&task, &[hook, X]);
    tree.extend([
        (
            ".envrc",
            "export PYTHONDONTWRITEBYTECODE=1\nsource_env tools/vars.sh\n",
        ),
        ("tools/vars.sh", "export HOOKS=tools/hooks\n"),
    ]);
    let r = named(&tree);
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));
}

/// Round 23's false positives: a service whose fourth module imports a
/// shared package (23la), and `find` given a script's argument that runs
/// nothing it finds (23lb, 23lb2): other edits stay unnamed.
#[test]
fn round_23s_legitimate_flows_name_only_what_they_run() {
    let task = tasks("python3 -m app.main");
    let r = named(&with_task(
        &task,
        &[
            ("app/__init__.py", ""),
            ("common/__init__.py", ""),
            ("app/main.py", "from .a import run\nrun()\n"),
            ("app/a.py", "from .b import run\n"),
            ("app/b.py", "from .c import run\n"),
            (
                "app/c.py",
                "from common.util import helper\ndef run():\n    helper()\n",
            ),
            ("common/util.py", "def helper():\n    print(\"ok\")\n"),
        ],
    ));
    assert!(r.names("common/util.py"));
    assert!(!r.names("web/app.js"));
    for (command, script) in [
        (
            "sh tools/clean.sh build",
            "find \"$1\" -name \"*.orig\" -delete\n",
        ),
        (
            "sh tools/check.sh build",
            "find \"$@\" -maxdepth 0 -newer .git -print\n",
        ),
    ] {
        let task = tasks(command);
        let file = command.split(' ').nth(1).unwrap();
        let r = named(&with_task(&task, &[(file, script)]));
        assert!(r.names(file));
        assert!(!r.names("src/server.py"), "{command}");
    }
}

/// Red team round 24, against round 23's fixes: a variable given its
/// value by `read`, `printf -v` or `+=` beside a literal one (24wa2,
/// 24wa10, 24wa3), an expansion that changes its value (24wa4, 24wa5,
/// 24wa15), a glob as a loop's value (24wa8), and a directory's files run
/// through `$(basename ...)`, `xargs sh`, `cd` and `./*`, or a script
/// that lists the directory (24ga, 24ga2, 24ga3, 24ga4, 24ga7, 24ga8):
/// each names the hook and what it runs now.
#[test]
fn v12_names_what_round_24_found() {
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    let safe = ("tools/safe/a", "echo safe\n");
    let shell: Vec<&str> = vec![
        "HOOKS=tools/safe; read -r HOOKS < tools/hooks.txt; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; printf -v HOOKS %s tools/hooks; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools; HOOKS+=/hooks; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; run-parts \\\"${HOOKS/safe/hooks}\\\"",
        "HOOKS=_tools/hooks; run-parts \\\"${HOOKS#_}\\\"",
        "HOOKS=tools/hooksX; run-parts \\\"${HOOKS:0:11}\\\"",
        "for D in tools/*; do run-parts \\\"$D\\\"; done",
        "for f in $(ls tools/hooks); do sh tools/hooks/$(basename $f); done",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 sh",
        "cd tools/hooks && for f in *; do sh \\\"./$f\\\"; done",
    ];
    for command in shell {
        let task = tasks(command);
        let r = named(&with_task(
            &task,
            &[hook, safe, ("tools/hooks.txt", "tools/hooks\n"), X],
        ));
        assert!(r.names("tools/hooks/a"), "{command}");
        assert!(r.names("lib/x.py"), "{command}");
    }
    for (command, file, script) in [
        (
            "python3 tools/gen.py",
            "tools/gen.py",
            "import os, subprocess\nfor n in sorted(os.listdir(\"tools/hooks\")):\n    subprocess.run([\"sh\", f\"tools/hooks/{n}\"])\n",
        ),
        (
            "node tools/gen.js",
            "tools/gen.js",
            "const fs = require(\"fs\"), cp = require(\"child_process\"), path = require(\"path\");\nfor (const f of fs.readdirSync(\"tools/hooks\")) cp.execFileSync(\"sh\", [path.join(\"tools/hooks\", f)]);\n",
        ),
        (
            "python3 tools/gen.py",
            "tools/gen.py",
            "import os, subprocess\nfor n in os.listdir(\"tools/hooks\"):\n    subprocess.run([\"sh\", \"tools/hooks/\" + n])\n",
        ),
    ] {
        let task = tasks(command);
        let r = named(&with_task(&task, &[(file, script), hook, X]));
        assert!(r.names("lib/x.py"), "{script}");
        assert!(!r.names("src/server.py"), "{script}: everything named");
    }
}

/// Round 24's false positive (24la2): a router importing 300 handlers at
/// one step crossed the per-step bound; imported modules are bounded over
/// every step instead. A default expansion of a variable no file assigns
/// walks the default alone (round 21's 02c stays bounded).
#[test]
fn round_24s_legitimate_flows_name_only_what_they_run() {
    let task = tasks("python3 -m app.main");
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
    let mut tree = with_task(
        &task,
        &[
            ("app/__init__.py", ""),
            ("app/handlers/__init__.py", ""),
            ("app/main.py", main.as_str()),
        ],
    );
    tree.extend(handlers.iter().map(|(p, b)| (p.as_str(), b.as_str())));
    let r = named(&tree);
    assert!(r.names("app/handlers/h7.py"));
    assert!(!r.names("web/app.js"));

    let task = tasks("run-parts \\\"${HOOKS:-tools/hooks}\\\"");
    let r = named(&with_task(
        &task,
        &[("tools/hooks/a", "python3 lib/x.py\n"), X],
    ));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));
}

/// Red team round 25, against round 24's fixes: a variable read, printed
/// or mapped into with its name glued to a redirection or an option
/// (25wa, 25wa2, 25wa3, 25wa8), `xargs` with an option's value or a
/// wrapper before the shell (25xa, 25xa2), `find` tests that match a
/// directory, exclude or are a regex (25fa, 25fa2, 25fa3), and scripts
/// that list with `ls` or run with `spawnv` or `require` (25ga, 25ga2,
/// 25ga5, 25ga6): each names what the hook runs now.
#[test]
fn v12_names_what_round_25_found() {
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    let safe = ("tools/safe/a", "echo safe\n");
    for command in [
        "HOOKS=tools/safe; read -r HOOKS<tools/hooks.txt; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; read -r HOOKS<<<tools/hooks; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; printf -vHOOKS %s tools/hooks; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; mapfile -t HOOKS<<<tools/hooks; run-parts \\\"$HOOKS\\\"",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n 1 sh",
        "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 env sh",
        "find tools -name hooks -type d -exec run-parts {} \\\\;",
        "find tools/hooks -type f ! -name '*.md' -exec sh {} \\\\;",
        "find tools -regex '.*/hooks/.*' -exec sh {} \\\\;",
    ] {
        let task = tasks(command);
        let r = named(&with_task(
            &task,
            &[hook, safe, ("tools/hooks.txt", "tools/hooks\n"), X],
        ));
        assert!(r.names("lib/x.py"), "{command}");
    }
    for (command, file, script) in [
        (
            "python3 tools/gen.py",
            "tools/gen.py",
            "import os\nfor n in os.popen(\"ls tools/hooks\").read().split():\n    os.popen(\"sh tools/hooks/\" + n)\n",
        ),
        (
            "python3 tools/gen.py",
            "tools/gen.py",
            "import os\nfor n in os.listdir(\"tools/hooks\"):\n    os.spawnv(os.P_WAIT, \"/bin/sh\", [\"sh\", \"tools/hooks/\" + n])\n",
        ),
        (
            "node tools/gen.js",
            "tools/gen.js",
            "const fs = require(\"fs\");\nfor (const f of fs.readdirSync(\"tools/hooks\")) require(\"./hooks/\" + f);\n",
        ),
        (
            "perl tools/gen.pl",
            "tools/gen.pl",
            "for (split /\\n/, `ls tools/hooks`) { system(\"sh\", \"tools/hooks/\" . $_); }\n",
        ),
    ] {
        let task = tasks(command);
        let r = named(&with_task(&task, &[(file, script), hook, X]));
        assert!(r.names("lib/x.py"), "{script}");
        assert!(!r.names("src/server.py"), "{script}: everything named");
    }
}

/// Round 25's false positives: a variable's name in an `echo` beside a
/// literal value (25la), and a syntax check given files by `xargs`
/// (25la6): other edits stay unnamed.
#[test]
fn round_25s_legitimate_flows_name_only_what_they_run() {
    let task = tasks("sh tools/run.sh");
    let r = named(&with_task(
        &task,
        &[
            (
                "tools/run.sh",
                "hooks=tools/hooks\necho \"running hooks\"\nrun-parts \"$hooks\"\n",
            ),
            ("tools/hooks/a", "python3 lib/x.py\n"),
            X,
        ],
    ));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));
    let r = named(&with_task(
        &tasks("git ls-files -z '*.sh' | xargs -0 bash -n"),
        &[],
    ));
    assert!(!r.names("src/server.py"));
}

/// Red team round 26, against round 25's fixes: an array assignment or
/// a name given by a value beside a literal one (26wa2, 26wa4, 26wa6),
/// `xargs` reading options as written, wrappers' own option values and
/// `xargs run-parts` (26xa2, 26xa3, 26xa5, 26xa6), `find` running a
/// directory a name test matches, a path test and a test after the
/// action (26fa, 26fa2, 26fa3), and more listing and running words
/// (26ga2, 26ga3, 26ga6): each names what the hook runs now.
#[test]
fn v12_names_what_round_26_found() {
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    let safe = ("tools/safe/a", "echo safe\n");
    let pre = "ls tools/hooks | sed 's|^|tools/hooks/|'";
    let xargs: Vec<String> = [
        "xargs -l sh",
        "xargs -n1 stdbuf -o L sh",
        "xargs -n1 env -u CI sh",
    ]
    .iter()
    .map(|x| format!("{pre} | {x}"))
    .collect();
    let mut commands: Vec<&str> = vec![
        "HOOKS=tools/safe; HOOKS=(tools/hooks); run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; N=HOOKS; eval \\\"$N=tools/hooks\\\"; run-parts \\\"$HOOKS\\\"",
        "HOOKS=tools/safe; N=HOOKS; printf -v \\\"$N\\\" %s tools/hooks; run-parts \\\"$HOOKS\\\"",
        "echo tools/hooks | xargs run-parts",
        "find tools -name hooks -exec run-parts {} \\\\;",
        "find tools -path '*/hooks/*' -exec sh {} \\\\;",
        "find tools/hooks -type f -exec sh {} \\\\; -name '*.md'",
    ];
    commands.extend(xargs.iter().map(String::as_str));
    for command in commands {
        let task = tasks(command);
        let r = named(&with_task(&task, &[hook, safe, X]));
        assert!(r.names("lib/x.py"), "{command}");
    }
    // What `find` prints or copies may run after it (found in review).
    for command in [
        "find . -name '*.sh' -exec cat {} + | sh",
        "find . -name '*.sh' -exec cp {} bin/ \\; && run-parts bin",
    ] {
        let r = named(&with_task(&tasks(command), &[hook, X]));
        assert!(r.names("lib/x.py"), "{command}");
    }
    for script in [
        "import os, subprocess\nfor d, _, fs, _ in os.fwalk(\"tools/hooks\"):\n    for f in fs:\n        subprocess.run([\"sh\", d + \"/\" + f])\n",
        "import os\nfor n in os.listdir(\"tools/hooks\"):\n    os.posix_spawn(\"/bin/sh\", [\"sh\", \"tools/hooks/\" + n], {})\n",
    ] {
        let task = tasks("python3 tools/gen.py");
        let r = named(&with_task(&task, &[("tools/gen.py", script), hook, X]));
        assert!(r.names("lib/x.py"), "{script}");
    }
}

/// Round 26's false positives: `find` with a negated path test, with
/// alternatives, or removing and checking what it finds (26la2, 26la2b,
/// 26la6), and `xargs` giving files to a linter module or a syntax check
/// (26la3, 26la3b): other edits stay unnamed.
#[test]
fn round_26s_legitimate_flows_name_only_what_they_run() {
    for command in [
        "find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\\\;",
        "find . \\\\( -name a.sh -o -name b.sh \\\\) -exec bash {} \\\\;",
        "find . \\\\( -name '*.pyc' -o -name __pycache__ \\\\) -prune -exec rm -rf {} +",
        "find . -name '*.sh' ! -path './.git/*' | xargs shellcheck",
        "git ls-files | xargs python3 -m flake8",
        "git ls-files -z '*.js' | xargs -0 node --check",
        "find . \\( -name '*.pyc' -o -name __pycache__ \\) -prune -exec rm -rf {} + && git ls-files | xargs python3 -m flake8",
    ] {
        let r = named(&with_task(&tasks(command), &[]));
        assert!(!r.names("src/server.py"), "{command}");
    }
}

/// Red team round 27's holes closed within v12: a glob after a variable
/// (`"$HOOKS"/*.sh`) walks each literal value's directory, and one
/// whose variable has none (a function's argument, a value computed at
/// run time) names every file (27va, 27va2, 27va3); a one-word `-m`
/// module the tree holds is read in turn (27pa, 27pa2).
#[test]
fn v12_names_what_round_27_found() {
    let hook = ("tools/hooks/a.sh", "python3 lib/x.py\n");
    for command in [
        "HOOKS=tools/hooks; for f in \\\"$HOOKS\\\"/*.sh; do sh \\\"$f\\\"; done",
        "run_all() { for f in \\\"$1\\\"/*.sh; do sh \\\"$f\\\"; done; }; run_all tools/hooks",
        "D=$(pwd)/tools/hooks; for f in \\\"$D\\\"/*.sh; do sh \\\"$f\\\"; done",
    ] {
        let r = named(&with_task(&tasks(command), &[hook, X]));
        assert!(r.names("lib/x.py"), "{command}");
    }
    let envrc = "ENVD=tools/env.d\nfor f in \"$ENVD\"/*.sh; do . \"$f\"; done\n";
    let r = named(&[
        (".envrc", envrc),
        ("tools/env.d/a.sh", "python3 lib/x.py\n"),
        X,
    ]);
    assert!(r.names("lib/x.py"), "{envrc}");

    let devtools = ("devtools.py", "from lib import x\n");
    let x = ("lib/x.py", "print(1)\n");
    let init = ("lib/__init__.py", "");
    let r = named(&with_task(
        &tasks("python3 -m devtools"),
        &[devtools, x, init],
    ));
    assert!(r.names("lib/x.py"), "python3 -m devtools");
    let pre_commit = "repos:\n- repo: local\n  hooks:\n  - id: s\n    name: s\n    language: system\n    entry: python3 -m scripts\n";
    let r = named(&[
        (".pre-commit-config.yaml", pre_commit),
        (
            "scripts/__main__.py",
            "import subprocess\nsubprocess.run([\"python3\", \"lib/x.py\"])\n",
        ),
        X,
    ]);
    assert!(r.names("lib/x.py"), "pre-commit python3 -m scripts");

    // 27ma, 27ma2: a variable holding several directories, each a
    // directory the file's commands may run in (a recursive `make`).
    let plugins = ("plugins/Makefile", "all:\n\tpython3 ../lib/x.py\n");
    let core = ("core/Makefile", "all:\n\techo core\n");
    let makefile = "SUBDIRS = core plugins\nall:\n\tfor d in $(SUBDIRS); do $(MAKE) -C $$d; done\n";
    let r = named(&with_task(
        &tasks("make"),
        &[("Makefile", makefile), core, plugins, X],
    ));
    assert!(r.names("lib/x.py"), "{makefile}");
    let script = "DIRS=\"core plugins\"\nfor d in $DIRS; do make -C \"$d\"; done\n";
    let r = named(&with_task(
        &tasks("sh tools/build-all.sh"),
        &[("tools/build-all.sh", script), core, plugins, X],
    ));
    assert!(r.names("lib/x.py"), "{script}");
}

/// Beside round 27's fixes: a glob after a variable no file assigns (the
/// workspace, the environment) is read from the root as before, and a
/// one-word module the tree does not hold reads nothing.
#[test]
fn round_27s_legitimate_flows_name_only_what_they_run() {
    for command in [
        "eslint \\\"${workspaceFolder}\\\"/src/*.js",
        "for f in \\\"$HOME\\\"/notes/*.md; do cat \\\"$f\\\"; done",
        "python3 -m unittest discover -s tests && python3 -m black --check src",
    ] {
        let r = named(&with_task(
            &tasks(command),
            &[("tools/gen.py", "print(1)\n"), X],
        ));
        assert!(!r.names("lib/x.py"), "{command}");
        assert!(!r.names("tools/gen.py"), "{command}");
    }
}

/// Found by the `risk_follow` fuzz target: a file read in turn that the
/// ports could not read whole may run anything and assign any variable,
/// so every file is named. Before, a file that used `D` bare made `D`
/// unknown when read whole (every file named), and cut short it was left
/// out of the variables, so `D` kept its one literal value and the tier
/// fell.
#[test]
fn a_file_cut_short_names_every_file() {
    let tree = [
        (".envrc", "source tools/run\n"),
        (
            "tools/run",
            "D=tools; for f in \"$D\"/*.x; do sh \"$f\"; done\n",
        ),
        ("tools/a.sh", "D d\n"),
        X,
    ];
    let policy = RiskPolicy::newest();
    let rule = policy.references_followed.as_ref().unwrap();
    let mut read = ports_read(&tree);
    let whole = follow(&read, policy.reference_configs(), rule, rule.last_step()).0;
    for c in &mut read {
        if c.path.as_str() == "tools/a.sh"
            && let CandidateContent::Bytes { complete, .. } = &mut c.content
        {
            *complete = false;
        }
    }
    let cut = follow(&read, policy.reference_configs(), rule, rule.last_step()).0;
    assert!(!whole.names("lib/x.py") || cut.names("lib/x.py"));
    assert!(
        cut.names("lib/x.py"),
        "cut short, tools/a.sh may assign D anything"
    );
}

/// Found in the final read: a walker given a variable computed at run
/// time followed by a path (`run-parts "$D"/hooks`) may walk any
/// directory, as a glob after such a variable does (27va2); before, only
/// the tail was walked, from the root. And a variable holding several
/// words (`DIRS="tools/safe tools/hooks"`) gives a walker each of them,
/// not the first only (27ma's values, per name).
#[test]
fn a_walkers_variable_is_read_as_a_globs_is() {
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    for command in [
        "D=$(cd tools && pwd); run-parts \\\"$D\\\"/hooks",
        "D=$(git rev-parse --show-toplevel)/tools; run-parts \\\"$D\\\"/hooks",
        "D=$(dirname $PWD/x)/tools; H=hooks; run-parts \\\"$D\\\"/$H",
        "DIRS=\\\"tools/safe tools/hooks\\\"; for d in $DIRS; do run-parts $d; done",
        "DIRS=\\\"tools/safe tools/hooks\\\"; run-parts $DIRS",
    ] {
        let r = named(&with_task(&tasks(command), &[hook, X]));
        assert!(r.names("lib/x.py"), "{command}");
    }
    let makefile =
        "HOOKS = tools/safe tools/hooks\nall:\n\tfor d in $(HOOKS); do run-parts $$d; done\n";
    let r = named(&with_task(
        &tasks("make"),
        &[("Makefile", makefile), hook, X],
    ));
    assert!(r.names("lib/x.py"), "{makefile}");
    // The values given in another file (an `.envrc`'s export).
    let r = named(&[
        (".envrc", "export HOOKS=\"tools/safe tools/hooks\"\n"),
        (
            ".vscode/tasks.json",
            &task_of("for d in $HOOKS; do run-parts $d; done"),
        ),
        hook,
        X,
    ]);
    assert!(r.names("lib/x.py"), "an .envrc's HOOKS, a loop over it");
    let r = named(&[
        (".envrc", "export HOOKS=\"tools/safe tools/hooks\"\n"),
        (".vscode/tasks.json", &task_of("run-parts $HOOKS")),
        hook,
        X,
    ]);
    assert!(r.names("lib/x.py"), "an .envrc's HOOKS");
    // The workspace's variable, unassigned, is the root: no other file.
    let r = named(&with_task(
        &tasks("run-parts \\\"${workspaceFolder}\\\"/tools/hooks"),
        &[hook, X, ("src/server.py", "print(1)\n")],
    ));
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/server.py"));
}

mod given;
mod keys;
mod linked;
mod matching;
