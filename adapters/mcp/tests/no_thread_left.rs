//! A served stream leaves no thread behind (the `mcp_authority_frames`
//! fuzz target's LeakSanitizer finding, docs/reliability.md): each tool
//! call runs on the runtime's blocking pool, and the runtime was shut down
//! in the background, so the pool's idle thread outlived the return by its
//! keep-alive. Alone in its file, so no other test's threads are counted.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{OneTool, frame, initialize, initialized};
use probity_mcp::serve_handler_on;
use serde_json::json;

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// One tool, `status`, counting its calls.
fn counter() -> OneTool {
    OneTool {
        name: "status",
        description: "counts its calls",
        input_schema: json!({"type": "object", "additionalProperties": false}),
        answer: |_| {
            CALLS.fetch_add(1, Ordering::SeqCst);
            "ok".into()
        },
    }
}

fn threads() -> usize {
    probity_testkit::threads::live_threads().expect("/proc/self/task")
}

#[test]
fn a_served_stream_leaves_no_thread_behind() {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "status", "arguments": {}}});
    let input = [frame(&initialize()), frame(&initialized()), frame(&call)].concat();
    let before = threads();
    for round in 1..=200 {
        serve_handler_on(
            counter(),
            std::io::Cursor::new(input.clone()),
            tokio::io::sink(),
        )
        .unwrap();
        assert_eq!(
            threads(),
            before,
            "a thread outlived the stream (round {round})"
        );
    }
    // Each stream's call ran, on the blocking pool.
    assert!(CALLS.load(Ordering::SeqCst) >= 1);
}
