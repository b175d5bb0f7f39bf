#!/bin/bash
# timeout: 120
# A function is exported because another file calls it, never for a test:
# every symbol a library object exports is used by another object of the
# product (a file of its own library, another library, a program's main
# file, a fuzz target, which links the libraries whole). Unit tests include
# the .c they test (tests/unit/FOLDER/FILE.c), integration programs and
# benchmarks are not callers. Read from the built objects with nm.
# tests/e2e/exports.allow lists the exceptions left ("LIBRARY SYMBOL"); an
# entry that is no longer one (the symbol went static, or gained a caller)
# fails too, so the list can only shrink.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no $WPFS_ROOT"
OBJ=build/rel
case $WPFS_BIN in */build/san/bin) OBJ=build/san ;; esac
ALLOW=tests/e2e/exports.allow
LIBDIRS=$(sed -n '/^LIBDIRS :=/,/[^\\]$/p' Makefile | sed 's/^LIBDIRS :=//; s/\\$//' | tr -s ' \n' '  ')
[ -n "$LIBDIRS" ] || bail "no LIBDIRS in the Makefile"

# objects: "LIBRARY OBJECT" for each library object, "- OBJECT" for every
# other object of the product that may call one
objects() {
  local d o
  for d in $LIBDIRS; do
    [ -f "$OBJ/lib$d.objs" ] || bail "no $OBJ/lib$d.objs (make first)"
    for o in $(cat "$OBJ/lib$d.objs"); do echo "$d $o"; done
  done >"$T_DIR/libobjs"
  cat "$T_DIR/libobjs"
  find "$OBJ" -name '*.o' ! -path "$OBJ/tests/unit/*" ! -path "$OBJ/tests/integ/*" \
    ! -path "$OBJ/tests/bench/*" ! -path "$OBJ/gen/*" | sort |
    grep -vxFf <(awk '{ print $2 }' "$T_DIR/libobjs") | while read -r o; do
      o=${o#./}
      [ -f "${o#"$OBJ"/}" ] || [ -f "$(echo "${o#"$OBJ"/}" | sed 's/\.o$/.c/')" ] || continue  # left by a moved source
      echo "- $o"
    done
}

# exceptions OBJECTS-FILE: "LIBRARY SYMBOL" for each symbol a library
# object exports that no other object uses
exceptions() {
  # one nm for all the objects (-A names each line's file)
  { awk '{ print "L", $2, $1 }' "$1"
    awk '{ print $2 }' "$1" | xargs nm -A -u | awk '{ sub(/:.*/, "", $1); print "U", $1, $NF }'
    awk '$1 != "-" { print $2 }' "$1" | xargs nm -A -g --defined-only |
      awk 'NF == 3 && $3 !~ /^__(odr_)?asan|^__ubsan/ { sub(/:.*/, "", $1); print "D", $1, $3 }'
  } | awk '$1 == "L" { lib[$2] = $3; next }
           $1 == "U" { use[$3] = use[$3] " " $2 " "; next }
           { def[++n] = lib[$2] " " $3; obj[n] = $2; sym[n] = $3 }
           END { for (i = 1; i <= n; i++) {
                   u = use[sym[i]]; gsub(" " obj[i] " ", " ", u)
                   if (u !~ /[^ ]/) print def[i] } }' | sort -u
}

allowed() { grep -v '^#' "$1" | awk 'NF == 2 { print $1, $2 }' | sort -u; }

objects >"$T_DIR/objects"
exceptions "$T_DIR/objects" >"$T_DIR/found"
allowed "$ALLOW" >"$T_DIR/allowed"
for d in $LIBDIRS; do
  is "$(comm -23 "$T_DIR/found" "$T_DIR/allowed" | awk -v d="$d" '$1 == d { printf "%s ", $2 }')" "" \
    "$d: every exported symbol has a caller in another file (else static, or in $ALLOW)"
done
is "$(comm -13 "$T_DIR/found" "$T_DIR/allowed" | tr '\n' ' ')" "" \
  "every entry of $ALLOW is still an export no other file calls (else remove it)"
echo "# $(wc -l <"$T_DIR/found") exported symbols without a caller in another file, all listed"

# The check can fail both ways: a library object exporting a function no
# one calls, and an allow-list entry for a symbol that is no longer one.
printf 'int exports_probe_lonely(void);\nint exports_probe_lonely(void) { return 1; }\n' >"$T_DIR/probe.c"
cc -c -o "$T_DIR/probe.o" "$T_DIR/probe.c" || bail "cc"
{ cat "$T_DIR/objects"; echo "common $T_DIR/probe.o"; } >"$T_DIR/objects2"
is "$(exceptions "$T_DIR/objects2" | comm -23 - "$T_DIR/found")" "common exports_probe_lonely" \
  "an exported function no other file calls is found"
printf 'common url_parse\n' >"$T_DIR/allow2"
is "$(allowed "$T_DIR/allow2" | comm -13 "$T_DIR/found" -)" "common url_parse" \
  "an allow-listed symbol that has callers is found"
done_testing
