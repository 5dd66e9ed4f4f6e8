//! A generic MCP tool server: any [`ToolHandler`] (a list of tools and a
//! blocking call) served over stdio behind the same framing guard as the
//! snapshot tools. `probity mcp --authority` serves the review lifecycle
//! this way; the handler (in the CLI) answers exactly what the CLI's
//! `--json` answers.
//!
//! A call's outcome is a tool result: an answer, or a tool error
//! (`isError`) carrying the same error document. An unknown tool is a
//! protocol error (-32602), as for the snapshot tools. Calls run on the
//! runtime's blocking pool, one at a time (a stdio session is one client).

use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::{Answers, ServeError};

/// One tool as it is declared.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The name a client calls it by (`tools/call`'s `name`); unique among the
    /// handler's tools.
    pub name: String,
    /// What the tool does, for the client's model (the MCP tool `description`).
    pub description: String,
    /// A JSON Schema object for the arguments.
    pub input_schema: Value,
    /// The tool changes nothing (annotated `readOnlyHint`).
    pub read_only: bool,
}

/// A call's outcome: the text of one content block (a JSON document), and
/// whether it is a tool error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAnswer {
    /// The text of the single content block: a JSON document.
    pub text: String,
    /// Whether the call failed: the result is then sent with `isError` (a tool
    /// error, not a protocol error).
    pub is_error: bool,
}

/// What a tool server serves.
pub trait ToolHandler: Send + Sync + 'static {
    /// What the server tells a client about itself.
    fn instructions(&self) -> String;
    /// The tools, in the order listed.
    fn tools(&self) -> Vec<ToolDef>;
    /// Answers one call (blocking). `None`: no such tool.
    fn call(&self, name: &str, args: &Value) -> Option<ToolAnswer>;
}

/// The MCP server over a handler.
pub struct HandlerServer<H> {
    handler: Arc<H>,
    answers: Answers,
}

impl<H> Clone for HandlerServer<H> {
    fn clone(&self) -> Self {
        Self {
            handler: Arc::clone(&self.handler),
            answers: self.answers.clone(),
        }
    }
}

impl<H: ToolHandler> HandlerServer<H> {
    /// Serves `handler`, shared by every session of this server.
    pub fn new(handler: H) -> Self {
        Self {
            handler: Arc::new(handler),
            answers: Answers::default(),
        }
    }

    fn declared(&self) -> Vec<Tool> {
        self.handler
            .tools()
            .into_iter()
            .map(|t| {
                let schema = match t.input_schema {
                    Value::Object(m) => m,
                    _ => serde_json::Map::new(),
                };
                let mut tool = Tool::new(t.name, t.description, Arc::new(schema));
                tool.annotations = Some(
                    ToolAnnotations::new()
                        .read_only(t.read_only)
                        .destructive(false),
                );
                tool
            })
            .collect()
    }
}

impl<H: ToolHandler> ServerHandler for HandlerServer<H> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("probity", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.handler.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        Ok(ListToolsResult::with_all_items(self.declared()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let args = match request.arguments {
            Some(map) => Value::Object(map),
            None => Value::Object(serde_json::Map::new()),
        };
        if self.answers.closed() {
            return Err(Answers::refusal());
        }
        let handler = Arc::clone(&self.handler);
        let answers = self.answers.clone();
        let name = request.name.to_string();
        // Checked again where it runs: the stream may have failed while
        // the call waited for the blocking pool.
        let answer = tokio::task::spawn_blocking(move || {
            if answers.closed() {
                return Err(());
            }
            Ok(handler.call(&name, &args))
        })
        .await
        .map_err(|e| rmcp::ErrorData::internal_error(format!("the tool call failed: {e}"), None))?
        .map_err(|()| Answers::refusal())?;
        let Some(answer) = answer else {
            return Err(rmcp::ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`: this server has {}",
                    request.name,
                    self.handler
                        .tools()
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        };
        let content = vec![ContentBlock::text(answer.text)];
        Ok(if answer.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// Serves `handler` on stdin/stdout until the client closes the stream.
pub fn serve_handler_stdio<H: ToolHandler>(handler: H) -> Result<(), ServeError> {
    let (stdin, stdout) = rmcp::transport::io::stdio();
    serve_handler_on(handler, stdin, stdout)
}

/// Serves `handler` over any byte streams.
pub fn serve_handler_on<H, I, O>(handler: H, input: I, output: O) -> Result<(), ServeError>
where
    H: ToolHandler,
    I: tokio::io::AsyncRead + Send + Unpin + 'static,
    O: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let server = HandlerServer::new(handler);
    let answers = server.answers.clone();
    crate::serve_service(server, answers, input, output)
}
