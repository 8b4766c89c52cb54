//! Merging the head and runs of a table into one ordered stream: for each key, the entry of
//! the newest source that has it.

use super::read::RunEntry;
use crate::error::StorageError;

/// One source of a merge.
pub(crate) type Source<'a> = Box<dyn Iterator<Item = Result<RunEntry, StorageError>> + Send + 'a>;

/// The entries of several sources, newest source first, merged in key order (or reversed).
pub(crate) struct Merge<'a> {
    sources: Vec<Source<'a>>,
    /// Each source's next entry, read ahead.
    peeked: Vec<Option<RunEntry>>,
    /// Whether a source's next entry was read ahead (`peeked` may hold `None` for the end).
    filled: Vec<bool>,
    reverse: bool,
    /// Whether deletions are returned (a compaction keeps them unless nothing is older).
    keep_deletions: bool,
}

impl<'a> Merge<'a> {
    /// Merges `sources`, given newest first.
    pub(crate) fn new(sources: Vec<Source<'a>>, reverse: bool, keep_deletions: bool) -> Merge<'a> {
        let n = sources.len();
        Merge {
            sources,
            peeked: (0..n).map(|_| None).collect(),
            filled: vec![false; n],
            reverse,
            keep_deletions,
        }
    }

    fn fill(&mut self) -> Result<(), StorageError> {
        for i in 0..self.sources.len() {
            if !self.filled[i] {
                self.peeked[i] = self.sources[i].next().transpose()?;
                self.filled[i] = true;
            }
        }
        Ok(())
    }

    /// The source whose next key comes first; the newest among equal keys.
    fn first(&self) -> Option<usize> {
        let mut best: Option<(usize, &[u8])> = None;
        for (i, entry) in self.peeked.iter().enumerate() {
            let Some((key, _)) = entry else { continue };
            let better = match best {
                None => true,
                Some((_, b)) if self.reverse => key.as_slice() > b,
                Some((_, b)) => key.as_slice() < b,
            };
            if better {
                best = Some((i, key));
            }
        }
        best.map(|(i, _)| i)
    }

    fn step(&mut self) -> Result<Option<RunEntry>, StorageError> {
        loop {
            self.fill()?;
            let Some(winner) = self.first() else {
                return Ok(None);
            };
            let entry = self.peeked[winner].take();
            self.filled[winner] = false;
            let Some((key, value)) = entry else { continue };
            // Older versions of the same key are shadowed.
            for i in winner + 1..self.sources.len() {
                if self.peeked[i].as_ref().is_some_and(|(k, _)| *k == key) {
                    self.peeked[i] = None;
                    self.filled[i] = false;
                }
            }
            if value.is_some() || self.keep_deletions {
                return Ok(Some((key, value)));
            }
        }
    }
}

impl Iterator for Merge<'_> {
    type Item = Result<RunEntry, StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn source(entries: &[(&str, Option<&str>)]) -> Source<'static> {
        let owned: Vec<_> = entries
            .iter()
            .map(|(k, v)| {
                Ok((
                    k.as_bytes().to_vec(),
                    v.map(|v| Bytes::copy_from_slice(v.as_bytes())),
                ))
            })
            .collect();
        Box::new(owned.into_iter())
    }

    fn collect(merge: Merge<'_>) -> Vec<(String, Option<String>)> {
        merge
            .map(|e| {
                let (k, v) = e.unwrap();
                (
                    String::from_utf8(k).unwrap(),
                    v.map(|v| String::from_utf8(v.to_vec()).unwrap()),
                )
            })
            .collect()
    }

    #[test]
    fn the_newest_source_wins_and_deletions_hide_older_rows() {
        let newest = [("b", Some("b2")), ("c", None)];
        let older = [
            ("a", Some("a1")),
            ("b", Some("b1")),
            ("c", Some("c1")),
            ("d", Some("d1")),
        ];
        let merged = collect(Merge::new(
            vec![source(&newest), source(&older)],
            false,
            false,
        ));
        let expect = [("a", "a1"), ("b", "b2"), ("d", "d1")];
        assert_eq!(
            merged,
            expect
                .map(|(k, v)| (k.to_string(), Some(v.to_string())))
                .to_vec()
        );
        let reversed: Vec<_> = collect(Merge::new(
            vec![
                source(&[("c", None), ("b", Some("b2"))]),
                source(&[
                    ("d", Some("d1")),
                    ("c", Some("c1")),
                    ("b", Some("b1")),
                    ("a", Some("a1")),
                ]),
            ],
            true,
            true,
        ));
        assert_eq!(reversed[1], ("c".to_string(), None));
        assert_eq!(reversed[2], ("b".to_string(), Some("b2".to_string())));
        assert_eq!(reversed.len(), 4);
    }
}
