//! Themes: widgets ask for a [`Role`], never a colour; `themes/*.toml` give a small palette and
//! the roles' styles. A broken theme is cosmetic: it is reported and the default is used.
//! `NO_COLOR` selects the monochrome theme. What the terminal says it can do (`TERM`) narrows
//! the theme further: eight colours, or none with ASCII borders and glyphs (`vt100`, `dumb`).

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, strum::VariantArray)]
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
    pub const ALL: &'static [Role] = <Role as strum::VariantArray>::VARIANTS;

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
    /// Borders, cursor and marks drawn in ASCII (a terminal without line drawing or UTF-8).
    pub ascii: bool,
}

/// The colours a terminal can show, as its `TERM` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colours {
    /// 16 colours or more (`xterm-256color`, `COLORTERM` set).
    Full,
    /// The eight ANSI colours (`xterm`, `linux`, `screen`).
    Eight,
    /// None (`vt100`, `vt220`, `dumb`).
    None,
}

/// What a terminal can draw: its colours, and whether only ASCII is safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    pub colours: Colours,
    pub ascii: bool,
}

impl Capabilities {
    /// Reads `TERM` (and `COLORTERM`): VT terminals and `dumb` get no colours and ASCII; a name
    /// with `256color`, `truecolor` or `direct`, or any `COLORTERM`, gets every colour; other
    /// known names the eight ANSI colours.
    pub fn from_term(term: Option<&str>, colorterm: Option<&str>) -> Self {
        let term = term.unwrap_or("").to_ascii_lowercase();
        let plain = Self {
            colours: Colours::None,
            ascii: true,
        };
        if term.is_empty() || term == "dumb" || term.starts_with("vt") {
            return plain;
        }
        let full = [
            "256color",
            "truecolor",
            "direct",
            "kitty",
            "alacritty",
            "wezterm",
        ]
        .iter()
        .any(|t| term.contains(t))
            || colorterm.is_some_and(|c| !c.is_empty());
        Self {
            colours: if full { Colours::Full } else { Colours::Eight },
            ascii: false,
        }
    }

    /// The terminal the program runs in.
    pub fn from_env() -> Self {
        let var = |k| std::env::var(k).ok();
        Self::from_term(var("TERM").as_deref(), var("COLORTERM").as_deref())
    }
}

/// A colour as an eight-colour terminal shows it: bright and grey shades fall back to the
/// eight ANSI ones; palette and RGB colours to the terminal's default.
fn eight(colour: Color) -> Option<Color> {
    Some(match colour {
        Color::LightRed => Color::Red,
        Color::LightGreen => Color::Green,
        Color::LightYellow => Color::Yellow,
        Color::LightBlue => Color::Blue,
        Color::LightMagenta => Color::Magenta,
        Color::LightCyan => Color::Cyan,
        Color::White => Color::Gray,
        Color::DarkGray | Color::Indexed(_) | Color::Rgb(..) => return None,
        other => other,
    })
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

    /// The theme as a terminal with these capabilities can show it.
    pub fn for_terminal(mut self, caps: Capabilities) -> Self {
        self.ascii = caps.ascii;
        match caps.colours {
            Colours::Full => {}
            Colours::Eight => {
                for style in self.styles.values_mut() {
                    let dim = matches!(style.fg, Some(Color::DarkGray));
                    style.fg = style.fg.and_then(eight);
                    style.bg = style.bg.and_then(eight);
                    if dim {
                        *style = style.add_modifier(Modifier::DIM);
                    }
                }
            }
            Colours::None => {
                if let Ok(mono) = Self::parse("mono", THEMES[3].1) {
                    self.name = mono.name;
                    self.styles = mono.styles;
                }
            }
        }
        self
    }

    /// The text cursor of a field in focus.
    pub fn cursor(&self) -> &'static str {
        if self.ascii { "_" } else { "▏" }
    }

    /// The mark of text cut short.
    pub fn ellipsis(&self) -> &'static str {
        if self.ascii { "~" } else { "…" }
    }

    /// Text as this terminal can show it: `½` spelled out where only ASCII is safe.
    pub fn text(&self, text: String) -> String {
        if !self.ascii || text.is_ascii() {
            return text;
        }
        let mut out = String::with_capacity(text.len() + 4);
        let mut previous_digit = false;
        for c in text.chars() {
            match c {
                '½' if previous_digit => out.push_str(".5"),
                '½' => out.push_str("1/2"),
                '–' | '−' => out.push('-'),
                '→' => out.push('>'),
                '←' => out.push('<'),
                '↑' => out.push('^'),
                '↓' => out.push('v'),
                '…' => out.push('~'),
                '·' => out.push('|'),
                '±' => out.push_str("+-"),
                '∞' => out.push_str("inf"),
                c => out.push(c),
            }
            previous_digit = c.is_ascii_digit();
        }
        out
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
        for &role in Role::ALL {
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
            ascii: false,
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
            ascii: false,
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
    fn the_terminal_narrows_colours_and_glyphs() {
        let caps = |t| Capabilities::from_term(Some(t), None);
        assert_eq!(caps("xterm-256color").colours, Colours::Full);
        assert!(!caps("xterm-256color").ascii);
        assert_eq!(caps("xterm").colours, Colours::Eight);
        assert_eq!(caps("linux").colours, Colours::Eight);
        for plain in ["vt100", "vt220", "dumb"] {
            assert_eq!(caps(plain).colours, Colours::None, "{plain}");
            assert!(caps(plain).ascii, "{plain}");
        }
        assert_eq!(
            Capabilities::from_term(Some("xterm"), Some("truecolor")).colours,
            Colours::Full
        );
        let dark = Theme::choose(Some("dark"), false).0;
        let eight = dark.clone().for_terminal(caps("xterm"));
        assert_eq!(
            eight.style(Role::Muted).fg,
            None,
            "dark grey is not one of the eight"
        );
        assert!(
            eight
                .style(Role::Muted)
                .add_modifier
                .contains(Modifier::DIM)
        );
        let vt = dark.for_terminal(caps("vt100"));
        assert!(vt.ascii);
        assert_eq!(vt.style(Role::Selection).bg, None);
        assert_eq!(vt.text("3½ ½-½".into()), "3.5 1/2-1/2");
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
