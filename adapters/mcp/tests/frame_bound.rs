//! The 4 MiB message bound ([`probity_mcp::frame::MAX_FRAME_BYTES`]) at its
//! edge, over a whole session of the generic tool server (the one `probity
//! mcp --authority` runs): a message of exactly the bound reaches the tool
//! whole, one byte more is answered with a JSON-RPC error and never reaches
//! it, and the session goes on.

mod common;

use common::{OneTool, session};
use probity_mcp::frame::MAX_FRAME_BYTES;
use probity_mcp::serve_handler_on;
use serde_json::{Value, json};

/// One tool, `echo`, answering how many bytes its `pad` argument had.
fn echo() -> OneTool {
    OneTool {
        name: "echo",
        description: "answers the length of `pad`",
        input_schema: json!({"type": "object", "properties": {"pad": {"type": "string"}}}),
        answer: |args| json!({"pad_bytes": args["pad"].as_str().map(str::len)}).to_string(),
    }
}

/// A `tools/call` of `echo` whose line (without its newline) is exactly
/// `len` bytes (its newline follows), and the length of its pad.
fn call_of(len: usize, id: u64) -> (Vec<u8>, usize) {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"pad":""#
    );
    let tail = r#""}}}"#;
    let pad = len - head.len() - tail.len();
    let mut line = head.into_bytes();
    line.resize(len - tail.len(), b'a');
    line.extend_from_slice(tail.as_bytes());
    assert_eq!(line.len(), len);
    assert!(serde_json::from_slice::<Value>(&line).is_ok());
    line.push(b'\n');
    (line, pad)
}

#[test]
fn a_message_of_exactly_the_bound_is_served_and_one_byte_more_is_refused() {
    let (exact, exact_pad) = call_of(MAX_FRAME_BYTES, 2);
    let (over, _) = call_of(MAX_FRAME_BYTES + 1, 3);
    let good = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"pad": "abc"}}});
    let answers = session(
        |read, write| serve_handler_on(echo(), read, write),
        vec![exact, over, common::frame(&good)],
    );

    assert_eq!(answers[0]["id"], 1, "{}", answers[0]);
    // Exactly the bound: the tool saw the whole pad.
    let text = |i: usize| -> Value {
        assert_eq!(answers[i]["result"]["isError"], false, "{}", answers[i]);
        serde_json::from_str(answers[i]["result"]["content"][0]["text"].as_str().unwrap()).unwrap()
    };
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(text(1), json!({"pad_bytes": exact_pad}));
    // One byte more: invalid request, its id never read, nothing called.
    assert_eq!(answers[2]["id"], Value::Null, "{}", answers[2]);
    assert_eq!(answers[2]["error"]["code"], -32600, "{}", answers[2]);
    assert!(
        answers[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&MAX_FRAME_BYTES.to_string()),
        "{}",
        answers[2]
    );
    // The session goes on.
    assert_eq!(answers[3]["id"], 4);
    assert_eq!(text(3), json!({"pad_bytes": 3}));
}
