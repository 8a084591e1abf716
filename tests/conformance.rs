//! Runs every conformance case against the real `ratedesk rate` binary: the shared cases in
//! `../shared/conformance` (read at test time; a missing folder is a failure, not a skip) and
//! the project's own in `tests/conformance`. Each case is one test, named by its file.
//!
//! A case the project holds to contradict the original rulebook is listed in
//! `tests/conformance/disputed.toml` (`[[disputed]]` with `case`, `rule`, `original` — a
//! quotation — and `figure`): it is run, reported by name with the dispute on every run, and
//! counted neither passed nor failed (an ignored test whose name says `disputed`). A listed
//! case that no longer exists fails the run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            case_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// Compares one expected value with the output, in the contract's terms: fields present in
/// `expected` must match (missing output = null); lists keyed by id or title; tolerances for
/// `expected` (0.005) and `performance` (0.01); a `reason` any non-empty text.
fn compare(
    expected: &Value,
    actual: Option<&Value>,
    path: &str,
    key: &str,
    errors: &mut Vec<String>,
) {
    let actual_or_null = actual.unwrap_or(&Value::Null);
    match expected {
        Value::Null => {
            if !actual_or_null.is_null() {
                errors.push(format!("{path}: expected null, got {actual_or_null}"));
            }
        }
        Value::Number(e) => {
            let tolerance = match key {
                "expected" | "change" | "bonus" => 0.005 + 1e-9,
                "performance" => 0.01 + 1e-9,
                _ => 1e-9,
            };
            let ok = actual_or_null
                .as_f64()
                .is_some_and(|a| (a - e.as_f64().unwrap_or(f64::NAN)).abs() <= tolerance);
            if !ok {
                errors.push(format!("{path}: expected {e}, got {actual_or_null}"));
            }
        }
        // A reason an event is not rated is free text: any non-empty text will do.
        Value::String(_) if key == "reason" => {
            if actual_or_null.as_str().is_none_or(str::is_empty) {
                errors.push(format!("{path}: expected a reason, got {actual_or_null}"));
            }
        }
        Value::String(_) | Value::Bool(_) => {
            if expected != actual_or_null {
                errors.push(format!("{path}: expected {expected}, got {actual_or_null}"));
            }
        }
        Value::Object(fields) => {
            if !actual_or_null.is_object() {
                errors.push(format!("{path}: expected an object, got {actual_or_null}"));
                return;
            }
            for (k, v) in fields {
                compare(v, actual_or_null.get(k), &format!("{path}.{k}"), k, errors);
            }
        }
        Value::Array(items) => {
            let Some(got) = actual_or_null.as_array() else {
                errors.push(format!("{path}: expected a list, got {actual_or_null}"));
                return;
            };
            let by = match key {
                "events" | "players" => Some("id"),
                "titles" => Some("title"),
                "periods" | "parts" => Some("period"),
                _ => None,
            };
            match by {
                Some(field) => {
                    // Complete: titles, an event's parts, and the players of an event, of a
                    // part and of a period; the top-level events, periods and players may list
                    // only some.
                    let complete = key == "titles"
                        || key == "parts"
                        || (key == "players"
                            && (path.contains("events[") || path.contains("periods[")));
                    if complete && items.len() != got.len() {
                        let ids: Vec<String> = got.iter().map(|g| g[field].to_string()).collect();
                        errors.push(format!(
                            "{path}: expected {} entries, got {}: {}",
                            items.len(),
                            got.len(),
                            ids.join(", ")
                        ));
                    }
                    for item in items {
                        let id = &item[field];
                        let found = got.iter().find(|g| &g[field] == id);
                        match found {
                            Some(f) => compare(item, Some(f), &format!("{path}[{id}]"), "", errors),
                            None => errors.push(format!("{path}: no entry with {field} {id}")),
                        }
                    }
                }
                None => {
                    if items.len() != got.len() {
                        errors.push(format!("{path}: expected {expected}, got {actual_or_null}"));
                        return;
                    }
                    for (i, (e, a)) in items.iter().zip(got).enumerate() {
                        compare(e, Some(a), &format!("{path}[{i}]"), key, errors);
                    }
                }
            }
        }
    }
}

fn run_case(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let case: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let input = case.get("input").ok_or("the case has no input")?;
    let expected = case.get("expected").ok_or("the case has no expected")?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("rate")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting ratedesk: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.to_string().as_bytes())
        .map_err(|e| format!("writing the input: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("running ratedesk: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(error) = expected.get("error") {
        // A refused input: exit status 2, a message naming the item, nothing on stdout.
        if output.status.code() != Some(2) || !output.stdout.is_empty() {
            return Err(format!(
                "expected refusal with status 2, got {:?}",
                output.status.code()
            )
            .into());
        }
        if let Some(fragment) = error.as_str()
            && !stderr.contains(fragment)
        {
            return Err(format!("the message should name '{fragment}': {stderr}").into());
        }
        return Ok(());
    }
    if !output.status.success() {
        return Err(format!(
            "ratedesk rate failed ({:?}): {stderr}",
            output.status.code()
        )
        .into());
    }
    let actual: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("output is not JSON: {e}"))?;
    let mut errors = Vec::new();
    compare(expected, Some(&actual), "", "", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}

/// One case the project disputes, with the rule, the original's words and its own figure.
#[derive(serde::Deserialize)]
struct Dispute {
    case: String,
    rule: String,
    original: String,
    figure: String,
}

#[derive(serde::Deserialize)]
struct Disputes {
    #[serde(default)]
    disputed: Vec<Dispute>,
}

fn disputes(own: &Path) -> Result<Vec<Dispute>, String> {
    let path = own.join("disputed.toml");
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str::<Disputes>(&text)
            .map(|d| d.disputed)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The cases of `../shared/conformance-next/` (rules being added) whose rules are not built
/// yet: listed by name on every run as waiting, neither passed nor failed; every other case
/// there is run with the others.
const NEXT_WAITING: &[&str] = &[];

fn main() {
    let args = Arguments::from_args();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../shared/conformance");
    let own = manifest.join("tests/conformance");
    let mut trials = Vec::new();
    let disputed = match disputes(&own) {
        Ok(d) => d,
        Err(message) => {
            trials.push(Trial::test("own::disputed.toml", move || {
                Err(message.into())
            }));
            Vec::new()
        }
    };
    let mut names = Vec::new();
    let folders = [
        ("shared", shared),
        ("own", own.clone()),
        ("next", manifest.join("../shared/conformance-next")),
    ];
    for (label, dir) in folders {
        let dir = &dir;
        let mut files = Vec::new();
        if let Err(e) = case_files(dir, &mut files) {
            let message = format!(
                "the conformance folder {} could not be read: {e}",
                dir.display()
            );
            trials.push(Trial::test(format!("{label}::folder"), move || {
                Err(message.into())
            }));
            continue;
        }
        files.sort();
        if files.is_empty() {
            let message = format!("no conformance cases found in {}", dir.display());
            trials.push(Trial::test(format!("{label}::folder"), move || {
                Err(message.into())
            }));
        }
        for file in files {
            let name = file
                .strip_prefix(dir)
                .unwrap_or(&file)
                .with_extension("")
                .display()
                .to_string();
            let case = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            names.push(case.clone());
            if label == "next" && NEXT_WAITING.contains(&case.as_str()) {
                let title = format!("{label}::{name} (waiting: its rule is not built yet)");
                trials.push(Trial::test(title, move || run_case(&file)).with_ignored_flag(true));
                continue;
            }
            if let Some(d) = disputed.iter().find(|d| d.case == case) {
                // Listed by name on every run (an ignored test; nextest shows skipped tests, see
                // .config/nextest.toml), neither passed nor failed. `--run-ignored all` runs it
                // and shows how the output differs.
                let title = format!(
                    "{label}::{name} (disputed, rule {}: ratedesk's figure {})",
                    d.rule, d.figure
                );
                let original = d.original.clone();
                trials.push(
                    Trial::test(title, move || {
                        run_case(&file).map_err(|e| {
                            format!(
                                "{}\n(disputed: the original says «{original}»)",
                                e.message().unwrap_or_default()
                            )
                            .into()
                        })
                    })
                    .with_ignored_flag(true),
                );
                continue;
            }
            trials.push(Trial::test(format!("{label}::{name}"), move || {
                run_case(&file)
            }));
        }
    }
    for d in &disputed {
        if !names.contains(&d.case) {
            let message = format!(
                "disputed.toml lists '{}', which is no conformance case",
                d.case
            );
            trials.push(Trial::test(
                format!("own::disputed::{}", d.case),
                move || Err(message.into()),
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
