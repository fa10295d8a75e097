import { ErrorCodes } from '@hookstream/errors';
import { DOCUMENT_URL_MAX_LENGTH, DOCUMENT_URL_PATTERN } from '../../domain/document-url';
import { WEBHOOK_PATH } from './webhook-routes';
import { CONTENT_ENCODINGS, acceptEncodingHeader } from './webhook-request';

const nonBlank = (description: string, maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S', description });

const errorResponse = (description: string, codes: string[]) => ({
  description,
  content: {
    'application/json': {
      schema: {
        allOf: [{ $ref: '#/components/schemas/ErrorBody' }, { type: 'object', properties: { error_code: { enum: codes } } }],
      },
    },
  },
});

/**
 * OpenAPI 3.1 description of the inbound webhook (spec 2.2-2.4, 4.2, 7.1), served at /openapi.json
 * and checked against real responses by the tests.
 */
export function ingressOpenApi(basePath: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hookstream inbound partner webhook',
      version: '1.0.0',
      description:
        'Partners and insurers report policy or claim status changes and document links. Identify with x-api-key. ' +
        'Send a unique request_id and reuse it when retrying: the same request_id with the same payload returns the stored response; ' +
        'with a different payload it is refused with 409. Retry anything but 200 and 409, honouring Retry-After.',
    },
    paths: {
      [`${basePath}${WEBHOOK_PATH}`]: {
        post: {
          operationId: 'receivePartnerWebhook',
          security: [{ apiKey: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookRequest' } } } },
          responses: {
            '200': {
              description: 'Received and stored durably (spec 2.3)',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessBody' } } },
            },
            '400': errorResponse(
              'Malformed JSON, a body that is not UTF-8, or required fields missing or invalid; the message names every problem by field ' +
                'path. MALFORMED_REQUEST_ERR: the request is not valid HTTP/1.1 (the connection is closed)',
              [ErrorCodes.INVALID_PAYLOAD, ErrorCodes.MALFORMED_REQUEST],
            ),
            '401': errorResponse('x-api-key missing, unknown, revoked, expired, or the partner is disabled', [ErrorCodes.INVALID_API_KEY]),
            '405': errorResponse('Only POST is allowed', [ErrorCodes.METHOD_NOT_ALLOWED]),
            '408': errorResponse('The request did not arrive in time (the connection is closed)', [ErrorCodes.REQUEST_TIMEOUT]),
            '409': errorResponse('The request_id was already used with a different payload; do not retry', [
              ErrorCodes.IDEMPOTENCY_KEY_REUSED,
            ]),
            '413': errorResponse('The body is larger than the limit', [ErrorCodes.PAYLOAD_TOO_LARGE]),
            '415': {
              ...errorResponse(
                `Content-Type is not application/json (UTF-8), or the Content-Encoding is not one of ${CONTENT_ENCODINGS.join(', ')}`,
                [ErrorCodes.UNSUPPORTED_MEDIA_TYPE],
              ),
              headers: {
                'Accept-Encoding': {
                  schema: { const: acceptEncodingHeader },
                  description: 'When the Content-Encoding is refused: the codings accepted besides identity (RFC 9110 12.5.3)',
                },
              },
            },
            '431': errorResponse('The request headers are larger than the server accepts (the connection is closed)', [
              ErrorCodes.HEADERS_TOO_LARGE,
            ]),
            '500': errorResponse('Unexpected server error; retry', [ErrorCodes.INTERNAL]),
            '503': {
              ...errorResponse(
                'Storage unavailable, the service starting or shutting down, or the same request_id still in flight; retry after Retry-After seconds',
                [ErrorCodes.SERVICE_UNAVAILABLE, ErrorCodes.REQUEST_IN_PROGRESS],
              ),
              headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying' } },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        WebhookRequest: {
          type: 'object',
          description: 'Spec 2.2. Unknown fields are accepted and ignored, but count for request_id idempotency.',
          required: ['transaction_number', 'transaction_type', 'status', 'documents'],
          properties: {
            request_id: {
              type: 'string',
              pattern: '^[\\x21-\\x7e]{1,128}$',
              description: 'Idempotency key: 1-128 visible ASCII characters',
            },
            transaction_number: nonBlank('Policy or claim transaction identifier', 100),
            transaction_type: {
              type: 'string',
              pattern: '^\\s*([Pp][Oo][Ll][Ii][Cc][Yy]|[Cc][Ll][Aa][Ii][Mm])\\s*$',
              description: 'POLICY or CLAIM, any case',
            },
            status: nonBlank('Current transaction status', 100),
            documents: {
              type: 'array',
              minItems: 1,
              maxItems: 50,
              items: {
                type: 'object',
                required: ['type', 'url'],
                properties: {
                  type: nonBlank('Document type, e.g. POLICY_CERTIFICATE', 100),
                  url: {
                    type: 'string',
                    pattern: DOCUMENT_URL_PATTERN,
                    maxLength: DOCUMENT_URL_MAX_LENGTH,
                    description:
                      'Absolute http(s) URL, taken as sent: a DNS name (xn-- form for international names), dotted IPv4 or ' +
                      'bracketed IPv6 host; no user name or password; port 1-65535; no whitespace, control or invisible ' +
                      'formatting character, and no backslash. The pattern is the whole rule the server applies.',
                  },
                  filename: nonBlank('Original file name', 255),
                },
              },
            },
          },
        },
        SuccessBody: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'data', 'message', 'code', 'request_id'],
          properties: {
            status: { const: 'success' },
            data: {
              type: 'object',
              additionalProperties: false,
              required: ['request_id', 'transaction_number', 'transaction_type', 'journey_status', 'status'],
              properties: {
                request_id: { type: 'string' },
                transaction_number: { type: 'string' },
                transaction_type: { enum: ['POLICY', 'CLAIM'] },
                journey_status: { const: 'WEBHOOK_RECEIVED' },
                status: { enum: ['COMPLETED', 'FAILED'] },
              },
            },
            message: { type: 'string' },
            code: { const: 200 },
            request_id: { type: 'string', description: 'The request_id sent, or one assigned by the service when none was sent' },
          },
        },
        ErrorBody: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'data', 'message', 'code', 'error_code'],
          properties: {
            status: { const: 'failed' },
            data: { type: 'null' },
            message: { type: 'string' },
            code: { type: 'integer' },
            error_code: { type: 'string' },
          },
        },
      },
    },
  };
}
