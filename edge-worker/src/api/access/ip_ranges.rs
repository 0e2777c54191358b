//! Server addresses a key may be used from: IPv4 and IPv6 ranges in CIDR notation,
//! as Google Maps Platform restricts a server key by IP address. A key that lists
//! ranges is refused from any other address; one that lists none is not restricted
//! by address.
//!
//! A range is written one way: the network address and its prefix length
//! (`203.0.113.0/24`, `2001:db8::/32`); a bare address is a range of one
//! (`/32`, `/128`). A range with bits set past its prefix is refused rather than
//! guessed at.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most ranges one key may list.
pub const MAX_RANGES: usize = 20;

/// An IPv4 or IPv6 network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix: u8,
}

/// Why a text is not a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRefusal {
    /// Not an IPv4 or IPv6 address before the `/`.
    Address,
    /// The prefix length is not a number within the address's bits.
    Prefix,
    /// Bits are set past the prefix (`203.0.113.5/24`): the network is ambiguous.
    HostBits,
}

impl RangeRefusal {
    /// A stable name for the reason.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Address => "address",
            Self::Prefix => "prefix",
            Self::HostBits => "host_bits",
        }
    }
}

impl fmt::Display for RangeRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Address => "not an IPv4 or IPv6 address (a range is ADDRESS or ADDRESS/PREFIX)",
            Self::Prefix => "the prefix length is not 0 to 32 (IPv4) or 0 to 128 (IPv6)",
            Self::HostBits => "bits are set past the prefix: write the network's first address",
        })
    }
}

fn bits(address: IpAddr) -> (u128, u8) {
    match address {
        IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    }
}

/// The mask of the first `prefix` bits of a `width`-bit address.
fn mask(prefix: u8, width: u8) -> u128 {
    if prefix == 0 {
        0
    } else {
        (u128::MAX << (128 - u32::from(prefix))) >> (128 - u32::from(width))
    }
}

impl FromStr for IpRange {
    type Err = RangeRefusal;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address.parse().map_err(|_| RangeRefusal::Address)?;
        let (value, width) = bits(network);
        let prefix = match prefix {
            None => width,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or(RangeRefusal::Prefix)?,
        };
        if value & !mask(prefix, width) != 0 {
            return Err(RangeRefusal::HostBits);
        }
        Ok(Self { network, prefix })
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

impl IpRange {
    /// Whether `address` is in the range (an IPv4-mapped IPv6 address as its IPv4).
    #[must_use]
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = match address {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
            v4 @ IpAddr::V4(_) => v4,
        };
        if address.is_ipv4() != self.network.is_ipv4() {
            return false;
        }
        let (value, width) = bits(address);
        let (network, _) = bits(self.network);
        value & mask(self.prefix, width) == network
    }
}

/// Whether the client `address` is in one of `ranges`; no address (a local run, a
/// request the platform gave none) is in none.
#[must_use]
pub fn listed(ranges: &[IpRange], address: Option<&str>) -> bool {
    address
        .and_then(|a| a.trim().parse::<IpAddr>().ok())
        .is_some_and(|a| ranges.iter().any(|r| r.contains(a)))
}

impl Serialize for IpRange {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Written as text: an IPv4 or IPv6 address, or a CIDR range.
#[cfg(test)]
impl schemars::JsonSchema for IpRange {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "IpRange".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl<'de> Deserialize<'de> for IpRange {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
