//! The command line around the workstation: a broken keymap stops the program before the
//! terminal is touched, naming the file, the key and the clashing actions.

use std::process::Command;

#[test]
fn a_broken_keymap_stops_before_the_alternate_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keymap = dir.path().join("keys.toml");
    std::fs::write(&keymap, "[table]\n\"h\" = \"help\"\n\"h x\" = \"quit\"\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .env("XDG_DATA_HOME", dir.path())
        .arg("--keymap")
        .arg(&keymap)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing was drawn: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("keys.toml") && message.contains("\"h\""),
        "{message}"
    );
    assert!(
        message.contains("help") && message.contains("quit"),
        "{message}"
    );
}

#[test]
fn an_unknown_theme_only_warns() {
    let (theme, warning) = ratedesk::ui::theme::Theme::choose(Some("plaid"), false);
    assert_eq!(theme.name, "dark");
    assert!(warning.is_some());
}
