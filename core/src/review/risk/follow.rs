//! What an auto-run configuration runs indirectly (risk policy v11,
//! D-R170; red team rounds 14's 06 and 17's 02): a task's words read
//! from its `options.cwd`, a `cd`, a directory option (`-C`, `--prefix`,
//! `-w`) and a variable's assigned value as well as from the root; the
//! file a tool reads by default (`make`'s `Makefile`, `npm run`'s
//! `package.json`, `just`'s `justfile`, `task`'s `Taskfile.yml`, `rake`'s
//! `Rakefile`, `tox`'s `tox.ini`, `deno task`'s `deno.json`, `python -m`'s
//! module, pytest's `conftest.py` anywhere); and, read in turn, what a
//! file so named runs, up to [`FollowRule::reads`] times.
//!
//! The files to read are an output ([`follow`]'s second answer): the
//! ports layer reads them from both trees and passes them back among
//! [`super::TreeInputs::configs`], and the next step names what they run.
//! The classification recomputes every step from those bytes, so it needs
//! nothing but the files themselves. Conservative, as v5's references
//! are: a word is a name wherever the format may run it; a path after a
//! variable (`${D}/env`) names that tail in every directory; and more new
//! files to read at one step than the rule allows, or a file the trees
//! hold one step beyond the last read, is "not read whole": every changed
//! file may be one they run.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RunConfig;
use super::refs::{self, References};
use crate::review::snapshot::CandidateContent;

/// How far a policy follows what its auto-run configurations run (v11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowRule {
    /// How many times the files the configurations name are read in turn
    /// (3: a task's `Makefile`, the script its recipe runs, what that
    /// script sources). A file the trees hold that the last read names is
    /// read only to know it is there: then every changed file may be one
    /// the chain runs.
    pub reads: u8,
    /// At most this many new files to read at one step: more, and every
    /// changed file may be one they name.
    pub files_per_read: u16,
}

/// Commands that read a `Makefile` of their directory.
const MAKES: &[&str] = &["make", "gmake", "bmake", "mingw32-make"];
/// What `make` reads, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];
/// Commands that run a `package.json` script.
const NPMS: &[&str] = &["npm", "pnpm", "yarn", "bun"];
/// Options that run a package manager's scripts in every workspace
/// package: any `package.json` may be one.
const EVERY_WORKSPACE: &[&str] = &["--workspaces", "-ws", "--recursive", "-r"];
/// Commands whose default files are read in turn (their recipes and
/// scripts are commands too).
const READ_DEFAULTS: &[(&str, &[&str])] = &[
    ("just", &["justfile", "Justfile", ".justfile"]),
    (
        "task",
        &[
            "Taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yml",
            "taskfile.yaml",
            "Taskfile.dist.yml",
            "Taskfile.dist.yaml",
        ],
    ),
    (
        "rake",
        &["Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"],
    ),
    ("tox", &["tox.ini", "setup.cfg", "pyproject.toml"]),
    ("deno", &["deno.json", "deno.jsonc"]),
];
/// Task runners (VS Code detects the first three) with the files they
/// load: named, not read (their language is not followed).
const RUNNERS: &[(&str, &[&str])] = &[
    (
        "gulp",
        &[
            "gulpfile.js",
            "gulpfile.mjs",
            "gulpfile.cjs",
            "gulpfile.ts",
            "gulpfile.babel.js",
        ],
    ),
    (
        "grunt",
        &["Gruntfile.js", "Gruntfile.coffee", "gruntfile.js"],
    ),
    ("jake", &["Jakefile", "Jakefile.js", "jakefile.js"]),
    ("nox", &["noxfile.py"]),
    ("invoke", &["tasks.py", "invoke.yaml"]),
    ("inv", &["tasks.py", "invoke.yaml"]),
    (
        "pytest",
        &["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"],
    ),
];
/// Files a tool loads from any directory it reaches: named wherever they
/// are (`pytest` imports every `conftest.py` on its way to the tests).
const ANYWHERE: &[(&str, &str)] = &[("pytest", "conftest.py"), ("py.test", "conftest.py")];
/// Words after which the next word that is not an option is a file the
/// command runs or reads.
const RUNS_NEXT: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "source",
    ".",
    "-f",
    "--file",
    "--makefile",
    "--rcfile",
    "--init-file",
    "--justfile",
    "--taskfile",
    "--rakefile",
];
/// Options naming the directory a `make`, a package manager, `env` or a
/// task runner runs in (`-C DIR`, or glued, `-CDIR`; `--dir=DIR` is cut
/// at `=`), a workspace package's directory, or where `make` looks for
/// what it includes (`-I DIR`).
const DIR_OPTIONS: &[&str] = &[
    "-C",
    "--directory",
    "--prefix",
    "--cwd",
    "--dir",
    "-w",
    "--workspace",
    "--filter",
    "--chdir",
    "-I",
    "--include-dir",
];
/// Commands whose next word is the directory it runs the rest in.
const ENTERS: &[&str] = &["cd", "pushd"];
/// Extensions of files read in turn when named.
const SCRIPT_EXTENSIONS: &[&str] = &["sh", "bash", "zsh", "ksh", "dash", "mk", "json", "jsonc"];
/// Assignment operators of `make` and the shell written apart (`D := x`).
const ASSIGNS: &[&str] = &["=", ":=", "::=", "?=", "+=", "!="];

/// One piece of a word, and whether a variable (`$`) came before it in
/// that word (`${D}/env`: `/env` may sit under any directory).
struct Piece {
    text: String,
    after_variable: bool,
}

/// One source's pieces in order, and the values its assignments give
/// (`D=tools`, `D := tools`): bases its paths may be read from.
struct Words {
    pieces: Vec<Piece>,
    values: Vec<String>,
}

/// The references of `configs` under `rule` (the configurations at
/// `names` and, read in turn, the files they run), as v5's
/// [`References::of`] reads them plus what v11 follows; and the files
/// the step after the last read names: to read next, when fewer than
/// `reads` steps were read, or (at `reads == rule.reads`) to learn
/// whether the trees hold one.
pub(super) fn follow(
    configs: &[RunConfig],
    names: &[String],
    rule: &FollowRule,
    reads: u8,
) -> (References, Vec<String>) {
    let mut out = References::of(configs, names);
    let mut asked: BTreeSet<String> = names.iter().cloned().collect();
    // The tasks' working directories, from the root.
    let mut cwds: Vec<String> = Vec::new();
    let mut level: Vec<(&RunConfig, bool)> = Vec::new();
    for c in configs {
        if !names.iter().any(|n| n == c.path.as_str()) {
            continue;
        }
        if let Some(text) = whole(c, &mut out)
            && c.path.as_str().ends_with(".json")
        {
            cwds.extend(task_cwds(&text));
        }
        level.push((c, true));
    }
    cwds.sort();
    cwds.dedup();
    let bound = usize::from(rule.files_per_read);
    let mut carried: Vec<String> = Vec::new();
    let mut entered: Vec<String> = Vec::new();
    let mut step = 0u8;
    loop {
        let mut next: BTreeSet<String> = BTreeSet::new();
        for (c, config) in &level {
            let Some(text) = whole(c, &mut out) else {
                continue;
            };
            let path = c.path.as_str();
            let words = if path.ends_with(".json") || path.ends_with(".jsonc") {
                words_of(refs::json_strings(&text), false)
            } else if *config && !path.ends_with(".envrc") {
                // A pre-commit configuration: v5's values.
                words_of(refs::yaml_values(&text, &["entry", "args"]), false)
            } else {
                words_of(refs::envrc_words(&text).0, true)
            };
            let mut bases = vec![String::new()];
            if !*config && let Some((dir, _)) = path.rsplit_once('/') {
                bases.push(dir.to_string());
            }
            bases.extend(cwds.iter().cloned());
            bases.extend(carried.iter().cloned());
            let mut sink = Sink {
                out: &mut out,
                next: &mut next,
            };
            entered.extend(name_all(&bases, &words, &mut sink));
        }
        // What a step's commands entered (`cd`, `-C`, `-I`, an assigned
        // value) is where the files they run read their words from too
        // (`make -I tools` and a `Makefile` that includes `rules.mk`).
        carried.append(&mut entered);
        carried.sort();
        carried.dedup();
        next.retain(|n| !asked.contains(n));
        if step >= reads {
            // One step beyond the last read: a file there the trees hold
            // runs what no read followed (red team round 17, 02f2).
            if reads == rule.reads
                && (next.len() > bound || configs.iter().any(|c| next.contains(c.path.as_str())))
            {
                out.unread = true;
            }
            return (sorted(out), next.into_iter().collect());
        }
        if next.len() > bound {
            out.unread = true;
            return (sorted(out), Vec::new());
        }
        step += 1;
        asked.extend(next.iter().cloned());
        level = configs
            .iter()
            .filter(|c| next.contains(c.path.as_str()))
            .map(|c| (c, false))
            .collect();
        if level.is_empty() && next.is_empty() {
            return (sorted(out), Vec::new());
        }
    }
}

/// `c`'s text when it was read whole; else `out` is marked unread.
fn whole(c: &RunConfig, out: &mut References) -> Option<String> {
    match &c.content {
        CandidateContent::Bytes {
            bytes,
            complete: true,
        } => Some(String::from_utf8_lossy(bytes).into_owned()),
        CandidateContent::Bytes { .. } => {
            out.unread = true;
            None
        }
        CandidateContent::Absent => None,
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn sorted(mut out: References) -> References {
    for list in [&mut out.paths, &mut out.dirs, &mut out.suffixes] {
        list.sort();
        list.dedup();
    }
    out
}

/// The values of every `cwd` key of a tasks document (`options.cwd`, of
/// a task or of them all), as paths from the root (`${workspaceFolder}`
/// and other variables cut out).
fn task_cwds(text: &str) -> Vec<String> {
    let tokens = refs::json_tokens(text);
    let mut out = Vec::new();
    for pair in tokens.windows(2) {
        if let [(key, true), (value, false)] = pair
            && key == "cwd"
        {
            out.extend(refs::normalise_cased(
                &without_variables(value).replace('\\', "/"),
            ));
        }
    }
    out
}

/// `text` with each `${...}` taken out (`${workspaceFolder}/tools` is
/// `/tools`, from the root).
fn without_variables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => rest = &rest[i + j + 1..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// `words` cut into pieces at v5's separators, in order, each marked when
/// a `$` came before it in its word; and, for a script (`script`), what
/// its assignments give. A script's word loses a recipe's `@` and `+`,
/// and a `-` before a path or a variable (`-./x`, `-$(MAKE)`).
fn words_of(words: Vec<String>, script: bool) -> Words {
    let mut pieces = Vec::new();
    let mut values = Vec::new();
    let mut assigned = false;
    for w in &words {
        let mut w = w.as_str();
        if script {
            w = w.trim_start_matches(['@', '+']);
            if let Some(rest) = w.strip_prefix('-')
                && rest.starts_with(['.', '/', '$'])
            {
                w = rest;
            }
            // `D=tools` and `D := tools`: a base for its paths.
            if assigned {
                values.push(w.to_string());
            }
            assigned = ASSIGNS.contains(&w);
            if let Some((name, value)) = w.split_once('=')
                && !name.is_empty()
                && name
                    .trim_end_matches([':', '?', '+', '!'])
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                values.push(value.to_string());
            }
        }
        let mut after_variable = false;
        let mut rest = w;
        while !rest.is_empty() {
            let end = rest.find(refs::is_separator).unwrap_or(rest.len());
            if end > 0 {
                pieces.push(Piece {
                    text: rest[..end].to_string(),
                    after_variable,
                });
            }
            let Some(sep) = rest[end..].chars().next() else {
                break;
            };
            after_variable |= sep == '$';
            rest = &rest[end + sep.len_utf8()..];
        }
    }
    let values = values
        .iter()
        .filter(|v| !v.contains('$'))
        .filter_map(|v| refs::normalise_cased(v.trim_matches(['"', '\''])))
        .collect();
    Words { pieces, values }
}

/// Where names go: `out`'s paths and suffixes (lowercased, as v5's
/// references are) and, for a file to read, `next`.
struct Sink<'a> {
    out: &'a mut References,
    next: &'a mut BTreeSet<String>,
}

impl Sink<'_> {
    fn add(&mut self, path: String, read: bool) {
        self.out.paths.push(path.to_ascii_lowercase());
        if read {
            self.next.insert(path);
        }
    }

    /// `files` in each of `dirs`.
    fn each(&mut self, dirs: &[String], files: &[&str], read: bool) {
        for d in dirs {
            for f in files {
                if let Some(p) = refs::normalise_cased(&format!("{d}/{f}")) {
                    self.add(p, read);
                }
            }
        }
    }

    /// `tail` at any depth: the file itself, or under any directory.
    fn anywhere(&mut self, tail: &str) {
        if let Some(t) = refs::normalise(tail) {
            self.out.suffixes.push(t);
        }
    }
}

/// `piece` from each of `dirs` (a piece starting with `/` from the root
/// only), normalised, case kept.
fn joined(dirs: &[String], piece: &str) -> Vec<String> {
    if piece.starts_with('/') {
        return refs::normalise_cased(piece).into_iter().collect();
    }
    dirs.iter()
        .filter_map(|d| refs::normalise_cased(&format!("{d}/{piece}")))
        .collect()
}

/// Every name `words` give from `bases`, and the files to read; answers
/// the directories its commands enter, beyond `bases`.
fn name_all(bases: &[String], words: &Words, sink: &mut Sink<'_>) -> Vec<String> {
    let pieces = &words.pieces;
    let lower: Vec<String> = pieces.iter().map(|p| p.text.to_ascii_lowercase()).collect();
    // The directories the commands may run in: the bases, and what a
    // directory option, a `cd` or an assignment names from them.
    let mut dirs: Vec<String> = bases.to_vec();
    let mut entered: Vec<&str> = words.values.iter().map(String::as_str).collect();
    for (i, p) in pieces.iter().enumerate() {
        // The directory after the command or option: past options (`cd
        // --`) and a variable's name (`cd ${workspaceFolder}/tools` is
        // `tools`, from the root; red team round 18).
        let next = pieces[i + 1..]
            .iter()
            .find(|n| !n.text.starts_with('-') && (!n.after_variable || n.text.starts_with('/')))
            .map(|n| n.text.as_str());
        if let Some(glued) = ["-C", "-I"]
            .iter()
            .find_map(|o| p.text.strip_prefix(o).filter(|g| !g.is_empty()))
        {
            entered.push(glued);
        } else if (DIR_OPTIONS.contains(&p.text.as_str()) || ENTERS.contains(&lower[i].as_str()))
            && let Some(n) = next
        {
            entered.push(n.trim_start_matches('/'));
        }
    }
    let mut beyond = Vec::new();
    for e in entered {
        beyond.extend(joined(bases, e));
    }
    beyond.sort();
    beyond.dedup();
    dirs.extend(beyond.iter().cloned());
    dirs.sort();
    dirs.dedup();
    let mut pending = false;
    for (i, (p, l)) in pieces.iter().zip(&lower).enumerate() {
        let name = base_name(l);
        if MAKES.contains(&name) {
            sink.each(&dirs, MAKEFILES, true);
        }
        if NPMS.contains(&name) {
            sink.each(&dirs, &["package.json"], true);
            if lower.iter().any(|w| EVERY_WORKSPACE.contains(&w.as_str())) {
                sink.anywhere("package.json");
            }
        }
        for (tool, files) in READ_DEFAULTS {
            if name == *tool {
                sink.each(&dirs, files, true);
            }
        }
        for (runner, files) in RUNNERS {
            if name == *runner {
                sink.each(&dirs, files, false);
            }
        }
        for (tool, tail) in ANYWHERE {
            if name == *tool {
                sink.anywhere(tail);
            }
        }
        if l == "-m"
            && let Some(module) = pieces.get(i + 1)
        {
            let files = module_files(&module.text);
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            sink.each(&dirs, &files, false);
            for (tool, tail) in ANYWHERE {
                if module.text.eq_ignore_ascii_case(tool) {
                    sink.anywhere(tail);
                }
            }
        }
        // A shell or `source` runs the first word after it that is not an
        // option (`bash -e tools/run`), `#!` line or not.
        let runs = pending && !p.text.starts_with('-');
        pending = if RUNS_NEXT.contains(&l.as_str()) {
            true
        } else {
            pending && p.text.starts_with('-')
        };
        // `-ffile`: make's file, glued.
        let text = match p.text.strip_prefix("-f").filter(|g| !g.is_empty()) {
            Some(glued) => glued,
            None => p.text.as_str(),
        };
        let glued = text.len() != p.text.len();
        let name = base_name(text);
        let read = runs
            || glued
            || MAKEFILES
                .iter()
                .any(|m| m.eq_ignore_ascii_case(name))
            || READ_DEFAULTS
                .iter()
                .flat_map(|(_, files)| files.iter())
                .any(|f| f.eq_ignore_ascii_case(name))
            || name.eq_ignore_ascii_case("package.json")
            || name
                .rsplit_once('.')
                .is_some_and(|(_, ext)| SCRIPT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
            // A path without an extension (`./bin/dev`, `tools/gen`): a
            // shell runs it as a script, `#!` line or not.
            || ((text.starts_with("./") || text.trim_start_matches('/').contains('/'))
                && !name.contains('.'));
        if p.after_variable && text.starts_with('/') {
            // `${D}/env`: under whatever `D` is.
            sink.anywhere(text.trim_start_matches('/'));
            for path in joined(&dirs, text.trim_start_matches('/')) {
                sink.add(path, read);
            }
        }
        for path in joined(&dirs, text) {
            sink.add(path, read);
        }
    }
    beyond
}

/// The files `python -m a.b` may run: `a/b.py`, `a/b/__main__.py` and the
/// packages' `__init__.py` it imports on the way.
fn module_files(module: &str) -> Vec<String> {
    let parts: Vec<&str> = module.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Vec::new();
    }
    let whole = parts.join("/");
    let mut out = vec![
        format!("{whole}.py"),
        format!("{whole}/__main__.py"),
        format!("{whole}/__init__.py"),
    ];
    for i in 1..parts.len() {
        out.push(format!("{}/__init__.py", parts[..i].join("/")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::run_config as config;

    fn rule() -> FollowRule {
        FollowRule {
            reads: 3,
            files_per_read: 64,
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
}
