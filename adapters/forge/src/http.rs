//! The HTTP client every forge module shares: a timeout on every request,
//! every body read under a byte bound before anything parses it, rate
//! limits waited out through an injectable [`Sleeper`] within a bounded
//! total, `Link` pagination, and a credential that only ever travels in a
//! request header (never in a URL, a message or a `Debug` rendering).

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use probity_ports::forge::ForgeError;

/// Waits and tells the time (a parameter so tests never sleep).
pub trait Sleeper {
    /// Blocks for `d`.
    fn sleep(&mut self, d: Duration);
    /// Seconds since the Unix epoch (for `x-ratelimit-reset`).
    fn now_unix(&self) -> u64;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemSleeper;

impl Sleeper for SystemSleeper {
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
    fn now_unix(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }
}

/// A secret that never renders.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Accepts a token of printable ASCII without spaces, quotes or
    /// backslashes (every forge token format), so that it can be sent as a
    /// header and found verbatim if it ever had to be masked.
    pub fn new(s: String) -> Result<Self, ForgeError> {
        let ok = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
        if ok {
            Ok(Self(s))
        } else {
            Err(ForgeError::Unauthorized {
                what: "the token".into(),
                status: 0,
            })
        }
    }
    /// The secret itself (for the request header and the redaction
    /// registry only).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Client limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The whole-request timeout (connect, send, read).
    pub timeout: Duration,
    /// The largest JSON response read (larger: `input_too_large`).
    pub max_response_bytes: u64,
    /// The most time spent waiting out rate limits, over all requests.
    pub max_total_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_response_bytes: 16 * 1024 * 1024,
            max_total_wait: Duration::from_secs(120),
        }
    }
}

/// A response whose body was read under its bound.
#[derive(Debug, Clone)]
pub struct Response {
    /// The HTTP status: always 2xx in a response a request answers (other
    /// statuses are typed errors).
    pub status: u16,
    /// Header names lowercased; the last value wins.
    pub headers: BTreeMap<String, String>,
    /// The body, read under its bound; for `get_bounded`, up to one byte past
    /// it (then `truncated`).
    pub body: Vec<u8>,
    /// The body had more bytes than the bound (only for
    /// [`Client::get_bounded`]).
    pub truncated: bool,
}

impl Response {
    /// The value of the header `name` (given in lowercase), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// How the body is read.
#[derive(Clone, Copy)]
enum BodyMode {
    /// Refuse a body over the bound (`input_too_large`).
    Strict(u64),
    /// Read at most bound + 1 bytes and say whether there were more.
    Prefix(u64),
}

/// A blocking client for one API base.
pub struct Client<S: Sleeper> {
    agent: ureq::Agent,
    base: String,
    token: Option<Token>,
    headers: Vec<(&'static str, &'static str)>,
    limits: Limits,
    sleeper: S,
    waited: Duration,
}

impl<S: Sleeper> std::fmt::Debug for Client<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("token", &self.token)
            .field("limits", &self.limits)
            .finish()
    }
}

impl<S: Sleeper> Client<S> {
    /// A client for `base` (`https://api.github.com`, or `http://127.0.0.1:N`
    /// in tests). `headers` are sent with every request.
    pub fn new(
        base: &str,
        token: Option<Token>,
        headers: Vec<(&'static str, &'static str)>,
        limits: Limits,
        sleeper: S,
    ) -> Result<Self, ForgeError> {
        let base = base.trim_end_matches('/').to_owned();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(ForgeError::Transport {
                what: base,
                message: "the API base must start with https:// or http://".into(),
            });
        }
        // A credential never travels in clear text beyond this machine.
        if token.is_some() && base.starts_with("http://") && !probity_core::url::is_loopback(&base)
        {
            return Err(ForgeError::Transport {
                what: base,
                message: "refusing to send the token over plain http (use https://)".into(),
            });
        }
        let mut cfg = ureq::Agent::config_builder()
            .timeout_global(Some(limits.timeout))
            .http_status_as_error(false)
            .user_agent("probity")
            // A redirect (a log download) never carries the credential.
            .redirect_auth_headers(ureq::config::RedirectAuthHeaders::Never)
            .max_redirects(5)
            // An https API is answered over https only: a redirect to plain
            // http (a downgrade) is an error, not the forge's answer.
            .https_only(base.starts_with("https://"));
        if probity_core::url::is_loopback(&base) {
            cfg = cfg.proxy(None);
        }
        Ok(Self {
            agent: cfg.build().into(),
            base,
            token,
            headers,
            limits,
            sleeper,
            waited: Duration::ZERO,
        })
    }

    /// The API base (no trailing slash).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `base + path` (`path` starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Checks that a URL the forge handed back (a `Link` target) stays on
    /// this API base: the credential is never sent anywhere else.
    pub fn check_same_base(&self, what: &str, url: &str) -> Result<(), ForgeError> {
        let ok = url
            .strip_prefix(&self.base)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('?'));
        if ok {
            Ok(())
        } else {
            Err(ForgeError::Malformed {
                what: what.to_owned(),
                message: "a pagination link leaves the API base".into(),
            })
        }
    }

    /// GET a JSON document (body bounded by `max_response_bytes`).
    pub fn get_json(&mut self, what: &str, url: &str) -> Result<Response, ForgeError> {
        let mode = BodyMode::Strict(self.limits.max_response_bytes);
        self.send(what, url, None, mode)
    }

    /// GET a text body, reading at most `max + 1` bytes.
    pub fn get_bounded(&mut self, what: &str, url: &str, max: u64) -> Result<Response, ForgeError> {
        self.send(what, url, None, BodyMode::Prefix(max))
    }

    /// POST a JSON body, answer a JSON document.
    pub fn post_json(
        &mut self,
        what: &str,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<Response, ForgeError> {
        let bytes = serde_json::to_vec(body).map_err(|e| ForgeError::Malformed {
            what: what.to_owned(),
            message: e.to_string(),
        })?;
        let mode = BodyMode::Strict(self.limits.max_response_bytes);
        self.send(what, url, Some(bytes), mode)
    }

    fn send(
        &mut self,
        what: &str,
        url: &str,
        body: Option<Vec<u8>>,
        mode: BodyMode,
    ) -> Result<Response, ForgeError> {
        loop {
            let resp = self.once(what, url, body.as_deref(), mode)?;
            match rate_limit_wait(&resp, self.sleeper.now_unix()) {
                None => return classify(what, resp),
                Some(wait) => self.wait_out(what, wait)?,
            }
        }
    }

    /// Waits `wait` for a rate limit, within the bounded total over every
    /// request of this client (`max_total_wait`): `RateLimited` (without
    /// sleeping) when it would exceed it.
    fn wait_out(&mut self, what: &str, wait: Duration) -> Result<(), ForgeError> {
        let total = self.waited + wait;
        if total > self.limits.max_total_wait {
            return Err(ForgeError::RateLimited {
                what: what.to_owned(),
                waited_secs: self.waited.as_secs(),
            });
        }
        self.sleeper.sleep(wait);
        self.waited = total;
        Ok(())
    }

    /// Waits out a rate limit a successful answer reports in its body (a
    /// GraphQL `RATE_LIMITED` error, HTTP 200): as long as its headers ask
    /// ([`limit_wait`]), within the same bounded total as the rate limits
    /// [`Client::get_json`] and [`Client::post_json`] wait out; the caller
    /// then retries.
    pub fn wait_out_reported(&mut self, what: &str, resp: &Response) -> Result<(), ForgeError> {
        let wait = limit_wait(resp, self.sleeper.now_unix());
        self.wait_out(what, wait)
    }

    fn once(
        &mut self,
        what: &str,
        url: &str,
        body: Option<&[u8]>,
        mode: BodyMode,
    ) -> Result<Response, ForgeError> {
        let transport = |e: ureq::Error| match e {
            ureq::Error::Timeout(_) => ForgeError::Transport {
                what: what.to_owned(),
                message: "the request timed out".into(),
            },
            ureq::Error::BodyExceedsLimit(limit) => ForgeError::InputTooLarge {
                what: what.to_owned(),
                limit,
            },
            other => ForgeError::Transport {
                what: what.to_owned(),
                message: other.to_string(),
            },
        };
        let auth = self
            .token
            .as_ref()
            .map(|t| format!("Bearer {}", t.expose()));
        let mut resp = match body {
            None => {
                let mut req = self.agent.get(url);
                for (k, v) in &self.headers {
                    req = req.header(*k, *v);
                }
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.call().map_err(transport)?
            }
            Some(bytes) => {
                let mut req = self
                    .agent
                    .post(url)
                    .header("Content-Type", "application/json");
                for (k, v) in &self.headers {
                    req = req.header(*k, *v);
                }
                if let Some(a) = &auth {
                    req = req.header("Authorization", a);
                }
                req.send(bytes).map_err(transport)?
            }
        };
        let status = resp.status().as_u16();
        let mut headers = BTreeMap::new();
        for (k, v) in resp.headers() {
            if let Ok(v) = v.to_str() {
                headers.insert(k.as_str().to_ascii_lowercase(), v.to_owned());
            }
        }
        let (body, truncated) = match mode {
            BodyMode::Strict(max) => {
                let bytes = resp
                    .body_mut()
                    .with_config()
                    .limit(max)
                    .read_to_vec()
                    .map_err(transport)?;
                (bytes, false)
            }
            BodyMode::Prefix(max) => {
                let mut buf = Vec::new();
                resp.body_mut()
                    .as_reader()
                    .take(max.saturating_add(1))
                    .read_to_end(&mut buf)
                    .map_err(|e| ForgeError::Transport {
                        what: what.to_owned(),
                        message: e.to_string(),
                    })?;
                let over = buf.len() as u64 > max;
                (buf, over)
            }
        };
        Ok(Response {
            status,
            headers,
            body,
            truncated,
        })
    }
}

/// How long a rate-limited response asks to wait, or `None` when it is not
/// a rate limit: 429, or 403 with `retry-after` or an exhausted
/// `x-ratelimit-remaining`. `retry-after` (seconds) wins; otherwise until
/// the reset time, a Unix time in `x-ratelimit-reset` (GitHub, Forgejo
/// behind a limiter) or GitLab's `ratelimit-reset` (at least one second);
/// otherwise one minute.
pub fn rate_limit_wait(resp: &Response, now_unix: u64) -> Option<Duration> {
    let retry_after = resp
        .header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let exhausted = resp.header("x-ratelimit-remaining").map(str::trim) == Some("0");
    let limited = match resp.status {
        429 => true,
        403 => retry_after.is_some() || exhausted,
        _ => false,
    };
    if !limited {
        return None;
    }
    Some(limit_wait(resp, now_unix))
}

/// How long a response known to be rate-limited asks to wait:
/// `retry-after` (seconds) wins; otherwise until the reset time, a Unix
/// time in `x-ratelimit-reset` or `ratelimit-reset` (at least one second);
/// otherwise one minute.
pub fn limit_wait(resp: &Response, now_unix: u64) -> Duration {
    if let Some(s) = resp
        .header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Duration::from_secs(s.max(1));
    }
    if let Some(reset) = ["x-ratelimit-reset", "ratelimit-reset"]
        .iter()
        .find_map(|h| resp.header(h))
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Duration::from_secs(reset.saturating_sub(now_unix).max(1));
    }
    Duration::from_secs(60)
}

/// Maps a final status to a typed error (2xx passes).
fn classify(what: &str, resp: Response) -> Result<Response, ForgeError> {
    let what = what.to_owned();
    match resp.status {
        200..=299 => Ok(resp),
        401 | 403 => Err(ForgeError::Unauthorized {
            what,
            status: resp.status,
        }),
        404 | 410 => Err(ForgeError::NotFound {
            what,
            status: resp.status,
        }),
        s => Err(ForgeError::Transport {
            what,
            message: format!("unexpected HTTP status {s}"),
        }),
    }
}

/// Parses a `Link` header into rel → URL.
pub fn parse_link(header: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for part in header.split(',') {
        let mut pieces = part.split(';');
        let Some(target) = pieces.next().map(str::trim) else {
            continue;
        };
        let Some(url) = target.strip_prefix('<').and_then(|t| t.strip_suffix('>')) else {
            continue;
        };
        for p in pieces {
            let p = p.trim();
            if let Some(rel) = p.strip_prefix("rel=") {
                for r in rel.trim_matches('"').split_whitespace() {
                    out.insert(r.to_owned(), url.to_owned());
                }
            }
        }
    }
    out
}

/// The `page` query parameter of a URL.
pub fn page_number(url: &str) -> Option<u64> {
    let query = url.split_once('?')?.1;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix("page="))
        .and_then(|v| v.parse().ok())
}

/// Parses a JSON body.
pub fn json(what: &str, resp: &Response) -> Result<serde_json::Value, ForgeError> {
    serde_json::from_slice(&resp.body).map_err(|e| ForgeError::Malformed {
        what: what.to_owned(),
        message: format!("not JSON: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_https_api_is_never_answered_over_plain_http() {
        let https = Client::new(
            "https://api.example.invalid",
            None,
            Vec::new(),
            Limits::default(),
            SystemSleeper,
        )
        .unwrap();
        assert!(
            https.agent.config().https_only(),
            "a downgrade redirect would be followed"
        );
        assert_eq!(https.agent.config().max_redirects(), 5);
        // Loopback tests speak plain http.
        let local = Client::new(
            "http://127.0.0.1:9",
            None,
            Vec::new(),
            Limits::default(),
            SystemSleeper,
        )
        .unwrap();
        assert!(!local.agent.config().https_only());
    }

    fn resp(status: u16, headers: &[(&str, &str)]) -> Response {
        Response {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            body: Vec::new(),
            truncated: false,
        }
    }

    #[test]
    fn rate_limits_are_recognized_and_timed() {
        assert_eq!(
            rate_limit_wait(&resp(429, &[("retry-after", "7")]), 0),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            rate_limit_wait(
                &resp(
                    403,
                    &[
                        ("x-ratelimit-remaining", "0"),
                        ("x-ratelimit-reset", "1050")
                    ]
                ),
                1000
            ),
            Some(Duration::from_secs(50))
        );
        // A reset in the past still waits a second.
        assert_eq!(
            rate_limit_wait(
                &resp(
                    403,
                    &[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "5")]
                ),
                1000
            ),
            Some(Duration::from_secs(1))
        );
        // GitLab's reset header (a Unix time) when there is no Retry-After.
        assert_eq!(
            rate_limit_wait(&resp(429, &[("ratelimit-reset", "1030")]), 1000),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            rate_limit_wait(&resp(429, &[]), 0),
            Some(Duration::from_secs(60))
        );
        // A plain 403 (missing scope) is not a rate limit.
        assert_eq!(
            rate_limit_wait(&resp(403, &[("x-ratelimit-remaining", "12")]), 0),
            None
        );
        assert_eq!(
            rate_limit_wait(&resp(200, &[("retry-after", "3")]), 0),
            None
        );
    }

    #[test]
    fn link_headers_and_pages_parse() {
        let l = parse_link(
            r#"<https://api.github.com/x?per_page=2&page=2>; rel="next", <https://api.github.com/x?per_page=2&page=5>; rel="last""#,
        );
        assert_eq!(
            l.get("next").map(String::as_str),
            Some("https://api.github.com/x?per_page=2&page=2")
        );
        assert_eq!(page_number(&l["last"]), Some(5));
        assert!(parse_link("garbage").is_empty());
        assert_eq!(page_number("https://x/y"), None);
    }

    #[test]
    fn the_token_never_renders() {
        let t = Token::new("ghp_secretvalue123".into()).unwrap();
        assert!(!format!("{t:?}").contains("secret"));
        let c = Client::new(
            "http://127.0.0.1:1",
            Some(t),
            vec![],
            Limits::default(),
            SystemSleeper,
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("secretvalue"));
        assert!(Token::new("has space".into()).is_err());
        // Plain http only to the loopback interface when a token is sent.
        let tok = || Some(Token::new("t0k3n-value".into()).unwrap());
        let client = |base: &str| {
            Client::new(base, tok(), vec![], Limits::default(), SystemSleeper).map(|_| ())
        };
        assert!(client("http://forge.example/api/v1").is_err());
        assert!(client("http://localhost:8080").is_ok());
        assert!(client("https://forge.example/api/v1").is_ok());
        assert!(Token::new(String::new()).is_err());
        assert!(Token::new("quote\"d".into()).is_err());
    }

    #[test]
    fn pagination_links_must_stay_on_the_base() {
        let c = Client::new(
            "https://api.github.com",
            None,
            vec![],
            Limits::default(),
            SystemSleeper,
        )
        .unwrap();
        assert!(
            c.check_same_base("x", "https://api.github.com/r?page=2")
                .is_ok()
        );
        assert!(
            c.check_same_base("x", "https://api.github.com.evil/r?page=2")
                .is_err()
        );
        assert!(c.check_same_base("x", "https://evil/r").is_err());
    }
}
