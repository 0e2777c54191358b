//! Browser origins as partners type them into a key's allowlist: checked and written
//! one way (`scheme://host[:port]`, lowercase, without a default port or a trailing
//! slash), or refused with the reason the page shows.

use std::fmt;

/// Longest origin accepted, in characters.
pub const MAX_ORIGIN: usize = 253 + "https://".len() + ":65535".len();

/// Most origins one key may list.
pub const MAX_ORIGINS: usize = 20;

/// Why a text is not an origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OriginRefusal {
    /// Longer than [`MAX_ORIGIN`].
    TooLong,
    /// Not `http://` or `https://`.
    Scheme,
    /// Carries a path, a query or a fragment (an origin is scheme, host and port).
    Path,
    /// Carries a user name or password.
    Credentials,
    /// The host is empty, has characters a host cannot have, or is a wildcard.
    Host,
    /// The port is not a number from 1 to 65535.
    Port,
    /// Plain `http://` on a host other than `localhost` or `127.0.0.1`: a key
    /// would travel in clear text.
    Insecure,
}

impl fmt::Display for OriginRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TooLong => "too long",
            Self::Scheme => "an origin starts with https:// (or http:// for localhost)",
            Self::Path => "an origin has no path, query or fragment: scheme, host and port only",
            Self::Credentials => "an origin has no user name or password",
            Self::Host => "the host is not a domain name or an IP address (no wildcards)",
            Self::Port => "the port is not a number from 1 to 65535",
            Self::Insecure => "plain http:// is accepted for localhost and 127.0.0.1 only",
        })
    }
}

impl OriginRefusal {
    /// A stable name for the reason.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::TooLong => "too_long",
            Self::Scheme => "scheme",
            Self::Path => "path",
            Self::Credentials => "credentials",
            Self::Host => "host",
            Self::Port => "port",
            Self::Insecure => "insecure",
        }
    }
}

/// The origin `text` written one way, or why it is not one.
///
/// # Errors
/// The [`OriginRefusal`].
pub fn normalise(text: &str) -> Result<String, OriginRefusal> {
    let text = text.trim();
    if text.chars().count() > MAX_ORIGIN {
        return Err(OriginRefusal::TooLong);
    }
    let lower = text.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").ok_or(OriginRefusal::Scheme)?;
    if scheme != "https" && scheme != "http" {
        return Err(OriginRefusal::Scheme);
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains(['/', '?', '#']) {
        return Err(OriginRefusal::Path);
    }
    if rest.contains('@') {
        return Err(OriginRefusal::Credentials);
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => {
            let port: u16 = port
                .parse()
                .ok()
                .filter(|p| *p > 0)
                .ok_or(OriginRefusal::Port)?;
            (host, Some(port))
        }
        None => (rest, None),
    };
    let host_ok = !host.is_empty()
        && !host.starts_with(['.', '-'])
        && !host.ends_with(['.', '-'])
        && !host.contains("..")
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    if !host_ok {
        return Err(OriginRefusal::Host);
    }
    if scheme == "http" && host != "localhost" && host != "127.0.0.1" {
        return Err(OriginRefusal::Insecure);
    }
    let default_port = if scheme == "https" { 443 } else { 80 };
    Ok(match port {
        Some(port) if port != default_port => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests;
