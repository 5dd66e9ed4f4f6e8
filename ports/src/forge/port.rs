//! The forge port: [`ForgePort`], the operations that collect one entity,
//! and the records it answers (actors and authors, bounded listings, the
//! repository, the entity, threads, checks and their logs), already v1
//! vocabulary.

use probity_core::context::RecordSelection;
use probity_core::context::{ActorRole, EntityKind};
use probity_core::context::{CheckInput, CommentInput, EntityInput, ReviewInput, ThreadInput};

use super::ForgeError;

/// Whether an actor is a person or a provider-positive bot account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorKindRef {
    /// A person's account: its role is looked up ([`ForgePort::permission`]).
    Human,
    /// An account the forge marks as a bot: its role comes only from the
    /// host's registered bot roles.
    Bot,
}

/// An actor as a record names it: the immutable forge ID and the current
/// login (for the permission lookup and `state/actors.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorRef {
    /// The forge's immutable actor ID, as text.
    pub id: String,
    /// The current login; `None` when the forge gives none (no permission
    /// lookup then).
    pub login: Option<String>,
    /// Person or bot, as the forge's table maps it.
    pub kind: ActorKindRef,
}

/// A record's author as the adapter saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Author {
    /// A known actor.
    Actor(ActorRef),
    /// Deleted or withheld: the record's `author_id` is `null`.
    Deleted,
    /// The forge names an actor of a kind no table maps (an organization,
    /// a mannequin): the reference is kept, no actor row is invented, and
    /// the `actors` scope records `invalid_metadata`.
    Unmapped {
        /// The forge's ID for the unmapped actor.
        id: String,
    },
    /// The forge names an actor whose kind could not be looked up (the
    /// lookup failed with anything but a 404: a 5xx, a timeout, a rate
    /// limit): the reference is kept, no actor row is invented, and the
    /// `actors` scope records `fetch_failed`.
    Unfetched {
        /// The forge's ID for the actor.
        id: String,
    },
}

impl Author {
    /// The record's `author_id`.
    pub fn id(&self) -> Option<String> {
        match self {
            Author::Actor(a) => Some(a.id.clone()),
            Author::Deleted => None,
            Author::Unmapped { id } | Author::Unfetched { id } => Some(id.clone()),
        }
    }
}

/// One record with its author.
#[derive(Debug, Clone)]
pub struct Authored<T> {
    /// The record, already v1 vocabulary.
    pub record: T,
    /// Who wrote it.
    pub author: Author,
}

/// Which end of a listing to fetch and how many records: the profile's
/// `record_selection` and `max_records_per_source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The most records the profile keeps (`max_records_per_source`).
    pub max_records: u64,
    /// Which end of the listing to fetch: the newest or the oldest records.
    pub selection: RecordSelection,
}

/// A bounded listing.
#[derive(Debug, Clone)]
pub struct Listing<T> {
    /// The mapped records fetched (possibly more than the window: whole
    /// pages; the assembler applies the exact bound and counts the rest).
    pub items: Vec<T>,
    /// Records the adapter could not map (unmapped native value, missing
    /// ID): each one is an `invalid_metadata` gap of the listing's scope.
    pub invalid: u64,
    /// Records left unfetched beyond the window (a `profile_bound` gap).
    pub beyond_window: u64,
    /// The forge keeps no immutable history of this source (GitLab
    /// approvals): a partial `history_unavailable` gap.
    pub history_unavailable: bool,
    /// Records left out because a lookup each needs failed (a 5xx, a
    /// timeout, a rate limit waited out in vain: anything but the 404 that
    /// answers "none", such as a GitHub check run's Actions job, D7): each
    /// one a `fetch_failed` gap of the listing's scope.
    pub fetch_failed: u64,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            invalid: 0,
            beyond_window: 0,
            history_unavailable: false,
            fetch_failed: 0,
        }
    }
}

/// What is collected: the entity's kind and display number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityRef {
    /// A change proposal or a work item.
    pub kind: EntityKind,
    /// The number people use for it on the forge (`#12`, `!12`).
    pub number: u64,
}

/// The repository as the forge names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryInfo {
    /// The immutable repository ID (`null` when the forge withholds it: the
    /// assembler then aborts, never substitutes).
    pub repository_id: Option<String>,
    /// The navigation value (`owner/name`, the forge's canonical form).
    pub repository: String,
}

/// The entity's metadata and body (already v1 vocabulary).
#[derive(Debug, Clone)]
pub struct FetchedEntity {
    /// The entity's normalized metadata and body.
    pub entity: EntityInput,
    /// Who opened it.
    pub author: Author,
}

/// Review threads with their comments (review comments are records of the
/// `comments` source; threads belong to the `reviews` scope).
#[derive(Debug, Clone, Default)]
pub struct FetchedThreads {
    /// The threads, each naming its comments.
    pub threads: Listing<ThreadInput>,
    /// The threads' review comments, with their authors.
    pub comments: Listing<Authored<CommentInput>>,
    /// Actors that resolved threads.
    pub resolvers: Vec<ActorRef>,
}

/// A check run and, when the forge has one, the handle of its log.
#[derive(Debug, Clone)]
pub struct FetchedCheck {
    /// The check run, normalized.
    pub check: CheckInput,
    /// The adapter's handle for the log, passed back to
    /// [`ForgePort::check_log`]; `None` when the check has no log.
    pub log: Option<String>,
}

/// A check log read under its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogText {
    /// The log (lossy UTF-8 of the bytes read).
    pub text: String,
    /// More bytes than the bound were available: `text` holds the first
    /// `max_bytes + 1` bytes, which the assembler refuses undecoded
    /// (`source_too_large`).
    pub oversized: bool,
}

/// The operations needed to collect one entity. Every answer is already
/// mapped to v1 vocabulary by the adapter's tables.
pub trait ForgePort {
    /// The repository's immutable ID and navigation name.
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError>;
    /// The entity's metadata and body; for a change proposal `head_sha` is
    /// the HEAD captured now (collection start).
    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError>;
    /// Conversation comments on the entity.
    fn comments(
        &mut self,
        entity: EntityRef,
        window: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError>;
    /// Formal reviews of a change proposal (unsubmitted ones omitted).
    fn reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError>;
    /// Review threads of a change proposal, with their comments.
    fn review_threads(&mut self, number: u64, window: Window)
    -> Result<FetchedThreads, ForgeError>;
    /// Check runs reported for exactly `head_sha`.
    fn checks(
        &mut self,
        head_sha: &str,
        window: Window,
    ) -> Result<Listing<FetchedCheck>, ForgeError>;
    /// One check log, read to at most `max_bytes + 1` bytes.
    fn check_log(&mut self, log: &str, max_bytes: u64) -> Result<LogText, ForgeError>;
    /// The actor's current effective repository role.
    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError>;
}
