#!/usr/bin/env bash
# The test command (`npm test`): prepares this machine (PostgreSQL, Docker engine, test images, git), typechecks, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/test-env.sh
set -a; . ./.test-env; set +a
npx tsc --noEmit
npx tsx scripts/build.ts > /dev/null  # tests start the production build too
run() { NODE_ENV=test node --import tsx --test --test-timeout=300000 "$@"; }
if [ "$#" -gt 0 ]; then run --test-concurrency="${TEST_CONCURRENCY:-2}" "$@"; exit; fi
# The tests that count every request through the edge during a deploy or a restart run last, one file at a time: beside another
# file's deploys (the vfs driver copies whole images, on 2 cores) a test container can take no connection for seconds,
# and the edge's reload at the switch then ends the tries of the requests waiting for it (docs/guide/edge.md, "Deploys without downtime").
alone=(tests/plugins/edge/lifecycle.test.ts tests/plugins/edge/start-first.test.ts tests/plugins/edge/stacks.test.ts tests/plugins/releases/edge.test.ts)
mapfile -t files < <(find tests -name '*.test.ts' | sort | grep -vxF -f <(printf '%s\n' "${alone[@]}"))
status=0
run --test-concurrency="${TEST_CONCURRENCY:-2}" "${files[@]}" || status=$?
run --test-concurrency=1 "${alone[@]}" || status=$?
exit "$status"
