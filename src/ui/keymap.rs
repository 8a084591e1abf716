//! Keymaps: layered TOML files (the embedded `keymaps/default.toml`, an optional preset, the
//! user's file), one table per context, merged key by key. A broken keymap is an error naming
//! the file, the key and the clashing actions — it stops the program before the alternate
//! screen, never a silent fallback.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::KeyEvent;

use super::key::Key;

use crate::app::workstation::action::Action;
pub use crate::app::workstation::action::Context;

/// The shipped default, compiled in.
pub const DEFAULT: &str = include_str!("../../keymaps/default.toml");
/// The shipped presets, by name.
pub const PRESETS: [(&str, &str); 1] = [("vim", include_str!("../../keymaps/vim.toml"))];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("keymap {file}: [{context}] \"{key}\": {message}")]
pub struct KeymapError {
    pub file: String,
    pub context: String,
    pub key: String,
    pub message: String,
}

/// Keys in force, per context, in file order.
#[derive(Clone, Debug, Default)]
pub struct Keymap {
    bindings: BTreeMap<Context, Vec<(Vec<String>, Action)>>,
}

/// What a key (with any keys of a pending chord before it) means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Action(Action),
    /// The start of a chord: wait for the next key (the hint lists what may follow).
    Pending(Vec<(String, Action)>),
    Unbound,
}

/// The canonical name of a key event (`ctrl-r`, `G`, `enter`), or `None` for keys we ignore.
pub fn key_name(event: &KeyEvent) -> Option<String> {
    Key::of(event).map(|k| k.to_string())
}

/// Checks one key as written in a file and returns its canonical name.
fn canonical(key: &str) -> Option<String> {
    key.parse::<Key>().ok().map(|k| k.to_string())
}

/// A binding while layers merge: keys, action, the key as written, the file it came from.
type Merged = (Vec<String>, Action, String, String);

/// One layer as written: context → [(keys, action or unbind)], in file order.
type Layer = Vec<(Context, Vec<(Vec<String>, Option<Action>, String)>)>;

fn parse_layer(file: &str, text: &str) -> Result<Layer, KeymapError> {
    let err = |context: &str, key: &str, message: String| KeymapError {
        file: file.to_string(),
        context: context.to_string(),
        key: key.to_string(),
        message,
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| err("", "", e.to_string()))?;
    let mut layer = Layer::new();
    for (section, value) in &table {
        let context = Context::ALL
            .iter()
            .copied()
            .find(|c| c.name() == section)
            .ok_or_else(|| {
                err(
                    section,
                    "",
                    format!(
                        "unknown context (one of {})",
                        Context::ALL
                            .iter()
                            .map(|c| c.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
        let entries = value
            .as_table()
            .ok_or_else(|| err(section, "", "expected a table of key = action".into()))?;
        let mut bindings = Vec::new();
        for (key, action) in entries {
            let action = action
                .as_str()
                .ok_or_else(|| err(section, key, "the action must be a string".into()))?;
            let keys = key
                .split(' ')
                .filter(|k| !k.is_empty())
                .map(|k| {
                    canonical(k).ok_or_else(|| err(section, key, format!("'{k}' is not a key")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if keys.is_empty() {
                return Err(err(section, key, "no key".into()));
            }
            let action = if action == "none" {
                None
            } else {
                Some(
                    serde_json::from_value::<Action>(serde_json::Value::String(action.to_string()))
                        .map_err(|_| err(section, key, format!("unknown action '{action}'")))?,
                )
            };
            bindings.push((keys, action, key.clone()));
        }
        layer.push((context, bindings));
    }
    Ok(layer)
}

impl Keymap {
    /// The default keys, then a preset by name, then the user's file; each later layer replaces
    /// single keys of the earlier ones.
    pub fn load(preset: Option<&str>, user: Option<&Path>) -> Result<Self, KeymapError> {
        let mut layers: Vec<(String, String)> =
            vec![("keymaps/default.toml".into(), DEFAULT.into())];
        if let Some(name) = preset {
            let text = PRESETS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| KeymapError {
                    file: format!("keymaps/{name}.toml"),
                    context: String::new(),
                    key: String::new(),
                    message: format!(
                        "no such preset (one of {})",
                        PRESETS.map(|(n, _)| n).join(", ")
                    ),
                })?;
            layers.push((format!("keymaps/{name}.toml"), text));
        }
        if let Some(path) = user {
            let text = read_keymap_file(path).map_err(|e| KeymapError {
                file: path.display().to_string(),
                context: String::new(),
                key: String::new(),
                message: e.to_string(),
            })?;
            layers.push((path.display().to_string(), text));
        }
        Self::from_layers(&layers)
    }

    /// The user's keymap in the XDG config folder, if there is one.
    pub fn user_file() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        let path = base.join("ratedesk/keymap.toml");
        path.exists().then_some(path)
    }

    /// Merges layers (name, text) in order.
    pub fn from_layers(layers: &[(String, String)]) -> Result<Self, KeymapError> {
        let mut merged: BTreeMap<Context, Vec<Merged>> = BTreeMap::new();
        for (file, text) in layers {
            for (context, bindings) in parse_layer(file, text)? {
                let list = merged.entry(context).or_default();
                for (keys, action, written) in bindings {
                    match (list.iter_mut().find(|(k, ..)| *k == keys), action) {
                        (Some(slot), Some(a)) => {
                            slot.1 = a;
                            slot.2 = written;
                            slot.3 = file.clone();
                        }
                        (Some(_), None) => list.retain(|(k, ..)| *k != keys),
                        (None, Some(a)) => list.push((keys, a, written, file.clone())),
                        (None, None) => {}
                    }
                }
            }
        }
        // A key that is both a binding and the start of a chord can never reach the chord; a
        // key typed as text never changes the record.
        for (context, list) in &merged {
            for (keys, action, written, file) in list {
                if let Err(message) = action.may_be_bound(*context, &keys[0]) {
                    return Err(KeymapError {
                        file: file.clone(),
                        context: context.name().into(),
                        key: written.clone(),
                        message,
                    });
                }
                if let Some((_, other, other_written, _)) = list
                    .iter()
                    .find(|(k, ..)| k.len() > keys.len() && k.starts_with(keys))
                {
                    return Err(KeymapError {
                        file: file.clone(),
                        context: context.name().into(),
                        key: written.clone(),
                        message: format!(
                            "clashes: it is bound to {} and also starts \"{other_written}\" ({})",
                            action.name(),
                            other.name()
                        ),
                    });
                }
            }
        }
        Ok(Self {
            bindings: merged
                .into_iter()
                .map(|(c, list)| (c, list.into_iter().map(|(k, a, ..)| (k, a)).collect()))
                .collect(),
        })
    }

    /// What the keys typed so far mean in `context` (falling back to `global`).
    pub fn lookup(&self, context: Context, keys: &[String]) -> Lookup {
        for c in [context, Context::Global] {
            let Some(list) = self.bindings.get(&c) else {
                continue;
            };
            if let Some((_, action)) = list.iter().find(|(k, _)| k == keys) {
                return Lookup::Action(*action);
            }
            let following: Vec<(String, Action)> = list
                .iter()
                .filter(|(k, _)| k.len() > keys.len() && k.starts_with(keys))
                .map(|(k, a)| (k[keys.len()..].join(" "), *a))
                .collect();
            if !following.is_empty() {
                return Lookup::Pending(following);
            }
        }
        Lookup::Unbound
    }

    /// The first key (in file order) that does `action` in `context` or globally: for hints.
    pub fn key_for(&self, context: Context, action: Action) -> Option<String> {
        [context, Context::Global].into_iter().find_map(|c| {
            self.bindings
                .get(&c)?
                .iter()
                .find(|(_, a)| *a == action)
                .map(|(k, _)| k.join(" "))
        })
    }

    /// Every binding, by context, for the help popup.
    pub fn bindings(&self) -> &BTreeMap<Context, Vec<(Vec<String>, Action)>> {
        &self.bindings
    }
}

/// The most a keymap file may hold: a full keymap is a few kilobytes.
const KEYMAP_LIMIT: u64 = 1 << 20;

/// A user's keymap file as text, refused past [`KEYMAP_LIMIT`] (`--keymap /dev/zero` ends
/// with a message, not with the memory).
fn read_keymap_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(KEYMAP_LIMIT + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > KEYMAP_LIMIT {
        return Err(std::io::Error::other(format!(
            "larger than {} KB: not a keymap",
            KEYMAP_LIMIT >> 10
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(user: &str) -> Vec<(String, String)> {
        vec![
            ("default".into(), DEFAULT.into()),
            ("user.toml".into(), user.into()),
        ]
    }

    #[test]
    fn shipped_keymaps_load_without_clash() {
        Keymap::load(None, None).expect("default");
        for (name, _) in PRESETS {
            Keymap::load(Some(name), None).expect(name);
        }
    }

    /// Every file in `keymaps/`, read from the folder (a new preset is checked the day it is
    /// added): it loads over the default, and no key typed as text changes the record except
    /// the result keys of round entry.
    #[test]
    fn no_shipped_keymap_binds_a_change_of_the_record_to_a_typed_key() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("keymaps");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|entry| entry.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        assert!(files.len() >= 2, "default.toml and the presets: {files:?}");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            let name = file.display().to_string();
            let keymap = Keymap::from_layers(&[
                ("keymaps/default.toml".into(), DEFAULT.into()),
                (name.clone(), text),
            ])
            .unwrap_or_else(|e| panic!("{e}"));
            for (context, list) in keymap.bindings() {
                for (keys, action) in list {
                    let first = &keys[0];
                    let typed = first.chars().count() == 1 || first.starts_with("alt-");
                    let changes = action.changes_record()
                        || (*action == Action::Open
                            && matches!(context, Context::Popup | Context::Form));
                    if changes && typed {
                        assert!(
                            *context == Context::RoundEntry
                                && action.is_result_key()
                                && !first.starts_with("alt-"),
                            "{name}: [{}] \"{}\" = {} changes the record on a typed key",
                            context.name(),
                            keys.join(" "),
                            action.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_keymap_file_without_end_is_refused_not_read_into_memory() {
        let e = Keymap::load(None, Some(std::path::Path::new("/dev/zero")))
            .expect_err("/dev/zero is no keymap");
        assert!(e.to_string().contains("not a keymap"), "{e}");
    }

    #[test]
    fn a_user_file_that_binds_a_change_of_the_record_to_a_letter_is_refused() {
        for (context, key, action) in [
            ("table", "u", "undo"),
            ("round_entry", "u", "undo"),
            ("global", "alt-u", "undo"),
            ("popup", "y", "confirm"),
            ("table", "1", "white_wins"),
            ("round_entry", "alt-1", "white_wins"),
            ("form", "s", "submit"),
            ("table", "g g", "redo"),
            ("popup", "o", "open"),
            ("form", "alt-enter", "submit"),
            ("popup", "alt-enter", "confirm"),
        ] {
            let user = format!("[{context}]\n\"{key}\" = \"{action}\"\n");
            let e = Keymap::from_layers(&layers(&user)).expect_err(&user);
            assert_eq!((e.file.as_str(), e.key.as_str()), ("user.toml", key), "{e}");
            assert!(e.message.contains("changes the record"), "{e}");
        }
        // A control chord, a dedicated key and the result keys of round entry are fine.
        Keymap::from_layers(&layers(
            "[global]\n\"ctrl-u\" = \"undo\"\n\"f5\" = \"redo\"\n[round_entry]\n\"w\" = \"white_wins\"\n",
        ))
        .expect("allowed");
    }

    #[test]
    fn every_user_facing_action_is_bound_by_default() {
        let keymap = Keymap::load(None, None).expect("default");
        for &action in Action::ALL {
            let bound = Context::ALL
                .iter()
                .any(|c| keymap.key_for(*c, action).is_some());
            assert!(bound, "{} has no key in default.toml", action.name());
        }
    }

    #[test]
    fn contexts_fall_back_to_global() {
        let keymap = Keymap::load(None, None).expect("default");
        assert_eq!(
            keymap.lookup(Context::Table, &["q".into()]),
            Lookup::Action(Action::Quit)
        );
        assert_eq!(
            keymap.lookup(Context::Form, &["ctrl-c".into()]),
            Lookup::Action(Action::Quit)
        );
        assert_eq!(keymap.lookup(Context::Form, &["q".into()]), Lookup::Unbound);
        assert_eq!(
            keymap.lookup(Context::RoundEntry, &["5".into()]),
            Lookup::Action(Action::Draw)
        );
    }

    #[test]
    fn chords_wait_for_their_second_key() {
        let keymap = Keymap::load(Some("vim"), None).expect("vim");
        assert_eq!(
            keymap.lookup(Context::Table, &["g".into()]),
            Lookup::Pending(vec![("g".into(), Action::Top)])
        );
        assert_eq!(
            keymap.lookup(Context::Table, &["g".into(), "g".into()]),
            Lookup::Action(Action::Top)
        );
        assert_eq!(
            keymap.lookup(Context::Table, &["G".into()]),
            Lookup::Action(Action::Bottom)
        );
    }

    #[test]
    fn a_user_file_overrides_single_keys_and_unbinds() {
        let keymap = Keymap::from_layers(&layers("[table]\n\"x\" = \"quit\"\n\"q\" = \"none\"\n"))
            .expect("user");
        assert_eq!(
            keymap.lookup(Context::Table, &["x".into()]),
            Lookup::Action(Action::Quit)
        );
        assert_eq!(
            keymap.lookup(Context::Table, &["q".into()]),
            Lookup::Unbound
        );
        assert_eq!(
            keymap.key_for(Context::Table, Action::Quit).as_deref(),
            Some("x")
        );
    }

    #[test]
    fn a_clash_names_the_file_the_key_and_both_actions() {
        let e = Keymap::from_layers(&layers("[table]\n\"h\" = \"help\"\n\"h e\" = \"quit\"\n"))
            .expect_err("clash");
        assert_eq!(
            (e.file.as_str(), e.context.as_str(), e.key.as_str()),
            ("user.toml", "table", "h")
        );
        assert!(
            e.message.contains("help") && e.message.contains("quit"),
            "{e}"
        );
    }

    #[test]
    fn bad_keys_actions_and_contexts_are_named() {
        let e =
            Keymap::from_layers(&layers("[table]\n\"ctrl-\" = \"quit\"\n")).expect_err("bad key");
        assert!(e.to_string().contains("is not a key"), "{e}");
        let e =
            Keymap::from_layers(&layers("[table]\n\"x\" = \"explode\"\n")).expect_err("bad action");
        assert!(e.to_string().contains("unknown action 'explode'"), "{e}");
        let e =
            Keymap::from_layers(&layers("[tables]\n\"x\" = \"quit\"\n")).expect_err("bad context");
        assert!(e.to_string().contains("unknown context"), "{e}");
    }
}
