//! Writing files for people and other programs: the FIDE tournament report (TRF), the national
//! rating list, per-event rating reports and players' histories.

pub mod format;
pub mod history;
pub mod list;
pub mod report;
pub mod trf;
