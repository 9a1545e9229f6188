#!/usr/bin/env bash
# Publishes rkb's crates to crates.io, in dependency order, and tags the release. One command for the maintainer:
#
#   hack/release.sh             # the same as --dry-run: every check, and `cargo publish --dry-run` of every crate
#   hack/release.sh --execute   # publish for real (needs CARGO_REGISTRY_TOKEN), then tag v<version> and say how to push it
#   hack/release.sh --dry-run --no-verify   # the checks and packaging without building each package (CI's form)
#
# CI runs the dry run on every change (hack/test.sh), so a release never finds a packaging problem on the day.
# What it checks before anything is published:
# - the work tree is clean (--execute only; a dry run of a dirty tree packages what is there and says so);
# - every publishable crate has the workspace's version, and the tag v<version> does not exist yet (--execute);
# - which crates of that version are on crates.io already (the sparse index; --execute fails when it cannot read it);
# - `cargo publish --workspace` packages and builds each crate from its packaged form, in dependency order, with the
#   workspace's crates resolved from the packages about to be published.
# Publishing stops at the first failure; cargo publishes in dependency order, so what is on crates.io is consistent.
# Run the script again after the fix: crates already on crates.io at this version are left out, the rest published.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=dry-run
verify=()
for arg in "$@"; do
  case "$arg" in
    --dry-run) ;;
    --execute) mode=execute ;;
    --no-verify) verify=(--no-verify) ;;
    -h | --help)
      sed -n '2,6p' "$0"
      exit 0
      ;;
    *)
      echo "release: unknown argument '$arg' (expected --dry-run, --execute or --no-verify)" >&2
      exit 2
      ;;
  esac
done
[ "$mode" = dry-run ] || [ "${#verify[@]}" -eq 0 ] || {
  echo "release: --no-verify is for dry runs; a release builds every package before it uploads" >&2
  exit 2
}

fail() {
  echo "release: $*" >&2
  exit 1
}

# Publishable crates (those without `publish = false`), as "name version" lines.
crates="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
for p in sorted(json.load(sys.stdin)["packages"], key=lambda p: p["name"]):
    if p["publish"] is None:
        print(p["name"], p["version"])
')"
[ -n "$crates" ] || fail "cargo metadata lists no publishable crate"

# [workspace.package] version: the one version line at the start of a line in the root manifest.
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
[ -n "$version" ] || fail "Cargo.toml has no [workspace.package] version"
while read -r name crate_version; do
  [ "$crate_version" = "$version" ] ||
    fail "$name is at $crate_version, the workspace at $version: publishable crates take version.workspace = true"
done <<<"$crates"

echo "release: rkb $version ($mode); cargo publishes these in dependency order:"
sed 's/^/  /' <<<"$crates"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  dirty="$(git status --porcelain)"
else
  [ "$mode" = dry-run ] || fail "not a git checkout: a release is tagged, so run it from rkb's repository"
  dirty=""
fi
if [ -n "$dirty" ]; then
  [ "$mode" = dry-run ] || fail "the work tree has changes; commit or stash them first:
$dirty"
  echo "release: the work tree has changes; the dry run packages them as they are"
fi
if [ "$mode" = execute ] && git rev-parse -q --verify "refs/tags/v$version" >/dev/null; then
  fail "the tag v$version exists: bump [workspace.package] version in Cargo.toml first"
fi

# The sparse index path of a crate name (https://doc.rust-lang.org/cargo/reference/registry-index.html#index-files).
index_path() {
  local n="${1,,}"
  case "${#n}" in
    1) echo "1/$n" ;;
    2) echo "2/$n" ;;
    3) echo "3/${n:0:1}/$n" ;;
    *) echo "${n:0:2}/${n:2:2}/$n" ;;
  esac
}
published=""
while read -r name _; do
  status="$(curl -sS -o /tmp/rkb-release-index.$$ -w '%{http_code}' "https://index.crates.io/$(index_path "$name")" 2>/dev/null ||
    echo unreachable)"
  case "$status" in
    200) grep -q "\"vers\":\"$version\"" /tmp/rkb-release-index.$$ && published="$published $name" ;;
    404) ;;
    *)
      [ "$mode" = dry-run ] || fail "cannot read crates.io's index for $name (HTTP $status)"
      echo "release: crates.io's index is not readable for $name (HTTP $status); not checked in a dry run"
      ;;
  esac
done <<<"$crates"
rm -f /tmp/rkb-release-index.$$

# Crates already on crates.io at this version are left out: a release that stopped half-way resumes where it stopped.
exclude=()
for name in $published; do
  exclude+=(--exclude "$name")
done
if [ -n "$published" ]; then
  if [ "${#exclude[@]}" -eq $((2 * $(wc -l <<<"$crates"))) ]; then
    echo "release: rkb $version is on crates.io already; bump [workspace.package] version in Cargo.toml for the next one"
    exit 0
  fi
  echo "release: already on crates.io at $version, left out:$published"
fi

if [ "$mode" = dry-run ]; then
  allow_dirty=()
  [ -z "$dirty" ] || allow_dirty=(--allow-dirty)
  cargo publish --workspace --locked --dry-run "${verify[@]}" "${allow_dirty[@]}" "${exclude[@]}"
  echo "release: dry run of rkb $version passed; publish with: hack/release.sh --execute"
  exit 0
fi

[ -n "${CARGO_REGISTRY_TOKEN:-}" ] || fail "CARGO_REGISTRY_TOKEN is not set (a crates.io token with publish-new and publish-update)"
cargo publish --workspace --locked "${exclude[@]}"
git tag -a "v$version" -m "rkb $version"
echo "release: published rkb $version and tagged v$version; push the tag with: git push origin v$version"
