//! One bounded POST with retries, shared by the HTTP providers.
//!
//! A call answered 429 or 5xx (529 included: Anthropic's "overloaded") is
//! retried at most `max_retries` times. The wait is what the server asked
//! for (`retry-after-ms`, else `Retry-After` in seconds or as an HTTP date),
//! else an exponential backoff ([`backoff`]). No wait runs past the call's
//! time budget: a retry that could not start in time is
//! [`ModelError::Timeout`]. Any other status is answered at once, its body
//! cut to [`MAX_ERROR_BODY_CHARS`]. Waits go through a [`Sleeper`], so tests
//! never wait.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use probity_ports::snapshot::ModelError;

/// The most bytes read from one response.
pub const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;
/// The most characters of an error response kept in [`ModelError::Status`].
pub const MAX_ERROR_BODY_CHARS: usize = 2000;
/// The first backoff wait (doubled on every retry).
pub const BACKOFF_BASE_MS: u64 = 500;
/// The longest backoff wait.
pub const BACKOFF_CAP_MS: u64 = 30_000;

/// Waits between retries (injectable, so tests never wait).
pub trait Sleeper: Send {
    /// Waits `wait` before the next attempt (a backoff, or what `Retry-After`
    /// asked); a test's sleeper records it instead.
    fn sleep(&mut self, wait: Duration);
}

/// Sleeps the calling thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&mut self, wait: Duration) {
        std::thread::sleep(wait);
    }
}

impl<F: FnMut(Duration) + Send> Sleeper for F {
    fn sleep(&mut self, wait: Duration) {
        self(wait)
    }
}

/// Whether a status is worth another try: rate limited (429) or a server
/// error (5xx, 529 included).
pub fn is_retryable(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// The wait before retry `n` (0-based) when the server named none:
/// 500 ms × 2^n, at most 30 s. No jitter: one client, one call at a time.
pub fn backoff(n: u32) -> Duration {
    let ms = BACKOFF_BASE_MS.saturating_mul(1u64.checked_shl(n.min(63)).unwrap_or(u64::MAX));
    Duration::from_millis(ms.min(BACKOFF_CAP_MS))
}

/// The wait a `Retry-After` value asks for: whole seconds, or an HTTP date
/// (IMF-fixdate, the obsolete RFC 850 form, or asctime; RFC 9110 §5.6.7),
/// measured from `now` (a date in the past is no wait). `None` when the
/// value is neither.
pub fn retry_after_delay(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        // A value too large for u64 is a very long wait, not no wait.
        return Some(Duration::from_secs(v.parse().unwrap_or(u64::MAX)));
    }
    let at = parse_http_date(v)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the Unix epoch of an HTTP date, or `None`.
pub fn parse_http_date(s: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = |m: &str| MONTHS.iter().position(|x| *x == m).map(|i| i as u32 + 1);
    let num = |t: &str, len: std::ops::RangeInclusive<usize>| -> Option<u64> {
        (len.contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let norm: String = s
        .chars()
        .map(|c| if c == ',' || c == '-' { ' ' } else { c })
        .collect();
    let t: Vec<&str> = norm.split_whitespace().collect();
    let (day, mon, year, time) = match t.as_slice() {
        // IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and RFC 850
        // `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year: 1970-2069).
        [_, d, m, y, hms, "GMT"] => {
            let year = match y.len() {
                4 => num(y, 4..=4)?,
                2 => {
                    let y = num(y, 2..=2)?;
                    if y < 70 { 2000 + y } else { 1900 + y }
                }
                _ => return None,
            };
            (num(d, 2..=2)?, month(m)?, year, *hms)
        }
        // asctime `Sun Nov  6 08:49:37 1994`.
        [_, m, d, hms, y] => (num(d, 1..=2)?, month(m)?, num(y, 4..=4)?, *hms),
        _ => return None,
    };
    let mut hms = time.split(':');
    let (h, mi, se) = (
        num(hms.next()?, 2..=2)?,
        num(hms.next()?, 2..=2)?,
        num(hms.next()?, 2..=2)?,
    );
    if hms.next().is_some() || h > 23 || mi > 59 || se > 60 || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, mon, day as u32)?;
    Some(days * 86_400 + h * 3600 + mi * 60 + se)
}

/// Days since 1970-01-01 of a date, `None` before the epoch.
fn days_from_civil(y: u64, m: u32, d: u32) -> Option<u64> {
    let days =
        probity_core::calendar::days_from_civil(i64::try_from(y).ok()?, i64::from(m), i64::from(d));
    u64::try_from(days).ok()
}

/// The wait a response asks for: `retry-after-ms` (milliseconds, sent by
/// some OpenAI-compatible servers), else `Retry-After`.
fn server_wait(headers: &ureq::http::HeaderMap, now: SystemTime) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Duration::from_millis(ms));
    }
    get("retry-after").and_then(|v| retry_after_delay(v, now))
}

/// Cuts `s` to at most `max` bytes on a character boundary.
pub(crate) fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// Replaces every occurrence of the secret in `text` (an error a server or
/// the client library wrote must not carry the key).
pub(crate) fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(k) if !k.is_empty() => text.replace(k, "<redacted>"),
        _ => text.to_owned(),
    }
}

/// One POST: the endpoint, its headers (the secret among them, by value,
/// never logged; `content-type` and `accept` are JSON's), the JSON body,
/// the call's budget and the retry policy.
pub(crate) struct Post<'a> {
    pub url: &'a str,
    pub headers: &'a [(&'a str, String)],
    pub body: &'a serde_json::Value,
    pub timeout_ms: u64,
    pub max_retries: u32,
    /// Redacted from every error text.
    pub secret: Option<&'a str>,
}

/// Sends `post`, retrying as the module says; answers the 2xx body, which
/// must be JSON.
pub(crate) fn post_json(
    post: &Post<'_>,
    sleeper: &mut dyn Sleeper,
) -> Result<serde_json::Value, ModelError> {
    let body = serde_json::to_vec(post.body).map_err(|e| ModelError::Protocol(e.to_string()))?;
    let text = send(post, &body, sleeper)?;
    serde_json::from_str(&text)
        .map_err(|e| ModelError::Protocol(format!("the response is not JSON: {e}")))
}

fn send(post: &Post<'_>, body: &[u8], sleeper: &mut dyn Sleeper) -> Result<String, ModelError> {
    let started = Instant::now();
    let budget = Duration::from_millis(post.timeout_ms);
    let mut retries = 0u32;
    loop {
        let left = budget.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(ModelError::Timeout);
        }
        let (status, headers, text) = attempt(post, body, left)?;
        if (200..300).contains(&status) {
            return Ok(text);
        }
        if is_retryable(status) && retries < post.max_retries {
            let wait = server_wait(&headers, SystemTime::now()).unwrap_or_else(|| backoff(retries));
            // The next attempt must start within the budget.
            if started.elapsed().saturating_add(wait) >= budget {
                return Err(ModelError::Timeout);
            }
            sleeper.sleep(wait);
            retries += 1;
            continue;
        }
        return Err(ModelError::Status {
            status,
            body: cut(&redact(&text, post.secret), MAX_ERROR_BODY_CHARS),
        });
    }
}

fn attempt(
    post: &Post<'_>,
    body: &[u8],
    left: Duration,
) -> Result<(u16, ureq::http::HeaderMap, String), ModelError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(left.max(Duration::from_millis(1))))
        .http_status_as_error(false)
        // A redirect would carry the key's header to wherever it points.
        .max_redirects(0)
        .build()
        .into();
    let mut req = agent
        .post(post.url)
        .header("content-type", "application/json")
        .header("accept", "application/json");
    for (name, value) in post.headers {
        req = req.header(*name, value);
    }
    let map = |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => ModelError::Timeout,
        ureq::Error::BodyExceedsLimit(n) => {
            ModelError::Protocol(format!("the response is larger than {n} bytes"))
        }
        other => ModelError::Transport(redact(&other.to_string(), post.secret)),
    };
    let mut resp = req.send(body).map_err(map)?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES)
        .read_to_string()
        .map_err(map)?;
    Ok((status, headers, text))
}

/// What an HTTP provider's client holds: where and how it calls (its
/// configuration and options) and how it waits between retries.
pub(crate) struct Client {
    pub config: crate::ModelConfig,
    pub options: crate::CallOptions,
    sleeper: Box<dyn Sleeper>,
}

impl Client {
    /// Calls at `config`'s base as `options` say, sleeping the thread
    /// between retries.
    pub fn new(config: crate::ModelConfig, options: crate::CallOptions) -> Self {
        Self {
            config,
            options,
            sleeper: Box::new(ThreadSleeper),
        }
    }

    /// Waits between retries through `sleeper` from now on.
    pub fn set_sleeper(&mut self, sleeper: impl Sleeper + 'static) {
        self.sleeper = Box::new(sleeper);
    }

    /// Writes the provider `name` with its configuration and options (the
    /// configuration's own `Debug` keeps the key out).
    pub fn debug(&self, name: &str, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(name)
            .field("config", &self.config)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }

    /// Posts `body` to `url` with `headers` within `timeout_ms`, retrying
    /// as the options say, the key redacted from every error.
    pub fn post(
        &mut self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
        timeout_ms: u64,
    ) -> Result<serde_json::Value, ModelError> {
        post_json(
            &Post {
                url,
                headers,
                body,
                timeout_ms,
                max_retries: self.options.max_retries,
                secret: self.config.api_key.as_deref(),
            },
            self.sleeper.as_mut(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_cap() {
        assert_eq!(backoff(0), Duration::from_millis(500));
        assert_eq!(backoff(1), Duration::from_millis(1000));
        assert_eq!(backoff(3), Duration::from_millis(4000));
        assert_eq!(backoff(10), Duration::from_millis(BACKOFF_CAP_MS));
        assert_eq!(backoff(u32::MAX), Duration::from_millis(BACKOFF_CAP_MS));
    }

    #[test]
    fn retryable_statuses() {
        for s in [429, 500, 502, 503, 529, 599] {
            assert!(is_retryable(s), "{s}");
        }
        for s in [200, 301, 400, 401, 403, 404, 408, 413, 422, 600] {
            assert!(!is_retryable(s), "{s}");
        }
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        // 1994-11-06 08:49:37 UTC.
        let t = 784_111_777;
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(t));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(t));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(t));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2028 23:59:60 GMT"),
            Some(1_835_481_600)
        );
        for bad in [
            "",
            "soon",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 1994 08:49:37:01 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Wed, 31 Dec 1969 23:59:59 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(retry_after_delay("7", now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after_delay(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            retry_after_delay("99999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            retry_after_delay("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        // A date in the past asks for no wait.
        assert_eq!(
            retry_after_delay("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after_delay("-1", now), None);
        assert_eq!(retry_after_delay("1.5", now), None);
        assert_eq!(retry_after_delay("later", now), None);
    }

    #[test]
    fn server_wait_prefers_milliseconds() {
        let now = UNIX_EPOCH;
        let mut h = ureq::http::HeaderMap::new();
        assert_eq!(server_wait(&h, now), None);
        h.insert("retry-after", ureq::http::HeaderValue::from_static("2"));
        assert_eq!(server_wait(&h, now), Some(Duration::from_secs(2)));
        h.insert(
            "retry-after-ms",
            ureq::http::HeaderValue::from_static("250"),
        );
        assert_eq!(server_wait(&h, now), Some(Duration::from_millis(250)));
    }

    #[test]
    fn redaction_and_cutting() {
        assert_eq!(
            redact("key sk-1 and sk-1", Some("sk-1")),
            "key <redacted> and <redacted>"
        );
        assert_eq!(redact("x", Some("")), "x");
        assert_eq!(redact("x", None), "x");
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
    }
}
