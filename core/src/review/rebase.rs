//! The rebase proof (issue 8 §3): an approved change carried onto another
//! base by `git pull --rebase` (or `stash; pull --rebase; stash pop`) is
//! still the approved change when, on the reviewed paths, the live base
//! equals the receipt's base and the live candidate equals the final
//! candidate, and outside them the live candidate changes nothing.
//!
//! The proof is derived from tree entries only. Its discovery key is the
//! **delta identity**: the digest of the canonical list of the entries in
//! which a base and a candidate differ, a value a rebase that touches no
//! reviewed path does not change (the trees' own ids do change).

use serde::Serialize;

use crate::canonical::canonical_digest;
use crate::digest::{Domain, Sha256Digest};
use crate::review::ids::{LineageId, ObjectId, RepoPath, TreeId};
use crate::review::snapshot::FileMode;

/// Domain of the delta identity: the canonical JSON array of
/// `{"path","base","final"}` objects, each side `{"mode","object"}` (mode
/// in git's octal form) or `null` when the path is absent on that side,
/// sorted by path.
pub const DELTA_DOMAIN: Domain = Domain::new("probity/delta-identity/v1");

/// Domain of one delta entry's identity (the same canonical object as one
/// element of the delta identity's array): the key of the diagnostic index
/// that finds an approved change some of whose exact edits the live target
/// repeats on another base.
pub const DELTA_ENTRY_DOMAIN: Domain = Domain::new("probity/delta-entry/v1");

/// At most this many entries of a delta are indexed and looked up (the
/// first ones by path): a bound on the store's writes and the gate's reads.
pub const MAX_ENTRY_KEYS: usize = 64;

/// One side of a tree entry: its mode and the object it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySide {
    /// The entry's mode (hashed in git's octal form, `100644` etc.).
    pub mode: FileMode,
    /// The blob the entry names, or the commit of a gitlink.
    pub object: ObjectId,
}

/// A path whose entry differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeltaEntry {
    /// The repository-relative path whose entry differs.
    pub path: RepoPath,
    /// The entry in the base tree; `None` when the path is absent there.
    pub base: Option<EntrySide>,
    /// The entry in the candidate tree; `None` when the path is absent.
    pub candidate: Option<EntrySide>,
}

/// Why a list of entries is not a tree delta.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    /// The reported entries name the same path more than once.
    #[error("path {0} is listed twice in a tree delta")]
    Duplicate(RepoPath),
    /// An entry whose base and candidate sides are equal (same mode and
    /// object, or both absent): not a difference.
    #[error("path {0} is listed in a tree delta but does not differ")]
    Unchanged(RepoPath),
}

/// The entries in which two trees differ: sorted by path, each path once,
/// each entry a real difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeDelta(Vec<DeltaEntry>);

#[derive(Serialize)]
struct SideDoc<'a> {
    mode: &'static str,
    object: &'a str,
}

#[derive(Serialize)]
struct EntryDoc<'a> {
    path: &'a str,
    base: Option<SideDoc<'a>>,
    #[serde(rename = "final")]
    candidate: Option<SideDoc<'a>>,
}

fn side_doc(s: &Option<EntrySide>) -> Option<SideDoc<'_>> {
    s.as_ref().map(|s| SideDoc {
        mode: s.mode.octal(),
        object: s.object.as_str(),
    })
}

impl TreeDelta {
    /// Parses the entries git reported (in any order).
    pub fn new(mut entries: Vec<DeltaEntry>) -> Result<Self, DeltaError> {
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        for w in entries.windows(2) {
            if w[0].path == w[1].path {
                return Err(DeltaError::Duplicate(w[0].path.clone()));
            }
        }
        if let Some(e) = entries.iter().find(|e| e.base == e.candidate) {
            return Err(DeltaError::Unchanged(e.path.clone()));
        }
        Ok(Self(entries))
    }

    /// The differing entries, sorted by path, each path once.
    pub fn entries(&self) -> &[DeltaEntry] {
        &self.0
    }

    /// The differing paths, sorted.
    pub fn paths(&self) -> Vec<RepoPath> {
        self.0.iter().map(|e| e.path.clone()).collect()
    }

    /// The identities of the first [`MAX_ENTRY_KEYS`] entries (see
    /// [`DELTA_ENTRY_DOMAIN`]), in path order.
    pub fn entry_identities(&self) -> Vec<(Sha256Digest, &DeltaEntry)> {
        self.0
            .iter()
            .take(MAX_ENTRY_KEYS)
            .map(|e| {
                let doc = EntryDoc {
                    path: e.path.as_str(),
                    base: side_doc(&e.base),
                    candidate: side_doc(&e.candidate),
                };
                let key = canonical_digest(DELTA_ENTRY_DOMAIN, &doc)
                    .unwrap_or_else(|_| Sha256Digest::of(DELTA_ENTRY_DOMAIN, b"unserializable"));
                (key, e)
            })
            .collect()
    }

    /// Whether the delta holds exactly this entry.
    pub fn contains(&self, entry: &DeltaEntry) -> bool {
        self.0
            .binary_search_by(|e| e.path.cmp(&entry.path))
            .is_ok_and(|i| self.0[i] == *entry)
    }

    /// The delta identity (see [`DELTA_DOMAIN`]).
    pub fn identity(&self) -> Sha256Digest {
        let docs: Vec<EntryDoc<'_>> = self
            .0
            .iter()
            .map(|e| EntryDoc {
                path: e.path.as_str(),
                base: side_doc(&e.base),
                candidate: side_doc(&e.candidate),
            })
            .collect();
        // Strings and nulls only: canonical serialization cannot fail.
        canonical_digest(DELTA_DOMAIN, &docs)
            .unwrap_or_else(|_| Sha256Digest::of(DELTA_DOMAIN, b"unserializable"))
    }
}

/// The proof an allow carries when no single receipt names the live target:
/// the approved change carried onto another base (`rebased_onto`), or a
/// run of an approved recovery chain (`recovery_chain`, R8.9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateProof {
    /// Which argument the allow rests on: serialized as `rebased_onto`,
    /// `recovery_chain` or `first_publication`.
    pub kind: ProofKind,
    /// The base tree the review froze (for a chain: its first lineage's).
    pub receipt_base: TreeId,
    /// The base tree the live candidate (or delivered commit) sits on.
    pub live_base: TreeId,
    /// For `recovery_chain` and `composed_reviews`: the lineages composed,
    /// first to last, each one's base the previous one's final candidate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<LineageId>,
}

/// The kind of proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofKind {
    /// The approved change, carried unchanged onto a base that differs
    /// from the reviewed one outside the reviewed paths only.
    RebasedOnto,
    /// Consecutive segments of an approved recovery chain whose union is
    /// exactly the delivered change (R8.9).
    RecoveryChain,
    /// One review of the empty tree to the tip's tree covers a whole
    /// history, every blob of which is a blob of the reviewed tree (R8.8).
    FirstPublication,
    /// A squash of reviewed commits: approved reviews on the same base,
    /// each on the previous one's approved candidate, whose composition is
    /// exactly the delivered change (issue 21 §3).
    ComposedReviews,
}

/// What the rebase check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebaseCheck {
    /// The live target is the approved change on another base.
    Proven(GateProof),
    /// These paths differ from what the review approved (sorted): a
    /// reviewed path whose base or candidate entry differs, or a path
    /// outside the reviewed ones that the live candidate changes.
    Differs(Vec<RepoPath>),
}

/// The reviewed paths that the reviewed delta does not change (a
/// correction may have restored one to its base content): the only paths
/// whose base entries the delta identity does not already compare, so the
/// only ones for which the caller must say whether the base moved.
pub fn reviewed_outside_delta(reviewed_paths: &[RepoPath], reviewed: &TreeDelta) -> Vec<RepoPath> {
    reviewed_paths
        .iter()
        .filter(|p| reviewed.0.binary_search_by(|e| e.path.cmp(p)).is_err())
        .cloned()
        .collect()
}

/// The rebase proof. `reviewed` is the delta from the receipt's base to its
/// final candidate, `live` the delta from the live base to the live
/// candidate, `base_moved` the paths among [`reviewed_outside_delta`] whose
/// entries differ between the two bases (any superset restricted by this
/// function to the reviewed paths is accepted).
///
/// Equal deltas prove: on every path the review changed, the live base and
/// candidate entries are the reviewed ones; on every other path the live
/// candidate equals the live base. The reviewed paths the delta does not
/// change must also be unmoved on the base, so their delivered content is
/// the reviewed one.
pub fn check_rebase(
    reviewed_paths: &[RepoPath],
    receipt_base: &TreeId,
    reviewed: &TreeDelta,
    live_base: &TreeId,
    live: &TreeDelta,
    base_moved: &[RepoPath],
) -> RebaseCheck {
    let mut differs: Vec<RepoPath> = Vec::new();
    let (a, b) = (&reviewed.0, &live.0);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.path == y.path => {
                if x != y {
                    differs.push(x.path.clone());
                }
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.path < y.path => {
                differs.push(x.path.clone());
                i += 1;
            }
            (Some(_), Some(y)) | (None, Some(y)) => {
                differs.push(y.path.clone());
                j += 1;
            }
            (Some(x), None) => {
                differs.push(x.path.clone());
                i += 1;
            }
            (None, None) => break,
        }
    }
    differs.extend(
        base_moved
            .iter()
            .filter(|p| reviewed_paths.binary_search(p).is_ok())
            .cloned(),
    );
    differs.sort();
    differs.dedup();
    if differs.is_empty() {
        RebaseCheck::Proven(GateProof {
            kind: ProofKind::RebasedOnto,
            receipt_base: receipt_base.clone(),
            live_base: live_base.clone(),
            chain: Vec::new(),
        })
    } else {
        RebaseCheck::Differs(differs)
    }
}

/// Quotes a path for a POSIX shell command line when it needs it.
pub(crate) fn shell_quote(p: &str) -> String {
    let plain = !p.is_empty()
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-+,:@%".contains(&b))
        && !p.starts_with('-');
    if plain {
        p.to_string()
    } else {
        format!("'{}'", p.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B1: &str = "1111111111111111111111111111111111111111";
    const B2: &str = "2222222222222222222222222222222222222222";
    const O1: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const O2: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const O3: &str = "cccccccccccccccccccccccccccccccccccccccc";

    fn p(s: &str) -> RepoPath {
        RepoPath::parse(s).unwrap()
    }

    fn side(mode: FileMode, o: &str) -> Option<EntrySide> {
        Some(EntrySide {
            mode,
            object: ObjectId::parse(o).unwrap(),
        })
    }

    fn e(path: &str, base: Option<&str>, cand: Option<&str>) -> DeltaEntry {
        DeltaEntry {
            path: p(path),
            base: base.and_then(|o| side(FileMode::Regular, o)),
            candidate: cand.and_then(|o| side(FileMode::Regular, o)),
        }
    }

    fn t(s: &str) -> TreeId {
        TreeId::parse(s).unwrap()
    }

    #[test]
    fn the_identity_ignores_order_and_binds_every_field() {
        let one = TreeDelta::new(vec![e("b", Some(O1), Some(O2)), e("a", None, Some(O3))]).unwrap();
        let same =
            TreeDelta::new(vec![e("a", None, Some(O3)), e("b", Some(O1), Some(O2))]).unwrap();
        assert_eq!(one.identity(), same.identity());
        assert_eq!(one.paths(), vec![p("a"), p("b")]);
        let variants = [
            vec![e("a", None, Some(O3)), e("b", Some(O1), Some(O3))],
            vec![e("a", None, Some(O3)), e("b", Some(O3), Some(O2))],
            vec![e("a", None, Some(O3)), e("c", Some(O1), Some(O2))],
            vec![e("a", Some(O1), Some(O3)), e("b", Some(O1), Some(O2))],
            vec![e("b", Some(O1), Some(O2))],
        ];
        for v in variants {
            assert_ne!(TreeDelta::new(v).unwrap().identity(), one.identity());
        }
        // The mode is bound too (an executable bit is content).
        let exec = TreeDelta::new(vec![
            e("a", None, Some(O3)),
            DeltaEntry {
                path: p("b"),
                base: side(FileMode::Regular, O1),
                candidate: side(FileMode::Executable, O2),
            },
        ])
        .unwrap();
        assert_ne!(exec.identity(), one.identity());
        // A versioned domain: not the digest of the same bytes elsewhere.
        assert_ne!(
            TreeDelta::new(vec![]).unwrap().identity(),
            Sha256Digest::of(Domain::new("probity/target/v1"), b"[]")
        );
    }

    #[test]
    fn entry_identities_are_per_entry_and_bounded() {
        let d = TreeDelta::new(vec![e("b", Some(O1), Some(O2)), e("a", None, Some(O3))]).unwrap();
        let keys = d.entry_identities();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[0].1.path, p("a"));
        // The same edit in another delta has the same key.
        let other =
            TreeDelta::new(vec![e("b", Some(O1), Some(O2)), e("c", None, Some(O3))]).unwrap();
        assert_eq!(other.entry_identities()[0].0, keys[1].0);
        assert_ne!(keys[0].0, keys[1].0);
        assert!(d.contains(&e("a", None, Some(O3))));
        assert!(!d.contains(&e("a", None, Some(O2))));
        let many: Vec<DeltaEntry> = (0..MAX_ENTRY_KEYS + 5)
            .map(|i| e(&format!("f{i:03}"), None, Some(O1)))
            .collect();
        assert_eq!(
            TreeDelta::new(many).unwrap().entry_identities().len(),
            MAX_ENTRY_KEYS
        );
    }

    #[test]
    fn malformed_deltas_are_typed_errors() {
        assert_eq!(
            TreeDelta::new(vec![e("a", None, Some(O1)), e("a", Some(O1), None)]),
            Err(DeltaError::Duplicate(p("a")))
        );
        assert_eq!(
            TreeDelta::new(vec![e("a", Some(O1), Some(O1))]),
            Err(DeltaError::Unchanged(p("a")))
        );
    }

    #[test]
    fn an_equal_delta_on_another_base_is_proven() {
        let reviewed = TreeDelta::new(vec![e("src/a.rs", Some(O1), Some(O2))]).unwrap();
        let live = reviewed.clone();
        let paths = [p("src/a.rs")];
        assert_eq!(
            check_rebase(&paths, &t(B1), &reviewed, &t(B2), &live, &[p("docs/x.md")]),
            RebaseCheck::Proven(GateProof {
                kind: ProofKind::RebasedOnto,
                receipt_base: t(B1),
                live_base: t(B2),
                chain: Vec::new(),
            })
        );
        let json = serde_json::to_value(GateProof {
            kind: ProofKind::RebasedOnto,
            receipt_base: t(B1),
            live_base: t(B2),
            chain: Vec::new(),
        })
        .unwrap();
        assert_eq!(json["kind"], "rebased_onto");
        assert_eq!(json["receipt_base"], B1);
        assert_eq!(json["live_base"], B2);
    }

    #[test]
    fn any_other_difference_names_its_paths() {
        let reviewed = TreeDelta::new(vec![
            e("src/a.rs", Some(O1), Some(O2)),
            e("src/b.rs", None, Some(O3)),
        ])
        .unwrap();
        let paths = [p("src/a.rs"), p("src/b.rs")];
        // Upstream changed a reviewed path: its base entry differs.
        let upstream = TreeDelta::new(vec![
            e("src/a.rs", Some(O3), Some(O2)),
            e("src/b.rs", None, Some(O3)),
        ])
        .unwrap();
        assert_eq!(
            check_rebase(&paths, &t(B1), &reviewed, &t(B2), &upstream, &[]),
            RebaseCheck::Differs(vec![p("src/a.rs")])
        );
        // The delivery also changes a path nobody reviewed, and lacks one.
        let extra = TreeDelta::new(vec![
            e("src/a.rs", Some(O1), Some(O2)),
            e("src/c.rs", Some(O1), None),
        ])
        .unwrap();
        assert_eq!(
            check_rebase(&paths, &t(B1), &reviewed, &t(B2), &extra, &[]),
            RebaseCheck::Differs(vec![p("src/b.rs"), p("src/c.rs")])
        );
    }

    #[test]
    fn a_reviewed_path_outside_the_delta_must_not_move_on_the_base() {
        // A correction restored src/b.rs: reviewed, but not in the delta.
        let reviewed = TreeDelta::new(vec![e("src/a.rs", Some(O1), Some(O2))]).unwrap();
        let paths = [p("src/a.rs"), p("src/b.rs")];
        assert_eq!(
            reviewed_outside_delta(&paths, &reviewed),
            vec![p("src/b.rs")]
        );
        let live = reviewed.clone();
        assert_eq!(
            check_rebase(
                &paths,
                &t(B1),
                &reviewed,
                &t(B2),
                &live,
                &[p("src/b.rs"), p("README.md")]
            ),
            RebaseCheck::Differs(vec![p("src/b.rs")])
        );
        assert!(matches!(
            check_rebase(&paths, &t(B1), &reviewed, &t(B2), &live, &[p("README.md")]),
            RebaseCheck::Proven(_)
        ));
    }

    #[test]
    fn paths_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("src/a.rs"), "src/a.rs");
        assert_eq!(shell_quote("my file.txt"), "'my file.txt'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("-rf"), "'-rf'");
        assert_eq!(shell_quote("$(x)"), "'$(x)'");
    }
}
