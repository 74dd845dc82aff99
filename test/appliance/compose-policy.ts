/**
 * The lab's policy for compose.yaml, checked without an engine: the compose-spec schema, then the
 * isolation and hardening rules of the appliance. Each function returns the violations it finds
 * (empty: the file complies), so a test can show that a deliberately broken file fails for its reason.
 */
import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { z } from 'zod';
import { parseCidrList } from '../../app/service-kit/cidr.js';

const here = new URL('.', import.meta.url);
export const repoRoot = new URL('../../', here);

/** The mock API's service, the only service allowed on the internal lab network besides n8n. */
export const API_SERVICE = 'mock-api';
/** n8n: the editor, the webhooks and the process that runs the trainee's workflows (regular mode). */
export const N8N_SERVICE = 'n8n';
/**
 * The lab console (docs/console.md): published on loopback, reaches the mock API by its socket only, and
 * passes the published editor port through to n8n (its editor gate).
 */
export const CONSOLE_SERVICE = 'console';
/** The lab's tools (the stage checker, the matrix, n8n's set-up): run one at a time, never by `up`. */
export const TOOLS_SERVICE = 'tools';
/**
 * The wall against routed clients (docker/walls/walls.sh): the one service on the host's network, as
 * root with NET_ADMIN and NET_RAW and nothing else; the hardening rules it cannot keep are checked by
 * wallsViolations instead.
 */
export const WALLS_SERVICE = 'walls';
const WALLS_CAPABILITIES = ['NET_ADMIN', 'NET_RAW'];
const WALLS_SCRIPT_MOUNT = './docker/walls/walls.sh:/walls.sh:ro';
/** The walls' ready file's volume: the walls write it, the console reads it (and waits for it). */
const WALLS_READY_VOLUME = 'walls-ready';
const WALLS_MOUNTS = [WALLS_SCRIPT_MOUNT, `${WALLS_READY_VOLUME}:/${WALLS_READY_VOLUME}`].join();
/** The one service allowed to publish ports, on 127.0.0.1 only. */
const PUBLISHED_SERVICES = [CONSOLE_SERVICE];

const StringList = z.array(z.string());
const Environment = z.union([
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  StringList,
]);
const ServiceNetworks = z.union([
  StringList,
  z.record(z.string(), z.union([z.null(), z.looseObject({ ipv4_address: z.string().optional() })])),
]);
const Service = z.looseObject({
  image: z.string().optional(),
  build: z.unknown().optional(),
  command: z.union([z.string(), StringList]).optional(),
  user: z.union([z.string(), z.number()]).optional(),
  ports: z.array(z.unknown()).optional(),
  network_mode: z.string().optional(),
  networks: ServiceNetworks.optional(),
  environment: Environment.optional(),
  read_only: z.boolean().optional(),
  cap_drop: StringList.optional(),
  cap_add: StringList.optional(),
  privileged: z.boolean().optional(),
  security_opt: StringList.optional(),
  tmpfs: z.union([z.string(), StringList]).optional(),
  volumes: z.array(z.union([z.string(), z.looseObject({ source: z.string().optional() })])).optional(),
  mem_limit: z.union([z.string(), z.number()]).optional(),
  pids_limit: z.union([z.string(), z.number()]).optional(),
  cpus: z.union([z.string(), z.number()]).optional(),
  healthcheck: z
    .looseObject({ test: z.union([z.string(), StringList]).optional(), disable: z.boolean().optional() })
    .optional(),
  restart: z.string().optional(),
  profiles: StringList.optional(),
  depends_on: z
    .union([StringList, z.record(z.string(), z.looseObject({ condition: z.string().optional() }))])
    .optional(),
});
export type Service = z.infer<typeof Service>;
const Network = z.union([
  z.null(),
  z.looseObject({
    internal: z.boolean().optional(),
    enable_ipv6: z.boolean().optional(),
    external: z.unknown().optional(),
    driver_opts: z.record(z.string(), z.string()).optional(),
  }),
]);
export const ComposeFile = z.looseObject({
  services: z.record(z.string(), Service),
  networks: z.record(z.string(), Network).optional(),
});
export type ComposeFile = z.infer<typeof ComposeFile>;

/**
 * Compose's variable interpolation, for the forms the lab uses: `${VAR:-default}` and `${VAR-default}`
 * take the default when VAR is unset (both, here: an empty value counts as unset), `${VAR:?message}` a
 * placeholder (the secret `make up` generates), `${VAR}` the value or nothing, `$$` a literal `$`.
 */
export function interpolate(text: string, env: Record<string, string> = {}): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (match, name, op, arg) => {
    if (match === '$$') return '$';
    const value = env[name as string];
    if (value !== undefined && value !== '') return value;
    if (op === ':-' || op === '-') return arg as string;
    if (op === ':?' || op === '?') return `required-${(name as string).toLowerCase()}`;
    return '';
  });
}

/** YAML with merge keys (`<<: *anchor`) and variables interpolated with their defaults, as compose reads it. */
export function parseYaml(text: string, env: Record<string, string> = {}): unknown {
  return parse(interpolate(text, env), { merge: true });
}

export function readRepoFile(path: string): string {
  return readFileSync(new URL(path, repoRoot), 'utf8');
}

/** A copy without `$schema` and without draft-04 `id` keywords (string values; a property named id is an object). */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => key !== '$schema' && !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

let validator: ReturnType<Ajv2019['compile']> | undefined;
/** compose-spec JSON schema (vendored: fixtures/compose-spec.json). */
export function schemaViolations(doc: unknown): string[] {
  if (!validator) {
    const schema: unknown = JSON.parse(readFileSync(new URL('fixtures/compose-spec.json', here), 'utf8'));
    // The schema names its draft by the http:// URI that Ajv does not register (it is draft 2019-09, Ajv2019's
    // own), still uses draft-04 `id`, and compose's own formats: Go durations, port and subnet strings.
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', true);
    ajv.addFormat('expose', true);
    ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/[0-9]{1,3}$/);
    validator = ajv.compile(z.record(z.string(), z.unknown()).parse(withoutDraft4Ids(schema)));
  }
  if (validator(doc)) return [];
  return (validator.errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message ?? 'invalid'}`);
}

function networksOf(service: Service): Record<string, { ipv4_address?: string | undefined } | null> {
  const n = service.networks;
  if (n === undefined) return { default: null };
  if (Array.isArray(n)) return Object.fromEntries(n.map((name) => [name, null]));
  return n;
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment;
  if (env === undefined) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const eq = entry.indexOf('=');
        return eq === -1 ? [entry, ''] : [entry.slice(0, eq), entry.slice(eq + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** One-shot services (gated by `service_completed_successfully`) need no healthcheck. */
/**
 * Services that run to completion rather than stay up, so need no healthcheck: those another waits for
 * with service_completed_successfully, and the tools (profile `tools`: `compose run --rm` only).
 */
function oneShots(file: ComposeFile): Set<string> {
  const names = new Set<string>();
  for (const [name, service] of Object.entries(file.services)) {
    if (service.profiles?.includes(TOOLS_SERVICE)) names.add(name);
    const deps = service.depends_on;
    if (deps === undefined || Array.isArray(deps)) continue;
    for (const [name, dep] of Object.entries(deps)) {
      if (dep.condition === 'service_completed_successfully') names.add(name);
    }
  }
  return names;
}

function isRootUser(user: string | number | undefined): boolean {
  if (user === undefined) return true;
  const name = String(user).split(':')[0];
  return name === '' || name === '0' || name === 'root';
}

/** Hardening that every service must carry. */
export function hardeningViolations(file: ComposeFile): string[] {
  const out: string[] = [];
  const shots = oneShots(file);
  for (const [name, s] of Object.entries(file.services)) {
    if (s.read_only !== true) out.push(`${name}: read_only must be true`);
    if (!s.tmpfs || s.tmpfs.length === 0)
      out.push(`${name}: a read-only service needs tmpfs for its scratch paths`);
    if (!s.cap_drop?.includes('ALL')) out.push(`${name}: cap_drop must include ALL`);
    const walls = name === WALLS_SERVICE;
    if (!walls && s.cap_add && s.cap_add.length > 0) out.push(`${name}: cap_add must not be used`);
    if (s.privileged === true) out.push(`${name}: must not be privileged`);
    if (!s.security_opt?.some((o) => /^no-new-privileges(:true)?$/.test(o)))
      out.push(`${name}: security_opt must set no-new-privileges`);
    if (!walls && isRootUser(s.user)) out.push(`${name}: user must be set and not root`);
    if (s.mem_limit === undefined) out.push(`${name}: mem_limit must be set`);
    if (s.pids_limit === undefined || Number(s.pids_limit) <= 0) out.push(`${name}: pids_limit must be set`);
    // A processor limit on every service (n8n's from LAB_CPUS, whose 0 is the trainer's choice of none).
    if (s.cpus === undefined || !(Number(s.cpus) >= 0)) out.push(`${name}: cpus must be set`);
    if (!walls && s.network_mode !== undefined) out.push(`${name}: network_mode must not be used`);
    if (!shots.has(name) && (!s.healthcheck?.test || s.healthcheck.disable === true))
      out.push(`${name}: a healthcheck is needed`);
  }
  return out;
}

/**
 * The seed's promise: the mock API is reachable only from the platform's process that runs workflows (n8n),
 * and never published; that process reaches nothing but internal networks (no internet, no host).
 */
export function isolationViolations(file: ComposeFile): string[] {
  const out: string[] = [];
  const api = file.services[API_SERVICE];
  const n8n = file.services[N8N_SERVICE];
  if (!api) return [`${API_SERVICE}: service missing`];
  if (!n8n) return [`${N8N_SERVICE}: service missing`];
  for (const name of [API_SERVICE, N8N_SERVICE]) {
    const s = file.services[name];
    if (s?.ports && s.ports.length > 0) out.push(`${name}: must publish no ports`);
  }
  for (const net of Object.keys(networksOf(n8n))) {
    if (file.networks?.[net]?.internal !== true)
      out.push(
        `network ${net}: n8n runs the trainee's workflows, so each of its networks must be internal: true`,
      );
    // Docker gives the host an address on an internal network too (its gateway): not here.
    if (file.networks?.[net]?.driver_opts?.[INHIBIT_IPV4] !== 'true')
      out.push(
        `network ${net}: n8n is on it, so its bridge must hold no address of the host (${INHIBIT_IPV4})`,
      );
  }
  for (const [name, s] of Object.entries(file.services)) {
    for (const port of s.ports ?? []) {
      if (!PUBLISHED_SERVICES.includes(name)) out.push(`${name}: only the console may publish a port`);
      else if (typeof port !== 'string' || !port.startsWith('127.0.0.1:'))
        out.push(`${name}: its port must be published on 127.0.0.1 only (${JSON.stringify(port)})`);
    }
  }
  const apiNets = Object.keys(networksOf(api));
  if (apiNets.length === 0) out.push(`${API_SERVICE}: must be on the internal lab network`);
  for (const net of apiNets) {
    if (file.networks?.[net]?.internal !== true)
      out.push(`network ${net}: the mock API's network must be internal: true`);
    const members = Object.entries(file.services)
      .filter(([, s]) => net in networksOf(s))
      .map(([n]) => n)
      .sort();
    const expected = [API_SERVICE, N8N_SERVICE].sort();
    if (members.join() !== expected.join())
      out.push(
        `network ${net}: must be shared by ${expected.join(' and ')} only (has ${members.join(', ')})`,
      );
  }
  // Defense in depth in the API itself: its Host and client allowlists match the topology.
  const env = environmentOf(api);
  if (!(env.ALLOWED_HOSTS ?? '').split(',').includes(API_SERVICE))
    out.push(`${API_SERVICE}: ALLOWED_HOSTS must list ${API_SERVICE}`);
  const clients = (env.ALLOWED_CLIENTS ?? '').split(',').filter(Boolean);
  if (clients.length === 0) out.push(`${API_SERVICE}: ALLOWED_CLIENTS must restrict the source addresses`);
  // n8n's address comes from the lab network's ip_range (a one-off n8n, make save, takes another from it:
  // a fixed one would be taken already), and the mock API admits that range.
  for (const net of apiNets) {
    if (networksOf(n8n)[net]?.ipv4_address !== undefined)
      out.push(`${N8N_SERVICE}: no fixed address on ${net} (a one-off n8n would find it taken)`);
    const { ip_range: range, gateway } = ipamOf(file, net) ?? {};
    if (range === undefined) out.push(`network ${net}: needs an ip_range, n8n's addresses`);
    else if (!clients.includes(range))
      out.push(`${API_SERVICE}: ALLOWED_CLIENTS must admit n8n's addresses ${range} (${net}'s ip_range)`);
    // The gateway is the host's address on the network; Docker gives the range's first when none is set.
    if (range !== undefined && (gateway === undefined || parseCidrList([range])?.includes(gateway)))
      out.push(
        `network ${net}: its gateway (the host's address) must be set outside n8n's addresses ${range}`,
      );
  }
  return out;
}

const INHIBIT_IPV4 = 'com.docker.network.bridge.inhibit_ipv4';
const BRIDGE_NAME = 'com.docker.network.bridge.name';

/**
 * The walls: on the host's network as root with NET_ADMIN and NET_RAW only, no port, no network, its
 * script read-only as its one mount; every network of the lab named (its bridge, at most 15 characters)
 * and covered by a `SUBNET=BRIDGE` pair of WALLS_NETS, with IPv6 off (enable_ipv6: false); the console
 * starts once the walls are healthy.
 */
export function wallsViolations(file: ComposeFile): string[] {
  const out: string[] = [];
  const walls = file.services[WALLS_SERVICE];
  if (!walls) return [`${WALLS_SERVICE}: service missing (the wall against routed clients)`];
  if (walls.network_mode !== 'host') out.push(`${WALLS_SERVICE}: network_mode must be host`);
  if (walls.networks !== undefined) out.push(`${WALLS_SERVICE}: joins no network of the lab`);
  if ((walls.ports ?? []).length > 0) out.push(`${WALLS_SERVICE}: must publish no ports`);
  if ([...(walls.cap_add ?? [])].sort().join() !== WALLS_CAPABILITIES.join())
    out.push(`${WALLS_SERVICE}: cap_add must be exactly ${WALLS_CAPABILITIES.join(' and ')}`);
  if ((walls.volumes ?? []).join() !== WALLS_MOUNTS)
    out.push(`${WALLS_SERVICE}: its mounts must be exactly ${WALLS_MOUNTS}`);
  // After an engine restart the console waits for the walls' ready file: the same file on both sides.
  const ready = environmentOf(walls).WALLS_READY;
  const consoleService = file.services[CONSOLE_SERVICE];
  if (ready === undefined || !ready.startsWith(`/${WALLS_READY_VOLUME}/`))
    out.push(`${WALLS_SERVICE}: WALLS_READY must be a file in /${WALLS_READY_VOLUME}`);
  else if (consoleService && environmentOf(consoleService).CONSOLE_WALLS_READY !== ready)
    out.push(`${CONSOLE_SERVICE}: CONSOLE_WALLS_READY must be the walls' WALLS_READY (${ready})`);
  if (
    consoleService &&
    !(consoleService.volumes ?? []).includes(`${WALLS_READY_VOLUME}:/${WALLS_READY_VOLUME}:ro`)
  )
    out.push(`${CONSOLE_SERVICE}: must mount ${WALLS_READY_VOLUME} read-only at /${WALLS_READY_VOLUME}`);
  for (const [name, s] of Object.entries(file.services)) {
    if (name !== WALLS_SERVICE && s.network_mode !== undefined)
      out.push(`${name}: only the walls may use network_mode`);
  }
  const pairs = new Set((environmentOf(walls).WALLS_NETS ?? '').split(/\s+/).filter(Boolean));
  for (const net of Object.keys(file.networks ?? {})) {
    // The rules are IPv4 only: an engine that gives new networks IPv6 (default-network-opts) is overruled.
    if (file.networks?.[net]?.enable_ipv6 !== false)
      out.push(`network ${net}: enable_ipv6 must be false (the walls' rules are IPv4 only)`);
    const bridge = file.networks?.[net]?.driver_opts?.[BRIDGE_NAME];
    const subnet = ipamOf(file, net)?.subnet;
    if (bridge === undefined || bridge.length > 15)
      out.push(`network ${net}: its bridge must be named (${BRIDGE_NAME}, at most 15 characters)`);
    else if (subnet === undefined || !pairs.has(`${subnet}=${bridge}`))
      out.push(`${WALLS_SERVICE}: WALLS_NETS must hold network ${net}'s ${subnet}=${bridge}`);
  }
  const deps = file.services[CONSOLE_SERVICE]?.depends_on;
  if (Array.isArray(deps) || deps?.[WALLS_SERVICE]?.condition !== 'service_healthy')
    out.push(`${CONSOLE_SERVICE}: must start once the walls are healthy (depends_on)`);
  return out;
}

/** A network's first address pool, as compose's ipam gives it. */
type Pool = { subnet?: string; ip_range?: string; gateway?: string };
function ipamOf(file: ComposeFile, net: string): Pool | undefined {
  const network = file.networks?.[net] as { ipam?: { config?: Pool[] } } | null;
  return network?.ipam?.config?.[0];
}

/** `name:/path[:ro]` mounts of named volumes, as volume name -> mount target. */
function namedVolumesOf(service: Service): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of service.volumes ?? []) {
    if (typeof v !== 'string') continue;
    const [source = '', target = ''] = v.split(':');
    if (!source.startsWith('.') && !source.startsWith('/')) out[source] = target;
  }
  return out;
}

/**
 * The console: the mock API's image, published on 127.0.0.1 only (its own port and its editor gate's), no
 * network shared with the mock API, the mock API's socket through a volume that only the two of them
 * mount, approvals to n8n by service name, resume URLs accepted only on the origin n8n writes into them
 * (WEBHOOK_URL), and nobody answered on a network it shares with n8n (CONSOLE_REFUSED_CLIENTS).
 */
export function consoleViolations(file: ComposeFile): string[] {
  const out: string[] = [];
  const con = file.services[CONSOLE_SERVICE];
  const api = file.services[API_SERVICE];
  const n8n = file.services[N8N_SERVICE];
  if (!con || !api || !n8n) return [`${CONSOLE_SERVICE}: service missing`];
  if (con.build !== undefined || con.image !== api.image)
    out.push(`${CONSOLE_SERVICE}: must run the mock API's image (${api.image}), not build its own`);
  const conEnv = environmentOf(con);
  const gate = conEnv.EDITOR_GATE_PORT ?? '';
  const ports = (con.ports ?? []).map(String);
  const published = ports.map((p) => /^127\.0\.0\.1:[^:]+:(\d+)$/.exec(p)?.[1] ?? 'not on 127.0.0.1').sort();
  if (published.join() !== ['8088', gate].sort().join())
    out.push(
      `${CONSOLE_SERVICE}: must publish exactly 127.0.0.1:<port>:8088 and 127.0.0.1:<port>:${gate || '<EDITOR_GATE_PORT>'}`,
    );
  const apiNets = Object.keys(networksOf(api));
  for (const net of Object.keys(networksOf(con))) {
    if (apiNets.includes(net))
      out.push(`${CONSOLE_SERVICE}: must share no network with ${API_SERVICE} (${net})`);
  }
  const withN8n = Object.keys(networksOf(con)).filter((n) => n in networksOf(n8n));
  if (withN8n.length === 0) out.push(`${CONSOLE_SERVICE}: must share a network with ${N8N_SERVICE}`);
  const refused = (conEnv.CONSOLE_REFUSED_CLIENTS ?? '').split(',').filter(Boolean);
  for (const net of withN8n) {
    if (!refused.includes(ipamOf(file, net)?.subnet ?? `the subnet of ${net}`))
      out.push(
        `${CONSOLE_SERVICE}: CONSOLE_REFUSED_CLIENTS must list ${net}'s subnet (${N8N_SERVICE} runs workflows there)`,
      );
  }
  // Its way to n8n resolves `n8n` through the host's resolvers while n8n is away (the editor network is
  // not internal): it connects only to an address of the network it shares with n8n.
  const n8nSubnets = withN8n.map((net) => ipamOf(file, net)?.subnet);
  if (withN8n.length !== 1 || conEnv.N8N_ALLOWED_SUBNET !== n8nSubnets[0])
    out.push(
      `${CONSOLE_SERVICE}: N8N_ALLOWED_SUBNET must be the subnet of the one network it shares with ${N8N_SERVICE} (${n8nSubnets.join(', ')})`,
    );
  const apiEnv = environmentOf(api);
  const socket = apiEnv.SOCKET_PATH ?? '';
  if (socket === '' || conEnv.MOCK_API_SOCKET !== socket)
    out.push(`${CONSOLE_SERVICE}: MOCK_API_SOCKET must be ${API_SERVICE}'s SOCKET_PATH`);
  const dir = socket.slice(0, socket.lastIndexOf('/'));
  const apiVols = namedVolumesOf(api);
  const conVols = namedVolumesOf(con);
  const shared = Object.keys(apiVols).filter((v) => apiVols[v] === dir && conVols[v] === dir);
  if (shared.length !== 1)
    out.push(`${CONSOLE_SERVICE}: must mount ${API_SERVICE}'s socket volume at ${dir}`);
  for (const vol of shared) {
    const users = Object.entries(file.services)
      .filter(([, s]) => vol in namedVolumesOf(s))
      .map(([n]) => n)
      .sort();
    if (users.join() !== [API_SERVICE, CONSOLE_SERVICE, TOOLS_SERVICE].sort().join())
      out.push(
        `volume ${vol}: must be mounted by ${API_SERVICE}, ${CONSOLE_SERVICE} and ${TOOLS_SERVICE} only (${users.join(', ')})`,
      );
  }
  if (conEnv.N8N_URL !== `http://${N8N_SERVICE}:5678`)
    out.push(`${CONSOLE_SERVICE}: N8N_URL must be http://${N8N_SERVICE}:5678`);
  const webhook = environmentOf(n8n).WEBHOOK_URL ?? '';
  if (!webhook || conEnv.N8N_PUBLIC_URL !== new URL(webhook).origin)
    out.push(`${CONSOLE_SERVICE}: N8N_PUBLIC_URL must be n8n's WEBHOOK_URL origin`);
  if (conEnv.MOCK_API_URL !== undefined) out.push(`${CONSOLE_SERVICE}: must not be given a MOCK_API_URL`);
  return out;
}

/** n8n in its regular mode on Postgres, pinned to the e2e version, outbound features off. */
export function n8nViolations(file: ComposeFile, n8nVersion: string): string[] {
  const out: string[] = [];
  const image = `n8nio/n8n:${n8nVersion}`;
  for (const name of [N8N_SERVICE, 'postgres']) {
    if (!file.services[name]) out.push(`${name}: service missing`);
  }
  for (const [name, s] of Object.entries(file.services)) {
    if (s.image === undefined) continue;
    // A digest, or a tag naming at least major.minor (`redis:7-alpine` and `:latest` move).
    if (!/(:\d+\.\d+[^/@]*|@sha256:[0-9a-f]{64})$/.test(s.image))
      out.push(`${name}: image ${s.image} must be pinned`);
    if (s.image.includes('n8nio/n8n') && s.image !== image)
      out.push(`${name}: n8n must be pinned to ${image} (the e2e version), not ${s.image}`);
  }
  // One n8n: no other service runs n8n's image (a worker, a webhook process), so none runs workflows.
  for (const [name, s] of Object.entries(file.services)) {
    if (name !== N8N_SERVICE && s.image?.includes('n8nio/n8n'))
      out.push(`${name}: only ${N8N_SERVICE} runs n8n (regular mode: it runs the workflows itself)`);
  }
  const n8n = file.services[N8N_SERVICE];
  if (n8n) {
    const env = environmentOf(n8n);
    const expected: Record<string, string> = {
      EXECUTIONS_MODE: 'regular',
      DB_TYPE: 'postgresdb',
      N8N_DIAGNOSTICS_ENABLED: 'false',
      N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
      N8N_TEMPLATES_ENABLED: 'false',
      MOCK_API_URL: `http://${API_SERVICE}:8081`,
    };
    for (const [key, value] of Object.entries(expected)) {
      if (env[key] !== value) out.push(`${N8N_SERVICE}: ${key} must be ${value}`);
    }
  }
  const deps = file.services[N8N_SERVICE]?.depends_on;
  for (const dep of ['postgres']) {
    if (deps === undefined || Array.isArray(deps) || deps[dep]?.condition !== 'service_healthy')
      out.push(`${N8N_SERVICE}: must wait for ${dep} with condition service_healthy`);
  }
  return out;
}

/** Everything at once, for a file's text. */
export function composeViolations(
  text: string,
  n8nVersion: string,
  env: Record<string, string> = {},
): string[] {
  const doc = parseYaml(text, env);
  const schema = schemaViolations(doc);
  const parsed = ComposeFile.safeParse(doc);
  if (!parsed.success) return [...schema, `shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`];
  return [
    ...schema,
    ...hardeningViolations(parsed.data),
    ...isolationViolations(parsed.data),
    ...wallsViolations(parsed.data),
    ...consoleViolations(parsed.data),
    ...n8nViolations(parsed.data, n8nVersion),
  ];
}

/** The engine test's override may only swap how the unpullable services run, never what is tested. */
export const OVERRIDABLE_SERVICES = ['postgres', 'n8n'];
export const OVERRIDABLE_KEYS = ['image', 'entrypoint', 'command', 'healthcheck'];

export function overrideViolations(doc: unknown): string[] {
  if (typeof doc !== 'object' || doc === null) return ['override: not a mapping'];
  const out: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key !== 'services') {
      out.push(`override: top-level ${key} must not be overridden`);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    for (const [name, service] of Object.entries(value)) {
      if (!OVERRIDABLE_SERVICES.includes(name)) out.push(`override: service ${name} must not be overridden`);
      if (typeof service !== 'object' || service === null) continue;
      for (const field of Object.keys(service)) {
        if (!OVERRIDABLE_KEYS.includes(field)) out.push(`override: ${name}.${field} must not be overridden`);
      }
    }
  }
  return out;
}

/** n8n's version as the e2e tests pin it (test/pinned-n8n/install/package.json). */
export function e2eN8nVersion(): string {
  const pkg = z
    .object({ dependencies: z.object({ n8n: z.string() }) })
    .parse(JSON.parse(readRepoFile('test/pinned-n8n/install/package.json')));
  return pkg.dependencies.n8n;
}
