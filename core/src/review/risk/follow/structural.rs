//! Risk policy v12's structural following (D-R174, red team round 18):
//! what v11 names one idiom at a time, v12 names by the shape of a word.
//!
//! - Every name a command word gives is also a directory (everything
//!   below it) and a stem (`tools/json` names `tools/json.py`): a
//!   directory a command walks, runs or puts on `PATH` (`run-parts
//!   tools/hooks`, `find tools -exec`, `python3 tools`, `PATH=tools/bin`),
//!   and a module a script imports beside it, need no table.
//! - A word with a glob (`tools/*.mk`, `step*.py`), or a variable inside
//!   one component (`tools/$(N).py`, read `tools/*.py`), names what the
//!   glob matches.
//! - Every file so named is read in turn when its extension is one a
//!   tool runs or reads as a list (`.py`, `.js`, `.toml`, `.txt`, `.cmd`,
//!   `.ps1`, …), backslashes read as `/`; the per-step bound counts the
//!   files the trees hold, not the names asked.
//! - A runtime or a walker given the root (`node .`, `run-parts .`)
//!   names every file.
//!
//! A JSON document's keys and the values of keys that run nothing
//! (`label`, `problemMatcher`, `name`, `version`) name files only, as
//! v11's do: a label `test` runs nothing below `test/`.

/// Keys of a tasks document or a `package.json` whose values run
/// nothing: names of files only, never directories.
const INERT_KEYS: &[&str] = &[
    "label",
    "type",
    "group",
    "kind",
    "problemMatcher",
    "owner",
    "source",
    "severity",
    "fileLocation",
    "pattern",
    "regexp",
    "reveal",
    "revealProblems",
    "panel",
    "focus",
    "echo",
    "clear",
    "close",
    "showReuseMessage",
    "runOn",
    "detail",
    "icon",
    "id",
    "color",
    "dependsOn",
    "dependsOrder",
    "isBackground",
    "isDefault",
    "version",
    "instanceLimit",
    "hide",
    "promptOnClose",
    "name",
    "description",
    "license",
    "author",
    "keywords",
    "homepage",
    "repository",
    "bugs",
    "private",
    "engines",
    "packageManager",
    "url",
    "email",
    "funding",
    "contributors",
    "os",
    "cpu",
    "$schema",
];

/// Extensions of a named file v12 reads in turn besides v11's: scripts
/// of the languages tasks run, and the lists and manifests tools read
/// (`xargs -a list.txt`, `pyproject.toml`, `run.cmd`, `run.ps1`).
pub(super) const READ_EXTENSIONS: &[&str] = &[
    "txt", "toml", "cfg", "ini", "cmd", "bat", "ps1", "psm1", "py", "pyw", "js", "mjs", "cjs",
    "ts", "mts", "cts", "rb", "pl", "yaml", "yml", "conf", "env", "list", "make",
];

/// Extensions that make a dotted word a file name rather than a Python
/// module path (with [`READ_EXTENSIONS`]).
const FILE_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "mk", "json", "jsonc", "rs", "c", "h", "cc", "cpp", "hpp", "go", "java",
    "kt", "swift", "md", "rst", "html", "htm", "css", "scss", "svg", "png", "jpg", "gif", "csv",
    "log", "lock", "o", "a", "so", "dll", "exe", "zip", "gz", "tar", "xml", "out", "bin", "tsx",
    "jsx", "vue", "svelte", "lua", "sql", "proto", "tf", "nix", "in", "pem", "key", "crt",
];

/// Runtimes and walkers that run what a directory holds: given the root
/// (`node .`, `python3 .`, `run-parts .`, `find . -exec`), every file.
pub(super) const RUNS_DIRECTORY: &[&str] = &[
    "node",
    "nodejs",
    "python",
    "python3",
    "py",
    "pypy3",
    "bun",
    "deno",
    "ruby",
    "perl",
    "php",
    "run-parts",
];

/// Options of `find` (and `xargs`) that run what it finds.
pub(super) const FIND_RUNS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir", "xargs"];

/// Package runners that run a `package.json`'s `bin` or script.
pub(super) const NPXS: &[&str] = &["npx", "pnpx", "bunx"];

/// Python project tools whose `run` reads `pyproject.toml` (its
/// `[project.scripts]`, `[tool.poetry.scripts]`, `[tool.pdm.scripts]`).
pub(super) const PY_PROJECTS: &[(&str, &[&str])] = &[
    ("poetry", &["pyproject.toml"]),
    ("uv", &["pyproject.toml"]),
    ("uvx", &["pyproject.toml"]),
    ("pdm", &["pyproject.toml"]),
    ("hatch", &["pyproject.toml", "hatch.toml"]),
    ("rye", &["pyproject.toml"]),
    ("pipenv", &["Pipfile"]),
];

/// Tools that load a configuration written in a language v12 does not
/// follow: the configuration files named, as globs in the tool's
/// directories.
pub(super) const LOADS_CONFIG: &[(&str, &[&str])] = &[
    ("vite", &["vite.config.*"]),
    ("vitest", &["vitest.config.*", "vite.config.*"]),
    ("jest", &["jest.config.*"]),
    ("eslint", &["eslint.config.*", ".eslintrc*"]),
    ("webpack", &["webpack.config.*"]),
    ("rollup", &["rollup.config.*"]),
    ("next", &["next.config.*"]),
    ("nuxt", &["nuxt.config.*"]),
    ("nuxi", &["nuxt.config.*"]),
    ("astro", &["astro.config.*"]),
    ("svelte-kit", &["svelte.config.*"]),
    ("tsup", &["tsup.config.*"]),
    ("playwright", &["playwright.config.*"]),
    ("cypress", &["cypress.config.*"]),
    ("babel", &["babel.config.*", ".babelrc*"]),
    ("postcss", &["postcss.config.*"]),
    ("tailwindcss", &["tailwind.config.*"]),
    ("prettier", &["prettier.config.*", ".prettierrc*"]),
    ("mocha", &[".mocharc*"]),
    // bun reads its configuration on every run (`[test] preload`: red
    // team round 33's 33bpl).
    ("bun", &["bunfig.toml", ".bunfig.toml"]),
];

/// The extensions a tool's `NAME.config.*` is tried with, read in turn
/// (its imports followed; round 21's 01a: `vite.config.ts` importing
/// `./build/banner.mjs`).
pub(super) const CONFIG_EXTENSIONS: &[&str] = &["js", "mjs", "cjs", "ts", "mts", "cts", "json"];

/// Walkers' options that come before their start points (`find -L`).
pub(super) const FIND_OPTIONS: &[&str] = &["-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"];

/// direnv's commands whose next word is a file it sources (round 21's
/// 01g: `source_env tools/dev.envrc`, `source_env_if_exists
/// .envrc.local`).
pub(super) const SOURCES: &[&str] = &[
    "source_env",
    "source_env_if_exists",
    "dotenv",
    "dotenv_if_exists",
    "source_up",
    "source_up_if_exists",
];

/// Test runners with the files their discovery imports, at any depth
/// (pytest also runs the `>>>` lines of its default doctest files,
/// `test*.txt`: red team round 29's 29pdg).
pub(super) const DISCOVERS: &[(&str, &[&str])] = &[
    (
        "pytest",
        &["test_*.py", "*_test.py", "conftest.py", "test*.txt"],
    ),
    (
        "py.test",
        &["test_*.py", "*_test.py", "conftest.py", "test*.txt"],
    ),
    // unittest's discovery imports every package below where it starts,
    // tested or not (red team round 34's 34uti); nose's likewise.
    ("unittest", &["test*.py", "__init__.py"]),
    ("nose2", &["test*.py", "__init__.py"]),
    ("nosetests", &["test*.py", "__init__.py"]),
    ("jest", &["*.test.*", "*.spec.*", "__tests__"]),
    ("vitest", &["*.test.*", "*.spec.*"]),
    ("mocha", &["test", "*.spec.*", "*.test.*"]),
];

/// A JSON document's strings, each with whether it names a file only (a
/// key, or the value of an [`INERT_KEYS`] key outside an `env` object)
/// rather than also what is below it. A value in an array belongs to the
/// last key before it; a key is known past comments (round 19's 02a), and
/// an environment variable's name is never an inert key (02b).
pub(super) fn json_words(text: &str) -> Vec<(String, bool)> {
    use crate::review::risk::refs::{JsonEvent, json_events};
    let mut owners: Vec<String> = Vec::new();
    let mut last_key = String::new();
    let mut out = Vec::new();
    for event in json_events(text) {
        match event {
            JsonEvent::Open => owners.push(std::mem::take(&mut last_key)),
            JsonEvent::Close => last_key = owners.pop().unwrap_or_default(),
            JsonEvent::Str(text, true) => {
                last_key.clone_from(&text);
                out.push((text, true));
            }
            JsonEvent::Str(text, false) => {
                let in_env = owners.last().is_some_and(|k| k == "env");
                let inert = !in_env && INERT_KEYS.contains(&last_key.as_str());
                // An environment variable's value is an assignment too
                // (round 21's 02a: `run-parts "$HOOKS"`).
                if in_env {
                    out.push((format!("{last_key}={text}"), false));
                }
                out.push((text, inert));
            }
        }
    }
    out
}

/// `word` with each variable reference inside one path component made a
/// `*` (`tools/$(N).py` is `tools/*.py`, `step${I}.py` is `step*.py`),
/// and backslashes read as `/`. A reference that is a whole component
/// before a `/` or at the end (`${D}/env`, `$PATH`) is kept, braced
/// (`$D/env` is `${D}/env`): v11 names its tail at any depth. A `$(f args)` call (a space inside) is kept as
/// well: its arguments are words.
pub(super) fn globbed(word: &str) -> String {
    let mut word = word.replace('\\', "/");
    // Bash's `~+` is the working directory (round 19's 03b), at the start
    // of any word of a command.
    while let Some(at) = word.match_indices("~+").map(|(i, _)| i).find(|&i| {
        (i == 0 || !is_word_byte(word.as_bytes()[i - 1]))
            && word[i + 2..]
                .chars()
                .next()
                .is_none_or(|c| c == '/' || !is_word_byte_char(c))
    }) {
        word.replace_range(at..at + 2, ".");
    }
    let bytes = word.as_bytes();
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    while i < bytes.len() {
        // A brace expansion (`gen_{a,b}.py`, `{1..3}`) and a bracket
        // expression (`[[:alpha:]]`, `[!a-z]`) match as `*` and `?`
        // (round 19's 03a, 05e2, 05f2).
        if bytes[i] == b'{'
            && let Some(len) = word[i..].find('}')
            && (word[i..i + len].contains(',') || word[i..i + len].contains(".."))
        {
            out.push('*');
            i += len + 1;
            continue;
        }
        // `tools/hooks/{}` (`xargs -I{}`, `find -exec`) and
        // `tools/hooks/$f` (`for f in $(ls tools/hooks)`): a variable last
        // component under a directory is any of its files (round 23's
        // 23d, 23d3).
        let under_dir = i >= 2 && bytes[i - 1] == b'/' && bytes[i - 2] != b'/';
        // And a format's field there (`f"tools/hooks/{n}"`, round 24's
        // 24ga4), and a command's output (`tools/hooks/$(basename $f)`,
        // 24ga).
        if under_dir
            && bytes[i] == b'{'
            && let Some(len) = word[i..].find('}')
            && !word[i..i + len].contains('/')
            && !word[i + len + 1..].starts_with('/')
        {
            out.push('*');
            i += len + 1;
            continue;
        }
        if bytes[i] == b'['
            && let Some(len) = bracket_len(&bytes[i..])
        {
            out.push('?');
            i += len;
            continue;
        }
        if bytes[i] == b'$'
            && let Some(end) = reference_end(&word[i..])
        {
            let end = i + end;
            let before = i == 0 || !is_word_byte(bytes[i - 1]);
            let after = end >= bytes.len() || !is_word_byte(bytes[end]);
            let call = word[i..end].contains(' ');
            // `${V:-default}` (and `:=`, `-`, `=`): the variable and its
            // default, a word (round 21's 02c: `run-parts
            // "${HOOKS:-tools/hooks}"`), read as a word again (a nested
            // default, a variable's tail: round 22's 22c, 22c4);
            // `${V:+word}`: the word; `${V:?}`: the variable. Any other
            // operator (`${V/a/b}`, `${V#x}`, `${V:0:4}`, `${!V}`) makes
            // a value no word shows: [`UNKNOWN`] (round 24).
            if bytes[i + 1] == b'{' {
                match expansion(&word[i + 2..end - 1]) {
                    Expansion::Plain => {}
                    Expansion::Default(name, default) => {
                        out.push_str(" ${");
                        out.push_str(name);
                        out.push_str("} ");
                        out.push_str(&globbed(default));
                        out.push(' ');
                        i = end;
                        continue;
                    }
                    Expansion::Alternate(alternate) => {
                        out.push(' ');
                        out.push_str(&globbed(alternate));
                        out.push(' ');
                        i = end;
                        continue;
                    }
                    Expansion::Checked(name) => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                        i = end;
                        continue;
                    }
                    Expansion::Unknown => {
                        out.push_str(UNKNOWN);
                        i = end;
                        continue;
                    }
                }
            }
            if under_dir && after && !word[end..].starts_with('/') {
                out.push('*');
            } else if call || (before && after && bytes[i + 1] != b'{' && bytes[i + 1] != b'(') {
                // `$D/env` as `${D}/env`: its tail is read after the name.
                if call {
                    out.push_str(&word[i..end]);
                } else {
                    out.push_str("${");
                    out.push_str(&word[i + 1..end]);
                    out.push('}');
                }
            } else if before && after {
                out.push_str(&word[i..end]);
            } else {
                out.push('*');
            }
            i = end;
            continue;
        }
        let c = word[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// What a script's argument list looks like once globbed (`$@`): the
/// value of an expansion no word shows (`${V/a/b}`, `${V#x}`): a walker
/// given it may walk any directory.
pub(super) const UNKNOWN: &str = "$@";

/// A `${...}` expansion's body, read.
enum Expansion<'a> {
    /// `${V}`.
    Plain,
    /// `${V:-w}`, `${V-w}`, `${V:=w}`, `${V=w}`: the variable, or `w`.
    Default(&'a str, &'a str),
    /// `${V:+w}`, `${V+w}`: `w`, or nothing.
    Alternate(&'a str),
    /// `${V:?msg}`, `${V?msg}`: the variable (or the script stops).
    Checked(&'a str),
    /// Anything else: a value computed from the variable.
    Unknown,
}

/// Reads the body of `${...}` (without the braces).
fn expansion(body: &str) -> Expansion<'_> {
    let special = body.chars().next().is_some_and(|c| {
        c.is_ascii_digit() || matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-')
    });
    let len = if special {
        1
    } else {
        body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len())
    };
    let (name, rest) = body.split_at(len);
    if name.is_empty() || (special && !rest.is_empty() && matches!(name, "!" | "#")) {
        return Expansion::Unknown;
    }
    let op = rest.strip_prefix(':').unwrap_or(rest);
    match op.chars().next() {
        None if rest.is_empty() => Expansion::Plain,
        Some('-' | '=') => Expansion::Default(name, &op[1..]),
        Some('+') => Expansion::Alternate(&op[1..]),
        Some('?') => Expansion::Checked(name),
        _ => Expansion::Unknown,
    }
}

/// The length of the bracket expression `bytes` starts with (`[abc]`,
/// `[!a-z]`, `[]x]`, `[[:alpha:]_]`), if it is one.
fn bracket_len(bytes: &[u8]) -> Option<usize> {
    let mut j = 1;
    if matches!(bytes.get(j), Some(b'!' | b'^')) {
        j += 1;
    }
    if bytes.get(j) == Some(&b']') {
        j += 1;
    }
    while j < bytes.len() {
        match bytes[j] {
            b'[' if bytes.get(j + 1) == Some(&b':') => {
                let close = bytes[j + 2..].windows(2).position(|w| w == b":]")?;
                j += close + 4;
            }
            b']' => return Some(j + 1),
            b'/' => return None,
            _ => j += 1,
        }
    }
    None
}

/// [`is_word_byte`] for a character.
fn is_word_byte_char(c: char) -> bool {
    c != '/' && !crate::review::risk::refs::is_separator(c)
}

/// Whether a byte continues a path component (not `/` and not one of
/// v5's separators).
fn is_word_byte(b: u8) -> bool {
    b != b'/' && !(b.is_ascii() && crate::review::risk::refs::is_separator(char::from(b)))
}

/// The length of the variable reference `text` starts with (`$NAME`,
/// `${...}`, `$(...)`), if it is one.
fn reference_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    match b.get(1)? {
        // Braces and parentheses nest (`${A:-${B:-x}}`, round 22's 22c;
        // `$(f $(g))`).
        b'{' => closing(text, b'{', b'}'),
        b'(' => closing(text, b'(', b')'),
        c if c.is_ascii_alphabetic() || *c == b'_' => Some(
            1 + b[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count(),
        ),
        _ => None,
    }
}

/// The length of `text` up to the `close` that matches the `open` at its
/// second byte (after the `$`), if one does.
fn closing(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (j, c) in text.bytes().enumerate().skip(1) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(j + 1);
            }
        }
    }
    None
}

/// The words a shell `for NAME in WORDS; do` loop gives its variable.
pub(super) fn loop_values<'w>(tokens: impl Iterator<Item = &'w str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut state = 0u8;
    for t in tokens {
        state = match (state, t) {
            (_, "for") => 1,
            (1, _) => 2,
            (2, "in") => 3,
            (3, "do" | ";" | "do;") => 0,
            (3, t) => {
                let t = t.trim_end_matches(';').trim_matches(['"', '\'']);
                if !t.is_empty() {
                    out.push(t.to_string());
                }
                3
            }
            _ => 0,
        };
        if state == 3 && t.ends_with(';') {
            state = 0;
        }
    }
    out
}

/// Whether `piece` is a glob v12 matches: a `*`, `?` or bracket
/// expression with a letter or digit beside (a lone `*` or `**` is
/// arithmetic in a script read in turn, not a name; a `[` no `]` closes
/// is itself, as in the shell: `run([cargo,` in Python is no walk).
pub(super) fn is_glob(piece: &str) -> bool {
    (piece.contains(['*', '?'])
        || piece
            .match_indices('[')
            .any(|(i, _)| bracket_len(&piece.as_bytes()[i..]).is_some()))
        && piece.chars().any(|c| c.is_ascii_alphanumeric())
        && !piece.contains(['\n', '\0'])
}

/// Whether `piece` is a dotted Python module path (`pkg.cli`,
/// `tools.gen`): its files are named as `python -m` names them.
pub(super) fn is_dotted_module(piece: &str) -> bool {
    // A file name (`out_1.txt`, `setup.cfg`, `index.js`) is not a module.
    if piece
        .rsplit_once('.')
        .is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext) || READ_EXTENSIONS.contains(&ext))
    {
        return false;
    }
    let mut parts = 0;
    for p in piece.split('.') {
        let mut chars = p.chars();
        let first = chars.next();
        if !first.is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return false;
        }
        parts += 1;
    }
    parts > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_inside_a_component_is_a_glob() {
        for (word, want) in [
            ("tools/$(N).py", "tools/*.py"),
            ("tools/step${I}.py", "tools/step*.py"),
            ("$N.py", "*.py"),
            ("${D}/env", "${D}/env"),
            ("$PWD/tools/bin:$PATH", "${PWD}/tools/bin:${PATH}"),
            ("$(addprefix tools/,gen.py)", "$(addprefix tools/,gen.py)"),
            ("tools\\gen.py", "tools/gen.py"),
            ("$", "$"),
            ("a$", "a$"),
            ("tools/gen_{a,b}.py", "tools/gen_*.py"),
            ("~+/tools/gen.py", "./tools/gen.py"),
            ("python3 ~+/tools/gen.py", "python3 ./tools/gen.py"),
            ("a~+/b", "a~+/b"),
            ("lib/[[:alpha:]]*.py", "lib/?*.py"),
            ("lib/[!a-z]*.py", "lib/?*.py"),
            ("[", "["),
            ("${workspaceFolder}/x", "${workspaceFolder}/x"),
            ("${HOOKS:-tools/hooks}", " ${HOOKS} tools/hooks "),
            ("${A:-${B:-tools/hooks}}", " ${A}  ${B} tools/hooks  "),
            ("${A-$PWD/tools/hooks}", " ${A} ${PWD}/tools/hooks "),
            ("${H:+tools/hooks}", " tools/hooks "),
            ("${H:?unset}", "${H}"),
            ("${H/safe/hooks}", "$@"),
            ("${H#_}", "$@"),
            ("${H:0:11}", "$@"),
            ("${!H}", "$@"),
            ("${H[0]}", "$@"),
            ("tools/hooks/$f", "tools/hooks/*"),
            ("tools/hooks/{}", "tools/hooks/*"),
            ("tools/hooks/{n}", "tools/hooks/*"),
            ("tools/hooks/$(basename $f)", "tools/hooks/*"),
            ("./$f", "./*"),
            ("tools/$D/run.sh", "tools/${D}/run.sh"),
        ] {
            assert_eq!(globbed(word), want, "{word}");
        }
    }

    #[test]
    fn a_loop_gives_its_variable_its_words() {
        let line = "for d in tools/pre \"tools/post\"; do run-parts \"$d\"; done";
        assert_eq!(
            loop_values(line.split_whitespace()),
            ["tools/pre", "tools/post"]
        );
        assert!(loop_values("echo for you".split_whitespace()).is_empty());
    }

    #[test]
    fn globs_and_modules_are_told_by_shape() {
        assert!(is_glob("tools/*.mk"));
        assert!(is_glob("step?.py"));
        assert!(!is_glob("*"));
        assert!(!is_glob("**"));
        assert!(is_glob("tools/[ab].sh"));
        assert!(!is_glob("subprocess.run([cargo,"));
        assert!(is_dotted_module("pkg.cli"));
        assert!(!is_dotted_module("gen.py/x"));
        assert!(!is_dotted_module("cli"));
        assert!(!is_dotted_module("1.0.0"));
        assert!(!is_dotted_module("out_1.txt"));
        assert!(!is_dotted_module("setup.cfg"));
    }

    #[test]
    fn inert_keys_name_files_only() {
        let text = r#"{"label": "test", "args": ["tools"], "dependsOn": ["a", "b"],
            "options": {"env": {"source": "tools/hooks"}}, "type": "shell",
            "command" /* c */ : "run-parts x"}"#;
        let words = json_words(text);
        let only: Vec<(&str, bool)> = words.iter().map(|(w, o)| (w.as_str(), *o)).collect();
        assert_eq!(
            only,
            [
                ("label", true),
                ("test", true),
                ("args", true),
                ("tools", false),
                ("dependsOn", true),
                ("a", true),
                ("b", true),
                ("options", true),
                ("env", true),
                ("source", true),
                // An environment variable's value, whatever its name, and
                // as the assignment it is.
                ("source=tools/hooks", false),
                ("tools/hooks", false),
                ("type", true),
                ("shell", true),
                // A key past a comment.
                ("command", true),
                ("run-parts x", false),
            ]
        );
    }
}

/// What a Python or JavaScript file read in turn imports by name (round
/// 19's 01c to 01e, 01g): each a path from the root with the extensions
/// and index files its language tries, to read in turn, or a directory
/// (`node_modules/x`) named whole.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Imports {
    /// Absolute Python modules (`pkg.cli`, `helper`): their files from
    /// every base, as `python -m` names them.
    pub(super) modules: Vec<String>,
    /// Files to read, from the root (a relative import's candidates).
    pub(super) files: Vec<String>,
    /// Directories named whole, from the root (`tools/node_modules/x`).
    pub(super) dirs: Vec<String>,
    /// Where the modules are looked for besides the bases (`sys.path`
    /// entries a script adds), from the root.
    pub(super) bases: Vec<String>,
    /// Packages any of whose modules may be imported by a name computed
    /// at run time (`import_module("tools." + n)`: red team round 30's
    /// 30pil), as paths from every base.
    pub(super) packages: Vec<String>,
}

/// Extensions Node and TypeScript try for a relative specifier.
const JS_TRIES: &[&str] = &[
    "",
    ".js",
    ".mjs",
    ".cjs",
    ".jsx",
    ".ts",
    ".tsx",
    ".mts",
    ".cts",
    ".json",
    "/index.js",
    "/index.mjs",
    "/index.cjs",
    "/index.ts",
    "/index.tsx",
    "/package.json",
];

/// Whether the file at `path` is JavaScript or TypeScript (by its
/// extension).
pub(super) fn is_javascript(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, e)| {
        ["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"]
            .iter()
            .any(|j| e.eq_ignore_ascii_case(j))
    })
}

/// The imports of the file at `path` with `text`, by its extension.
pub(super) fn imports(path: &str, text: &str) -> Imports {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = Imports::default();
    match ext.as_str() {
        "py" | "pyw" => python_imports(dir, text, &mut out),
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts" => {
            js_imports(dir, text, &mut out);
        }
        _ => {}
    }
    out
}

/// Every single- or double-quoted string in `text`.
fn string_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['"', '\'']) {
        let quote = &rest[open..open + 1];
        let Some(len) = rest[open + 1..].find(quote) else {
            break;
        };
        out.push(&rest[open + 1..open + 1 + len]);
        rest = &rest[open + 2 + len..];
    }
    out
}

/// The string literal after each of `calls` in `text` (`import_module("b")`).
fn call_literals<'t>(text: &'t str, calls: &[&str]) -> Vec<&'t str> {
    let mut out = Vec::new();
    for call in calls {
        for (at, _) in text.match_indices(call) {
            let rest = text[at + call.len()..].trim_start();
            let Some(quote) = rest.chars().next().filter(|q| matches!(q, '"' | '\'')) else {
                continue;
            };
            if let Some(end) = rest[1..].find(quote) {
                out.push(&rest[1..1 + end]);
            }
        }
    }
    out
}

fn python_imports(dir: &str, text: &str, out: &mut Imports) {
    // Imports written as calls (round 20's 02b), and `sys.path` entries
    // (02h: `sys.path.insert(0, "lib")`).
    for m in call_literals(text, &["import_module(", "__import__("]) {
        match m.strip_suffix('.') {
            Some(package) => out.packages.push(package.replace('.', "/")),
            None => out.modules.push(m.to_string()),
        }
    }
    for (at, _) in text.match_indices("sys.path.") {
        // The call's every string (`os.path.join(os.path.dirname(__file__),
        // "lib")`, `Path(__file__).parent / "lib"`: round 21's 01c), from
        // the root and from the script's directory.
        let call = &text[at..];
        let mut depth = 0usize;
        let end = call
            .char_indices()
            .find(|(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    '\n' => return true,
                    _ => {}
                }
                *c == ')' && depth == 0
            })
            .map_or(call.len(), |(i, _)| i);
        for entry in string_literals(&call[..end]) {
            out.bases.push(entry.to_string());
            out.bases.push(format!("{dir}/{entry}"));
        }
    }
    // Every statement, after a `;` too (02a: `import os; import b`).
    let statements = text
        .lines()
        .flat_map(|l| l.split('#').next().unwrap_or("").split(';'));
    for line in statements {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("import ") {
            for m in rest.split(',') {
                let m = m.split_whitespace().next().unwrap_or("");
                if !m.is_empty() {
                    out.modules.push(m.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ") {
            let mut parts = rest.split_whitespace();
            let (Some(module), Some("import")) = (parts.next(), parts.next()) else {
                continue;
            };
            let listed = parts.collect::<Vec<_>>().join(" ");
            let names: Vec<&str> = listed
                .trim_matches(['(', ')', '\\'])
                .split(',')
                .filter_map(|n| n.split_whitespace().next())
                .filter(|n| *n != "*")
                .collect();
            let dots = module.len() - module.trim_start_matches('.').len();
            if dots == 0 {
                out.modules.push(module.to_string());
                for n in names {
                    out.modules.push(format!("{module}.{n}"));
                }
                continue;
            }
            // `from ..pkg import x`: from the file's package, up a level
            // per dot after the first.
            let mut base: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
            for _ in 1..dots {
                base.pop();
            }
            let rest = module.trim_start_matches('.').replace('.', "/");
            let at = |tail: &str| {
                let mut p = base.join("/");
                for t in [rest.as_str(), tail] {
                    if !t.is_empty() {
                        if !p.is_empty() {
                            p.push('/');
                        }
                        p.push_str(t);
                    }
                }
                p
            };
            for n in std::iter::once("").chain(names) {
                let p = at(n);
                if p.is_empty() {
                    continue;
                }
                out.files.push(format!("{p}.py"));
                out.files.push(format!("{p}/__init__.py"));
            }
        }
    }
}

fn js_imports(dir: &str, text: &str, out: &mut Imports) {
    let relative = |spec: &str, out: &mut Imports| {
        if let Some(p) = super::refs::normalise_cased(&format!("{dir}/{spec}")) {
            for t in JS_TRIES {
                out.files.push(format!("{p}{t}"));
            }
            out.dirs.push(p);
        }
    };
    for (i, _) in text.match_indices(['\'', '"', '`']) {
        let before = text[..i].trim_end();
        let spec_start = i + 1;
        let quote = text[i..].chars().next().unwrap_or('"');
        let Some(len) = text[spec_start..].find(quote) else {
            continue;
        };
        let spec = &text[spec_start..spec_start + len];
        let imported = before.ends_with("require(")
            || before.ends_with("import(")
            || before.ends_with(" from")
            || before.ends_with("}from")
            || before.ends_with("import");
        if spec.is_empty() || spec.contains(['\n', '$']) {
            continue;
        }
        // A relative path anywhere (`const p = './b'; require(p)`: round
        // 20's 02d) is tried as the import it may become.
        if spec.starts_with("./") || spec.starts_with("../") {
            relative(spec, out);
            continue;
        }
        if !imported {
            continue;
        }
        if spec.starts_with('.') {
            relative(spec, out);
        } else if spec.starts_with('#') {
            // A subpath import (`#internal`): the `imports` of the
            // nearest `package.json`, read in turn (02e).
            let mut d: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
            loop {
                let mut p = d.join("/");
                if !p.is_empty() {
                    p.push('/');
                }
                out.files.push(format!("{p}package.json"));
                if d.pop().is_none() {
                    break;
                }
            }
        } else if !spec.starts_with('/') && !spec.contains(':') {
            // A package: every `node_modules` from the file's directory
            // up to the root.
            let mut d: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
            loop {
                let mut p = d.join("/");
                if !p.is_empty() {
                    p.push('/');
                }
                out.dirs.push(format!("{p}node_modules/{spec}"));
                if d.pop().is_none() {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod import_tests {
    use super::*;

    #[test]
    fn python_imports_name_modules_and_relative_files() {
        let text = "import os, b as bee\nfrom pkg import cli  # x\nfrom .helper import run\nfrom .. import up\n";
        let i = imports("tools/gen/main.py", text);
        assert_eq!(i.modules, ["os", "b", "pkg", "pkg.cli"]);
        for f in [
            "tools/gen/helper.py",
            "tools/gen/helper/run.py",
            "tools/up.py",
            "tools/__init__.py",
        ] {
            assert!(i.files.iter().any(|x| x == f), "{f}: {:?}", i.files);
        }
    }

    #[test]
    fn js_imports_name_relative_files_and_packages() {
        let text = "const b = require('./b');\nimport x from \"../lib/x\";\nconst l = require('leftpad');\nconst s = 'not an import';\n";
        let i = imports("tools/a.js", text);
        for f in ["tools/b.js", "tools/b/index.js", "lib/x.ts"] {
            assert!(i.files.iter().any(|x| x == f), "{f}: {:?}", i.files);
        }
        assert!(i.dirs.iter().any(|d| d == "tools/node_modules/leftpad"));
        assert!(i.dirs.iter().any(|d| d == "node_modules/leftpad"));
        assert!(!i.files.iter().any(|x| x.contains("not an import")));
    }
}
