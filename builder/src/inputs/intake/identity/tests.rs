use super::*;

fn records(text: &str) -> Records {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    Records {
        headers: reader.headers().unwrap().clone(),
        records: reader.records().map(Result::unwrap).collect(),
    }
}

#[test]
fn overlapping_sets_count_each_row_once_and_keep_identical_rows() {
    let content = Identity::Content;
    // Two identical rows (two offences of one event) and one other.
    let base = keys(&content, &records("a,b\n1,x\n1,x\n2,y\n"));
    // Overlaps the base (one of the identical rows, and row 2), adds row 3.
    let later = keys(&content, &records("a,b\n1,x\n2,y\n3,z\n"));
    // Has the identical pair three times: one more offence than known.
    let third = keys(&content, &records("a,b\n1,x\n1,x\n1,x\n"));
    let mut most = Multiplicity::default();
    assert_eq!(most.take(&base), [true, true, true]);
    assert_eq!(most.take(&later), [false, false, true]);
    assert_eq!(most.take(&third), [false, false, true]);
    // The same set again adds nothing.
    assert_eq!(most.take(&third), [false, false, false]);
}

#[test]
fn content_keys_ignore_column_order_and_padding() {
    let one = keys(&Identity::Content, &records("a,b\n1,Sunday  \n"));
    let two = keys(&Identity::Content, &records("b,a\nSunday,1\n"));
    assert_eq!(one, two);
}

#[test]
fn id_columns_identify_and_fall_back_to_content_when_empty() {
    let id = Identity::Columns(vec!["id".into()]);
    let rows = keys(&id, &records("id,x\nA,1\nA,2\n,3\n,3\n"));
    // Same id: same incident whatever else differs (a correction keeps the first).
    assert_eq!(rows[0], rows[1]);
    // No id: identified by content.
    assert_eq!(rows[2], rows[3]);
    assert_ne!(rows[0], rows[2]);
}
