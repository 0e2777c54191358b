use super::*;

const SANDBOX: &str = "hexrisk_sandbox_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const LIVE: &str = "hexrisk_live_0123456789abcdefghijABCDEFGHIJKL";

#[test]
fn keys_of_both_kinds_are_recognised() {
    assert_eq!(PresentedKey::new(SANDBOX).kind(), Some(KeyKind::Sandbox));
    assert_eq!(PresentedKey::new(LIVE).kind(), Some(KeyKind::Live));
    for bad in [
        "",
        "hexrisk_live_short",
        "hexrisk_test_0123456789abcdefghijABCDEFGHIJKL",
        "hexrisk_live_0123456789abcdefghijABCDEFGHIJK!",
    ] {
        assert_eq!(PresentedKey::new(bad).kind(), None, "{bad}");
    }
}

#[test]
fn shown_prefix_never_reveals_more_than_four_secret_characters() {
    assert_eq!(
        PresentedKey::new(SANDBOX).shown_prefix(),
        "hexrisk_sandbox_AbCd..."
    );
    assert_eq!(
        PresentedKey::new(LIVE).shown_prefix(),
        "hexrisk_live_0123..."
    );
    assert_eq!(
        PresentedKey::new("supersecretvalue").shown_prefix(),
        "supersec..."
    );
    assert_eq!(PresentedKey::new("ab").shown_prefix(), "ab...");
}

#[test]
fn digest_is_sha256_hex() {
    assert_eq!(
        PresentedKey::new("abc").digest(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn bearer_header_parsing() {
    assert_eq!(
        bearer(Some(&format!("Bearer {LIVE}"))).unwrap().kind(),
        Some(KeyKind::Live)
    );
    assert_eq!(
        bearer(Some(&format!("bearer  {LIVE} "))).unwrap().kind(),
        Some(KeyKind::Live)
    );
    for missing in [
        None,
        Some(""),
        Some("Bearer"),
        Some("Bearer   "),
        Some(&format!("Basic {LIVE}") as &str),
    ] {
        let err = bearer(missing).unwrap_err();
        assert_eq!(err.message, "API key is required");
        assert!(err.details["suggestion"].is_string());
    }
}

#[test]
fn invalid_key_body_has_prefix_and_suggestion_only() {
    let err = invalid_key(&PresentedKey::new(LIVE));
    assert_eq!(err.code, ErrorCode::Unauthorized);
    assert_eq!(err.message, "API key is invalid");
    let keys: Vec<&String> = err.details.keys().collect();
    assert_eq!(keys, ["key_prefix", "suggestion"]);
    assert!(
        !err.details["key_prefix"]
            .as_str()
            .unwrap()
            .contains("456789")
    );
}

#[test]
fn usability_follows_expiry_and_revocation() {
    let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
    let mut record = KeyRecord {
        id: "k1".into(),
        kind: KeyKind::Sandbox,
        tier: Tier::Sandbox,
        daily_limit: 100,
        issued_at: now - chrono::Duration::days(29),
        expires_at: Some(now + chrono::Duration::days(1)),
        revoked_at: None,
        origins: Vec::new(),
        apis: both_apis(),
        suspended: false,
        ip_ranges: Vec::new(),
        account: AccountQuota::of_key("k1", KeyKind::Sandbox, 100, None),
    };
    assert!(record.is_usable(now));
    record.expires_at = Some(now);
    assert!(!record.is_usable(now));
    record.expires_at = None;
    record.revoked_at = Some(now - chrono::Duration::seconds(1));
    assert!(!record.is_usable(now));
    record.revoked_at = None;
    assert!(record.is_usable(now));
    record.suspended = true;
    assert!(!record.is_usable(now), "a suspended partner's keys stop");
}

#[test]
fn rows_without_scopes_may_call_both_apis_and_suspension_comes_from_the_partner() {
    let row = |apis: Option<&str>, status: Option<&str>| KeyRow {
        id: "k".into(),
        digest: "d".into(),
        kind: "live".into(),
        tier: "partner".into(),
        daily_limit: 10,
        issued_at: "2026-01-01T00:00:00Z".into(),
        expires_at: None,
        revoked_at: None,
        origins: "[]".into(),
        apis: apis.map(Into::into),
        partner_status: status.map(Into::into),
        ip_ranges: None,
        partner_id: None,
        partner_tier: None,
        partner_limit: None,
    };
    let old = row(None, None).into_record("d").unwrap();
    assert!(old.may_call(KeyApi::Prediction) && old.may_call(KeyApi::Router));
    assert!(!old.suspended);
    let scoped = row(Some(r#"["router"]"#), Some("approved"))
        .into_record("d")
        .unwrap();
    assert!(!scoped.may_call(KeyApi::Prediction) && scoped.may_call(KeyApi::Router));
    assert!(
        row(None, Some("suspended"))
            .into_record("d")
            .unwrap()
            .suspended
    );
    assert!(row(Some("[\"nope\"]"), None).into_record("d").is_none());
}

#[test]
fn rows_become_records_only_when_well_formed_and_matching() {
    let digest = PresentedKey::new(LIVE).digest();
    let row = KeyRow {
        id: "k1".into(),
        digest: digest.clone(),
        kind: "live".into(),
        tier: "partner".into(),
        daily_limit: 10_000,
        issued_at: "2026-11-01T00:00:00Z".into(),
        expires_at: None,
        revoked_at: None,
        origins: r#"["http://127.0.0.1:8080"]"#.into(),
        apis: None,
        partner_status: None,
        ip_ranges: None,
        partner_id: None,
        partner_tier: None,
        partner_limit: None,
    };
    let record = row.clone().into_record(&digest).unwrap();
    assert_eq!(
        (record.kind, record.tier, record.daily_limit),
        (KeyKind::Live, Tier::Partner, 10_000)
    );
    assert_eq!(record.origins, ["http://127.0.0.1:8080"]);
    assert!(row.clone().into_record(&"0".repeat(64)).is_none());
    assert!(
        KeyRow {
            kind: "gold".into(),
            ..row.clone()
        }
        .into_record(&digest)
        .is_none()
    );
    assert!(
        KeyRow {
            expires_at: Some("soon".into()),
            ..row
        }
        .into_record(&digest)
        .is_none()
    );
}

#[test]
fn keys_of_one_account_and_kind_share_its_tier_quota() {
    let live = |id: &str, tier: Tier, agreed: Option<u32>| {
        AccountQuota::of_key(id, KeyKind::Live, 10_000, Some(("p1", tier, agreed)))
    };
    let a = live("k1", Tier::Partner, None);
    let b = live("k2", Tier::Partner, None);
    assert_eq!(a, b, "two live keys of one partner: one quota");
    assert_eq!(
        (a.gate.as_str(), a.daily_limit),
        ("account:p1:live", 10_000)
    );
    assert_eq!(
        live("k1", Tier::Enterprise, Some(250_000)).daily_limit,
        250_000
    );
    let sandbox = AccountQuota::of_key(
        "k3",
        KeyKind::Sandbox,
        100,
        Some(("p1", Tier::Partner, None)),
    );
    assert_eq!(
        (sandbox.gate.as_str(), sandbox.daily_limit),
        ("account:p1:sandbox", 100)
    );
    let alone = AccountQuota::of_key("k4", KeyKind::Live, 7, None);
    assert_eq!((alone.gate.as_str(), alone.daily_limit), ("key:k4", 7));
    let row = KeyRow {
        id: "k5".into(),
        digest: "d".into(),
        kind: "live".into(),
        tier: "enterprise".into(),
        daily_limit: 5_000,
        issued_at: "2026-01-01T00:00:00Z".into(),
        expires_at: None,
        revoked_at: None,
        origins: "[]".into(),
        apis: None,
        partner_status: Some("approved".into()),
        ip_ranges: None,
        partner_id: Some("p9".into()),
        partner_tier: Some("enterprise".into()),
        partner_limit: Some(40_000),
    };
    let account = row.clone().into_record("d").unwrap().account;
    assert_eq!(
        (account.gate.as_str(), account.daily_limit),
        ("account:p9:live", 40_000)
    );
    let orphan = KeyRow {
        partner_tier: None,
        ..row
    };
    assert!(
        orphan.into_record("d").is_none(),
        "a key whose partner is gone is no key"
    );
}

#[test]
fn digest_comparison() {
    assert!(digests_equal("abc", "abc"));
    assert!(!digests_equal("abc", "abd"));
    assert!(!digests_equal("abc", "abcd"));
}
