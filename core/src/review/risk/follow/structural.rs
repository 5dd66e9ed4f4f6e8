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
    "workspaces",
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
];

/// Test runners with the files their discovery imports, at any depth.
pub(super) const DISCOVERS: &[(&str, &[&str])] = &[
    ("pytest", &["test_*.py", "*_test.py", "conftest.py"]),
    ("py.test", &["test_*.py", "*_test.py", "conftest.py"]),
    ("unittest", &["test*.py"]),
    ("nose2", &["test*.py"]),
    ("nosetests", &["test*.py"]),
    ("jest", &["*.test.*", "*.spec.*", "__tests__"]),
    ("vitest", &["*.test.*", "*.spec.*"]),
    ("mocha", &["test", "*.spec.*", "*.test.*"]),
];

/// A JSON document's strings, each with whether it names a file only (a
/// key, or the value of an [`INERT_KEYS`] key) rather than also what is
/// below it. A value in an array belongs to the last key before it.
pub(super) fn json_words(tokens: Vec<(String, bool)>) -> Vec<(String, bool)> {
    let mut last_key = String::new();
    let mut out = Vec::with_capacity(tokens.len());
    for (text, key) in tokens {
        if key {
            last_key.clone_from(&text);
            out.push((text, true));
        } else {
            let inert = INERT_KEYS.contains(&last_key.as_str());
            out.push((text, inert));
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
    let word = word.replace('\\', "/");
    let bytes = word.as_bytes();
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$'
            && let Some(end) = reference_end(&word[i..])
        {
            let end = i + end;
            let before = i == 0 || !is_word_byte(bytes[i - 1]);
            let after = end >= bytes.len() || !is_word_byte(bytes[end]);
            let call = word[i..end].contains(' ');
            if call || (before && after && bytes[i + 1] != b'{' && bytes[i + 1] != b'(') {
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
        b'{' => text.find('}').map(|j| j + 1),
        b'(' => {
            let mut depth = 0usize;
            for (j, c) in text.bytes().enumerate().skip(1) {
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        c if c.is_ascii_alphabetic() || *c == b'_' => Some(
            1 + b[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count(),
        ),
        _ => None,
    }
}

/// Whether `piece` is a glob v12 matches: a `*`, `?` or `[` with a
/// letter or digit beside (a lone `*` or `**` is arithmetic in a script
/// read in turn, not a name).
pub(super) fn is_glob(piece: &str) -> bool {
    piece.contains(['*', '?', '['])
        && piece.chars().any(|c| c.is_ascii_alphanumeric())
        && !piece.contains(['\n', '\0'])
}

/// Whether `piece` is a dotted Python module path (`pkg.cli`,
/// `tools.gen`): its files are named as `python -m` names them.
pub(super) fn is_dotted_module(piece: &str) -> bool {
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
        ] {
            assert_eq!(globbed(word), want, "{word}");
        }
    }

    #[test]
    fn globs_and_modules_are_told_by_shape() {
        assert!(is_glob("tools/*.mk"));
        assert!(is_glob("step?.py"));
        assert!(!is_glob("*"));
        assert!(!is_glob("**"));
        assert!(is_dotted_module("pkg.cli"));
        assert!(!is_dotted_module("gen.py/x"));
        assert!(!is_dotted_module("cli"));
        assert!(!is_dotted_module("1.0.0"));
    }

    #[test]
    fn inert_keys_name_files_only() {
        let tokens = vec![
            ("label".to_string(), true),
            ("test".to_string(), false),
            ("args".to_string(), true),
            ("tools".to_string(), false),
            ("dependsOn".to_string(), true),
            ("a".to_string(), false),
            ("b".to_string(), false),
        ];
        let words = json_words(tokens);
        let only: Vec<bool> = words.iter().map(|(_, o)| *o).collect();
        assert_eq!(only, [true, true, true, false, true, true, true]);
    }
}
