//! The cli invariant (docs/ARCHITECTURE.md): `--cwd` and `--json` on every
//! command.
//!
//! The commands are not listed here (a list would rot): they are derived
//! from the binary's own help, `probity --help` and then `probity <path>
//! --help` for every entry of each "Commands:" section, recursively. A
//! command is every leaf, and every parent that also runs by itself (its
//! usage has a form without `<COMMAND>`, as `validate --gate G` and
//! `attest --lineage L` do). For each one:
//! - its help lists `--cwd <PATH>` and `--json` among its options;
//! - the binary accepts both after the command's own words, and with
//!   `--json` answers exactly one JSON document on stdout: run with no
//!   other argument, `--cwd` naming a directory outside every repository
//!   and the process itself started in another repository (a decoy), it
//!   is either a usage error for one of the command's own arguments (never
//!   `--cwd` or `--json`), or `repository_error` naming the `--cwd`
//!   directory (the command looked where `--cwd` said, not in the current
//!   directory), or, for a command that opens no repository, a success;
//!   and the decoy is left byte for byte as it was.
//!
//! `schema`, `demo`, `man` and `completions` take no repository (`schema`
//! prints a fixed document, `demo` makes its own scratch repository, `man`
//! and `completions` print the CLI's own definition): they accept `--cwd`
//! and ignore it, even a path that does not exist, although their help
//! describes it as for every command ("Directory to discover the repository
//! from"). That is pinned here so a change to it is deliberate.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// `probity args...`, isolated, run in `dir`, stdin empty.
fn probity_in(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    support::isolated(&mut cmd)
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.output().expect("run probity")
}

/// `probity <path> --help`, which must succeed.
fn help(dir: &Path, path: &[String]) -> String {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let out = probity_in(dir, &args);
    assert!(
        out.status.success(),
        "probity {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The lines of the section headed `title` ("Commands:", "Options:"): from
/// the header to the next line that is not indented (blank lines inside a
/// long help's section kept).
fn section<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = help.lines().skip_while(|l| *l != title);
    if lines.next().is_none() {
        return Vec::new();
    }
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

/// The subcommands a help lists, without clap's `help`.
fn subcommands(help: &str) -> Vec<String> {
    section(help, "Commands:")
        .into_iter()
        // An entry starts at the section's indentation (two spaces); its
        // description's continuation lines are indented further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// Whether a command with subcommands also runs by itself: one of its
/// usage forms does not end in `<COMMAND>`.
fn runs_by_itself(help: &str) -> bool {
    let mut forms = Vec::new();
    let mut lines = help.lines();
    for l in lines.by_ref() {
        if let Some(form) = l.strip_prefix("Usage: ") {
            forms.push(form.trim());
            break;
        }
    }
    for l in lines {
        if l.trim().is_empty() || !l.starts_with(' ') {
            break;
        }
        forms.push(l.trim());
    }
    assert!(!forms.is_empty(), "no usage line in:\n{help}");
    forms.iter().any(|f| !f.ends_with("<COMMAND>"))
}

/// The options a help lists, each as its entry spells it (`--cwd <PATH>`,
/// `--json`, `-h`, `--help`): only entry lines (an option's description
/// and its possible values are indented further, and may start with `-`).
fn options(help: &str) -> Vec<String> {
    let mut found = Vec::new();
    for l in section(help, "Options:") {
        let indent = l.len() - l.trim_start().len();
        if !(1..=6).contains(&indent) || !l.trim_start().starts_with('-') {
            continue;
        }
        // The entry is what comes before the description (two spaces).
        let entry = l.trim().split("  ").next().unwrap_or_default();
        found.extend(entry.split(", ").map(|o| o.trim().to_string()));
    }
    found
}

/// Every command of the binary, as its words (`["context", "fetch"]`),
/// with its help, derived from the help alone.
fn every_command(dir: &Path) -> BTreeMap<Vec<String>, String> {
    let mut commands = BTreeMap::new();
    let mut todo: Vec<Vec<String>> = subcommands(&help(dir, &[]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    while let Some(path) = todo.pop() {
        assert!(path.len() <= 4, "commands nest too deep: {path:?}");
        let text = help(dir, &path);
        let subs = subcommands(&text);
        for s in &subs {
            let mut child = path.clone();
            child.push(s.clone());
            todo.push(child);
        }
        if subs.is_empty() || runs_by_itself(&text) {
            commands.insert(path, text);
        }
    }
    commands
}

fn words(path: &[String]) -> String {
    path.join(" ")
}

/// Every file under `root`, path → bytes (symlinks as their targets).
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let kind = e.file_type().unwrap();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if kind.is_dir() {
                out.insert(rel.join(""), Vec::new());
                walk(root, &p, out);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, target.into_os_string().into_encoded_bytes());
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn every_command_lists_cwd_and_json_in_its_help() {
    let here = tempfile::tempdir().unwrap();
    let commands = every_command(here.path());
    let names: Vec<String> = commands.keys().map(|p| words(p)).collect();
    // The derivation found the commands (it cannot pass by finding none):
    // the top-level ones, the runnable parents, nested leaves.
    assert!(
        names.len() >= 30,
        "only {} commands: {names:?}",
        names.len()
    );
    for expected in [
        "start",
        "finalize",
        "dispute",
        "validate",
        "validate pre-commit",
        "validate pre-receive",
        "status",
        "recover",
        "export-context",
        "attest",
        "attest verify",
        "schema",
        "lens submit",
        "hooks install",
        "bundle export",
        "bundle import",
        "publish",
        "push",
        "demo",
        "context assemble",
        "context fetch",
        "context run",
        "snapshot read",
        "mcp",
        "review",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "`{expected}` was not derived from the help: {names:?}"
        );
    }
    // Parents that only group subcommands are not commands.
    for group in ["lens", "hooks", "bundle", "context", "snapshot"] {
        assert!(
            !names.iter().any(|n| n == group),
            "`{group}` runs by itself? {names:?}"
        );
    }
    let mut missing = Vec::new();
    for (path, text) in &commands {
        let opts = options(text);
        assert!(
            opts.iter().any(|o| o == "--help"),
            "the option parser read nothing from `probity {} --help`: {opts:?}",
            words(path)
        );
        for flag in ["--cwd <PATH>", "--json"] {
            if !opts.iter().any(|o| o == flag) {
                missing.push(format!("`probity {}` lacks `{flag}`", words(path)));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The help parsers on clap's two layouts (short help, where an entry and
/// its description share a line, and long help, where the description
/// follows indented, possible values included).
#[test]
fn the_help_parsers_read_entries_not_descriptions() {
    let short = "About\n\nUsage: probity x [OPTIONS] --gate <G>\n       probity x <COMMAND>\n\n\
        Commands:\n  one   The first; its description\n        wraps here\n  two   Second\n  \
        help  Print this message\n\nOptions:\n      --cwd <PATH>  Directory\n  -h, --help    \
        Print help\n";
    assert_eq!(subcommands(short), ["one", "two"]);
    assert!(runs_by_itself(short));
    assert_eq!(options(short), ["--cwd <PATH>", "-h", "--help"]);
    let long = "About\n\nUsage: probity y <COMMAND>\n\nCommands:\n  a  A\n\nOptions:\n      \
        --json\n          Print JSON\n\n      --gate <GATE>\n          Possible values:\n          \
        - --not-an-option\n\n  -h, --help\n          Print help\n";
    assert_eq!(subcommands(long), ["a"]);
    assert!(!runs_by_itself(long));
    assert_eq!(options(long), ["--json", "--gate <GATE>", "-h", "--help"]);
}

#[test]
fn every_command_accepts_cwd_and_json_and_honours_them() {
    let here = tempfile::tempdir().unwrap();
    let commands = every_command(here.path());
    assert!(commands.len() >= 30, "{:?}", commands.keys());
    // The process starts inside a repository with a change to review; the
    // `--cwd` directory is in no repository (a temporary directory whose
    // parents hold none).
    let decoy = support::medium_change();
    let elsewhere = tempfile::tempdir().unwrap();
    let before = tree(decoy.root());
    let cwd = elsewhere.path().to_str().unwrap().to_string();
    let mut succeeded = Vec::new();
    let mut looked_at_cwd = Vec::new();
    for path in commands.keys() {
        let name = words(path);
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.extend(["--cwd", &cwd, "--json"]);
        let out = probity_in(decoy.root(), &args);
        let code = out.status.code();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "`probity {name} --cwd D --json` printed no single JSON document ({e}):\n{stdout}"
            )
        });
        let err = &doc["error"];
        match code {
            Some(2) => {
                assert_eq!(err["kind"], "usage", "{name}: {doc}");
                let argument = err["argument"].as_str().unwrap_or_default();
                let message = err["message"].as_str().unwrap_or_default();
                assert!(
                    !argument.is_empty() && !message.contains("unexpected argument"),
                    "{name}: a usage error for its own arguments: {doc}"
                );
                for flag in ["--cwd", "--json"] {
                    assert!(!argument.contains(flag), "{name} refused {flag}: {doc}");
                }
            }
            Some(5) => {
                assert_eq!(err["code"], "repository_error", "{name}: {doc}");
                assert!(
                    err["message"].as_str().unwrap_or_default().contains(&cwd),
                    "{name} did not look in the --cwd directory: {doc}"
                );
                looked_at_cwd.push(name);
            }
            Some(0) => {
                assert!(err.is_null(), "{name}: {doc}");
                succeeded.push(name);
            }
            other => panic!("{name}: exit {other:?}: {doc}"),
        }
    }
    // What runs with no other argument and a repository to open looked for
    // it where --cwd said (not in the decoy it was started in).
    for name in [
        "start",
        "finalize",
        "status",
        "validate pre-commit",
        "validate pre-push",
        "validate pre-receive",
        "hooks install",
        "hooks uninstall",
        "publish",
        "push",
    ] {
        assert!(
            looked_at_cwd.iter().any(|n| n == name),
            "`{name}` did not answer repository_error for --cwd: {looked_at_cwd:?}"
        );
    }
    // Only a command that opens no repository succeeds outside one: the
    // demo (its own scratch repository) and the man page (the CLI's own
    // definition).
    assert_eq!(succeeded, ["demo", "man"], "succeeded outside a repository");
    assert_eq!(tree(decoy.root()), before, "a command wrote to the decoy");
    assert_eq!(tree(elsewhere.path()), BTreeMap::new());
}

/// `schema` and `demo` open no repository: `--cwd` is accepted and ignored,
/// even when it names no directory at all, and the answer is the one
/// without it. (`schema` prints JSON with or without `--json`.)
#[test]
fn schema_and_demo_accept_cwd_and_ignore_it() {
    let here = tempfile::tempdir().unwrap();
    let nowhere = here.path().join("does-not-exist");
    let nowhere = nowhere.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = probity_in(here.path(), args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let schema = run(&["schema", "reviewer"]);
    let doc: Value = serde_json::from_slice(&schema).expect("a JSON schema");
    assert!(doc["$defs"].is_object(), "{doc}");
    assert_eq!(run(&["--cwd", nowhere, "schema", "reviewer"]), schema);
    assert_eq!(
        run(&["schema", "reviewer", "--cwd", nowhere, "--json"]),
        schema
    );
    // `demo` makes its own scratch repository and reports its steps.
    let demo = |args: &[&str]| -> Value {
        let mut v: Value = serde_json::from_slice(&run(args)).expect("a JSON answer");
        // Normalize what differs between two runs (temp paths, ids).
        let steps = v["steps"].as_array().map_or(0, Vec::len);
        v = serde_json::json!({"scenario": v["scenario"], "steps": steps});
        v
    };
    let plain = demo(&["--json", "demo"]);
    assert_eq!(plain["scenario"], "ordinary");
    assert!(plain["steps"].as_u64().unwrap_or(0) >= 3, "{plain}");
    assert_eq!(demo(&["demo", "--cwd", nowhere, "--json"]), plain);
    assert_eq!(std::fs::read_dir(here.path()).unwrap().count(), 0);
}
