//! The architecture's boundaries, kept by reading the sources: the rules and the ledger are pure
//! arithmetic — no terminal, no storage, no hidden clock.

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((path.display().to_string(), text));
        }
    }
}

#[test]
fn rules_and_ledger_touch_no_terminal_storage_or_clock() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["rules", "ledger"] {
        sources(&root.join(dir), &mut files);
    }
    assert!(
        files.len() >= 5,
        "expected the rules and ledger sources, found {}",
        files.len()
    );
    let forbidden = [
        "ratatui",
        "crossterm",
        "sled",
        "Local::now",
        "Utc::now",
        "SystemTime",
        "std::fs",
        "std::io",
    ];
    let mut offences = Vec::new();
    for (path, text) in &files {
        for word in forbidden {
            if text.contains(word) {
                offences.push(format!("{path} uses {word}"));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

#[test]
fn rules_do_not_reach_into_the_rest_of_the_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut files = Vec::new();
    sources(&root, &mut files);
    for (path, text) in &files {
        for line in text.lines().filter(|l| l.contains("crate::")) {
            assert!(
                line.contains("crate::rules") || line.contains("crate::model"),
                "{path}: the rules may use only the model: {line}"
            );
        }
    }
}
