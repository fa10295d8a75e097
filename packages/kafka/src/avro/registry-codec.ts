import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { sleep } from '@hookstream/runtime';
import { AvroInvalidError, RegistryUnavailableError, SchemaIncompatibleError, describeError } from '@hookstream/errors';
import type { ResolvedTopic } from '../topics';
import { readSchemaFile, type SchemaFile } from './schema-files';

/** Compatibility every Hookstream subject gets: new readers can read old records. */
export const SUBJECT_COMPATIBILITY = 'BACKWARD';

/** Subject of a topic's record values: Confluent's TopicNameStrategy, the default of every Confluent serializer. */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** How long one request to the registry may take. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Tries of a request that got no answer (timed out, its connection cut): a registry stalled for a
 * moment (a GC pause, a busy host) should not fail a service's start or an operator's command, and
 * every request here is idempotent (setting a subject's compatibility, registering a schema it may
 * hold already). A refused connection is not tried again: nothing listens there.
 */
const TRIES = 3;
const RETRY_PAUSE_MS = 500;

/** Whether a request failed for want of an answer, not because nothing listens. */
function unanswered(error: unknown): boolean {
  const e = error as { name?: unknown; cause?: { code?: unknown; name?: unknown } } | undefined;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return true;
  const code = e?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED';
}

/** Talks to the registry's Confluent-compatible REST API; only what registration needs. */
async function registryRequest(baseUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  let response: Response;
  for (let attempt = 1; ; attempt++) {
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { accept: CONTENT_TYPE, ...(body === undefined ? {} : { 'content-type': CONTENT_TYPE }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      break;
    } catch (error) {
      if (attempt < TRIES && unanswered(error)) {
        await sleep(RETRY_PAUSE_MS * attempt);
        continue;
      }
      const tries = attempt > 1 ? ` (${attempt} tries)` : '';
      throw new RegistryUnavailableError(`schema registry at ${baseUrl} is unreachable: ${describeError(error)}${tries}`, error);
    }
  }
  const text = await response.text();
  let json: unknown = text;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // keep the text: some errors are not JSON
  }
  if (response.status >= 500) {
    throw new RegistryUnavailableError(`schema registry answered ${response.status} to ${method} ${path}: ${text.slice(0, 200)}`);
  }
  return { status: response.status, json };
}

/**
 * Registers `schemaText` under `subject` with BACKWARD compatibility and returns its id.
 * Sets the subject's compatibility before registering, because Apicurio's global default
 * is NONE and would accept an incompatible second version.
 */
export async function registerSubjectSchema(baseUrl: string, subject: string, schemaText: string): Promise<number> {
  const encoded = encodeURIComponent(subject);
  const setCompatibility = () => registryRequest(baseUrl, 'PUT', `/config/${encoded}`, { compatibility: SUBJECT_COMPATIBILITY });
  const before = await setCompatibility();
  const registered = await registryRequest(baseUrl, 'POST', `/subjects/${encoded}/versions`, { schema: schemaText });
  if (registered.status === 409) throw new SchemaIncompatibleError(subject, registered.json);
  if (registered.status !== 200) {
    throw new AvroInvalidError(`registry refused the schema for ${subject} (${registered.status}): ${JSON.stringify(registered.json)}`);
  }
  if (before.status >= 400) await setCompatibility(); // the subject did not exist before registration
  const id = (registered.json as { id?: unknown }).id;
  if (typeof id !== 'number') throw new AvroInvalidError(`registry answered no schema id for ${subject}`);
  return id;
}

interface TopicSchema {
  id: number;
  schema: SchemaFile;
}

/**
 * Encodes and decodes record values in the Confluent wire format (magic byte 0, 4-byte
 * big-endian schema id, Avro binary), so any Confluent-compatible client in another
 * language decodes them with nothing but the registry.
 */
export class AvroCodec {
  private readonly registry: SchemaRegistry;
  private readonly topics = new Map<string, TopicSchema>();

  constructor(
    private readonly registryUrl: string,
    private readonly schemasDir: string,
  ) {
    this.registry = new SchemaRegistry({ host: registryUrl });
  }

  /** Registers the value schema of each topic (idempotent: the same text gets the same id). */
  async registerTopics(topics: readonly Pick<ResolvedTopic, 'topic' | 'schemaFile'>[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const files = new Map<string, SchemaFile>();
    for (const t of topics) {
      let schema = files.get(t.schemaFile);
      if (!schema) {
        schema = readSchemaFile(this.schemasDir, t.schemaFile);
        files.set(t.schemaFile, schema);
      }
      const id = await registerSubjectSchema(this.registryUrl, valueSubject(t.topic), schema.canonicalText);
      this.topics.set(t.topic, { id, schema });
      ids.set(t.topic, id);
    }
    return ids;
  }

  /** The registered schema id of a topic's values. */
  schemaId(topic: string): number {
    const entry = this.topics.get(topic);
    if (!entry) throw new AvroInvalidError(`no schema registered for topic ${topic}: call registerTopics first`);
    return entry.id;
  }

  /** Encodes `value` for `topic`; throws AvroInvalidError naming the invalid paths. */
  async encode(topic: string, value: unknown): Promise<Buffer> {
    const entry = this.topics.get(topic);
    if (!entry) throw new AvroInvalidError(`no schema registered for topic ${topic}: call registerTopics first`);
    const paths: string[] = [];
    if (!entry.schema.type.isValid(value, { errorHook: (path) => paths.push(path.join('.') || '(root)') })) {
      throw new AvroInvalidError(`value does not fit ${entry.schema.file} at: ${paths.join(', ')}`, { details: { paths } });
    }
    try {
      return await this.registry.encode(entry.id, value);
    } catch (error) {
      throw this.classify(error, `could not encode a ${topic} record`);
    }
  }

  /**
   * Decodes a Confluent-framed value. With `topic`, the record is read into this code's
   * schema for the topic (Avro schema resolution), so records written with an older
   * compatible schema come out in today's shape.
   */
  async decode(buffer: Buffer, topic?: string): Promise<unknown> {
    if (buffer.length < 5 || buffer[0] !== 0) {
      throw new AvroInvalidError('not a Confluent-framed Avro value (magic byte 0 and a schema id expected)');
    }
    const reader = topic ? this.topics.get(topic) : undefined;
    try {
      return await this.registry.decode(buffer, reader ? { [SchemaType.AVRO]: { readerSchema: reader.schema.type } } : undefined);
    } catch (error) {
      throw this.classify(error, 'could not decode a record');
    }
  }

  /**
   * Registry HTTP failures surface from the library as `ResponseError` with a status; its HTTP
   * client reports a refused connection or a timeout as status 400 with the socket error in
   * the message. Everything else (avsc, the library's argument and validation errors, an
   * unknown schema id) means the record itself cannot be encoded or decoded.
   */
  private classify(error: unknown, what: string): Error {
    const e = error as { name?: unknown; status?: unknown };
    if (e?.name === 'ResponseError' && typeof e.status === 'number') {
      const transport = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|socket|network|timeout/i.test(describeError(error));
      if (e.status >= 500 || e.status === 408 || e.status === 429 || (e.status === 400 && transport)) {
        return new RegistryUnavailableError(`${what}: schema registry unavailable (${describeError(error)})`, error);
      }
    }
    return new AvroInvalidError(`${what}: ${describeError(error)}`, { cause: error });
  }
}
