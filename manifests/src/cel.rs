//! A CEL syntax checker: a lexer and recursive-descent parser for the grammar of
//! <https://github.com/google/cel-spec/blob/master/doc/langdef.md> (no type checking). No CEL crate is used
//! because the derive macro links this crate at compile time; this stays small and dependency-free.

/// A syntax error at 1-based character column `col` of the rule.
#[derive(Debug, PartialEq, Eq)]
pub struct CelError {
    pub col: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int,
    Float,
    Str,
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
                lx.string(false)?
            } else if (c == 'r' || c == 'R' || c == 'b' || c == 'B')
                && matches!(lx.peek(1), Some('"' | '\''))
            {
                lx.pos += 1;
                lx.string(c == 'r' || c == 'R')?
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
                lx.string(raw)?
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
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            self.pos += 2;
            while self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            if matches!(self.peek(0), Some('u' | 'U')) {
                self.pos += 1;
            }
            return Tok::Int;
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
        if float { Tok::Float } else { Tok::Int }
    }

    fn string(&mut self, raw: bool) -> Result<Tok, CelError> {
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
                self.pos += if triple { 3 } else { 1 };
                return Ok(Tok::Str);
            }
            self.pos += 1;
        }
    }
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    i: usize,
    depth: usize,
}

type PResult = Result<(), CelError>;

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
            Tok::Int | Tok::Float => "a number".to_string(),
            Tok::Str => "a string".to_string(),
        };
        CelError {
            col: self.col(),
            message: format!("expected {what}, found {found}"),
        }
    }

    fn expect(&mut self, p: &str) -> PResult {
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
        self.binary(0)?;
        if self.eat("?") {
            self.binary(0)?;
            self.expect(":")?;
            self.expr()?;
        }
        self.depth -= 1;
        Ok(())
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
        self.binary(level + 1)?;
        loop {
            let op = LEVELS[level].iter().any(|op| match self.peek() {
                Tok::Punct(p) => p == op,
                Tok::Ident(s) => s == op,
                _ => false,
            });
            if !op {
                return Ok(());
            }
            self.i += 1;
            self.binary(level + 1)?;
        }
    }

    fn unary(&mut self) -> PResult {
        while self.eat("!") || self.eat("-") {}
        self.member()
    }

    fn member(&mut self) -> PResult {
        self.primary()?;
        loop {
            if self.eat(".") {
                match self.peek() {
                    Tok::Ident(_) => self.i += 1,
                    _ => return Err(self.error("a field name after `.`")),
                }
                if self.eat("(") {
                    self.list(")")?;
                }
            } else if self.eat("[") {
                self.expr()?;
                self.expect("]")?;
            } else {
                return Ok(());
            }
        }
    }

    /// Comma-separated expressions up to `close` (a trailing comma is allowed).
    fn list(&mut self, close: &str) -> PResult {
        if self.eat(close) {
            return Ok(());
        }
        loop {
            self.expr()?;
            if self.eat(close) {
                return Ok(());
            }
            if !self.eat(",") {
                return Err(self.error(&format!("`,` or `{close}`")));
            }
            if self.eat(close) {
                return Ok(());
            }
        }
    }

    fn primary(&mut self) -> PResult {
        match self.peek().clone() {
            Tok::Int | Tok::Float | Tok::Str => {
                self.i += 1;
                Ok(())
            }
            Tok::Ident(name) => {
                if matches!(name.as_str(), "in") {
                    return Err(self.error("an operand"));
                }
                self.i += 1;
                if self.eat("(") {
                    return self.list(")");
                }
                // Message construction: `Type{field: value}` (qualified names come through member()).
                if self.is("{") && name.starts_with(|c: char| c.is_uppercase()) {
                    self.i += 1;
                    return self.fields();
                }
                Ok(())
            }
            Tok::Punct(".") => {
                self.i += 1;
                match self.peek() {
                    Tok::Ident(_) => {
                        self.i += 1;
                        Ok(())
                    }
                    _ => Err(self.error("an identifier after a leading `.`")),
                }
            }
            Tok::Punct("(") => {
                self.i += 1;
                self.expr()?;
                self.expect(")")
            }
            Tok::Punct("[") => {
                self.i += 1;
                self.list("]")
            }
            Tok::Punct("{") => {
                self.i += 1;
                self.map()
            }
            _ => Err(self.error("an operand")),
        }
    }

    fn map(&mut self) -> PResult {
        if self.eat("}") {
            return Ok(());
        }
        loop {
            self.expr()?;
            self.expect(":")?;
            self.expr()?;
            if self.eat("}") {
                return Ok(());
            }
            self.expect(",")?;
            if self.eat("}") {
                return Ok(());
            }
        }
    }

    fn fields(&mut self) -> PResult {
        if self.eat("}") {
            return Ok(());
        }
        loop {
            match self.peek() {
                Tok::Ident(_) => self.i += 1,
                _ => return Err(self.error("a field name")),
            }
            self.expect(":")?;
            self.expr()?;
            if self.eat("}") {
                return Ok(());
            }
            self.expect(",")?;
            if self.eat("}") {
                return Ok(());
            }
        }
    }
}

/// Parses `rule` as a CEL expression.
pub fn check(rule: &str) -> Result<(), CelError> {
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
    p.expr()?;
    if !matches!(p.peek(), Tok::End) {
        return Err(p.error("an operator or the end of the rule"));
    }
    Ok(())
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
