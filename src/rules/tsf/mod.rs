//! The Turkish rulebook (Türkiye Satranç Federasyonu, TSF-TK-PRS/05 rev. 03, 1.10.2014): the
//! national rating UKD on three lists.

pub mod calendar;
pub mod method;
pub mod rated;
pub mod tables;
pub mod unrated;
