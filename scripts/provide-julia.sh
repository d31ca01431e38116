#!/usr/bin/env bash
# Provides a Julia runtime for TsStore.jl's tests and benchmarks and prints the command that
# runs it (the last line of stdout; everything else goes to stderr):
#
#   julia=$(scripts/provide-julia.sh)   # then: "$julia" --project=bindings/julia -t 2 ...
#
# A `julia` on the PATH (or the one $JULIA names) is used as it is. Otherwise Julia 1.5.3,
# the oldest version TsStore.jl supports ([compat] in bindings/julia/Project.toml), is
# unpacked from Debian 11 ("bullseye") packages into build/julia (TSSTORE_JULIA_PREFIX),
# without installing anything system-wide from bullseye:
#   - an apt configuration of our own (sources list, lists, cache and status under the
#     prefix) names the machine's Debian archive with the bullseye suite; `apt-get download`
#     fetches the packages and `dpkg -x` unpacks them;
#   - Julia's private library folder holds relative links (libcurl, libgmp, libmpfr,
#     libpcre2-8, libssh2) to libraries the julia package depends on: they are pointed at
#     the system's copies, and a missing one is installed from the machine's own suite;
#   - bullseye's libunwind8 1.3.2 is unpacked beside Julia: Debian 12's 1.6.2 crashes Julia
#     1.5 (SIGSEGV in _ULx86_64_dwarf_search_unwind_table) at the first exception thrown;
#   - build/julia/bin/julia is a wrapper that puts the prefix's libraries first on
#     LD_LIBRARY_PATH.
# A second run finds the prefix (its stamp names the packages) and does nothing. Exits 1,
# saying why, when no Julia can be provided.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "provide-julia: $*" >&2; }

if [ -n "${JULIA:-}" ]; then
  command -v "$JULIA" >/dev/null || { say "JULIA=$JULIA is not a command"; exit 1; }
  say "using JULIA=$JULIA ($("$JULIA" --version))"
  command -v "$JULIA"
  exit 0
fi
if command -v julia >/dev/null; then
  say "using the julia on the PATH, $(command -v julia) ($(julia --version))"
  command -v julia
  exit 0
fi

prefix=${TSSTORE_JULIA_PREFIX:-$PWD/build/julia}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
suite=bullseye
# The bullseye packages: Julia and the libraries of its Depends that Debian 12 no longer has
# under these sonames, libunwind8 (above) and libpcre3 (libgit2's, which Debian 12 no longer
# installs by default).
packages=(julia julia-common libjulia1 libllvm9 libgit2-1.1 libmbedtls12 libmbedcrypto3 libmbedx509-0
  libdsfmt-19937-1 libopenlibm3 libutf8proc2 libhttp-parser2.9 libffi7 libunwind8 libpcre3)
# Libraries taken from the machine itself, installed from its own suite when missing:
# soname, then the Debian (and Ubuntu) package.
system_libs=(libcurl-gnutls.so.4:libcurl3-gnutls libgmp.so.10:libgmp10 libmpfr.so.6:libmpfr6
  libpcre2-8.so.0:libpcre2-8-0 libssh2.so.1:libssh2-1 libgfortran.so.5:libgfortran5
  libquadmath.so.0:libquadmath0 libstdc++.so.6:libstdc++6)
stamp_text="Julia 1.5.3 from Debian $suite: ${packages[*]}"
wrapper=$prefix/bin/julia

if [ -x "$wrapper" ] && [ "$(cat "$prefix/stamp" 2>/dev/null)" = "$stamp_text" ]; then
  say "using $wrapper ($("$wrapper" --version))"
  echo "$wrapper"
  exit 0
fi

command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
  { say "no Julia on the PATH, and no apt-get and dpkg to unpack Debian's Julia 1.5.3 with"; exit 1; }
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)

# system_path SONAME: where the dynamic linker finds SONAME on this machine, or nothing.
# (awk reads to the end: an early exit would fail ldconfig with SIGPIPE under pipefail.)
system_path() {
  /sbin/ldconfig -p | awk -v lib="$1" -v dir="/$multiarch/" '$1 == lib && index($NF, dir) && !found { print $NF; found = 1 }'
}

. scripts/lib/apt.sh
missing=()
for entry in "${system_libs[@]}"; do
  [ -n "$(system_path "${entry%%:*}")" ] || missing+=("${entry#*:}")
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || missing+=(debian-archive-keyring) # Ubuntu: Debian's signing keys
if [ ${#missing[@]} -gt 0 ]; then
  say "installing from the machine's own suite: ${missing[*]}"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The machine's Debian archive, as its own sources name it (deb822 URIs: lines or one-line
# deb entries), so that a mirror the machine is set up for is the one asked; Debian's own
# host otherwise (Ubuntu), and Debian's archive of retired releases last.
mirrors=()
if [ -n "${TSSTORE_DEBIAN_MIRROR:-}" ]; then
  mirrors+=("$TSSTORE_DEBIAN_MIRROR")
fi
while read -r uri; do
  mirrors+=("$uri")
done < <(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
  grep -oE 'https?://[^ ]*/debian/?( |$)' | tr -d ' ' | sed 's:/$::')
mirrors+=(http://deb.debian.org/debian http://archive.debian.org/debian)
mapfile -t mirrors < <(printf '%s\n' "${mirrors[@]}" | awk '!seen[$0]++')

signed_by=$keyring
removed=/usr/share/keyrings/debian-archive-removed-keys.gpg
[ -f "$removed" ] && signed_by="$keyring,$removed" # bullseye's keys, once retired

apt_dir=$prefix/apt
rm -rf "$apt_dir" "$prefix/root" "$prefix/stamp"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
: >"$apt_dir/status"
private_apt=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "Dir::State::status=$apt_dir/status"
  -o "APT::Architecture=$arch" -o APT::Architectures= -o Debug::NoLocking=1 -o APT::Sandbox::User=root)

downloaded=""
for mirror in "${mirrors[@]}"; do
  echo "deb [arch=$arch signed-by=$signed_by] $mirror $suite main" >"$apt_dir/sources.list"
  say "downloading Julia 1.5.3 from $mirror ($suite)"
  if apt-get "${private_apt[@]}" -qq update >"$apt_dir/update.log" 2>&1 &&
    (cd "$apt_dir/debs" && apt-get "${private_apt[@]}" -qq download "${packages[@]}") >"$apt_dir/download.log" 2>&1; then
    downloaded=$mirror
    break
  fi
  say "  failed: $(grep -hE '^(E|W):' "$apt_dir/update.log" "$apt_dir/download.log" 2>/dev/null | head -2 | tr '\n' ' ')"
  rm -f "$apt_dir/debs"/*.deb
done
[ -n "$downloaded" ] || { say "no archive served Debian $suite's julia 1.5.3; logs in $apt_dir"; exit 1; }

for deb in "$apt_dir/debs"/*.deb; do
  dpkg -x "$deb" "$prefix/root"
done
rm -rf "$apt_dir/debs" "$apt_dir/lists" "$apt_dir/cache" # 65 MB that a second run does not need
libdir=$prefix/root/usr/lib/$multiarch
# Links in Julia's private folder that point at a library the prefix does not hold
# (../libgmp.so.10) are pointed at the system's copy.
for link in "$libdir"/julia/*; do
  [ -L "$link" ] && [ ! -e "$link" ] || continue
  soname=$(basename "$(readlink "$link")")
  target=$(system_path "$soname")
  [ -n "$target" ] || { say "no $soname on this machine for $(basename "$link")"; exit 1; }
  ln -sfn "$target" "$link"
done

mkdir -p "$prefix/bin"
cat >"$wrapper" <<EOF
#!/bin/sh
# Julia 1.5.3 from Debian $suite, unpacked by scripts/provide-julia.sh: its libraries first.
LD_LIBRARY_PATH="$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$prefix/root/usr/bin/julia" "\$@"
EOF
chmod +x "$wrapper"

# The check that the unpacked runtime works: a thrown and caught exception (the libunwind
# crash above), a library loaded by name, and two threads.
if ! out=$(JULIA_DEPOT_PATH="$prefix/depot" JULIA_NUM_THREADS=2 "$wrapper" --startup-file=no -e '
    using Libdl
    try; error("probe"); catch; end
    Libdl.dlopen("libm.so.6")
    print(VERSION, " with ", Threads.nthreads(), " threads")' 2>&1); then
  say "the unpacked Julia does not run: $out"
  exit 1
fi
echo "$stamp_text" >"$prefix/stamp"
say "Julia $out in $prefix"
echo "$wrapper"
