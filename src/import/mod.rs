//! Reading the files other programs write: arbiters' tournament reports (TRF). Parsers only
//! read; what a file becomes in the database goes through the edit API.

pub mod fide_list;
pub mod national_csv;
pub mod trf;
pub mod trf_event;

/// How large a file read whole may be: a tournament report or the selo service's list is well
/// under a megabyte, a `rate` document or backup of a national federation some tens.
pub const TRF_LIMIT: u64 = 16 << 20;
pub const CSV_LIMIT: u64 = 64 << 20;
pub const DOCUMENT_LIMIT: u64 = 1 << 30;

/// Reads a file whole, refusing one larger than `limit` bytes (or without end, /dev/zero) with
/// a clear message instead of running out of memory.
pub fn read_capped(path: &std::path::Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "larger than {} MB: not a file this command reads",
            limit >> 20
        )));
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text.
pub fn read_capped_text(path: &std::path::Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, limit)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}
