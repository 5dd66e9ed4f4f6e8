//! How v11 and v12 read a file's words (D-R170, D-R174): a JSON
//! document's strings, a pre-commit configuration's values, a script's
//! words cut into pieces at the shell's separators, and the values its
//! assignments give; and what the approved environment files assign.

use std::collections::{BTreeMap, BTreeSet};

use super::{ASSIGNS, is_windows_script, structural};
use crate::review::risk::RunConfig;
use crate::review::risk::refs;
use crate::review::snapshot::CandidateContent;

/// One piece of a word, and whether a variable (`$`) came before it in
/// that word (`${D}/env`: `/env` may sit under any directory); and, under
/// v12, whether it names a file only (a JSON key, an inert key's value).
pub(super) struct Piece {
    pub(super) text: String,
    pub(super) after_variable: bool,
    /// Whether it is a variable's name: right after `$` (`$D`, `${D}`,
    /// `$(D)`), not only later in a word that had one.
    pub(super) variable: bool,
    pub(super) file_only: bool,
}

/// One source's pieces in order, and the values its assignments give
/// (`D=tools`, `D := tools`): bases its paths may be read from.
pub(super) struct Words {
    pub(super) pieces: Vec<Piece>,
    pub(super) values: Vec<String>,
    /// v12: the words, as written, that give pytest's or Python's
    /// environment (`PYTEST_ADDOPTS=...`: red team round 31's 31pra;
    /// `PYTHONWARNINGS=...`: round 32).
    pub(super) pytest_env: Vec<String>,
}

/// The words of the file at `path` (`config`: one the policy names, not
/// read in turn): a JSON document's strings, a pre-commit configuration's
/// values, else a script's words.
pub(super) fn file_words(path: &str, text: &str, config: bool, v12: bool) -> Words {
    if path.ends_with(".json") || path.ends_with(".jsonc") {
        let words = if v12 {
            structural::json_words(text)
        } else {
            plain(refs::json_strings(text))
        };
        words_of(words, false, v12)
    } else if config && !path.ends_with(".envrc") {
        // A pre-commit configuration: v5's values.
        words_of(
            plain(refs::yaml_values(text, &["entry", "args"])),
            false,
            v12,
        )
    } else if v12 && is_windows_script(path) {
        // `python tools\gen.py` in a `.cmd`: a path separator, never an
        // escape (round 18's 04v).
        words_of(
            plain(refs::envrc_words(&text.replace('\\', "/")).0),
            true,
            v12,
        )
    } else {
        let mut words = words_of(plain(refs::envrc_words(text).0), true, v12);
        if v12 {
            // Each word of a value that holds several (red team round
            // 27's 27ma, 27ma2).
            let more = several_values(text, is_makefile(path));
            let more = more.iter().flat_map(|(_, v)| v.iter().map(String::as_str));
            words.values.extend(as_values(more, v12));
            words.values.sort();
            words.values.dedup();
        }
        words
    }
}

/// Whether the file at `path` is read by `make` (its default names, or a
/// `.mk`): there `D=a b` gives `D` the whole rest of the line.
fn is_makefile(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "Makefile" | "makefile" | "GNUmakefile") || name.ends_with(".mk")
}

/// Each name given a value that holds several words, with those words
/// (v12): `make`'s `SUBDIRS = core plugins` (and, in a makefile,
/// `SUBDIRS=core plugins`), and a shell's quoted `DIRS="core plugins"`,
/// also after `export`, `local` and the like. A loop over such a variable
/// (`for d in $(SUBDIRS); do $(MAKE) -C $$d`) may run in each of them, and
/// a walker given it (`run-parts $DIRS`) walks each (red team round 27's
/// 27ma, 27ma2).
pub(super) fn several_values(text: &str, makefile: bool) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for code in refs::code_lines(text) {
        for command in code.split([';', '&', '|']) {
            let words: Vec<&str> = command.split_whitespace().collect();
            // `D = a b`, `D := a b`.
            if let [name, op, rest @ ..] = words.as_slice()
                && ASSIGNS.contains(op)
                && is_name(name)
                && rest.len() > 1
            {
                let values = rest.iter().map(|w| w.trim_matches(['"', '\'']).to_string());
                out.push(((*name).to_string(), values.collect()));
                continue;
            }
            // Past a declaring command and its options (`export -n`).
            let command = command.trim_start();
            let skipped = words
                .iter()
                .take_while(|w| DECLARES.contains(w) || w.starts_with('-'))
                .count();
            let Some(first) = words.get(skipped) else {
                continue;
            };
            let Some(at) = command.find(first) else {
                continue;
            };
            let Some((name, value)) = command[at..].split_once('=') else {
                continue;
            };
            let name = name.trim_end_matches([':', '?', '+', '!']);
            if !is_name(name) {
                continue;
            }
            // `D="a b"` (or `'a b'`): the quoted words; in a makefile,
            // `D=a b`: the rest of the line.
            let quoted = value
                .strip_prefix(['"', '\''])
                .and_then(|v| v.split_once(['"', '\'']))
                .map(|(inside, _)| inside);
            let values: Vec<String> = match quoted {
                Some(inside) => inside.split_whitespace().map(str::to_string).collect(),
                None if makefile => value.split_whitespace().map(str::to_string).collect(),
                None => continue,
            };
            if values.len() > 1 {
                out.push((name.to_string(), values));
            }
        }
    }
    out
}

/// Where the file at `path` reads its words from: the root, its own
/// directory (a file read in turn, not a `config`), and `more`'s.
pub(super) fn bases_of(path: &str, config: bool, more: &[&[String]]) -> Vec<String> {
    let mut bases = vec![String::new()];
    if !config && let Some((dir, _)) = path.rsplit_once('/') {
        bases.push(dir.to_string());
    }
    bases.extend(more.iter().flat_map(|m| m.iter().cloned()));
    bases
}

/// What the files followed assign each variable (v12, red team rounds
/// 22's 22d and 23's 23c): an approved `.envrc`'s exports, a `.env`, a
/// file a script sources, a task's `options.env`, a script's assignments
/// (`D=tools`, `D := tools`, `${D:=tools}`) and loops (`for d in a b`).
/// A variable is in the environment of every command the configurations
/// run, so a walker given `$D` walks every literal value `D` has anywhere.
#[derive(Debug, Default)]
pub(super) struct Vars {
    literal: BTreeMap<String, Vec<String>>,
    /// Names given a value computed at run time (`$(cat f)`) somewhere.
    computed: BTreeSet<String>,
    /// Names expanded with a default (`${D:-tools}`): unset, they are
    /// the default, which the expansion's word shows.
    defaulted: BTreeSet<String>,
    /// Whether some source assigns a variable whose name is itself a
    /// value (`eval "$N=x"`, `printf -v "$N"`, `declare "$N=x"`: round
    /// 26's 26wa4, 26wa6): then no variable's value is known.
    dynamic: bool,
}

impl Vars {
    /// The assignments of every configuration read whole.
    pub(super) fn of(configs: &[RunConfig]) -> Vars {
        let mut vars = Vars::default();
        for c in configs {
            let CandidateContent::Bytes {
                bytes,
                complete: true,
            } = &c.content
            else {
                continue;
            };
            let text = String::from_utf8_lossy(bytes);
            let path = c.path.as_str();
            if path.ends_with(".json") || path.ends_with(".jsonc") {
                // Each string apart; a bare name counts only in a command
                // line (a key `HOOKS` is no use of the variable).
                for (w, _) in structural::json_words(&text) {
                    let tokens = tokens_of(std::slice::from_ref(&w));
                    vars.read(&tokens, tokens.len() > 1);
                    vars.assign_several(&w, false);
                }
            } else {
                // Line by line, so that each command's first word is
                // known; quotes joined and comments left out, as
                // `envrc_words` reads them.
                let lines: Vec<String> = refs::code_lines(&text)
                    .map(|l| {
                        let mut joined: String = l
                            .chars()
                            .filter(|c| !matches!(c, '"' | '\'' | '\\'))
                            .collect();
                        joined.push('\n');
                        joined
                    })
                    .collect();
                vars.read(&tokens_of(&lines), true);
                vars.assign_several(&text, is_makefile(path));
            }
            // `${D:=tools}` and `${D=tools}` assign their default.
            let mut rest = text.as_ref();
            while let Some(at) = rest.find("${") {
                rest = &rest[at + 2..];
                let name_len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let (name, after) = rest.split_at(name_len);
                if let Some(value) = after
                    .strip_prefix(":=")
                    .or_else(|| after.strip_prefix('='))
                    .and_then(|v| v.split_once('}'))
                    .map(|(v, _)| v)
                    && is_name(name)
                {
                    vars.assign(name, value);
                }
                // `${D:-tools}`: used where it may be unset.
                if (after.starts_with(":-") || after.starts_with('-')) && is_name(name) {
                    vars.defaulted.insert(name.to_string());
                }
            }
        }
        vars
    }

    /// The assignments among one source's `tokens`; with `bare`, a name
    /// used otherwise (`read D`, `printf -v D`, `mapfile D`) is given a
    /// value no word shows (round 24's 24wa2, 24wa10).
    fn read(&mut self, tokens: &[&str], bare: bool) {
        let mut says = false;
        for (k, t) in tokens.iter().enumerate() {
            if let Some((name, value)) = t.split_once('=') {
                let base = name.trim_end_matches([':', '?', '+', '!']);
                if is_name(base) {
                    if name.ends_with('+') {
                        // `D+=/hooks` appends (24wa3).
                        self.computed.insert(base.to_string());
                    } else {
                        self.assign(base, value);
                    }
                }
                continue;
            }
            if let [name, op, value, ..] = tokens[k..]
                && ASSIGNS.contains(&op)
                && is_name(name)
            {
                if op == "+=" || op == "!=" {
                    self.computed.insert(name.to_string());
                } else {
                    self.assign(name, value);
                }
                continue;
            }
            if *t == "for"
                && let [_, name, "in", ..] = tokens[k..]
                && is_name(name)
            {
                for v in tokens[k + 3..]
                    .iter()
                    .take_while(|v| !matches!(**v, "do" | "do;" | ";"))
                {
                    self.assign(name, v.trim_end_matches(';'));
                }
                continue;
            }
            if *t == ";" {
                says = false;
                continue;
            }
            // A name given by a value: `eval`, or an assigning command's
            // operand that is an expansion.
            if *t == "eval"
                || (t.starts_with('$')
                    && (k > 0 && tokens[k - 1] == "-v"
                        || tokens[..k]
                            .iter()
                            .rev()
                            .find(|p| !p.starts_with('-'))
                            .is_some_and(|p| {
                                ["read", "mapfile", "readarray"].contains(p)
                                    || DECLARES[..5].contains(p)
                            })))
            {
                self.dynamic = true;
            }
            if k == 0 || tokens[k - 1] == ";" {
                says = SAYS.contains(t);
            }
            // An option glued to the name it assigns (`printf -vD`,
            // `read -aD`: 25wa3).
            if let Some(name) = t.strip_prefix("-v").or_else(|| t.strip_prefix("-a"))
                && is_name(name)
            {
                self.computed.insert(name.to_string());
                says = false;
            }
            if *t == "-v" {
                says = false;
            }
            if bare && !says && is_name(t) {
                let declared = tokens[..k]
                    .iter()
                    .rev()
                    .find(|p| !p.starts_with('-'))
                    .is_some_and(|p| DECLARES.contains(p));
                if !declared {
                    self.computed.insert(t.to_string());
                }
            }
        }
    }

    /// Each word of each value in `text` that holds several
    /// ([`several_values`]) is one of its name's values.
    fn assign_several(&mut self, text: &str, makefile: bool) {
        for (name, values) in several_values(text, makefile) {
            for v in values {
                self.assign(&name, &v);
            }
        }
    }

    fn assign(&mut self, name: &str, value: &str) {
        let value = value.trim_matches(['"', '\'']);
        // Empty as cut: `D=(tools/hooks)`, an array (round 26's 26wa2), or
        // `D=` before a redirection.
        if value.is_empty() || value.contains(['$', '`']) {
            self.computed.insert(name.to_string());
        } else {
            self.literal
                .entry(name.to_string())
                .or_default()
                .push(value.to_string());
        }
    }

    /// Whether `name` may hold a value no word shows: one computed at run
    /// time somewhere, or any name once a source assigns names given by
    /// values (`eval`).
    pub(super) fn computed(&self, name: &str) -> bool {
        self.dynamic || self.computed.contains(name)
    }

    /// Whether a file followed assigns `name` at all (a value, or one
    /// computed at run time).
    pub(super) fn assigns(&self, name: &str) -> bool {
        self.literal.contains_key(name) || self.computed.contains(name)
    }

    /// Every literal value `name` has, when it has one and none computed
    /// at run time (else the variable may hold any directory).
    pub(super) fn literal(&self, name: &str) -> Option<&[String]> {
        if self.dynamic || self.computed.contains(name) {
            return None;
        }
        match self.literal.get(name) {
            Some(values) => Some(values),
            None if self.defaulted.contains(name) => Some(&[]),
            None => None,
        }
    }
}

/// Commands that declare a variable without giving it a value of their
/// own (`export D`, `local -r D`), and a loop's variable.
const DECLARES: &[&str] = &[
    "export", "readonly", "local", "declare", "typeset", "unset", "for",
];

/// The shell tokens of `words`: cut at blanks, redirections and
/// parentheses (`read D<f`, `D=$(cat f)`: round 25's 25wa), and each
/// command separator (`;`, `&`, `|`, a line's end) kept as `;`.
fn tokens_of(words: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    for w in words {
        let mut rest = w.as_str();
        while !rest.is_empty() {
            let end = rest
                .find([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')'])
                .unwrap_or(rest.len());
            let token = rest[..end].trim_matches(['"', '\'']);
            if !token.is_empty() {
                out.push(token);
            }
            let Some(sep) = rest[end..].chars().next() else {
                break;
            };
            if matches!(sep, '\n' | ';' | '&' | '|') && out.last() != Some(&";") {
                out.push(";");
            }
            rest = &rest[end + sep.len_utf8()..];
        }
        // A word of `envrc_words` is one of a command's words; a JSON
        // string is a whole command line.
        if w.contains([' ', '\t']) && out.last() != Some(&";") {
            out.push(";");
        }
    }
    out
}

/// Commands whose words are text, not variables (round 25's 25la: `echo
/// "running hooks"` is no use of `$hooks`), but for `printf -v`.
const SAYS: &[&str] = &["echo", "printf", "logger", "print", "log", "info", "warn"];

/// Whether `name` is a shell variable's name.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Words that may each name a directory too (v12): not a file only.
pub(super) fn plain(words: Vec<String>) -> Vec<(String, bool)> {
    words.into_iter().map(|w| (w, false)).collect()
}

/// `words` cut into pieces at v5's separators, in order, each marked when
/// a `$` came before it in its word; and, for a script (`script`), what
/// its assignments give. A script's word loses a recipe's `@` and `+`,
/// and a `-` before a path or a variable (`-./x`, `-$(MAKE)`).
pub(super) fn words_of(words: Vec<(String, bool)>, script: bool, v12: bool) -> Words {
    let mut pieces = Vec::new();
    let mut values = Vec::new();
    let mut assigned = false;
    // v12: a word with quotes or backslashes inside is read twice, as
    // written and as the shell joins it (`tools/g''en.py`, `tools/g\\en.py`
    // are `tools/gen.py`; round 19's 03c, 03d).
    let words: Vec<(String, bool)> = if v12 {
        words
            .into_iter()
            .flat_map(|(w, only)| {
                let joined: String = w
                    .chars()
                    .filter(|c| !matches!(c, '"' | '\'' | '\\'))
                    .collect();
                let again = (joined.len() != w.len()).then_some((joined, only));
                std::iter::once((w, only)).chain(again)
            })
            .collect()
    } else {
        words
    };
    for (w, file_only) in &words {
        let file_only = *file_only;
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
        } else if v12 {
            // A task's command is a shell line too: its assignments
            // (`D=tools/hooks; run-parts "$D"`, round 20's 01e).
            for token in w.split([' ', '\t', ';', '&', '|']) {
                if let Some((name, value)) = token.split_once('=')
                    && !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    values.push(value.to_string());
                }
            }
            values.extend(structural::loop_values(w.split_whitespace()));
        }
        // v12: a variable inside a component is a glob's `*`, and a glob
        // is one piece. A bracket may be no bracket expression
        // (`["lib/x.py"]` in Python, round 22; `["tools.plug"]`, which
        // globbing reads as one, round 29's 29pcp): such a word is also
        // cut at its brackets, as written.
        let rewritten;
        let written = w;
        let separators: &[fn(char) -> bool] = if v12 {
            rewritten = structural::globbed(w);
            w = &rewritten;
            if written.contains(['[', ']']) {
                &[
                    |c| refs::is_separator(c) && !matches!(c, '*' | '?' | '[' | ']'),
                    |c| refs::is_separator(c) && !matches!(c, '*' | '?'),
                ]
            } else {
                &[|c| refs::is_separator(c) && !matches!(c, '*' | '?' | '[' | ']')]
            }
        } else {
            &[refs::is_separator]
        };
        for (pass, separator) in separators.iter().enumerate() {
            let mut after_variable = false;
            let mut dollar = false;
            let mut rest = if pass == 0 { w } else { written };
            while !rest.is_empty() {
                let end = rest.find(separator).unwrap_or(rest.len());
                if end > 0 {
                    pieces.push(Piece {
                        text: rest[..end].to_string(),
                        after_variable,
                        variable: dollar,
                        file_only,
                    });
                    dollar = false;
                }
                let Some(sep) = rest[end..].chars().next() else {
                    break;
                };
                dollar = sep == '$' || (dollar && matches!(sep, '{' | '('));
                after_variable |= sep == '$';
                rest = &rest[end + sep.len_utf8()..];
                // A comma standing alone is a word of its own: GNU find's
                // `,` ends a list (red team round 28's 28fc).
                if v12
                    && sep == ','
                    && end == 0
                    && rest.chars().next().is_none_or(char::is_whitespace)
                {
                    pieces.push(Piece {
                        text: ",".to_string(),
                        after_variable: false,
                        variable: false,
                        file_only,
                    });
                }
            }
        }
    }
    // v12: a shell loop's words are its variable's values (round 21's
    // 02b: `for d in tools/pre tools/post; do run-parts "$d"; done`).
    if v12 && script {
        values.extend(structural::loop_values(
            words.iter().map(|(w, _)| w.as_str()),
        ));
    }
    let values = as_values(values.iter().map(String::as_str), v12);
    let pytest_env = if v12 {
        words
            .iter()
            .filter(|(w, _)| {
                ["PYTEST_ADDOPTS=", "PYTEST_PLUGINS=", "PYTHONWARNINGS="]
                    .iter()
                    .any(|n| w.contains(n))
            })
            .map(|(w, _)| w.clone())
            .collect()
    } else {
        Vec::new()
    };
    Words {
        pieces,
        values,
        pytest_env,
    }
}

/// Assigned values that may be directories, as paths: no expansion, and
/// (v12) one word of a path (`D=tools`), not an expression (`out =
/// os.path.join(p,`), which would read every word again from a base that
/// is none.
fn as_values<'a>(values: impl Iterator<Item = &'a str>, v12: bool) -> Vec<String> {
    values
        .filter(|v| !v.contains('$'))
        .map(|v| v.trim_matches(['"', '\'']))
        .filter(|v| !v12 || !v.contains(refs::is_separator))
        .filter_map(refs::normalise_cased)
        .collect()
}
