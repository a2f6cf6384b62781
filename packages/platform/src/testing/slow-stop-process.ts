// A service process whose one component takes STOP_MS to stop (SIGUSR2 ends it sooner), run by runService with
// STOP_DEADLINE_MS (when set) as its stopDeadlineMs, and EXIT_WITH_PARENT=1 as WIREHOOK_EXIT_WITH_PARENT.
// lifecycle.test.ts stops it with SIGTERM.
// With STOP_DURING_START set it is three components instead, the second of which is still
// starting when the SIGTERM comes (its start ends only after it): each says on stdout, as a JSON
// line, when it starts and stops; the first and the third hold a timer that keeps the process
// alive until they are stopped. With STOP_DURING_START=fail the second one's start fails then.
// With LEAVE_OPEN=1 a second component's stop leaves a timer running (as a library may); with
// FLOOD_BYTES=N too, that stop first logs about N bytes of lines ({"msg":"flood","i":k}), and the
// process says on stderr when its HELD_AFTER_STOP line is handed to stdout (the test then reads).
// With STOP_DURING_BUILD set the SIGTERM comes while runService's `build` runs (it says
// "building"): `release` hears the signal, says "lease given up" and rejects with its reason (a
// MongoDB layout upgrade); `ignore` never settles; `late` ignores it and returns a component
// 100 ms after the SIGTERM (the component says "late started" if it is started); `fail` rejects
// with an error of its own when it hears the stop ("a newer layout"); `stdin` (with EXIT_WITH_PARENT=1)
// returns that component as stdin closes, the close that also asks the stop.
import { type Component, HELD_AFTER_STOP } from '../lifecycle.ts';
import { runService } from '../service.ts';

const env = (name: string): string | undefined => process.env[name];
const stopMs = Number(env('STOP_MS'));
const deadline = env('STOP_DEADLINE_MS');
const say = (msg: string): void => void process.stdout.write(`${JSON.stringify({ msg })}\n`);
const floodBytes = Number(env('FLOOD_BYTES') ?? 0);

if (floodBytes > 0) {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  let queuedAt: number | undefined;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const written = write(chunk, ...rest);
    if (String(chunk).includes(HELD_AFTER_STOP)) {
      queuedAt = performance.now();
      process.stderr.write(`held-after-stop queued (${process.stdout.writableLength} bytes unwritten)\n`);
    }
    return written;
  }) as typeof process.stdout.write;
  // How long the exit waited after that line: under STOPPED_LINGER_MS when it waited for the writes, not the fallback.
  process.on('exit', () => queuedAt !== undefined && process.stderr.write(`exited ${Math.round(performance.now() - queuedAt)} ms after\n`));
}

/** About `bytes` of numbered lines, in one write: stdout holds what its reader has not taken. */
function flood(bytes: number): void {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `${JSON.stringify({ msg: 'flood', i })}\n`;
    lines.push(line);
    size += line.length;
  }
  process.stdout.write(lines.join(''));
}

/** A component that keeps the process alive from its start to its stop. */
function holding(name: string): Component {
  let timer: NodeJS.Timeout | undefined;
  return {
    name,
    start: async () => {
      timer = setInterval(() => {}, 60_000);
      say(`${name} started`);
    },
    stop: async () => {
      clearInterval(timer);
      say(`${name} stopped`);
    },
  };
}

/** A build the SIGTERM comes during (STOP_DURING_BUILD). */
function building(mode: string, signal: AbortSignal): Promise<Component[]> {
  say('building');
  return new Promise((resolve, reject) => {
    if (mode === 'release') {
      signal.addEventListener('abort', () => {
        say('lease given up');
        reject(signal.reason);
      });
    } else if (mode === 'fail') {
      signal.addEventListener('abort', () => reject(new Error('a newer layout')));
    } else if (mode === 'stdin') {
      // After runService's own listener of the close (listeners run in order): the build ends in the stop's turn.
      process.stdin.once('close', () => resolve([holding('late')]));
    } else if (mode === 'late') {
      process.once('SIGTERM', () => setTimeout(() => resolve([holding('late')]), 100));
    }
    // 'ignore': never settles (its timer keeps the process alive, as a wait on a server would).
    setInterval(() => {}, 60_000);
  });
}

const inFlight: Component = {
  name: 'in-flight',
  start: () =>
    new Promise<void>((resolve, reject) => {
      process.once('SIGTERM', () => setTimeout(env('STOP_DURING_START') === 'fail' ? () => reject(new Error('could not start')) : resolve, 100));
      say('in-flight starting');
    }),
  stop: async () => say('in-flight stopped'),
};

await runService(
  'slow-stop',
  {
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    METRICS_PORT: Number(env('METRICS_PORT')),
    METRICS_HOST: '127.0.0.1',
    WIREHOOK_EXIT_WITH_PARENT: env('EXIT_WITH_PARENT') === '1',
    ...(deadline === undefined ? {} : { stopDeadlineMs: Number(deadline) }),
  },
  ({ signal }) => {
    // Said after runService's own handler of it has run (listeners run in order).
    if (env('EXIT_WITH_PARENT') === '1') process.stdin.once('close', () => say('stdin closed'));
    const duringBuild = env('STOP_DURING_BUILD');
    if (duringBuild !== undefined) return building(duringBuild, signal);
    return env('STOP_DURING_START')
      ? [holding('first'), inFlight, holding('late')]
      : [
          ...(env('LEAVE_OPEN') === '1'
            ? [
                {
                  name: 'leaky',
                  start: async () => {},
                  stop: async () => {
                    if (floodBytes > 0) flood(floodBytes);
                    setInterval(() => {}, 60_000);
                  },
                },
              ]
            : []),
          {
            name: 'slow',
            start: async () => {},
            // STOP_MS, or until SIGUSR2 ends it sooner.
            stop: () =>
              new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, stopMs);
                process.once('SIGUSR2', () => {
                  clearTimeout(timer);
                  resolve();
                });
              }),
          },
        ];
  },
);
