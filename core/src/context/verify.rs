//! The verifier (C3), pure part: an in-memory observation of a context
//! directory (every entry with its kind, files with their bytes) checked
//! against the retained root-index digest. Only the retained index is a
//! root of trust; the result holds exactly the verified bytes, so a copy
//! made from it is the bytes that were checked.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::filter::FilterVersion;
use super::schema::{DocSchema, SchemaError, Schemas};
use super::types::HexDigest;
use crate::canonical::canonical_value_bytes;

/// What a directory entry is, as observed without following links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A real directory.
    Dir,
    /// A regular file and its bytes (at most `MAX_OBSERVED_FILE_BYTES`).
    File(Vec<u8>),
    /// A regular file over [`MAX_OBSERVED_FILE_BYTES`]: its size, never its
    /// bytes (an observer does not read it).
    Oversized(u64),
    /// A symbolic link, never followed; refused wherever it is.
    Symlink,
    /// FIFOs, sockets, devices.
    Special,
}

/// The largest file an observer reads into memory; a larger one is
/// [`Node::Oversized`] and fails verification. No file an assembler emits
/// comes near it (the profile's byte bound applies per document).
pub const MAX_OBSERVED_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// File modes a verified tree may carry: the writer's 0600 or the
/// read-only copy's 0444.
pub(crate) const FILE_MODES: [u32; 2] = [0o600, 0o444];
/// Directory modes a verified tree may carry: the writer's 0700 or the
/// read-only copy's 0555.
pub(crate) const DIR_MODES: [u32; 2] = [0o700, 0o555];

/// An observed context directory: relative `/`-separated paths → nodes,
/// every directory and file under the root, and the permission bits
/// (`mode & 0o7777`) of each entry and of the root itself (key `""`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// Every entry under the root, relative `/`-separated path → what it is
    /// (the root itself is not an entry).
    pub entries: BTreeMap<String, Node>,
    /// Permission bits (`mode & 0o7777`) by path, the root's under `""`.
    pub modes: BTreeMap<String, u32>,
}

/// Why a context directory is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The context root is a link, a file or a special file, not a real
    /// directory.
    #[error("the context root is not a real directory")]
    RootNotDirectory,
    /// A symbolic link in the tree (at any component); carries its path.
    #[error("symlink refused at {0}")]
    Symlink(String),
    /// A FIFO, socket or device in the tree; carries its path.
    #[error("special file refused at {0}")]
    SpecialFile(String),
    /// No regular `index.json` at the root.
    #[error("index.json is missing or not a regular file")]
    MissingIndex,
    /// The `index.json` found is not the retained one: the root of trust
    /// differs.
    #[error("root index digest {actual} differs from the retained {expected}")]
    RootIndexMismatch {
        /// The retained digest, 64 lowercase hex.
        expected: String,
        /// The digest of the `index.json` found, 64 lowercase hex.
        actual: String,
    },
    /// A JSON document of the tree does not parse.
    #[error("{path} is not JSON: {reason}")]
    NotJson {
        /// The document's path in the tree.
        path: String,
        /// The parser's message.
        reason: String,
    },
    /// A JSON document is not exactly its RFC 8785 canonical bytes.
    #[error("{path} is not RFC 8785 canonical JSON")]
    NotCanonical {
        /// The document's path in the tree.
        path: String,
    },
    /// A document fails its v1 schema.
    #[error("{path} violates its schema: {error}")]
    Schema {
        /// The document's path in the tree.
        path: String,
        /// The violations.
        error: SchemaError,
    },
    /// `index.json` names a `filter_version` this build does not implement
    /// (`FilterVersion::SUPPORTED`, D-R73); carries it.
    #[error("unsupported filter_version `{0}`")]
    FilterVersion(String),
    /// The manifest lists one path twice; carries it.
    #[error("manifest lists {0} twice")]
    DuplicatePath(String),
    /// A manifest path whose shape admits no role, or another role than the
    /// one listed; carries the path and the listed role.
    #[error("manifest path {0} has role {1}, which does not match the path")]
    RoleMismatch(String, String),
    /// A manifest file is absent or not a regular file; carries its path.
    #[error("file {0} listed in the manifest is missing")]
    MissingFile(String),
    /// A file the manifest does not list; carries its path.
    #[error("file {0} is not in the manifest")]
    ExtraFile(String),
    /// A directory that holds no manifest file; carries its path.
    #[error("directory {0} holds no manifest file")]
    ExtraDirectory(String),
    /// A file's length differs from its manifest `bytes`.
    #[error("{path}: {actual} bytes, manifest says {expected}")]
    Size {
        /// The file's path.
        path: String,
        /// The manifest's byte count.
        expected: u64,
        /// The file's byte count.
        actual: u64,
    },
    /// A file's SHA-256 differs from its manifest `sha256`; carries its path.
    #[error("{0}: digest differs from the manifest")]
    Digest(String),
    /// A regular file over [`MAX_OBSERVED_FILE_BYTES`], refused by its size
    /// without being read.
    #[error("{path}: {size} bytes, over the {max}-byte limit of a context file (not read)")]
    TooLarge {
        /// The file's path.
        path: String,
        /// Its size in bytes, as observed.
        size: u64,
        /// The limit, [`MAX_OBSERVED_FILE_BYTES`].
        max: u64,
    },
    /// An entry or the root carries a mode no context tree is written with
    /// (setuid, setgid, sticky, group- or world-writable, ...).
    #[error("{path}: mode {mode:04o} is not one a context tree carries ({expected})")]
    Mode {
        /// The entry's path, `.` for the root.
        path: String,
        /// Its permission bits (`mode & 0o7777`).
        mode: u32,
        /// The modes allowed for its kind, in words.
        expected: &'static str,
    },
    /// The observation holds no mode for an entry; carries its path (`.` for
    /// the root).
    #[error("{0}: its mode was not observed")]
    ModeMissing(String),
    /// The index `collection_profile` is not the SHA-256 of the
    /// `collection.json` bytes.
    #[error("collection_profile does not equal the digest of collection.json")]
    CollectionProfile,
    /// A record path or an order line names a file the manifest does not
    /// list.
    #[error("{from} references {to}, which is not a manifest file")]
    Dangling {
        /// The file that names it: `index.json` or an `.order` file.
        from: String,
        /// The path it names.
        to: String,
    },
    /// The schema bundle could not be loaded, so nothing can be verified.
    #[error("schema bundle unavailable: {0}")]
    Bundle(SchemaError),
    /// An always-emitted file (`collection.json`, `state/actors.json`, ...)
    /// is not in the manifest; carries its path.
    #[error("the always-emitted file {0} is not in the manifest")]
    MissingSingleton(&'static str),
    /// A record file does not start with the `Fullsend-Record` header of its
    /// manifest role; carries its path.
    #[error("{0}: the record header does not match its manifest role")]
    RecordHeader(String),
    /// The index does not have exactly one `entity` record with a
    /// `content_path`.
    #[error("index.json must have exactly one entity record with content")]
    EntityRecord,
    /// The thread keys of `relations/reviews.json` and `state/threads.json`
    /// differ, or one repeats.
    #[error("relations/reviews.json and state/threads.json have different thread keys")]
    ThreadSets,
}

/// Files every tree has.
const SINGLETONS: [&str; 8] = [
    "collection.json",
    "entity/metadata.json",
    "relations/reviews.json",
    "history/agent-runs.json",
    "state/actors.json",
    "state/threads.json",
    "views/timeline.order",
    "views/unresolved-review.order",
];

fn header_kind(role: &str) -> Option<&'static str> {
    Some(match role {
        "entity_record" => "entity",
        "comment_record" => "comment",
        "review_record" => "review",
        _ => return None,
    })
}

fn thread_keys(doc: &Value) -> Vec<String> {
    let mut keys: Vec<String> = doc["threads"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["thread_key"].as_str().map(str::to_owned))
        .collect();
    keys.sort();
    keys
}

/// A verified tree: exactly the checked bytes, `index.json` included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedTree {
    files: BTreeMap<String, Vec<u8>>,
    index_digest: HexDigest,
}

impl VerifiedTree {
    /// Every verified file, path → the exact bytes checked, `index.json`
    /// included.
    pub fn files(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.files
    }
    /// The root-index digest the tree was verified against: the retained one.
    pub fn index_digest(&self) -> HexDigest {
        self.index_digest
    }
}

/// The role a manifest path must have, from its shape.
pub fn role_for_path(path: &str) -> Option<&'static str> {
    let hex64 = |s: &str| {
        s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    Some(match path {
        "collection.json" => "collection",
        "entity/metadata.json" => "entity_metadata",
        "views/timeline.order" => "timeline_view",
        "views/unresolved-review.order" => "unresolved_review_view",
        "relations/reviews.json" => "reviews",
        "history/agent-runs.json" => "agent_runs",
        "state/actors.json" => "actor_state",
        "state/threads.json" => "thread_state",
        _ => {
            if let Some(rest) = path.strip_prefix("records/") {
                let name = rest.strip_suffix(".md")?;
                let (order, key) = name.split_once('-')?;
                if !hex64(key) || order.len() != 25 {
                    return None;
                }
                // Record roles are told apart by the record header.
                return Some(if order == super::types::ENTITY_ORDER_KEY {
                    "entity_record"
                } else {
                    "conversation_record"
                });
            }
            if let Some(k) = path
                .strip_prefix("threads/")
                .and_then(|r| r.strip_suffix(".order"))
            {
                return hex64(k).then_some("thread_order");
            }
            if let Some(k) = path
                .strip_prefix("views/reviews/")
                .and_then(|r| r.strip_suffix(".order"))
            {
                return hex64(k).then_some("review_view");
            }
            if let Some(rest) = path.strip_prefix("checks/") {
                let (k, file) = rest.split_once('/')?;
                if !hex64(k) {
                    return None;
                }
                return match file {
                    "metadata.json" => Some("check_metadata"),
                    "log.txt" => Some("check_log"),
                    _ => None,
                };
            }
            return None;
        }
    })
}

fn doc_schema(role: &str) -> Option<DocSchema> {
    Some(match role {
        "collection" => DocSchema::Collection,
        "entity_metadata" => DocSchema::Entity,
        "reviews" => DocSchema::Reviews,
        "agent_runs" => DocSchema::AgentRuns,
        "check_metadata" => DocSchema::Check,
        "actor_state" => DocSchema::ActorState,
        "thread_state" => DocSchema::ThreadState,
        _ => return None,
    })
}

fn parse_json(path: &str, bytes: &[u8]) -> Result<Value, VerifyError> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| VerifyError::NotJson {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let canon = canonical_value_bytes(&v).map_err(|_| VerifyError::NotCanonical {
        path: path.to_owned(),
    })?;
    if canon != bytes {
        return Err(VerifyError::NotCanonical {
            path: path.to_owned(),
        });
    }
    Ok(v)
}

fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.char_indices()
        .filter(|(_, c)| *c == '/')
        .map(move |(i, _)| &path[..i])
}

/// The root of trust, checked alone: `index_bytes` must be the retained
/// `index.json` (its SHA-256 is `retained`), RFC 8785 canonical JSON, valid
/// against the index schema, of a `filter_version` this build implements. Answers the
/// parsed index, whose `files` manifest an observer may then use to refuse
/// unlisted or mis-sized files before reading any ([`verify`] checks it the
/// same way first).
pub fn check_index(
    index_bytes: &[u8],
    retained: &HexDigest,
    bundle: &dyn Schemas,
) -> Result<Value, VerifyError> {
    let actual = HexDigest::of(index_bytes);
    if actual != *retained {
        return Err(VerifyError::RootIndexMismatch {
            expected: retained.hex(),
            actual: actual.hex(),
        });
    }
    let index = parse_json("index.json", index_bytes)?;
    bundle
        .validate(DocSchema::Index, &index)
        .map_err(|error| VerifyError::Schema {
            path: "index.json".into(),
            error,
        })?;
    let fv = index["filter_version"].as_str().unwrap_or_default();
    if FilterVersion::parse(fv).is_none() {
        return Err(VerifyError::FilterVersion(fv.to_owned()));
    }
    Ok(index)
}

/// Verifies an observed context directory against the retained digest.
pub fn verify(
    observed: &Observed,
    retained: &HexDigest,
    bundle: &dyn Schemas,
) -> Result<VerifiedTree, VerifyError> {
    // Links and special files are refused at every component.
    for (path, node) in &observed.entries {
        match node {
            Node::Symlink => return Err(VerifyError::Symlink(path.clone())),
            Node::Special => return Err(VerifyError::SpecialFile(path.clone())),
            Node::Oversized(size) => {
                return Err(VerifyError::TooLarge {
                    path: path.clone(),
                    size: *size,
                    max: MAX_OBSERVED_FILE_BYTES,
                });
            }
            Node::Dir | Node::File(_) => {}
        }
    }
    let Some(Node::File(index_bytes)) = observed.entries.get("index.json") else {
        return Err(VerifyError::MissingIndex);
    };
    let index = check_index(index_bytes, retained, bundle)?;
    let actual = *retained;

    let mut files = BTreeMap::new();
    let manifest = index["files"].as_array().cloned().unwrap_or_default();
    for entry in &manifest {
        let path = entry["path"].as_str().unwrap_or_default().to_owned();
        let role = entry["role"].as_str().unwrap_or_default();
        let shape = role_for_path(&path)
            .ok_or_else(|| VerifyError::RoleMismatch(path.clone(), role.to_owned()))?;
        let role_ok = shape == role
            || (shape == "conversation_record"
                && matches!(role, "comment_record" | "review_record"));
        if !role_ok {
            return Err(VerifyError::RoleMismatch(path.clone(), role.to_owned()));
        }
        let Some(Node::File(bytes)) = observed.entries.get(&path) else {
            return Err(VerifyError::MissingFile(path));
        };
        let expected = entry["bytes"].as_u64().unwrap_or(u64::MAX);
        if bytes.len() as u64 != expected {
            return Err(VerifyError::Size {
                path,
                expected,
                actual: bytes.len() as u64,
            });
        }
        let digest = HexDigest::of(bytes).hex();
        if entry["sha256"].as_str() != Some(digest.as_str()) {
            return Err(VerifyError::Digest(path));
        }
        if let Some(kind) = header_kind(role) {
            let first = format!("Fullsend-Record: \"{kind}\"\n");
            if !bytes.starts_with(first.as_bytes()) {
                return Err(VerifyError::RecordHeader(path));
            }
        }
        if let Some(doc) = doc_schema(role) {
            let v = parse_json(&path, bytes)?;
            bundle
                .validate(doc, &v)
                .map_err(|error| VerifyError::Schema {
                    path: path.clone(),
                    error,
                })?;
        }
        if files.insert(path.clone(), bytes.clone()).is_some() {
            return Err(VerifyError::DuplicatePath(path));
        }
    }

    // The exact manifest path set: no extra file, no extra directory.
    let dirs: BTreeSet<&str> = files.keys().flat_map(|p| ancestors(p)).collect();
    for (path, node) in &observed.entries {
        match node {
            Node::File(_) if path != "index.json" && !files.contains_key(path) => {
                return Err(VerifyError::ExtraFile(path.clone()));
            }
            Node::Dir if !dirs.contains(path.as_str()) => {
                return Err(VerifyError::ExtraDirectory(path.clone()));
            }
            _ => {}
        }
    }

    for name in SINGLETONS {
        if !files.contains_key(name) {
            return Err(VerifyError::MissingSingleton(name));
        }
    }
    let entity_records = index["records"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == "entity" && r.get("content_path").is_some())
        .count();
    if entity_records != 1 {
        return Err(VerifyError::EntityRecord);
    }
    let parse = |p: &str| -> Result<Value, VerifyError> {
        let b = files.get(p).map(Vec::as_slice).unwrap_or_default();
        parse_json(p, b)
    };
    let rel = parse("relations/reviews.json")?;
    let state = parse("state/threads.json")?;
    let rel_keys = thread_keys(&rel);
    let mut unique = rel_keys.clone();
    unique.dedup();
    if rel_keys != thread_keys(&state) || unique.len() != rel_keys.len() {
        return Err(VerifyError::ThreadSets);
    }
    let collection = files
        .get("collection.json")
        .ok_or_else(|| VerifyError::MissingFile("collection.json".into()))?;
    if index["collection_profile"].as_str() != Some(HexDigest::of(collection).hex().as_str()) {
        return Err(VerifyError::CollectionProfile);
    }
    // Record paths and order lines reference manifest files only.
    for r in index["records"].as_array().into_iter().flatten() {
        for k in ["content_path", "metadata_path", "log_path"] {
            if let Some(p) = r[k].as_str()
                && !files.contains_key(p)
            {
                return Err(VerifyError::Dangling {
                    from: "index.json".into(),
                    to: p.to_owned(),
                });
            }
        }
    }
    for (path, bytes) in &files {
        if path.ends_with(".order") {
            for line in String::from_utf8_lossy(bytes).lines() {
                if !files.contains_key(line) {
                    return Err(VerifyError::Dangling {
                        from: path.clone(),
                        to: line.to_owned(),
                    });
                }
            }
        }
    }
    check_modes(observed)?;
    files.insert("index.json".into(), index_bytes.clone());
    Ok(VerifiedTree {
        files,
        index_digest: actual,
    })
}

/// Every entry (and the root) must carry one of the modes a writer or the
/// read-only copy gives: no setuid, setgid or sticky bit, nothing group- or
/// world-writable, nothing unreadable by its owner.
fn check_modes(observed: &Observed) -> Result<(), VerifyError> {
    let root = std::iter::once((String::new(), &Node::Dir));
    for (path, node) in root.chain(observed.entries.iter().map(|(p, n)| (p.clone(), n))) {
        let (allowed, expected): (&[u32], &'static str) = match node {
            Node::Dir => (&DIR_MODES, "0700 or 0555 for a directory"),
            _ => (&FILE_MODES, "0600 or 0444 for a file"),
        };
        let shown = if path.is_empty() {
            ".".to_owned()
        } else {
            path.clone()
        };
        let mode = *observed
            .modes
            .get(&path)
            .ok_or_else(|| VerifyError::ModeMissing(shown.clone()))?;
        if !allowed.contains(&mode) {
            return Err(VerifyError::Mode {
                path: shown,
                mode,
                expected,
            });
        }
    }
    Ok(())
}

/// The observation of an in-memory tree (every ancestor directory added),
/// with the modes a writer gives (0700 directories, 0600 files).
pub fn observe(files: &BTreeMap<String, Vec<u8>>) -> Observed {
    let mut entries = BTreeMap::new();
    for (p, b) in files {
        for d in ancestors(p) {
            entries.insert(d.to_owned(), Node::Dir);
        }
        entries.insert(p.clone(), Node::File(b.clone()));
    }
    let mut modes: BTreeMap<String, u32> = entries
        .iter()
        .map(|(p, n)| (p.clone(), if *n == Node::Dir { 0o700 } else { 0o600 }))
        .collect();
    modes.insert(String::new(), 0o700);
    Observed { entries, modes }
}
