//! Which refs vouch for published history (issue 21 §1). At the server
//! only protected refs do (`probity.protectedRefs`): a commit is judged
//! when it first becomes reachable from a protected ref, whatever other
//! ref (a tag, an unprotected branch) already held it. A client's pre-push
//! gate measures against everything the remote advertises. The glob rule
//! and the refs that are never deliveries live here, below `server`, so
//! that both the push gate and the server's rules read them.

use crate::review::ids::CommitId;

use super::DeliveredRange;

/// The ref that carries review bundles as Git notes.
pub const NOTES_REF: &str = "refs/notes/probity";

/// What `probity.protectedRefs` defaults to when unset.
pub(crate) const DEFAULT_PROTECTED: &str = "refs/heads/*";

/// Refs under this prefix hold review objects, never a delivery: the
/// keep-alive refs of R10.6, and the `refs/probity/trees/<lineage>/*` refs
/// older versions pushed (the trees now travel inside the notes history,
/// D-R59).
pub(crate) const REVIEW_OBJECTS_PREFIX: &str = "refs/probity/";

/// Whether `refname` matches a `probity.protectedRefs` glob: `*` matches
/// any run of characters (slashes included, so `refs/heads/*` covers
/// `refs/heads/team/x`), `?` one character; anything else is literal.
pub(crate) fn glob_matches(glob: &str, refname: &str) -> bool {
    fn go(g: &[u8], s: &[u8]) -> bool {
        // Iterative wildcard matching with one backtrack point.
        let (mut gi, mut si) = (0, 0);
        let (mut star, mut mark) = (None, 0);
        while si < s.len() {
            if gi < g.len() && (g[gi] == b'?' || g[gi] == s[si]) {
                gi += 1;
                si += 1;
            } else if gi < g.len() && g[gi] == b'*' {
                star = Some(gi);
                mark = si;
                gi += 1;
            } else if let Some(st) = star {
                gi = st + 1;
                mark += 1;
                si = mark;
            } else {
                return false;
            }
        }
        g[gi..].iter().all(|c| *c == b'*')
    }
    go(glob.as_bytes(), refname.as_bytes())
}

/// Whether a ref is protected by any of `globs` (the configured values; an
/// empty list means the default, `refs/heads/*`). The notes ref itself is
/// never judged as a delivery: it has its own append-only rule.
pub fn is_protected(globs: &[String], refname: &str) -> bool {
    if refname == NOTES_REF || refname.starts_with(REVIEW_OBJECTS_PREFIX) {
        return false;
    }
    if globs.is_empty() {
        return glob_matches(DEFAULT_PROTECTED, refname);
    }
    globs.iter().any(|g| glob_matches(g, refname))
}

/// Which of the advertised refs count as already-published history: what
/// a new ref's delivery is measured against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vouching {
    /// Every branch and tag the remote advertises (a client's pre-push
    /// gate: what the remote holds is not delivered again).
    Advertised,
    /// Only refs a `probity.protectedRefs` glob matches (the globs as
    /// configured, empty for the default `refs/heads/*`).
    Protected(Vec<String>),
    /// The server gate: only the history of `tips`, the default branch's
    /// tip when it governs ([`super::super::DefaultBranch::Governed`]),
    /// else the common ancestors of every protected tip (red team round
    /// 38's 38hw, 38hv: an unborn `HEAD`, or one naming an unprotected
    /// branch). What another protected branch alone holds was judged
    /// when it got there, under the signers and policy of then; a new
    /// protected ref brings it where today's apply, so it is judged again
    /// (red team round 36's 36rn, 36rp: work staged before a revocation).
    Governed {
        /// The commits whose history is published.
        tips: Vec<CommitId>,
    },
}

impl Vouching {
    /// Whether the advertised ref `name` vouches for the history it holds.
    pub fn vouches(&self, name: &str) -> bool {
        match self {
            Vouching::Advertised => true,
            Vouching::Protected(globs) => is_protected(globs, name),
            // Its commits vouch, not a ref by its name.
            Vouching::Governed { .. } => false,
        }
    }
}

/// What a push's new refs may build on: the tips the remote advertises
/// now that vouch (every one, or only the protected ones: [`Vouching`]),
/// minus the refs this push deletes or rewinds (`touched`, by
/// [`super::stops_vouching`]): those stop vouching for what they held.
pub fn published_tips(
    advertised: Vec<(String, CommitId)>,
    touched: &[&str],
    published: &Vouching,
) -> Vec<CommitId> {
    if let Vouching::Governed { tips, .. } = published {
        // A commit a ref this push deletes or rewinds points at stops
        // vouching (the default branch rewound where that is allowed).
        return tips
            .iter()
            .filter(|t| {
                !advertised
                    .iter()
                    .any(|(name, c)| c == *t && touched.contains(&name.as_str()))
            })
            .cloned()
            .collect();
    }
    advertised
        .into_iter()
        .filter(|(name, _)| published.vouches(name) && !touched.contains(&name.as_str()))
        .map(|(_, c)| c)
        .collect()
}

/// What a new ref whose range was listed against the published tips
/// delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewRefDelivery {
    /// The listed range, judged as any delivered range.
    Listed,
    /// Its own tip commit: nothing the remote lacks (a release tag, a copy
    /// of a branch at a commit the remote holds) still delivers the ref's
    /// content, so that commit is judged as a delivery of it (a client's
    /// pre-push gate).
    OwnTip,
    /// Nothing: every commit is already reachable from a protected ref,
    /// where it was judged when it got there (the server gate).
    AlreadyPublished,
}

/// How a new ref's listed range is judged: a range with commits (or a
/// boundary problem) as listed; an empty one, as its own tip commit where
/// every advertised ref vouches, and as nothing new where only protected
/// refs do.
pub fn new_ref_delivery(listed: &DeliveredRange, published: &Vouching) -> NewRefDelivery {
    if listed.count != 0 || listed.problem.is_some() {
        return NewRefDelivery::Listed;
    }
    match published {
        Vouching::Advertised => NewRefDelivery::OwnTip,
        Vouching::Protected(_) | Vouching::Governed { .. } => NewRefDelivery::AlreadyPublished,
    }
}
