//! A rating chart: a player's whole career on one list compressed into the width, so the
//! newest games are always at the right edge, with the years along the bottom and the list's
//! lowest and highest rating on the left. Braille dots where the terminal takes UTF-8, `*` in
//! ASCII.

use chrono::{Datelike, NaiveDate};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::draw::block;
use super::theme::{Role, Theme};
use crate::model::Rating;

/// Dots per cell, across and down.
fn resolution(ascii: bool) -> (usize, usize) {
    if ascii { (1, 1) } else { (2, 4) }
}

/// The dots of a line through the points, on a canvas of `width`×`height` dots: time across
/// (first to last date), rating down (`hi` at the top).
fn dots(
    points: &[(NaiveDate, Rating)],
    width: usize,
    height: usize,
    lo: Rating,
    hi: Rating,
) -> Vec<(usize, usize)> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    let span = (last.0 - first.0).num_days().max(1);
    // A career of one day (one event without game dates) is spread game by game.
    let one_day = first.0 == last.0;
    let steps = points.len().saturating_sub(1).max(1);
    let x = |i: usize, d: NaiveDate| {
        if one_day {
            return i * (width - 1) / steps;
        }
        let days = (d - first.0).num_days().clamp(0, span);
        (days as usize * (width - 1)) / span as usize
    };
    let y = |r: Rating| {
        if hi == lo {
            height / 2
        } else {
            ((hi - r) as usize * (height - 1)) / (hi - lo) as usize
        }
    };
    let mut out = Vec::new();
    let mut previous: Option<(usize, usize)> = None;
    for (i, &(d, r)) in points.iter().enumerate() {
        let (px, py) = (x(i, d).max(previous.map_or(0, |p| p.0)), y(r));
        match previous {
            Some((qx, qy)) => {
                let steps = px.abs_diff(qx).max(py.abs_diff(qy)).max(1);
                for s in 0..=steps {
                    let lerp = |a: usize, b: usize| {
                        (a as i64 + (b as i64 - a as i64) * s as i64 / steps as i64) as usize
                    };
                    out.push((lerp(qx, px), lerp(qy, py)));
                }
            }
            None => out.push((px, py)),
        }
        previous = Some((px, py));
    }
    out
}

/// Year marks along `width` cells: (cell, label), not overlapping.
fn year_marks(first: NaiveDate, last: NaiveDate, width: usize) -> Vec<(usize, String)> {
    let span = (last - first).num_days().max(1);
    let mut marks: Vec<(usize, String)> = Vec::new();
    let mut taken_until = 0;
    for year in first.year()..=last.year() {
        let Some(jan) = NaiveDate::from_ymd_opt(year, 1, 1) else {
            continue;
        };
        let day = if jan < first { first } else { jan };
        let at = ((day - first).num_days() as usize * (width - 1)) / span as usize;
        let label = if width / (last.year() - first.year() + 1).max(1) as usize >= 5 {
            year.to_string()
        } else {
            format!("'{:02}", year % 100)
        };
        if at >= taken_until && at + label.len() <= width {
            taken_until = at + label.len() + 1;
            marks.push((at, label));
        }
    }
    marks
}

/// Draws one list's chart in `area` (borders included).
pub(crate) fn draw_chart(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    list: &str,
    points: &[(NaiveDate, Rating)],
) {
    let lo = points.iter().map(|p| p.1).min();
    let hi = points.iter().map(|p| p.1).max();
    let (Some(lo), Some(hi), Some(now)) = (lo, hi, points.last()) else {
        frame.render_widget(
            Paragraph::new("").block(block(theme, format!(" {list}: no rated games "))),
            area,
        );
        return;
    };
    let title = format!(" {list} {} · low {lo} · high {hi} ", now.1);
    let inner_width = usize::from(area.width.saturating_sub(2));
    let inner_height = usize::from(area.height.saturating_sub(2));
    let axis = 5; // "2034 " on the left
    if inner_width <= axis + 2 || inner_height < 2 {
        frame.render_widget(Paragraph::new("").block(block(theme, title)), area);
        return;
    }
    let (cols, rows) = (inner_width - axis, inner_height - 1);
    let (ax, ay) = resolution(theme.ascii);
    let mut canvas = vec![vec![0u8; cols]; rows];
    for (x, y) in dots(points, cols * ax, rows * ay, lo, hi) {
        let (cx, cy) = (x / ax, y / ay);
        if cy < rows && cx < cols {
            canvas[cy][cx] |= if theme.ascii {
                1
            } else {
                // Braille dot numbering: columns of 1-2-3-7 and 4-5-6-8.
                const BITS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
                BITS[x % 2][y % 4]
            };
        }
    }
    let mut lines = Vec::with_capacity(inner_height);
    for (r, row) in canvas.iter().enumerate() {
        let label = if r == 0 {
            format!("{hi:>4} ")
        } else if r + 1 == rows {
            format!("{lo:>4} ")
        } else {
            " ".repeat(axis)
        };
        let plot: String = row
            .iter()
            .map(|&bits| match (bits, theme.ascii) {
                (0, _) => ' ',
                (_, true) => '*',
                (b, false) => char::from_u32(0x2800 + u32::from(b)).unwrap_or('•'),
            })
            .collect();
        lines.push(Line::from(vec![
            Span::styled(label, theme.style(Role::Muted)),
            Span::styled(plot, theme.style(Role::RatingGain)),
        ]));
    }
    let mut bottom = vec![' '; cols];
    for (at, label) in year_marks(points[0].0, now.0, cols) {
        for (i, c) in label.chars().enumerate() {
            bottom[at + i] = c;
        }
    }
    lines.push(Line::from(vec![
        Span::raw(" ".repeat(axis)),
        Span::styled(
            bottom.into_iter().collect::<String>(),
            theme.style(Role::Muted),
        ),
    ]));
    frame.render_widget(Paragraph::new(lines).block(block(theme, title)), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::fixture::ymd as day;

    #[test]
    fn the_newest_game_is_at_the_right_edge_however_many_there_are() {
        // A career of 2 000 games: more than any width. It ends low.
        let mut points: Vec<(NaiveDate, Rating)> = (0..2000)
            .map(|i| (day(2015, 1, 1) + chrono::Days::new(i * 2), 2000))
            .collect();
        points.push((day(2025, 12, 1), 1451));
        let d = dots(&points, 60, 12, 1451, 2000);
        let right = d.iter().filter(|p| p.0 == 59).map(|p| p.1).max();
        assert_eq!(right, Some(11), "the last column reaches the bottom: 1451");
        assert!(d.iter().all(|p| p.0 < 60 && p.1 < 12));
    }

    #[test]
    fn years_are_marked_without_overlap() {
        let marks = year_marks(day(2016, 3, 1), day(2025, 11, 1), 33);
        assert!(marks.len() >= 3, "{marks:?}");
        for w in marks.windows(2) {
            assert!(w[0].0 + w[0].1.len() < w[1].0, "{marks:?}");
        }
        assert!(marks.iter().all(|(at, l)| at + l.len() <= 33));
    }
}
