//! A YAML writer that prints JSON values the way controller-gen's output does: go-yaml v2 (via
//! sigs.k8s.io/yaml) with its key order, scalar styles (plain, 'single', "double", `|-` literal), and
//! folding of long plain/quoted lines at column 80.

use crate::schema::node::SharedRef;
use crate::schema::node::{Doc, Node, Properties, Schema, Sub};
use crate::schema::shared::{SharedSchemas, lock};
use serde_json::Value;
use std::cmp::Ordering;
use std::sync::Arc;

const BEST_WIDTH: usize = 80;
const BEST_INDENT: usize = 2;

/// Renders one document (without the leading `---`).
pub fn to_yaml(v: &Value) -> String {
    render(Item::Json(v), None, String::with_capacity(4096))
}

/// Renders one document of a multi-document file: `---` and the YAML.
pub fn document(v: &Value) -> String {
    document_in(Item::Json(v), None)
}

/// [`document`] of a CRD built by a run: its shared sub-schemas (references into `shared`) print as what they
/// stand for, each printed once per run and indentation.
pub fn crd_document(doc: &Doc, shared: &SharedSchemas) -> String {
    document_in(Item::Doc(doc), Some(shared))
}

fn document_in(item: Item<'_>, shared: Option<&SharedSchemas>) -> String {
    // A CRD with a k8s type in it is tens of KB: start big rather than grow through every size.
    let mut out = String::with_capacity(32 * 1024);
    out.push_str("---\n");
    render(item, shared, out)
}

fn render(item: Item<'_>, shared: Option<&SharedSchemas>, out: String) -> String {
    let mut e = Emitter {
        out,
        col: 0,
        shared,
    };
    match e.form(item) {
        Form::Map(entries) => e.mapping(entries, 0),
        Form::Shared(r) => e.shared_mapping(r, 0),
        Form::Seq(items) => e.sequence(items, 0),
        Form::Scalar(v) => {
            e.scalar(v, 0, false);
            e.newline();
        }
        Form::Empty(text) => {
            e.push(text);
            e.newline();
        }
    }
    e.out
}

/// Something to print: JSON, a generated document, or a part of a schema tree.
#[derive(Clone, Copy)]
enum Item<'a> {
    Json(&'a Value),
    Doc(&'a Doc),
    Schema(&'a Schema),
    Node(&'a Node),
    Properties(&'a Properties),
    Schemas(&'a [Schema]),
}

/// How an [`Item`] prints.
enum Form<'a> {
    /// A block mapping of these entries (not yet in key order).
    Map(Vec<(&'a str, Item<'a>)>),
    /// A shared sub-schema, printed as a mapping (and once per run, indent and column).
    Shared(SharedRef),
    /// A block sequence.
    Seq(Vec<Item<'a>>),
    Scalar(&'a Value),
    /// An empty mapping or sequence: `{}` or `[]`.
    Empty(&'static str),
}

impl<'a> Item<'a> {
    fn form(self) -> Form<'a> {
        match self {
            Item::Json(Value::Object(m)) if !m.is_empty() => {
                Form::Map(m.iter().map(|(k, v)| (k.as_str(), Item::Json(v))).collect())
            }
            Item::Json(Value::Array(a)) if !a.is_empty() => {
                Form::Seq(a.iter().map(Item::Json).collect())
            }
            Item::Json(v) => Form::Scalar(v),
            Item::Doc(Doc::Json(v)) => Item::Json(v).form(),
            Item::Doc(Doc::Map(entries)) if !entries.is_empty() => Form::Map(
                entries
                    .iter()
                    .map(|(k, d)| (k.as_str(), Item::Doc(d)))
                    .collect(),
            ),
            Item::Doc(Doc::List(items)) if !items.is_empty() => {
                Form::Seq(items.iter().map(Item::Doc).collect())
            }
            Item::Doc(Doc::Map(_)) => Form::Empty("{}"),
            Item::Doc(Doc::List(_)) => Form::Empty("[]"),
            Item::Doc(Doc::Schema(s)) | Item::Schema(s) | Item::Node(Node::Own(s)) => {
                if s.is_empty() {
                    Form::Empty("{}")
                } else {
                    Form::Map(schema_entries(s))
                }
            }
            Item::Node(Node::Shared(r)) => Form::Shared(*r),
            Item::Properties(p) if !p.is_empty() => {
                Form::Map(p.iter().map(|(k, n)| (k.as_str(), Item::Node(n))).collect())
            }
            Item::Properties(_) => Form::Empty("{}"),
            Item::Schemas(l) if !l.is_empty() => Form::Seq(l.iter().map(Item::Schema).collect()),
            Item::Schemas(_) => Form::Empty("[]"),
        }
    }
}

/// A schema's keywords and sub-schemas, as mapping entries.
fn schema_entries(s: &Schema) -> Vec<(&str, Item<'_>)> {
    debug_assert!(
        s.reference.is_none(),
        "an unflattened reference reached the printer"
    );
    let keywords = s
        .keywords()
        .iter()
        .map(|(k, v)| (k.as_str(), Item::Json(v)));
    let subs = s.sub_schemas().map(|(k, sub)| {
        let item = match sub {
            Sub::Properties(p) => Item::Properties(p),
            Sub::Node(n) => Item::Node(n),
            Sub::Schemas(l) => Item::Schemas(l),
            Sub::Schema(s) => Item::Schema(s),
        };
        (k, item)
    });
    keywords.chain(subs).collect()
}

/// go-yaml v2's key order (`keyList.Less`): letters sort after non-letters, digit runs compare as numbers.
pub fn go_key_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        // All CRD keys in practice: compare the bytes, without allocating.
        return go_key_cmp_units(a.as_bytes(), b.as_bytes());
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    go_key_cmp_units(&a, &b)
}

/// What [`go_key_cmp_units`] needs of a character: bytes for ASCII keys, chars for the rest.
trait KeyUnit: Copy + Ord {
    fn is_letter(self) -> bool;
    /// The value of an ASCII digit, else `None`.
    fn digit(self) -> Option<i64>;
}

impl KeyUnit for u8 {
    fn is_letter(self) -> bool {
        self.is_ascii_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit().then(|| i64::from(self - b'0'))
    }
}

impl KeyUnit for char {
    fn is_letter(self) -> bool {
        self.is_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit().then(|| i64::from(self as u8 - b'0'))
    }
}

fn go_key_cmp_units<T: KeyUnit>(ar: &[T], br: &[T]) -> Ordering {
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_letter();
        let bl = br[i].is_letter();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i].digit() == Some(0) || br[i].digit() == Some(0) {
            let mut j = i;
            while j > 0 && ar[j - 1].digit().is_some() {
                j -= 1;
                if ar[j].digit() != Some(0) {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while let Some(d) = ar.get(ai).and_then(|c| c.digit()) {
            an = an.wrapping_mul(10).wrapping_add(d);
            ai += 1;
        }
        let mut bi = i;
        while let Some(d) = br.get(bi).and_then(|c| c.digit()) {
            bn = bn.wrapping_mul(10).wrapping_add(d);
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

struct Emitter<'s> {
    out: String,
    col: usize,
    /// The run whose shared sub-schemas the value refers to, and which keeps their printed text.
    shared: Option<&'s SharedSchemas>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

impl<'s> Emitter<'s> {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
        match s.rfind('\n') {
            Some(i) => self.col = s[i + 1..].chars().count(),
            None => self.col += s.chars().count(),
        }
    }

    fn push_char(&mut self, c: char) {
        self.out.push(c);
        if c == '\n' {
            self.col = 0;
        } else {
            self.col += 1;
        }
    }

    fn newline(&mut self) {
        self.push_char('\n');
    }

    fn indent_to(&mut self, indent: usize) {
        if self.col > 0 {
            self.newline();
        }
        for _ in 0..indent {
            self.push_char(' ');
        }
    }

    /// How `item` prints; a shared sub-schema that is empty prints as `{}`.
    fn form<'a>(&self, item: Item<'a>) -> Form<'a> {
        match item.form() {
            Form::Shared(r) if self.store().get(r).is_empty() => Form::Empty("{}"),
            form => form,
        }
    }

    /// The run whose shared sub-schemas are printed: only a CRD document has them, and it comes with its run.
    fn store(&self) -> &'s SharedSchemas {
        self.shared
            .expect("a shared sub-schema is printed with the store of its run")
    }

    /// A block mapping whose keys sit at `indent`; the first key continues the current line if it isn't empty.
    fn mapping(&mut self, mut entries: Vec<(&str, Item<'_>)>, indent: usize) {
        entries.sort_by(|a, b| go_key_cmp(a.0, b.0));
        for (i, (k, v)) in entries.into_iter().enumerate() {
            if i > 0 || self.col == 0 {
                self.indent_to(indent);
            }
            self.key(k);
            self.push_char(':');
            match self.form(v) {
                Form::Map(inner) => {
                    self.newline();
                    self.mapping(inner, indent + BEST_INDENT);
                }
                Form::Shared(r) => {
                    self.newline();
                    self.shared_mapping(r, indent + BEST_INDENT);
                }
                Form::Seq(items) => {
                    self.newline();
                    // go-yaml v2 does not indent a sequence that is a mapping value.
                    self.sequence(items, indent);
                }
                Form::Scalar(other) => {
                    self.push_char(' ');
                    self.scalar(other, indent + BEST_INDENT, false);
                    self.newline();
                }
                Form::Empty(text) => {
                    self.push_char(' ');
                    self.push(text);
                    self.newline();
                }
            }
        }
    }

    /// A shared sub-schema as a mapping, reusing its text when the run printed it before at the same indent and
    /// column: what is printed depends on nothing else.
    fn shared_mapping(&mut self, r: SharedRef, indent: usize) {
        let store = self.store();
        let key = (r, indent, self.col);
        let hit = lock(&store.printed).get(&key).cloned();
        if let Some((text, col)) = hit {
            self.out.push_str(&text);
            self.col = col;
            return;
        }
        let s = store.get(r);
        let start = self.out.len();
        self.mapping(schema_entries(&s), indent);
        let text: Arc<str> = Arc::from(&self.out[start..]);
        lock(&store.printed).insert(key, (text, self.col));
    }

    fn sequence(&mut self, items: Vec<Item<'_>>, indent: usize) {
        for item in items {
            self.indent_to(indent);
            self.push("- ");
            self.sequence_item(item, indent);
        }
    }

    fn sequence_inline(&mut self, items: Vec<Item<'_>>, indent: usize) {
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.indent_to(indent);
            }
            self.push("- ");
            self.sequence_item(item, indent);
        }
    }

    /// One item of a sequence at `indent`, after its `- `.
    fn sequence_item(&mut self, item: Item<'_>, indent: usize) {
        match self.form(item) {
            Form::Map(inner) => self.mapping(inner, indent + BEST_INDENT),
            Form::Shared(r) => self.shared_mapping(r, indent + BEST_INDENT),
            Form::Seq(inner) => self.sequence_inline(inner, indent + BEST_INDENT),
            Form::Scalar(other) => {
                self.scalar(other, indent + BEST_INDENT, false);
                self.newline();
            }
            Form::Empty(text) => {
                self.push(text);
                self.newline();
            }
        }
    }

    fn key(&mut self, k: &str) {
        let style = choose_style(k, true);
        self.write_string(k, style, 0, false);
    }

    /// A scalar (or empty collection) in block context; `indent` is where folded lines continue.
    fn scalar(&mut self, v: &Value, indent: usize, simple_key: bool) {
        match v {
            Value::Null => self.push("null"),
            Value::Bool(b) => self.push(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                let s = format_number(n);
                self.push(&s);
            }
            Value::String(s) => {
                let style = choose_style(s, simple_key);
                self.write_string(s, style, indent, !simple_key);
            }
            Value::Array(_) => self.push("[]"),
            Value::Object(_) => self.push("{}"),
        }
    }

    fn write_string(&mut self, s: &str, style: Style, indent: usize, allow_breaks: bool) {
        if style == Style::Plain && !s.contains(' ') {
            // No blank: nothing to fold, and plain text needs no escaping.
            self.out.push_str(s);
            self.col += if s.is_ascii() {
                s.len()
            } else {
                s.chars().count()
            };
            return;
        }
        match style {
            Style::Plain => self.write_plain(s, indent, allow_breaks),
            Style::Single => self.write_single(s, indent, allow_breaks),
            Style::Double => self.write_double(s, indent, allow_breaks),
            Style::Literal => self.write_literal(s, indent),
        }
    }

    fn write_plain(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        let chars = Chars::new(s);
        let mut spaces = false;
        for (i, c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(' ');
                if allow_breaks && !spaces && self.col > BEST_WIDTH && !next_space {
                    self.indent_to(indent);
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                self.push_char(c);
                spaces = false;
            }
        }
    }

    fn write_single(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        let chars = Chars::new(s);
        self.push_char('\'');
        let mut spaces = false;
        for (i, c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(' ');
                if allow_breaks
                    && !spaces
                    && self.col > BEST_WIDTH
                    && i != 0
                    && i != chars.len() - 1
                    && !next_space
                {
                    self.indent_to(indent);
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                if c == '\'' {
                    self.push_char('\'');
                }
                self.push_char(c);
                spaces = false;
            }
        }
        self.push_char('\'');
    }

    fn write_double(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        let chars = Chars::new(s);
        self.push_char('"');
        let mut spaces = false;
        for (i, c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                let esc = match c {
                    '\0' => "\\0".to_string(),
                    '\u{7}' => "\\a".to_string(),
                    '\u{8}' => "\\b".to_string(),
                    '\t' => "\\t".to_string(),
                    '\n' => "\\n".to_string(),
                    '\u{b}' => "\\v".to_string(),
                    '\u{c}' => "\\f".to_string(),
                    '\r' => "\\r".to_string(),
                    '\u{1b}' => "\\e".to_string(),
                    '"' => "\\\"".to_string(),
                    '\\' => "\\\\".to_string(),
                    '\u{85}' => "\\N".to_string(),
                    '\u{a0}' => "\\_".to_string(),
                    '\u{2028}' => "\\L".to_string(),
                    '\u{2029}' => "\\P".to_string(),
                    c if (c as u32) <= 0xff => format!("\\x{:02X}", c as u32),
                    c if (c as u32) <= 0xffff => format!("\\u{:04X}", c as u32),
                    c => format!("\\U{:08X}", c as u32),
                };
                self.push(&esc);
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.col > BEST_WIDTH
                    && i != 0
                    && i != chars.len() - 1
                {
                    self.indent_to(indent);
                    if chars.get(i + 1) == Some(' ') {
                        self.push_char('\\');
                    }
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                self.push_char(c);
                spaces = false;
            }
        }
        self.push_char('"');
    }

    fn write_literal(&mut self, s: &str, indent: usize) {
        self.push_char('|');
        let first = s.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.push(&BEST_INDENT.to_string());
        }
        let chars = Chars::new(s);
        let n = chars.len();
        let chomp = if n == 0 || !is_break(chars.at(n - 1)) {
            "-"
        } else if n == 1 || is_break(chars.at(n - 2)) {
            "+"
        } else {
            ""
        };
        self.push(chomp);
        self.newline();
        let mut breaks = true;
        for c in chars.iter() {
            if is_break(c) {
                self.newline();
                breaks = true;
            } else {
                if breaks {
                    for _ in 0..indent {
                        self.push_char(' ');
                    }
                    breaks = false;
                }
                self.push_char(c);
            }
        }
    }
}

/// A string's characters, indexable without allocating when it is ASCII (nearly always).
enum Chars<'a> {
    Ascii(&'a [u8]),
    Wide(Vec<char>),
}

impl<'a> Chars<'a> {
    fn new(s: &'a str) -> Self {
        if s.is_ascii() {
            Chars::Ascii(s.as_bytes())
        } else {
            Chars::Wide(s.chars().collect())
        }
    }

    fn len(&self) -> usize {
        match self {
            Chars::Ascii(b) => b.len(),
            Chars::Wide(c) => c.len(),
        }
    }

    fn at(&self, i: usize) -> char {
        match self {
            Chars::Ascii(b) => b[i] as char,
            Chars::Wide(c) => c[i],
        }
    }

    fn get(&self, i: usize) -> Option<char> {
        (i < self.len()).then(|| self.at(i))
    }

    fn iter(&self) -> impl Iterator<Item = char> + '_ {
        (0..self.len()).map(|i| self.at(i))
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's printable set (tab and astral-plane characters are not printable: they force double quotes).
fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0a
        || (0x20..=0x7e).contains(&u)
        || (0xa0..=0xd7ff).contains(&u)
        || ((0xe000..=0xfffd).contains(&u) && u != 0xfeff)
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => c == ' ' || c == '\t' || c == '\0' || is_break(c),
    }
}

/// go-yaml v2's encoder picks literal for multi-line strings, double quotes for strings that would read
/// back as another type, plain otherwise; libyaml then downgrades styles the text cannot use.
fn choose_style(s: &str, simple_key: bool) -> Style {
    if is_simple_plain(s) {
        return Style::Plain;
    }
    let requested = if s.contains('\n') {
        Style::Literal
    } else if resolves_to_non_string(s) {
        Style::Double
    } else {
        Style::Plain
    };
    let a = allowed_styles(s);
    let mut style = requested;
    if style == Style::Literal && (!a.block_allowed || simple_key) {
        style = Style::Double;
    }
    if style == Style::Plain && (!a.block_plain_allowed || (s.is_empty() && simple_key)) {
        style = Style::Single;
    }
    if style == Style::Single && !a.single_quoted_allowed {
        style = Style::Double;
    }
    style
}

/// Identifiers, paths and words (`type`, `x-kubernetes-list-type`, `.spec.image`, `int32`): plain for sure.
fn is_simple_plain(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/'))
        && !resolves_to_non_string(s)
}

struct ScalarStyles {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// The styles libyaml's emitter lets `s` take (its `yaml_emitter_analyze_scalar`); empty text is never a block
/// scalar.
fn allowed_styles(s: &str) -> ScalarStyles {
    if s.is_empty() {
        return ScalarStyles {
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    styles_allowed_by(&analyze_scalar(s))
}

/// What libyaml's scalar analysis records about a non-empty text: indicators, unprintable characters, and where
/// spaces and line breaks fall. The styles a scalar may use follow from these alone.
#[derive(Default)]
struct ScalarAnalysis {
    block_indicators: bool,
    leading_space: bool,
    leading_break: bool,
    trailing_space: bool,
    trailing_break: bool,
    break_space: bool,
    space_break: bool,
    line_breaks: bool,
    special: bool,
}

/// Scans non-empty `s` once, as libyaml does; `previous_*` and `preceded_by_ws` carry what the last character was.
fn analyze_scalar(s: &str) -> ScalarAnalysis {
    let chars = Chars::new(s);
    let mut a = ScalarAnalysis {
        block_indicators: s.starts_with("---") || s.starts_with("..."),
        ..ScalarAnalysis::default()
    };
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_ws = true;
    let n = chars.len();
    for i in 0..n {
        let c = chars.at(i);
        let followed_by_ws = is_blankz(chars.get(i + 1));
        if is_block_indicator(c, i == 0, preceded_by_ws, followed_by_ws) {
            a.block_indicators = true;
        }
        if !is_printable(c) {
            a.special = true;
        }
        if is_break(c) {
            a.line_breaks = true;
        }
        if c == ' ' {
            if i == 0 {
                a.leading_space = true;
            }
            if i == n - 1 {
                a.trailing_space = true;
            }
            if previous_break {
                a.break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            if i == 0 {
                a.leading_break = true;
            }
            if i == n - 1 {
                a.trailing_break = true;
            }
            if previous_space {
                a.space_break = true;
            }
            previous_break = true;
            previous_space = false;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_ws = is_blankz(Some(c));
    }
    a
}

/// Would `c` read as YAML syntax in a plain scalar? At the start more characters do (flow, anchor, tag, block
/// scalar, quote and directive indicators) than further on (a `: ` mapping value, a ` #` comment).
fn is_block_indicator(c: char, first: bool, preceded_by_ws: bool, followed_by_ws: bool) -> bool {
    if first {
        "#,[]{}&*!|>'\"%@`".contains(c)
            || ((c == '?' || c == ':') && followed_by_ws)
            || (c == '-' && followed_by_ws)
    } else {
        (c == ':' && followed_by_ws) || (c == '#' && preceded_by_ws)
    }
}

/// libyaml's verdict on an analysed scalar: which of plain, single-quoted and block styles can carry it.
fn styles_allowed_by(a: &ScalarAnalysis) -> ScalarStyles {
    let mut block_plain = true;
    let mut single = true;
    let mut block = true;
    if a.leading_space || a.leading_break || a.trailing_space || a.trailing_break {
        block_plain = false;
    }
    if a.trailing_space {
        block = false;
    }
    if a.break_space {
        block_plain = false;
        single = false;
    }
    if a.space_break || a.special {
        block_plain = false;
        single = false;
        block = false;
    }
    if a.line_breaks || a.block_indicators {
        block_plain = false;
    }
    ScalarStyles {
        block_plain_allowed: block_plain,
        single_quoted_allowed: single,
        block_allowed: block,
    }
}

/// Would go-yaml v2 read this plain text back as something other than a string?
fn resolves_to_non_string(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    const SPECIAL: &[&str] = &[
        "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",
        ".NaN", ".NAN", "<<",
    ];
    if SPECIAL.contains(&s) {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    if !(first.is_ascii_digit() || first == '+' || first == '-' || first == '.') {
        return false;
    }
    let plain = s.replace('_', "");
    if parse_go_int(&plain) || is_go_float(&plain) {
        return true;
    }
    if is_base60_float(s) {
        return true;
    }
    // Timestamps (YYYY-MM-DD...) resolve to time values.
    looks_like_timestamp(s)
}

fn parse_go_int(s: &str) -> bool {
    let t = s
        .strip_prefix('-')
        .or_else(|| s.strip_prefix('+'))
        .unwrap_or(s);
    if t.is_empty() {
        return false;
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        return !b.is_empty() && b.chars().all(|c| c == '0' || c == '1');
    }
    if let Some(o) = t.strip_prefix("0o").or_else(|| t.strip_prefix("0O")) {
        return !o.is_empty() && o.chars().all(|c| ('0'..='7').contains(&c));
    }
    if t.len() > 1 && t.starts_with('0') {
        return t.chars().all(|c| ('0'..='7').contains(&c));
    }
    t.chars().all(|c| c.is_ascii_digit())
}

fn is_go_float(s: &str) -> bool {
    // strconv.ParseFloat accepts decimal floats, exponents, inf/nan spellings and hex floats; the ones
    // that start with a digit, sign or dot are what matters here.
    let t = s
        .strip_prefix('-')
        .or_else(|| s.strip_prefix('+'))
        .unwrap_or(s);
    if t.eq_ignore_ascii_case("inf")
        || t.eq_ignore_ascii_case("infinity")
        || t.eq_ignore_ascii_case("nan")
    {
        return true;
    }
    let b = t.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

fn is_base60_float(s: &str) -> bool {
    // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
    let t = s
        .strip_prefix('-')
        .or_else(|| s.strip_prefix('+'))
        .unwrap_or(s);
    let (main, _frac) = match t.find('.') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    if let Some(f) = _frac
        && !f.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return false;
    }
    let mut parts = main.split(':');
    let Some(head) = parts.next() else {
        return false;
    };
    if head.is_empty()
        || !head.starts_with(|c: char| c.is_ascii_digit())
        || !head.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return false;
    }
    let mut n = 0;
    for p in parts {
        n += 1;
        let ok = match p.len() {
            1 => p.chars().all(|c| c.is_ascii_digit()),
            2 => {
                let b = p.as_bytes();
                (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit()
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    n > 0
}

fn looks_like_timestamp(s: &str) -> bool {
    // go-yaml v2 accepts "2006-1-2", "2006-1-2 15:4:5...", "2006-1-2T15:4:5...Z07:00" (and lowercase t).
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let rest = &s[5..];
    let mut it = rest.splitn(2, '-');
    let month = it.next().unwrap_or("");
    let Some(tail) = it.next() else { return false };
    if month.is_empty() || month.len() > 2 || !month.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let day_len = tail.chars().take_while(|c| c.is_ascii_digit()).count();
    if day_len == 0 || day_len > 2 {
        return false;
    }
    let after = &tail[day_len..];
    if after.is_empty() {
        return true;
    }
    // A time part must follow; be conservative and treat "T"/"t"/" " + digit as a timestamp.
    let mut cs = after.chars();
    matches!(cs.next(), Some('T' | 't' | ' ')) && cs.next().is_some_and(|c| c.is_ascii_digit())
}

/// Numbers as go-yaml prints what it read back from Go's JSON: integers plainly, other floats with
/// `strconv.FormatFloat(f, 'g', -1, 64)`.
fn format_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        return format!("{}", f as i64);
    }
    go_format_g(f)
}

fn go_format_g(f: f64) -> String {
    // Shortest round-trip digits laid out as Go's %g with shortest precision: exponent form when the
    // decimal exponent is < -4 or >= 6 (eprec is 6 for shortest formatting).
    let s = format!("{f:e}"); // e.g. "1.5e0", "-2.5e-7"
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let nd = digits.len() as i32;
    let dp = exp + 1;
    let sign = if neg { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let m = if nd > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{m}e{esign}{:02}", exp.abs());
    }
    let v = if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp >= nd {
        format!("{}{}", digits, "0".repeat((dp - nd) as usize))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    format!("{sign}{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_and_char_paths_order_keys_alike() {
        // ASCII keys take the byte path; on them the char path (non-ASCII keys) must agree.
        let keys = [
            "x-kubernetes-list-type",
            "type",
            "a10",
            "a9",
            "items",
            "1",
            "_x",
            "a09",
            "B",
            "0",
            "00",
        ];
        let chars = |s: &str| s.chars().collect::<Vec<char>>();
        for a in keys {
            for b in keys {
                assert_eq!(
                    go_key_cmp_units(a.as_bytes(), b.as_bytes()),
                    go_key_cmp_units(&chars(a), &chars(b)),
                    "{a} {b}"
                );
            }
        }
        assert_eq!(go_key_cmp("é1", "é2"), Ordering::Less);
        assert_eq!(go_key_cmp("é10", "é9"), Ordering::Greater);
        assert_eq!(go_key_cmp("1é", "é"), Ordering::Less);
    }
    use serde_json::json;

    #[test]
    fn key_order_is_go_yaml_order() {
        let mut keys = vec![
            "x-kubernetes-validations",
            "type",
            "JSONPath",
            "_a",
            "a10",
            "a9",
            "Zeta",
        ];
        keys.sort_by(|a, b| go_key_cmp(a, b));
        // Non-letters sort before letters, digit runs numerically.
        assert_eq!(
            keys,
            vec![
                "_a",
                "JSONPath",
                "Zeta",
                "a9",
                "a10",
                "type",
                "x-kubernetes-validations"
            ]
        );
    }

    #[test]
    fn scalar_styles() {
        let v = json!({
            "a": "", "b": "true", "c": "123", "d": "plain text", "e": "line1\nline2", "f": "- dash",
            "g": "has: colon", "h": "it's", "i": "tab\there", "j": "2024-01-02", "k": "*", "l": ".spec.image",
            "m": "1.5", "n": "yes"
        });
        assert_eq!(
            to_yaml(&v),
            "a: \"\"\nb: \"true\"\nc: \"123\"\nd: plain text\ne: |-\n  line1\n  line2\nf: '- dash'\n\
             g: 'has: colon'\nh: it's\ni: \"tab\\there\"\nj: \"2024-01-02\"\nk: '*'\nl: .spec.image\nm: \"1.5\"\n\"n\": \"yes\"\n"
        );
    }

    #[test]
    fn sequences_and_nesting() {
        let v = json!({"rules": [{"apiGroups": [""], "verbs": ["get", "list"]}], "empty": {}, "none": []});
        assert_eq!(
            to_yaml(&v),
            "empty: {}\nnone: []\nrules:\n- apiGroups:\n  - \"\"\n  verbs:\n  - get\n  - list\n"
        );
    }

    #[test]
    fn long_plain_lines_fold_after_column_80() {
        let v = json!({"spec": {"description": "Foo is an example field of Memcached. Edit memcached_types.go to remove/update and more words here"}});
        let y = to_yaml(&v);
        assert_eq!(
            y,
            "spec:\n  description: Foo is an example field of Memcached. Edit memcached_types.go to remove/update\n    and more words here\n"
        );
    }

    #[test]
    fn numbers() {
        let v = json!({"a": 1, "b": 1.5, "c": -0.25, "d": 1.0e-7, "e": 2.0});
        assert_eq!(to_yaml(&v), "a: 1\nb: 1.5\nc: -0.25\nd: 1e-07\ne: 2\n");
    }
}
