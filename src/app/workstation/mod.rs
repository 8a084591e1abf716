//! The workstation's state: tabs, focus, popups, forms, the status line and the window's size,
//! and what each tab does with a key. It drives the use-cases of [`crate::app`] (edits, imports,
//! queries, publishing) and holds no terminal: `ui/` draws it and feeds it keys. The use-cases
//! never reach in here (`boundaries::the_use_cases_never_import_the_workstation`).

pub mod action;
pub mod confirming;
mod copies;
mod editing;
pub mod forms;
pub mod front;
mod kept;
pub mod offers;
pub mod paths;
pub mod period;
mod players;
mod popups;
pub mod state;
pub mod titles;
mod tournaments;
pub mod undoing;
pub mod views;
