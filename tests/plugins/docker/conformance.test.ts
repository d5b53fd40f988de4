// Conformance with compose-spec/compose-go's own loader tests: each fixture of tests/fixtures/compose-go (Apache-2.0, its NOTICE beside them) loaded through the driver's load route, the model checked against what the Go test expects, or against Dockwright's named refusal or warning where it departs on purpose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import type { ComposeIssue, LoadedCompose, NormalizedService } from '../../../plugins/docker/types.ts';
import { uncarriedBuildOption } from '../../../plugins/docker/compose/build-options.ts';
import { startDockerServer } from './helpers.ts';

const root = join(import.meta.dirname, '..', '..', 'fixtures', 'compose-go');
let s: TestServer;
let tree: string;

before(async () => {
  s = await startDockerServer({ containers: false });
  // the fixtures' tree; compose-go never reads a Dockerfile, Dockwright checks that a build context holds one: the copy adds them
  tree = mkdtempSync(join(tmpdir(), 'dw-compose-go-'));
  cpSync(root, tree, { recursive: true });
  for (const dir of ['loader/testdata/extends', 'loader/testdata/combined/dir', 'loader/testdata/include']) writeFileSync(join(tree, dir, 'Dockerfile'), 'FROM busybox\n');
});
after(async () => {
  await s?.close();
  if (tree) rmSync(tree, { recursive: true, force: true });
});

type Check = [what: string, got: unknown, want: unknown];
interface Fixture {
  /** the fixture, relative to tests/fixtures/compose-go */
  file: string;
  /** the Go test whose expectations these are */
  from: string;
  /** the source tree (the workdir), relative to the fixtures; default: the fixture's folder */
  workdir?: string;
  /** the environment the Go test loads with (Dockwright: the stack's variables) */
  variables?: Record<string, string>;
  expect(l: LoadedCompose): Check[];
}

const svc = (l: LoadedCompose, name: string): NormalizedService => {
  const found = l.services.find((x) => x.name === name);
  assert.ok(found, `the service ${name} is in the model; errors: ${JSON.stringify(l.errors)}`);
  return found;
};
const issue = (list: ComposeIssue[], path: string, message?: RegExp) => list.some((e) => e.path === path && (!message || message.test(e.message)));
const noErrors = (l: LoadedCompose): Check => ['no errors', l.errors.map((e) => `${e.path}: ${e.message}`), []];
const only = (l: LoadedCompose, ...paths: string[]): Check => ['the warnings', l.warnings.map((w) => w.path).sort(), paths.sort()];
/** Dockwright refuses on purpose: the error at this path, saying why */
const refused = (l: LoadedCompose, path: string, message: RegExp): Check => [`refused at ${path}: ${message}`, issue(l.errors, path, message), true];
/** a build option a build through the Engine API cannot carry: no loader error; the supported-build-options rule refuses it, saying why */
const buildRule = (l: LoadedCompose, path: string, message: RegExp): Check[] => [
  [`no loader error at ${path}`, l.errors.filter((e) => e.path === path).map((e) => e.message), []],
  [`supported-build-options refuses ${path}: ${message}`, message.test(uncarriedBuildOption(path.slice(path.lastIndexOf('.') + 1)) ?? ''), true],
];
/** Dockwright accepts and ignores on purpose: the warning at this path, saying why */
const warned = (l: LoadedCompose, path: string, message?: RegExp): Check => [`warning at ${path}`, issue(l.warnings, path, message), true];
/** compose's name: is accepted with a warning, the stack name wins (SPEC, wave 3) */
const named = (l: LoadedCompose, name: string): Check => warned(l, 'name', new RegExp(`names its project "${name}"; the stack name "test" is used`));
const t = (name: string, file: string, expect: Fixture['expect'], variables?: Record<string, string>): Fixture => ({ file: `loader/tests/${name}.yaml`, from: `loader/tests/${file} ${name}`, expect, variables });
const MB = 1024 ** 2;
const SEC = 1e9;

const fixtures: Fixture[] = [
  // ---- one key at a time (loader/tests/*_test.go) ----
  t('TestAnnotations', 'annotations_test.go', (l) => [only(l, 'services.list.annotations', 'services.map.annotations'), warned(l, 'services.map.annotations', /no container annotations/)]),
  t('TestAttach', 'attach_test.go', (l) => [only(l, 'services.attached.attach', 'services.detached.attach'), ['default', svc(l, 'default').image, 'alpine']]),
  t('TestBlkioConfig', 'blkio_config_test.go', (l) => {
    const h = svc(l, 'foo').host;
    return [noErrors(l), ['weight', h.BlkioWeight, 300], ['weight_device', h.BlkioWeightDevice, [{ Path: '/dev/sda', Weight: 400 }]],
      ['device_read_bps', h.BlkioDeviceReadBps, [{ Path: '/dev/sda', Rate: 1024 * 1024 }]], ['device_write_bps', h.BlkioDeviceWriteBps, [{ Path: '/dev/sda', Rate: 1024 }]],
      ['device_read_iops', h.BlkioDeviceReadIOps, [{ Path: '/dev/sda', Rate: 100 }]], ['device_write_iops', h.BlkioDeviceWriteIOps, [{ Path: '/dev/sda', Rate: 200 }]]];
  }),
  t('TestBuildNoCache', 'build_test.go', (l) => [noErrors(l), ['no_cache', svc(l, 'foo').build?.noCache, true]]),
  t('TestBuildPull', 'build_test.go', (l) => [noErrors(l), ['pull', svc(l, 'foo').build?.pull, true]]),
  t('TestBuildShmSize', 'build_test.go', (l) => [noErrors(l), ['shm_size', svc(l, 'foo').build?.shmSize, 128 * MB]]),
  t('TestDockerfileInline', 'build_test.go', (l) => [noErrors(l), ['dockerfile_inline', svc(l, 'bar').build?.dockerfileInline, 'FROM alpine\nRUN echo "hello" > /world.txt\n']]),
  t('TestBuildSSH', 'build_test.go', (l) => buildRule(l, 'services.foo.build.ssh', /needs a BuildKit session/)),
  t('TestBuildSecrets', 'build_test.go', (l) => buildRule(l, 'services.foo.build.secrets', /build secrets need a BuildKit session/)),
  t('TestBuildCacheTo', 'build_test.go', (l) => buildRule(l, 'services.foo.build.cache_to', /not supported/)),
  t('TestBuildIsolation', 'build_test.go', (l) => buildRule(l, 'services.foo.build.isolation', /not supported/)),
  t('TestBuildPrivileged', 'build_test.go', (l) => buildRule(l, 'services.foo.build.privileged', /not supported/)),
  t('TestBuildEntitlements', 'build_test.go', (l) => buildRule(l, 'services.foo.build.entitlements', /not supported/)),
  t('TestBuildAttestations', 'build_test.go', (l) => [...buildRule(l, 'services.foo.build.provenance', /not supported/), ...buildRule(l, 'services.foo.build.sbom', /not supported/)]),
  t('TestBuildNoCacheFilter', 'build_test.go', (l) => buildRule(l, 'services.list.build.no_cache_filter', /not supported/)),
  t('TestCapAddDrop', 'cap_add_drop_test.go', (l) => [noErrors(l), ['cap_add', svc(l, 'foo').capAdd, ['ALL']], ['cap_drop', svc(l, 'foo').capDrop, ['NET_ADMIN', 'SYS_ADMIN']]]),
  t('TestCgroupParent', 'cgroup_parent_test.go', (l) => [noErrors(l), ['cgroup_parent', svc(l, 'foo').host.CgroupParent, 'm-executor-abcd']]),
  t('TestCgroup', 'cgroup_test.go', (l) => [noErrors(l), ['cgroup', svc(l, 'foo').host.CgroupnsMode, 'private']]),
  t('TestCommandString', 'command_test.go', (l) => [noErrors(l), ['command', svc(l, 'foo').command, ['bundle', 'exec', 'thin', '-p', '3000']]]),
  t('TestCommandList', 'command_test.go', (l) => [noErrors(l), ['command', svc(l, 'foo').command, ['bundle', 'exec', 'thin', '-p', '3000']]]),
  t('TestServiceConfigs', 'configs_test.go', (l) => [
    // compose-go does not read ./config_data; Dockwright reads a config's file from the source tree when it loads
    refused(l, 'configs.config1.file', /is not in the source tree/),
    ['configs[1]', svc(l, 'foo').configs.find((c) => c.source === 'config2'), { source: 'config2', target: '/my_config', uid: '103', gid: '103', mode: 0o440 }],
  ]),
  t('TestContainerName', 'container_name_test.go', (l) => [noErrors(l), ['container_name', svc(l, 'foo').containerName, 'my-web-container']]),
  t('TestCPUFields', 'cpu_test.go', (l) => {
    const f = svc(l, 'foo');
    return [noErrors(l), only(l, 'services.foo.cpu_count', 'services.foo.cpu_percent'), warned(l, 'services.foo.cpu_count', /Windows setting/),
      ['cpu_shares', f.resources.cpuShares, 1024], ['cpu_quota', f.host.CpuQuota, 50000], ['cpu_period', f.host.CpuPeriod, 100000],
      ['cpu_rt_period', f.host.CpuRealtimePeriod, 1000000], ['cpu_rt_runtime', f.host.CpuRealtimeRuntime, 950000], ['cpus', f.resources.nanoCpus, 1.5 * SEC], ['cpuset', f.host.CpusetCpus, '0,1']];
  }),
  t('TestMemoryFields', 'cpu_test.go', (l) => {
    const f = svc(l, 'foo');
    return [noErrors(l), ['mem_limit', f.resources.memory, 512 * MB], ['mem_reservation', f.resources.memoryReservation, 256 * MB], ['mem_swappiness', f.host.MemorySwappiness, 60],
      ['memswap_limit', f.host.MemorySwap, 1024 * MB], ['shm_size', f.resources.shmSize, 64 * MB]];
  }),
  t('TestCredentialSpec', 'credential_spec_test.go', (l) => [only(l, 'services.foo.credential_spec'), warned(l, 'services.foo.credential_spec', /Windows containers/)]),
  t('TestDependsOnList', 'depends_on_test.go', (l) => [noErrors(l), ['depends_on', svc(l, 'web').dependsOn, [
    { service: 'db', condition: 'service_started', required: true }, { service: 'redis', condition: 'service_started', required: true }]]]),
  t('TestDependsOnObject', 'depends_on_test.go', (l) => [noErrors(l), ['depends_on', svc(l, 'web').dependsOn, [
    { service: 'db', condition: 'service_healthy', required: true }, { service: 'redis', condition: 'service_started', required: true }]]]),
  t('TestDeployResourcesPids', 'deploy_pids_test.go', (l) => [noErrors(l), ['deploy.resources.limits.pids', svc(l, 'foo').resources.pidsLimit, 100]]),
  t('TestDeployModeReplicas', 'deploy_test.go', (l) => [noErrors(l), ['deploy.replicas', svc(l, 'foo').replicas, 6]]),
  t('TestDeployUpdateRollbackConfig', 'deploy_test.go', (l) => [noErrors(l), ['deploy.update_config', svc(l, 'foo').updateConfig,
    { order: 'start-first', parallelism: 3, delayMs: 10_000, failureAction: 'continue', monitorMs: 60_000, maxFailureRatio: 0.3 }]]),
  t('TestDeployResources', 'deploy_test.go', (l) => [noErrors(l), ['limits.cpus', svc(l, 'foo').resources.nanoCpus, 0.001 * SEC],
    ['limits.memory', svc(l, 'foo').resources.memory, 50 * MB], ['reservations.memory', svc(l, 'foo').resources.memoryReservation, 20 * MB]]),
  t('TestDeployRestartPolicy', 'deploy_test.go', (l) => [noErrors(l), ['deploy.restart_policy', svc(l, 'foo').restart, { name: 'on-failure', maximumRetryCount: 3 }]]),
  t('TestDeviceCgroupRules', 'device_cgroup_rules_test.go', (l) => [noErrors(l), ['device_cgroup_rules', svc(l, 'foo').host.DeviceCgroupRules, ['c 1:3 mr', 'a 7:* rmw']]]),
  t('TestDeviceMapping', 'devices_test.go', (l) => [noErrors(l), ['devices', svc(l, 'test').devices, [
    { host: '/dev/source', container: '/dev/target', permissions: 'permissions' }, { host: '/dev/single', container: '/dev/single', permissions: 'rwm' }]]]),
  t('TestDeviceMappingLongSyntax', 'devices_test.go', (l) => [noErrors(l), ['devices', svc(l, 'test').devices, [{ host: '/dev/source', container: '/dev/target', permissions: 'permissions' }]]]),
  t('TestDNSOpt', 'dns_opt_test.go', (l) => [noErrors(l), ['dns_opt', svc(l, 'foo').host.DnsOptions, ['use-vc', 'no-tld-query']]]),
  t('TestDNS', 'dns_test.go', (l) => [noErrors(l), ['dns list', svc(l, 'list').dns, ['8.8.8.8', '9.9.9.9']], ['dns string', svc(l, 'string').dns, ['8.8.8.8']]]),
  t('TestDNSSearch', 'dns_test.go', (l) => [noErrors(l), ['dns_search list', svc(l, 'list').dnsSearch, ['dc1.example.com', 'dc2.example.com']], ['dns_search string', svc(l, 'string').dnsSearch, ['example.com']]]),
  t('TestDNSOmitEmpty', 'dns_test.go', (l) => [noErrors(l), ['dns of an unset variable', svc(l, 'foo').dns, []], warned(l, 'services.foo.dns', /UNSET_VAR is not set/)]),
  t('TestDomainname', 'domainname_test.go', (l) => [noErrors(l), ['domainname', svc(l, 'foo').domainname, 'foo.com']]),
  t('TestEntrypointList', 'entrypoint_test.go', (l) => [noErrors(l), ['entrypoint', svc(l, 'foo').entrypoint, ['/code/entrypoint.sh', '-p', '3000']]]),
  t('TestEntrypointString', 'entrypoint_test.go', (l) => [noErrors(l), ['entrypoint', svc(l, 'foo').entrypoint, ['/code/entrypoint.sh', '-p', '3000']]]),
  t('TestEnvFileString', 'env_file_test.go', (l) => [noErrors(l), ['env_file not required, absent', svc(l, 'foo').environment, {}]]),
  t('TestEnvFileList', 'env_file_test.go', (l) => [noErrors(l), ['env_file not required, absent', svc(l, 'foo').environment, {}]]),
  t('TestEnvironmentMap', 'environment_test.go', (l) => [noErrors(l), ['environment (ZO unset: left out)', svc(l, 'foo').environment, { FOO: '1', BAR: '2', GA: '2.5', BU: '', MEU: 'Shadoks' }]], { MEU: 'Shadoks' }),
  t('TestEnvironmentList', 'environment_test.go', (l) => [noErrors(l), ['environment (ZO unset: left out)', svc(l, 'foo').environment, { FOO: '1', BAR: '2', BU: '', MEU: 'Shadoks' }]], { MEU: 'Shadoks' }),
  t('TestEnvironmentBoolean', 'environment_test.go', (l) => [noErrors(l), ['environment', svc(l, 'foo').environment, { FOO: 'true', BAR: 'false' }]]),
  t('TestExpose', 'expose_test.go', (l) => [noErrors(l), ['expose', svc(l, 'foo').expose, ['3000', '8000']]]),
  t('TestTopLevelExtensions', 'extensions_test.go', (l) => [noErrors(l), only(l), ['x- keys kept in the document', (l.raw as any)['x-nested'], { foo: 'bar', bar: 'baz' }]]),
  t('TestServiceExtensions', 'extensions_test.go', (l) => [noErrors(l), only(l), ['x- keys kept in the document', (l.raw as any).services.foo['x-bar'], 'baz']]),
  t('TestExternalLinks', 'external_links_test.go', (l) => [only(l, 'services.foo.external_links'), warned(l, 'services.foo.external_links', /outside the stack/)]),
  t('TestExtraHostsMap', 'extra_hosts_test.go', (l) => [noErrors(l), ['extra_hosts', svc(l, 'foo').extraHosts, ['alpha:50.31.209.229', 'zulu:162.242.195.82']]]),
  t('TestExtraHostsList', 'extra_hosts_test.go', (l) => [noErrors(l), ['extra_hosts', svc(l, 'foo').extraHosts, ['alpha:50.31.209.229', 'zulu:127.0.0.2', 'zulu:ff02::1']]]),
  t('TestExtraHostsRepeated', 'extra_hosts_test.go', (l) => [noErrors(l), ['extra_hosts', svc(l, 'foo').extraHosts, ['myhost:0.0.0.1', 'myhost:0.0.0.2']]]),
  t('TestExtraHostsLongSyntax', 'extra_hosts_test.go', (l) => [noErrors(l), ['extra_hosts', svc(l, 'foo').extraHosts, ['myhost:0.0.0.1', 'myhost:0.0.0.2']]]),
  t('TestGpus', 'gpus_test.go', (l) => [noErrors(l), ['gpus', svc(l, 'test').host.DeviceRequests, [
    { Driver: 'nvidia', Count: -1, Capabilities: [['gpu']], Options: {} }, { Driver: '3dfx', Count: 0, DeviceIDs: ['voodoo2'], Capabilities: [['directX']], Options: {} }]]]),
  t('TestDeviceReservation', 'devices_test.go', (l) => [noErrors(l), ['reservations.devices', svc(l, 'test').host.DeviceRequests, [{ Driver: 'nvidia', Count: -1, Capabilities: [['gpu']], Options: { q_bits: '42' } }]]]),
  t('TestGpusAll', 'gpus_test.go', (l) => [noErrors(l), ['gpus: all', svc(l, 'test').host.DeviceRequests?.map((d) => d.Count), [-1]]]),
  t('TestGroupAdd', 'group_add_test.go', (l) => [noErrors(l), ['group_add', svc(l, 'foo').groupAdd, ['mail', '0']]]),
  t('TestHealthcheck', 'healthcheck_test.go', (l) => [noErrors(l), ['healthcheck', svc(l, 'foo').healthcheck, { test: ['CMD-SHELL', 'echo "hello world"'], intervalNs: 10 * SEC, timeoutNs: 1 * SEC, retries: 5, startPeriodNs: 15 * SEC }],
    // Docker Engine 20.10 (API 1.41) has no start interval: said, not silently dropped
    warned(l, 'services.foo.healthcheck.start_interval', /API 1\.44/)]),
  t('TestHostname', 'hostname_test.go', (l) => [noErrors(l), ['hostname', svc(l, 'foo').hostname, 'foo']]),
  t('TestImage', 'image_test.go', (l) => [noErrors(l), ['image', svc(l, 'foo').image, 'redis']]),
  t('TestInit', 'init_test.go', (l) => [noErrors(l), ['init true', svc(l, 'with-init').init, true], ['init false', svc(l, 'without-init').init, false], ['init unset', svc(l, 'default').init, null]]),
  t('TestIpcUtsPid', 'ipc_uts_pid_test.go', (l) => [noErrors(l), ['ipc', svc(l, 'foo').ipc, 'host'], ['uts', svc(l, 'foo').host.UTSMode, 'host'], ['pid', svc(l, 'foo').pid, 'host']]),
  t('TestIsolation', 'isolation_test.go', (l) => [only(l, 'services.foo.isolation'), warned(l, 'services.foo.isolation', /Windows container setting/)]),
  t('TestServiceLabels', 'labels_test.go', (l) => [noErrors(l), ['labels', svc(l, 'foo').labels, { 'com.example.description': 'Accounting webapp', 'com.example.number': '42', 'com.example.empty-label': '' }]]),
  t('TestServiceLabelsListSyntax', 'labels_test.go', (l) => [noErrors(l), ['labels', svc(l, 'foo').labels, { 'com.example.description': 'Accounting webapp', 'com.example.number': '42', 'com.example.empty-label': '' }]]),
  t('TestLinks', 'links_test.go', (l) => [only(l, 'services.foo.links'), warned(l, 'services.foo.links', /reach each other by service name/)]),
  t('TestLogging', 'logging_test.go', (l) => [noErrors(l), ['logging', svc(l, 'foo').logging, { driver: 'syslog', options: { 'syslog-address': 'tcp://192.168.0.42:123' } }]]),
  t('TestMacAddress', 'mac_address_test.go', (l) => [noErrors(l), ['mac_address', svc(l, 'foo').macAddress, '02:42:ac:11:65:43']]),
  t('TestModels', 'models_test.go', (l) => [warned(l, 'models', /Docker Model Runner/), warned(l, 'services.test_mapping.models', /Docker Model Runner/)]),
  t('TestNetworkInternal', 'network_internal_test.go', (l) => [noErrors(l), ['only the networks services use are created', l.networks.map((n) => n.key), ['default']]]),
  t('TestNetworkEnableIPv4IPv6', 'network_ipam_test.go', (l) => [refused(l, 'networks.net1.enable_ipv4', /needs Docker Engine 28/)]),
  t('TestNetworkMode', 'network_mode_test.go', (l) => [noErrors(l), ['network_mode (judged by the no-host-network rule)', svc(l, 'foo').networkMode, 'container:0cfeab0f748b']]),
  t('TestServiceNetworks', 'networks_test.go', (l) => {
    const nets = svc(l, 'foo').networks;
    return [noErrors(l), ['aliases', nets.find((n) => n.key === 'some-network')?.aliases, ['foo', 'alias1', 'alias3']],
      ['ipv4_address', nets.find((n) => n.key === 'other-network')?.ipv4Address, '172.16.238.10'],
      ['ipv6_address', nets.find((n) => n.key === 'other-network')?.ipv6Address, '2001:3984:3989::10'],
      // a MAC address per network needs API 1.44: said, not silently dropped
      warned(l, 'services.foo.networks.other-network.mac_address', /API 1\.44/),
      ['networks', nets.map((n) => n.name), ['test_some-network', 'test_other-network', 'test_other-other-network']]];
  }),
  t('TestLinkLocalIPs', 'link_local_ips_test.go', (l) => [noErrors(l), ['link_local_ips', svc(l, 'foo').networks[0]?.linkLocalIps, ['fe80::1:95ff:fe20:100']]]),
  t('TestOomKillDisable', 'oom_test.go', (l) => [noErrors(l), ['oom_kill_disable', svc(l, 'foo').host.OomKillDisable, true]]),
  t('TestOomScoreAdj', 'oom_test.go', (l) => [noErrors(l), ['oom_score_adj', svc(l, 'foo').host.OomScoreAdj, 500]]),
  t('TestPidsLimit', 'pids_limit_test.go', (l) => [noErrors(l), ['pids_limit', svc(l, 'foo').resources.pidsLimit, 100]]),
  t('TestPlatform', 'platform_test.go', (l) => [only(l, 'services.foo.platform'), warned(l, 'services.foo.platform', /its own platform/)]),
  t('TestPortsShortSyntax', 'ports_test.go', (l) => [noErrors(l), ['ports', svc(l, 'foo').ports.map((p) => [p.target, p.published, p.protocol]), [[8080, 80, 'tcp'], [8090, 90, 'udp'], [8600, null, 'tcp']]]]),
  t('TestPortsLongSyntax', 'ports_test.go', (l) => [noErrors(l), ['ports', svc(l, 'foo').ports.map((p) => [p.target, p.published, p.protocol]), [[80, 8080, 'tcp']]]]),
  t('TestPortsRange', 'ports_test.go', (l) => [noErrors(l), ['ports', svc(l, 'foo').ports.map((p) => [p.target, p.published]), [[8080, 80], [8081, 81], [8082, 82]]]]),
  t('TestNamedPort', 'ports_test.go', (l) => [noErrors(l), ['ports', svc(l, 'foo').ports.map((p) => [p.target, p.published]), [[80, 8080]]]]),
  t('TestAppProtocol', 'ports_test.go', (l) => [noErrors(l), ['ports', svc(l, 'foo').ports.map((p) => [p.target, p.published, p.protocol]), [[80, 8080, 'tcp']]]]),
  t('TestPrivilegedReadOnly', 'privileged_test.go', (l) => [noErrors(l), ['privileged', svc(l, 'foo').privileged, true], ['read_only', svc(l, 'foo').readOnly, true]]),
  t('TestProvider', 'provider_test.go', (l) => [noErrors(l), ['a provider\'s service is not deployed', l.services.map((x) => x.name), []], warned(l, 'services.test.provider', /does not drive providers/)]),
  t('TestPullPolicy', 'pull_policy_test.go', (l) => [noErrors(l), ['pull_policy', svc(l, 'foo').pullPolicy, 'always']]),
  t('TestRestart', 'restart_test.go', (l) => [noErrors(l), ['restart', svc(l, 'foo').restart, { name: 'always', maximumRetryCount: 0 }]]),
  t('TestRuntime', 'runtime_test.go', (l) => [noErrors(l), ['runtime', svc(l, 'foo').host.Runtime, 'nvidia']]),
  t('TestScale', 'scale_test.go', (l) => [noErrors(l), ['scale', svc(l, 'foo').replicas, 3]]),
  t('TestServiceSecrets', 'secrets_test.go', (l) => [refused(l, 'secrets.secret1.file', /is not in the source tree/),
    ['secrets[1] (a relative target is under /run/secrets)', svc(l, 'foo').secrets.find((x) => x.source === 'secret2'), { source: 'secret2', target: '/run/secrets/my_secret', uid: '103', gid: '103', mode: 0o440 }]]),
  t('TestSecretEnvironmentResolution', 'secrets_test.go', (l) => [noErrors(l),
    ['config from the environment', l.configs.map((c) => [c.key, c.source, c.from]), [['config', 'environment', 'GA']]],
    ['secret from the environment', l.secrets.map((c) => [c.key, c.source, c.from]), [['secret', 'environment', 'MEU']]]], { GA: 'BU', MEU: 'Shadoks' }),
  t('TestConfigContent', 'secrets_test.go', (l) => [noErrors(l), ['config content', l.configs.map((c) => [c.key, c.source]), [['my_config', 'content']]]]),
  t('TestConfigEnvironment', 'secrets_test.go', (l) => [noErrors(l), ['config from the environment', l.configs.map((c) => [c.key, c.source, c.from]), [['my_config', 'environment', 'MY_VAR']]]], { MY_VAR: 'my_value' }),
  t('TestTemplateDriver', 'template_driver_test.go', (l) => [refused(l, 'secrets.secret.template_driver', /secrets are stored by Dockwright/), refused(l, 'configs.config.template_driver', /configs are stored by Dockwright/)]),
  t('TestSecretDriver', 'template_driver_test.go', (l) => [refused(l, 'secrets.secret.driver', /secrets are stored by Dockwright/)]),
  t('TestSecurityOpt', 'security_opt_test.go', (l) => [noErrors(l), ['security_opt', svc(l, 'foo').securityOpt, ['label=level:s0:c100,c200', 'label=type:svirt_apache_t']]]),
  t('TestStdinOpenTty', 'stdin_tty_test.go', (l) => [noErrors(l), ['stdin_open', svc(l, 'foo').stdinOpen, true], ['tty', svc(l, 'foo').tty, true]]),
  t('TestStopGracePeriod', 'stop_test.go', (l) => [noErrors(l), ['stop_grace_period', svc(l, 'foo').stopGracePeriodSeconds, 20]]),
  t('TestStopSignal', 'stop_test.go', (l) => [noErrors(l), ['stop_signal', svc(l, 'foo').stopSignal, 'SIGUSR1']]),
  t('TestStorageOpt', 'storage_opt_test.go', (l) => [noErrors(l), ['storage_opt', svc(l, 'foo').host.StorageOpt, { size: '20G' }]]),
  t('TestSysctls', 'sysctls_test.go', (l) => {
    const want = { 'net.core.somaxconn': '1024', 'net.ipv4.tcp_syncookies': '0', 'testing.one.one': '', 'testing.one.two': '' };
    return [noErrors(l), ['sysctls list', svc(l, 'list').sysctls, want], ['sysctls map', svc(l, 'map').sysctls, want]];
  }),
  t('TestTmpfs', 'tmpfs_test.go', (l) => [noErrors(l), ['tmpfs list', svc(l, 'list').mounts.map((m) => [m.type, m.target]), [['tmpfs', '/run'], ['tmpfs', '/tmp']]],
    ['tmpfs string', svc(l, 'string').mounts.map((m) => [m.type, m.target]), [['tmpfs', '/run']]]]),
  t('TestUlimits', 'ulimits_test.go', (l) => [noErrors(l), ['ulimits', svc(l, 'foo').ulimits, [{ name: 'nproc', soft: 65535, hard: 65535 }, { name: 'nofile', soft: 20000, hard: 40000 }]]]),
  t('TestUseAPISocket', 'use_api_socket_test.go', (l) => [noErrors(l), ['use_api_socket', svc(l, 'foo').useApiSocket, true]]),
  t('TestUser', 'user_test.go', (l) => [noErrors(l), ['user', svc(l, 'foo').user, 'someone']]),
  t('TestUsernsMode', 'userns_mode_test.go', (l) => [noErrors(l), ['userns_mode', svc(l, 'foo').host.UsernsMode, 'host']]),
  t('TestVolumeBindPropagation', 'volume_bind_test.go', (l) => [noErrors(l), ['bind.propagation', svc(l, 'foo').mounts[0]?.propagation, 'rslave']]),
  t('TestVolumeNoCopy', 'volume_bind_test.go', (l) => [noErrors(l), ['volume.nocopy', svc(l, 'foo').mounts, [{ type: 'volume', source: 'test_mydata', target: '/data', readOnly: false, noCopy: true }]]]),
  t('TestVolumeBindCreateHostPathDefault', 'volume_bind_test.go', (l) => [noErrors(l), ['short syntax creates the host path', svc(l, 'short').mounts[0]?.createHostPath, true],
    // departs on purpose (types.ts): the long syntax creates a missing host directory only with create_host_path: true
    ['bind: {} does not (compose-go: it does)', svc(l, 'long').mounts[0]?.createHostPath, false]]),
  t('TestVolumeBindSELinux', 'volume_bind_test.go', (l) => [noErrors(l), warned(l, 'services.foo.volumes[0].bind.selinux', /SELinux/)]),
  t('TestVolumesFrom', 'volumes_from_test.go', (l) => [noErrors(l), ['volumes_from', svc(l, 'foo').volumesFrom.map((v) => [v.service, v.readOnly]), [['bar', false], ['bar', true]]]]),
  t('TestTopLevelVolumes', 'volumes_test.go', (l) => {
    const v = (key: string) => l.volumes.find((x) => x.key === key);
    return [noErrors(l), ['some-volume', [v('some-volume')?.name, v('some-volume')?.driver], ['test_some-volume', 'local']],
      ['other-volume', [v('other-volume')?.driver, v('other-volume')?.driverOpts, v('other-volume')?.labels.foo], ['flocker', { foo: 'bar', baz: '1' }, 'bar']],
      ['another-volume', [v('another-volume')?.name, v('another-volume')?.driver], ['user_specified_name', 'vsphere']],
      ['external-volume', [v('external-volume')?.name, v('external-volume')?.external], ['external-volume', true]],
      ['other-external-volume', [v('other-external-volume')?.name, v('other-external-volume')?.external], ['my-cool-volume', true]],
      ['external-volume3', [v('external-volume3')?.name, v('external-volume3')?.external], ['this-is-volume3', true]]];
  }),
  t('TestImageVolume', 'volumes_test.go', (l) => [refused(l, 'services.foo.volumes[0].type', /"image" is not supported/)]),
  t('TestWorkingDir', 'working_dir_test.go', (l) => [noErrors(l), ['working_dir', svc(l, 'foo').workingDir, '/code']]),
  t('TestProfiles', 'profiles_test.go', (l) => [noErrors(l), ['without profiles, foo does not run', l.services.map((x) => x.name), ['bar']]]),
  { ...t('TestProfiles', 'profiles_test.go', (l) => [noErrors(l), ['COMPOSE_PROFILES=debug runs foo', l.services.map((x) => x.name).sort(), ['bar', 'foo']]], { COMPOSE_PROFILES: 'debug' }), from: 'loader/tests/profiles_test.go TestProfiles (options.Profiles = debug)' },

  // ---- extends, include, interpolation and .env over files of a tree ----
  ...(['TestExtends', 'TestExtendsPort', 'TestExtendsUlimits', 'TestExtendsRelativePath', 'TestIncludeWithExtends', 'TestExtendsPortOverride', 'TestExtendsWithInterpolation', 'TestExtendsWihtMissingService', 'TestExtendsNil'] as const)
    .map((name): Fixture => ({
      file: `loader/${name}.yaml`, from: `loader/extends_test.go ${name}`, workdir: 'loader',
      expect: ({
        TestExtends: (l) => [noErrors(l), named(l, 'test-extends'), ['hostnames', l.services.map((x) => [x.name, x.hostname, x.image]), [['test1', 'test1', 'base'], ['test2', 'test2', 'base'], ['test3', 'test3', 'base']]]],
        TestExtendsPort: (l) => [noErrors(l), ['ports', svc(l, 'test').ports.map((p) => p.target), [8000]]],
        TestExtendsUlimits: (l) => [noErrors(l), ['ulimits.nproc', svc(l, 'test').ulimits.find((u) => u.name === 'nproc'), { name: 'nproc', soft: 65535, hard: 65535 }]],
        TestExtendsRelativePath: (l) => [noErrors(l), ['build context relative to the extended file', svc(l, 'test').build?.context, join(tree, 'loader/testdata/extends')]],
        TestIncludeWithExtends: (l) => [noErrors(l), ['build of the included, extended service', svc(l, 'with-build').build?.context, join(tree, 'loader/testdata/extends')]],
        TestExtendsPortOverride: (l) => [noErrors(l), ['one port, not two', svc(l, 'test').ports.length, 1]],
        TestExtendsWithInterpolation: (l) => [noErrors(l), ['volume source interpolated in the extended file', svc(l, 'test').mounts[0]?.source, '/dev/null']],
        TestExtendsWihtMissingService: (l) => [refused(l, 'services.test.extends', /must name a service/)],
        TestExtendsNil: (l) => [['an empty service extended', l.errors.length > 0, true]],
      } satisfies Record<typeof name, Fixture['expect']>)[name],
    })),
  { file: 'loader/testdata/compose-test-extends.yaml', from: 'loader/loader_test.go TestLoadWithExtends', expect: (l) => {
    const s = svc(l, 'importer');
    return [noErrors(l), ['image', s.image, 'nginx'], ['container_name from extra.env of the extended file\'s folder', s.containerName, 'imported'],
      ['env_file relative to the extended file', s.environment, { SOURCE: 'extends' }], ['volumes', s.mounts.map((m) => [m.source, m.target]), [['/opt/data', '/var/lib/mysql']]]];
  } },
  { file: 'loader/testdata/compose-include.yaml', from: 'loader/include_test.go TestLoadWithMultipleInclude', expect: (l) => [noErrors(l),
    ['services', l.services.map((x) => x.name).sort(), ['bar', 'imported']], ['bar', svc(l, 'bar').environment, { FOO: 'BAR' }], ['imported env_file', svc(l, 'imported').environment, { SOURCE: 'extends' }]] },
  { file: 'loader/testdata/combined/compose.yaml', from: 'loader/include_test.go TestLoadIncludeExtendsCombined', expect: (l) => [noErrors(l), ['build context', svc(l, 'service').build?.context, join(tree, 'loader/testdata/combined/dir')]] },
  { file: 'loader/testdata/include/compose.yaml', from: 'loader/include_test.go TestIncludeRelative', expect: (l) => [noErrors(l),
    ['build context "."', svc(l, 'included').build?.context, join(tree, 'loader/testdata/include')], ['volume source "."', svc(l, 'included').mounts[0]?.source, join(tree, 'loader/testdata/include')]] },
  { file: 'loader/testdata/extends/reset.yaml', from: 'loader/loader_test.go TestLoadExtendsWihReset', expect: (l) => [noErrors(l),
    ['!reset drops the command extends brings', svc(l, 'base').command, null], ['the rest is extended', svc(l, 'base').image, 'alpine:latest'], ['init keeps its own', svc(l, 'init').command, ['sleep', 'infinity']]] },
  { file: 'loader/testdata/extends/withdir/compose.yaml', from: 'loader/loader_test.go TestLoadExtendsWihReset (withdir: nested extends across folders)', expect: (l) => [noErrors(l), ['image', svc(l, 'test').image, 'hello-world']] },
  { file: 'loader/testdata/compose-depends-on-cycle.yaml', from: 'loader/loader_test.go TestLoadDependsOnCycle', expect: (l) => [refused(l, 'services.service1.depends_on', /dependency cycle: service1 → service2 → service3 → service1/)] },
  { file: 'loader/testdata/compose-depends-on-self.yaml', from: 'loader/loader_test.go TestLoadDependsOnSelf', expect: (l) => [refused(l, 'services.service1.depends_on', /cannot depend on itself/)] },
  { file: 'loader/testdata/compose-include-cycle.yaml', from: 'loader/loader_test.go TestLoadWithIncludeCycle', expect: (l) => [refused(l, 'include[0]', /nested more than 8 deep/)] },
  { file: 'loader/testdata/compose-test-with-version.yaml', from: 'loader/with-version-struct_test.go (version is obsolete and ignored)', expect: (l) => [refused(l, 'services.web.build.dockerfile', /there is no Dockerfile\/Dockerfile in the source tree/), warned(l, 'version', /obsolete/),
    ['volumes_from orders other first', svc(l, 'web').dependsOn.map((d) => d.service), ['other']], ['other', [svc(l, 'other').image, svc(l, 'other').command], ['busybox:1.31.0-uclibc', ['top']]]] },
  { file: 'loader/testdata/empty.yaml', from: 'loader/loader_test.go TestLoadEmpty', expect: (l) => [['an empty file is an error', l.errors.length, 1]] },
  { file: 'loader/testdata/include/project-directory.yaml', from: 'loader/include_test.go TestIncludeWithProjectDirectory', workdir: 'loader/testdata/include', expect: (l) => [
    // project_directory ../subdir leaves the stack's source tree
    refused(l, 'include[0].path', /points outside the source tree/)] },
  { file: 'cli/testdata/simple/compose-with-variables.yaml', from: 'cli/options_test.go TestProjectName…WithDotEnv (PUBLIC_PORT from .env)', expect: (l) => [noErrors(l), ['port from .env', svc(l, 'simple').ports.map((p) => p.published), [8000]]] },
  { file: 'cli/testdata/simple/compose-with-variables.yaml', from: 'cli/options_test.go (the environment wins over .env)', variables: { PUBLIC_PORT: '8001' }, expect: (l) => [noErrors(l), ['port from the stack variables', svc(l, 'simple').ports.map((p) => p.published), [8001]]] },
  { file: 'cli/testdata/simple/compose-name.yaml', from: 'cli/options_test.go TestProjectNameFromComposeFile…', variables: { TEST: 'x' }, expect: (l) => [noErrors(l), named(l, 'test-x-test')] },
  { file: 'cli/testdata/env-file/compose-with-env-file.yaml', from: 'cli/options_test.go TestEnvFile', expect: (l) => [noErrors(l), ['env_file', svc(l, 'simple').environment, { DEFAULT_PORT: '8080' }]] },
  { file: 'cli/testdata/env-file/compose-with-env-files.yaml', from: 'cli/options_test.go TestEnvFiles (PORT from .env, later env_file wins)', expect: (l) => [noErrors(l),
    ['env_file order', svc(l, 'simple').environment, { DEFAULT_PORT: '9090' }], ['port from .env', svc(l, 'simple').ports.map((p) => p.published), [8000]]] },
];

test('compose-go\'s loader fixtures: the model Dockwright derives is what the Go tests expect, or a named refusal or warning', async () => {
  let checks = 0;
  const failures: string[] = [];
  for (const f of fixtures) {
    const dir = f.workdir ?? f.file.slice(0, f.file.lastIndexOf('/'));
    const compose = readFileSync(join(tree, f.file), 'utf8');
    const res = await s.api('POST', '/api/v1/driver/load', { body: { name: 'test', compose, variables: f.variables ?? {}, workdir: join(tree, dir) } });
    assert.equal(res.status, 200, res.text);
    let list: Check[];
    try {
      list = f.expect(res.body as LoadedCompose);
    } catch (err) {
      failures.push(`${f.file} (${f.from}): ${(err as Error).message}`);
      continue;
    }
    for (const [what, got, want] of list) {
      checks++;
      try {
        assert.deepEqual(got, want);
      } catch {
        failures.push(`${f.file} (${f.from}) ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
  }
  console.log(`# conformance: ${fixtures.length} fixtures, ${checks} checks`);
  assert.deepEqual(failures, []);
  assert.ok(fixtures.length >= 100);
});

test('every fixture file copied from compose-go is one a check uses (or a file another fixture reads)', () => {
  const used = new Set(fixtures.map((f) => f.file));
  const inline = readFileSync(join(root, 'NOTICE'), 'utf8');
  assert.match(inline, /Compose Specification Authors/);
  assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /Apache License/);
  // the one-key fixtures are there for the checks: a copied one without a check is a check forgotten
  const unused = readdirYaml(join(root, 'loader', 'tests')).map((n) => `loader/tests/${n}`).filter((n) => !used.has(n) && !skipped.has(n.replace(/^loader\/tests\/|\.yaml$/g, '')));
  assert.deepEqual(unused, []);
});

/** the one-key fixtures of compose-go that do not apply to one engine, with why */
const skipped = new Map<string, string>([
  ['TestBuildConfig', 'a context ./dir absent from the tree (the keys are checked one by one above)'],
  ['TestTopLevelConfigs', 'external and named configs are checked with the secrets ones; ./config_data is absent'],
  ['TestTopLevelSecrets', 'secrets with a file outside the tree; checked through TestServiceSecrets and TestSecretEnvironmentResolution'],
  ['TestSecretFileModeNumber', 'the secret it names is not declared (compose-go skips the consistency check)'],
  ['TestSecretFileModeString', 'the secret it names is not declared (compose-go skips the consistency check)'],
  ['TestDependsOnXService', 'a service named x-foo (compose-go keeps it; Dockwright reads x- keys as extensions)'],
  ['TestDeployPlacement', 'swarm placement (the swarm runtime)'],
  ['TestGwPriority', 'gw_priority needs API 1.48'],
  ['TestInterfaceName', 'interface_name needs API 1.49'],
  ['TestServiceNetworkDriverOpts', 'endpoint driver_opts need API 1.46'],
  ['TestNetworkIPAM', 'an unused network (checked in compose-keys.test.ts with a service on it)'],
  ['TestTopLevelNetworks', 'unused networks are not created; overlay is for the swarm runtime'],
  ['TestNpipeVolume', 'a Windows named pipe'],
  ['TestPullRefreshAfter', 'pull_policy every_<d>: the refresh is the stack\'s autoupdate'],
  ['TestServiceHooks', 'pre_start hooks: not supported yet'],
  ['TestPreStartInheritsServiceImage', 'pre_start hooks: not supported yet'],
  ['TestEnvFileLongSyntax', 'format: raw of env_file'],
]);

function readdirYaml(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort();
}
