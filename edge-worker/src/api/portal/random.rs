//! Randomness for ids and tokens, from the platform's CSPRNG (`getrandom`: the OS
//! natively, `crypto.getRandomValues` in workerd).

use data_encoding::BASE64URL_NOPAD;

/// `N` random bytes.
///
/// # Errors
/// When the platform has no randomness.
pub fn bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut out = [0; N];
    getrandom::fill(&mut out)?;
    Ok(out)
}

/// `N` random bytes as unpadded base64url.
///
/// # Errors
/// When the platform has no randomness.
pub fn token<const N: usize>() -> Result<String, getrandom::Error> {
    bytes::<N>().map(|b| BASE64URL_NOPAD.encode(&b))
}

const BASE62: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `len` random base62 characters, without modulo bias (bytes of 248 and above are
/// drawn again): an API key's secret, as `scripts/operator.mjs` makes them.
///
/// # Errors
/// When the platform has no randomness.
pub fn base62(len: usize) -> Result<String, getrandom::Error> {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        for byte in bytes::<64>()? {
            if byte < 248 && out.len() < len {
                out.push(char::from(BASE62[usize::from(byte % 62)]));
            }
        }
    }
    Ok(out)
}
