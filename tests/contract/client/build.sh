#!/bin/sh
# The TypeScript client of openapi.yaml, generated and compiled:
#   tests/contract/client/build.sh OUTDIR
# writes OUTDIR/wpfs-api.d.ts (openapi-typescript: every path, parameter,
# body and answer of both services as types), then type-checks and
# compiles smoke.mts against it with tsc (strict) into OUTDIR/smoke.mjs.
# A crawler in TypeScript uses the same two steps: generate the types,
# hand them to openapi-fetch's createClient<paths>().
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out"
ln -sfn "$root/node_modules" "$out/node_modules"
cp "$root/tests/contract/client/smoke.mts" "$out/smoke.mts"
NO_UPDATE_NOTIFIER=1 REDOCLY_TELEMETRY=off \
  "$root/node_modules/.bin/openapi-typescript" "$root/openapi.yaml" \
  --default-non-nullable=false -o "$out/wpfs-api.d.ts" >"$out/generate.log" 2>&1 || { cat "$out/generate.log" >&2; exit 1; }
cat >"$out/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": false,
    "skipLibCheck": true,
    "types": ["node"],
    "outDir": "."
  },
  "files": ["smoke.mts", "wpfs-api.d.ts"]
}
EOF
"$root/node_modules/.bin/tsc" -p "$out/tsconfig.json"
