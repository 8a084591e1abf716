//! Players' clubs through the real binary: read from the selo service's list (a new club on a
//! re-import is an audited edit that undo takes back), carried by the `rate` document an
//! export writes, and a database or backup from before clubs were kept still restores, checks
//! and backs up as it did.

use std::path::Path;

use crate::common::{ok, ratedesk};

/// The selo service's list as it sends it: Latin-1, CRLF, `Seura` among the columns.
fn selo_list(rows: &[(&str, &str, &str, &str, &str)]) -> Vec<u8> {
    let mut text = String::from(
        "Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;Pelo;Pelopelejä;Arvo;FIDE-id;Syntynyt;Sukupuoli\r\n",
    );
    for (id, surname, given, club, born) in rows {
        text.push_str(&format!(
            "{id};{surname};{given};{club};1650;40;;;;;{born};M\r\n"
        ));
    }
    text.chars().map(|c| c as u8).collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path.to_str().expect("utf-8").to_string()
}

/// The clubs `export json` writes, by player id.
fn clubs(db: &Path) -> Vec<(String, Option<String>)> {
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&ratedesk(db, &["export", "events"]))).expect("json");
    doc["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().expect("id").to_string(),
                p["club"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn club(db: &Path, id: &str) -> Option<String> {
    clubs(db)
        .into_iter()
        .find(|(i, _)| i == id)
        .and_then(|(_, c)| c)
}

#[test]
fn the_selo_list_gives_clubs_and_a_new_club_is_an_audited_edit_undo_takes_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let list = write(
        dir.path(),
        "selo.csv",
        &selo_list(&[
            ("FIN2001", "Mäkelä", "Eero", "EtVaS", "1983-07-19"),
            ("FIN2002", "Mäkelä", "Eero", "HSK", "1961-03-02"),
            ("FIN2003", "Aho", "Aino", "", "2008-11-30"),
        ]),
    );
    let said = ok(&ratedesk(&db, &["import", "selo-csv", "--yes", &list]));
    assert!(said.contains("3 new players"), "{said}");
    assert_eq!(
        clubs(&db),
        vec![
            ("FIN2001".into(), Some("EtVaS".into())),
            ("FIN2002".into(), Some("HSK".into())),
            ("FIN2003".into(), None),
        ]
    );
    // The next list: one Eero has moved to HSK, Aino has joined TuS.
    let next = write(
        dir.path(),
        "next.csv",
        &selo_list(&[
            ("FIN2001", "Mäkelä", "Eero", "HSK", "1983-07-19"),
            ("FIN2002", "Mäkelä", "Eero", "HSK", "1961-03-02"),
            ("FIN2003", "Aho", "Aino", "TuS", "2008-11-30"),
        ]),
    );
    let said = ok(&ratedesk(&db, &["import", "selo-csv", &next]));
    assert!(said.contains("nothing imported"), "{said}");
    assert_eq!(club(&db, "FIN2001").as_deref(), Some("EtVaS"), "a dry run");
    let said = ok(&ratedesk(&db, &["import", "selo-csv", "--yes", &next]));
    assert!(
        said.contains("0 new players, 3 already in the database (2 with another club"),
        "{said}"
    );
    assert_eq!(club(&db, "FIN2001").as_deref(), Some("HSK"));
    assert_eq!(club(&db, "FIN2003").as_deref(), Some("TuS"));
    let log = ok(&ratedesk(&db, &["log", "--last", "1"]));
    assert!(
        log.contains("Mäkelä, Eero (FIN2001): club EtVaS → HSK"),
        "{log}"
    );
    assert!(log.contains("Aho, Aino (FIN2003): club - → TuS"), "{log}");
    assert!(
        !log.contains("FIN2002"),
        "an unchanged club is no change: {log}"
    );
    // Undo takes the new clubs back as one step; redo gives them again.
    let said = ok(&ratedesk(&db, &["undo"]));
    assert!(said.starts_with("undo: import"), "{said}");
    assert_eq!(club(&db, "FIN2001").as_deref(), Some("EtVaS"));
    assert_eq!(club(&db, "FIN2003"), None);
    ok(&ratedesk(&db, &["redo"]));
    assert_eq!(club(&db, "FIN2001").as_deref(), Some("HSK"));
    // The same list again changes no club; a list without clubs leaves them as they are.
    let said = ok(&ratedesk(&db, &["import", "selo-csv", "--yes", &next]));
    assert!(said.contains("(0 with another club"), "{said}");
    let bare = write(
        dir.path(),
        "bare.csv",
        b"Id;Sukunimi;Etunimi;Selo\nFIN2001;M\xe4kel\xe4;Eero;1650\n",
    );
    ok(&ratedesk(&db, &["import", "selo-csv", "--yes", &bare]));
    assert_eq!(club(&db, "FIN2001").as_deref(), Some("HSK"));
    // The list the database writes carries the clubs.
    let csv = ok(&ratedesk(&db, &["export", "list", "--date", "2025-12-31"]));
    assert!(csv.contains("FIN2001;Mäkelä;Eero;HSK;1650;40"), "{csv}");
    let check = ok(&ratedesk(&db, &["check"]));
    assert!(check.contains("chain holds"), "{check}");
}

#[test]
fn a_rate_document_carries_clubs_through_import_and_export() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let doc = serde_json::json!({
        "rules": "ssl",
        "players": [
            {"id": "FIN1", "name": "Mäkelä, Eero", "club": " HSK ", "selo": {"rating": 1700, "games": 40}},
            {"id": "FIN2", "name": "Mäkelä, Eero", "club": "", "selo": {"rating": 1600, "games": 40}}
        ],
        "events": [
            {"id": "e1", "start": "2025-03-01", "end": "2025-03-01",
             "games": [{"round": 1, "white": "FIN1", "black": "FIN2", "result": "1-0"}]}
        ]
    });
    let file = write(dir.path(), "doc.json", doc.to_string().as_bytes());
    ok(&ratedesk(&db, &["import", "json", &file]));
    assert_eq!(
        clubs(&db),
        vec![("FIN1".into(), Some("HSK".into())), ("FIN2".into(), None)]
    );
    // The rating is the same with clubs or without: `rate` reads and ignores them.
    let mut bare = doc.clone();
    for p in bare["players"].as_array_mut().expect("players") {
        p.as_object_mut().expect("player").remove("club");
    }
    let rate = |d: &serde_json::Value| {
        let file = write(dir.path(), "rate.json", d.to_string().as_bytes());
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .args(["rate", "--input", &file])
            .output()
            .expect("rate");
        ok(&out)
    };
    assert_eq!(rate(&doc), rate(&bare));
}

/// A backup written by the version before clubs were kept (five chained audit entries, two of
/// them adding players): this version restores it, finds its chain whole, and backs it up again
/// byte for byte.
#[test]
fn a_backup_from_before_clubs_restores_checks_and_backs_up_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/before-clubs.backup");
    let fixture = fixture.to_str().expect("utf-8");
    ok(&ratedesk(&db, &["restore", fixture]));
    let check = ok(&ratedesk(&db, &["check"]));
    // Its five entries, and the restore's own.
    assert!(
        check.contains("the audit log's chain holds (6 entries)"),
        "{check}"
    );
    let again = dir.path().join("again.backup");
    ok(&ratedesk(&db, &["backup", again.to_str().expect("utf-8")]));
    crate::common::assert_restored_as(Path::new(fixture), &again);
    // The next edit gives a club, and the chain goes on from the old entries.
    let list = write(
        dir.path(),
        "selo.csv",
        &selo_list(&[("FIN2004", "Mäkelä", "Eero", "TuS", "2001-05-05")]),
    );
    let said = ok(&ratedesk(&db, &["import", "selo-csv", "--yes", &list]));
    assert!(said.contains("1 with another club"), "{said}");
    let check = ok(&ratedesk(&db, &["check"]));
    assert!(check.contains("chain holds (7 entries)"), "{check}");
    assert_eq!(club(&db, "FIN2004").as_deref(), Some("TuS"));
}
