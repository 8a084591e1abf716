//! Finding players as the officer types: fuzzy matching over names, ids and FIDE ids. The
//! matcher folds only ASCII case, so every key is folded once (`Järvinen` → `jarvinen`) and
//! queries are folded the same way; the original names are what the screen shows.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::model::{PlayerIdx, PlayerInfo, fold_name};

/// How many matches a query returns at most.
pub const MAX_RESULTS: usize = 200;

pub struct SearchIndex {
    keys: Vec<(PlayerIdx, String)>,
    matcher: SkimMatcherV2,
    /// The last query and the keys it matched: a query that extends it can only match among
    /// them (a fuzzy match of "jarvi" is one of "jarv"), so typing narrows instead of rescanning.
    last: std::cell::RefCell<Option<(String, Vec<usize>)>>,
}

impl SearchIndex {
    /// Builds the folded keys of the players marked `active`.
    pub fn new(players: &[PlayerInfo], active: &[bool]) -> Self {
        let mut keys: Vec<(PlayerIdx, String)> = players
            .iter()
            .enumerate()
            .filter(|(p, _)| active.get(*p).copied().unwrap_or(false))
            .map(|(p, info)| {
                let fide = info.fide_id.map(|f| format!(" {f}")).unwrap_or_default();
                (
                    p,
                    format!("{} {}{fide}", fold_name(&info.name), fold_name(&info.id)),
                )
            })
            .collect();
        keys.sort_by(|a, b| a.1.cmp(&b.1));
        Self {
            keys,
            matcher: SkimMatcherV2::default(),
            last: std::cell::RefCell::new(None),
        }
    }

    /// Players matching `query`, best first (all players by name for an empty query).
    pub fn search(&self, query: &str) -> Vec<PlayerIdx> {
        let query = fold_name(query.trim());
        if query.is_empty() {
            return self
                .keys
                .iter()
                .take(MAX_RESULTS)
                .map(|(p, _)| *p)
                .collect();
        }
        let mut last = self.last.borrow_mut();
        let candidates: Vec<usize> = match last.as_ref() {
            Some((previous, matched)) if query.starts_with(previous.as_str()) => matched.clone(),
            _ => (0..self.keys.len()).collect(),
        };
        let mut scored: Vec<(i64, &str, PlayerIdx)> = Vec::new();
        let mut matched = Vec::new();
        for k in candidates {
            let (p, key) = &self.keys[k];
            if let Some(score) = self.matcher.fuzzy_match(key, &query) {
                scored.push((score, key.as_str(), *p));
                matched.push(k);
            }
        }
        *last = Some((query.clone(), matched));
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(MAX_RESULTS)
            .map(|(_, _, p)| p)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str, name: &str, fide: Option<u64>) -> PlayerInfo {
        PlayerInfo {
            id: id.into(),
            name: name.into(),
            fide_id: fide,
            ..PlayerInfo::default()
        }
    }

    #[test]
    fn accents_fold_both_ways_and_ids_match() {
        let players = vec![
            player("FIN1", "Järvinen, Aino", Some(501234)),
            player("FIN2", "Jarva, Pekka", None),
            player("FIN3", "Könönen, Otso", None),
        ];
        let index = SearchIndex::new(&players, &[true, true, true]);
        assert_eq!(index.search("jarvinen").first(), Some(&0));
        assert_eq!(index.search("järvi").first(), Some(&0));
        assert_eq!(index.search("jarv").len(), 2, "both Järvinen and Jarva");
        assert_eq!(index.search("kon").first(), Some(&2));
        assert_eq!(index.search("fin3").first(), Some(&2), "the exact id first");
        assert_eq!(index.search("501234"), vec![0]);
        assert_eq!(index.search(""), vec![1, 0, 2], "by folded name");
    }

    #[test]
    fn typing_narrows_to_the_same_results_as_a_fresh_search() {
        let (book, _) = crate::demo::generate(&crate::demo::Params {
            players: 400,
            years: 1,
            opens_per_year: Some(1),
            ..crate::demo::Params::demo()
        });
        let all = vec![true; book.players.len()];
        let typed = SearchIndex::new(&book.players, &all);
        for query in ["k", "ko", "kor", "korh", "ka", "jä", "järv"] {
            let fresh = SearchIndex::new(&book.players, &all);
            assert_eq!(typed.search(query), fresh.search(query), "{query}");
        }
    }

    #[test]
    fn retired_records_are_not_found() {
        let players = vec![
            player("A", "Aho, Aino", None),
            player("B", "Aho, Aino", None),
        ];
        let index = SearchIndex::new(&players, &[true, false]);
        assert_eq!(index.search("aho"), vec![0]);
    }
}
