/**
 * `svc dev receiver [--port 9000] [--host 127.0.0.1] --secret whsec_...`: a local HTTP
 * receiver for `notify.webhook` that verifies each delivery's Standard Webhooks
 * signature (SPEC.md "notify.webhook") and prints it. For the README's first session.
 */
import { createServer } from 'node:http';
import { signStandardWebhook } from '../../adapters/actions/notify-webhook.ts';
import { listenError } from '../listen-error.ts';

/** Serves until SIGINT or SIGTERM; rejects without a secret or when the port is taken. */
export async function runDevReceiver(values: { port: number; host: string; secret?: string }): Promise<void> {
  const secret = values.secret;
  if (!secret) throw new Error('--secret is required (the webhook connection secret)');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const timestamp = Number(req.headers['webhook-timestamp']);
      const given = String(req.headers['webhook-signature'] ?? '').split(' ');
      const valid = Number.isInteger(timestamp) && given.includes(signStandardWebhook(secret, id, timestamp, body));
      process.stdout.write(`${JSON.stringify({ path: req.url, webhook_id: id, signature_valid: valid, body: safeJson(body) })}\n`);
      res.writeHead(valid ? 204 : 401).end();
    });
  });
  // A port in use is an 'error' event: rejected here, `svc` prints one line instead of a stack.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, { host: values.host, port: values.port, variable: '--port' })));
    server.listen(values.port, values.host, () => resolve());
  });
  process.stdout.write(`receiver listening on http://${values.host}:${values.port}/\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.close();
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
