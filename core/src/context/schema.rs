//! The documents of an entity-context tree and the schemas that govern
//! them. Core decides which document a path is and refuses what a schema
//! refuses; the validation itself is a port ([`Schemas`]): the normative
//! bundle and its JSON Schema engine live in `probity-ports`
//! (`probity_ports::schemas`), so core stays free of the engine's
//! dependencies (its hash maps seed themselves from the OS).

use serde_json::Value;

/// The JSON documents of a tree, by the schema that governs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocSchema {
    /// `index.json`: the root index.
    Index,
    /// `collection.json`: the collection profile.
    Collection,
    /// `entity/metadata.json`: the entity metadata.
    Entity,
    /// `relations/reviews.json`: formal reviews and review threads.
    Reviews,
    /// `history/agent-runs.json`: run receipts.
    AgentRuns,
    /// `checks/<record-key>/metadata.json`: one check's metadata.
    Check,
    /// `state/actors.json`: the referenced actors.
    ActorState,
    /// `state/threads.json`: thread resolution state.
    ThreadState,
}

impl DocSchema {
    /// Every document schema, in declaration order: what a bundle must compile.
    pub const ALL: [DocSchema; 8] = [
        DocSchema::Index,
        DocSchema::Collection,
        DocSchema::Entity,
        DocSchema::Reviews,
        DocSchema::AgentRuns,
        DocSchema::Check,
        DocSchema::ActorState,
        DocSchema::ThreadState,
    ];
    /// The schema's file name in the bundle (`index.schema.json`, ...).
    pub fn file_name(self) -> &'static str {
        match self {
            DocSchema::Index => "index.schema.json",
            DocSchema::Collection => "collection.schema.json",
            DocSchema::Entity => "entity.schema.json",
            DocSchema::Reviews => "reviews.schema.json",
            DocSchema::AgentRuns => "agent-runs.schema.json",
            DocSchema::Check => "check.schema.json",
            DocSchema::ActorState => "actor-state.schema.json",
            DocSchema::ThreadState => "thread-state.schema.json",
        }
    }
}

/// Why a bundle could not be loaded or a document is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A bundle file given as text is not JSON.
    #[error("schema file {file} is not JSON: {reason}")]
    NotJson {
        /// The bundle file name.
        file: String,
        /// The parser's message.
        reason: String,
    },
    /// A bundle file has no string `$id` to register it under.
    #[error("schema file {file} has no string `$id`")]
    MissingId {
        /// The bundle file name.
        file: String,
    },
    /// The bundle lacks the schema file a document needs.
    #[error("schema bundle is missing {file}")]
    MissingFile {
        /// The missing file name (`index.schema.json`, ...).
        file: String,
    },
    /// The files do not load as one offline registry keyed by `$id`.
    #[error("schema bundle does not load as one offline registry: {reason}")]
    Registry {
        /// The schema engine's message.
        reason: String,
    },
    /// A document schema does not compile offline: an unresolved `$ref` or
    /// a pattern the linear-time regex engine refuses.
    #[error("schema {file} does not compile (an unresolved `$ref` is an error): {reason}")]
    Compile {
        /// The schema file name.
        file: String,
        /// The schema engine's message.
        reason: String,
    },
    /// A document violates its schema.
    #[error("document violates {file}: {errors:?}")]
    Invalid {
        /// The schema file it violates.
        file: String,
        /// One entry per violation, `<instance path>: <message>`.
        errors: Vec<String>,
    },
}

/// Validates documents against the schema bundle (the normative v1 bundle
/// in production, `probity_ports::schemas::bundle()`).
pub trait Schemas: Sync {
    /// Validates a document against its schema; errors list instance paths.
    fn validate(&self, doc: DocSchema, value: &Value) -> Result<(), SchemaError>;
}

/// A validator that accepts every document: for core's own unit tests of
/// assembly logic, which the bundle's tests in `probity-ports` complement.
#[cfg(test)]
pub(crate) struct AcceptAll;

#[cfg(test)]
impl Schemas for AcceptAll {
    fn validate(&self, _: DocSchema, _: &Value) -> Result<(), SchemaError> {
        Ok(())
    }
}
