//! Documentation snippets tested as they stand: the code a document shows is a file's marked
//! lines, word for word.

use super::pytest::root;

/// The lines of `path` (relative to the repository) between the marker lines `start` and
/// `end`.
pub(crate) fn marked(path: &str, start: &str, end: &str) -> String {
    let file = std::fs::read_to_string(root().join(path)).expect("read the snippet's file");
    let lines: Vec<&str> = file.lines().collect();
    let from = lines
        .iter()
        .position(|l| *l == start)
        .unwrap_or_else(|| panic!("start marker {start} in {path}"));
    let to = lines
        .iter()
        .skip(from)
        .position(|l| *l == end)
        .map(|at| at + from)
        .unwrap_or_else(|| panic!("end marker {end} in {path}"));
    lines[from + 1..to].join("\n")
}

/// The fenced blocks of `language` in a Markdown `text`.
pub(crate) fn blocks(text: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}\n");
    text.split(&fence)
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(block, _)| block.to_string()))
        .collect()
}
