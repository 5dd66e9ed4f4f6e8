//! A minimal MCP client session over `probity mcp --authority`'s stdio
//! (newline-delimited JSON-RPC 2.0): initialize, then call tools, each
//! answer the command's `--json` document.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// A running `probity mcp --authority` and its pipes.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// Starts `probity --cwd <cwd> mcp --authority` and initializes it.
    pub fn start(cwd: &std::path::Path) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
        super::isolated(&mut cmd)
            .arg("--cwd")
            .arg(cwd)
            .args(["mcp", "--authority"])
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("run probity mcp --authority");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probity-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "probity", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// One request and its answer (messages without its id are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// Calls a tool: (is_error, the answer document).
    pub fn call(&mut self, name: &str, args: Value) -> (bool, Value) {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{r}");
        let text = result["content"][0]["text"].as_str().expect("text");
        (
            result["isError"] == json!(true),
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}")),
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
