/*
 * OpenAPI 3.1 of the partner and operator APIs, made from the same zod schemas the routes validate
 * with (schemas.ts, admin-schemas.ts), served at /openapi.json and checked against real answers by
 * the tests. The paths are in portal-paths.ts and admin-paths.ts.
 */
import { createDocument } from 'zod-openapi';
import { adminPaths } from './admin-paths';
import { consolePaths } from './console-paths';
import { portalPaths } from './portal-paths';
import { adminRetryPaths, portalRetryPaths } from './retry-paths';
import { selfServicePaths } from './portal-self-service-paths';
import { notificationPaths } from './notification-paths';

export function deliveryLogOpenApi(): object {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hookstream delivery log: partner and operator APIs',
      version: '1.0.0',
      description:
        'Partner API (/api/portal/v1): a partner sees its own callbacks (every attempt, the body as sent), its own inbound webhooks ' +
        'with their documents and its endpoints’ health; it resends a dead-lettered callback, retries a failing one now, sends test events to its endpoints, rotates its own key, manages its own ' +
        'callback endpoints and rotates its signing secret (those changes with the API key only). Authenticate with ' +
        'the x-api-key used on the webhook, or a portal token an operator issued (Authorization: Bearer). Another partner’s ids answer ' +
        '404, as unknown ones do.\n\n' +
        'Operator API (/api/admin/v1): everything across partners, onboarding (the same validation as `hookstream partners`), dead ' +
        'letters and their replay (as `hookstream dlq`), portal tokens and the audit trail. Authenticate with an operator token from ' +
        '`hookstream operators create` (Authorization: Bearer); a viewer reads, an operator also writes, every write names its reason.\n\n' +
        'Lists are newest first; pass next_cursor as cursor for the next page. Errors have the inbound contract’s body.',
    },
    tags: [
      { name: 'partner', description: 'A partner’s own data (/api/portal/v1)' },
      { name: 'operator', description: 'The insurer’s operators (/api/admin/v1)' },
      { name: 'console', description: 'Signing in to the web console at /console/' },
    ],
    components: {
      securitySchemes: {
        partnerApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        portalToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A portal token an operator issued for the partner',
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An operator token (hso_…) from `hookstream operators create`',
        },
      },
    },
    paths: {
      ...portalPaths,
      ...portalRetryPaths,
      ...selfServicePaths,
      ...notificationPaths,
      ...adminPaths,
      ...adminRetryPaths,
      ...consolePaths,
    },
  });
}
