//! Schema checks every test that emits a context tree shares: the
//! project's v1 bundle, and the upstream draft of that bundle with the seed
//! deltas docs/context.md documents ("Schema bundle"). Used by
//! `golden/tests/context.rs` (the two committed examples) and, through
//! `#[path]`, by `adapters/cli/tests/context_fetch.rs` (every tree
//! `probity context fetch` writes, for every forge, change and issue).
//!
//! The draft is read from the directory `PROBITY_UPSTREAM_SCHEMAS` names
//! (`.ci/run` sets it to `shared/reference/entity-context-snapshot-v1`).
//! Without the variable the upstream check is skipped and says so on the
//! test process's own stderr, which the test harness does not capture: a
//! run without the draft never passes silently.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use probity_core::context::DocSchema;
use probity_core::context::role_for_path;
use probity_ports::schemas::{self as schema, SchemaSet};
use serde_json::{Value, json};

/// The variable naming the upstream draft's directory.
pub const ENV: &str = "PROBITY_UPSTREAM_SCHEMAS";

/// The documented seed deltas (docs/context.md, "Schema bundle"), applied
/// to the upstream draft bundle in memory:
/// 1. `collection.json` gains the required `admission.human_min_role`
///    (`triage` or `write`).
///
/// The other two seed changes (bots admitted only through a registered bot
/// role; the entity body passing the same authorization rule) change
/// producer behaviour, not any schema.
pub fn apply_seed_deltas(files: &mut BTreeMap<String, Value>) {
    let c = files
        .get_mut("collection.schema.json")
        .expect("upstream collection.schema.json");
    c["properties"]["admission"] = json!({
        "type": "object",
        "required": ["human_min_role"],
        "properties": {"human_min_role": {"enum": ["triage", "write"]}},
        "additionalProperties": false
    });
    c["required"]
        .as_array_mut()
        .expect("required array")
        .push(json!("admission"));
}

/// The nine `*.schema.json` files of the draft in `dir`, parsed.
pub fn read_draft(dir: &Path) -> BTreeMap<String, Value> {
    let mut files = BTreeMap::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{ENV}={}: {e}", dir.display()));
    for entry in entries {
        let p = entry.expect("a directory entry").path();
        let name = p
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".schema.json") {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let v: Value = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", p.display()));
            files.insert(name, v);
        }
    }
    assert_eq!(
        files.len(),
        9,
        "the upstream draft in {} has nine schema files",
        dir.display()
    );
    files
}

/// The upstream draft, as published and with the seed deltas.
pub struct Upstream {
    pub dir: PathBuf,
    /// The draft as published: our `collection.json` is refused by it.
    pub raw: SchemaSet,
    /// The draft with [`apply_seed_deltas`]: every document validates.
    pub with_deltas: SchemaSet,
}

impl Upstream {
    /// Loads the draft in `dir` (a test failure if it does not load).
    pub fn load(dir: &Path) -> Upstream {
        let mut files = read_draft(dir);
        let raw = SchemaSet::load(&files).expect("the upstream draft loads");
        apply_seed_deltas(&mut files);
        let with_deltas = SchemaSet::load(&files).expect("the draft with the deltas loads");
        Upstream {
            dir: dir.to_path_buf(),
            raw,
            with_deltas,
        }
    }

    /// The draft `PROBITY_UPSTREAM_SCHEMAS` names, loaded once per test
    /// process; `None` when the variable is unset.
    pub fn from_env() -> Option<&'static Upstream> {
        static UPSTREAM: OnceLock<Option<Upstream>> = OnceLock::new();
        UPSTREAM
            .get_or_init(|| std::env::var_os(ENV).map(|d| Upstream::load(Path::new(&d))))
            .as_ref()
    }

    /// Checks every JSON document of a tree against the draft: each
    /// validates once the deltas are applied, and against the draft as
    /// published each validates but `collection.json`, which is refused
    /// (delta 1 is needed, and no other). Returns how many were checked.
    pub fn check_tree(&self, label: &str, files: &BTreeMap<String, Vec<u8>>) -> usize {
        let docs = documents(files);
        for (schema, path, doc) in &docs {
            self.with_deltas
                .validate(*schema, doc)
                .unwrap_or_else(|e| panic!("{label}: upstream draft with the deltas, {path}: {e}"));
            let raw = self.raw.validate(*schema, doc);
            if *schema == DocSchema::Collection {
                assert!(
                    raw.is_err(),
                    "{label}: the draft as published accepts {path}: delta 1 is not needed"
                );
            } else {
                raw.unwrap_or_else(|e| {
                    panic!(
                        "{label}: the draft as published refuses {path}, an undocumented delta: {e}"
                    )
                });
            }
        }
        docs.len()
    }
}

/// (schema, path, document) for every JSON document of a tree.
pub fn documents(files: &BTreeMap<String, Vec<u8>>) -> Vec<(DocSchema, String, Value)> {
    let mut docs = Vec::new();
    for (path, bytes) in files {
        let schema = match path.as_str() {
            "index.json" => DocSchema::Index,
            p => match role_for_path(p) {
                Some("collection") => DocSchema::Collection,
                Some("entity_metadata") => DocSchema::Entity,
                Some("reviews") => DocSchema::Reviews,
                Some("agent_runs") => DocSchema::AgentRuns,
                Some("check_metadata") => DocSchema::Check,
                Some("actor_state") => DocSchema::ActorState,
                Some("thread_state") => DocSchema::ThreadState,
                _ => continue,
            },
        };
        let doc = serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        docs.push((schema, path.clone(), doc));
    }
    docs
}

/// What [`validate_tree`] checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// Documents validated against the project's v1 bundle.
    pub bundle: usize,
    /// Documents checked against the upstream draft; `None` when
    /// `PROBITY_UPSTREAM_SCHEMAS` is unset (the skip was reported).
    pub upstream: Option<usize>,
}

/// Validates every JSON document of a tree against the project's v1
/// bundle (exactly one `index.json`), then, when `PROBITY_UPSTREAM_SCHEMAS`
/// is set, against the upstream draft as [`Upstream::check_tree`] does.
/// Without the variable the upstream part is skipped and the skip is
/// written to the process's stderr (past the harness's capture).
pub fn validate_tree(label: &str, files: &BTreeMap<String, Vec<u8>>) -> Checked {
    let set = schema::bundle().expect("the v1 bundle loads");
    let docs = documents(files);
    assert_eq!(
        docs.iter().filter(|d| d.0 == DocSchema::Index).count(),
        1,
        "{label}: one index.json"
    );
    for (schema, path, doc) in &docs {
        set.validate(*schema, doc)
            .unwrap_or_else(|e| panic!("{label}: v1 bundle, {path}: {e}"));
    }
    let upstream = match Upstream::from_env() {
        Some(u) => Some(u.check_tree(label, files)),
        None => {
            report_skip(label);
            None
        }
    };
    Checked {
        bundle: docs.len(),
        upstream,
    }
}

/// Says, on the real stderr (the harness captures only `print!` and
/// `eprint!`), that the upstream draft was not checked.
pub fn report_skip(label: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {label}: not checked against the upstream draft ({ENV} is not set; .ci/run sets it)"
    );
}
