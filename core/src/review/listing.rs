//! `probity list` (issue 21 §8): one row per lineage a repository's store
//! holds, so people can see what is open. The row, the collapsed paths, the
//! age (from a `now` the caller's clock gives) and the order are decided
//! here; the store only lists and loads.

use serde::Serialize;

use crate::review::ids::{CommitId, LineageId, RepoPath, Timestamp, TreeId};
use crate::review::state::{NextInput, StateRecord};

/// At most this many paths are named in a row's `paths`; the rest are
/// counted (`path_count` is the whole number).
pub const SHOWN_PATHS: usize = 3;

/// One lineage as `probity list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListRow {
    /// The lineage.
    pub lineage_id: LineageId,
    /// Its state name (`reviewing`, `correction_required`, `validating`,
    /// `approved`, `escalated`, `invalidated`).
    pub state: &'static str,
    /// Whether it still takes input: not final, not superseded, and not
    /// a successor whose recovery did not finish.
    pub open: bool,
    /// A successor whose recovery was interrupted before its predecessor
    /// was marked superseded (a half-made successor): that predecessor.
    /// Rerunning the same `probity recover` finishes it; until then it
    /// takes no input and is not listed as open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_unfinished: Option<LineageId>,
    /// The successor that supersedes it (recovery), if any.
    pub superseded_by: Option<LineageId>,
    /// Its generation (1 for a first review).
    pub generation: u32,
    /// The next legal input its state names.
    pub action: NextInput,
    /// The reviewed paths, collapsed: the first [`SHOWN_PATHS`], then
    /// `+N more`.
    pub paths: String,
    /// How many paths it reviewed.
    pub path_count: usize,
    /// When it was started.
    pub created_at: Timestamp,
    /// Seconds from `created_at` to the caller's `now` (0 when the clock is
    /// behind it).
    pub age_seconds: u64,
    /// The age in its largest whole unit (`42s`, `5m`, `3h`, `2d`).
    pub age: String,
    /// The base tree it froze.
    pub base_tree: TreeId,
    /// The candidate tree it froze.
    pub candidate_tree: TreeId,
    /// Its final candidate tree (the corrected one after a correction).
    pub final_candidate_tree: TreeId,
    /// The commit among the recent history from HEAD whose change it
    /// reviewed (parent tree to tree), when one holds it (a committed
    /// review, or work committed since).
    pub commit: Option<CommitId>,
}

/// The row of `record`, `superseded_by` its successor as the store names
/// it, `commit` the commit that holds its change (if any), aged at `now`.
/// `predecessor_marks_it`: for a successor, whether its predecessor's
/// supersession marker names it (false: its recovery did not finish).
pub fn list_row(
    record: &StateRecord,
    superseded_by: Option<LineageId>,
    predecessor_marks_it: bool,
    commit: Option<CommitId>,
    now: &Timestamp,
) -> ListRow {
    let s = &record.state;
    let age_seconds = match (now.unix_seconds(), s.created_at.unix_seconds()) {
        (Some(now), Some(then)) => now.saturating_sub(then),
        _ => 0,
    };
    let recovery_unfinished = s
        .predecessor
        .as_ref()
        .filter(|_| !predecessor_marks_it)
        .map(|link| link.lineage_id.clone());
    ListRow {
        lineage_id: s.lineage_id.clone(),
        state: s.stage.name(),
        open: !s.stage.is_final() && superseded_by.is_none() && recovery_unfinished.is_none(),
        recovery_unfinished,
        superseded_by,
        generation: s.generation,
        action: s.next_action(),
        paths: collapse_paths(&s.snapshot.paths),
        path_count: s.snapshot.paths.len(),
        created_at: s.created_at.clone(),
        age_seconds,
        age: age(age_seconds),
        base_tree: s.snapshot.base_tree.clone(),
        candidate_tree: s.snapshot.candidate_tree.clone(),
        final_candidate_tree: s.final_candidate_tree().clone(),
        commit,
    }
}

/// The first [`SHOWN_PATHS`] paths joined by `, `, then `+N more`.
pub(crate) fn collapse_paths(paths: &[RepoPath]) -> String {
    let mut out: Vec<&str> = paths
        .iter()
        .take(SHOWN_PATHS)
        .map(RepoPath::as_str)
        .collect();
    let more = paths.len().saturating_sub(SHOWN_PATHS);
    let tail = format!("+{more} more");
    if more > 0 {
        out.push(&tail);
    }
    out.join(", ")
}

/// An age in its largest whole unit: seconds, minutes, hours or days.
pub(crate) fn age(seconds: u64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The listing's order: open lineages first, then newest first, then by
/// lineage id (unique), so the same store always lists the same way.
pub fn sort_rows(rows: &mut [ListRow]) {
    rows.sort_by(|a, b| {
        b.open
            .cmp(&a.open)
            .then_with(|| b.created_at.as_str().cmp(a.created_at.as_str()))
            .then_with(|| a.lineage_id.cmp(&b.lineage_id))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::{parser_observation, start};
    use crate::review::lens::Lens;

    #[test]
    fn ages_paths_and_order_are_deterministic() {
        assert_eq!(age(0), "0s");
        assert_eq!(age(59), "59s");
        assert_eq!(age(60), "1m");
        assert_eq!(age(7200), "2h");
        assert_eq!(age(3 * 86_400 + 5), "3d");
        let p = |s: &str| RepoPath::parse(s).unwrap();
        assert_eq!(collapse_paths(&[p("a"), p("b")]), "a, b");
        assert_eq!(
            collapse_paths(&[p("a"), p("b"), p("c"), p("d"), p("e")]),
            "a, b, c, +2 more"
        );
        let record = start(&parser_observation(), Lens::Reliability)
            .unwrap()
            .record()
            .unwrap();
        let then = record.state.created_at.unix_seconds().unwrap();
        let now = Timestamp::from_unix_seconds(then + 90);
        let row = list_row(&record, None, true, None, &now);
        assert_eq!((row.age_seconds, row.age.as_str()), (90, "1m"));
        assert!(row.open);
        assert_eq!(row.state, "reviewing");
        // A clock behind the record: age 0, never a wrap.
        let early = Timestamp::from_unix_seconds(then.saturating_sub(10));
        assert_eq!(list_row(&record, None, true, None, &early).age_seconds, 0);
        // Superseded: not open, listed after open ones.
        let closed = list_row(
            &record,
            Some(record.state.lineage_id.clone()),
            true,
            None,
            &now,
        );
        assert!(!closed.open);
        let mut rows = vec![closed.clone(), row.clone()];
        sort_rows(&mut rows);
        assert_eq!(rows, vec![row, closed]);
    }
}
