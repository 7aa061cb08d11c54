# apt-sources.sh -- where Debian's archive is, as this machine's apt
# sources say.  Sourced (bash) by ./bootstrap, deb/build and
# testsuite/guest/fetch, whose private apt configurations take the
# archive's URI from here: the project names no archive host (the test
# subvol.bootstrap/archive-host.exp fails if it does), so a machine that
# uses a mirror, a proxy or a cache fetches through it.
#
#   apt_sources_uri KIND
#       print the URI of Debian's main archive (KIND main: an entry for
#       the release, or its -updates) or of its security archive (KIND
#       security: -security)
#   apt_sources_stanza KIND TYPES SUITES
#       print a deb822 stanza of TYPES ("deb", "deb-src") and SUITES
#       ("trixie", "trixie trixie-updates") for that URI: component main,
#       signed by Debian's archive keyring
#
# Both fail, saying which files they read and what they need, when the
# machine's sources have no such entry: there is no built-in host to
# fall back on.  APT_SOURCES_ROOT, when set, is a directory read instead
# of apt's own configuration: its etc/apt/sources.list,
# etc/apt/sources.list.d/*.{list,sources} and etc/os-release (tests).

# apt_sources_where: where apt reads its sources: the one file, and the
# directory of parts.
apt_sources_where ()
{
  local list=/etc/apt/sources.list parts=/etc/apt/sources.list.d
  if test -n "${APT_SOURCES_ROOT:-}"; then
    list=$APT_SOURCES_ROOT$list parts=$APT_SOURCES_ROOT$parts
  elif command -v apt-config >/dev/null; then
    # Dir::Etc may move them; apt-config knows where.
    eval "$(apt-config shell list Dir::Etc::SourceList/f \
                             parts Dir::Etc::SourceParts/d)"
  fi
  printf '%s\n' "$list" "${parts%/}"
}

apt_sources_uri ()
{
  local kind=$1 root=${APT_SOURCES_ROOT:-} codename uri f
  local -a where files=()
  # The files apt reads, in its order.
  mapfile -t where < <(apt_sources_where)
  test ! -f "${where[0]}" || files+=("${where[0]}")
  for f in "${where[1]}"/*; do
    case $f in *.list|*.sources) test ! -f "$f" || files+=("$f") ;; esac
  done
  # The host's release names Debian's suites; with the aliases, they tell
  # Debian's archive from others that also have a component main.
  f=${root:+$root/etc/os-release}
  codename=$(sed -n 's/^VERSION_CODENAME=//p' "${f:-/etc/os-release}" 2>/dev/null \
             | tr -d '"')
  # Each enabled entry of a deb or deb-src type, in the one-line form or
  # deb822, that apt checks with Debian's keyring (named, or among apt's
  # default keyrings: no Signed-By); the first one that names Debian's
  # keyring wins, else the first other.  An entry signed by another key
  # is a third party's, whatever its suite.
  uri=$(test ${#files[@]} = 0 || awk -v kind="$kind" -v codename="$codename" '
    function entry (types, uris, suites, comps, key,
                    t, u, s, nt, nu, ns, i, j, k, rank, base) {
      if (" " comps " " !~ / main /)
        return
      if (key != "" && key !~ /debian-archive-/)
        return
      rank = key == "" ? 1 : 0
      nt = split(types, t); nu = split(uris, u); ns = split(suites, s)
      for (i = 1; i <= nt; i++)
        for (j = 1; j <= nu; j++)
          for (k = 1; k <= ns; k++) {
            if (t[i] != "deb" && t[i] != "deb-src")
              continue
            base = s[k]
            if (sub(/(-security|\/updates)$/, "", base) != (kind == "security"))
              continue
            sub(/-(updates|backports|proposed-updates)$/, "", base)
            if (base == "" || (base != codename \
                               && base !~ /^(stable|testing|unstable|sid|oldstable)$/))
              continue
            if (best == "" || rank < best) {
              best = rank; found = u[j]
            }
          }
    }
    function stanza_end () {
      if (tolower(f["enabled"]) !~ /^(no|false|off|0)$/)
        entry(f["types"], f["uris"], f["suites"], f["components"], f["signed-by"])
      delete f; field = ""
    }
    FNR == 1 && NR > 1 && deb822 { stanza_end() }
    FNR == 1 { deb822 = FILENAME ~ /\.sources$/ }
    /^[ \t]*#/ { next }
    # deb822: "Field: value", continued on lines that start with a blank
    # (Signed-By may hold a whole key), stanzas apart by blank lines.
    deb822 && /^[ \t]*$/ { stanza_end(); next }
    deb822 && /^[ \t]/ { if (field != "") f[field] = f[field] " " $0; next }
    deb822 { field = tolower($0); sub(/:.*/, "", field)
             v = $0; sub(/^[^:]*:[ \t]*/, "", v); f[field] = v; next }
    # One-line: TYPE [OPTIONS] URI SUITE COMPONENT..., "#" to the end a
    # comment.
    { sub(/#.*/, "")
      if ($1 != "deb" && $1 != "deb-src")
        next
      i = 2; key = ""
      if ($2 ~ /^\[/) {
        for (; i <= NF; i++) {
          if ($i ~ /^\[?signed-by=/) { key = $i; gsub(/^\[?signed-by=|\]$/, "", key) }
          if ($i ~ /\]$/) break
        }
        i++
      }
      comps = ""
      for (j = i + 2; j <= NF; j++) comps = comps " " $j
      entry($1, $i, $(i + 1), comps, key) }
    END { if (deb822) stanza_end(); print found }' "${files[@]}")
  # Debian's cloud images name a list of mirrors: take its first.
  case $uri in
    mirror+file:*)
      f=${uri#mirror+file:}
      uri=$(awk '/^[^#[:space:]]/ { print $1; exit }' "$root/${f#//}" 2>/dev/null) ;;
  esac
  if test -z "$uri"; then
    {
      if test "$kind" = security; then
        echo "apt-sources: no entry for Debian's security archive (suite" \
             "${codename:-CODENAME}-security, component main)"
      else
        echo "apt-sources: no entry for Debian's archive (suite" \
             "${codename:-CODENAME} or ${codename:-CODENAME}-updates, component main)"
      fi
      if test ${#files[@]} = 0; then
        echo "  in this machine's apt sources: there are none (no ${where[0]},"
        echo "  no ${where[1]}/*.list or *.sources)."
      else
        echo "  in this machine's apt sources; read: ${files[*]}."
      fi
      echo "  The project names no archive host of its own: add an entry of type"
      echo "  deb or deb-src for Debian's archive or a mirror of it, with no"
      echo "  Signed-By or Debian's keyring (or point APT_SOURCES_ROOT at a"
      echo "  directory whose etc/apt has one)."
    } >&2
    return 1
  fi
  echo "$uri"
}

apt_sources_stanza ()
{
  local uri
  uri=$(apt_sources_uri "$1") || return 1
  printf '%s\n' "Types: $2" "URIs: $uri" "Suites: $3" "Components: main" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
}
