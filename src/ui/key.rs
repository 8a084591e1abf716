//! One key: parsed from its name as keymap files write it (`ctrl-r`, `alt-1`, `G`, `pagedown`,
//! `f5`), named back the same way, read from the terminal's key event and turned into one. The
//! names live in one table, so the keymap, the terminal loop and scripted keys cannot disagree.

use std::fmt;
use std::str::FromStr;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with the modifiers that tell keys apart in a keymap (Ctrl and Alt; Shift is in the
/// character itself: `G`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    code: KeyCode,
    ctrl: bool,
    alt: bool,
}

/// Every key with a name of more than one character, by that name.
const NAMED: [(&str, KeyCode); 16] = [
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("insert", KeyCode::Insert),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("space", KeyCode::Char(' ')),
];

/// The function keys a keymap may name.
const FUNCTION_KEYS: std::ops::RangeInclusive<u8> = 1..=12;

/// Why a name is not a key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a key")]
pub struct NotAKey(pub String);

impl Key {
    /// The key of a terminal's key event, or `None` for a key no keymap can name.
    pub fn of(event: &KeyEvent) -> Option<Self> {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        let code = match event.code {
            // Ctrl-R and Ctrl-r are one key: terminals send either.
            KeyCode::Char(c) if ctrl => KeyCode::Char(c.to_lowercase().next().unwrap_or(c)),
            KeyCode::F(n) if !FUNCTION_KEYS.contains(&n) => return None,
            code if Self::name_of(code).is_some() => code,
            _ => return None,
        };
        Some(Key {
            code,
            ctrl,
            alt: event.modifiers.contains(KeyModifiers::ALT),
        })
    }

    /// The key event this key is, as a terminal sends it.
    pub fn event(self) -> KeyEvent {
        let mut modifiers = KeyModifiers::NONE;
        if self.ctrl {
            modifiers |= KeyModifiers::CONTROL;
        }
        if self.alt {
            modifiers |= KeyModifiers::ALT;
        }
        KeyEvent::new(self.code, modifiers)
    }

    /// The name of a key code without modifiers, if it has one.
    fn name_of(code: KeyCode) -> Option<String> {
        match code {
            KeyCode::Char(' ') => Some("space".into()),
            KeyCode::Char(c) => Some(c.to_string()),
            KeyCode::F(n) => Some(format!("f{n}")),
            code => NAMED
                .iter()
                .find(|(_, c)| *c == code)
                .map(|(name, _)| (*name).to_string()),
        }
    }
}

/// Names are written with the modifiers first, lower case (`ctrl-alt-x`); a single character
/// is itself (`G` is not `g`, but `ctrl-R` is `ctrl-r`); longer names are read in any case
/// (`PageDown`).
impl FromStr for Key {
    type Err = NotAKey;

    fn from_str(name: &str) -> Result<Self, NotAKey> {
        let not = || NotAKey(name.to_string());
        let (mut ctrl, mut alt) = (false, false);
        let mut rest = name;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
                ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
                alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if ctrl => KeyCode::Char(c.to_lowercase().next().unwrap_or(c)),
            (Some(c), None) => KeyCode::Char(c),
            _ => {
                let lower = rest.to_ascii_lowercase();
                if let Some(&(_, code)) = NAMED.iter().find(|(n, _)| *n == lower) {
                    code
                } else {
                    let n = lower
                        .strip_prefix('f')
                        .and_then(|n| n.parse::<u8>().ok())
                        .filter(|n| FUNCTION_KEYS.contains(n))
                        .ok_or_else(not)?;
                    KeyCode::F(n)
                }
            }
        };
        Ok(Key { code, ctrl, alt })
    }
}

/// The key's name as keymap files write it and the help shows it.
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        f.write_str(&Self::name_of(self.code).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(code: KeyCode, mods: KeyModifiers) -> Option<String> {
        Key::of(&KeyEvent::new(code, mods)).map(|k| k.to_string())
    }

    #[test]
    fn every_named_key_reads_back_as_itself() {
        for (written, code) in NAMED {
            let key: Key = written.parse().expect("a key");
            assert_eq!(key.to_string(), written);
            assert_eq!(key.event().code, code);
            assert_eq!(Key::of(&key.event()), Some(key));
        }
        for n in FUNCTION_KEYS {
            let key: Key = format!("alt-f{n}").parse().expect("a key");
            assert_eq!(Key::of(&key.event()), Some(key));
        }
    }

    #[test]
    fn names_are_canonical() {
        let canonical = |s: &str| s.parse::<Key>().ok().map(|k| k.to_string());
        assert_eq!(canonical("CTRL-R"), None, "modifiers are lower case");
        assert_eq!(canonical("ctrl-R").as_deref(), Some("ctrl-r"));
        assert_eq!(canonical("PageDown").as_deref(), Some("pagedown"));
        assert_eq!(canonical("alt-ctrl-x").as_deref(), Some("ctrl-alt-x"));
        assert_eq!(canonical("G").as_deref(), Some("G"));
        assert_eq!(canonical("f12").as_deref(), Some("f12"));
        assert_eq!(canonical("f13"), None, "the edge of the function keys");
        assert_eq!(canonical("f0"), None);
        assert_eq!(canonical("ctrl-"), None);
        assert_eq!(canonical("pgdn"), None);
        assert_eq!(
            "pgdn".parse::<Key>(),
            Err(NotAKey("pgdn".into())),
            "the error names what was written"
        );
    }

    #[test]
    fn key_events_get_their_names() {
        assert_eq!(
            name(KeyCode::Char('R'), KeyModifiers::CONTROL).as_deref(),
            Some("ctrl-r")
        );
        assert_eq!(
            name(KeyCode::Char('G'), KeyModifiers::SHIFT).as_deref(),
            Some("G")
        );
        assert_eq!(
            name(KeyCode::Char(' '), KeyModifiers::NONE).as_deref(),
            Some("space")
        );
        assert_eq!(
            name(KeyCode::Char('2'), KeyModifiers::ALT).as_deref(),
            Some("alt-2")
        );
        assert_eq!(name(KeyCode::F(13), KeyModifiers::NONE), None);
        assert_eq!(name(KeyCode::CapsLock, KeyModifiers::NONE), None);
    }
}
