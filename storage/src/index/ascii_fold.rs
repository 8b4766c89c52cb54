//! ASCII folding for the `ascii` analysis option (what Lucene's `ASCIIFoldingFilter`, which
//! Cassandra 5.0 uses, does for Latin text): a non-ASCII character whose compatibility
//! decomposition is ASCII letters plus combining marks becomes those letters (`é` -> `e`,
//! `ﬁ` -> `fi`, `Ａ` -> `A`), the letters without a decomposition are mapped by a table
//! (`ß` -> `ss`, `ø` -> `o`, `æ` -> `ae`), and anything else is kept.

use unicode_normalization::char::decompose_compatible;
use unicode_normalization::char::is_combining_mark;

/// Letters and signs without an ASCII decomposition, with their Lucene folding.
const TABLE: &[(char, &str)] = &[
    ('Æ', "AE"),
    ('æ', "ae"),
    ('Ð', "D"),
    ('ð', "d"),
    ('Đ', "D"),
    ('đ', "d"),
    ('Ø', "O"),
    ('ø', "o"),
    ('Þ', "TH"),
    ('þ', "th"),
    ('ß', "ss"),
    ('Ł', "L"),
    ('ł', "l"),
    ('Œ', "OE"),
    ('œ', "oe"),
    ('Ħ', "H"),
    ('ħ', "h"),
    ('ı', "i"),
    ('Ŧ', "T"),
    ('ŧ', "t"),
    ('Ŋ', "N"),
    ('ŋ', "n"),
    ('ĸ', "q"),
    ('ſ', "s"),
    ('Ɖ', "D"),
    ('ɖ', "d"),
    ('ƒ', "f"),
    ('‘', "'"),
    ('’', "'"),
    ('‚', "'"),
    ('“', "\""),
    ('”', "\""),
    ('„', "\""),
    ('«', "\""),
    ('»', "\""),
    ('‐', "-"),
    ('‑', "-"),
    ('‒', "-"),
    ('–', "-"),
    ('—', "-"),
    ('⁅', "["),
    ('⁆', "]"),
];

/// `text` folded to ASCII where a folding is known.
pub(crate) fn fold_to_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if let Some(folded) = fold_char(c) {
            out.push_str(&folded);
        } else {
            out.push(c);
        }
    }
    out
}

/// The ASCII folding of one non-ASCII character, if it has one.
fn fold_char(c: char) -> Option<String> {
    if let Some((_, folded)) = TABLE.iter().find(|(from, _)| *from == c) {
        return Some((*folded).to_string());
    }
    let mut base = String::new();
    let mut ascii = true;
    decompose_compatible(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        ascii &= d.is_ascii();
        base.push(d);
    });
    (ascii && !base.is_empty() && base != c.to_string()).then_some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_ligatures_and_special_letters_fold() {
        assert_eq!(fold_to_ascii("àéîõü ÇÑ"), "aeiou CN");
        assert_eq!(fold_to_ascii("ﬁne Ａ"), "fine A");
        assert_eq!(fold_to_ascii("Straße Øre Æble"), "Strasse Ore AEble");
    }

    #[test]
    fn characters_without_folding_are_kept() {
        assert_eq!(fold_to_ascii("日本 abc"), "日本 abc");
    }
}
