// Embedded mode: every Wirehook service in one process, data in DATA_DIR. `./dev start`.
import { startTracing } from '@wirehook/platform/tracing';

// Tracing first, everything else after it (see the gateway's main).
const tracing = await startTracing({ serviceName: 'wirehook' });
const { embeddedStopMs, systemClock } = await import('@wirehook/core');
const { createLogger, exitOnStartFailure, FileOffsetClock, loadConfig, runComponents, stopOnSignals, stoppingCheck } = await import('@wirehook/platform');
const { embeddedConfigSchema } = await import('./config.ts');
const { createEmbedded } = await import('./create-embedded.ts');

const config = loadConfig(embeddedConfigSchema, process.env, 'wirehook');
const logger = createLogger({ name: 'wirehook', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
const clock = config.WIREHOOK_TEST_CLOCK_FILE ? new FileOffsetClock(config.WIREHOOK_TEST_CLOCK_FILE) : systemClock;
// Its stop signals are taken before anything is built (stopOnSignals, as a service's): a SIGTERM
// while the store opens is heard — as PID 1 in a container, a signal's default action is none,
// and `docker stop` would wait for its SIGKILL — and a Ctrl-C from the moment the banner shows
// stops what started, rather than ending the process outright; a second SIGTERM while it drains
// changes nothing, a second Ctrl-C half a second or more after the first ends it at once (130).
const stop = stopOnSignals(logger, ['SIGTERM', 'SIGINT']);
const embedded = (() => {
  try {
    return createEmbedded(config, { clock, logger });
  } catch (err) {
    return exitOnStartFailure('wirehook', logger, err);
  }
})();

// Tracing is stopped last: it exports the spans of the work drained before it. The process sends
// webhooks (its dispatcher and in-process relay): a stop lets the sends in flight finish, as a
// dispatcher's does (core's senderStopMs; 20 s would cut a send waiting for a connection and then
// answering slowly, recorded failed though it may have gone out, and sent again), after the
// listeners' drain, which goes first while the dispatcher still sends (core's embeddedStopMs).
const deadlineMs = embeddedStopMs(config.DELIVERY_TIMEOUT_MS);
// Asked to stop already (while it was built): runComponents starts nothing, and the process ends.
const running = runComponents([tracing, ...embedded.components], {
  logger,
  deadlineMs,
  stopWhen: stop.signal,
  onStopping: () => embedded.readiness.push(stoppingCheck),
});
process.stderr.write(
  `${[
    '',
    `Wirehook (embedded mode): API on http://localhost:${config.PORT}/v1, portal on :${config.PORTAL_PORT}, MCP on http://localhost:${config.PORT}/mcp, ` +
      `metrics on ${config.METRICS_HOST}:${config.METRICS_PORT}/metrics, data in ${config.DATA_DIR}`,
    'First time? In another shell:',
    '  ./dev pnpm -s admin org create --name "My company"          # prints {"id":"org_…",…}',
    '  ./dev pnpm -s admin key create --org org_… --env test        # prints {"key":"sk_test_…",…}',
    `  curl -H "Authorization: Bearer sk_test_…" http://localhost:${config.PORT}/v1/consumers`,
    '',
  ].join('\n')}\n`,
);
const allStarted = await running.catch((err: unknown) => exitOnStartFailure('wirehook', logger, err));
// A stop during the start (Ctrl-C right after the banner) ends the process once what started has stopped.
if (allStarted) logger.info({ port: config.PORT, dataDir: config.DATA_DIR }, 'wirehook ready');
