//! Entity-context assembly throughput, single-threaded and with the filter
//! runs on worker threads (not a test; see docs/perf.md). The corpus is the
//! one `probity-core`'s `filter_bench` generates: its comments become
//! comment records and its CI logs the logs of failed checks of the
//! `examples/context/change-proposal.json` input.
//!
//! cargo run --release -p probity-ports --example assemble_bench [-- MB [WORKERS]]

use std::time::Instant;

use probity_core::context::ContextInput;
use probity_core::context::FilterPlan;
use probity_ports::context::assemble;
use probity_ports::context::{assemble_parallel, precompute_filters};
use serde_json::{Value, json};

#[path = "../../core/examples/filter_bench.rs"]
#[allow(dead_code)]
mod filter_bench;

const CHANGE_PROPOSAL: &str = include_str!("../../examples/context/change-proposal.json");

fn timestamp(n: usize) -> String {
    format!(
        "2026-09-10T{:02}:{:02}:{:02}Z",
        n / 3600,
        (n / 60) % 60,
        n % 60
    )
}

fn bench_input(total_mb: usize) -> ContextInput {
    let (comments, logs) = filter_bench::corpus::generate(total_mb);
    let mut v: Value = serde_json::from_str(CHANGE_PROPOSAL).expect("example input");
    v["profile"]["record_selection"] = json!("oldest");
    v["profile"]["check_log_selection"] = json!("all");
    v["profile"]["bounds"] = json!({
        "max_records_per_source": 1_000_000,
        "max_source_bytes": 8 * 1024 * 1024,
        "max_record_bytes": filter_bench::COMMENT_BOUND,
        "max_log_bytes": filter_bench::LOG_BOUND,
        "max_metadata_string_bytes": 256,
        "max_labels": 10,
    });
    v["credentials"] = json!(["probity-bench-credential-0001"]);
    if let Some(list) = v["comments"].as_array_mut() {
        for (n, body) in comments.into_iter().enumerate() {
            list.push(json!({
                "id": format!("IC_bench{n}"),
                "author_id": if n % 2 == 0 { "U_alice" } else { "U_bob" },
                "created_at": timestamp(n),
                "body": body,
            }));
        }
    }
    if let Some(list) = v["checks"].as_array_mut() {
        for (n, log) in logs.into_iter().enumerate() {
            list.push(json!({
                "id": format!("CR_bench{n}"),
                "name": format!("ci / job {n}"),
                "status": "completed",
                "conclusion": "failure",
                "created_at": timestamp(n),
                "head_sha": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                "started_at": timestamp(n + 1),
                "completed_at": timestamp(n + 2),
                "never_started": false,
                "log": log,
            }));
        }
    }
    serde_json::from_value(v).expect("bench input")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let total_mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let workers: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let input = bench_input(total_mb);
    let plan = FilterPlan::new(&input);
    let bytes: usize = plan.jobs().iter().map(|j| j.text.len()).sum();
    let mb = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "{} filter jobs, {mb:.1} MiB (record bodies and logs)",
        plan.jobs().len()
    );
    // Warm the detector engine outside the timing.
    let _ = plan.run(0);

    let time = |name: &str, f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        let secs = start.elapsed().as_secs_f64();
        println!("{name:<28} {secs:>7.2} s {:>8.1} MiB/s", mb / secs);
    };
    time("filter, 1 thread", &mut || {
        precompute_filters(&plan, 1);
    });
    time(&format!("filter, {workers} workers"), &mut || {
        precompute_filters(&plan, workers);
    });
    let mut plain = None;
    time("assemble, 1 thread", &mut || {
        plain = Some(assemble(&input));
    });
    let mut parallel = None;
    time(&format!("assemble, {workers} workers"), &mut || {
        parallel = Some(assemble_parallel(&input, workers));
    });
    let (Some(Ok(plain)), Some(Ok(parallel))) = (plain, parallel) else {
        panic!("assembly failed");
    };
    assert_eq!(plain, parallel, "parallel assembly differs");
    println!(
        "{} files, identical trees, index digest {}",
        plain.tree.files().len(),
        plain.index_digest.hex()
    );
}
