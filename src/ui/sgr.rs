//! The terminal's output as a terminal of 8 or 16 colours reads it. crossterm writes every
//! colour in the 256-colour form (`ESC[38;5;9m`, even for the sixteen ANSI colours), which the
//! Linux console and a plain `TERM=xterm` need not know: for such a terminal the sixteen ANSI
//! colours are written in their own form (`ESC[91m`), and underline colours, which they do not
//! know either, are left out. Everything else passes through unchanged.

use std::io::{self, Write};

/// A writer that rewrites colour sequences for a terminal of 8 or 16 colours (`sixteen`), or
/// passes every byte through (a terminal of 256 colours or more).
pub struct Sgr<W: Write> {
    out: W,
    sixteen: bool,
    /// Bytes written and not yet passed on: whole sequences are rewritten, and a sequence may
    /// arrive over several writes.
    buffer: Vec<u8>,
}

impl<W: Write> Sgr<W> {
    pub fn new(out: W, sixteen: bool) -> Self {
        Self {
            out,
            sixteen,
            buffer: Vec::new(),
        }
    }

    /// Rewrites the complete sequences in the buffer and passes them on; an unfinished
    /// sequence at its end is kept for the next write.
    fn pass_complete(&mut self) -> io::Result<()> {
        let mut done = Vec::with_capacity(self.buffer.len());
        let mut i = 0;
        let bytes = &self.buffer;
        while i < bytes.len() {
            if bytes[i] != 0x1b {
                done.push(bytes[i]);
                i += 1;
                continue;
            }
            if i + 1 >= bytes.len() {
                break;
            }
            if bytes[i + 1] != b'[' {
                done.push(bytes[i]);
                i += 1;
                continue;
            }
            // A control sequence: parameters, then one final byte in 0x40..=0x7e.
            let Some(end) = bytes[i + 2..]
                .iter()
                .position(|b| (0x40..=0x7e).contains(b))
                .map(|p| i + 2 + p)
            else {
                break;
            };
            if bytes[end] == b'm' {
                rewrite(&bytes[i + 2..end], &mut done);
            } else {
                done.extend_from_slice(&bytes[i..=end]);
            }
            i = end + 1;
        }
        self.buffer.drain(..i);
        self.out.write_all(&done)
    }
}

/// One SGR sequence's parameters rewritten: `38;5;N` and `48;5;N` for N below 16 in the
/// eight-colour (30–37, 40–47) and bright (90–97, 100–107) forms; underline colours (`58;…`,
/// `59`) left out. A sequence left with nothing is not written.
fn rewrite(params: &[u8], out: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(params);
    let parts: Vec<&str> = text.split(';').collect();
    let mut kept: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        match parts[i] {
            "38" | "48" | "58" if parts.get(i + 1) == Some(&"5") => {
                let n: Option<u8> = parts.get(i + 2).and_then(|n| n.parse().ok());
                let base = if parts[i] == "38" { 30 } else { 40 };
                match n {
                    _ if parts[i] == "58" => {}
                    Some(n) if n < 8 => kept.push((base + u16::from(n)).to_string()),
                    Some(n) if n < 16 => kept.push((base + 60 + u16::from(n) - 8).to_string()),
                    _ => kept.extend(
                        parts[i..(i + 3).min(parts.len())]
                            .iter()
                            .map(|p| p.to_string()),
                    ),
                }
                i += 3;
            }
            "58" if parts.get(i + 1) == Some(&"2") => i += 5,
            "59" => i += 1,
            other => {
                kept.push(other.to_string());
                i += 1;
            }
        }
    }
    if kept.is_empty() && !parts.iter().all(|p| p.is_empty()) {
        return;
    }
    out.extend_from_slice(b"\x1b[");
    out.extend_from_slice(kept.join(";").as_bytes());
    out.push(b'm');
}

impl<W: Write> Write for Sgr<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.sixteen {
            return self.out.write(buf);
        }
        self.buffer.extend_from_slice(buf);
        self.pass_complete()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.sixteen {
            self.pass_complete()?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(sixteen: bool, writes: &[&[u8]]) -> Vec<u8> {
        let mut sgr = Sgr::new(Vec::new(), sixteen);
        for w in writes {
            sgr.write_all(w).expect("write");
        }
        sgr.flush().expect("flush");
        sgr.out
    }

    #[test]
    fn the_sixteen_colours_are_written_in_their_own_form() {
        let out = through(true, &[b"a\x1b[38;5;9mred\x1b[48;5;4mblue\x1b[38;5;1;1mb"]);
        assert_eq!(out, b"a\x1b[91mred\x1b[44mblue\x1b[31;1mb");
    }

    #[test]
    fn a_sequence_split_over_writes_is_rewritten_whole() {
        let out = through(true, &[b"x\x1b", b"[38;", b"5;15", b"mz"]);
        assert_eq!(out, b"x\x1b[97mz");
    }

    #[test]
    fn underline_colours_go_and_everything_else_passes() {
        let out = through(true, &[b"\x1b[59m\x1b[0m\x1b[2J\x1b[1;1H\x1b[38;5;200mq"]);
        assert_eq!(out, b"\x1b[0m\x1b[2J\x1b[1;1H\x1b[38;5;200mq");
        let same: &[u8] = b"\x1b[38;5;9m\x1b[59m";
        assert_eq!(through(false, &[same]), same);
    }

    /// A buffer the test keeps a handle on while the terminal writes into it.
    #[derive(Clone, Default)]
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn what_ratatui_writes_for_a_red_cell_reaches_the_terminal_as_ansi_red() {
        use ratatui::backend::CrosstermBackend;
        use ratatui::style::{Color, Style};
        let screen = Shared::default();
        let mut terminal = ratatui::Terminal::with_options(
            CrosstermBackend::new(Sgr::new(screen.clone(), true)),
            ratatui::TerminalOptions {
                viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, 1, 1)),
            },
        )
        .expect("terminal");
        terminal
            .draw(|frame| {
                frame.render_widget(
                    ratatui::widgets::Paragraph::new("x").style(Style::new().fg(Color::LightRed)),
                    ratatui::layout::Rect::new(0, 0, 1, 1),
                )
            })
            .expect("draw");
        let out = String::from_utf8_lossy(&screen.0.borrow()).into_owned();
        assert!(
            out.contains("\x1b[91;") || out.contains("\x1b[91m"),
            "{out:?}"
        );
        assert!(!out.contains("38;5"), "{out:?}");
    }
}
