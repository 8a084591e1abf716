//! Imports, for every rulebook and every front end (the command line, the workstation, the
//! bench): `rate` documents, arbiters' TRF files, FIDE's rating lists and the federation's
//! national list. Each reads and checks every file before anything is written, finds players
//! with the one [`matcher`], says what it will do, and applies it as audited edits. Errors are
//! [`ImportError`]: what was wrong and where, told apart from a database that failed.

pub mod fide_list;
pub mod json;
pub mod matcher;
pub mod national_csv;
pub mod trf;

use std::path::{Path, PathBuf};

use super::{Desk, DeskError, Federation};
use crate::model::PlayerInfo;
use crate::store::StoreError;

/// Why an import cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file that cannot be read, or that is not what the import reads: where and what.
    #[error("{}: {message}", file.display())]
    File { file: PathBuf, message: String },
    /// A document or a backup of another rulebook than the database's.
    #[error(
        "{}: the file is for the '{found}' rulebook, but the database keeps '{wanted}'; import it into a database of its own (`ratedesk --db DIR init --rules {found}`)",
        file.display()
    )]
    OtherRulebook {
        file: PathBuf,
        found: String,
        wanted: String,
    },
    /// A FIDE list that cannot be read, with the place.
    #[error(transparent)]
    List(#[from] crate::import::fide_list::ListError),
    /// An option that cannot be used as given.
    #[error("{0}")]
    Option(String),
    /// The edit the import makes is refused, or the database failed.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        ImportError::Desk(DeskError::Store(e))
    }
}

impl ImportError {
    pub(crate) fn file(file: &Path, message: impl std::fmt::Display) -> Self {
        ImportError::File {
            file: file.to_path_buf(),
            message: message.to_string(),
        }
    }

    /// Whether the input was wrong (a file, an option, an edit the data refuses), not the
    /// database.
    pub fn is_input(&self) -> bool {
        match self {
            ImportError::File { .. }
            | ImportError::OtherRulebook { .. }
            | ImportError::List(_)
            | ImportError::Option(_) => true,
            ImportError::Desk(e) => e.is_input(),
        }
    }
}

/// A new player's FIDE history from FIDE's lists held as reference, when they know him.
pub fn with_reference<R: Federation>(
    desk: &Desk<R>,
    mut info: PlayerInfo,
) -> Result<PlayerInfo, StoreError> {
    let Some(id) = info.fide_id else {
        return Ok(info);
    };
    if let Some(reference) = desk.store().fide_reference(id)? {
        for entry in reference.lists {
            if !info.fide.iter().any(|e| e.list_date == entry.list_date) {
                info.fide.push(entry);
            }
        }
        info.fide.sort_by_key(|e| e.list_date);
        if info.sex.is_none() {
            info.sex = reference.sex;
        }
    }
    Ok(info)
}
