//! Deep copy, code-generator's `DeepCopy`/`DeepCopyInto`/`DeepCopyObject`.
//!
//! In Rust `Clone` already copies deeply (owned data, no shared pointers in API types), so
//! `deep_copy` is `clone`. `deep_copy_into` is where the work is: it overwrites the target in
//! place and keeps its allocations. The derives recurse field by field (see [`__field`]);
//! `Option`, `Vec` and `BTreeMap` of `DeepCopy` types recurse into their elements, which a
//! derived `Clone::clone_from` cannot do (it clones the whole value).

use std::collections::BTreeMap;

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

/// `clone_from` reuses the buffer.
impl DeepCopy for String {}

impl<T: DeepCopy> DeepCopy for Option<T> {
    fn deep_copy_into(&self, out: &mut Self) {
        match (self, out) {
            (Some(from), Some(to)) => from.deep_copy_into(to),
            (from, to) => *to = from.clone(),
        }
    }
}

impl<T: DeepCopy> DeepCopy for Vec<T> {
    fn deep_copy_into(&self, out: &mut Self) {
        out.truncate(self.len());
        let (common, rest) = self.split_at(out.len());
        for (from, to) in common.iter().zip(out.iter_mut()) {
            from.deep_copy_into(to);
        }
        out.extend_from_slice(rest);
    }
}

/// Values under keys both maps have are copied in place; the tree's nodes are not reusable.
impl<K: Ord + Clone, V: DeepCopy> DeepCopy for BTreeMap<K, V> {
    fn deep_copy_into(&self, out: &mut Self) {
        out.retain(|k, _| self.contains_key(k));
        for (k, from) in self {
            match out.get_mut(k) {
                Some(to) => from.deep_copy_into(to),
                None => {
                    out.insert(k.clone(), from.clone());
                }
            }
        }
    }
}

/// What derived `deep_copy_into` calls per field. A derive cannot see whether a field's type
/// implements `DeepCopy`, so method resolution picks: `(&Src(&from)).copy_into(&mut to)` finds
/// [`ViaDeepCopy`](__field::ViaDeepCopy) (receiver `&Src`) before [`ViaClone`](__field::ViaClone)
/// (receiver `&&Src`, one autoref later), and the former applies only when the field type is
/// `DeepCopy`. Other fields (k8s-openapi types, numbers) get `Clone::clone_from`.
#[doc(hidden)]
pub mod __field {
    use super::DeepCopy;

    pub struct Src<'a, T>(pub &'a T);

    pub trait ViaDeepCopy<T> {
        fn copy_into(&self, to: &mut T);
    }

    impl<T: DeepCopy> ViaDeepCopy<T> for Src<'_, T> {
        fn copy_into(&self, to: &mut T) {
            self.0.deep_copy_into(to)
        }
    }

    pub trait ViaClone<T> {
        fn copy_into(&self, to: &mut T);
    }

    impl<T: Clone> ViaClone<T> for &Src<'_, T> {
        fn copy_into(&self, to: &mut T) {
            to.clone_from(self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::__field::{Src, ViaClone as _, ViaDeepCopy as _};
    use super::DeepCopy;
    use std::collections::BTreeMap;

    /// A `DeepCopy` type whose derived-style `clone_from` would reallocate.
    #[derive(Clone, Debug, PartialEq)]
    struct Leaf(String);

    impl DeepCopy for Leaf {
        fn deep_copy_into(&self, out: &mut Self) {
            self.0.deep_copy_into(&mut out.0)
        }
    }

    fn leaf(s: &str, cap: usize) -> Leaf {
        let mut b = String::with_capacity(cap);
        b.push_str(s);
        Leaf(b)
    }

    #[test]
    fn containers_recurse_into_deep_copy_elements() {
        let src = vec![leaf("a", 1), leaf("b", 1), leaf("c", 1)];
        let mut out = vec![leaf("x", 64), leaf("y", 64)];
        let kept = out[1].0.as_ptr();
        src.deep_copy_into(&mut out);
        assert_eq!(out, src);
        assert_eq!(out[1].0.as_ptr(), kept);
        let mut shorter = vec![leaf("x", 64); 5];
        src.deep_copy_into(&mut shorter);
        assert_eq!(shorter, src);

        let src = Some(leaf("a", 1));
        let mut out = Some(leaf("", 64));
        let kept = out.as_ref().unwrap().0.as_ptr();
        src.deep_copy_into(&mut out);
        assert_eq!((out.as_ref().unwrap().0.as_ptr(), &out), (kept, &src));
        None.deep_copy_into(&mut out);
        assert_eq!(out, None);

        let src = BTreeMap::from([("k".to_string(), leaf("v", 1)), ("n".into(), leaf("w", 1))]);
        let mut out = BTreeMap::from([
            ("k".to_string(), leaf("", 64)),
            ("gone".into(), leaf("", 1)),
        ]);
        let kept = out["k"].0.as_ptr();
        src.deep_copy_into(&mut out);
        assert_eq!(out, src);
        assert_eq!(out["k"].0.as_ptr(), kept);
    }

    #[test]
    // Written as the derive writes it: the explicit borrow is what orders the two impls.
    #[allow(clippy::needless_borrow)]
    fn field_dispatch_prefers_deep_copy() {
        // Leaf's own Clone::clone_from would allocate; only the DeepCopy path keeps the buffer.
        let mut out = leaf("", 64);
        let kept = out.0.as_ptr();
        (&Src(&leaf("a", 1))).copy_into(&mut out);
        assert_eq!((out.0.as_ptr(), out.0.as_str()), (kept, "a"));
        // Not DeepCopy: clone_from.
        let mut n = 0_u8;
        (&Src(&7_u8)).copy_into(&mut n);
        assert_eq!(n, 7);
    }
}
