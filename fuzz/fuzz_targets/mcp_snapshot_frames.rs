//! MCP frames for the reviewer's snapshot server (`probity mcp`): the
//! client's whole stdin stream, through the framing guard, rmcp's JSON-RPC
//! reader and the tools' argument validation, over an in-memory snapshot.
//! Beyond not panicking: every line the server writes is one JSON-RPC 2.0
//! message, and the guard's own answers carry its codes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::snapshot_tools::BudgetLimits;
use probity_fuzz::{InMemory, Sink, check_answers, check_judged};
use probity_mcp::{SnapshotServer, serve_on};

fuzz_target!(|data: &[u8]| {
    check_judged(data);
    let server = SnapshotServer::new(
        InMemory::sample(),
        BudgetLimits {
            max_calls: 8,
            max_bytes: 64 * 1024,
            result_cap: 16 * 1024,
        },
        Box::new(std::io::sink()),
    );
    let out = Sink::default();
    let _ = serve_on(server, std::io::Cursor::new(data.to_vec()), out.clone());
    check_answers(&out.bytes());
});
