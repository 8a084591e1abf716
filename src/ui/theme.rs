//! Themes: widgets ask for a [`Role`], never a colour; `themes/*.toml` give a small palette and
//! the roles' styles. A broken theme is cosmetic: it is reported and the default is used.
//! `NO_COLOR` selects the monochrome theme.

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

/// The shipped themes, by name.
pub const THEMES: [(&str, &str); 4] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// What a piece of the screen is, as far as styling goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Normal,
    Title,
    Tab,
    TabActive,
    Header,
    Selection,
    Muted,
    RatingGain,
    RatingLoss,
    Error,
    Status,
    Border,
    Highlight,
    Input,
}

impl Role {
    pub const ALL: [Role; 14] = [
        Role::Normal,
        Role::Title,
        Role::Tab,
        Role::TabActive,
        Role::Header,
        Role::Selection,
        Role::Muted,
        Role::RatingGain,
        Role::RatingLoss,
        Role::Error,
        Role::Status,
        Role::Border,
        Role::Highlight,
        Role::Input,
    ];

    fn name(self) -> &'static str {
        match self {
            Role::Normal => "normal",
            Role::Title => "title",
            Role::Tab => "tab",
            Role::TabActive => "tab_active",
            Role::Header => "header",
            Role::Selection => "selection",
            Role::Muted => "muted",
            Role::RatingGain => "rating_gain",
            Role::RatingLoss => "rating_loss",
            Role::Error => "error",
            Role::Status => "status",
            Role::Border => "border",
            Role::Highlight => "highlight",
            Role::Input => "input",
        }
    }
}

/// Styles resolved once per role.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    pub name: String,
    styles: BTreeMap<Role, Style>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("theme {theme}: {message}")]
pub struct ThemeError {
    pub theme: String,
    pub message: String,
}

impl Theme {
    pub fn style(&self, role: Role) -> Style {
        self.styles.get(&role).copied().unwrap_or_default()
    }

    /// Parses a theme file.
    pub fn parse(name: &str, text: &str) -> Result<Self, ThemeError> {
        let err = |message: String| ThemeError {
            theme: name.to_string(),
            message,
        };
        let table: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let palette: BTreeMap<String, String> = match table.get("palette") {
            None => BTreeMap::new(),
            Some(p) => p
                .as_table()
                .ok_or_else(|| err("[palette] must be a table".into()))?
                .iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        v.as_str()
                            .ok_or_else(|| err(format!("palette {k}: not a colour name")))?
                            .to_string(),
                    ))
                })
                .collect::<Result<_, ThemeError>>()?,
        };
        let colour = |role: &str, value: &toml::Value| -> Result<Color, ThemeError> {
            let text = value
                .as_str()
                .ok_or_else(|| err(format!("{role}: a colour is a string")))?;
            let text = palette.get(text).map_or(text, String::as_str);
            Color::from_str(text).map_err(|_| err(format!("{role}: unknown colour '{text}'")))
        };
        let roles = table
            .get("roles")
            .and_then(toml::Value::as_table)
            .ok_or_else(|| err("no [roles] table".into()))?;
        let mut styles = BTreeMap::new();
        for role in Role::ALL {
            let Some(spec) = roles.get(role.name()) else {
                return Err(err(format!("role '{}' is missing", role.name())));
            };
            let spec = spec
                .as_table()
                .ok_or_else(|| err(format!("{}: expected {{ fg, bg, modifiers }}", role.name())))?;
            let mut style = Style::default();
            if let Some(fg) = spec.get("fg") {
                style = style.fg(colour(role.name(), fg)?);
            }
            if let Some(bg) = spec.get("bg") {
                style = style.bg(colour(role.name(), bg)?);
            }
            for m in spec
                .get("modifiers")
                .and_then(toml::Value::as_array)
                .into_iter()
                .flatten()
            {
                let modifier = match m.as_str() {
                    Some("bold") => Modifier::BOLD,
                    Some("dim") => Modifier::DIM,
                    Some("italic") => Modifier::ITALIC,
                    Some("underlined") => Modifier::UNDERLINED,
                    Some("reversed") => Modifier::REVERSED,
                    _ => return Err(err(format!("{}: unknown modifier {m}", role.name()))),
                };
                style = style.add_modifier(modifier);
            }
            styles.insert(role, style);
        }
        if let Some(unknown) = roles
            .keys()
            .find(|k| !Role::ALL.iter().any(|r| r.name() == k.as_str()))
        {
            return Err(err(format!("unknown role '{unknown}'")));
        }
        Ok(Self {
            name: name.to_string(),
            styles,
        })
    }

    /// A shipped theme by name; `NO_COLOR` (any value) selects `mono`. Returns the theme and a
    /// warning when the wanted one could not be used.
    pub fn choose(wanted: Option<&str>, no_color: bool) -> (Self, Option<String>) {
        let name = if no_color {
            "mono"
        } else {
            wanted.unwrap_or("dark")
        };
        let found = THEMES.iter().find(|(n, _)| *n == name);
        let parsed = found.map(|(n, text)| Self::parse(n, text));
        match parsed {
            Some(Ok(theme)) => (theme, None),
            Some(Err(e)) => (Self::fallback(), Some(format!("{e}; using the dark theme"))),
            None => (
                Self::fallback(),
                Some(format!(
                    "no theme '{name}' (one of {}); using the dark theme",
                    THEMES.map(|(n, _)| n).join(", ")
                )),
            ),
        }
    }

    fn fallback() -> Self {
        Self::parse("dark", THEMES[0].1).unwrap_or_else(|_| Self {
            name: "plain".into(),
            styles: BTreeMap::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_theme_loads_with_every_role() {
        for (name, text) in THEMES {
            let theme = Theme::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(theme.styles.len(), Role::ALL.len());
        }
    }

    #[test]
    fn no_color_selects_mono_whatever_was_asked() {
        let (theme, warning) = Theme::choose(Some("dark"), true);
        assert_eq!(theme.name, "mono");
        assert_eq!(warning, None);
        assert_eq!(theme.style(Role::Selection).fg, None);
    }

    #[test]
    fn an_unknown_theme_warns_and_falls_back() {
        let (theme, warning) = Theme::choose(Some("neon"), false);
        assert_eq!(theme.name, "dark");
        assert!(warning.is_some_and(|w| w.contains("neon")));
    }

    #[test]
    fn a_broken_theme_says_what_is_wrong() {
        let e =
            Theme::parse("x", "[roles]\nnormal = { fg = \"chartreuse\" }").expect_err("bad colour");
        assert!(e.message.contains("chartreuse"), "{e}");
    }
}
