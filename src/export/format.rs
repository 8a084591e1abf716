//! How pages are written for people: text tables, HTML, and the page a report or a list is
//! printed as (its figures are written by [`crate::figures`]).

pub use crate::figures::{decimal_points, expected, half_points, performance, rating, signed};

/// Text safe inside HTML.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A text table with columns padded to their widest cell (by display width); `right` marks
/// the columns aligned right.
pub fn text_table(header: &[&str], rows: &[Vec<String>], right: &[bool]) -> String {
    use unicode_width::UnicodeWidthStr;
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.width());
            }
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (i, cell) in cells.enumerate() {
            let pad = widths[i].saturating_sub(cell.width());
            if i > 0 {
                out.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            }
        }
        out.trim_end().to_string()
    };
    let mut out = line(&mut header.iter().copied());
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)));
    out.push('\n');
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
        out.push('\n');
    }
    out
}

/// How a page is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    Text,
    Html,
}

/// A printable page: a title, lines of text, and one table.
pub struct Page {
    pub title: String,
    pub above: Vec<String>,
    pub header: &'static [&'static str],
    /// The columns aligned right in text.
    pub right: &'static [bool],
    pub rows: Vec<Vec<String>>,
    /// Lines at the foot of the page (the audit head of a published list).
    pub below: Vec<String>,
}

impl Page {
    pub fn render(&self, kind: PageKind) -> String {
        match kind {
            PageKind::Text => {
                let mut out = format!("{}\n{}\n\n", self.title, self.above.join("\n"));
                out.push_str(&text_table(self.header, &self.rows, self.right));
                if !self.below.is_empty() {
                    out.push('\n');
                    for line in &self.below {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
                out
            }
            PageKind::Html => {
                let page = html_page(&self.title, &self.above, self.header, &self.rows);
                if self.below.is_empty() {
                    return page;
                }
                let foot: String = self
                    .below
                    .iter()
                    .map(|line| format!("<p>{}</p>\n", html(line)))
                    .collect();
                page.replacen("</body>", &format!("<footer>\n{foot}</footer>\n</body>"), 1)
            }
        }
    }
}

/// An HTML page with one table: a title, lines of text above the table, and the table.
pub fn html_page(title: &str, above: &[String], header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"fi\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!("<title>{}</title>\n", html(title)));
    out.push_str(
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}\
         th,td{padding:2px 8px;border-bottom:1px solid #ccc}td.n{text-align:right}\
         @media print{th,td{border-bottom:1px solid #888}}</style>\n",
    );
    out.push_str("</head>\n<body>\n");
    out.push_str(&format!("<h1>{}</h1>\n", html(title)));
    for line in above {
        out.push_str(&format!("<p>{}</p>\n", html(line)));
    }
    out.push_str("<table>\n<thead><tr>");
    for h in header {
        out.push_str(&format!("<th>{}</th>", html(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let numeric = !cell.is_empty()
                && cell
                    .chars()
                    .all(|c| c.is_ascii_digit() || "+-−±½.,∞–".contains(c));
            if numeric {
                out.push_str(&format!("<td class=\"n\">{}</td>", html(cell)));
            } else {
                out.push_str(&format!("<td>{}</td>", html(cell)));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_by_display_width() {
        let t = text_table(
            &["Name", "Selo"],
            &[
                vec!["Mäkelä, Eero".into(), "1850".into()],
                vec!["Ek, A".into(), "912".into()],
            ],
            &[false, true],
        );
        assert_eq!(
            t,
            "Name          Selo\n------------------\nMäkelä, Eero  1850\nEk, A          912\n"
        );
        assert!(html_page("A & B", &[], &["x"], &[vec!["<b>".into()]]).contains("&lt;b&gt;"));
    }
}
