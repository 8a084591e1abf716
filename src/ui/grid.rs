//! Tables that are read, not guessed at: every figure is shown whole or its column is left out
//! (names are narrowed first, then the least needed columns dropped), only the rows on screen
//! are built, the cursor's row is always in view, and the title says where the view is
//! (`row 3 of 284`).

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use unicode_width::UnicodeWidthStr;

use super::draw::{block, focused_block};
use super::theme::{Role, Theme};

/// One column: a figure is never cut; a text narrows down to `min` with an ellipsis.
pub(crate) struct Column {
    pub header: String,
    /// How narrow a text may become; `None`: shown whole or not at all.
    pub min: Option<u16>,
    /// Columns with the lowest `keep` are dropped first when the width does not suffice.
    pub keep: u8,
    pub right: bool,
}

impl Column {
    /// A figure: right-aligned, whole or not at all.
    pub fn figure(header: impl Into<String>, keep: u8) -> Self {
        Self {
            header: header.into(),
            min: None,
            keep,
            right: true,
        }
    }

    /// A short text that holds figures (a date, an id, factors): whole or not at all.
    pub fn whole(header: impl Into<String>, keep: u8) -> Self {
        Self {
            header: header.into(),
            min: None,
            keep,
            right: false,
        }
    }

    /// A text (a name) that may be narrowed down to `min` cells.
    pub fn text(header: impl Into<String>, min: u16, keep: u8) -> Self {
        Self {
            header: header.into(),
            min: Some(min),
            keep,
            right: false,
        }
    }
}

/// A cell's text and role.
pub(crate) type GridCell = (String, Role);

/// A plain cell.
pub(crate) fn cell(text: impl Into<String>) -> GridCell {
    (text.into(), Role::Normal)
}

/// A scrolling table of `len` rows with a cursor.
pub(crate) struct Grid {
    pub title: String,
    pub columns: Vec<Column>,
    pub len: usize,
    /// The row with the cursor (kept in view; drawn selected when `focused`).
    pub cursor: usize,
    /// A row to mark (the player an event was opened for).
    pub mark: Option<usize>,
    pub focused: bool,
    /// Draw the border as the pane with the focus (when a screen has two).
    pub active: bool,
}

/// The first row shown so that `cursor` is in view: the cursor stays in the middle of the view
/// except near either end.
pub(crate) fn window(cursor: usize, len: usize, visible: usize) -> usize {
    if visible == 0 || len <= visible {
        return 0;
    }
    cursor.saturating_sub(visible / 2).min(len - visible)
}

/// Names are narrowed to this before optional columns are dropped, and below it only after.
const COMFORT: u16 = 16;
/// Columns kept below this are optional: dropped before a name is narrowed below `COMFORT`.
const OPTIONAL: u8 = 10;

/// Which columns fit in `width` and how wide each is: `None` for a column left out. Names are
/// narrowed to a comfortable width first, then optional columns dropped, then names narrowed to
/// their minimum, then the least needed columns dropped; a figure is never narrowed.
pub(crate) fn fit(width: u16, columns: &[Column], needed: &[u16]) -> Vec<Option<u16>> {
    let comfortable = |c: &Column| c.min.map(|m| m.max(COMFORT));
    fit_with(width, columns, needed, comfortable, OPTIONAL)
        .or_else(|| fit_with(width, columns, needed, |c: &Column| c.min, u8::MAX))
        .unwrap_or_else(|| vec![None; columns.len()])
}

fn fit_with(
    width: u16,
    columns: &[Column],
    needed: &[u16],
    floor: impl Fn(&Column) -> Option<u16>,
    droppable_below: u8,
) -> Option<Vec<Option<u16>>> {
    let n = columns.len();
    // Drop order: lowest `keep` first, the rightmost of equals first.
    let mut order: Vec<usize> = (0..n)
        .filter(|&i| columns[i].keep < droppable_below)
        .collect();
    order.sort_by_key(|&i| (columns[i].keep, std::cmp::Reverse(i)));
    for dropped in 0..=order.len() {
        let kept: Vec<usize> = (0..n).filter(|i| !order[..dropped].contains(i)).collect();
        if kept.is_empty() {
            break;
        }
        let spacing = kept.len() as u16 - 1;
        let mut widths: Vec<u16> = kept.iter().map(|&i| needed[i]).collect();
        let total = |w: &[u16]| w.iter().sum::<u16>() + spacing;
        // Narrow the texts, the widest first, so two names (white and black) share the loss.
        let mut over = total(&widths).saturating_sub(width);
        while over > 0 {
            let widest = (0..kept.len())
                .filter(|&k| floor(&columns[kept[k]]).is_some_and(|f| widths[k] > f))
                .max_by_key(|&k| (widths[k], std::cmp::Reverse(k)));
            let Some(k) = widest else { break };
            widths[k] -= 1;
            over -= 1;
        }
        if total(&widths) <= width {
            // What is left over widens the first text column.
            let spare = width - total(&widths);
            if let Some(k) = kept.iter().position(|&i| columns[i].min.is_some()) {
                widths[k] += spare;
            }
            let mut out = vec![None; n];
            for (k, &i) in kept.iter().enumerate() {
                out[i] = Some(widths[k]);
            }
            return Some(out);
        }
    }
    None
}

/// `text` cut to `width` display cells, with an ellipsis when cut.
pub(crate) fn cut(text: &str, width: u16, ellipsis: &str) -> String {
    let width = usize::from(width);
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + ellipsis.width() > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str(ellipsis);
    out
}

/// Writes a cell's text into its column (`x`, `y`, `w` cells wide), aligned right or left, cut
/// with the ellipsis when it does not fit ([`cut`]). Figures, ids, dates and most names are
/// letters of one cell each: a cell a character, no graphemes to find (what `set_stringn` does
/// for the rest), whole or cut.
fn write_cell(
    buf: &mut Buffer,
    (x, y, w): (u16, u16, u16),
    right: bool,
    text: &str,
    ellipsis: &str,
) {
    match one_cell_each(text) {
        Some(cells) if cells <= usize::from(w) => {
            let shift = if right { w - cells as u16 } else { 0 };
            for (k, c) in text.chars().enumerate() {
                buf[(x + shift + k as u16, y)].set_char(c);
            }
        }
        // Cut: all but the column's last cell, and the ellipsis there.
        Some(_) if w > 0 && ellipsis.width() == 1 => {
            for (k, c) in text.chars().take(usize::from(w) - 1).enumerate() {
                buf[(x + k as u16, y)].set_char(c);
            }
            buf[(x + w - 1, y)].set_symbol(ellipsis);
        }
        _ => write_cut(buf, (x, y, w), right, text, ellipsis),
    }
}

/// [`write_cell`] the long way: the text cut ([`cut`]), then drawn by ratatui, grapheme by
/// grapheme.
fn write_cut(
    buf: &mut Buffer,
    (x, y, w): (u16, u16, u16),
    right: bool,
    text: &str,
    ellipsis: &str,
) {
    let text = cut(text, w, ellipsis);
    let shift = if right {
        w.saturating_sub(text.width() as u16)
    } else {
        0
    };
    buf.set_stringn(
        x + shift,
        y,
        &text,
        usize::from(w - shift),
        Style::default(),
    );
}

/// The width of a text whose every character is a grapheme of its own one cell wide — printable
/// ASCII and the Latin letters of U+00A0–U+024F (the soft hyphen aside), which no combining
/// mark follows — or `None`.
pub(crate) fn one_cell_each(text: &str) -> Option<usize> {
    let mut n = 0;
    for c in text.chars() {
        let simple = matches!(c, ' '..='~' | '\u{a0}'..='\u{24f}') && c != '\u{ad}';
        if !simple {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// "row 3 of 284", or "no rows".
pub(crate) fn position(cursor: usize, len: usize) -> String {
    if len == 0 {
        "no rows".into()
    } else {
        format!("row {} of {len}", cursor.min(len - 1) + 1)
    }
}

/// A title that fits in `width` cells, whole ` · `-separated parts or none: the title's parts
/// after its second are dropped first, then where the view is, then the second part; last, the
/// first part is shortened between words with an ellipsis (a figure is never cut).
pub(crate) fn fit_title(title: &str, place: Option<&str>, width: usize) -> String {
    let mut parts: Vec<&str> = title.split(" · ").collect();
    let given = place;
    let mut place = place;
    let joined = |parts: &[&str], place: Option<&str>| {
        let mut all = parts.to_vec();
        all.extend(place);
        all.join(" · ")
    };
    while parts.len() > 2 && joined(&parts, place).width() > width {
        parts.pop();
    }
    if joined(&parts, place).width() > width {
        place = None;
    }
    while parts.len() > 1 && joined(&parts, place).width() > width {
        parts.pop();
    }
    // Where the view is comes back when the second part's going made room for it.
    if place.is_none() && joined(&parts, given).width() <= width {
        place = given;
    }
    let text = joined(&parts, place);
    if text.width() <= width {
        return text;
    }
    let mut kept = String::new();
    for word in text.split_inclusive(' ') {
        if kept.width() + word.trim_end().width() + 1 > width {
            break;
        }
        kept.push_str(word);
    }
    format!("{}…", kept.trim_end())
}

impl Grid {
    pub fn new(title: impl Into<String>, columns: Vec<Column>, len: usize, cursor: usize) -> Self {
        Self {
            title: title.into(),
            columns,
            len,
            cursor: cursor.min(len.saturating_sub(1)),
            mark: None,
            focused: true,
            active: false,
        }
    }

    /// Draws the rows in view; `row(i)` builds row `i` (only those shown are asked for).
    pub fn draw(
        self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        row: impl Fn(usize) -> Vec<GridCell>,
    ) {
        let visible = usize::from(area.height.saturating_sub(3));
        let top = window(self.cursor, self.len, visible);
        let shown: Vec<Vec<GridCell>> = (top..(top + visible).min(self.len))
            .map(|i| {
                row(i)
                    .into_iter()
                    .map(|(t, r)| (theme.text(t), r))
                    .collect()
            })
            .collect();
        let mut needed: Vec<u16> = self
            .columns
            .iter()
            .map(|c| theme.text(c.header.clone()).width() as u16)
            .collect();
        for r in &shown {
            for (i, (text, _)) in r.iter().enumerate() {
                if let Some(w) = needed.get_mut(i) {
                    *w = (*w).max(text.width() as u16);
                }
            }
        }
        let widths = fit(area.width.saturating_sub(2), &self.columns, &needed);
        let place = (self.len > visible || self.focused).then(|| position(self.cursor, self.len));
        let room = usize::from(area.width).saturating_sub(4);
        let title = format!(" {} ", fit_title(&self.title, place.as_deref(), room));
        let frame_block = if self.active {
            focused_block(theme, title)
        } else {
            block(theme, title)
        };
        let inner = frame_block.inner(area);
        frame.render_widget(frame_block, area);
        if inner.is_empty() {
            return;
        }
        // Each kept column's left edge, one cell apart.
        let mut x = inner.x;
        let columns: Vec<Option<(u16, u16)>> = widths
            .iter()
            .map(|w| {
                w.map(|w| {
                    let at = x;
                    x = x.saturating_add(w).saturating_add(1);
                    (at, w)
                })
            })
            .collect();
        let ellipsis = theme.ellipsis();
        let buf = frame.buffer_mut();
        // A row's cells written straight into the buffer: the row's style over its width, each
        // cell's style over its column, the text cut to the column and aligned in it.
        let mut draw_row = |y: u16, style: Option<Style>, cells: &[(String, Role)]| {
            if let Some(style) = style {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), style);
            }
            for (i, (text, role)) in cells.iter().enumerate() {
                let Some(Some((x, w))) = columns.get(i).copied() else {
                    continue;
                };
                buf.set_style(Rect::new(x, y, w, 1), theme.style(*role));
                write_cell(buf, (x, y, w), self.columns[i].right, text, ellipsis);
            }
        };
        let header: Vec<(String, Role)> = self
            .columns
            .iter()
            .map(|c| (theme.text(c.header.clone()), Role::Header))
            .collect();
        draw_row(inner.y, Some(theme.style(Role::Header)), &header);
        for (k, r) in shown.into_iter().enumerate() {
            let y = inner.y + 1 + k as u16;
            if y >= inner.bottom() {
                break;
            }
            let at = top + k;
            let style = if self.focused && at == self.cursor {
                Some(theme.style(Role::Selection))
            } else if self.mark == Some(at) {
                Some(theme.style(Role::Highlight))
            } else {
                None
            };
            draw_row(y, style, &r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_of_one_cell_is_drawn_as_ratatui_draws_it() {
        let simple: Vec<char> = ('\u{0}'..='\u{2ff}')
            .filter(|c| one_cell_each(&c.to_string()).is_some())
            .collect();
        assert_eq!(simple.len(), 95 + 0x250 - 0xa0 - 1);
        for c in simple {
            // After a combining-free letter the next character starts a cell of its own.
            let text = format!("{c}x{c}");
            let mut buf = ratatui::buffer::Buffer::empty(Rect::new(0, 0, 4, 1));
            buf.set_stringn(0, 0, &text, 4, Style::default());
            let cells: Vec<&str> = (0..4).map(|x| buf[(x, 0)].symbol()).collect();
            assert_eq!(cells, [&c.to_string(), "x", &c.to_string(), " "], "{c:?}");
            assert_eq!(one_cell_each(&text), Some(text.width()), "{c:?}");
        }
        assert_eq!(one_cell_each("Mäkinen, Jörö"), Some(13));
        // A combining mark, a wide character, a control and the soft hyphen take the long way.
        for text in ["A\u{308}", "李", "a\tb", "a\u{ad}b"] {
            assert_eq!(one_cell_each(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_cell_written_the_short_way_is_the_cell_the_long_way_writes() {
        let texts = [
            "",
            "7",
            "1-0",
            "½-½",
            "Mäkinen, Jörö",
            "12 Yılmaz, Şükrü Çağatay",
            "A\u{308}bc",
            "李小龍",
        ];
        for ellipsis in ["…", "~"] {
            for text in texts {
                for w in 0..16u16 {
                    for right in [false, true] {
                        let area = Rect::new(0, 0, 20, 1);
                        let mut short = Buffer::empty(area);
                        write_cell(&mut short, (2, 0, w), right, text, ellipsis);
                        let mut long = Buffer::empty(area);
                        write_cut(&mut long, (2, 0, w), right, text, ellipsis);
                        assert_eq!(
                            short, long,
                            "{text:?} in {w} cells (right: {right}, {ellipsis})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn titles_keep_whole_parts_and_never_cut_a_figure() {
        let t = "Standings · period 2026-06-01 · rated with the list of 2026-03-01";
        assert_eq!(
            fit_title(t, Some("row 2 of 3"), 80),
            format!("{t} · row 2 of 3")
        );
        assert_eq!(
            fit_title(t, Some("row 2 of 3"), 42),
            "Standings · period 2026-06-01 · row 2 of 3"
        );
        assert_eq!(
            fit_title(t, Some("row 2 of 3"), 30),
            "Standings · period 2026-06-01"
        );
        assert_eq!(
            fit_title("2 players at or within 100 of 2400", None, 20),
            "2 players at or…"
        );
        assert!(fit_title("2 players at or within 100 of 2400", None, 20).width() <= 20);
    }

    #[test]
    fn figures_are_whole_names_narrow_first_then_the_least_needed_column_goes() {
        let columns = vec![
            Column::text("Name", 8, 20),
            Column::figure("Old", 12),
            Column::figure("New", 15),
            Column::whole("Factors", 1),
        ];
        let needed = [20, 4, 4, 14];
        // Everything fits: the name takes what is left over.
        assert_eq!(
            fit(60, &columns, &needed),
            vec![Some(35), Some(4), Some(4), Some(14)]
        );
        // Narrower: the name first, to a comfortable width…
        assert_eq!(
            fit(41, &columns, &needed),
            vec![Some(16), Some(4), Some(4), Some(14)]
        );
        // …then the optional factors go, and the name widens again.
        assert_eq!(
            fit(40, &columns, &needed),
            vec![Some(30), Some(4), Some(4), None]
        );
        assert_eq!(
            fit(26, &columns, &needed),
            vec![Some(16), Some(4), Some(4), None]
        );
        // Then the name narrows to its minimum, then more columns go; a figure never narrows.
        assert_eq!(
            fit(18, &columns, &needed),
            vec![Some(8), Some(4), Some(4), None]
        );
        assert_eq!(
            fit(14, &columns, &needed),
            vec![Some(9), None, Some(4), None]
        );
    }

    #[test]
    fn the_cursor_stays_in_view_and_mid_window() {
        assert_eq!(window(0, 284, 18), 0);
        assert_eq!(window(9, 284, 18), 0);
        assert_eq!(window(100, 284, 18), 91);
        assert_eq!(window(283, 284, 18), 266);
        assert_eq!(window(5, 10, 18), 0);
    }

    #[test]
    fn text_is_cut_by_display_width() {
        assert_eq!(cut("Järvinen, Aino", 9, "…"), "Järvinen…");
        assert_eq!(cut("山田, 太郎", 5, "…"), "山田…");
        assert_eq!(cut("Aho", 5, "…"), "Aho");
        assert_eq!(position(2, 284), "row 3 of 284");
    }
}
