use super::*;

#[test]
fn each_key_gets_its_own_value_and_the_oldest_goes_first() {
    let kept = Kept::default();
    let computed = core::cell::Cell::new(0);
    let get = |key: u32| {
        *kept.get_or_insert(key, || {
            computed.set(computed.get() + 1);
            key * 10
        })
    };
    assert_eq!(get(1), 10);
    assert_eq!(get(2), 20);
    assert_eq!(get(1), 10);
    assert_eq!(computed.get(), 2);
    for key in 3..=5 {
        assert_eq!(get(key), key * 10);
    }
    // 1 was used after 2, so 2 went first.
    assert_eq!(get(1), 10);
    assert_eq!(computed.get(), 5);
    assert_eq!(get(2), 20);
    assert_eq!(computed.get(), 6);
}

#[test]
fn keys_and_values_of_other_types_do_not_match() {
    let kept = Kept::default();
    assert_eq!(*kept.get_or_insert(1_u32, || 7_u64), 7);
    // The same key value of another type, and the same key for another value type.
    assert_eq!(*kept.get_or_insert(1_u64, || 8_u64), 8);
    assert_eq!(*kept.get_or_insert(1_u32, || 9_i32), 9);
    assert_eq!(*kept.get_or_insert(1_u32, || 0_u64), 7);
}
