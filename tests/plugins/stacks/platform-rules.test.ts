// Platform rules as allow-lists: settings that escape the sandbox (security_opt, sysctls, capabilities, network and volume drivers and options, logging drivers, namespaces) are refused one errors[] element each, and admins can allow them per install.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, startStacksServer, uniqueName } from './helpers.ts';

let strict: TestServer;
let relaxed: TestServer;
const names: string[] = [];

before(async () => {
  strict = await startStacksServer();
  // an admin who allows some of it: a rule switched off, allow-lists extended
  relaxed = await startStacksServer({
    stacks: {
      rules: { 'allowed-security-options': false, 'allowed-sysctls': false },
      allowedCapabilities: ['CHOWN', 'IPC_LOCK'],
      allowedNetworkDrivers: ['bridge', 'macvlan'],
      allowedNetworkOptions: ['parent'],
      allowedLoggingDrivers: ['json-file', 'syslog'],
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
    ['sysctls (list)', '    sysctls: ["net.ipv4.ip_forward=1", "net.core.somaxconn=1024"]\n', [['allowed-sysctls', 'services.app.sysctls[0]'], ['allowed-sysctls', 'services.app.sysctls[1]']]],
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

test('settings the engine would apply and the loader never passes on are refused as unsupported', async () => {
  const keys = ['userns_mode: host', 'uts: host', 'cgroup: host', 'cgroup_parent: /', 'volumes_from: ["other-stack-db-1"]', 'device_cgroup_rules: ["c 1:3 mr"]',
    'runtime: runc', 'isolation: process', 'oom_kill_disable: true', 'storage_opt: { size: 1G }', 'gpus: all', 'external_links: ["db"]'];
  for (const line of keys) {
    const key = line.split(':')[0];
    assert.deepEqual(await errorsOf(strict, app(`    ${line}\n`)), [['compose-valid', `services.app.${key}`]], line);
  }
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
