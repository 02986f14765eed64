//! [`Tally`]: how a golden run went, printed and asserted the same way by every family test.

#![allow(dead_code)]

/// Counts of one golden run; [`Tally::finish`] prints them and fails on any disagreement.
#[derive(Default)]
pub struct Tally {
    /// Layouts equal to Triton's.
    pub agreed: usize,
    /// Inputs Triton refused and we refuse with a typed error.
    pub agreed_errors: usize,
    /// Inputs Triton accepts and we refuse on purpose.
    pub deliberate: usize,
    /// Everything else, one line per case.
    pub failures: Vec<String>,
}

impl Tally {
    /// Prints `what: … of total` and asserts there were cases and no failures.
    pub fn finish(self, what: &str, total: usize) {
        eprintln!(
            "{what}: {} layouts agree, {} refusals agree, {} deliberate departures, {} failures \
             of {total}",
            self.agreed,
            self.agreed_errors,
            self.deliberate,
            self.failures.len(),
        );
        assert!(total > 0, "{what}: no cases");
        assert!(
            self.failures.is_empty(),
            "{what}: {} of {total} cases disagree with Triton 3.9.0:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}
