//! What the tests that drive the real binary share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `ratedesk --db DB ARGS…` and returns what it did.
pub fn ratedesk(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run ratedesk")
}

/// The standard output of a run that must succeed (its standard error otherwise).
#[allow(dead_code)]
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// A file of `../shared/data`, beside the checkout.
#[allow(dead_code)]
pub fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(path)
}

/// `ratedesk --db DB results`, its input, output and errors piped: a batch writer to start
/// (after any `.env`, or `.stderr(…)` of the caller's own).
#[allow(dead_code)]
pub fn results_command(db: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ratedesk"));
    command
        .arg("--db")
        .arg(db)
        .arg("results")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}
