//! The "git" invariant of docs/ARCHITECTURE.md, as a lint over the shipped
//! source of this crate (`src/`): a program is started only by the runners
//! (`cmd.rs` for git, `sign.rs` for `ssh-keygen`; a timed-out
//! `ssh-keygen`'s group is ended by kill(2) in probity-scratch, no
//! program), each runner's program is fixed (a literal, or
//! the runner's executable, whose default is a literal and which only the
//! operator's `PROBITY_GIT` / `PROBITY_SSH_KEYGEN` overrides), no program
//! is a shell (`sh`, `bash`, ..., nor `env`) and no `-c` but git's
//! `-c key=value`, and every command is built with a cleared environment
//! (`env_clear` in the function that makes it). Arguments are always an
//! array: `Command` has no other form, and no other way to start a process
//! (`libc`, `exec`, `fork`, the testkit's `git_command`, an alias of
//! `Command`) is named.
//!
//! The scan reads tokens, so comments, the text of string literals and
//! items under `#[cfg(test)]` are not code; the scanner is tested on
//! planted text below.

use std::fs;
use std::path::Path;

/// Where a program may be started, and which: `(file under src/, the
/// program expression as tokens, what it runs)`.
const PROGRAMS: [(&str, &str, &str); 2] = [
    ("cmd.rs", "&self.exe", "git (`GitCli::exe`)"),
    ("sign.rs", "&self.exe", "ssh-keygen (`SshKeygen::exe`)"),
];

/// A runner's executable defaults to a literal program: `(file, tokens)`.
const DEFAULTS: [(&str, &str); 2] = [
    ("cmd.rs", "OsString::from(\"git\")"),
    ("sign.rs", "OsString::from(\"ssh-keygen\")"),
];

/// Programs that would run a command line (last path component).
const SHELLS: [&str; 15] = [
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "fish",
    "busybox",
    "env",
    "cmd",
    "cmd.exe",
    "powershell",
    "pwsh",
];

/// Names of other ways to start a process, or of a command builder that
/// does not clear the environment (the testkit's `git_command`).
const OTHER_SPAWNERS: [&str; 12] = [
    "libc",
    "nix",
    "exec",
    "pre_exec",
    "execv",
    "execve",
    "execvp",
    "fork",
    "posix_spawn",
    "posix_spawnp",
    "system",
    "git_command",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    /// A number, a char literal or a lifetime.
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

impl Token {
    fn text(&self) -> String {
        match &self.tok {
            Tok::Ident(s) => s.clone(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(c) => c.to_string(),
            Tok::Other => "_".into(),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(&self.tok, Tok::Ident(i) if i == s)
    }
}

fn ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Rust source as tokens: comments dropped, a string literal's text kept
/// raw (escapes as written), char literals and lifetimes told apart.
fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut toks = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        let mut push = |tok: Tok| {
            toks.push(Token {
                tok,
                line: start_line,
            })
        };
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 1;
            i += 2;
            while i < c.len() && depth > 0 {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some((open, hashes)) = raw_string_at(&c, i) {
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = open + 1;
            while j < c.len() && !c[j..].starts_with(&close) {
                j += 1;
            }
            let text: String = c[open + 1..j.min(c.len())].iter().collect();
            line += text.matches('\n').count();
            push(Tok::Str(text));
            i = j + close.len();
        } else if ch == '"' || ((ch == 'b' || ch == 'c') && at(i + 1) == '"') {
            let mut j = if ch == '"' { i + 1 } else { i + 2 };
            let begin = j;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let text: String = c[begin..j.min(c.len())].iter().collect();
            line += text.matches('\n').count();
            push(Tok::Str(text));
            i = j + 1;
        } else if ch == '\'' || (ch == 'b' && at(i + 1) == '\'') {
            let q = if ch == '\'' { i } else { i + 1 };
            if at(q + 1) == '\\' {
                // An escaped char literal: '\n', '\'', '\u{..}'.
                let mut j = q + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(q + 2) == '\'' {
                i = q + 3;
            } else {
                // A lifetime or a label.
                i = q + 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
            push(Tok::Other);
        } else if ident_start(ch) {
            let mut j = i;
            while j < c.len() && ident_char(c[j]) {
                j += 1;
            }
            // A raw identifier, `r#type`.
            if j == i + 1 && ch == 'r' && at(j) == '#' && ident_start(at(j + 1)) {
                i = j + 1;
                j = i;
                while j < c.len() && ident_char(c[j]) {
                    j += 1;
                }
            }
            push(Tok::Ident(c[i..j].iter().collect()));
            i = j;
        } else if ch.is_ascii_digit() {
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            push(Tok::Other);
        } else {
            push(Tok::Punct(ch));
            i += 1;
        }
    }
    toks
}

/// At `i`, a raw string (`r"`, `r#"`, `br"`, `cr#"`...): the index of its
/// opening quote and its number of `#`.
fn raw_string_at(c: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if matches!(c.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = c[j..].iter().take_while(|ch| **ch == '#').count();
    (c.get(j + hashes) == Some(&'"')).then_some((j + hashes, hashes))
}

/// Whether `toks` starts with the tokens `pattern` renders to.
fn starts_with(toks: &[Token], pattern: &[&str]) -> bool {
    toks.len() >= pattern.len() && toks.iter().zip(pattern).all(|(t, p)| t.text() == *p)
}

/// The index just past the group that opens at `open` (`(`, `[` or `{`).
fn group_end(toks: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct('(') || t.is_punct('[') || t.is_punct('{') {
            depth += 1;
        } else if t.is_punct(')') || t.is_punct(']') || t.is_punct('}') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return j + 1;
            }
        }
    }
    toks.len()
}

/// The tokens without the items under `#[cfg(test)]` (unit tests are not
/// shipped code).
fn shipped(toks: Vec<Token>) -> Vec<Token> {
    const CFG_TEST: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !starts_with(&toks[i..], &CFG_TEST) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        // The item ends at a `;` outside any group, or with its body.
        let mut j = i + CFG_TEST.len();
        while j < toks.len() {
            let t = &toks[j];
            if t.is_punct(';') {
                j += 1;
                break;
            }
            if t.is_punct('{') {
                j = group_end(&toks, j);
                break;
            }
            if t.is_punct('(') || t.is_punct('[') {
                j = group_end(&toks, j);
            } else {
                j += 1;
            }
        }
        i = j;
    }
    out
}

/// What the scan found: every place a program is started, as `(file,
/// program tokens)`, and every breach, as `file:line: what`.
#[derive(Debug, Default)]
struct Report {
    sites: Vec<(String, String)>,
    violations: Vec<String>,
}

/// Scans `(path under src/, source)` pairs.
fn scan(files: &[(String, String)]) -> Report {
    let mut report = Report::default();
    for (file, src) in files {
        let toks = shipped(lex(src));
        let runner = PROGRAMS.iter().any(|(f, _, _)| f == file);
        let mut breach = |line: usize, what: String| {
            report.violations.push(format!("{file}:{line}: {what}"));
        };
        for (i, t) in toks.iter().enumerate() {
            match &t.tok {
                Tok::Ident(name) if name == "Command" => {
                    if !runner {
                        breach(t.line, "`Command` outside the runners".into());
                    }
                    if toks.get(i + 1).is_some_and(|n| n.is_ident("as")) {
                        breach(t.line, "`Command` renamed".into());
                    }
                }
                Tok::Ident(name) if OTHER_SPAWNERS.contains(&name.as_str()) => {
                    breach(
                        t.line,
                        format!("`{name}` names another way to start a process"),
                    );
                }
                Tok::Ident(name)
                    if name == "with_executable" && (i == 0 || !toks[i - 1].is_ident("fn")) =>
                {
                    breach(
                        t.line,
                        "the git executable is chosen in the adapter (only the operator's PROBITY_GIT may)".into(),
                    );
                }
                Tok::Str(s) => {
                    let program = s.rsplit('/').next().unwrap_or(s);
                    if SHELLS.contains(&program) {
                        breach(t.line, format!("string \"{s}\" names a shell"));
                    }
                    if s == "-c" {
                        let next = toks[i + 1..].iter().find_map(|n| match &n.tok {
                            Tok::Str(v) => Some(v.as_str()),
                            _ => None,
                        });
                        if !next.is_some_and(is_config_pair) {
                            breach(
                                t.line,
                                "\"-c\" not followed by a git `key=value` setting".into(),
                            );
                        }
                    }
                }
                _ => {}
            }
            if !starts_with(&toks[i..], &["Command", ":", ":", "new", "("]) {
                continue;
            }
            let open = i + 4;
            let close = group_end(&toks, open);
            let program: String = toks[open + 1..close - 1].iter().map(Token::text).collect();
            if !PROGRAMS.iter().any(|(f, p, _)| f == file && *p == program) {
                breach(
                    t.line,
                    format!("starts `{program}`, not an allowed program"),
                );
            }
            if !clears_env(&toks, i) {
                breach(
                    t.line,
                    format!("`{program}` is not given a cleared environment (`env_clear`)"),
                );
            }
            report.sites.push((file.clone(), program));
        }
        let flat: String = toks.iter().map(Token::text).collect();
        for (f, default) in DEFAULTS {
            if f == file && !flat.contains(default) {
                breach(
                    0,
                    format!("the runner's program does not default to `{default}`"),
                );
            }
        }
    }
    report
}

/// git's `-c` takes `name=value` (`core.quotePath=false`, `{k}={v}`).
fn is_config_pair(s: &str) -> bool {
    s.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-_{}".contains(c))
    }) && !s.starts_with('-')
        && !s.contains(char::is_whitespace)
}

/// Whether the function around the `Command::new` at `at` calls
/// `.env_clear()` after it.
fn clears_env(toks: &[Token], at: usize) -> bool {
    let Some(fn_at) = toks[..at].iter().rposition(|t| t.is_ident("fn")) else {
        return false;
    };
    let Some(body) = toks[fn_at..].iter().position(|t| t.is_punct('{')) else {
        return false;
    };
    let end = group_end(toks, fn_at + body);
    (at..end).any(|j| starts_with(&toks[j..], &[".", "env_clear", "("]))
}

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
/// This crate's Rust sources as (path under `src/` with `/` separators,
/// text).
fn crate_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    probity_testkit::sources::rust_files(&src)
        .unwrap()
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy();
            (rel.replace('\\', "/"), fs::read_to_string(p).unwrap())
        })
        .collect()
}

/// The git subcommands that talk to a remote: the only ones that may run
/// with the user's transport settings (`GitCli::with_transport_env`).
const REMOTE_COMMANDS: [&str; 3] = ["push", "fetch", "ls-remote"];

/// Every use of the transport opt-in, as `file:line: what` breaches: the
/// opt-in itself (`with_transport_env`) is called only by
/// `Repo::transport_git` in repo.rs, and every function that calls
/// `transport_git` runs one of [`REMOTE_COMMANDS`] (a string literal of it
/// in its body). So an observation of the local repository never runs
/// with `GIT_SSH_COMMAND`, `GIT_ASKPASS` and the like.
fn transport_breaches(files: &[(String, String)]) -> (usize, Vec<String>) {
    let mut uses = 0;
    let mut breaches = Vec::new();
    for (file, src) in files {
        let toks = shipped(lex(src));
        for (i, t) in toks.iter().enumerate() {
            let defining = i > 0 && toks[i - 1].is_ident("fn");
            if t.is_ident("with_transport_env") && !defining {
                let in_fn = toks[..i]
                    .iter()
                    .rposition(|t| t.is_ident("fn"))
                    .and_then(|f| toks.get(f + 1))
                    .is_some_and(|n| n.is_ident("transport_git"));
                if !(file == "repo.rs" && in_fn) {
                    breaches.push(format!(
                        "{file}:{}: `with_transport_env` outside `Repo::transport_git`",
                        t.line
                    ));
                }
            }
            if !t.is_ident("transport_git") || defining {
                continue;
            }
            uses += 1;
            let Some(fn_at) = toks[..i].iter().rposition(|t| t.is_ident("fn")) else {
                breaches.push(format!(
                    "{file}:{}: `transport_git` outside a function",
                    t.line
                ));
                continue;
            };
            let body = toks[fn_at..]
                .iter()
                .position(|t| t.is_punct('{'))
                .map_or(toks.len(), |b| fn_at + b);
            let end = group_end(&toks, body);
            let remote = toks[body..end]
                .iter()
                .any(|t| matches!(&t.tok, Tok::Str(s) if REMOTE_COMMANDS.contains(&s.as_str())));
            if !remote {
                breaches.push(format!(
                    "{file}:{}: `transport_git` in a function that runs none of {REMOTE_COMMANDS:?}",
                    t.line
                ));
            }
        }
    }
    (uses, breaches)
}

#[test]
fn the_transport_settings_reach_only_the_commands_that_talk_to_a_remote() {
    let files = crate_sources();
    let (uses, breaches) = transport_breaches(&files);
    assert!(breaches.is_empty(), "{}", breaches.join("\n"));
    // Not vacuous: push, the notes fetch, its dry run and ls-remote.
    assert!(uses >= 4, "{uses} uses of transport_git");
    // The scanner catches an observation given the transport settings.
    let planted = [(
        "delivery.rs".to_string(),
        "fn tips(&self) { self.transport_git().run(self.root(), [\"rev-parse\", \"HEAD\"]); }\nfn leak(g: GitCli) -> GitCli { g.with_transport_env() }".to_string(),
    )];
    let (_, planted) = transport_breaches(&planted);
    assert_eq!(planted.len(), 2, "{planted:#?}");
}

#[test]
fn only_the_runners_start_programs_fixed_never_a_shell_with_a_cleared_environment() {
    let files = crate_sources();
    // Not vacuous: the runners and the rest of the crate were read.
    for needed in ["lib.rs", "cmd.rs", "sign.rs", "subject/git.rs"] {
        assert!(
            files.iter().any(|(f, _)| f == needed),
            "{needed} not scanned"
        );
    }
    let report = scan(&files);
    assert!(
        report.violations.is_empty(),
        "{}",
        report.violations.join("\n")
    );
    // Each allowed program is started exactly once: a new site must be
    // added to PROGRAMS (and to ARCHITECTURE's invariant) on purpose.
    let mut sites = report.sites;
    sites.sort();
    let mut allowed: Vec<(String, String)> = PROGRAMS
        .iter()
        .map(|(f, p, _)| ((*f).to_string(), (*p).to_string()))
        .collect();
    allowed.sort();
    assert_eq!(sites, allowed);
}

fn one(file: &str, src: &str) -> Report {
    scan(&[(file.to_string(), src.to_string())])
}

#[test]
fn the_scanner_reports_planted_breaches() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "cmd.rs",
            "fn f() { let mut c = Command::new(\"sh\"); c.env_clear(); c.arg(\"-c\").arg(\"git status\"); }",
            "starts `\"sh\"`",
        ),
        (
            "cmd.rs",
            "fn f() { let mut c = Command::new(\"sh\"); c.env_clear(); }",
            "names a shell",
        ),
        (
            "cmd.rs",
            "fn f(c: &mut Command) { c.args([\"-c\", \"git status\"]); }",
            "\"-c\" not followed",
        ),
        (
            "sign.rs",
            "fn f(program: &str) { let mut c = Command::new(program); c.env_clear(); }",
            "starts `program`",
        ),
        (
            "repo.rs",
            "fn f() { let mut c = Command::new(\"git\"); c.env_clear(); }",
            "`Command` outside the runners",
        ),
        (
            "sign.rs",
            "fn kill_group(child: &Child) { let _ = Command::new(\"kill\").arg(\"-KILL\").status(); }\nfn g(c: &mut Command) { c.env_clear(); }",
            "`\"kill\"` is not given a cleared environment",
        ),
        (
            "sign.rs",
            "use std::process::Command as Cmd;",
            "`Command` renamed",
        ),
        (
            "sign.rs",
            "fn f() { let mut c = std::process::Command::new(\"/bin/bash\"); c.env_clear(); }",
            "\"/bin/bash\" names a shell",
        ),
        (
            "notes.rs",
            "fn f() { unsafe { libc::execvp(p, a) }; }",
            "`libc` names another way",
        ),
        (
            "notes.rs",
            "fn f() { let _ = probity_testkit::git_env::git_command(dir, None); }",
            "`git_command` names another way",
        ),
        (
            "port.rs",
            "fn f() -> GitCli { GitCli::with_executable(config_value) }",
            "chosen in the adapter",
        ),
    ];
    for (file, src, expected) in cases {
        let report = one(file, src);
        assert!(
            report.violations.iter().any(|v| v.contains(expected)),
            "{src}\nexpected `{expected}` in {:#?}",
            report.violations
        );
    }
    // A runner that lost its literal default.
    let report = one(
        "cmd.rs",
        "fn new(exe: OsString) -> Self { Self { exe } }\nfn command(&self) -> Command { let mut c = Command::new(&self.exe); c.env_clear(); c }",
    );
    assert_eq!(report.violations.len(), 1, "{:#?}", report.violations);
    assert!(report.violations[0].contains("does not default to"));
}

#[test]
fn the_scanner_reads_code_not_comments_strings_or_unit_tests() {
    let planted = r####"
//! Never `Command::new("sh")`; /* nor Command::new("bash") /* nested */ */
use std::ffi::OsString;
fn quoted() -> &'static str {
    let _brace = '{';
    let _quote = '\'';
    let _raw = r#"Command::new("sh") and "-c" inside a raw string"#;
    "Command::new(\"sh\")"
}
fn config(args: &mut Vec<OsString>) {
    args.push("-c".into());
    args.push(format!("{k}={v}").into());
}
#[cfg(test)]
mod tests {
    fn fake() { let _ = std::process::Command::new("/bin/sh").arg("-c").arg("x"); }
}
"####;
    let report = one("repo.rs", planted);
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    assert!(report.sites.is_empty());
    // An allowed runner, written as the real one is.
    let runner = "impl Default for GitCli { fn default() -> Self { Self { exe: OsString::from(\"git\") } } }\n\
        pub fn command(&self, cwd: &Path) -> Command {\n    let mut cmd = Command::new(&self.exe);\n    cmd.env_clear();\n    cmd.args([\"-c\", \"core.quotePath=false\"]);\n    cmd\n}";
    let report = one("cmd.rs", runner);
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    assert_eq!(
        report.sites,
        vec![("cmd.rs".to_string(), "&self.exe".to_string())]
    );
    // Lines are counted through comments and multi-line strings.
    let report = one("repo.rs", "/* a\nb */\nlet s = \"x\ny\";\nCommand");
    assert_eq!(
        report.violations,
        vec!["repo.rs:5: `Command` outside the runners".to_string()]
    );
}
