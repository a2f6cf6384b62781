// NATS authentication in the chart (nats.auth, nats.tls) rendered by the real Helm: the bundled
// NATS requires credentials generated once (and the real nats-server, run with the rendered
// configuration and Secret, refuses a client without them); each kind for an external NATS,
// from values and from a Secret of one's own, reaches every service and the migrate Job as the
// application reads it (parsed by its own parseNatsEnv, the files written where the pod would
// see them); the combinations the application or the bundled server could not use refused at
// render; NATS_PREFIX and the stream bounds.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsBus } from '@wirehook/bus';
import { natsBusOptions, natsEnv, parseNatsEnv } from '@wirehook/platform';
import { freePort } from '@wirehook/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeKubeApi, startFakeKubeApi } from './fake-kube-api.ts';
import { byKind, container, named, refused, template } from './helm-render.ts';
import { type Manifest, validateObject } from './manifests.ts';

let kube: FakeKubeApi;
beforeAll(async () => {
  kube = await startFakeKubeApi();
});
afterAll(() => kube?.close());

const BUNDLED = ['mongodbUrl=mongodb://mongo.example.net:27017/wirehook?replicaSet=rs0', 'redisUrl=redis://redis.example.net:6379', 'nats.enabled=true'];
const EXTERNAL_KEYS = ['secrets.existingSecret=k', 'natsUrl=tls://connect.ngs.global'];

/** The Wirehook workloads: every service's Deployment and the migrate Job. */
const wirehookWorkloads = (objects: Manifest[]) => [...byKind(objects, 'Deployment'), named(objects, 'Job', 'wh-migrate')];

/** A Secret's data, decoded. */
const decoded = (secret: Manifest) =>
  Object.fromEntries(Object.entries((secret['data'] ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

/**
 * The NATS variables a workload's container gets, resolved as the kubelet would: literal values,
 * secretKeyRefs from the rendered Secrets (or `secrets` for ones made outside), and the projected
 * files written under `dir` in place of /etc/wirehook/nats.
 */
function natsEnvironment(objects: Manifest[], workload: Manifest, dir: string, secrets: Record<string, Record<string, string>> = {}): Record<string, string> {
  const data = (name: string) => secrets[name] ?? decoded(named(objects, 'Secret', name));
  const env: Record<string, string> = {};
  for (const e of container(workload).env as { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[]) {
    if (!e.name.startsWith('NATS_')) continue;
    const ref = e.valueFrom?.secretKeyRef;
    const value = ref ? data(ref.name)[ref.key] : e.value;
    expect(value, `${workload.metadata.name}: ${e.name}`).toBeDefined();
    env[e.name] = value!.replace('/etc/wirehook/nats', dir);
  }
  const spec = workload['spec'].template.spec;
  const volume = (spec.volumes ?? []).find((v: { name: string }) => v.name === 'nats-client');
  if (volume) {
    expect(container(workload).volumeMounts).toContainEqual({ name: 'nats-client', mountPath: '/etc/wirehook/nats', readOnly: true });
    for (const source of volume.projected.sources as { secret: { name: string; items: { key: string; path: string }[] } }[]) {
      for (const item of source.secret.items) writeFileSync(join(dir, item.path), data(source.secret.name)[item.key]!);
    }
  }
  return env;
}

describe('the bundled NATS', () => {
  it('requires credentials by default: made once in <release>-nats-auth (a kept hook), read by the server from env, given to services, migrate', async () => {
    const objects = await template(BUNDLED, { kubeconfig: kube.kubeconfig });
    const secret = named(objects, 'Secret', 'wh-nats-auth');
    expect(secret.metadata['annotations']).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/resource-policy': 'keep' });
    const { NATS_USER, NATS_PASSWORD, NATS_TOKEN } = decoded(secret);
    expect(NATS_USER).toBe('wirehook');
    // A letter first: nats-server parses an environment value as configuration (1e5… is a number).
    expect(NATS_PASSWORD).toMatch(/^p[A-Za-z0-9]{40}$/);
    expect(NATS_TOKEN).toMatch(/^t[A-Za-z0-9]{40}$/);
    const conf = named(objects, 'ConfigMap', 'wh-nats')['data']['nats.conf'] as string;
    expect(conf).toMatch(/authorization \{\s+user: \$NATS_USER\s+password: \$NATS_PASSWORD\s+\}/);
    const refs = [
      { name: 'NATS_USER', valueFrom: { secretKeyRef: { name: 'wh-nats-auth', key: 'NATS_USER' } } },
      { name: 'NATS_PASSWORD', valueFrom: { secretKeyRef: { name: 'wh-nats-auth', key: 'NATS_PASSWORD' } } },
    ];
    expect(container(named(objects, 'StatefulSet', 'wh-nats')).env).toEqual(expect.arrayContaining(refs));
    for (const w of wirehookWorkloads(objects)) expect(container(w).env, w.metadata.name).toEqual(expect.arrayContaining(refs));
    // Made once: an upgrade finds it and renders none (nor does a rollback re-apply one).
    kube.secrets.set('wirehook/wh-nats-auth', {});
    try {
      const again = await template(BUNDLED, { kubeconfig: kube.kubeconfig });
      expect(byKind(again, 'Secret').map((s) => s.metadata.name)).not.toContain('wh-nats-auth');
      expect(container(named(again, 'Deployment', 'wh-dispatcher')).env).toEqual(expect.arrayContaining(refs));
    } finally {
      kube.clear();
    }
  });

  it('rendered without a cluster it takes them from secrets.existingSecret (NATS_USER, NATS_PASSWORD), or asks for them', async () => {
    const objects = await template(['secrets.existingSecret=k', 'nats.enabled=true']);
    expect(container(named(objects, 'StatefulSet', 'wh-nats')).env).toContainEqual({
      name: 'NATS_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'k', key: 'NATS_PASSWORD' } },
    });
    expect(container(named(objects, 'Deployment', 'wh-gateway')).env).toContainEqual({
      name: 'NATS_USER',
      valueFrom: { secretKeyRef: { name: 'k', key: 'NATS_USER' } },
    });
    const token = await template(['secrets.existingSecret=k', 'nats.enabled=true', 'nats.auth.type=token', 'nats.auth.existingSecret=nats-token']);
    expect(named(token, 'ConfigMap', 'wh-nats')['data']['nats.conf']).toMatch(/authorization \{\s+token: \$NATS_TOKEN\s+\}/);
    expect(container(named(token, 'Deployment', 'wh-recovery')).env).toContainEqual({
      name: 'NATS_TOKEN',
      valueFrom: { secretKeyRef: { name: 'nats-token', key: 'NATS_TOKEN' } },
    });
    expect(await refused([...BUNDLED, 'networkPolicy.dns.lookupClusterIP=false'])).toMatch(/secrets\.existingSecret/);
  });

  it.each([
    ['user', [], { NATS_USER: 'wirehook', NATS_PASSWORD: 'pWrongWrongWrong' }],
    ['token', ['nats.auth.type=token'], { NATS_TOKEN: 'tWrongWrongWrong' }],
  ] as const)(
    '%s: the real nats-server, run with the rendered configuration and Secret, refuses a client without them or with wrong ones and takes Wirehook’s',
    async (_, sets, wrong) => {
      const objects = await template([...BUNDLED, ...sets], { kubeconfig: kube.kubeconfig });
      const dir = mkdtempSync(join(tmpdir(), 'wirehook-chart-nats-'));
      const port = await freePort();
      const monitor = await freePort();
      const conf = (named(objects, 'ConfigMap', 'wh-nats')['data']['nats.conf'] as string)
        .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${port}`)
        .replace('http: 0.0.0.0:8222', `http: 127.0.0.1:${monitor}`)
        .replace('store_dir: /data', `store_dir: ${JSON.stringify(join(dir, 'data'))}`);
      writeFileSync(join(dir, 'nats.conf'), conf);
      // The server's environment as its StatefulSet gives it (the credentials from the Secret).
      const serverEnv = natsEnvironment(objects, named(objects, 'StatefulSet', 'wh-nats'), dir);
      expect(Object.keys(serverEnv).length).toBeGreaterThan(0);
      const server = spawn('nats-server', ['--config', join(dir, 'nats.conf')], {
        env: { PATH: `${process.env['PATH']}:/usr/sbin`, POD_NAME: 'wh-nats-0', ...serverEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        let log = '';
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 15_000);
          const seen = (chunk: Buffer) => {
            log += chunk.toString();
            if (log.includes('Server is ready')) {
              clearTimeout(timer);
              resolve();
            }
          };
          server.stdout.on('data', seen);
          server.stderr.on('data', seen);
          server.once('exit', (code) => reject(new Error(`nats-server exited (${code}):\n${log}`)));
        });
        const url = `nats://127.0.0.1:${port}`;
        const connectWith = (env: Record<string, string>) => {
          const config = z.object(natsEnv).parse({ ...env, NATS_URL: url, NATS_STREAM_MAX_BYTES: '1048576' });
          return NatsBus.connect({ ...natsBusOptions(config), name: 'chart-check', reconnectWaitMs: 100 });
        };
        await expect(connectWith({})).rejects.toThrow(/authorization/i);
        await expect(connectWith(wrong)).rejects.toThrow(/authorization/i);
        const dispatcherEnv = natsEnvironment(objects, named(objects, 'Deployment', 'wh-dispatcher'), dir);
        const bus = await connectWith(dispatcherEnv);
        await bus.close();
      } finally {
        server.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it('a 3-server cluster’s rendered configuration is one nats-server accepts (nats-server -t)', async () => {
    const objects = await template(['secrets.existingSecret=k', 'nats.enabled=true', 'nats.replicas=3', 'nats.jetstream.maxFileStore=1Gi']);
    const dir = mkdtempSync(join(tmpdir(), 'wirehook-chart-nats-'));
    try {
      writeFileSync(
        join(dir, 'nats.conf'),
        named(objects, 'ConfigMap', 'wh-nats')['data']['nats.conf'].replace('store_dir: /data', `store_dir: ${JSON.stringify(dir)}`),
      );
      const res = spawnSync('nats-server', ['--config', join(dir, 'nats.conf'), '-t'], {
        env: { PATH: `${process.env['PATH']}:/usr/sbin`, POD_NAME: 'wh-nats-0', NATS_USER: 'wirehook', NATS_PASSWORD: 'pAbcdefgh1234' },
        encoding: 'utf8',
      });
      expect(`${res.stdout}${res.stderr}`).toContain('is valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pinned by digest; GOMEMLIMIT, JetStream limits from resources and volume; the exporter opens 7777 (never 8222) to monitoring while it runs', async () => {
    const objects = await template(['secrets.existingSecret=k', 'nats.enabled=true']);
    const sts = named(objects, 'StatefulSet', 'wh-nats');
    expect(container(sts).image).toMatch(/^docker\.io\/library\/nats:2\.11\.\d+-alpine@sha256:[0-9a-f]{64}$/);
    // 90 % of the 1Gi limit; JetStream: half the limit in memory, 90 % of the 10Gi volume on file.
    expect(container(sts).env).toContainEqual({ name: 'GOMEMLIMIT', value: String(Math.floor(1024 ** 3 * 0.9)) });
    const conf = named(objects, 'ConfigMap', 'wh-nats')['data']['nats.conf'] as string;
    expect(conf).toContain(`max_memory_store: ${1024 ** 3 / 2}`);
    expect(conf).toContain(`max_file_store: ${Math.floor(10 * 1024 ** 3 * 0.9)}`);
    expect(sts['spec'].template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['nats']);
    const policyPorts = (all: Manifest[]) =>
      byKind(all, 'NetworkPolicy').flatMap((p) => (p['spec'].ingress ?? []).flatMap((r: { ports?: { port: number }[] }) => (r.ports ?? []).map((x) => x.port)));
    expect(policyPorts(objects)).not.toContain(8222);
    expect(policyPorts(objects)).not.toContain(7777);
    // Routes only between the NATS pods; clients from the release's pods.
    const natsPolicy = named(objects, 'NetworkPolicy', 'wh-nats')['spec'];
    expect(natsPolicy.ingress).toContainEqual({
      from: [
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'wirehook', 'app.kubernetes.io/instance': 'wh', 'app.kubernetes.io/component': 'nats' } } },
      ],
      ports: [{ port: 6222 }],
    });
    const tuned = await template([
      'secrets.existingSecret=k',
      'nats.enabled=true',
      'nats.goMemLimit=700Mi',
      'nats.jetstream.maxFileStore=2Gi',
      'nats.jetstream.maxMemoryStore=256Mi',
      'nats.metrics.enabled=true',
    ]);
    const tunedSts = named(tuned, 'StatefulSet', 'wh-nats');
    expect(container(tunedSts).env).toContainEqual({ name: 'GOMEMLIMIT', value: String(700 * 1024 ** 2) });
    expect(named(tuned, 'ConfigMap', 'wh-nats')['data']['nats.conf']).toContain(`max_file_store: ${2 * 1024 ** 3}`);
    const exporter = tunedSts['spec'].template.spec.containers[1];
    expect(exporter.name).toBe('exporter');
    expect(exporter.image).toBe('docker.io/natsio/prometheus-nats-exporter:0.17.3');
    expect(exporter.args.at(-1)).toBe('http://localhost:8222');
    expect(named(tuned, 'Service', 'wh-nats')['spec'].ports).toContainEqual({ name: 'metrics', port: 7777, targetPort: 'metrics' });
    expect(named(tuned, 'NetworkPolicy', 'wh-nats')['spec'].ingress).toContainEqual({
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      ports: [{ port: 7777 }],
    });
    expect(policyPorts(tuned)).not.toContain(8222);
    // A store too small for one stream's bound is refused.
    expect(await refused(['secrets.existingSecret=k', 'nats.enabled=true', 'nats.jetstream.maxFileStore=1Mi'])).toContain('smaller than one stream');
  });

  it('is not rendered when natsUrl names another NATS, even with nats.enabled', async () => {
    const objects = await template(['secrets.existingSecret=k', 'nats.enabled=true', 'natsUrl=nats://shared-nats.nats:4222']);
    expect(objects.filter((o) => o.metadata['labels']?.['app.kubernetes.io/component'] === 'nats')).toEqual([]);
    // Beside the existing Secret, natsUrl reaches the pods through the ConfigMap (a NATS_URL in the Secret, later in envFrom, wins).
    expect(named(objects, 'ConfigMap', 'wh-config')['data'].NATS_URL).toBe('nats://shared-nats.nats:4222');
    expect(container(named(objects, 'Deployment', 'wh-dispatcher')).envFrom).toEqual([{ configMapRef: { name: 'wh-config' } }, { secretRef: { name: 'k' } }]);
    const job = named(objects, 'Job', 'wh-migrate');
    expect(job.metadata['annotations']['helm.sh/hook']).toBe('pre-upgrade');
    expect(container(job).args).toEqual(['migrate']);
    // The Job's first PreSync runs without the ConfigMap: its copy carries natsUrl, before the Secret.
    expect(container(job).envFrom).toEqual([
      { configMapRef: { name: 'wh-config', optional: true } },
      { secretRef: { name: 'wh-migrate' } },
      { secretRef: { name: 'k' } },
    ]);
    expect(decoded(named(objects, 'Secret', 'wh-migrate'))).toEqual({ NATS_URL: 'nats://shared-nats.nats:4222' });
  });

  it('beside secrets.existingSecret, URL values that would be ignored are refused, and natsUrl with credentials (it would show in the ConfigMap)', async () => {
    for (const set of ['mongodbUrl=mongodb://m.example.net:27017/w', 'redisUrl=redis://r.example.net:6379', 'email.smtpUrl=smtp://mail:25']) {
      expect(await refused(['secrets.existingSecret=k', 'natsUrl=nats://n:4222', set]), set).toContain(
        'mongodbUrl, redisUrl and email.smtpUrl are read from secrets.existingSecret (k: MONGODB_URL, REDIS_URL, SMTP_URL)',
      );
    }
    expect(await refused(['secrets.existingSecret=k', 'natsUrl=nats://u:p@n:4222'])).toContain('natsUrl carries credentials and secrets.existingSecret is set');
  });
});

describe('an external NATS', () => {
  const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const cases: { kind: string; sets: string[]; secrets?: Record<string, Record<string, string>>; expect: object }[] = [
    {
      kind: 'user, as values',
      sets: ['nats.auth.type=user', 'nats.auth.user=acme', 'nats.auth.password=s3cret!#'],
      expect: { kind: 'user', user: 'acme', password: 's3cret!#' },
    },
    { kind: 'token, as values', sets: ['nats.auth.type=token', 'nats.auth.token=tok-en'], expect: { kind: 'token', token: 'tok-en' } },
    {
      kind: 'nkey, as values',
      sets: ['nats.auth.type=nkey', 'nats.auth.nkeySeed=SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY'],
      expect: { kind: 'nkey' },
    },
    {
      kind: 'creds, from nats.auth.existingSecret',
      sets: ['nats.auth.type=creds', 'nats.auth.existingSecret=ngs'],
      secrets: {
        ngs: {
          'user.creds':
            '-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n-----BEGIN USER NKEY SEED-----\nSUAB\n------END USER NKEY SEED------\n',
        },
      },
      expect: { kind: 'creds' },
    },
    {
      kind: 'user from nats.auth.existingSecret, TLS with a CA and a client certificate from values',
      sets: ['nats.auth.type=user', 'nats.auth.existingSecret=nats-user', `nats.tls.ca=${CA}`, `nats.tls.cert=${CA}`, 'nats.tls.key=KEY'],
      secrets: { 'nats-user': { NATS_USER: 'u', NATS_PASSWORD: 'p' } },
      expect: { kind: 'user', user: 'u', password: 'p' },
    },
    {
      kind: 'none, TLS from a cert-manager Secret (ca.crt, tls.crt, tls.key)',
      sets: ['nats.tls.existingSecret=nats-client-tls', 'nats.tls.existingSecretKeys.cert=tls.crt', 'nats.tls.existingSecretKeys.key=tls.key'],
      secrets: { 'nats-client-tls': { 'ca.crt': CA, 'tls.crt': CA, 'tls.key': 'KEY' } },
      expect: { kind: 'none' },
    },
  ];

  it.each(cases)('$kind: every service and the migrate Job get it as the application reads it', async ({ sets, secrets, expect: auth }) => {
    const objects = await template([...EXTERNAL_KEYS, ...sets.filter((s) => !s.includes('\n'))], {
      setString: sets.filter((s) => s.includes('\n')),
    });
    for (const w of wirehookWorkloads(objects)) {
      await expect(validateObject(w), w.metadata.name).resolves.toBeUndefined();
      const dir = mkdtempSync(join(tmpdir(), 'wirehook-nats-files-'));
      mkdirSync(dir, { recursive: true });
      try {
        const env = natsEnvironment(objects, w, dir, secrets);
        const parsed = parseNatsEnv(z.object(natsEnv).parse({ ...env, NATS_URL: 'tls://connect.ngs.global' }));
        expect(parsed.problems, w.metadata.name).toBeUndefined();
        expect(parsed.options!.auth, w.metadata.name).toMatchObject(auth);
        const tls = sets.some((s) => s.startsWith('nats.tls.'));
        expect(Boolean(parsed.options!.tls?.caFile), w.metadata.name).toBe(tls);
        expect(Boolean(parsed.options!.tls?.certFile), w.metadata.name).toBe(tls);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  // Every Secret the migrate Job reads exists before it runs: made outside the release, or a hook
  // of a lower weight. Release objects (<release>-secrets, -nats-client) are applied only after
  // the pre-upgrade hooks: the Job would read the last release's values (a rotated password, the
  // old one), or on Argo CD's first sync wait for a Secret that does not exist yet.
  it.each([
    ['NATS user and TLS as values, URLs as values', ['nats.auth.type=user', 'nats.auth.user=acme', 'nats.auth.password=n3w-pass'], true],
    [
      'an nkey seed as values, everything else in secrets.existingSecret',
      ['secrets.existingSecret=k', 'nats.auth.type=nkey', 'nats.auth.nkeySeed=SUAC'],
      false,
    ],
  ])('%s: the migrate Job reads only Secrets made before it (a copy of the values, deleted once the hooks succeed)', async (_, sets, urls) => {
    const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const base = urls
      ? ['mongodbUrl=mongodb://m.example.net:27017/w', 'redisUrl=redis://r.example.net:6379', 'natsUrl=tls://connect.ngs.global']
      : ['natsUrl=tls://connect.ngs.global'];
    const objects = await template([...base, ...sets], { kubeconfig: kube.kubeconfig, setString: [`nats.tls.ca=${CA}`] });
    const job = named(objects, 'Job', 'wh-migrate');
    const jobWeight = Number(job.metadata['annotations']['helm.sh/hook-weight']);
    const spec = job['spec'].template.spec;
    const read = new Set<string>([
      ...(container(job).envFrom as { secretRef?: { name: string } }[]).flatMap((e) => (e.secretRef ? [e.secretRef.name] : [])),
      ...(container(job).env as { valueFrom?: { secretKeyRef?: { name: string } } }[]).flatMap((e) =>
        e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [],
      ),
      ...(spec.volumes ?? []).flatMap((v: { projected?: { sources: { secret: { name: string } }[] } }) => v.projected?.sources.map((x) => x.secret.name) ?? []),
    ]);
    for (const name of read) {
      if (name === 'k') continue; // secrets.existingSecret: made outside the release
      const secret = named(objects, 'Secret', name);
      const hook = secret.metadata['annotations'] ?? {};
      expect(hook['helm.sh/hook'], name).toMatch(/pre-upgrade/);
      expect(Number(hook['helm.sh/hook-weight']), name).toBeLessThan(jobWeight);
    }
    // Two copies, each deleted once the hooks succeed: the URLs (read as environment) and the
    // NATS material (read key by key and as files: a seed or a key never becomes a variable).
    const copy = named(objects, 'Secret', 'wh-migrate');
    const natsCopy = named(objects, 'Secret', 'wh-migrate-nats');
    for (const c of [copy, natsCopy]) expect(c.metadata['annotations']['helm.sh/hook-delete-policy']).toBe('before-hook-creation,hook-succeeded');
    expect(container(job).envFrom).toContainEqual({ secretRef: { name: 'wh-migrate' } });
    expect(container(job).envFrom).not.toContainEqual({ secretRef: { name: 'wh-migrate-nats' } });
    expect(read).toContain('wh-migrate-nats');
    // They hold what the release's own Secrets hold: this release's values, not the last one's.
    expect(decoded(natsCopy)).toEqual(decoded(named(objects, 'Secret', 'wh-nats-client')));
    const copied = decoded(copy);
    if (urls) expect(copied).toEqual(decoded(named(objects, 'Secret', 'wh-secrets')));
    else expect(copied).toEqual({ NATS_URL: 'tls://connect.ngs.global' }); // natsUrl beside the existing Secret
    // The services keep reading the release's own Secret.
    const dispatcher = named(objects, 'Deployment', 'wh-dispatcher');
    expect(JSON.stringify(dispatcher)).not.toContain('wh-migrate');
    expect(JSON.stringify(dispatcher)).toContain('wh-nats-client');
  });

  it('credentials in natsUrl alone (the default type none): nothing added', async () => {
    const objects = await template(
      ['mongodbUrl=mongodb://m.example.net:27017/w', 'redisUrl=redis://r.example.net:6379', 'natsUrl=nats://u:p@nats.example.net:4222'],
      {
        kubeconfig: kube.kubeconfig,
      },
    );
    for (const w of wirehookWorkloads(objects)) {
      expect(
        (container(w).env as { name: string }[]).filter((e) => e.name.startsWith('NATS_') && !e.name.startsWith('NATS_STREAM') && e.name !== 'NATS_PREFIX'),
      ).toEqual([]);
      expect(w['spec'].template.spec.volumes).toBeUndefined();
    }
  });

  it.each([
    [['nats.enabled=true', 'nats.auth.type=creds', 'nats.auth.creds=x'], 'for an external NATS'],
    [['nats.enabled=true', 'nats.tls.ca=x'], 'nats.tls is for an external NATS'],
    [['natsUrl=nats://n:4222', 'nats.auth.type=token', 'nats.auth.token=a', 'nats.auth.existingSecret=s'], 'set together'],
    [['natsUrl=nats://n:4222', 'nats.auth.type=user', 'nats.auth.token=abc'], 'nats.auth has token credentials but nats.auth.type is user'],
    [['natsUrl=nats://n:4222', 'nats.auth.type=user', 'nats.auth.password=abc'], 'needs both nats.auth.user and nats.auth.password'],
    [['natsUrl=nats://n:4222', 'nats.auth.type=creds'], 'nats.auth.type=creds needs its credentials'],
    [['natsUrl=nats://u:p@n:4222', 'nats.auth.type=user', 'nats.auth.user=u', 'nats.auth.password=p'], 'natsUrl carries credentials'],
    [['natsUrl=tls://n:4222', 'nats.tls.cert=x'], 'needs both the certificate and its key'],
    [['nats.enabled=true', 'nats.auth.user=wirehook', 'nats.auth.password=1e5passwd'], 'reads it as a configuration value'],
    [['nats.enabled=true', 'nats.auth.type=token', 'nats.auth.token=short'], 'at least 8 characters'],
    [['natsUrl=ws://n:80'], 'does not match pattern'],
    [['nats.prefix=Acme'], 'does not match pattern'],
  ])('refused at render: %j', async (sets, message) => {
    expect(await refused(['secrets.existingSecret=k', ...sets])).toContain(message);
  });
});

describe('names in NATS and the streams’ bounds', () => {
  it('NATS_PREFIX is <namespace>-<fullname> (same-named releases in two namespaces differ), hashed past 32, or nats.prefix; the migrate Job too', async () => {
    const prefixOf = async (sets: string[], namespace = 'wirehook', release = 'wh') => {
      const objects = await template(['secrets.existingSecret=k', ...sets], { namespace, release });
      const prefix = named(objects, 'ConfigMap', `${release}-config`)['data'].NATS_PREFIX as string;
      expect(container(named(objects, 'Job', `${release}-migrate`)).env).toContainEqual({ name: 'NATS_PREFIX', value: prefix });
      return prefix;
    };
    expect(await prefixOf([])).toBe('wirehook-wh');
    expect(await prefixOf([], 'staging')).toBe('staging-wh');
    expect(await prefixOf(['nats.prefix=acme'])).toBe('acme');
    const long = await prefixOf([], 'payments-production-eu-west-1', 'wirehook-primary');
    const other = await prefixOf([], 'payments-production-eu-west-1', 'wirehook-secondary');
    for (const p of [long, other]) expect(p).toMatch(/^[a-z0-9][a-z0-9_-]{0,31}$/);
    expect(long).not.toBe(other);
    expect(long.startsWith('payments-production-eu')).toBe(true);
  });

  it('the streams are bounded by default (a day, 64 MiB) through the variables the application reads, in every service and the migrate Job', async () => {
    const objects = await template(['secrets.existingSecret=k']);
    expect(named(objects, 'ConfigMap', 'wh-config')['data']).toMatchObject({ NATS_STREAM_MAX_AGE_SECONDS: '86400', NATS_STREAM_MAX_BYTES: '67108864' });
    expect(container(named(objects, 'Job', 'wh-migrate')).env).toEqual(
      expect.arrayContaining([
        { name: 'NATS_STREAM_MAX_AGE_SECONDS', value: '86400' },
        { name: 'NATS_STREAM_MAX_BYTES', value: '67108864' },
      ]),
    );
    const tuned = await template(['secrets.existingSecret=k', 'jetstream.maxAgeSeconds=3600', 'jetstream.maxBytes=268435456']);
    expect(named(tuned, 'ConfigMap', 'wh-config')['data']).toMatchObject({ NATS_STREAM_MAX_AGE_SECONDS: '3600', NATS_STREAM_MAX_BYTES: '268435456' });
    // Under the stream's 120 s duplicate window JetStream refuses the stream: refused here first.
    expect(await refused(['secrets.existingSecret=k', 'jetstream.maxAgeSeconds=60'])).toContain('maxAgeSeconds');
  });
});
