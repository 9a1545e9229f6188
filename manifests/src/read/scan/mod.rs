//! Stage 1, read, fast path: the [`Outline`] of a file read straight from its tokens, without building syn's
//! trees. It reads the items the model needs (structs, enums, aliases, `use`, modules) in full and steps
//! over the rest (function bodies, impl blocks, macros) by their delimiters. On anything it does not
//! know for certain (a `where` clause on a type, a tuple or `dyn` field type, `#[doc = include_str!(..)]`,
//! a non-ASCII identifier...) it steps aside ([`Scanned::Unsure`]) and syn reads the file: syn stays the
//! reference, so the scanner may be incomplete but never different (the `scan_agrees_with_syn_*` tests hold it to
//! that, on every `.rs` file of this repository and on mutants of them). What it reads nested deeper than
//! [`nesting::MAX_NESTING`] levels it reports itself ([`Scanned::TooDeep`]), where it is.
//!
//! What this gives up: outside the items it reads, only tokens are checked (balanced delimiters,
//! terminated literals). A syntax error inside a function body is left to `cargo build`.

pub(crate) mod lex;
pub mod nesting;

use crate::read::outline::{
    Field, Fields, Ident, Item, Outline, SerdeAttrs, SerdeKey, UseName, Variant,
};
use crate::read::source::{DocForm, DocLine, SourceFile, place_doc};
use crate::read::type_expr::TypeExpr;
use lex::{Kind, Token};
use nesting::MAX_NESTING;
use rkb_markers::Diagnostic;
use std::cell::Cell;

/// What the scanner made of a file.
#[derive(Debug)]
pub enum Scanned {
    Outline(Outline),
    /// The items it reads nest deeper than [`MAX_NESTING`] levels: the error, where they do.
    TooDeep(Diagnostic),
    /// Something only syn should judge.
    Unsure,
}

#[cfg(test)]
impl Scanned {
    /// The outline, if the scanner read the file.
    pub fn outline(self) -> Option<Outline> {
        match self {
            Scanned::Outline(o) => Some(o),
            Scanned::TooDeep(_) | Scanned::Unsure => None,
        }
    }
}

/// The outline of `file`; or where it nests too deep; or that syn should read it.
pub fn scan(file: &SourceFile) -> Scanned {
    let Some(toks) = lex::lex(&file.text) else {
        return Scanned::Unsure;
    };
    let s = Scanner {
        file,
        text: &file.text,
        toks: &toks,
        depth: Cell::new(0),
        too_deep_at: Cell::new(None),
    };
    let outline = s.module_body(0, toks.len());
    match (s.too_deep_at.get(), outline) {
        (Some(at), _) => Scanned::TooDeep(nesting::error(file, at)),
        (None, Some(outline)) => Scanned::Outline(outline),
        (None, None) => Scanned::Unsure,
    }
}

/// Words that cannot name an item, field or path segment (`self`, `super`, `crate` and `Self` are
/// checked where they may appear): Rust's keywords and `_`.
fn is_keyword(w: &str) -> bool {
    w == "_" || rkb_markers::is_rust_keyword(w)
}

const PATH_ROOTS: &[&str] = &["self", "super", "crate", "Self"];

struct Scanner<'a> {
    file: &'a SourceFile,
    text: &'a str,
    toks: &'a [Token],
    /// How many levels deep the scanner is in what nests: types, inline modules, `use` groups, serde lists.
    depth: Cell<usize>,
    /// The byte where it would have gone deeper than [`MAX_NESTING`].
    too_deep_at: Cell<Option<usize>>,
}

/// One level of [`Scanner::depth`], left when dropped.
struct Level<'s>(&'s Cell<usize>);

impl Drop for Level<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

/// Where an item's attributes end, and what they said.
struct Attrs {
    next: usize,
    docs: Vec<DocLine>,
    serde: SerdeAttrs,
}

impl Scanner<'_> {
    /// One level deeper, for what starts at token `i`; `None` past [`MAX_NESTING`] (the scanner stops, and says
    /// where).
    fn deeper(&self, i: usize) -> Option<Level<'_>> {
        if self.depth.get() >= MAX_NESTING {
            let at = self.toks.get(i).map_or(self.text.len(), |t| t.start);
            self.too_deep_at.set(self.too_deep_at.get().or(Some(at)));
            return None;
        }
        self.depth.set(self.depth.get() + 1);
        Some(Level(&self.depth))
    }

    fn kind(&self, i: usize) -> Option<Kind> {
        self.toks.get(i).map(|t| t.kind)
    }

    fn word(&self, i: usize) -> Option<&str> {
        let t = self.toks.get(i)?;
        (t.kind == Kind::Ident).then(|| &self.text[t.start..t.end])
    }

    fn is_word(&self, i: usize, w: &str) -> bool {
        self.word(i) == Some(w)
    }

    fn is_punct(&self, i: usize, c: u8) -> bool {
        self.kind(i) == Some(Kind::Punct(c))
    }

    /// `::` at `i` (two adjacent colons).
    fn is_path_sep(&self, i: usize) -> bool {
        self.is_punct(i, b':')
            && self.is_punct(i + 1, b':')
            && self.toks[i].end == self.toks[i + 1].start
    }

    fn is_open(&self, i: usize, c: u8) -> bool {
        self.kind(i) == Some(Kind::Open(c))
    }

    /// A name that is not a keyword (raw identifiers always are names).
    fn name(&self, i: usize) -> Option<&str> {
        let w = self.word(i)?;
        (!is_keyword(w)).then_some(w)
    }

    fn ident(&self, i: usize) -> Option<Ident> {
        let name = self.name(i)?.to_string();
        let (line, col) = self.file.position(self.toks[i].start);
        Some(Ident {
            name,
            line,
            col: col + 1,
        })
    }

    /// The doc lines of the doc comment at `i`.
    fn doc_lines(&self, i: usize, out: &mut Vec<DocLine>) {
        let t = self.toks[i];
        let (line, col) = self.file.position(t.start);
        let comment = &self.text[t.start..t.end];
        let (text, form) = if comment.starts_with("//") {
            (&comment[3..], DocForm::Line)
        } else {
            (&comment[3..comment.len() - 2], DocForm::Block)
        };
        place_doc(text, form, line, col, self.file, out);
    }

    /// Inner attributes, then items, up to `end`.
    fn module_body(&self, mut i: usize, end: usize) -> Option<Outline> {
        let mut inner_docs = Vec::new();
        loop {
            if self.kind(i) == Some(Kind::InnerDoc) && i < end {
                self.doc_lines(i, &mut inner_docs);
                i += 1;
            } else if i < end && self.is_punct(i, b'#') && self.is_punct(i + 1, b'!') {
                i = self.attr(i + 2, &mut inner_docs, None)?;
            } else {
                break;
            }
        }
        let mut items = Vec::new();
        while i < end {
            i = self.item(i, end, &mut items)?;
        }
        Some(Outline { inner_docs, items })
    }

    /// The attribute whose `[` is at `i`: `#[doc = "..."]` lines go to `docs`; serde attributes, derives and
    /// serde_as attributes are read into `serde` when given.
    fn attr(
        &self,
        i: usize,
        docs: &mut Vec<DocLine>,
        serde: Option<&mut SerdeAttrs>,
    ) -> Option<usize> {
        if !self.is_open(i, b'[') {
            return None;
        }
        let close = self.toks[i].close;
        match self.word(i + 1) {
            Some("doc") if self.is_open(i + 2, b'(') && self.toks[i + 2].close + 1 == close => {}
            Some("doc") if self.is_punct(i + 2, b'=') && i + 4 == close => {
                self.doc_attr(i + 3, docs)?;
            }
            Some("doc") => return None,
            Some("serde") if i + 2 < close => {
                if !(self.is_open(i + 2, b'(') && self.toks[i + 2].close + 1 == close) {
                    return None;
                }
                if let Some(serde) = serde {
                    self.serde_args(i + 3, self.toks[i + 2].close, serde)?;
                }
            }
            Some(word @ ("derive" | "serde_as")) if serde.is_some() && i + 2 < close => {
                if !(self.is_open(i + 2, b'(') && self.toks[i + 2].close + 1 == close) {
                    return None;
                }
                let (args, end) = (i + 3, self.toks[i + 2].close);
                let serde = serde?;
                if word == "derive" {
                    self.derive_args(args, end, serde)?;
                } else {
                    self.serde_as_args(args, end, serde)?;
                }
            }
            _ => {}
        }
        Some(close + 1)
    }

    /// The lines of the `#[doc = ...]` string literal at `i`.
    fn doc_attr(&self, i: usize, docs: &mut Vec<DocLine>) -> Option<()> {
        let value = self.lit_str(i)?;
        let t = self.toks[i];
        let (line, col) = self.file.position(t.start);
        // The literal's prefix (`"`, `r#"`...) is ASCII: bytes count as characters.
        let quote = self.text[t.start..t.end].find('"')? + 1;
        place_doc(&value, DocForm::Attr { quote }, line, col, self.file, docs);
        Some(())
    }

    /// Outer attributes and doc lines from `i`.
    fn attrs(&self, mut i: usize, end: usize) -> Option<Attrs> {
        let mut docs = Vec::new();
        let mut serde = SerdeAttrs::default();
        while i < end {
            match self.kind(i)? {
                Kind::OuterDoc => {
                    self.doc_lines(i, &mut docs);
                    i += 1;
                }
                Kind::InnerDoc => return None,
                Kind::Punct(b'#') => {
                    if self.is_punct(i + 1, b'!') {
                        return None;
                    }
                    i = self.attr(i + 1, &mut docs, Some(&mut serde))?;
                }
                _ => break,
            }
        }
        // Attributes must be followed by something they belong to.
        (i < end).then_some(Attrs {
            next: i,
            docs,
            serde,
        })
    }

    /// Skips `pub`, `pub(crate)`, `pub(super)`, `pub(self)`, `pub(in path)`.
    fn vis(&self, i: usize) -> usize {
        if !self.is_word(i, "pub") {
            return i;
        }
        if self.is_open(i + 1, b'(')
            && matches!(self.word(i + 2), Some("crate" | "self" | "super" | "in"))
        {
            return self.toks[i + 1].close + 1;
        }
        i + 1
    }

    /// One item from `i`; returns where the next one starts.
    fn item(&self, i: usize, end: usize, items: &mut Vec<Item>) -> Option<usize> {
        let Attrs { next, docs, serde } = self.attrs(i, end)?;
        let i = self.vis(next);
        let next = match self.word(i)? {
            "struct" => self.struct_item(i, end, docs, serde, items)?,
            "enum" => self.enum_item(i, end, docs, serde, items)?,
            "type" => self.alias_item(i, end, docs, items)?,
            "use" => self.use_item(i, items)?,
            "mod" => self.mod_item(i, docs, items)?,
            "static" => {
                items.push(Item::Other { docs });
                self.past_value(i + 1, end)?
            }
            "const" if self.name(i + 1).is_some() || self.is_word(i + 1, "_") => {
                if !self.is_punct(i + 2, b':') || self.is_path_sep(i + 2) {
                    return None;
                }
                items.push(Item::Other { docs });
                self.past_value(i + 1, end)?
            }
            "extern" if self.is_word(i + 1, "crate") => self.skip_past_semi(i + 1, end)?,
            "macro_rules" if self.is_punct(i + 1, b'!') => {
                self.name(i + 2)?;
                self.macro_body(i + 3, end)?
            }
            "union" if self.name(i + 1).is_some() => {
                let j = self.skip_generics(i + 2)?;
                if !self.is_open(j, b'{') {
                    return None;
                }
                self.toks[j].close + 1
            }
            _ => self.qualified_item(i, end, i != next, docs, items)?,
        };
        Some(next)
    }

    /// `type Name<..> = Type;` at `i`.
    fn alias_item(
        &self,
        i: usize,
        end: usize,
        docs: Vec<DocLine>,
        items: &mut Vec<Item>,
    ) -> Option<usize> {
        let ident = self.ident(i + 1)?;
        let j = self.skip_generics(i + 2)?;
        if !self.is_punct(j, b'=') {
            return None;
        }
        let (j, ty) = self.type_expr(j + 1, end)?;
        if !self.is_punct(j, b';') {
            return None;
        }
        items.push(Item::Alias { docs, ident, ty });
        Some(j + 1)
    }

    /// `use tree;` at `i`.
    fn use_item(&self, i: usize, items: &mut Vec<Item>) -> Option<usize> {
        let mut names = Vec::new();
        let mut j = i + 1;
        if self.is_path_sep(j) {
            j += 2;
        }
        let j = self.use_tree(j, Vec::new(), &mut names)?;
        if !self.is_punct(j, b';') {
            return None;
        }
        items.push(Item::Use(names));
        Some(j + 1)
    }

    /// `mod name;` or `mod name { .. }` at `i`.
    fn mod_item(&self, i: usize, docs: Vec<DocLine>, items: &mut Vec<Item>) -> Option<usize> {
        self.name(i + 1)?;
        if self.is_punct(i + 2, b';') {
            items.push(Item::Mod { docs, body: None });
            Some(i + 3)
        } else if self.is_open(i + 2, b'{') {
            let close = self.toks[i + 2].close;
            let _level = self.deeper(i + 2)?;
            let body = self.module_body(i + 3, close)?;
            items.push(Item::Mod {
                docs,
                body: Some(body),
            });
            Some(close + 1)
        } else {
            None
        }
    }

    /// Qualifiers (`const`, `async`, `unsafe`, `extern "C"`, ...) at `i`, then a fn, impl, trait or extern block,
    /// or else a macro call. `has_vis`: a visibility came before `i`.
    fn qualified_item(
        &self,
        i: usize,
        end: usize,
        has_vis: bool,
        docs: Vec<DocLine>,
        items: &mut Vec<Item>,
    ) -> Option<usize> {
        let mut j = i;
        let mut extern_abi = false;
        while let Some(w) = self.word(j) {
            match w {
                "const" | "async" | "unsafe" | "safe" | "auto" => j += 1,
                "extern" => {
                    extern_abi = true;
                    j += 1;
                    if self.kind(j) == Some(Kind::Literal) {
                        j += 1;
                    }
                }
                _ => break,
            }
        }
        match self.word(j) {
            Some("fn") => {
                items.push(Item::Other { docs });
                self.skip_fn(j + 1, end)
            }
            // syn keeps `pub impl` (an error) as tokens, not as an impl.
            Some("impl") if has_vis => None,
            Some("impl") => self.block(j + 1, end, docs, items, true),
            Some("trait") => self.block(j + 1, end, docs, items, false),
            // `extern "C" { ... }`: foreign items, not read.
            _ if extern_abi && self.is_open(j, b'{') => Some(self.toks[j].close + 1),
            _ if j == i => self.macro_call(i, end),
            _ => None,
        }
    }

    fn struct_item(
        &self,
        i: usize,
        end: usize,
        docs: Vec<DocLine>,
        serde: SerdeAttrs,
        items: &mut Vec<Item>,
    ) -> Option<usize> {
        let ident = self.ident(i + 1)?;
        let j = self.skip_generics(i + 2)?;
        let (fields, next) = match self.kind(j)? {
            Kind::Open(b'{') => {
                let close = self.toks[j].close;
                (Fields::Named(self.named_fields(j + 1, close)?), close + 1)
            }
            Kind::Open(b'(') => {
                let close = self.toks[j].close;
                if !self.is_punct(close + 1, b';') {
                    return None;
                }
                (Fields::Tuple(self.tuple_fields(j + 1, close)?), close + 2)
            }
            Kind::Punct(b';') => (Fields::Unit, j + 1),
            _ => return None,
        };
        if next > end {
            return None;
        }
        items.push(Item::Struct {
            docs,
            serde,
            ident,
            fields,
        });
        Some(next)
    }

    fn named_fields(&self, mut i: usize, end: usize) -> Option<Vec<Field>> {
        let mut fields = Vec::new();
        while i < end {
            let Attrs { next, docs, serde } = self.attrs(i, end)?;
            let j = self.vis(next);
            let ident = self.ident(j)?;
            if !self.is_punct(j + 1, b':') || self.is_path_sep(j + 1) {
                return None;
            }
            let (j, ty) = self.type_expr(j + 2, end)?;
            fields.push(Field {
                docs,
                serde,
                ident,
                ty,
            });
            i = self.list_sep(j, end)?;
        }
        Some(fields)
    }

    fn tuple_fields(&self, mut i: usize, end: usize) -> Option<Vec<(SerdeAttrs, TypeExpr)>> {
        let mut types = Vec::new();
        while i < end {
            let Attrs { next, serde, .. } = self.attrs(i, end)?;
            let (j, ty) = self.type_expr(self.vis(next), end)?;
            types.push((serde, ty));
            i = self.list_sep(j, end)?;
        }
        Some(types)
    }

    /// After a list element ending at `j`: past the `,`, or `end`.
    fn list_sep(&self, j: usize, end: usize) -> Option<usize> {
        if j == end {
            Some(end)
        } else if self.is_punct(j, b',') {
            Some(j + 1)
        } else {
            None
        }
    }

    fn enum_item(
        &self,
        i: usize,
        end: usize,
        docs: Vec<DocLine>,
        serde: SerdeAttrs,
        items: &mut Vec<Item>,
    ) -> Option<usize> {
        let ident = self.ident(i + 1)?;
        let j = self.skip_generics(i + 2)?;
        if !self.is_open(j, b'{') {
            return None;
        }
        let close = self.toks[j].close;
        if close >= end {
            return None;
        }
        let mut variants = Vec::new();
        let mut k = j + 1;
        while k < close {
            let Attrs { next, docs, serde } = self.attrs(k, close)?;
            let name = self.name(next)?.to_string();
            let mut m = next + 1;
            let unit = !(self.is_open(m, b'{') || self.is_open(m, b'('));
            if !unit {
                m = self.toks[m].close + 1;
            }
            if self.is_punct(m, b'=') {
                // A discriminant: an expression up to the next comma (none may hide in generics).
                m += 1;
                while m < close && !self.is_punct(m, b',') {
                    if self.is_punct(m, b'<') {
                        return None;
                    }
                    m = self.step(m);
                }
            }
            variants.push(Variant {
                docs,
                serde,
                name,
                unit,
            });
            k = self.list_sep(m, close)?;
        }
        items.push(Item::Enum {
            docs,
            serde,
            ident,
            variants,
        });
        Some(close + 1)
    }

    /// The next token tree after `i` (a delimited group counts as one).
    fn step(&self, i: usize) -> usize {
        match self.toks[i].kind {
            Kind::Open(_) => self.toks[i].close + 1,
            _ => i + 1,
        }
    }

    /// Past `;` at this nesting level.
    fn skip_past_semi(&self, mut i: usize, end: usize) -> Option<usize> {
        while i < end {
            if self.is_punct(i, b';') {
                return Some(i + 1);
            }
            i = self.step(i);
        }
        None
    }

    /// Past the `= value;` of a const or static (syn keeps one without a value as an item it does not
    /// read).
    fn past_value(&self, mut i: usize, end: usize) -> Option<usize> {
        while i < end && !self.is_punct(i, b'=') {
            if self.is_punct(i, b';') {
                return None;
            }
            i = self.step(i);
        }
        self.skip_past_semi(i, end)
    }

    /// Past generic parameters starting at `i`, if any; a `where` clause or a brace inside them makes
    /// the scanner give up.
    fn skip_generics(&self, i: usize) -> Option<usize> {
        let j = if self.is_punct(i, b'<') {
            self.past_angles(i)?
        } else {
            i
        };
        (!self.is_word(j, "where")).then_some(j)
    }

    /// Past the `>` matching the `<` at `i`.
    fn past_angles(&self, mut i: usize) -> Option<usize> {
        let mut depth = 0usize;
        loop {
            match self.kind(i)? {
                Kind::Punct(b'<') => depth += 1,
                Kind::Punct(b'>') if !self.is_arrow_head(i) => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                Kind::Open(b'{') | Kind::Punct(b';') => return None,
                _ => {}
            }
            i = self.step(i);
        }
    }

    /// A fn after its `fn` keyword: past its body (or `;` for a declaration).
    fn skip_fn(&self, i: usize, end: usize) -> Option<usize> {
        self.name(i)?;
        let mut j = i + 1;
        if self.is_punct(j, b'<') {
            j = self.past_angles(j)?;
        }
        if !self.is_open(j, b'(') {
            return None;
        }
        let body = self.header_end(self.toks[j].close + 1, end)?;
        match self.kind(body)? {
            Kind::Open(_) => Some(self.toks[body].close + 1),
            // A declaration without a body (in a trait).
            Kind::Punct(b';') => Some(body + 1),
            _ => None,
        }
    }

    /// From `i` in an item's header (a fn signature, an impl or trait head), the first token outside
    /// angle brackets that ends it: `{`, `;` or `=`. A brace inside angle brackets makes the scanner give
    /// up.
    fn header_end(&self, mut i: usize, end: usize) -> Option<usize> {
        let mut angles = 0i32;
        while i < end {
            match self.kind(i)? {
                Kind::Punct(b'<') => angles += 1,
                Kind::Punct(b'>') if !self.is_arrow_head(i) => angles -= 1,
                Kind::Punct(b';' | b'=') | Kind::Open(b'{') if angles == 0 => return Some(i),
                Kind::Open(b'{') => return None,
                _ => {}
            }
            i = self.step(i);
        }
        None
    }

    /// The `>` at `i` ends a `->`, so it closes no angle bracket.
    fn is_arrow_head(&self, i: usize) -> bool {
        i > 0 && self.is_punct(i - 1, b'-')
    }

    /// An impl (`is_impl`) or trait block after its keyword: its docs, an impl's serde trait, then each fn's docs.
    fn block(
        &self,
        i: usize,
        end: usize,
        docs: Vec<DocLine>,
        items: &mut Vec<Item>,
        is_impl: bool,
    ) -> Option<usize> {
        let j = self.header_end(i, end)?;
        // `trait A = B;` (an alias) and other surprises are syn's.
        if !self.is_open(j, b'{') {
            return None;
        }
        items.push(Item::Other { docs });
        if is_impl {
            items.extend(self.serde_impl(i, j)?);
        }
        let close = self.toks[j].close;
        let mut k = j + 1;
        // Inner attributes of the block.
        while self.kind(k) == Some(Kind::InnerDoc)
            || (self.is_punct(k, b'#') && self.is_punct(k + 1, b'!'))
        {
            k = if self.kind(k) == Some(Kind::InnerDoc) {
                k + 1
            } else {
                self.attr(k + 2, &mut Vec::new(), None)?
            };
        }
        while k < close {
            let Attrs { next, docs, .. } = self.attrs(k, close)?;
            let mut m = self.vis(next);
            while let Some("default" | "const" | "async" | "unsafe" | "safe") = self.word(m) {
                if self.is_word(m, "const") && self.name(m + 1).is_some() {
                    break;
                }
                m += 1;
            }
            if self.is_word(m, "extern") {
                m += 1;
                if self.kind(m) == Some(Kind::Literal) {
                    m += 1;
                }
            }
            k = match self.word(m)? {
                "fn" => {
                    items.push(Item::Other { docs });
                    self.skip_fn(m + 1, close)?
                }
                "const" | "type" => self.skip_past_semi(m + 1, close)?,
                _ if m == next => self.macro_call(m, close)?,
                _ => return None,
            };
        }
        Some(close + 1)
    }

    /// The impl header from `i` (after `impl`) to `end` (its `{`), as [`Item::SerdeImpl`] when it implements
    /// serde's Serialize or Deserialize for a path type. Only a header that names one of them is parsed
    /// (`impl<G> Trait<A> for Path<A> where ...`); in any other shape it is syn's.
    fn serde_impl(&self, i: usize, end: usize) -> Option<Option<Item>> {
        let names_serde =
            (i..end).any(|k| matches!(self.word(k), Some("Serialize" | "Deserialize")));
        if !names_serde {
            return Some(None);
        }
        let j = if self.is_punct(i, b'<') {
            self.past_angles(i)?
        } else {
            i
        };
        // A negative impl is not an implementation.
        if self.is_punct(j, b'!') {
            return Some(None);
        }
        let (j, trait_path, _) = self.impl_path(j)?;
        // An inherent impl (`impl<T: Serialize> X<T>`).
        if !self.is_word(j, "for") {
            return (j == end || self.is_word(j, "where")).then_some(None);
        }
        let (k, _, last) = self.impl_path(j + 1)?;
        if k != end && !self.is_word(k, "where") {
            return None;
        }
        let Some(trait_name) = crate::read::outline::serde_trait(&trait_path) else {
            return Some(None);
        };
        Some(Some(Item::SerdeImpl {
            trait_name: trait_name.into(),
            self_ty: self.ident(last)?,
        }))
    }

    /// A path in an impl header at `i` (`::a::B<'x, T>`, generic arguments only on its last segment): past
    /// it, its segments, and the index of its last one.
    fn impl_path(&self, mut i: usize) -> Option<(usize, Vec<&str>, usize)> {
        if self.is_path_sep(i) {
            i += 2;
        }
        let mut segments = Vec::new();
        loop {
            let w = self.word(i)?;
            if is_keyword(w) && !PATH_ROOTS.contains(&w) {
                return None;
            }
            segments.push(w);
            if !self.is_path_sep(i + 1) {
                break;
            }
            i += 3;
        }
        let last = i;
        let mut next = i + 1;
        if self.is_punct(next, b'<') {
            next = self.past_angles(next)?;
        }
        // Arguments mid-path, fn sugar: syn's.
        if self.is_path_sep(next) || self.is_open(next, b'(') {
            return None;
        }
        Some((next, segments, last))
    }

    /// A macro invocation item at `i` (`path! { ... }`, `path!(...);`, `path![...];`): not read.
    fn macro_call(&self, mut i: usize, end: usize) -> Option<usize> {
        if self.is_path_sep(i) {
            i += 2;
        }
        loop {
            self.word(i)?;
            i += 1;
            if self.is_path_sep(i) {
                i += 2;
            } else {
                break;
            }
        }
        if !self.is_punct(i, b'!') {
            return None;
        }
        self.macro_body(i + 1, end)
    }

    /// A macro's delimited body at `i`; `(...)` and `[...]` end with `;`.
    fn macro_body(&self, i: usize, end: usize) -> Option<usize> {
        let close = self.toks.get(i)?.close;
        let next = match self.kind(i)? {
            Kind::Open(b'{') => close + 1,
            Kind::Open(_) if self.is_punct(close + 1, b';') => close + 2,
            _ => return None,
        };
        (next <= end).then_some(next)
    }

    /// A type from `i`; what [`TypeExpr::from_syn`] would give, or `None` for the kinds it keeps as text.
    fn type_expr(&self, i: usize, end: usize) -> Option<(usize, TypeExpr)> {
        if i >= end {
            return None;
        }
        let _level = self.deeper(i)?;
        match self.kind(i)? {
            Kind::Punct(b'&') => {
                let mut j = i + 1;
                if self.kind(j) == Some(Kind::Lifetime) {
                    j += 1;
                }
                if self.is_word(j, "mut") {
                    j += 1;
                }
                self.type_expr(j, end)
            }
            Kind::Open(b'(') => {
                let close = self.toks[i].close;
                let (j, inner) = self.type_expr(i + 1, close)?;
                (j == close).then_some((close + 1, inner))
            }
            Kind::Open(b'[') => {
                let close = self.toks[i].close;
                let (j, inner) = self.type_expr(i + 1, close)?;
                (j == close || self.is_punct(j, b';'))
                    .then_some((close + 1, TypeExpr::List(Box::new(inner))))
            }
            Kind::Punct(b':') if self.is_path_sep(i) => self.path_type(i + 2, end),
            Kind::Ident => self.path_type(i, end),
            _ => None,
        }
    }

    fn path_type(&self, mut i: usize, end: usize) -> Option<(usize, TypeExpr)> {
        let mut segments = Vec::new();
        let mut args = Vec::new();
        loop {
            let w = self.word(i)?;
            if is_keyword(w) && !PATH_ROOTS.contains(&w) {
                return None;
            }
            segments.push(w.to_string());
            i += 1;
            if self.is_punct(i, b'<') {
                i = self.generic_args(i, end, &mut args)?;
                break;
            }
            if !self.is_path_sep(i) {
                break;
            }
            i += 2;
        }
        // Function sugar, trait-object sums, turbofish, macros in type position: syn's to read.
        if self.is_open(i, b'(')
            || self.is_punct(i, b'+')
            || self.is_punct(i, b'!')
            || self.is_path_sep(i)
        {
            return None;
        }
        (i <= end).then_some((i, TypeExpr::Path { segments, args }))
    }

    /// `<...>` at `i`: its type arguments (lifetimes skipped) into `args`; past the `>`.
    fn generic_args(&self, mut i: usize, end: usize, args: &mut Vec<TypeExpr>) -> Option<usize> {
        i += 1;
        loop {
            if self.is_punct(i, b'>') {
                return Some(i + 1);
            }
            if self.kind(i) == Some(Kind::Lifetime) {
                i += 1;
            } else {
                // `Item = T` and `T: Bound` are not plain type arguments.
                if self.kind(i) == Some(Kind::Ident)
                    && (self.is_punct(i + 1, b'=')
                        || (self.is_punct(i + 1, b':') && !self.is_path_sep(i + 1)))
                {
                    return None;
                }
                let (j, t) = self.type_expr(i, end)?;
                args.push(t);
                i = j;
            }
            if self.is_punct(i, b',') {
                i += 1;
            } else if !self.is_punct(i, b'>') {
                return None;
            }
        }
    }

    /// One `use` tree at `i` under `prefix`.
    fn use_tree(&self, i: usize, prefix: Vec<String>, out: &mut Vec<UseName>) -> Option<usize> {
        let _level = self.deeper(i)?;
        if self.is_open(i, b'{') {
            let close = self.toks[i].close;
            let mut j = i + 1;
            while j < close {
                let k = self.use_tree(j, prefix.clone(), out)?;
                j = self.list_sep(k, close)?;
            }
            return Some(close + 1);
        }
        if self.is_punct(i, b'*') {
            out.push(UseName::Glob(prefix));
            return Some(i + 1);
        }
        let name = self.word(i)?;
        if is_keyword(name) && !PATH_ROOTS.contains(&name) {
            return None;
        }
        let name = name.to_string();
        if self.is_path_sep(i + 1) {
            let mut pre = prefix;
            pre.push(name);
            return self.use_tree(i + 3, pre, out);
        }
        let mut full = prefix;
        if self.is_word(i + 1, "as") {
            let rename = self.word(i + 2)?;
            if is_keyword(rename) && rename != "_" {
                return None;
            }
            if name != "self" {
                full.push(name);
            }
            out.push(UseName::Name(rename.to_string(), full));
            return Some(i + 3);
        }
        if name == "self" {
            if let Some(last) = full.last().cloned() {
                out.push(UseName::Name(last, full));
            }
        } else {
            full.push(name.clone());
            out.push(UseName::Name(name, full));
        }
        Some(i + 1)
    }

    /// The arguments of `#[serde(...)]` from `i` to `end`.
    fn serde_args(&self, mut i: usize, end: usize, out: &mut SerdeAttrs) -> Option<()> {
        while i < end {
            let key_word = self.word(i)?;
            let key = SerdeKey::of(key_word);
            i += 1;
            match key {
                SerdeKey::RenameAll | SerdeKey::Rename => {
                    let name = if self.is_punct(i, b'=') {
                        let s = self.lit_str(i + 1)?;
                        i += 2;
                        Some(s)
                    } else if self.is_open(i, b'(') {
                        let close = self.toks[i].close;
                        let mut name = None;
                        let mut j = i + 1;
                        while j < close {
                            if self.is_word(j, "serialize") && self.is_punct(j + 1, b'=') {
                                name = Some(self.lit_str(j + 2)?);
                                j += 3;
                            } else {
                                j = self.skip_serde_meta(j, close)?;
                            }
                            j = self.list_sep(j, close)?;
                        }
                        i = close + 1;
                        name
                    } else {
                        return None;
                    };
                    out.set_name(&key, name);
                }
                SerdeKey::Transparent | SerdeKey::Flatten | SerdeKey::Skip => out.set_flag(&key),
                SerdeKey::Conversion => {
                    if !self.is_punct(i, b'=') {
                        return None;
                    }
                    out.set_conversion(key_word, &self.lit_str(i + 1)?);
                    i += 2;
                }
                _ => {
                    out.set_flag(&key);
                    i = self.skip_serde_value(i, end)?;
                }
            }
            i = self.list_sep(i, end)?;
        }
        Some(())
    }

    /// The paths of `#[derive(...)]` from `i` to `end` (plain paths only: anything else is syn's).
    fn derive_args(&self, mut i: usize, end: usize, out: &mut SerdeAttrs) -> Option<()> {
        while i < end {
            if self.is_path_sep(i) {
                i += 2;
            }
            let mut segments = Vec::new();
            loop {
                segments.push(self.name(i)?);
                i += 1;
                if !self.is_path_sep(i) {
                    break;
                }
                i += 2;
            }
            out.set_derive(&segments);
            i = self.list_sep(i, end)?;
        }
        Some(())
    }

    /// The keys of a field's `#[serde_as(...)]` from `i` to `end`: flags, or `key = "string"` (anything else is
    /// syn's).
    fn serde_as_args(&self, mut i: usize, end: usize, out: &mut SerdeAttrs) -> Option<()> {
        while i < end {
            let key = self.word(i)?;
            i += 1;
            if self.is_punct(i, b'=') {
                out.set_serde_as(key, &self.lit_str(i + 1)?);
                i += 2;
            }
            i = self.list_sep(i, end)?;
        }
        Some(())
    }

    /// A serde key we do not read, at `i`, with whatever follows it.
    fn skip_serde_meta(&self, i: usize, end: usize) -> Option<usize> {
        self.word(i)?;
        self.skip_serde_value(i + 1, end)
    }

    /// `= literal`, `= path`, `(nested, ...)` or nothing, at `i`.
    fn skip_serde_value(&self, i: usize, end: usize) -> Option<usize> {
        if self.is_punct(i, b'=') {
            let mut j = i + 1;
            if self.kind(j) == Some(Kind::Literal) {
                return Some(j + 1);
            }
            loop {
                self.word(j)?;
                j += 1;
                if !self.is_path_sep(j) {
                    return Some(j);
                }
                j += 2;
            }
        }
        if self.is_open(i, b'(') {
            let close = self.toks[i].close;
            let _level = self.deeper(i)?;
            let mut j = i + 1;
            while j < close {
                j = self.skip_serde_meta(j, close)?;
                j = self.list_sep(j, close)?;
            }
            return Some(close + 1);
        }
        (i <= end).then_some(i)
    }

    /// The value of the string literal at `i` (plain or raw, no suffix).
    fn lit_str(&self, i: usize) -> Option<String> {
        let t = self.toks.get(i)?;
        if t.kind != Kind::Literal {
            return None;
        }
        let s = &self.text[t.start..t.end];
        if let Some(raw) = s.strip_prefix('r') {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            let body = raw[hashes..].strip_prefix('"')?;
            return Some(
                body.strip_suffix(&raw[..hashes])?
                    .strip_suffix('"')?
                    .to_string(),
            );
        }
        unescape(s.strip_prefix('"')?.strip_suffix('"')?)
    }
}

/// A string literal's body with its escapes resolved, as rustc reads it.
fn unescape(body: &str) -> Option<String> {
    if !body.contains(['\\', '\r']) {
        return Some(body.to_string());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => return None,
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                '\\' => out.push('\\'),
                '0' => out.push('\0'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'x' => {
                    let hex: String = [chars.next()?, chars.next()?].iter().collect();
                    let v = u8::from_str_radix(&hex, 16).ok()?;
                    if v > 0x7f {
                        return None;
                    }
                    out.push(char::from(v));
                }
                'u' => {
                    if chars.next()? != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()? {
                            '}' => break,
                            '_' => {}
                            h => hex.push(h),
                        }
                    }
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                '\n' => {
                    while chars
                        .peek()
                        .is_some_and(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
                    {
                        chars.next();
                    }
                }
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
