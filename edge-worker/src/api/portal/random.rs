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
