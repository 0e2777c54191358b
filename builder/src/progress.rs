//! Progress reporting for long build steps.

use indicatif::{ProgressBar, ProgressStyle};

/// A byte-count progress bar on stderr; hidden when stderr is not a terminal, so
/// CI logs stay readable (each step still prints a summary line).
#[must_use]
pub fn bytes_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:30}] {bytes}/{total_bytes} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(label.to_owned());
    bar
}
