//! Paths typed in forms, as a shell reads them: `~` is the home folder, and Tab completes the
//! name being typed from what the folder holds.

use std::path::{Path, PathBuf};

/// The path with a leading `~` (alone or before `/`) replaced by the home folder.
pub fn expand(text: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if text == "~" {
        if let Some(h) = home() {
            return h;
        }
    } else if let Some(rest) = text.strip_prefix("~/")
        && let Some(h) = home()
    {
        return h.join(rest);
    }
    PathBuf::from(text)
}

/// Completes the last part of a typed path: returns the text with the longest common start of
/// the matching names (and `/` after a folder that is the only match), and those names, sorted.
/// `~` stays as typed; hidden names are offered only when a `.` was typed.
pub fn complete(text: &str) -> (String, Vec<String>) {
    let (folder_text, partial) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    if text == "~" {
        return ("~/".into(), Vec::new());
    }
    let folder = if folder_text.is_empty() {
        PathBuf::from(".")
    } else {
        expand(folder_text)
    };
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return (text.to_string(), Vec::new());
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(partial) && (partial.starts_with('.') || !n.starts_with('.')))
        .collect();
    names.sort();
    let Some(first) = names.first() else {
        return (text.to_string(), Vec::new());
    };
    let common = names.iter().fold(first.clone(), |acc, n| {
        acc.chars()
            .zip(n.chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect()
    });
    let mut completed = format!("{folder_text}{common}");
    if names.len() == 1 && is_dir(&folder.join(&common)) {
        completed.push('/');
    }
    (completed, names)
}

fn is_dir(path: &Path) -> bool {
    path.is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_completes_the_common_part_and_a_folders_slash() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().display().to_string();
        std::fs::write(dir.path().join("open-2026.trf"), "").expect("file");
        std::fs::write(dir.path().join("open-2025.trf"), "").expect("file");
        std::fs::create_dir(dir.path().join("reports")).expect("folder");
        let (text, names) = complete(&format!("{base}/op"));
        assert_eq!(text, format!("{base}/open-202"));
        assert_eq!(names, vec!["open-2025.trf", "open-2026.trf"]);
        let (text, names) = complete(&format!("{base}/open-2026"));
        assert_eq!(text, format!("{base}/open-2026.trf"));
        assert_eq!(names.len(), 1);
        let (text, _) = complete(&format!("{base}/rep"));
        assert_eq!(text, format!("{base}/reports/"));
        let (text, names) = complete(&format!("{base}/nothing"));
        assert_eq!(text, format!("{base}/nothing"));
        assert!(names.is_empty());
    }

    #[test]
    fn a_tilde_is_the_home_folder() {
        let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
            return;
        };
        assert_eq!(expand("~/x.trf"), home.join("x.trf"));
        assert_eq!(expand("~"), home);
        assert_eq!(expand("a~/b"), PathBuf::from("a~/b"));
    }
}
