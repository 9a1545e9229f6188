//! The scanner against syn: on every file both read, the outlines must be equal.

use super::scan;
use crate::read::outline::{Outline, from_syn};
use crate::read::source::{SourceFile, parse, with_fallback_lexer};
use std::path::{Path, PathBuf};

/// syn's outline of `f` (the reference), or `None` when syn rejects it.
fn by_syn(f: &SourceFile) -> Option<Outline> {
    with_fallback_lexer(|| {
        let mut diags = Vec::new();
        parse(f, &mut diags).map(|ast| from_syn(&ast, f))
    })
}

/// Whether the scanner read `src` (it must then agree with syn).
fn agrees(src: &str) -> bool {
    let f = SourceFile::from_text("src/a.rs", src);
    match scan(&f).outline() {
        Some(ours) => {
            let theirs =
                by_syn(&f).unwrap_or_else(|| panic!("syn rejects what the scanner read:\n{src}"));
            assert_eq!(ours, theirs, "in\n{src}");
            true
        }
        None => false,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        let p = e.path();
        let skip = p.components().any(|c| c.as_os_str() == "target");
        if !skip && e.file_type().is_file() && p.extension().is_some_and(|x| x == "rs") {
            out.push(p.to_path_buf());
        }
    }
}

#[test]
fn scan_agrees_with_syn_on_every_file_of_the_repository() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    rust_files(repo, &mut files);
    assert!(files.len() > 300, "found only {} files", files.len());
    let mut stepped_aside = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let rel = path.strip_prefix(repo).unwrap();
        let f = SourceFile::from_text(&rel.to_string_lossy(), &text);
        // No real file comes near the nesting limit.
        assert_eq!(super::nesting::too_deep(&f), None, "{}", rel.display());
        match (scan(&f).outline(), by_syn(&f)) {
            (Some(ours), Some(theirs)) => assert_eq!(ours, theirs, "{}", rel.display()),
            (Some(_), None) => {
                // Only files with deliberate errors inside function bodies may get here.
                panic!("{}: the scanner read a file syn rejects", rel.display());
            }
            (None, _) => stepped_aside.push(rel.to_path_buf()),
        }
    }
    // The API sources of the corpus, the fixtures and the examples must take the fast path.
    let api: Vec<_> = stepped_aside
        .iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "api"))
        .collect();
    assert!(api.is_empty(), "syn had to read: {api:#?}");
    assert!(
        stepped_aside.len() * 10 < files.len(),
        "the scanner stepped aside for {} of {} files: {stepped_aside:#?}",
        stepped_aside.len(),
        files.len()
    );
}

#[test]
fn reads_what_api_sources_hold_exactly_as_syn_does() {
    let read = [
        // Raw identifiers, lifetimes, references, arrays, slices, leading `::`, nested generics.
        "pub struct r#Type<'a> { pub r#type: &'a str, x: &'static mut [u8; 4], y: ::std::vec::Vec<Box<[i32]>>, z: Cow<'a, str>, }",
        // Visibility forms, tuple and unit structs, an alias with generics.
        "pub(crate) struct A(pub(in crate::x) i32);\npub(super) struct B;\nstruct C(String, i64);\ntype M<T> = BTreeMap<String, T>;",
        // serde keys in every shape the model reads, escapes in names, raw strings.
        r##"#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
            #[serde(bound(serialize = "T: Serialize"), crate = "serde")]
            struct S {
                #[serde(rename = "a\"b\u{e9}\x41", skip_serializing_if = "Option::is_none")]
                a: Option<i32>,
                #[serde(rename(serialize = r#"ser"#, deserialize = "de"), with = serde_with::rust)]
                b: i32,
                #[serde(flatten, default = "path::to::f")] c: Inner,
                #[serde(skip)] d: u8,
                #[serde(alias = "x", alias = "y", skip_serializing)] e: u8,
            }"##,
        // Enums: unit, data, discriminants, renames, untagged.
        r#"#[serde(rename_all = "SCREAMING-KEBAB-CASE")] enum E { A = 1, #[serde(rename = "bee")] B = 1 + 2, C { x: i32 }, D(i32), }
           #[serde(untagged)] enum U { A, B }"#,
        // Doc comments of every kind, in every place, with quotes and comment markers inside.
        "//! +groupName=a.b\n//! \"quoted\" /* not a comment */\n/// Doc.\n/** Block\n   +optional */\n#[doc = \"attr\\nsecond\"]\n#[doc = r#\"raw\"#]\n#[doc(hidden)]\npub struct D {\n  /// f */ x\n  f: i32,\n}",
        // Use trees.
        "use ::a::b::{self, c as d, e::*, f::{g, h as _}};\npub use super::x::Y;\nuse crate::{self as me};",
        // Items read only for their docs, and items not read at all.
        r##"/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get
           pub async fn reconcile<T: Fn() -> u8>(x: T) -> Result<(), Box<dyn std::error::Error>> where T: Send { let s = "}"; let c = '}'; let l: &'static str = s; loop { break; } Ok(()) }
           impl<T> Trait for X<T> where T: Iterator<Item = u8> { #![allow(unused)] /// m
               const N: usize = 1; type A = i32; fn m(&self) -> i32 { 1 } pub(crate) unsafe fn n() {} m!{} }
           unsafe impl Send for X {}
           pub trait Tr: Send { fn a(&self); fn b() -> u8 { 0 } type T; const C: u8; }
           const _: () = { struct Hidden; };
           static mut S: [u8; 2] = [0, 1];
           extern crate alloc as a;
           unsafe extern "C" { fn f(); }
           macro_rules! m { ($x:expr) => { $x }; }
           m!(1);
           other::path::m![2];
           union Un { a: u32, b: f32 }
           const fn cf() -> u8 { b'x' }
           extern "C" fn ef() {}
           #[cfg(test)]
           mod tests { //! inner
               use super::*;
               #[test] fn t() { let _ = r#"raw " string"#; let _ = b"bytes"; let _ = 1.5e3_f64; /* /* nested */ */ }
           }
           mod decl;"##,
        // Types whose JSON is not their fields: serde conversions, serde trait impls of every shape read.
        SERDE_IMPLS,
        // serde_with: Display derives, field adapters.
        SERDE_WITH,
    ];
    for src in read {
        assert!(agrees(src), "the scanner stepped aside for\n{src}");
    }
}

/// Conversions and serde impls: the scanner must record the ones marked `yes` (and syn agree, above).
const SERDE_IMPLS: &str = r#"#[serde(into = "String", try_from = r"String")] pub struct P { level: u8 }
    #[serde(from = "u8", into = "u8")] enum E { A }
    impl Serialize for A { fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str("a") } }
    impl<'de> serde::Deserialize<'de> for crate::api::B<'_> where Self: Sized {}
    unsafe impl<T: Serialize> ::serde::ser::Serialize for r#C<T> {}
    impl<T: Serialize> Wrapper<T> {}
    impl<T> D<T> where T: Deserialize<'static> {}
    impl<T: Serialize> From<T> for E {}
    impl rkyv::Serialize<S> for F {}
    impl<T: Fn() -> u8> Serialize for G<T> {}
    impl Clone for H {}"#;

/// serde_with's Display derives and field adapters in the shapes the scanner reads; `display` and `serde_as` of each
/// item and field as [`records_serde_with_derives_and_adapters`] lists them.
const SERDE_WITH: &str = r##"#[derive(Clone, SerializeDisplay, DeserializeFromStr)] pub struct V { major: i32 }
    #[derive(Debug)]
    #[derive(::serde_with::DeserializeFromStr, serde_with::SerializeDisplayAlt,)] enum E { A }
    #[derive(other::SerializeDisplay, Serialize)] #[derive()] struct O;
    #[serde_with::serde_as]
    #[serde_as(crate = "serde_with")]
    #[derive(Serialize)]
    pub struct S {
        #[serde_as(as = "DisplayFromStr")] pub a: Channel,
        #[serde_as(serialize_as = r#"Vec<DisplayFromStr>"#, deserialize_as = "Vec<_>", no_default)] b: Vec<Port>,
        #[serde_as(no_default, r#as = "x")] #[serde_as(deserialize_as = "BTreeMap<DisplayFromStr, _>")] c: u8,
        #[serde_as] d: u8,
    }
    pub struct P(#[serde_as(as = "DisplayFromStr")] pub u16);
    #[derive]
    pub struct T(#[serde(with = "x")] u8, String);"##;

#[test]
fn records_serde_with_derives_and_adapters() {
    use crate::read::outline::{Fields, Item, SerdeAttrs};
    let f = SourceFile::from_text("src/a.rs", SERDE_WITH);
    let outline = scan(&f).outline().expect("scanned");
    let adapter = |s: &SerdeAttrs| s.serde_as.as_ref().map(|(k, t)| format!("{k} = {t}"));
    let mut displays = Vec::new();
    let mut adapters = Vec::new();
    for item in &outline.items {
        match item {
            Item::Struct { serde, fields, .. } => {
                displays.push(serde.display.clone());
                match fields {
                    Fields::Named(named) => {
                        adapters.extend(named.iter().map(|f| adapter(&f.serde)))
                    }
                    Fields::Tuple(types) => adapters.extend(types.iter().map(|(s, _)| adapter(s))),
                    Fields::Unit => {}
                }
            }
            Item::Enum { serde, .. } => displays.push(serde.display.clone()),
            _ => {}
        }
    }
    assert_eq!(
        displays,
        [
            Some("SerializeDisplay".into()),
            Some("DeserializeFromStr".into()),
            None,
            None,
            None,
            None
        ]
    );
    assert_eq!(
        adapters,
        [
            None,
            Some("as = DisplayFromStr".into()),
            Some("serialize_as = Vec<DisplayFromStr>".into()),
            Some("deserialize_as = BTreeMap<DisplayFromStr, _>".into()),
            None,
            Some("as = DisplayFromStr".into()),
            None,
            None
        ]
    );
}

#[test]
fn records_serde_conversions_and_impls() {
    use crate::read::outline::Item;
    let f = SourceFile::from_text("src/a.rs", SERDE_IMPLS);
    let outline = scan(&f).outline().expect("scanned");
    let impls: Vec<(&str, &str)> = outline
        .items
        .iter()
        .filter_map(|i| match i {
            Item::SerdeImpl {
                trait_name,
                self_ty,
            } => Some((trait_name.as_str(), self_ty.name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        impls,
        [
            ("Serialize", "A"),
            ("Deserialize", "B"),
            ("Serialize", "r#C"),
            ("Serialize", "G")
        ]
    );
    let conversions: Vec<Option<&str>> = outline
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Struct { serde, .. } | Item::Enum { serde, .. } => {
                Some(serde.conversion.as_deref())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        conversions,
        [Some("into = \"String\""), Some("from = \"u8\"")]
    );
}

#[test]
fn steps_aside_for_what_it_does_not_read() {
    let aside = [
        "struct A<T> where T: X { a: T }",
        "struct A { a: (i32, String) }",
        "struct A { a: fn(i32) -> i32 }",
        "struct A { a: Box<dyn Fn()> }",
        "struct A { a: impl Trait }",
        "struct A { a: <T as X>::Y }",
        "struct A { a: Vec::<i32> }",
        "struct A { a: Foo<3> }",
        "struct A { a: Foo<Item = u8> }",
        "#[doc = include_str!(\"x.md\")] struct A;",
        "#[serde(rename = 1)] struct A;",
        "#[serde(rename = \"x\"suffix)] struct A;",
        "struct A<const N: usize = { 1 }>;",
        "trait A = B;",
        "\u{feff}struct A;",
        "#!/usr/bin/env rust\nstruct A;",
        "struct Café;",
        "/// trailing doc",
        "struct A { a: i32 /// trailing\n }",
        "fn f() { \"unterminated }",
        "fn f() { ( }",
        "struct A { a: i32, }\n//! late inner doc",
        "struct struct;",
        "enum E { A = 1 << 2 }",
        "const C: u8;",
        "/// a\r b\nstruct A;",
        "impl Serialize for &A {}",
        "pub impl Serialize for A {}",
        "impl Serialize for (A, B) {}",
        "impl<T> Serialize for <T as X>::Y {}",
        "#[serde(into = String)] struct A;",
        "#[serde(into)] struct A;",
        "#[derive(Foo<T>)] struct A;",
        "#[derive(1)] struct A;",
        "#[derive(crate::Foo)] struct A;",
        "#[derive = \"x\"] struct A;",
        "#[derive(A B)] struct A;",
        "struct A { #[serde_as(as = DisplayFromStr)] a: u8 }",
        "struct A { #[serde_as(as(x))] a: u8 }",
        "struct A { #[serde_as(as = 1)] a: u8 }",
    ];
    for src in aside {
        let f = SourceFile::from_text("src/a.rs", src);
        assert!(scan(&f).outline().is_none(), "the scanner read\n{src}");
    }
}

/// Small deterministic PRNG (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Harder runs: `RKB_SCAN_MUTANTS=60000 RKB_SCAN_SEED=7 cargo test --release -p rkb-manifests --lib
/// mutated -- --nocapture` (prints how many mutants were compared).
#[test]
fn scan_agrees_with_syn_on_mutated_sources() {
    let knob = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    rust_files(&repo.join("manifests/tests/corpus"), &mut files);
    rust_files(&repo.join("examples/microservice-deploy/src"), &mut files);
    // Files with types to read: a module file that only declares modules (`pub mod v1;`) would mostly turn into
    // garbage syn rejects, proving nothing.
    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .filter(|t| t.contains("struct ") || t.contains("enum "))
        .collect();
    // Edits that reach the scanner's corners: delimiters, quotes, comments, generics, attributes.
    let snippets = [
        "<",
        ">",
        "{",
        "}",
        "(",
        ")",
        "'",
        "\"",
        "/*",
        "*/",
        "///",
        "//!",
        "r#",
        ",",
        "::",
        ";",
        "\n",
        "#[serde(rename = \"x\")]",
        "#[doc = \"d\"]",
        "pub ",
        "pub(crate) ",
        "where T: X ",
        "<'a>",
        "&'a ",
        "mut ",
        "Vec<",
        "dyn ",
        "= 1",
        "b'x'",
        "r#\"s\"#",
        "é",
        "\r",
        "#[serde(into = \"u8\")]",
        "\nimpl<'de> serde::Deserialize<'de> for Spec<'_> {}\n",
        "#[derive(SerializeDisplay, serde_with::DeserializeFromStr)]",
        "#[serde_as(as = \"Vec<DisplayFromStr>\")]",
    ];
    let mut rng = Rng(knob("RKB_SCAN_SEED", 0x9e37_79b9_7f4a_7c15).max(1));
    let mutants = knob("RKB_SCAN_MUTANTS", 3000);
    let (mut both, mut scanned) = (0, 0);
    for _ in 0..mutants {
        let text = &texts[rng.below(texts.len())];
        let mut mutant = text.clone();
        for _ in 0..1 + rng.below(3) {
            let mut at = rng.below(mutant.len() + 1);
            while !mutant.is_char_boundary(at) {
                at -= 1;
            }
            if rng.below(2) == 0 {
                mutant.insert_str(at, snippets[rng.below(snippets.len())]);
            } else {
                let mut to = (at + 1 + rng.below(12)).min(mutant.len());
                while !mutant.is_char_boundary(to) {
                    to += 1;
                }
                mutant.replace_range(at..to, "");
            }
        }
        let f = SourceFile::from_text("src/api/v1/m.rs", &mutant);
        let Some(ours) = scan(&f).outline() else {
            continue;
        };
        scanned += 1;
        // Outside the items it reads the scanner only checks tokens, so syn may reject a mutant it read.
        if let Some(theirs) = by_syn(&f) {
            both += 1;
            assert_eq!(ours, theirs, "mutant:\n{mutant}");
        }
    }
    eprintln!("{both} of {mutants} mutants compared ({scanned} scanned)");
    // Most mutants must still reach the comparison, or the test would prove nothing.
    assert!(
        both * 3 > mutants as usize,
        "only {both} of {scanned} scanned mutants were also read by syn"
    );
}
