//! The CRC-32 (IEEE 802.3, as zlib and PNG) that guards an artifact's body.
//!
//! Eight bytes at a time with eight lookup tables, built on first use: kept in the
//! heap, not in the binary, where 8 KiB of random-looking table would cost the npm
//! package's wasm as much gzipped as it does raw.

use alloc::boxed::Box;

use once_cell::race::OnceBox;

/// The reversed IEEE polynomial.
const POLYNOMIAL: u32 = 0xEDB8_8320;

/// `TABLES[0]` is the classic byte table; `TABLES[k][b]` is the CRC of byte `b`
/// followed by `k` zero bytes, so that eight bytes fold in one step.
fn tables() -> &'static [[u32; 256]; 8] {
    static TABLES: OnceBox<[[u32; 256]; 8]> = OnceBox::new();
    TABLES.get_or_init(|| {
        let mut tables = Box::new([[0u32; 256]; 8]);
        for (byte, slot) in (0u32..).zip(tables[0].iter_mut()) {
            *slot = (0..8).fold(byte, |crc, _| {
                if crc & 1 == 1 {
                    (crc >> 1) ^ POLYNOMIAL
                } else {
                    crc >> 1
                }
            });
        }
        for k in 1..8 {
            for byte in 0..256 {
                let before = tables[k - 1][byte];
                tables[k][byte] = (before >> 8) ^ tables[0][(before & 0xff) as usize];
            }
        }
        tables
    })
}

/// The CRC-32 of `bytes`.
///
/// ```
/// // The standard check value: the CRC-32 of the nine digits.
/// assert_eq!(hexrisk_engine::artifact::crc32(b"123456789"), 0xCBF4_3926);
/// ```
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    let tables = tables();
    let at = |table: usize, byte: u32| tables[table][(byte & 0xff) as usize];
    let mut crc = !0u32;
    let mut blocks = bytes.chunks_exact(8);
    for block in &mut blocks {
        let low = crc ^ u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        let high = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
        crc = at(7, low)
            ^ at(6, low >> 8)
            ^ at(5, low >> 16)
            ^ at(4, low >> 24)
            ^ at(3, high)
            ^ at(2, high >> 8)
            ^ at(1, high >> 16)
            ^ at(0, high >> 24);
    }
    for &byte in blocks.remainder() {
        crc = (crc >> 8) ^ at(0, crc ^ u32::from(byte));
    }
    !crc
}

#[cfg(test)]
mod tests;
