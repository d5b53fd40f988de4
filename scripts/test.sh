#!/usr/bin/env bash
# The test command (`npm test`): prepares this machine (PostgreSQL, Docker engine, test images, git), typechecks, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/test-env.sh
set -a; . ./.test-env; set +a
npx tsc --noEmit
npx tsx scripts/build.ts > /dev/null  # tests start the production build too
mapfile -t files < <(find tests -name '*.test.ts' | sort)
if [ "$#" -gt 0 ]; then files=("$@"); fi
NODE_ENV=test exec node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=300000 "${files[@]}"
