use alloc::vec::Vec;

use proptest::prelude::*;

use super::crc32;

proptest! {
    /// Equal to `crc32fast` (the reference, in tests only) for any bytes, at every
    /// length around the eight-byte blocks.
    #[test]
    fn equals_the_reference(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
        for end in 0..=bytes.len() {
            prop_assert_eq!(crc32(&bytes[..end]), crc32fast::hash(&bytes[..end]));
        }
    }
}

#[test]
fn equals_the_reference_on_a_megabyte() {
    let bytes: Vec<u8> = (0u32..1 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    assert_eq!(crc32(&bytes), crc32fast::hash(&bytes));
}
