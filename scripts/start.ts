// `pnpm start` / `./dev start`: embedded mode; with --cluster, every service as its own process.
if (process.argv.includes('--cluster')) await import('../services/cluster/src/main.ts');
else await import('../services/embedded/src/main.ts');
