//! Validated values of entity-context-snapshot v1: forges, hosts, structural
//! IDs, record keys, canonical timestamps and the closed vocabularies.
//!
//! Every type here is constructed by a parser that rejects what the seed
//! rejects, so an assembled tree can only carry representable values.

use std::fmt;

use serde::{Serialize, Serializer};
use sha2::{Digest as _, Sha256};

use crate::calendar::UtcInstant;

/// Why a structural value is not representable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// `source.forge` is not one of the three v1 forges; carries the value.
    #[error("unknown forge `{0}` (expected github, gitlab or forgejo)")]
    Forge(String),
    /// `source.host` breaks D11 (uppercase, an IP literal, a scheme or path,
    /// the default port written out, ...).
    #[error("invalid host `{value}`: {reason}")]
    Host {
        /// The refused host, as given.
        value: String,
        /// The rule it breaks, in words.
        reason: &'static str,
    },
    /// A structural ID outside the generic alphabet or its forge's mapping.
    #[error("invalid {what} `{value}` for forge {forge}")]
    Id {
        /// What the ID names (`repository id`, `record id`, `actor id`, ...).
        what: &'static str,
        /// The forge whose mapping it fails.
        forge: Forge,
        /// The refused ID, as given.
        value: String,
    },
    /// Not an RFC 3339 date-time Probity represents (no offset, a leap
    /// second, a year outside 0000-9999 after UTC normalization, ...).
    #[error("invalid timestamp `{value}`: {reason}")]
    Timestamp {
        /// The refused text, as given.
        value: String,
        /// What is wrong with it, in words.
        reason: &'static str,
    },
    /// A Git object ID that is not 40 or 64 lowercase hex digits (an
    /// uppercase one included: it is never lowered); carries the value.
    #[error("invalid git object id `{0}` (expected 40 or 64 lowercase hex digits)")]
    GitOid(String),
    /// A record key or another hex SHA-256 (a run's `input_revision`) that is
    /// not 64 lowercase hex digits; carries the value.
    #[error("invalid record key `{0}` (expected 64 lowercase hex digits)")]
    RecordKey(String),
    /// `source.repository` is not in its forge's form.
    #[error("invalid repository `{value}` for forge {forge}")]
    Repository {
        /// The forge whose form it fails.
        forge: Forge,
        /// The refused repository, as given.
        value: String,
    },
    /// A repository path outside the alphabet, absolute, with a trailing
    /// slash or an empty, `.` or `..` segment; carries the value.
    #[error("invalid repository path `{0}`")]
    RepositoryPath(String),
    /// A value outside one of the closed v1 vocabularies.
    #[error("unknown {what} `{value}`")]
    Vocabulary {
        /// The vocabulary (`entity state`, `check status`, ...).
        what: &'static str,
        /// The refused value, as given.
        value: String,
    },
}

/// The three forges of v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Forge {
    /// GitHub: github.com, or a GitHub Enterprise Server host.
    Github,
    /// GitLab.
    Gitlab,
    /// Forgejo.
    Forgejo,
}

impl Forge {
    /// Parses the `source.forge` spelling (`github`, `gitlab`, `forgejo`);
    /// anything else is `ValueError::Forge`.
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        match s {
            "github" => Ok(Forge::Github),
            "gitlab" => Ok(Forge::Gitlab),
            "forgejo" => Ok(Forge::Forgejo),
            other => Err(ValueError::Forge(other.to_owned())),
        }
    }
    /// The lowercase spelling of `source.forge`, also the scheme of the
    /// record-key origin (`github://<host>`).
    pub fn as_str(self) -> &'static str {
        match self {
            Forge::Github => "github",
            Forge::Gitlab => "gitlab",
            Forge::Forgejo => "forgejo",
        }
    }
}

impl fmt::Display for Forge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `source.host`: lowercase DNS labels, optional non-default port (D11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host(String);

impl Host {
    /// Parses a host under D11: lowercase DNS labels of 1 to 63 `[a-z0-9-]`
    /// without an edge hyphen (253 characters at most), not an IP literal, and
    /// an optional decimal port 1 to 65535 other than 443, without a leading
    /// zero.
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        let err = |reason| ValueError::Host {
            value: s.to_owned(),
            reason,
        };
        let (name, port) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        if name.is_empty() || name.len() > 253 {
            return Err(err("the name must have 1 to 253 characters"));
        }
        let labels: Vec<&str> = name.split('.').collect();
        for label in &labels {
            if label.is_empty() || label.len() > 63 {
                return Err(err("every label must have 1 to 63 characters"));
            }
            if !label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                return Err(err("labels use only lowercase a-z, 0-9 and -"));
            }
            if label.starts_with('-') || label.ends_with('-') {
                return Err(err("a label must not start or end with a hyphen"));
            }
        }
        if labels.iter().all(|l| l.bytes().all(|b| b.is_ascii_digit())) {
            return Err(err("IP literals are not hosts"));
        }
        if let Some(p) = port {
            if p.is_empty() || p.starts_with('0') || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(
                    "the port must be a decimal number without leading zeros",
                ));
            }
            let n: u32 = p.parse().map_err(|_| err("the port is out of range"))?;
            if !(1..=65535).contains(&n) {
                return Err(err("the port must be 1 to 65535"));
            }
            if n == 443 {
                return Err(err("the default port 443 is omitted"));
            }
        }
        Ok(Host(s.to_owned()))
    }
    /// The host as given: it is already canonical and never rewritten.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a structural ID identifies; each kind has its forge mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    /// `source.repository_id`.
    Repository,
    /// The entity's `id`.
    Entity,
    /// A comment, review or check ID (also a thread's `review_id`).
    Record,
    /// An actor ID: an author, resolver or dismisser.
    Actor,
    /// A review thread ID (on GitLab a discussion ID, with its own alphabet).
    Thread,
    /// A Fullsend run receipt ID (outside GitHub, only the generic alphabet).
    AgentRun,
}

impl IdKind {
    fn name(self) -> &'static str {
        match self {
            IdKind::Repository => "repository id",
            IdKind::Entity => "entity id",
            IdKind::Record => "record id",
            IdKind::Actor => "actor id",
            IdKind::Thread => "thread id",
            IdKind::AgentRun => "agent run id",
        }
    }
}

fn is_structural(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'=' | b'-'))
}

fn is_github_node_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'=' | b'-'))
}

fn is_decimal_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b[0] != b'0' && b.iter().all(u8::is_ascii_digit)
}

fn is_gitlab_discussion_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-'))
}

/// A structural ID that satisfies `common.schema.json#/$defs/structural_id`
/// and the narrower mapping of its forge. Never rewritten.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub(crate) struct StructuralId(String);

impl StructuralId {
    /// Parses an ID of `kind` from `forge`: the generic `structural_id`
    /// alphabet, narrowed on GitHub to node IDs (`[A-Za-z0-9][A-Za-z0-9_=-]*`),
    /// on GitLab and Forgejo to base-10 without a leading zero, except GitLab
    /// thread (discussion) IDs and non-GitHub run IDs.
    pub(crate) fn parse(forge: Forge, kind: IdKind, s: &str) -> Result<Self, ValueError> {
        let ok = is_structural(s)
            && match (forge, kind) {
                (Forge::Github, _) => is_github_node_id(s),
                (Forge::Gitlab, IdKind::Thread) => is_gitlab_discussion_id(s),
                // Receipt IDs outside GitHub only follow the generic alphabet.
                (Forge::Gitlab | Forge::Forgejo, IdKind::AgentRun) => true,
                (Forge::Gitlab | Forge::Forgejo, _) => is_decimal_id(s),
            };
        if ok {
            Ok(StructuralId(s.to_owned()))
        } else {
            Err(ValueError::Id {
                what: kind.name(),
                forge,
                value: s.to_owned(),
            })
        }
    }
    /// The ID exactly as the forge gave it.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// The kinds that enter record-key derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyKind {
    /// `entity`: the entity-body record.
    Entity,
    /// `comment`: a comment record.
    Comment,
    /// `review`: a formal review record.
    Review,
    /// `check`: a check-run record.
    Check,
    /// `thread`: a review thread; its key names relationship and order data,
    /// never a record file.
    Thread,
}

impl KeyKind {
    /// The kind string hashed into the record key.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            KeyKind::Entity => "entity",
            KeyKind::Comment => "comment",
            KeyKind::Review => "review",
            KeyKind::Check => "check",
            KeyKind::Thread => "thread",
        }
    }
}

/// Lowercase hex SHA-256 (record keys, thread keys, file digests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HexDigest([u8; 32]);

impl HexDigest {
    /// The plain SHA-256 of `bytes` (no domain separator: the seed fixes these
    /// preimages).
    pub fn of(bytes: &[u8]) -> Self {
        HexDigest(Sha256::digest(bytes).into())
    }
    /// Parses 64 lowercase hex digits; anything else is
    /// `ValueError::RecordKey`.
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        let d = crate::digest::Sha256Digest::from_hex(s)
            .map_err(|_| ValueError::RecordKey(s.to_owned()))?;
        Ok(HexDigest(*d.as_bytes()))
    }
    /// The 64 lowercase hex digits, without a prefix.
    pub fn hex(&self) -> String {
        crate::digest::Sha256Digest::from_bytes(self.0).hex()
    }
}

impl fmt::Display for HexDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl Serialize for HexDigest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

/// A record key: SHA-256 of `forge://host NUL repository_id NUL kind NUL id`.
pub(crate) fn record_key(
    forge: Forge,
    host: &Host,
    repository_id: &StructuralId,
    kind: KeyKind,
    id: &StructuralId,
) -> HexDigest {
    record_key_raw(
        &format!("{}://{}", forge.as_str(), host.as_str()),
        repository_id.as_str(),
        kind.as_str(),
        id.as_str(),
    )
}

/// The key derivation over four raw strings, exactly as the seed states it.
pub fn record_key_raw(origin: &str, repository_id: &str, kind: &str, id: &str) -> HexDigest {
    let mut h = Sha256::new();
    h.update(origin.as_bytes());
    h.update([0u8]);
    h.update(repository_id.as_bytes());
    h.update([0u8]);
    h.update(kind.as_bytes());
    h.update([0u8]);
    h.update(id.as_bytes());
    HexDigest(h.finalize().into())
}

/// A UTC instant with nanosecond precision, rendered
/// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: the nanosecond form of the one
/// instant type ([`UtcInstant`]), which parses and formats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(UtcInstant);

impl Timestamp {
    /// Parses an RFC 3339 date-time (any offset, 0 to 9 fraction digits) and
    /// normalizes it to UTC. Leap seconds and years outside 0000-9999 after
    /// normalization are rejected.
    pub fn parse(s: &str) -> Result<Self, ValueError> {
        UtcInstant::parse_rfc3339(s)
            .map(Timestamp)
            .map_err(|reason| ValueError::Timestamp {
                value: s.to_owned(),
                reason,
            })
    }

    /// The instant.
    pub fn instant(&self) -> UtcInstant {
        self.0
    }

    /// `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
    pub fn canonical(&self) -> String {
        self.0.rfc3339_nanos()
    }

    /// The record filename order key `YYYYMMDDTHHMMSSnnnnnnnnnZ`.
    pub fn order_key(&self) -> String {
        let c = self.0.civil();
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}{:09}Z",
            c.year,
            c.month,
            c.day,
            c.hour,
            c.minute,
            c.second,
            self.0.subsec_nanos()
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.canonical())
    }
}

/// The order key reserved for the entity-body record.
pub(crate) const ENTITY_ORDER_KEY: &str = "00000000T000000000000000Z";

/// A Git object ID: 40 or 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub(crate) struct GitOid(String);

impl GitOid {
    /// Parses 40 (SHA-1) or 64 (SHA-256) lowercase hex digits; an uppercase ID
    /// is refused, never lowered.
    pub(crate) fn parse(s: &str) -> Result<Self, ValueError> {
        let ok = (s.len() == 40 || s.len() == 64)
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if ok {
            Ok(GitOid(s.to_owned()))
        } else {
            Err(ValueError::GitOid(s.to_owned()))
        }
    }
    /// The ID as given: lowercase hex.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

const PATH_PUNCT: &[u8] = b"._/~!$&()+,;=:@#[]{} -";

fn is_repository_path_alphabet(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || PATH_PUNCT.contains(&b))
}

/// `common.schema.json#/$defs/repository_path` plus the producer rules:
/// relative, no empty, `.` or `..` segment, no percent sign.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub(crate) struct RepositoryPath(String);

impl RepositoryPath {
    /// Parses a repository-relative path: the `repository_path` alphabet (ASCII
    /// letters, digits and ``._/~!$&()+,;=:@#[]{} -``, so no percent sign), no
    /// leading or trailing `/`, no empty, `.` or `..` segment.
    pub(crate) fn parse(s: &str) -> Result<Self, ValueError> {
        let ok = is_repository_path_alphabet(s)
            && !s.starts_with('/')
            && !s.ends_with('/')
            && s.split('/')
                .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
        if ok {
            Ok(RepositoryPath(s.to_owned()))
        } else {
            Err(ValueError::RepositoryPath(s.to_owned()))
        }
    }
    /// The path as given, `/`-separated.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// `source.repository`, a navigation value with its forge's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repository(String);

impl Repository {
    /// Parses `source.repository` for `forge`: a repository path of at least
    /// two segments; on GitHub and Forgejo exactly `owner/name` in lowercase
    /// `[a-z0-9_.-]`.
    pub(crate) fn parse(forge: Forge, s: &str) -> Result<Self, ValueError> {
        let err = || ValueError::Repository {
            forge,
            value: s.to_owned(),
        };
        let path = RepositoryPath::parse(s).map_err(|_| err())?;
        let segs: Vec<&str> = path.as_str().split('/').collect();
        if segs.len() < 2 {
            return Err(err());
        }
        let lower_seg = |seg: &str| {
            !seg.is_empty()
                && seg.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-')
                })
        };
        match forge {
            Forge::Github | Forge::Forgejo
                if segs.len() != 2 || !segs.iter().all(|s| lower_seg(s)) =>
            {
                Err(err())
            }
            _ => Ok(Repository(s.to_owned())),
        }
    }
    /// The path as given, `/`-separated.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! vocabulary {
    ($(#[$m:meta])* $name:ident, $what:literal, { $($(#[$vm:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $variant),+ }
        impl $name {
            /// Parses the exact v1 spelling; anything else is
            /// `ValueError::Vocabulary`.
            pub fn parse(s: &str) -> Result<Self, ValueError> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(ValueError::Vocabulary { what: $what, value: other.to_owned() }),
                }
            }
            /// The v1 spelling, as serialized.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

vocabulary!(
    /// `work_item` or `change_proposal`.
    EntityKind, "entity kind", {
        /// `work_item`: an issue.
        WorkItem => "work_item",
        /// `change_proposal`: a pull request (GitHub, Forgejo) or merge
        /// request (GitLab).
        ChangeProposal => "change_proposal",
    }
);
vocabulary!(
    /// Normalized entity state.
    EntityState, "entity state", {
        /// `open` (GitLab's merge-in-progress `locked` included).
        Open => "open",
        /// `closed`: closed, and for a change proposal not merged.
        Closed => "closed",
        /// `merged`: a merged change proposal (never a work item).
        Merged => "merged",
    }
);
vocabulary!(
    /// Repository roles (ADR 0054 vocabulary).
    ActorRole, "actor role", {
        /// `admin`: full control of the repository.
        Admin => "admin",
        /// `maintain`: manages the repository without admin rights.
        Maintain => "maintain",
        /// `write`: may push; the mutation threshold.
        Write => "write",
        /// `triage`: manages issues and change proposals without write
        /// access; the observation threshold.
        Triage => "triage",
        /// `read`: may read and comment; never admitted.
        Read => "read",
        /// `none`: the lookup answered no permission; never admitted.
        None => "none",
        /// `external`: outside the repository (no adapter maps to it); ranks
        /// with `none`.
        External => "external",
    }
);
vocabulary!(
    /// `human` or `bot`.
    ActorKind, "actor kind", {
        /// `human`: admitted by a verified repository role.
        Human => "human",
        /// `bot`: a provider-verified bot account, admitted only by a
        /// registered bot role (ADR 0107).
        Bot => "bot",
    }
);
vocabulary!(
    /// The admission threshold (D1).
    MinRole, "admission threshold", {
        /// `triage`: observation agents; `triage` and above are admitted.
        Triage => "triage",
        /// `write`: mutation agents; `write` and above are admitted.
        Write => "write",
    }
);
vocabulary!(
    /// Formal review states.
    FormalReviewState, "review state", {
        /// `approved`: the reviewer approved the change.
        Approved => "approved",
        /// `changes_requested`: the reviewer asked for changes.
        ChangesRequested => "changes_requested",
        /// `commented`: a review with comments and no verdict.
        Commented => "commented",
        /// `dismissed`: a review whose verdict was dismissed; its
        /// `dismissed_at` and `dismissed_by_actor_id` are emitted (nullable).
        Dismissed => "dismissed",
    }
);
vocabulary!(
    /// Check status.
    CheckStatus, "check status", {
        /// `queued`: not started; no times, no conclusion.
        Queued => "queued",
        /// `in_progress`: running; `started_at` only.
        InProgress => "in_progress",
        /// `completed`: finished; `completed_at`, a conclusion and
        /// `never_started`.
        Completed => "completed",
    }
);
vocabulary!(
    /// Check conclusion.
    CheckConclusion, "check conclusion", {
        /// `success`: the check passed.
        Success => "success",
        /// `failure`: the check failed (GitHub's `startup_failure`
        /// included, with `never_started`).
        Failure => "failure",
        /// `neutral`: finished with no pass or fail verdict.
        Neutral => "neutral",
        /// `cancelled`: stopped before it finished.
        Cancelled => "cancelled",
        /// `skipped`: not run.
        Skipped => "skipped",
        /// `timed_out`: stopped at its time limit.
        TimedOut => "timed_out",
        /// `action_required`: waits for a person's action.
        ActionRequired => "action_required",
        /// `stale`: marked stale by the forge (incomplete for too long).
        Stale => "stale",
    }
);
vocabulary!(
    /// Agent receipt status.
    RunStatus, "agent run status", {
        /// `success`: the run finished its task.
        Success => "success",
        /// `failure`: the run failed.
        Failure => "failure",
        /// `cancelled`: the run was stopped.
        Cancelled => "cancelled",
        /// `skipped`: the run did not run.
        Skipped => "skipped",
        /// `timed_out`: the run hit its time limit.
        TimedOut => "timed_out",
    }
);
vocabulary!(
    /// Review thread sides.
    Side, "side", {
        /// `left`: the old (base) side of the diff.
        Left => "left",
        /// `right`: the new (head) side of the diff.
        Right => "right",
    }
);

impl ActorRole {
    /// Rank in the forge-neutral ordering (higher is more authority).
    pub fn rank(self) -> u8 {
        match self {
            ActorRole::Admin => 5,
            ActorRole::Maintain => 4,
            ActorRole::Write => 3,
            ActorRole::Triage => 2,
            ActorRole::Read => 1,
            ActorRole::None | ActorRole::External => 0,
        }
    }
    /// Whether this verified role meets the admission threshold.
    pub fn meets(self, min: MinRole) -> bool {
        let need = match min {
            MinRole::Triage => ActorRole::Triage.rank(),
            MinRole::Write => ActorRole::Write.rank(),
        };
        self.rank() >= need
    }
}

impl CheckConclusion {
    /// `check_log_selection: failed` selects these.
    pub fn is_failed(self) -> bool {
        matches!(
            self,
            CheckConclusion::Failure
                | CheckConclusion::TimedOut
                | CheckConclusion::ActionRequired
                | CheckConclusion::Stale
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_record_key_vector() {
        let k = record_key_raw(
            "github://github.com",
            "R_kgDOExample",
            "comment",
            "IC_kwDOExample",
        );
        assert_eq!(
            k.hex(),
            "c73645a72a9c5de28d71e3e1efe235b9a5d02ee6dfe7dc0ef06cf3d0e5ee3421"
        );
        let typed = record_key(
            Forge::Github,
            &Host::parse("github.com").unwrap(),
            &StructuralId::parse(Forge::Github, IdKind::Repository, "R_kgDOExample").unwrap(),
            KeyKind::Comment,
            &StructuralId::parse(Forge::Github, IdKind::Record, "IC_kwDOExample").unwrap(),
        );
        assert_eq!(typed, k);
    }

    #[test]
    fn timestamps_normalize_to_utc_nanos() {
        let t = Timestamp::parse("2026-09-08T12:15:30.5+02:00").unwrap();
        assert_eq!(t.canonical(), "2026-09-08T10:15:30.500000000Z");
        assert_eq!(t.order_key(), "20260908T101530500000000Z");
        let u = Timestamp::parse("2024-02-29T00:00:00Z").unwrap();
        assert_eq!(u.canonical(), "2024-02-29T00:00:00.000000000Z");
        let v = Timestamp::parse("2026-01-01T00:30:00-01:00").unwrap();
        assert_eq!(v.canonical(), "2026-01-01T01:30:00.000000000Z");
        assert!(u < t);
    }

    #[test]
    fn timestamps_reject_non_rfc3339() {
        for bad in [
            "2026-02-30T00:00:00Z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:60Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567890Z",
            "2026-01-01T00:00:00+0100",
            "0000-01-01T00:00:00+01:00",
        ] {
            assert!(
                matches!(Timestamp::parse(bad), Err(ValueError::Timestamp { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn hosts_follow_d11() {
        for good in ["github.com", "git.example.org:8443", "a-b.c1"] {
            assert!(Host::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "GitHub.com",
            "github.com:443",
            "github.com:0",
            "github.com:65536",
            "github.com:080",
            "-a.com",
            "a-.com",
            "a..com",
            "10.0.0.1",
            "[::1]",
            "https://github.com",
            "github.com/x",
            "",
        ] {
            assert!(
                matches!(Host::parse(bad), Err(ValueError::Host { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn ids_follow_forge_mappings() {
        assert!(StructuralId::parse(Forge::Github, IdKind::Record, "IC_kw=-x").is_ok());
        assert!(StructuralId::parse(Forge::Github, IdKind::Record, "a.b").is_err());
        assert!(StructuralId::parse(Forge::Gitlab, IdKind::Record, "0123").is_err());
        assert!(StructuralId::parse(Forge::Gitlab, IdKind::Record, "123").is_ok());
        assert!(StructuralId::parse(Forge::Gitlab, IdKind::Thread, "6a9c1750b37d").is_ok());
        assert!(StructuralId::parse(Forge::Forgejo, IdKind::Thread, "abc").is_err());
        assert!(StructuralId::parse(Forge::Github, IdKind::Record, "").is_err());
        assert!(StructuralId::parse(Forge::Github, IdKind::Record, "a b").is_err());
    }

    #[test]
    fn repository_forms() {
        assert!(Repository::parse(Forge::Github, "octo/widgets").is_ok());
        assert!(Repository::parse(Forge::Github, "Octo/widgets").is_err());
        assert!(Repository::parse(Forge::Github, "a/b/c").is_err());
        assert!(Repository::parse(Forge::Gitlab, "Group/Sub/Proj").is_ok());
        assert!(Repository::parse(Forge::Gitlab, "proj").is_err());
        assert!(RepositoryPath::parse("src/../x").is_err());
        assert!(RepositoryPath::parse("src/%2e").is_err());
        assert!(RepositoryPath::parse("src/ünï").is_err());
        assert!(RepositoryPath::parse("src/main.rs").is_ok());
    }

    #[test]
    fn role_thresholds() {
        assert!(ActorRole::Triage.meets(MinRole::Triage));
        assert!(!ActorRole::Triage.meets(MinRole::Write));
        assert!(ActorRole::Maintain.meets(MinRole::Write));
        assert!(!ActorRole::Read.meets(MinRole::Triage));
        assert!(!ActorRole::External.meets(MinRole::Triage));
    }
}
