import { describe, expect, it } from 'vitest';
import {
  ComposeFile,
  composeViolations,
  consoleViolations,
  e2eN8nVersion,
  hardeningViolations,
  isolationViolations,
  n8nViolations,
  overrideViolations,
  parseYaml,
  readRepoFile,
  schemaViolations,
  wallsViolations,
} from './compose-policy.js';

const composeText = readRepoFile('compose.yaml');
const n8nVersion = e2eN8nVersion();

function lab(): ComposeFile {
  return ComposeFile.parse(parseYaml(composeText));
}

function service(file: ComposeFile, name: string) {
  const s = file.services[name];
  if (!s) throw new Error(`compose.yaml has no service ${name}`);
  return s;
}

describe('compose.yaml', () => {
  it('is valid against the compose-spec schema and complies with the lab policy', () => {
    expect(composeViolations(composeText, n8nVersion)).toEqual([]);
  });

  it('has no top-level name: (the compose 1.29 client rejects it; make passes -p soar-lab)', () => {
    expect(Object.keys(lab())).not.toContain('name');
  });

  it('takes the lab settings as make up derives them, and still complies', () => {
    const env = {
      LAB_SUBNET: '10.77.5.0/24',
      LAB_INTERNAL_SUBNET: '10.77.5.0/26',
      LAB_BACKEND_SUBNET: '10.77.5.64/26',
      LAB_EDITOR_SUBNET: '10.77.5.128/26',
      LAB_FRONT_SUBNET: '10.77.5.192/26',
      LAB_API_IP: '10.77.5.2',
      LAB_N8N_RANGE: '10.77.5.32/27',
      LAB_INTERNAL_GATEWAY: '10.77.5.1',
      LAB_BRIDGE_PREFIX: 'soar-0a4d05',
      LAB_EDITOR_PORT: '5700',
      LAB_CONSOLE_PORT: '8090',
    };
    expect(composeViolations(composeText, n8nVersion, env)).toEqual([]);
    const file = ComposeFile.parse(parseYaml(composeText, env));
    expect(service(file, 'n8n').ports).toBeUndefined();
    expect(service(file, 'n8n').environment).toMatchObject({ WEBHOOK_URL: 'http://127.0.0.1:5700/' });
    expect(service(file, 'console').ports).toEqual(['127.0.0.1:8090:8088', '127.0.0.1:5700:5678']);
    expect(service(file, 'console').environment).toMatchObject({
      CONSOLE_REFUSED_CLIENTS: '10.77.5.192/26',
      N8N_ALLOWED_SUBNET: '10.77.5.192/26',
      N8N_PUBLIC_URL: 'http://127.0.0.1:5700',
      // Its session cookie's name: the lab's and the published port's.
      CONSOLE_LAB: 'default',
      CONSOLE_PUBLISHED_PORT: '8090',
      LAB_PUBLIC_ORIGIN: '',
    });
    expect(service(file, 'mock-api').environment).toMatchObject({
      ALLOWED_CLIENTS: '10.77.5.32/27,127.0.0.1/32',
    });
    expect(file.networks?.['lab-internal']).toMatchObject({
      ipam: { config: [{ subnet: '10.77.5.0/26', ip_range: '10.77.5.32/27', gateway: '10.77.5.1' }] },
    });
    expect(file.networks?.['n8n-backend']).toMatchObject({ ipam: { config: [{ subnet: '10.77.5.64/26' }] } });
    expect(file.networks?.editor).toMatchObject({ ipam: { config: [{ subnet: '10.77.5.128/26' }] } });
    expect(file.networks?.['n8n-front']).toMatchObject({ ipam: { config: [{ subnet: '10.77.5.192/26' }] } });
    expect(service(file, 'walls').environment).toMatchObject({
      WALLS_TAG: 'soar-0a4d05',
      WALLS_NETS:
        '10.77.5.0/26=soar-0a4d05-i 10.77.5.64/26=soar-0a4d05-b 10.77.5.128/26=soar-0a4d05-e 10.77.5.192/26=soar-0a4d05-f',
    });
  });

  it('control: n8n addresses the API does not admit break the policy', () => {
    const env = { LAB_SUBNET: '10.77.5.0/24', LAB_API_IP: '10.77.5.2', LAB_N8N_RANGE: '10.77.5.32/27' };
    const text = composeText.replace(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, literally
      'ALLOWED_CLIENTS: ${LAB_N8N_RANGE:-172.30.66.32/27}',
      'ALLOWED_CLIENTS: 10.77.5.0/26',
    );
    expect(composeViolations(text, n8nVersion, env).join('\n')).toMatch(
      /ALLOWED_CLIENTS must admit n8n's addresses 10\.77\.5\.32\/27 \(lab-internal's ip_range\)/,
    );
  });

  it("control: the console's refusal for another network than n8n-front's breaks the policy", () => {
    const env = { LAB_FRONT_SUBNET: '10.77.5.192/26' };
    const text = composeText.replace(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, literally
      'CONSOLE_REFUSED_CLIENTS: ${LAB_FRONT_SUBNET:-172.30.66.192/26}',
      'CONSOLE_REFUSED_CLIENTS: 10.77.5.128/26',
    );
    expect(composeViolations(text, n8nVersion, env).join('\n')).toMatch(
      /CONSOLE_REFUSED_CLIENTS must list n8n-front's subnet/,
    );
  });

  it('publishes only the console (its own port and its editor gate), on 127.0.0.1', () => {
    const published = Object.entries(lab().services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n, s]) => [n, s.ports])).toEqual([
      ['console', ['127.0.0.1:8088:8088', '127.0.0.1:5678:5678']],
    ]);
  });
});

/** The lab network's first address pool, to break. */
function labPool(f: ComposeFile): { gateway?: string } {
  const net = f.networks?.['lab-internal'] as
    | { ipam?: { config?: { gateway?: string }[] } }
    | null
    | undefined;
  const pool = net?.ipam?.config?.[0];
  if (!pool) throw new Error('lab-internal has no address pool');
  return pool;
}

/** Deliberately broken variants: each must fail its check, for its reason. */
const brokenCompose: {
  name: string;
  expect: RegExp;
  check: (f: ComposeFile) => string[];
  mutate: (f: ComposeFile) => void;
}[] = [
  {
    name: 'the mock API publishes its port',
    expect: /mock-api: must publish no ports/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'mock-api').ports = ['8081:8081'];
    },
  },
  {
    name: 'n8n publishes a port',
    expect: /n8n: must publish no ports/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'n8n').ports = ['127.0.0.1:5679:5678'];
    },
  },
  {
    name: 'n8n, which runs the workflows, joins a routed network',
    expect:
      /network editor: n8n runs the trainee's workflows, so each of its networks must be internal: true/,
    check: isolationViolations,
    mutate: (f) => {
      f.services.n8n = { ...service(f, 'n8n'), networks: ['n8n-backend', 'n8n-front', 'editor'] };
    },
  },
  {
    name: 'the editor gate is published on every interface',
    expect: /console: its port must be published on 127\.0\.0\.1 only/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'console').ports = ['127.0.0.1:8088:8088', '5678:5678'];
    },
  },
  {
    name: 'the console publishes no editor gate',
    expect: /console: must publish exactly 127\.0\.0\.1:<port>:8088 and 127\.0\.0\.1:<port>:5678/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').ports = ['127.0.0.1:8088:8088'];
    },
  },
  {
    name: 'the console answers the network where n8n runs workflows',
    expect: /console: CONSOLE_REFUSED_CLIENTS must list n8n-front's subnet/,
    check: consoleViolations,
    mutate: (f) => {
      const { CONSOLE_REFUSED_CLIENTS: _, ...rest } = service(f, 'console').environment as Record<
        string,
        string
      >;
      service(f, 'console').environment = rest;
    },
  },
  {
    name: 'a second n8n (a worker) runs workflows beside it',
    expect: /n8n-worker: only n8n runs n8n/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      f.services['n8n-worker'] = { ...service(f, 'n8n'), command: ['worker'] };
    },
  },
  {
    name: 'the lab network is not internal',
    expect: /must be internal: true/,
    check: isolationViolations,
    mutate: (f) => {
      const net = f.networks?.['lab-internal'];
      if (net) net.internal = false;
    },
  },
  {
    name: 'n8n has a fixed address on the lab network',
    expect: /n8n: no fixed address on lab-internal/,
    check: isolationViolations,
    mutate: (f) => {
      f.services.n8n = {
        ...service(f, 'n8n'),
        networks: {
          'n8n-backend': null,
          'n8n-front': null,
          'lab-internal': { ipv4_address: '172.30.66.10' },
        },
      };
    },
  },
  {
    name: "the lab network's gateway, the host's address, is left to Docker (the range's first)",
    expect: /network lab-internal: its gateway \(the host's address\) must be set outside n8n's addresses/,
    check: isolationViolations,
    mutate: (f) => {
      delete labPool(f).gateway;
    },
  },
  {
    name: "the lab network's gateway inside n8n's range",
    expect: /network lab-internal: its gateway \(the host's address\) must be set outside n8n's addresses/,
    check: isolationViolations,
    mutate: (f) => {
      labPool(f).gateway = '172.30.66.33';
    },
  },
  {
    name: 'the tools join the lab network',
    expect: /must be shared by mock-api and n8n only/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'tools').networks = ['n8n-front', 'lab-internal'];
    },
  },
  {
    name: 'the mock API also joins a routed network',
    expect: /network editor: the mock API's network must be internal: true/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'mock-api').networks = { 'lab-internal': { ipv4_address: '172.30.66.2' }, editor: null };
    },
  },
  {
    name: 'the mock API accepts any client',
    expect: /ALLOWED_CLIENTS must restrict/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'mock-api').environment = { HOST: '0.0.0.0', ALLOWED_HOSTS: 'mock-api' };
    },
  },
  {
    name: "an internal network's bridge holds the host's address (Docker's default)",
    expect: /network n8n-front: n8n is on it, so its bridge must hold no address of the host/,
    check: isolationViolations,
    mutate: (f) => {
      delete f.networks?.['n8n-front']?.driver_opts?.['com.docker.network.bridge.inhibit_ipv4'];
    },
  },
  {
    name: 'a network leaves IPv6 to the engine (its default-network-opts)',
    expect: /network n8n-backend: enable_ipv6 must be false/,
    check: wallsViolations,
    mutate: (f) => {
      delete f.networks?.['n8n-backend']?.enable_ipv6;
    },
  },
  {
    name: 'a network asks for IPv6',
    expect: /network editor: enable_ipv6 must be false/,
    check: wallsViolations,
    mutate: (f) => {
      const net = f.networks?.editor;
      if (net) net.enable_ipv6 = true;
    },
  },
  {
    name: 'the console listens without waiting for the walls after an engine restart',
    expect: /console: CONSOLE_WALLS_READY must be the walls' WALLS_READY/,
    check: wallsViolations,
    mutate: (f) => {
      const env = service(f, 'console').environment;
      if (env && !Array.isArray(env)) delete env.CONSOLE_WALLS_READY;
    },
  },
  {
    name: "the console cannot see the walls' ready file",
    expect: /console: must mount walls-ready read-only/,
    check: wallsViolations,
    mutate: (f) => {
      const console = service(f, 'console');
      console.volumes = (console.volumes ?? []).filter((v) => v !== 'walls-ready:/walls-ready:ro');
    },
  },
  {
    name: 'no walls service',
    expect: /walls: service missing/,
    check: wallsViolations,
    mutate: (f) => {
      delete f.services.walls;
    },
  },
  {
    name: "the console connects to n8n wherever the name resolves (the host's resolvers while n8n is away)",
    expect: /console: N8N_ALLOWED_SUBNET must be the subnet of the one network it shares with n8n/,
    check: consoleViolations,
    mutate: (f) => {
      delete (service(f, 'console').environment as Record<string, string>).N8N_ALLOWED_SUBNET;
    },
  },
  {
    name: 'the walls leave a network out',
    expect: /WALLS_NETS must hold network editor's 172\.30\.66\.128\/26=soar-ac1e42-e/,
    check: wallsViolations,
    mutate: (f) => {
      const env = service(f, 'walls').environment as Record<string, string>;
      env.WALLS_NETS = (env.WALLS_NETS ?? '').replace('172.30.66.128/26=soar-ac1e42-e', '');
    },
  },
  {
    name: "a network's bridge is left to Docker to name",
    expect: /network editor: its bridge must be named/,
    check: wallsViolations,
    mutate: (f) => {
      delete f.networks?.editor?.driver_opts?.['com.docker.network.bridge.name'];
    },
  },
  {
    name: 'the walls gain another capability',
    expect: /walls: cap_add must be exactly NET_ADMIN and NET_RAW/,
    check: wallsViolations,
    mutate: (f) => {
      service(f, 'walls').cap_add = ['NET_ADMIN', 'NET_RAW', 'SYS_ADMIN'];
    },
  },
  {
    name: "the walls mount the engine's socket",
    expect: /walls: its mounts must be exactly/,
    check: wallsViolations,
    mutate: (f) => {
      service(f, 'walls').volumes?.push('/var/run/docker.sock:/var/run/docker.sock');
    },
  },
  {
    name: 'the walls join a network of the lab',
    expect: /walls: network_mode must be host[\s\S]*walls: joins no network/,
    check: wallsViolations,
    mutate: (f) => {
      const walls = service(f, 'walls');
      delete walls.network_mode;
      walls.networks = ['editor'];
    },
  },
  {
    name: "another service on the host's network",
    expect: /console: only the walls may use network_mode/,
    check: wallsViolations,
    mutate: (f) => {
      service(f, 'console').network_mode = 'host';
    },
  },
  {
    name: 'the console starts before the walls are up',
    expect: /console: must start once the walls are healthy/,
    check: wallsViolations,
    mutate: (f) => {
      service(f, 'console').depends_on = { 'mock-api': { condition: 'service_healthy' } };
    },
  },
  {
    name: 'a service writes its root filesystem',
    expect: /postgres: read_only must be true/,
    check: hardeningViolations,
    mutate: (f) => {
      service(f, 'postgres').read_only = false;
    },
  },
  {
    name: 'a service keeps its capabilities',
    expect: /postgres: cap_drop must include ALL/,
    check: hardeningViolations,
    mutate: (f) => {
      service(f, 'postgres').cap_drop = ['NET_RAW'];
    },
  },
  {
    name: 'a service may gain privileges',
    expect: /n8n: security_opt must set no-new-privileges/,
    check: hardeningViolations,
    mutate: (f) => {
      service(f, 'n8n').security_opt = [];
    },
  },
  {
    name: 'a service runs as root',
    expect: /mock-api: user must be set and not root/,
    check: hardeningViolations,
    mutate: (f) => {
      service(f, 'mock-api').user = '0:0';
    },
  },
  {
    name: 'a service has no memory limit',
    expect: /n8n: mem_limit must be set/,
    check: hardeningViolations,
    mutate: (f) => {
      delete service(f, 'n8n').mem_limit;
    },
  },
  {
    name: 'a service has no processor limit',
    expect: /postgres: cpus must be set/,
    check: hardeningViolations,
    mutate: (f) => {
      delete service(f, 'postgres').cpus;
    },
  },
  {
    name: 'a service has no pids limit',
    expect: /mock-api: pids_limit must be set/,
    check: hardeningViolations,
    mutate: (f) => {
      delete service(f, 'mock-api').pids_limit;
    },
  },
  {
    name: 'a long-running service has no healthcheck',
    expect: /postgres: a healthcheck is needed/,
    check: hardeningViolations,
    mutate: (f) => {
      delete service(f, 'postgres').healthcheck;
    },
  },
  {
    name: 'n8n drifts from the e2e version',
    expect: /must be pinned to n8nio\/n8n:/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      service(f, 'n8n').image = 'n8nio/n8n:1.123.4';
    },
  },
  {
    name: 'an image is not pinned',
    expect: /postgres: image postgres:latest must be pinned/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      service(f, 'postgres').image = 'postgres:latest';
    },
  },
  {
    name: 'an image pinned to a moving major tag',
    expect: /postgres: image postgres:16-alpine must be pinned/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      service(f, 'postgres').image = 'postgres:16-alpine';
    },
  },
  {
    name: 'n8n phones home',
    expect: /n8n: N8N_DIAGNOSTICS_ENABLED must be false/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      const s = service(f, 'n8n');
      s.environment = {
        ...(Array.isArray(s.environment) ? {} : s.environment),
        N8N_DIAGNOSTICS_ENABLED: 'true',
      };
    },
  },
  {
    name: 'n8n starts before Postgres is healthy',
    expect: /n8n: must wait for postgres with condition service_healthy/,
    check: (f) => n8nViolations(f, n8nVersion),
    mutate: (f) => {
      service(f, 'n8n').depends_on = ['postgres', 'mock-api'];
    },
  },
  {
    name: 'the console is published on every interface',
    expect: /console: its port must be published on 127\.0\.0\.1 only/,
    check: isolationViolations,
    mutate: (f) => {
      service(f, 'console').ports = ['8088:8088', '127.0.0.1:5678:5678'];
    },
  },
  {
    name: 'the console joins the lab network',
    expect: /console: must share no network with mock-api/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').networks = ['editor', 'n8n-front', 'lab-internal'];
    },
  },
  {
    name: 'the console reaches the mock API over TCP',
    expect: /must not be given a MOCK_API_URL/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').environment = {
        ...(service(f, 'console').environment as object),
        MOCK_API_URL: 'http://mock-api:8081',
      };
    },
  },
  {
    name: 'another service mounts the socket volume',
    expect: /volume mock-api-socket: must be mounted by mock-api, console and tools only/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'n8n').volumes = [...(service(f, 'n8n').volumes ?? []), 'mock-api-socket:/run/mock-api'];
    },
  },
  {
    name: 'the console looks for the socket elsewhere',
    expect: /MOCK_API_SOCKET must be mock-api's SOCKET_PATH/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').environment = {
        ...(service(f, 'console').environment as object),
        MOCK_API_SOCKET: '/tmp/x.sock',
      };
    },
  },
  {
    name: 'the console accepts resume URLs of another origin',
    expect: /N8N_PUBLIC_URL must be n8n's WEBHOOK_URL origin/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').environment = {
        ...(service(f, 'console').environment as object),
        N8N_PUBLIC_URL: 'http://attacker.example',
      };
    },
  },
  {
    name: 'the console builds its own image',
    expect: /console: must run the mock API's image/,
    check: consoleViolations,
    mutate: (f) => {
      service(f, 'console').image = 'soar-lab/console:1';
    },
  },
];

describe('the compose policy rejects each broken fixture', () => {
  it.each(brokenCompose)('$name', ({ mutate, check, expect: reason }) => {
    const file = lab();
    expect(check(file)).toEqual([]);
    mutate(file);
    expect(check(file).join('\n')).toMatch(reason);
  });

  it('a file with an unknown key fails the compose-spec schema', () => {
    const doc = parseYaml(
      composeText.replace('  mock-api:\n', '  mock-api:\n    publish_everything: true\n'),
    );
    expect(schemaViolations(doc).join('\n')).toMatch(/must NOT have additional properties/);
  });

  it('a top-level name: fails the compose-spec schema', () => {
    expect(schemaViolations(parseYaml(`name: soar-lab\n${composeText}`)).join('\n')).toMatch(
      /additional properties/,
    );
  });
});

describe('the engine test override (test/engine/compose.stand-ins.yaml)', () => {
  const overrideText = readRepoFile('test/engine/compose.stand-ins.yaml');

  it('only swaps image, entrypoint, command and healthcheck of the unpullable services', () => {
    expect(overrideViolations(parseYaml(overrideText))).toEqual([]);
  });

  it('leaves the merged lab as isolated and hardened as compose.yaml', () => {
    const merged = lab();
    const override = ComposeFile.parse(parseYaml(overrideText));
    for (const [name, patch] of Object.entries(override.services)) {
      const base = service(merged, name);
      const healthcheck = patch.healthcheck
        ? { ...base.healthcheck, ...patch.healthcheck }
        : base.healthcheck;
      merged.services[name] = { ...base, ...patch, healthcheck };
    }
    expect(hardeningViolations(merged)).toEqual([]);
    expect(isolationViolations(merged)).toEqual([]);
    expect(merged.services['mock-api']).toEqual(lab().services['mock-api']);
    expect(merged.networks).toEqual(lab().networks);
  });

  it.each([
    ['the mock API', 'services:\n  mock-api:\n    image: x\n', /service mock-api must not be overridden/],
    ['a network', 'networks:\n  lab-internal:\n    internal: false\n', /top-level networks/],
    [
      'hardening',
      'services:\n  postgres:\n    read_only: false\n',
      /postgres\.read_only must not be overridden/,
    ],
    ['a port', 'services:\n  n8n:\n    ports: ["8081:8081"]\n', /n8n\.ports must not be overridden/],
  ])('rejects an override that touches %s', (_what, text, reason) => {
    expect(overrideViolations(parseYaml(text)).join('\n')).toMatch(reason);
  });
});
