//! Iceland's demo federation: players named in Icelandic (a first name and a patronymic,
//! -son or -dóttir), a rated half with the 2400 mark reached by the strongest, unrated players
//! on their way to an initial rating (some with provisional games already), and the events
//! Iceland plays over its quarterly periods: club championships a round a week (some running
//! over a list date, their rounds split between two periods), weekend opens, the Reykjavík
//! Open with foreign guests, the national championship as a round robin, a junior
//! championship, rapid events (not rated), an event abroad (not rated), and results received
//! late — after the list date of their period — which are rated in the period of receipt.

use chrono::Days;

use super::play::{
    Play, ages, date, date_rounds, event as new_event, first_name, person, push_event, push_player,
    tc,
};
use super::{Generated, Params, opens_per_year};
use crate::book::Book;
use crate::model::{FideEntry, PlayerIdx, PlayerInfo, Sex};
use crate::rules::isl::{Isl, IslState, Provisional};

const FIRST_M: [&str; 30] = [
    "Jón",
    "Guðmundur",
    "Sigurður",
    "Gunnar",
    "Ólafur",
    "Einar",
    "Kristján",
    "Magnús",
    "Stefán",
    "Jóhann",
    "Björn",
    "Árni",
    "Helgi",
    "Hannes",
    "Þröstur",
    "Héðinn",
    "Hjörvar",
    "Bragi",
    "Davíð",
    "Þorsteinn",
    "Ævar",
    "Sæþór",
    "Ýmir",
    "Örn",
    "Halldór",
    "Páll",
    "Friðrik",
    "Vignir",
    "Dagur",
    "Aron",
];
const FIRST_F: [&str; 20] = [
    "Guðrún",
    "Anna",
    "Kristín",
    "Sigríður",
    "Margrét",
    "Helga",
    "Jóhanna",
    "Þóra",
    "Ásdís",
    "Hallgerður",
    "Lilja",
    "Sólveig",
    "Björk",
    "Ýr",
    "Ásta",
    "Eyrún",
    "Hrund",
    "Þórdís",
    "Æsa",
    "Hólmfríður",
];
/// Fathers' names as a patronymic begins them (the genitive): `Guðmunds` + `son`.
const FATHERS: [&str; 30] = [
    "Jóns",
    "Guðmunds",
    "Sigurðar",
    "Gunnars",
    "Ólafs",
    "Einars",
    "Kristjáns",
    "Magnús",
    "Stefáns",
    "Jóhanns",
    "Björns",
    "Árna",
    "Helga",
    "Hannes",
    "Þrastar",
    "Halldórs",
    "Páls",
    "Friðriks",
    "Þorsteins",
    "Ævars",
    "Arnar",
    "Davíðs",
    "Braga",
    "Hjartar",
    "Þórs",
    "Sæmundar",
    "Ingvars",
    "Haralds",
    "Eiríks",
    "Finnboga",
];
const CLUBS: [&str; 10] = [
    "Taflfélag Reykjavíkur",
    "Skákfélag Akureyrar",
    "Skákdeild Breiðabliks",
    "Taflfélag Garðabæjar",
    "Skákfélag Selfoss",
    "Skákdeild Fjölnis",
    "Taflfélag Vestmannaeyja",
    "Skákfélagið Huginn",
    "Skákdeild KR",
    "Skákfélag Ísafjarðar",
];
/// Players' clubs, as the lists shorten them.
const CLUB_NAMES: [&str; 10] = [
    "TR",
    "SA",
    "Breiðablik",
    "TG",
    "Selfoss",
    "Fjölnir",
    "TV",
    "Huginn",
    "KR",
    "Ísafjörður",
];
const TOWNS: [&str; 8] = [
    "Reykjavík",
    "Kópavogur",
    "Hafnarfjörður",
    "Akureyri",
    "Egilsstaðir",
    "Húsavík",
    "Borgarnes",
    "Sauðárkrókur",
];
const FOREIGN: [(&str, &str); 8] = [
    ("NOR", "Hansen, Magnus"),
    ("FAI", "Joensen, Rógvi"),
    ("DEN", "Jensen, Frederik"),
    ("SWE", "Lindqvist, Oskar"),
    ("ENG", "Wright, Oliver"),
    ("GER", "Schulz, Jonas"),
    ("POL", "Nowak, Piotr"),
    ("USA", "Miller, Ethan"),
];

struct Generator {
    play: Play,
    book: Book<Isl>,
    icelanders: Vec<PlayerIdx>,
    foreign: Vec<PlayerIdx>,
}

impl Generator {
    fn new(p: &Params) -> Self {
        let mut g = Self {
            play: Play::seeded(p.seed, 0xA24B_AED4_963E_E407),
            book: Book::default(),
            icelanders: Vec::new(),
            foreign: Vec::new(),
        };
        let first_year = p.last_year - p.years as i32 + 1;
        for k in 0..p.players {
            let rng = &mut g.play.rng;
            let (female, first) = first_name(rng, 4, &FIRST_F, &FIRST_M);
            let father = FATHERS[rng.below(FATHERS.len())];
            let (age, born, strength) = person(rng, first_year);
            let fide_id = (strength > 1800.0 && rng.below(3) > 0).then(|| 2_300_000 + k as u64);
            let info = PlayerInfo {
                reentries: Vec::new(),
                id: format!("ISL{:05}", 10_000 + k),
                name: format!("{father}{}, {first}", if female { "dóttir" } else { "son" }),
                federation: None,
                // Not drawn from the generator, so every other draw stays as it was.
                club: Some(CLUB_NAMES[(k * 7 + k / CLUB_NAMES.len()) % CLUB_NAMES.len()].into()),
                fide_id,
                born: Some(born),
                sex: Some(if female { Sex::Female } else { Sex::Male }),
                fide: Vec::new(),
                national: Vec::new(),
            };
            // About half the federation is rated when the generated years begin; some of the
            // others have a few games towards an initial rating.
            let seed = if rng.below(2) == 0 && age > 12 {
                let rating = strength.round().clamp(1000.0, 2650.0) as i32;
                Some(IslState::rated(rating, 20 + rng.below(400) as u32, false))
            } else if rng.below(3) == 0 {
                let games = 1 + rng.below(4) as u32;
                let opponents = 1500 + rng.below(300) as i64;
                Some(IslState::Provisional(Provisional {
                    games,
                    opponents_sum: opponents * i64::from(games),
                    score: rng.below(games as usize * 2 + 1) as u32,
                }))
            } else {
                None
            };
            let idx = push_player(&mut g.book, &mut g.play, info, vec![seed], strength);
            g.icelanders.push(idx);
        }
        // Foreign guests of the Reykjavík Open enter with their FIDE rating.
        for (k, (fed, name)) in FOREIGN.iter().enumerate() {
            let elo = 2250 + 45 * k as i32;
            let fide = (0..p.years)
                .map(|y| FideEntry {
                    list_date: date(first_year + y as i32, 1, 1),
                    standard: Some(elo + 4 * y as i32),
                    rapid: None,
                    blitz: None,
                })
                .collect();
            let info = PlayerInfo {
                id: format!("{fed}{}", 100 + k),
                name: (*name).into(),
                federation: Some((*fed).into()),
                fide_id: Some(1_900_000 + k as u64),
                fide,
                ..PlayerInfo::default()
            };
            let seed = IslState::rated(elo, 100, false);
            let idx = push_player(
                &mut g.book,
                &mut g.play,
                info,
                vec![Some(seed)],
                f64::from(elo),
            );
            g.foreign.push(idx);
        }
        g
    }

    fn year(&mut self, year: i32, opens: usize) {
        let age = ages(&self.book, year);
        let adults: Vec<PlayerIdx> = self
            .icelanders
            .iter()
            .copied()
            .filter(|&p| age[p] >= 14)
            .collect();
        let juniors: Vec<PlayerIdx> = self
            .icelanders
            .iter()
            .copied()
            .filter(|&p| age[p] <= 16)
            .collect();
        let clubs = (opens * 2 / 3).max(1);
        // Club championships, a round a week for seven weeks: the winter ones run over the
        // 1 March list date, the autumn ones over 1 December now and then.
        for k in 0..clubs {
            let club = CLUBS[(k / 2) % CLUBS.len()];
            // More events than clubs: the next groups of the same club (A, B, …).
            let group = match (k / 2) / CLUBS.len() {
                0 => String::new(),
                g => format!(" {}-flokkur", char::from(b'A' + (g % 26) as u8)),
            };
            let winter = k % 2 == 0;
            let (season, start) = if winter {
                let weeks = (k as u64 / 2 + 2) % 6;
                ("Skákþing", date(year, 1, 8) + Days::new(7 * weeks))
            } else {
                let weeks = (k as u64 / 2 + 3) % 8;
                ("Haustmót", date(year, 9, 10) + Days::new(7 * weeks))
            };
            let size = 14 + self.play.rng.below(26);
            let field = self.play.field(&adults, size);
            let mut event = new_event(
                format!("{year}-club-{k:03}"),
                format!("{season} {club} {year}{group}"),
                start,
                42,
                tc(90, 30),
            );
            self.play.swiss(&mut event, field, 7);
            date_rounds(&mut event);
            // Now and then the results reach the federation after the list date that closes
            // their period: they are rated in the period of receipt.
            if self.play.rng.below(6) == 0 {
                let late = crate::rules::isl::period_of(event.end).name + Days::new(3);
                event.received = Some(late);
            }
            push_event(&mut self.book, event);
        }
        // Weekend opens through the year.
        let weekends = opens.saturating_sub(clubs).max(1);
        for k in 0..weekends {
            let start = date(year, 1, 12) + Days::new((k as u64 * 340) / weekends as u64);
            let size = 20 + self.play.rng.below(30);
            let field = self.play.field(&adults, size);
            let town = TOWNS[k % TOWNS.len()];
            let mut event = new_event(
                format!("{year}-open-{k:03}"),
                format!("Helgarmót {town} {year}/{}", k + 1),
                start,
                2,
                tc(90, 30),
            );
            let rounds = 5 + self.play.rng.below(3) as u32;
            self.play.swiss(&mut event, field, rounds);
            date_rounds(&mut event);
            push_event(&mut self.book, event);
        }
        // The Reykjavík Open: the strongest Icelanders and the foreign guests.
        let mut strongest = adults.clone();
        strongest.sort_by(|a, b| self.play.strength[*b].total_cmp(&self.play.strength[*a]));
        let mut field: Vec<PlayerIdx> = strongest.iter().copied().take(30).collect();
        field.extend(self.play.field(&adults, 30));
        field.sort_unstable();
        field.dedup();
        field.extend(self.foreign.iter().copied());
        let mut event = new_event(
            format!("{year}-reykjavik-open"),
            format!("Reykjavíkurskákmótið {year}"),
            date(year, 4, 8),
            8,
            tc(90, 30),
        );
        self.play.swiss(&mut event, field, 9);
        date_rounds(&mut event);
        push_event(&mut self.book, event);
        // The national championship: a round robin of the ten strongest.
        let mut event = new_event(
            format!("{year}-championship"),
            format!("Skákþing Íslands {year}"),
            date(year, 8, 20),
            9,
            tc(90, 30),
        );
        self.play
            .round_robin(&mut event, strongest.iter().copied().take(10).collect());
        date_rounds(&mut event);
        push_event(&mut self.book, event);
        // The junior championship: many play their first rated games here.
        if juniors.len() >= 8 {
            let size = 16 + self.play.rng.below(16);
            let field = self.play.field(&juniors, size);
            let mut event = new_event(
                format!("{year}-juniors"),
                format!("Unglingameistaramót Íslands {year}"),
                date(year, 10, 18),
                1,
                tc(60, 15),
            );
            self.play.swiss(&mut event, field, 7);
            date_rounds(&mut event);
            push_event(&mut self.book, event);
        }
        // Rapid events: under 60 minutes, not rated.
        for (k, month) in [2u32, 11].into_iter().enumerate() {
            let size = 24 + self.play.rng.below(24);
            let field = self.play.field(&self.icelanders.clone(), size);
            let mut event = new_event(
                format!("{year}-rapid-{k}"),
                format!("Atskákmót Reykjavíkur {year}/{}", k + 1),
                date(year, month, 16),
                0,
                tc(15, 5),
            );
            self.play.swiss(&mut event, field, 7);
            push_event(&mut self.book, event);
        }
        // Abroad: not rated in Iceland.
        let field = self.play.field(&adults, 8);
        let mut event = new_event(
            format!("{year}-abroad"),
            format!("Xtracon Open {year}"),
            date(year, 7, 1),
            8,
            tc(90, 30),
        );
        event.abroad = true;
        self.play.swiss(&mut event, field, 9);
        push_event(&mut self.book, event);
        self.play.drift(|p| age[p]);
    }
}

/// Generates an Icelandic federation. The events come in year order; the ranges give, per
/// year, the events of that year (so a caller can write them as one edit a year).
pub fn generate(p: &Params) -> Generated<Isl> {
    let mut g = Generator::new(p);
    let opens = opens_per_year(p);
    let mut years = Vec::new();
    for year in (p.last_year - p.years as i32 + 1)..=p.last_year {
        let from = g.book.events.len();
        g.year(year, opens);
        years.push(from..g.book.events.len());
    }
    (g.book, years)
}
