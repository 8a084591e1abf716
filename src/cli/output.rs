//! What the command line writes: control characters that came with the data (a name or id
//! from an imported file) never reach the terminal raw, where an escape sequence could rewrite
//! the screen or forge a line. They are written as `\u00XX`, which also keeps JSON valid.

use std::borrow::Cow;
use std::io::Write;

/// Whether a character is escaped: C0 and C1 controls and DEL, except the line breaks and tabs
/// a text document is made of (`keep_lines`), and the bidirectional controls that reorder the
/// text around them on a terminal.
fn escaped(c: char, keep_lines: bool) -> bool {
    (c.is_control() && !(keep_lines && matches!(c, '\n' | '\t'))) || crate::app::is_bidi_control(c)
}

/// The UTF-8 lead bytes of the escaped characters beyond ASCII: 0xC2 (C1 controls), 0xD8
/// (U+061C) and 0xE2 (U+200E–U+206F), with the length of their sequences.
fn escaped_lead(b: u8) -> Option<usize> {
    match b {
        0xc2 | 0xd8 => Some(2),
        0xe2 => Some(3),
        _ => None,
    }
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| escaped(c, keep_lines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c, keep_lines) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A one-line field (an id, a name, an audit action): every control character escaped,
/// newlines included, so it cannot start a line of its own.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// A message or document: control characters escaped, its own line breaks and tabs kept.
pub fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// A writer that escapes control characters (but newlines and tabs) in everything written
/// through it: every text output of the command line passes through one.
pub struct Escaping<W: Write> {
    inner: W,
    /// The first bytes of a UTF-8 sequence left at the end of the last write.
    pending: Vec<u8>,
}

impl<W: Write> Escaping<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Most output has nothing to escape: passed on as it is.
        let plain =
            |b: &u8| !matches!(*b, 0x00..=0x08 | 0x0b..=0x1f | 0x7f) && escaped_lead(*b).is_none();
        if self.pending.is_empty() && buf.iter().all(plain) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(buf);
        let mut out = Vec::with_capacity(data.len());
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            match (b, escaped_lead(b)) {
                (b'\n' | b'\t', _) => out.push(b),
                (0x00..=0x1f | 0x7f, _) => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
                (_, Some(len)) => {
                    // A character cut by the end of this write: kept for the next.
                    let Some(seq) = data.get(i..i + len) else {
                        self.pending = data[i..].to_vec();
                        break;
                    };
                    match std::str::from_utf8(seq).ok().and_then(|s| s.chars().next()) {
                        Some(c) if escaped(c, true) => {
                            out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                        }
                        Some(_) => out.extend_from_slice(seq),
                        // Not UTF-8: the lead byte alone, and what follows it read afresh (a
                        // control among those bytes is escaped like any other).
                        None => {
                            out.push(b);
                            i += 1;
                            continue;
                        }
                    }
                    i += len;
                    continue;
                }
                _ => out.push(b),
            }
            i += 1;
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            self.inner.write_all(&pending)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Escaping<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_written_as_text() {
        let mut out = Vec::new();
        {
            let mut w = Escaping::new(&mut out);
            writeln!(w, "Name\u{1b}[2J\u{9b}31m\tx").expect("write");
            // A C1 control split across two writes.
            w.write_all(&[0xc2]).expect("write");
            w.write_all(&[0x9b, b'!', 0xc3, 0xa4]).expect("write");
        }
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "Name\\u001b[2J\\u009b31m\tx\n\\u009b!ä"
        );
    }

    #[test]
    fn a_field_stays_on_its_line() {
        assert_eq!(escape_line("e1\n#9 forged"), "e1\\u000a#9 forged");
        assert_eq!(escape_text("a\nb\u{7}"), "a\nb\\u0007");
        assert!(matches!(escape_line("Järvinen"), Cow::Borrowed(_)));
    }

    #[test]
    fn bidirectional_controls_are_written_as_text_and_other_letters_pass() {
        // RLO would show "Aho" as "ohA" and the rest of the line reversed.
        assert_eq!(escape_line("\u{202e}Aho\u{2066}"), "\\u202eAho\\u2066");
        // A lead byte without its sequence does not carry a control through.
        let mut out = Vec::new();
        Escaping::new(&mut out)
            .write_all(&[0xe2, 0x1b, b'[', b'2', b'J'])
            .expect("write");
        assert_eq!(out, b"\xe2\\u001b[2J");
        // Every split of the text into two writes gives the same output, a character cut in
        // two included.
        let bytes = "Ahonen – \u{202e}x → ok\u{61c}".as_bytes();
        for at in 0..=bytes.len() {
            let mut out = Vec::new();
            {
                let mut w = Escaping::new(&mut out);
                w.write_all(&bytes[..at]).expect("write");
                w.write_all(&bytes[at..]).expect("write");
            }
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                "Ahonen – \\u202ex → ok\\u061c",
                "split at {at}"
            );
        }
    }
}
