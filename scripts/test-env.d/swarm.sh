# A single-node swarm on the shared test engine (the swarm runtime's tests): initialised once, never left, so the
# compose runtime's tests keep running beside it. The advertise address is docker0's (or loopback): nothing leaves the machine.
swarm_state="$(docker info --format '{{.Swarm.LocalNodeState}}/{{.Swarm.ControlAvailable}}' 2>/dev/null || echo unknown)"
case "$swarm_state" in
  active/true) ;;
  inactive/*)
    swarm_addr="$(ip -4 -o addr show docker0 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n1)"
    docker swarm init --advertise-addr "${swarm_addr:-127.0.0.1}" --listen-addr "${swarm_addr:-127.0.0.1}:2377" >/dev/null \
      || die "docker swarm init failed"
    log "swarm initialised on the test engine (advertise ${swarm_addr:-127.0.0.1})"
    ;;
  *) die "the test engine is in swarm state $swarm_state: it must be a manager (or not in a swarm) for the swarm tests" ;;
esac
# a worker the node-down test joined and an interrupted run left behind, down: the swarm is single-node again
for stale in $(docker node ls --filter role=worker --format '{{.ID}} {{.Status}}' 2>/dev/null | awk '$2 == "Down" {print $1}'); do
  docker node rm --force "$stale" >/dev/null && log "removed the worker node $stale an earlier run left down"
done
EXTRA_ENV+=("SWARM_MANAGER=1")
