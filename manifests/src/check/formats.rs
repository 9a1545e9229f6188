//! The string `format`s kube-apiserver validates in a CRD's schema (apiextensions-apiserver's list of supported
//! formats, each checked by kube-openapi's `strfmt` registry), so that rkb refuses a default the API server would
//! refuse. Each check mirrors the named Go validator; where a check cannot follow Go exactly it accepts more,
//! never less: a default rkb lets through is still caught by the API server at install, while one rkb refuses
//! wrongly would block a valid CRD.

use regex::Regex;

/// Whether `text` is in `format`; `None` for a format the API server does not validate (it ignores those).
/// Format names are compared with their dashes removed, as the API server does (`date-time` is `datetime`).
pub(crate) fn string_has_format(format: &str, text: &str) -> Option<bool> {
    let fits = match format.replace('-', "").as_str() {
        // IsBSONObjectID: 12 bytes of hex, either case.
        "bsonobjectid" => text.len() == 24 && text.bytes().all(|b| b.is_ascii_hexdigit()),
        // govalidator.IsRequestURI (net/url.ParseRequestURI).
        "uri" => request_uri(text),
        // IsEmail (net/mail.ParseAddress with a non-empty address).
        "email" => mail_address(text),
        // IsHostname.
        "hostname" => hostname(text),
        // isIPv4: k8s.io/utils/net.ParseIPSloppy succeeds and the text has a dot, so an IPv6 address with an
        // embedded dotted quad counts too, and octets may have leading zeros.
        "ipv4" => sloppy_ip(text) && text.contains('.'),
        // govalidator.IsIPv6: net.ParseIP succeeds and the text has a colon (any IPv6 text, no zone).
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        // isCIDR: k8s.io/utils/net.ParseCIDRSloppy.
        "cidr" => sloppy_cidr(text),
        // govalidator.IsMAC (net.ParseMAC).
        "mac" => mac(text),
        // IsUUID, IsUUID3, IsUUID4, IsUUID5: any case, each dash optional; 3/4/5 fix the version digit, 4 and 5
        // also the variant.
        "uuid" => uuid(text, "[0-9a-f]{4}", "[0-9a-f]{4}"),
        "uuid3" => uuid(text, "3[0-9a-f]{3}", "[0-9a-f]{4}"),
        "uuid4" => uuid(text, "4[0-9a-f]{3}", "[89ab][0-9a-f]{3}"),
        "uuid5" => uuid(text, "5[0-9a-f]{3}", "[89ab][0-9a-f]{3}"),
        // govalidator.IsISBN10 || govalidator.IsISBN13.
        "isbn" => isbn10(text) || isbn13(text),
        // govalidator.IsISBN10.
        "isbn10" => isbn10(text),
        // govalidator.IsISBN13.
        "isbn13" => isbn13(text),
        // govalidator.IsCreditCard.
        "creditcard" => credit_card(text),
        // govalidator.IsSSN: exactly 11 bytes, so both separators are there.
        "ssn" => text.len() == 11 && full("[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}", text),
        // govalidator.IsHexcolor.
        "hexcolor" => full("#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})", text),
        // govalidator.IsRGBcolor.
        "rgbcolor" => rgb_color(text),
        // govalidator.IsBase64 needs at least one 4-character group; rkb has always let the empty string through
        // (lenient), otherwise the same padded standard alphabet.
        "byte" => full(
            r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?",
            text,
        ),
        // Any string.
        "password" => true,
        // IsDate (time.Parse of 2006-01-02). Lenient: a day past the month's end (2021-02-30) passes here; Go
        // refuses it.
        "date" => full(DATE, text),
        // IsDateTime, or rkb's RFC 3339 check of old (which also lets a space separate date and time, and a leap
        // second 60, both refused by Go: lenient).
        "datetime" => date_time(text),
        // IsDuration (time.ParseDuration, else strfmt's own words-and-units matcher).
        "duration" => duration(text),
        // IsShortName and IsLongName (formats of Kubernetes 1.34 on; older servers ignore them).
        "k8sshortname" => text.len() <= 63 && full(SHORT_NAME, text),
        "k8slongname" => {
            text.len() <= 253 && full(&format!(r"{SHORT_NAME}(?:\.{SHORT_NAME})*"), text)
        }
        _ => return None,
    };
    Some(fits)
}

const DATE: &str = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])";
const SHORT_NAME: &str = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
/// Go's `\s`: ASCII whitespace without the vertical tab.
const GO_SPACE: &[char] = &['\t', '\n', '\x0c', '\r', ' '];

/// Whether all of `text` matches `pattern`; a pattern that does not compile refuses nothing.
fn full(pattern: &str, text: &str) -> bool {
    match Regex::new(&format!("^(?:{pattern})$")) {
        Ok(r) => r.is_match(text),
        Err(_) => true,
    }
}

fn uuid(text: &str, third: &str, fourth: &str) -> bool {
    full(
        &format!("(?i)[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?{third}-?{fourth}-?[0-9a-f]{{12}}"),
        text,
    )
}

/// `%` followed by two hex digits wherever it appears (Go's `unescape` errors).
fn escapes_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

/// net/url.ParseRequestURI: no control bytes; `*`; or an optional scheme, then (query cut off) either an opaque
/// rest after a scheme or an absolute path, with `//authority` parsed when there is a scheme. The fragment is
/// not split off, so a `#` in the host is refused. Lenient: the inside of a bracketed IPv6 host is not checked.
fn request_uri(text: &str) -> bool {
    if text.is_empty() || text.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    if text == "*" {
        return true;
    }
    let Some((scheme, rest)) = uri_scheme(text) else {
        return false;
    };
    let rest = rest.split_once('?').map_or(rest, |(r, _)| r);
    if !rest.starts_with('/') {
        return !scheme.is_empty();
    }
    let mut path = rest;
    if let (false, Some(after)) = (scheme.is_empty(), rest.strip_prefix("//")) {
        let (authority, p) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        if !uri_authority(authority) {
            return false;
        }
        path = p;
    }
    escapes_ok(path)
}

/// Go's `getScheme`: `None` for a leading colon (missing scheme), an empty scheme when there is none.
fn uri_scheme(text: &str) -> Option<(&str, &str)> {
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((&text[..i], &text[i + 1..])),
            _ => return Some(("", text)),
        }
    }
    Some(("", text))
}

fn uri_authority(authority: &str) -> bool {
    let (user, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let user_ok = user.is_none_or(|u| {
        u.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c))
            && escapes_ok(u)
    });
    user_ok && uri_host(host)
}

fn uri_host(host: &str) -> bool {
    let port_ok = |p: &str| {
        p.is_empty()
            || p.strip_prefix(':')
                .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
    };
    if host.starts_with('[') {
        return host.rfind(']').is_some_and(|i| port_ok(&host[i + 1..]));
    }
    if let Some(i) = host.rfind(':')
        && !port_ok(&host[i..])
    {
        return false;
    }
    let b = host.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = |k: usize| b.get(k).is_some_and(u8::is_ascii_hexdigit);
                // Only non-ASCII bytes (or %25) may be escaped in a host.
                if !(hex(i + 1) && hex(i + 2)) || (b[i + 1] < b'8' && &b[i..i + 3] != b"%25") {
                    return false;
                }
                i += 3;
            }
            c if c < 0x80
                && !c.is_ascii_alphanumeric()
                && !b"!$&'()*+,;=:[]<>\"-_.~".contains(&c) =>
            {
                return false;
            }
            _ => i += 1,
        }
    }
    true
}

/// net/mail.ParseAddress for a bare `local@domain`: atoms of printable ASCII (less the specials) or non-ASCII,
/// spaces or tabs around the `@` and the ends, no empty, leading, trailing or doubled dot in the domain.
/// Lenient: anything with a quoted string, comment, angle address, group or domain literal (`"`, `(`, `<`, `:`,
/// `[`) is accepted unchecked, and so are dots anywhere in the local part.
fn mail_address(text: &str) -> bool {
    if text.contains(['"', '(', '<', ':', '[']) {
        return true;
    }
    let atom = |c: char| c >= '\u{80}' || (c.is_ascii_graphic() && !"()<>[]:;@\\,\"".contains(c));
    let text = text.trim_matches([' ', '\t']);
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    let (local, domain) = (
        local.trim_end_matches([' ', '\t']),
        domain.trim_start_matches([' ', '\t']),
    );
    !local.is_empty()
        && local.chars().all(atom)
        && domain.chars().all(atom)
        && domain.split('.').all(|label| !label.is_empty())
}

/// IsHostname: one label (a letter, digit, symbol or non-ASCII letter, then at most one dash right after it and up
/// to 62 more such characters), or dot-terminated labels (up to 63 characters, no dash at either end) then a
/// top-level domain of 2 to 63 letters; at most 255 bytes in all and 63 bytes per label.
fn hostname(text: &str) -> bool {
    const X: &str = r"a-zA-Z0-9\p{S}\p{L}";
    let chars = |s: &str| s.chars().count();
    let shape_ok = if text.contains('.') {
        let mut labels: Vec<&str> = text.split('.').collect();
        let tld = labels.pop().unwrap_or_default();
        (2..=63).contains(&chars(tld))
            && full(r"[a-zA-Z\p{L}]+", tld)
            && labels
                .iter()
                .all(|l| chars(l) <= 63 && full(&format!("[{X}](?:[{X}-]*[{X}])?"), l))
    } else {
        let after_first = text.chars().skip(1).filter(|&c| c != '-').count();
        after_first <= 62 && full(&format!("[{X}]-?[{X}]*"), text)
    };
    shape_ok && text.len() <= 255 && text.split('.').all(|l| l.len() <= 63)
}

/// Go 1.16's parseIPv4 as k8s.io/utils/net keeps it: four dot-separated decimal fields, each at most 255, leading
/// zeros allowed.
fn sloppy_ipv4(text: &str) -> bool {
    let fields: Vec<&str> = text.split('.').collect();
    fields.len() == 4
        && fields.iter().all(|f| {
            let digits = f.trim_start_matches('0');
            !f.is_empty()
                && f.bytes().all(|b| b.is_ascii_digit())
                && (digits.is_empty()
                    || (digits.len() <= 3 && digits.parse::<u16>().is_ok_and(|n| n <= 255)))
        })
}

/// Go 1.16's parseIPv6 as k8s.io/utils/net keeps it: hex fields may carry extra leading zeros and a trailing
/// dotted quad may too; otherwise as std's parser (which is Go's).
fn sloppy_ipv6(text: &str) -> bool {
    let fields: Vec<String> = text
        .split(':')
        .map(|f| {
            if f.contains('.') {
                if !sloppy_ipv4(f) {
                    return f.to_string();
                }
                let octets: Vec<&str> = f
                    .split('.')
                    .map(|o| match o.trim_start_matches('0') {
                        "" => "0",
                        o => o,
                    })
                    .collect();
                octets.join(".")
            } else if !f.is_empty() && f.bytes().all(|b| b.is_ascii_hexdigit()) {
                match f.trim_start_matches('0') {
                    "" => "0".to_string(),
                    f => f.to_string(),
                }
            } else {
                f.to_string()
            }
        })
        .collect();
    fields.join(":").parse::<std::net::Ipv6Addr>().is_ok()
}

/// k8s.io/utils/net.ParseIPSloppy: the first dot or colon decides between IPv4 and IPv6.
fn sloppy_ip(text: &str) -> bool {
    match text.find(['.', ':']).map(|i| text.as_bytes()[i]) {
        Some(b'.') => sloppy_ipv4(text),
        Some(_) => sloppy_ipv6(text),
        None => false,
    }
}

/// k8s.io/utils/net.ParseCIDRSloppy: an address, `/`, and a decimal prefix length (leading zeros allowed) of at
/// most 32 for IPv4 and 128 for IPv6.
fn sloppy_cidr(text: &str) -> bool {
    let Some((addr, bits)) = text.split_once('/') else {
        return false;
    };
    let max = if sloppy_ipv4(addr) {
        32
    } else if sloppy_ipv6(addr) {
        128
    } else {
        return false;
    };
    !bits.is_empty()
        && bits.bytes().all(|b| b.is_ascii_digit())
        && bits
            .trim_start_matches('0')
            .parse::<u32>()
            .map_or(bits.trim_start_matches('0').is_empty(), |n| n <= max)
}

/// net.ParseMAC: 6, 8 or 20 octets as two-digit hex groups split by one kind of `:` or `-`, or as four-digit
/// groups split by `.`; lenient: also bare hex digits, which newer Go accepts.
fn mac(text: &str) -> bool {
    let b = text.as_bytes();
    let octets_ok = |n: usize| matches!(n, 6 | 8 | 20);
    let hex = |g: &str, len: usize| g.len() == len && g.bytes().all(|b| b.is_ascii_hexdigit());
    if b.len() < 12 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        let groups: Vec<&str> = text.split(b[2] as char).collect();
        octets_ok(groups.len()) && groups.iter().all(|g| hex(g, 2))
    } else if b[4] == b'.' {
        let groups: Vec<&str> = text.split('.').collect();
        octets_ok(groups.len() * 2) && groups.iter().all(|g| hex(g, 4))
    } else {
        b.len().is_multiple_of(2) && octets_ok(b.len() / 2) && hex(text, b.len())
    }
}

/// Go's `[\s-]+` removed, as govalidator.IsISBN does first.
fn isbn_digits(text: &str) -> Vec<u8> {
    text.bytes()
        .filter(|&b| b != b'-' && !GO_SPACE.contains(&char::from(b)))
        .collect()
}

/// govalidator.IsISBN10: nine digits and a digit or `X`, the weighted sum divisible by 11.
fn isbn10(text: &str) -> bool {
    let d = isbn_digits(text);
    let shape = d.len() == 10
        && d[..9].iter().all(u8::is_ascii_digit)
        && (d[9].is_ascii_digit() || d[9] == b'X');
    shape && {
        let value = |b: u8| if b == b'X' { 10 } else { u32::from(b - b'0') };
        let sum: u32 = d.iter().zip(1..).map(|(&b, w)| w * value(b)).sum();
        sum.is_multiple_of(11)
    }
}

/// govalidator.IsISBN13: thirteen digits, the last the 1-3 weighted check digit.
fn isbn13(text: &str) -> bool {
    let d = isbn_digits(text);
    d.len() == 13 && d.iter().all(u8::is_ascii_digit) && {
        let sum: u32 = d[..12]
            .iter()
            .zip([1, 3].into_iter().cycle())
            .map(|(&b, w)| w * u32::from(b - b'0'))
            .sum();
        u32::from(d[12] - b'0') == (10 - sum % 10) % 10
    }
}

/// govalidator.IsCreditCard: the digits (everything else dropped) form a known issuer's number and pass Luhn.
fn credit_card(text: &str) -> bool {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let issuer = "4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9]{2})[0-9]{12}|3[47][0-9]{13}\
                  |3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11}";
    full(issuer, &digits) && {
        let sum: u32 = digits
            .bytes()
            .rev()
            .enumerate()
            .map(|(i, b)| {
                let d = u32::from(b - b'0');
                match (i % 2 == 1, d * 2) {
                    (false, _) => d,
                    (true, x) if x >= 10 => x - 9,
                    (true, x) => x,
                }
            })
            .sum();
        sum.is_multiple_of(10)
    }
}

/// govalidator.IsRGBcolor: `rgb(` three integers 0-255 without leading zeros, Go whitespace around each, `)`.
fn rgb_color(text: &str) -> bool {
    let Some(inner) = text.strip_prefix("rgb(").and_then(|t| t.strip_suffix(')')) else {
        return false;
    };
    let parts: Vec<&str> = inner.split(',').map(|p| p.trim_matches(GO_SPACE)).collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && (*p == "0" || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// IsDateTime (lower-cased, split at every `t`: the first piece a date, the second `hh:mm:ss`, any one character
/// and digits, then `z` or an offset whose digits are not range-checked; hours ≤ 23, minutes and seconds ≤ 59),
/// or the RFC 3339 pattern rkb checked before.
fn date_time(text: &str) -> bool {
    let old = full(
        &format!(
            r"{DATE}[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"
        ),
        text,
    );
    old || {
        let lower = text.to_lowercase();
        let mut pieces = lower.split('t');
        let (Some(date), Some(time)) = (pieces.next(), pieces.next()) else {
            return false;
        };
        let Ok(re) = Regex::new(
            r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(?:.[0-9]+)?(?:z|[+-][0-9]{2}:[0-9]{2})$",
        ) else {
            return true;
        };
        text.len() >= 4
            && full(DATE, date)
            && re.captures(time).is_some_and(|c| {
                let n = |i: usize| {
                    c.get(i)
                        .map_or(99, |m| m.as_str().parse::<u32>().unwrap_or(99))
                };
                n(1) <= 23 && n(2) <= 59 && n(3) <= 59
            })
    }
}

/// strfmt.ParseDuration: time.ParseDuration, else any `<digits> <unit word>` inside the text (a count past int64
/// fails it), where the unit is one of strfmt's names or starts with its longest name of a unit (`seconds`).
fn duration(text: &str) -> bool {
    if go_parse_duration(text) {
        return true;
    }
    let Ok(re) = Regex::new("([0-9]+)[\t\n\x0c\r ]*([A-Za-z\u{b5}]+)") else {
        return true;
    };
    const NAMES: [&str; 19] = [
        "ns", "nano", "us", "\u{b5}s", "micro", "ms", "milli", "s", "sec", "m", "min", "h", "hr",
        "hour", "d", "day", "w", "wk", "week",
    ];
    const PREFIXES: [&str; 8] = [
        "nano", "micro", "milli", "sec", "min", "hour", "day", "week",
    ];
    let mut ok = false;
    for c in re.captures_iter(text) {
        let (Some(count), Some(unit)) = (c.get(1), c.get(2)) else {
            continue;
        };
        if count.as_str().parse::<i64>().is_err() {
            return false;
        }
        let unit = unit.as_str().to_lowercase();
        ok |= NAMES.contains(&unit.as_str()) || PREFIXES.iter().any(|p| unit.starts_with(p));
    }
    ok
}

/// time.ParseDuration: an optional sign, then `0` alone or numbers (digits, a fraction, or both) each with a unit
/// ns, us, µs, μs, ms, s, m or h, the total within int64 nanoseconds.
fn go_parse_duration(text: &str) -> bool {
    const LIMIT: u64 = 1 << 63;
    let negative = text.starts_with('-');
    let mut s = text.strip_prefix(['-', '+']).unwrap_or(text);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return false;
        }
        let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for b in s[..int_len].bytes() {
            if whole > LIMIT / 10 {
                return false;
            }
            whole = whole * 10 + u64::from(b - b'0');
            if whole > LIMIT {
                return false;
            }
        }
        s = &s[int_len..];
        let (mut fraction, mut scale, mut frac_len) = (0u64, 1f64, 0);
        if let Some(rest) = s.strip_prefix('.') {
            frac_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for b in rest[..frac_len].bytes() {
                let next = fraction.checked_mul(10).map(|x| x + u64::from(b - b'0'));
                match next {
                    Some(y) if !overflow && fraction <= (LIMIT - 1) / 10 && y <= LIMIT => {
                        fraction = y;
                        scale *= 10.0;
                    }
                    _ => overflow = true,
                }
            }
            s = &rest[frac_len..];
        }
        if int_len == 0 && frac_len == 0 {
            return false;
        }
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        let unit: u64 = match &s[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return false,
        };
        s = &s[unit_len..];
        if whole > LIMIT / unit {
            return false;
        }
        let mut value = whole * unit;
        if fraction > 0 {
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > LIMIT {
                return false;
            }
        }
        total = match total.checked_add(value) {
            Some(t) if t <= LIMIT => t,
            _ => return false,
        };
    }
    negative || total < LIMIT
}

#[cfg(test)]
mod tests {
    use super::string_has_format;

    #[track_caller]
    fn check(format: &str, accepted: &[&str], refused: &[&str]) {
        for text in accepted {
            assert_eq!(
                string_has_format(format, text),
                Some(true),
                "{format} should accept {text:?}"
            );
        }
        for text in refused {
            assert_eq!(
                string_has_format(format, text),
                Some(false),
                "{format} should refuse {text:?}"
            );
        }
    }

    #[test]
    fn bsonobjectid() {
        check(
            "bsonobjectid",
            &["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"],
            &[
                "507f1f77bcf86cd79943901",
                "507f1f77bcf86cd79943901z",
                "507f1f77bcf86cd7994390110",
                "",
            ],
        );
    }

    #[test]
    fn uri() {
        check(
            "uri",
            &[
                "http://somewhereelse.com",
                "*",
                "/just/a/path",
                "//no-scheme-path",
                "mailto:someone@example.com",
                "urn:isbn:0451450523",
                "http://[::1]:8080/x",
                "https://user:pa%20ss@host.example:443/p%2Fq?q=1 2#f",
                "http://host:/",
                "http://h\u{e9}te/",
                "http://%C3%A9t%C3%A9/",
                "http://a%25b/",
            ],
            &[
                "somewhere.com",
                "",
                "relative/path",
                ":foo",
                "http://host:port/",
                "http://exa mple.com/",
                "http://host#frag",
                "/a%zz",
                "/a%4",
                "http://h/\u{7f}",
                "http://a\tb/",
                "http://[::1/",
                "http://us er@host/",
                "http://%41/",
            ],
        );
    }

    #[test]
    fn email() {
        check(
            "email",
            &[
                "blah@gmail.com",
                "test@d.verylongtoplevel",
                "email+tag@gmail.com",
                r#"" "@example.com"#,
                r#""Fred Bloggs"@example.com"#,
                "customer/department=shipping@example.com",
                "$A12345@example.com",
                "!def!xyz%abc@example.com",
                "!#$%&'*+-/=?^_`{}|~@example.com",
                "Miles.O'Brian@example.com",
                "postmaster@\u{2601}\u{2192}\u{2744}.ws",
                "root@localhost",
                "John Doe <john@example.com>",
                " a @ b ",
            ],
            &[
                "somebody@somewhere@com",
                "plainaddress",
                "a@",
                "@b",
                "a@b..c",
                "a@.b",
                "a@b.",
                "a b@c",
                "a;b@c",
                "",
            ],
        );
    }

    #[test]
    fn hostname() {
        let long_label = format!("x.y.{}", "a".repeat(64));
        let too_long = "a".repeat(256);
        check(
            "hostname",
            &[
                "somewhere.com",
                "888.com",
                "a.b.c.d.e.com",
                "1.2.3.4.com",
                "xn--bcher-kva.example.com",
                "xn-80ak6aa92e.co",
                "\u{2601}\u{2192}\u{2744}.ws",
                "www.example.\u{f4}l\u{e0}",
                "ex$ample",
                "localhost",
                "x",
                "x-y",
                "a.b.c.dot",
                "ex=ample.com",
                "<foo>",
                "www.example-hyphenated.org",
                "www.\u{8a79}\u{59c6}\u{65af}.london",
                &"a".repeat(63),
            ],
            &[
                "somewhere.com!",
                "user@email.domain",
                "1.1.1.1",
                &too_long,
                &long_label,
                "www.example-.org",
                "www.--example.org",
                "-www.example.org",
                "www-.example.org",
                "www.d-.org",
                "www-",
                "-www",
                "www.ex ample.org",
                "_www.example.org",
                "www.example_underscored.org",
                "www.\u{8a79}\u{59c6}\u{65af}.x",
                "a.b.c.d",
                "x.",
                "a.b.c.dot-",
                "ab-cd",
                "",
            ],
        );
    }

    #[test]
    fn ipv4() {
        check(
            "ipv4",
            &[
                "127.0.0.1",
                "192.168.1.1",
                "192.168.1.01",
                "0.0.0.000",
                "::ffff:1.2.3.4",
                "::1.2.3.04",
            ],
            &[
                "198.168.254.2.2",
                "256.1.1.1",
                "1.2.3",
                "1.2.3.",
                "::1",
                "localhost",
                "1.2.3.4/8",
                "",
            ],
        );
    }

    #[test]
    fn ipv6() {
        check(
            "ipv6",
            &[
                "::1",
                "::",
                "2001:db8::1",
                "2001:DB8:0:0:8:800:200C:417A",
                "::ffff:1.2.3.4",
            ],
            &[
                "127.0.0.1",
                "::1%eth0",
                "1::2::3",
                "12345::1",
                "2001:db8::g",
                "",
            ],
        );
    }

    #[test]
    fn cidr() {
        check(
            "cidr",
            &[
                "192.0.2.1/24",
                "192.0.02.1/24",
                "2001:db8:a0b:12f0::1/32",
                "10.0.0.0/0",
                "10.0.0.0/032",
                "::/128",
            ],
            &[
                "198.168.254.2",
                "2001:db8:a0b:12f0::1",
                "10.0.0.0/33",
                "::/129",
                "10.0.0.0/",
                "10.0.0.0/+8",
                "/8",
            ],
        );
    }

    #[test]
    fn mac() {
        check(
            "mac",
            &[
                "01:02:03:04:05:06",
                "0A-0b-0C-0d-0E-0f",
                "02:00:5e:10:00:00:00:01",
                "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
                "0000.5e00.5301",
                "0200.5e10.0000.0001",
            ],
            &[
                "01:02:03:04:05",
                "01:02-03:04:05:06",
                "0g:02:03:04:05:06",
                "01:02:03:04:05:06:07",
                "0000.5e00",
                "",
            ],
        );
    }

    #[test]
    fn uuids() {
        let v4 = "f47ac10b-58cc-4372-a567-0e02b2c3d479";
        let v3 = "a3bb189e-8bf9-3888-9912-ace4e6543002";
        let v5 = "886313e1-3b8a-5372-9b90-0c9aee199e5d";
        check(
            "uuid",
            &[v3, v4, v5, "F47AC10B58CC4372A5670E02B2C3D479"],
            &["not-a-uuid", "f47ac10b-58cc-4372-a567", ""],
        );
        check(
            "uuid3",
            &[v3, "A3BB189E8BF938889912ACE4E6543002"],
            &[v4, v5, "not-a-uuid"],
        );
        check(
            "uuid4",
            &[v4],
            &[v3, v5, "f47ac10b-58cc-4372-c567-0e02b2c3d479", "not-a-uuid"],
        );
        check(
            "uuid5",
            &[v5],
            &[v3, v4, "886313e1-3b8a-5372-7b90-0c9aee199e5d", "not-a-uuid"],
        );
    }

    #[test]
    fn isbns() {
        check(
            "isbn10",
            &["0321751043", "0-321-75104-3", "080442957X", "0 321 75104 3"],
            &["836217463", "0321751044", "080442957x", "978-0321751041"],
        );
        check(
            "isbn13",
            &["978-0321751041", "9780321751041"],
            &["978-0321751042", "0321751043"],
        );
        check(
            "isbn",
            &["0321751043", "978-0321751041"],
            &["836217463", "978-0321751042", ""],
        );
    }

    #[test]
    fn creditcard() {
        check(
            "creditcard",
            &[
                "4111-1111-1111-1111",
                "4012-8888-8888-1881",
                "378282246310005",
                "5555 5555 5555 4444",
                "6011111111111117",
            ],
            &[
                "9999-9999-9999-999",
                "4111111111111112",
                "1234567812345678",
                "",
            ],
        );
    }

    #[test]
    fn ssn() {
        check(
            "ssn",
            &["111-11-1111", "999 99 9999", "123-45 6789"],
            &["999 99 999", "123456789", "12a-45-6789", "123--456789"],
        );
    }

    #[test]
    fn colors() {
        check(
            "hexcolor",
            &["#FFFFFF", "#000000", "#fff", "abc123"],
            &["#fffffffz", "#ffff", "#", ""],
        );
        check(
            "rgbcolor",
            &[
                "rgb(255,255,255)",
                "rgb(0,0,0)",
                "rgb( 0 , 10 ,\t200 )",
                "rgb(199,249,9)",
            ],
            &[
                "rgb(300,0,0)",
                "rgb(01,0,0)",
                "RGB(0,0,0)",
                "rgb(0,0)",
                "rgb(256,0,0)",
                "rgb (0,0,0)",
                "rgb(0,0,0,0)",
            ],
        );
    }

    #[test]
    fn byte_and_password() {
        check(
            "byte",
            &["aGVsbG8=", "aGVsbA==", "aGVs", ""],
            &["ZWxpemFiZXRocG9zZXk", "a-b_", "aGVsbG8"],
        );
        check("password", &["super secret!!!", ""], &[]);
    }

    #[test]
    fn date() {
        check(
            "date",
            &["2006-01-02", "2024-02-29"],
            &[
                "2006-1-02",
                "2006-13-01",
                "06-01-02",
                "2006-01-02T00:00:00Z",
                "",
            ],
        );
    }

    #[test]
    fn date_time() {
        let accepted = [
            "2014-12-15T19:30:20.000Z",
            "2014-12-15t19:30:20z",
            "2014-12-15T19:30:20+01:00",
            "2014-12-15T19:30:20,5Z",
            "2014-12-15T19:30:20+99:99",
            "2014-12-15T19:30:20ZTrailing",
            "2014-12-15 19:30:20Z",
        ];
        let refused = [
            "2014-12-15T24:00:00Z",
            "2014-12-15",
            "2014-12-15T19:30Z",
            "2014-12-15T19:30:61Z",
            "2014-12-15T19:30:20",
            "",
        ];
        check("date-time", &accepted, &refused);
        check("datetime", &accepted, &refused);
    }

    #[test]
    fn duration() {
        check(
            "duration",
            &[
                "1h",
                "-1.5h",
                "+300ms",
                "2h45m",
                "0",
                "-0",
                "1\u{b5}s",
                "1\u{3bc}s",
                ".5s",
                "5.s",
                "22 ns",
                "3 days",
                "1 week",
                "2 hours and 5 minutes",
                "abc 5 days",
                "10 Seconds",
                "2562047h",
                "2562048h",
            ],
            &[
                "",
                "h",
                "1",
                "00",
                ".s",
                "5 msec",
                "99999999999999999999 days",
                "1x",
                "-",
                "1 hrs",
            ],
        );
    }

    #[test]
    fn k8s_names() {
        check(
            "k8s-short-name",
            &["my-name", "a", "0a"],
            &["My-name", "-a", "a-", "a.b", &"a".repeat(64), ""],
        );
        check(
            "k8s-long-name",
            &["a.b-c.d", "my-name", &"a".repeat(64)],
            &["a..b", "A.b", ".a", "a.", &"a".repeat(254)],
        );
    }

    #[test]
    fn unknown_formats_are_not_checked() {
        for format in ["int32", "float", "foo", "", "UUID", "k8s-other-name"] {
            assert_eq!(string_has_format(format, "anything"), None, "{format}");
        }
    }
}
