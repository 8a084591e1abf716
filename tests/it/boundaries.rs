//! The architecture's boundaries, kept by reading the sources: the rules and the ledger are pure
//! arithmetic — no terminal, no storage, no hidden clock; the command line only calls the
//! application; the screens never read the store; the files out never depend on the
//! workstation; the bench imports through the application; no error is told by its wording.

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
    for leaf in ["src/cores.rs", "src/paged.rs"] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(leaf))
            .unwrap_or_else(|e| panic!("{leaf}: {e}"));
        assert!(
            !text.contains("crate::"),
            "{leaf}, which the rules may use, stands on std alone"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut files = Vec::new();
    sources(&root, &mut files);
    for (path, text) in &files {
        // Besides the model, the cores a rulebook's independent work is shared out among and
        // the paged sets over players (leaves of the crate, on std alone).
        for line in text.lines().filter(|l| l.contains("crate::")) {
            assert!(
                line.contains("crate::rules")
                    || line.contains("crate::model")
                    || line.contains("crate::cores")
                    || line.contains("crate::paged"),
                "{path}: the rules may use only the model, the cores and the paged sets: {line}"
            );
        }
    }
}

/// The sources of `src/DIR` (a file or a folder), without their test modules (everything from
/// the first `#[cfg(test)]` on).
fn code_of(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut files = Vec::new();
    if root.is_dir() {
        sources(&root, &mut files);
    } else {
        let text =
            std::fs::read_to_string(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
        files.push((root.display().to_string(), text));
    }
    assert!(!files.is_empty(), "no sources in src/{dir}");
    files
        .into_iter()
        .map(|(path, text)| {
            let code = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .to_string();
            (path, code)
        })
        .collect()
}

/// Every line of `files` that holds one of `words`, as `path: line`.
fn offences(files: &[(String, String)], words: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in files {
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            for word in words {
                if code.contains(word) {
                    found.push(format!("{path}: {word}: {}", line.trim()));
                }
            }
        }
    }
    found
}

/// The command line holds no use-case: it parses arguments and calls the application (and the
/// workstation, the bench); it never reaches the store, the ledger, the federation's record,
/// the rulebooks or the file formats itself.
#[test]
fn the_command_line_only_calls_the_application() {
    let found = offences(
        &code_of("cli"),
        &[
            "crate::store",
            "crate::ledger",
            "crate::book",
            "crate::rules",
            "crate::import",
            "crate::export",
            "crate::demo",
            ".store()",
            ".ledger()",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The screens never read the store; the files written out never depend on the application
/// (only on the one bound `federations::Federation`); the bench imports through the
/// application, not through the command line.
#[test]
fn screens_exports_and_the_bench_stay_in_their_lanes() {
    let ui = offences(&code_of("ui"), &["crate::store", ".store()"]);
    assert!(ui.is_empty(), "{}", ui.join("\n"));
    let export = offences(
        &code_of("export"),
        &["crate::app", "crate::ui", "crate::cli"],
    );
    assert!(export.is_empty(), "{}", export.join("\n"));
    let bench = offences(&code_of("bench.rs"), &["cli::"]);
    assert!(bench.is_empty(), "{}", bench.join("\n"));
}

/// A federation's folder says what the federation is; it never reaches up into the
/// application, the workstation, the screens, the command line or the files written out.
#[test]
fn the_federations_never_reach_up_into_the_application() {
    let found = offences(
        &code_of("federations"),
        &[
            "crate::app",
            "crate::ui",
            "crate::cli",
            "crate::export",
            "crate::bench",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The use-cases (edits, imports, queries, publishing, restore — everything in `app/` outside
/// `app/workstation/`) never name the workstation's state: tabs, focus, popups and forms are
/// the workstation's, which drives the use-cases, never the other way round. Only `app/mod.rs`
/// declares the module.
#[test]
fn the_use_cases_never_import_the_workstation() {
    let found: Vec<String> = offences(&code_of("app"), &["workstation", "crate::ui"])
        .into_iter()
        .filter(|l| !l.contains("/app/workstation/"))
        .filter(|l| !l.ends_with("pub mod workstation;"))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The federation's record (`Book`, its changes, a player's status) lives in `book/`, not in
/// the ledger, which only rates it.
#[test]
fn the_federations_record_lives_in_its_own_module() {
    let found = offences(
        &code_of("ledger"),
        &[
            "pub struct Book",
            "pub struct Change",
            "pub enum PlayerStatus",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// No error is recognised by its wording: outside tests, nothing asks an error's text what it
/// says (errors are told apart by their types and variants).
#[test]
fn no_error_is_recognised_by_its_text() {
    let mut files = Vec::new();
    for dir in [
        "app", "cli", "ui", "export", "import", "store", "json", "book", "ledger",
    ] {
        files.extend(code_of(dir));
    }
    let found = offences(
        &files,
        &[
            ".to_string().contains(",
            ".to_string().starts_with(",
            ".to_string().ends_with(",
            "message.contains(",
            "message.starts_with(",
            "message.ends_with(",
            "(os error",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The registry (`src/federations/registry.rs`) is the one place that turns a rulebook code into a
/// rulebook: no other code matches on one (every command, `rate`, the bench and the messages
/// listing codes go through it).
#[test]
fn only_the_registry_matches_on_a_rulebook_code() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let arms: Vec<String> = [
        "\"ssl\" =>",
        "\"isl\" =>",
        "\"tsf\" =>",
        "\"isl\" |",
        "\"tsf\" |",
    ]
    .into_iter()
    .flat_map(|arm| {
        let outside: Vec<(String, String)> = files
            .iter()
            .filter(|(path, _)| !path.ends_with("federations/registry.rs"))
            .map(|(path, text)| {
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                (path.clone(), code.to_string())
            })
            .collect();
        offences(&outside, &[arm])
    })
    .collect();
    assert!(
        arms.is_empty(),
        "matched outside the registry:\n{}",
        arms.join("\n")
    );
}

/// Drawing only draws: the wait for the disk before a frame reaches the terminal is the
/// loop's (`ui::frame`), never hidden in a drawing function.
#[test]
fn drawing_never_waits_for_the_disk() {
    let waits: Vec<String> = offences(&code_of("ui"), &[".settle("])
        .into_iter()
        .filter(|line| !line.contains("src/ui/mod.rs"))
        .collect();
    assert!(waits.is_empty(), "{}", waits.join("\n"));
}
