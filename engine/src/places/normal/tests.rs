use alloc::vec;

use super::*;

#[test]
fn abbreviations_meet_in_both_directions() {
    for (long, short) in [
        ("Spadina Avenue", "SPADINA AVE"),
        ("Bloor Street West", "BLOOR ST W"),
        ("Saint Clair Avenue East", "ST CLAIR AVE E"),
        ("St. Clair Ave. E.", "ST CLAIR AVE E"),
        ("Queens Park Crescent", "QUEENS PARK CRES"),
        ("Don Valley Parkway", "DON VALLEY PKWY"),
        ("Kingsway Boulevard", "KINGSWAY BLVD"),
        ("Lakeshore Drive", "LAKESHORE DR"),
        ("Davenport Road", "DAVENPORT RD"),
    ] {
        assert_eq!(normalise(long), normalise(short), "{long}");
    }
}

#[test]
fn accents_case_and_marks_fold() {
    assert_eq!(normalise("  CÔTE-DES-NEIGES  "), "cote des neiges");
    assert_eq!(normalise("O'Connor Drive"), "oconnor dr");
    assert_eq!(normalise("Straße"), "strasse");
    assert_eq!(normalise("Œuvre"), "oeuvre");
    assert_eq!(normalise("…"), "");
    assert_eq!(normalise("Yonge-St.Clair"), "yonge st clair");
}

#[test]
fn joiners_are_tokens() {
    let joined = tokens("Queen&Spadina / King");
    assert_eq!(
        joined,
        vec![
            Token::Word("queen".into()),
            Token::Joiner,
            Token::Word("spadina".into()),
            Token::Joiner,
            Token::Word("king".into()),
        ]
    );
}

#[test]
fn an_unfinished_word_stands_for_the_short_forms_it_begins() {
    assert_eq!(completions("stre"), vec!["st"]);
    assert_eq!(completions("aven"), vec!["ave"]);
    assert_eq!(completions("s"), Vec::<&str>::new());
    assert!(completions("st").is_empty());
    assert!(is_generic("ave") && is_generic("w") && !is_generic("queen"));
}
