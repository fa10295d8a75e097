// A stand-in for a Hookstream service, for service-child.test.ts: it serves /readyz on HTTP_PORT,
// or on OPS_PORT when set (and 404 on HTTP_PORT), as a service with a public API does
// (503 until FAKE_READY_AFTER_MS has passed, then 200), or first writes FAKE_STDERR_LINES lines
// on stderr and exits FAKE_EXIT_CODE; FAKE_IGNORE_SIGTERM=1 makes it survive SIGTERM.
const http = require('node:http');

const env = process.env;
console.log(`fake service on ${env.HTTP_PORT}`);
if (env.FAKE_EXIT_CODE) {
  for (let i = 1; i <= Number(env.FAKE_STDERR_LINES ?? 0); i++) console.error(`stderr line ${i}`);
  process.exitCode = Number(env.FAKE_EXIT_CODE);
} else {
  const readyAt = Date.now() + Number(env.FAKE_READY_AFTER_MS ?? 0);
  const ops = http.createServer((req, res) => {
    res.statusCode = req.url === '/readyz' && Date.now() >= readyAt ? 200 : 503;
    res.end();
  });
  ops.listen(Number(env.OPS_PORT ?? env.HTTP_PORT), '127.0.0.1');
  if (env.OPS_PORT) {
    const api = http.createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    api.listen(Number(env.HTTP_PORT), '127.0.0.1');
  }
  process.on('SIGTERM', () => {
    if (env.FAKE_IGNORE_SIGTERM !== '1') process.exit(0);
  });
}
