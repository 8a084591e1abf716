//! The "add a rulebook" recipe of the README, held for every rulebook the registry knows: its
//! public conformance cases, its demo federation, and its screens driven and drawn.

use std::path::Path;

use crate::common::{ok, ratedesk};

#[test]
fn every_rulebook_of_the_registry_has_its_cases_its_demo_and_its_screens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let screens = std::fs::read_to_string(root.join("tests/it/tui_rulebooks.rs"))
        .expect("tests/it/tui_rulebooks.rs");
    for code in ratedesk::federations::registry::CODES {
        // Its public cases, read by the conformance test.
        let cases = root.join("../shared/conformance").join(code);
        let count = std::fs::read_dir(&cases)
            .unwrap_or_else(|e| panic!("{}: {e} (the rulebook's public cases)", cases.display()))
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .count();
        assert!(count > 0, "{}: no cases", cases.display());
        // Its demo federation, generated and stored.
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("demo");
        let out = ratedesk(
            &db,
            &[
                "demo",
                "--players",
                "40",
                "--years",
                "1",
                "--rules",
                code,
                "--out",
                db.to_str().expect("path"),
            ],
        );
        ok(&out);
        ok(&ratedesk(&db, &["check"]));
        // Its screens: created, keyed, corrected and undone through the action layer, every
        // tab drawn (tests/it/tui_rulebooks.rs).
        let test = format!("fn {code}_create_key_correct_undo_against_rate_and_every_tab()");
        assert!(
            screens.contains(&test),
            "no {test} in tests/it/tui_rulebooks.rs"
        );
    }
}
