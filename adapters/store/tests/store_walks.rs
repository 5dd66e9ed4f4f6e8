//! The store invariant of docs/ARCHITECTURE.md ("discovery is a lookup,
//! never a scan ... these bounded scavenges at creation and the repair
//! survey are the only walks of the store, besides `probity list` and the
//! listing of the escalation index"), on this crate's shipped source: a
//! directory is listed (`read_dir`, `probity_scratch::scavenge_with`) only
//! in the functions [`WALKS`] names, each with what it walks. A new listing
//! fails the test until it is added here (and to the document); a listed
//! one that is gone fails it too, so the list stays the truth.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// (file under `src/`, function): every place the crate lists a directory.
const WALKS: &[(&str, &str, &str)] = &[
    (
        "review_store/durable.rs",
        "scavenge_orphan_temps",
        "a new lineage's bounded scavenge of dead writers' temp files",
    ),
    (
        "review_store/creation.rs",
        "scavenge_unfinished_creations",
        "a new lineage's scavenge of dead starts' `.new-*` folders",
    ),
    (
        "review_store/creation.rs",
        "never_reached",
        "one dead start's lineage folder, before undoing it",
    ),
    (
        "repair.rs",
        "lineage_ids",
        "the repair survey (at most MAX_SURVEY + 1 lineages)",
    ),
    (
        "repair.rs",
        "files_below",
        "one lineage a repair quarantines",
    ),
    (
        "review_store/mod.rs",
        "lineages",
        "`probity list` (LineageListing, read-only)",
    ),
    (
        "review_store/mod.rs",
        "list_pointers",
        "one keyed index directory (the lineages open or escalated on a base)",
    ),
    (
        "review_store/mod.rs",
        "lookup_escalations",
        "the escalation index a start and the pre-commit advice read",
    ),
    (
        "context_dir.rs",
        "visit",
        "a context tree (written where --out names), not the review store",
    ),
];

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// The (file, function) of each directory listing in `source`: comments,
/// string literals and a trailing `#[cfg(test)] mod tests` are not code.
fn listings(file: &str, source: &str) -> Vec<(String, String)> {
    let shipped = &source[..source
        .find("#[cfg(test)]\nmod tests")
        .unwrap_or(source.len())];
    let mut function = String::from("<module>");
    let mut out = Vec::new();
    for raw in shipped.lines() {
        let code = raw.split("//").next().unwrap_or_default();
        let mut quoted = false;
        let code: String = code
            .chars()
            .filter(|c| {
                if *c == '"' {
                    quoted = !quoted;
                }
                !quoted
            })
            .collect();
        let words: Vec<&str> = code.split_whitespace().collect();
        if let Some(k) = words.iter().position(|w| *w == "fn")
            && let Some(name) = words.get(k + 1)
        {
            function = name.split(['(', '<']).next().unwrap_or(name).to_string();
        }
        if ["read_dir(", "scavenge_with(", "WalkDir"]
            .iter()
            .any(|w| code.contains(w))
        {
            out.push((file.to_string(), function.clone()));
        }
    }
    out
}

#[test]
fn the_store_lists_directories_only_where_the_document_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut found = BTreeSet::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        found.extend(listings(&rel, &std::fs::read_to_string(f).unwrap()));
    }
    let listed: BTreeSet<(String, String)> = WALKS
        .iter()
        .map(|(f, func, _)| (f.to_string(), func.to_string()))
        .collect();
    let unlisted: Vec<_> = found.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "directories listed where no walk of the store is documented \
         (discovery is a lookup, never a scan): {unlisted:?}"
    );
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(
        gone.is_empty(),
        "documented walks that are gone (shrink WALKS): {gone:?}"
    );
}

#[test]
fn the_scan_finds_a_planted_listing_in_its_function_and_ignores_the_rest() {
    let planted = "\
impl S {
    /// fs::read_dir(root) in a doc comment
    pub fn lookup_target(&self) -> R {
        let msg = \"never read_dir( in a string\";
        for e in fs::read_dir(&self.root)? {}
    }
    fn other<T>(x: T) { probity_scratch::scavenge_with(&r, P, |m| true); }
}
#[cfg(test)]
mod tests {
    fn t() { std::fs::read_dir(\"x\"); }
}
";
    assert_eq!(
        listings("planted.rs", planted),
        [
            ("planted.rs".to_string(), "lookup_target".to_string()),
            ("planted.rs".to_string(), "other".to_string()),
        ]
    );
}
