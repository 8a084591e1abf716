//! Reading the files other programs write: arbiters' tournament reports (TRF). Parsers only
//! read; what a file becomes in the database goes through the edit API.

pub mod fide_list;
pub mod selo_csv;
pub mod trf;
pub mod trf_event;
