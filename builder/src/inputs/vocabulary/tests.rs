//! The committed vocabularies against the values their publishers document, and
//! the refusals of a vocabulary that cannot be used.

use std::path::Path;

use super::{Vocabulary, VocabularyError, default_vocabulary_dir, folded};
use crate::inputs::classes::Mapped;

fn committed(name: &str) -> Vocabulary {
    Vocabulary::load(&default_vocabulary_dir().join("../cities"), name).unwrap()
}

/// Whether `value` is mapped or deliberately excluded by `vocabulary`, and to
/// what.
fn lookup(vocabulary: &Vocabulary, value: &str) -> Option<Mapped> {
    vocabulary.folded_classes().get(&folded(value)).copied()
}

/// Every category of DataSF's "Reference: Police Department Incident Code
/// Crosswalk" (ci9u-8awy), as wg3w-h783 publishes them.
const SFPD_CATEGORIES: [&str; 52] = [
    "Arson",
    "Assault",
    "Burglary",
    "Case Closure",
    "Civil Sidewalks",
    "Courtesy Report",
    "Disorderly Conduct",
    "Drug Offense",
    "Drug Violation",
    "Embezzlement",
    "Family Offense",
    "Fire Report",
    "Forgery And Counterfeiting",
    "Fraud",
    "Gambling",
    "Homicide",
    "Human Trafficking (A), Commercial Sex Acts",
    "Human Trafficking (B), Involuntary Servitude",
    "Human Trafficking, Commercial Sex Acts",
    "Human Trafficking, Involuntary Servitude",
    "Juvenile Offenses",
    "Larceny Theft",
    "Liquor Laws",
    "Lost Property",
    "Malicious Mischief",
    "Miscellaneous Investigation",
    "Missing Person",
    "Motor Vehicle Theft",
    "Motor Vehicle Theft?",
    "Non-Criminal",
    "Offences Against The Family And Children",
    "Other",
    "Other Miscellaneous",
    "Other Offenses",
    "Prostitution",
    "Rape",
    "Recovered Vehicle",
    "Robbery",
    "Sex Offense",
    "Stolen Property",
    "Suicide",
    "Suspicious",
    "Suspicious Occ",
    "Traffic Collision",
    "Traffic Violation Arrest",
    "Vandalism",
    "Vehicle Impounded",
    "Vehicle Misplaced",
    "Warrant",
    "Weapons Carrying Etc",
    "Weapons Offence",
    "Weapons Offense",
];

/// The NIBRS offence codes of the FBI's User Manual 2023.0 with their names as
/// the FBI's Crime Data Explorer spells them: Group A (with the federal and
/// tribal codes) and Group B (with the retired 90A, 90E, 90H and 90I).
const NIBRS_OFFENCES: [(&str, &str); 85] = [
    ("09A", "Murder and Nonnegligent Manslaughter"),
    ("09B", "Negligent Manslaughter"),
    ("09C", "Justifiable Homicide"),
    ("100", "Kidnapping/Abduction"),
    ("11A", "Rape"),
    ("11B", "Sodomy"),
    ("11C", "Sexual Assault With An Object"),
    ("11D", "Fondling"),
    ("120", "Robbery"),
    ("13A", "Aggravated Assault"),
    ("13B", "Simple Assault"),
    ("13C", "Intimidation"),
    ("200", "Arson"),
    ("210", "Extortion/Blackmail"),
    ("220", "Burglary/Breaking & Entering"),
    ("23A", "Pocket-picking"),
    ("23B", "Purse-snatching"),
    ("23C", "Shoplifting"),
    ("23D", "Theft From Building"),
    ("23E", "Theft From Coin-Operated Machine or Device"),
    ("23F", "Theft From Motor Vehicle"),
    ("23G", "Theft of Motor Vehicle Parts or Accessories"),
    ("23H", "All Other Larceny"),
    ("240", "Motor Vehicle Theft"),
    ("250", "Counterfeiting/Forgery"),
    ("26A", "False Pretenses/Swindle/Confidence Game"),
    ("26B", "Credit Card/Automated Teller Machine Fraud"),
    ("26C", "Impersonation"),
    ("26D", "Welfare Fraud"),
    ("26E", "Wire Fraud"),
    ("26F", "Identity Theft"),
    ("26G", "Hacking/Computer Invasion"),
    ("26H", "Money Laundering"),
    ("270", "Embezzlement"),
    ("280", "Stolen Property Offenses"),
    ("290", "Destruction/Damage/Vandalism of Property"),
    ("35A", "Drug/Narcotic Violations"),
    ("35B", "Drug Equipment Violations"),
    ("36A", "Incest"),
    ("36B", "Statutory Rape"),
    ("370", "Pornography/Obscene Material"),
    ("39A", "Betting/Wagering"),
    ("39B", "Operating/Promoting/Assisting Gambling"),
    ("39C", "Gambling Equipment Violation"),
    ("39D", "Sports Tampering"),
    ("40A", "Prostitution"),
    ("40B", "Assisting or Promoting Prostitution"),
    ("40C", "Purchasing Prostitution"),
    ("510", "Bribery"),
    ("520", "Weapon Law Violations"),
    ("64A", "Human Trafficking, Commercial Sex Acts"),
    ("64B", "Human Trafficking, Involuntary Servitude"),
    ("720", "Animal Cruelty"),
    ("101", "Treason"),
    ("103", "Espionage"),
    ("30A", "Illegal Entry into the United States"),
    ("30B", "False Citizenship"),
    ("30C", "Smuggling Aliens"),
    ("30D", "Re-entry after Deportation"),
    ("360", "Failure to Register as a Sex Offender"),
    ("49A", "Harboring Escapee/Concealing from Arrest"),
    ("49B", "Flight to Avoid Prosecution"),
    ("49C", "Flight to Avoid Deportation"),
    ("521", "Violation of National Firearm Act of 1934"),
    ("522", "Weapons of Mass Destruction"),
    ("526", "Explosives Violation"),
    ("58A", "Import Violations"),
    ("58B", "Export Violations"),
    ("61A", "Federal Liquor Offenses"),
    ("61B", "Federal Tobacco Offenses"),
    ("620", "Wildlife Trafficking"),
    ("90A", "Bad Checks"),
    ("90B", "Curfew/Loitering/Vagrancy Violations"),
    ("90C", "Disorderly Conduct"),
    ("90D", "Driving Under the Influence"),
    ("90E", "Drunkenness"),
    ("90F", "Family Offenses, Nonviolent"),
    ("90G", "Liquor Law Violations"),
    ("90H", "Peeping Tom"),
    ("90I", "Runaway"),
    ("90J", "Trespass of Real Property"),
    ("90K", "Failure to Appear"),
    ("90L", "Federal Resource Violations"),
    ("90M", "Perjury"),
    ("90Z", "All Other Offenses"),
];

#[test]
fn every_sfpd_category_maps_or_is_excluded_with_a_reason() {
    let sf = committed("sfpd-incident-category");
    for category in SFPD_CATEGORIES {
        assert!(lookup(&sf, category).is_some(), "{category} is unmapped");
        // The crosswalk's own lower case matches too.
        assert_eq!(lookup(&sf, &category.to_lowercase()), lookup(&sf, category));
    }
    // Nothing in the file that the publisher does not publish.
    let published: Vec<String> = SFPD_CATEGORIES.iter().map(|c| folded(c)).collect();
    for value in sf.classes.keys().chain(sf.excluded.keys()) {
        assert!(
            published.contains(&folded(value)),
            "{value} is not published"
        );
    }
    assert_eq!(lookup(&sf, "Larceny Theft"), Some(Mapped::TheftBurglary));
    assert_eq!(lookup(&sf, "  ROBBERY "), Some(Mapped::SeriousViolent));
    assert_eq!(lookup(&sf, "Case Closure"), Some(Mapped::NotAnOffence));
    assert_eq!(lookup(&sf, "Burglary, Hot Prowl"), None);
}

#[test]
fn every_nibrs_code_and_name_maps_or_is_excluded_with_a_reason() {
    let nibrs = committed("nibrs");
    for (code, name) in NIBRS_OFFENCES {
        let by_code = lookup(&nibrs, code);
        assert!(by_code.is_some(), "{code} is unmapped");
        assert_eq!(lookup(&nibrs, name), by_code, "{code} {name}");
    }
    assert_eq!(
        nibrs.classes.len() + nibrs.excluded.len(),
        2 * NIBRS_OFFENCES.len(),
        "every entry is a listed code or name"
    );
    for (value, reason) in &nibrs.excluded {
        assert!(reason.len() > 10, "{value}: {reason}");
    }
    // Houston's own capitalisation of the names (its layer's USER_NIBRSDescription).
    assert_eq!(
        lookup(&nibrs, "Simple assault"),
        Some(Mapped::BatteryAssault)
    );
    assert_eq!(lookup(&nibrs, "09c"), Some(Mapped::NotAnOffence));
    assert_eq!(lookup(&nibrs, "13A"), Some(Mapped::BatteryAssault));
    assert_eq!(lookup(&nibrs, "240"), Some(Mapped::VehicleDamage));
    assert_eq!(lookup(&nibrs, "99Z"), None);
}

fn refused(text: &str) -> String {
    match Vocabulary::parse(text, Path::new("v.toml")) {
        Err(error @ VocabularyError::Invalid { .. }) => error.to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_vocabulary_that_cannot_be_used_is_refused_naming_why() {
    let head = "name = \"t\"\nreference = \"r\"\n";
    let twice = refused(&format!(
        "{head}[classes]\n\"Theft\" = \"OTHER\"\n\"THEFT \" = \"OTHER\"\n"
    ));
    assert!(twice.contains("match the same values"), "{twice}");
    let both = refused(&format!(
        "{head}[classes]\n\"a\" = \"OTHER\"\n[excluded]\n\"A\" = \"why\"\n"
    ));
    assert!(both.contains("match the same values"), "{both}");
    let not = refused(&format!("{head}[classes]\n\"a\" = \"NOT_AN_OFFENCE\"\n"));
    assert!(not.contains("[excluded]"), "{not}");
    let silent = refused(&format!("{head}[classes]\n[excluded]\n\"a\" = \" \"\n"));
    assert!(silent.contains("without a reason"), "{silent}");
    let error = Vocabulary::load(Path::new("."), "../nibrs").unwrap_err();
    assert!(error.to_string().contains("letters, digits"), "{error}");
    let error = Vocabulary::load(Path::new("."), "no-such-vocabulary").unwrap_err();
    assert!(matches!(error, VocabularyError::Missing { .. }), "{error}");
}
