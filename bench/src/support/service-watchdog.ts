/**
 * Preloaded into every service a bench starts (node --require, see service-process.ts): the
 * service sends itself SIGTERM once the bench that started it is gone, so that a bench ended by
 * SIGKILL (which runs no exit hook to kill its children) leaves no service behind. It imports
 * nothing, so that it adds nothing to the service but one timer.
 */

/** In a service's env: the pid of the bench that started it. */
export const BENCH_PID_ENV = 'HOOKSTREAM_BENCH_PID';

// Inert anywhere else (the bench itself imports this file for the name above).
const benchPid = process.env[BENCH_PID_ENV];
if (benchPid !== undefined && benchPid === String(process.ppid)) {
  setInterval(() => {
    if (String(process.ppid) !== benchPid) process.kill(process.pid, 'SIGTERM');
  }, 500).unref();
}
