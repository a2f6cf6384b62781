const mode = process.argv[2];
if (mode === 'monitor10') {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  monitorEventLoopDelay({ resolution: 10 }).enable();
}
if (mode === 'monitor100') {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  monitorEventLoopDelay({ resolution: 100 }).enable();
}
if (mode === 'prom') {
  const { collectDefaultMetrics, Registry } = await import('prom-client');
  collectDefaultMetrics({ register: new Registry() });
}
const t = setInterval(() => {}, 1e6);
await new Promise((r) => setTimeout(r, 1000));
const c0 = process.cpuUsage();
await new Promise((r) => setTimeout(r, 5000));
const c = process.cpuUsage(c0);
console.log(mode.padEnd(12), ((c.user + c.system) / 5 / 1000).toFixed(2), 'ms of CPU a second, idle');
clearInterval(t);
process.exit(0);
