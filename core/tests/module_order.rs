//! The review modules form layers (docs/ARCHITECTURE.md, "Module order"):
//! a module uses only modules below it, so no cycle can close. A use of a
//! module above is a back-edge and fails here, naming the line. Test code
//! (`#[cfg(test)]` modules, `*_tests.rs`, `tests.rs`) may use anything.

use std::path::Path;

/// Bottom first: each module may use only the ones before it.
const ORDER: &[&str] = &[
    "lens",
    "ids",
    "snapshot",
    "rebase",
    "causality",
    "finding",
    "correction",
    "risk",
    "evidence",
    "prompts",
    "submission",
    "state",
    "recovery",
    "receipt",
    "gate",
    "export",
    "attest",
    "dsse",
    "bundle",
    "hooks",
    "pre_pr",
    "preserved",
    "projection",
    "release",
    "repair",
    "schema",
    "roles",
    "server",
    "fixtures",
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file belongs to: the first component under `review/`.
fn module_of(review: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(review).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn review_modules_use_only_the_layers_below_them() {
    let review = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/review");
    let mut all = Vec::new();
    files(&review, &mut all);
    let mut checked = 0;
    let mut back_edges = Vec::new();
    for file in &all {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with("_tests.rs") || name == "tests.rs" {
            continue;
        }
        let module = module_of(&review, file);
        if module == "mod" {
            continue;
        }
        let rank = ORDER
            .iter()
            .position(|m| *m == module)
            .unwrap_or_else(|| panic!("{module} is not in ORDER (docs/ARCHITECTURE.md)"));
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find("crate::review::") {
                rest = &rest[i + "crate::review::".len()..];
                let used: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if used == module || used.is_empty() {
                    continue;
                }
                checked += 1;
                match ORDER.iter().position(|m| *m == used) {
                    Some(r) if r < rank => {}
                    _ => back_edges.push(format!(
                        "{}:{}: {module} uses {used}",
                        file.strip_prefix(&review).unwrap().display(),
                        n + 1
                    )),
                }
            }
        }
    }
    assert!(
        checked > 100,
        "found only {checked} uses: the scan is broken"
    );
    assert!(
        back_edges.is_empty(),
        "back-edges in the review module order:\n{}",
        back_edges.join("\n")
    );
}
