//! MCP frames for the authority server (`probity mcp --authority`): the
//! client's whole stdin stream through the framing guard and the handler
//! server that dispatches its lifecycle tools. The lifecycle tools
//! themselves (and their argument checks) live in the `probity` binary, so
//! this handler declares one tool with the same kind of schema and echoes
//! the arguments it is handed. Beyond not panicking: every line the server
//! writes is one JSON-RPC 2.0 message, and a tool is only ever handed an
//! object of arguments.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_fuzz::{Sink, check_answers, check_judged};
use probity_mcp::{ToolAnswer, ToolDef, ToolHandler, serve_handler_on};
use serde_json::{Value, json};

struct Echo;

impl ToolHandler for Echo {
    fn instructions(&self) -> String {
        "fuzzing".into()
    }
    fn tools(&self) -> Vec<ToolDef> {
        vec![ToolDef {
            name: "status".into(),
            description: "echoes its arguments".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"lineage": {"type": "string"}, "json": {"type": "boolean"}},
                "additionalProperties": false
            }),
            read_only: true,
        }]
    }
    fn call(&self, name: &str, args: &Value) -> Option<ToolAnswer> {
        if name != "status" {
            return None;
        }
        assert!(
            args.is_object() || args.is_null(),
            "a tool was handed {args}"
        );
        Some(ToolAnswer {
            text: args.to_string(),
            is_error: false,
        })
    }
}

fuzz_target!(|data: &[u8]| {
    check_judged(data);
    let out = Sink::default();
    let _ = serve_handler_on(Echo, std::io::Cursor::new(data.to_vec()), out.clone());
    check_answers(&out.bytes());
});
