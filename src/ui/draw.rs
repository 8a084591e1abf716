//! Drawing: reads the app's state and paints one frame. Every colour comes from the theme's
//! roles and every key shown comes from the keymap in force. One module per tab and one for
//! the popups; this one holds the frame, the tab bar, the status line and shared helpers.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::keymap::Keymap;
use super::theme::{Role, Theme};
use crate::app::workstation::action::{Action, Context};
use crate::app::workstation::state::{App, Popup, Tab, count};
pub(crate) use crate::app::workstation::views::{birth_year, club};
pub(crate) use crate::figures::{expected, half_points, performance, rating, signed};

use crate::app::Federation;

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

/// Paints the whole screen: drawing only (the loop's [`super::frame`] also waits for the disk).
pub fn render<R: Federation>(app: &App<R>, theme: &Theme, keymap: &Keymap, frame: &mut Frame) {
    draw_screen(app, theme, keymap, frame);
}

/// Puts a failure to write behind the screen on the status line, unless the line already says
/// what went wrong since (an edit refused for it).
pub(crate) fn write_failed<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    frame: &mut Frame,
    failure: &dyn std::fmt::Display,
) {
    if app.status.as_ref().is_some_and(|s| s.error) {
        return;
    }
    let area = frame.area();
    let line = Rect::new(area.x, area.bottom().saturating_sub(1), area.width, 1);
    frame.render_widget(Clear, line);
    frame.render_widget(
        Paragraph::new(Line::styled(
            theme.text(fit_items(&failure.to_string(), usize::from(area.width))),
            theme.style(Role::Error),
        )),
        line,
    );
}

/// Draws the screen in front of the officer: tabs, the tab's view, the status line, a popup.
fn draw_screen<R: Federation>(app: &App<R>, theme: &Theme, keymap: &Keymap, frame: &mut Frame) {
    if too_small_notice(theme, keymap, frame, app.set_aside_small) {
        return;
    }
    let [tabs, body, status] = screen_areas(frame.area());
    draw_tabs(app, theme, frame, tabs);
    match app.tab {
        Tab::Players => super::players::draw_players(app, theme, frame, body),
        Tab::Tournaments => super::tournaments::draw_tournaments(app, theme, frame, body),
        Tab::Titles => super::titles::draw_titles(app, theme, frame, body),
    }
    draw_status(app, theme, keymap, frame, status);
    match &app.popup {
        Some(Popup::Help { scroll }) => {
            super::popups::draw_help(app, theme, keymap, frame, *scroll)
        }
        Some(Popup::Confirm(preview)) => {
            super::popups::draw_confirm(app, theme, keymap, frame, preview)
        }
        Some(Popup::Undo(preview)) => super::popups::draw_undo(app, theme, keymap, frame, preview),
        Some(Popup::Rare { selected }) => super::popups::draw_rare(theme, frame, *selected),
        Some(Popup::Form(form)) => super::popups::draw_form(theme, keymap, frame, form),
        Some(Popup::Pick(pick)) => super::popups::draw_pick(app, theme, keymap, frame, pick),
        Some(Popup::Import {
            plan,
            selected,
            scroll,
        }) => super::popups::draw_import(app, theme, keymap, frame, plan, *selected, *scroll),
        None => {}
    }
}

/// Says the window is too small, if it is: then nothing else is drawn (and nothing acts).
pub(crate) fn too_small_notice(
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut Frame,
    set_aside: usize,
) -> bool {
    let area = frame.area();
    if area.width >= MIN_WIDTH && area.height >= MIN_HEIGHT {
        return false;
    }
    let mut text = format!(
        "The window is {}×{}: ratedesk needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\nNothing acts until it is larger. Enlarge it, or press {} to quit.",
        area.width,
        area.height,
        hint(keymap, Context::Global, Action::Quit)
    );
    if set_aside > 0 {
        text.push_str(&format!(
            "\n{} typed meanwhile, set aside: none acted.",
            crate::figures::count(set_aside, "key", "keys")
        ));
    }
    frame.render_widget(
        Paragraph::new(theme.text(text))
            .style(theme.style(Role::Error))
            .wrap(Wrap { trim: true }),
        area,
    );
    true
}

/// The screen's rows: the tab bar, the tab's view, the status line.
pub(crate) fn screen_areas(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

fn draw_tabs<R: Federation>(app: &App<R>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let titles: Vec<&str> = Tab::ALL.iter().map(|&tab| app.tab_title(tab)).collect();
    tab_bar(theme, frame, area, &titles, app.tab, Some(app.counts()));
}

/// The tab bar: the tabs by number, the active one marked, and the active players' and live
/// events' counts at the right (when known).
pub(crate) fn tab_bar(
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    titles: &[&str],
    active: Tab,
    counts: Option<(usize, usize)>,
) {
    let mut spans = vec![Span::styled(" ratedesk ", theme.style(Role::Title))];
    for (i, (tab, title)) in Tab::ALL.iter().zip(titles.iter().copied()).enumerate() {
        let role = if *tab == active {
            Role::TabActive
        } else {
            Role::Tab
        };
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!(" {} {title} ", i + 1),
            theme.style(role),
        ));
    }
    // The counts at the right, as many whole as fit (the events first to go).
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let room = (area.width as usize).saturating_sub(used + 1);
    let counts = counts
        .map(|(players, events)| {
            let both = format!(
                "{} · {} ",
                count(players, "player", "players"),
                count(events, "event", "events")
            );
            let players_only = format!("{} ", count(players, "player", "players"));
            [both, players_only]
                .into_iter()
                .map(|c| theme.text(c))
                .find(|c| c.chars().count() <= room)
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let pad = (area.width as usize).saturating_sub(used + counts.chars().count());
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(counts, theme.style(Role::Muted)));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The hint of the screen in front of the officer: what the screen offers
/// ([`App::offers`]), each with its key from the keymap in force, joined by ` · ` (an item
/// without words of its own goes with the next: `↑/↓ pgup/pgdn scroll`).
fn screen_hint<R: Federation>(app: &App<R>, keymap: &Keymap) -> String {
    use crate::app::workstation::offers::Offer;
    let (context, offers) = app.offers();
    let mut line = String::new();
    let mut glue = "";
    for offer in offers {
        let (keys, words) = match offer {
            Offer::Say(words) => (String::new(), words),
            Offer::Key(a, words) => (hint(keymap, context, a), words),
            Offer::Keys(a, b, words) => (
                format!("{}/{}", hint(keymap, context, a), hint(keymap, context, b)),
                words,
            ),
            Offer::Everywhere(a, words) => (hint(keymap, Context::Global, a), words),
        };
        line.push_str(glue);
        line.push_str(&keys);
        if !keys.is_empty() && !words.is_empty() {
            line.push(' ');
        }
        line.push_str(words);
        glue = if words.is_empty() { " " } else { " · " };
    }
    line
}

fn draw_status<R: Federation>(
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
        Line::styled(theme.text(text), theme.style(Role::Highlight))
    } else if let Some(status) = &app.status {
        Line::styled(
            theme.text(fit_items(&status.text, usize::from(area.width))),
            theme.style(if status.error {
                Role::Error
            } else {
                Role::Status
            }),
        )
    } else {
        let hint = fit_hint(&screen_hint(app, keymap), usize::from(area.width));
        Line::styled(theme.text(hint), theme.style(Role::Muted))
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// A hint of `a · b · c · help` that fits in `width`: the items before the last are dropped from
/// the end until it does, so the last (the help key) always shows.
fn fit_hint(hint: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let mut items: Vec<&str> = hint.split(" · ").collect();
    while items.join(" · ").width() > width && items.len() > 1 {
        items.remove(items.len() - 2);
    }
    items.join(" · ")
}

/// A message that fits in `width`: whole ` · `-separated items dropped from the end (so no
/// figure is shown cut), with an ellipsis saying that more was said.
fn fit_items(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if text.width() <= width {
        return text.to_string();
    }
    let mut items: Vec<&str> = text.split(" · ").collect();
    while items.len() > 1 && items.join(" · ").width() + 4 > width {
        items.pop();
    }
    let kept = items.join(" · ");
    if kept.width() + 4 > width {
        // One item longer than the line: cut, and the ellipsis says so.
        return super::grid::cut(&kept, width as u16, "…");
    }
    format!("{kept} · …")
}

fn border_set(theme: &Theme) -> ratatui::symbols::border::Set<'static> {
    if theme.ascii {
        ratatui::symbols::border::Set {
            top_left: "+",
            top_right: "+",
            bottom_left: "+",
            bottom_right: "+",
            vertical_left: "|",
            vertical_right: "|",
            horizontal_top: "-",
            horizontal_bottom: "-",
        }
    } else {
        ratatui::symbols::border::PLAIN
    }
}

pub(crate) fn block<'a>(theme: &Theme, title: impl Into<String>) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_set(border_set(theme))
        .border_style(theme.style(Role::Border))
        .title(theme.text(title.into()))
        .title_style(theme.style(Role::Title))
}

/// The block of the pane or box that has the focus: its border stands out.
pub(crate) fn focused_block<'a>(theme: &Theme, title: impl Into<String>) -> Block<'a> {
    block(theme, title).border_style(theme.style(Role::Highlight))
}

/// The end of a text that fits in `width` cells with the cursor after it: a long text scrolls,
/// its start replaced by an ellipsis.
pub(crate) fn field_tail(theme: &Theme, text: &str, width: usize, cursor: bool) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let cursor = if cursor { theme.cursor() } else { "" };
    let room = width.saturating_sub(cursor.width());
    if text.width() <= room {
        return format!("{text}{cursor}");
    }
    let ellipsis = theme.ellipsis();
    let mut tail: Vec<char> = Vec::new();
    let mut used = ellipsis.width();
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        tail.push(c);
    }
    format!(
        "{ellipsis}{}{cursor}",
        tail.into_iter().rev().collect::<String>()
    )
}

/// A one-line text box with a title, and the cursor when it has the focus.
pub(crate) fn query_box(
    frame: &mut Frame,
    theme: &Theme,
    area: Rect,
    title: impl Into<String>,
    text: &str,
    focused: bool,
    fresh: bool,
) {
    let shown = field_tail(
        theme,
        text,
        usize::from(area.width.saturating_sub(2)),
        focused,
    );
    let frame_block = if focused {
        focused_block(theme, title)
    } else {
        block(theme, title)
    };
    frame.render_widget(
        // A query the next letter replaces is shown selected.
        Paragraph::new(Line::styled(
            shown,
            theme.style(if fresh { Role::Selection } else { Role::Input }),
        ))
        .block(frame_block),
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

/// A player's name with his birth year and club, to tell apart players who share a name:
/// `Mäkelä, Eero (1983, HSK)`.
pub(crate) fn name_born_club<R: Federation>(
    app: &App<R>,
    player: crate::model::PlayerIdx,
) -> String {
    let info = &app.desk.book().players[player];
    let name = app.name(player);
    let born = birth_year(info);
    let known: Vec<&str> = [born.as_str(), info.club.as_deref().unwrap_or_default()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if known.is_empty() {
        name.into_owned()
    } else {
        format!("{name} ({})", known.join(", "))
    }
}

/// The club column of a list of players: a text beside the name, the first column to go when
/// the width does not suffice.
pub(crate) fn club_column() -> super::grid::Column {
    super::grid::Column::text("Club", 8, 1)
}
