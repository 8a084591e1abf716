//! What the command line writes: control characters that came with the data (a name or id
//! from an imported file) never reach the terminal raw, where an escape sequence could rewrite
//! the screen or forge a line. They are written as `\u00XX`, which also keeps JSON valid.

use std::borrow::Cow;
use std::io::Write;

/// Whether a character is escaped: C0 and C1 controls and DEL, except the line breaks and tabs
/// a text document is made of (`keep_lines`).
fn escaped(c: char, keep_lines: bool) -> bool {
    c.is_control() && !(keep_lines && matches!(c, '\n' | '\t'))
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
    /// The first byte of a two-byte UTF-8 sequence left at the end of the last write.
    pending: Option<u8>,
}

impl<W: Write> Escaping<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: None,
        }
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Most output has nothing to escape: passed on as it is.
        let plain = |b: &u8| !matches!(*b, 0x00..=0x08 | 0x0b..=0x1f | 0x7f | 0xc2);
        if self.pending.is_none() && buf.iter().all(plain) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut out = Vec::with_capacity(buf.len());
        let mut bytes = buf.iter().copied();
        let mut next = self.pending.take().or_else(|| bytes.next());
        while let Some(b) = next {
            match b {
                b'\n' | b'\t' => out.push(b),
                0x00..=0x1f | 0x7f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
                // U+0080..U+009F, the C1 controls, are 0xC2 0x80..0x9F in UTF-8.
                0xc2 => match bytes.next() {
                    Some(c @ 0x80..=0x9f) => {
                        out.extend_from_slice(format!("\\u{c:04x}").as_bytes())
                    }
                    Some(c) => out.extend_from_slice(&[b, c]),
                    None => self.pending = Some(b),
                },
                _ => out.push(b),
            }
            next = bytes.next();
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(b) = self.pending.take() {
            self.inner.write_all(&[b])?;
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
}
