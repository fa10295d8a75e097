import Ajv2020 from 'ajv/dist/2020';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: object;
}

export interface ApiAnswer {
  status: number;
  json: unknown;
  headers: Headers;
}

/**
 * Calls the delivery log's API with given credentials and checks every answer against the
 * OpenAPI document the service serves: its status is documented for the route, and its body fits.
 */
export class ApiClient {
  private readonly ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    // RFC 3339 date-times, as the spec's timestamps say (ajv knows no formats by itself).
    formats: { 'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/ },
  });

  private constructor(
    readonly baseUrl: string,
    readonly openapi: OpenApiDocument,
  ) {}

  static async open(baseUrl: string): Promise<ApiClient> {
    return new ApiClient(baseUrl, (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument);
  }

  /** The templated path of the spec that `path` matches. */
  routeOf(path: string): string | undefined {
    const bare = path.split('?')[0]!;
    return Object.keys(this.openapi.paths).find((route) => new RegExp(`^${route.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
  }

  get(path: string, headers: Record<string, string>): Promise<ApiAnswer> {
    return this.call('get', path, headers);
  }

  post(path: string, headers: Record<string, string>, body?: unknown): Promise<ApiAnswer> {
    return this.send('post', path, headers, body);
  }

  patch(path: string, headers: Record<string, string>, body?: unknown): Promise<ApiAnswer> {
    return this.send('patch', path, headers, body);
  }

  /** A request with a JSON body (or none), by the spec's lower-case method name. */
  send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ApiAnswer> {
    return this.call(
      method,
      path,
      { ...headers, 'content-type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
  }

  private async call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<ApiAnswer> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: method.toUpperCase(),
      headers,
      ...(body === undefined ? {} : { body }),
    });
    // 204: no body, as the spec documents it (no content).
    const json: unknown = response.status === 204 ? null : await response.json();
    const route = this.routeOf(path);
    const operation = route ? this.openapi.paths[route]![method] : undefined;
    if (operation) {
      const documented = operation.responses[String(response.status)];
      if (!documented)
        throw new Error(`${method} ${path} answered ${response.status}, which the spec does not document: ${JSON.stringify(json)}`);
      if (!documented.content) {
        if (json !== null) throw new Error(`${method} ${path} (${response.status}) answered a body the spec does not document`);
        return { status: response.status, json, headers: response.headers };
      }
      const validate = this.ajv.compile({ ...documented.content['application/json']!.schema, components: this.openapi.components });
      if (!validate(json))
        throw new Error(`${method} ${path} (${response.status}) does not fit the spec: ${JSON.stringify(validate.errors)}`);
    }
    return { status: response.status, json, headers: response.headers };
  }
}
