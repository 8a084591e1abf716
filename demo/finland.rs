//! Finland's demo federation: players with Finnish names, birth dates and FIDE ids, and years
//! of events — weekend opens paired by score groups, round robins, a league whose games are
//! each their own rating event (SSL 2.11), rapid and blitz events for pelo, junior events with
//! age limits, and events abroad against foreign players.

use chrono::{Datelike, Days};

use super::play::{Play, date, event as new_event, first_name, person, tc};
use super::{Generated, Params};
use crate::book::Book;
use crate::model::{Event, FideEntry, Game, PlayerIdx, PlayerInfo, Sex, player_u32};
use crate::rules::ssl::{Ssl, SslState};

pub(super) const FIRST_F: [&str; 16] = [
    "Aino", "Helmi", "Sanni", "Kerttu", "Tuuli", "Mervi", "Säde", "Elina", "Maija", "Liisa",
    "Anni", "Venla", "Iida", "Sofia", "Päivi", "Ritva",
];
pub(super) const FIRST_M: [&str; 20] = [
    "Eero", "Väinö", "Onni", "Lauri", "Jaakko", "Otso", "Ilmari", "Sisu", "Pekka", "Juho", "Niilo",
    "Kalle", "Mikko", "Timo", "Jyrki", "Matti", "Antti", "Heikki", "Jussi", "Tapio",
];
pub(super) const LAST: [&str; 40] = [
    "Järvinen",
    "Mäkelä",
    "Hämäläinen",
    "Könönen",
    "Lehtonen",
    "Virtanen",
    "Nieminen",
    "Kärkkäinen",
    "Pöllänen",
    "Salo",
    "Heikkilä",
    "Ylönen",
    "Åberg",
    "Koskinen",
    "Räsänen",
    "Laaksonen",
    "Söderström",
    "Väisänen",
    "Tähtinen",
    "Ahonen",
    "Korhonen",
    "Mäkinen",
    "Lindholm",
    "Hyvönen",
    "Kähkönen",
    "Leppänen",
    "Björklund",
    "Öhman",
    "Rönkä",
    "Sjöberg",
    "Kinnunen",
    "Turunen",
    "Heinonen",
    "Lähteenmäki",
    "Pääkkönen",
    "Saarinen",
    "Niskanen",
    "Östman",
    "Kettunen",
    "Räty",
];
/// Clubs of the Finnish players: a name shared by several players is told apart by birth year
/// and club, as on the officer's lists.
const CLUBS: [&str; 12] = [
    "HSK", "EtVaS", "TuS", "JyS", "OSS", "KuoSK", "LaS", "PorSK", "VaaSK", "SSt", "KoSK", "JoSK",
];
const FOREIGN: [(&str, &str); 8] = [
    ("SWE", "Lindqvist, Oskar"),
    ("EST", "Tamm, Kaarel"),
    ("NOR", "Hansen, Magnus"),
    ("GER", "Schulz, Jonas"),
    ("LAT", "Ozols, Janis"),
    ("DEN", "Jensen, Frederik"),
    ("POL", "Nowak, Piotr"),
    ("LTU", "Kazlauskas, Tomas"),
];

struct Generator {
    play: Play,
    book: Book<Ssl>,
    /// Finnish players (indices) and foreign guests.
    finns: Vec<PlayerIdx>,
    foreign: Vec<PlayerIdx>,
}

impl Generator {
    fn new(p: &Params) -> Self {
        let mut g = Self {
            play: Play::seeded(p.seed, 0x9E37_79B9_7F4A_7C15),
            book: Book::default(),
            finns: Vec::new(),
            foreign: Vec::new(),
        };
        let first_year = p.last_year - p.years as i32 + 1;
        for k in 0..p.players {
            let rng = &mut g.play.rng;
            let (female, first) = first_name(rng, 5, &FIRST_F, &FIRST_M);
            let last = LAST[rng.below(LAST.len())];
            // Stronger with age up to forty, with a wide spread.
            let (age, born, base) = person(rng, first_year);
            let fide_id = (base > 1700.0 && g.play.rng.below(3) > 0).then(|| 500_000 + k as u64);
            let info = PlayerInfo {
                reentries: Vec::new(),
                id: format!("FIN{:05}", 10_000 + k),
                name: format!("{last}, {first}"),
                federation: None,
                // Not drawn from the generator, so every other draw stays as it was.
                club: Some(CLUBS[(k * 7 + k / CLUBS.len()) % CLUBS.len()].into()),
                fide_id,
                born: Some(born),
                sex: Some(if female { Sex::Female } else { Sex::Male }),
                fide: Vec::new(),
                national: Vec::new(),
            };
            // Half the federation has a selo when the generated years begin.
            let seed = (g.play.rng.below(2) == 0 && age > 12).then(|| {
                let games = 11 + g.play.rng.below(200) as u32;
                SslState {
                    rating: Some(base.round().clamp(1000.0, 2600.0) as i32),
                    games,
                    normal_games: games,
                    ..SslState::default()
                }
            });
            g.push_player(info, vec![seed, None], base);
        }
        for (k, (fed, name)) in FOREIGN.iter().enumerate() {
            let elo = 2000 + 60 * k as i32;
            let fide = (0..p.years)
                .map(|y| FideEntry {
                    list_date: date(first_year + y as i32, 1, 1),
                    standard: Some(elo + 5 * y as i32),
                    rapid: Some(elo - 40),
                    blitz: None,
                })
                .collect();
            let info = PlayerInfo {
                id: format!("{fed}{}", 100 + k),
                name: (*name).into(),
                federation: Some((*fed).into()),
                fide_id: Some(900_000 + k as u64),
                fide,
                ..PlayerInfo::default()
            };
            g.push_player(info, vec![None, None], f64::from(elo));
        }
        g
    }

    fn push_player(&mut self, info: PlayerInfo, seeds: Vec<Option<SslState>>, strength: f64) {
        let idx = self.book.players.len();
        if info.federation.is_none() {
            self.finns.push(idx);
        } else {
            self.foreign.push(idx);
        }
        self.book.players.push(info);
        self.book.seeds.push(seeds);
        self.book.held.push(Vec::new());
        self.book.confirmed.push(Vec::new());
        self.play.strength.push(strength);
    }

    fn year(&mut self, year: i32, opens: usize) {
        let finns = self.finns.clone();
        let adults: Vec<PlayerIdx> = finns
            .iter()
            .copied()
            .filter(|&p| self.age(p, year) >= 15)
            .collect();
        let juniors: Vec<PlayerIdx> = finns
            .iter()
            .copied()
            .filter(|&p| self.age(p, year) <= 14)
            .collect();
        // Weekend opens through the year.
        for k in 0..opens {
            let start = date(year, 1, 5) + Days::new((k as u64 * 350) / opens.max(1) as u64);
            let size = 30 + self.play.rng.below(40);
            let mut field = self.play.field(&adults, size);
            if self.play.rng.below(4) == 0 && !self.foreign.is_empty() {
                let guest = self.foreign[self.play.rng.below(self.foreign.len())];
                if !field.contains(&guest) {
                    field.push(guest);
                }
            }
            let mut event = new_event(
                format!("{year}-open-{k:03}"),
                format!("Open {year}/{}", k + 1),
                start,
                2,
                tc(90, 30),
            );
            let rounds = 5 + self.play.rng.below(3) as u32;
            self.play.swiss(&mut event, field, rounds);
            self.push_event(event);
        }
        // A closed round robin.
        let mut strongest = adults.clone();
        strongest.sort_by(|a, b| self.play.strength[*b].total_cmp(&self.play.strength[*a]));
        strongest.truncate(10);
        let mut event = new_event(
            format!("{year}-championship"),
            format!("SM {year}"),
            date(year, 7, 10),
            8,
            tc(90, 30),
        );
        self.play.round_robin(&mut event, strongest);
        self.push_event(event);
        // League: every game its own rating event (SSL 2.11).
        for round in 1..=9u32 {
            let day = date(year, 9, 1) + Days::new(u64::from(round) * 14);
            let players = self.play.field(&adults, 16);
            for (b, pair) in players.chunks(2).enumerate() {
                if let [w, bl] = pair {
                    let mut event = new_event(
                        format!("{year}-league-r{round}-b{}", b + 1),
                        format!("Liiga {year} k{round}"),
                        day,
                        0,
                        tc(90, 30),
                    );
                    event.pairing = "team".into();
                    let result = self.play.result(*w, *bl);
                    event.games.push(Game {
                        round: 1,
                        board: 1,
                        white: player_u32(*w),
                        black: Some(player_u32(*bl)),
                        result: Some(result),
                        date: None,
                        received: None,
                    });
                    event.participants = vec![*w, *bl];
                    self.push_event(event);
                }
            }
        }
        // Quick play for pelo.
        for (k, (minutes, inc)) in [(5, 3), (3, 2), (10, 0)].into_iter().enumerate() {
            let start = date(year, 3 + 3 * k as u32, 14);
            let size = 24 + self.play.rng.below(24);
            let field = self.play.field(&finns, size);
            let mut event = new_event(
                format!("{year}-quick-{k}"),
                format!("Pikashakki {year}/{}", k + 1),
                start,
                0,
                tc(minutes, inc),
            );
            self.play.swiss(&mut event, field, 9);
            self.push_event(event);
        }
        // Juniors, with the age limit that sets their default ratings (3.6).
        for (k, limit) in [10u32, 14].into_iter().enumerate() {
            let young: Vec<PlayerIdx> = juniors
                .iter()
                .copied()
                .filter(|&p| self.age(p, year) <= limit as i32)
                .collect();
            if young.len() >= 6 {
                let size = 12 + self.play.rng.below(12);
                let field = self.play.field(&young, size);
                let mut event = new_event(
                    format!("{year}-junior-u{limit}"),
                    format!("Juniorit U{limit} {year}"),
                    date(year, 5, 20 + k as u32),
                    1,
                    tc(45, 15),
                );
                event.age_limit = Some(limit);
                self.play.swiss(&mut event, field, 5);
                self.push_event(event);
            }
        }
        // Abroad: Finnish players against foreign ones.
        if !self.foreign.is_empty() {
            let mut field = self.play.field(&adults, 6);
            field.extend(self.foreign.clone());
            let mut event = new_event(
                format!("{year}-abroad"),
                format!("Riga Open {year}"),
                date(year, 8, 2),
                6,
                tc(90, 30),
            );
            event.abroad = true;
            self.play.swiss(&mut event, field, 7);
            self.push_event(event);
        }
        // Strengths drift: the young improve, everybody wanders a little.
        let born: Vec<Option<i32>> = self
            .book
            .players
            .iter()
            .map(|i| i.born.map(|b| b.year()))
            .collect();
        self.play.drift(|p| born[p].map_or(30, |b| year - b));
    }

    fn age(&self, p: PlayerIdx, year: i32) -> i32 {
        self.book.players[p].born.map_or(30, |b| year - b.year())
    }

    fn push_event(&mut self, event: Event) {
        self.book.events.push(event);
        self.book.live.push(true);
    }
}

/// Generates a federation. The events come in year order; `split_years` gives, per year, the
/// events of that year (so a caller can write them as one edit a year).
pub fn generate(p: &Params) -> Generated<Ssl> {
    let mut g = Generator::new(p);
    let opens = super::opens_per_year(p);
    let mut years = Vec::new();
    for year in (p.last_year - p.years as i32 + 1)..=p.last_year {
        let from = g.book.events.len();
        g.year(year, opens);
        years.push(from..g.book.events.len());
    }
    (g.book, years)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_federation() {
        let p = Params {
            players: 200,
            years: 2,
            last_year: 2025,
            seed: 7,
            opens_per_year: Some(3),
        };
        let (a, _) = generate(&p);
        let (b, _) = generate(&p);
        assert_eq!(a.players, b.players);
        assert_eq!(a.events, b.events);
    }

    #[test]
    fn games_are_valid_pairings() {
        let p = Params {
            players: 300,
            years: 2,
            last_year: 2025,
            seed: 1,
            opens_per_year: Some(4),
        };
        let (book, years) = generate(&p);
        assert_eq!(years.len(), 2);
        crate::demo::tests::valid_pairings(&book);
        assert!(book.events.iter().any(|e| e.abroad));
        assert!(book.events.iter().any(|e| e.age_limit.is_some()));
        assert!(book.events.iter().any(|e| e.id.contains("league")));
        assert!(
            book.events
                .iter()
                .any(|e| e.games.iter().any(|g| g.black().is_none())),
            "a bye somewhere"
        );
    }
}
