//! The server's replay check (D-R56, D-R68, D-R125): an approval is spent
//! by its first delivery into a protected ref's history. Core decides
//! (`server::check_approvals_not_replayed`); this driver reads the notes
//! that name each approval, their commits' trees and the imported records,
//! and asks git where each earlier delivery sits: before the delivery
//! judged in the history it lands in, or not.

use probity_core::review::GateDecision;
use probity_core::review::LineageId;
use probity_core::review::delivers_the_approved_change;
use probity_core::review::{
    ApprovalHistory, ApprovedDelivery, PriorDelivery, ReceiveUpdate, approved_deliveries,
    check_approvals_not_replayed,
};
use probity_core::review::{
    Bundle, ChainLink, MAX_NOTE_BYTES, ReviewState, composes_approval, note_lines,
    with_note_attestations,
};
use probity_core::review::{CommitId, RangeCommit, RepoPath, TreeId};

use super::note_cache::{Checked, NoteCache};
use super::*;

/// How many earlier commits noted with one lineage the replay check reads.
const MAX_PRIOR_NOTES: usize = 64;

/// How many notes naming one lineage a search that reached
/// [`MAX_PRIOR_NOTES`] reads again, to tell which commits of the ref's
/// history window they name (D-R137); past it the search is an error, never
/// a shorter answer.
const MAX_FLOODED_NOTES: usize = 1_000_000;

/// How many commits this repository holds that notes naming one flooded
/// lineage may name before the replay check reads none of them and the
/// approval delivers nothing here (each costs object reads, D-R146).
const MAX_FLOODED_COMMITS: usize = 10_000;

/// How many commits that change something a CI form reads from a ref's
/// history for earlier deliveries (D-R125, D-R145).
pub(super) const MAX_HISTORY_PRIORS: usize = 1_000;

/// How many commits of a ref's history a CI form lists at first to find
/// them. Empty commits (which pass every gate as `no_change`) do not push
/// a delivery out of the window: while fewer than [`MAX_HISTORY_PRIORS`]
/// changing commits are found and the history goes on, the listing is
/// doubled, with no cap on the commits read (D-R125).
pub(super) const MAX_HISTORY_LISTED: usize = 10_000;

/// A commit and what it delivered (its parent's tree, its tree).
type Delivered = (CommitId, (TreeId, TreeId));

/// The single-parent (or root) commits of `listed` that change something,
/// each with what it delivered, at most `want` of them, newest first.
fn changing<G: CommitGit>(
    git: &G,
    listed: &[RangeCommit],
    want: usize,
) -> Result<Vec<Delivered>, TransportError> {
    let trees: std::collections::BTreeMap<&CommitId, &TreeId> =
        listed.iter().map(|c| (&c.commit, &c.tree)).collect();
    let mut out = Vec::new();
    for c in listed {
        if out.len() == want {
            break;
        }
        let base = match c.parents[..] {
            [] => git.empty_tree()?,
            [ref p] => match trees.get(p) {
                Some(t) => (*t).clone(),
                None => git.commit_tree(p)?,
            },
            _ => continue,
        };
        if base != c.tree {
            out.push((c.commit.clone(), (base, c.tree.clone())));
        }
    }
    Ok(out)
}

impl MayCarry {
    /// Announces the spans of `history` whose changed paths [`Self::may`]
    /// asks, in one batch, when it holds at least [`ANNOUNCED_WINDOW`]
    /// commits (D-R146).
    fn announce<G: ExportGit>(
        &mut self,
        git: &G,
        history: &[Delivered],
    ) -> Result<(), TransportError> {
        if history.len() < ANNOUNCED_WINDOW {
            return Ok(());
        }
        let pairs: Vec<(TreeId, TreeId)> = history.iter().map(|(_, t)| t.clone()).collect();
        // Over the adapter's bound the window is asked by its objects
        // alone, as a short one is: never a process per commit.
        if git.announce_paths(&pairs)? {
            self.announced.extend(pairs);
        }
        Ok(())
    }
}

/// The newest [`MAX_HISTORY_PRIORS`] single-parent (or root) commits of
/// `tip`'s history that change something, each with the trees it
/// delivered. Listed [`MAX_HISTORY_LISTED`] commits at first, then twice
/// as many each time the window holds too few changing commits and the
/// history goes on: a run of empty commits costs reading them, never a
/// delivery hidden past the window (red team round 4).
fn history_priors<G: CommitGit + RangeGit>(
    git: &G,
    tip: &CommitId,
) -> Result<Vec<Delivered>, TransportError> {
    let mut limit = MAX_HISTORY_LISTED;
    loop {
        let listed = git.range(tip, &[], &RemoteScope::None, limit)?;
        let out = changing(git, &listed, MAX_HISTORY_PRIORS)?;
        if out.len() == MAX_HISTORY_PRIORS || listed.len() < limit {
            return Ok(out);
        }
        limit = limit.saturating_mul(2);
    }
}

/// The (base tree, tree) a commit delivers: its parent's tree (the empty
/// tree for a root commit) and its own; `None` for a merge, which delivers
/// no review.
pub(super) fn delivered_trees<G: CommitGit + RangeGit>(
    git: &G,
    commit: &CommitId,
) -> Result<Option<(TreeId, TreeId)>, TransportError> {
    let Some(c) = git
        .range(commit, &[], &RemoteScope::None, 1)?
        .into_iter()
        .next()
    else {
        return Ok(None);
    };
    let base = match c.parents[..] {
        [] => git.empty_tree()?,
        [ref p] => git.commit_tree(p)?,
        _ => return Ok(None),
    };
    Ok(Some((base, c.tree)))
}

/// One ref a delivery lands in: its name, its tip before the push (`None`
/// when the push creates it) and after (peeled to its commit).
struct Landing<'a> {
    refname: &'a str,
    old: Option<&'a CommitId>,
    new: CommitId,
}

/// Where the earlier deliveries sit, asked of git once per pair.
struct Ancestry<'g, G> {
    git: &'g G,
    known: std::collections::BTreeMap<(CommitId, CommitId), bool>,
}

impl<G: RangeGit> Ancestry<'_, G> {
    fn is_ancestor(&mut self, a: &CommitId, d: &CommitId) -> Result<bool, TransportError> {
        let key = (a.clone(), d.clone());
        if let Some(k) = self.known.get(&key) {
            return Ok(*k);
        }
        let k = self.git.is_ancestor(a, d)?;
        self.known.insert(key, k);
        Ok(k)
    }

    /// Whether `prior` comes before `commit` in the history `landing`
    /// gives the ref (D-R125): reachable from its new tip (or its old
    /// one), and not `commit` or one of `commit`'s descendants. So an
    /// earlier commit of the same push counts, as does one the update
    /// brings in beside it (a merge) or a new ref's history; two commits
    /// of one push that neither descends from count for each other.
    fn before(
        &mut self,
        prior: &CommitId,
        commit: &CommitId,
        landing: &Landing<'_>,
    ) -> Result<bool, TransportError> {
        if prior == commit || self.is_ancestor(commit, prior)? {
            return Ok(false);
        }
        if self.is_ancestor(prior, &landing.new)? {
            return Ok(true);
        }
        match landing.old {
            Some(old) => self.is_ancestor(prior, old),
            None => Ok(false),
        }
    }
}

/// Whether an earlier delivery carried an approval's change (core's
/// [`delivers_the_approved_change`]), each pair of spans asked of git once;
/// and what [`delivered_another`] answered for a commit and its span, each
/// asked once (its note read, parsed and checked once per push, not once
/// per delivery of a stack that may meet it).
#[derive(Default)]
struct Carried {
    known: std::collections::BTreeMap<(Span, Span), bool>,
    delivered: std::collections::BTreeMap<(CommitId, Span, String), bool>,
}

/// A span of two trees: a delivery's (parent tree, tree), an approval's
/// (base tree, final candidate tree).
type Span = (TreeId, TreeId);

impl Carried {
    fn carries<G: GitPort>(
        &mut self,
        git: &G,
        prior: &(TreeId, TreeId),
        approved: &(TreeId, TreeId),
    ) -> Result<bool, TransportError> {
        let key = (prior.clone(), approved.clone());
        if let Some(k) = self.known.get(&key) {
            return Ok(*k);
        }
        let span = |(from, to): &(TreeId, TreeId)| -> Result<Vec<RepoPath>, TransportError> {
            Ok(git.differing_paths(TreeSpan { from, to })?)
        };
        let prior_paths = span(prior)?;
        let approved_paths = span(approved)?;
        // Cheap first: the same paths, then their bytes.
        let k = prior_paths == approved_paths
            && delivers_the_approved_change(
                &prior_paths,
                &approved_paths,
                &span(&(prior.1.clone(), approved.1.clone()))?,
            );
        self.known.insert(key, k);
        Ok(k)
    }
}

/// Whether a commit of the ref's history may hold an approval's change
/// at all, asked before the diffs [`Carried`] asks (D-R141): in a CI form
/// every commit of the history window without a note is asked whether it
/// delivered the approved change on a base of its own, and most of them
/// do not hold the approved final bytes at the approved paths, which the
/// object reader tells without a diff ([`ExportGit::path_objects`]).
///
/// A commit that carried the change changed exactly the approved paths,
/// asked first: each commit's paths come from the raw diffs announced once
/// for the whole window ([`ExportGit::announce_paths`]) and are kept, so a
/// stack's deliveries share them (red team round 7, finding 05: each
/// delivery read every window commit's objects again, the hook's time
/// growing with the square of the stack).
#[derive(Default)]
struct MayCarry {
    /// Per approved span: its paths (sorted), and the objects its final
    /// tree holds there (`None`: the adapter cannot tell, so every commit
    /// may).
    approved: std::collections::BTreeMap<Span, (Vec<RepoPath>, Option<PathObjects>)>,
    /// Per delivered span of the history, the paths it changed (sorted).
    changed: std::collections::BTreeMap<Span, Vec<RepoPath>>,
    /// The spans whose changed paths were announced and answered (a
    /// window of at least [`ANNOUNCED_WINDOW`] commits, its raw diffs within
    /// the adapter's bound); the others are asked by their objects alone,
    /// as before.
    announced: std::collections::BTreeSet<Span>,
}

/// The fewest commits of a window whose changed paths are announced in
/// one batch: below it the object reader's round trips (one per commit
/// and approval) cost less than the batch's process.
const ANNOUNCED_WINDOW: usize = 64;

/// `paths` sorted, each once.
fn sorted_paths(mut paths: Vec<RepoPath>) -> Vec<RepoPath> {
    paths.sort();
    paths.dedup();
    paths
}

/// The object at each of some paths in a tree (`None`: nothing there).
type PathObjects = Vec<Option<String>>;

impl MayCarry {
    fn may<G: GitPort + ExportGit>(
        &mut self,
        git: &G,
        prior: &(TreeId, TreeId),
        approved: &(TreeId, TreeId),
    ) -> Result<bool, TransportError> {
        if !self.approved.contains_key(approved) {
            let paths = sorted_paths(git.differing_paths(TreeSpan {
                from: &approved.0,
                to: &approved.1,
            })?);
            let objects = git.path_objects(&approved.1, &paths)?;
            self.approved.insert(approved.clone(), (paths, objects));
        }
        if self.announced.contains(prior) && !self.changed.contains_key(prior) {
            let paths = sorted_paths(git.differing_paths(TreeSpan {
                from: &prior.0,
                to: &prior.1,
            })?);
            self.changed.insert(prior.clone(), paths);
        }
        let Some((paths, want)) = self.approved.get(approved) else {
            return Ok(true);
        };
        if self.changed.get(prior).is_some_and(|c| c != paths) {
            return Ok(false);
        }
        let Some(want) = want else {
            return Ok(true);
        };
        Ok(match git.path_objects(&prior.1, paths)? {
            Some(held) => held == *want,
            None => true,
        })
    }
}

/// Whether the note of `commit`, a commit of a CI form's history window
/// its note does not tie to the approval judged, holds another approval
/// it delivered (D-R141): a line the signature policy accepts (with its
/// siblings' signatures) whose leaf is approved and whose change is what
/// the commit delivered (`trees`), by its trees or on a base of its own,
/// and which fits this repository as an import requires (`check_repo`:
/// its scope, and the tier its trees derive, so the roles the signature
/// policy asks are that tier's; red team round 7, D-R146: an approval
/// forged at a lower tier must not unspend another). A note of junk, an
/// empty one, or none ties the commit to no approval: a pusher may have
/// replaced or dropped it, so the replay check asks whether it delivered
/// the approval judged. Every failure counts as no other approval, and so
/// does a note holding the judged approval itself (`judged`): the commit
/// delivered that one, not another (red team round 12, D-R163).
#[allow(clippy::too_many_arguments)]
fn delivered_another<G, P>(
    git: &G,
    notes: &CommitId,
    commit: &CommitId,
    judged: &str,
    trees: &(TreeId, TreeId),
    signature_policy: &P,
    carried: &mut Carried,
    cache: &mut NoteCache,
) -> Result<bool, TransportError>
where
    G: GitPort + ExportGit + ManifestGit + NotesGit,
    P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    let key = (commit.clone(), trees.clone(), judged.to_string());
    if let Some(k) = carried.delivered.get(&key) {
        return Ok(*k);
    }
    // Read from the note: its lines parsed, checked and judged through the
    // gate's `cache` (as the import read them).
    let k = 'read: {
        let Some(bytes) = git.read_note(notes, commit, MAX_NOTE_BYTES)? else {
            break 'read false;
        };
        let note = cache.parsed(bytes);
        let Ok(lines) = &note.lines else {
            break 'read false;
        };
        for (i, line) in lines.iter().enumerate() {
            let Ok(b) = line else { continue };
            if b.lineage_id.as_str() == judged {
                // The commit's own note holds the judged approval: it
                // delivered that one.
                break 'read false;
            }
            let Some(span) = probity_core::review::approved_change(b) else {
                continue;
            };
            if note.judge(b, signature_policy).is_err() {
                continue;
            }
            if (span == *trees || carried.carries(git, trees, &span)?)
                && matches!(note.check(git, i, b)?, Checked::Passed)
            {
                break 'read true;
            }
        }
        false
    };
    carried.delivered.insert(key, k);
    Ok(k)
}

/// Whether an earlier delivery noted with an approval composed it (a
/// squash, core's [`composes_approval`], D-R134). The links are the
/// note's bundles' leaves, each line verified on its own (its bytes, then
/// the signature policy with its siblings' signatures), never what the
/// scratch store holds: a stale twin of a component imported first from
/// this push must not hide the approved one. Each note is read once, and its lines
/// verified only when their own (unverified) leaves already compose the
/// approval over the commit's span, and the commit comes before the
/// delivery.
#[derive(Default)]
struct Composed {
    /// Per noted commit, its note's bundles (the lines that parse).
    bundles: std::collections::BTreeMap<CommitId, Vec<Bundle>>,
    /// Per noted commit whose lines are verified, which of them verify.
    verified: std::collections::BTreeMap<CommitId, Vec<bool>>,
}

/// The links (leaf state, its receipt's bytes) of `bundles`.
fn leaves(bundles: &[&Bundle]) -> Vec<(ReviewState, Option<Vec<u8>>)> {
    bundles
        .iter()
        .filter_map(|b| {
            let leaf = b.records.last()?.state().clone();
            let receipt = b.receipts.last().and_then(|r| r.to_bytes().ok());
            Some((leaf, receipt))
        })
        .collect()
}

/// Core's [`composes_approval`] over `leaves`.
fn composes_over(
    trees: &(TreeId, TreeId),
    leaves: &[(ReviewState, Option<Vec<u8>>)],
    lineage: &LineageId,
) -> bool {
    let links: Vec<ChainLink<'_>> = leaves
        .iter()
        .map(|(state, receipt)| ChainLink {
            state,
            receipt_file: receipt.as_deref(),
        })
        .collect();
    composes_approval((&trees.0, &trees.1), &links, lineage)
}

impl Composed {
    /// Whether `commit`'s note, taken at its word, composes `lineage`'s
    /// approval over `trees`: whether it may have at all.
    fn may_compose<G: NotesGit>(
        &mut self,
        git: &G,
        notes: &CommitId,
        commit: &CommitId,
        trees: &(TreeId, TreeId),
        lineage: &LineageId,
    ) -> Result<bool, TransportError> {
        if !self.bundles.contains_key(commit) {
            let bytes = git
                .read_note(notes, commit, MAX_NOTE_BYTES)?
                .unwrap_or_default();
            let bundles: Vec<Bundle> = note_lines(&bytes)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|l| Bundle::from_bytes(l).ok())
                .collect();
            self.bundles.insert(commit.clone(), bundles);
        }
        let all: Vec<&Bundle> = self.bundles.get(commit).into_iter().flatten().collect();
        Ok(composes_over(trees, &leaves(&all), lineage))
    }

    /// Whether `commit` (which delivered `trees`) composed `lineage`'s
    /// approval, counting only the lines of its note that verify.
    fn composes<P>(
        &mut self,
        signature_policy: &P,
        commit: &CommitId,
        trees: &(TreeId, TreeId),
        lineage: &LineageId,
    ) -> Result<bool, TransportError>
    where
        P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
    {
        let all: Vec<&Bundle> = self.bundles.get(commit).into_iter().flatten().collect();
        if !self.verified.contains_key(commit) {
            let mut ok = Vec::with_capacity(all.len());
            // Spending is asked of what authorises, never of what this run
            // can afford: a line is a link when its bytes verify (its
            // digest, read by `Bundle::from_bytes`; its receipt, by core)
            // and the signature policy accepts it with its siblings'
            // signatures. `check_repo`'s re-derivation is left out: a
            // bound this run's other lines exhaust (D-R130's diff work) or
            // a tier a newer policy derives must not hide the squash.
            for b in &all {
                ok.push(signature_policy(&with_note_attestations(b, &all)).is_ok());
            }
            self.verified.insert(commit.clone(), ok);
        }
        let ok = self
            .verified
            .get(commit)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let verified: Vec<&Bundle> = all
            .iter()
            .zip(ok)
            .filter(|(_, ok)| **ok)
            .map(|(b, _)| *b)
            .collect();
        Ok(composes_over(trees, &leaves(&verified), lineage))
    }
}

/// The replay check (core's `check_approvals_not_replayed`, D-R56, D-R68,
/// D-R125) over an allowing decision: for each commit it lets in, into
/// each updated ref, every approval it rests on (each composed review of a
/// squash) is read: what it approved (its record in `scratch`), and the
/// earlier commits the notes name it on that delivered those trees or the
/// approved ones, the approved change on a base of their own (D-R133) or
/// a squash composing it (D-R134, their note's lines verified with
/// `signature_policy`), and come before it in the ref's history after the
/// update (an earlier commit of the same push, one the update merges in,
/// the old tip's history); the first replay is the answer. A note on a commit this
/// repository does not hold (a rebased-away commit's, or junk) names no
/// delivery: no ref's history can hold it. Every lineage is searched for at
/// once (one search of the notes tree), and a short answer is an error,
/// never "named nowhere". The ref's own history counts too, at the hook
/// as in a CI form (D-R145): its newest [`MAX_HISTORY_PRIORS`] commits
/// that change something, and every commit the update brings. A commit
/// there that delivered the same trees, or exactly what the approval
/// approved, is an earlier delivery whatever its note says: in a CI form
/// the notes ref is any pusher's to rewrite (red team round 2), and at the
/// hook a delivery's bundle may sit on another commit's note, or its notes
/// update may have failed after the hook allowed a push without
/// `--atomic` (red team round 6).
pub(super) fn replayed<G, S, P>(
    git: &G,
    scratch: &S,
    notes: &CommitId,
    judged: &[&ReceiveUpdate],
    decision: &GateDecision,
    signature_policy: &P,
    cache: &mut NoteCache,
) -> Result<Option<ReceiveDenial>, TransportError>
where
    G: GitPort + CommitGit + RangeGit + ExportGit + ManifestGit + NotesGit,
    S: RecordStore,
    P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    let all = approved_deliveries(decision);
    let mut landings: Vec<Landing<'_>> = Vec::new();
    for u in judged {
        if !all.iter().any(|d| d.refs.contains(&u.refname)) {
            continue;
        }
        let Some(new) = &u.new else { continue };
        let Some(new) = git.peel_commit(new)? else {
            continue;
        };
        landings.push(Landing {
            refname: &u.refname,
            old: u.old.as_ref(),
            new,
        });
    }
    let landings_of = |delivery: &ApprovedDelivery| -> Vec<&Landing<'_>> {
        landings
            .iter()
            .filter(|l| delivery.refs.iter().any(|r| r == l.refname))
            .collect()
    };
    let deliveries: Vec<&ApprovedDelivery> =
        all.iter().filter(|d| !landings_of(d).is_empty()).collect();
    let mut needles: Vec<&str> = deliveries
        .iter()
        .flat_map(|d| d.approvals().iter().map(LineageId::as_str))
        .collect();
    needles.sort_unstable();
    needles.dedup();
    let named_each = git.notes_naming_each(notes, &needles, MAX_PRIOR_NOTES)?;
    // A search that reached its bound may have left the earlier delivery
    // out (64 notes naming the approval on ids that sort first, which
    // anyone who may push notes can add): the ref's own history is read
    // too, as a CI form reads it, so a delivery of the same trees is found
    // whatever the notes hold (D-R137). A search within its bound is
    // complete, and costs the hook nothing more.
    // In the ref's history, a commit the notes name an approval on is
    // asked the noted questions too (D-R133's rebase proof, D-R134's
    // squash): the names are searched again with a bound a flood cannot
    // reach cheaply, and only those in the history window count, so a
    // name on no commit, or on one outside that history, costs nothing.
    let flooded = named_each.iter().any(|n| n.len() >= MAX_PRIOR_NOTES);
    let mut flood_named: std::collections::BTreeMap<&str, std::collections::BTreeSet<CommitId>> =
        std::collections::BTreeMap::new();
    if flooded {
        let all = git.notes_naming_each(notes, &needles, MAX_FLOODED_NOTES)?;
        for (lineage, commits) in needles.iter().copied().zip(all) {
            flood_named.insert(lineage, commits.into_iter().collect());
        }
    }
    if named_each.len() != needles.len() {
        let short: AdapterError = format!(
            "the notes search answered for {} of {} lineages",
            named_each.len(),
            needles.len()
        )
        .into();
        return Err(short.into());
    }
    // A flooded approval's named commits are all read, those this
    // repository holds (one batch asks which): the first 64 names in path
    // order may all be junk on ids that sort first, and a delivery past the
    // window is found only by its name (red team round 8, D-R146). Past
    // [`MAX_FLOODED_COMMITS`] held commits the approval delivers nothing
    // here, as past [`MAX_FLOODED_NOTES`] names.
    let mut named_each = named_each;
    let mut over_bound: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    if flooded {
        let mut names: Vec<String> = flood_named
            .values()
            .flatten()
            .map(|c| c.to_string())
            .collect();
        names.sort_unstable();
        names.dedup();
        let missing: std::collections::BTreeSet<String> =
            git.missing_objects(&names)?.into_iter().collect();
        for (needle, named) in needles.iter().copied().zip(named_each.iter_mut()) {
            if named.len() < MAX_PRIOR_NOTES {
                continue;
            }
            let held: Vec<CommitId> = flood_named
                .get(needle)
                .into_iter()
                .flatten()
                .filter(|c| !missing.contains(c.as_str()))
                .cloned()
                .collect();
            if held.len() > MAX_FLOODED_COMMITS {
                over_bound.insert(needle);
                named.clear();
            } else {
                *named = held;
            }
        }
    }
    let past_bound = |l: &LineageId| {
        over_bound.contains(l.as_str())
            || flood_named
                .get(l.as_str())
                .is_some_and(|n| n.len() >= MAX_FLOODED_NOTES)
    };
    // What each noted commit delivered; `None`: a merge, or no commit
    // this repository holds.
    let mut noted: std::collections::BTreeMap<CommitId, Option<(TreeId, TreeId)>> =
        std::collections::BTreeMap::new();
    for c in named_each.iter().flatten() {
        if noted.contains_key(c) {
            continue;
        }
        let here = git.peel_commit(c)?.as_ref() == Some(c);
        let trees = if here { delivered_trees(git, c)? } else { None };
        noted.insert(c.clone(), trees);
    }
    let named_by: std::collections::BTreeMap<&str, Vec<CommitId>> =
        needles.iter().copied().zip(named_each).collect();
    let mut windows: std::collections::BTreeMap<CommitId, Vec<Delivered>> =
        std::collections::BTreeMap::new();
    let mut brought: std::collections::BTreeMap<(CommitId, CommitId), Vec<Delivered>> =
        std::collections::BTreeMap::new();
    let mut ancestry = Ancestry {
        git,
        known: std::collections::BTreeMap::new(),
    };
    let mut carried = Carried::default();
    let mut may_carry = MayCarry::default();
    let mut composed = Composed::default();
    for delivery in deliveries {
        let mut named = Vec::new();
        for lineage in delivery.approvals() {
            let commits: Vec<Delivered> = named_by
                .get(lineage.as_str())
                .into_iter()
                .flatten()
                .filter(|c| **c != delivery.commit)
                .filter_map(|c| Some((c.clone(), noted.get(c)?.clone()?)))
                .collect();
            let approved = scratch.load(lineage)?.map(|r| {
                let s = r.state();
                (
                    s.snapshot().base_tree.clone(),
                    s.final_candidate_tree().clone(),
                )
            });
            named.push((lineage.clone(), approved, commits));
        }
        if named.is_empty() {
            continue;
        }
        let Some(trees) = delivered_trees(git, &delivery.commit)? else {
            continue;
        };
        if let (Some(l), Some(landing)) = (
            delivery.approvals().iter().find(|l| past_bound(l)),
            landings_of(delivery).first(),
        ) {
            return Ok(Some(ReceiveDenial {
                reason_code: "input_too_large".into(),
                refname: landing.refname.to_string(),
                commit: Some(delivery.commit.clone()),
                message: format!(
                    "so many notes name the approval of {l} ({MAX_FLOODED_NOTES} notes or more, or more than {MAX_FLOODED_COMMITS} commits here) that the replay check cannot read them all, so that approval delivers nothing here; review the change again (`probity start --commit {}`), which gives it an approval no note names yet, then push",
                    delivery.commit
                ),
                next_action: "start_commit_review",
            }));
        }
        for landing in landings_of(delivery) {
            // The ref's history (D-R145): the window below the old tip
            // (the new tip's, for a new ref), whose commits all come before
            // this delivery, and what the update brings beside it.
            let mut history: Vec<(&Delivered, bool)> = Vec::new();
            let below = landing.old.unwrap_or(&landing.new);
            if !windows.contains_key(below) {
                let window = history_priors(git, below)?;
                may_carry.announce(git, &window)?;
                windows.insert(below.clone(), window);
            }
            if let Some(old) = landing.old {
                let key = (landing.new.clone(), old.clone());
                if !brought.contains_key(&key) {
                    let listed = git.range(
                        &landing.new,
                        std::slice::from_ref(old),
                        &RemoteScope::None,
                        MAX_HISTORY_LISTED,
                    )?;
                    let spans = changing(git, &listed, usize::MAX)?;
                    may_carry.announce(git, &spans)?;
                    brought.insert(key.clone(), spans);
                }
                history.extend(brought.get(&key).into_iter().flatten().map(|d| (d, false)));
            }
            let settled = landing.old.is_some();
            history.extend(
                windows
                    .get(below)
                    .into_iter()
                    .flatten()
                    .map(|d| (d, settled)),
            );
            let mut approvals = Vec::new();
            for (lineage, approved, commits) in &named {
                let spends = |t: &(TreeId, TreeId)| *t == trees || approved.as_ref() == Some(t);
                let mut priors = Vec::new();
                // A commit whose note names the approval is asked too
                // whether it delivered the approved change on a base of its
                // own (a rebase proof's delivery, D-R133); the ref's history
                // alone (a CI form) is matched by its trees.
                let named_in_history = flood_named.get(lineage.as_str());
                let candidates =
                    commits
                        .iter()
                        .map(|d| (d, false, true))
                        .chain(history.iter().map(|(d, settled)| {
                            (
                                *d,
                                *settled,
                                named_in_history.is_some_and(|n| n.contains(&d.0)),
                            )
                        }));
                // And, failing both, whether it was a squash that composed
                // the approval (D-R134), once it is known to come first.
                for ((c, prior_trees), settled, noted) in candidates {
                    // A commit of the history whose own note holds another
                    // approval it delivered spent that one, not this (red
                    // team round 7, D-R146): an agent's copy of a
                    // teammate's pending change, landed under its own
                    // review and reverted, leaves the teammate's approval
                    // unspent. Since D-R146 a delivery's note carries the
                    // approval that allowed it, so the note is the
                    // delivery's own word; a note-less one (a lost race)
                    // still spends by its trees.
                    let by_trees = spends(prior_trees)
                        && (noted
                            || !delivered_another(
                                git,
                                notes,
                                c,
                                lineage.as_str(),
                                prior_trees,
                                signature_policy,
                                &mut carried,
                                cache,
                            )?);
                    // A commit of the history window whose note names no
                    // approval it delivered is asked too (D-R141, at the
                    // hook as well since D-R145): a dropped, missing or
                    // misplaced note must not unspend an approval
                    // delivered through a rebase proof. A commit whose note names another approval
                    // delivered that one (a change made again through a
                    // fresh review is not a replay).
                    let carries = !by_trees
                        && match approved {
                            Some(a) if noted => {
                                may_carry.may(git, prior_trees, a)?
                                    && carried.carries(git, prior_trees, a)?
                            }
                            Some(a) => {
                                may_carry.may(git, prior_trees, a)?
                                    // Where a commit the update brings sits
                                    // is an ancestry walk, what it carried a
                                    // diff: one after the delivery (it keeps
                                    // the approved bytes) is no earlier
                                    // delivery, asked first (D-R145).
                                    && (settled
                                        || ancestry.before(c, &delivery.commit, landing)?)
                                    && !delivered_another(
                                        git,
                                        notes,
                                        c,
                                        lineage.as_str(),
                                        prior_trees,
                                        signature_policy,
                                        &mut carried,
                                        cache,
                                    )?
                                    && carried.carries(git, prior_trees, a)?
                            }
                            _ => false,
                        };
                    let may_compose = !by_trees
                        && !carries
                        && noted
                        && composed.may_compose(git, notes, c, prior_trees, lineage)?;
                    if !by_trees && !carries && !may_compose {
                        continue;
                    }
                    let before = settled || ancestry.before(c, &delivery.commit, landing)?;
                    let composes = may_compose
                        && before
                        && composed.composes(signature_policy, c, prior_trees, lineage)?;
                    if !by_trees && !carries && !composes {
                        continue;
                    }
                    priors.push(PriorDelivery {
                        commit: c.clone(),
                        in_ref_history: before,
                        trees: prior_trees.clone(),
                        carries_approved_change: carries,
                        composed_approval: composes,
                    });
                }
                approvals.push(ApprovalHistory {
                    lineage: lineage.clone(),
                    approved: approved.clone(),
                    priors,
                });
            }
            if let Err(e) =
                check_approvals_not_replayed(landing.refname, &delivery.commit, &trees, &approvals)
            {
                return Ok(Some(ReceiveDenial {
                    reason_code: e.code().into(),
                    refname: landing.refname.to_string(),
                    commit: Some(delivery.commit.clone()),
                    message: e.to_string(),
                    next_action: "start_commit_review",
                }));
            }
        }
    }
    Ok(None)
}
