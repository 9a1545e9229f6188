//! Deep copy, code-generator's `DeepCopy`/`DeepCopyInto`/`DeepCopyObject`.
//!
//! In Rust `Clone` already copies deeply (owned data, no shared pointers in API types), so this
//! trait is `Clone` under the names Go users look for; `deep_copy_into` is `clone_from`, which
//! reuses the target's allocations (strings, vectors, maps) where the type supports it.

/// Implemented by `#[derive(DeepCopy)]` and by `#[derive(Kind)]` on kinds whose package or type
/// says `+kubebuilder:object:generate=true` (or `+k8s:deepcopy-gen`).
pub trait DeepCopy: Clone {
    /// An independent copy.
    fn deep_copy(&self) -> Self {
        self.clone()
    }

    /// Overwrites `out` with a copy of `self`, reusing `out`'s allocations.
    fn deep_copy_into(&self, out: &mut Self) {
        out.clone_from(self)
    }
}
