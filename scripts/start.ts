// `pnpm start` / `./dev start`: embedded mode; with --cluster, every service as its own process.
// A developer's machine: the API and the portal listen on loopback unless HOST says otherwise
// (the container image sets HOST=0.0.0.0; a service started directly keeps its own default).
process.env['HOST'] ||= '127.0.0.1';
if (process.argv.includes('--cluster')) await import('../services/cluster/src/main.ts');
else await import('../services/embedded/src/main.ts');
