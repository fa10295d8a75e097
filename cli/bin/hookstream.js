#!/usr/bin/env node
'use strict';
// Entry point of the `hookstream` CLI; the code is compiled TypeScript in ../dist.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `hookstream: Node ${process.versions.node} is not supported (Node 20 reached end of life in April 2026); ` +
      'run it through npm (npx hookstream, npm start, npm test), which uses the Node 24 that `npm ci` installs.\n',
  );
  process.exit(1);
}
require('../dist/main.js')
  .main(process.argv)
  .catch((error) => {
    process.stderr.write(`hookstream: ${error && error.message ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
