//! Writing files for other programs: the FIDE tournament report (TRF).

pub mod trf;
