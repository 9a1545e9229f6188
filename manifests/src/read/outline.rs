//! What the model reads of one source file, in owned data: items with their doc lines, serde
//! attributes and field types, nothing else. Two front ends build it: [`crate::read::scan`] (fast, reads only
//! this much and gives up on anything unusual) and [`from_syn`] (syn's full parse, the reference and
//! the fallback). A test checks that the two agree on every file both can read.

use crate::read::scan::nesting;
use crate::read::source::{DocLine, SourceFile, doc_lines};
use crate::read::type_expr::TypeExpr;
use rkb_markers::Diagnostic;

/// The stack of the thread syn parses on: syn recurses a few times per level of what nests, taking about
/// 40 KiB per level of generic arguments in a debug build (measured), so [`nesting::MAX_NESTING`] levels take
/// some 5 MiB, more than the 2 MiB of a worker or test thread. Only the pages used are taken.
const SYN_STACK: usize = 64 << 20;

/// Parses `file` with syn (a syntax error goes to `diags`) and hands its tree to `read`, on a thread with a stack
/// of [`SYN_STACK`] (syn's trees cannot leave the thread that parsed them: `read` takes what it needs). A file
/// nested deeper than [`nesting::MAX_NESTING`] levels is not parsed: the error goes to `diags`. The caller sets
/// up the lexer ([`crate::read::source::with_fallback_lexer`]).
pub fn with_syn<T: Send>(
    file: &SourceFile,
    diags: &mut Vec<Diagnostic>,
    read: impl FnOnce(&syn::File) -> T + Send,
) -> Option<T> {
    if let Some(d) = nesting::too_deep(file) {
        diags.push(d);
        return None;
    }
    let mut job = Some(move || crate::read::source::parse(file, diags).map(|ast| read(&ast)));
    let ran = std::thread::scope(|scope| {
        let job = &mut job;
        std::thread::Builder::new()
            .name("rkb-syn".into())
            .stack_size(SYN_STACK)
            .spawn_scoped(scope, move || job.take().and_then(|parse| parse()))
            .ok()
            .map(|parser| {
                parser
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
    });
    match ran {
        Some(outcome) => outcome,
        // No thread to be had: parse here.
        None => job.take().and_then(|parse| parse()),
    }
}

/// The items of a file, or of an inline module's body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// `//!` lines (inner docs): package markers.
    pub inner_docs: Vec<DocLine>,
    pub items: Vec<Item>,
}

/// An identifier as written (`r#type` keeps its `r#`) and where it starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub line: usize,
    /// 1-based character column.
    pub col: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Struct {
        docs: Vec<DocLine>,
        serde: SerdeAttrs,
        ident: Ident,
        fields: Fields,
    },
    Enum {
        docs: Vec<DocLine>,
        serde: SerdeAttrs,
        ident: Ident,
        variants: Vec<Variant>,
    },
    /// `type X = Y;`
    Alias {
        docs: Vec<DocLine>,
        ident: Ident,
        ty: TypeExpr,
    },
    /// The names a `use` item brings in, in order.
    Use(Vec<UseName>),
    /// `mod x;` (no body) or `mod x { ... }`.
    Mod {
        docs: Vec<DocLine>,
        body: Option<Outline>,
    },
    /// Docs of an item read only for RBAC markers: impl and trait blocks, the fns inside them (each
    /// its own entry, after the block's), fns, consts and statics.
    Other { docs: Vec<DocLine> },
    /// `impl ... Serialize for X` or `impl ... Deserialize<'de> for X` (serde's traits, see
    /// [`serde_trait`]), after the impl block's [`Item::Other`]: a type whose JSON is written by hand.
    SerdeImpl {
        /// `Serialize` or `Deserialize`.
        trait_name: String,
        /// The last segment of the self type's path (`X` of `crate::a::X<T>`).
        self_ty: Ident,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fields {
    Named(Vec<Field>),
    /// Each field's serde attributes (a newtype's adapter is its JSON) and type.
    Tuple(Vec<(SerdeAttrs, TypeExpr)>),
    Unit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub docs: Vec<DocLine>,
    pub serde: SerdeAttrs,
    pub ident: Ident,
    pub ty: TypeExpr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub docs: Vec<DocLine>,
    pub serde: SerdeAttrs,
    pub name: String,
    /// No fields (a discriminant is allowed).
    pub unit: bool,
}

/// One name a `use` brings in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UseName {
    /// `use a::b::C as D;` -> ("D", [a, b, C])
    Name(String, Vec<String>),
    /// `use a::b::*;` -> [a, b]
    Glob(Vec<String>),
}

/// What the model reads of `#[serde(...)]` attributes, container and field keys together (a key that
/// does not apply where it is written cannot compile, so mixing them loses nothing), and of the two other attributes
/// that decide a type's or field's JSON: `#[derive(...)]` (serde_with's Display derives) and serde_with's
/// `#[serde_as(...)]` on a field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SerdeAttrs {
    /// `rename_all = "..."` (or its `serialize = "..."`), as written.
    pub rename_all: Option<String>,
    /// `rename = "..."` (or its `serialize = "..."`).
    pub rename: Option<String>,
    pub default: bool,
    pub transparent: bool,
    /// `untagged`, `tag` or `content`: not a plain string enum.
    pub untagged: bool,
    pub flatten: bool,
    /// `skip` or `skip_serializing`.
    pub skip: bool,
    pub skip_if: bool,
    /// The first of `into = "T"`, `from = "T"`, `try_from = "T"`, as written with its value (the type's JSON
    /// is `T`'s, not its fields').
    pub conversion: Option<String>,
    /// The first of serde_with's derives that write the type as its Display text (or read it from its FromStr)
    /// that a `#[derive(...)]` names ([`display_derive`]): its JSON is a string, not its fields.
    pub display: Option<String>,
    /// The first `as = "T"` (or `serialize_as`, `deserialize_as`) of a field's `#[serde_as(...)]`: the key and `T`
    /// as written. serde_with writes the field through the adapter `T`, not through its type's `Serialize`.
    pub serde_as: Option<(String, String)>,
}

/// What a serde key does to [`SerdeAttrs`]; both front ends read keys through this.
pub enum SerdeKey {
    /// Takes a name: `key = "x"` or `key(serialize = "x", ...)`.
    RenameAll,
    Rename,
    /// A flag; a value after it (`default = "path"`) is skipped.
    Default,
    Untagged,
    SkipIf,
    /// A flag with no value.
    Transparent,
    Flatten,
    Skip,
    /// `into`, `from` or `try_from`: takes a type as a string (`key = "T"`).
    Conversion,
    /// Read past.
    Other,
}

impl SerdeKey {
    pub fn of(key: &str) -> Self {
        match key {
            "rename_all" => Self::RenameAll,
            "rename" => Self::Rename,
            "default" => Self::Default,
            "untagged" | "tag" | "content" => Self::Untagged,
            "skip_serializing_if" => Self::SkipIf,
            "transparent" => Self::Transparent,
            "flatten" => Self::Flatten,
            "skip" | "skip_serializing" => Self::Skip,
            "into" | "from" | "try_from" => Self::Conversion,
            _ => Self::Other,
        }
    }
}

impl SerdeAttrs {
    /// Records a flag key (every key but the two renames).
    pub fn set_flag(&mut self, key: &SerdeKey) {
        match key {
            SerdeKey::Default => self.default = true,
            SerdeKey::Untagged => self.untagged = true,
            SerdeKey::SkipIf => self.skip_if = true,
            SerdeKey::Transparent => self.transparent = true,
            SerdeKey::Flatten => self.flatten = true,
            SerdeKey::Skip => self.skip = true,
            SerdeKey::RenameAll | SerdeKey::Rename | SerdeKey::Conversion | SerdeKey::Other => {}
        }
    }

    /// Records a conversion key (`into = "T"`...) unless one came before: the first names the reason.
    pub fn set_conversion(&mut self, key: &str, ty: &str) {
        if self.conversion.is_none() {
            self.conversion = Some(format!("{key} = {ty:?}"));
        }
    }

    /// Records a derive's path: serde_with's Display derives ([`display_derive`]) unless one came before.
    pub fn set_derive<S: AsRef<str>>(&mut self, segments: &[S]) {
        if self.display.is_none() {
            self.display = display_derive(segments).map(str::to_owned);
        }
    }

    /// Records a `#[serde_as(...)]` key with a string value: the adapter, if `key` names one and none came before.
    pub fn set_serde_as(&mut self, key: &str, ty: &str) {
        if self.serde_as.is_none() && SERDE_AS_KEYS.contains(&key) {
            self.serde_as = Some((key.to_owned(), ty.to_owned()));
        }
    }

    /// Records a rename key's serialize name (`None`: only a deserialize name was given).
    pub fn set_name(&mut self, key: &SerdeKey, name: Option<String>) {
        match key {
            SerdeKey::RenameAll => self.rename_all = name,
            SerdeKey::Rename => self.rename = name,
            _ => {}
        }
    }
}

/// Which of serde's traits an impl's trait path names (`Serialize`, `serde::Serialize`, `::serde::ser::Serialize`,
/// `Deserialize<'de>`...), leading `::` and generic arguments left out. A path through another crate
/// (`rkyv::Serialize`) is not serde's; a `use serde::Serialize as S` rename is not followed.
pub fn serde_trait<S: AsRef<str>>(segments: &[S]) -> Option<&'static str> {
    let name = match segments.last()?.as_ref() {
        "Serialize" => "Serialize",
        "Deserialize" => "Deserialize",
        _ => return None,
    };
    (segments.len() == 1 || segments[0].as_ref() == "serde").then_some(name)
}

/// The keys of a field's `#[serde_as(...)]` that name the adapter it is written (or read) through.
const SERDE_AS_KEYS: [&str; 3] = ["as", "serialize_as", "deserialize_as"];

/// Which of serde_with's derives a derive path names (`SerializeDisplay`, `serde_with::DeserializeFromStr`...),
/// leading `::` left out: the ones that make a type's JSON the text of its Display (`SerializeDisplay`,
/// `SerializeDisplayAlt`) or read it from its FromStr (`DeserializeFromStr`). As with [`serde_trait`], a path through
/// another crate is not serde_with's, and a renamed import is not followed.
pub fn display_derive<S: AsRef<str>>(segments: &[S]) -> Option<&'static str> {
    let name = match segments.last()?.as_ref() {
        "SerializeDisplay" => "SerializeDisplay",
        "SerializeDisplayAlt" => "SerializeDisplayAlt",
        "DeserializeFromStr" => "DeserializeFromStr",
        _ => return None,
    };
    (segments.len() == 1 || segments[0].as_ref() == "serde_with").then_some(name)
}

/// The outline of a file syn parsed.
pub fn from_syn(ast: &syn::File, file: &SourceFile) -> Outline {
    Outline {
        inner_docs: doc_lines(&ast.attrs, file, true),
        items: items(&ast.items, file),
    }
}

fn items(list: &[syn::Item], file: &SourceFile) -> Vec<Item> {
    let docs = |attrs: &[syn::Attribute]| doc_lines(attrs, file, false);
    let mut out = Vec::new();
    for item in list {
        match item {
            syn::Item::Struct(s) => out.push(Item::Struct {
                docs: docs(&s.attrs),
                serde: serde_attrs(&s.attrs),
                ident: ident(&s.ident),
                fields: match &s.fields {
                    syn::Fields::Named(named) => Fields::Named(
                        named
                            .named
                            .iter()
                            .filter_map(|f| {
                                Some(Field {
                                    docs: docs(&f.attrs),
                                    serde: serde_attrs(&f.attrs),
                                    ident: ident(f.ident.as_ref()?),
                                    ty: TypeExpr::from_syn(&f.ty),
                                })
                            })
                            .collect(),
                    ),
                    syn::Fields::Unnamed(un) => Fields::Tuple(
                        un.unnamed
                            .iter()
                            .map(|f| (serde_attrs(&f.attrs), TypeExpr::from_syn(&f.ty)))
                            .collect(),
                    ),
                    syn::Fields::Unit => Fields::Unit,
                },
            }),
            syn::Item::Enum(e) => out.push(Item::Enum {
                docs: docs(&e.attrs),
                serde: serde_attrs(&e.attrs),
                ident: ident(&e.ident),
                variants: e
                    .variants
                    .iter()
                    .map(|v| Variant {
                        docs: docs(&v.attrs),
                        serde: serde_attrs(&v.attrs),
                        name: v.ident.to_string(),
                        unit: matches!(v.fields, syn::Fields::Unit),
                    })
                    .collect(),
            }),
            syn::Item::Type(t) => out.push(Item::Alias {
                docs: docs(&t.attrs),
                ident: ident(&t.ident),
                ty: TypeExpr::from_syn(&t.ty),
            }),
            syn::Item::Use(u) => {
                let mut names = Vec::new();
                use_names(&u.tree, Vec::new(), &mut names);
                out.push(Item::Use(names));
            }
            syn::Item::Mod(m) => out.push(Item::Mod {
                docs: docs(&m.attrs),
                body: m.content.as_ref().map(|(_, inner)| Outline {
                    inner_docs: doc_lines(&m.attrs, file, true),
                    items: items(inner, file),
                }),
            }),
            syn::Item::Impl(i) => {
                out.push(Item::Other {
                    docs: docs(&i.attrs),
                });
                out.extend(serde_impl(i));
                for ii in &i.items {
                    if let syn::ImplItem::Fn(f) = ii {
                        out.push(Item::Other {
                            docs: docs(&f.attrs),
                        });
                    }
                }
            }
            syn::Item::Trait(t) => {
                out.push(Item::Other {
                    docs: docs(&t.attrs),
                });
                for ti in &t.items {
                    if let syn::TraitItem::Fn(f) = ti {
                        out.push(Item::Other {
                            docs: docs(&f.attrs),
                        });
                    }
                }
            }
            syn::Item::Fn(syn::ItemFn { attrs, .. })
            | syn::Item::Const(syn::ItemConst { attrs, .. })
            | syn::Item::Static(syn::ItemStatic { attrs, .. }) => {
                out.push(Item::Other { docs: docs(attrs) })
            }
            _ => {}
        }
    }
    out
}

/// An impl of serde's Serialize or Deserialize for a path type (see [`Item::SerdeImpl`]).
fn serde_impl(i: &syn::ItemImpl) -> Option<Item> {
    let (path, _) = i.trait_.as_ref()?;
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    // A negative impl (`impl !Serialize for X`) writes no JSON.
    let trait_name = serde_trait(&segments).filter(|_| i.modifiers.polarity.is_none())?;
    let syn::Type::Path(tp) = &*i.self_ty else {
        return None;
    };
    let last = tp.path.segments.last().filter(|_| tp.qself.is_none())?;
    Some(Item::SerdeImpl {
        trait_name: trait_name.into(),
        self_ty: ident(&last.ident),
    })
}

fn ident(i: &syn::Ident) -> Ident {
    let start = i.span().start();
    Ident {
        name: i.to_string(),
        line: start.line,
        col: start.column + 1,
    }
}

fn use_names(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<UseName>) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut pre = prefix;
            pre.push(p.ident.to_string());
            use_names(&p.tree, pre, out);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix;
            if name == "self" {
                if let Some(last) = full.last().cloned() {
                    out.push(UseName::Name(last, full));
                }
                return;
            }
            full.push(name.clone());
            out.push(UseName::Name(name, full));
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix;
            let name = r.ident.to_string();
            if name != "self" {
                full.push(name);
            }
            out.push(UseName::Name(r.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => out.push(UseName::Glob(prefix)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_names(t, prefix.clone(), out);
            }
        }
    }
}

/// Reads every `#[serde(...)]`, `#[derive(...)]` and `#[serde_as(...)]` of `attrs`. A malformed one is read up to
/// where it stops making sense (it would not compile anyway).
fn serde_attrs(attrs: &[syn::Attribute]) -> SerdeAttrs {
    let mut out = SerdeAttrs::default();
    for a in attrs {
        if a.path().is_ident("derive") {
            derives(a, &mut out);
        } else if a.path().is_ident("serde_as") {
            serde_as(a, &mut out);
        }
    }
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|m| {
            let key_name = m.path.get_ident().map(ToString::to_string);
            let key = key_name.as_deref().map_or(SerdeKey::Other, SerdeKey::of);
            match key {
                SerdeKey::RenameAll | SerdeKey::Rename => {
                    let name = ser_name(&m)?;
                    out.set_name(&key, name);
                }
                SerdeKey::Transparent | SerdeKey::Flatten | SerdeKey::Skip => out.set_flag(&key),
                SerdeKey::Conversion => {
                    let ty: syn::LitStr = m.value()?.parse()?;
                    out.set_conversion(key_name.as_deref().unwrap_or(""), &ty.value());
                }
                _ => {
                    out.set_flag(&key);
                    skip_meta(&m)?;
                }
            }
            Ok(())
        });
    }
    out
}

/// The paths of `#[derive(...)]` into `out` ([`SerdeAttrs::set_derive`]); a list that is not of paths is not read.
fn derives(a: &syn::Attribute, out: &mut SerdeAttrs) {
    let parser = syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
    for path in a.parse_args_with(parser).into_iter().flatten() {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        out.set_derive(&segments);
    }
}

/// The adapter of a field's `#[serde_as(as = "T", ...)]` into `out` ([`SerdeAttrs::set_serde_as`]).
fn serde_as(a: &syn::Attribute, out: &mut SerdeAttrs) {
    let _ = a.parse_nested_meta(|m| {
        let key = m
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if m.input.peek(syn::Token![=]) && SERDE_AS_KEYS.contains(&key.as_str()) {
            let ty: syn::LitStr = m.value()?.parse()?;
            out.set_serde_as(&key, &ty.value());
            Ok(())
        } else {
            skip_meta(&m)
        }
    });
}

/// Consumes whatever follows a serde key we don't read.
fn skip_meta(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| skip_meta(&m))?;
    }
    Ok(())
}

/// `rename = "x"` or `rename(serialize = "x", ...)`: the serialize name.
fn ser_name(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        let s: syn::LitStr = meta.value()?.parse()?;
        return Ok(Some(s.value()));
    }
    let mut out = None;
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("serialize") {
            let s: syn::LitStr = m.value()?.parse()?;
            out = Some(s.value());
            Ok(())
        } else {
            skip_meta(&m)
        }
    })?;
    Ok(out)
}
