//! A call graph of Rust sources by function name, for the architecture
//! tests: which names each function's body calls. Same-named functions
//! merge, so reachability over it over-approximates. In an `impl` or
//! `trait` block a method (taking `self`) is named `.name` and an
//! associated function `::name`, as their calls are (`x.name(`,
//! `Type::name(`); a free function is its bare name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The graph: name → the names its bodies call.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

pub use crate::sources::rust_files;

pub fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The end (exclusive) of the block whose `{` is at `open`.
pub fn block_end(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// Every name called in `body`: an identifier followed by `(` or `::<`;
/// `.name` for a method call, `::name` for an associated function called
/// through a type (`Type::name(`, `Self::name(`).
pub fn callees(body: &str) -> BTreeSet<String> {
    let b = body.as_bytes();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < b.len() {
        if ident_char(b[i]) && (i == 0 || !ident_char(b[i - 1])) {
            let start = i;
            while i < b.len() && ident_char(b[i]) {
                i += 1;
            }
            let rest = &body[i..];
            if rest.starts_with('(') || rest.starts_with("::<") {
                let before = &body[..start];
                let kind = if before.ends_with('.') {
                    "."
                } else if before.ends_with("::")
                    && before[..before.len() - 2]
                        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .is_some_and(|seg| seg.starts_with(|c: char| c.is_ascii_uppercase()))
                {
                    "::"
                } else {
                    ""
                };
                out.insert(format!("{kind}{}", &body[start..i]));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The byte ranges of `impl` and `trait` blocks.
fn impl_blocks(code: &str) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for kw in ["impl", "trait "] {
        for (at, _) in code.match_indices(kw) {
            let word = (at == 0 || !ident_char(b[at - 1]))
                && b.get(at + kw.len())
                    .is_some_and(|c| !ident_char(*c) || kw.ends_with(' '));
            if let (true, Some(open)) = (word, code[at..].find('{')) {
                out.push((at, block_end(b, at + open)));
            }
        }
    }
    out
}

/// name → the names its bodies call (same-named functions merged). In an
/// `impl` or `trait` block a method (taking `self`) is named `.name` and
/// an associated function `::name`, as their calls are.
pub fn call_graph(code: &str, graph: &mut Graph) {
    let b = code.as_bytes();
    let impls = impl_blocks(code);
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && ident_char(b[at - 1]) {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` before any `;` (a declaration has none).
        let sig = &code[at..];
        let (Some(open), semi) = (sig.find('{'), sig.find(';')) else {
            continue;
        };
        if semi.is_some_and(|s| s < open) {
            continue;
        }
        let method = sig[..open]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "self");
        let in_impl = impls.iter().any(|(from, to)| (*from..*to).contains(&at));
        let key = match (in_impl, method) {
            (true, true) => format!(".{name}"),
            (true, false) => format!("::{name}"),
            (false, _) => name,
        };
        let end = block_end(b, at + open);
        let body = &code[at + open..end];
        graph.entry(key).or_default().extend(callees(body));
    }
}

/// The names from which `target` is reachable.
/// (`not_edges`: callers whose calls do not count.)
pub fn reaching(graph: &Graph, target: &str, not_edges: &[&str]) -> BTreeSet<String> {
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut frontier = vec![target.to_string()];
    while let Some(t) = frontier.pop() {
        for (caller, called) in graph {
            if not_edges.contains(&caller.as_str()) || !called.contains(&t) {
                continue;
            }
            if found.insert(caller.clone()) {
                frontier.push(caller.clone());
            }
        }
    }
    found
}

/// (module, function) for every function `mod_rs` (`src/review/mod.rs`)
/// re-exports from its own modules, in the order it names them.
pub fn exported_functions(mod_rs: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for item in mod_rs.split("pub use ").skip(1) {
        let item = &item[..item.find(';').unwrap_or(item.len())];
        let Some((module, names)) = item.split_once("::") else {
            continue;
        };
        if module == "probity_core" {
            continue;
        }
        for name in names.trim_matches(['{', '}']).split(',') {
            let name = name.trim();
            if name.starts_with(|c: char| c.is_ascii_lowercase()) {
                out.push((module.to_string(), name.to_string()));
            }
        }
    }
    out
}

/// The names reachable from `from` (itself included).
pub fn reached_from(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::from([from.to_string()]);
    let mut frontier = vec![from.to_string()];
    while let Some(f) = frontier.pop() {
        for called in graph.get(&f).into_iter().flatten() {
            if found.insert(called.clone()) {
                frontier.push(called.clone());
            }
        }
    }
    found
}

/// The graph of ports' shipped sources.
pub fn ports_graph() -> Graph {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut graph = Graph::new();
    for f in &files {
        let code = crate::shipped::shipped_code(&std::fs::read_to_string(f).unwrap());
        call_graph(&code, &mut graph);
    }
    graph
}

/// The drivers `src/review/mod.rs` exports (more than 30).
pub fn exported_drivers() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mod_rs = std::fs::read_to_string(root.join("src/review/mod.rs")).unwrap();
    let drivers: BTreeSet<String> = exported_functions(&mod_rs)
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert!(drivers.len() > 30, "found only {} drivers", drivers.len());
    drivers
}

/// (name, body, the names it calls itself or through the file's free
/// functions) for every `#[test]` function of `text` (a test file). A
/// driver reached through a method (the shared world's `w.start()`) is
/// not followed: it sets a scene; one called here is the one under test.
pub fn test_bodies(text: &str) -> Vec<(String, String, BTreeSet<String>)> {
    let mut local = Graph::new();
    call_graph(text, &mut local);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("#[test]") {
        let rest = &text[at..];
        let Some(fn_at) = rest.find("fn ") else {
            continue;
        };
        let name: String = rest[fn_at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let end = rest[fn_at..]
            .find("\n}\n")
            .map_or(rest.len(), |e| fn_at + e);
        let body = &rest[fn_at..end];
        let mut called = callees(body);
        let mut frontier: Vec<String> = called.iter().cloned().collect();
        while let Some(f) = frontier.pop() {
            let free = !f.starts_with('.') && !f.starts_with("::");
            for next in local.get(&f).filter(|_| free).into_iter().flatten() {
                if called.insert(next.clone()) {
                    frontier.push(next.clone());
                }
            }
        }
        out.push((name, body.to_string(), called));
    }
    out
}

/// Every `.rs` file of ports' tests, read.
pub fn test_files() -> Vec<String> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

/// The exported drivers that reach any of `calls` (ports' call graph).
pub fn drivers_reaching(calls: &[&str]) -> BTreeSet<String> {
    let graph = ports_graph();
    exported_drivers()
        .into_iter()
        .filter(|d| {
            let reached = reached_from(&graph, d);
            calls.iter().any(|c| reached.contains(*c))
        })
        .collect()
}

/// The drivers no test of `tests` (name, the names it calls) calls.
pub fn uncalled<'a>(
    drivers: &'a BTreeSet<String>,
    tests: &[(String, BTreeSet<String>)],
) -> Vec<&'a String> {
    drivers
        .iter()
        .filter(|d| !tests.iter().any(|(_, called)| called.contains(*d)))
        .collect()
}

/// (name, body) of every function of `text` written at the start of a
/// line (a test file's free helpers), its body up to its closing `}` at
/// the start of a line.
pub fn free_fn_bodies(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("\nfn ") {
        let rest = &text[at + 1..];
        let name: String = rest[3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let end = rest.find("\n}\n").map_or(rest.len(), |e| e + 3);
        out.push((name, rest[..end].to_string()));
    }
    out
}
