// What the swarm runtime's tests share: a server with the swarm runtime on, polled fast, and the docker, containers and stacks plugins it deploys through.
import { startServer, type TestServer } from '../../helpers/harness.ts';

export function startSwarmServer(): Promise<TestServer> {
  return startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {},
      swarm: { enabled: true, options: { pollMs: 250, convergeTimeoutMs: 120_000 } },
    },
  });
}
