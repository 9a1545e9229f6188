//! A small CEL evaluator over cel/mod.rs's syntax tree, for what defaults.rs needs: the API server evaluates each
//! default against the `x-kubernetes-validations` rules of its node (and of the nodes inside it) when the CRD is
//! created, and refuses the CRD when a rule is false or fails. This evaluates the subset rules commonly use
//! (literals, variables and field selection, `has`, comparisons, `&&`/`||`/`!`, arithmetic, `in`, `size`,
//! `startsWith`/`endsWith`/`contains`/`matches`, list and map literals, ternary, and the macros `all`, `exists`,
//! `exists_one`, `map`, `filter`); anything else makes the answer [`Stop::Unknown`], never a guess.
//!
//! Values are dynamically typed: a rule the API server would not type-check may evaluate here. That never makes
//! rkb refuse a CRD the server accepts: such a rule is refused by the server too, for its type error.

use std::cmp::Ordering;

use crate::cel::{Expr, Lit};

/// A CEL value. Objects are maps with string keys, as CEL sees them.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    /// A list, and whether its order counts for equality (not for `x-kubernetes-list-type` set or map, whose
    /// equality rkb does not evaluate).
    List(Vec<Val>, bool),
    Map(Vec<(Val, Val)>),
}

/// Why evaluation stopped without a value.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// A runtime error the API server hits too (no such key, overflow, ...): the rule fails.
    Error(String),
    /// Something rkb does not evaluate, named for the warning.
    Unknown(String),
}

type Ev = Result<Val, Stop>;

fn unknown<T>(what: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Unknown(what.into()))
}

fn error<T>(what: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Error(what.into()))
}

/// Evaluates `e` with the variables `vars` (innermost last).
pub fn eval(e: &Expr, vars: &mut Vec<(String, Val)>) -> Ev {
    match e {
        Expr::Scalar(lit) => Ok(match lit {
            Lit::Int(i) => Val::Int(*i),
            Lit::Uint(u) => Val::Uint(*u),
            Lit::Double(d) => Val::Double(*d),
            Lit::Bool(b) => Val::Bool(*b),
            Lit::Null => Val::Null,
            Lit::Other => return unknown("a number literal out of range"),
        }),
        Expr::Str(_, Some(s)) => Ok(Val::Str(s.clone())),
        Expr::Str(_, None) => unknown("bytes or an escape rkb does not decode"),
        Expr::Ident(name) => match vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => unknown(format!("`{name}`")),
        },
        Expr::Select(operand, field) => {
            let v = eval(operand, vars)?;
            select(&v, field)
        }
        Expr::Call { target, name, args } => call(target.as_deref(), name, args, vars),
        Expr::Op(op, operands) => operator(op, operands, vars),
        Expr::List(items) => {
            let items = items
                .iter()
                .map(|i| eval(i, vars))
                .collect::<Result<_, _>>()?;
            Ok(Val::List(items, true))
        }
        Expr::Map(entries) => {
            let mut map: Vec<(Val, Val)> = Vec::new();
            for (k, v) in entries {
                let (k, v) = (eval(k, vars)?, eval(v, vars)?);
                if map.iter().any(|(old, _)| equal(old, &k) == Some(true)) {
                    return unknown("a map literal with a repeated key");
                }
                map.push((k, v));
            }
            Ok(Val::Map(map))
        }
        Expr::Message(_) => unknown("a message literal"),
    }
}

/// `v.field`: a field of an object or a string key of a map.
fn select(v: &Val, field: &str) -> Ev {
    // Field names the API server escapes (`__dash__`, reserved words) are not mapped back here.
    if field.contains("__") {
        return unknown(format!("the escaped field name `{field}`"));
    }
    match v {
        Val::Map(entries) => match entries.iter().find(|(k, _)| *k == Val::Str(field.into())) {
            Some((_, value)) => Ok(value.clone()),
            None => error(format!("no such key: {field}")),
        },
        _ => unknown(format!("`.{field}` on a value that is not an object")),
    }
}

fn call(target: Option<&Expr>, name: &str, args: &[Expr], vars: &mut Vec<(String, Val)>) -> Ev {
    match (target, name, args) {
        (None, "has", [Expr::Select(operand, field)]) => match eval(operand, vars)? {
            Val::Map(entries) if !field.contains("__") => Ok(Val::Bool(
                entries.iter().any(|(k, _)| *k == Val::Str(field.clone())),
            )),
            _ => unknown("`has` on a value that is not an object"),
        },
        (Some(t), "all" | "exists" | "exists_one" | "map" | "filter", [Expr::Ident(var), body]) => {
            let over = eval(t, vars)?;
            comprehension(name, &over, var, body, vars)
        }
        (Some(t), "size", []) | (None, "size", [t]) => match eval(t, vars)? {
            Val::Str(s) => Ok(Val::Int(s.chars().count() as i64)),
            Val::List(items, _) => Ok(Val::Int(items.len() as i64)),
            Val::Map(entries) => Ok(Val::Int(entries.len() as i64)),
            _ => unknown("`size` of a value that has none"),
        },
        (Some(t), "startsWith" | "endsWith" | "contains" | "matches", [arg]) => {
            let (Val::Str(s), Val::Str(a)) = (eval(t, vars)?, eval(arg, vars)?) else {
                return unknown(format!("`{name}` on values that are not strings"));
            };
            Ok(Val::Bool(match name {
                "startsWith" => s.starts_with(&a),
                "endsWith" => s.ends_with(&a),
                "contains" => s.contains(&a),
                // RE2 syntax, as cel-go's; a pattern the regex crate cannot read is not evaluated.
                _ => match regex::Regex::new(&a) {
                    Ok(re) => re.is_match(&s),
                    Err(_) => return unknown(format!("the pattern `{a}`")),
                },
            }))
        }
        _ => {
            // Functions are strict: what stops their operands stops them (and names the innermost function).
            if let Some(t) = target {
                eval(t, vars)?;
            }
            for a in args {
                eval(a, vars)?;
            }
            unknown(format!("the function `{name}`"))
        }
    }
}

/// The macros `all`, `exists`, `exists_one`, `map`, `filter` over a list's items or a map's keys.
fn comprehension(
    name: &str,
    over: &Val,
    var: &str,
    body: &Expr,
    vars: &mut Vec<(String, Val)>,
) -> Ev {
    let elements: Vec<Val> = match over {
        Val::List(items, _) => items.clone(),
        Val::Map(entries) => entries.iter().map(|(k, _)| k.clone()).collect(),
        _ => return unknown(format!("`{name}` over a value that is not a list or map")),
    };
    let mut results = Vec::with_capacity(elements.len());
    for element in &elements {
        vars.push((var.to_string(), element.clone()));
        results.push(eval(body, vars));
        vars.pop();
    }
    match name {
        "all" => Ok(Val::Bool(logic(results, false)?)),
        "exists" => Ok(Val::Bool(logic(results, true)?)),
        _ => {
            // exists_one, map and filter are strict: any stop stops them, an unknown one first.
            let results = strict(results)?;
            match name {
                "map" => Ok(Val::List(results, true)),
                "exists_one" => {
                    let bools = results.iter().map(as_bool).collect::<Result<Vec<_>, _>>()?;
                    Ok(Val::Bool(bools.iter().filter(|b| **b).count() == 1))
                }
                _ => {
                    let mut kept = Vec::new();
                    for (element, keep) in elements.into_iter().zip(&results) {
                        if as_bool(keep)? {
                            kept.push(element);
                        }
                    }
                    Ok(Val::List(kept, true))
                }
            }
        }
    }
}

/// The values, or the first unknown stop, or else the first error.
fn strict(results: Vec<Ev>) -> Result<Vec<Val>, Stop> {
    if let Some(Err(u @ Stop::Unknown(_))) =
        results.iter().find(|r| matches!(r, Err(Stop::Unknown(_))))
    {
        return Err(u.clone());
    }
    results.into_iter().collect()
}

fn as_bool(v: &Val) -> Result<bool, Stop> {
    match v {
        Val::Bool(b) => Ok(*b),
        _ => unknown("a condition that is not a boolean"),
    }
}

/// CEL's commutative `||` (`decisive` true) or `&&` (false): any decisive operand decides, whatever errors the
/// others have; otherwise an unknown operand (it might be decisive) makes the answer unknown, then an error is
/// the answer.
fn logic(results: Vec<Ev>, decisive: bool) -> Result<bool, Stop> {
    if results.contains(&Ok(Val::Bool(decisive))) {
        return Ok(decisive);
    }
    let mut first_error = None;
    for r in results {
        match r {
            Ok(Val::Bool(_)) => {}
            Ok(_) => return unknown("a condition that is not a boolean"),
            Err(u @ Stop::Unknown(_)) => return Err(u),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(!decisive), Err)
}

fn operator(op: &str, operands: &[Expr], vars: &mut Vec<(String, Val)>) -> Ev {
    match (op, operands) {
        ("&&" | "||", [a, b]) => {
            let results = vec![eval(a, vars), eval(b, vars)];
            Ok(Val::Bool(logic(results, op == "||")?))
        }
        ("?:", [cond, then, otherwise]) => {
            if as_bool(&eval(cond, vars)?)? {
                eval(then, vars)
            } else {
                eval(otherwise, vars)
            }
        }
        ("!", [a]) => Ok(Val::Bool(!as_bool(&eval(a, vars)?)?)),
        ("neg", [a]) => match eval(a, vars)? {
            Val::Int(i) => i
                .checked_neg()
                .map(Val::Int)
                .map_or_else(|| error("integer overflow"), Ok),
            Val::Double(d) => Ok(Val::Double(-d)),
            _ => unknown("`-` on a value that is not a signed number"),
        },
        (_, [a, b]) => {
            let (a, b) = (eval(a, vars)?, eval(b, vars)?);
            binary(op, &a, &b)
        }
        _ => unknown(format!("the operator `{op}`")),
    }
}

fn binary(op: &str, a: &Val, b: &Val) -> Ev {
    let undecided = || unknown(format!("`{op}` on these operands"));
    match op {
        "==" | "!=" => match equal(a, b) {
            Some(eq) => Ok(Val::Bool(eq == (op == "=="))),
            None => undecided(),
        },
        "<" | "<=" | ">" | ">=" => {
            let Some(ord) = compare(a, b) else {
                // NaN compares false to everything; other mismatches are not evaluated.
                return match (a, b) {
                    (Val::Double(x), _) | (_, Val::Double(x)) if x.is_nan() => Ok(Val::Bool(false)),
                    _ => undecided(),
                };
            };
            Ok(Val::Bool(match op {
                "<" => ord == Ordering::Less,
                "<=" => ord != Ordering::Greater,
                ">" => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            }))
        }
        "in" => {
            let found: Vec<Option<bool>> = match b {
                Val::List(items, _) => items.iter().map(|i| equal(a, i)).collect(),
                Val::Map(entries) => entries.iter().map(|(k, _)| equal(a, k)).collect(),
                _ => return undecided(),
            };
            if found.contains(&Some(true)) {
                Ok(Val::Bool(true))
            } else if found.contains(&None) {
                undecided()
            } else {
                Ok(Val::Bool(false))
            }
        }
        "[]" => match (a, b) {
            (Val::List(items, _), Val::Int(i)) => usize::try_from(*i)
                .ok()
                .and_then(|i| items.get(i))
                .cloned()
                .map_or_else(|| error(format!("index out of range: {i}")), Ok),
            (Val::Map(entries), key) => {
                match entries.iter().find(|(k, _)| equal(k, key) == Some(true)) {
                    Some((_, v)) => Ok(v.clone()),
                    None => error("no such key"),
                }
            }
            _ => undecided(),
        },
        _ => arithmetic(op, a, b).unwrap_or_else(undecided),
    }
}

/// `+ - * / %` on same-typed operands (CEL has no mixed arithmetic); `None` for what is not evaluated.
fn arithmetic(op: &str, a: &Val, b: &Val) -> Option<Ev> {
    Some(match (a, b) {
        (Val::Int(x), Val::Int(y)) => integer(op, (*x).into(), (*y).into())?
            .and_then(|r| i64::try_from(r).map(Val::Int).or(error("integer overflow"))),
        (Val::Uint(x), Val::Uint(y)) => integer(op, (*x).into(), (*y).into())?.and_then(|r| {
            u64::try_from(r)
                .map(Val::Uint)
                .or(error("integer overflow"))
        }),
        (Val::Double(x), Val::Double(y)) => Ok(Val::Double(match op {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            "/" => x / y,
            _ => return None,
        })),
        (Val::Str(x), Val::Str(y)) if op == "+" => Ok(Val::Str(format!("{x}{y}"))),
        (Val::List(x, ox), Val::List(y, oy)) if op == "+" => {
            Ok(Val::List(x.iter().chain(y).cloned().collect(), *ox && *oy))
        }
        _ => return None,
    })
}

/// Integer arithmetic, wide enough that the caller's range check finds every int and uint overflow. CEL's `/`
/// truncates and its `%` takes the dividend's sign, as Rust's.
fn integer(op: &str, x: i128, y: i128) -> Option<Result<i128, Stop>> {
    let r = match op {
        "/" | "%" if y == 0 => return Some(error("division by zero")),
        "+" => x.checked_add(y),
        "-" => x.checked_sub(y),
        "*" => x.checked_mul(y),
        "/" => x.checked_div(y),
        "%" => x.checked_rem(y),
        _ => return None,
    };
    Some(r.map_or_else(|| error("integer overflow"), Ok))
}

/// A number as an exact integer, or as a double; for comparing across int, uint and double as CEL does.
fn number(v: &Val) -> Option<Result<i128, f64>> {
    match v {
        Val::Int(i) => Some(Ok(i128::from(*i))),
        Val::Uint(u) => Some(Ok(i128::from(*u))),
        Val::Double(d) => Some(Err(*d)),
        _ => None,
    }
}

fn compare(a: &Val, b: &Val) -> Option<Ordering> {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(x.cmp(y)),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        _ => match (number(a)?, number(b)?) {
            (Ok(x), Ok(y)) => Some(x.cmp(&y)),
            (Ok(x), Err(y)) => (x as f64).partial_cmp(&y),
            (Err(x), Ok(y)) => x.partial_cmp(&(y as f64)),
            (Err(x), Err(y)) => x.partial_cmp(&y),
        },
    }
}

/// CEL's heterogeneous equality: numbers by value, values of different types unequal. `None` for lists whose
/// equality ignores order (set and map lists), which is not evaluated.
fn equal(a: &Val, b: &Val) -> Option<bool> {
    match (a, b) {
        (Val::List(x, ox), Val::List(y, oy)) => {
            if !ox || !oy {
                return None;
            }
            if x.len() != y.len() {
                return Some(false);
            }
            all_equal(x.iter().zip(y).map(|(i, j)| equal(i, j)))
        }
        (Val::Map(x), Val::Map(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            all_equal(x.iter().map(|(k, v)| {
                match y.iter().find(|(k2, _)| equal(k, k2) == Some(true)) {
                    Some((_, v2)) => equal(v, v2),
                    None => Some(false),
                }
            }))
        }
        _ => match (number(a), number(b)) {
            (Some(_), Some(_)) => Some(compare(a, b) == Some(Ordering::Equal)),
            _ => Some(a == b),
        },
    }
}

/// Unequal if any pair is, equal if all are, else undecided.
fn all_equal(pairs: impl Iterator<Item = Option<bool>>) -> Option<bool> {
    let pairs: Vec<Option<bool>> = pairs.collect();
    if pairs.contains(&Some(false)) {
        Some(false)
    } else if pairs.contains(&None) {
        None
    } else {
        Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rule: &str, self_: Val) -> Ev {
        let e = crate::cel::parse(rule).unwrap();
        eval(&e, &mut vec![("self".into(), self_)])
    }

    fn obj(fields: &[(&str, Val)]) -> Val {
        Val::Map(
            fields
                .iter()
                .map(|(k, v)| (Val::Str((*k).into()), v.clone()))
                .collect(),
        )
    }

    fn s(text: &str) -> Val {
        Val::Str(text.into())
    }

    #[test]
    fn the_subset_evaluates() {
        let range = obj(&[
            ("min", Val::Int(5)),
            ("max", Val::Int(1)),
            ("name", s("web-1")),
        ]);
        for (rule, want) in [
            ("self.min <= self.max", false),
            ("self.min > self.max && has(self.name)", true),
            ("!has(self.tls) || self.tls.enabled", true),
            (
                "self.name.startsWith('web') && self.name.endsWith(\"-1\")",
                true,
            ),
            (
                "self.name.contains('x') ? false : size(self.name) == 5",
                true,
            ),
            ("self.name.matches('^[a-z]+-[0-9]$')", true),
            ("self.min in [1, 2, 5] && 'max' in self", true),
            (
                "self.min * 2 - self.max == 9 && self.min / 2 == 2 && self.min % 2 == 1",
                true,
            ),
            ("1.5 < self.max + 1 && 2 == 2.0 && -self.min < 0", true),
            ("self.max >= 2", false),
            ("[1, 2, 3].all(x, x > 0) && [1, 2].exists(x, x == 2)", true),
            ("[1, 2, 2].exists_one(x, x == 2)", false),
            ("[1, 2, 3].map(x, x * 2).filter(x, x > 2) == [4, 6]", true),
            (
                "{'a': 1}['a'] == 1 && self.size() == 3 && self.all(k, k != '')",
                true,
            ),
            ("self.name + '!' == 'web-1!' && [1] + [2] == [1, 2]", true),
        ] {
            assert_eq!(run(rule, range.clone()), Ok(Val::Bool(want)), "{rule}");
        }
    }

    #[test]
    fn errors_unknowns_and_commutative_logic() {
        let error = |e: &str| Err(Stop::Error(e.into()));
        let unknown = |u: &str| Err(Stop::Unknown(u.into()));
        for (rule, want) in [
            ("self.min <= 1", error("no such key: min")),
            // A false operand decides `&&` whatever the other does, on either side; a true one does not.
            ("self.min > 1 && false", Ok(Val::Bool(false))),
            ("true || self.min > 1", Ok(Val::Bool(true))),
            ("true && self.min > 1", error("no such key: min")),
            // An unknown operand might have decided: unknown, even beside an error.
            (
                "self.quantity(1) > 0 || self.min > 1",
                unknown("the function `quantity`"),
            ),
            ("false && self.x.y(1)", Ok(Val::Bool(false))),
            ("1 / 0 == 1", error("division by zero")),
            ("9223372036854775807 + 1 > 0", error("integer overflow")),
            ("18446744073709551615u * 2u > 0u", error("integer overflow")),
            ("oldSelf == self", unknown("`oldSelf`")),
            ("1 + 1.0 == 2.0", unknown("`+` on these operands")),
        ] {
            assert_eq!(run(rule, obj(&[])), want, "{rule}");
        }
        // Set lists are equal whatever their order: not evaluated.
        let set = Val::List(vec![Val::Int(2), Val::Int(1)], false);
        assert_eq!(
            run("self == [1, 2]", set),
            unknown("`==` on these operands")
        );
    }
}
