// Platform rules as allow-lists: settings that escape the sandbox (security_opt, sysctls, capabilities, network and volume drivers and options, logging drivers, namespaces, runtimes, volumes_from) are refused one errors[] element each, admins can allow them per install; every other compose-spec key is honoured or ignored with a warning.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import pg from 'pg';
import type { TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, docker, projectContainers, startStacksServer, uniqueName } from './helpers.ts';

let strict: TestServer;
let relaxed: TestServer;
const names: string[] = [];

before(async () => {
  strict = await startStacksServer();
  // an admin who allows some of it: a rule switched off, allow-lists extended
  relaxed = await startStacksServer({
    stacks: {
      rules: { 'allowed-security-options': false, 'allowed-sysctls': false, 'no-container-name': true, 'stack-owned-resources': true, 'supported-build-options': false },
      allowedCapabilities: ['CHOWN', 'IPC_LOCK'],
      allowedNetworkDrivers: ['bridge', 'macvlan'],
      allowedNetworkOptions: ['parent'],
      allowedLoggingDrivers: ['json-file', 'syslog'],
      allowedRuntimes: ['runc', 'runsc'],
      allowedBindRoots: [homedir()],
    },
  });
});
after(async () => { await cleanupProjects(...names); await strict?.close(); await relaxed?.close(); });

const app = (lines: string, top = '') => `services:\n  app:\n    image: dockwright-test/busybox:1\n${lines}${top}`;

async function errorsOf(s: TestServer, content: string) {
  const res = await s.api('POST', `/api/v1/stacks/${uniqueName('rules')}/validate`, { body: { content } });
  assert.equal(res.status, 200, res.text);
  return (res.body.errors as { rule: string; path: string; message: string }[]).map((e) => [e.rule, e.path]);
}

test('each setting that took effect on the engine is refused, one errors[] element each, naming its rule', async () => {
  const cases: [string, string, [string, string][]][] = [
    ['security_opt: seccomp=unconfined', '    security_opt: ["seccomp=unconfined"]\n', [['allowed-security-options', 'services.app.security_opt[0]']]],
    ['security_opt: apparmor and label', '    security_opt:\n      - no-new-privileges:true\n      - apparmor=unconfined\n      - label=disable\n',
      [['allowed-security-options', 'services.app.security_opt[1]'], ['allowed-security-options', 'services.app.security_opt[2]']]],
    ['sysctls kernel.core_pattern (map)', '    sysctls:\n      kernel.core_pattern: "|/tmp/x"\n      net.ipv4.tcp_syncookies: 1\n', [['allowed-sysctls', 'services.app.sysctls.kernel.core_pattern']]],
    ['sysctls (list)', '    sysctls: ["vm.overcommit_memory=1", "net.core.somaxconn=1024", "kernel.panic=1"]\n', [['allowed-sysctls', 'services.app.sysctls[0]'], ['allowed-sysctls', 'services.app.sysctls[2]']]],
    ['capabilities beyond the defaults', '    cap_add: [CHOWN, SETFCAP, SYS_RESOURCE, cap_linux_immutable, SYS_PACCT, IPC_LOCK, NET_ADMIN, ALL]\n', [
      ['no-dangerous-capabilities', 'services.app.cap_add[2]'], ['no-dangerous-capabilities', 'services.app.cap_add[3]'], ['no-dangerous-capabilities', 'services.app.cap_add[4]'],
      ['no-dangerous-capabilities', 'services.app.cap_add[5]'], ['no-dangerous-capabilities', 'services.app.cap_add[6]'], ['no-dangerous-capabilities', 'services.app.cap_add[7]'],
    ]],
    ['a single capability', '    cap_add: SYS_NICE\n', [['no-dangerous-capabilities', 'services.app.cap_add']]],
    ['macvlan on the host interface', '    networks: [lan]\n', [['allowed-network-drivers', 'networks.lan.driver'], ['allowed-network-options', 'networks.lan.driver_opts.parent']]],
    ['the host bridge docker0 taken over', '', [['allowed-network-options', 'networks.default.driver_opts.com.docker.network.bridge.name']]],
    ['ipvlan', '    networks: [v]\n', [['allowed-network-drivers', 'networks.v.driver']]],
    ['syslog to an address of the host\'s network', '    logging: { driver: syslog, options: { syslog-address: "udp://127.0.0.1:514" } }\n', [['allowed-logging-drivers', 'services.app.logging.driver']]],
    ['awslogs with the host\'s credentials', '    logging: { driver: awslogs }\n', [['allowed-logging-drivers', 'services.app.logging.driver']]],
    ['ipc of the host', '    ipc: host\n', [['no-host-pid', 'services.app.ipc']]],
    ['ipc of a sibling service', '    ipc: "service:db"\n', [['no-host-pid', 'services.app.ipc']]],
    ['pid of a container, written oddly', '    pid: "container:x"\n', [['no-host-pid', 'services.app.pid']]],
    ['the network of another container', '    network_mode: "container:elsewhere"\n', [['no-host-network', 'services.app.network_mode']]],
    ['a volume plugin', '    volumes: ["data:/data"]\n', [['allowed-volume-drivers', 'volumes.data.driver']]],
  ];
  const tops: Record<string, string> = {
    'macvlan on the host interface': 'networks:\n  lan:\n    driver: macvlan\n    driver_opts: { parent: eth0 }\n',
    'the host bridge docker0 taken over': 'networks:\n  default:\n    driver: bridge\n    driver_opts: { com.docker.network.bridge.name: docker0, com.docker.network.driver.mtu: 1400 }\n',
    ipvlan: 'networks:\n  v:\n    driver: ipvlan\n',
    'a volume plugin': 'volumes:\n  data:\n    driver: sshfs\n',
  };
  for (const [what, lines, expected] of cases) {
    assert.deepEqual(await errorsOf(strict, app(lines, tops[what] ?? '')), expected, what);
  }
});

async function judged(s: TestServer, content: string) {
  const res = await s.api('POST', `/api/v1/stacks/${uniqueName('rules')}/validate`, { body: { content } });
  assert.equal(res.status, 200, res.text);
  return { errors: (res.body.errors as { rule: string; path: string }[]).map((e) => [e.rule, e.path]), warnings: (res.body.warnings as { path: string }[]).map((w) => w.path) };
}

test('every compose-spec service key beyond the core is refused by its named rule, honoured, or ignored with a warning', async () => {
  // [the service lines, the refusals (rule, path), the warnings' paths]; honoured keys pass with neither
  const cases: [string, [string, string][], string[]][] = [
    // host access: the namespaces, devices, the Docker socket, runtimes, other stacks' volumes
    ['uts: host', [['no-host-pid', 'services.app.uts']], []],
    ['cgroup: host', [['no-host-pid', 'services.app.cgroup']], []],
    ['userns_mode: host', [['no-host-pid', 'services.app.userns_mode']], []],
    ['device_cgroup_rules: ["c 1:3 mr"]', [['no-devices', 'services.app.device_cgroup_rules']], []],
    ['use_api_socket: true', [['no-docker-socket', 'services.app.use_api_socket']], []],
    ['runtime: runsc', [['allowed-runtimes', 'services.app.runtime']], []],
    ['volumes_from: ["other-stack-db-1", "container:elsewhere:ro"]', [['volumes-from-own-stack', 'services.app.volumes_from[0]'], ['volumes-from-own-stack', 'services.app.volumes_from[1]']], []],
    ['post_start: [{ command: [id], privileged: true }]', [['no-privileged', 'services.app.post_start[0].privileged']], []],
    // honoured
    ['runtime: runc', [], []],
    ['cgroup: private', [], []],
    ['container_name: kept-name-' + Date.now(), [], []],
    ['gpus: all', [], []],
    ['gpus: [{ driver: nvidia, count: 1, capabilities: [gpu, utility] }]', [], []],
    ['cpuset: "0"\n    cpu_quota: 50000\n    cpu_period: 100ms\n    cpu_rt_runtime: 0\n    cpu_rt_period: 1000000', [], []],
    ['oom_kill_disable: false\n    oom_score_adj: 300\n    mem_swappiness: 10\n    mem_limit: 64m\n    memswap_limit: 128m', [], []],
    ['oom_score_adj: 0', [], []],
    ['mac_address: "02:42:ac:11:00:42"\n    dns_opt: [ndots:2]\n    storage_opt: { size: 1G }', [], []],
    // the host's resource controls: a cgroup of the file's choosing, shelter from the out-of-memory killer
    ['cgroup_parent: dockwright-test', [['no-cgroup-parent', 'services.app.cgroup_parent']], []],
    ['cgroup_parent: /system.slice', [['no-cgroup-parent', 'services.app.cgroup_parent']], []],
    ['oom_score_adj: -1000', [['no-oom-protection', 'services.app.oom_score_adj']], []],
    ['oom_score_adj: -1', [['no-oom-protection', 'services.app.oom_score_adj']], []],
    ['oom_kill_disable: true\n    mem_limit: 64m', [['no-oom-protection', 'services.app.oom_kill_disable']], []],
    ['blkio_config: { weight: 300, weight_device: [{ path: /dev/sda, weight: 400 }], device_read_bps: [{ path: /dev/sda, rate: 1mb }], device_write_iops: [{ path: /dev/sda, rate: 100 }] }', [], []],
    ['pre_stop: [{ command: echo bye, user: root, working_dir: /, environment: { A: b } }]', [], []],
    ['volumes_from: ["db:ro", "service:db", "container:STACK-db-1"]', [], []],
    ['scale: 2', [], []],
    ['pull_policy: every_12h', [], []],
    ['pull_policy: refresh\n    pull_refresh_after: 1h', [], ['services.app.pull_refresh_after']],
    // accepted and ignored, each with a warning that says why
    ...['develop: { watch: [{ action: sync, path: ./src, target: /src }] }', 'attach: false', 'annotations: { com.example.a: b }', 'credential_spec: { file: my.json }',
      'isolation: process', 'external_links: ["redis-1:redis"]', 'links: [db]', 'platform: linux/amd64', 'cpu_count: 2', 'cpu_percent: 50',
      'pull_refresh_after: 1h', 'models: [llm]'].map((line): [string, [string, string][], string[]] => [line, [], [`services.app.${line.split(':')[0]}`]]),
  ];
  for (const [lines, errors, warnings] of cases) {
    const name = uniqueName('keys');
    const content = `services:\n  db:\n    image: dockwright-test/busybox:1\n    volumes: ["/data"]\n  app:\n    image: dockwright-test/busybox:1\n    ${lines.replace('STACK', name)}\n`;
    const res = await strict.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.errors.map((e: any) => [e.rule, e.path]), errors, lines);
    assert.deepEqual(res.body.warnings.map((w: any) => w.path), warnings, lines);
    for (const w of res.body.warnings) assert.ok(w.message.length > 40, `a warning says why: ${w.message}`);
  }
  // a provider runs the service instead of a container: it is not deployed, and a warning says so
  const provided = await judged(strict, 'services:\n  app:\n    image: dockwright-test/busybox:1\n  ai:\n    provider: { type: model, options: { model: x } }\n');
  assert.deepEqual(provided, { errors: [], warnings: ['services.ai.provider'] });
  const models = await judged(strict, 'services:\n  app:\n    image: dockwright-test/busybox:1\nmodels:\n  llm: { model: ai/smollm2 }\n');
  assert.deepEqual(models, { errors: [], warnings: ['models'] });
});

test('malformed values of those keys are compose-valid errors at their paths', async () => {
  const cases: [string, string][] = [
    ['uts: private', 'services.app.uts'],
    ['cgroup: shared', 'services.app.cgroup'],
    ['oom_score_adj: 5000', 'services.app.oom_score_adj'],
    ['mem_swappiness: 101', 'services.app.mem_swappiness'],
    ['memswap_limit: 1g', 'services.app.memswap_limit'],
    ['cpu_period: soon', 'services.app.cpu_period'],
    ['blkio_config: { weight: 5 }', 'services.app.blkio_config.weight'],
    ['blkio_config: { device_read_bps: [{ path: /etc/passwd, rate: 1 }] }', 'services.app.blkio_config.device_read_bps[0]'],
    ['volumes_from: ["service:ghost"]', 'services.app.volumes_from'],
    ['volumes_from: ["app"]', 'services.app.volumes_from'],
    ['post_start: [{ user: root }]', 'services.app.post_start[0].command'],
    ['gpus: [{ count: 1, device_ids: ["0"] }]', 'services.app.gpus[0]'],
    ['deploy: { resources: { reservations: { devices: [{ driver: nvidia, count: 1 }] } } }', 'services.app.deploy.resources.reservations.devices[0].capabilities'],
    ['network_mode: "service:db"', 'services.app.network_mode'],
    ['label_file: ./labels', 'services.app.label_file'],
  ];
  for (const [line, path] of cases) {
    assert.deepEqual((await judged(strict, app(`    ${line}\n`))).errors, [['compose-valid', path]], line);
  }
});

test('container_name: allowed by default; no-container-name is there for admins who switch it on', async () => {
  const named = app(`    container_name: ${uniqueName('free')}\n`);
  assert.deepEqual(await errorsOf(strict, named), []);
  assert.deepEqual(await errorsOf(relaxed, named), [['no-container-name', 'services.app.container_name']]);
});

test('custom IPAM of the stack\'s own networks passes; another IPAM driver is refused by allowed-ipam-drivers', async () => {
  const net = (ipam: string) => app('    networks: [back]\n', `networks:\n  back:\n    enable_ipv6: false\n    driver_opts: { com.docker.network.driver.mtu: 1400 }\n    ipam:\n${ipam}`);
  assert.deepEqual(await errorsOf(strict, net('      config:\n        - subnet: 172.29.8.0/24\n          ip_range: 172.29.8.128/25\n          gateway: 172.29.8.1\n          aux_addresses: { router: 172.29.8.2 }\n')), []);
  assert.deepEqual(await errorsOf(strict, net('      driver: infoblox\n')), [['allowed-ipam-drivers', 'networks.back.ipam.driver']]);
  assert.deepEqual(await errorsOf(strict, net('      config: [{ subnet: 172.29.9.0/24, vlan: 3 }]\n')), [['compose-valid', 'networks.back.ipam.config[0].vlan']]);
});

test('a ~/ bind mount is a host path like any other: allowed-bind-mounts judges it', async () => {
  assert.deepEqual(await errorsOf(strict, app('    volumes: ["~/data:/data"]\n')), [['allowed-bind-mounts', 'services.app.volumes[0]']]);
  assert.deepEqual(await errorsOf(relaxed, app('    volumes: ["~/data:/data"]\n')), []);
});

test('what is known to be safe passes: Docker\'s own capabilities, no-new-privileges, safe sysctls, internal bridges, json-file logs', async () => {
  assert.deepEqual(await errorsOf(strict, app(`    cap_drop: [ALL]
    cap_add: [CHOWN, SETUID, SETGID, NET_BIND_SERVICE, CAP_KILL, setfcap]
    security_opt: ["no-new-privileges:true"]
    sysctls: { net.ipv4.ip_unprivileged_port_start: 0, net.ipv4.tcp_keepalive_time: 600 }
    ipc: shareable
    logging: { driver: json-file, options: { max-size: 1m } }
    networks: [back, front]
    volumes: ["data:/data"]
`, `networks:
  back:
    internal: true
  front:
    driver: bridge
    driver_opts: { com.docker.network.driver.mtu: 1400, com.docker.network.bridge.enable_icc: "false" }
volumes:
  data:
    driver: local
`)), []);
});

test('an admin allows them per install: a rule switched off, or the allow-list extended', async () => {
  assert.deepEqual(await errorsOf(relaxed, app('    security_opt: ["seccomp=unconfined"]\n    sysctls: { kernel.core_pattern: x }\n')), []);
  assert.deepEqual(await errorsOf(relaxed, app('    cap_add: [IPC_LOCK, CHOWN, SETUID]\n')), [['no-dangerous-capabilities', 'services.app.cap_add[2]']], 'the list replaces the defaults');
  assert.deepEqual(await errorsOf(relaxed, app('    networks: [lan]\n    logging: { driver: syslog }\n', 'networks:\n  lan:\n    driver: macvlan\n    driver_opts: { parent: eth0 }\n')), []);
  assert.deepEqual(await errorsOf(relaxed, app('    networks: [v]\n', 'networks:\n  v:\n    driver: ipvlan\n')), [['allowed-network-drivers', 'networks.v.driver']]);
  assert.deepEqual(await errorsOf(relaxed, app('    runtime: runsc\n')), [], 'allowedRuntimes extends the runtimes');
});

test('a refused setting is never saved: PUT compose answers 422 with the same errors', async () => {
  const name = uniqueName('rules');
  names.push(name);
  const res = await strict.api('PUT', `/api/v1/stacks/${name}/compose`, {
    body: { content: app('    security_opt: ["seccomp=unconfined"]\n    cap_add: [SYS_RESOURCE]\n    sysctls: ["kernel.core_pattern=|/x"]\n'), revision: 0 },
  });
  assert.equal(res.status, 422);
  assert.deepEqual(res.body.errors.map((e: any) => e.rule).sort(), ['allowed-security-options', 'allowed-sysctls', 'no-dangerous-capabilities']);
  assert.equal((await strict.api('GET', `/api/v1/stacks/${name}`)).status, 404);
});

test('an external or named volume or network passes unless another stack holds it; stack-owned-resources, switched on, refuses them all', async () => {
  const owner = uniqueName('own');
  names.push(owner);
  await createStack(strict, owner, busybox({ app: 'sleep 3600' }).replace('    command:', '    volumes: ["data:/data"]\n    command:') + 'volumes:\n  data: {}\n');
  await act(strict, 'deploy', owner);
  // a network made outside Dockwright (a shared proxy network, say) may be joined
  const shared = uniqueName('shared');
  await docker.createNetwork({ Name: shared });
  try {
    const file = app('    volumes: ["data:/data"]\n    networks: [proxy, own]\n',
      `volumes:\n  data:\n    external: true\n    name: ${owner}_data\nnetworks:\n  proxy:\n    external: true\n    name: ${shared}\n  own:\n    name: ${uniqueName('named')}\n`);
    const res = await strict.api('POST', `/api/v1/stacks/${uniqueName('rules')}/validate`, { body: { content: file } });
    assert.deepEqual(res.body.errors, [{ rule: 'no-external-resources', path: 'volumes.data', message: `the volume ${owner}_data is held by another stack` }]);
    assert.deepEqual((await errorsOf(strict, file.replace(`${owner}_data`, uniqueName('free')))), [], 'a name nobody holds (yet) passes');
    assert.deepEqual((await errorsOf(relaxed, file)).sort(), [['no-external-resources', 'volumes.data'], ['stack-owned-resources', 'networks.own'], ['stack-owned-resources', 'networks.proxy'], ['stack-owned-resources', 'volumes.data']]);
  } finally {
    await docker.getNetwork(shared).remove();
  }
});

test('supported-build-options switched off: each option a build through the Engine API cannot carry is a warning naming it and why, not dropped silently', async () => {
  const file = app('    build:\n      context: .\n      args: { A: "1" }\n      secrets: [token]\n      ssh: [default]\n      tags: ["app:extra"]\n', 'secrets:\n  token: { environment: TOKEN }\n');
  const on = await strict.api('POST', `/api/v1/stacks/${uniqueName('rules')}/validate`, { body: { content: file } });
  const refused = (on.body.errors as { rule: string; path: string }[]).filter((e) => e.rule === 'supported-build-options').map((e) => e.path);
  assert.deepEqual(refused, ['services.app.build.secrets', 'services.app.build.ssh', 'services.app.build.tags']);
  const off = await relaxed.api('POST', `/api/v1/stacks/${uniqueName('rules')}/validate`, { body: { content: file } });
  assert.equal(off.status, 200, off.text);
  assert.ok(!(off.body.errors as { rule: string }[]).some((e) => e.rule === 'supported-build-options'));
  const warned = (off.body.warnings as { path: string; message: string }[]).filter((w) => w.path.startsWith('services.app.build.'));
  assert.deepEqual(warned.map((w) => w.path), ['services.app.build.secrets', 'services.app.build.ssh', 'services.app.build.tags']);
  for (const w of warned) assert.match(w.message, /^is ignored \(the rule supported-build-options is switched off\): .+(BuildKit session|buildx)/);
});

test('the edge\'s network, by any name, is refused by no-edge-network; Docker\'s own networks by no-docker-networks', async () => {
  const edge = await docker.getNetwork('dockwright-edge').inspect().catch(async () => {
    await docker.createNetwork({ Name: 'dockwright-edge', Driver: 'bridge', Attachable: true, CheckDuplicate: true, Labels: { 'dockwright.edge': 'true' } }).catch(() => undefined);
    return docker.getNetwork('dockwright-edge').inspect();
  });
  const host = await docker.getNetwork('host').inspect();
  const joined = (top: string, key = 'x') => app(`    networks: [${key}]\n`, `networks:\n${top}`);
  const cases: [string, string, [string, string][]][] = [
    ['external, by name', joined('  x:\n    external: true\n    name: dockwright-edge\n'), [['no-edge-network', 'networks.x']]],
    ['the top-level key', joined('  dockwright-edge:\n    external: true\n', 'dockwright-edge'), [['no-edge-network', 'networks.dockwright-edge']]],
    ['the old external: { name }', joined('  x:\n    external: { name: dockwright-edge }\n'), [['no-edge-network', 'networks.x']]],
    ['named, not external', joined('  x:\n    name: dockwright-edge\n'), [['no-edge-network', 'networks.x']]],
    ['by its id', joined(`  x:\n    external: true\n    name: "${edge.Id}"\n`), [['no-edge-network', 'networks.x']]],
    ['by a prefix of its id', joined(`  x:\n    external: true\n    name: "${edge.Id.slice(0, 10)}"\n`), [['no-edge-network', 'networks.x']]],
    ['its bridge taken over by driver_opts', joined(`  x:\n    driver_opts: { com.docker.network.bridge.name: "br-${edge.Id.slice(0, 12)}" }\n`), [['allowed-network-options', 'networks.x.driver_opts.com.docker.network.bridge.name']]],
    ['a build on it', app('    build: { context: "https://127.0.0.1:9/app.git", network: dockwright-edge }\n'), [['no-edge-network', 'services.app.build.network']]],
    ...['host', 'bridge', 'docker_gwbridge', 'ingress', 'none'].map((n): [string, string, [string, string][]] =>
      [`Docker's ${n}, external`, joined(`  x:\n    external: true\n    name: ${n}\n`), [['no-docker-networks', 'networks.x']]]),
    ['host as the top-level key', joined('  host:\n    external: true\n', 'host'), [['no-docker-networks', 'networks.host']]],
    ['host, named and not external', joined('  x:\n    name: host\n'), [['no-docker-networks', 'networks.x']]],
    ['host by a prefix of its id', joined(`  x:\n    external: true\n    name: "${host.Id.slice(0, 10)}"\n`), [['no-docker-networks', 'networks.x']]],
    ['the default bridge as network_mode', app('    network_mode: bridge\n'), [['no-docker-networks', 'services.app.network_mode']]],
  ];
  for (const [what, content, expected] of cases) assert.deepEqual(await errorsOf(strict, content), expected, what);
  // what the rules are measured against: a network of the stack's own, and one made outside Dockwright, pass
  assert.deepEqual(await errorsOf(strict, joined('  x:\n    internal: true\n')), []);
  const shared = uniqueName('shared');
  await docker.createNetwork({ Name: shared });
  try {
    assert.deepEqual(await errorsOf(strict, joined(`  x:\n    external: true\n    name: ${shared}\n`)), []);
  } finally {
    await docker.getNetwork(shared).remove();
  }
});

test('with no-edge-network switched off, a deploy still never joins the edge\'s network: it fails before any container is made', async () => {
  const name = uniqueName('edgejoin');
  names.push(name);
  const edge = await docker.getNetwork('dockwright-edge').inspect();
  const off = await startStacksServer({ stacks: { rules: { 'no-edge-network': false } } });
  try {
    await deployRefused(off, name, edge.Id.slice(0, 12));
  } finally {
    await off.close();
  }
});

async function deployRefused(off: TestServer, name: string, edgeId: string) {
  await createStack(off, name, busybox({ app: 'sleep 3600' }).replace('    command:', '    networks: [x]\n    command:') + `networks:\n  x:\n    external: true\n    name: "${edgeId}"\n`);
  const job = await act(off, 'deploy', name, 'failed');
  assert.match(job.error!, new RegExp(`the network "${edgeId}" is the edge's \\(dockwright-edge\\): a stack never joins it`));
  assert.deepEqual(await projectContainers(name), []);
}

test('a volume or network named into another stack\'s namespace is refused by own-resource-names, at the save and at the deploy', async () => {
  const victim = uniqueName('victim');
  const squatter = uniqueName('squat');
  names.push(victim, squatter);
  const squatting = (top: string) => app('    volumes: ["v:/data"]\n', `volumes:\n${top}`);
  // the victim need not exist yet: the names before a "_" are a stack's whether or not it is there
  assert.deepEqual(await errorsOf(strict, squatting(`  v:\n    name: ${victim}_data\n`)), [['own-resource-names', 'volumes.v']]);
  assert.deepEqual(await errorsOf(strict, app('    networks: [n]\n', `networks:\n  n:\n    name: ${victim}_default\n`)), [['own-resource-names', 'networks.n']]);
  const own = await strict.api('POST', `/api/v1/stacks/${squatter}/validate`, { body: { content: squatting(`  v:\n    name: ${squatter}_data-2\n`) } });
  assert.deepEqual(own.body.errors, [], 'its own namespace is the stack\'s to name in');
  for (const free of ['shared-data', 'MyApp_data']) assert.deepEqual(await errorsOf(strict, squatting(`  v:\n    name: ${free}\n`)), [], free);
  // an external one is never created, so it takes no name: it passes unless another stack or installation holds it
  assert.deepEqual(await errorsOf(strict, squatting(`  v:\n    external: true\n    name: ${victim}_data\n`)), []);

  const saved = await strict.api('PUT', `/api/v1/stacks/${squatter}/compose`, { body: { content: squatting(`  v:\n    name: ${victim}_data\n`), revision: 0 } });
  assert.equal(saved.status, 422);
  assert.deepEqual(saved.body.errors, [{ rule: 'own-resource-names', path: 'volumes.v', message: `the volume name ${victim}_data is in the namespace of the stack ${victim} (the names Dockwright gives a stack's own volumes): name it ${squatter}_… or without "_"` }]);
  assert.equal((await strict.api('GET', `/api/v1/stacks/${squatter}`)).status, 404, 'nothing was saved');

  // a file saved before the rule (written here straight to the database) is judged again by its deploy
  await createStack(strict, squatter, squatting('  v: {}\n'));
  const db = new pg.Client({ connectionString: strict.databaseUrl });
  await db.connect();
  try {
    await db.query('UPDATE stacks SET compose = $1 WHERE name = $2', [squatting(`  v:\n    name: ${victim}_data\n`), squatter]);
  } finally {
    await db.end();
  }
  const job = await act(strict, 'deploy', squatter, 'failed');
  assert.match(job.error!, new RegExp(`volumes\\.v: the volume name ${victim}_data is in the namespace of the stack ${victim}.*\\(own-resource-names\\)`));
  assert.deepEqual((await docker.listVolumes({ filters: { name: [`${victim}_data`] } })).Volumes ?? [], [], 'the volume was never created');

  // the victim deploys with its own volume
  await createStack(strict, victim, busybox({ app: 'sleep 3600' }).replace('    command:', '    volumes: ["data:/data"]\n    command:') + 'volumes:\n  data: {}\n');
  await act(strict, 'deploy', victim);
});
