import { DatabaseSync } from 'node:sqlite';
import { rmSync, statSync } from 'node:fs';
function run(dir, n = 100_000, batch = 25) {
  const path = `/tmp/descbench/db-${dir}.sqlite`;
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0');
  db.exec(`CREATE TABLE m (id TEXT PRIMARY KEY, org TEXT, env TEXT, status TEXT, et TEXT, payload TEXT)`);
  db.exec(`CREATE INDEX m_t ON m (org, env, id ${dir}); CREATE INDEX m_s ON m (org, env, status, id ${dir}); CREATE INDEX m_e ON m (org, env, et, id ${dir})`);
  const ins = db.prepare('INSERT INTO m VALUES (?, ?, ?, ?, ?, ?)');
  const payload = 'x'.repeat(1024);
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i += batch) {
    db.exec('BEGIN');
    for (let j = i; j < i + batch; j++) ins.run(`msg_${String(j).padStart(12, '0')}`, 'org_1', 'live', 'pending', `e${j % 4}`, payload);
    db.exec('COMMIT');
  }
  const t = process.cpuUsage(t0);
  const us = (t.user + t.system) / n;
  const wal = statSync(`${path}-wal`).size / n;
  const pages = db.prepare("SELECT name, count(*) AS n FROM dbstat WHERE name LIKE 'm_%' GROUP BY name").all();
  db.close();
  return { us: us.toFixed(1), walBytes: Math.round(wal), pages: pages.map((p) => `${p.name}:${p.n}`).join(' ') };
}
for (let r = 0; r < 2; r++) for (const dir of ['DESC', 'ASC']) console.log(dir, JSON.stringify(run(dir)));
