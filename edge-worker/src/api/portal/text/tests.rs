use super::*;

#[test]
fn overrides_zero_widths_and_controls_are_hidden_and_letters_are_not() {
    for hidden in [
        '\u{202E}',  // right-to-left override
        '\u{2067}',  // right-to-left isolate
        '\u{200B}',  // zero-width space
        '\u{200D}',  // zero-width joiner
        '\u{FEFF}',  // byte order mark
        '\u{00AD}',  // soft hyphen
        '\u{E0041}', // tag latin capital a
        '\u{0000}',
        '\u{001B}',
        '\u{0085}',
    ] {
        assert!(is_hidden(hidden), "{:04X}", u32::from(hidden));
    }
    for shown in [
        'a', 'é', 'ß', '中', '\u{0627}', ' ', '-', '\u{2010}', '\u{00A0}',
    ] {
        assert!(!is_hidden(shown), "{:04X}", u32::from(shown));
    }
    assert!(has_hidden("Transit\u{202E}oC"));
    assert!(!has_hidden("Transit Co"));
}
