use super::*;
use crate::review::fixtures::run_config as config;

/// [`super::follow`] over trees without links.
fn follow(
    configs: &[RunConfig],
    names: &[String],
    rule: &FollowRule,
    reads: u8,
) -> (References, Vec<String>) {
    super::follow(configs, names, rule, reads, Reach::none())
}

fn rule() -> FollowRule {
    FollowRule {
        reads: 3,
        files_per_read: 64,
        structural: None,
    }
}

fn names() -> Vec<String> {
    vec![
        ".vscode/tasks.json".into(),
        ".pre-commit-config.yaml".into(),
        ".envrc".into(),
    ]
}

const TASKS: &str = r#"{"version":"2.0.0","tasks":[
  {"label":"b","command":"python3 build.py","options":{"cwd":"${workspaceFolder}/tools"}},
  {"label":"m","command":"make","args":["-C","web","dev"]},
  {"label":"n","command":"npm","args":["run","dev"]},
  {"label":"p","command":"python3 -m pkg.cli"}
]}"#;

#[test]
fn a_task_names_from_its_cwd_and_what_its_tools_read() {
    let configs = [config(".vscode/tasks.json", TASKS)];
    let (r, next) = follow(&configs, &names(), &rule(), 0);
    for p in [
        "tools/build.py",
        "build.py",
        "web/makefile",
        "makefile",
        "package.json",
        "tools/package.json",
        "pkg/cli.py",
        "pkg/cli/__main__.py",
        "pkg/__init__.py",
    ] {
        assert!(r.names(p), "{p}");
    }
    assert!(!r.names("src/lib.rs"));
    assert!(!r.names("tools/other.py"));
    // The Makefiles and package.json files are read next; a Python
    // file is named, not read.
    for p in ["web/Makefile", "Makefile", "GNUmakefile", "package.json"] {
        assert!(next.iter().any(|n| n == p), "{p} in {next:?}");
    }
    assert!(!next.iter().any(|n| n.ends_with(".py")), "{next:?}");
}

#[test]
fn what_a_read_file_runs_is_named_in_turn() {
    let configs = [
        config(".vscode/tasks.json", TASKS),
        config(
            "web/Makefile",
            "dev:\n\t@cd sub && ./run.sh\n\t-$(MAKE) -f extra.mk\n",
        ),
        config("package.json", r#"{"scripts":{"dev":"bash scripts/dev"}}"#),
        config("scripts/dev", "echo no shebang: not followed; x/y.sh\n"),
        config("web/sub/run.sh", "source ./env.sh\n"),
        config("web/extra.mk", "all:\n\tsh gen/go\n"),
    ];
    let (r, _) = follow(&configs, &names(), &rule(), 3);
    for p in [
        "web/sub/run.sh",
        "scripts/dev",
        "web/extra.mk",
        "web/sub/env.sh",
        "web/gen/go",
    ] {
        assert!(r.names(p), "{p}");
    }
    // `scripts/dev` was named by `bash`, so it is read as a script.
    assert!(r.names("x/y.sh"));
    // One read fewer: what the recipe's script sources is not named.
    let (short, next) = follow(&configs, &names(), &rule(), 1);
    assert!(short.names("web/sub/run.sh"));
    assert!(!short.names("web/sub/env.sh"));
    assert!(next.iter().any(|n| n == "web/sub/run.sh"), "{next:?}");
}

/// A shell runs a file without `#!` as a script too (ENOEXEC), so a
/// path without an extension is followed either way (red team round
/// 17, 02e2).
#[test]
fn a_file_named_by_path_alone_is_followed_with_or_without_a_shebang() {
    let tasks = r#"{"tasks":[{"command":"./bin/dev"}]}"#;
    for body in ["#!/bin/sh\n./lib/x\n", "./lib/x\n"] {
        let configs = [config(".vscode/tasks.json", tasks), config("bin/dev", body)];
        let (r, _) = follow(&configs, &names(), &rule(), 3);
        assert!(r.names("bin/dev"));
        assert!(r.names("lib/x"), "{body}");
    }
}

/// Red team round 17's 02: each way a task ran a file v11 did not
/// follow, named now.
#[test]
fn what_round_17_found_unfollowed_is_named() {
    let task = |command: &str| format!(r#"{{"tasks":[{{"command":"{command}"}}]}}"#);
    for (command, files, edited) in [
        // Glued options.
        ("make -ftools/build.mk", vec![], "tools/build.mk"),
        ("make -Ctools", vec![], "tools/makefile"),
        // A `cd` in the task's own command.
        ("cd tools && python3 gen.py", vec![], "tools/gen.py"),
        // A path after a variable, its value assigned in the script.
        (
            "sh tools/a.sh",
            vec![("tools/a.sh", "D=tools; . \"${D}/env\"\n")],
            "tools/env",
        ),
        (
            "make",
            vec![("Makefile", "D := tools\ninclude $(D)/rules.mk\n")],
            "tools/rules.mk",
        ),
        (
            "make",
            vec![
                ("Makefile", "D := tools\ninclude $(D)/rules.mk\n"),
                ("tools/rules.mk", "all:\n\tpython3 tools/step.py\n"),
            ],
            "tools/step.py",
        ),
        // An option between the shell and the file; no `#!` line.
        (
            "bash -e tools/run",
            vec![("tools/run", "python3 tools/step.py\n")],
            "tools/step.py",
        ),
        // Workspaces.
        (
            "npm run dev -w packages/a",
            vec![],
            "packages/a/package.json",
        ),
        (
            "npm run dev --workspaces",
            vec![],
            "packages/z/package.json",
        ),
        // Tools' default files.
        ("task", vec![], "taskfile.yml"),
        ("rake", vec![], "rakefile"),
        ("tox", vec![], "tox.ini"),
        ("deno task dev", vec![], "deno.json"),
        ("python3 -m pytest -q", vec![], "tests/unit/conftest.py"),
        ("invoke build", vec![], "tasks.py"),
        // Round 18: a `cd` with a variable, past `--`; `env
        // --chdir`; `make -I`.
        (
            "cd ${workspaceFolder}/tools && python3 gen.py",
            vec![],
            "tools/gen.py",
        ),
        ("cd -- tools && python3 gen.py", vec![], "tools/gen.py"),
        ("env --chdir=tools python3 gen.py", vec![], "tools/gen.py"),
        (
            "make -I tools",
            vec![("Makefile", "include rules.mk\n")],
            "tools/rules.mk",
        ),
    ] {
        let mut configs = vec![config(".vscode/tasks.json", &task(command))];
        configs.extend(files.iter().map(|(p, b)| config(p, b)));
        let (r, _) = follow(&configs, &names(), &rule(), 3);
        assert!(r.names(edited), "{command}: {edited}");
        assert!(!r.names("src/lib.rs"), "{command}: everything named");
    }
}

/// A file the trees hold one step beyond the last read runs what no
/// read followed: every changed file may be one it runs (red team
/// round 17, 02f2: a chain deeper than the reads).
#[test]
fn a_chain_deeper_than_the_reads_names_everything() {
    let tasks = r#"{"tasks":[{"command":"./t/1"}]}"#;
    let chain = |n: usize| {
        let mut c = vec![config(".vscode/tasks.json", tasks)];
        for i in 1..=n {
            c.push(config(&format!("t/{i}"), &format!("./t/{}\n", i + 1)));
        }
        c
    };
    // Reads t/1, t/2, t/3; t/4 is named (held or not).
    let (short, _) = follow(&chain(3), &names(), &rule(), 3);
    assert!(short.names("t/4"));
    assert!(!short.names("src/lib.rs"));
    // t/4 held: what it runs was never read.
    let (deep, _) = follow(&chain(4), &names(), &rule(), 3);
    assert!(deep.names("t/6"));
    assert!(deep.names("src/lib.rs"));
}

#[test]
fn too_many_files_to_read_at_one_step_name_everything() {
    let many: Vec<String> = (0..9).map(|i| format!("\"s{i}.sh\"")).collect();
    let tasks = format!(r#"{{"tasks":[{{"args":[{}]}}]}}"#, many.join(","));
    let configs = [config(".vscode/tasks.json", &tasks)];
    let at_most = |files_per_read| FollowRule {
        reads: 3,
        files_per_read,
        structural: None,
    };
    let (r, _) = follow(&configs, &names(), &at_most(8), 3);
    assert!(r.names("src/anything.rs"));
    let (few, _) = follow(&configs, &names(), &at_most(9), 3);
    assert!(!few.names("src/anything.rs"));
}

#[test]
fn a_read_file_longer_than_was_read_names_everything() {
    let mut long = config("Makefile", "dev:\n");
    long.content = CandidateContent::Bytes {
        bytes: b"dev:\n".to_vec(),
        complete: false,
    };
    let configs = [
        config(".vscode/tasks.json", r#"{"tasks":[{"command":"make"}]}"#),
        long,
    ];
    let (r, _) = follow(&configs, &names(), &rule(), 3);
    assert!(r.names("src/lib.rs"));
}

/// The step v12's classification follows to.
const LAST: u8 = 3 + MODULE_STEPS;

fn v12() -> FollowRule {
    FollowRule {
        reads: 3,
        files_per_read: 128,
        structural: Some(StructuralRule {
            names_per_read: 4096,
        }),
    }
}

/// A task document, the files it runs, and the edited file to be named.
type Case<'a> = (String, Vec<(&'a str, &'a str)>, &'a str);

/// Red team round 18: each shape v11 left unnamed (a directory run whole,
/// a glob or a variable inside a name, `PATH`, lists and manifests not
/// read, package runners, tools' configurations, test discovery, a module
/// shadowing the standard library), named by v12's structure; v11 leaves
/// each unnamed. Nothing else is named.
#[test]
fn v12_names_what_round_18_found_by_its_shape() {
    let task = |command: &str| format!(r#"{{"tasks":[{{"label":"test","command":"{command}"}}]}}"#);
    let env_task = r#"{"tasks":[{"command":"make","options":{"env":{"PATH":"${workspaceFolder}/tools/bin:${env:PATH}"}}}]}"#;
    let cases: Vec<Case> = vec![
        (
            task("make"),
            vec![("Makefile", "include tools/*.mk\n")],
            "tools/rules.mk",
        ),
        (
            task("make"),
            vec![("Makefile", "N := step\nall:\n\tpython3 tools/$(N).py\n")],
            "tools/step.py",
        ),
        (task("run-parts tools/hooks"), vec![], "tools/hooks/a"),
        (
            task("find tools -name '*.py' -exec python3 {} ;"),
            vec![],
            "tools/gen.py",
        ),
        (task("python3 tools"), vec![], "tools/__main__.py"),
        (task("node ."), vec![], "index.js"),
        (task("npm start"), vec![], "server.js"),
        (
            task("for f in tools/step*.py; do python3 $f; done"),
            vec![],
            "tools/step1.py",
        ),
        (
            task("xargs -a tools/list.txt -n1 python3"),
            vec![("tools/list.txt", "tools/step.py\n")],
            "tools/step.py",
        ),
        (env_task.to_string(), vec![], "tools/bin/make"),
        (
            task("poetry run dev"),
            vec![(
                "pyproject.toml",
                "[tool.poetry.scripts]\ndev = \"pkg.cli:main\"\n",
            )],
            "pkg/cli.py",
        ),
        (
            task("npx gen"),
            vec![("package.json", r#"{"bin":{"gen":"tools/gen.js"}}"#)],
            "tools/gen.js",
        ),
        (
            task("tools\\\\run.cmd"),
            vec![("tools/run.cmd", "python tools\\gen.py\r\n")],
            "tools/gen.py",
        ),
        (
            task("pwsh -File tools/run.ps1"),
            vec![("tools/run.ps1", "python tools/gen.py\n")],
            "tools/gen.py",
        ),
        (
            task("bash tools/run"),
            vec![("tools/run", "for f in tools/env.d/*; do . \"$f\"; done\n")],
            "tools/env.d/a",
        ),
        (task("python3 -m unittest"), vec![], "tests/test_x.py"),
        (task("python3 -m pytest -q"), vec![], "tests/unit/test_x.py"),
        (
            task("python3 tools/build.py"),
            vec![("tools/build.py", "import json\nprint(json.dumps({}))\n")],
            "tools/json.py",
        ),
        (
            task("npm run dev"),
            vec![("package.json", r#"{"scripts":{"dev":"vite"}}"#)],
            "vite.config.ts",
        ),
    ];
    for (tasks, files, edited) in cases {
        let mut configs = vec![config(".vscode/tasks.json", &tasks)];
        configs.extend(files.iter().map(|(p, b)| config(p, b)));
        let configs = ported(configs);
        let (r, _) = follow(&configs, &names(), &v12(), LAST);
        assert!(r.names(edited), "{tasks}: {edited}");
        let (old, _) = follow(&configs, &names(), &rule(), 3);
        assert!(!old.names(edited), "v11 already names {edited}: {tasks}");
        if tasks.contains("node .") {
            // The root given to a runtime: every file.
            assert!(r.names("src/lib.rs"), "{tasks}");
            continue;
        }
        assert!(!r.names("src/lib.rs"), "{tasks}: everything named");
        // A label names a file, never what is below it.
        assert!(!r.names("test/x.rs"), "{tasks}");
    }
}

/// The same `.envrc` shape: `export PATH="$PWD/tools/bin:$PATH"`.
#[test]
fn v12_takes_a_path_entry_for_a_directory() {
    let configs = [config(
        ".envrc",
        "export PATH=\"$PWD/tools/bin:$PATH\"\ngit config core.x y\n",
    )];
    let (r, _) = follow(&configs, &names(), &v12(), LAST);
    assert!(r.names("tools/bin/git"));
    assert!(!r.names("src/lib.rs"));
}

/// Round 18's false positive (02c): a followed `package.json` with many
/// dependencies named more files than a step reads, so every change was
/// named. v12 counts the files the trees hold; the names cost lookups.
#[test]
fn v12_bounds_the_files_the_trees_hold_not_the_names() {
    let deps: Vec<String> = (0..300)
        .map(|i| format!("\"@acme/pkg-{i}\":\"^1.0.0\""))
        .collect();
    let manifest = format!(
        r#"{{"scripts":{{"dev":"vite"}},"dependencies":{{{}}}}}"#,
        deps.join(",")
    );
    let configs = [
        config(".vscode/tasks.json", &task_of("npm run dev")),
        config("package.json", &manifest),
    ];
    let (v11, _) = follow(&configs, &names(), &rule(), 3);
    assert!(v11.names("src/parser.rs"), "v11 counts names");
    let (r, _) = follow(&configs, &names(), &v12(), LAST);
    assert!(!r.names("src/parser.rs"));
    // More held files at one step than the rule reads: every file.
    let many: Vec<String> = (0..129).map(|i| format!("s{i}.sh")).collect();
    let mut held = vec![config(".vscode/tasks.json", &task_of(&many.join(" ")))];
    held.extend(many.iter().map(|p| config(p, "true\n")));
    let (r, _) = follow(&held[..100], &names(), &v12(), LAST);
    assert!(!r.names("src/parser.rs"));
    let (r, _) = follow(&held, &names(), &v12(), LAST);
    assert!(r.names("src/parser.rs"));
}

fn task_of(command: &str) -> String {
    format!(r#"{{"tasks":[{{"command":"{command}"}}]}}"#)
}

/// Ordinary tasks stay bounded under v12 (round 18's 02a and 02b): a
/// `Makefile` with variables and `cargo build`, a vite `package.json`.
#[test]
fn v12_leaves_ordinary_tasks_their_own_files() {
    let configs = [
        config(".vscode/tasks.json", &task_of("make")),
        config(
            "Makefile",
            "PREFIX ?= /usr/local\nBUILD := target\nall:\n\tcargo build --release\n\tinstall $(BUILD)/parser $(PREFIX)/bin\n",
        ),
    ];
    let (r, _) = follow(&configs, &names(), &v12(), LAST);
    assert!(r.names("Makefile"));
    for p in [
        "src/parser.rs",
        "src/lib.rs",
        "web/src/App.tsx",
        "README.md",
    ] {
        assert!(!r.names(p), "{p}");
    }
    let configs = [
        config(".vscode/tasks.json", &task_of("npm run dev")),
        config(
            "package.json",
            r#"{"name":"web","type":"module","scripts":{"dev":"vite","build":"tsc && vite build"},"dependencies":{"react":"^18.2.0"},"devDependencies":{"vite":"^5.0.0","typescript":"^5.2.0"}}"#,
        ),
    ];
    let (r, _) = follow(&configs, &names(), &v12(), LAST);
    assert!(r.names("vite.config.ts"));
    for p in ["src/App.tsx", "web/src/App.tsx", "src/main.ts"] {
        assert!(!r.names(p), "{p}");
    }
}

/// Red team round 19 (against v12): the shapes closed within v12's claim
/// (imports by name and relative ones, a package added under
/// `node_modules`, a key past a JSONC comment, an environment variable
/// named like an inert key, brace expansion, `~+`, a quote or backslash
/// inside a name, bracket expressions); each named now.
#[test]
fn v12_names_what_round_19_found() {
    let cases: Vec<Case> = vec![
        (
            task_of("python3 tools/a.py"),
            vec![("tools/a.py", "import b\n"), ("tools/b.py", "import c\n")],
            "tools/c.py",
        ),
        (
            task_of("python3 -m tools.gen"),
            vec![("tools/gen.py", "from .helper import run\n")],
            "tools/helper.py",
        ),
        (
            task_of("node tools/a.js"),
            vec![
                ("tools/a.js", "require('./b');\n"),
                ("tools/b.js", "require('./c');\n"),
            ],
            "tools/c.js",
        ),
        (
            task_of("node tools/a.js"),
            vec![("tools/a.js", "const l = require('leftpad');\n")],
            "tools/node_modules/leftpad/index.js",
        ),
        (
            r#"{"tasks":[{"type":"shell","command" /* every hook */ : "run-parts tools/hooks"}]}"#
                .to_string(),
            vec![],
            "tools/hooks/a",
        ),
        (
            r#"{"tasks":[{"command":"run-parts \"$source\"","options":{"env":{"source":"tools/hooks"}}}]}"#
                .to_string(),
            vec![],
            "tools/hooks/a",
        ),
        (
            task_of("for s in tools/gen_{a,b}.py; do python3 $s; done"),
            vec![],
            "tools/gen_a.py",
        ),
        (task_of("python3 ~+/tools/gen.py"), vec![], "tools/gen.py"),
        (task_of("python3 tools/g\\\\en.py"), vec![], "tools/gen.py"),
        (task_of("python3 tools/g''en.py"), vec![], "tools/gen.py"),
        (
            task_of("bash tools/run.sh"),
            vec![(
                "tools/run.sh",
                "for f in lib/[[:alpha:]]*.py; do python3 \"$f\"; done\n",
            )],
            "lib/gen.py",
        ),
        (
            task_of("bash tools/run.sh"),
            vec![(
                "tools/run.sh",
                "for f in lib/[!a-z]*.py; do python3 \"$f\"; done\n",
            )],
            "lib/Gen.py",
        ),
    ];
    names_each(cases);
}

/// Round 19's 04d: a `clean` rule's `find . -name "*.o" -exec rm` names
/// what its glob matches, not every file; `find . -exec` with no name
/// test still names every file.
#[test]
fn v12_a_find_bounded_by_a_name_test_names_its_glob() {
    let make = |recipe: &str| {
        [
            config(".vscode/tasks.json", &task_of("make")),
            config("Makefile", &format!("clean:\n\t{recipe}\n")),
        ]
    };
    let (r, _) = follow(
        &make("find . -name \"*.o\" -exec rm -f {} +"),
        &names(),
        &v12(),
        3,
    );
    assert!(!r.names("src/parser.rs"));
    assert!(r.names("src/parser.o"));
    let (r, _) = follow(
        &make("find . -type f -exec sh {} \\;"),
        &names(),
        &v12(),
        LAST,
    );
    assert!(r.names("src/parser.rs"));
    let (r, _) = follow(
        &make("find . -name '*' -exec sh {} \\;"),
        &names(),
        &v12(),
        3,
    );
    assert!(r.names("src/parser.rs"));
}

/// A long, ordinary Python task script (600 functions, each naming an
/// output file) names its own words, not every file: the files it names
/// that the trees do not hold cost lookups, not the bound.
#[test]
fn v12_a_long_ordinary_script_names_no_source() {
    let mut script = String::from("import os, subprocess\n");
    for i in 0..600 {
        script.push_str(&format!(
            "def step_{i}(path, data, config):\n    out = os.path.join(path, 'build', 'out_{i}.txt')\n    return subprocess.run(['cargo', 'build'], check=True)\n"
        ));
    }
    let configs = [
        config(".vscode/tasks.json", &task_of("python3 tools/build.py")),
        config("tools/build.py", &script),
    ];
    let (r, next) = follow(&configs, &names(), &v12(), LAST);
    assert!(!r.unread, "{} names asked", next.len());
    assert!(!r.names("src/m5.rs"));
}

fn listed(dir: &str) -> RunConfig {
    super::refs::Listed::Files(Vec::new())
        .marker(crate::review::ids::RepoPath::parse(dir).unwrap(), false)
}

/// The marker of `dir` listed with every file below it.
fn listed_below(dir: &str) -> RunConfig {
    super::refs::Listed::Files(Vec::new())
        .marker(crate::review::ids::RepoPath::parse(dir).unwrap(), true)
}

/// Red team round 19's 01a and 01b: a directory a command walks
/// (`run-parts tools/hooks`) and a glob's directory (`include
/// tools/*.mk`) are listed by the ports, and their files read in turn, so
/// what an unchanged hook runs is named. Unlisted, or over the bound,
/// every file is.
#[test]
fn v12_reads_in_turn_what_a_walked_directory_holds() {
    let hooks = [
        config(".vscode/tasks.json", &task_of("run-parts tools/hooks")),
        listed("tools/hooks"),
        config("tools/hooks/a", "python3 lib/x.py\n"),
        config("tools/hooks/deep/b", "python3 lib/deep.py\n"),
    ];
    let (r, _) = follow(&ported(hooks.to_vec()), &names(), &v12(), LAST);
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/lib.rs"));
    // Direct files only: `run-parts` does not recurse.
    assert!(!r.names("lib/deep.py"));
    // The ports are asked to list it, once.
    let f = follow_all(&hooks[..1], &names(), &v12(), 0, Reach::none());
    assert_eq!(f.list, ["tools/hooks"]);
    assert!(
        follow_all(&hooks, &names(), &v12(), 0, Reach::none())
            .list
            .is_empty()
    );
    // Not listed: it may hold anything.
    let (r, _) = follow(&hooks[..1], &names(), &v12(), LAST);
    assert!(r.names("src/lib.rs"));
    // More files than the bound.
    let mut over = listed("tools/hooks");
    over.content = CandidateContent::Bytes {
        bytes: Vec::new(),
        complete: false,
    };
    let (r, _) = follow(&[hooks[0].clone(), over], &names(), &v12(), LAST);
    assert!(r.names("src/lib.rs"));
    let make = [
        config(".vscode/tasks.json", &task_of("make")),
        config("Makefile", "include tools/*.mk\n"),
        listed("tools"),
        config("tools/rules.mk", "all:\n\tpython3 lib/gen.py\n"),
        config("tools/notes.txt", "python3 lib/other.py\n"),
    ];
    let (r, _) = follow(&ported(make.to_vec()), &names(), &v12(), LAST);
    assert!(r.names("lib/gen.py"));
    // Only what the glob matches is read.
    assert!(!r.names("lib/other.py"));
    assert!(!r.names("src/lib.rs"));
}

/// `configs` with a listed marker at every directory (and listing by
/// name) v12 asks the ports to list (the files below are those `configs`
/// hold), as the ports' loop adds them.
fn ported(mut configs: Vec<RunConfig>) -> Vec<RunConfig> {
    loop {
        let mut own = Vec::new();
        let mut below = Vec::new();
        let mut matching = Vec::new();
        for done in 0..=LAST {
            let f = follow_all(&configs, &names(), &v12(), done, Reach::none());
            own.extend(f.list);
            below.extend(f.list_below);
            matching.extend(f.list_matching);
        }
        for asked in [&mut own, &mut below] {
            asked.sort();
            asked.dedup();
        }
        if own.is_empty() && below.is_empty() && matching.is_empty() {
            return configs;
        }
        configs.extend(own.iter().map(|d| listed(d)));
        configs.extend(below.iter().map(|d| listed_below(d)));
        // Every file is among the configurations already: each listing
        // by name found what it matches there.
        configs.extend(
            matching
                .iter()
                .filter_map(|m| m.marker(&crate::review::risk::Listed::Files(Vec::new()))),
        );
    }
}

/// Red team round 20: walkers' operands past options and through a
/// variable, `find`'s recursion and name tests, a wildcard in a middle
/// component, a walked file read whatever its name, Python imports after
/// `;` and as calls, `sys.path`, `__pycache__`, a JS specifier through a
/// variable and a subpath import; each named now.
#[test]
fn v12_names_what_round_20_found() {
    let x = ("lib/x.py", "print(1)\n");
    let cases: Vec<Case> = vec![
        (
            task_of("run-parts -a start tools/hooks"),
            vec![("tools/hooks/a", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("find tools -name '*.sh' -exec sh {} ;"),
            vec![("tools/a.sh", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("find tools -type f -exec sh {} ;"),
            vec![("tools/sub/run", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("for f in tools/*/run.sh; do sh $f; done"),
            vec![("tools/a/run.sh", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("D=tools/hooks; run-parts $D"),
            vec![("tools/hooks/a", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("find tools -type f -exec {} ;"),
            vec![("tools/a.tcl", "#!/bin/sh\npython3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("python3 tools/a.py"),
            vec![
                ("tools/a.py", "import os; import b\n"),
                ("tools/b.py", "import c\n"),
            ],
            "tools/c.py",
        ),
        (
            task_of("python3 tools/a.py"),
            vec![
                (
                    "tools/a.py",
                    "import importlib\nimportlib.import_module(\"b\")\n",
                ),
                ("tools/b.py", "import c\n"),
            ],
            "tools/c.py",
        ),
        (
            task_of("node tools/a.js"),
            vec![
                ("tools/a.js", "const p = './b'; require(p);\n"),
                ("tools/b.js", "require('./c');\n"),
            ],
            "tools/c.js",
        ),
        (
            task_of("node tools/a.mjs"),
            vec![
                ("tools/a.mjs", "import \"#internal\";\n"),
                (
                    "package.json",
                    r##"{"imports":{"#internal":"./src/internal.mjs"}}"##,
                ),
            ],
            "src/internal.mjs",
        ),
        (
            task_of("python3 tools/a.py"),
            vec![("tools/a.py", "import b\n"), ("tools/b.py", "x = 1\n")],
            "tools/__pycache__/b.cpython-311.pyc",
        ),
        (
            task_of("python3 tools/a.py"),
            vec![
                (
                    "tools/a.py",
                    "import sys\nsys.path.insert(0, \"lib\")\nimport helper\n",
                ),
                (
                    "lib/helper.py",
                    "import runpy\nrunpy.run_path(\"scripts/x.py\")\n",
                ),
            ],
            "scripts/x.py",
        ),
    ];
    names_each(cases);
}

/// Round 20's 04a: two walked directories of 70 hooks each are within
/// the bound a directory's listing applies; the step bound counts other
/// files.
#[test]
fn v12_walked_directories_are_bounded_each() {
    let mut configs = vec![config(
        ".vscode/tasks.json",
        &task_of("run-parts tools/pre && run-parts tools/post"),
    )];
    for dir in ["tools/pre", "tools/post"] {
        for i in 0..70 {
            configs.push(config(&format!("{dir}/h{i}"), "true\n"));
        }
    }
    let (r, _) = follow(&ported(configs), &names(), &v12(), LAST);
    assert!(r.names("tools/pre/h1"));
    assert!(!r.names("src/lib.rs"));
}

/// Each case's edited file is named under v12 (the walked directories
/// listed as the ports list them), and not every file is.
fn names_each(cases: Vec<Case>) {
    for (tasks, files, edited) in cases {
        let mut configs = vec![config(".vscode/tasks.json", &tasks)];
        configs.extend(files.iter().map(|(p, b)| config(p, b)));
        let configs = ported(configs);
        let (r, _) = follow(&configs, &names(), &v12(), LAST);
        assert!(r.names(edited), "{tasks}: {edited}");
        assert!(!r.names("src/lib.rs"), "{tasks}: everything named");
    }
}

/// Red team round 21: a default in a variable's expansion, `find -L`,
/// `find`'s output run in a loop, a root `find` with a name test, an
/// environment variable and a loop variable given to `run-parts`,
/// `sys.path` built from `__file__`, direnv's `source_env`, a tool's
/// configuration read in turn, and `python -m`'s `__pycache__`.
#[test]
fn v12_names_what_round_21_found() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    names_each(vec![
        (task_of("run-parts ${HOOKS:-tools/hooks}"), vec![hook, x], "lib/x.py"),
        (
            task_of("find -L tools -type f -exec sh {} ;"),
            vec![("tools/sub/run", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("for c in $(find tools/checks -type f); do sh $c; done"),
            vec![("tools/checks/a", "python3 lib/x.py\n"), x],
            "lib/x.py",
        ),
        (
            task_of("find . -name setup.sh -exec sh {} ;"),
            vec![],
            "deep/dir/setup.sh",
        ),
        (
            r#"{"tasks":[{"command":"run-parts $HOOKS","options":{"env":{"HOOKS":"tools/hooks"}}}]}"#
                .to_string(),
            vec![hook, x],
            "lib/x.py",
        ),
        (
            task_of("for d in tools/pre tools/hooks; do run-parts $d; done"),
            vec![hook, x],
            "lib/x.py",
        ),
        (
            task_of("python3 tools/a.py"),
            vec![
                (
                    "tools/a.py",
                    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \"lib\"))\nimport helper\n",
                ),
                ("tools/lib/helper.py", "import runpy\nrunpy.run_path(\"scripts/x.py\")\n"),
            ],
            "scripts/x.py",
        ),
        (
            task_of("npm run dev"),
            vec![
                ("package.json", r#"{"scripts":{"dev":"vite"}}"#),
                ("vite.config.ts", "import banner from './build/banner.mjs'\n"),
            ],
            "build/banner.mjs",
        ),
        (task_of("python3 -m tools.gen"), vec![], "tools/__pycache__/gen.cpython-311.pyc"),
    ]);
    let envrc = [
        config(
            ".envrc",
            "source_env tools/dev.envrc\nsource_env_if_exists .envrc.local\n",
        ),
        config("tools/dev.envrc", "python3 lib/x.py\n"),
        config(".envrc.local", "python3 lib/y.py\n"),
    ];
    let (r, _) = follow(&ported(envrc.to_vec()), &names(), &v12(), LAST);
    assert!(r.names("lib/x.py"));
    assert!(r.names("lib/y.py"));
    assert!(!r.names("src/lib.rs"));
}

/// Round 21's 03b and 03c: an import chain deeper than the reads names
/// what is below the directory of the module one step beyond, not every
/// file; a script's chain still names every file.
#[test]
fn v12_an_import_chain_deeper_than_the_reads_names_its_package() {
    let chain = [
        config(".vscode/tasks.json", &task_of("python3 -m app")),
        config("app/__main__.py", "from . import a\n"),
        config("app/a.py", "from . import b\n"),
        config("app/b.py", "from . import c\n"),
        config("app/c.py", "from . import d\n"),
        config("app/d.py", "x = 1\n"),
    ];
    let (r, _) = follow(&ported(chain.to_vec()), &names(), &v12(), LAST);
    assert!(r.names("app/e.py"));
    assert!(!r.names("src/lib.rs"));
}

/// Red team round 22: a nested default, a default that starts with a
/// variable, and a directory an `.envrc` puts on `PATH` whose file a
/// task runs by name.
#[test]
fn v12_names_what_round_22_found() {
    let x = ("lib/x.py", "print(1)\n");
    let hook = ("tools/hooks/a", "python3 lib/x.py\n");
    names_each(vec![
        (
            task_of("run-parts ${HOOKS:-${DEFAULT_HOOKS:-tools/hooks}}"),
            vec![hook, x],
            "lib/x.py",
        ),
        (
            task_of("run-parts ${HOOKS-$PWD/tools/hooks}"),
            vec![hook, x],
            "lib/x.py",
        ),
    ]);
    let path = [
        config(".envrc", "PATH_add tools/bin\n"),
        config(".vscode/tasks.json", &task_of("lint")),
        config("tools/bin/lint", "python3 lib/x.py\n"),
    ];
    let (r, _) = follow(&ported(path.to_vec()), &names(), &v12(), LAST);
    assert!(r.names("lib/x.py"));
    assert!(!r.names("src/lib.rs"));
}

mod beyond;
