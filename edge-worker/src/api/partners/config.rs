//! Where the portal is served: its one origin, which is also what passkeys are
//! bound to (the relying party id is the origin's host).

/// The portal's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalConfig {
    /// The origin the portal is served from (`https://host[:port]`, or
    /// `http://localhost[:port]` for local runs): the only origin whose
    /// state-changing requests are accepted and whose passkeys verify.
    pub origin: String,
    /// The relying party id: the origin's host.
    pub rp_id: String,
    /// How long a key's gate trusts the record it read (`HEXRISK_KEY_RECORD_TTL_SECONDS`):
    /// a revocation, a roll's end or a suspension takes effect within it.
    pub record_ttl_seconds: i64,
    /// Where a request's client address comes from.
    pub client_address: ClientAddress,
}

/// Where the portal takes a request's client address from (its rate limits and
/// audit lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAddress {
    /// `CF-Connecting-IP`, which Cloudflare's edge sets on every request,
    /// overwriting any the client sent: a deployed portal (`https://`).
    Platform,
    /// Nowhere: a local run (`http://localhost`) has no edge to set it, and a header
    /// the client sent would let a request choose its own; every request counts as
    /// from the address `local`.
    Local,
}

impl ClientAddress {
    /// The address of a request whose `CF-Connecting-IP` header is `header`.
    #[must_use]
    pub fn of(self, header: Option<&str>) -> Option<&str> {
        match self {
            Self::Platform => header,
            Self::Local => Some("local"),
        }
    }
}

/// The name browsers show in passkey prompts.
pub const RP_NAME: &str = "hexrisk partner portal";

impl PortalConfig {
    /// The configuration of the `HEXRISK_PORTAL_ORIGIN` variable, `None` (no portal)
    /// when it is absent, empty or not an origin: `https://` and a host, or `http://`
    /// on `localhost` (browsers allow passkeys nowhere else without TLS), an optional
    /// port, nothing after it.
    /// The gate's record time to live is the default until
    /// [`Self::with_record_ttl`] sets it.
    #[must_use]
    pub fn from_var(var: Option<&str>) -> Option<Self> {
        let origin = var?.trim().trim_end_matches('/').to_ascii_lowercase();
        let (scheme, rest) = origin.split_once("://")?;
        let host = match rest.rsplit_once(':') {
            Some((host, port)) => {
                port.parse::<u16>().ok().filter(|p| *p > 0)?;
                host
            }
            None => rest,
        };
        let host_ok = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        let scheme_ok = scheme == "https" || (scheme == "http" && host == "localhost");
        let rp_id = host.to_owned();
        let client_address = if scheme == "https" {
            ClientAddress::Platform
        } else {
            ClientAddress::Local
        };
        (host_ok && scheme_ok).then_some(Self {
            origin,
            rp_id,
            record_ttl_seconds: crate::api::access::gate::record_ttl(None).num_seconds(),
            client_address,
        })
    }
}

impl PortalConfig {
    /// The same, with the record time to live of `HEXRISK_KEY_RECORD_TTL_SECONDS`
    /// ([`crate::api::access::gate::record_ttl`]).
    #[must_use]
    pub fn with_record_ttl(mut self, var: Option<&str>) -> Self {
        self.record_ttl_seconds = crate::api::access::gate::record_ttl(var).num_seconds();
        self
    }
}

#[cfg(test)]
mod tests;
