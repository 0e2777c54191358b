//! GET with the patience a public open-data service needs: a 429 or a 5xx is
//! retried after the server's `Retry-After` (or a doubling pause), a few times,
//! then reported; every other answer goes back to the protocol, which knows its
//! own error bodies. Bodies are capped, so a runaway response cannot fill memory.

use std::fmt::Write as _;
use std::time::Duration;

/// The most a body may hold: a page of 50,000 Socrata rows is about 40 MB.
const MAX_BODY_BYTES: u64 = 128 * 1024 * 1024;

/// An answer the protocol reads: its status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
}

/// A request that got no answer the protocol can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// No connection, a timeout or a broken transfer, after every retry.
    #[error("{url}: {message} (after {attempts} attempts)")]
    Transport {
        /// The request.
        url: String,
        /// The cause.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// 429 Too Many Requests on every attempt.
    #[error("{url}: rate limited (HTTP 429) on all {attempts} attempts")]
    RateLimited {
        /// The request.
        url: String,
        /// Attempts made.
        attempts: u32,
    },
    /// A 5xx on every attempt.
    #[error("{url}: HTTP {status}, the service is unavailable (after {attempts} attempts)")]
    Unavailable {
        /// The request.
        url: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
    },
}

/// How patient the client is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// The pause after the first retryable answer without `Retry-After`; doubled
    /// after each.
    pub first_pause: Duration,
    /// The longest pause, whatever `Retry-After` asks.
    pub longest_pause: Duration,
    /// Time allowed for one whole request.
    pub timeout: Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Self {
            attempts: 6,
            first_pause: Duration::from_secs(2),
            longest_pause: Duration::from_mins(2),
            timeout: Duration::from_mins(2),
        }
    }
}

/// The feeds' HTTP client.
#[derive(Debug, Clone)]
pub struct HttpClient {
    agent: ureq::Agent,
    patience: Patience,
}

impl HttpClient {
    /// A client with this patience.
    #[must_use]
    pub fn new(patience: Patience) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(patience.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("hexrisk-build/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self { agent, patience }
    }

    /// GETs `base` with `query` (percent-encoded here) and `headers`.
    ///
    /// # Errors
    /// [`HttpError`] when no readable answer came after every retry.
    pub fn get(
        &self,
        base: &str,
        query: &[(&str, String)],
        headers: &[(&str, String)],
    ) -> Result<Answer, HttpError> {
        let url = with_query(base, query);
        let mut pause = self.patience.first_pause;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt >= self.patience.attempts;
            let (retry_after, failure) = match self.once(&url, headers) {
                Ok((answer, retry_after)) => {
                    let retryable = answer.status == 429 || (500..600).contains(&answer.status);
                    if !retryable {
                        return Ok(answer);
                    }
                    let failure = if answer.status == 429 {
                        HttpError::RateLimited {
                            url: url.clone(),
                            attempts: attempt,
                        }
                    } else {
                        HttpError::Unavailable {
                            url: url.clone(),
                            status: answer.status,
                            attempts: attempt,
                        }
                    };
                    (retry_after, failure)
                }
                Err(message) => (
                    None,
                    HttpError::Transport {
                        url: url.clone(),
                        message,
                        attempts: attempt,
                    },
                ),
            };
            if last {
                return Err(failure);
            }
            let wait = retry_after
                .unwrap_or(pause)
                .min(self.patience.longest_pause);
            std::thread::sleep(wait);
            pause = (pause * 2).min(self.patience.longest_pause);
        }
    }

    /// One attempt: the answer and its `Retry-After`, or why there was none.
    fn once(
        &self,
        url: &str,
        headers: &[(&str, String)],
    ) -> Result<(Answer, Option<Duration>), String> {
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = request.call().map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_vec()
            .map_err(|e| e.to_string())?;
        Ok((Answer { status, body }, retry_after))
    }
}

/// `base` with the query appended, each name and value percent-encoded (every
/// byte but the unreserved ones of RFC 3986).
#[must_use]
pub fn with_query(base: &str, query: &[(&str, String)]) -> String {
    let mut url = base.to_owned();
    for (i, (name, value)) in query.iter().enumerate() {
        url.push(if i == 0 && !base.contains('?') {
            '?'
        } else {
            '&'
        });
        encode_into(&mut url, name);
        url.push('=');
        encode_into(&mut url, value);
    }
    url
}

fn encode_into(out: &mut String, text: &str) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{byte:02X}");
        }
    }
}

#[cfg(test)]
mod tests;
