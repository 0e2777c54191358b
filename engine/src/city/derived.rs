//! A value derived on first use from what holds it (a city's network index and its
//! cells' boundaries from its artifact, a week's street risks from its scores):
//! clones start without it and equality ignores it, since it follows from what is
//! compared.

use alloc::boxed::Box;

use once_cell::race::OnceBox;

/// A value computed on first use and kept.
pub(crate) struct Derived<T>(OnceBox<T>);

impl<T> Derived<T> {
    pub(crate) const fn new() -> Self {
        Self(OnceBox::new())
    }

    /// The value, computed by `compute` the first time (two threads may both compute
    /// it; one result is kept).
    pub(crate) fn get_or_init(&self, compute: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(|| Box::new(compute()))
    }

    /// Whether it has been computed.
    pub(crate) fn is_computed(&self) -> bool {
        self.0.get().is_some()
    }
}

impl<T> Clone for Derived<T> {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> core::fmt::Debug for Derived<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Derived")
            .field("computed", &self.is_computed())
            .finish()
    }
}
