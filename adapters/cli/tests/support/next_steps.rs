//! Helpers of the next-step tests (`next_steps_cli.rs`,
//! `next_steps_delivery_cli.rs`): a repository driven into each reason
//! code, and the commands its advice names filled in and run.

#![allow(dead_code)]

use probity_git::fixture::Fixture;
use serde_json::Value;

use crate::support::*;

pub struct Repo {
    pub f: Fixture,
    pub tmp: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        Repo {
            f: change(),
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs the command; every answer's advice is checked for a `<…>`
    /// placeholder where the tool knows the value (issue 26 §1).
    pub fn run(&self, args: &[&str]) -> Run {
        let r = probity(self.f.root(), args);
        for v in [&r.json, &r.json["error"]] {
            let said = text(v);
            let unknown: Vec<String> = placeholders(&said)
                .into_iter()
                .filter(|p| {
                    // clap's value names (`<REV>`) are a person's values too.
                    !PERSON_PLACEHOLDERS.contains(&p.as_str())
                        && !p.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                })
                .collect();
            assert!(
                unknown.is_empty(),
                "`probity {}` answered placeholders {unknown:?} it could fill: {said}",
                args.join(" ")
            );
        }
        r
    }

    pub fn doc(&self, name: &str, text: &str) -> String {
        input(self.tmp.path(), name, text)
    }

    pub fn gate(&self) -> Run {
        self.run(&["validate", "--gate", "pre-commit"])
    }

    pub fn start(&self) -> String {
        let s = self.run(&["start"]);
        assert_eq!(s.code, 0, "{}", s.stdout);
        s.json["lineage_id"].as_str().unwrap().to_string()
    }

    pub fn finalize(&self, lineage: &str, args: &[&str]) -> Run {
        let mut a = vec!["finalize", "--lineage", lineage];
        a.extend_from_slice(args);
        self.run(&a)
    }

    /// Follows the advice in `text`: the backticked command that starts
    /// with `prefix`, with the values only a person gives filled in.
    /// Asserts the tool accepts it and returns the answer.
    pub fn follow(&self, text: &str, prefix: &str) -> Run {
        let r = self.attempt(text, prefix);
        assert_eq!(
            r.code,
            0,
            "following `{}` from {text:?} was refused: {}{}",
            command_in(text, prefix, &self.fill()).join(" "),
            r.stdout,
            r.stderr
        );
        r
    }

    /// Runs the backticked command in `text` that starts with `prefix`,
    /// filled in as [`Repo::follow`] fills it, whatever the tool answers.
    pub fn attempt(&self, text: &str, prefix: &str) -> Run {
        let args = command_in(text, prefix, &self.fill());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run(&args)
    }

    /// Like [`Repo::attempt`], asserting the tool refuses with `code`.
    pub fn refused_with(&self, text: &str, prefix: &str, code: &str) -> Run {
        let r = self.attempt(text, prefix);
        assert_eq!(r.json["error"]["code"], code, "{}", r.stdout);
        r
    }

    /// The pre-commit gate, asserting it answers `reason`.
    pub fn gate_says(&self, reason: &str) -> Run {
        let g = self.gate();
        assert_eq!(g.json["reason_code"], reason, "{}", g.stdout);
        g
    }

    /// [`Repo::gate_says`] `reason`, then follows the command its text
    /// names (starting `prefix`): that command's run.
    pub fn gate_leads(&self, reason: &str, prefix: &str) -> Run {
        let g = self.gate_says(reason);
        self.follow(&text(&g.json), prefix)
    }

    /// A repository with a started review whose result escalates (an
    /// unknown-cause blocker), and its lineage.
    pub fn escalated() -> (Repo, String) {
        let r = Repo::new();
        let l = r.start();
        r.finalize(&l, &["--result", &r.doc("u.json", PARSER_UNKNOWN)]);
        (r, l)
    }

    /// A repository with a started review in an open correction, the
    /// corrected file written, and its lineage.
    pub fn corrected() -> (Repo, String) {
        let r = Repo::new();
        let l = r.start();
        r.finalize(&l, &["--result", &r.doc("b.json", PARSER_BLOCKER)]);
        r.finalize(&l, &["--correction-lines", "2"]);
        r.f.write("src/parser.rs", body(0)).unwrap();
        (r, l)
    }

    pub fn fill(&self) -> Vec<(&'static str, String)> {
        vec![
            ("R", "the maintainer looked at it".into()),
            ("A", "maintainer".into()),
            ("X", "decision #1".into()),
            ("N", "2".into()),
            ("F", self.doc("pass.json", VALIDATION_PASS)),
        ]
    }
}

/// The words of the first backticked command in `text` that starts with
/// `prefix`, after `probity`, with placeholders replaced.
pub fn command_in(text: &str, prefix: &str, fill: &[(&str, String)]) -> Vec<String> {
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let cmd = &after[..close];
        if cmd.starts_with(prefix) {
            assert!(
                !cmd.contains('<') && !cmd.contains('>'),
                "a placeholder in `{cmd}`"
            );
            return cmd
                .split_whitespace()
                .skip(1)
                .map(|w| {
                    fill.iter()
                        .find(|(k, _)| *k == w)
                        .map_or_else(|| w.to_string(), |(_, v)| v.clone())
                })
                .collect();
        }
        rest = &after[close + 1..];
    }
    panic!("no `{prefix}...` in {text:?}");
}

pub fn text(v: &Value) -> String {
    format!(
        "{} {}",
        v["message"].as_str().unwrap_or_default(),
        v["next_action"].as_str().unwrap_or_default()
    )
}

/// A local bare remote `origin` holding the base, for the publication
/// codes.
pub fn with_remote(r: &Repo) -> std::path::PathBuf {
    let bare = r.tmp.path().join("origin.git");
    r.f.git(&["init", "-q", "--bare", bare.to_str().unwrap()])
        .unwrap();
    r.f.git(&["remote", "add", "origin", bare.to_str().unwrap()])
        .unwrap();
    r.f.git(&["push", "-q", "origin", "HEAD:refs/heads/main"])
        .unwrap();
    bare
}

pub fn head(r: &Repo) -> String {
    rev_parse(&r.f, "HEAD")
}

/// The placeholders an answer may print: values the tool cannot know
/// (the remote a person pushes to).
pub const PERSON_PLACEHOLDERS: &[&str] = &["remote"];

/// Every `<`…`>` placeholder in an answer's text: a value the tool knows
/// must be printed, only `R`, `A`, `X`, `N`, `F` (a person's values) stay.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        out.push(after[..close].to_string());
        rest = &after[close + 1..];
    }
    out
}

/// `probity ARGS` in plain text (no `--json`): its stdout.
pub fn plain(r: &Repo, args: &[&str]) -> String {
    let out = probity_in(r.f.root()).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `probity ARGS` with `HOME` at `home` (where `ssh-keygen` finds no agent
/// or user configuration), JSON answer.
pub fn probity_home(cwd: &std::path::Path, home: &std::path::Path, args: &[&str]) -> Run {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
        .arg("--json")
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .output()
        .unwrap();
    run_of(&out)
}
