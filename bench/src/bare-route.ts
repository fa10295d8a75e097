/**
 * The baseline of the ingress benchmark: a bare express 5 route that parses the JSON body and
 * returns a fixed JSON body. Prints its URL on stdout.
 */
import express from 'express';

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/api/integration/partner/webhook', (req, res) => {
  res.json({ status: 'success', code: 200, echo: typeof req.body === 'object' ? 'ok' : 'no' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
