//! The front page: what the Players tab shows before anything is typed, kept beside the
//! database when the workstation closes ([`App::close`]) and drawn as the first frame of the
//! next opening while the database loads behind it. The store decides whether a kept page still
//! shows the database as it is ([`crate::store::read_front`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::state::App;
use crate::app::{DeskError, Federation};

/// Rows of the list kept: more than any terminal shows at once.
pub const FRONT_ROWS: usize = 200;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontPage {
    /// The tab bar's counts: active players and live events.
    pub counts: (usize, usize),
    /// Players in the list (its title).
    pub listed: usize,
    /// The list's first rows, cell by cell as drawn ([`App::list_row`]).
    pub rows: Vec<Vec<String>>,
}

impl FrontPage {
    /// The front page kept for the database of `rulebook` in `dir`, if it shows the database
    /// as it is now.
    pub fn read<R: Federation>(dir: &Path, rulebook: &R) -> Option<Self> {
        crate::store::read_front(dir, rulebook.code())
    }
}

impl<R: Federation> App<R> {
    /// The front page of the database as it is now.
    pub fn front_page(&self) -> FrontPage {
        let list = self.search.search("");
        FrontPage {
            counts: self.counts(),
            listed: list.len(),
            rows: list
                .iter()
                .take(FRONT_ROWS)
                .map(|&p| self.list_row(p))
                .collect(),
        }
    }

    /// Closes the workstation: keeps the front page and the player search's index for the next
    /// opening, then closes the desk. One that cannot be written costs only the next opening
    /// (its first frame, or the index made again); the warning says so.
    pub fn close(mut self) -> Result<Option<String>, DeskError> {
        // What it keeps (the serving of a database it took over, with its reads) stops first.
        self.kept.clear();
        let front = self.desk.save_front(&self.front_page());
        // The index as the players stand (made again after every edit that changed them); a
        // workstation on a copy of the record keeps none (its store is a scratch copy).
        let search = (self.search_is_current() && !self.desk.is_replica())
            .then(|| self.desk.save_search(&self.search.kept()));
        self.desk.close()?;
        let warning = match (front, search) {
            (Err(e), _) => Some(format!(
                "the front page for the next opening could not be kept: {e}"
            )),
            (Ok(()), Some(Err(e))) => Some(format!(
                "the player search's index for the next opening could not be kept: {e}"
            )),
            _ => None,
        };
        Ok(warning)
    }
}
