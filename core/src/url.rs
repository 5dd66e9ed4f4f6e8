//! What a base URL names, read from its text alone (no resolution): the
//! one rule the forge and model adapters and the CLI share for where a
//! credential may travel over plain http.

/// Whether `base` names the loopback interface (`127.0.0.1`, `localhost`,
/// `[::1]`), with or without a port: never proxied, and the only place a
/// token may travel over plain http. A URL with a user part
/// (`http://127.0.0.1:1@forge.example/`) names the host after the `@`, so
/// it is refused outright rather than parsed.
pub fn is_loopback(base: &str) -> bool {
    let rest = base
        .strip_prefix("http://")
        .or_else(|| base.strip_prefix("https://"))
        .unwrap_or(base);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return false;
    }
    let host = match authority.strip_prefix("[::1]") {
        Some(port) if port.is_empty() || port.starts_with(':') => "::1",
        Some(_) => return false,
        None => authority.split(':').next().unwrap_or(""),
    };
    matches!(host, "127.0.0.1" | "localhost" | "::1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_loopback_host_itself_is_loopback() {
        for yes in [
            "http://127.0.0.1",
            "http://127.0.0.1:8080/api/v4",
            "https://localhost:3000",
            "http://[::1]:9/x",
            "http://localhost?x",
        ] {
            assert!(is_loopback(yes), "{yes}");
        }
        for no in [
            "http://127.0.0.1:1@forge.example/",
            "http://localhost@forge.example",
            "http://user:pw@127.0.0.1/",
            "http://127.0.0.1.forge.example/",
            "http://localhost.example",
            "http://[::1]x.example",
            "https://api.github.com",
            "",
        ] {
            assert!(!is_loopback(no), "{no}");
        }
    }
}
