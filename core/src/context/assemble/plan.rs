//! Filter runs computed ahead of assembly (by a caller that may spread them
//! over threads): the plan names the record bodies and logs an assembly
//! may filter, the caller runs them in any order, and `assemble_with` takes
//! their results. Results are keyed by the exact text and bound they were
//! computed for, and only the plan's own runs can produce them, so an
//! assembly with a memo emits the same bytes as one without: a value the
//! memo lacks is filtered in place, as `assemble` does.

use std::collections::BTreeMap;

use super::super::filter::{self, CredentialRegistry, FilterError, FilterVersion, Filtered};
use super::super::input::{self, CheckInput, ContextInput};
use super::super::profile::{LogSelection, Profile, Source};
use super::super::types::CheckConclusion;

/// One filter run: `filter_text(text, max_bytes)` under the input's
/// registered credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterJob<'a> {
    /// The record body or log, as the input holds it.
    pub text: &'a str,
    /// Its byte bound: `max_record_bytes` for a body, `max_log_bytes` for a
    /// log.
    pub max_bytes: u64,
}

/// The filter runs of record bodies and logs an assembly of one input may
/// perform, in input order: the entity body, then comment and review bodies
/// and the logs of the checks `check_log_selection` selects, of the sources
/// the profile includes, that fit `max_source_bytes`. It may name runs the assembly then skips (a record
/// dropped by selection or invalid metadata); it is empty when the profile
/// or the credential registry is invalid (assembly reports that itself).
pub struct FilterPlan<'a> {
    credentials: &'a [String],
    version: Option<FilterVersion>,
    creds: CredentialRegistry,
    jobs: Vec<FilterJob<'a>>,
}

/// The result of one planned run, tied to the text and bound it is for.
pub struct JobResult<'a> {
    job: FilterJob<'a>,
    result: Result<Filtered, FilterError>,
}

/// Precomputed filter results for `assemble_with`.
#[derive(Default)]
pub struct FilterMemo<'a> {
    credentials: &'a [String],
    /// The filter version the results were computed under.
    version: Option<FilterVersion>,
    /// By bound, then by text.
    results: BTreeMap<u64, BTreeMap<&'a str, Filtered>>,
}

impl<'a> FilterPlan<'a> {
    /// The runs `input` may need; none when its profile or credential registry
    /// is invalid.
    pub fn new(input: &'a ContextInput) -> FilterPlan<'a> {
        let credentials = input.credentials.as_slice();
        let (Ok(profile), Ok(creds), Ok(version)) = (
            Profile::parse(&input.profile),
            CredentialRegistry::new(credentials),
            input::filter_version(input),
        ) else {
            return FilterPlan {
                credentials,
                version: None,
                creds: CredentialRegistry::default(),
                jobs: Vec::new(),
            };
        };
        let creds = creds.with_version(version);
        let bounds = &profile.bounds;
        let fits = |s: &str| s.len() as u64 <= bounds.max_source_bytes;
        let mut jobs = Vec::new();
        let mut record = |text: &'a str| {
            if fits(text) {
                jobs.push(FilterJob {
                    text,
                    max_bytes: bounds.max_record_bytes,
                });
            }
        };
        if let Some(body) = input.entity.body.as_deref() {
            record(body);
        }
        if profile.includes(Source::Comments) {
            input.comments.iter().for_each(|c| record(&c.body));
        }
        if profile.includes(Source::Reviews) {
            input.reviews.iter().for_each(|r| record(&r.body));
        }
        let wanted = |c: &CheckInput| match profile.check_log_selection {
            LogSelection::None => false,
            LogSelection::All => true,
            // Assembly also needs the check's metadata valid and complete.
            LogSelection::Failed => c
                .conclusion
                .as_deref()
                .and_then(|raw| CheckConclusion::parse(raw).ok())
                .is_some_and(CheckConclusion::is_failed),
        };
        if profile.includes(Source::CheckLogs) {
            let logs = input.checks.iter().filter(|c| wanted(c));
            for log in logs.filter_map(|c| c.log.as_deref()) {
                if fits(log) {
                    jobs.push(FilterJob {
                        text: log,
                        max_bytes: bounds.max_log_bytes,
                    });
                }
            }
        }
        FilterPlan {
            credentials,
            version: Some(version),
            creds,
            jobs,
        }
    }

    /// The planned runs, in input order; [`run`](Self::run) takes an index into
    /// them.
    pub fn jobs(&self) -> &[FilterJob<'a>] {
        &self.jobs
    }

    /// Runs job `index` (`None` when there is no such job).
    pub fn run(&self, index: usize) -> Option<JobResult<'a>> {
        let job = *self.jobs.get(index)?;
        Some(JobResult {
            job,
            result: filter::filter_text(&self.creds, job.text, job.max_bytes),
        })
    }

    /// The memo of these results (in any order; a failed run is left out,
    /// so the assembly meets its error in place).
    pub fn memo(&self, results: impl IntoIterator<Item = JobResult<'a>>) -> FilterMemo<'a> {
        let mut memo = FilterMemo {
            credentials: self.credentials,
            version: self.version,
            results: BTreeMap::new(),
        };
        for r in results {
            if let Ok(f) = r.result {
                memo.results
                    .entry(r.job.max_bytes)
                    .or_default()
                    .insert(r.job.text, f);
            }
        }
        memo
    }
}

impl FilterMemo<'_> {
    /// Whether the memo was computed under exactly these credentials and
    /// this filter version.
    pub(super) fn applies_to(&self, credentials: &[String], version: FilterVersion) -> bool {
        self.results.is_empty()
            || (self.credentials == credentials && self.version == Some(version))
    }

    pub(super) fn get(&self, text: &str, max_bytes: u64) -> Option<&Filtered> {
        self.results.get(&max_bytes)?.get(text)
    }

    /// The number of results held.
    pub fn len(&self) -> usize {
        self.results.values().map(BTreeMap::len).sum()
    }

    /// Whether the memo holds no result (such a memo applies to any input).
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }
}
