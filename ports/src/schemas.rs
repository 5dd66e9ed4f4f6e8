//! The entity-context-snapshot v1 schema bundle (`ports/normative/`),
//! embedded and loaded offline as one registry keyed by `$id` and by file
//! name, behind core's [`Schemas`] port. An unresolved `$ref` is a build
//! error of the bundle, never a network fetch.
//!
//! It lives here, not in core, because the JSON Schema engine's hash maps
//! seed themselves from the operating system (`getrandom`, through
//! `ahash`): core takes the validation as an argument and stays pure.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use probity_core::context::{DocSchema, SchemaError, Schemas};
use serde_json::Value;

/// The nine bundle files, by file name.
pub const BUNDLE: &[(&str, &str)] = &[
    (
        "actor-state.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/actor-state.schema.json"),
    ),
    (
        "agent-runs.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/agent-runs.schema.json"),
    ),
    (
        "check.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/check.schema.json"),
    ),
    (
        "collection.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/collection.schema.json"),
    ),
    (
        "common.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/common.schema.json"),
    ),
    (
        "entity.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/entity.schema.json"),
    ),
    (
        "index.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/index.schema.json"),
    ),
    (
        "reviews.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/reviews.schema.json"),
    ),
    (
        "thread-state.schema.json",
        include_str!("../normative/entity-context-snapshot/v1/thread-state.schema.json"),
    ),
];

/// A loaded bundle: one validator per document schema, all compiled against
/// one offline registry.
pub struct SchemaSet {
    validators: BTreeMap<DocSchema, jsonschema::Validator>,
}

impl std::fmt::Debug for SchemaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaSet")
            .field("schemas", &self.validators.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl SchemaSet {
    /// Loads a bundle from (file name, parsed schema) pairs. Every file is
    /// registered under its `$id` and its file name; every document schema
    /// is compiled offline, so a missing sibling fails here.
    pub fn load(files: &BTreeMap<String, Value>) -> Result<Self, SchemaError> {
        let mut resources: Vec<(String, Value)> = Vec::new();
        for (name, schema) in files {
            let id = schema
                .get("$id")
                .and_then(Value::as_str)
                .ok_or_else(|| SchemaError::MissingId { file: name.clone() })?;
            resources.push((id.to_owned(), schema.clone()));
        }
        let registry = jsonschema::Registry::new()
            .extend(resources.iter().map(|(id, v)| (id.as_str(), v.clone())))
            .and_then(|b| b.prepare())
            .map_err(|e| SchemaError::Registry {
                reason: e.to_string(),
            })?;
        let mut validators = BTreeMap::new();
        for doc in DocSchema::ALL {
            let file = doc.file_name();
            let schema = files.get(file).ok_or_else(|| SchemaError::MissingFile {
                file: file.to_owned(),
            })?;
            let v = jsonschema::options()
                .offline()
                .with_registry(&registry)
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(schema)
                .map_err(|e| SchemaError::Compile {
                    file: file.to_owned(),
                    reason: e.to_string(),
                })?;
            validators.insert(doc, v);
        }
        Ok(SchemaSet { validators })
    }

    /// Parses and loads bundle files given as text.
    pub fn load_texts<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, SchemaError> {
        let mut parsed = BTreeMap::new();
        for (name, text) in files {
            let v: Value = serde_json::from_str(text).map_err(|e| SchemaError::NotJson {
                file: name.to_owned(),
                reason: e.to_string(),
            })?;
            parsed.insert(name.to_owned(), v);
        }
        Self::load(&parsed)
    }

    /// Validates a document against its schema; errors list instance paths.
    pub fn validate(&self, doc: DocSchema, value: &Value) -> Result<(), SchemaError> {
        let file = doc.file_name().to_owned();
        let v = self
            .validators
            .get(&doc)
            .ok_or_else(|| SchemaError::MissingFile { file: file.clone() })?;
        let errors: Vec<String> = v
            .iter_errors(value)
            .map(|e| format!("{}: {}", e.instance_path(), e))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(SchemaError::Invalid { file, errors })
        }
    }
}

impl Schemas for SchemaSet {
    fn validate(&self, doc: DocSchema, value: &Value) -> Result<(), SchemaError> {
        SchemaSet::validate(self, doc, value)
    }
}

/// The project's embedded bundle, loaded once.
pub fn bundle() -> Result<&'static SchemaSet, SchemaError> {
    static SET: OnceLock<Result<SchemaSet, SchemaError>> = OnceLock::new();
    SET.get_or_init(|| SchemaSet::load_texts(BUNDLE.iter().copied()))
        .as_ref()
        .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embedded_bundle_loads_offline() {
        let set = bundle().unwrap();
        set.validate(DocSchema::ActorState, &json!({"actors": []}))
            .unwrap();
        assert!(matches!(
            set.validate(DocSchema::ActorState, &json!({"actors": [], "x": 1})),
            Err(SchemaError::Invalid { .. })
        ));
    }

    #[test]
    fn missing_sibling_is_an_error() {
        let files = BUNDLE
            .iter()
            .copied()
            .filter(|(n, _)| *n != "common.schema.json");
        let err = SchemaSet::load_texts(files).unwrap_err();
        assert!(
            matches!(
                err,
                SchemaError::Compile { .. } | SchemaError::Registry { .. }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn collection_requires_admission() {
        let set = bundle().unwrap();
        let mut c = json!({
            "entity_kind": "work_item",
            "included_sources": ["comments", "entity"],
            "record_selection": "newest",
            "check_log_selection": "none",
            "bounds": {"max_records_per_source": 1, "max_source_bytes": 1, "max_record_bytes": 1,
                        "max_log_bytes": 1, "max_metadata_string_bytes": 1, "max_labels": 0}
        });
        assert!(set.validate(DocSchema::Collection, &c).is_err());
        c["admission"] = json!({"human_min_role": "triage"});
        set.validate(DocSchema::Collection, &c).unwrap();
        c["admission"] = json!({"human_min_role": "read"});
        assert!(set.validate(DocSchema::Collection, &c).is_err());
    }

    #[test]
    fn security_patterns_compile_and_apply() {
        let set = bundle().unwrap();
        let thread = |path: &str| {
            json!({"reviews": [], "threads": [{
                "id": "T1", "thread_key": "a".repeat(64), "created_at": "2026-01-01T00:00:00.000000000Z",
                "order_path": format!("threads/{}.order", "a".repeat(64)), "record_keys": [], "replies": [],
                "path": path
            }]})
        };
        set.validate(DocSchema::Reviews, &thread("src/main.rs"))
            .unwrap();
        for bad in ["../x", "a//b", "/abs", "a/%2e", "a\u{200B}b", "dir/"] {
            assert!(
                set.validate(DocSchema::Reviews, &thread(bad)).is_err(),
                "{bad}"
            );
        }
    }
}
