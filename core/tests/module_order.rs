//! The review modules, core's top-level modules and the CLI's modules form
//! layers (docs/ARCHITECTURE.md, "Module order"):
//! a module uses only modules below it, so no cycle can close. A use of a
//! module above is a back-edge and fails here, naming the line. Test code
//! (items attributed `#[cfg(test)]`, `*_tests.rs`, `tests.rs`) may use
//! anything; the code after a test item is read like the rest. The
//! order is read from that document; grouped paths (`crate::review::{a, b}`)
//! and `super::` paths that reach `review` count as uses.

use std::path::Path;

#[path = "common/shipped.rs"]
mod shipped;
#[path = "common/sources.rs"]
mod sources;
use sources::rust_files;

/// Bottom first, as docs/ARCHITECTURE.md's "Module order" lists them (the
/// backticked names of that section's lists, joined by ` · `): the first
/// list is `core/src/review`'s modules, the second core's top-level ones.
/// Each module may use only the ones before it in its list. Read from the
/// document, so the two cannot drift.
fn order(list: usize) -> Vec<String> {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ARCHITECTURE.md"),
    )
    .unwrap();
    let section = doc
        .split("\n## Module order\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/ARCHITECTURE.md has a Module order section");
    let list = section
        .split("\n\n")
        .filter(|p| p.contains(" · "))
        .nth(list)
        .expect("the section lists the modules joined by ' · '");
    // The names after the paragraph's colon, if it has a lead-in.
    let list = list.rsplit_once("):\n").map_or(list, |(_, l)| l);
    list.split('·')
        .map(|m| m.trim().trim_matches('`').to_string())
        .collect()
}

/// Every module under `prefix` (`crate::review::`, or `crate::`) that
/// `code` names, with its line: a path `<prefix>m…`, each top-level name of
/// a group `<prefix>{a::X, b}`, and the same through `super::` from a file
/// `depth` levels below the modules' directory (where `super::` repeated
/// `depth` times is `prefix`).
fn uses(code: &str, prefix: &str, depth: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for prefix in [prefix.to_string(), "super::".repeat(depth)] {
        let mut from = 0;
        while let Some(i) = code[from..].find(&prefix) {
            let at = from + i;
            let start = at + prefix.len();
            from = start;
            if prefix.starts_with("super") {
                // Exactly `depth` supers, not the tail of a longer path.
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c == ':' || c == '_' || c.is_ascii_alphanumeric())
                    || code[start..].starts_with("super::")
                {
                    continue;
                }
            }
            let line = code[..at].matches('\n').count() + 1;
            let rest = &code[start..];
            let Some(group) = rest.strip_prefix('{') else {
                let used: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.push((line, used));
                continue;
            };
            // The names at the group's top level, up to its closing brace.
            let (mut level, mut name, mut expecting) = (1, String::new(), true);
            for c in group.chars() {
                match c {
                    '{' => {
                        level += 1;
                        expecting = false;
                    }
                    '}' => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    ',' if level == 1 => expecting = true,
                    c if level == 1 && expecting && (c.is_ascii_alphanumeric() || c == '_') => {
                        name.push(c)
                    }
                    _ if level == 1 && expecting && !name.is_empty() => {
                        out.push((line, std::mem::take(&mut name)));
                        expecting = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                out.push((line, name));
            }
        }
    }
    out.retain(|(_, m)| !m.is_empty() && m != "self" && m != "*");
    out
}

/// The module a file belongs to: the first component under `root`.
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The back-edges of the modules under `root` (their uses through
/// `prefix`) against `order`, and how many uses were checked. `skip`: the
/// files that are the parent itself (`mod.rs`, `lib.rs`, `main.rs`). A
/// name that is no module under `root` is an item of the parent (the
/// CLI's `crate::GlobalArgs`), not a layer.
fn back_edges(root: &Path, prefix: &str, order: &[String], skip: &str) -> (Vec<String>, usize) {
    let mut all = Vec::new();
    rust_files(root, &mut all);
    let modules: Vec<String> = all.iter().map(|f| module_of(root, f)).collect();
    let mut checked = 0;
    let mut back_edges = Vec::new();
    for file in &all {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with("_tests.rs") || name == "tests.rs" {
            continue;
        }
        let module = module_of(root, file);
        if module == skip {
            continue;
        }
        let rank = order
            .iter()
            .position(|m| *m == module)
            .unwrap_or_else(|| panic!("{module} is not in docs/ARCHITECTURE.md's Module order"));
        let text = std::fs::read_to_string(file).unwrap();
        // Comments, literals and `#[cfg(test)]` items are not uses; the
        // code after a test item still is.
        let code = shipped::shipped_code(&text);
        let rel = file.strip_prefix(root).unwrap();
        let depth = rel.components().count() - usize::from(name == "mod.rs");
        for (line, used) in uses(&code, prefix, depth) {
            if used == module || !modules.contains(&used) {
                continue;
            }
            checked += 1;
            match order.iter().position(|m| *m == used) {
                Some(r) if r < rank => {}
                // Above it, or a name the order does not know.
                _ => back_edges.push(format!("{}:{line}: {module} uses {used}", rel.display())),
            }
        }
    }
    (back_edges, checked)
}

/// One layered module tree: where its sources are, which `Module order`
/// list names its layers, and the least a working scan must find.
struct Layers {
    /// The sources, relative to this crate.
    dir: &'static str,
    /// Which list of the docs names the layers (`order`'s argument).
    list: usize,
    /// The fewest modules that list may name.
    min_modules: usize,
    /// How a use of one of its modules starts.
    prefix: &'static str,
    /// The root file, which may use every module.
    root: &'static str,
    /// The fewest uses a working scan finds.
    min_uses: usize,
    /// The order's name, in the failure message.
    what: &'static str,
}

/// Every use in `l` names a module in the same layer or below.
fn assert_layered(l: Layers) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(l.dir);
    let order = order(l.list);
    assert!(
        order.len() >= l.min_modules,
        "the module list of {}: {order:?}",
        l.what
    );
    let (back_edges, checked) = back_edges(&src, l.prefix, &order, l.root);
    assert!(
        checked >= l.min_uses,
        "found only {checked} uses: the scan is broken"
    );
    assert!(
        back_edges.is_empty(),
        "back-edges in {}:\n{}",
        l.what,
        back_edges.join("\n")
    );
}

#[test]
fn review_modules_use_only_the_layers_below_them() {
    assert_layered(Layers {
        dir: "src/review",
        list: 0,
        min_modules: 21,
        prefix: "crate::review::",
        root: "mod",
        min_uses: 101,
        what: "the review module order",
    });
}

/// Core's top-level modules form layers too (issue 25 §1): `calendar` and
/// `digest` at the bottom, `review` and the test-only `conformance` on top.
#[test]
fn core_modules_use_only_the_layers_below_them() {
    assert_layered(Layers {
        dir: "src",
        list: 1,
        min_modules: 8,
        prefix: "crate::",
        root: "lib",
        min_uses: 51,
        what: "core's module order",
    });
}

/// The CLI's modules form layers too (issue 25 §1): the output and clock
/// at the bottom, the commands above the shared authority code, `demo`
/// (which drives the others) on top. `main` dispatches to them all.
#[test]
fn cli_modules_use_only_the_layers_below_them() {
    assert_layered(Layers {
        dir: "../adapters/cli/src",
        list: 2,
        min_modules: 20,
        prefix: "crate::",
        root: "main",
        min_uses: 51,
        what: "the CLI's module order",
    });
}
