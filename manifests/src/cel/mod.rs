//! A CEL syntax checker: a lexer and recursive-descent parser for the grammar of
//! <https://github.com/google/cel-spec/blob/master/doc/langdef.md> (no type checking). No CEL crate is used
//! because the derive macro links this crate at compile time; this stays small and dependency-free.
//! [`parse`] also returns a small syntax tree, with just what cel_cost.rs needs to estimate a rule's cost and
//! cel/eval.rs to evaluate one on a default.

pub mod eval;

/// A syntax error at 1-based character column `col` of the rule.
#[derive(Debug, PartialEq, Eq)]
pub struct CelError {
    pub col: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A number literal's text, and whether it is a double.
    Num(String, bool),
    /// A string or bytes literal, with a lower bound of its length once escapes are decoded, and its value
    /// (`None` for bytes, and for a string whose escapes rkb does not decode).
    Str(u64, Option<String>),
    Punct(&'static str),
    End,
}

struct Lexer<'a> {
    chars: Vec<char>,
    pos: usize,
    _src: &'a str,
}

const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",",
    "(", ")", "[", "]", "{", "}",
];

impl<'a> Lexer<'a> {
    fn tokens(src: &'a str) -> Result<Vec<(Tok, usize)>, CelError> {
        let mut lx = Lexer {
            chars: src.chars().collect(),
            pos: 0,
            _src: src,
        };
        let mut out = Vec::new();
        loop {
            lx.skip_ws_and_comments();
            let col = lx.pos + 1;
            let Some(c) = lx.peek(0) else {
                out.push((Tok::End, col));
                return Ok(out);
            };
            let tok = if c.is_ascii_digit()
                || (c == '.' && lx.peek(1).is_some_and(|d| d.is_ascii_digit()))
            {
                lx.number()
            } else if c == '"' || c == '\'' {
                lx.string(false, false)?
            } else if (c == 'r' || c == 'R' || c == 'b' || c == 'B')
                && matches!(lx.peek(1), Some('"' | '\''))
            {
                lx.pos += 1;
                lx.string(c == 'r' || c == 'R', c == 'b' || c == 'B')?
            } else if matches!(
                (c, lx.peek(1), lx.peek(2)),
                (
                    'r' | 'R' | 'b' | 'B',
                    Some('r' | 'R' | 'b' | 'B'),
                    Some('"' | '\'')
                )
            ) {
                let raw = matches!(c, 'r' | 'R') || matches!(lx.peek(1), Some('r' | 'R'));
                lx.pos += 2;
                lx.string(raw, true)?
            } else if c.is_alphabetic() || c == '_' {
                let start = lx.pos;
                while lx.peek(0).is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    lx.pos += 1;
                }
                Tok::Ident(lx.chars[start..lx.pos].iter().collect())
            } else {
                let rest: String = lx.chars[lx.pos..(lx.pos + 2).min(lx.chars.len())]
                    .iter()
                    .collect();
                match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                    Some(p) => {
                        lx.pos += p.chars().count();
                        Tok::Punct(p)
                    }
                    None => {
                        return Err(CelError {
                            col,
                            message: format!("unexpected character `{c}`"),
                        });
                    }
                }
            };
            out.push((tok, col));
        }
    }

    fn peek(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    fn skip_ws_and_comments(&mut self) {
        loop {
            while self.peek(0).is_some_and(char::is_whitespace) {
                self.pos += 1;
            }
            if self.peek(0) == Some('/') && self.peek(1) == Some('/') {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                continue;
            }
            return;
        }
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        let float = self.number_end();
        Tok::Num(self.chars[start..self.pos].iter().collect(), float)
    }

    /// Moves past a number literal; whether it is a double.
    fn number_end(&mut self) -> bool {
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            self.pos += 2;
            while self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            if matches!(self.peek(0), Some('u' | 'U')) {
                self.pos += 1;
            }
            return false;
        }
        let mut float = false;
        while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            float = true;
            self.pos += 1;
            while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(0), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        if !float && matches!(self.peek(0), Some('u' | 'U')) {
            self.pos += 1;
        }
        float
    }

    fn string(&mut self, raw: bool, bytes: bool) -> Result<Tok, CelError> {
        let start = self.pos + 1;
        let q = self.peek(0).unwrap_or('"');
        let triple = self.peek(1) == Some(q) && self.peek(2) == Some(q);
        self.pos += if triple { 3 } else { 1 };
        loop {
            let Some(c) = self.peek(0) else {
                return Err(CelError {
                    col: start,
                    message: "unterminated string".into(),
                });
            };
            if c == '\\' && !raw {
                self.pos += 2;
                continue;
            }
            if c == '\n' && !triple {
                return Err(CelError {
                    col: start,
                    message: "unterminated string".into(),
                });
            }
            if c == q && (!triple || (self.peek(1) == Some(q) && self.peek(2) == Some(q))) {
                let quotes = if triple { 3 } else { 1 };
                let body = &self.chars[start - 1 + quotes..self.pos];
                self.pos += quotes;
                let value = if bytes { None } else { decoded(body, raw) };
                return Ok(Tok::Str(decoded_len_at_least(body, raw), value));
            }
            self.pos += 1;
        }
    }
}

/// A lower bound of the length of a string literal's value, from its text between the quotes: an escape
/// (`\n`, `\x41`, `\u00e9`, `\101`, ...) decodes to one character, and is never counted as more.
fn decoded_len_at_least(body: &[char], raw: bool) -> u64 {
    if raw {
        return body.len() as u64;
    }
    let (mut i, mut n) = (0, 0u64);
    while i < body.len() {
        if body[i] == '\\' {
            // The longest text each escape can take, so that its digits are not counted as characters.
            i += match body.get(i + 1) {
                Some('x' | 'X') => 4,
                Some('u') => 6,
                Some('U') => 10,
                Some('0'..='3') => 4,
                _ => 2,
            };
        } else {
            i += 1;
        }
        n += 1;
    }
    n
}

/// The value of a literal other than a string (cel/eval.rs evaluates them; they cost nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i64),
    Uint(u64),
    Double(f64),
    Bool(bool),
    Null,
    /// A number rkb does not read (e.g. an int outside i64, which only `-` can bring back in range).
    Other,
}

/// A parsed CEL expression: the shape of the rule, with literal values for cel/eval.rs.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number, `true`, `false` or `null`.
    Scalar(Lit),
    /// A string or bytes literal, with a lower bound of its length, and its value (`None` for bytes, and for
    /// a string with an escape rkb does not decode).
    Str(u64, Option<String>),
    Ident(String),
    /// `operand.field`.
    Select(Box<Expr>, String),
    /// `name(args)`, or `target.name(args)` (macros such as `all` and `has` too: they are expanded by the
    /// cost estimate, as by CEL's parser).
    Call {
        target: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
    },
    /// An operator and its operands: binary operators and `in` by their spelling, `!` and `neg` (unary minus),
    /// `?:` (condition, then, else) and `[]` (operand, index).
    Op(&'static str, Vec<Expr>),
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    /// `Type{field: value, ...}`: the values.
    Message(Vec<Expr>),
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    i: usize,
    depth: usize,
}

type PResult = Result<Expr, CelError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn col(&self) -> usize {
        self.toks[self.i].1
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, what: &str) -> CelError {
        let found = match self.peek() {
            Tok::End => "the end of the rule".to_string(),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Num(..) => "a number".to_string(),
            Tok::Str(..) => "a string".to_string(),
        };
        CelError {
            col: self.col(),
            message: format!("expected {what}, found {found}"),
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), CelError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.error(&format!("`{p}`")))
        }
    }

    fn expr(&mut self) -> PResult {
        self.depth += 1;
        if self.depth > 200 {
            return Err(CelError {
                col: self.col(),
                message: "expression nested too deeply".into(),
            });
        }
        let mut e = self.binary(0)?;
        if self.eat("?") {
            let then = self.binary(0)?;
            self.expect(":")?;
            let otherwise = self.expr()?;
            e = Expr::Op("?:", vec![e, then, otherwise]);
        }
        self.depth -= 1;
        Ok(e)
    }

    /// Precedence levels: `||`, `&&`, relations (incl. `in`), `+ -`, `* / %`.
    fn binary(&mut self, level: usize) -> PResult {
        const LEVELS: [&[&str]; 5] = [
            &["||"],
            &["&&"],
            &["==", "!=", "<", "<=", ">", ">=", "in"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            let op = LEVELS[level].iter().find(|op| match self.peek() {
                Tok::Punct(p) => p == *op,
                Tok::Ident(s) => s == *op,
                _ => false,
            });
            let Some(op) = op else {
                return Ok(lhs);
            };
            self.i += 1;
            let rhs = self.binary(level + 1)?;
            lhs = Expr::Op(op, vec![lhs, rhs]);
        }
    }

    fn unary(&mut self) -> PResult {
        let (mut nots, mut negs) = (0, 0);
        loop {
            if self.eat("!") {
                nots += 1;
            } else if self.eat("-") {
                negs += 1;
            } else {
                break;
            }
        }
        let mut e = self.member()?;
        // As CEL's parser does: an even run of `!` or `-` cancels out.
        if negs % 2 == 1 {
            e = Expr::Op("neg", vec![e]);
        }
        if nots % 2 == 1 {
            e = Expr::Op("!", vec![e]);
        }
        Ok(e)
    }

    fn member(&mut self) -> PResult {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                let name = match self.peek() {
                    Tok::Ident(name) => name.clone(),
                    _ => return Err(self.error("a field name after `.`")),
                };
                self.i += 1;
                e = if self.eat("(") {
                    Expr::Call {
                        target: Some(Box::new(e)),
                        name,
                        args: self.list(")")?,
                    }
                } else {
                    Expr::Select(Box::new(e), name)
                };
            } else if self.eat("[") {
                let index = self.expr()?;
                self.expect("]")?;
                e = Expr::Op("[]", vec![e, index]);
            } else {
                return Ok(e);
            }
        }
    }

    /// Comma-separated expressions up to `close` (a trailing comma is allowed).
    fn list(&mut self, close: &str) -> Result<Vec<Expr>, CelError> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat(close) {
                return Ok(items);
            }
            if !self.eat(",") {
                return Err(self.error(&format!("`,` or `{close}`")));
            }
            if self.eat(close) {
                return Ok(items);
            }
        }
    }

    fn primary(&mut self) -> PResult {
        match self.peek().clone() {
            Tok::Num(text, float) => {
                self.i += 1;
                Ok(Expr::Scalar(number(&text, float)))
            }
            Tok::Str(len, value) => {
                self.i += 1;
                Ok(Expr::Str(len, value))
            }
            Tok::Ident(name) => {
                if matches!(name.as_str(), "in") {
                    return Err(self.error("an operand"));
                }
                self.i += 1;
                if self.eat("(") {
                    let args = self.list(")")?;
                    return Ok(Expr::Call {
                        target: None,
                        name,
                        args,
                    });
                }
                // Message construction: `Type{field: value}` (qualified names come through member()).
                if self.is("{") && name.starts_with(|c: char| c.is_uppercase()) {
                    self.i += 1;
                    return self.fields();
                }
                Ok(match name.as_str() {
                    "true" => Expr::Scalar(Lit::Bool(true)),
                    "false" => Expr::Scalar(Lit::Bool(false)),
                    "null" => Expr::Scalar(Lit::Null),
                    _ => Expr::Ident(name),
                })
            }
            Tok::Punct(".") => {
                self.i += 1;
                match self.peek().clone() {
                    Tok::Ident(name) => {
                        self.i += 1;
                        Ok(Expr::Ident(name))
                    }
                    _ => Err(self.error("an identifier after a leading `.`")),
                }
            }
            Tok::Punct("(") => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                self.i += 1;
                Ok(Expr::List(self.list("]")?))
            }
            Tok::Punct("{") => {
                self.i += 1;
                self.map()
            }
            _ => Err(self.error("an operand")),
        }
    }

    fn map(&mut self) -> PResult {
        let mut entries = Vec::new();
        if self.eat("}") {
            return Ok(Expr::Map(entries));
        }
        loop {
            let key = self.expr()?;
            self.expect(":")?;
            entries.push((key, self.expr()?));
            if self.eat("}") {
                return Ok(Expr::Map(entries));
            }
            self.expect(",")?;
            if self.eat("}") {
                return Ok(Expr::Map(entries));
            }
        }
    }

    fn fields(&mut self) -> PResult {
        let mut values = Vec::new();
        if self.eat("}") {
            return Ok(Expr::Message(values));
        }
        loop {
            match self.peek() {
                Tok::Ident(_) => self.i += 1,
                _ => return Err(self.error("a field name")),
            }
            self.expect(":")?;
            values.push(self.expr()?);
            if self.eat("}") {
                return Ok(Expr::Message(values));
            }
            self.expect(",")?;
            if self.eat("}") {
                return Ok(Expr::Message(values));
            }
        }
    }
}

/// The value of a number literal (its text as the lexer took it).
fn number(text: &str, float: bool) -> Lit {
    let parsed = if float {
        text.parse().ok().map(Lit::Double)
    } else {
        let (digits, unsigned) = match text.strip_suffix(['u', 'U']) {
            Some(d) => (d, true),
            None => (text, false),
        };
        let value = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => digits.parse::<u64>().ok(),
        };
        match (value, unsigned) {
            (Some(v), true) => Some(Lit::Uint(v)),
            (Some(v), false) => i64::try_from(v).ok().map(Lit::Int),
            (None, _) => None,
        }
    };
    parsed.unwrap_or(Lit::Other)
}

/// The value of a string literal from its text between the quotes; `None` for an escape not decoded here
/// (octal and `\x` ones, which may stand for bytes of a multi-byte character).
fn decoded(body: &[char], raw: bool) -> Option<String> {
    if raw {
        return Some(body.iter().collect());
    }
    let mut out = String::new();
    let mut chars = body.iter();
    while let Some(&c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = *chars.next()?;
        out.push(match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '\\' | '\'' | '"' | '`' | '?' => e,
            'u' | 'U' => {
                let n = if e == 'u' { 4 } else { 8 };
                let hex: String = chars.by_ref().take(n).collect();
                char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
            }
            _ => return None,
        });
    }
    Some(out)
}

/// Parses `rule` as a CEL expression.
pub fn check(rule: &str) -> Result<(), CelError> {
    parse(rule).map(|_| ())
}

/// Parses `rule` as a CEL expression, returning its syntax tree.
pub fn parse(rule: &str) -> Result<Expr, CelError> {
    let toks = Lexer::tokens(rule)?;
    let mut p = Parser {
        toks,
        i: 0,
        depth: 0,
    };
    if matches!(p.peek(), Tok::End) {
        return Err(CelError {
            col: 1,
            message: "the rule is empty".into(),
        });
    }
    let e = p.expr()?;
    if !matches!(p.peek(), Tok::End) {
        return Err(p.error("an operator or the end of the rule"));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn valid_rules() {
        for r in [
            "self.size() > 0",
            "self.minReplicas <= self.maxReplicas",
            "has(self.a) ? self.a > 1 : true",
            "self.all(x, x.name != '' && x.port in [80, 443])",
            "[has(self.a),has(self.b)].filter(x,x==true).size() <= 1",
            "self == oldSelf",
            "!has(oldSelf.x) || has(self.x)",
            "self.map(k, self[k]).exists(v, v == \"x\") || -1 < 2.5e3",
            "{'a': 1, 'b': 2}['a'] == 1",
            "self.matches(r'^[a-z]+$') && b\"x\" != b'y'",
            "'''multi\nline''' != \"\"",
            "int(self.x) % 2 == 0u || 0x1F > 3",
        ] {
            assert_eq!(check(r), Ok(()), "{r}");
        }
    }

    #[test]
    fn the_tree_has_what_the_cost_needs() {
        use super::{Expr, parse};
        let ident = |n: &str| Expr::Ident(n.into());
        assert_eq!(
            parse("!!self.a[0] && -x").unwrap(),
            Expr::Op(
                "&&",
                vec![
                    Expr::Op(
                        "[]",
                        vec![
                            Expr::Select(Box::new(ident("self")), "a".into()),
                            Expr::Scalar(super::Lit::Int(0))
                        ]
                    ),
                    Expr::Op("neg", vec![ident("x")]),
                ]
            )
        );
        assert_eq!(
            parse("self.all(x, true)").unwrap(),
            Expr::Call {
                target: Some(Box::new(ident("self"))),
                name: "all".into(),
                args: vec![ident("x"), Expr::Scalar(super::Lit::Bool(true))],
            }
        );
        // String lengths are at least what the escapes decode to, never more.
        for (rule, len) in [
            (r"'a\x41\n'", 3),
            (r"r'\x41'", 4),
            ("'''ab'''", 2),
            (r"b'\101\u00e9'", 2),
        ] {
            assert!(
                matches!(parse(rule).unwrap(), Expr::Str(n, _) if n == len),
                "{rule}"
            );
        }
    }

    #[test]
    fn invalid_rules_point_at_the_problem() {
        let e = check("self.a >").unwrap_err();
        assert_eq!(
            (e.col, e.message.as_str()),
            (9, "expected an operand, found the end of the rule")
        );
        let e = check("size(self.x").unwrap_err();
        assert_eq!(e.message, "expected `,` or `)`, found the end of the rule");
        let e = check("self.a == 'x").unwrap_err();
        assert_eq!((e.col, e.message.as_str()), (11, "unterminated string"));
        let e = check("self.a & self.b").unwrap_err();
        assert_eq!((e.col, e.message.as_str()), (8, "unexpected character `&`"));
        let e = check("self.a self.b").unwrap_err();
        assert_eq!(
            (e.col, e.message.as_str()),
            (
                8,
                "expected an operator or the end of the rule, found `self`"
            )
        );
        assert!(check("").is_err());
        assert!(check("self.").is_err());
        assert!(check("a ? b").is_err());
    }
}
