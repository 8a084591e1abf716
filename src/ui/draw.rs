//! Drawing: reads the app's state and paints one frame. Every colour comes from the theme's
//! roles and every key shown comes from the keymap in force. One module per tab and one for
//! the popups; this one holds the frame, the tab bar, the status line and shared helpers.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::keymap::Keymap;
use super::theme::{Role, Theme};
use crate::app::state::{App, Popup, Tab};
use crate::app::{Action, Context};
pub(crate) use crate::export::format::{expected, half_points, performance, rating, signed};
use crate::json::JsonRules;

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

pub(crate) fn hint(keymap: &Keymap, context: Context, action: Action) -> String {
    keymap
        .key_for(context, action)
        .unwrap_or_else(|| "?".into())
}

/// A number kept doubled because it may end in .5 (a selection number).
pub(crate) fn doubled(d: Option<i64>) -> String {
    d.map_or_else(
        || "–".into(),
        |d| {
            if d % 2 == 0 {
                (d / 2).to_string()
            } else {
                format!("{}.5", d / 2)
            }
        },
    )
}

/// Paints the whole screen.
pub fn render<R: JsonRules>(app: &App<R>, theme: &Theme, keymap: &Keymap, frame: &mut Frame) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "The window is {}×{}: ratedesk needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\nEnlarge it, or press {} to quit.",
            area.width,
            area.height,
            hint(keymap, Context::Global, Action::Quit)
        );
        frame.render_widget(
            Paragraph::new(text)
                .style(theme.style(Role::Error))
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_tabs(app, theme, frame, tabs);
    match app.tab {
        Tab::Players => super::players::draw_players(app, theme, frame, body),
        Tab::Tournaments => super::tournaments::draw_tournaments(app, theme, frame, body),
        Tab::Titles => super::titles::draw_titles(app, theme, frame, body),
    }
    draw_status(app, theme, keymap, frame, status);
    match &app.popup {
        Some(Popup::Help { scroll }) => super::popups::draw_help(theme, keymap, frame, *scroll),
        Some(Popup::Confirm { effect, .. }) => {
            super::popups::draw_confirm(app, theme, keymap, frame, effect)
        }
        Some(Popup::Rare { selected }) => super::popups::draw_rare(theme, frame, *selected),
        Some(Popup::Form(form)) => super::popups::draw_form(theme, keymap, frame, form),
        Some(Popup::Pick(pick)) => super::popups::draw_pick(app, theme, keymap, frame, pick),
        Some(Popup::Import { lines, .. }) => {
            super::popups::draw_import(theme, keymap, frame, lines)
        }
        None => {}
    }
}

fn draw_tabs<R: JsonRules>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let mut spans = vec![Span::styled(" ratedesk ", theme.style(Role::Title))];
    for (i, tab) in Tab::ALL.iter().enumerate() {
        let role = if *tab == app.tab {
            Role::TabActive
        } else {
            Role::Tab
        };
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!(" {} {} ", i + 1, tab.title()),
            theme.style(role),
        ));
    }
    let counts = format!(
        "{} players · {} events ",
        app.desk
            .status()
            .iter()
            .filter(|s| **s == crate::store::PlayerStatus::Active)
            .count(),
        app.desk.book().live.iter().filter(|l| **l).count()
    );
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let pad = (area.width as usize).saturating_sub(used + counts.chars().count());
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(counts, theme.style(Role::Muted)));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_status<R: JsonRules>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    area: Rect,
) {
    let context = app.context();
    let line = if !app.pending.is_empty() {
        let mut text = format!("{} …", app.pending.join(" "));
        if let crate::ui::keymap::Lookup::Pending(next) = keymap.lookup(context, &app.pending) {
            for (key, action) in next {
                text.push_str(&format!("  {key} {}", action.description()));
            }
        }
        Line::styled(text, theme.style(Role::Highlight))
    } else if let Some(status) = &app.status {
        Line::styled(
            status.text.clone(),
            theme.style(if status.error {
                Role::Error
            } else {
                Role::Status
            }),
        )
    } else {
        let h = |a| hint(keymap, context, a);
        let text = match (app.tab, context) {
            (Tab::Players, Context::Form) => format!(
                "type to search · {} list · {} open · {} help",
                h(Action::Down),
                h(Action::Open),
                hint(keymap, Context::Global, Action::Help)
            ),
            (_, Context::RoundEntry) => format!(
                "{} 1-0 · {} 0-1 · {} ½-½ · {} +- · {} -+ · {} other · {}/{} board · {}/{} round · {} back",
                h(Action::WhiteWins),
                h(Action::BlackWins),
                h(Action::Draw),
                h(Action::ForfeitWhite),
                h(Action::ForfeitBlack),
                h(Action::RareResults),
                h(Action::PrevBoard),
                h(Action::NextBoard),
                h(Action::PrevRound),
                h(Action::NextRound),
                h(Action::Back)
            ),
            (_, Context::Popup) => match app.popup {
                Some(Popup::Help { .. }) => format!(
                    "{}/{} scroll · any other key closes",
                    h(Action::Up),
                    h(Action::Down)
                ),
                _ => format!(
                    "{} choose · {} cancel",
                    h(Action::Confirm),
                    h(Action::Cancel)
                ),
            },
            (Tab::Tournaments, Context::Form) if app.tournaments.pairing.is_some() => {
                format!(
                    "type start numbers (12 7, or 12 for a bye) · {} pair · {} done",
                    h(Action::Open),
                    h(Action::Back)
                )
            }
            (Tab::Tournaments, Context::Form) => format!(
                "type to filter · {} open · {} help",
                h(Action::Open),
                hint(keymap, Context::Global, Action::Help)
            ),
            _ => format!(
                "{} open · {} back · {} undo · {} help · {} quit",
                h(Action::Open),
                h(Action::Back),
                h(Action::Undo),
                h(Action::Help),
                h(Action::Quit)
            ),
        };
        Line::styled(text, theme.style(Role::Muted))
    };
    frame.render_widget(Paragraph::new(line), area);
}

pub(crate) fn block<'a>(theme: &Theme, title: impl Into<Line<'a>>) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.style(Role::Border))
        .title(title)
        .title_style(theme.style(Role::Title))
}

/// A one-line text box with a title, and the cursor when it has the focus.
pub(crate) fn query_box(
    frame: &mut Frame,
    theme: &Theme,
    area: Rect,
    title: impl Into<String>,
    text: &str,
    focused: bool,
) {
    let cursor = if focused { "▏" } else { "" };
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!("{text}{cursor}"),
            theme.style(Role::Input),
        ))
        .block(block(theme, title.into())),
        area,
    );
}

pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

pub(crate) fn delta_role(delta: Option<i32>) -> Role {
    match delta {
        Some(d) if d > 0 => Role::RatingGain,
        Some(d) if d < 0 => Role::RatingLoss,
        _ => Role::Normal,
    }
}
