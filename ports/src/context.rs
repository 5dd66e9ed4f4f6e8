//! Entity-context assembly with its filter runs spread over threads.
//!
//! Core stays single-threaded and pure: it names the filter runs an
//! assembly may perform (`FilterPlan`) and assembles from their results
//! (`assemble_with`), filtering anything missing itself. This driver runs
//! the plan on a bounded number of scoped threads, largest text first, then
//! assembles. The result is byte-identical to `assemble` whatever the
//! number of workers (`tests` and the proptests check it).

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use probity_core::context::ContextInput;
use probity_core::context::HexDigest;
use probity_core::context::{
    AssembleError, Assembly, FilterMemo, FilterPlan, JobResult, assemble_with,
};
use probity_core::context::{Observed, VerifiedTree, VerifyError};
use serde_json::Value;

use crate::schemas;

/// Core's `assemble` against the normative v1 bundle.
pub fn assemble(input: &ContextInput) -> Result<Assembly, AssembleError> {
    probity_core::context::assemble(input, schemas::bundle()?)
}

/// Core's `verify` against the normative v1 bundle.
pub fn verify(observed: &Observed, retained: &HexDigest) -> Result<VerifiedTree, VerifyError> {
    let bundle = schemas::bundle().map_err(VerifyError::Bundle)?;
    probity_core::context::verify(observed, retained, bundle)
}

/// Checks the root index alone against the retained digest and the v1
/// bundle (`probity_core::context::check_index`): the parsed index,
/// whose manifest an observer uses before reading any other file.
pub fn check_index(index_bytes: &[u8], retained: &HexDigest) -> Result<Value, VerifyError> {
    let bundle = schemas::bundle().map_err(VerifyError::Bundle)?;
    probity_core::context::check_index(index_bytes, retained, bundle)
}

/// The most worker threads `default_workers` chooses.
pub const MAX_WORKERS: usize = 8;

/// The workers for this machine: its available parallelism, at most
/// `MAX_WORKERS`, at least one.
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .clamp(1, MAX_WORKERS)
}

/// Runs every job of `plan` on up to `workers` threads and returns the memo
/// of their results. With one worker (or one job) it runs on the calling
/// thread.
pub fn precompute_filters<'a>(plan: &FilterPlan<'a>, workers: usize) -> FilterMemo<'a> {
    let jobs = plan.jobs();
    // Largest first, so the long logs start early and the small bodies
    // fill the gaps.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].text.len()));
    let workers = workers.clamp(1, jobs.len().max(1));
    if workers == 1 {
        return plan.memo(order.iter().filter_map(|&i| plan.run(i)));
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<JobResult<'a>>> = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut mine = Vec::new();
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    mine.extend(plan.run(i));
                }
                // A poisoned lock only means another worker panicked (and
                // the scope re-raises that panic); the results are plain data.
                results
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .append(&mut mine);
            });
        }
    });
    let results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    plan.memo(results)
}

/// `assemble` with the filter runs on up to `workers` threads: the same
/// assembly (bytes, digest, gaps) or the same error.
pub fn assemble_parallel(input: &ContextInput, workers: usize) -> Result<Assembly, AssembleError> {
    let plan = FilterPlan::new(input);
    let memo = precompute_filters(&plan, workers);
    assemble_with(input, &memo, schemas::bundle()?)
}

#[cfg(test)]
mod tests {

    use super::*;

    const INPUTS: &[&str] = &[
        include_str!("../../examples/context/work-item.json"),
        include_str!("../../examples/context/change-proposal.json"),
    ];

    #[test]
    fn parallel_assembly_is_byte_identical() {
        for raw in INPUTS {
            let input: ContextInput = serde_json::from_str(raw).expect("example input parses");
            let plain = assemble(&input);
            for workers in [1, 2, 3, 8] {
                assert_eq!(
                    assemble_parallel(&input, workers),
                    plain,
                    "{workers} workers"
                );
            }
        }
    }

    #[test]
    fn every_planned_job_is_run_once() {
        for raw in INPUTS {
            let input: ContextInput = serde_json::from_str(raw).expect("example input parses");
            let plan = FilterPlan::new(&input);
            assert!(!plan.jobs().is_empty());
            let memo = precompute_filters(&plan, 2);
            let distinct: std::collections::BTreeSet<_> =
                plan.jobs().iter().map(|j| (j.text, j.max_bytes)).collect();
            assert_eq!(memo.len(), distinct.len());
        }
    }

    #[test]
    fn default_workers_is_bounded() {
        let w = default_workers();
        assert!((1..=MAX_WORKERS).contains(&w));
    }
}
