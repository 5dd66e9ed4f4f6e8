//! A served stream leaves no thread behind (the `mcp_authority_frames`
//! fuzz target's LeakSanitizer finding, docs/reliability.md): each tool
//! call runs on the runtime's blocking pool, and the runtime was shut down
//! in the background, so the pool's idle thread outlived the return by its
//! keep-alive. Alone in its file, so no other test's threads are counted.

use std::sync::atomic::{AtomicUsize, Ordering};

use probity_mcp::{ToolAnswer, ToolDef, ToolHandler, serve_handler_on};
use serde_json::{Value, json};

static CALLS: AtomicUsize = AtomicUsize::new(0);

struct Counter;

impl ToolHandler for Counter {
    fn instructions(&self) -> String {
        "counts its calls".into()
    }
    fn tools(&self) -> Vec<ToolDef> {
        vec![ToolDef {
            name: "status".into(),
            description: "counts its calls".into(),
            input_schema: json!({"type": "object", "additionalProperties": false}),
            read_only: true,
        }]
    }
    fn call(&self, name: &str, _args: &Value) -> Option<ToolAnswer> {
        (name == "status").then(|| {
            CALLS.fetch_add(1, Ordering::SeqCst);
            ToolAnswer {
                text: "ok".into(),
                is_error: false,
            }
        })
    }
}

fn threads() -> usize {
    probity_testkit::threads::live_threads().expect("/proc/self/task")
}

#[test]
fn a_served_stream_leaves_no_thread_behind() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probity-test", "version": "0"}}});
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "status", "arguments": {}}});
    let input = format!("{init}\n{note}\n{call}\n").into_bytes();
    let before = threads();
    for round in 1..=200 {
        serve_handler_on(
            Counter,
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
