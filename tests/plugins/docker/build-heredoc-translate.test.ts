// The Dockerfile translation for engines whose built-in frontend predates heredocs, without an engine: real-world shapes of RUN/COPY/ADD heredocs, flags, directives and continuations, each compared with what BuildKit's own frontend makes of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frontendIsCurrent, translateDockerfile, type TranslateOptions } from '../../../plugins/docker/dockerfile-translate.ts';
import { expandWord, extractFlags, patternExpansions } from '../../../plugins/docker/dockerfile-words.ts';
import { instructions, stepLine } from '../../../plugins/docker/dockerfile.ts';

const images: Record<string, { Env?: string[]; Shell?: string[] }> = {
  'debian:12': { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] },
  'python:3.12': { Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'LANG=C.UTF-8', 'PYTHON_VERSION=3.12.1'] },
  'mcr.microsoft.com/powershell': { Env: ['PATH=/opt/microsoft/powershell'], Shell: ['pwsh', '-Command'] },
};
const opts = (over: Partial<TranslateOptions> = {}): TranslateOptions => ({
  args: {}, image: (ref) => images[ref], platform: 'linux/amd64', inContext: () => false, ...over,
});
const translate = (text: string, over: Partial<TranslateOptions> = {}) => translateDockerfile(text, '20.10.24', opts(over));
/** the translated line that holds the instruction starting at a 1-based line of the original */
const lineOf = (text: string, line: number, over: Partial<TranslateOptions> = {}) => translate(text, over)!.text.split('\n')[line - 1];
const runArgs = (line: string) => JSON.parse(line.slice(line.indexOf('['))) as string[];

test('the engines whose built-in frontend reads heredocs: Docker Engine 23 and later', () => {
  assert.equal(frontendIsCurrent('20.10.24+dfsg1'), false);
  assert.equal(frontendIsCurrent('19.03.15'), false);
  assert.equal(frontendIsCurrent('23.0.0'), true);
  assert.equal(frontendIsCurrent('27.3.1'), true);
});

test('a Dockerfile without newer syntax is left alone', () => {
  assert.equal(translate('FROM debian:12\nRUN echo "a <<b"\nRUN ["sh", "-c", "cat <<EOF"]\nCOPY --chmod=755 a /b\n'), null);
});

test('RUN <<EOF: the script goes to the stage\'s shell as one exec-form argument, every other line of it left blank', () => {
  const df = 'FROM debian:12\nRUN <<EOF\napt-get update\napt-get install -y --no-install-recommends "curl" \\\n  jq\n# a comment of the script\nEOF\nRUN echo after\n';
  const t = translate(df)!;
  const lines = t.text.split('\n');
  assert.equal(lines.length, df.split('\n').length);
  assert.deepEqual(runArgs(lines[1]), ['/bin/sh', '-c', 'apt-get update\napt-get install -y --no-install-recommends "curl" \\\n  jq\n# a comment of the script\n']);
  assert.deepEqual(lines.slice(2, 7), ['', '', '', '', '']);
  assert.equal(lines[7], 'RUN echo after');
  assert.deepEqual(t.rewritten, ['RUN heredoc (line 2)']);
  // the instructions, and so the steps BuildKit numbers, are those of the user's file, on the same lines
  assert.deepEqual(instructions(t.text).map((i) => [i.keyword, i.line]), instructions(df).map((i) => [i.keyword, i.line]));
  assert.equal(stepLine(df, '[3/3] RUN echo after'), 8);
  assert.equal(stepLine(t.text, '[3/3] RUN echo after'), 8);
});

test('a failed step\'s Dockerfile line skips heredoc bodies of every shape (<< EOF, <<-"EOF", 2<<EOF, CRLF), and a JSON RUN has none', () => {
  const df = 'FROM busybox\r\nRUN cat << EOF > /x\r\nRUN not-an-instruction\r\nEOF\r\nCOPY <<-"A" 2<<B /d/\r\n\tRUN no\r\n\tA\r\nRUN no\r\nB\r\nRUN ["sh", "-c", "cat <<EOF"]\r\nRUN b\r\n';
  assert.deepEqual(instructions(df).map((i) => [i.keyword, i.line]), [['FROM', 1], ['RUN', 2], ['COPY', 5], ['RUN', 10], ['RUN', 11]]);
  assert.equal(stepLine(df, '[5/5] RUN b'), 11);
});

test('quoted delimiters and <<-: the script is the body (tabs stripped for <<-), never expanded by the frontend', () => {
  assert.deepEqual(runArgs(lineOf("FROM debian:12\nARG V=1\nRUN <<'EOF'\necho $V\nEOF\n", 3)), ['/bin/sh', '-c', 'echo $V\n']);
  assert.deepEqual(runArgs(lineOf('FROM debian:12\nRUN <<"EOF"\necho "$HOME"\nEOF\n', 2)), ['/bin/sh', '-c', 'echo "$HOME"\n']);
  assert.deepEqual(runArgs(lineOf('FROM debian:12\nRUN <<-EOF\n\tif true; then\n\t\techo yes\n\tfi\n\tEOF\n', 2)), ['/bin/sh', '-c', 'if true; then\necho yes\nfi\n']);
});

test('RUN <<EOT bash and other commands fed by heredocs: the whole text goes to the shell, as BuildKit rebuilds it', () => {
  assert.deepEqual(runArgs(lineOf('FROM debian:12\nRUN <<EOT bash\n    set -ex\n    apt-get update\nEOT\n', 2)), ['/bin/sh', '-c', '<<EOT bash\n    set -ex\n    apt-get update\nEOT']);
  assert.deepEqual(runArgs(lineOf('FROM python:3.12\nRUN python3 <<EOF > /hello\nprint("Hello")\nEOF\n', 2)), ['/bin/sh', '-c', 'python3 <<EOF > /hello\nprint("Hello")\nEOF']);
  // several heredocs, <<- and quoted ones: the shell strips and expands, so they reach it as written
  const df = "FROM debian:12\nRUN cat <<-'A' > /a && cat <<B > /b\n\t$HOME a\n\tA\n$HOME b\nB\nRUN echo next\n";
  const t = translate(df)!;
  assert.deepEqual(runArgs(t.text.split('\n')[1]), ['/bin/sh', '-c', "cat <<-'A' > /a && cat <<B > /b\n\t$HOME a\nA\n$HOME b\nB"]);
  assert.equal(t.text.split('\n')[6], 'RUN echo next');
});

test('a script starting with #! becomes a file of the context, mounted at /dev/pipes and run by the shell', () => {
  const t = translate('FROM python:3.12\nRUN --mount=type=cache,target=/root/.cache <<-EOF\n\t#!/usr/bin/env python3\n\tprint("hi")\n\tEOF\n')!;
  assert.equal(t.text.split('\n')[1], 'RUN --mount=type=cache,target=/root/.cache --mount=type=bind,source=.dockwright/heredoc-1,target=/dev/pipes ["/bin/sh","-c","/dev/pipes/EOF"]');
  assert.deepEqual(t.files, [{ path: '.dockwright/heredoc-1/EOF', content: '#!/usr/bin/env python3\nprint("hi")\n', mode: 0o755 }]);
});

test('the shell is the stage\'s: SHELL, the base image\'s, an earlier stage\'s', () => {
  const df = 'FROM mcr.microsoft.com/powershell AS ps\nRUN <<EOF\nWrite-Host hi\nEOF\nFROM debian:12 AS base\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nRUN <<EOF\necho bash\nEOF\nFROM base\nRUN <<EOF\necho inherited\nEOF\nFROM debian:12\nRUN <<EOF\necho default\nEOF\n';
  const lines = translate(df)!.text.split('\n');
  assert.deepEqual(runArgs(lines[1]).slice(0, 2), ['pwsh', '-Command']);
  assert.deepEqual(runArgs(lines[6]).slice(0, 4), ['/bin/bash', '-o', 'pipefail', '-c']);
  assert.deepEqual(runArgs(lines[10]).slice(0, 4), ['/bin/bash', '-o', 'pipefail', '-c']);
  assert.deepEqual(runArgs(lines[14]).slice(0, 2), ['/bin/sh', '-c']);
});

test('flags are kept (RUN --mount, COPY --chmod/--chown), --network=default and --link are left out, continuations and comments joined as the parser joins them', () => {
  const df = [
    'FROM debian:12',
    'RUN --mount=type=cache,target=/var/cache/apt,sharing=locked \\',
    '    # a comment inside the continuation',
    '    --network=default \\',
    '    <<EOF',
    'apt-get update',
    'EOF',
    'COPY --link --from=build /out /app',
    'ADD --link --chown=1000:1000 \\',
    '  app.tar.gz /srv/',
    'RUN --network=default make',
  ].join('\n');
  const t = translate(df)!;
  const lines = t.text.split('\n');
  assert.equal(lines[1], 'RUN --mount=type=cache,target=/var/cache/apt,sharing=locked ["/bin/sh","-c","apt-get update\\n"]');
  assert.deepEqual(lines.slice(2, 7), ['', '', '', '', '']);
  assert.equal(lines[7], 'COPY --from=build /out /app');
  assert.equal(lines[8], 'ADD --chown=1000:1000 app.tar.gz /srv/');
  assert.equal(lines[9], '');
  assert.equal(lines[10], 'RUN make');
  assert.deepEqual(t.linkDropped, [8, 9]);
  assert.deepEqual(t.rewritten, ['RUN heredoc (line 2)', 'RUN --network=default (line 11, what a RUN gets without it)']);
});

test('COPY <<EOF: the content becomes a file of the context, expanded as BuildKit expands an unquoted heredoc', () => {
  const df = [
    'ARG BASE=python:3.12',
    'FROM ${BASE} AS production',
    'ARG PORT=8000',
    'ARG FROM_COMPOSE',
    'ENV HOME=/app/src PATH="/app/.venv/bin:$PATH"',
    'COPY --chmod=755 --chown=app:app <<EOT /entrypoint.sh',
    '#!/usr/bin/env bash',
    'exec granian --port $PORT --python $PYTHON_VERSION ${FROM_COMPOSE:-none} ${UNSET:-fallback} ${PORT:+set}',
    'echo "$(date +%T)\\\\r" \\$HOME $HOME ${PATH%%:*} ${LANG#C.} ${PYTHON_VERSION/./-}',
    'EOT',
    "COPY <<'EOF' <<robots.txt app.conf /srv/",
    'not expanded: $PORT \\$',
    'EOF',
    'User-agent: *',
    'robots.txt',
  ].join('\n');
  const t = translate(df, { args: { FROM_COMPOSE: 'compose' } })!;
  const lines = t.text.split('\n');
  assert.equal(lines[5], 'COPY --chmod=755 --chown=app:app .dockwright/heredoc-1/EOT /entrypoint.sh');
  assert.equal(lines[10], 'COPY .dockwright/heredoc-2/EOF .dockwright/heredoc-3/robots.txt app.conf /srv/');
  assert.deepEqual(t.files, [
    { path: '.dockwright/heredoc-1/EOT', mode: 0o644, content: '#!/usr/bin/env bash\nexec granian --port 8000 --python 3.12.1 compose fallback set\necho "$(date +%T)\\r" $HOME /app/src /app/.venv/bin UTF-8 3-12.1\n' },
    { path: '.dockwright/heredoc-2/EOF', mode: 0o644, content: 'not expanded: $PORT \\$\n' },
    { path: '.dockwright/heredoc-3/robots.txt', mode: 0o644, content: 'User-agent: *\n' },
  ]);
  assert.deepEqual(t.rewritten, ['COPY heredoc (line 6)', 'COPY heredoc (line 11)']);
});

test('ADD <<EOF, <<-"EOF" and a relative destination', () => {
  const t = translate('FROM debian:12\nWORKDIR /app\nADD <<-"EOF" run_wrapper.sh\n\t#!/bin/sh\n\t./run.sh >> log 2>&1\n\tEOF\n')!;
  assert.equal(t.text.split('\n')[2], 'ADD .dockwright/heredoc-1/EOF run_wrapper.sh');
  assert.equal(t.files[0].content, '#!/bin/sh\n./run.sh >> log 2>&1\n');
});

test('the generated folder never clashes with one of the context', () => {
  const taken = new Set(['.dockwright', '.dockwright-2']);
  const t = translate('FROM debian:12\nCOPY <<EOF /x\nx\nEOF\n', { inContext: (n) => taken.has(n) })!;
  assert.equal(t.files[0].path, '.dockwright-3/heredoc-1/EOF');
});

test('parser directives: an absent # syntax= image and # check= are left out, # escape= stays first and still applies', () => {
  const df = '# syntax=docker/dockerfile:1.4\n# check=skip=all\n# escape=`\nFROM debian:12\nRUN --mount=type=cache,target=/c `\n    <<EOF\necho `\nEOF\n';
  const t = translate(df)!;
  const lines = t.text.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['# escape=`', '#', '#']);
  assert.equal(lines[4], 'RUN --mount=type=cache,target=/c ["/bin/sh","-c","echo `\\n"]');
  assert.deepEqual(t.rewritten, ['# syntax=docker/dockerfile:1.4 left out', 'RUN heredoc (line 5)']);
  // a Dockerfile whose only newer part is the # syntax= line loses that line and nothing else
  const only = translate('# syntax=docker/dockerfile:1\nFROM debian:12\nRUN true\n')!;
  assert.equal(only.text, '#\nFROM debian:12\nRUN true\n');
});

test('CRLF line ends and a byte order mark are read as the parser reads them', () => {
  const t = translate('\uFEFFFROM debian:12\r\nRUN <<EOF\r\necho crlf\r\nEOF\r\nRUN echo after\r\n')!;
  const lines = t.text.split('\n');
  assert.deepEqual(runArgs(lines[1]), ['/bin/sh', '-c', 'echo crlf\r\n']);
  assert.equal(lines[4], 'RUN echo after\r');
});

test('what has no exact equivalent on the old frontend fails naming the feature, its line and the engine that has it', () => {
  const fails = (df: string, message: RegExp) => assert.throws(() => translate(df), message);
  fails('FROM debian:12\nCOPY --parents src/*/package.json /app/\n', /COPY --parents \(Dockerfile line 2\) needs Dockerfile syntax 1\.20 \(Docker Engine 29\.1 or later\); the built-in frontend of Docker Engine 20\.10\.24 lacks it/);
  fails('FROM debian:12\nCOPY --exclude=*.md . /app/\n', /COPY --exclude \/ ADD --exclude \(Dockerfile line 2\) needs Dockerfile syntax 1\.19 \(Docker Engine 29\.0/);
  fails('FROM debian:12\nADD --checksum=sha256:24454f83 https://example.com/a.tgz /\n', /ADD --checksum \(Dockerfile line 2\) needs Dockerfile syntax 1\.6 \(Docker Engine 25\.0/);
  fails('FROM debian:12\nADD --keep-git-dir=true https://github.com/a/b.git /src\n', /ADD --keep-git-dir .*\(Docker Engine 24\.0/);
  fails('FROM debian:12\nADD --unpack=true a.tar /x\n', /ADD --unpack .*\(Docker Engine 28\.3/);
  fails('FROM debian:12\nRUN --network=none make\n', /RUN --network \(Dockerfile line 2, --network=none\) needs Dockerfile syntax 1\.3 \(Docker Engine 23\.0 or later\)/);
  fails('FROM debian:12\nRUN --network=host make\n', /--network=host/);
  fails('FROM debian:12\nRUN --security=insecure make\n', /RUN --security .* 1\.20/);
  fails('FROM debian:12\nRUN --device=nvidia.com/gpu=all nvidia-smi\n', /RUN --device .* 1\.14-labs \(Docker Engine none yet\)/);
  fails('FROM debian:12\nHEALTHCHECK --start-interval=1s CMD true\n', /HEALTHCHECK --start-interval \(Dockerfile line 2\) needs Dockerfile syntax 1\.6/);
  fails('FROM debian:12\nONBUILD RUN <<EOF\necho\nEOF\n', /heredocs \(Dockerfile line 2, in an ONBUILD trigger/);
  fails('FROM debian:12\nCOPY --from=build <<EOF /x\nx\nEOF\n', /heredocs \(Dockerfile line 2, beside --from\)/);
  fails('FROM debian:12\nCOPY <<a* /x\nx\na*\n', /heredocs \(Dockerfile line 2, a file named "a\*"\)/);
  fails('FROM debian:12\nRUN <<EOF\necho never ends\n', /Dockerfile line 2: unterminated heredoc EOF/);
  fails(`FROM debian:12\nRUN <<EOF\n${'x'.repeat(70_000)}\nEOF\n`, /Dockerfile line 2: the RUN rewritten for the engine's older frontend would be a line of 700\d\d bytes, more than the 65535 it reads/);
});

test('flags are read with quotes and escapes, as BuildKit reads them', () => {
  assert.deepEqual(extractFlags('--mount=type=cache,target="/a b" --network=default -- --not-a-flag', '\\'), {
    flags: [{ raw: '--mount=type=cache,target="/a b"', name: 'mount', value: 'type=cache,target=/a b' }, { raw: '--network=default', name: 'network', value: 'default' }],
    rest: '--not-a-flag',
  });
  assert.deepEqual(extractFlags('--link src /dst', '\\').flags, [{ raw: '--link', name: 'link', value: 'true' }]);
});

test('variables expand as BuildKit\'s lexer expands them', () => {
  const env = { A: 'x', PATH: '/usr/local/bin:/usr/bin', V: '1.2.3', EMPTY: '' };
  const word = (text: string) => expandWord(text, env, '\\', 'word');
  assert.equal(word('$A${A}"$A"\'$A\''), 'xxx$A');
  assert.equal(word('${EMPTY:-d} ${EMPTY-d} ${UNSET-d} ${A:+y} ${UNSET+y}'.replace(/ /g, '_')), 'd__d_y_');
  assert.equal(word('${PATH#*/} ${PATH##*/} ${PATH%:*} ${PATH%%:*}'.replace(/ /g, '_')), 'usr/local/bin:/usr/bin_bin_/usr/local/bin_/usr/local/bin');
  assert.equal(word('${V/./-}_${V//./-}'), '1-2.3_1-2-3');
  assert.equal(word('\\$A "\\$A" "\\n"'), '$A $A \\n');
  assert.equal(expandWord('"$A" \'$A\' \\$A \\\\ $$ $1 $(cmd)', env, '\\', 'raw'), '"x" \'x\' $A \\   $(cmd)');
  assert.throws(() => word('${UNSET:?must be set}'), /UNSET: must be set/);
  assert.throws(() => word('${A'), /missing '}'/);
});

test('${VAR#pattern}, ${VAR%pattern} and ${VAR/pattern/replacement} (Dockerfile 1.7) are given their values where the frontend expands words', () => {
  const df = [
    'ARG V=1.2.3',
    'FROM debian:12',
    'ARG V',
    `ENV MAJOR=\${V%%.*} REST="\${V#*.}" LIT='\${V%%.*}' ESCAPED=\\\${V%%.*}`,
    'WORKDIR /opt/${V//./-}',
    'RUN --mount=type=cache,id=c-${V%%.*},target=/c echo ${V%%.*}',
    'COPY <<EOF /v',
    '${V%.*}',
    'EOF',
  ].join('\n');
  const t = translate(df, { args: { V: '2.5.1' } })!;
  const lines = t.text.split('\n');
  assert.equal(lines[3], `ENV MAJOR=2 REST="5.1" LIT='\${V%%.*}' ESCAPED=\\\${V%%.*}`);
  assert.equal(lines[4], 'WORKDIR /opt/2-5-1');
  // the command of a RUN is the shell's to expand
  assert.equal(lines[5], 'RUN --mount=type=cache,id=c-2,target=/c echo ${V%%.*}');
  assert.equal(t.files[0].content, '2.5\n');
  assert.deepEqual(patternExpansions(`a\${V#x}"\${V%1}"'\${V}'`, { V: 'x1' }, '\\'), [{ at: 1, length: 6, value: '1' }, { at: 8, length: 6, value: 'x' }]);
  assert.throws(() => translate('FROM debian:12\nARG V="a b"\nENV W=${V%x}\n'), /\$\{VAR#pattern\}.* \(Dockerfile line 3, \$\{V%x\} is "a b", which cannot be written as a plain word\) needs Dockerfile syntax 1\.7 \(Docker Engine 26\.0 or later\)/);
});

test('real-world shapes: an nginx site with \\$uri, a destination the frontend expands, apt behind a cache mount under SHELL bash, an unresolved base', () => {
  const df = [
    'ARG python_version',
    'FROM python:$python_version AS app',
    'SHELL ["/bin/bash", "-e", "-c"]',
    'RUN --mount=type=cache,target=/var/cache/apt <<EOF',
    'rm /etc/apt/apt.conf.d/docker-clean',
    'apt-get update',
    'EOF',
    'ENV CURL_HOME=/etc/curl',
    'COPY --chmod=0644 <<EOF ${CURL_HOME}/.curlrc',
    '--retry 5',
    'EOF',
    'COPY <<EOF /etc/nginx/conf.d/default.conf',
    'server {',
    '    location / {',
    '        try_files \\$uri \\$uri/ /index.php?\\$query_string;',
    '    }',
    '}',
    'EOF',
  ].join('\n');
  const t = translate(df)!;
  const lines = t.text.split('\n');
  assert.deepEqual(runArgs(lines[3]), ['/bin/bash', '-e', '-c', 'rm /etc/apt/apt.conf.d/docker-clean\napt-get update\n']);
  assert.equal(lines[8], 'COPY --chmod=0644 .dockwright/heredoc-1/EOF ${CURL_HOME}/.curlrc');
  assert.equal(t.files[1].content, 'server {\n    location / {\n        try_files $uri $uri/ /index.php?$query_string;\n    }\n}\n');
});
