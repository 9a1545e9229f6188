//! `#[derive(DeepCopy)]`: copies hold every field, and `deep_copy_into` reuses the target's buffers.

use std::collections::BTreeMap;

use rkb_runtime::DeepCopy;

#[derive(Clone, Debug, Default, PartialEq, DeepCopy)]
struct Spec {
    name: String,
    tags: Vec<String>,
    note: Option<String>,
    inner: Inner,
}

#[derive(Clone, Debug, Default, PartialEq, DeepCopy)]
struct Inner(Vec<u32>);

#[derive(Clone, Debug, PartialEq, DeepCopy)]
enum Phase {
    Up(String),
    Down,
}

/// Every field and variant is copied: each value differs from its type's default, so a derive that skipped a field
/// (or a variant's payload) would not compare equal. (Independence of the copy needs no test: `deep_copy`
/// returns an owned value, and safe Rust cannot share its buffers.)
#[test]
fn deep_copy_copies_every_field_and_variant() {
    let a = Spec {
        name: "a".into(),
        tags: vec!["x".into()],
        note: Some("n".into()),
        inner: Inner(vec![1, 2]),
    };
    assert_ne!(a, Spec::default());
    assert_eq!(a.deep_copy(), a);
    assert_eq!(Phase::Up("u".into()).deep_copy(), Phase::Up("u".into()));
    assert_eq!(Phase::Down.deep_copy(), Phase::Down);
}

#[test]
fn deep_copy_into_reuses_allocations() {
    let src = Spec {
        name: "short".into(),
        tags: vec!["t1".into(), "t2".into()],
        note: Some("hi".into()),
        inner: Inner(vec![7]),
    };
    let mut out = Spec {
        name: String::with_capacity(64),
        tags: Vec::with_capacity(16),
        note: Some(String::with_capacity(32)),
        inner: Inner(Vec::with_capacity(8)),
    };
    out.tags.push(String::with_capacity(32));
    let (name_ptr, tags_ptr, tag0_ptr) =
        (out.name.as_ptr(), out.tags.as_ptr(), out.tags[0].as_ptr());
    let note_ptr = out.note.as_ref().unwrap().as_ptr();
    let inner_ptr = out.inner.0.as_ptr();
    src.deep_copy_into(&mut out);
    assert_eq!(out, src);
    assert_eq!(out.name.as_ptr(), name_ptr, "String buffer reused");
    assert_eq!(out.tags.as_ptr(), tags_ptr, "Vec buffer reused");
    assert_eq!(out.tags[0].as_ptr(), tag0_ptr, "element buffers reused");
    assert_eq!(
        out.note.as_ref().unwrap().as_ptr(),
        note_ptr,
        "Option contents reused"
    );
    // Inner's derived Clone::clone_from would allocate a new vector: reuse proves recursion.
    assert_eq!(
        out.inner.0.as_ptr(),
        inner_ptr,
        "nested DeepCopy type reused"
    );
    assert_eq!(out.inner.0.capacity(), 8);
}

/// Nested API types inside containers: each element recurses into its own deep_copy_into.
#[derive(Clone, Debug, Default, PartialEq, DeepCopy)]
struct Status {
    conditions: Vec<Inner>,
    current: Option<Inner>,
    by_name: BTreeMap<String, Inner>,
}

#[test]
fn deep_copy_into_recurses_through_containers() {
    let src = Status {
        conditions: vec![Inner(vec![1]), Inner(vec![2, 3])],
        current: Some(Inner(vec![4])),
        by_name: BTreeMap::from([("a".into(), Inner(vec![5])), ("b".into(), Inner(vec![6]))]),
    };
    let buf = || Inner(Vec::with_capacity(16));
    let mut out = Status {
        conditions: vec![buf(), buf(), buf()],
        current: Some(buf()),
        by_name: BTreeMap::from([("a".into(), buf()), ("stale".into(), buf())]),
    };
    let cond_ptrs: Vec<*const u32> = out.conditions.iter().map(|c| c.0.as_ptr()).collect();
    let current_ptr = out.current.as_ref().unwrap().0.as_ptr();
    let a_ptr = out.by_name["a"].0.as_ptr();
    src.deep_copy_into(&mut out);
    assert_eq!(out, src);
    assert_eq!(out.conditions[0].0.as_ptr(), cond_ptrs[0]);
    assert_eq!(out.conditions[1].0.as_ptr(), cond_ptrs[1]);
    assert_eq!(out.current.as_ref().unwrap().0.as_ptr(), current_ptr);
    assert_eq!(out.by_name["a"].0.as_ptr(), a_ptr);

    // Shapes that cannot reuse (None -> Some, fewer elements -> more) still end up equal.
    let mut empty = Status::default();
    src.deep_copy_into(&mut empty);
    assert_eq!(empty, src);
    Status::default().deep_copy_into(&mut empty);
    assert_eq!(empty, Status::default());
}
