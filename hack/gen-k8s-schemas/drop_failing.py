"""Drops from a names file every k8s type that controller-gen failed on, and every type reaching one.

usage: drop_failing.py <controller-gen stderr> <names file> <k8s-openapi src/v1_35>

controller-gen reports errors at Go positions; the enclosing `type X` there is the failing type. Which
types contain which is read from k8s-openapi's JsonSchema impls (their subschema_for::<...> calls).
"""
import os
import re
import sys

log, names_path, src = sys.argv[1:]
def enclosing_type(lines):
    return next(m.group(1) for l in reversed(lines) if (m := re.match(r"type (\w+) ", l)))


bad = set()
for path, line in set(re.findall(r"^(/\S+\.go):(\d+):\d+: ", open(log).read(), re.M)):
    lines = open(path).read().splitlines()
    typ = enclosing_type(lines[: int(line)])
    pkg = re.sub(r"@[^/]+", "", path.split("/pkg/mod/k8s.io/", 1)[1]).rsplit("/", 1)[0]
    prefix = "io.k8s." + pkg.replace("/", ".") + "."
    bad.add(prefix + typ)
    # A named scalar (an +enum string type) has no schema of its own in k8s-openapi: its users do.
    if re.search(rf"^type {typ} (string|int\w*)$", "\n".join(lines), re.M):
        for i, l in enumerate(lines):
            if re.match(rf"\s+\w+\s+(\*|\[\])*{typ}\s+`", l):
                bad.add(prefix + enclosing_type(lines[: i + 1]))

users = {}
for dirpath, _, files in os.walk(src):
    for f in files:
        text = open(os.path.join(dirpath, f)).read()
        m = re.search(r'fn schema_name\(\).*?"(io\.k8s\.[^"]+)"', text, re.S)
        if not m:
            continue
        for ref in re.findall(r"subschema_for::<crate::((?:\w+::)+\w+)>", text):
            name = "io.k8s." + ref.replace("::", ".")
            name = name.replace("apiextensions_apiserver", "apiextensions-apiserver").replace("kube_aggregator", "kube-aggregator")
            users.setdefault(name, set()).add(m.group(1))

todo = list(bad)
while todo:
    for u in users.get(todo.pop(), ()):
        if u not in bad:
            bad.add(u)
            todo.append(u)

names = open(names_path).read().split()
kept = [n for n in names if n not in bad]
for n in sorted(set(names) - set(kept)):
    print(f"gen-k8s-schemas: controller-gen cannot generate {n}; skipped", file=sys.stderr)
open(names_path, "w").write("\n".join(kept) + "\n")
