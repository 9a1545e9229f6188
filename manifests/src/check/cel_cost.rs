//! CEL cost limits. The API server refuses a CRD whose `x-kubernetes-validations` rules it estimates too expensive:
//! each rule's estimated cost times the number of times it can run must not exceed 10,000,000, and the sum over
//! the schema must not exceed 100,000,000. The estimate is cel-go's (checker/cost.go) with the sizes of the
//! schema: a list, map or string holds `maxItems`/`maxProperties`/`maxLength` elements, or, without them, as
//! many as fit in a 3 MiB request. A rule runs once per element of the lists and maps above it (their declared
//! maxima multiplied; when one is unbounded, as many times as its node fits in a request).
//!
//! This computes a lower bound of that estimate and reports only what the lower bound already puts over a
//! limit: rkb must never refuse a CRD the API server accepts. So what this cannot see is counted at its least:
//! an unknown function costs only its operands, an operand of unknown type is not a string, a collection of
//! unknown size is iterated zero times, and `messageExpression`s are not counted.

use crate::cel::{self, Expr};
use crate::check::{Checker, Version};
use crate::schema::node::{Node as SchemaNode, NodeSchema, Provenance, Schema};
use crate::schema::shared::SharedSchemas;
use serde_json::Value;
use std::sync::Arc;

const RULE_LIMIT: u64 = 10_000_000;
const SCHEMA_LIMIT: u64 = 100_000_000;
/// The largest request the API server accepts, from which it derives the size of an unbounded collection.
const MAX_REQUEST: u64 = 3 * 1024 * 1024;

/// A schema node a rule's expression reaches, with its path (for hints).
#[derive(Clone)]
struct Node<'a> {
    at: NodeRef<'a>,
    path: String,
}

/// The project's own schema is borrowed; a shared k8s sub-schema (and what is below it) is held.
#[derive(Clone)]
enum NodeRef<'a> {
    Own(&'a Schema),
    Held(Arc<Schema>),
}

impl<'a> Node<'a> {
    fn schema(&self) -> Option<&Schema> {
        match &self.at {
            NodeRef::Own(s) => Some(s),
            NodeRef::Held(s) => Some(s),
        }
    }

    fn type_name(&self) -> &str {
        self.schema().and_then(|s| s.str("type")).unwrap_or("")
    }

    /// The child `child`, at `path`.
    fn child(&self, shared: &SharedSchemas, child: Child<'_>, path: String) -> Option<Node<'a>> {
        let held = |n: &SchemaNode| match n {
            SchemaNode::Own(s) => Arc::new(s.clone()),
            SchemaNode::Shared(_) => match shared.schema_of(n) {
                NodeSchema::Shared(s) => s,
                NodeSchema::Own(s) => Arc::new(s.clone()),
            },
        };
        let at = match &self.at {
            NodeRef::Own(s) => match child.of(s)? {
                SchemaNode::Own(c) => NodeRef::Own(c),
                shared_node => NodeRef::Held(held(shared_node)),
            },
            NodeRef::Held(s) => NodeRef::Held(held(child.of(s)?)),
        };
        Some(Node { at, path })
    }

    /// A map: an object whose additionalProperties is a schema.
    fn is_map(&self) -> bool {
        self.type_name() == "object"
            && self
                .schema()
                .is_some_and(|s| s.additional_properties.is_some())
    }
}

/// Which child of a schema node an expression reaches.
#[derive(Clone, Copy)]
enum Child<'k> {
    Items,
    AdditionalProperties,
    Property(&'k str),
}

impl Child<'_> {
    fn of(self, s: &Schema) -> Option<&SchemaNode> {
        match self {
            Child::Items => s.items.as_deref(),
            Child::AdditionalProperties => s.additional_properties.as_deref(),
            Child::Property(name) => s.properties.as_ref()?.get(name),
        }
    }
}

fn int(s: &Schema, key: &str) -> Option<u64> {
    s.get(key)
        .and_then(Value::as_i64)
        .map(|n| n.max(0).unsigned_abs())
}

/// An upper bound of the size the API server gives the smallest JSON value of `s` (its `MinSerializedSize`):
/// with it, an unbounded list is estimated to hold at most `request / (size + 1)` items, so a larger size only
/// lowers the bound this computes.
fn min_size(shared: &SharedSchemas, s: &Schema, depth: usize) -> u64 {
    if depth > 32 {
        return MAX_REQUEST;
    }
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return 1;
    }
    match s.get("type").and_then(Value::as_str).unwrap_or("") {
        "boolean" => 4,
        "integer" | "number" => 1,
        "string" => match s.get("format").and_then(Value::as_str) {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        },
        "object" if s.additional_properties.is_none() => {
            // `{}` plus each required field without a default: `"name":` and its value, and a comma.
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let props = s.properties.as_ref();
            let field = |(name, v): (&String, &SchemaNode)| {
                let size = |p: &Schema| {
                    if p.contains_key("default") {
                        0
                    } else {
                        (name.len() as u64 + 4).saturating_add(min_size(shared, p, depth + 1))
                    }
                };
                size(&shared.schema_of(v))
            };
            props
                .into_iter()
                .flatten()
                .filter(|(n, _)| required.contains(&n.as_str()))
                .map(field)
                .fold(2, u64::saturating_add)
        }
        // A list, a map, or a node CEL cannot see.
        _ => 2,
    }
}

/// A lower bound of the elements of a list or map node (or of the bytes of a string) in the API server's
/// estimate, and the marker that bounds it when the estimate comes from the request size.
fn node_size(shared: &SharedSchemas, n: &Node) -> (u64, Option<&'static str>) {
    let Some(s) = n.schema() else {
        return (0, None);
    };
    let own = |v: &SchemaNode, f: &dyn Fn(&Schema) -> u64| f(&shared.schema_of(v));
    let room = MAX_REQUEST - 2;
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return (room, None);
    }
    match n.type_name() {
        "array" => match (int(s, "maxItems"), s.items.as_deref()) {
            (Some(max), _) => (max, None),
            (None, Some(items)) => (
                own(items, &|i| room / (min_size(shared, i, 0) + 1)),
                Some("MaxItems"),
            ),
            (None, None) => (0, None),
        },
        "object" if n.is_map() => match int(s, "maxProperties") {
            Some(max) => (max, None),
            None => (
                s.additional_properties
                    .as_deref()
                    .map_or(0, |a| own(a, &|v| room / (min_size(shared, v, 0) + 6))),
                Some("MaxProperties"),
            ),
        },
        "string" => {
            let format = s.get("format").and_then(Value::as_str).unwrap_or("");
            match (format, int(s, "maxLength")) {
                // Parsed as durations and timestamps: sized by their format, not counted here.
                ("duration" | "date" | "date-time", _) => (0, None),
                ("byte", Some(max)) => (max, None),
                // maxLength counts characters; the API server counts up to four bytes each.
                (_, Some(max)) => (max.saturating_mul(4), None),
                (_, None) => (room, Some("MaxLength")),
            }
        }
        _ => (0, None),
    }
}

/// What an expression is known to be, as far as its cost goes.
#[derive(Clone)]
enum Shape<'a> {
    Node(Node<'a>),
    /// A list or map built by the rule (a literal, or `map`/`filter`), of at least `len` elements.
    Built {
        len: u64,
        elem: Box<Shape<'a>>,
    },
    /// A string literal of at least this length.
    Str(u64),
    /// A number or bool computed by the rule (size 1 for CEL, never a string).
    Scalar,
    Unknown,
}

/// `ceil(n * 0.1)`: cel-go's cost of traversing n characters.
fn tenth(n: u64) -> u64 {
    n.div_ceil(10)
}

struct Estimator<'a> {
    shared: &'a SharedSchemas,
    vars: Vec<(String, Shape<'a>)>,
    /// Nodes whose size came from the request size, with the marker that would bound them.
    unbounded: Vec<(String, &'static str)>,
}

impl<'a> Estimator<'a> {
    /// The size of `shape` (elements, or characters of a string), noting an unbounded node when `note`.
    fn size(&mut self, shape: &Shape<'a>, note: bool) -> u64 {
        match shape {
            Shape::Node(n) => {
                let (size, marker) = node_size(self.shared, n);
                if let (true, Some(m)) = (note && size > 0, marker) {
                    let entry = (n.path.clone(), m);
                    if !self.unbounded.contains(&entry) {
                        self.unbounded.push(entry);
                    }
                }
                size
            }
            Shape::Built { len, .. } => *len,
            Shape::Str(n) => *n,
            Shape::Scalar => 1,
            Shape::Unknown => 0,
        }
    }

    /// Whether `shape` is known not to be a string or bytes (whose comparisons cost by size).
    fn not_text(shape: &Shape) -> bool {
        match shape {
            Shape::Scalar | Shape::Built { .. } => true,
            Shape::Node(n) => matches!(
                n.type_name(),
                "integer" | "number" | "boolean" | "array" | "object"
            ),
            _ => false,
        }
    }

    /// The element a comprehension over `shape` binds its variable to.
    fn element(&self, shape: &Shape<'a>) -> Shape<'a> {
        match shape {
            Shape::Node(n) if n.type_name() == "array" => n
                .child(self.shared, Child::Items, format!("{}[*]", n.path))
                .map_or(Shape::Unknown, Shape::Node),
            Shape::Built { elem, .. } => (**elem).clone(),
            _ => Shape::Unknown,
        }
    }

    fn lookup(&self, name: &str) -> Option<Shape<'a>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    }

    /// A lower bound of cel-go's maximum cost of `e`, and what `e` is.
    fn cost(&mut self, e: &Expr) -> (u64, Shape<'a>) {
        match e {
            Expr::Scalar(_) => (0, Shape::Scalar),
            Expr::Str(n, _) => (0, Shape::Str(*n)),
            // A variable costs 1; any other name (a type, a function's namespace) is counted as nothing.
            Expr::Ident(name) => self.lookup(name).map_or((0, Shape::Unknown), |s| (1, s)),
            Expr::Select(operand, field) => {
                let (c, s) = self.cost(operand);
                match s {
                    Shape::Node(n) if n.type_name() == "object" => {
                        let path = crate::check::child(&n.path, field);
                        let child = if n.is_map() {
                            n.child(self.shared, Child::AdditionalProperties, path)
                        } else {
                            n.child(self.shared, Child::Property(field), path)
                        };
                        (c + 1, child.map_or(Shape::Unknown, Shape::Node))
                    }
                    _ => (c, Shape::Unknown),
                }
            }
            Expr::Call { target, name, args } => self.call(target.as_deref(), name, args),
            Expr::Op(op, args) => self.op(op, args),
            Expr::List(items) => {
                let c = items
                    .iter()
                    .fold(10u64, |c, i| c.saturating_add(self.cost(i).0));
                let len = items.len() as u64;
                (
                    c,
                    Shape::Built {
                        len,
                        elem: Box::new(Shape::Unknown),
                    },
                )
            }
            Expr::Map(entries) => {
                let c = entries.iter().fold(30u64, |c, (k, v)| {
                    c.saturating_add(self.cost(k).0)
                        .saturating_add(self.cost(v).0)
                });
                let len = entries.len() as u64;
                (
                    c,
                    Shape::Built {
                        len,
                        elem: Box::new(Shape::Unknown),
                    },
                )
            }
            Expr::Message(values) => {
                let c = values
                    .iter()
                    .fold(40u64, |c, v| c.saturating_add(self.cost(v).0));
                (c, Shape::Unknown)
            }
        }
    }

    fn op(&mut self, op: &str, args: &[Expr]) -> (u64, Shape<'a>) {
        let parts: Vec<(u64, Shape<'a>)> = args.iter().map(|a| self.cost(a)).collect();
        let operands = parts.iter().fold(0u64, |c, (p, _)| c.saturating_add(*p));
        let (Some((a, sa)), Some((b, sb))) = (parts.first(), parts.get(1)) else {
            // `!` costs 1; `neg` folds into a literal or costs 1, so count nothing.
            return (operands.saturating_add(u64::from(op == "!")), Shape::Scalar);
        };
        let own = match op {
            // Both sides at most, never more: the maximum is what the estimate keeps.
            "&&" | "||" => 0,
            "?:" => {
                let c = parts.get(2).map_or(0, |p| p.0);
                return (a.saturating_add((*b).max(c)), Shape::Unknown);
            }
            // Equality costs by the smaller size, for every type.
            "==" | "!=" => {
                let (x, y) = (self.size(sa, false), self.size(sb, false));
                // Note the side that sets the cost, for the hint.
                self.size(if x <= y { sa } else { sb }, true);
                tenth(x.min(y))
            }
            "<" | "<=" | ">" | ">=" => {
                if Self::not_text(sa) || Self::not_text(sb) {
                    1
                } else {
                    tenth(self.size(sa, false).min(self.size(sb, false))).min(1)
                }
            }
            // A string concatenation costs by the sizes; anything else 1.
            "+" => u64::from(Self::not_text(sa) || Self::not_text(sb)),
            "-" | "*" | "/" | "%" | "[]" => 1,
            // A list membership test costs its size, a map's 1 (a literal may be either: at most 1).
            "in" => match sb {
                Shape::Built { len, .. } => (*len).min(1),
                Shape::Node(n) if n.type_name() == "array" => self.size(sb, true),
                _ => 0,
            },
            _ => 0,
        };
        let shape = match op {
            "[]" if matches!(sa, Shape::Node(n) if n.is_map()) => match sa {
                Shape::Node(n) => n
                    .child(
                        self.shared,
                        Child::AdditionalProperties,
                        format!("{}[*]", n.path),
                    )
                    .map_or(Shape::Unknown, Shape::Node),
                _ => Shape::Unknown,
            },
            "[]" => self.element(sa),
            // A concatenation's size is not followed.
            "+" => Shape::Unknown,
            _ => Shape::Scalar,
        };
        (operands.saturating_add(own), shape)
    }
}

/// Functions cel-go charges 1 beyond their operands (none of them priced by size, or by the API server's own
/// estimator). Any other function is counted as its operands alone.
const FLAT_FUNCTIONS: [&str; 8] = [
    "size",
    "int",
    "uint",
    "double",
    "bool",
    "type",
    "duration",
    "timestamp",
];

impl<'a> Estimator<'a> {
    fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Expr]) -> (u64, Shape<'a>) {
        if let (Some(range), Some(Expr::Ident(var))) = (target, args.first())
            && let Some(r) = self.comprehension(range, name, var, &args[1..])
        {
            return r;
        }
        match (target, name, args) {
            // A presence test costs 0 or 1 depending on the API server's version: count its operand.
            (None, "has", [Expr::Select(operand, _)]) => {
                return (self.cost(operand).0, Shape::Scalar);
            }
            // `cel.bind(v, init, body)`: an empty list (10), the init once, the body with `v` bound.
            (Some(Expr::Ident(ns)), "bind", [Expr::Ident(var), init, body]) if ns == "cel" => {
                let (ci, si) = self.cost(init);
                self.vars.push((var.clone(), si));
                let (cb, sb) = self.cost(body);
                self.vars.pop();
                return (ci.saturating_add(cb).saturating_add(10), sb);
            }
            // `dyn(x)` costs 1; its type is dyn, whose fields cost nothing to select.
            (None, "dyn", [x]) => return (self.cost(x).0.saturating_add(1), Shape::Unknown),
            _ => {}
        }
        let (tc, ts) = target.map_or((0, Shape::Unknown), |t| self.cost(t));
        // A bare unknown name as an argument is a macro's variable: its body may run zero times.
        if args
            .iter()
            .any(|a| matches!(a, Expr::Ident(n) if self.lookup(n).is_none()))
        {
            return (tc, Shape::Unknown);
        }
        let parts: Vec<(u64, Shape<'a>)> = args.iter().map(|a| self.cost(a)).collect();
        let operands = parts.iter().fold(tc, |c, p| c.saturating_add(p.0));
        let own = match (target.is_some(), name, parts.as_slice()) {
            (_, f, _) if FLAT_FUNCTIONS.contains(&f) => 1,
            // cel-go prices these string functions by the sizes of the string and the argument.
            (true, "startsWith" | "endsWith", [(_, a)]) => tenth(self.size(a, false)),
            (true, "contains", [(_, a)]) => {
                let sizes = (self.size(&ts, false), self.size(a, false));
                self.noted(&ts, tenth(sizes.0).saturating_mul(tenth(sizes.1)))
            }
            (true, "matches", [(_, a)]) => {
                let sizes = (self.size(&ts, false), self.size(a, false));
                let regex = sizes.1.div_ceil(4);
                self.noted(&ts, tenth(sizes.0.saturating_add(1)).saturating_mul(regex))
            }
            _ => 0,
        };
        let shape = match name {
            "size" | "int" | "uint" | "double" | "bool" => Shape::Scalar,
            _ => Shape::Unknown,
        };
        (operands.saturating_add(own), shape)
    }

    /// `cost`, noting `shape` as unbounded if it is and the cost depends on it.
    fn noted(&mut self, shape: &Shape<'a>, cost: u64) -> u64 {
        if cost > 0 {
            self.size(shape, true);
        }
        cost
    }

    /// The macros that loop: cel-go's cost of each (as its parser expands it) is the range once, a fixed part
    /// (the accumulator's init and the result), and per element the loop's condition and step with the body.
    fn comprehension(
        &mut self,
        range: &Expr,
        name: &str,
        var: &str,
        body: &[Expr],
    ) -> Option<(u64, Shape<'a>)> {
        let (fixed, per_element): (u64, u64) = match (name, body.len()) {
            // `@not_strictly_false(acc)` (2) and `acc && p` (1 + p); result `acc`.
            ("all", 1) => (1, 3),
            // `@not_strictly_false(!acc)` (3) and `acc || p` (1 + p); result `acc`.
            ("exists", 1) => (1, 4),
            // `p ? acc + 1 : acc` (p + 2); result `acc == 1` (2).
            ("exists_one" | "existsOne", 1) => (2, 2),
            // Init `[]` (10); `acc + [f]` (1 + 1 + 10 + f), under `p ?` for three arguments; result `acc`.
            ("map", 1 | 2) => (11, 12),
            // Init `[]` (10); `p ? acc + [x] : acc` (p + 1 + 1 + 10 + 1); result `acc`.
            ("filter", 1) => (11, 13),
            _ => return None,
        };
        let (range_cost, range_shape) = self.cost(range);
        let elements = match &range_shape {
            Shape::Node(n) if n.type_name() == "array" || n.is_map() => {
                self.size(&range_shape, true)
            }
            Shape::Built { len, .. } => *len,
            _ => 0,
        };
        let element = self.element(&range_shape);
        self.vars.push((var.to_string(), element.clone()));
        let body_cost = body
            .iter()
            .fold(per_element, |c, e| c.saturating_add(self.cost(e).0));
        self.vars.pop();
        let cost = range_cost
            .saturating_add(fixed)
            .saturating_add(elements.saturating_mul(body_cost));
        let shape = match name {
            "map" => Shape::Built {
                len: elements,
                elem: Box::new(Shape::Unknown),
            },
            "filter" => Shape::Built {
                len: elements,
                elem: Box::new(element),
            },
            _ => Shape::Scalar,
        };
        Some((cost, shape))
    }
}

/// A rule of the schema and the lower bound of its cost multiplied by the number of times it can run.
struct RuleCost {
    path: String,
    /// Where the node holding the rule comes from: the rule's marker is on its field or type.
    provenance: Provenance,
    rule: String,
    cost: u64,
    /// Lists, maps and strings whose unbounded size the cost depends on, and the marker that bounds each.
    unbounded: Vec<(String, &'static str)>,
}

/// How many times a node's rules can run: the product of the maxima of the lists and maps above it, or, when
/// one of them has none, unbounded (named, for the hint).
#[derive(Clone)]
enum Runs {
    Bounded(u64),
    Unbounded(Vec<(String, &'static str)>),
}

/// Collects the cost of every rule in `s` (at `path`) and below.
fn walk(shared: &SharedSchemas, s: &Schema, path: &str, runs: &Runs, out: &mut Vec<RuleCost>) {
    if let Some(Value::Array(rules)) = s.get("x-kubernetes-validations") {
        // With an unbounded list or map above, the API server counts as many runs as the node fits in a request.
        let times = match runs {
            Runs::Bounded(n) => *n,
            Runs::Unbounded(_) => MAX_REQUEST / (min_size(shared, s, 0) + 1),
        };
        for r in rules {
            let Some(Ok(expr)) = r.get("rule").and_then(Value::as_str).map(cel::parse) else {
                continue;
            };
            let rule = r["rule"].as_str().unwrap_or_default();
            let node = Node {
                at: NodeRef::Own(s),
                path: path.to_string(),
            };
            // With optionalOldSelf, oldSelf is an optional, whose fields cost nothing to select.
            let old = match r.get("optionalOldSelf") {
                Some(Value::Bool(true)) => Shape::Unknown,
                _ => Shape::Node(node.clone()),
            };
            let mut est = Estimator {
                shared,
                vars: vec![("self".into(), Shape::Node(node)), ("oldSelf".into(), old)],
                unbounded: Vec::new(),
            };
            let cost = est.cost(&expr).0.saturating_mul(times);
            if let Runs::Unbounded(above) = runs {
                est.unbounded.extend(above.iter().cloned());
            }
            out.push(RuleCost {
                path: path.to_string(),
                provenance: s.provenance,
                rule: rule.to_string(),
                cost,
                unbounded: est.unbounded,
            });
        }
    }
    // Shared k8s sub-schemas are the API server's own and hold no rules of the project's.
    let props = s.properties.iter().flatten();
    for (k, v) in props.filter_map(|(k, v)| Some((k, v.own()?))) {
        walk(shared, v, &crate::check::child(path, k), runs, out);
    }
    for (child, max, marker) in [
        (&s.items, "maxItems", "MaxItems"),
        (&s.additional_properties, "maxProperties", "MaxProperties"),
    ] {
        let Some(child) = child.as_deref().and_then(SchemaNode::own) else {
            continue;
        };
        let runs = match (runs, int(s, max)) {
            (Runs::Bounded(n), Some(m)) => Runs::Bounded(n.saturating_mul(m)),
            (Runs::Bounded(_), None) => Runs::Unbounded(vec![(path.to_string(), marker)]),
            (Runs::Unbounded(above), None) => {
                Runs::Unbounded([above.clone(), vec![(path.to_string(), marker)]].concat())
            }
            (Runs::Unbounded(above), Some(_)) => Runs::Unbounded(above.clone()),
        };
        walk(shared, child, &format!("{path}[*]"), &runs, out);
    }
}

/// Check rule (check/mod.rs): the CEL rules of the version's schema are within the API server's cost limits. A rule
/// over its limit is reported at its marker; the schema's total, at the kind.
pub fn cel_rules_are_within_cost_limits(cx: &mut Checker<'_>, v: &Version<'_>) {
    let (model, ty, version) = (cx.model, v.ty, v.name);
    let mut rules = Vec::new();
    walk(cx.shared, v.schema, ".", &Runs::Bounded(1), &mut rules);
    let name = &model.types[ty].name;
    let mut over = false;
    for r in rules.iter().filter(|r| r.cost > RULE_LIMIT) {
        over = true;
        // A rule no marker of the project wrote (a OneOf marker's) is reported at the kind.
        let at = r
            .provenance
            .marker(model, |m| m.rule_at(&r.rule))
            .unwrap_or_else(|| model.type_at(ty));
        cx.error(
            at,
            format!(
                "the {version} schema of `{name}` has a CEL rule at `{}` too expensive for the API server: its \
                 estimated cost, multiplied by the number of times it can run, is at least {}, over the limit of {RULE_LIMIT} per rule",
                r.path, r.cost
            ),
            hint(&r.unbounded),
        );
    }
    let total = rules.iter().fold(0u64, |t, r| t.saturating_add(r.cost));
    // Over the limit per rule, the total usually is too: the rules to fix are already named.
    if over || total <= SCHEMA_LIMIT {
        return;
    }
    // The costliest nodes, with the sum and number of their rules.
    let mut nodes: Vec<(&str, u64, usize)> = Vec::new();
    let mut unbounded = Vec::new();
    for r in &rules {
        match nodes.iter_mut().find(|n| n.0 == r.path) {
            Some(n) => (n.1, n.2) = (n.1.saturating_add(r.cost), n.2 + 1),
            None => nodes.push((&r.path, r.cost, 1)),
        }
        for u in &r.unbounded {
            if !unbounded.contains(u) {
                unbounded.push(u.clone());
            }
        }
    }
    nodes.sort_by_key(|n| std::cmp::Reverse(n.1));
    let named: Vec<String> = nodes
        .iter()
        .take(3)
        .map(|(path, cost, n)| match n {
            1 => format!("`{path}` {cost}"),
            _ => format!("`{path}` {cost} in {n} rules"),
        })
        .collect();
    cx.error(
        model.type_at(ty),
        format!(
            "the {version} schema of `{name}` has CEL rules too expensive together for the API server: their \
             estimated costs, each multiplied by the number of times its rule can run, add up to at least {total}, over the limit of \
             {SCHEMA_LIMIT} per schema (the most: {})",
            named.join(", ")
        ),
        hint(&unbounded),
    );
}

/// What lowers the estimate: bounds on the collections it assumes fill a request.
fn hint(unbounded: &[(String, &'static str)]) -> String {
    if unbounded.is_empty() {
        return "simplify the rule, or lower the MaxItems/MaxProperties/MaxLength of the lists, maps and strings it \
                iterates or sits in"
            .into();
    }
    let each: Vec<String> = unbounded
        .iter()
        .map(|(path, marker)| format!("+kubebuilder:validation:{marker} on `{path}`"))
        .collect();
    format!(
        "add {}: without a bound, the API server assumes a list, map or string as large as fits in a 3 MiB request; \
         or simplify the rule",
        each.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The lower bound of `rule`'s cost on a node with schema `schema` (one run).
    fn cost(schema: Value, rule: &str) -> u64 {
        let shared = SharedSchemas::new();
        let s = Schema::from_value(schema);
        let node = Node {
            at: NodeRef::Own(&s),
            path: ".".into(),
        };
        let mut est = Estimator {
            shared: &shared,
            vars: vec![("self".into(), Shape::Node(node))],
            unbounded: Vec::new(),
        };
        est.cost(&cel::parse(rule).unwrap()).0
    }

    fn spec() -> Value {
        json!({"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 5}},
            "names": {"type": "array", "items": {"type": "string"}},
        }})
    }

    /// Where cel-go's count is known exactly (checker/cost.go, worked by hand), the bound is that count.
    #[test]
    fn counts_what_cel_go_counts() {
        for (rule, want) in [
            // self, select, `>`.
            ("self.replicas > 0", 3),
            ("has(self.tags)", 1),
            // Range (2), `all` (1), and per tag: condition and step (3), t, size(), `<`.
            ("self.tags.all(t, t.size() < 5)", 2 + 1 + 10 * (3 + 3)),
            // `==` costs a tenth of the smaller size: the literal's 3 characters.
            ("self.tags.exists(t, t == 'abc')", 2 + 1 + 10 * (4 + 1 + 1)),
            // maxLength 5 is up to 20 bytes: `self == oldSelf` traverses them.
            (
                "self.tags.all(a, self.tags.all(b, a == b))",
                3 + 10 * (3 + 3 + 10 * (3 + 2 + 2)),
            ),
            (
                "[1, 2].map(x, x * 2).size() == 2",
                10 + 11 + 2 * (12 + 2) + 1 + 1,
            ),
            ("cel.bind(t, self.tags, t.size() > 2)", 10 + 2 + 3),
        ] {
            assert_eq!(cost(spec(), rule), want, "{rule}");
        }
    }

    /// What the bound cannot see costs nothing: unknown functions beyond their operands, unknown macros beyond
    /// their target, and collections of unknown size.
    #[test]
    fn counts_the_unknown_at_its_least() {
        assert_eq!(
            cost(spec(), "self.tags.sortBy(t, t.size()).size() > 0"),
            2 + 1 + 1
        );
        assert_eq!(cost(spec(), "self.tags.join(',') != ''"), 2);
        assert_eq!(cost(spec(), "dyn(self).foo.all(x, x > 0)"), 2 + 1);
        // Unbounded: 3 MiB - 2 bytes of `"",` items.
        let names = cost(spec(), "self.names.all(n, n.size() > 0)");
        assert_eq!(names, 2 + 1 + (MAX_REQUEST - 2) / 3 * 6);
    }

    fn rule_costs(schema: Value) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let shared = SharedSchemas::new();
        walk(
            &shared,
            &Schema::from_value(schema),
            ".",
            &Runs::Bounded(1),
            &mut out,
        );
        out.into_iter().map(|r| (r.path, r.cost)).collect()
    }

    /// A rule runs once per element of the lists above it: their maxima multiplied, or, with one unbounded, as
    /// many times as its node fits in a request.
    #[test]
    fn rules_cost_once_per_run() {
        let rule = json!([{"rule": "self.size() > 0"}]);
        let lists = |outer: Value| {
            json!({"type": "object", "properties": {"a": {"type": "array", "maxItems": outer, "items":
                {"type": "array", "maxItems": 20, "items": {"type": "string", "x-kubernetes-validations": rule}}}}})
        };
        assert_eq!(rule_costs(lists(json!(10))), [(".a[*][*]".into(), 200 * 3)]);
        let unbounded = lists(Value::Null);
        assert_eq!(
            rule_costs(unbounded),
            [(".a[*][*]".into(), MAX_REQUEST / 3 * 3)]
        );
        // An object item fits fewer times: `{}` and each required field without a default.
        let objects = json!({"type": "object", "properties": {"a": {"type": "array", "items": {
            "type": "object", "required": ["name", "port"], "x-kubernetes-validations": rule,
            "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}}}}}});
        assert_eq!(
            rule_costs(objects),
            [(".a[*]".into(), MAX_REQUEST / (2 + 4 + 4 + 2 + 1) * 3)]
        );
    }
}
